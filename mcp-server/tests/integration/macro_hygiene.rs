//! The declaration macros take no name the user may also use: a `#[resource]`, a `#[tool]`
//! and a `#[prompt]` whose names are, in the same module, also local variables, struct and
//! enum fields, `match` bindings, `format!` arguments and parameters of the other handlers.
//! The module compiles (a unit struct of the handler's name would refuse every such binding
//! with `E0530`), each handler is registered by its name and answers over the protocol, and
//! each runs directly as `name().call(..)`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use typemcp_client::{Client, ToolResultExt};
use typemcp_server::{Server, prompt, resource, tool};

use crate::support::client::{connect, json_of};

/// A booking, with a field named like each handler.
struct Booking {
    room: String,
    book: bool,
    agenda: String,
}

/// What a request is about, with enum fields named like each handler.
enum Request {
    Room { room: String },
    Book { book: u32 },
    Agenda { agenda: String },
}

/// Describes a request, binding each handler's name in a `match`.
fn describe(request: Request) -> String {
    match request {
        Request::Room { room } => format!("room {room}"),
        Request::Book { book } => format!("book {}", book),
        Request::Agenda { agenda } => format!("agenda {agenda}"),
    }
}

/// A meeting room.
#[resource(template = "rooms://{id}")]
async fn room(id: String) -> String {
    let room = format!("room {id}");
    let booking = Booking {
        room: room.clone(),
        book: false,
        agenda: String::new(),
    };
    match booking {
        Booking {
            room, book: false, ..
        } => format!("{room} is free"),
        Booking { room, .. } => format!("{} is taken", room),
    }
}

/// Books a room, with parameters named like the resource and the prompt.
#[tool]
async fn book(room: String, agenda: Option<String>) -> String {
    let book = Booking {
        room,
        book: true,
        agenda: agenda.unwrap_or_default(),
    };
    let Booking {
        room, book, agenda, ..
    } = book;
    let book = if book { "booked" } else { "free" };
    format!("{room} {book}: {agenda}")
}

/// The agenda of a meeting, with parameters named like the resource and the tool.
#[prompt]
async fn agenda(room: String, book: String) -> String {
    let agenda = describe(Request::Agenda {
        agenda: format!("{book} in {room}"),
    });
    match Some(agenda) {
        Some(agenda) => agenda,
        None => describe(Request::Room { room }),
    }
}

fn server() -> Server {
    Server::builder()
        .resource(room)
        .tool(book)
        .prompt(agenda)
        .build()
        .expect("the handlers build")
}

/// The text of the first content of `value` (a result) at `pointer`.
fn text_at(value: &impl serde::Serialize, pointer: &str) -> String {
    let json = json_of(value);
    let text = json.pointer(pointer).and_then(Value::as_str);
    text.unwrap_or_else(|| panic!("no text at {pointer}: {json:#}"))
        .to_owned()
}

#[tokio::test]
async fn handlers_named_like_bindings_answer_over_the_protocol() {
    let client = connect(server(), Client::builder()).await;
    let read = client.read_resource("rooms://7").await.unwrap();
    assert_eq!(text_at(&read, "/contents/0/text"), "room 7 is free");
    let arguments = json!({"room": "Oak", "agenda": "retro"});
    let called = client.call_tool("book", arguments).await.unwrap();
    assert_eq!(called.text(), "Oak booked: retro");
    let arguments = json!({"room": "Oak", "book": "retro"});
    let got = client.get_prompt("agenda", arguments).await.unwrap();
    assert_eq!(
        text_at(&got, "/messages/0/content/text"),
        "agenda retro in Oak"
    );
}

#[tokio::test]
async fn each_handler_runs_directly_by_its_name() {
    assert_eq!(room().call("3".into()).await, "room 3 is free");
    assert_eq!(book().call("Elm".into(), None).await, "Elm booked: ");
    assert_eq!(
        agenda().call("Elm".into(), "standup".into()).await,
        "agenda standup in Elm"
    );
    assert_eq!(
        describe(Request::Book { book: 2 }),
        "book 2",
        "the enum field shares the tool's name"
    );
}

#[tokio::test]
async fn the_listed_names_are_the_functions_names() {
    let client = connect(server(), Client::builder()).await;
    assert_eq!(client.list_tools().await.unwrap()[0].name, "book");
    assert_eq!(client.list_prompts().await.unwrap()[0].name, "agenda");
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].name, "room");
}
