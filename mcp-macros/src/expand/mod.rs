//! Expansion: turns a checked declaration into the item the user names when registering
//! it (a unit struct that implements `IntoToolRoute`, `IntoPromptRoute` or
//! `IntoResourceRoute`), keeping the function callable as `name::call(..)`.

mod fallback;
mod function;
mod prompt;
mod resource;
mod tool;

use std::fmt;

use proc_macro2::TokenStream;
use quote::quote;

use crate::attrs::{HandlerAttrs, Keys, PROMPT_KEYS, RESOURCE_KEYS, TOOL_KEYS};
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::HandlerFn;

/// Which declaration macro is expanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    fn keys(self) -> Keys {
        match self {
            Self::Tool => TOOL_KEYS,
            Self::Prompt => PROMPT_KEYS,
            Self::Resource => RESOURCE_KEYS,
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
    let attrs = HandlerAttrs::parse(&ctxt, &kind.to_string(), kind.keys(), attr);
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            ctxt.error_spanned_by(&item, format!("`#[{kind}]` goes on an `async fn`"));
            let errors = ctxt.finish();
            return quote!(#errors #item);
        }
    };
    let f = HandlerFn::from_item(item);
    check::handler(&ctxt, kind, &f, &attrs);
    if ctxt.has_errors() {
        let errors = ctxt.finish();
        // Inside an `impl` (a `self` receiver), a struct cannot be emitted: keep the method.
        if f.receiver.is_some() {
            let item = &f.item;
            return quote!(#errors #item);
        }
        let fallback = fallback::expand(kind, &f);
        return quote!(#errors #fallback);
    }
    let _ = ctxt.finish();
    let function = function::expand(&f);
    let route = match kind {
        Kind::Tool => tool::expand(&f, &attrs),
        Kind::Prompt => prompt::expand(&f, &attrs),
        Kind::Resource => resource::expand(&f, &attrs),
    };
    quote!(#function #route)
}

/// What every declaration is called and described as.
struct Labels {
    /// The protocol name: `name = "..."`, or the function's name.
    name: String,
    /// `title`, as `Option<String>` tokens.
    title: TokenStream,
    /// `description = "..."`, or the doc comment, as `Option<String>` tokens.
    description: TokenStream,
}

fn labels(f: &HandlerFn, attrs: &HandlerAttrs) -> Labels {
    let text = |lit: &Option<syn::LitStr>| lit.as_ref().map(syn::LitStr::value);
    Labels {
        name: text(&attrs.name).unwrap_or_else(|| f.ident().to_string()),
        title: opt_str(text(&attrs.title)),
        description: opt_str(text(&attrs.description).or_else(|| f.description.clone())),
    }
}

/// `Some("text")` or `None` as tokens.
fn opt_str(value: Option<String>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(::std::string::String::from(#text))),
        None => quote!(::core::option::Option::None),
    }
}
