//! Expansion: turns a checked declaration into the function the user names when
//! registering it (`fn name() -> __mcp_<kind>_name`, [`function`]), and a marker type that
//! keeps the user's function callable as `name().call(..)` and implements
//! `Handler<Declared>` ([`handler`], with the parameters from [`params`]) and
//! `IntoToolRoute`, `IntoPromptRoute` or `IntoResourceRoute` ([`tool`], [`prompt`],
//! [`resource`]) through the public route constructors ([`route`]) and builders.

mod fallback;
mod function;
mod handler;
mod params;
mod prompt;
mod resource;
mod route;
mod tool;

use std::fmt;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;

use crate::attrs::{HandlerAttrs, HandlerKey};
use crate::check;
use crate::ctxt::Ctxt;
use crate::krate::Krate;
use crate::model::HandlerFn;

/// Which declaration macro is expanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    /// The keys the macro accepts, in the order its documentation lists them.
    fn keys(self) -> &'static [HandlerKey] {
        use HandlerKey::*;
        match self {
            Self::Tool => &[
                Name,
                Title,
                Description,
                ReadOnly,
                Destructive,
                Idempotent,
                OpenWorld,
                Task,
                Crate,
            ],
            Self::Prompt => &[Name, Title, Description, Complete, Crate],
            Self::Resource => &[
                Uri,
                Template,
                Name,
                Title,
                Description,
                MimeType,
                Complete,
                Crate,
            ],
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
        })
    }
}

/// The entry point of `#[tool]`, `#[prompt]` and `#[resource]`.
pub(crate) fn handler(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let ctxt = Ctxt::new();
    let attrs = HandlerAttrs::parse(&ctxt, &format!("#[{kind}]"), kind.keys(), attr);
    let krate = Krate::new(attrs.krate.as_ref());
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            ctxt.error_spanned_by(&item, format!("`#[{kind}]` goes on an `async fn`"));
            let errors = ctxt.finish();
            return quote!(#errors #item);
        }
    };
    let f = HandlerFn::from_item(&ctxt, item);
    check::handler(&ctxt, kind, &f, &attrs);
    if ctxt.has_errors() {
        let errors = ctxt.finish();
        // Inside an `impl` (a `self` receiver), a struct cannot be emitted: keep the method.
        if f.receiver.is_some() {
            let item = &f.item;
            return quote!(#errors #item);
        }
        let fallback = fallback::expand(kind, &f, &krate);
        return quote!(#errors #fallback);
    }
    let _ = ctxt.finish();
    let function = function::expand(kind, &f);
    let route = match kind {
        Kind::Tool => tool::expand(&f, &attrs, &krate),
        Kind::Prompt => prompt::expand(&f, &attrs, &krate),
        Kind::Resource => resource::expand(&f, &attrs, &krate),
    };
    quote!(#function #route)
}

/// What every declaration is called and described as.
struct Labels {
    /// The protocol name: `name = "..."`, or the function's name (unrawed).
    name: String,
    /// Where the name was written (for the uniqueness guard).
    name_span: Span,
    /// `.title(..)` and `.description(..)` builder calls, for those that are set.
    builders: TokenStream,
}

fn labels(f: &HandlerFn, attrs: &HandlerAttrs) -> Labels {
    let (name, name_span) = match &attrs.name {
        Some(name) => (name.value(), name.span()),
        None => (f.ident().unraw().to_string(), f.ident().span()),
    };
    let title = attrs.title.as_ref().map(|title| quote!(.title(#title)));
    let description = attrs
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .or_else(|| f.description.clone())
        .map(|text| quote!(.description(#text)));
    Labels {
        name,
        name_span,
        builders: quote!(#title #description),
    }
}

/// `.complete(argument, handler)` calls, one per `complete(..)` entry.
fn completions(attrs: &HandlerAttrs) -> TokenStream {
    attrs
        .complete
        .iter()
        .map(|c| {
            let (wire, handler) = (&c.wire, &c.handler);
            quote!(.complete(#wire, #handler))
        })
        .collect()
}

/// A module-level item whose name encodes the declared name, so that two declarations of
/// the same kind and name in one module fail to compile ("defined multiple times"), with
/// both errors on the names.
fn unique_name_guard(kind: &str, name: &str, span: Span) -> TokenStream {
    let encoded: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                format!("_{:x}_", c as u32)
            }
        })
        .collect();
    let guard = format_ident!(
        "{}_named_{}_must_be_unique_in_this_module",
        kind,
        encoded,
        span = span
    );
    quote_spanned! {span=>
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        const #guard: () = ();
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::{Kind, handler};

    #[test]
    fn a_crate_override_replaces_every_runtime_path() {
        let cases = [
            (
                Kind::Tool,
                quote!(crate = my::sdk, read_only),
                quote!(
                    async fn add(a: i64, ctx: Ctx) -> i64 {
                        a
                    }
                ),
            ),
            (
                Kind::Prompt,
                quote!(crate = my::sdk, complete(topic = topics)),
                quote!(
                    async fn ask(topic: String) -> String {
                        topic
                    }
                ),
            ),
            (
                Kind::Resource,
                quote!(template = "notes://{id}", crate = my::sdk),
                quote!(
                    async fn note(id: u32, ctx: Ctx) -> String {
                        String::new()
                    }
                ),
            ),
        ];
        for (kind, attr, item) in cases {
            let out = handler(kind, attr, item).to_string();
            assert!(!out.contains("compile_error"), "{out}");
            assert!(!out.contains("typemcp_server"), "{out}");
            assert!(out.contains("my :: sdk :: __private_v0_1"), "{out}");
        }
    }

    #[test]
    fn errors_come_with_a_fallback_through_the_override() {
        let out = handler(
            Kind::Tool,
            quote!(crate = my::sdk, nme = "x"),
            quote!(
                fn add() -> i64 {
                    1
                }
            ),
        )
        .to_string();
        assert_eq!(out.matches("compile_error").count(), 2, "{out}");
        assert!(
            out.contains("impl my :: sdk :: IntoToolRoute for __mcp_tool_add"),
            "{out}"
        );
        assert!(!out.contains("typemcp_server"), "{out}");
    }

    #[test]
    fn a_mirrored_argument_carries_its_header_and_loses_its_attribute() {
        let out = handler(
            Kind::Tool,
            quote!(),
            quote!(
                async fn query(#[arg(header = "Region")] region: String, sql: String) -> String {
                    sql
                }
            ),
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(!out.contains("# [arg"), "{out}");
        assert!(
            out.contains("(\"region\" , :: core :: option :: Option :: None , :: core :: option :: Option :: Some (\"Region\")"),
            "{out}"
        );
        assert!(out.contains("header_argument :: < String > ()"), "{out}");
        assert!(
            out.contains("(\"sql\" , :: core :: option :: Option :: None , :: core :: option :: Option :: None"),
            "{out}"
        );
    }

    #[test]
    fn raw_parameter_names_are_unrawed_on_the_wire() {
        let out = handler(
            Kind::Tool,
            quote!(),
            quote!(
                async fn r#match(r#type: String) -> String {
                    r#type
                }
            ),
        )
        .to_string();
        assert!(out.contains("(\"type\" ,"), "{out}");
        assert!(out.contains("extract (invocation , \"type\")"), "{out}");
        assert!(out.contains("Self > (\"match\" , self)"), "{out}");
    }
}
