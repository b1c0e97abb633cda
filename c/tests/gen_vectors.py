#!/usr/bin/env python3
"""Turn vectors/pson.json into a C header of tables for c/tests/test_pson.c.

usage: gen_vectors.py IN.json OUT.h        (Python 3 standard library only)
       gen_vectors.py --seeds IN.json DIR  (write each vector's bytes to
                                            DIR/vec_<i>, a fuzz seed corpus)

Per vector the header holds: name, kind, the `hex` input bytes, `expect`,
`consumed`, `size`, and two flat event sequences (pre-order; a map is
MAP(pairs) followed by pairs of STR key event + value events; an array is
ARRAY(n) followed by n values):
  * json   - the `json` field (roundtrip: the value to encode),
  * dec    - `decoded_json` if present, else `json` (the expected decode).
The `json`/`decoded_json` fields hold JSON text (or, leniently, an inline
JSON value), read as the Rust vector test reads them with serde_json:
  * a number with '.', 'e' or written as -0 / -0.0 is a float; an integer
    outside [-2^63, 2^64) becomes a float too; other integers are integers;
  * {"$bytes":"hex"} is a bytes value, {"$f64":"NaN"|"Infinity"|"-Infinity"}
    a non-finite float; any other object is a map with keys in order (a
    duplicate key keeps its first position and takes the last value).
Problems with a vector (bad hex, unknown kind or marker, ...) do not stop the
generator: they are written as the vector's `gen_error` and the C test
reports that vector as failed.
"""
import json
import struct
import sys

EV = ["EV_NULL", "EV_BOOL", "EV_UINT", "EV_INT", "EV_F32", "EV_F64",
      "EV_STR", "EV_BYTES", "EV_MAP", "EV_ARRAY"]


class GenError(Exception):
    pass


class Obj(list):
    """A JSON object as an ordered list of (key, value) pairs."""


def pairs_hook(pairs):
    out = Obj()
    index = {}
    for k, v in pairs:
        if k in index:  # serde_json (preserve_order) insert: keep position
            out[index[k]] = (k, v)
        else:
            index[k] = len(out)
            out.append((k, v))
    return out


def parse_int(text):
    if text == "-0":  # serde_json reads -0 as the float -0.0
        return -0.0
    return int(text)


def loads(text):
    return json.loads(text, object_pairs_hook=pairs_hook, parse_int=parse_int)


def unhex(s):
    if not isinstance(s, str):
        raise GenError("hex is not a string")
    if len(s) % 2:
        raise GenError("odd-length hex %r" % s[:40])
    try:
        return bytes.fromhex(s)
    except ValueError as e:
        raise GenError("bad hex %r: %s" % (s[:40], e))


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def events(v, out):
    """Append the events of JSON value v to out as (type, u, data bytes)."""
    if v is None:
        out.append(("EV_NULL", 0, b""))
    elif isinstance(v, bool):
        out.append(("EV_BOOL", 1 if v else 0, b""))
    elif isinstance(v, int):
        if 0 <= v < 2 ** 64:
            out.append(("EV_UINT", v, b""))
        elif -(2 ** 63) <= v < 0:
            out.append(("EV_INT", v & (2 ** 64 - 1), b""))
        else:
            try:
                out.append(("EV_F64", f64_bits(float(v)), b""))
            except OverflowError:
                raise GenError("integer %d out of f64 range" % v)
    elif isinstance(v, float):
        out.append(("EV_F64", f64_bits(v), b""))
    elif isinstance(v, str):
        out.append(("EV_STR", 0, v.encode("utf-8", "surrogatepass")))
    elif isinstance(v, Obj):
        if len(v) == 1 and isinstance(v[0][1], str) and v[0][0] in ("$bytes", "$f64"):
            k, s = v[0]
            if k == "$bytes":
                out.append(("EV_BYTES", 0, unhex(s)))
                return
            special = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
            if s not in special:
                raise GenError("unknown $f64 marker %r" % s)
            out.append(("EV_F64", f64_bits(special[s]), b""))
            return
        out.append(("EV_MAP", len(v), b""))
        for k, x in v:
            out.append(("EV_STR", 0, k.encode("utf-8", "surrogatepass")))
            events(x, out)
    elif isinstance(v, list):
        out.append(("EV_ARRAY", len(v), b""))
        for x in v:
            events(x, out)
    else:
        raise GenError("unexpected JSON value %r" % (v,))


def json_field(entry, key):
    """None if absent/null; JSON text is parsed; other values used inline."""
    v = entry.get(key)
    if v is None:
        return None
    if isinstance(v, str):
        try:
            v = loads(v)
        except ValueError as e:
            raise GenError("%s: %s" % (key, e))
    ev = []
    events(v, ev)
    return ev


def c_string(s):
    out = []
    for b in s.encode("utf-8", "surrogatepass"):
        c = chr(b)
        if 0x20 <= b < 0x7F and c not in '"\\?':
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def c_bytes(name, data):
    lines = [",".join("0x%02x" % b for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    return "static const uint8_t %s[] = {\n%s\n};\n" % (name, ",\n".join(lines) or "0")


def write_seeds(src, outdir):
    import os
    with open(src, encoding="utf-8") as f:
        entries = json.load(f)
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for i, e in enumerate(entries if isinstance(entries, list) else []):
        try:
            data = unhex(e.get("hex") if isinstance(e, dict) else None)
        except GenError:
            continue
        with open(os.path.join(outdir, "vec_%d" % i), "wb") as f:
            f.write(data)
        n += 1
    print("gen_vectors.py: %d seed files in %s" % (n, outdir))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--seeds":
        write_seeds(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 3:
        sys.exit("usage: gen_vectors.py IN.json OUT.h | --seeds IN.json DIR")
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        entries = json.load(f, object_pairs_hook=pairs_hook, parse_int=parse_int)
    if not isinstance(entries, list):
        sys.exit("gen_vectors.py: %s is not a JSON list" % src)

    parts = ["/* Generated by c/tests/gen_vectors.py from %s - do not edit. */\n"
             % src.replace("*/", "*_/"),
             "static const uint8_t vec_empty_[1] = {0};\n"]
    rows = []
    for i, e in enumerate(entries):
        err = None
        e = dict(e) if isinstance(e, Obj) else {}
        name = e.get("name") if isinstance(e.get("name"), str) else "<unnamed>"
        kind = e.get("kind") if isinstance(e.get("kind"), str) else ""
        data, jev, dev = b"", [], []
        has_json = 0
        expect = -1
        consumed = -1
        size = -1
        try:
            data = unhex(e.get("hex"))
            j = json_field(e, "json")
            if kind == "roundtrip":
                if j is None:
                    raise GenError("missing json")
                d = json_field(e, "decoded_json")
                jev, dev = j, (d if d is not None else j)
                has_json = 1
            elif kind == "decode_only":
                ex = e.get("expect")
                if ex == "ok":
                    expect = 1
                elif ex == "error":
                    expect = 0
                elif ex is None:
                    expect = 1 if j is not None else 0
                else:
                    raise GenError("unknown expect %r" % (ex,))
                if j is not None:
                    jev = dev = j
                    has_json = 1
            else:
                raise GenError("unknown kind %r" % kind)
            c = e.get("consumed")
            if isinstance(c, int) and not isinstance(c, bool) and c >= 0:
                consumed = c
            s = e.get("size")
            if isinstance(s, int) and not isinstance(s, bool) and s >= 0:
                size = s
        except GenError as ge:
            err = str(ge)
        parts.append(c_bytes("vec_hex_%d" % i, data))
        for tag, evs in (("json", jev), ("dec", dev)):
            datas = []
            for k, (_, _, blob) in enumerate(evs):
                if blob:
                    nm = "vec_d_%d_%s_%d" % (i, tag, k)
                    parts.append(c_bytes(nm, blob))
                    datas.append(nm)
                else:
                    datas.append("vec_empty_")
            rows_ev = ["  {%s, UINT64_C(0x%x), %s, %d}," % (t, u, datas[k], len(blob))
                       for k, (t, u, blob) in enumerate(evs)]
            if not rows_ev:
                rows_ev = ["  {EV_NULL, 0, vec_empty_, 0},"]
            parts.append("static const ev_t vec_%s_%d[] = {\n%s\n};\n" % (tag, i, "\n".join(rows_ev)))
        rows.append("  {%s, %s, vec_hex_%d, %d, vec_json_%d, %d, vec_dec_%d, %d, %d, %d, %d, %d, %s},"
                    % (c_string(name), c_string(kind), i, len(data), i, len(jev), i, len(dev),
                       has_json, expect, consumed, size,
                       c_string(err) if err is not None else "NULL"))
    if not rows:
        rows = ['  {"<none>", "", vec_empty_, 0, NULL, 0, NULL, 0, 0, -1, -1, -1, "no vectors"},']
    parts.append("#define VEC_COUNT %d\n" % len(entries))
    parts.append("static const vector_t VECTORS[] = {\n%s\n};\n" % "\n".join(rows))
    with open(dst, "w", encoding="ascii") as f:
        f.write("".join(parts))


if __name__ == "__main__":
    main()
