//! `wirebench energy` as a user meets it: bad options (one line, exit code 2) and a run on a
//! results file whose `device.lab` section the test builds (no simulator runs here).

use serde_json::{json, Value};

mod common;
use common::*;

fn provenance() -> Value {
    serde_json::to_value(wirebench_core::results::Provenance::default()).unwrap()
}

/// A results file with a small device.lab section: two libraries on the Cortex-M0+ target,
/// one row that did not fit.
fn lab_results(dir: &std::path::Path) -> std::path::PathBuf {
    let row = |lib: &str, payload: &str, bytes: u64, cycles: u64| {
        json!({"target": "cortex-m0plus", "lib": lib, "payload": payload, "status": "ok", "bytes": bytes,
               "encode_cycles": cycles, "decode_cycles": cycles, "encode_instructions": null,
               "decode_instructions": null, "encode_us": null, "decode_us": null, "flash": null, "ram": null,
               "stack_encode": null, "stack_decode": null, "heap_encode": null, "heap_decode": null, "stack_floor": null})
    };
    let mut no_fit = row("cjson", "Test02", 0, 0);
    no_fit["status"] = json!("does not fit");
    no_fit["bytes"] = Value::Null;
    no_fit["encode_cycles"] = Value::Null;
    let results = json!({
        "schema": "wirebench-results/1",
        "provenance": provenance(),
        "config": {},
        "device": {"lab": {
            "targets": [{"name": "cortex-m0plus", "part": "SAMD21G18 48 MHz", "clock_hz": 48_000_000u64,
                         "toolchain": "t", "simulator": "s", "cycles": "modelled"}],
            "libs": [{"name": "pson", "format": "pson", "origin": "ours"}, {"name": "cjson", "format": "json", "origin": "Debian"}],
            "not_here": [],
            "rows": [row("pson", "Test01", 40, 3_000), row("cjson", "Test01", 52, 40_000), no_fit]
        }}
    });
    let p = dir.join("lab.json");
    std::fs::write(&p, serde_json::to_vec_pretty(&results).unwrap()).unwrap();
    p
}

#[test]
fn bad_options_are_one_line_and_exit_code_2() {
    let d = TempDir::new("energy-bad");
    let lab = lab_results(&d.0);
    let lab = lab.to_str().unwrap();
    expect_bad_args(&["energy", "--device-results", lab, "--mcu", "z80"], &["--mcu", "unknown MCU", "cortex-m0plus"]);
    expect_bad_args(&["energy", "--device-results", lab, "--radio", "wifi"], &["--radio", "unknown radio", "lora-sf9"]);
    expect_bad_args(&["energy", "--device-results", lab, "--every", "often"], &["--every", "10m"]);
    expect_bad_args(&["energy", "--device-results", lab, "--every", "0s"], &["--every"]);
    expect_bad_args(&["energy", "--device-results", lab, "--battery", "2400"], &["--battery", "2400mAh@3.6V"]);
    expect_bad_args(&["energy", "--device-results", lab, "--set", "sx1276.tx_ma"], &["--set", "part.figure=value"]);
    expect_bad_args(
        &["energy", "--device-results", lab, "--set", "warp.core=1"],
        &["--set warp.core", "no such figure"],
    );
    expect_bad_args(
        &["energy", "--device-results", lab, "--set", "sx1276.tx_ma=lots"],
        &["--set sx1276.tx_ma", "not a number"],
    );
    // Figures outside physical ranges: refused with the range, not turned into 0 µJ, ∞ or NaN %.
    for (opt, value, range) in [
        ("--every", "1e-320s", "1ms to 3650d"),
        ("--battery", "1e300mAh@1e300V", "0.001 to 10000000 mAh at 0.5 to 60 V"),
        ("--set", "samd21.active_at_hz=0", "1e3 to 1e10 Hz"),
        ("--set", "samd21.supply_v=0", "0.5 to 60 V"),
        ("--set", "sx1276.tx_ma=1e308", "0 to 10000 mA"),
    ] {
        expect_bad_args(&["energy", "--device-results", lab, opt, value], &[opt, "is outside", range]);
    }
    expect_bad_args(
        &["energy", "--device-results", "/nonexistent/r.json"],
        &["--device-results", "/nonexistent/r.json"],
    );
    expect_bad_args(&["energy", "--device-results", lab, "--energy-data", "/nonexistent/e.toml"], &["--energy-data"]);
    let bad_data = d.0.join("e.toml");
    std::fs::write(&bad_data, "[sx1276.tx_ma]\nvalue = 87\n").unwrap();
    expect_bad_args(
        &["energy", "--device-results", lab, "--energy-data", bad_data.to_str().unwrap()],
        &["--energy-data", "unit"],
    );
    // A results file without a device.lab section.
    let empty = d.0.join("empty.json");
    let no_lab = json!({"schema": "wirebench-results/1", "provenance": provenance(), "config": {}});
    std::fs::write(&empty, serde_json::to_vec(&no_lab).unwrap()).unwrap();
    expect_bad_args(&["energy", "--device-results", empty.to_str().unwrap()], &["no device.lab section"]);
}

#[test]
fn runs_on_a_results_file() {
    let d = TempDir::new("energy-run");
    let lab = lab_results(&d.0);
    let out = d.0.join("energy.json");
    let o = wb()
        .args(["energy", "--device-results", lab.to_str().unwrap(), "--mcu", "samd21", "--radio", "lora-sf9,ble"])
        .args(["--every", "10m", "--battery", "2400mAh@3.6V", "--set", "samd21.sleep_ua=4", "-o", "json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let s = &v["energy"];
    let rows = s["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "2 libraries × 2 radios: {rows:?}");
    assert_eq!(s["skipped"][0], "cortex-m0plus cjson Test02: does not fit");
    for r in rows {
        let total = r["cpu_uj"].as_f64().unwrap() + r["radio_uj"].as_f64().unwrap() + r["sleep_uj"].as_f64().unwrap();
        assert!((total - r["total_uj"].as_f64().unwrap()).abs() < 1e-6 * total);
        assert!(r["battery_days"].as_f64().unwrap() > 0.0);
        assert!(r.get("missing").is_none(), "{r}");
    }
    // The user's figure is recorded as such; every figure carries a source.
    for f in s["figures"].as_array().unwrap() {
        assert!(f["source"].as_str().unwrap().len() > 10, "{f}");
    }
    let sleep = s["figures"].as_array().unwrap().iter().find(|f| f["key"] == "samd21.sleep_ua").unwrap();
    assert_eq!(sleep["checked"], "user");
    // The more expensive encoder costs more CPU energy for the same radio.
    let cpu = |lib: &str| {
        rows.iter().find(|r| r["lib"] == lib && r["radio"] == "lora-sf9").unwrap()["cpu_uj"].as_f64().unwrap()
    };
    assert!(cpu("cjson") > cpu("pson"));

    // NB-IoT from the data file alone: every term has a figure (no upper bound), and the
    // connected time is 11 s at 11 mA and 3.8 V, plus the uplink at 143.22 mA.
    let o = wb()
        .args(["energy", "--device-results", lab.to_str().unwrap(), "--radio", "nb-iot", "-o", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["energy"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r.get("missing").is_none(), "{r}");
        let connected_uj = 11e-3 * 11.0 * 3.8 * 1e6;
        let uplink_uj = r["radio_uj"].as_f64().unwrap() - connected_uj;
        let airtime_s = uplink_uj / (143.22e-3 * 3.8 * 1e6);
        assert!(airtime_s > 0.0 && airtime_s < 2.0, "uplink {airtime_s} s in {r}");
    }
    // Markdown and CSV.
    let md = wb().args(["energy", "--device-results", lab.to_str().unwrap(), "-o", "md"]).output().unwrap();
    assert!(String::from_utf8_lossy(&md.stdout).starts_with("## Energy per message"));
    let csv = wb().args(["energy", "--device-results", lab.to_str().unwrap(), "-o", "csv"]).output().unwrap();
    assert!(String::from_utf8_lossy(&csv.stdout).starts_with("mcu,radio,lib"));
}

/// `energy --samples`: the device lab measures the user's messages (here our PSON on the
/// Cortex-M4) and the rows carry their names, encode cycles and a battery life.
#[test]
fn runs_the_lab_on_the_users_samples() {
    let dir = tmpdir("energy-samples");
    let samples = dir.join("r.ndjson");
    std::fs::write(&samples, "{\"temp\":21.5,\"id\":17}\n{\"temp\":21.75,\"id\":18}\n").unwrap();
    let out = wb()
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args([
            "energy",
            "--mcu",
            "cortex-m4",
            "--radio",
            "lora-sf9",
            "--libs",
            "pson",
            "--every",
            "10m",
            "-o",
            "json",
            "--samples",
        ])
        .arg(&samples)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = r["energy"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in rows {
        assert!(row["payload"].as_str().unwrap().starts_with("r.ndjson:"), "{row}");
        assert!(row["encode_cycles"].as_u64().unwrap() > 100, "{row}");
        assert!(row["battery_days"].as_f64().unwrap() > 0.0, "{row}");
    }
    assert!(r["energy"]["lab_source"].as_str().unwrap().contains("r.ndjson"));
    expect_bad_input(wb().args(["energy", "--samples", "/nonexistent.ndjson"]), &["/nonexistent.ndjson"]);
    let _ = std::fs::remove_dir_all(&dir);
}
