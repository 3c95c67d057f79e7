//! The `booking` example as the end-to-end tests drive it: what its three rounds ask and
//! answer for each ending (confirmed, declined, cancelled), the pinned Node client drivers of
//! `interop/ts*/booking_client.mjs` run to their JSON report, and the assertions on the reports every client driver prints
//! (`interop/python/booking_answers.py`, `interop/ts/booking_answers.mjs`).

use std::fs;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::ChildGuard;
use super::npm::NodePackages;

/// How long one client run (start, connect, every step of the script) may take.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The arguments of every `book` call: an enum and an optional struct.
pub fn book_arguments() -> Value {
    json!({"building": "north", "needs": {"projector": true}})
}

/// What round 1 asks.
pub const DESCRIBE: &str = "What is the meeting?";
/// What round 2 asks.
pub const CHOOSE: &str = "Which room?";
/// What round 3 asks, for the meeting and room the clients pick.
pub const CONFIRM: &str = "Book Borealis for \"Design review\" (8 people)?";
/// The rooms round 2 offers for [`book_arguments`] and 8 people: the north building's rooms
/// with a projector and 8 seats or more, computed for the call.
pub const OFFERED: [&str; 2] = ["north-2", "north-3"];
/// The text of the confirmed booking.
pub const BOOKED: &str = "Booked Borealis (north-2) for \"Design review\", 8 people.";
/// The text of a booking whose confirmation was declined.
pub const DECLINED: &str = "Booking declined.";
/// The text of a booking whose room question was cancelled.
pub const CANCELLED: &str = "Booking cancelled.";
/// The text of the `invitation` prompt for `north-2` and "the roadmap".
pub const INVITATION: &str = "Write a short invitation to a meeting about the roadmap in Borealis (North building, 10 seats).";

/// Each ending of the flow: its name in the reports, the questions asked and the final text.
pub const ENDINGS: [(&str, &[&str], &str); 3] = [
    ("confirmed", &[DESCRIBE, CHOOSE, CONFIRM], BOOKED),
    ("declined", &[DESCRIBE, CHOOSE, CONFIRM], DECLINED),
    ("cancelled", &[DESCRIBE, CHOOSE], CANCELLED),
];

/// The rooms of the north building as `list_rooms` lists them.
pub fn north_rooms() -> Value {
    json!([
        {"id": "north-1", "name": "Aurora", "building": "north", "seats": 4, "projector": false, "video": false},
        {"id": "north-2", "name": "Borealis", "building": "north", "seats": 10, "projector": true, "video": false},
        {"id": "north-3", "name": "Polaris", "building": "north", "seats": 16, "projector": true, "video": true},
    ])
}

/// The protocol era a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: `server/discover`, `input_required` rounds.
    Modern,
    /// 2025-11-25: `initialize`, questions pushed as `elicitation/create` requests.
    Legacy,
}

impl Era {
    /// The protocol version the client negotiates.
    pub fn version(self) -> &'static str {
        match self {
            Self::Modern => "2026-07-28",
            Self::Legacy => "2025-11-25",
        }
    }
}

/// Checks a client driver's report: the version of `era`; every step without error; the
/// tools listed (with `list_rooms`' array `outputSchema` for a modern client, none for a
/// legacy one, which reads its rooms as text); each ending with its questions, the rooms
/// offered and its text; the prompt; the resource read as JSON.
#[track_caller]
pub fn assert_booked_every_ending(report: &Value, era: Era) {
    assert_eq!(report["protocolVersion"], era.version(), "{report}");
    assert_eq!(
        report["errors"],
        json!({}),
        "every step succeeded: {report}"
    );

    let tools = &report["tools"];
    let array_schema = match era {
        Era::Modern => json!("array"),
        Era::Legacy => Value::Null,
    };
    assert_eq!(
        tools["list_rooms"], array_schema,
        "list_rooms' outputSchema type ({era:?}): {report}"
    );
    assert!(tools.get("book").is_some(), "book is listed: {report}");

    let rooms = &report["rooms"];
    assert_eq!(rooms["isError"], false, "{report}");
    let text: Value = serde_json::from_str(rooms["text"].as_str().unwrap_or_default())
        .unwrap_or_else(|e| panic!("list_rooms' text is JSON ({e}): {report}"));
    assert_eq!(text, north_rooms(), "list_rooms' text: {report}");
    let structured = match era {
        Era::Modern => north_rooms(),
        Era::Legacy => Value::Null,
    };
    assert_eq!(
        rooms["structured"], structured,
        "list_rooms' structuredContent ({era:?}): {report}"
    );

    for (ending, asked, text) in ENDINGS {
        let run = &report["endings"][ending];
        assert_eq!(
            run["asked"],
            json!(asked),
            "{ending}: the questions: {report}"
        );
        assert_eq!(
            run["offered"],
            json!(OFFERED),
            "{ending}: the rooms: {report}"
        );
        assert_eq!(run["text"], text, "{ending}: {report}");
        assert_eq!(run["isError"], false, "{ending}: {report}");
    }

    assert_eq!(report["prompt"], INVITATION, "{report}");
    let contents = report["resource"].as_array().expect("resource contents");
    assert_eq!(contents.len(), 1, "{report}");
    assert_eq!(contents[0]["uri"], "rooms://north-2", "{report}");
    let room: Value = serde_json::from_str(contents[0]["text"].as_str().unwrap_or_default())
        .unwrap_or_else(|e| panic!("the room resource is JSON ({e}): {report}"));
    assert_eq!(room, north_rooms()[1], "{report}");
    assert_eq!(
        contents[0]["mimeType"], "application/json",
        "the declared mime_type is read: {report}"
    );
}

/// How many bookings a server logging `output` made (one `booked:` line each).
pub fn bookings(output: &str) -> usize {
    output.matches("booked:").count()
}

/// Runs `node <script> <args>` in the pinned folder `folder` within [`RUN_TIMEOUT`], its
/// output kept in `target/booking-<name>.*`, and returns the JSON report it printed; panics
/// with its output if it failed.
pub fn run_node(folder: &str, script: &str, args: &[&str], name: &str) -> Value {
    let packages = NodePackages::install(folder);
    let out = super::out_dir("booking");
    let stdout_path = out.join(format!("{name}.json"));
    let stderr_path = out.join(format!("{name}.stderr"));
    let mut command = Command::new(packages.node());
    command
        .arg(script)
        .args(args)
        .current_dir(packages.dir())
        .stdin(std::process::Stdio::null())
        .stdout(fs::File::create(&stdout_path).expect("a report file"))
        .stderr(fs::File::create(&stderr_path).expect("a log file"));
    let mut child = ChildGuard::spawn(&mut command);
    let status = child
        .wait_timeout(RUN_TIMEOUT)
        .unwrap_or_else(|| panic!("the Node client ({name}) ran over {RUN_TIMEOUT:?}"));
    let stdout = fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
    assert!(
        status.success(),
        "the Node client ({name}) failed ({status}):\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("the Node client ({name}) printed no JSON report ({e}):\n{stdout}\n{stderr}")
    })
}
