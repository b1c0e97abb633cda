//! The two-host network lab: namespaces `wb_<id>_a` and `wb_<id>_b` joined by a veth pair,
//! addresses 10.250.0.1/24 (A) and 10.250.0.2/24 (B) that exist only inside the namespaces,
//! TBF (or HTB) rate shaping per direction (on each end's egress) and i.i.d. loss with nftables
//! `numgen random` in the receiving namespace (spec §1.1–1.2; netem is not in the kernel).
//!
//! Setup is the spec's command list (`ip`, `tc`, `nft`, each under a deadline):
//!
//! ```text
//! ip netns add wb_<id>_a ; ip netns add wb_<id>_b
//! ip link add wb_<id>_va type veth peer name wb_<id>_vb   (then moved into A and B)
//! ip -n wb_<id>_a addr add 10.250.0.1/24 dev wb_<id>_va ; lo and veth up in both
//! tc -n wb_<id>_a qdisc replace dev wb_<id>_va root tbf rate R burst B latency 50ms   (up)
//! tc -n wb_<id>_b qdisc replace dev wb_<id>_vb root tbf rate R burst B latency 50ms   (down)
//! nft (in B) add rule inet wb in iifname wb_<id>_vb numgen random mod 10000 < P·100 drop (up loss)
//! ```
//!
//! A [`Lab`] is a guard: dropping it (also while unwinding from a failed assertion) deletes both
//! namespaces, which removes the veth pair, the qdiscs and the nftables rules with them. The
//! first lab registers a hook that tears down every live lab on SIGINT/SIGTERM/SIGHUP before the
//! signal takes its normal course (`wirebench_core::signals`; a signal ignored at start, as
//! under `nohup`, stays ignored). `SIGKILL` cannot be caught: [`down`] / [`down_all`] clean up
//! leftovers by id. A lab meant to outlive the process (`wirebench lab up`) is made with
//! [`Lab::persist`].
//!
//! Socket code runs inside a namespace on a dedicated thread: [`spawn_in`] / [`run_in`] call
//! `setns(2)` on a fresh thread, so the caller's thread never changes namespace. Sockets keep
//! the namespace they were created in, whichever thread uses them later.

use std::fs::File;
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, Once};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cmd;
use crate::profile::{LabProfile, Shape, Shaper};
use crate::NetError;

/// Prefix of every namespace and interface the lab creates.
pub const PREFIX: &str = "wb_";
/// Address of host A (inside namespace A only).
pub const ADDR_A: Ipv4Addr = Ipv4Addr::new(10, 250, 0, 1);
/// Address of host B (inside namespace B only).
pub const ADDR_B: Ipv4Addr = Ipv4Addr::new(10, 250, 0, 2);
/// TBF queue limit expressed as latency (spec §1.2).
pub const TBF_LATENCY: &str = "50ms";

const CMD_TIMEOUT: Duration = Duration::from_secs(10);
const CAP_NET_ADMIN: u32 = 12;
const CAP_SYS_ADMIN: u32 = 21;

fn ip() -> Result<PathBuf, NetError> {
    cmd::require("ip", "install iproute2 (apt-get install iproute2)")
}

fn tc() -> Result<PathBuf, NetError> {
    cmd::require("tc", "install iproute2 (apt-get install iproute2)")
}

fn nft() -> Result<PathBuf, NetError> {
    cmd::require("nft", "loss emulation uses nftables: apt-get install nftables")
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Check that this process may create namespaces and configure links.
pub fn check_privileges() -> Result<(), NetError> {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let cap_eff = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        .unwrap_or(0);
    let has = |bit: u32| cap_eff & (1u64 << bit) != 0;
    match (has(CAP_SYS_ADMIN), has(CAP_NET_ADMIN)) {
        (true, true) => Ok(()),
        (false, false) => Err(NetError::NotPermitted { capability: "CAP_SYS_ADMIN and CAP_NET_ADMIN", uid }),
        (false, true) => Err(NetError::NotPermitted { capability: "CAP_SYS_ADMIN (network namespaces)", uid }),
        (true, false) => Err(NetError::NotPermitted { capability: "CAP_NET_ADMIN (veth, tc, nftables)", uid }),
    }
}

/// Whether the lab can run here (privileges and `ip`/`tc` present).
pub fn available() -> Result<(), NetError> {
    check_privileges()?;
    ip()?;
    tc()?;
    Ok(())
}

/// A lab id made unique per process and call: `t` + base-36 digits (≤ 6 characters).
pub fn unique_id() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = (std::process::id() as u64 % 1_000_000) * 64 + (COUNTER.fetch_add(1, Ordering::Relaxed) % 64) as u64;
    let mut s = String::new();
    let mut v = n % 36u64.pow(5);
    for _ in 0..5 {
        s.insert(0, char::from_digit((v % 36) as u32, 36).unwrap());
        v /= 36;
    }
    format!("t{s}")
}

fn check_id(id: &str) -> Result<(), NetError> {
    if id.is_empty() || id.len() > 6 || !id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        return Err(NetError::LabId(id.to_string()));
    }
    Ok(())
}

/// The names of one lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabNames {
    pub id: String,
    pub ns_a: String,
    pub ns_b: String,
    pub veth_a: String,
    pub veth_b: String,
}

impl LabNames {
    pub fn new(id: &str) -> Result<LabNames, NetError> {
        check_id(id)?;
        Ok(LabNames {
            id: id.into(),
            ns_a: format!("{PREFIX}{id}_a"),
            ns_b: format!("{PREFIX}{id}_b"),
            veth_a: format!("{PREFIX}{id}_va"),
            veth_b: format!("{PREFIX}{id}_vb"),
        })
    }
}

// ---- teardown on signals ---------------------------------------------------------------

/// Labs alive in this process (namespaces to delete on a signal).
static LIVE: Mutex<Vec<LabNames>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Tear down every live lab when SIGINT, SIGTERM or SIGHUP ends the process (a signal ignored
/// at start, as under `nohup`, stays ignored: wirebench_core::signals).
fn install_signal_teardown() {
    INSTALL.call_once(|| {
        let guard = wirebench_core::signals::on_signal(|_| {
            let labs: Vec<LabNames> = LIVE.lock().map(|mut l| std::mem::take(&mut *l)).unwrap_or_default();
            for names in &labs {
                let _ = delete_namespaces(names);
            }
        });
        // For the life of the process.
        std::mem::forget(guard);
    });
}

fn register(names: &LabNames) {
    install_signal_teardown();
    if let Ok(mut l) = LIVE.lock() {
        l.push(names.clone());
    }
}

fn unregister(names: &LabNames) {
    if let Ok(mut l) = LIVE.lock() {
        l.retain(|n| n != names);
    }
}

fn ns_exists(ns: &str) -> bool {
    PathBuf::from("/run/netns").join(ns).exists()
}

fn delete_namespaces(names: &LabNames) -> Result<(), NetError> {
    forget_owner(&names.id);
    let ip = ip()?;
    let mut first_err = None;
    for ns in [&names.ns_a, &names.ns_b] {
        if ns_exists(ns) {
            if let Err(e) = cmd::run_ok(&ip, &args(&["netns", "del", ns]), CMD_TIMEOUT) {
                first_err.get_or_insert(e);
            }
        }
    }
    // A veth left in the root namespace by a setup that failed half-way.
    if PathBuf::from("/sys/class/net").join(&names.veth_a).exists() {
        let _ = cmd::run(&ip, &args(&["link", "del", &names.veth_a]), CMD_TIMEOUT);
    }
    first_err.map_or(Ok(()), Err)
}

// ---- the lab -------------------------------------------------------------------------

/// A running lab; tears itself down when dropped (unless [`Lab::persist`]ed).
#[derive(Debug)]
pub struct Lab {
    names: LabNames,
    profile: LabProfile,
    armed: bool,
}

impl Lab {
    /// Create the lab `id` with `profile`. Fails with [`NetError::NotPermitted`] without root,
    /// [`NetError::ProgramMissing`] without `ip`/`tc` (or `nft` when the profile has loss), and
    /// cleans up whatever it created when a step fails.
    pub fn up(id: &str, profile: &LabProfile) -> Result<Lab, NetError> {
        let names = LabNames::new(id)?;
        check_privileges()?;
        let ip = ip()?;
        tc()?;
        if profile.up.loss_pct > 0.0 || profile.down.loss_pct > 0.0 {
            nft()?;
        }
        if ns_exists(&names.ns_a) || ns_exists(&names.ns_b) {
            return Err(NetError::invalid(
                "lab id",
                format!("lab {id:?} is already up (namespace {} exists); take it down first", names.ns_a),
            ));
        }
        register(&names);
        record_owner(&names.id);
        let mut lab = Lab { names, profile: LabProfile::unshaped(), armed: true };
        let n = lab.names.clone();
        let a = format!("{ADDR_A}/24");
        let b = format!("{ADDR_B}/24");
        let steps: Vec<Vec<&str>> = vec![
            vec!["netns", "add", &n.ns_a],
            vec!["netns", "add", &n.ns_b],
            vec!["link", "add", &n.veth_a, "type", "veth", "peer", "name", &n.veth_b],
            vec!["link", "set", &n.veth_a, "netns", &n.ns_a],
            vec!["link", "set", &n.veth_b, "netns", &n.ns_b],
            vec!["-n", &n.ns_a, "addr", "add", &a, "dev", &n.veth_a],
            vec!["-n", &n.ns_b, "addr", "add", &b, "dev", &n.veth_b],
            vec!["-n", &n.ns_a, "link", "set", "lo", "up"],
            vec!["-n", &n.ns_b, "link", "set", "lo", "up"],
            vec!["-n", &n.ns_a, "link", "set", &n.veth_a, "up"],
            vec!["-n", &n.ns_b, "link", "set", &n.veth_b, "up"],
        ];
        for s in steps {
            cmd::run_ok(&ip, &args(&s), CMD_TIMEOUT)?; // on error `lab` drops → teardown
        }
        lab.apply(profile)?;
        Ok(lab)
    }

    /// A handle on a lab that is already up (made by another process, e.g. `wirebench lab up`),
    /// to re-shape it with [`Lab::apply`]. Dropping the handle leaves the lab up.
    pub fn attach(id: &str) -> Result<Lab, NetError> {
        let names = LabNames::new(id)?;
        if !(ns_exists(&names.ns_a) && ns_exists(&names.ns_b)) {
            return Err(NetError::LabNotUp(id.to_string()));
        }
        Ok(Lab { names, profile: LabProfile::unshaped(), armed: false })
    }

    /// Change shaping and loss in place (no new namespaces): used to walk a rate ladder.
    pub fn apply(&mut self, profile: &LabProfile) -> Result<(), NetError> {
        let n = &self.names;
        shape(&n.ns_a, &n.veth_a, &profile.up, profile)?;
        shape(&n.ns_b, &n.veth_b, &profile.down, profile)?;
        // Loss of the up direction is applied where it arrives (B), and vice versa.
        set_loss(&n.ns_b, &n.veth_b, profile.up.loss_pct)?;
        set_loss(&n.ns_a, &n.veth_a, profile.down.loss_pct)?;
        self.profile = profile.clone();
        Ok(())
    }

    pub fn names(&self) -> &LabNames {
        &self.names
    }
    pub fn id(&self) -> &str {
        &self.names.id
    }
    pub fn ns_a(&self) -> &str {
        &self.names.ns_a
    }
    pub fn ns_b(&self) -> &str {
        &self.names.ns_b
    }
    pub fn addr_a(&self) -> Ipv4Addr {
        ADDR_A
    }
    pub fn addr_b(&self) -> Ipv4Addr {
        ADDR_B
    }
    pub fn profile(&self) -> &LabProfile {
        &self.profile
    }

    /// What the kernel says about the lab now.
    pub fn status(&self) -> Result<LabStatus, NetError> {
        status(&self.names.id)
    }

    /// Byte and packet counters of A's veth end (tx = up, rx = down).
    pub fn counters(&self) -> Result<Counters, NetError> {
        counters(&self.names.ns_a, &self.names.veth_a)
    }

    /// Tear down now, reporting errors (Drop does the same silently).
    pub fn down(mut self) -> Result<(), NetError> {
        self.armed = false;
        unregister(&self.names);
        delete_namespaces(&self.names)
    }

    /// Keep the lab after this value (and the process) goes away; [`down`] removes it later.
    pub fn persist(mut self) -> LabNames {
        self.armed = false;
        unregister(&self.names);
        forget_owner(&self.names.id);
        self.names.clone()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if self.armed {
            unregister(&self.names);
            let _ = delete_namespaces(&self.names);
        }
    }
}

fn shape(ns: &str, dev: &str, s: &Shape, p: &LabProfile) -> Result<(), NetError> {
    let tc = tc()?;
    let run = |a: &[&str]| cmd::run_ok(&tc, &args(a), CMD_TIMEOUT);
    match (s.rate_bps, p.shaper) {
        (Some(rate), Shaper::Tbf) => {
            let burst = crate::profile::burst_bytes(p.burst, rate);
            run(&[
                "-n",
                ns,
                "qdisc",
                "replace",
                "dev",
                dev,
                "root",
                "tbf",
                "rate",
                &format!("{rate}bit"),
                "burst",
                &format!("{burst}b"),
                "latency",
                TBF_LATENCY,
            ])?;
        }
        (Some(rate), Shaper::Htb) => {
            // One class that everything goes to; the bucket as for TBF. A root that is not
            // HTB yet (tbf or the default) is replaced first.
            let burst = crate::profile::burst_bytes(p.burst, rate);
            let have_htb = cmd::run(&tc, &args(&["-n", ns, "qdisc", "show", "dev", dev, "root"]), CMD_TIMEOUT)
                .map(|f| f.stdout.contains("htb 1:"))
                .unwrap_or(false);
            if !have_htb {
                run(&["-n", ns, "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "10"])?;
            }
            let (r, b) = (format!("{rate}bit"), format!("{burst}b"));
            run(&[
                "-n", ns, "class", "replace", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", &r, "ceil",
                &r, "burst", &b, "cburst", &b,
            ])?;
        }
        (None, _) => {
            // Back to the default qdisc; "no qdisc to delete" is fine.
            let _ = cmd::run(&tc, &args(&["-n", ns, "qdisc", "del", "dev", dev, "root"]), CMD_TIMEOUT);
        }
    }
    Ok(())
}

fn set_loss(ns: &str, dev: &str, loss_pct: f64) -> Result<(), NetError> {
    let have_nft = cmd::which("nft");
    if loss_pct <= 0.0 {
        if let Some(nft) = have_nft {
            let ip = ip()?;
            let _ = cmd::run(
                &ip,
                &args(&["netns", "exec", ns, nft.to_str().unwrap_or("nft"), "flush", "ruleset"]),
                CMD_TIMEOUT,
            );
        }
        return Ok(());
    }
    let nft = nft()?;
    let nft = nft.to_str().unwrap_or("nft");
    let ip = ip()?;
    let threshold = ((loss_pct * 100.0).round() as u64).min(10_000).to_string();
    let run = |a: &[&str]| {
        let mut v = vec!["netns", "exec", ns, nft];
        v.extend_from_slice(a);
        cmd::run_ok(&ip, &args(&v), CMD_TIMEOUT)
    };
    run(&["flush", "ruleset"])?;
    run(&["add", "table", "inet", "wb"])?;
    run(&[
        "add", "chain", "inet", "wb", "in", "{", "type", "filter", "hook", "input", "priority", "0", ";", "policy",
        "accept", ";", "}",
    ])?;
    run(&[
        "add", "rule", "inet", "wb", "in", "iifname", dev, "numgen", "random", "mod", "10000", "<", &threshold, "drop",
    ])?;
    Ok(())
}

/// Interface counters (Linux `stats64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    pub tx_bytes: u64,
    pub tx_packets: u64,
    pub rx_bytes: u64,
    pub rx_packets: u64,
}

impl Counters {
    /// `self - earlier`, field by field.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            tx_bytes: self.tx_bytes.saturating_sub(earlier.tx_bytes),
            tx_packets: self.tx_packets.saturating_sub(earlier.tx_packets),
            rx_bytes: self.rx_bytes.saturating_sub(earlier.rx_bytes),
            rx_packets: self.rx_packets.saturating_sub(earlier.rx_packets),
        }
    }
}

/// Read `dev`'s counters in `ns` (`ip -s -j link show`).
pub fn counters(ns: &str, dev: &str) -> Result<Counters, NetError> {
    let ip = ip()?;
    let f = cmd::run_ok(&ip, &args(&["-n", ns, "-s", "-j", "link", "show", "dev", dev]), CMD_TIMEOUT)?;
    let v: serde_json::Value = serde_json::from_str(&f.stdout).map_err(|e| {
        NetError::invalid("ip -j output", format!("{e}: {}", f.stdout.chars().take(200).collect::<String>()))
    })?;
    let s = &v[0]["stats64"];
    let g = |dir: &str, k: &str| s[dir][k].as_u64().unwrap_or(0);
    Ok(Counters {
        tx_bytes: g("tx", "bytes"),
        tx_packets: g("tx", "packets"),
        rx_bytes: g("rx", "bytes"),
        rx_packets: g("rx", "packets"),
    })
}

/// What is installed for one lab.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LabStatus {
    pub names: LabNames,
    /// Both namespaces exist.
    pub up: bool,
    pub addr_a: String,
    pub addr_b: String,
    /// `tc qdisc show` of A's and B's veth end.
    pub qdisc_a: String,
    pub qdisc_b: String,
    /// `nft list ruleset` in A and B (empty without loss or without nftables).
    pub nft_a: String,
    pub nft_b: String,
    pub counters_a: Option<Counters>,
}

/// Status of lab `id` (works from another process, e.g. `wirebench lab status`).
pub fn status(id: &str) -> Result<LabStatus, NetError> {
    let names = LabNames::new(id)?;
    let up = ns_exists(&names.ns_a) && ns_exists(&names.ns_b);
    if !up {
        return Err(NetError::LabNotUp(id.to_string()));
    }
    let ip = ip()?;
    let tc = tc()?;
    let q = |ns: &str, dev: &str| {
        cmd::run(&tc, &args(&["-n", ns, "qdisc", "show", "dev", dev]), CMD_TIMEOUT)
            .map(|f| f.stdout.trim().to_string())
            .unwrap_or_default()
    };
    let nftl = |ns: &str| match cmd::which("nft") {
        Some(nft) => {
            cmd::run(&ip, &args(&["netns", "exec", ns, nft.to_str().unwrap_or("nft"), "list", "ruleset"]), CMD_TIMEOUT)
                .map(|f| f.stdout.trim().to_string())
                .unwrap_or_default()
        }
        None => String::new(),
    };
    let addr = |ns: &str, dev: &str| {
        cmd::run(&ip, &args(&["-n", ns, "-br", "addr", "show", "dev", dev]), CMD_TIMEOUT)
            .map(|f| f.stdout.trim().to_string())
            .unwrap_or_default()
    };
    Ok(LabStatus {
        up,
        addr_a: addr(&names.ns_a, &names.veth_a),
        addr_b: addr(&names.ns_b, &names.veth_b),
        qdisc_a: q(&names.ns_a, &names.veth_a),
        qdisc_b: q(&names.ns_b, &names.veth_b),
        nft_a: nftl(&names.ns_a),
        nft_b: nftl(&names.ns_b),
        counters_a: counters(&names.ns_a, &names.veth_a).ok(),
        names,
    })
}

/// Ids of every lab whose namespaces exist (`wb_<id>_a` in `ip netns list`).
pub fn list() -> Result<Vec<String>, NetError> {
    let mut ids: Vec<String> = match std::fs::read_dir("/run/netns") {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|n| n.strip_prefix(PREFIX).and_then(|r| r.strip_suffix("_a")).map(str::to_string))
            .filter(|id| check_id(id).is_ok())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(NetError::io("reading /run/netns", e)),
    };
    ids.sort();
    Ok(ids)
}

/// Tear down lab `id` (from any process). `Ok(false)` when it was not up.
pub fn down(id: &str) -> Result<bool, NetError> {
    let names = LabNames::new(id)?;
    let was = ns_exists(&names.ns_a) || ns_exists(&names.ns_b);
    if was {
        check_privileges()?;
        unregister(&names);
        delete_namespaces(&names)?;
    }
    Ok(was)
}

/// Tear down every `wb_*` lab no running process owns; returns the ids removed. A lab made by a
/// run still going (its owner process, recorded by pid and start time, is alive) is left alone;
/// labs kept by `wirebench lab up` ([`Lab::persist`]) and labs of processes that are gone are
/// removed.
pub fn down_all() -> Result<Vec<String>, NetError> {
    let mut removed = Vec::new();
    for id in list()? {
        if owner_alive(&id) {
            continue;
        }
        down(&id)?;
        removed.push(id);
    }
    Ok(removed)
}

// ---- owners ------------------------------------------------------------------------------

/// Where a lab's owner (the process whose run made it) is recorded, one file per lab id.
const OWNERS: &str = "/run/wirebench/labs";

fn owner_path(id: &str) -> PathBuf {
    PathBuf::from(OWNERS).join(format!("{id}.owner"))
}

/// The start time of process `pid` (clock ticks since boot, /proc/PID/stat field 22): with the
/// pid it names one process, even after the pid is reused.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split at the last ')'.
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

/// Record this process as the owner of lab `id` (best effort: without the record, `down --all`
/// treats the lab as orphaned, as before owners were recorded).
fn record_owner(id: &str) {
    let pid = std::process::id();
    let Some(start) = start_time(pid) else { return };
    let _ = std::fs::create_dir_all(OWNERS);
    let _ = std::fs::write(owner_path(id), format!("{pid} {start}\n"));
}

fn forget_owner(id: &str) {
    let _ = std::fs::remove_file(owner_path(id));
}

/// Whether the process recorded as lab `id`'s owner is still running.
pub fn owner_alive(id: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(owner_path(id)) else { return false };
    let mut f = text.split_whitespace().map(|x| x.parse::<u64>().ok());
    match (f.next().flatten(), f.next().flatten()) {
        (Some(pid), Some(start)) => u32::try_from(pid).ok().and_then(start_time) == Some(start),
        _ => false,
    }
}

// ---- running code inside a namespace -----------------------------------------------------

/// Move the **calling thread** into network namespace `ns` (`setns(2)`). Use it only on a
/// thread you own (see [`spawn_in`]); threads it spawns afterwards start in `ns` too.
pub fn enter_netns(ns: &str) -> Result<(), NetError> {
    let path = PathBuf::from("/run/netns").join(ns);
    let f = File::open(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            NetError::invalid("namespace", format!("{ns} does not exist (is the lab up?)"))
        } else {
            NetError::io(format!("opening {}", path.display()), e)
        }
    })?;
    // SAFETY: a valid namespace fd; CLONE_NEWNET restricts it to network namespaces.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EPERM) {
            // SAFETY: no preconditions.
            return Err(NetError::NotPermitted {
                capability: "CAP_SYS_ADMIN (setns)",
                uid: unsafe { libc::geteuid() },
            });
        }
        return Err(NetError::io(format!("setns into {ns}"), e));
    }
    Ok(())
}

/// A thread running inside a namespace.
pub struct NsThread<T> {
    handle: std::thread::JoinHandle<Result<T, NetError>>,
    name: String,
}

impl<T> NsThread<T> {
    /// Wait for the thread; its result, or the setns error, or a panic as an error.
    pub fn join(self) -> Result<T, NetError> {
        self.handle.join().map_err(|p| NetError::Worker(self.name, crate::error::panic_message(p)))?
    }

    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }
}

/// Run `f` on a new thread inside namespace `ns` (`None`: the caller's namespace).
pub fn spawn_in<T: Send + 'static>(
    ns: Option<&str>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<NsThread<T>, NetError> {
    let ns = ns.map(str::to_string);
    let handle = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            if let Some(ns) = ns {
                enter_netns(&ns)?;
            }
            Ok(f())
        })
        .map_err(|e| NetError::io("spawning a thread", e))?;
    Ok(NsThread { handle, name: name.to_string() })
}

/// Run `f` inside namespace `ns` on a dedicated thread and wait for its result.
pub fn run_in<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> Result<T, NetError> {
    spawn_in(Some(ns), &format!("wb-in-{ns}"), f)?.join()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names() {
        let a = unique_id();
        let b = unique_id();
        assert_ne!(a, b);
        assert!(a.len() <= 6, "{a}");
        let n = LabNames::new(&a).unwrap();
        assert!(n.veth_a.len() <= 15, "interface names are limited to 15 bytes");
        assert!(LabNames::new("Bad-Id").is_err());
        assert!(LabNames::new("toolong1").is_err());
        assert!(LabNames::new("").is_err());
    }
}
