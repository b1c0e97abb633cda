//! Print airtime and messages/day for a few payload sizes on every radio profile, including the
//! EV telemetry message of seed 003 as compact JSON and as Protobuf.
//!
//! `cargo run -p wirebench-net --example airtime`

use wirebench_codecs::find;
use wirebench_measure::ev::{ev_schema, ev_telemetry};
use wirebench_net::airtime::{airtime, Radio, RADIO_NAMES};

fn main() {
    let ev = ev_telemetry();
    let mut json = Vec::new();
    find("json").unwrap().encode(&ev, None, &mut json).unwrap();
    let mut pb = Vec::new();
    find("protobuf").unwrap().encode(&ev, Some(&ev_schema()), &mut pb).unwrap();
    let sizes = [
        (0, "0 B".to_string()),
        (12, "12 B".into()),
        (51, "51 B".into()),
        (115, "115 B".into()),
        (222, "222 B".into()),
        (pb.len(), format!("EV protobuf {} B", pb.len())),
        (json.len(), format!("EV JSON {} B", json.len())),
    ];
    println!("| link | payload | frames | bytes on air | airtime ms | msgs/day | fair use/day | fits |");
    println!("|---|---|---|---|---|---|---|---|");
    for name in RADIO_NAMES {
        let r = Radio::parse(name).unwrap();
        for (n, label) in &sizes {
            let a = airtime(&r, *n);
            println!(
                "| {name} | {label} | {} | {} | {:.1} | {:.0} | {} | {} |",
                a.frames,
                a.bytes_on_air,
                a.seconds * 1e3,
                a.msgs_per_day,
                a.msgs_per_day_fair_use.map_or("-".into(), |f| format!("{f:.0}")),
                if a.fits { "yes" } else { "no" }
            );
        }
    }
}
