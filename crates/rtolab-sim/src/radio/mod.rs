//! The HSDPA radio access network (paper 000, Sec. 3.1): hexagonal cells with wrap-around,
//! mobile users, path loss and shadowing, SIR, link adaptation, per-user buffers and the
//! schedulers of the shared channel, one TTI event per cell.

pub mod buffer;
pub mod cell;
pub mod geometry;
pub mod link_adaptation;
pub mod mobility;
pub mod network;
pub mod scheduler;
pub mod shadowing;
pub mod sir;
pub mod ue;

pub use network::{RadioNetwork, RadioRecording};

/// The per-user series `output.series` asks the radio network to record.
pub fn radio_recording(series: &[crate::spec::SeriesMetric]) -> RadioRecording {
    use crate::spec::SeriesMetric;
    RadioRecording { sir: series.contains(&SeriesMetric::Sir), rate: series.contains(&SeriesMetric::Rate) }
}
