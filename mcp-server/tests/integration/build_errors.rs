//! Configuration mistakes are found once, when the server is built or a route is added
//! while it runs, with an error that names the handler and the type, instead of an
//! "Internal error" on every call.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// The flow's answers are never read: only its build matters here.
#![allow(dead_code)]

use crate::support::confirm::{Flow, FlowAsking};
use typemcp_server::state::{Round, Step};
use typemcp_server::{
    BuildError, PromptRoute, ResourceRoute, ResourceTemplateRoute, Server, State, ToolRoute,
    prompt, resource, tool,
};

#[derive(Clone)]
struct Db;

#[derive(Clone)]
struct Cache;

/// Reads the database.
#[tool]
async fn count(_db: State<Db>) -> u64 {
    0
}

/// Reads the cache.
#[prompt]
async fn cached(_cache: State<Cache>) -> String {
    String::new()
}

/// Reads the database.
#[resource(uri = "db://stats")]
async fn stats(_db: State<Db>) -> String {
    String::new()
}

/// Asks first.
#[tool]
async fn careful(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Sure?".into(),
        }),
        Some(_) => Step::done("done".to_owned()),
    }
}

#[test]
fn a_state_never_registered_fails_the_build_naming_handler_and_type() {
    let err = Server::builder().tool(count).build().unwrap_err();
    match &err {
        BuildError::MissingState { handler, state } => {
            assert_eq!(handler, "tool \"count\"");
            assert!(state.ends_with("Db"), "{state}");
        }
        other => panic!("unexpected {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("tool \"count\" takes `State<"),
        "{message}"
    );
    assert!(message.contains("ServerBuilder::state"), "{message}");

    // Registered: it builds.
    Server::builder().tool(count).state(Db).build().unwrap();
}

#[test]
fn missing_state_is_found_for_prompts_resources_and_closures() {
    let err = Server::builder()
        .prompt(cached)
        .state(Db)
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, BuildError::MissingState { handler, state } if handler == "prompt \"cached\"" && state.ends_with("Cache")),
        "{err:?}"
    );
    let err = Server::builder().resource(stats).build().unwrap_err();
    assert!(
        matches!(&err, BuildError::MissingState { handler, .. } if handler == "resource \"db://stats\""),
        "{err:?}"
    );
    let by_hand = ToolRoute::new("by_hand", |_db: State<Db>| async { "x" });
    let err = Server::builder().tool(by_hand).build().unwrap_err();
    assert!(matches!(err, BuildError::MissingState { .. }), "{err:?}");
    let prompt = PromptRoute::new("p", |_c: State<Cache>| async { "x" });
    assert!(Server::builder().prompt(prompt).build().is_err());
    let template = ResourceTemplateRoute::new("db://{id}", "row", |_db: State<Db>| async { "x" });
    let err = Server::builder().resource(template).build().unwrap_err();
    assert!(
        matches!(&err, BuildError::MissingState { handler, .. } if handler == "resource template \"db://{id}\""),
        "{err:?}"
    );
}

#[test]
fn a_round_without_a_signer_fails_the_build() {
    let err = Server::builder()
        .tool(careful)
        .without_request_state_signer()
        .build()
        .unwrap_err();
    match &err {
        BuildError::MissingSigner { handler, extractor } => {
            assert_eq!(handler, "tool \"careful\"");
            assert!(extractor.contains("Round<"), "{extractor}");
            assert!(extractor.contains("Flow"), "{extractor}");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("without_request_state_signer()"));

    // The default (a key for the process's lifetime) is a signer.
    Server::builder().tool(careful).build().unwrap();
}

#[test]
fn a_malformed_template_is_an_error_that_names_it() {
    let bad = ResourceTemplateRoute::new("notes://{id", "note", || async { "x" });
    let err = Server::builder().resource(bad).build().unwrap_err();
    match &err {
        BuildError::InvalidUriTemplate { template, .. } => assert_eq!(template, "notes://{id"),
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("notes://{id"), "{err}");
}

#[test]
fn every_add_while_running_checks_the_same_way_and_returns_the_same_result() {
    let server = Server::builder().state(Db).build().unwrap();

    // The same `Result<(), BuildError>` from every `add_*`.
    let tool: Result<(), BuildError> = server.add_tool(count);
    let prompt: Result<(), BuildError> = server.add_prompt(cached);
    let resource: Result<(), BuildError> = server.add_resource(stats);
    assert_eq!(tool, Ok(()));
    assert!(matches!(prompt, Err(BuildError::MissingState { .. })));
    assert_eq!(resource, Ok(()));
    assert!(
        server.capabilities().prompts.is_none(),
        "a refused prompt is not added"
    );

    let bad = ResourceTemplateRoute::new("notes://{id", "note", || async { "x" });
    assert!(matches!(
        server.add_resource(bad),
        Err(BuildError::InvalidUriTemplate { .. })
    ));
    assert!(
        server
            .add_resource(ResourceRoute::new("memo://a", "a", || async { "a" }))
            .is_ok()
    );

    let unsigned = Server::builder()
        .without_request_state_signer()
        .build()
        .unwrap();
    assert!(matches!(
        unsigned.add_tool(careful),
        Err(BuildError::MissingSigner { .. })
    ));
    assert!(unsigned.capabilities().tools.is_none());
}

#[test]
fn duplicate_names_still_fail() {
    let a = ToolRoute::new("same", || async { "a" });
    let b = ToolRoute::new("same", || async { "b" });
    assert_eq!(
        Server::builder().tool(a).tool(b).build().unwrap_err(),
        BuildError::DuplicateTool("same".into())
    );
}
