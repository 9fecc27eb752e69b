"""A private network namespace with one TUN device in it, for playing a script against the
kernel's TCP: the kernel sees the script's peer behind the device, as in packetdrill's local
mode (``netdev.c``: ``local_netdev_new``: device ``tun0``), and nothing outside the namespace
is touched.

Everything is set with system calls (``unshare(2)``, ``TUNSETIFF`` / ``TUNSETOFFLOAD`` and the
``SIOCSIF*`` interface ioctls of ``netdevice(7)``), so no tool beyond Python is needed. The
namespace lasts as long as the process: a script is played in a process of its own.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
from pathlib import Path

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
TUNSETOFFLOAD = 0x400454D0
IFF_TUN, IFF_NO_PI, IFF_VNET_HDR = 0x0001, 0x1000, 0x4000
#: Offloads of "a typical Ethernet device" (packetdrill's ``set_device_offload_flags``):
#: checksum and TSO, so the kernel builds its packets as it would for a NIC.
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6, TUN_F_TSO_ECN = 0x01, 0x02, 0x04, 0x08
SIOCGIFFLAGS, SIOCSIFFLAGS, SIOCSIFADDR, SIOCSIFNETMASK = 0x8913, 0x8914, 0x8916, 0x891C
IFF_UP, IFF_RUNNING = 0x1, 0x40
#: packetdrill's device name (``platforms.h``: ``TUN_DEV``): published set-up files configure
#: it by name (``tc qdisc add dev tun0 ...``).
DEVICE = "tun0"
ETH_P_ALL = 0x0003
#: ``SO_TIMESTAMPNS`` / ``SCM_TIMESTAMPNS`` (``asm-generic/socket.h``), for a kernel time stamp
#: on each packet the sniffer reads.
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4
LOCAL_IP = "192.168.0.1"
REMOTE_IP = "192.168.0.2"
NETMASK = "255.255.255.0"


def unavailable() -> str | None:
    """Why this machine cannot play scripts against its kernel, or None when it can."""
    if os.geteuid() != 0:
        return f"network namespaces and TUN devices need root (running as uid {os.geteuid()}); run as root or with CAP_NET_ADMIN and CAP_SYS_ADMIN"
    if not Path("/dev/net/tun").exists():
        return "/dev/net/tun is missing (load the tun module or give the container the device)"
    return None


def enter_private_namespace() -> None:
    """Moves this process into a new network namespace (``unshare(CLONE_NEWNET)``) and brings
    its loopback device up."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), f"unshare(CLONE_NEWNET): {os.strerror(ctypes.get_errno())}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        _set_up(control, "lo")


def open_tun() -> int:
    """Creates the TUN device with a virtio-net header and TSO, gives it ``LOCAL_IP`` in a
    /24 that holds ``REMOTE_IP``, brings it up; returns its non-blocking descriptor."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", DEVICE.encode(), IFF_TUN | IFF_NO_PI | IFF_VNET_HDR))
    fcntl.ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        fcntl.ioctl(control, SIOCSIFADDR, _ifreq_address(DEVICE, LOCAL_IP))
        fcntl.ioctl(control, SIOCSIFNETMASK, _ifreq_address(DEVICE, NETMASK))
        _set_up(control, DEVICE)
    return fd


def open_sniffer() -> socket.socket:
    """A packet socket on the device that sees what the kernel sends, each packet with the
    kernel's time stamp of its transmission (``SO_TIMESTAMPNS``), as packetdrill sniffs
    (``packet_socket_linux.c``): the time a packet left does not depend on when this process
    gets to read it."""
    sniffer = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    sniffer.bind((DEVICE, ETH_P_ALL))
    sniffer.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sniffer.setblocking(False)
    return sniffer


def _ifreq_address(name: str, address: str) -> bytes:
    return struct.pack("16sH2s4s8x", name.encode(), socket.AF_INET, b"\x00\x00", socket.inet_aton(address))


def _set_up(control: socket.socket, name: str) -> None:
    request = struct.pack("16sh22x", name.encode(), 0)
    flags = struct.unpack("16sh22x", fcntl.ioctl(control, SIOCGIFFLAGS, request))[1]
    fcntl.ioctl(control, SIOCSIFFLAGS, struct.pack("16sh22x", name.encode(), flags | IFF_UP | IFF_RUNNING))
