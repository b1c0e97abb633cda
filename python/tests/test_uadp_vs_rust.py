"""Cross-check of wirebench_device.uadp against the Rust codecs of the ``wirebench`` binary
(CPython only; skipped on MicroPython, and skipped with a message when no binary with the
uadp codecs is built).

The binary is $WIREBENCH_BIN, else target/debug/wirebench or target/release/wirebench
(the first that lists the ``uadp`` codec). Its uadp adapter writes one record as a
NetworkMessage with the smallest header options: UADPFlags 0x01 (no PublisherId, no
PayloadHeader), DataSetFlags1 0x01 (valid, Variant), one key frame whose fields are the
record's leaves in schema order (nested records flattened), each a Variant of the schema's
type (int8..uint64 -> SByte..UInt64, float32 -> Float, float64 -> Double, bool, string,
bytes, arrays of those; null -> the null Variant).

For a few records:
* ``wirebench encode -f uadp --schema S.json`` bytes decode with the Python decoder to
  exactly the expected message, and the Python encoder gives the same bytes;
* ``wirebench decode -f uadp`` reads the Python encoder's bytes back as the record;
* ``uadp-json`` / ``uadp-json-rev`` text (untyped / typed JSON) equals what
  ``uadp.to_json`` writes for the same message, and ``uadp.from_json`` reads it back.
"""

import os
import subprocess
import tempfile

from _testkit import CPYTHON, _skip  # also puts the package on sys.path

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from wirebench_device import jsonio, uadp  # noqa: E402
from wirebench_device.uadp import data_set_message, message, variant  # noqa: E402

_BIN = []  # cached: [path or None, reason]


def wirebench():
    """The wirebench binary with the uadp codecs, or skip (with the reason)."""
    if not CPYTHON:
        _skip("the Rust cross-check runs on CPython only")
    if not _BIN:
        env = os.environ.get("WIREBENCH_BIN")
        cands = [env] if env else [os.path.join(_REPO, "target", d, "wirebench") for d in ("debug", "release")]
        found, seen = None, []
        for c in cands:
            if not (c and os.path.isfile(c) and os.access(c, os.X_OK)):
                continue
            seen.append(c)
            try:
                p = subprocess.run([c, "codecs"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            except (OSError, subprocess.SubprocessError):
                continue
            if "\nuadp " in p.stdout.decode("utf-8", "replace"):
                found = c
                break
        if found:
            _BIN.extend([found, ""])
        elif seen:
            _BIN.extend([None, "%s has no uadp codec (built before it): rebuild with "
                               "`cargo build -p wirebench`, or set WIREBENCH_BIN" % ", ".join(seen)])
        else:
            _BIN.extend([None, "no wirebench binary (%s): build it with `cargo build -p wirebench`, "
                               "or set WIREBENCH_BIN" % ", ".join(c for c in cands if c)])
    if _BIN[0] is None:
        _skip(_BIN[1])
    return _BIN[0]


def run(args, data=None):
    p = subprocess.run([wirebench()] + args, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    assert p.returncode == 0, "wirebench %s: %s" % (" ".join(args), p.stderr.decode("utf-8", "replace"))
    return p.stdout


def _int(bits, signed):
    return {"type": "int", "bits": bits, "signed": signed}


SCHEMA = {
    "$schema": "wirebench-schema/1",
    "root": {"type": "record", "name": "Root", "fields": [
        {"name": "i8", "of": _int(8, True)},
        {"name": "u8", "of": _int(8, False)},
        {"name": "i16", "of": _int(16, True)},
        {"name": "u16", "of": _int(16, False)},
        {"name": "i32", "of": _int(32, True)},
        {"name": "u32", "of": _int(32, False)},
        {"name": "i64", "of": _int(64, True)},
        {"name": "u64", "of": _int(64, False)},
        {"name": "f32", "of": {"type": "float", "bits": 32}},
        {"name": "f64", "of": {"type": "float", "bits": 64}},
        {"name": "flag", "of": {"type": "bool"}},
        {"name": "name", "of": {"type": "string"}},
        {"name": "blob", "of": {"type": "bytes"}},
        {"name": "temps", "of": {"type": "array", "items": {"type": "float", "bits": 32}}},
        {"name": "ids", "of": {"type": "array", "items": _int(32, True)}},
        {"name": "gps", "of": {"type": "record", "name": "Gps", "fields": [
            {"name": "lat", "of": {"type": "float", "bits": 64}},
            {"name": "lon", "of": {"type": "float", "bits": 64}}]}},
        {"name": "note", "of": {"type": "string"}, "optional": True},
    ]},
}

# (name, schema type) of every leaf, in schema order
LEAVES = (("i8", "SByte"), ("u8", "Byte"), ("i16", "Int16"), ("u16", "UInt16"), ("i32", "Int32"),
          ("u32", "UInt32"), ("i64", "Int64"), ("u64", "UInt64"), ("f32", "Float"), ("f64", "Double"),
          ("flag", "Boolean"), ("name", "String"), ("blob", "ByteString"), ("temps", "Float[]"),
          ("ids", "Int32[]"), ("gps.lat", "Double"), ("gps.lon", "Double"), ("note", "String"))

RECORDS = [
    {"i8": -128, "u8": 255, "i16": -32768, "u16": 65535, "i32": -2147483648, "u32": 4294967295,
     "i64": -9223372036854775808, "u64": 18446744073709551615, "f32": 25.5, "f64": 0.1, "flag": True,
     "name": "h\u00e9llo \"w\u00f6rld\"\n", "blob": b"\x00\xff", "temps": [21.5, -3.25, 1013.25], "ids": [1, -2, 3],
     "gps": {"lat": 48.75, "lon": 2.3}, "note": None},
    {"i8": 0, "u8": 0, "i16": 0, "u16": 0, "i32": 0, "u32": 0, "i64": 0, "u64": 0, "f32": 0.0, "f64": -0.0,
     "flag": False, "name": "", "blob": b"", "temps": [], "ids": [], "gps": {"lat": 0.0, "lon": 1e300},
     "note": "x"},
    {"i8": 7, "u8": 42, "i16": 1000, "u16": 4711, "i32": 100000, "u32": 3000000000, "i64": 9007199254740993,
     "u64": 12345678901234567890, "f32": -40.0, "f64": 3.141592653589793, "flag": True, "name": "ESP32-Bench",
     "blob": bytes(range(20)), "temps": [60.5, 0.125], "ids": [-7, 0, 2147483647], "gps": {"lat": -33.5, "lon": 151.25},
     "note": "\U0001f600"},
]


def _leaf(record, path):
    v = record
    for k in path.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    return v


def expected_message(record):
    fields = []
    for path, ty in LEAVES:
        v = _leaf(record, path)
        if v is None:
            fields.append(variant(None, None))
        elif ty.endswith("[]"):
            fields.append(variant(ty[:-2], list(v), array=True))
        else:
            fields.append(variant(ty, v))
    return message([data_set_message(fields)])


def metadata():
    out = []
    for path, ty in LEAVES:
        out.append({"name": path, "type": ty[:-2] if ty.endswith("[]") else ty, "array": ty.endswith("[]")})
    return [{"data_set_writer_id": None, "fields": out}]


def _json_input(record):
    """The record as wirebench reads JSON: bytes as {"$bytes":"hex"}, floats with a '.'."""
    return jsonio.dump(record).encode("utf-8")


class _Files(object):
    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="uadp-vs-rust-")
        self.schema = os.path.join(self.dir, "schema.json")
        with open(self.schema, "w") as f:
            f.write(jsonio.dump(SCHEMA))
        return self

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def __exit__(self, *exc):
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


def test_rust_uadp_bytes_decode_in_python():
    wirebench()
    with _Files() as fs:
        for i, rec in enumerate(RECORDS):
            inp = fs.write("r%d.json" % i, _json_input(rec))
            data = run(["encode", "-f", "uadp", "--schema", fs.schema, inp])
            assert data[:1] == b"\x01", data[:4]  # UADPFlags: version 1, no options
            assert data[1:2] == b"\x01"  # DataSetFlags1: valid, Variant key frame
            m = uadp.decode(data)
            want = expected_message(rec)
            assert m == want, "record %d:\n  %r\n  %r" % (i, m, want)
            assert uadp.encode(m) == data
            assert uadp.encode(want) == data  # -0.0 and float bits too
            assert m["messages"][0]["fields"][8]["value"] == rec["f32"]


def _unmark_f32(v):
    """The value with every {"$f32": x} marker replaced by x."""
    if isinstance(v, dict):
        if len(v) == 1 and "$f32" in v:
            return v["$f32"]
        return dict((k, _unmark_f32(x)) for k, x in v.items())
    if isinstance(v, list):
        return [_unmark_f32(x) for x in v]
    return v


def test_python_uadp_bytes_decode_in_rust():
    wirebench()
    with _Files() as fs:
        for i, rec in enumerate(RECORDS):
            path = fs.write("m%d.uadp" % i, uadp.encode(expected_message(rec)))
            out = run(["decode", "-f", "uadp", "--schema", fs.schema, path]).decode("utf-8")
            # wirebench marks float32 values ({"$f32": x}) so they stay float32 on re-encode.
            assert '"f32":{"$f32":' in out, out
            got = _unmark_f32(jsonio.parse(out))
            want = dict((k, v) for k, v in rec.items() if v is not None)  # null optional -> absent
            assert jsonio.dump(got) == jsonio.dump(jsonio.parse(jsonio.dump(want))), "record %d: %s" % (i, out)


def test_rust_json_text_matches_python():
    wirebench()
    meta = metadata()
    with _Files() as fs:
        for i, rec in enumerate(RECORDS):
            inp = fs.write("r%d.json" % i, _json_input(rec))
            for codec, reversible in (("uadp-json", False), ("uadp-json-rev", True)):
                text = run(["encode", "-f", codec, "--schema", fs.schema, inp]).decode("utf-8")
                mine = uadp.to_json(expected_message(rec), reversible, message_id="1", metadata=meta,
                                    message_type=False)
                assert mine == text, "%s record %d:\n  rust   %s\n  python %s" % (codec, i, text, mine)
                back = uadp.from_json(text, meta)
                assert uadp.encode(back) == uadp.encode(expected_message(rec)), (codec, i)
