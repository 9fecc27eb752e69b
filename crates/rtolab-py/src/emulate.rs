//! `_core.emulate`: a scenario over kernel TCP in real time (rtolab-emu). The emulation runs
//! on its own thread with the GIL released; this thread wakes every 50 ms to let Python see
//! signals, so Ctrl-C stops the run, removes its namespaces and raises KeyboardInterrupt.

use crate::tables::result_to_py;
use crate::{spec_error, SimulationError};
use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rtolab_emu::{EmuError, EmuOptions, Emulation};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

create_exception!(_core, EmulatorUnavailable, PyRuntimeError, "This machine cannot emulate (no root, no /dev/net/tun or no iproute2); the message says what is missing.");

fn to_py_error(e: EmuError) -> PyErr {
    match e {
        EmuError::Unsupported { path, message } => spec_error(rtolab_sim::SpecError { path, message }),
        EmuError::Unavailable(_) => EmulatorUnavailable::new_err(e.to_string()),
        EmuError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("emulation interrupted"),
        other => SimulationError::new_err(other.to_string()),
    }
}

/// Runs a scenario (TOML or JSON text) through the kernel; returns the result dict (as
/// `run`) and the emulator's metadata as JSON.
#[pyfunction]
#[pyo3(signature = (text, format, seed=None, wall_limit_s=300.0, base=None))]
pub fn emulate<'py>(py: Python<'py>, text: &str, format: &str, seed: Option<u64>, wall_limit_s: f64, base: Option<&str>) -> PyResult<(Bound<'py, PyDict>, String)> {
    let scenario = crate::parse(text, format, base)?;
    let interrupt = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel::<Result<Emulation, EmuError>>();
    let rx = std::sync::Mutex::new(rx);
    let flag = interrupt.clone();
    let opts = EmuOptions { wall_limit_s };
    let worker = std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rtolab_emu::emulate(&scenario, seed, &opts, &flag)));
        let outcome = outcome.unwrap_or_else(|p| Err(EmuError::system("internal error (please report)", std::io::Error::other(crate::panic_message(p)))));
        tx.send(outcome).ok();
    });
    let mut signal: Option<PyErr> = None;
    let outcome = loop {
        match py.detach(|| rx.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(Duration::from_millis(50))) {
            Ok(outcome) => break outcome,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break Err(EmuError::Interrupted),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if signal.is_none() {
            if let Err(e) = py.check_signals() {
                interrupt.store(true, Ordering::Relaxed);
                signal = Some(e);
            }
        }
    };
    py.detach(|| worker.join()).ok();
    if let Some(e) = signal {
        return Err(e);
    }
    let run = outcome.map_err(to_py_error)?;
    let meta = serde_json::to_string(&run.meta).map_err(|e| SimulationError::new_err(e.to_string()))?;
    Ok((result_to_py(py, run.result)?, meta))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("EmulatorUnavailable", m.py().get_type::<EmulatorUnavailable>())?;
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    Ok(())
}
