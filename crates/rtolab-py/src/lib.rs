//! `rtolab._core`: the PyO3 binding. Conversions and one coarse call — run a spec, return
//! its tables as Arrow record batches. The GIL is released while simulating, and a Rust
//! panic is caught here and raised as `SimulationError`, never an abort.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rtolab_sim::control::RunControl;
use rtolab_sim::units::{Bytes, Duration, DurationRv, RandomVar, Rate};
use rtolab_sim::{spec, RunResult, Scenario};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc};

mod arrow_capsules;
mod drill;
mod emulate;
mod tables;

use tables::{meta_to_py, result_to_py};

create_exception!(_core, SpecError, PyValueError, "A scenario that cannot run: `path` names the field, `message` says why.");
create_exception!(_core, SimulationError, PyRuntimeError, "A run that failed: budget exceeded, invariant violated or internal error.");

pub(crate) fn spec_error(e: spec::SpecError) -> PyErr {
    Python::attach(|py| {
        let err = SpecError::new_err(e.to_string());
        let value = err.value(py);
        value.setattr("path", e.path.clone()).ok();
        value.setattr("message", e.message.clone()).ok();
        err
    })
}

/// `base`: the directory relative trace files are read from (the scenario file's; `None`,
/// the working directory).
pub(crate) fn parse(text: &str, format: &str, base: Option<&str>) -> PyResult<Scenario> {
    match format {
        "toml" | "json" => spec::parse_in(text, format, base.map(std::path::Path::new)).map_err(spec_error),
        other => Err(PyValueError::new_err(format!("format must be \"toml\" or \"json\", got {other:?}"))),
    }
}

/// Parses and validates a scenario; raises `SpecError` if it cannot run.
#[pyfunction]
#[pyo3(signature = (text, format, base=None))]
fn validate(text: &str, format: &str, base: Option<&str>) -> PyResult<()> {
    parse(text, format, base).map(|_| ())
}

/// What a run says of a spec it accepts (durations written as bare numbers, read as seconds).
#[pyfunction]
fn spec_notes(text: &str, format: &str) -> Vec<String> {
    spec::notes(text, format)
}

/// The JSON Schema of scenarios.
#[pyfunction]
fn schema() -> String {
    spec::json_schema()
}

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic".into())
}

/// How often the calling thread wakes to let Python handle signals (Ctrl-C) and to report
/// progress while the run goes on in its own thread.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs the scenario on a worker thread; the calling thread (GIL released while it waits)
/// wakes every `WATCH_EVERY` to run Python's signal handlers — a KeyboardInterrupt stops the
/// run within one poll of the core (`RunControl`) and is raised, nothing returned — and, if
/// given, to call `progress(simulated_seconds, events, stop_seconds)` (stop time or None).
fn simulate(py: Python<'_>, scenario: Scenario, seed: Option<u64>, progress: Option<&Bound<'_, PyAny>>) -> PyResult<RunResult> {
    let control = Arc::new(RunControl::default());
    let (tx, mut rx) = mpsc::channel();
    let worker_control = control.clone();
    let worker = std::thread::spawn(move || {
        let outcome = catch_unwind(AssertUnwindSafe(|| rtolab_sim::run_with(&scenario, seed, &worker_control)));
        tx.send(outcome).ok();
    });
    let outcome = loop {
        // The receiver moves into the GIL-free wait and back (it is Send, not Sync).
        let (received, back) = py.detach(move || (rx.recv_timeout(WATCH_EVERY), rx));
        rx = back;
        match received {
            Ok(outcome) => break outcome,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(Box::new("the simulation thread ended without a result") as Box<dyn std::any::Any + Send>),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let watched = py.check_signals().and_then(|()| match progress {
            Some(callback) => {
                let (t, events) = control.progress();
                callback.call1((t.as_secs_f64(), events, control.end().map(|e| e.as_secs_f64()))).map(|_| ())
            }
            None => Ok(()),
        });
        if let Err(e) = watched {
            control.interrupt();
            py.detach(|| worker.join()).ok();
            return Err(e);
        }
    };
    py.detach(|| worker.join()).ok();
    match outcome {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(e)) => Err(SimulationError::new_err(e.to_string())),
        Err(panic) => Err(SimulationError::new_err(format!("internal error (please report): {}", panic_message(panic)))),
    }
}

/// Runs a scenario given as TOML or JSON text; returns the result dict: each table as an
/// Arrow record batch, `meta` and `pcaps`.
/// `progress(simulated_seconds, events, stop_seconds)` is called about every 50 ms while it
/// runs (`stop_seconds` is None for a run without a stop time).
#[pyfunction]
#[pyo3(signature = (text, format, seed=None, progress=None, base=None))]
fn run<'py>(py: Python<'py>, text: &str, format: &str, seed: Option<u64>, progress: Option<Bound<'py, PyAny>>, base: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let scenario = parse(text, format, base)?;
    let result = simulate(py, scenario, seed, progress.as_ref())?;
    result_to_py(py, result)
}

/// Names of the built-in benchmark scenarios.
#[pyfunction]
fn bench_names() -> Vec<&'static str> {
    rtolab_sim::bench::NAMES.to_vec()
}

/// Runs a named benchmark scenario; returns (meta dict, wall seconds of the simulation).
#[pyfunction]
fn run_bench<'py>(py: Python<'py>, name: &str) -> PyResult<(Bound<'py, PyDict>, f64)> {
    let scenario = rtolab_sim::bench::scenario(name)
        .ok_or_else(|| PyValueError::new_err(format!("no benchmark {name:?}; expected one of {:?}", rtolab_sim::bench::NAMES)))?;
    let start = std::time::Instant::now();
    let result = simulate(py, scenario, None, None)?;
    let wall = start.elapsed().as_secs_f64();
    Ok((meta_to_py(py, &result.meta)?, wall))
}

/// A spec value given as text (a command-line option, a table cell) or as a JSON document
/// (for tables such as `{"markov": {...}}`). A plain number is the unquoted number of a spec,
/// in SI units: text on a command line has no quotes to tell the two apart, and the quoted
/// form without a unit is refused in specs only because there it is a likely slip.
fn spec_value(text: &str) -> serde_json::Value {
    let t = text.trim();
    if t.starts_with('{') {
        if let Ok(v) = serde_json::from_str(t) {
            return v;
        }
    }
    if let Some(n) = t.parse::<f64>().ok().filter(|n| n.is_finite()).and_then(serde_json::Number::from_f64) {
        return serde_json::Value::Number(n);
    }
    serde_json::Value::String(t.to_owned())
}

/// Parses one quantity exactly as a spec field would: `kind` is "rate" (bit/s), "duration" (s)
/// or "size" (B). Raises `ValueError` with the expected form.
#[pyfunction]
fn parse_quantity(kind: &str, text: &str) -> PyResult<f64> {
    let value = spec_value(text);
    let parsed = match kind {
        "rate" => serde_json::from_value::<Rate>(value).map(|r| r.bps()),
        "duration" => serde_json::from_value::<Duration>(value).map(|d| d.0.as_secs_f64()),
        "size" => serde_json::from_value::<Bytes>(value).map(|b| b.0 as f64),
        other => return Err(PyValueError::new_err(format!("kind must be \"rate\", \"duration\" or \"size\", got {other:?}"))),
    };
    parsed.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The opportunity times (ms) of a trace file, read as a link's `trace` is; raises
/// `SpecError` (empty path) saying what is wrong.
#[pyfunction]
fn read_trace(path: &str) -> PyResult<Vec<u64>> {
    let mut t = spec::TraceSpec { file: path.to_string(), looped: true, loaded: None };
    t.load(None).map_err(|m| spec_error(spec::SpecError::new("", m)))?;
    Ok(t.loaded.map(|t| t.times_ms().to_vec()).unwrap_or_default())
}

/// Parses a random duration as a spec field would (`"uniform(10s, 50s)"`, `"exp(20s)"`, a
/// constant, or a JSON `{"markov": {...}}` table) into its kind and parameters in seconds.
#[pyfunction]
fn parse_duration_rv(text: &str) -> PyResult<(String, Vec<(String, f64)>)> {
    let rv = serde_json::from_value::<DurationRv>(spec_value(text)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let params = |kv: &[(&str, f64)]| kv.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    Ok(match rv.0 {
        RandomVar::Const(v) => ("const".into(), params(&[("value", v)])),
        RandomVar::Exp { mean } => ("exp".into(), params(&[("mean", mean)])),
        RandomVar::Uniform { lo, hi } => ("uniform".into(), params(&[("lo", lo), ("hi", hi)])),
        RandomVar::Pareto { scale, shape, max } => ("pareto".into(), params(&[("scale", scale), ("shape", shape), ("max", max)])),
        RandomVar::LogNormal { mu, sigma } => ("lognormal".into(), params(&[("mu", mu), ("sigma", sigma)])),
        RandomVar::Markov { means, p01, p10 } => ("markov".into(), params(&[("mean0", means[0]), ("mean1", means[1]), ("p01", p01), ("p10", p10)])),
    })
}

/// Raises a Rust panic inside the binding, to test that it surfaces as `SimulationError`.
#[pyfunction]
fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    let outcome = py.detach(|| catch_unwind(|| panic!("deliberate test panic")));
    outcome.map_err(|p| SimulationError::new_err(format!("internal error (please report): {}", panic_message(p))))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SpecError", m.py().get_type::<SpecError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(spec_notes, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_names, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration_rv, m)?)?;
    m.add_function(wrap_pyfunction!(tables::result_schemas, m)?)?;
    m.add_function(wrap_pyfunction!(tables::series_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    emulate::register(m)?;
    drill::register(m)?;
    Ok(())
}
