//! The streams of one session, driven without HTTP: the replay bound, resumption from an id,
//! take-over by a new connection, forgetting delivered streams, and the byte budgets (an
//! event over them sent but not kept, or lost; streams no client reads released for room,
//! oldest first, their requests going on).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use typemcp_core::RequestId;

use super::budget::ByteBudget;
use super::event_id::EventId;
use super::pump;
use super::stream::{Pushed, Stream};
use super::{Refused, Settings, Streams};
use crate::dispatch::Reply;

fn streams(replay_bytes: usize) -> Arc<Streams> {
    streams_of("2025-11-25", replay_bytes, 32)
}

fn streams_of(version: &str, replay_bytes: usize, max_streams: usize) -> Arc<Streams> {
    let settings = Settings {
        replay_bytes,
        session_bytes: 1 << 20,
        endpoint: ByteBudget::new(1 << 20),
        retry: None,
        max_streams,
        shared: false,
    };
    Streams::with("session", version, &CancellationToken::new(), settings)
}

/// A 20-byte message numbered `n`.
fn message(n: usize) -> Bytes {
    Bytes::from(format!("{{\"n\":{n:>14}}}"))
}

fn seq_of(event: &sse_stream::Sse) -> u64 {
    let id = event.id.as_deref().unwrap_or_default();
    id.rsplit('.')
        .next()
        .and_then(|seq| seq.parse().ok())
        .unwrap_or(u64::MAX)
}

#[tokio::test]
async fn a_detached_stream_keeps_at_most_its_bound_and_the_producer_waits() {
    let streams = streams(64);
    let (tx, rx) = mpsc::channel(64);
    let (stream, control) = streams.prepare(&tx);
    streams.register(&stream);
    let mut first = stream.start(Arc::clone(&streams), None);
    assert!(control.expect("polling").close().await);
    let handler = tokio::spawn(async move {
        for n in 0..10 {
            assert!(tx.send(message(n)).await.is_ok());
        }
        Reply::answered(message(10))
    });
    let producer = tokio::spawn(pump::request(
        Arc::clone(&stream),
        VecDeque::new(),
        rx,
        handler,
        RequestId::from(1),
        CancellationToken::new().drop_guard(),
    ));
    assert!(first.next().await.is_none(), "the closed connection ends");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        stream.kept_bytes(),
        60,
        "three of the ten fit, none dropped"
    );
    assert!(!producer.is_finished(), "the producer waits for room");

    let mut resumed = stream
        .resume(Arc::clone(&streams), 0)
        .unwrap_or_else(|_| panic!("resume"));
    let mut seqs = Vec::new();
    while let Some(event) = resumed.next().await {
        assert!(stream.kept_bytes() <= 64);
        seqs.push(seq_of(&event));
    }
    assert_eq!(
        seqs,
        (1..=11).collect::<Vec<u64>>(),
        "each event once, in order"
    );
    assert!(producer.await.is_ok());
    assert_eq!(streams.kept(), 0, "a delivered stream is forgotten");
}

#[tokio::test]
async fn a_resume_from_before_dropped_events_is_refused() {
    let streams = streams(40);
    let (tx, _rx) = mpsc::channel(1);
    let (stream, _) = streams.prepare(&tx);
    streams.register(&stream);
    let mut connection = stream.start(Arc::clone(&streams), None);
    let closed = CancellationToken::new();
    for n in 0..2 {
        assert!(stream.push(message(n), &closed).await);
    }
    for _ in 0..2 {
        assert!(connection.next().await.is_some());
    }
    // Both were sent: the third makes room by dropping the first.
    assert!(stream.push(message(2), &closed).await);
    assert!(stream.resume(Arc::clone(&streams), 0).is_err());
    assert!(
        stream.resume(Arc::clone(&streams), 9).is_err(),
        "never minted"
    );
    let mut resumed = stream
        .resume(Arc::clone(&streams), 1)
        .unwrap_or_else(|_| panic!("resume from 1"));
    assert!(
        connection.next().await.is_none(),
        "the resume took the stream over"
    );
    let next = resumed.next().await.map(|event| seq_of(&event));
    assert_eq!(next, Some(2));
}

#[tokio::test]
async fn a_close_before_anything_was_sent_primes_then_closes() {
    let streams = streams(1024);
    let (tx, mut rx) = mpsc::channel(4);
    let (stream, control) = streams.prepare(&tx);
    assert!(control.expect("polling").close().await);
    let request = rx.recv().await.expect("the close request, in band");
    streams.register(&stream);
    let priming = stream.priming(Some(Duration::from_millis(250)));
    assert_eq!(priming.data.as_deref(), Some(""));
    assert_eq!(priming.retry, Some(250));
    let mut connection = stream.start(Arc::clone(&streams), Some(priming));
    let handler = tokio::spawn(std::future::pending());
    let producer = tokio::spawn(pump::request(
        Arc::clone(&stream),
        VecDeque::from([request]),
        rx,
        handler,
        RequestId::from(1),
        CancellationToken::new().drop_guard(),
    ));
    assert_eq!(connection.next().await.map(|event| seq_of(&event)), Some(0));
    assert!(connection.next().await.is_none());
    assert_eq!(streams.kept(), 1, "still resumable");
    producer.abort();
}

#[test]
fn older_revisions_get_no_polling() {
    let old = streams_of("2025-06-18", 1, 1);
    let (tx, _rx) = mpsc::channel(1);
    assert!(old.prepare(&tx).1.is_none());
}

#[tokio::test]
async fn beyond_its_bound_a_session_gives_up_its_oldest_unread_stream() {
    let streams = streams_of("2025-11-25", 1024, 2);
    let (tx, rx) = mpsc::channel(4);
    let (first, _) = streams.prepare(&tx);
    streams.register(&first);
    // The client went away from the first stream; its request goes on.
    drop(first.start(Arc::clone(&streams), None));
    let cancelled = CancellationToken::new();
    let producer = tokio::spawn(pump::request(
        Arc::clone(&first),
        VecDeque::new(),
        rx,
        tokio::spawn(std::future::pending()),
        RequestId::from(1),
        cancelled.clone().drop_guard(),
    ));
    let (second, _) = streams.prepare(&tx);
    streams.register(&second);
    let _reading = second.start(Arc::clone(&streams), None);
    let (third, _) = streams.prepare(&tx);
    streams.register(&third);

    assert_eq!(streams.kept(), 2);
    let given_up = tokio::time::timeout(Duration::from_secs(5), cancelled.cancelled()).await;
    assert!(
        given_up.is_ok(),
        "the given-up stream's request is cancelled"
    );
    assert!(producer.await.is_ok());
    let id = EventId {
        stream: first.number(),
        seq: 0,
    }
    .render(&streams.tag);
    let resumed = super::resume(&streams, &id, Duration::from_secs(15));
    assert!(matches!(resumed, Err(Refused::Gone)));
}

/// Streams of a 2025-11-25 session named `name`, with these per-stream and per-session
/// bounds, sharing the `endpoint` budget.
fn budgeted(
    name: &str,
    replay_bytes: usize,
    session_bytes: usize,
    endpoint: &Arc<ByteBudget>,
) -> Arc<Streams> {
    let settings = Settings {
        replay_bytes,
        session_bytes,
        endpoint: Arc::clone(endpoint),
        retry: None,
        max_streams: 32,
        shared: false,
    };
    Streams::with(name, "2025-11-25", &CancellationToken::new(), settings)
}

/// A started, registered stream of `streams`, with the connection serving it.
fn started(streams: &Arc<Streams>) -> (Arc<Stream>, super::stream::Connection) {
    let (tx, _rx) = mpsc::channel(1);
    let (stream, _) = streams.prepare(&tx);
    streams.register(&stream);
    let connection = stream.start(Arc::clone(streams), None);
    (stream, connection)
}

/// A message of `len` bytes.
fn sized(len: usize) -> Bytes {
    Bytes::from(vec![b'x'; len])
}

fn resume_refused(streams: &Arc<Streams>, stream: &Stream, seq: u64) -> bool {
    let id = EventId {
        stream: stream.number(),
        seq,
    }
    .render(&streams.tag);
    matches!(
        super::resume(streams, &id, Duration::from_secs(15)),
        Err(Refused::Gone)
    )
}

#[tokio::test]
async fn an_event_over_the_stream_bound_is_sent_to_its_connection_but_not_kept() {
    let endpoint = ByteBudget::new(1 << 20);
    let streams = budgeted("session", 100, 1000, &endpoint);
    let (stream, mut connection) = started(&streams);
    assert_eq!(stream.try_push(&sized(10)), Pushed::Kept);
    assert_eq!(stream.try_push(&sized(500)), Pushed::Passed);
    assert_eq!(stream.kept_bytes(), 10, "the large event is not counted");
    assert_eq!(
        stream.try_push(&sized(10)),
        Pushed::Full,
        "the producer waits for the passed event to go"
    );
    let first = connection.next().await.map(|event| seq_of(&event));
    let second = connection.next().await;
    assert_eq!(first, Some(1));
    assert_eq!(
        second
            .as_ref()
            .and_then(|e| e.data.as_ref())
            .map(String::len),
        Some(500),
        "sent whole"
    );
    assert_eq!(
        (stream.kept_bytes(), endpoint.used()),
        (0, 0),
        "then forgotten"
    );
    assert_eq!(
        stream.try_push(&sized(10)),
        Pushed::Kept,
        "the stream goes on"
    );
    drop(connection);
    assert!(
        resume_refused(&streams, &stream, 1),
        "a resume that needs it is refused"
    );
    assert!(!resume_refused(&streams, &stream, 2), "one after it is not");
}

#[tokio::test]
async fn an_event_over_the_bound_with_no_connection_is_lost_and_the_request_goes_on() {
    let endpoint = ByteBudget::new(1 << 20);
    let streams = budgeted("session", 100, 1000, &endpoint);
    let (tx, rx) = mpsc::channel(4);
    let (stream, _) = streams.prepare(&tx);
    streams.register(&stream);
    // The client went away before reading anything.
    drop(stream.start(Arc::clone(&streams), None));
    let cancelled = CancellationToken::new();
    let handler = tokio::spawn(async move {
        assert!(tx.send(sized(10)).await.is_ok());
        Reply::answered(sized(3_500))
    });
    let producer = tokio::spawn(pump::request(
        Arc::clone(&stream),
        VecDeque::new(),
        rx,
        handler,
        RequestId::from(1),
        cancelled.clone().drop_guard(),
    ));
    let finished = tokio::time::timeout(Duration::from_secs(5), producer).await;
    assert!(
        matches!(finished, Ok(Ok(()))),
        "the producer ran to its end"
    );
    assert!(!cancelled.is_cancelled(), "the request was not cancelled");
    assert_eq!(
        (stream.kept_bytes(), endpoint.used()),
        (0, 0),
        "nothing kept"
    );
    assert!(resume_refused(&streams, &stream, 0));
    assert!(resume_refused(&streams, &stream, 1));
}

#[tokio::test]
async fn a_short_session_budget_releases_its_oldest_unread_stream_and_cancels_nothing() {
    let endpoint = ByteBudget::new(1 << 20);
    let streams = budgeted("session", 100, 150, &endpoint);
    let (oldest, gone) = started(&streams);
    let (unread, also_gone) = started(&streams);
    let (read, _reading) = started(&streams);
    for stream in [&oldest, &unread] {
        assert_eq!(stream.try_push(&sized(50)), Pushed::Kept);
    }
    drop((gone, also_gone));
    assert_eq!(streams.budget.used(), 100);

    // The stream being read needs 80: the oldest unread one gives its 50 back; one is enough.
    assert_eq!(read.try_push(&sized(80)), Pushed::Kept);
    assert_eq!(
        (oldest.kept_bytes(), unread.kept_bytes(), read.kept_bytes()),
        (0, 50, 80)
    );
    assert_eq!(streams.budget.used(), 130);
    assert!(oldest.is_released());
    assert!(
        !oldest.ended().is_cancelled(),
        "its producer is not stopped"
    );
    assert!(resume_refused(&streams, &oldest, 0), "it cannot be resumed");
    assert_eq!(
        oldest.try_push(&sized(10)),
        Pushed::Lost,
        "and keeps nothing more"
    );
    assert!(!resume_refused(&streams, &unread, 0), "the other one can");
    assert_eq!(streams.kept(), 2);
}

#[tokio::test]
async fn streams_being_read_are_never_released_and_what_does_not_fit_is_passed_on() {
    let endpoint = ByteBudget::new(1 << 20);
    let streams = budgeted("session", 100, 100, &endpoint);
    let (first, mut reading) = started(&streams);
    let (second, _reading_too) = started(&streams);
    assert_eq!(first.try_push(&sized(90)), Pushed::Kept);
    assert_eq!(second.try_push(&sized(20)), Pushed::Passed);
    assert_eq!(
        first.kept_bytes(),
        90,
        "the stream being read keeps its events"
    );
    assert!(!first.is_released());
    // The first stream's event goes out; the second's passed event still waits for its
    // connection, and its producer with it.
    assert!(reading.next().await.is_some());
    assert_eq!(second.try_push(&sized(20)), Pushed::Full);
}

#[tokio::test]
async fn the_endpoint_budget_is_shared_and_releases_the_oldest_unread_stream_of_any_session() {
    let endpoint = ByteBudget::new(200);
    let a = budgeted("a", 100, 1000, &endpoint);
    let b = budgeted("b", 100, 1000, &endpoint);
    let (a_old, a_gone) = started(&a);
    let (b_old, b_gone) = started(&b);
    let (a_new, a_gone_too) = started(&a);
    for stream in [&a_old, &b_old, &a_new] {
        assert_eq!(stream.try_push(&sized(60)), Pushed::Kept);
    }
    drop((a_gone, b_gone, a_gone_too));
    assert_eq!(endpoint.used(), 180);

    let (b_new, _reading) = started(&b);
    assert_eq!(b_new.try_push(&sized(90)), Pushed::Kept);
    assert!(a_old.is_released(), "the oldest, of the other session");
    assert!(b_old.is_released(), "then the next oldest");
    assert!(!a_new.is_released(), "and no more than needed");
    assert_eq!(endpoint.used(), 150);
    assert!(resume_refused(&a, &a_old, 0) && resume_refused(&b, &b_old, 0));
    assert!(!resume_refused(&a, &a_new, 0));

    // Whatever the sessions do, the endpoint keeps at most its budget.
    for _ in 0..10 {
        let (stream, connection) = started(&a);
        drop(connection);
        let _ = stream.try_push(&sized(95));
        assert!(endpoint.used() <= 200);
    }
}
