//! `#[derive(Continuation)]`: a state enum whose variants name the questions they await
//! (`#[awaits(key: Type, ...)]`). Generates `<Enum>Answered`, the same variants with each
//! awaited answer attached as a typed `Reply<Type>` field (accepted, declined or cancelled),
//! so an answer that a state did not ask for cannot be read from it; `<Enum>Asking`, the
//! same variants with what each awaited question is asked with
//! (`<Type as Awaitable>::AskedWith`), so a question asked the wrong way, left out or not
//! awaited cannot be asked; and the state's fingerprint ([`version`]), so a state minted for
//! another declaration is refused. Each awaited type must be `Awaitable` (a trait bound, with
//! its own diagnostic).
//!
//! Parse (this module) → check (beside parsing: each rule reports and goes on) → expand
//! ([`expand`]), or, when something was reported, stubs of the same items ([`fallback`]) so
//! that uses of the enum, of `<Enum>Answered` and of `<Enum>Asking` report nothing more.

mod expand;
mod fallback;
mod version;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Data, DeriveInput, Fields, Ident, Token, Type};

use crate::attrs::ContainerAttrs;
use crate::ctxt::Ctxt;
use crate::krate::Krate;

/// `key: Type` in `#[awaits(...)]`.
struct Awaited {
    /// The key as written (`r#type`): the field of the answered variant.
    key: Ident,
    /// The key in `inputRequests` / `inputResponses` (`type`).
    wire: String,
    ty: Type,
}

/// The fields of a variant.
enum Shape {
    Unit,
    Named(Vec<(Ident, Type)>),
    /// Refused; kept so the fallback still declares the variant.
    Tuple(Vec<Type>),
}

/// One variant of the state enum.
struct Variant {
    ident: Ident,
    shape: Shape,
    awaits: Vec<Awaited>,
}

/// The whole derive input, read once.
struct Model<'a> {
    input: &'a DeriveInput,
    variants: Vec<Variant>,
    krate: Krate,
}

pub(crate) fn derive(item: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let ctxt = Ctxt::new();
    let attrs = ContainerAttrs::parse(&ctxt, "continuation", &input.attrs);
    let model = Model {
        input: &input,
        variants: variants(&ctxt, &input),
        krate: Krate::new(attrs.krate.as_ref()),
    };
    awaits_goes_on_variants(&ctxt, &input);
    must_not_be_generic(&ctxt, &input);
    if ctxt.has_errors() {
        let errors = ctxt.finish();
        let fallback = fallback::expand(&model);
        return quote!(#errors #fallback);
    }
    let _ = ctxt.finish();
    expand::expand(&model)
}

/// The state travels inside a signed token and is read back as `Self`: there is no type to
/// instantiate generics with.
fn must_not_be_generic(ctxt: &Ctxt, input: &DeriveInput) {
    if !input.generics.params.is_empty() {
        ctxt.error_spanned_by(&input.generics, "a continuation state cannot be generic");
    }
}

/// `#[awaits]` lists what one state waits for, so it belongs on a variant.
fn awaits_goes_on_variants(ctxt: &Ctxt, input: &DeriveInput) {
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("awaits")) {
        ctxt.error_spanned_by(
            attr,
            "`#[awaits(...)]` goes on a variant: each state lists the questions it waits for",
        );
    }
}

fn variants(ctxt: &Ctxt, input: &DeriveInput) -> Vec<Variant> {
    let Data::Enum(data) = &input.data else {
        ctxt.error_spanned_by(
            &input.ident,
            "`Continuation` goes on an enum: one variant per point where the handler waits",
        );
        return Vec::new();
    };
    data.variants
        .iter()
        .map(|v| {
            let shape = match &v.fields {
                Fields::Unit => Shape::Unit,
                Fields::Named(named) => Shape::Named(
                    named
                        .named
                        .iter()
                        .filter_map(|f| Some((f.ident.clone()?, f.ty.clone())))
                        .collect(),
                ),
                Fields::Unnamed(unnamed) => {
                    ctxt.error_spanned_by(
                        &v.ident,
                        "continuation variants are unit or have named fields",
                    );
                    Shape::Tuple(unnamed.unnamed.iter().map(|f| f.ty.clone()).collect())
                }
            };
            let mut awaits: Vec<Awaited> = Vec::new();
            for attr in v.attrs.iter().filter(|a| a.path().is_ident("awaits")) {
                let parser = |input: ParseStream<'_>| awaited_list(ctxt, input, &mut awaits);
                if let Err(err) = attr.parse_args_with(parser) {
                    ctxt.syn_error(err);
                }
            }
            let awaits = distinct_answers(ctxt, &shape, awaits);
            Variant {
                ident: v.ident.clone(),
                shape,
                awaits,
            }
        })
        .collect()
}

/// Reads `key: Type, ...`: a malformed entry is reported and the next one is read.
fn awaited_list(ctxt: &Ctxt, input: ParseStream<'_>, out: &mut Vec<Awaited>) -> syn::Result<()> {
    while !input.is_empty() {
        match awaited(input) {
            Ok(awaited) => out.push(awaited),
            Err(err) => {
                ctxt.syn_error(err);
                while !input.is_empty() && !input.peek(Token![,]) {
                    input.parse::<proc_macro2::TokenTree>()?;
                }
            }
        }
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(())
}

fn awaited(input: ParseStream<'_>) -> syn::Result<Awaited> {
    let key: Ident = input.parse().map_err(|err| {
        syn::Error::new(
            err.span(),
            "expected `key: Form`, the answer's key and the type it is asked with",
        )
    })?;
    if !input.peek(Token![:]) {
        return Err(input.error(format!(
            "expected `:` after `{key}`: `#[awaits({key}: Form)]`"
        )));
    }
    input.parse::<Token![:]>()?;
    let ty = input.parse()?;
    if !input.is_empty() && !input.peek(Token![,]) {
        return Err(input.error("expected `,` between awaited answers"));
    }
    let wire = key.unraw().to_string();
    Ok(Awaited { key, wire, ty })
}

/// An answer becomes a field of the answered variant, next to the state's own fields: two
/// with one name cannot both be there. The answers kept are those that can (so the fallback
/// declares no field twice).
fn distinct_answers(ctxt: &Ctxt, shape: &Shape, awaits: Vec<Awaited>) -> Vec<Awaited> {
    let fields: &[(Ident, Type)] = match shape {
        Shape::Named(fields) => fields,
        Shape::Unit | Shape::Tuple(_) => &[],
    };
    let mut kept: Vec<Awaited> = Vec::new();
    for a in awaits {
        if kept.iter().any(|b| b.wire == a.wire) {
            ctxt.error_spanned_by(
                &a.key,
                format!("`{}` is awaited twice in this state", a.wire),
            );
        } else if fields.iter().any(|(f, _)| f.unraw() == a.wire) {
            ctxt.error_spanned_by(
                &a.key,
                format!(
                    "`{}` is both a field of this state and an awaited answer",
                    a.wire
                ),
            );
        } else {
            kept.push(a);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::derive;

    #[test]
    fn a_crate_override_replaces_every_runtime_path() {
        let out = derive(quote! {
            #[continuation(crate = my::sdk)]
            enum Flow {
                #[awaits(r#type: Confirm)]
                Asking { target: String },
                Done,
            }
        })
        .to_string();
        assert!(!out.contains("typemcp_server"), "{out}");
        assert!(
            out.contains("impl my :: sdk :: state :: Continuation for Flow"),
            "{out}"
        );
        assert!(
            out.contains("Question :: of :: < Confirm > (\"type\")"),
            "{out}"
        );
        assert!(
            out.contains("answers . read :: < Confirm > (\"type\")"),
            "{out}"
        );
        assert!(
            out.contains("r#type : < Confirm as my :: sdk :: state :: Awaitable > :: AskedWith"),
            "{out}"
        );
        assert!(
            out.contains(
                "FlowAsking :: Asking { target , r#type , } => (Self :: Asking { target }"
            ),
            "{out}"
        );
    }

    #[test]
    fn errors_come_with_stub_items() {
        let out = derive(quote! {
            enum Flow {
                #[awaits(confirm Confirm, ok: Confirm)]
                Asking,
                Waiting(u64),
            }
        })
        .to_string();
        assert_eq!(out.matches("compile_error").count(), 2, "{out}");
        assert!(out.contains("enum FlowAnswered"), "{out}");
        assert!(out.contains("enum FlowAsking"), "{out}");
        assert!(out.contains("type Asking = FlowAsking"), "{out}");
        assert!(
            out.contains("impl :: typemcp_server :: state :: Continuation for Flow"),
            "{out}"
        );
    }
}
