//! What quinn-proto reports of itself, read from its own qlog (draft-ietf-quic-qlog-quic-events,
//! the `QlogStream` of its `TransportConfig`): each packet sent, received and declared lost,
//! and its recovery metrics (PTO count, smoothed RTT, RTT variance, congestion window). The
//! library writes JSON-SEQ records (RFC 7464: RS, a JSON text, LF) into a buffer this module
//! owns; the end that drove the call reads them back right after (`Tap::drain`), so every
//! record belongs to the call that made it.

use quinn_proto::QlogStream;
use serde::Deserialize;
use std::io;
use std::sync::{Arc, Mutex};

/// A packet number space (RFC 9000 §12.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Initial,
    Handshake,
    /// 0-RTT and 1-RTT packets.
    Data,
}

impl Space {
    fn of(packet_type: &str) -> Option<Space> {
        match packet_type {
            "initial" => Some(Space::Initial),
            "handshake" => Some(Space::Handshake),
            "0RTT" | "1RTT" => Some(Space::Data),
            _ => None,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// One thing the library reported.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Report {
    Sent(Space, u64),
    Received(Space, u64),
    Lost(Space, u64),
    /// Recovery metrics that changed since the last report (qlog sends only those).
    Metrics(Metrics),
}

/// `recovery:metrics_updated`. Times in seconds: quinn-proto 0.11.19 writes them so
/// (`RecoveryMetrics::to_qlog_event`, `Duration::as_secs_f32`), where the qlog draft says
/// milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    pub pto_count: Option<u32>,
    pub smoothed_rtt_s: Option<f64>,
    pub rtt_variance_s: Option<f64>,
    pub congestion_window: Option<u64>,
    pub ssthresh: Option<u64>,
}

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(borrow, default)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(borrow, default)]
    header: Option<Header<'a>>,
    #[serde(default)]
    pto_count: Option<u32>,
    #[serde(default)]
    smoothed_rtt: Option<f64>,
    #[serde(default)]
    rtt_variance: Option<f64>,
    #[serde(default)]
    congestion_window: Option<u64>,
    #[serde(default)]
    ssthresh: Option<u64>,
}

#[derive(Deserialize)]
struct Header<'a> {
    #[serde(borrow)]
    packet_type: &'a str,
    #[serde(default)]
    packet_number: Option<u64>,
}

/// The writer quinn-proto's qlog streamer writes into. The streamer writes a record as RS,
/// the JSON text in many small writes, and LF alone (qlog's `QlogStreamer::write_event`; the
/// compact JSON text holds no raw LF), so a record gathers in `record` and moves to the
/// shared buffer whole, at its LF: one lock per record, not per write.
struct Sink {
    shared: Arc<Mutex<Vec<u8>>>,
    record: Vec<u8>,
}

impl io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.record.extend_from_slice(buf);
        if buf == b"\n" {
            self.flush()?;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.shared.lock().map_err(|_| io::Error::other("qlog buffer poisoned"))?.append(&mut self.record);
        Ok(())
    }
}

/// One connection's qlog, as reports.
pub struct Tap {
    buffer: Arc<Mutex<Vec<u8>>>,
    scratch: Vec<u8>,
}

impl Tap {
    /// A tap and the stream to give the connection's `TransportConfig::qlog_stream`.
    pub fn new(start: std::time::Instant) -> (Tap, QlogStream) {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let mut config = quinn_proto::QlogConfig::default();
        config.writer(Box::new(Sink { shared: buffer.clone(), record: Vec::new() })).start_time(start);
        let stream = config.into_stream().expect("qlog starts on an in-memory buffer");
        (Tap { buffer, scratch: Vec::new() }, stream)
    }

    /// Moves what the library wrote since the last call into `out`, in order.
    pub fn drain(&mut self, out: &mut Vec<Report>) {
        {
            let mut b = self.buffer.lock().expect("qlog buffer poisoned");
            if b.is_empty() {
                return;
            }
            std::mem::swap(&mut *b, &mut self.scratch);
        }
        for text in self.scratch.split(|&c| c == 0x1e).filter(|t| !t.iter().all(u8::is_ascii_whitespace)) {
            if let Some(report) = parse(text) {
                out.push(report);
            }
        }
        self.scratch.clear();
    }
}

/// The record kinds `parse` reads; the others are skipped unparsed.
const WANTED: [&[u8]; 4] = [b"transport:packet_sent", b"transport:packet_received", b"recovery:packet_lost", b"recovery:metrics_updated"];

/// The event name of a record, read without parsing it: qlog writes an event's `time`, then
/// its `name` (`qlog::events::Event`, the name flattened in), so the name's key comes early.
fn name_of(text: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"name\":\"";
    let start = text.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = text[start..].iter().position(|&c| c == b'"')?;
    Some(&text[start..start + len])
}

/// The report of one record; `None` for records of other kinds (and the log's header).
fn parse(text: &[u8]) -> Option<Report> {
    if !name_of(text).is_some_and(|n| WANTED.contains(&n)) {
        return None;
    }
    let record: Record = serde_json::from_slice(text).expect("quinn-proto writes well-formed qlog records");
    let data = record.data?;
    let packet = || data.header.as_ref().and_then(|h| Some((Space::of(h.packet_type)?, h.packet_number?)));
    match record.name? {
        "transport:packet_sent" => packet().map(|(s, n)| Report::Sent(s, n)),
        "transport:packet_received" => packet().map(|(s, n)| Report::Received(s, n)),
        "recovery:packet_lost" => packet().map(|(s, n)| Report::Lost(s, n)),
        "recovery:metrics_updated" => Some(Report::Metrics(Metrics {
            pto_count: data.pto_count,
            smoothed_rtt_s: data.smoothed_rtt,
            rtt_variance_s: data.rtt_variance,
            congestion_window: data.congestion_window,
            ssthresh: data.ssthresh,
        })),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_records_it_needs_and_skips_the_rest() {
        let text = br#"{"time":1.5,"name":"transport:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":7,"length":1200}}}"#;
        assert_eq!(parse(text), Some(Report::Sent(Space::Data, 7)));
        let text = br#"{"time":2.0,"name":"recovery:packet_lost","data":{"header":{"packet_type":"initial","packet_number":0},"trigger":"time_threshold"}}"#;
        assert_eq!(parse(text), Some(Report::Lost(Space::Initial, 0)));
        let text = br#"{"time":2.0,"name":"recovery:metrics_updated","data":{"smoothed_rtt":0.0405,"pto_count":2}}"#;
        assert_eq!(parse(text), Some(Report::Metrics(Metrics { pto_count: Some(2), smoothed_rtt_s: Some(0.0405), ..Metrics::default() })));
        assert_eq!(parse(br#"{"qlog_version":"0.3","trace":{}}"#), None);
        assert_eq!(parse(br#"{"time":1.0,"name":"transport:parameters_set","data":{"owner":"local"}}"#), None);
        assert_eq!(name_of(br#"{"time":1.0,"name":"recovery:packet_lost","data":{}}"#), Some(&b"recovery:packet_lost"[..]));
    }
}
