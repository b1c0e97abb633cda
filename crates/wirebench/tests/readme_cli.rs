//! The README is true where a test can tell: every `wirebench …` command in its shell blocks
//! parses (clap accepts it: the same arguments with `--help` appended exit 0), every built-in
//! study its table names runs by that name, and the release binary's size is the one it states.

mod common;
use common::*;

const README: &str = include_str!("../../../README.md");

/// The `wirebench` invocations of the README's ```sh blocks, as argument lists (comments,
/// pipes, redirections, `;` and `&&` chains cut apart; `\` continuations joined).
fn readme_commands() -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    let mut start = 0;
    for (i, line) in README.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_sh = !in_sh && (t == "```sh" || t == "```bash" || t == "```console");
            continue;
        }
        if !in_sh {
            continue;
        }
        if pending.is_empty() {
            start = i + 1;
        }
        let code = match line.find(" #") {
            Some(p) => &line[..p],
            None => line,
        };
        if let Some(c) = code.trim_end().strip_suffix('\\') {
            pending.push_str(c);
            pending.push(' ');
            continue;
        }
        pending.push_str(code);
        let full = std::mem::take(&mut pending);
        for piece in full.split("&&").flat_map(|p| p.split(['|', ';'])) {
            let piece = piece.split(['>', '<']).next().unwrap_or("");
            let words: Vec<&str> = piece.split_whitespace().collect();
            // Skip `VAR=value` prefixes, `cargo run --release -p wirebench --` and `$`.
            let at = words.iter().position(|w| *w == "wirebench" || w.ends_with("/wirebench"));
            let Some(at) = at else { continue };
            if words[..at].iter().any(|w| !(w.contains('=') || *w == "$")) && !words[..at].starts_with(&["cargo"]) {
                continue;
            }
            if words[..at].starts_with(&["cargo"]) && words.get(at + 1) != Some(&"--") {
                continue;
            }
            let mut args: Vec<String> =
                words[at + 1..].iter().map(|w| w.trim_matches(['\'', '"']).to_string()).collect();
            if args.first().map(String::as_str) == Some("--") {
                args.remove(0);
            }
            out.push((start, args));
        }
    }
    out
}

#[test]
fn every_readme_command_parses() {
    let commands = readme_commands();
    assert!(commands.len() >= 20, "only {} wirebench commands found in the README", commands.len());
    for (line, args) in &commands {
        let mut with_help = args.clone();
        with_help.push("--help".into());
        let out = wb().args(&with_help).output().unwrap();
        assert!(
            out.status.success(),
            "README line {line}: `wirebench {}` does not parse: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_study_the_readme_names_is_built_in() {
    // An unknown study's error lists the built-in ones.
    let out = wb().args(["run", "no-such-study-here"]).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(listed.contains("built in: "), "{listed}");
    for line in README.lines().filter(|l| l.starts_with("| ") && l.contains("`wirebench run ")) {
        let name = line.split("`wirebench run ").nth(1).unwrap().split('`').next().unwrap().trim();
        if name.starts_with("--") {
            continue;
        }
        assert!(listed.contains(name), "README's study `{name}` is not built in: {listed}");
    }
}

/// "The release binary is about N MB": within 15 % of N for a release build.
#[test]
fn the_binary_is_the_size_the_readme_states() {
    let bin = bin();
    let release = bin.components().any(|c| c.as_os_str() == "release");
    let stated = README
        .lines()
        .find_map(|l| l.split("The release binary is about ").nth(1))
        .and_then(|rest| rest.split(" MB").next())
        .and_then(|n| n.trim().parse::<f64>().ok())
        .expect("the README states the binary's size as \"The release binary is about N MB\"");
    if !release {
        eprintln!("{}: not a release build, its size is not the README's", bin.display());
        return;
    }
    let mb = std::fs::metadata(&bin).unwrap().len() as f64 / 1e6;
    assert!((mb / stated - 1.0).abs() <= 0.15, "the release binary is {mb:.1} MB; the README says about {stated} MB");
}
