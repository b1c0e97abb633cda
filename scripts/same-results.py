#!/usr/bin/env python3
"""Check that two results files of the same study agree on everything a change of the spine
(study reader, part registry, reports) could alter, apart from provenance and timings:

- the study as it was read and run (`config.definition`, `config.scale`, `config.samples`);
- which sections there are, and the parts that did not finish;
- the deterministic sections, value for value: `size` (without its run statistics), `link`,
  and the device lab's rows (cycles, instructions, flash, RAM, stack, bytes);
- the shape of every other section: the same keys, recursively, and the same list lengths
  where a list holds one entry per case (rows, runs, cases, sizes); in the sections of timed
  runs a key only one side has is a note (a short run may leave a figure out), not a failure.

usage: scripts/same-results.py OLD.json NEW.json   (exit 0: the same; 1: a difference, listed)
"""

import json
import sys

# Sections whose every key is there whatever the timings.
DETERMINISTIC = {"size", "link", "device", "energy", "failed_parts"}

# Lists whose length is one entry per case: the same study gives the same number.
CASE_LISTS = {"rows", "runs", "cases", "sizes", "aggregates", "throughput", "rtt", "bench"}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def shape(a, b, where, out):
    """Same keys recursively; same lengths for the lists of cases."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}.{k}: only in {'new' if k not in a else 'old'}")
            else:
                shape(a[k], b[k], f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        name = where.rsplit(".", 1)[-1]
        if name in CASE_LISTS and len(a) != len(b):
            out.append(f"{where}: {len(a)} entries, then {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            shape(x, y, f"{where}[{i}]", out)


def equal(a, b, where, out):
    if a != b:
        out.append(f"{where}: differs:\n  old {json.dumps(a)[:300]}\n  new {json.dumps(b)[:300]}")


def device_rows(r):
    lab = (r.get("device") or {}).get("lab") or {}
    keep = ("target", "library", "payload", "op", "cycles", "instructions", "flash", "ram", "stack", "bytes")
    return [{k: v for k, v in row.items() if any(k.startswith(p) for p in keep)} for row in lab.get("rows", [])]


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    old, new = load(sys.argv[1]), load(sys.argv[2])
    out = []
    for k in ("definition", "scale", "samples"):
        equal(old["config"].get(k), new["config"].get(k), f"config.{k}", out)
    meta = {"schema", "provenance", "config"}
    equal(sorted(set(old) - meta), sorted(set(new) - meta), "sections", out)
    equal(old.get("failed_parts"), new.get("failed_parts"), "failed_parts", out)
    if "size" in old and "size" in new:
        strip = lambda s: {k: v for k, v in s.items() if k != "run"}
        equal(strip(old["size"]), strip(new["size"]), "size", out)
    if "link" in old and "link" in new:
        equal(old["link"], new["link"], "link", out)
    equal(device_rows(old), device_rows(new), "device.lab.rows", out)
    notes = []
    for k in sorted((set(old) & set(new)) - meta):
        # Sections of timed runs may leave out a figure a short run could not give.
        shape(old[k], new[k], k, out if k in DETERMINISTIC else notes)
    for line in out:
        print(line)
    for line in notes:
        print(f"note (a timed section): {line}")
    sections = sorted(set(new) - meta - {"failed_parts"})
    print(f"{'same' if not out else f'{len(out)} difference(s)'}: {sys.argv[1]} vs {sys.argv[2]} ({', '.join(sections)})")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
