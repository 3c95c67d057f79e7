//! The declaration macros take no name the user may also use: a `#[resource]`, a `#[tool]`
//! and a `#[prompt]` whose names are, in the same module, also local variables, struct and
//! enum fields, `match` bindings, `format!` arguments and parameters of the other handlers.
//! The module compiles (a unit struct of the handler's name would refuse every such binding
//! with `E0530`), each handler is registered by its name and answers over the protocol, and
//! each runs directly as `name().call(..)`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use typemcp_server::{Server, TransportInfo, prompt, resource, tool};

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

async fn send(server: &Server, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = server
        .handle_message(request.to_string().as_bytes(), TransportInfo::in_process())
        .await
        .expect("a request gets a reply");
    serde_json::from_slice(&reply).unwrap()
}

#[tokio::test]
async fn handlers_named_like_bindings_answer_over_the_protocol() {
    let server = server();

    let read = send(&server, "resources/read", json!({"uri": "rooms://7"})).await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "room 7 is free",
        "{read:#}"
    );

    let called = send(
        &server,
        "tools/call",
        json!({"name": "book", "arguments": {"room": "Oak", "agenda": "retro"}}),
    )
    .await;
    assert_eq!(
        called["result"]["content"][0]["text"], "Oak booked: retro",
        "{called:#}"
    );

    let got = send(
        &server,
        "prompts/get",
        json!({"name": "agenda", "arguments": {"room": "Oak", "book": "retro"}}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "agenda retro in Oak",
        "{got:#}"
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

#[test]
fn the_listed_names_are_the_functions_names() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = server();
        let tools = send(&server, "tools/list", json!({})).await;
        assert_eq!(tools["result"]["tools"][0]["name"], "book", "{tools:#}");
        let prompts = send(&server, "prompts/list", json!({})).await;
        assert_eq!(
            prompts["result"]["prompts"][0]["name"], "agenda",
            "{prompts:#}"
        );
        let templates = send(&server, "resources/templates/list", json!({})).await;
        assert_eq!(
            templates["result"]["resourceTemplates"][0]["name"], "room",
            "{templates:#}"
        );
    });
}
