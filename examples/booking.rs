//! A meeting-room booking server, written from the README as a new user would: a tool that
//! lists the rooms as structured output (an array), a three-round booking tool (what the
//! meeting is, a derived form; which room, among the rooms that fit, computed on each call;
//! then a confirmation), a prompt that drafts an invitation, and a resource template
//! `rooms://{id}` describing one room.
//!
//! ```text
//! cargo run --example booking                  # stdio (for an MCP client to spawn)
//! cargo run --example booking -- --http 3000   # Streamable HTTP on 127.0.0.1:3000/mcp
//! ```
//!
//! Tools:
//!
//! - `list_rooms` (`building`, optional): every room, or those of one building, as JSON.
//! - `book` (`building`, and `needs`, an optional object `{"projector": bool, "video": bool}`):
//!   asks for the meeting's title and size, then for a room among those of the building that
//!   seat everyone and have what it needs, then to confirm. Each booking made is logged to
//!   stderr as a `booked:` line. Declining any question ends it with "Booking declined.",
//!   cancelling one with "Booking cancelled."; nothing is booked then.
//!
//! Prompt `invitation` (`room`, optional `topic`), resource template `rooms://{id}` (JSON).
//! Over stdio and over HTTP, clients of protocol 2026-07-28 answer the questions in
//! `input_required` rounds, clients of 2025-11-25 through `elicitation/create` requests the
//! server sends them during the call: the same handler serves both.
//!
//! Shutdown: on SIGTERM or Ctrl-C (SIGINT), over either transport, it stops gracefully
//! (`serve_stdio` and `serve_http` handle both signals themselves): new requests are refused,
//! calls in flight (a 2025-11-25 booking waiting on a question pushed to its client
//! included) have the default 10 s of `ServerBuilder::shutdown_grace` to finish and are then
//! cancelled, and the process exits 0; a second signal stops it at once. Over stdio, the end
//! of its input also ends it, once the requests in flight are answered. A 2026-07-28 booking
//! between two rounds holds nothing on the server, but no signer is set, so its
//! `requestState` (signed with a key drawn for the process) is refused after a restart.

use serde::{Deserialize, Serialize};
use typemcp_server::prelude::*;
use typemcp_server::state::{Continuation, OneOf, Reply, Round, Step};
use typemcp_server::{ElicitForm, prompt, resource, tool};

/// A building of the campus.
#[derive(Serialize, Deserialize, schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Building {
    /// The north building.
    North,
    /// The south building.
    South,
}

/// What a meeting needs in its room.
#[derive(Deserialize, schemars::JsonSchema, Clone, Copy, Debug, Default)]
struct Needs {
    /// A projector.
    #[serde(default)]
    projector: bool,
    /// A video-conference kit.
    #[serde(default)]
    video: bool,
}

/// A meeting room.
#[derive(Serialize, schemars::JsonSchema, Clone, Debug)]
struct Room {
    /// Its id, as in `rooms://{id}`.
    id: String,
    /// Its name on the door.
    name: String,
    /// The building it is in.
    building: Building,
    /// How many people it seats.
    seats: u32,
    /// Whether it has a projector.
    projector: bool,
    /// Whether it has a video-conference kit.
    video: bool,
}

/// The rooms of the campus: a stand-in for a database.
fn rooms() -> Vec<Room> {
    let room = |id: &str, name: &str, building, seats, projector, video| Room {
        id: id.to_owned(),
        name: name.to_owned(),
        building,
        seats,
        projector,
        video,
    };
    vec![
        room("north-1", "Aurora", Building::North, 4, false, false),
        room("north-2", "Borealis", Building::North, 10, true, false),
        room("north-3", "Polaris", Building::North, 16, true, true),
        room("south-1", "Meridian", Building::South, 6, false, true),
        room("south-2", "Tropic", Building::South, 12, true, true),
    ]
}

/// The room called `id`.
fn find_room(id: &str) -> Option<Room> {
    rooms().into_iter().find(|room| room.id == id)
}

/// List the meeting rooms, or those of one building.
#[tool(read_only)]
async fn list_rooms(
    /// Only the rooms of this building.
    building: Option<Building>,
) -> Json<Vec<Room>> {
    let rooms = rooms().into_iter();
    Json(
        rooms
            .filter(|room| building.is_none_or(|building| room.building == building))
            .collect(),
    )
}

/// The meeting to find a room for.
#[derive(ElicitForm)]
struct Meeting {
    /// What is the meeting about?
    #[form(min_length = 1, max_length = 80)]
    title: String,
    /// How many people will come?
    #[form(minimum = 1, maximum = 40, default = 4)]
    attendees: u8,
}

/// Confirm the booking.
#[derive(ElicitForm)]
struct Confirm {
    /// Book it?
    ok: bool,
}

/// Where a booking conversation stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Booking {
    #[awaits(meeting: Meeting)]
    Describing,
    /// The rooms offered are computed for this call: those that fit the meeting.
    #[awaits(room: OneOf<String>)]
    Choosing { title: String, attendees: u8 },
    #[awaits(confirm: Confirm)]
    Confirming {
        title: String,
        attendees: u8,
        room: String,
    },
}

/// The rooms of `building` that seat `attendees` and have what `needs` asks for, each with
/// the label the user picks it by.
fn rooms_that_fit(building: Building, needs: Needs, attendees: u8) -> Vec<(String, String)> {
    rooms()
        .into_iter()
        .filter(|room| room.building == building && room.seats >= u32::from(attendees))
        .filter(|room| (room.projector || !needs.projector) && (room.video || !needs.video))
        .map(|room| {
            let label = format!("{} ({} seats)", room.name, room.seats);
            (room.id, label)
        })
        .collect()
}

/// Book a meeting room: say what the meeting is, pick one of the rooms that fit, confirm.
#[tool]
async fn book(
    /// The building to book in.
    building: Building,
    /// What the room must have (nothing in particular when absent).
    needs: Option<Needs>,
    round: Round<Booking>,
) -> Step<Booking, String> {
    match round.resume() {
        None => round.ask(BookingAsking::Describing {
            meeting: "What is the meeting?".into(),
        }),
        Some(BookingAnswered::Describing {
            meeting: Reply::Accepted(Meeting { title, attendees }),
        }) => {
            let fitting = rooms_that_fit(building, needs.unwrap_or_default(), attendees);
            if fitting.is_empty() {
                return Step::done(format!(
                    "No room in the {building:?} building fits {attendees} people."
                ));
            }
            round.ask(BookingAsking::Choosing {
                title,
                attendees,
                room: OneOf::titled("Which room?", fitting),
            })
        }
        Some(BookingAnswered::Choosing {
            title,
            attendees,
            room: Reply::Accepted(OneOf(room)),
        }) => {
            let name = find_room(&room).map_or_else(|| room.clone(), |room| room.name);
            let question = format!("Book {name} for \"{title}\" ({attendees} people)?");
            round.ask(BookingAsking::Confirming {
                title,
                attendees,
                room,
                confirm: question.into(),
            })
        }
        Some(BookingAnswered::Confirming {
            title,
            attendees,
            room,
            confirm: Reply::Accepted(Confirm { ok: true }),
        }) => {
            let name = find_room(&room).map_or_else(|| room.clone(), |room| room.name);
            eprintln!("booked: {room} for {title:?} ({attendees} people)");
            Step::done(format!(
                "Booked {name} ({room}) for \"{title}\", {attendees} people."
            ))
        }
        Some(
            BookingAnswered::Describing {
                meeting: Reply::Cancelled,
            }
            | BookingAnswered::Choosing {
                room: Reply::Cancelled,
                ..
            }
            | BookingAnswered::Confirming {
                confirm: Reply::Cancelled,
                ..
            },
        ) => Step::done("Booking cancelled."),
        Some(
            BookingAnswered::Describing { .. }
            | BookingAnswered::Choosing { .. }
            | BookingAnswered::Confirming { .. },
        ) => Step::done("Booking declined."),
    }
}

/// Draft an invitation to a meeting in a room.
#[prompt]
async fn invitation(
    /// The room's id, for example `north-2`.
    room: String,
    /// What the meeting is about.
    topic: Option<String>,
) -> Result<String, McpError> {
    let Some(room) = find_room(&room) else {
        return Err(McpError::invalid_params(format!("no room called {room:?}")));
    };
    let topic = topic.unwrap_or_else(|| "our next steps".into());
    Ok(format!(
        "Write a short invitation to a meeting about {topic} in {} ({:?} building, {} seats).",
        room.name, room.building, room.seats
    ))
}

/// A meeting room, as JSON.
#[resource(template = "rooms://{id}", mime_type = "application/json")]
async fn room(id: String) -> Result<String, McpError> {
    let Some(room) = find_room(&id) else {
        return Err(McpError::resource_not_found(&format!("rooms://{id}")));
    };
    serde_json::to_string(&room).map_err(|_| McpError::internal("the room could not be encoded"))
}

fn server() -> Result<Server, typemcp_server::BuildError> {
    Server::builder()
        .name("booking")
        .version("1.0.0")
        .tool(list_rooms)
        .tool(book)
        .prompt(invitation)
        .resource(room)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr (stdout carries the protocol over stdio); `RUST_LOG=typemcp_server=debug`
    // shows every request served.
    typemcp_server::logging::init();
    let server = server()?;
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(port)) => {
            let port: u16 = port.parse()?;
            eprintln!("Serving MCP on http://127.0.0.1:{port}/mcp (Ctrl-C to stop).");
            server.serve_http(("127.0.0.1", port)).await?;
        }
        (None, _) => server.serve_stdio().await?,
        _ => return Err("usage: booking [--http PORT]".into()),
    }
    Ok(())
}
