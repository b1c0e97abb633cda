//! Socket options on sockets that live in this process but that a library created for us
//! (rumqttd's listener and its accepted connections). Linux only: the sockets are found by
//! scanning `/proc/self/fd` and matched by their local address.
#![cfg_attr(not(feature = "embedded-broker"), allow(dead_code))]

use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::fd::RawFd;

/// A TCP socket of this process bound to a given local address.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OwnSocket {
    pub fd: RawFd,
    pub listening: bool,
}

/// Every TCP socket of this process whose local address is `addr`: the listener and the
/// connections it accepted (our own clients' sockets have an ephemeral local port instead).
pub(crate) fn sockets_bound_to(addr: SocketAddrV4) -> Vec<OwnSocket> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(fd) = entry.file_name().to_str().and_then(|s| s.parse::<RawFd>().ok()) else {
            continue;
        };
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        if !target.to_string_lossy().starts_with("socket:") {
            continue;
        }
        if local_v4(fd) != Some(addr) || sockopt(fd, libc::SOL_SOCKET, libc::SO_TYPE) != Some(libc::SOCK_STREAM) {
            continue;
        }
        let listening = sockopt(fd, libc::SOL_SOCKET, libc::SO_ACCEPTCONN) == Some(1);
        out.push(OwnSocket { fd, listening });
    }
    out
}

fn local_v4(fd: RawFd) -> Option<SocketAddrV4> {
    // SAFETY: a zeroed sockaddr_in is a valid value; getsockname writes at most `len` bytes.
    let mut sa: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    let rc = unsafe { libc::getsockname(fd, &mut sa as *mut _ as *mut libc::sockaddr, &mut len) };
    if rc != 0 || sa.sin_family != libc::AF_INET as libc::sa_family_t {
        return None;
    }
    Some(SocketAddrV4::new(u32::from_be(sa.sin_addr.s_addr).into(), u16::from_be(sa.sin_port)))
}

pub(crate) fn sockopt(fd: RawFd, level: libc::c_int, name: libc::c_int) -> Option<libc::c_int> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: v and len are valid out-pointers of the sizes given.
    let rc = unsafe { libc::getsockopt(fd, level, name, &mut v as *mut _ as *mut libc::c_void, &mut len) };
    (rc == 0).then_some(v)
}

pub(crate) fn set_nodelay(fd: RawFd, on: bool) -> bool {
    let v: libc::c_int = on as libc::c_int;
    // SAFETY: v is a valid c_int for the duration of the call.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &v as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    rc == 0
}

pub(crate) fn nodelay(fd: RawFd) -> Option<bool> {
    sockopt(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY).map(|v| v != 0)
}

/// Shut a connection down in both directions: its owner sees EOF and cleans up.
pub(crate) fn shutdown_both(fd: RawFd) {
    // SAFETY: shutdown on an fd has no memory-safety preconditions.
    unsafe {
        libc::shutdown(fd, libc::SHUT_RDWR);
    }
}

/// Retire a listening socket that another runtime keeps polling, without closing its fd
/// number under that runtime: a fresh non-blocking listener on an ephemeral loopback port is
/// `dup3`ed over the fd. The old socket's last reference goes away, so its port is released and
/// the kernel drops it from the epoll set; the owner's accept loop sees `EAGAIN` from the
/// replacement (nobody knows its port) and sleeps forever without spinning.
pub(crate) fn retire_listener(fd: RawFd) -> bool {
    // SAFETY: plain socket syscalls on fds we create; dup3 targets `fd`, which we have just
    // identified as a listening TCP socket of this process.
    unsafe {
        let d = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0);
        if d < 0 {
            return false;
        }
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let ok =
            libc::bind(d, &sa as *const _ as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_in>() as u32)
                == 0
                && libc::listen(d, 1) == 0
                && libc::dup3(d, fd, libc::O_CLOEXEC) >= 0;
        libc::close(d);
        ok
    }
}

/// A loopback port nobody listens on right now (bind port 0, read it, release it).
pub(crate) fn free_port() -> Result<u16, crate::MqttError> {
    let err = |e| crate::MqttError::io("finding a free port", e);
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(err)?;
    l.local_addr().map(|a| a.port()).map_err(err)
}
