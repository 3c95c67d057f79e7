//! A throwaway nginx of a test's own (Debian's package): a round-robin balancer with no
//! affinity on a free loopback port, in front of the given backends, its configuration,
//! logs and temporary files under `target/nginx/<test>/`, killed when dropped.
//!
//! Without an `nginx` binary, [`Nginx::start`] fails the test under CI (`CI` set: `.ci/run`
//! installs it) and otherwise prints a loud `SKIPPED` and returns `None`.

use std::net::{Ipv4Addr, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{ChildGuard, fresh_port, out_dir, tail};

/// How long nginx may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// An nginx balancing `127.0.0.1:<port>` over its backends, killed on drop.
#[derive(Debug)]
pub struct Nginx {
    pub port: u16,
    /// Its configuration, logs and temporary files.
    pub dir: PathBuf,
    _child: ChildGuard,
}

/// Where Debian puts the binary (also looked up on `PATH`).
fn binary() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("nginx"))
            .find(|candidate| candidate.is_file())
    });
    on_path.or_else(|| Some(PathBuf::from("/usr/sbin/nginx")).filter(|p| p.is_file()))
}

/// The configuration: one worker in the foreground, everything it writes under `dir`, each
/// request to the next backend in turn (no `keepalive`, no hashing, no cookies), bodies and
/// SSE streamed unbuffered, `Host` passed on as the client sent it.
fn config(dir: &std::path::Path, port: u16, backends: &[u16]) -> String {
    let d = dir.display();
    let servers: String = backends
        .iter()
        .map(|port| format!("        server 127.0.0.1:{port} max_fails=1 fail_timeout=30s;\n"))
        .collect();
    format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\n\
         events {{ worker_connections 512; }}\n\
         http {{\n\
         \x20   access_log {d}/access.log;\n\
         \x20   client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n\
         \x20   fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n\
         \x20   scgi_temp_path {d}/scgi;\n\
         \x20   upstream mcp {{\n{servers}    }}\n\
         \x20   server {{\n\
         \x20       listen 127.0.0.1:{port};\n\
         \x20       location / {{\n\
         \x20           proxy_pass http://mcp;\n\
         \x20           proxy_http_version 1.1;\n\
         \x20           proxy_set_header Host $http_host;\n\
         \x20           proxy_set_header Connection \"\";\n\
         \x20           proxy_buffering off;\n\
         \x20           proxy_request_buffering off;\n\
         \x20           proxy_read_timeout 120s;\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n"
    )
}

impl Nginx {
    /// Starts one in front of `backends` (ports on loopback); `test` names its folder.
    #[track_caller]
    pub fn start(test: &str, backends: &[u16]) -> Option<Self> {
        let Some(binary) = binary() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "nginx is not installed, and CI is set: CI must run the balancer tests \
                 (.ci/run installs it: apt-get install nginx-light)"
            );
            eprintln!(
                "\n{bar}\nSKIPPED: nginx not installed: {test} did not run.\n\
                 Install it (apt-get install nginx-light) to run it.\n{bar}\n",
                bar = "=".repeat(78)
            );
            return None;
        };
        let dir = out_dir("nginx").join(test);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {dir:?}: {e}"));
        let port = fresh_port();
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config(&dir, port, backends))
            .unwrap_or_else(|e| panic!("write {conf:?}: {e}"));
        let mut command = Command::new(&binary);
        command.arg("-c").arg(&conf).arg("-p").arg(&dir);
        command.arg("-e").arg(dir.join("error.log"));
        command.stdin(Stdio::null());
        let mut child = ChildGuard::spawn_logged(&mut command, &dir.join("stderr.log"));
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
                return Some(Self {
                    port,
                    dir,
                    _child: child,
                });
            }
            if let Some(status) = child.try_wait() {
                panic!(
                    "nginx exited early ({status}):\n{}\n{}",
                    tail(&dir.join("stderr.log"), 20),
                    tail(&dir.join("error.log"), 20)
                );
            }
            assert!(
                Instant::now() < deadline,
                "nginx did not listen within {START_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The MCP endpoint behind it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}
