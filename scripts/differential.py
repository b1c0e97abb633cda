#!/usr/bin/env python3
"""Cross-language differential test of the PSON codecs: Rust (wirebench CLI), C (pson_tool)
and Python (wirebench_device.pson).

For N random values (seeded; the seed is printed, rerun with --seed):
  - Python encodes the value;
  - Rust and C decode those bytes, Python decodes them too: all three must give the same value;
  - Rust encodes the value's JSON and C re-encodes Python's bytes: both must equal Python's bytes.
For N random byte strings, the three decoders must agree on success/failure, and on errors,
the error offset (the kind names are compared between C and Python, which print them).

usage: scripts/differential.py --wirebench PATH --pson-tool PATH [--count N] [--seed S]
"""

import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from wirebench_device import pson  # noqa: E402


def rand_float(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.uniform(-1e6, 1e6)
    if kind == 1:
        return rng.randrange(-1000, 1000) / 8.0 + 0.5
    if kind == 2:
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    if kind == 3:
        return struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
    if kind == 4:
        return rng.choice([0.1, 2.3, 1.03, 48.75, 1e300, -1e-300, 3.4e38])
    return float(rng.randrange(-(2 ** 53), 2 ** 53))


def rand_str(rng):
    alphabet = "abcxyz019 _-\"\\/\n\té€\U0001F600\x00"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))


def rand_value(rng, depth=0):
    k = rng.randrange(10 if depth < 4 else 7)
    if k == 0:
        return None
    if k == 1:
        return rng.random() < 0.5
    if k == 2:
        return rng.choice([0, 1, 30, 31, 127, 128, 2 ** 63 - 1, 2 ** 64 - 1, -1, -31, -32, -(2 ** 63)])
    if k == 3:
        return rng.randrange(-(2 ** 63), 2 ** 64)
    if k == 4:
        f = rand_float(rng)
        return f if math.isfinite(f) else 0.5
    if k == 5:
        return rand_str(rng)
    if k == 6:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40)))
    if k == 7 or k == 8:
        n = rng.randrange(0, 6 if k == 7 else 40)
        return [rand_value(rng, depth + 1) for _ in range(n)]
    d = {}
    for _ in range(rng.randrange(0, 6)):
        d[rand_str(rng)[:10]] = rand_value(rng, depth + 1)
    return d


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr


def parse_json(text):
    return json.loads(text, parse_constant=lambda c: {"NaN": math.nan}[c])


def norm(v):
    """JSON-level value → comparable form (bytes marker kept; floats compared by value)."""
    if isinstance(v, dict):
        if list(v.keys()) == ["$bytes"]:
            return ("bytes", v["$bytes"])
        if list(v.keys()) == ["$f64"]:
            return ("f64", v["$f64"])
        if list(v.keys()) == ["$f32"]:
            # wirebench marks a float32 so it stays float32 on re-encode; compared by value.
            x = v["$f32"]
            return ("f64", x) if isinstance(x, str) else norm(x)
        return ("map", [(k, norm(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("arr", [norm(x) for x in v])
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return ("num", float(v)) if abs(v) > 2 ** 53 else ("num", v)
    return ("num", v if v != int(v) or abs(v) > 2 ** 53 else int(v))


def f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return None


def same(a, b):
    """Equal, where a float32 printed in its shortest float32 digits equals its exact value."""
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "num":
        x, y = a[1], b[1]
        if x == y:
            return True
        if isinstance(x, float) or isinstance(y, float):
            fx, fy = f32(float(x)), f32(float(y))
            return fx is not None and fx == fy and (fx == float(x) or fy == float(y))
        return False
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and a[0] in ("arr", "map"):
        if len(a[1]) != len(b[1]):
            return False
        if a[0] == "arr":
            return all(same(x, y) for x, y in zip(a[1], b[1]))
        return all(k1 == k2 and same(x, y) for (k1, x), (k2, y) in zip(a[1], b[1]))
    return a == b


def py_to_json(v):
    """The Python decoder's value as the project's JSON (markers for bytes)."""
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": v.hex()}
    if isinstance(v, pson.F32):
        return v.value
    if isinstance(v, dict):
        return {k: py_to_json(x) for k, x in v.items()}
    if isinstance(v, pson.Pairs):
        return {k: py_to_json(x) for k, x in v.items}
    if isinstance(v, list):
        return [py_to_json(x) for x in v]
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wirebench", required=True)
    ap.add_argument("--pson-tool", required=True)
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2 ** 32)
    rng = random.Random(seed)
    failures = []
    passed = 0

    def fail(msg):
        failures.append(msg)
        print("FAIL (seed %d): %s" % (seed, msg[:2000]), file=sys.stderr)

    for i in range(a.count):
        value = rand_value(rng)
        encoded = pson.dumps(value)
        hexs = encoded.hex()
        jtext = json.dumps(py_to_json(value))
        # Rust encode of the same value
        rc, out, err = run([a.wirebench, "encode", "-f", "pson"], jtext.encode())
        if rc != 0 or out != encoded:
            fail("value %d: rust encode %r differs from python %s (%s)" % (i, out.hex(), hexs, err.decode()[:200]))
            continue
        # C re-encode
        rc, out, _ = run([a.pson_tool, "reencode", "--exact", hexs])
        if rc != 0 or out.decode().strip() != hexs:
            fail("value %d: C reencode %r differs from %s" % (i, out.decode().strip(), hexs))
            continue
        # Three decoders agree
        rc, rust_out, err = run([a.wirebench, "decode", "-f", "pson"], encoded)
        rc2, c_out, _ = run([a.pson_tool, "decode", "--exact", hexs])
        if rc != 0 or rc2 != 0:
            fail("value %d: decode failed rust=%d c=%d %s" % (i, rc, rc2, err.decode()[:200]))
            continue
        r = norm(parse_json(rust_out))
        c = norm(parse_json(c_out))
        p = norm(py_to_json(pson.loads(encoded, pairs=True)))
        if not (same(r, c) and same(c, p)):
            fail("value %d (%s): decoders disagree\n rust %r\n c    %r\n py   %r" % (i, hexs, r, c, p))
            continue
        passed += 1

    # Random and mutated bytes: the decoders agree on success, failure and offset.
    for i in range(a.count):
        if rng.random() < 0.5:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 24)))
        else:
            data = bytearray(pson.dumps(rand_value(rng)))
            if data:
                data[rng.randrange(len(data))] = rng.getrandbits(8)
                data = bytes(data[: rng.randrange(len(data) + 1)])
            else:
                data = bytes(data)
        hexs = data.hex()
        rc, rust_out, rust_err = run([a.wirebench, "decode", "-f", "pson"], data)
        rc2, c_out, _ = run([a.pson_tool, "decode", "--exact", hexs or "-"] if hexs else [a.pson_tool, "decode", "--exact", ""])
        try:
            pv = pson.loads(data, pairs=True)
            py = ("ok", norm(py_to_json(pv)))
        except pson.PsonError as e:
            py = ("error", e.kind, e.offset)
        c_text = c_out.decode().strip()
        if c_text.startswith("error "):
            _, kind, off = c_text.split()
            cres = ("error", kind, int(off))
        else:
            cres = ("ok", norm(parse_json(c_text)))
        if rc == 0:
            rres = ("ok", norm(parse_json(rust_out)))
        else:
            msg = rust_err.decode()
            off = int(msg.rsplit("at byte ", 1)[1].split()[0]) if "at byte " in msg else None
            rres = ("error", off)
        if py[0] == "ok":
            agree = cres[0] == "ok" and rres[0] == "ok" and same(cres[1], py[1]) and same(rres[1], py[1])
        else:
            agree = cres == py and rres == ("error", py[2])
        if not agree:
            fail("bytes %s: rust %r, c %r, python %r" % (hexs, rres, cres, py))
            continue
        passed += 1

    print("differential (seed %d): %d passed, %d failed" % (seed, passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
