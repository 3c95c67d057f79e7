//! Micro-benchmarks of elicitation forms: reading an untrusted answer into a typed form, and
//! generating the schema that asks for it.
//!
//! Run with `cargo bench -p mcp-benchmarks --bench forms` (criterion; a filter after `--`
//! selects benchmarks, e.g. `-- rollout`).
//!
//! Two forms, both derived with `#[derive(ElicitForm)]`:
//!
//! * `confirm`: one field, `ok: bool`;
//! * `rollout`: six fields: a titled single-choice enum, a bounded `u8` with a default, an
//!   `Option<String>` with `max_length`, an `Email`, a multi-select `Vec<Region>` with item
//!   bounds, and a `bool` with a default.
//!
//! For each: `answer/accepted` (valid content: the checks the derive generated from the
//! field constraints, then the typed value), `answer/malformed` (`confirm`: a string for the
//! bool; `rollout`: six problems, every one reported),
//! `answer/declined` (no content to check), `answer/accepted-from-text` (the same answer
//! parsed from JSON text first), and `schema/requested` / `schema/requested+json` (the
//! `requestedSchema` sent in `inputRequests`, alone and serialized). `validator/compile` is
//! the cost of reading the checks of a hand-built form from its schema (`FormValidator`).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use typemcp_server::typemcp_core::form::FormValidator;
use typemcp_server::{Answer, ElicitForm, Email, FormChoice};

/// Go ahead?
#[derive(ElicitForm, Debug, PartialEq)]
struct Confirm {
    /// Confirm the operation.
    ok: bool,
}

/// Where to deploy.
#[derive(FormChoice, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Environment {
    #[choice(title = "Staging")]
    Staging,
    #[choice(title = "Production (customer-facing)")]
    Production,
    #[choice(title = "Canary (5% of traffic)")]
    Canary,
}

/// A region to deploy to.
#[derive(FormChoice, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Region {
    #[choice(title = "Europe (Frankfurt)")]
    EuCentral,
    #[choice(title = "Europe (Ireland)")]
    EuWest,
    #[choice(title = "US East (Virginia)")]
    UsEast,
    #[choice(title = "Asia Pacific (Singapore)")]
    ApSoutheast,
}

/// How to roll it out.
#[derive(ElicitForm, Debug, PartialEq)]
struct Rollout {
    /// The environment to deploy to.
    environment: Environment,
    /// How many replicas to start.
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u8,
    /// Why now? Shown in the audit log.
    #[form(max_length = 200)]
    reason: Option<String>,
    /// Who to notify when it is done.
    notify: Email,
    /// The regions to roll out to.
    #[form(min_items = 1, max_items = 3)]
    regions: Vec<Region>,
    /// Stop before switching traffic.
    #[form(default = false)]
    dry_run: bool,
}

fn rollout_accepted() -> Value {
    json!({
        "action": "accept",
        "content": {
            "environment": "production",
            "replicas": 4,
            "reason": "Security patch for CVE-2026-1234; approved in CHG-4821.",
            "notify": "oncall@example.com",
            "regions": ["eu-central", "us-east"],
            "dry_run": false
        }
    })
}

/// Six problems, all reported: unknown environment, out-of-range number, too-long text, bad
/// email, too many selections, unknown region.
fn rollout_malformed() -> Value {
    json!({
        "action": "accept",
        "content": {
            "environment": "prod",
            "replicas": 300,
            "reason": "x".repeat(250),
            "notify": "not an email",
            "regions": ["eu-central", "us-east", "eu-west", "mars"],
        }
    })
}

fn declined() -> Value {
    json!({"action": "decline"})
}

fn bench_form<T: ElicitForm + std::fmt::Debug>(
    c: &mut Criterion,
    name: &str,
    accepted: &Value,
    malformed: &Value,
) {
    // Set-up checks: each answer reads the way its benchmark name says.
    assert!(
        matches!(Answer::<T>::read(Some(accepted)), Answer::Accepted(_)),
        "{name}: accepted"
    );
    match Answer::<T>::read(Some(malformed)) {
        Answer::Malformed(err) => eprintln!(
            "{name}: the malformed answer has {} problem(s): {err}",
            err.problems().len()
        ),
        other => panic!("{name}: malformed answer read as {other:?}"),
    }
    assert!(
        matches!(Answer::<T>::read(Some(&declined())), Answer::Declined),
        "{name}: declined"
    );
    let accepted_text = accepted.to_string();
    let declined = declined();

    let mut group = c.benchmark_group(name);
    group.bench_function("answer/accepted", |b| {
        b.iter(|| Answer::<T>::read(Some(black_box(accepted))));
    });
    group.bench_function("answer/accepted-from-text", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_str(black_box(&accepted_text))
                .unwrap_or_else(|err| panic!("valid JSON: {err}"));
            Answer::<T>::read(Some(&value))
        });
    });
    group.bench_function("answer/malformed", |b| {
        b.iter(|| Answer::<T>::read(Some(black_box(malformed))));
    });
    group.bench_function("answer/declined", |b| {
        b.iter(|| Answer::<T>::read(Some(black_box(&declined))));
    });
    group.bench_function("schema/requested", |b| b.iter(T::requested_schema));
    group.bench_function("schema/requested+json", |b| {
        b.iter(|| serde_json::to_vec(&T::requested_schema()));
    });
    let schema = T::requested_schema();
    group.bench_function(BenchmarkId::new("validator", "compile"), |b| {
        b.iter(|| FormValidator::new(black_box(&schema)));
    });
    group.finish();
}

fn forms(c: &mut Criterion) {
    bench_form::<Confirm>(
        c,
        "confirm",
        &json!({"action": "accept", "content": {"ok": true}}),
        &json!({"action": "accept", "content": {"ok": "yes"}}),
    );
    bench_form::<Rollout>(c, "rollout", &rollout_accepted(), &rollout_malformed());
}

criterion_group!(benches, forms);
criterion_main!(benches);
