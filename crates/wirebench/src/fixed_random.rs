//! Fixed random bytes for the callgrind child, so that instruction counts repeat exactly.
//!
//! Libraries seed their hash tables from the OS (Rust's `HashMap` takes its keys from
//! `getrandom`); a different seed means other probe sequences and so a slightly different
//! instruction count for a codec that builds a table per operation (apache-avro does, on
//! every record it encodes). This binary defines `getrandom` itself: it is the system call
//! unless [`enable`] was called, and then a fixed pseudo-random stream. Only the callgrind
//! child enables it, before anything asks for a seed; time measurements never do.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static FIXED: AtomicBool = AtomicBool::new(false);
static STATE: AtomicU64 = AtomicU64::new(0x5745_4245_4e43_4821);

/// From now on `getrandom` returns the fixed stream (call it first thing in `main`).
pub fn enable() {
    FIXED.store(true, Ordering::SeqCst);
}

/// SplitMix64 over an atomic state: a well-spread fixed stream, safe from any thread.
fn next() -> u64 {
    use wirebench_measure::rng::{mix, GAMMA};
    mix(STATE.fetch_add(GAMMA, Ordering::Relaxed).wrapping_add(GAMMA))
}

/// glibc's `getrandom(2)` wrapper, replaced for this executable (the references of the Rust
/// standard library and the statically linked crates resolve here).
///
/// # Safety
/// `buf` must be valid for `len` bytes of writes, as for the C function.
#[no_mangle]
pub unsafe extern "C" fn getrandom(buf: *mut libc::c_void, len: libc::size_t, flags: libc::c_uint) -> libc::ssize_t {
    if !FIXED.load(Ordering::Relaxed) {
        // SAFETY: the caller's buffer contract is the system call's.
        return unsafe { libc::syscall(libc::SYS_getrandom, buf, len, flags) } as libc::ssize_t;
    }
    // SAFETY: the caller guarantees `buf` is valid for `len` bytes.
    let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    for chunk in out.chunks_mut(8) {
        let word = next().to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    len as libc::ssize_t
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_system_call_is_used_until_enabled() {
        // Not enabled in tests: two draws of 32 bytes differ (probability of a false failure 2^-256).
        let draw = || {
            let mut b = [0u8; 32];
            // SAFETY: `b` is valid for 32 bytes.
            let n = unsafe { super::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
            assert_eq!(n, 32);
            b
        };
        assert_ne!(draw(), draw());
    }
}
