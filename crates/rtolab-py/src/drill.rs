//! `rtolab._core.DrillSocket`: one simulated socket driven packet by packet for
//! `rtolab drill` (`rtolab_sim::drill`). Segments cross as dicts in packetdrill's terms:
//! `flags` (TCP header bits), `seq`, `ack`, `win`, `len`, and `options` as `(kind, values)`
//! pairs named as packetdrill names them (`mss`, `wscale`, `sackOK`, `nop`, `eol`, `TS`
//! with val and ecr, `sack` with start, end, start, end, …).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rtolab_sim::drill::{DrillError, DrillSocket as Socket, WireOption, WireSegment};
use rtolab_sim::spec::TcpSpec;
use rtolab_sim::time::SimTime;

create_exception!(_core, DrillUnsupported, PyValueError, "The script needs something the simulated socket does not model.");
create_exception!(_core, DrillRefused, PyValueError, "The script's packet or call makes no sense in the socket's state.");

fn drill_error(e: DrillError) -> PyErr {
    match e {
        DrillError::Unsupported(m) => DrillUnsupported::new_err(m),
        DrillError::Refused(m) => DrillRefused::new_err(m),
    }
}

fn option_from(kind: &str, values: &[u64]) -> PyResult<WireOption> {
    let one = |what: &str| values.first().copied().ok_or_else(|| PyValueError::new_err(format!("option {kind} needs {what}")));
    Ok(match kind {
        "eol" => WireOption::Eol,
        "nop" => WireOption::Nop,
        "sackOK" => WireOption::SackPermitted,
        "mss" => WireOption::Mss(one("a size")? as u16),
        "wscale" => WireOption::WindowScale(one("a shift")? as u8),
        "TS" if values.len() == 2 => WireOption::Timestamp { val: values[0] as u32, ecr: values[1] as u32 },
        "sack" if values.len() % 2 == 0 => WireOption::Sack(values.chunks(2).map(|b| (b[0] as u32, b[1] as u32)).collect()),
        other => return Err(DrillUnsupported::new_err(format!("the TCP option {other:?} with {} values", values.len()))),
    })
}

fn option_to(o: &WireOption) -> (&'static str, Vec<u64>) {
    match o {
        WireOption::Eol => ("eol", vec![]),
        WireOption::Nop => ("nop", vec![]),
        WireOption::SackPermitted => ("sackOK", vec![]),
        WireOption::Mss(m) => ("mss", vec![*m as u64]),
        WireOption::WindowScale(w) => ("wscale", vec![*w as u64]),
        WireOption::Timestamp { val, ecr } => ("TS", vec![*val as u64, *ecr as u64]),
        WireOption::Sack(blocks) => ("sack", blocks.iter().flat_map(|(a, b)| [*a as u64, *b as u64]).collect()),
    }
}

fn segment_from(d: &Bound<'_, PyDict>) -> PyResult<WireSegment> {
    let field = |name: &str| -> PyResult<u64> {
        d.get_item(name)?.ok_or_else(|| PyValueError::new_err(format!("segment field {name:?} missing")))?.extract()
    };
    let mut options = Vec::new();
    if let Some(list) = d.get_item("options")? {
        for item in list.cast::<PyList>()?.iter() {
            let (kind, values): (String, Vec<u64>) = item.extract()?;
            options.push(option_from(&kind, &values)?);
        }
    }
    Ok(WireSegment { flags: field("flags")? as u8, seq: field("seq")? as u32, ack: field("ack")? as u32, win: field("win")? as u16, len: field("len")? as u32, options })
}

fn segment_to<'py>(py: Python<'py>, s: &WireSegment) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flags", s.flags)?;
    d.set_item("seq", s.seq)?;
    d.set_item("ack", s.ack)?;
    d.set_item("win", s.win)?;
    d.set_item("len", s.len)?;
    d.set_item("options", s.options.iter().map(option_to).collect::<Vec<_>>())?;
    Ok(d)
}

fn segments_to<'py>(py: Python<'py>, segs: &[WireSegment]) -> PyResult<Vec<Bound<'py, PyDict>>> {
    segs.iter().map(|s| segment_to(py, s)).collect()
}

/// A listening socket of a stack profile (`tcp`: a scenario's `tcp` table as JSON).
#[pyclass(module = "rtolab._core", unsendable)]
pub struct DrillSocket {
    socket: Socket,
}

#[pymethods]
impl DrillSocket {
    #[new]
    fn new(tcp_json: &str, rmem: [u64; 3]) -> PyResult<Self> {
        let spec: TcpSpec = serde_json::from_str(tcp_json).map_err(|e| PyValueError::new_err(format!("tcp settings: {e}")))?;
        Ok(DrillSocket { socket: Socket::listen(spec, rmem) })
    }

    /// The application reads at most `max_bytes` at `now_ns`: how many it got, and what the
    /// socket sends at once.
    fn read<'py>(&mut self, py: Python<'py>, now_ns: u64, max_bytes: u64) -> PyResult<(u64, Vec<Bound<'py, PyDict>>)> {
        let (got, out) = self.socket.read(SimTime(now_ns), max_bytes).map_err(drill_error)?;
        Ok((got, segments_to(py, &out)?))
    }

    /// The peer's segment arrives at `now_ns`; what the socket sends at once.
    fn inbound<'py>(&mut self, py: Python<'py>, now_ns: u64, segment: &Bound<'py, PyDict>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let seg = segment_from(segment)?;
        let out = self.socket.inbound(SimTime(now_ns), &seg).map_err(drill_error)?;
        segments_to(py, &out)
    }

    /// Fires the timers due by `now_ns`: `(time_ns, segment)` of what left.
    fn advance<'py>(&mut self, py: Python<'py>, now_ns: u64) -> PyResult<Vec<(u64, Bound<'py, PyDict>)>> {
        self.socket.advance(SimTime(now_ns)).iter().map(|(t, s)| Ok((t.0, segment_to(py, s)?))).collect()
    }

    /// The application writes `bytes` at `now_ns`; what the socket sends at once.
    fn write<'py>(&mut self, py: Python<'py>, now_ns: u64, bytes: u64) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let out = self.socket.write(SimTime(now_ns), bytes).map_err(drill_error)?;
        segments_to(py, &out)
    }

    /// `close()` at `now_ns`: what the socket sends at once (its FIN).
    fn close<'py>(&mut self, py: Python<'py>, now_ns: u64) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let out = self.socket.close(SimTime(now_ns)).map_err(drill_error)?;
        segments_to(py, &out)
    }

    /// Whether a connection is ready for `accept()` (then it is taken).
    fn accept(&mut self) -> bool {
        self.socket.accept()
    }

    fn next_wakeup(&self) -> Option<u64> {
        self.socket.next_wakeup().map(|t| t.0)
    }

    /// `getsockopt(TCP_INFO)`: the fields a script may read.
    fn info(&self) -> Vec<(&'static str, u64)> {
        self.socket.info().fields()
    }
}

/// The spurious-timeout detectors a `tcp` table runs (its stack's defaults with its
/// overrides), by name: the base a script's `tcp_frto` and `tcp_dsack` sysctls change.
#[pyfunction]
fn drill_detectors(tcp_json: &str) -> PyResult<Vec<&'static str>> {
    let spec: TcpSpec = serde_json::from_str(tcp_json).map_err(|e| PyValueError::new_err(format!("tcp settings: {e}")))?;
    Ok(spec.settings().detect.iter().map(|d| d.name()).collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DrillUnsupported", m.py().get_type::<DrillUnsupported>())?;
    m.add("DrillRefused", m.py().get_type::<DrillRefused>())?;
    m.add_class::<DrillSocket>()?;
    m.add_function(wrap_pyfunction!(drill_detectors, m)?)?;
    Ok(())
}
