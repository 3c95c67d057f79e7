//! What is emitted beside errors: `<Enum>Answered` and `<Enum>Asking` with the variants that
//! could be read, and an implementation of `Continuation` whose methods are never run (the
//! build fails), so that a mistake in the derive does not cascade into "`Continuation` is not
//! implemented" or "no variant named ..." errors at every use.

use proc_macro2::TokenStream;
use quote::quote;

use super::Model;
use super::expand::{answered_enum, answered_ident, asking_enum, asking_ident, awaitable_bounds};

pub(super) fn expand(model: &Model<'_>) -> TokenStream {
    let ident = &model.input.ident;
    let root = model.krate.root();
    let private = model.krate.private();
    let answered = answered_enum(model);
    let answered_ident = answered_ident(model);
    // Bound like the real `<Enum>Asking`: a type that cannot be asked is told so in
    // `Awaitable`'s words, once.
    let awaitable = awaitable_bounds(model);
    let asking = asking_enum(model, &awaitable);
    let asking_ident = asking_ident(model);
    let (impl_generics, ty_generics, _) = model.input.generics.split_for_impl();
    // A generic enum is refused; its stub states the trait's requirements (and those of
    // `<Enum>Asking`) as bounds so that it does not add errors of its own.
    let bounds = (!model.input.generics.params.is_empty()).then(|| {
        let predicates = model
            .input
            .generics
            .where_clause
            .iter()
            .flat_map(|w| w.predicates.iter());
        quote! {
            where #(#predicates,)* #(#awaitable,)* Self: #private::serde::Serialize
                + #private::serde::de::DeserializeOwned
                + ::core::clone::Clone
                + ::core::marker::Send
                + ::core::marker::Sync
                + 'static
        }
    });
    quote! {
        #answered

        #asking

        impl #impl_generics #root::state::Continuation for #ident #ty_generics #bounds {
            type Answered = #answered_ident #ty_generics;

            type Asking = #asking_ident #ty_generics;

            const VERSION: &'static str = "";

            fn questions(&self) -> ::std::vec::Vec<#root::state::Question> {
                ::core::unreachable!("the Continuation derive has compile errors")
            }

            fn split(
                _: #asking_ident #ty_generics,
            ) -> (Self, ::std::vec::Vec<#root::state::QuestionPrompt>) {
                ::core::unreachable!("the Continuation derive has compile errors")
            }

            fn answered(
                self,
                _: &#root::state::Answers<'_>,
            ) -> ::core::option::Option<#answered_ident #ty_generics> {
                ::core::unreachable!("the Continuation derive has compile errors")
            }
        }
    }
}
