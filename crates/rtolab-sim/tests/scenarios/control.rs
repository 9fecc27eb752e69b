//! A run watched and stopped from another thread (`RunControl`), as the CLI does on Ctrl-C.

use rtolab_sim::control::RunControl;
use rtolab_sim::spec::from_toml;
use rtolab_sim::SimError;
use std::sync::Arc;

/// A run of 10⁹ simulated seconds publishes its progress and stops when interrupted
/// (within `POLL_EVERY` events), with `Interrupted` rather than a result.
#[test]
fn an_endless_run_reports_progress_and_stops_when_interrupted() {
    let s = from_toml("duration = \"1e9s\"\n[[links]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flows]]\nname = \"f\"\nroute = [\"l\"]\n").unwrap();
    let control = Arc::new(RunControl::default());
    let c = control.clone();
    let run = std::thread::spawn(move || rtolab_sim::run_with(&s, None, &c));
    while control.progress().1 < 100_000 {
        std::thread::yield_now();
    }
    let (t, events) = control.progress();
    assert_eq!(control.end().map(|e| e.as_secs_f64()), Some(1e9));
    assert!(t.as_secs_f64() > 0.0 && events >= 100_000);
    control.interrupt();
    match run.join().unwrap() {
        Err(SimError::Interrupted { at }) => assert!(at >= t),
        other => panic!("expected an interruption, got {:?}", other.map(|r| r.meta)),
    }
}
