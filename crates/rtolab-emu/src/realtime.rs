//! Scheduling of the threads whose timing is part of what the emulator measures: the
//! forwarder (every release) and the datagram flows' applications (a source's schedule, a
//! sink's arrival times).

/// The forwarder's `SCHED_FIFO` priority: above the applications', so that a release is
/// never held back by them.
pub const FORWARDER_PRIORITY: i32 = 50;
/// The datagram flows' senders and receiver: above all normal work on the machine.
pub const APPLICATION_PRIORITY: i32 = 40;

/// Asks for `SCHED_FIFO` at `priority` for the calling thread, so that other work on the
/// machine cannot delay it (sched(7)); the threads that ask sleep between their deadlines,
/// so none monopolises a core. Returns whether it was granted (root without an
/// `RLIMIT_RTPRIO` or cgroup restriction); without it the thread runs at normal priority and
/// the accuracy figures say how late it was.
pub fn request(priority: i32) -> bool {
    let param = libc::sched_param { sched_priority: priority };
    // SAFETY: sched_setscheduler(0, ...) changes only the calling thread's policy; `param`
    // outlives the call.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Sets the calling thread's timer slack to 1 µs (the default 50 µs would make every sleep
/// up to that much late).
pub fn fine_timer_slack() {
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0) };
}
