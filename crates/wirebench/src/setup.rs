//! `wirebench setup [PART...]`: what each optional part needs, what of it is here, and (with
//! `--install`, as root on Debian/Ubuntu) the packages that bring the rest. The list is
//! `wirebench_measure::setup` (data/setup.toml), the same one the test script installs from.

use anyhow::Result;
use wirebench_measure::setup::{self, Status};

use crate::common::{bad, CheckFailed};

#[derive(clap::Args)]
pub struct Args {
    /// The parts: device, energy, codec-sizes, dds, mosquitto, lab, wrk, valgrind, micropython,
    /// tests, or all (default: all but tests).
    parts: Vec<String>,
    /// Exit 1 when a part misses something it needs (after printing what).
    #[arg(long, conflicts_with = "install")]
    check: bool,
    /// Install what is missing: Debian packages with apt-get and Python packages with pip (as
    /// root; otherwise the commands are printed for root to run).
    #[arg(long)]
    install: bool,
}

pub fn run(args: Args) -> Result<()> {
    let statuses = setup::check(&args.parts).map_err(bad)?;
    print!("{}", render(&statuses));
    let missing: Vec<&Status> = statuses.iter().filter(|s| !s.missing.is_empty()).collect();
    if missing.is_empty() {
        println!("everything the parts need is here");
        return Ok(());
    }
    let dir = tempfile_dir()?;
    let owned: Vec<Status> = missing.iter().map(|s| (*s).clone()).collect();
    let cmds = setup::install_commands(&owned, &dir).map_err(bad)?;
    let as_text = |c: &Vec<String>| c.join(" ");
    if args.install {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            println!("not root: nothing installed; as root, run:");
            for c in &cmds {
                println!("  {}", as_text(c));
            }
            return Ok(());
        }
        for c in &cmds {
            eprintln!("setup: {}", as_text(c));
            setup::run_install(c).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        let after = setup::check(&args.parts).map_err(bad)?;
        let still: Vec<String> = after.iter().filter(|s| !s.ready()).map(|s| s.part.clone()).collect();
        if !still.is_empty() {
            print!("{}", render(&after));
            return Err(anyhow::anyhow!("still missing after the install: {}", still.join(", ")));
        }
        println!("installed; every part asked for is ready");
        if after.iter().any(|s| s.rebuild) {
            println!("dds needs wirebench rebuilt now that Cyclone DDS is here (cargo build --release -p wirebench)");
        }
        return Ok(());
    }
    println!("to install what is missing (as root; or `wirebench setup --install {}`):", args.parts.join(" "));
    for c in &cmds {
        println!("  {}", as_text(c));
    }
    if args.check {
        let names: Vec<&str> = missing.iter().filter(|s| !s.ready()).map(|s| s.part.as_str()).collect();
        if !names.is_empty() {
            return Err(anyhow::Error::new(CheckFailed(
                1,
                format!("missing what these parts need: {}", names.join(", ")),
            )));
        }
    }
    Ok(())
}

/// A folder for the compiled-in requirements files pip reads.
fn tempfile_dir() -> Result<std::path::PathBuf> {
    let d = std::env::temp_dir().join(format!("wirebench-setup-{}", std::process::id()));
    std::fs::create_dir_all(&d).map_err(|e| anyhow::anyhow!("{}: {e}", d.display()))?;
    Ok(d)
}

/// One line per part (ready or what it misses), each need named once.
pub fn render(statuses: &[Status]) -> String {
    let mut s = String::new();
    let width = statuses.iter().map(|x| x.part.len()).max().unwrap_or(0);
    for st in statuses {
        let state = if st.missing.is_empty() {
            "ready".to_string()
        } else if st.ready() {
            let opt: Vec<String> = st.missing.iter().map(|n| n.what()).collect();
            format!("ready (without {})", opt.join(", "))
        } else {
            let miss: Vec<String> = st.missing.iter().filter(|n| n.optional.is_none()).map(|n| n.what()).collect();
            format!("missing {}", miss.join(", "))
        };
        let root = if st.root { " (runs as root)" } else { "" };
        s.push_str(&format!("{:width$}  {state}{root}\n", st.part));
        s.push_str(&format!("{:width$}  {}\n", "", st.about));
    }
    s
}
