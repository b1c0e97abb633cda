#!/usr/bin/env bash
# PSON against MessagePack on the dynamic path, per message shape (issue "fair and fast"):
# flat records, integer arrays, float arrays, nested maps, long strings; 200 messages each,
# both codecs interleaved in one speed run per shape. Prints msgpack time ÷ pson time per shape
# (above 1: PSON is faster) and the geometric mean.
#   scripts/pson-shapes.sh [ROUNDS]      (release build: cargo build --release -p wirebench)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
wb=${WIREBENCH:-$here/target/release/wirebench}
rounds=${1:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, random, sys
random.seed(3)
d = sys.argv[1]
shapes = {
    "flat": lambda i: {"id": i, "name": "sensor-%d" % i, "temp": round(random.uniform(-10, 40), 2), "hum": random.randint(0, 100), "ok": i % 3 == 0, "ts": 1700000000 + i},
    "int-arrays": lambda i: {"v": [random.randint(-100000, 100000) for _ in range(64)]},
    "float-arrays": lambda i: {"v": [random.uniform(-1000, 1000) for _ in range(64)]},
    "nested-maps": lambda i: {"a": {"b": {"c": {"d": i, "e": "x" * 5}, "f": [1, 2, {"g": True}]}, "h": {"i": 1.5, "j": None}}, "k": {"l": {"m": {"n": {"o": "deep"}}}}},
    "long-strings": lambda i: {"msg": "".join(random.choice("abcdefghij klmnop") for _ in range(2000)), "id": i},
}
for name, gen in shapes.items():
    with open(f"{d}/{name}.ndjson", "w") as f:
        for i in range(200):
            f.write(json.dumps(gen(i)) + "\n")
PY
printf '%-13s %10s %10s %10s %10s\n' shape "enc pson" "enc mpk" "enc ratio" "dec ratio"
for s in flat int-arrays float-arrays nested-maps long-strings; do
    "$wb" speed --samples "$dir/$s.ndjson" -f pson,msgpack --rounds "$rounds" -o csv 2>/dev/null > "$dir/$s.csv"
    python3 - "$s" "$dir/$s.csv" <<'PY'
import csv, sys
rows = {(r["codec"], r["op"]): float(r["median_ns"]) for r in csv.DictReader(open(sys.argv[2]))}
enc = rows[("msgpack", "encode")] / rows[("pson", "encode")]
dec = rows[("msgpack", "decode")] / rows[("pson", "decode")]
print(f"{sys.argv[1]:<13} {rows[('pson','encode')]:>8.0f}ns {rows[('msgpack','encode')]:>8.0f}ns {enc:>10.2f} {dec:>10.2f}")
open(sys.argv[2] + ".ratio", "w").write(f"{enc} {dec}\n")
PY
done
cat "$dir"/*.ratio | python3 -c '
import sys, math
r = [tuple(map(float, l.split())) for l in sys.stdin]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(f"geometric mean: encode {g([a for a, _ in r]):.2f}, decode {g([b for _, b in r]):.2f}; worst: encode {min(a for a, _ in r):.2f}, decode {min(b for _, b in r):.2f}")'
