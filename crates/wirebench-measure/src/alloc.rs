//! A counting global allocator: allocations and bytes allocated per operation.
//!
//! The binary installs it with `#[global_allocator]`. Counting is off by default (one relaxed
//! load per allocation) and switched on only around the allocation measurement, which runs
//! apart from the timed samples.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Wraps the system allocator and counts while enabled.
pub struct CountingAlloc;

static ENABLED: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
/// Set once the allocator is installed (its first allocation), so tools can tell.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Mark the allocator installed. Only the first call stores: a store on every allocation
/// would bounce the flag's cache line between the cores of a multi-threaded run.
#[inline(always)]
fn mark_installed() {
    if !INSTALLED.load(Relaxed) {
        INSTALLED.store(true, Relaxed);
    }
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        mark_installed();
        if ENABLED.load(Relaxed) {
            ALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(layout.size() as u64, Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        mark_installed();
        if ENABLED.load(Relaxed) {
            ALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(layout.size() as u64, Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ENABLED.load(Relaxed) {
            ALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(new_size.saturating_sub(layout.size()) as u64, Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocation counts of a measured stretch of code.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AllocStats {
    /// Allocations (a growing realloc counts as one) per operation.
    pub allocs_per_op: f64,
    /// Bytes requested per operation (for reallocs, the growth).
    pub bytes_per_op: f64,
}

/// Whether the counting allocator is the global allocator of this process.
pub fn installed() -> bool {
    // Force one allocation so a freshly started process has set the flag.
    drop(Box::new(0u8));
    INSTALLED.load(Relaxed)
}

/// Run `f` `iters` times with counting on; per-operation figures. Single-threaded use only.
pub fn measure(iters: u64, mut f: impl FnMut()) -> Option<AllocStats> {
    if !installed() || iters == 0 {
        return None;
    }
    ALLOCS.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    ENABLED.store(true, Relaxed);
    for _ in 0..iters {
        f();
    }
    ENABLED.store(false, Relaxed);
    Some(AllocStats {
        allocs_per_op: ALLOCS.load(Relaxed) as f64 / iters as f64,
        bytes_per_op: BYTES.load(Relaxed) as f64 / iters as f64,
    })
}
