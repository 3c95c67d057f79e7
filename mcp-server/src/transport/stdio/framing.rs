//! Newline framing of the input, with a length limit that survives bad lines: an over-long
//! line is discarded up to its newline, a line that is not UTF-8 is reported, and reading
//! goes on after either. tokio-util's `LinesCodec` recovers from an over-long line by itself,
//! but `FramedRead` ends the stream at the first decode error, so the codec is driven here
//! directly, over bytes read by an async reader ([`AsyncLines`]) or by the stdin thread
//! (`super::process`).

use std::io;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

/// One framed line of input.
#[derive(Debug)]
pub(super) enum Line {
    Message(String),
    /// A line over the limit: it was discarded up to its newline, and reading goes on.
    TooLong,
    /// A line that is not UTF-8: discarded, and reading goes on.
    NotUtf8,
    End,
}

/// The lines in the bytes read so far.
pub(super) struct Framer {
    codec: LinesCodec,
    buffer: BytesMut,
    eof: bool,
}

impl Framer {
    pub(super) fn new(max: usize) -> Self {
        Self {
            codec: LinesCodec::new_with_max_length(max),
            buffer: BytesMut::with_capacity(8 * 1024),
            eof: false,
        }
    }

    /// The next line in what was read so far; `None` when more input is needed.
    pub(super) fn next_line(&mut self) -> Option<io::Result<Line>> {
        let decoded = if self.eof {
            self.codec.decode_eof(&mut self.buffer)
        } else {
            self.codec.decode(&mut self.buffer)
        };
        match decoded {
            Ok(Some(line)) => Some(Ok(Line::Message(line))),
            Err(LinesCodecError::MaxLineLengthExceeded) => Some(Ok(Line::TooLong)),
            Err(LinesCodecError::Io(err)) if err.kind() == io::ErrorKind::InvalidData => {
                Some(Ok(Line::NotUtf8))
            }
            Err(LinesCodecError::Io(err)) => Some(Err(err)),
            Ok(None) if self.eof => Some(Ok(Line::End)),
            Ok(None) => None,
        }
    }

    /// Where newly read bytes go.
    pub(super) fn buffer(&mut self) -> &mut BytesMut {
        &mut self.buffer
    }

    /// The input ended: what is left is the last line.
    pub(super) fn end(&mut self) {
        self.eof = true;
    }
}

/// The free space made in the buffer before each read of an async reader.
const READ_RESERVE: usize = 16 * 1024;

/// The lines of an async reader.
pub(super) struct AsyncLines<R> {
    reader: R,
    framer: Framer,
}

impl<R: AsyncRead + Unpin> AsyncLines<R> {
    pub(super) fn new(reader: R, max: usize) -> Self {
        Self {
            reader,
            framer: Framer::new(max),
        }
    }

    pub(super) async fn next(&mut self) -> io::Result<Line> {
        loop {
            if let Some(line) = self.framer.next_line() {
                return line;
            }
            let buffer = self.framer.buffer();
            // Room for a whole batch of pipelined messages in one read (`read_buf` alone would
            // read into whatever little is left after the lines taken out).
            buffer.reserve(READ_RESERVE);
            if self.reader.read_buf(buffer).await? == 0 {
                self.framer.end();
            }
        }
    }
}
