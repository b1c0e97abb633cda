#!/usr/bin/env bash
# Regenerates the fuzz targets' seed corpora (fuzz/seeds/<target>/) from the built-in corpora
# and the shared vectors (crates/wirebench-codecs/examples/fuzz_seeds.rs). The seeds are kept
# in the repository; run this after a codec or a corpus changes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rm -rf "$root/fuzz/seeds"
cargo run --locked -q -p wirebench-codecs --example fuzz_seeds -- "$root"
