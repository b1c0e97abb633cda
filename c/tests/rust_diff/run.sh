#!/bin/sh
# run.sh BUILD_DIR UADP_VECTORS CDR_VECTORS - `make rust-diff`: the C codecs
# against the Rust crates (crates/uadp, crates/cdr) on the same inputs.
#   UADP: every vector and Rust fuzz-corpus seed, cut and mutated; uadp_tool
#         batch vs the Rust decoder + encoder, in 4 modes (exact or not,
#         skip_unknown or not): result, error kind, error offset, bytes
#         consumed and the re-encoded bytes must be identical.
#   CDR:  every vector of the CDR file (plus, when the cyclonedds Python
#         package is importable, every case of scripts/cdr_oracle.py), cut
#         and mutated; the generated type-driven C walker vs cdr::decode /
#         cdr::decode_key: ok/error, error kind and offset must be identical.
# Needs cargo; not part of `make check`. Exit status 1 on any difference.
# env: CC, PYTHON, CARGO
set -eu
here=$(cd "$(dirname "$0")" && pwd)
croot=$(cd "$here/../.." && pwd)
repo=$(cd "$croot/.." && pwd)
b=$1/rust-diff
uvec=$2
cvec=$3
py=${PYTHON:-python3}
cc=${CC:-cc}
cargo=${CARGO:-cargo}
mkdir -p "$b"
cat > "$b/Cargo.toml" <<TOML
[package]
name = "wb_c_rust_diff"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[[bin]]
name = "uadp_diff"
path = "$here/uadp_diff.rs"

[[bin]]
name = "cdr_diff"
path = "$here/cdr_diff.rs"

[dependencies]
uadp = { path = "$repo/crates/uadp" }
cdr = { path = "$repo/crates/cdr" }
TOML
CARGO_TARGET_DIR="$b/target" "$cargo" build -q --release --manifest-path "$b/Cargo.toml"
rust="$b/target/release"
status=0

# ---- UADP ----
"$py" "$here/corpus.py" uadp "$uvec" "$repo/crates/uadp/fuzz/corpus/decode" > "$b/uadp_corpus.txt"
for exact in "" "--exact"; do
    for skip in "" "--skip"; do
        cskip=""
        [ -n "$skip" ] && cskip="--skip-unknown"
        "$rust/uadp_diff" $exact $skip < "$b/uadp_corpus.txt" > "$b/uadp_rust.out"
        "$croot/build/uadp_tool" batch $exact $cskip --meta '-1:Float,String,Int16[]' < "$b/uadp_corpus.txt" > "$b/uadp_c.out"
        n=$(wc -l < "$b/uadp_corpus.txt")
        ok=$(grep -c '^ok' "$b/uadp_rust.out" || true)
        d=$(paste -d'|' "$b/uadp_corpus.txt" "$b/uadp_rust.out" "$b/uadp_c.out" | awk -F'|' '$2 != $3' | tee "$b/uadp_diff_${exact}${skip}.txt" | wc -l)
        echo "rust-diff uadp ${exact:-(prefix)} ${skip:-(no skip)}: $n inputs ($ok decode), $d differ"
        if [ "$d" != 0 ]; then
            head -5 "$b/uadp_diff_${exact}${skip}.txt"
            status=1
        fi
    done
done

# ---- CDR ----
run_cdr() { # VECTORS LABEL
    "$py" "$croot/tests/gen_cdr_vectors.py" "$1" "$b/cdr_vectors.h"
    "$cc" -std=c99 -O2 -I"$croot/include" -I"$b" -o "$b/cdr_walk_driver" "$croot/src/cdr.c" "$here/cdr_walk_driver.c"
    "$py" "$here/corpus.py" cdr "$1" "$b/cdr_types.txt" > "$b/cdr_corpus.txt"
    "$rust/cdr_diff" "$b/cdr_types.txt" < "$b/cdr_corpus.txt" > "$b/cdr_rust.out"
    "$b/cdr_walk_driver" < "$b/cdr_corpus.txt" > "$b/cdr_c.out"
    n=$(grep -vc skip "$b/cdr_c.out" || true)
    d=$(paste -d'|' "$b/cdr_corpus.txt" "$b/cdr_rust.out" "$b/cdr_c.out" | awk -F'|' '$3 != "skip" && $2 != $3' | tee "$b/cdr_diff_$2.txt" | wc -l)
    echo "rust-diff cdr ($2): $n inputs of types the C API covers, $d differ"
    if [ "$d" != 0 ]; then
        head -5 "$b/cdr_diff_$2.txt"
        status=1
    fi
}
run_cdr "$cvec" vectors
if "$py" -c 'import cyclonedds' >/dev/null 2>&1 && [ -f "$repo/scripts/cdr_oracle.py" ]; then
    "$py" "$repo/scripts/cdr_oracle.py" cases > "$b/oracle.jsonl"
    "$py" "$here/corpus.py" oracle "$b/oracle.jsonl" > "$b/oracle_vectors.json"
    run_cdr "$b/oracle_vectors.json" oracle
else
    echo "rust-diff cdr (oracle): skipped (pip install cyclonedds==11.0.1 for scripts/cdr_oracle.py)"
fi
exit $status
