//! The C shim (csrc/shim.c) over libddsc, and safe owners of its handles.
//!
//! Every entity is an `i32` handle; a negative value is a `DDS_RETCODE_*`. [`Participant`] owns
//! its domain (when it created it) and deletes the participant and everything under it on drop.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::DdsError;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawSample {
    pub seq: u32,
    pub keyval: u32,
    pub data: *const u8,
    pub len: u32,
    pub valid: i32,
    pub source_ts: i64,
}

/// The most samples one take returns (WBDDS_MAX_TAKE in shim.h).
pub const MAX_TAKE: usize = 256;

extern "C" {
    fn wbdds_domain(domain: u32, config_xml: *const c_char) -> i32;
    fn wbdds_participant(domain: u32) -> i32;
    fn wbdds_topic(participant: i32, name: *const c_char) -> i32;
    fn wbdds_writer(participant: i32, topic: i32, reliable: i32, depth: i32) -> i32;
    fn wbdds_reader(participant: i32, topic: i32, reliable: i32, depth: i32) -> i32;
    fn wbdds_reader_listener(
        participant: i32,
        topic: i32,
        reliable: i32,
        depth: i32,
        on_data: extern "C" fn(i32, *mut c_void),
        arg: *mut c_void,
    ) -> i32;
    fn wbdds_waitset(participant: i32, reader: i32) -> i32;
    fn wbdds_wait(waitset: i32, timeout_ns: i64) -> i32;
    fn wbdds_write(writer: i32, seq: u32, keyval: u32, data: *const u8, len: u32) -> i32;
    fn wbdds_flush(writer: i32) -> i32;
    fn wbdds_set_batch(on: i32);
    fn wbdds_take(reader: i32, out: *mut RawSample, loans: *mut *mut c_void, max: u32) -> i32;
    fn wbdds_matched(entity: i32, is_writer: i32) -> i32;
    fn wbdds_delete(entity: i32) -> i32;
    fn wbdds_strerror(rc: i32) -> *const c_char;
    fn wbdds_version() -> *const c_char;
}

/// DDS_RETCODE_PRECONDITION_NOT_MET: `dds_create_domain` on a domain that exists already.
const PRECONDITION_NOT_MET: i32 = -4;

fn check(what: &'static str, rc: i32) -> Result<i32, DdsError> {
    if rc < 0 {
        Err(DdsError::Dds { what, code: rc, text: retcode_text(rc) })
    } else {
        Ok(rc)
    }
}

/// Cyclone's name for a return code.
pub fn retcode_text(rc: i32) -> String {
    // SAFETY: dds_strretcode returns a static NUL-terminated string for every value.
    unsafe { CStr::from_ptr(wbdds_strerror(rc)) }.to_string_lossy().into_owned()
}

/// The Cyclone DDS version the shim was compiled against (DDS_VERSION).
pub fn cyclone_version() -> String {
    // SAFETY: a static NUL-terminated string.
    unsafe { CStr::from_ptr(wbdds_version()) }.to_string_lossy().into_owned()
}

/// Batching of writes (Cyclone's `dds_write_set_batch`): process-wide.
pub fn set_batch(on: bool) {
    // SAFETY: plain call, no pointers.
    unsafe { wbdds_set_batch(i32::from(on)) }
}

/// A domain participant (and, when this value created it, its domain).
#[derive(Debug)]
pub struct Participant {
    domain: Option<i32>,
    pp: i32,
}

impl Participant {
    /// Join `domain`, configured by `config_xml` (a `<CycloneDDS>` document) when this process
    /// has not configured that domain yet.
    pub fn new(domain: u32, config_xml: &str) -> Result<Participant, DdsError> {
        let xml = CString::new(config_xml).map_err(|_| DdsError::Config("NUL byte in the XML".into()))?;
        // SAFETY: xml is a valid C string for the duration of the call.
        let d = unsafe { wbdds_domain(domain, xml.as_ptr()) };
        let owned = if d == PRECONDITION_NOT_MET { None } else { Some(check("dds_create_domain", d)?) };
        // SAFETY: plain call.
        let pp = unsafe { wbdds_participant(domain) };
        match check("dds_create_participant", pp) {
            Ok(pp) => Ok(Participant { domain: owned, pp }),
            Err(e) => {
                if let Some(d) = owned {
                    // SAFETY: d is our domain handle.
                    unsafe { wbdds_delete(d) };
                }
                Err(e)
            }
        }
    }

    /// A KeyedSeq topic of this name.
    pub fn topic(&self, name: &str) -> Result<i32, DdsError> {
        let n = CString::new(name).map_err(|_| DdsError::Config("NUL byte in a topic name".into()))?;
        // SAFETY: n is valid for the call.
        check("dds_create_topic", unsafe { wbdds_topic(self.pp, n.as_ptr()) })
    }

    /// A writer: reliable or best-effort, `depth` 0 = KEEP_ALL else KEEP_LAST(depth).
    pub fn writer(&self, topic: &str, reliable: bool, depth: u32) -> Result<Writer, DdsError> {
        let t = self.topic(topic)?;
        // SAFETY: handles only.
        let w = check("dds_create_writer", unsafe { wbdds_writer(self.pp, t, i32::from(reliable), depth as i32) })?;
        Ok(Writer { w })
    }

    /// A reader with a waitset that triggers on data.
    pub fn reader(&self, topic: &str, reliable: bool, depth: u32) -> Result<Reader, DdsError> {
        let t = self.topic(topic)?;
        // SAFETY: handles only.
        let r = check("dds_create_reader", unsafe { wbdds_reader(self.pp, t, i32::from(reliable), depth as i32) })?;
        // SAFETY: handles only.
        let ws = check("dds_create_waitset", unsafe { wbdds_waitset(self.pp, r) })?;
        Ok(Reader { ws, taker: Taker::new(r) })
    }

    /// A reader whose `handler` runs on Cyclone's receive thread whenever data arrives (a
    /// data-available listener, ddsperf's default triggering): it should take everything.
    pub fn listened_reader(
        &self,
        topic: &str,
        reliable: bool,
        depth: u32,
        handler: Box<dyn FnMut(&mut Taker) + Send>,
    ) -> Result<ListenedReader, DdsError> {
        let t = self.topic(topic)?;
        let closing = Arc::new(AtomicBool::new(false));
        let mut taker = Taker::new(0);
        taker.closing = Some(Arc::clone(&closing));
        let ctx = Box::into_raw(Box::new(ListenCtx { inner: Mutex::new((taker, handler)), closing }));
        // SAFETY: ctx stays valid until the reader is deleted (ListenedReader::drop deletes the
        // reader first, which waits for running listener calls, then frees ctx).
        let r = unsafe { wbdds_reader_listener(self.pp, t, i32::from(reliable), depth as i32, on_data, ctx.cast()) };
        match check("dds_create_reader", r) {
            Ok(r) => {
                // SAFETY: ctx is live; the taker learns its reader under the lock.
                if let Ok(mut g) = unsafe { &*ctx }.inner.lock() {
                    g.0.r = r;
                }
                Ok(ListenedReader { r, ctx })
            }
            Err(e) => {
                // SAFETY: no reader was created, so nothing else refers to ctx.
                drop(unsafe { Box::from_raw(ctx) });
                Err(e)
            }
        }
    }
}

type Handler = Box<dyn FnMut(&mut Taker) + Send>;

struct ListenCtx {
    inner: Mutex<(Taker, Handler)>,
    /// Set before the reader is deleted: a listener call still running then may find its
    /// reader handle already invalid (Cyclone answers BAD_PARAMETER); that is our teardown,
    /// not an error of the run.
    closing: Arc<AtomicBool>,
}

extern "C" fn on_data(_reader: i32, arg: *mut c_void) {
    // SAFETY: arg is the ListenCtx of a live ListenedReader (see listened_reader).
    let ctx = unsafe { &*(arg as *const ListenCtx) };
    // Never unwind into C.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Ok(mut g) = ctx.inner.lock() {
            let (taker, handler) = &mut *g;
            if taker.r > 0 && !ctx.closing.load(Ordering::Acquire) {
                handler(taker);
            }
        }
    }));
}

/// A reader served by a listener; deleting it waits for a running listener call.
pub struct ListenedReader {
    r: i32,
    ctx: *mut ListenCtx,
}

// SAFETY: ctx is only touched under its mutex, or after the reader is gone (drop).
unsafe impl Send for ListenedReader {}

impl std::fmt::Debug for ListenedReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListenedReader").field("r", &self.r).finish()
    }
}

impl ListenedReader {
    pub fn matched(&self) -> Result<u32, DdsError> {
        // SAFETY: handle only.
        check("dds_get_subscription_matched_status", unsafe { wbdds_matched(self.r, 0) }).map(|n| n as u32)
    }
}

impl Drop for ListenedReader {
    fn drop(&mut self) {
        // SAFETY: delete the reader (Cyclone waits for listener calls in progress), then free
        // the context nothing refers to any more.
        unsafe {
            (*self.ctx).closing.store(true, Ordering::Release);
            wbdds_delete(self.r);
            drop(Box::from_raw(self.ctx));
        }
    }
}

impl Drop for Participant {
    fn drop(&mut self) {
        // SAFETY: our handles; deleting a participant deletes its children.
        unsafe {
            wbdds_delete(self.pp);
            if let Some(d) = self.domain {
                wbdds_delete(d);
            }
        }
    }
}

const RAW_ZERO: RawSample = RawSample { seq: 0, keyval: 0, data: std::ptr::null(), len: 0, valid: 0, source_ts: 0 };

/// A KeyedSeq writer (deleted with its participant).
#[derive(Debug, Clone, Copy)]
pub struct Writer {
    w: i32,
}

impl Writer {
    /// Write one sample; Cyclone copies `baggage` before returning.
    pub fn write(&self, seq: u32, keyval: u32, baggage: &[u8]) -> Result<(), DdsError> {
        let len = u32::try_from(baggage.len()).map_err(|_| DdsError::Config("baggage over 4 GiB".into()))?;
        // SAFETY: the shim reads `len` bytes at `baggage` during the call only.
        check("dds_write", unsafe { wbdds_write(self.w, seq, keyval, baggage.as_ptr(), len) }).map(|_| ())
    }

    /// Send what batching has queued.
    pub fn flush(&self) -> Result<(), DdsError> {
        // SAFETY: handle only.
        check("dds_write_flush", unsafe { wbdds_flush(self.w) }).map(|_| ())
    }

    /// Readers matched now.
    pub fn matched(&self) -> Result<u32, DdsError> {
        // SAFETY: handle only.
        check("dds_get_publication_matched_status", unsafe { wbdds_matched(self.w, 1) }).map(|n| n as u32)
    }
}

/// One sample as taken: the baggage is borrowed from Cyclone's loan.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    pub seq: u32,
    pub keyval: u32,
    pub baggage: &'a [u8],
    /// The writer's source timestamp, ns since the Unix epoch.
    pub source_ts: i64,
}

/// Takes samples from a reader (up to [`MAX_TAKE`] at a time), ddsperf's way: the loan of the
/// first take is kept and handed back on every later one, so Cyclone deserializes into the same
/// samples and baggage buffers again instead of allocating, freeing and zeroing them per take
/// (see `wbdds_take` in csrc/shim.c). Cyclone frees the loan with the reader.
#[derive(Debug)]
pub struct Taker {
    r: i32,
    /// The reader's loan: null before the first take, then as the shim left it.
    loans: Vec<*mut c_void>,
    raw: Vec<RawSample>,
    /// For a listened reader: set while the reader is being deleted.
    closing: Option<Arc<AtomicBool>>,
}

// SAFETY: the raw pointers are the reader's loan, used only under &mut self.
unsafe impl Send for Taker {}

/// A KeyedSeq reader with its waitset.
#[derive(Debug)]
pub struct Reader {
    ws: i32,
    taker: Taker,
}

impl Reader {
    /// Wait for data up to `timeout`; true when data may be there.
    pub fn wait(&self, timeout: Duration) -> Result<bool, DdsError> {
        let ns = i64::try_from(timeout.as_nanos()).unwrap_or(i64::MAX);
        // SAFETY: handle only.
        check("dds_waitset_wait", unsafe { wbdds_wait(self.ws, ns) }).map(|n| n > 0)
    }

    /// Writers matched now.
    pub fn matched(&self) -> Result<u32, DdsError> {
        // SAFETY: handle only.
        check("dds_get_subscription_matched_status", unsafe { wbdds_matched(self.taker.r, 0) }).map(|n| n as u32)
    }

    /// See [`Taker::take`].
    pub fn take<E>(&mut self, f: impl FnMut(Sample<'_>) -> Result<(), E>) -> Result<usize, TakeError<E>> {
        self.taker.take(f)
    }

    /// See [`Taker::drain`].
    pub fn drain<E>(&mut self, f: impl FnMut(Sample<'_>) -> Result<(), E>) -> Result<usize, TakeError<E>> {
        self.taker.drain(f)
    }
}

impl Taker {
    fn new(r: i32) -> Taker {
        Taker { r, loans: vec![std::ptr::null_mut(); MAX_TAKE], raw: vec![RAW_ZERO; MAX_TAKE], closing: None }
    }

    /// Take up to [`MAX_TAKE`] samples and call `f` on each one with data (the baggage is
    /// borrowed from the loan, which the next take overwrites). Returns how many samples were
    /// taken (with or without data). A take takes everything there is up to [`MAX_TAKE`], so
    /// only a full take can leave samples behind: see [`Taker::drain`].
    pub fn take<E>(&mut self, mut f: impl FnMut(Sample<'_>) -> Result<(), E>) -> Result<usize, TakeError<E>> {
        // SAFETY: loans and raw have MAX_TAKE slots; the shim fills at most that many, and
        // loans holds what the previous take left there (see wbdds_take).
        let n = unsafe { wbdds_take(self.r, self.raw.as_mut_ptr(), self.loans.as_mut_ptr(), MAX_TAKE as u32) };
        if n < 0 && self.is_closing() {
            return Ok(0);
        }
        let n = check("dds_take", n).map_err(TakeError::Dds)? as usize;
        for raw in &self.raw[..n] {
            if raw.valid == 0 {
                continue;
            }
            let baggage = if raw.len == 0 || raw.data.is_null() {
                &[][..]
            } else {
                // SAFETY: the loan keeps `len` bytes at `data` until the next take, which needs
                // &mut self, so not while `f` borrows them.
                unsafe { std::slice::from_raw_parts(raw.data, raw.len as usize) }
            };
            f(Sample { seq: raw.seq, keyval: raw.keyval, baggage, source_ts: raw.source_ts })
                .map_err(TakeError::Callback)?;
        }
        Ok(n)
    }

    /// Take until a take comes back less than full: then the reader was empty when it looked,
    /// and whatever arrives later raises data-available again (a listener call, a waitset
    /// trigger). One take per listener call is the rule (the receive thread calls the listener
    /// after each sample it stores); the loop only matters when more than [`MAX_TAKE`] waited.
    /// Returns the samples taken.
    pub fn drain<E>(&mut self, mut f: impl FnMut(Sample<'_>) -> Result<(), E>) -> Result<usize, TakeError<E>> {
        let mut total = 0;
        loop {
            let n = self.take(&mut f)?;
            total += n;
            if !more_after(n) {
                return Ok(total);
            }
        }
    }

    fn is_closing(&self) -> bool {
        self.closing.as_ref().is_some_and(|c| c.load(Ordering::Acquire))
    }
}

/// Whether a take that returned `n` samples may have left some behind (it was full).
fn more_after(n: usize) -> bool {
    n >= MAX_TAKE
}

/// An error of [`Reader::take`]: from Cyclone or from the callback.
#[derive(Debug)]
pub enum TakeError<E> {
    Dds(DdsError),
    Callback(E),
}

impl From<TakeError<DdsError>> for DdsError {
    fn from(e: TakeError<DdsError>) -> DdsError {
        match e {
            TakeError::Dds(e) | TakeError::Callback(e) => e,
        }
    }
}
