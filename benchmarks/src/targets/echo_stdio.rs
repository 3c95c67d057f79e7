//! The stdio ceilings: child processes that answer each JSON line with an id echo.
//!
//! The `echo_stdio` bin runs [`echo_loop`] on its stdin/stdout: read one line,
//! parse it with serde_json into a borrowed struct ([`Parse::Borrowed`]), write back
//! `{"jsonrpc":"2.0","id":<id>,"result":…}` with the echoed text. Output is buffered and
//! flushed whenever no further input is already buffered, which is the best a pipelined
//! stdio server can do; no MCP framework is involved, so its rate bounds every stdio
//! target.
//!
//! The `echo_stdio_value` bin does the same but parses each line into a
//! `serde_json::Value` ([`Parse::Value`]), as a minimal server that reads messages
//! without typed parameters does: the ceiling the table holds the stdio goals against
//! (issue #23), beside the stricter one.

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read, Write};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Target, TargetKind};

/// The stdio echo ceiling target (the borrowed parse).
#[derive(Debug, Clone, Copy)]
pub struct EchoStdio;

/// How the ceiling reads each line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parse {
    /// Into a struct borrowing from the line: only the id and the text are kept.
    Borrowed,
    /// Into a `serde_json::Value` tree, the id and the text then looked up in it.
    Value,
}

impl Target for EchoStdio {
    fn name(&self) -> &'static str {
        "echo-stdio"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Ceiling
    }

    fn stdio_bin(&self) -> Option<&'static str> {
        Some("echo_stdio")
    }
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    arguments: Option<Arguments<'a>>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// Answers every request line of `input` on `output` until end of input.
///
/// `output` should be buffered; it is flushed whenever the input read so far
/// is used up.
///
/// Notifications (no `id`) get no answer; a line that is not JSON gets a
/// JSON-RPC parse error with a `null` id.
pub fn echo_loop(input: impl Read, output: impl Write) -> std::io::Result<()> {
    echo_loop_with(Parse::Borrowed, input, output)
}

/// [`echo_loop`], reading each line as `parse` says.
pub fn echo_loop_with(
    parse: Parse,
    input: impl Read,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::with_capacity(512);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        let answered = match parse {
            Parse::Borrowed => match serde_json::from_slice::<Line<'_>>(trimmed) {
                Ok(Line {
                    id: Some(id),
                    params,
                }) => {
                    let text = params
                        .and_then(|p| p.arguments)
                        .and_then(|a| a.text)
                        .unwrap_or_default();
                    reply(&mut output, id.get(), &text).map(|()| true)
                }
                Ok(Line { id: None, .. }) => Ok(true),
                Err(_) => Ok(false),
            },
            Parse::Value => match serde_json::from_slice::<serde_json::Value>(trimmed) {
                Ok(message) => match message.get("id") {
                    Some(id) => {
                        let text = message
                            .pointer("/params/arguments/text")
                            .and_then(serde_json::Value::as_str)
                            .unwrap_or_default();
                        let id = serde_json::to_string(id).map_err(std::io::Error::other)?;
                        reply(&mut output, &id, text).map(|()| true)
                    }
                    None => Ok(true),
                },
                Err(_) => Ok(false),
            },
        }?;
        if !answered {
            output.write_all(
                b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"parse error\"}}\n",
            )?;
        }
        // Flush once the input already read is used up: never block on a read
        // with answers still sitting in the buffer.
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

/// Writes the echo reply to request `id` (its JSON text) with `text`.
fn reply(output: &mut impl Write, id: &str, text: &str) -> std::io::Result<()> {
    let text = serde_json::to_string(text).map_err(std::io::Error::other)?;
    write!(
        output,
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{text}}}],"isError":false}}}}"#,
    )?;
    output.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{check_reply_full, request_body};

    #[test]
    fn echoes_each_request_line() -> anyhow::Result<()> {
        let mut input = request_body(1);
        input.push(b'\n');
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n");
        input.extend_from_slice(&request_body(2));
        input.push(b'\n');
        input.extend_from_slice(b"{oops\n");
        for parse in [Parse::Borrowed, Parse::Value] {
            let mut output = Vec::new();
            echo_loop_with(parse, input.as_slice(), &mut output)?;
            let lines: Vec<&[u8]> = output
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .collect();
            assert_eq!(lines.len(), 3, "{parse:?}");
            check_reply_full(lines[0], 1)?;
            check_reply_full(lines[1], 2)?;
            assert!(lines[2].windows(6).any(|w| w == b"-32700"), "{parse:?}");
        }
        Ok(())
    }
}
