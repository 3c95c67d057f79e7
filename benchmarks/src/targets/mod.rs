//! The servers under test, each a small adapter behind [`Target`].
//!
//! A target can be served over HTTP (it is handed a bound loopback listener and
//! spawns its server on the servers' runtime) and/or over stdio (it names a
//! `[[bin]]` of this crate that speaks newline-delimited JSON on stdin/stdout).
//!
//! | target | HTTP | three-round flow (HTTP) | 2025-11-25 session (HTTP) | tasks (HTTP) | stdio |
//! | --- | --- | --- | --- | --- | --- |
//! | [`bare_hyper`] | ceiling | – | – | – | – |
//! | [`echo_stdio`] | – | – | – | – | ceiling |
//! | [`rmcp`] | yes | yes (`RequestStateCodec`) | – | – | yes |
//! | `rmcp-session` ([`rmcp::RmcpSession`]) | – | – | yes (`LocalSessionManager`) | – | – |
//! | [`ours`] | yes | yes (`Round` / `Step`) | yes (the same server) | yes (`task_echo`) | yes |
//! | [`ours_redis`] | – | yes, single use over Redis (ratio to [`ours`]) | – | – | – |
//!
//! The task scenario has no ceiling and no peer: its rate is divided by the same target's
//! single-call rate at the same concurrency.
//!
//! The session scenario has no ceiling of its own: its rates are divided by bare hyper's
//! 2026-wire rate at the same concurrency, and by the same SDK's 2026-wire rate (rmcp's
//! stateless target for `rmcp-session`, [`Target::baseline`]).
//!
//! Adding a target is: implement [`Target`] in a new module and list it in
//! [`all`]. HTTP targets that expose a hyper service ([`spawn_http1`]) or a
//! tower service such as an axum `Router` ([`spawn_tower_http1`]) reuse the same
//! connection handling, so only the framework differs between targets. [`ours`] and its
//! variants run `Server::serve_http_on` on the harness's listener instead, the connection
//! driver every server written with `Server::serve_http` runs (hyper's HTTP/1.1 driver too).

pub mod bare_hyper;
pub mod echo_stdio;
pub mod ours;
pub mod ours_redis;
pub mod ours_redis_sessions;
pub mod rmcp;

use std::error::Error as StdError;

use hyper::body::{Body, Incoming};
use hyper::service::Service;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The role a target plays in the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// The framework-free ceiling the others are divided by.
    Ceiling,
    /// rmcp, the official Rust SDK.
    Rmcp,
    /// This workspace's SDK.
    Ours,
    /// A variant of another target ([`Target::baseline`]), reported as a ratio to it.
    Variant,
}

/// One server implementation under test.
pub trait Target: Send + Sync {
    /// Short name used in the report and in `LOAD_TARGETS`.
    fn name(&self) -> &'static str;

    /// The role of this target in the ratios.
    fn kind(&self) -> TargetKind;

    /// The target this one is a variant of ([`TargetKind::Variant`]): its flow rate is
    /// reported as a ratio to that target's.
    fn baseline(&self) -> Option<&'static str> {
        None
    }

    /// Why this target cannot run on this machine (a missing program), if it cannot: the
    /// runner then skips it, saying why.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// Whether it runs only the three-round flow scenario over HTTP, not the single call.
    fn flow_only(&self) -> bool {
        false
    }

    /// Whether its HTTP server serves 2025-11-25 sessions (`initialize`, `Mcp-Session-Id`)
    /// with the `echo` tool.
    fn has_session(&self) -> bool {
        false
    }

    /// Whether it runs only the session scenario over HTTP (a peer's stateful configuration).
    fn session_only(&self) -> bool {
        false
    }

    /// Whether [`Target::spawn_http`] serves anything.
    fn has_http(&self) -> bool {
        false
    }

    /// Spawns the HTTP server on `listener` (already bound to `127.0.0.1`),
    /// answering `POST /mcp`, until `shutdown` is cancelled.
    ///
    /// Called from inside the servers' runtime, so `tokio::spawn` lands there.
    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        drop((listener, shutdown));
        anyhow::bail!("target {} has no HTTP form", self.name())
    }

    /// Whether its HTTP server also serves the three-round `flow` tool (see
    /// [`crate::protocol::flow_request_body`]).
    fn has_flow(&self) -> bool {
        false
    }

    /// Whether its HTTP server also serves the `task_echo` tool as a task to clients that
    /// declare the tasks extension, and `tasks/get` (see
    /// [`crate::protocol::task_request_body`]).
    fn has_tasks(&self) -> bool {
        false
    }

    /// Name of the `[[bin]]` of this crate that serves the target over stdio.
    fn stdio_bin(&self) -> Option<&'static str> {
        None
    }
}

/// Every target, in report order: ceilings first, then rmcp, then ours and its variant.
pub fn all() -> Vec<Box<dyn Target>> {
    vec![
        Box::new(bare_hyper::BareHyper),
        Box::new(echo_stdio::EchoStdio),
        Box::new(rmcp::Rmcp),
        Box::new(rmcp::RmcpSession),
        Box::new(ours::Ours),
        Box::new(ours_redis::OursRedis::default()),
        Box::new(ours_redis_sessions::OursRedisSessions::default()),
    ]
}

/// Accepts HTTP/1.1 connections on `listener` and serves each with `service`
/// (keep-alive on, `TCP_NODELAY` set) until `shutdown` is cancelled.
pub fn spawn_http1<S, B>(listener: TcpListener, shutdown: CancellationToken, service: S)
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                () = shutdown.cancelled() => break,
                accepted = listener.accept() => accepted,
            };
            let Ok((stream, _peer)) = accepted else {
                // Transient accept errors (e.g. EMFILE) must not kill the server.
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                continue;
            };
            // Latency matters more than packet count on loopback; failure only costs speed.
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                let connection = hyper::server::conn::http1::Builder::new()
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(stream), service);
                tokio::pin!(connection);
                tokio::select! {
                    _ = connection.as_mut() => {}
                    () = shutdown.cancelled() => {
                        connection.as_mut().graceful_shutdown();
                        let _ = connection.as_mut().await;
                    }
                }
            });
        }
    });
}

/// [`spawn_http1`] for a tower service, such as an axum `Router`: each request
/// is handed to a clone of `service` with `oneshot`.
pub fn spawn_tower_http1<T, B>(listener: TcpListener, shutdown: CancellationToken, service: T)
where
    T: tower::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    T::Future: Send + 'static,
    T::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    use tower::ServiceExt as _;
    spawn_http1(
        listener,
        shutdown,
        hyper::service::service_fn(move |request| service.clone().oneshot(request)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client;
    use crate::protocol::check_reply_full;

    /// Starts each HTTP target and checks it answers the benchmark request
    /// with a single `application/json` JSON-RPC success.
    #[test]
    fn http_targets_answer_the_benchmark_request() -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shutdown = CancellationToken::new();
        let targets = all().into_iter();
        for target in
            targets.filter(|t| t.has_http() && !t.session_only() && t.unavailable().is_none())
        {
            let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
            let addr = listener.local_addr()?;
            {
                let _entered = runtime.enter();
                target.spawn_http(listener, shutdown.child_token())?;
            }
            let (status, content_type, body) = runtime.block_on(client::probe(addr, 5))?;
            assert_eq!(status, 200, "{}: {body:?}", target.name());
            assert_eq!(
                content_type.as_deref(),
                Some("application/json"),
                "{}",
                target.name()
            );
            check_reply_full(&body, 5)?;
        }
        shutdown.cancel();
        Ok(())
    }

    /// Every target that says it serves the flow completes one, fully validated, and
    /// refuses a tampered state.
    #[test]
    fn flow_targets_complete_the_three_round_flow() -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shutdown = CancellationToken::new();
        let flow_targets: Vec<_> = all().into_iter().filter(|t| t.has_flow()).collect();
        let names: Vec<&str> = flow_targets.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["rmcp", "ours", "ours-redis"], "who serves the flow");
        let flow_targets = flow_targets
            .into_iter()
            .filter(|t| t.unavailable().is_none());
        for target in flow_targets {
            let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
            let addr = listener.local_addr()?;
            {
                let _entered = runtime.enter();
                target.spawn_http(listener, shutdown.child_token())?;
            }
            runtime
                .block_on(client::preflight_flow(
                    addr,
                    std::time::Duration::from_secs(5),
                ))
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", target.name()))?;
            let tampered = runtime.block_on(client::flow_round_with_state(
                addr,
                crate::protocol::FlowRound::Second,
                "mcp1.MQ.1.AAAAAAAAAAA.e30.AAAA",
            ))?;
            assert!(
                tampered.contains("\"error\""),
                "{}: a forged state must be refused: {tampered}",
                target.name()
            );
        }
        shutdown.cancel();
        Ok(())
    }

    /// Every target that says it serves sessions opens one and answers on it, fully validated.
    #[test]
    fn session_targets_answer_on_a_session() -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shutdown = CancellationToken::new();
        let session_targets: Vec<_> = all().into_iter().filter(|t| t.has_session()).collect();
        let names: Vec<&str> = session_targets.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["rmcp-session", "ours"], "who serves sessions");
        for target in session_targets {
            let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
            let addr = listener.local_addr()?;
            {
                let _entered = runtime.enter();
                target.spawn_http(listener, shutdown.child_token())?;
            }
            runtime
                .block_on(client::preflight_session(
                    addr,
                    std::time::Duration::from_secs(5),
                ))
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", target.name()))?;
        }
        shutdown.cancel();
        Ok(())
    }

    /// Every target that says it serves tasks completes one, created and polled over HTTP,
    /// fully validated.
    #[test]
    fn task_targets_complete_a_task() -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shutdown = CancellationToken::new();
        let task_targets: Vec<_> = all().into_iter().filter(|t| t.has_tasks()).collect();
        let names: Vec<&str> = task_targets.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["ours"], "who serves tasks");
        for target in task_targets {
            let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
            let addr = listener.local_addr()?;
            {
                let _entered = runtime.enter();
                target.spawn_http(listener, shutdown.child_token())?;
            }
            let polls = runtime
                .block_on(client::preflight_task(
                    addr,
                    std::time::Duration::from_secs(5),
                ))
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", target.name()))?;
            assert!(polls >= 1, "{}", target.name());
        }
        shutdown.cancel();
        Ok(())
    }

    /// The tower bridge (used for axum routers) serves requests like the hyper one.
    #[test]
    fn tower_services_are_served() -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let shutdown = CancellationToken::new();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        let service = tower::service_fn(|_request: Request<Incoming>| async {
            let body =
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
            Ok::<_, std::convert::Infallible>(Response::new(http_body_util::Full::new(
                bytes::Bytes::from_static(body.as_bytes()),
            )))
        });
        {
            let _entered = runtime.enter();
            spawn_tower_http1(listener, shutdown.clone(), service);
        }
        let (status, _content_type, body) = runtime.block_on(client::probe(addr, 3))?;
        assert_eq!(status, 200);
        check_reply_full(&body, 3)?;
        shutdown.cancel();
        Ok(())
    }
}
