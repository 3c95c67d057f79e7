//! One cfg name for "a transport that keeps sessions is compiled in": `sessions`, set when
//! the `stdio` or the `http` feature is on. Sessions of the 2025-11-25 era (and everything
//! that serves them: pushed rounds, the session's own methods) exist only then; without a
//! transport, the server is called in process, where every request is of the 2026-07-28 wire.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sessions)");
    let stdio = std::env::var_os("CARGO_FEATURE_STDIO").is_some();
    let http = std::env::var_os("CARGO_FEATURE_HTTP").is_some();
    if stdio || http {
        println!("cargo::rustc-cfg=sessions");
    }
}
