//! Keeps the protocol of [`Server::serve_stdio`](crate::Server::serve_stdio) safe from
//! whatever else writes to stdout: a `println!`, a `tracing_subscriber::fmt()` subscriber
//! left on its default writer, a child process.
//!
//! On Unix, when serving starts, the protocol is given a duplicate of fd 1 of its own, and
//! fd 1 is pointed at a pipe. A thread forwards whatever arrives on the pipe to stderr,
//! after a warning, printed once, that something wrote to stdout. The client thus only ever
//! reads the server's messages. When serving ends, what was written so far is copied before
//! `serve_stdio` returns ([`settle`]), so a process that exits then loses none of it. Done
//! once per process; later calls reuse the duplicate.
//! Where this cannot be set up (no pipe, no thread), or on other platforms, the protocol is
//! written to stdout as it is.

use std::io::{self, Write};

/// The warning printed on stderr, once, before the first bytes written to stdout.
#[cfg(unix)]
const WARNING: &str = "mcp-server: WARNING: something wrote to stdout, which carries the MCP protocol of this stdio server; \
     it was moved to stderr below. Log to stderr instead: call typemcp_server::logging::init(), \
     or give your tracing subscriber .with_writer(std::io::stderr).\n";

/// Where the protocol's messages are written: the process's stdout, or a duplicate of it
/// once fd 1 is guarded.
pub(super) fn protocol_stdout() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    if let Some(file) = protocol_file() {
        return Box::new(file);
    }
    Box::new(io::stdout())
}

/// The guarded duplicate of the former stdout (a new handle to it at each call), once fd 1
/// is guarded; `None` where it could not be.
#[cfg(unix)]
pub(super) fn protocol_file() -> Option<std::fs::File> {
    use std::sync::OnceLock;
    static PROTOCOL: OnceLock<Option<std::fs::File>> = OnceLock::new();
    let protocol = PROTOCOL.get_or_init(|| match guard() {
        Ok(file) => Some(file),
        Err(err) => {
            tracing::warn!(error = %err, "could not guard stdout: other writes to it would corrupt the protocol");
            None
        }
    });
    protocol.as_ref().and_then(|file| file.try_clone().ok())
}

/// The pipe fd 1 points at once guarded, read without blocking. It is drained under the
/// lock, by the forwarding thread or by [`settle`], so that once `settle` returns every byte
/// written to stdout before it was called is on stderr.
#[cfg(unix)]
struct Forwarder {
    pipe: io::PipeReader,
    /// Whether the warning was printed.
    warned: std::sync::Mutex<bool>,
}

#[cfg(unix)]
static FORWARDER: std::sync::OnceLock<Forwarder> = std::sync::OnceLock::new();

/// Points fd 1 at a pipe forwarded to stderr; returns the duplicate of the former stdout.
#[cfg(unix)]
fn guard() -> io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    let stdout = io::stdout();
    // Held until fd 1 is switched: no `print!` lands half before, half after.
    let mut lock = stdout.lock();
    // Whatever was printed before serving goes where it always went.
    lock.flush()?;
    let protocol = lock.as_fd().try_clone_to_owned()?;
    let (reader, writer) = io::pipe()?;
    rustix::fs::fcntl_setfl(&reader, rustix::fs::OFlags::NONBLOCK)?;
    let forwarder = Forwarder {
        pipe: reader,
        warned: std::sync::Mutex::new(false),
    };
    // `guard` runs once per process (see `protocol_file`).
    let forwarder = FORWARDER.get_or_init(|| forwarder);
    std::thread::Builder::new()
        .name("mcp-stdout-guard".to_owned())
        .spawn(move || forward(forwarder))?;
    rustix::stdio::dup2_stdout(&writer)?;
    // fd 1 now holds the pipe open; this handle is no longer needed.
    drop(writer);
    drop(lock);
    Ok(std::fs::File::from(protocol))
}

/// Copies what arrives on the pipe to stderr until every writer is gone.
#[cfg(unix)]
fn forward(forwarder: &Forwarder) {
    use rustix::event::{PollFd, PollFlags, poll};
    loop {
        let mut ready = [PollFd::new(&forwarder.pipe, PollFlags::IN)];
        match poll(&mut ready, None) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => return,
        }
        if forwarder.drain() == Drained::Ended {
            return;
        }
    }
}

/// What draining the pipe found.
#[cfg(unix)]
#[derive(Debug, PartialEq, Eq)]
enum Drained {
    /// Nothing more for now.
    Empty,
    /// Every writer is gone (or the pipe failed).
    Ended,
}

#[cfg(unix)]
impl Forwarder {
    /// Copies what the pipe holds now to stderr, with the warning before the first bytes.
    fn drain(&self) -> Drained {
        use std::io::Read;
        let mut warned = self
            .warned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut chunk = [0u8; 8 * 1024];
        loop {
            match (&self.pipe).read(&mut chunk) {
                Ok(0) => return Drained::Ended,
                Ok(read) => {
                    let mut stderr = io::stderr().lock();
                    if !*warned {
                        *warned = true;
                        let _ = stderr.write_all(WARNING.as_bytes());
                    }
                    let _ = stderr.write_all(&chunk[..read]);
                    let _ = stderr.flush();
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Drained::Empty,
                Err(_) => return Drained::Ended,
            }
        }
    }
}

/// Copies to stderr, before it returns, whatever was written to stdout so far: a process
/// that exits once serving ends would otherwise lose what the forwarding thread had not
/// copied yet. Nothing to do where stdout was never guarded.
pub(super) fn settle() {
    let _ = io::stdout().flush();
    #[cfg(unix)]
    if let Some(forwarder) = FORWARDER.get() {
        let _ = forwarder.drain();
    }
}
