//! Raw identifiers go on the wire unrawed (a field `r#type` is the property `"type"`, a
//! variant `r#fn` the choice `"fn"`), and `crate = path` points every generated path at a
//! re-export of the runtime: `#[form(crate = ...)]`, `#[choice(crate = ...)]`, and
//! `#[elicit_form]` with `#[form(crate = ...)]`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;

use serde_json::json;

/// A crate re-exporting the SDK under its own name. Its hidden module wraps two helpers with
/// counters, so the test can tell that generated code went through this path.
mod sdk {
    pub use typemcp_server::*;

    #[doc(hidden)]
    pub mod __private_v0_1 {
        pub use typemcp_server::__private_v0_1::*;

        pub mod form {
            use std::sync::atomic::{AtomicUsize, Ordering};

            pub use typemcp_server::__private_v0_1::form::*;

            pub static KINDS: AtomicUsize = AtomicUsize::new(0);
            pub static CHOICE_CHECKS: AtomicUsize = AtomicUsize::new(0);

            pub fn kind<F: FormField>() -> FieldKind<F, F::Value> {
                KINDS.fetch_add(1, Ordering::Relaxed);
                typemcp_server::__private_v0_1::form::kind::<F>()
            }

            pub fn check_choice<E: FormChoice>(
                value: &serde_json::Value,
                problems: &mut Vec<String>,
            ) {
                CHOICE_CHECKS.fetch_add(1, Ordering::Relaxed);
                typemcp_server::__private_v0_1::form::check_choice::<E>(value, problems);
            }
        }
    }
}

use sdk::{Answer, ElicitForm, FormChoice};

#[allow(non_camel_case_types)]
#[derive(sdk::FormChoice, Debug, Clone, Copy, PartialEq)]
#[choice(crate = sdk)]
enum Keyword {
    r#fn,
    #[choice(title = "A struct")]
    r#struct,
}

#[allow(non_camel_case_types)]
#[derive(sdk::FormChoice, Debug, Clone, Copy, PartialEq)]
#[choice(crate = "sdk")]
#[serde(rename_all = "UPPERCASE")]
enum Loud {
    r#loop,
}

#[derive(sdk::ElicitForm, Debug)]
#[form(crate = sdk)]
struct Token {
    /// The token's type.
    r#type: String,
    #[form(min_length = 1)]
    r#match: Option<String>,
    keyword: Keyword,
    #[form(default = Loud::r#loop)]
    r#loud: Loud,
}

#[sdk::elicit_form]
#[form(crate = sdk)]
#[derive(Debug)]
struct Confirm {
    r#if: bool,
}

fn main() {
    let schema = serde_json::to_value(Token::requested_schema()).unwrap();
    let names: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names, ["type", "match", "keyword", "loud"]);
    assert_eq!(schema["required"], json!(["type", "keyword"]));
    assert_eq!(
        schema["properties"]["type"]["description"],
        "The token's type."
    );
    assert_eq!(schema["properties"]["keyword"]["oneOf"][0]["const"], "fn");
    assert_eq!(
        schema["properties"]["keyword"]["oneOf"][1]["const"],
        "struct"
    );
    assert_eq!(schema["properties"]["loud"]["enum"], json!(["LOOP"]));
    assert_eq!(Keyword::r#fn.value(), "fn");
    assert_eq!(Keyword::from_value("r#fn"), None);

    let answer = json!({"action": "accept", "content": {
        "type": "word", "match": "x", "keyword": "struct",
    }});
    match Answer::<Token>::read(Some(&answer)) {
        Answer::Accepted(token) => {
            assert_eq!(token.r#type, "word");
            assert_eq!(token.r#match.as_deref(), Some("x"));
            assert_eq!(token.keyword, Keyword::r#struct);
            assert_eq!(token.r#loud, Loud::r#loop);
        }
        other => panic!("{other:?}"),
    }

    // Problems name the wire names, and `r#type` is not an answer to `type`.
    let bad = json!({"action": "accept", "content": {
        "r#type": "word", "match": "", "keyword": "r#fn",
    }});
    match Answer::<Token>::read(Some(&bad)) {
        Answer::Malformed(err) => {
            let fields: Vec<&str> = err
                .problems()
                .iter()
                .map(|p| p.field.as_deref().unwrap())
                .collect();
            assert_eq!(fields, ["type", "match", "keyword"], "{err}");
        }
        other => panic!("{other:?}"),
    }

    let confirm = serde_json::to_value(Confirm::requested_schema()).unwrap();
    assert_eq!(confirm["required"], json!(["if"]));
    let yes = json!({"action": "accept", "content": {"if": true}});
    assert!(matches!(
        Answer::<Confirm>::read(Some(&yes)),
        Answer::Accepted(Confirm { r#if: true })
    ));

    // Generated code went through `sdk`, not `::typemcp_server`.
    assert!(sdk::__private_v0_1::form::KINDS.load(Ordering::Relaxed) >= 10);
    assert!(sdk::__private_v0_1::form::CHOICE_CHECKS.load(Ordering::Relaxed) >= 2);
}
