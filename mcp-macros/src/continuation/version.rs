//! The fingerprint of a state enum (`Continuation::VERSION`): what a state minted by one build
//! must agree on with the build that reads it back.
//!
//! It hashes (64-bit FNV-1a, stable across compilers and platforms) the enum's name and, in
//! order, each variant's name, its fields' names and types, its `#[awaits]` and `#[serde]`
//! attributes, and the enum's own `#[serde]` attributes: everything that decides how a
//! state is written and read back. Doc comments, visibility and other attributes are left
//! out, so editing them keeps in-flight states valid.

use quote::ToTokens;
use syn::{Attribute, Data, DeriveInput, Fields};

/// The attributes that change how a state is written or what it awaits.
fn wire_attrs(attrs: &[Attribute]) -> impl Iterator<Item = String> + '_ {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde") || a.path().is_ident("awaits"))
        .map(|a| a.to_token_stream().to_string())
}

/// The text the fingerprint is taken of.
fn description(input: &DeriveInput) -> String {
    let mut text = format!("enum {}", input.ident);
    text.extend(wire_attrs(&input.attrs).map(|a| format!(" {a}")));
    if let Data::Enum(data) = &input.data {
        for variant in &data.variants {
            text.push_str(&format!(" | {}", variant.ident));
            text.extend(wire_attrs(&variant.attrs).map(|a| format!(" {a}")));
            let fields: Vec<String> = match &variant.fields {
                Fields::Named(named) => named
                    .named
                    .iter()
                    .map(|f| {
                        let name = f.ident.as_ref().map(ToString::to_string);
                        let attrs: Vec<String> = wire_attrs(&f.attrs).collect();
                        let ty = f.ty.to_token_stream();
                        format!("{} {}: {ty}", attrs.join(" "), name.unwrap_or_default())
                    })
                    .collect(),
                Fields::Unnamed(unnamed) => unnamed
                    .unnamed
                    .iter()
                    .map(|f| f.ty.to_token_stream().to_string())
                    .collect(),
                Fields::Unit => Vec::new(),
            };
            text.push_str(&format!(" {{{}}}", fields.join(", ")));
        }
    }
    text
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The fingerprint: 16 hexadecimal digits.
pub(super) fn fingerprint(input: &DeriveInput) -> String {
    format!("{:016x}", fnv1a(description(input).as_bytes()))
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::fingerprint;

    fn of(tokens: proc_macro2::TokenStream) -> String {
        fingerprint(&syn::parse2(tokens).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn what_changes_the_wire_changes_the_fingerprint_and_nothing_else_does() {
        let base = of(quote! {
            /// Where it stands.
            #[derive(Clone)]
            pub enum Flow {
                #[awaits(confirm: Confirm)]
                Asking { target: String },
                Done,
            }
        });
        assert_eq!(base.len(), 16);
        // Docs, visibility and other attributes do not count.
        let same = of(quote! {
            enum Flow {
                /// Asking.
                #[awaits(confirm: Confirm)]
                #[allow(dead_code)]
                Asking { /** The target. */ target: String },
                Done,
            }
        });
        assert_eq!(base, same);
        // Each of these does.
        let changed = [
            quote!(
                enum Flow2 {
                    #[awaits(confirm: Confirm)]
                    Asking {
                        target: String,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(confirm: Confirm)]
                    Asked {
                        target: String,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(confirm: Confirm)]
                    Asking {
                        target: u32,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(confirm: Confirm)]
                    Asking {
                        goal: String,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(ok: Confirm)]
                    Asking {
                        target: String,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(confirm: Other)]
                    Asking {
                        target: String,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(confirm: Confirm)]
                    Asking {
                        target: String,
                    },
                    Done,
                    More,
                }
            ),
            quote!(
                enum Flow {
                    Done,
                    #[awaits(confirm: Confirm)]
                    Asking {
                        target: String,
                    },
                }
            ),
            quote!(
                #[serde(rename_all = "snake_case")]
                enum Flow {
                    #[awaits(confirm: Confirm)]
                    Asking {
                        target: String,
                    },
                    Done,
                }
            ),
            quote!(
                enum Flow {
                    #[awaits(confirm: Confirm)]
                    Asking {
                        #[serde(default)]
                        target: String,
                    },
                    Done,
                }
            ),
        ];
        for tokens in changed {
            let text = tokens.to_string();
            assert_ne!(of(tokens), base, "{text}");
        }
    }
}
