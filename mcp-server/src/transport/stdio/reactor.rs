//! The process's stdin and stdout on tokio's reactor, with no thread of their own: when each
//! is a pipe or a socket (what a client that spawns the server gives it), it is put in
//! non-blocking mode and read or written by the task serving the connection, woken by the
//! runtime's own event loop. A request then reaches its handler, and its answer the client,
//! without a hand-off between threads: on a current-thread runtime, reading, serving and
//! writing all happen on one thread.
//!
//! A terminal or a regular file cannot wait in an event loop: for those (and off Unix) the
//! threads of `super::process` serve instead.
//!
//! Non-blocking mode belongs to the open file, which the process may share (fd 0 with the
//! protocol's duplicate, fd 1's former file with later duplicates of it): [`Restore`] puts the
//! flags back when serving ends.

use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;

use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use tokio::net::unix::pipe;

/// Gives an open file its former status flags back when dropped.
pub(super) struct Restore {
    fd: OwnedFd,
    flags: OFlags,
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Err(err) = fcntl_setfl(&self.fd, self.flags) {
            tracing::debug!(error = %err, "could not restore the blocking mode of stdio");
        }
    }
}

/// The process's stdin on the reactor, when it is a pipe or a socket.
pub(super) fn stdin() -> Option<(pipe::Receiver, Restore)> {
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let (fd, restore) = non_blocking(fd)?;
    let receiver = pipe::Receiver::from_owned_fd_unchecked(fd).ok()?;
    Some((receiver, restore))
}

/// The protocol's stdout (see `super::stdout_guard`) on the reactor, when it is a pipe or a
/// socket.
pub(super) fn stdout(file: File) -> Option<(pipe::Sender, Restore)> {
    let (fd, restore) = non_blocking(OwnedFd::from(file))?;
    let sender = pipe::Sender::from_owned_fd_unchecked(fd).ok()?;
    Some((sender, restore))
}

/// `fd` in non-blocking mode, if it is a pipe or a socket, with what restores its flags.
fn non_blocking(fd: OwnedFd) -> Option<(OwnedFd, Restore)> {
    let kind = File::from(fd.try_clone().ok()?)
        .metadata()
        .ok()?
        .file_type();
    if !(kind.is_fifo() || kind.is_socket()) {
        return None;
    }
    let flags = fcntl_getfl(&fd).ok()?;
    let restore = Restore {
        fd: fd.try_clone().ok()?,
        flags,
    };
    fcntl_setfl(&fd, flags | OFlags::NONBLOCK).ok()?;
    Some((fd, restore))
}
