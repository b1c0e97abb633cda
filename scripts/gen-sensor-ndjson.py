#!/usr/bin/env python3
"""Write N MB of NDJSON sensor records (deterministic for a seed) for the streaming size test.

usage: scripts/gen-sensor-ndjson.py OUT.ndjson [MEGABYTES=100] [SEED=1]
"""
import json
import random
import sys

out, mb, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100, int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(seed)
target = mb * 1_000_000
written = 0
i = 0
with open(out, "w") as f:
    while written < target:
        rec = {
            "device": "node-%04d" % rng.randrange(5000),
            "seq": i,
            "ts": 1_700_000_000_000 + i * 250,
            "temp": round(rng.uniform(-20, 45), 2),
            "hum": round(rng.uniform(0, 100), 1),
            "press": round(rng.uniform(950, 1050), 2),
            "batt": rng.randrange(2800, 4200),
            "ok": rng.random() > 0.01,
            "pos": {"lat": round(rng.uniform(-90, 90), 6), "lon": round(rng.uniform(-180, 180), 6)},
            "samples": [rng.randrange(-500, 500) for _ in range(rng.randrange(1, 8))],
        }
        line = json.dumps(rec, separators=(",", ":")) + "\n"
        f.write(line)
        written += len(line)
        i += 1
print(f"{out}: {i} records, {written} bytes", file=sys.stderr)
