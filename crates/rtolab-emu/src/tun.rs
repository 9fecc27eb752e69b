//! TUN devices: the kernel hands each IP packet it routes to the device to the emulator
//! (a `read`), and takes each packet the emulator writes as if it had arrived on a wire.
//! Layer 3 only (`IFF_TUN`), without the packet-information prefix (`IFF_NO_PI`), no offloads,
//! so every read is one IPv4 packet of at most the MTU. See Documentation/networking/tuntap.rst.

use crate::error::{EmuError, EmuResult};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;

/// `TUNSETIFF = _IOW('T', 202, int)` from <linux/if_tun.h>.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

/// Creates TUN device `name` in the calling thread's network namespace; the returned file
/// is non-blocking. The device disappears when the file is closed.
pub fn create(name: &str) -> EmuResult<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")
        .map_err(|e| EmuError::system("opening /dev/net/tun", e))?;
    // SAFETY: ifreq is plain old data; zeroed is a valid value.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in req.ifr_name.iter_mut().zip(name.bytes().take(libc::IFNAMSIZ - 1)) {
        *dst = src as libc::c_char;
    }
    req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF reads and writes one ifreq, which outlives the call.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req as *mut libc::ifreq) };
    if rc < 0 {
        return Err(EmuError::system(format!("creating TUN device {name}"), std::io::Error::last_os_error()));
    }
    Ok(file)
}
