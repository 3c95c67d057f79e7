//! The streams of one session, driven without HTTP: the replay bound, resumption from an id,
//! take-over by a new connection, and forgetting delivered streams.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mcp_core::RequestId;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::budget::ByteBudget;
use super::event_id::EventId;
use super::pump;
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
