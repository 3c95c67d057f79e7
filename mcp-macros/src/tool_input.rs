//! `#[derive(ToolInput)]`: marks a struct with named fields as a tool's whole arguments
//! object. Anything else has a JSON Schema that is not an object, and is refused here.
//!
//! The one container attribute is `#[tool_input(crate = path)]`, for crates that re-export
//! `typemcp_server`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::attrs::ContainerAttrs;
use crate::ctxt::Ctxt;
use crate::krate::Krate;

pub(crate) fn derive(item: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let ctxt = Ctxt::new();
    let attrs = ContainerAttrs::parse(&ctxt, "tool_input", &input.attrs);
    must_be_struct_with_named_fields(&ctxt, &input);
    let krate = Krate::new(attrs.krate.as_ref());
    let errors = ctxt.finish();
    // The implementation is also the fallback: emitted beside errors, so that uses of the
    // type (`Arguments<T>`) report nothing more.
    let implementation = expand(&input, &krate);
    quote!(#errors #implementation)
}

fn expand(input: &DeriveInput, krate: &Krate) -> TokenStream {
    let ident = &input.ident;
    let root = krate.root();
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #root::ToolInput for #ident #ty_generics #where_clause {}
    }
}

/// Tool arguments are a JSON object: only a struct with named fields serializes as one.
fn must_be_struct_with_named_fields(ctxt: &Ctxt, input: &DeriveInput) {
    let what = match &input.data {
        Data::Struct(s) => match s.fields {
            Fields::Named(_) => return,
            Fields::Unnamed(_) => "a tuple struct",
            Fields::Unit => "a unit struct",
        },
        Data::Enum(_) => "an enum",
        Data::Union(_) => "a union",
    };
    ctxt.error_spanned_by(
        &input.ident,
        format!("`ToolInput` needs a struct with named fields (tool arguments are a JSON object); `{}` is {what}", input.ident),
    );
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::derive;

    #[test]
    fn a_crate_override_replaces_the_runtime_path() {
        let out = derive(quote! {
            #[tool_input(crate = my::sdk)]
            struct Add { a: i64 }
        })
        .to_string();
        assert_eq!(
            out,
            quote!(
                #[automatically_derived]
                impl my::sdk::ToolInput for Add {}
            )
            .to_string()
        );
    }

    #[test]
    fn errors_come_with_the_implementation() {
        let out = derive(quote! {
            #[tool_input(krate = my::sdk)]
            enum Shape { Circle }
        })
        .to_string();
        assert_eq!(out.matches("compile_error").count(), 2, "{out}");
        assert!(
            out.contains("impl :: typemcp_server :: ToolInput for Shape"),
            "{out}"
        );
    }
}
