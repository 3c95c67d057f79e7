//! Snapshot tests of what every example server declares and lists, so that a change in
//! capabilities, generated names, descriptions, input/output schemas, annotations or argument
//! lists shows up in review.
//!
//! Each example of [`crate::common::EXAMPLE_SERVERS`] runs over Streamable HTTP and answers `server/discover`
//! and every list method its capabilities offer; the snapshot is one JSON object from method
//! to result (its `_meta`, the server's name and version, checked and removed), with keys in
//! the order the server wrote them, held by `insta` in `tests/end_to_end/snapshots/`.
//!
//! A changed or missing snapshot fails the test. On CI (`CI=true`) nothing is written; locally
//! insta writes the new version beside the old one as `.snap.new`. Review and accept it with
//! `cargo insta review`, or rewrite all of them with:
//!
//! ```text
//! INSTA_UPDATE=always cargo test --test snapshots
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{ExampleServer, HttpClient, LISTS, META_SERVER_INFO, Session};
use serde_json::{Map, Value, json};
use typemcp_server::registry::STANDARD_FORMATS;

/// `server/discover` and every list `example` offers, each result without its `_meta`.
fn listing(name: &str) -> Value {
    let example = ExampleServer::named(name);
    let server = example.http();
    let mut session = HttpClient::new(server.url());
    let mut listing = Map::new();
    let mut add = |session: &mut HttpClient, method: &str| {
        let mut result = session.result(method, json!({}));
        let meta = result.as_object_mut().unwrap().shift_remove("_meta");
        let server = meta.as_ref().map(|meta| &meta[META_SERVER_INFO]);
        assert_eq!(
            server.map(|s| &s["name"]),
            Some(&json!(example.server_name)),
            "{name}: {method}: the result names the server in `_meta`"
        );
        listing.insert(method.to_owned(), result.clone());
        result
    };
    let discover = add(&mut session, "server/discover");
    for (method, _, capability) in LISTS {
        if discover["capabilities"].get(capability).is_some() {
            add(&mut session, method);
        }
    }
    let extensions = &discover["capabilities"]["extensions"];
    if extensions.get("io.modelcontextprotocol/skills").is_some() {
        add(&mut session, "skills/list");
    }
    Value::Object(listing)
}

#[test]
fn quickstart_listing() {
    insta::assert_json_snapshot!("quickstart", listing("quickstart"));
}

#[test]
fn skills_listing() {
    insta::assert_json_snapshot!("skills", listing("skills"));
}

#[test]
fn deploy_listing() {
    insta::assert_json_snapshot!("deploy", listing("deploy"));
}

#[test]
fn booking_listing() {
    insta::assert_json_snapshot!("booking", listing("booking"));
}

#[test]
fn layered_listing() {
    insta::assert_json_snapshot!("layered", listing("layered"));
}

#[test]
fn long_task_listing() {
    insta::assert_json_snapshot!("long_task", listing("long_task"));
}

#[test]
fn conformance_server_listing() {
    insta::assert_json_snapshot!("conformance_server", listing(crate::common::FIXTURE));
}

/// Every non-standard `format` string in `value`, with where it is.
fn non_standard_formats(value: &Value, at: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if let ("format", Value::String(format)) = (key.as_str(), value)
                    && !STANDARD_FORMATS.contains(&format.as_str())
                {
                    found.push(format!("{at}: {format}"));
                }
                non_standard_formats(value, &format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                non_standard_formats(item, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn no_example_lists_a_non_standard_format() {
    let mut found = Vec::new();
    for example in crate::common::EXAMPLE_SERVERS {
        let listing = listing(example.name);
        non_standard_formats(&listing, example.name, &mut found);
    }
    assert!(found.is_empty(), "non-standard formats listed: {found:#?}");
}

#[test]
fn every_example_server_has_a_snapshot() {
    let dir = crate::common::root_dir().join("tests/end_to_end/snapshots");
    for example in crate::common::EXAMPLE_SERVERS {
        let snapshot = dir.join(format!("end_to_end__snapshots__{}.snap", example.name));
        assert!(
            snapshot.is_file(),
            "no snapshot test for the example {}: add one like `quickstart_listing`",
            example.name
        );
    }
}
