//! What each optional part needs on the machine (`data/setup.toml`, compiled in), what of it is
//! here, and the commands that install the rest: `wirebench setup`, the device lab's "missing"
//! rows and the test script read the same list.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Deserialize;

/// The list as shipped (scripts/setup-packages.py reads the same file).
pub const SETUP_TOML: &str = include_str!("../data/setup.toml");

/// The requirements files `pip = "requirements:PATH"` names, compiled in.
const REQUIREMENTS: &[(&str, &str)] =
    &[("c/lab/arm/requirements.txt", include_str!("../../../c/lab/arm/requirements.txt"))];

/// One optional part and what it needs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartNeeds {
    pub about: String,
    #[serde(default)]
    pub need: Vec<Need>,
    /// Another part whose needs these are.
    #[serde(default)]
    pub same_as: Option<String>,
    /// Cyclone-style build-time needs: wirebench must be rebuilt once they are installed.
    #[serde(default)]
    pub rebuild: bool,
    /// The part only runs as root.
    #[serde(default)]
    pub root: bool,
    /// Needed by the test suite only (not a part of wirebench).
    #[serde(default)]
    pub test_only: bool,
}

/// One thing a part needs, how to check it and what brings it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Need {
    #[serde(default)]
    pub program: Option<String>,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub dpkg: Option<String>,
    #[serde(default)]
    pub python: Option<String>,
    /// Debian package names, separated by spaces.
    #[serde(default)]
    pub debian: Option<String>,
    /// A pip requirement, or `requirements:PATH` for a compiled-in requirements file.
    #[serde(default)]
    pub pip: Option<String>,
    /// What works without it (a missing optional need does not make the part missing).
    #[serde(default)]
    pub optional: Option<String>,
}

impl Need {
    /// What is checked, as a person reads it (`avr-gcc`, `/usr/include/...`, `python3 -c 'import unicorn'`).
    pub fn what(&self) -> String {
        if let Some(p) = &self.program {
            p.split('|').next().unwrap_or(p).to_string()
        } else if let Some(f) = &self.file {
            f.split('|').next().unwrap_or(f).to_string()
        } else if let Some(d) = &self.dpkg {
            format!("the Debian package {d}")
        } else if let Some(m) = &self.python {
            format!("the Python module {m}")
        } else {
            "?".into()
        }
    }

    /// Whether it is here.
    pub fn present(&self) -> bool {
        if let Some(p) = &self.program {
            return p.split('|').any(|p| crate::programs::which(p).is_some());
        }
        if let Some(f) = &self.file {
            return f.split('|').any(|f| Path::new(f).exists());
        }
        if let Some(d) = &self.dpkg {
            return Command::new("dpkg-query")
                .args(["-W", "-f", "${Status}", d])
                .stderr(Stdio::null())
                .output()
                .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
                .unwrap_or(false);
        }
        if let Some(m) = &self.python {
            return Command::new("python3")
                .args(["-c", &format!("import {m}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
        }
        false
    }
}

/// The parts by name, as the compiled-in list has them.
pub fn parts() -> BTreeMap<String, PartNeeds> {
    toml::from_str(SETUP_TOML).expect("data/setup.toml is checked by a test")
}

/// The needs of `part`, following `same_as`.
pub fn needs_of(all: &BTreeMap<String, PartNeeds>, part: &str) -> Vec<Need> {
    match all.get(part) {
        Some(p) => match &p.same_as {
            Some(other) if other != part => needs_of(all, other),
            _ => p.need.clone(),
        },
        None => Vec::new(),
    }
}

/// What of one part is here and what is missing.
#[derive(Clone, Debug)]
pub struct Status {
    pub part: String,
    pub about: String,
    pub present: Vec<Need>,
    pub missing: Vec<Need>,
    pub rebuild: bool,
    pub root: bool,
}

impl Status {
    /// Nothing required is missing (optional needs may be).
    pub fn ready(&self) -> bool {
        self.missing.iter().all(|n| n.optional.is_some())
    }

    /// The Debian packages that bring what is missing, each once, in order.
    pub fn debian(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in &self.missing {
            for p in n.debian.iter().flat_map(|d| d.split_whitespace()) {
                if !out.iter().any(|o| o == p) {
                    out.push(p.to_string());
                }
            }
        }
        out
    }

    /// The pip requirements that bring what is missing (`requirements:PATH` kept as it is).
    pub fn pip(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in &self.missing {
            if let Some(p) = &n.pip {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }
}

/// Check each named part (`all`: every part but the test suite's).
pub fn check(names: &[String]) -> Result<Vec<Status>, String> {
    let all = parts();
    let wanted: Vec<String> = if names.is_empty() || names.iter().any(|n| n == "all") {
        all.iter().filter(|(_, p)| !p.test_only).map(|(n, _)| n.clone()).collect()
    } else {
        names.to_vec()
    };
    let known: Vec<&str> = all.keys().map(String::as_str).collect();
    let mut out = Vec::new();
    for name in &wanted {
        let Some(p) = all.get(name) else {
            return Err(wirebench_core::names::unknown("part", name, &known));
        };
        let (mut present, mut missing) = (Vec::new(), Vec::new());
        for n in needs_of(&all, name) {
            if n.present() {
                present.push(n);
            } else {
                missing.push(n);
            }
        }
        out.push(Status {
            part: name.clone(),
            about: p.about.clone(),
            present,
            missing,
            rebuild: p.rebuild,
            root: p.root,
        });
    }
    Ok(out)
}

/// The shell commands that install what `statuses` miss (one apt-get, one pip per requirement),
/// as root would type them. A compiled-in requirements file is written to `req_dir` first.
pub fn install_commands(statuses: &[Status], req_dir: &Path) -> Result<Vec<Vec<String>>, String> {
    let mut debian: Vec<String> = Vec::new();
    let mut pip: Vec<String> = Vec::new();
    for s in statuses {
        for d in s.debian() {
            if !debian.contains(&d) {
                debian.push(d);
            }
        }
        for p in s.pip() {
            if !pip.contains(&p) {
                pip.push(p);
            }
        }
    }
    let mut cmds = Vec::new();
    if !debian.is_empty() {
        cmds.push(vec!["apt-get".into(), "update".into(), "-qq".into()]);
        let mut c: Vec<String> =
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends"].map(String::from).to_vec();
        c.extend(debian);
        cmds.push(c);
    }
    for p in pip {
        let mut c: Vec<String> = ["python3", "-m", "pip", "install", "--quiet"].map(String::from).to_vec();
        match p.strip_prefix("requirements:") {
            Some(path) => {
                let (_, text) = REQUIREMENTS
                    .iter()
                    .find(|(p, _)| *p == path)
                    .ok_or_else(|| format!("data/setup.toml names {path}, which is not compiled in"))?;
                let file = req_dir.join(path.replace('/', "_"));
                std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
                c.push("-r".into());
                c.push(file.display().to_string());
            }
            None => c.push(p),
        }
        cmds.push(c);
    }
    Ok(cmds)
}

/// Run one install command; a pip that refuses a system Python (PEP 668) is asked again with
/// `--break-system-packages`, as the test script does.
pub fn run_install(cmd: &[String]) -> Result<(), String> {
    let run = |args: &[String]| -> Result<bool, String> {
        let mut c = Command::new(&args[0]);
        c.args(&args[1..]);
        if args[0] == "apt-get" {
            c.env("DEBIAN_FRONTEND", "noninteractive");
        }
        c.status().map(|s| s.success()).map_err(|e| format!("cannot run {}: {e}", args[0]))
    };
    if run(cmd)? {
        return Ok(());
    }
    if cmd.first().map(String::as_str) == Some("python3") {
        let mut again = cmd.to_vec();
        again.push("--break-system-packages".into());
        if run(&again)? {
            return Ok(());
        }
    }
    Err(format!("`{}` failed", cmd.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_parses_and_every_need_has_one_check_and_a_source() {
        let all = parts();
        for name in
            ["device", "energy", "dds", "mosquitto", "lab", "wrk", "valgrind", "micropython", "codec-sizes", "tests"]
        {
            assert!(all.contains_key(name), "{name}");
        }
        for (name, p) in &all {
            for n in needs_of(&all, name) {
                let checks = [&n.program, &n.file, &n.dpkg, &n.python].iter().filter(|c| c.is_some()).count();
                assert_eq!(checks, 1, "{name}: {n:?}");
                assert!(n.debian.is_some() || n.pip.is_some(), "{name}: {n:?}");
                if let Some(r) = n.pip.as_deref().and_then(|p| p.strip_prefix("requirements:")) {
                    assert!(REQUIREMENTS.iter().any(|(p, _)| *p == r), "{r}");
                }
            }
            if let Some(o) = &p.same_as {
                assert!(all.contains_key(o), "{name}: same_as {o}");
            }
        }
        assert_eq!(needs_of(&all, "energy").len(), needs_of(&all, "device").len());
    }

    #[test]
    fn missing_needs_become_one_apt_get_and_the_pip_lines() {
        let need = |program: &str, debian: Option<&str>, pip: Option<&str>| Need {
            program: Some(program.into()),
            file: None,
            dpkg: None,
            python: None,
            debian: debian.map(String::from),
            pip: pip.map(String::from),
            optional: None,
        };
        let s = Status {
            part: "x".into(),
            about: String::new(),
            present: vec![],
            missing: vec![
                need("a", Some("gcc-avr avr-libc"), None),
                need("b", Some("avr-libc binutils-avr"), None),
                need("c", None, Some("requirements:c/lab/arm/requirements.txt")),
            ],
            rebuild: false,
            root: false,
        };
        assert!(!s.ready());
        let dir = tempfile::tempdir().unwrap();
        let cmds = install_commands(&[s], dir.path()).unwrap();
        assert_eq!(cmds[0].join(" "), "apt-get update -qq");
        assert!(cmds[1].join(" ").ends_with("--no-install-recommends gcc-avr avr-libc binutils-avr"), "{:?}", cmds[1]);
        assert_eq!(cmds[2][..6].join(" "), "python3 -m pip install --quiet -r");
        let req = std::fs::read_to_string(&cmds[2][6]).unwrap();
        assert!(req.contains("unicorn=="), "{req}");
        // Something that is surely here, and something that surely is not.
        assert!(need("sh", None, None).present());
        assert!(!need("wirebench-no-such-program", None, None).present());
    }
}
