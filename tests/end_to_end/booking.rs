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
//! exactly one per script, the confirmed ending's. The same flow as `typemcp-client` drives it,
//! with what these reports do not show (the listing, the re-asked question of a room not
//! offered, a missing room), on every wire in both eras, is in
//! `tests/end_to_end/client_examples.rs`.
//!
//! The clients are installed by the shared bootstraps of the interop tests
//! (`tests/common/python.rs`, `tests/common/npm.rs`), pinned by the same files. Without
//! Python, venv or PyPI, the Python tests are skipped outside CI and fail under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::Value;

use crate::common::booking::{Era, assert_booked_every_ending, bookings, run_node};
use crate::common::python::{python, run_report};
use crate::common::{ExampleServer, Launch};

/// The example under test.
const EXAMPLE: &str = "booking";

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
