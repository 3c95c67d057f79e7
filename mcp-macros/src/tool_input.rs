//! `#[derive(ToolInput)]`: marks a struct with named fields as a tool's whole arguments
//! object. Anything else has a JSON Schema that is not an object, and is refused here.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::ctxt::Ctxt;

pub(crate) fn derive(item: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let ctxt = Ctxt::new();
    must_be_struct_with_named_fields(&ctxt, &input);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let errors = ctxt.finish();
    // Emitted beside errors too, so uses of the type report nothing more.
    quote! {
        #errors
        #[automatically_derived]
        impl #impl_generics ::mcp_server::ToolInput for #ident #ty_generics #where_clause {}
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
