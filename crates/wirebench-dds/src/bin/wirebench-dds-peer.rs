//! The peer process for this crate's tests and for embedding: `wirebench-dds-peer '<PeerOpts JSON>'`
//! (the wirebench CLI uses its own hidden `wirebench dds peer` instead).
fn main() {
    let Some(json) = std::env::args().nth(1) else {
        eprintln!("usage: wirebench-dds-peer '<PeerOpts JSON>'");
        std::process::exit(2);
    };
    std::process::exit(wirebench_dds::peer::child_main(&json));
}
