//! A question asked again says why: after an invalid answer, `Round` asks the same questions
//! again by itself, and the one whose answer failed carries the reason in its message (which
//! field, which rule), in the form's words (a field's title where it has one, else its name),
//! bounded in length whatever the client sent. Driven in-process on the 2026-07-28 wire
//! through [`Server::handle_message`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{Continuation, OneOf, RequestStateSigner, Round, Step};
use typemcp_server::typemcp_core::form::MAX_EXPLANATION_CHARS;
use typemcp_server::{ElicitForm, Server, tool};

use crate::support::wire::{forms, reply, tool_call};

/// Who books the room.
#[derive(ElicitForm, Debug)]
struct Contact {
    #[form(title = "E-mail", format = "email")]
    email: String,
    #[form(title = "Guests", minimum = 1, maximum = 12)]
    guests: u8,
    note: Option<String>,
}

/// Whether to book it.
#[derive(ElicitForm, Debug)]
struct Confirm {
    ok: bool,
}

/// The booking flow: a contact form and a confirmation, in one round.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Booking {
    #[awaits(contact: Contact, confirm: Confirm)]
    Asking,
}

/// The message the contact form is asked with first.
const CONTACT_MESSAGE: &str = "Who is booking?";

/// Books a room once it knows who for.
#[tool]
async fn book(round: Round<Booking>) -> Step<Booking, String> {
    match round.resume() {
        None => round.ask(BookingAsking::Asking {
            contact: CONTACT_MESSAGE.into(),
            confirm: "Book it?".into(),
        }),
        Some(BookingAnswered::Asking { contact, confirm }) => {
            match (contact.accepted(), confirm.accepted()) {
                (Some(contact), Some(Confirm { ok: true })) => Step::done(format!(
                    "booked for {} and {} guests ({})",
                    contact.email,
                    contact.guests,
                    contact.note.unwrap_or_default()
                )),
                _ => Step::done("not booked".to_owned()),
            }
        }
    }
}

fn server() -> Server {
    Server::builder()
        .tool(book)
        .request_state_signer(RequestStateSigner::new([5u8; 32]).unwrap())
        .build()
        .unwrap()
}

/// `book` called with the `extra` params, from a client answering forms.
async fn call(server: &Server, extra: Value) -> Value {
    reply(server, &tool_call("book", json!({}), extra, forms())).await
}

/// The messages of the questions asked again after `contact` is answered with `content`
/// (and the confirmation accepted): the contact question's, the confirmation's.
async fn reasked_with(contact: Value) -> (String, String) {
    let server = server();
    let first = call(&server, json!({})).await;
    let state = first["result"]["requestState"].clone();
    let answers = json!({
        "contact": contact,
        "confirm": {"action": "accept", "content": {"ok": true}},
    });
    let again = call(
        &server,
        json!({"inputResponses": answers, "requestState": state}),
    )
    .await;
    let requests = &again["result"]["inputRequests"];
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    let message = |key: &str| {
        requests[key]["params"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{again}"))
            .to_owned()
    };
    (message("contact"), message("confirm"))
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn a_broken_rule_is_named_with_the_fields_title() {
    let (contact, confirm) = reasked_with(accept(json!({"email": "ann", "guests": 2}))).await;
    assert_eq!(
        contact,
        "Who is booking?\n\nThe previous answer was not valid (E-mail: \"ann\" is not a valid \
         email address). Please answer again."
    );
    // The question answered well is asked again as it was.
    assert_eq!(confirm, "Book it?");

    let (contact, _) =
        reasked_with(accept(json!({"email": "ann@example.com", "guests": 40}))).await;
    assert!(
        contact.contains("(Guests: 40 is greater than the maximum of 12)"),
        "{contact}"
    );
}

#[tokio::test]
async fn a_missing_required_field_is_named() {
    let (contact, _) = reasked_with(accept(json!({"email": "ann@example.com"}))).await;
    assert!(
        contact.ends_with("(Guests: missing required field). Please answer again."),
        "{contact}"
    );
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_named_and_untitled_fields_by_their_name() {
    let (contact, _) = reasked_with(accept(
        json!({"email": "ann@example.com", "guests": "two", "note": 7}),
    ))
    .await;
    assert!(
        contact.contains("Guests: \"two\" is not of type \"integer\""),
        "{contact}"
    );
    assert!(
        contact.contains("`note`: 7 is not of type \"string\""),
        "{contact}"
    );
}

#[tokio::test]
async fn an_answer_that_never_came_is_asked_for_again() {
    let server = server();
    let first = call(&server, json!({})).await;
    let state = first["result"]["requestState"].clone();
    let answers = json!({"confirm": accept(json!({"ok": true}))});
    let again = call(
        &server,
        json!({"inputResponses": answers, "requestState": state}),
    )
    .await;
    assert_eq!(
        again["result"]["inputRequests"]["contact"]["params"]["message"],
        "Who is booking?\n\nNo answer was received: please answer again.",
        "{again}"
    );
}

#[tokio::test]
async fn the_reason_stays_bounded_whatever_the_client_sent() {
    let huge = "x".repeat(50_000);
    let mut content = serde_json::Map::new();
    content.insert("email".to_owned(), json!(huge));
    content.insert("guests".to_owned(), json!(huge));
    content.insert("note".to_owned(), json!([huge.clone(), huge.clone()]));
    for key in 0..20 {
        content.insert(format!("extra{key}"), json!(huge));
    }
    let (contact, _) = reasked_with(accept(Value::Object(content))).await;
    let bound = CONTACT_MESSAGE.len() + MAX_EXPLANATION_CHARS + 80;
    assert!(
        contact.chars().count() <= bound,
        "{} characters",
        contact.chars().count()
    );
    assert!(contact.starts_with("Who is booking?\n\nThe previous answer was not valid (E-mail: "));

    // An answer that is not even an elicitation result is told apart, bounded too.
    let (contact, _) = reasked_with(json!({"action": huge})).await;
    assert!(contact.chars().count() <= bound, "{}", contact.len());
    assert!(contact.contains("not an elicitation result"), "{contact}");
}

#[tokio::test]
async fn a_refused_titled_choice_names_the_options_by_their_labels() {
    #[derive(Serialize, Deserialize, Clone, Continuation)]
    enum Seating {
        #[awaits(room: OneOf<String>)]
        Choosing,
    }

    /// Seats the meeting in one of two rooms, shown by their labels.
    #[tool]
    async fn seat(round: Round<Seating>) -> Step<Seating, String> {
        let rooms = [
            ("north-1", "Aurora (4 seats)"),
            ("north-2", "Borealis (10 seats)"),
        ];
        let rooms = rooms.map(|(id, label)| (id.to_owned(), label));
        match round.resume() {
            None => round.ask(SeatingAsking::Choosing {
                room: OneOf::titled("Which room?", rooms),
            }),
            Some(SeatingAnswered::Choosing { room }) => Step::done(format!("{room:?}")),
        }
    }

    let server = Server::builder()
        .tool(seat)
        .request_state_signer(RequestStateSigner::new([5u8; 32]).unwrap())
        .build()
        .unwrap();
    let mut answered = Value::Null;
    for answers in [None, Some(json!({"room": accept(json!({"room": "x"}))}))] {
        let extra = match answers {
            Some(answers) => {
                let state = answered["result"]["requestState"].clone();
                json!({"inputResponses": answers, "requestState": state})
            }
            None => json!({}),
        };
        answered = reply(&server, &tool_call("seat", json!({}), extra, forms())).await;
        assert_eq!(
            answered["result"]["resultType"], "input_required",
            "{answered}"
        );
    }
    let reply = answered;
    let question = &reply["result"]["inputRequests"]["room"]["params"];
    assert_eq!(
        question["requestedSchema"]["properties"]["room"]["oneOf"][0],
        json!({"const": "north-1", "title": "Aurora (4 seats)"}),
    );
    assert_eq!(
        question["message"],
        "Which room?\n\nThe previous answer was not valid (`room`: \"x\" is not one of \
         Aurora (4 seats), Borealis (10 seats)). Please answer again."
    );
}
