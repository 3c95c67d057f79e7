//! `impl Handler<Declared>` for the marker type of a declaration: the one handler mechanism
//! that hand-registered closures go through too. The route constructors
//! (`ToolRoute::new(name, handler)`, …) take it from there.
//!
//! The parameters' extraction, description and requirements are written as closures in one
//! function body (`__mcp_parameters`): rustc reports an unsatisfied bound once per body and
//! span, so a parameter type that fits nowhere is one error, not one per use.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::params::Binding;
use crate::krate::Krate;
use crate::model::HandlerFn;

/// What the arguments schema of the handler is.
pub(super) enum Schema {
    /// An object with one property per described parameter (tools, prompts).
    Described,
    /// None (resources take no arguments).
    None,
}

pub(super) fn expand(
    f: &HandlerFn,
    marker: &Ident,
    krate: &Krate,
    bindings: &[Binding],
    schema: Schema,
) -> TokenStream {
    let ident = marker;
    let root = krate.root();
    let private = krate.private();
    let output = &f.output;
    let (locals, types): (Vec<_>, Vec<_>) = bindings.iter().map(|b| (&b.ident, &b.ty)).unzip();
    let values = bindings.iter().map(|b| &b.value);
    let entries = bindings.iter().filter_map(|b| b.describe.as_ref());
    let requires = bindings.iter().filter_map(|b| b.require.as_ref());
    // The user's future must be `Send`: asserted on the function's name.
    let call = quote_spanned!(ident.span()=> #private::send_future(#ident.call(#(#locals),*)));
    let argument_schema = match schema {
        Schema::Described => quote! {
            let params = (Self::__mcp_parameters().1)(generator);
            ::core::option::Option::Some(#private::schema_of(#private::object_schema(generator, params)))
        },
        Schema::None => quote! {
            let _ = generator;
            ::core::option::Option::None
        },
    };
    // Spanned like the call, so that a future that is not `Send` is reported once, there.
    let returned = quote_spanned!(ident.span()=> ::core::result::Result<
        impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send + 'static + use<>,
        #root::Rejection,
    >);
    let output_type = quote_spanned!(output.span()=> type Output = #output;);
    quote! {
        impl #ident {
            /// How the parameters are extracted, described and provided for.
            #[doc(hidden)]
            #[allow(clippy::type_complexity)]
            fn __mcp_parameters() -> (
                fn(&#root::Invocation) -> ::core::result::Result<(#(#types,)*), #root::Rejection>,
                fn(&mut #private::schemars::SchemaGenerator) -> ::std::vec::Vec<#private::Described>,
                fn(&mut #root::Requirements),
            ) {
                #[allow(unused_imports)]
                use #private::{ViaArgument as _, ViaArguments as _, ViaExtractor as _};
                (
                    |invocation| {
                        let _ = invocation;
                        ::core::result::Result::Ok((#(#values,)*))
                    },
                    |generator| {
                        let _ = &generator;
                        ::std::vec![#(#entries),*]
                    },
                    |requirements| {
                        #(#requires)*
                        let _ = requirements;
                    },
                )
            }
        }

        #[automatically_derived]
        impl #root::Handler<#private::Declared> for #ident {
            #output_type

            fn call(
                &self,
                invocation: #root::Invocation,
            ) -> #returned {
                let (#(#locals,)*) = (Self::__mcp_parameters().0)(&invocation)?;
                ::core::result::Result::Ok(#call)
            }

            fn argument_schema(
                generator: &mut #private::schemars::SchemaGenerator,
            ) -> ::core::option::Option<#private::schemars::Schema> {
                #argument_schema
            }

            fn requirements(requirements: &mut #root::Requirements) {
                (Self::__mcp_parameters().2)(requirements)
            }
        }
    }
}
