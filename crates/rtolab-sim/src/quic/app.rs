//! The transfer's application on top of one QUIC connection: the client asks on one
//! bidirectional stream for `size` bytes (8 bytes, big-endian; all ones for an unbounded
//! transfer) and reads them; the server reads the request to its end and sends that many
//! bytes (zeros), then finishes the stream. The simulator's ends (`quic::end`) and the
//! emulator's run this same protocol.

use super::oracle::Oracle;
use crate::time::SimTime;
use quinn_proto::{Connection, Dir, Event, ReadError, StreamEvent, StreamId, WriteError};

/// The request's value for an unbounded transfer.
pub const UNBOUNDED: u64 = u64::MAX;

/// What the server sends: zeros, handed to the stream in pieces of this size.
pub static ZEROS: [u8; 16_384] = [0; 16_384];

/// The transfer's application at one end.
pub(super) enum App {
    Client { size: u64, stream: Option<StreamId>, received: u64, done_at: Option<SimTime> },
    Server { stream: Option<StreamId>, request: Vec<u8>, to_send: Option<u64>, finished: bool },
}

impl App {
    pub(super) fn client(size: Option<u64>) -> Self {
        App::Client { size: size.unwrap_or(UNBOUNDED), stream: None, received: 0, done_at: None }
    }

    pub(super) fn server() -> Self {
        App::Server { stream: None, request: Vec::new(), to_send: None, finished: false }
    }

    /// When the client had read the whole transfer.
    pub(super) fn done_at(&self) -> Option<SimTime> {
        match *self {
            App::Client { done_at, .. } => done_at,
            App::Server { .. } => None,
        }
    }

    /// Bytes the client has read.
    pub(super) fn received(&self) -> u64 {
        match *self {
            App::Client { received, .. } => received,
            App::Server { .. } => 0,
        }
    }
}

/// The application's answer to `event`; a failure message if the connection ended.
pub(super) fn on_event(app: &mut App, oracle: &mut Oracle, conn: &mut Connection, now: SimTime, event: Event) -> Option<String> {
    match event {
        Event::Connected => {
            oracle.connected(now);
            if let App::Client { size, stream, .. } = app {
                let id = conn.streams().open(Dir::Bi).expect("a new connection has a bidirectional stream to open");
                let written = conn.send_stream(id).write(&size.to_be_bytes());
                debug_assert_eq!(written, Ok(8), "an 8-byte request fits any window");
                let _ = conn.send_stream(id).finish();
                *stream = Some(id);
            }
            None
        }
        Event::ConnectionLost { reason } => Some(format!("connection lost: {reason}")),
        Event::Stream(StreamEvent::Opened { dir: Dir::Bi }) | Event::Stream(StreamEvent::Readable { .. }) | Event::Stream(StreamEvent::Writable { .. }) => {
            match app {
                App::Client { stream: Some(id), received, done_at, size } => read_response(conn, *id, received, done_at, *size, now),
                App::Client { stream: None, .. } => None,
                App::Server { stream, request, to_send, finished } => {
                    if stream.is_none() {
                        *stream = conn.streams().accept(Dir::Bi);
                    }
                    let id = (*stream)?;
                    if to_send.is_none() {
                        if let Some(size) = read_request(conn, id, request) {
                            *to_send = Some(size);
                        }
                    }
                    match to_send {
                        Some(left) => send_response(conn, id, left, finished),
                        None => None,
                    }
                }
            }
        }
        _ => None,
    }
}

/// Reads the client's request; the size it asks for once its stream has ended.
fn read_request(conn: &mut Connection, id: StreamId, request: &mut Vec<u8>) -> Option<u64> {
    let mut recv = conn.recv_stream(id);
    let mut chunks = recv.read(true).ok()?;
    let mut ended = false;
    loop {
        match chunks.next(usize::MAX) {
            Ok(Some(chunk)) => request.extend_from_slice(&chunk.bytes),
            Ok(None) => {
                ended = true;
                break;
            }
            Err(_) => break,
        }
    }
    let _ = chunks.finalize();
    let bytes: [u8; 8] = request.as_slice().try_into().ok().filter(|_| ended)?;
    Some(u64::from_be_bytes(bytes))
}

/// Hands the stream as much of the response as it takes; finishes it after the last byte.
fn send_response(conn: &mut Connection, id: StreamId, left: &mut u64, finished: &mut bool) -> Option<String> {
    while *left > 0 {
        let n = (*left).min(ZEROS.len() as u64) as usize;
        match conn.send_stream(id).write(&ZEROS[..n]) {
            Ok(k) => {
                if *left != UNBOUNDED {
                    *left -= k as u64;
                }
            }
            Err(WriteError::Blocked) => return None,
            Err(e) => return Some(format!("the response could not be written: {e}")),
        }
    }
    if !*finished {
        *finished = true;
        let _ = conn.send_stream(id).finish();
    }
    None
}

/// Reads what has arrived of the response; the transfer is done when the stream ends.
fn read_response(conn: &mut Connection, id: StreamId, received: &mut u64, done_at: &mut Option<SimTime>, size: u64, now: SimTime) -> Option<String> {
    let mut recv = conn.recv_stream(id);
    let Ok(mut chunks) = recv.read(true) else {
        return None;
    };
    let mut failure = None;
    loop {
        match chunks.next(usize::MAX) {
            Ok(Some(chunk)) => *received += chunk.bytes.len() as u64,
            Ok(None) => {
                if *received == size {
                    done_at.get_or_insert(now);
                } else {
                    failure = Some(format!("the response ended after {received} of {size} bytes"));
                }
                break;
            }
            Err(ReadError::Blocked) => break,
            Err(e) => {
                failure = Some(format!("the response could not be read: {e}"));
                break;
            }
        }
    }
    let _ = chunks.finalize();
    failure
}

