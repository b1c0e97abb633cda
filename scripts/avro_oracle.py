#!/usr/bin/env python3
"""Avro byte oracle: fastavro's `schemaless_writer` / `schemaless_reader`, for the Avro codec's
differential tests (crates/wirebench-codecs/tests/avro_oracle.rs, crates/wirebench/tests/schema_cli.rs).

  avro_oracle.py gen SCHEMA.avsc N SEED
      Generate N random records for the schema (every Avro type it uses, recursion included),
      write each with fastavro, read the bytes back with fastavro, and print one JSON line per
      record: {"input": the record as wirebench JSON (some null fields left out, some written as
      null), "expect": what a reader gives back (null fields left out), "hex": fastavro's bytes}.

  avro_oracle.py read SCHEMA.avsc  < hex lines
      Decode each line's bytes with fastavro and print the record as wirebench JSON (null fields
      left out), one line each.

wirebench JSON: bytes and fixed as {"$bytes": "hex"}, float as {"$f32": x}, decimal as a string
with `scale` decimals, enums by symbol, unions as the branch's value.

Exit status 3 (with a message on stderr) when fastavro is not importable: `pip install fastavro`.
"""

import json
import random
import struct
import sys
from datetime import datetime, timedelta, timezone
from decimal import Decimal

try:
    import fastavro
except Exception as e:  # pragma: no cover - depends on the machine
    print(f"avro_oracle.py: fastavro is not importable ({e}); pip install fastavro", file=sys.stderr)
    sys.exit(3)

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
PRIMS = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class Schema:
    def __init__(self, raw):
        self.named = {}
        self.collect(raw, None)
        self.raw = raw

    def full(self, name, ns):
        return name if "." in name or not ns else f"{ns}.{name}"

    def collect(self, s, ns):
        if isinstance(s, list):
            for b in s:
                self.collect(b, ns)
        elif isinstance(s, dict):
            t = s.get("type")
            if t in ("record", "error", "enum", "fixed"):
                ns2 = s.get("namespace", ns)
                full = self.full(s["name"], ns2)
                self.named[full] = (s, ns2 if "." not in s["name"] else s["name"].rsplit(".", 1)[0])
                if t in ("record", "error"):
                    for f in s["fields"]:
                        self.collect(f["type"], self.named[full][1])
            elif t == "array":
                self.collect(s["items"], ns)
            elif t == "map":
                self.collect(s["values"], ns)

    def lookup(self, name, ns):
        for cand in (self.full(name, ns), name):
            if cand in self.named:
                return self.named[cand]
        raise KeyError(name)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class Gen:
    def __init__(self, schema, rng):
        self.s = schema
        self.rng = rng

    def value(self, t, ns, depth):
        """A random (python value, wirebench JSON value) for type t."""
        r = self.rng
        if isinstance(t, list):
            # Deep in a recursion, take null where there is one.
            branches = [b for b in t if b != "null"] if depth < 4 and r.random() < 0.7 else t
            if depth >= 4 and "null" in t:
                branches = ["null"]
            return self.value(r.choice(branches), ns, depth)
        if isinstance(t, str) and t not in PRIMS:
            s, ns2 = self.s.lookup(t, ns)
            return self.value(s, ns2, depth)
        if isinstance(t, dict):
            kind = t["type"]
            logical = t.get("logicalType")
            if logical == "timestamp-millis" and kind == "long":
                n = r.randrange(-(2**41), 2**41)
                return n, n
            if logical == "decimal" and kind in ("bytes", "fixed"):
                scale = t.get("scale", 0)
                digits = r.randrange(1, t["precision"] + 1)
                n = r.randrange(-(10**digits) + 1, 10**digits)
                # fastavro writes one byte more than the shortest two's complement (what the Java
                # reference and apache-avro write, and wirebench) for -2^(8k-1): -128, -32768, ...
                if n < 0 and (-n) & (-n - 1) == 0 and (-n).bit_length() % 8 == 0:
                    n += 1
                d = Decimal(n).scaleb(-scale)
                return d, f"{d:.{scale}f}"
            if kind in ("record", "error"):
                ns2 = t.get("namespace", ns)
                py, js = {}, {}
                for f in t["fields"]:
                    pv, jv = self.value(f["type"], ns2, depth + 1)
                    py[f["name"]] = pv
                    js[f["name"]] = jv
                return py, js
            if kind == "enum":
                sym = r.choice(t["symbols"])
                return sym, sym
            if kind == "fixed":
                b = bytes(r.randrange(256) for _ in range(t["size"]))
                return b, {"$bytes": b.hex()}
            if kind == "array":
                items = [self.value(t["items"], ns, depth + 1) for _ in range(r.randrange(0, 5))]
                return [p for p, _ in items], [j for _, j in items]
            if kind == "map":
                py, js = {}, {}
                for i in range(r.randrange(0, 5)):
                    k = r.choice(["a", "b", "key", "ß", "k" + str(i)]) + str(i)
                    pv, jv = self.value(t["values"], ns, depth + 1)
                    py[k] = pv
                    js[k] = jv
                return py, js
            return self.value(kind, ns, depth)
        if t == "null":
            return None, None
        if t == "boolean":
            b = r.random() < 0.5
            return b, b
        if t == "int":
            n = r.choice([0, 1, -1, 63, -64, 64, 2**31 - 1, -(2**31), r.randrange(-(2**31), 2**31)])
            return n, n
        if t == "long":
            n = r.choice([0, -1, 2**63 - 1, -(2**63), r.randrange(-(2**63), 2**63), r.randrange(-1000, 1000)])
            return n, n
        if t == "float":
            x = f32(r.choice([0.0, -1.5, 3.25, r.uniform(-1e6, 1e6)]))
            return x, {"$f32": x}
        if t == "double":
            x = r.choice([0.5, -2.0, r.uniform(-1e300, 1e300), r.uniform(-1, 1)])
            return x, x
        if t == "bytes":
            b = bytes(r.randrange(256) for _ in range(r.randrange(0, 9)))
            return b, {"$bytes": b.hex()}
        if t == "string":
            s = "".join(r.choice("abcxyz é😀\"\\\n") for _ in range(r.randrange(0, 8)))
            return s, s
        raise ValueError(f"type {t!r}")


def to_wirebench(v, t, schema, ns):
    """fastavro's decoded value → wirebench JSON, following the schema."""
    if isinstance(t, list):
        # The branch of the value (fastavro returns the plain value).
        if v is None:
            return None
        for b in t:
            if b == "null":
                continue
            try:
                return to_wirebench(v, b, schema, ns)
            except (TypeError, ValueError, KeyError, AttributeError):
                continue
        raise ValueError(f"no branch for {v!r}")
    if isinstance(t, str) and t not in PRIMS:
        s, ns2 = schema.lookup(t, ns)
        return to_wirebench(v, s, schema, ns2)
    if isinstance(t, dict):
        kind = t["type"]
        logical = t.get("logicalType")
        if logical == "decimal":
            if not isinstance(v, Decimal):
                raise TypeError("not a decimal")
            return f"{v:.{t.get('scale', 0)}f}"
        if logical == "timestamp-millis":
            if isinstance(v, datetime):
                return (v - EPOCH) // timedelta(milliseconds=1)
            return v
        if kind in ("record", "error"):
            if not isinstance(v, dict) or set(v) != {f["name"] for f in t["fields"]}:
                raise TypeError("not this record")
            ns2 = t.get("namespace", ns)
            out = {}
            for f in t["fields"]:
                x = to_wirebench(v[f["name"]], f["type"], schema, ns2)
                if x is not None:
                    out[f["name"]] = x
            return out
        if kind == "enum":
            if v not in t["symbols"]:
                raise ValueError("not a symbol")
            return v
        if kind == "fixed":
            if not isinstance(v, bytes) or len(v) != t["size"]:
                raise TypeError("not fixed")
            return {"$bytes": v.hex()}
        if kind == "array":
            if not isinstance(v, list):
                raise TypeError("not a list")
            return [to_wirebench(x, t["items"], schema, ns) for x in v]
        if kind == "map":
            if not isinstance(v, dict):
                raise TypeError("not a map")
            return {k: to_wirebench(x, t["values"], schema, ns) for k, x in v.items()}
        return to_wirebench(v, kind, schema, ns)
    checks = {
        "null": lambda: v is None,
        "boolean": lambda: isinstance(v, bool),
        "int": lambda: isinstance(v, int) and not isinstance(v, bool),
        "long": lambda: isinstance(v, int) and not isinstance(v, bool),
        "float": lambda: isinstance(v, float),
        "double": lambda: isinstance(v, float),
        "bytes": lambda: isinstance(v, bytes),
        "string": lambda: isinstance(v, str),
    }
    if not checks[t]():
        raise TypeError(f"not {t}")
    if t == "float":
        return {"$f32": v}
    if t == "bytes":
        return {"$bytes": v.hex()}
    return v


def strip(js, rng):
    """Null record fields: some left out, some written as null (the input); all left out (expect)."""
    if isinstance(js, dict) and not (len(js) == 1 and next(iter(js)) in ("$bytes", "$f32")):
        inp, exp = {}, {}
        for k, v in js.items():
            if v is None:
                if rng.random() < 0.5:
                    inp[k] = None
                continue
            inp[k], exp[k] = strip(v, rng)
        return inp, exp
    if isinstance(js, list):
        pairs = [strip(x, rng) for x in js]
        return [p for p, _ in pairs], [e for _, e in pairs]
    return js, js


def main():
    mode, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    schema = Schema(raw)
    parsed = fastavro.parse_schema(raw)
    root = raw
    if mode == "gen":
        n, seed = int(sys.argv[3]), int(sys.argv[4])
        rng = random.Random(seed)
        g = Gen(schema, rng)
        import io
        for _ in range(n):
            py, js = g.value(root, None, 0)
            buf = io.BytesIO()
            fastavro.schemaless_writer(buf, parsed, py)
            data = buf.getvalue()
            back = fastavro.schemaless_reader(io.BytesIO(data), parsed)
            if to_wirebench(back, root, schema, None) != to_wirebench(py, root, schema, None):
                raise SystemExit(f"fastavro does not read its own bytes back: {py!r} -> {back!r}")
            inp, exp = strip(js, rng)
            print(json.dumps({"input": inp, "expect": exp, "hex": data.hex()}, ensure_ascii=False))
    elif mode == "read":
        import io
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            back = fastavro.schemaless_reader(io.BytesIO(bytes.fromhex(line)), parsed)
            print(json.dumps(to_wirebench(back, root, schema, None), ensure_ascii=False))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
