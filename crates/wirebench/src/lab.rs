//! The network lab: `wirebench lab up|down|status`.
//!
//! `up` creates two network namespaces (`wb_<id>_a` = host A 10.250.0.1, `wb_<id>_b` = host B
//! 10.250.0.2) joined by a veth pair, with TBF rate shaping per direction and i.i.d. loss by
//! nftables, and leaves them up for other programs (`ip netns exec wb_<id>_a …`). If a step
//! fails, or the command is interrupted while setting up, everything created so far is removed.
//! `down` removes a lab (or all of them), `status` shows what the kernel has. Root is needed
//! (CAP_SYS_ADMIN + CAP_NET_ADMIN); without it the command says so, and the `http`/`tcp`
//! commands fall back to the userspace link emulator.

use anyhow::Result;
use serde_json::{json, Value as Json};
use wirebench_net::lab::{self, Lab, LabStatus};
use wirebench_net::profile::{format_rate, LabProfile};
use wirebench_net::NetError;

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: LabCommand,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table, global = true)]
    pub output: OutputArg,
}

#[derive(clap::Subcommand, Debug)]
pub enum LabCommand {
    /// Create the lab and leave it up.
    Up {
        /// Link profile: a rate (10mbit), a preset (nb-iot, lte-m1, unshaped) or
        /// up=..,down=..,loss=..,burst=sized|seed|<bytes>.
        #[arg(long, default_value = "unshaped")]
        profile: String,
        /// Lab id (1-6 of [a-z0-9]); namespaces are wb_<id>_a and wb_<id>_b.
        #[arg(long, default_value = "lab")]
        id: String,
    },
    /// Change the shaping of a running lab.
    Apply {
        #[arg(long)]
        profile: String,
        #[arg(long, default_value = "lab")]
        id: String,
    },
    /// Remove a lab (or every wb_* lab with --all).
    Down {
        #[arg(long, default_value = "lab", conflicts_with = "all")]
        id: String,
        #[arg(long)]
        all: bool,
    },
    /// Show a lab (or every lab when none is named).
    Status {
        #[arg(long)]
        id: Option<String>,
    },
}

fn net(e: NetError) -> anyhow::Error {
    match e {
        NetError::Io { .. } | NetError::Worker(..) | NetError::Command { .. } => anyhow::Error::new(e),
        other => bad(other.to_string()),
    }
}

fn describe(p: &LabProfile) -> String {
    let dir = |r: Option<u64>, loss: f64| {
        let mut s = r.map(format_rate).unwrap_or_else(|| "unshaped".into());
        if loss > 0.0 {
            s.push_str(&format!(", loss {loss} %"));
        }
        s
    };
    format!(
        "up (A→B) {}; down (B→A) {}; burst {:?}",
        dir(p.up.rate_bps, p.up.loss_pct),
        dir(p.down.rate_bps, p.down.loss_pct),
        p.burst
    )
}

fn status_json(s: &LabStatus) -> Json {
    serde_json::to_value(s).unwrap_or(Json::Null)
}

fn status_text(s: &LabStatus) -> String {
    let mut out = format!(
        "lab {}: namespaces {} (A) and {} (B), veth {} / {}\n  A: {}\n  B: {}\n  qdisc A (up):   {}\n  qdisc B (down): {}\n",
        s.names.id, s.names.ns_a, s.names.ns_b, s.names.veth_a, s.names.veth_b, s.addr_a, s.addr_b,
        s.qdisc_a.replace('\n', "; "), s.qdisc_b.replace('\n', "; ")
    );
    for (who, rules) in [("A", &s.nft_a), ("B", &s.nft_b)] {
        if let Some(line) = rules.lines().find(|l| l.contains("numgen")) {
            out.push_str(&format!("  loss rule in {who}: {}\n", line.trim()));
        }
    }
    if let Some(c) = &s.counters_a {
        out.push_str(&format!(
            "  counters A: tx {} B / {} packets, rx {} B / {} packets\n",
            c.tx_bytes, c.tx_packets, c.rx_bytes, c.rx_packets
        ));
    }
    out
}

pub fn run(args: Args) -> Result<()> {
    let json_out = matches!(args.output, OutputArg::Json);
    let text = match args.command {
        LabCommand::Up { profile, id } => {
            let p = LabProfile::parse(&profile).map_err(net)?;
            lab::LabNames::new(&id).map_err(net)?;
            lab::available().map_err(|e| {
                bad(format!("{e}; `wirebench http/tcp --rate ...` use the userspace link emulator without root"))
            })?;
            let l = Lab::up(&id, &p).map_err(net)?;
            let warnings = p.warnings();
            let st = l.status().map_err(net)?;
            let _names = l.persist();
            if json_out {
                serde_json::to_string_pretty(&json!({"up": status_json(&st), "profile": p, "warnings": warnings}))?
                    + "\n"
            } else {
                let mut t = format!("lab {id} is up: {}\n", describe(&p));
                for w in warnings {
                    t.push_str(&format!("warning: {w}\n"));
                }
                t.push_str(&status_text(&st));
                t.push_str(&format!(
                    "run programs in it with `ip netns exec {} …` (A, 10.250.0.1) and `ip netns exec {} …` (B, 10.250.0.2); \
                     remove it with `wirebench lab down --id {id}`\n",
                    st.names.ns_a, st.names.ns_b
                ));
                t
            }
        }
        LabCommand::Apply { profile, id } => {
            let p = LabProfile::parse(&profile).map_err(net)?;
            lab::check_privileges().map_err(net)?;
            // Re-attach to the running lab by name: shape it like `up` does, keep it up.
            let st = lab::status(&id).map_err(net)?;
            let mut l = reattach(&st)?;
            let r = l.apply(&p).map_err(net);
            let _ = l.persist();
            r?;
            let st = lab::status(&id).map_err(net)?;
            if json_out {
                serde_json::to_string_pretty(&json!({"applied": p, "status": status_json(&st)}))? + "\n"
            } else {
                format!("lab {id}: {}\n{}", describe(&p), status_text(&st))
            }
        }
        LabCommand::Down { id, all } => {
            let removed: Vec<String> = if all {
                lab::down_all().map_err(net)?
            } else if lab::down(&id).map_err(net)? {
                vec![id.clone()]
            } else {
                return Err(bad(format!("lab {id:?} is not up (labs up: {})", list_or_none()?)));
            };
            if json_out {
                serde_json::to_string_pretty(&json!({"removed": removed}))? + "\n"
            } else if removed.is_empty() {
                "no lab was up\n".into()
            } else {
                format!("removed: {}\n", removed.join(", "))
            }
        }
        LabCommand::Status { id } => {
            let ids = match id {
                Some(i) => vec![i],
                None => lab::list().map_err(net)?,
            };
            let sts: Vec<LabStatus> = ids.iter().map(|i| lab::status(i).map_err(net)).collect::<Result<_>>()?;
            if json_out {
                serde_json::to_string_pretty(&json!({"labs": sts}))? + "\n"
            } else if sts.is_empty() {
                "no lab is up\n".into()
            } else {
                sts.iter().map(status_text).collect::<Vec<_>>().join("\n")
            }
        }
    };
    write_stdout(text.as_bytes())
}

fn list_or_none() -> Result<String> {
    let l = lab::list().map_err(net)?;
    Ok(if l.is_empty() { "none".into() } else { l.join(", ") })
}

/// A guard for a lab another process made (only to re-shape it; persisted again after).
fn reattach(st: &LabStatus) -> Result<Lab> {
    Lab::attach(&st.names.id).map_err(net)
}
