//! Why an emulation could not run or did not finish.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum EmuError {
    /// The scenario asks for something the kernel or the emulator cannot honour; `path`
    /// names the field as in spec errors.
    #[error("{path}: {message}")]
    Unsupported { path: String, message: String },
    /// The machine lacks what emulation needs (root, `/dev/net/tun`, iproute2).
    #[error("cannot emulate on this machine: {0}")]
    Unavailable(String),
    /// Setting up or running the emulation failed.
    #[error("{context}: {source}")]
    System { context: String, source: std::io::Error },
    #[error("emulation interrupted")]
    Interrupted,
    #[error("emulation exceeded its wall-clock limit of {limit_s} s without finishing every flow; set `duration` or raise the limit")]
    WallClock { limit_s: f64 },
    /// A check of the emulation itself failed (bytes lost or reordered by the emulator).
    #[error("invariant violated in flow {flow:?}: {message}")]
    Invariant { flow: String, message: String },
}

impl EmuError {
    pub fn unsupported(path: impl Into<String>, message: impl Into<String>) -> Self {
        EmuError::Unsupported { path: path.into(), message: message.into() }
    }

    pub fn system(context: impl Into<String>, source: impl Into<std::io::Error>) -> Self {
        EmuError::System { context: context.into(), source: source.into() }
    }
}

pub type EmuResult<T> = Result<T, EmuError>;
