//! The user test of issue #19: the `booking` example (a meeting-room booking server written
//! from the README: an enum and an optional-struct parameter, a `Json<Vec<Room>>` tool, a
//! three-round booking, a prompt and a `rooms://{id}` template whose handler is named `room`)
//! run end to end, every ending of the flow (confirmed, declined, cancelled), over stdio and
//! over Streamable HTTP, against clients nobody here wrote, in both protocol eras:
//!
//! | client | era | driver |
//! |---|---|---|
//! | Python SDK 2.x (`mcp` 2.3, `mode="auto"`) | 2026-07-28 | `interop/python/booking_client.py auto` |
//! | Python SDK 2.x (`mode="legacy"`) | 2025-11-25 | `interop/python/booking_client.py legacy` |
//! | Python SDK 1.x (`mcp` 1.30) | 2025-11-25 | `interop/python-legacy/booking_client.py` |
//! | TypeScript client 2.x (`@modelcontextprotocol/client` 2.4, pinned) | 2026-07-28 | `interop/ts/booking_client.mjs modern` |
//! | TypeScript client 2.x (its default, legacy handshake) | 2025-11-25 | `interop/ts/booking_client.mjs legacy` |
//! | TypeScript SDK 1.x (`@modelcontextprotocol/sdk` 1.32) | 2025-11-25 | `interop/ts-legacy/booking_client.mjs` |
//!
//! Every driver runs the same script (`interop/python/booking_answers.py`,
//! `interop/ts/booking_answers.mjs`) and prints a report that
//! [`assert_booked_every_ending`] checks; the server's stderr tells how many rooms it booked:
//! exactly one per script, the confirmed ending's. A first test runs the flow with raw
//! 2026-07-28 requests, without a client library, and checks what the others cannot see (the
//! listing, the re-asked question of a room not offered, a missing room).
//!
//! The clients are installed by the shared bootstraps of the interop tests
//! (`tests/common/python.rs`, `tests/common/npm.rs`), pinned by the same files. Without
//! Python, venv or PyPI, the Python tests are skipped outside CI and fail under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::common::booking::{
    CANCELLED, CHOOSE, CONFIRM, DECLINED, DESCRIBE, Era, INVITATION, OFFERED,
    assert_booked_every_ending, book_call, bookings, chose, confirmed, described, expect_round,
    north_rooms, offered, refused, run_node,
};
use crate::common::python::{python, run_report};
use crate::common::{ExampleServer, HttpClient, Launch, Session, code, request, tool_text};

/// The example under test.
const EXAMPLE: &str = "booking";

// ---------------------------------------------------------------------------------------------
// Raw 2026-07-28 requests

/// The listing, every ending of `book` (one confirmed), a room that was not offered, the
/// prompt and the resource, with raw requests over `session`.
fn run_raw_flow<S: Session>(session: &mut S) {
    let label = session.label();
    let tools = session.result("tools/list", json!({}));
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_rooms", "book"], "{label}: {tools}");
    let book = &tools["tools"][1];
    let properties = &book["inputSchema"]["properties"];
    assert_eq!(
        book["inputSchema"]["required"],
        json!(["building"]),
        "{label}: {book}"
    );
    assert!(properties.get("needs").is_some(), "{label}: {book}");
    let list_rooms = &tools["tools"][0];
    assert_eq!(
        list_rooms["outputSchema"]["type"], "array",
        "{label}: {list_rooms}"
    );

    let listed = session.result_of(&crate::common::call_tool(
        1,
        "list_rooms",
        json!({"building": "north"}),
    ));
    assert_eq!(
        listed["structuredContent"],
        north_rooms(),
        "{label}: {listed}"
    );
    assert_eq!(
        crate::common::from_json(&tool_text(&listed)),
        north_rooms(),
        "{label}: {listed}"
    );

    // Confirmed, after a room that was not offered is asked again.
    let (_, state) = expect_round(&session.send(&book_call(2, None)), "meeting", DESCRIBE);
    let (question, state) = expect_round(
        &session.send(&book_call(3, Some((described(), &state)))),
        "room",
        CHOOSE,
    );
    assert_eq!(
        offered(&question),
        OFFERED,
        "{label}: computed for the call: {question}"
    );
    // A room that was not offered is not booked: the same question comes back (its message
    // may say why), with a new state.
    let not_offered = session.send(&book_call(4, Some((chose("south-2"), &state))));
    let asks = &not_offered["result"]["inputRequests"];
    assert_eq!(
        asks.as_object()
            .map(|asks| asks.keys().map(String::as_str).collect::<Vec<_>>()),
        Some(vec!["room"]),
        "{label}: asked again: {not_offered}"
    );
    let message = asks["room"]["params"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains(CHOOSE), "{label}: {not_offered}");
    // The reason names the rooms by the labels the question shows, not by their ids.
    let room = &asks["room"]["params"]["requestedSchema"]["properties"]["room"];
    let labels = room["oneOf"].as_array().into_iter().flatten();
    let labels: Vec<&str> = labels.filter_map(|o| o["title"].as_str()).collect();
    let why = format!("\"south-2\" is not one of {}", labels.join(", "));
    assert!(
        labels.len() == OFFERED.len() && message.contains(&why),
        "{label}: {why:?} in {not_offered}"
    );
    assert_eq!(
        offered(&asks["room"]["params"]),
        OFFERED,
        "{label}: {not_offered}"
    );
    let state = not_offered["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, state) = expect_round(
        &session.send(&book_call(5, Some((chose("north-2"), &state)))),
        "confirm",
        CONFIRM,
    );
    let done = session.result_of(&book_call(6, Some((confirmed(), &state))));
    assert_eq!(
        tool_text(&done),
        crate::common::booking::BOOKED,
        "{label}: {done}"
    );

    // Declined at the confirmation.
    let (_, state) = expect_round(&session.send(&book_call(7, None)), "meeting", DESCRIBE);
    let (_, state) = expect_round(
        &session.send(&book_call(8, Some((described(), &state)))),
        "room",
        CHOOSE,
    );
    let (_, state) = expect_round(
        &session.send(&book_call(9, Some((chose("north-3"), &state)))),
        "confirm",
        "Book Polaris for \"Design review\" (8 people)?",
    );
    let done = session.result_of(&book_call(
        10,
        Some((refused("confirm", "decline"), &state)),
    ));
    assert_eq!(tool_text(&done), DECLINED, "{label}: {done}");

    // A meeting no room of the building fits ends without a room question.
    let (_, state) = expect_round(&session.send(&book_call(19, None)), "meeting", DESCRIBE);
    let crowd = json!({"meeting": {"action": "accept", "content": {"title": "All hands", "attendees": 40}}});
    let done = session.result_of(&book_call(20, Some((crowd, &state))));
    assert_eq!(
        tool_text(&done),
        "No room in the North building fits 40 people.",
        "{label}: {done}"
    );

    // Cancelled at the room question, and at the first one.
    let (_, state) = expect_round(&session.send(&book_call(11, None)), "meeting", DESCRIBE);
    let (_, state) = expect_round(
        &session.send(&book_call(12, Some((described(), &state)))),
        "room",
        CHOOSE,
    );
    let done = session.result_of(&book_call(13, Some((refused("room", "cancel"), &state))));
    assert_eq!(tool_text(&done), CANCELLED, "{label}: {done}");
    let (_, state) = expect_round(&session.send(&book_call(14, None)), "meeting", DESCRIBE);
    let done = session.result_of(&book_call(15, Some((refused("meeting", "cancel"), &state))));
    assert_eq!(tool_text(&done), CANCELLED, "{label}: {done}");

    let params =
        json!({"name": "invitation", "arguments": {"room": "north-2", "topic": "the roadmap"}});
    let prompt = session.result_of(&request(16, "prompts/get", params));
    assert_eq!(
        prompt["messages"][0]["content"]["text"], INVITATION,
        "{label}: {prompt}"
    );

    let read = session.result_of(&request(
        17,
        "resources/read",
        json!({"uri": "rooms://north-2"}),
    ));
    let contents = &read["contents"][0];
    assert_eq!(contents["uri"], "rooms://north-2", "{label}: {read}");
    assert_eq!(
        crate::common::from_json(contents["text"].as_str().unwrap()),
        north_rooms()[1],
        "{label}: {read}"
    );
    assert_eq!(
        contents["mimeType"], "application/json",
        "{label}: the declared mime_type: {read}"
    );
    let missing = session.send(&request(
        18,
        "resources/read",
        json!({"uri": "rooms://east-9"}),
    ));
    crate::common::assert_error(
        &missing,
        Some(&json!(18)),
        code::INVALID_PARAMS,
        "rooms://east-9",
    );
}

#[test]
fn raw_requests_run_every_ending_over_stdio_and_http() {
    let example = ExampleServer::named(EXAMPLE);
    let mut stdio = example.stdio();
    run_raw_flow(&mut stdio);

    let server = Launch::from(example).labelled("raw").http();
    let mut http = HttpClient::new(server.url());
    run_raw_flow(&mut http);
    assert_eq!(
        bookings(&server.output()),
        1,
        "one booking made: {}",
        server.output()
    );
}

// ---------------------------------------------------------------------------------------------
// Clients of others

/// Runs `client` against the example over HTTP and checks its report for `era`, and that the
/// server booked one room.
fn over_http(label: &str, era: Era, client: impl FnOnce(&str) -> Value) {
    let server = Launch::from(ExampleServer::named(EXAMPLE))
        .labelled(label)
        .http();
    let report = client(&server.url());
    assert_booked_every_ending(&report, era);
    assert_eq!(
        bookings(&server.output()),
        1,
        "{label}: one booking made: {}",
        server.output()
    );
}

/// Runs `client` with the example's executable (the client spawns it over stdio) and checks
/// its report for `era`, and that the server booked one room.
fn over_stdio(era: Era, client: impl FnOnce(&str) -> Value) {
    let server = crate::common::example_binary(EXAMPLE);
    let report = client(server.to_str().expect("a UTF-8 path"));
    assert_booked_every_ending(&report, era);
    assert_eq!(
        report["booked"].as_array().map(Vec::len),
        Some(1),
        "one booking made: {report}"
    );
}

/// The folder pinning the Python SDK 2.x client.
const PYTHON_2: &str = "interop/python";
/// The folder pinning the Python SDK 1.x client.
const PYTHON_1: &str = "interop/python-legacy";

/// The report of the Python SDK 2.x client (the venv's `python`) in `mode` (`auto` or
/// `legacy`).
fn python_2(python: &Path, mode: &str, transport: &str, where_: &str) -> Value {
    let args = [mode, transport, where_];
    let name = format!("booking-{mode}-{transport}");
    run_report(python, PYTHON_2, "booking_client.py", &args, &name)
}

/// The report of the Python SDK 1.x client (the venv's `python`).
fn python_1(python: &Path, transport: &str, where_: &str) -> Value {
    let name = format!("booking-{transport}");
    run_report(
        python,
        PYTHON_1,
        "booking_client.py",
        &[transport, where_],
        &name,
    )
}

#[test]
fn python_2_client_books_over_http() {
    let Some(python) = python(PYTHON_2) else {
        return;
    };
    over_http("python-2", Era::Modern, |url| {
        python_2(&python, "auto", "http", url)
    });
}

#[test]
fn python_2_client_books_over_stdio() {
    let Some(python) = python(PYTHON_2) else {
        return;
    };
    over_stdio(Era::Modern, |exe| python_2(&python, "auto", "stdio", exe));
}

#[test]
fn python_2_client_in_legacy_mode_books_over_http() {
    let Some(python) = python(PYTHON_2) else {
        return;
    };
    over_http("python-2-legacy", Era::Legacy, |url| {
        python_2(&python, "legacy", "http", url)
    });
}

#[test]
fn python_2_client_in_legacy_mode_books_over_stdio() {
    let Some(python) = python(PYTHON_2) else {
        return;
    };
    over_stdio(Era::Legacy, |exe| python_2(&python, "legacy", "stdio", exe));
}

#[test]
fn python_1_client_books_over_http() {
    let Some(python) = python(PYTHON_1) else {
        return;
    };
    over_http("python-1", Era::Legacy, |url| {
        python_1(&python, "http", url)
    });
}

#[test]
fn python_1_client_books_over_stdio() {
    let Some(python) = python(PYTHON_1) else {
        return;
    };
    over_stdio(Era::Legacy, |exe| python_1(&python, "stdio", exe));
}

/// The TypeScript client 2.x of `interop/ts` in `mode` (`modern` or `legacy`).
fn ts_2(mode: &str, transport: &str, where_: &str) -> Value {
    let name = format!("ts-2-{mode}-{transport}");
    run_node(
        "interop/ts",
        "booking_client.mjs",
        &[mode, transport, where_],
        &name,
    )
}

/// The TypeScript SDK 1.x client of `interop/ts-legacy`.
fn ts_1(transport: &str, where_: &str) -> Value {
    let name = format!("ts-1-{transport}");
    run_node(
        "interop/ts-legacy",
        "booking_client.mjs",
        &[transport, where_],
        &name,
    )
}

#[test]
fn ts_2_client_books_over_http() {
    over_http("ts-2", Era::Modern, |url| ts_2("modern", "http", url));
}

#[test]
fn ts_2_client_books_over_stdio() {
    over_stdio(Era::Modern, |exe| ts_2("modern", "stdio", exe));
}

#[test]
fn ts_2_client_in_legacy_mode_books_over_http() {
    over_http("ts-2-legacy", Era::Legacy, |url| {
        ts_2("legacy", "http", url)
    });
}

#[test]
fn ts_2_client_in_legacy_mode_books_over_stdio() {
    over_stdio(Era::Legacy, |exe| ts_2("legacy", "stdio", exe));
}

#[test]
fn ts_1_client_books_over_http() {
    over_http("ts-1", Era::Legacy, |url| ts_1("http", url));
}

#[test]
fn ts_1_client_books_over_stdio() {
    over_stdio(Era::Legacy, |exe| ts_1("stdio", exe));
}
