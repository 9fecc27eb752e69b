//! The emulation's two network namespaces (sender side, receiver side): created with
//! iproute2 under names that carry the emulator's pid, removed on drop (normal end, error,
//! interrupt), and — when a run was killed before it could — at the next start, for every
//! namespace whose pid is no longer alive. Nothing outside these namespaces is touched.

use crate::error::{EmuError, EmuResult};
use nix::sched::{setns, CloneFlags};
use std::fs::File;
use std::path::Path;
use std::process::Command;

const PREFIX: &str = "rtolab-emu-";
const NETNS_DIR: &str = "/run/netns";

/// What emulation needs from the machine; the message says what is missing.
pub fn check_machine() -> EmuResult<()> {
    let uid = nix::unistd::geteuid();
    if !uid.is_root() {
        return Err(EmuError::Unavailable(format!(
            "network namespaces and TUN devices need root (running as uid {uid}); run as root or with CAP_NET_ADMIN and CAP_SYS_ADMIN"
        )));
    }
    if !Path::new("/dev/net/tun").exists() {
        return Err(EmuError::Unavailable("/dev/net/tun is missing (load the tun module or give the container the device)".into()));
    }
    match Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(EmuError::Unavailable("the `ip` command of iproute2 is not installed".into())),
    }
}

/// Runs `ip ARGS`; a failure carries iproute2's own message.
pub fn ip(args: &[&str]) -> EmuResult<()> {
    let out = Command::new("ip").args(args).output().map_err(|e| EmuError::system("running ip", e))?;
    if out.status.success() {
        Ok(())
    } else {
        let msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
        Err(EmuError::system(format!("ip {}", args.join(" ")), std::io::Error::other(msg)))
    }
}

fn pid_alive(pid: i32) -> bool {
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(e) => e != nix::errno::Errno::ESRCH,
    }
}

/// Emulator namespaces on this machine, with the pid that created each.
pub fn existing() -> Vec<(String, i32)> {
    let Ok(entries) = std::fs::read_dir(NETNS_DIR) else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|name| {
            let pid = name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()?;
            Some((name, pid))
        })
        .collect()
}

/// Removes namespaces left by emulators that died without cleaning up; returns their names.
pub fn remove_stale() -> Vec<String> {
    let mut removed = Vec::new();
    for (name, pid) in existing() {
        if !pid_alive(pid) && ip(&["netns", "del", &name]).is_ok() {
            removed.push(name);
        }
    }
    removed
}

/// A namespace this process created; deleted when dropped.
pub struct Namespace {
    pub name: String,
    file: File,
}

impl Namespace {
    pub fn create(role: &str) -> EmuResult<Self> {
        let name = format!("{PREFIX}{}-{role}", std::process::id());
        if Path::new(NETNS_DIR).join(&name).exists() {
            ip(&["netns", "del", &name]).ok();
        }
        ip(&["netns", "add", &name])?;
        let file = File::open(Path::new(NETNS_DIR).join(&name)).map_err(|e| EmuError::system(format!("opening namespace {name}"), e))?;
        Ok(Namespace { name, file })
    }

    /// Moves the calling thread into this namespace: sockets, TUN devices and
    /// `/proc/thread-self/net` it opens afterwards belong to it. Other threads are not affected.
    pub fn enter(&self) -> EmuResult<()> {
        setns(&self.file, CloneFlags::CLONE_NEWNET).map_err(|e| EmuError::system(format!("entering namespace {}", self.name), std::io::Error::from(e)))
    }

    /// Runs `f` on a new thread inside this namespace and returns its result.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> EmuResult<T> + Send) -> EmuResult<T> {
        std::thread::scope(|s| {
            s.spawn(|| {
                self.enter()?;
                f()
            })
            .join()
            .unwrap_or_else(|_| Err(EmuError::system("namespace task", std::io::Error::other("panicked"))))
        })
    }

    /// Writes `net/ipv4/KEY` (or any path under /proc/sys/net) inside this namespace.
    pub fn sysctl(&self, key: &str, value: &str) -> EmuResult<()> {
        let path = format!("/proc/sys/net/{key}");
        self.run(|| std::fs::write(&path, value).map_err(|e| EmuError::system(format!("setting {key} = {value} in {}", self.name), e)))
    }

    /// Reads a file under /proc/thread-self/net (e.g. "netstat") inside this namespace.
    pub fn read_proc_net(&self, file: &str) -> EmuResult<String> {
        let path = format!("/proc/thread-self/net/{file}");
        self.run(|| std::fs::read_to_string(&path).map_err(|e| EmuError::system(format!("reading {path} in {}", self.name), e)))
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        // Sockets and TUN devices inside go with the namespace once their fds close.
        ip(&["netns", "del", &self.name]).ok();
    }
}
