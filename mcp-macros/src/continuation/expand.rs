//! The `<Enum>Answered` and `<Enum>Asking` enums and the `Continuation` implementation of a
//! checked state enum.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{Model, Shape, Variant};

pub(super) fn expand(model: &Model<'_>) -> TokenStream {
    let ident = &model.input.ident;
    let root = model.krate.root();
    let answered = answered_enum(model);
    let answered_ident = answered_ident(model);
    let asking = asking_enum(model, &awaitable_bounds(model));
    let asking_ident = asking_ident(model);
    let version = super::version::fingerprint(model.input);
    let questions = model.variants.iter().map(|v| {
        let name = &v.ident;
        let items = v.awaits.iter().map(|a| {
            let (key, ty) = (&a.wire, &a.ty);
            quote_spanned!(ty.span()=> #root::state::Question::of::<#ty>(#key))
        });
        quote!(Self::#name { .. } => ::std::vec![#(#items),*])
    });
    // The parameter of `answered`, out of reach of the user's names: a state field named
    // `answers`, bound by the variant's pattern, would otherwise shadow it.
    let answers_param = syn::Ident::new("answers", proc_macro2::Span::mixed_site());
    let attach = model.variants.iter().map(|v| {
        let pat = pattern(v);
        let name = &v.ident;
        let fields = field_names(v);
        let answers = v.awaits.iter().map(|a| {
            let (key, wire, ty) = (&a.key, &a.wire, &a.ty);
            quote_spanned!(ty.span()=> #key: #answers_param.read::<#ty>(#wire)?)
        });
        quote! {
            #pat => ::core::option::Option::Some(#answered_ident::#name { #(#fields,)* #(#answers,)* })
        }
    });
    let split = model.variants.iter().map(|v| {
        let name = &v.ident;
        let fields = field_names(v);
        let keys = v.awaits.iter().map(|a| &a.key);
        let state = pattern(v);
        let prompts = v.awaits.iter().map(|a| {
            let key = &a.key;
            quote_spanned! {a.ty.span()=>
                ::core::convert::Into::<#root::state::QuestionPrompt>::into(#key)
            }
        });
        quote! {
            #asking_ident::#name { #(#fields,)* #(#keys,)* } => (#state, ::std::vec![#(#prompts),*])
        }
    });
    // `UrlElicitation` is awaitable through its (empty) form, but must never be sent as one.
    let askable = model.variants.iter().flat_map(|v| &v.awaits).map(|a| {
        let ty = &a.ty;
        quote_spanned! {ty.span()=>
            #root::state::derive_support::AwaitedProbe::<#ty>::new().askable(());
        }
    });
    let bounds = awaitable_bounds(model);
    quote! {
        #answered

        #asking

        const _: () = {
            #[allow(dead_code)]
            fn __mcp_askable() {
                use #root::state::derive_support::Askable as _;
                #(#askable)*
            }
        };

        #[automatically_derived]
        impl #root::state::Continuation for #ident where #(#bounds,)* {
            type Answered = #answered_ident;

            type Asking = #asking_ident;

            const VERSION: &'static str = #version;

            fn questions(&self) -> ::std::vec::Vec<#root::state::Question> {
                match self { #(#questions,)* }
            }

            fn split(
                asking: #asking_ident,
            ) -> (Self, ::std::vec::Vec<#root::state::QuestionPrompt>) {
                match asking { #(#split,)* }
            }

            fn answered(
                self,
                #answers_param: &#root::state::Answers<'_>,
            ) -> ::core::option::Option<#answered_ident> {
                match self { #(#attach,)* }
            }
        }
    }
}

/// One bound per awaited type, on the impl and on `<Enum>Asking`: a type that cannot be asked
/// is reported once, at its name (the two reports are the same diagnostic), and every use
/// inside them takes the bound as given.
pub(super) fn awaitable_bounds(model: &Model<'_>) -> Vec<TokenStream> {
    let root = model.krate.root();
    model
        .variants
        .iter()
        .flat_map(|v| &v.awaits)
        .map(|a| {
            let ty = &a.ty;
            let root = respan(root.clone(), ty.span());
            quote_spanned!(ty.span()=> #ty: #root::state::Awaitable)
        })
        .collect()
}

/// `tokens` with every span set to `span` (so a diagnostic about them points there).
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// `<Enum>Answered`.
pub(super) fn answered_ident(model: &Model<'_>) -> syn::Ident {
    format_ident!("{}Answered", model.input.ident)
}

/// The `<Enum>Answered` enum: each variant with its fields and its awaited answers, each a
/// `Reply` (accepted, declined or cancelled: `Round` asks again for anything else). Tuple
/// variants (refused, so only ever seen by the fallback) keep their fields.
pub(super) fn answered_enum(model: &Model<'_>) -> TokenStream {
    let root = model.krate.root();
    let mirror = Mirror {
        ident: answered_ident(model),
        doc: "with the answers each state awaited attached",
        variant_doc: "with its answers",
        field_doc: |wire| format!("The answer to `{wire}`."),
        bounds: &[],
    };
    mirror.expand(
        model,
        |ty| quote_spanned!(ty.span()=> #root::state::Reply<#ty>),
    )
}

/// `<Enum>Asking`.
pub(super) fn asking_ident(model: &Model<'_>) -> syn::Ident {
    format_ident!("{}Asking", model.input.ident)
}

/// The `<Enum>Asking` enum, what `Round::ask` takes: each variant with its fields and, per
/// awaited key, what its question is asked with (`<T as Awaitable>::AskedWith`), so a
/// question asked the wrong way, a missing one or a key the state does not await is a type
/// error at the handler's `ask`. Tuple variants (refused, so only ever seen by the fallback)
/// keep their fields.
pub(super) fn asking_enum(model: &Model<'_>, bounds: &[TokenStream]) -> TokenStream {
    let root = model.krate.root();
    let mirror = Mirror {
        ident: asking_ident(model),
        doc: "with what each question it awaits is asked with, as `Round::ask` takes it",
        variant_doc: "with what its questions are asked with",
        field_doc: |wire| format!("What the question `{wire}` is asked with."),
        bounds,
    };
    mirror.expand(model, |ty| {
        let root = respan(root.clone(), ty.span());
        quote_spanned!(ty.span()=> <#ty as #root::state::Awaitable>::AskedWith)
    })
}

/// An enum that mirrors the state enum: the same variants, each with the state's fields and
/// one more field per awaited key, whose type `awaited` makes of the key's type.
struct Mirror<'a> {
    ident: syn::Ident,
    /// What the enum is, after the state's name.
    doc: &'a str,
    /// What a variant is, after the state's variant.
    variant_doc: &'a str,
    /// The doc of an awaited key's field, given the key as on the wire.
    field_doc: fn(&str) -> String,
    /// Bounds added to the state's `where` clause.
    bounds: &'a [TokenStream],
}

impl Mirror<'_> {
    fn expand(
        &self,
        model: &Model<'_>,
        awaited: impl Fn(&syn::Type) -> TokenStream,
    ) -> TokenStream {
        let state = &model.input.ident;
        let vis = &model.input.vis;
        let ident = &self.ident;
        let doc = format!(
            "[`{state}`] {} (generated by `#[derive(Continuation)]`).",
            self.doc
        );
        let generics = &model.input.generics;
        let predicates: Vec<TokenStream> = generics
            .where_clause
            .iter()
            .flat_map(|w| w.predicates.iter())
            .map(ToTokens::to_token_stream)
            .chain(self.bounds.iter().cloned())
            .collect();
        let where_clause = (!predicates.is_empty()).then(|| quote!(where #(#predicates,)*));
        let phantom = phantom_variant(generics);
        let variants = model.variants.iter().map(|v| {
            let name = &v.ident;
            let doc = format!("[`{state}::{name}`] {}.", self.variant_doc);
            let extra = v.awaits.iter().map(|a| {
                let (key, ty) = (&a.key, &a.ty);
                let doc = (self.field_doc)(&a.wire);
                let ty = awaited(ty);
                quote_spanned!(a.ty.span()=> #[doc = #doc] #key: #ty)
            });
            match &v.shape {
                Shape::Tuple(types) => quote!(#[doc = #doc] #name(#(#types),*)),
                Shape::Unit | Shape::Named(_) => {
                    let fields = named_fields(v).iter().map(|(f, ty)| {
                        let doc = format!("The state's `{f}`.");
                        quote!(#[doc = #doc] #f: #ty)
                    });
                    quote!(#[doc = #doc] #name { #(#fields,)* #(#extra,)* })
                }
            }
        });
        quote! {
            #[doc = #doc]
            #[allow(clippy::large_enum_variant)]
            #vis enum #ident #generics #where_clause {
                #(#variants,)*
                #phantom
            }
        }
    }
}

/// A generic enum is refused, but its fallback `<Enum>Answered` and `<Enum>Asking` still take
/// the generics: a hidden variant uses them all (an unused parameter would be one more
/// error).
fn phantom_variant(generics: &syn::Generics) -> TokenStream {
    let lifetimes = generics.lifetimes().map(|l| &l.lifetime);
    let types = generics.type_params().map(|t| &t.ident);
    if generics.lifetimes().next().is_none() && generics.type_params().next().is_none() {
        return TokenStream::new();
    }
    quote! {
        #[doc(hidden)]
        __Generics(::core::marker::PhantomData<fn() -> (#(&#lifetimes (),)* #(#types,)*)>),
    }
}

fn named_fields(v: &Variant) -> &[(syn::Ident, syn::Type)] {
    match &v.shape {
        Shape::Named(fields) => fields,
        Shape::Unit | Shape::Tuple(_) => &[],
    }
}

fn field_names(v: &Variant) -> impl Iterator<Item = &syn::Ident> {
    named_fields(v).iter().map(|(f, _)| f)
}

/// The pattern binding a variant's fields by name.
fn pattern(v: &Variant) -> TokenStream {
    let name = &v.ident;
    match &v.shape {
        Shape::Unit => quote!(Self::#name),
        Shape::Named(_) => {
            let fields = field_names(v);
            quote!(Self::#name { #(#fields),* })
        }
        Shape::Tuple(_) => quote!(Self::#name(..)),
    }
}
