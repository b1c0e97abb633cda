"""MicroPython cost of the device codecs, as seed 000 (the ESP32/MicroPython OPC UA PubSub
thesis) reports it: bytecode size of each module, and heap allocated per encode/decode of the
seed's messages. Prints one JSON document.

Run under MicroPython's unix port (python/cost.sh builds the interpreters and mpy-cross and
runs this for each float width):

    micropython -X heapsize=8M python/cost.py [--mpy DIR]

--mpy DIR   a folder with the modules compiled by mpy-cross (wirebench_device/*.mpy): their
            sizes are reported and the codecs are imported from them, as a board loads them;
            without it the .py sources are imported and no bytecode size is reported.

Heap per operation: the operation runs once (warm-up), then gc.collect(), the collector is
disabled, and gc.mem_alloc() is read before and after one more run: "allocated" is every byte
the operation took from the heap (garbage included, in the port's GC blocks), "retained" what
is still allocated after a collection with the result alive. The messages are the study's
(crates/wirebench-mqtt/src/opcua.rs): UADP in the thesis's layout (39 + 5N bytes) and the JSON
NetworkMessage in the thesis's shape (non-reversible DataValues with SourceTimestamp), N = 1, 3,
5, 10 fields; the same N values as one PSON map for comparison.
"""

import gc
import sys

try:
    from collections import OrderedDict as _Map  # MicroPython's dict does not keep key order
except ImportError:  # pragma: no cover
    _Map = dict


def od(*pairs):
    m = _Map()
    for k, v in pairs:
        m[k] = v
    return m


# Published by the thesis (shared/seeds/000, Results §4 Memory Footprint and §5 Resource Usage;
# crates/wirebench-core/src/published/seed000.rs): ESP32-WROOM-32, MicroPython v1.x firmware.
THESIS = od(
    ("source", "F. Braz, master's thesis (UEA), Feb. 2026: Results 4 (5 fields) and 5"),
    ("heap_bytes_5_fields", od(("uadp-json-dv", 1424), ("uadp", 336))),
    ("heap_note", "UADP figure marked by the thesis as affected by gc.collect() during tracking"),
    ("wire_bytes_5_fields", od(("uadp-json-dv", 472), ("uadp", 58))),
    ("library_flash", od(("json", "~6 KB"), ("uadp", "~15 KB"))),
)

PUBLISHER_ID = "ESP32-Bench"
CLASS_ID = "EAE79794-1AF7-4F96-8401-4096CD1D8908"
WRITER_ID = 1000
SOURCE_TIMESTAMP = 125911584150000000  # 2000-01-01T00:00:15Z, the thesis's example
MESSAGE_ID = "ESP32-Bench-000001"
VALUES = (("Float", 25.5), ("Float", 1013.25), ("Int32", 42), ("Float", 60.5), ("Int32", -7),
          ("Float", 3.25), ("Float", -40.0), ("Int32", 100000), ("Float", 0.125), ("Int32", 0))
FIELDS = (1, 3, 5, 10)
MODULES = ("__init__", "pson", "uadp", "uadp_json", "jsonio")


def _here():
    f = __file__.replace("\\", "/")
    return f.rsplit("/", 1)[0] if "/" in f else "."


def _args(argv):
    mpy = None
    i = 0
    while i < len(argv):
        if argv[i] == "--mpy" and i + 1 < len(argv):
            mpy = argv[i + 1]
            i += 2
        else:
            raise SystemExit("usage: micropython -X heapsize=8M cost.py [--mpy DIR]")
    return mpy


def _size(path):
    import os

    return os.stat(path)[6]


def heap(fn):
    """(allocated, retained) heap bytes of one call of fn (after a warm-up call)."""
    fn()
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        result = fn()
        allocated = gc.mem_alloc() - before
    finally:
        gc.enable()
    gc.collect()
    retained = gc.mem_alloc() - before
    del result
    return allocated, retained


def main():
    mpy = _args(sys.argv[1:])
    root = mpy if mpy else _here()
    if root not in sys.path:
        sys.path.insert(0, root)
    impl = sys.implementation
    if impl.name != "micropython":
        raise SystemExit("run this under MicroPython (gc.mem_alloc)")

    out = od(
        ("micropython", ".".join(str(x) for x in impl.version[:3])),
        ("build", getattr(impl, "_build", None)),
        ("float", "f32" if 1.0 + 2.0 ** -40 == 1.0 else "f64"),
        ("word_bits", 64 if sys.maxsize > (1 << 32) else 32),
        ("imported_from", "mpy" if mpy else "py"),
    )
    if mpy:
        sizes = od(*[(m, _size("%s/wirebench_device/%s.mpy" % (mpy, m))) for m in MODULES])
        out["bytecode_bytes"] = sizes
        # what a board needs for each (python/README.md): UADP = uadp + pson (its UTF-8
        # validator) + the package marker; the JSON mapping = those + uadp_json + jsonio
        base = sizes["__init__"] + sizes["uadp"] + sizes["pson"]
        out["library_bytecode_bytes"] = od(
            ("uadp", base),
            ("uadp+json", base + sizes["uadp_json"] + sizes["jsonio"]),
            ("pson", sizes["__init__"] + sizes["pson"]),
        )

    # heap the imports keep (the loaded modules' code and globals)
    gc.collect()
    a = gc.mem_alloc()
    from wirebench_device import pson  # noqa: F401

    gc.collect()
    b = gc.mem_alloc()
    from wirebench_device import uadp

    gc.collect()
    c = gc.mem_alloc()
    from wirebench_device import uadp_json  # noqa: F401

    gc.collect()
    d = gc.mem_alloc()
    out["import_heap_bytes"] = od(("pson", b - a), ("uadp", c - b), ("uadp_json+jsonio", d - c))

    rows = []
    for n in FIELDS:
        values = [VALUES[i % len(VALUES)] for i in range(n)]
        names = []
        for i, (ty, _) in enumerate(values):
            names.append("Val_%s_%s" % ("I32" if ty == "Int32" else "F32", chr(ord("A") + i)))
        meta = [{"data_set_writer_id": WRITER_ID,
                 "fields": [{"name": nm, "type": ty} for nm, (ty, _) in zip(names, values)]}]

        # UADP in the thesis's layout
        msg = uadp.message([uadp.data_set_message([uadp.variant(t, v) for t, v in values])],
                           publisher_id={"type": "String", "value": PUBLISHER_ID},
                           data_set_class_id=CLASS_ID, data_set_writer_ids=[WRITER_ID])
        wire = uadp.encode(msg)
        if len(wire) != 39 + 5 * n or uadp.decode(wire) != msg:
            raise SystemExit("UADP message for %d fields is not the study's" % n)
        enc = heap(lambda: uadp.encode(msg))
        dec = heap(lambda: uadp.decode(wire))
        rows.append(_row("uadp", n, len(wire), enc, dec))

        # JSON NetworkMessage in the thesis's shape
        dv = uadp.message([uadp.data_set_message(
            [{"value": uadp.variant(t, v), "status": None, "source_timestamp": SOURCE_TIMESTAMP,
              "source_picoseconds": None, "server_timestamp": None, "server_picoseconds": None}
             for t, v in values], field_encoding="DataValue", sequence_number=1)],
            publisher_id={"type": "String", "value": PUBLISHER_ID}, data_set_writer_ids=[WRITER_ID])

        def to_text(dv=dv, meta=meta):
            return uadp.to_json(dv, False, message_id=MESSAGE_ID, metadata=meta, message_type=False)

        text = to_text()
        back = uadp.from_json(text, meta)
        if to_text(back) != text:
            raise SystemExit("JSON message for %d fields does not read back" % n)
        enc = heap(to_text)
        dec = heap(lambda: uadp.from_json(text, meta))
        rows.append(_row("uadp-json-dv", n, len(text.encode()), enc, dec))

        # the same values as one PSON map (the project's own codec)
        m = od(*[(nm, v) for nm, (_, v) in zip(names, values)])
        data = pson.dumps(m)
        enc = heap(lambda: pson.dumps(m))
        dec = heap(lambda: pson.loads(data))
        rows.append(_row("pson", n, len(data), enc, dec))
    out["heap_bytes_per_message"] = rows
    out["thesis"] = THESIS
    print(_json(out))


def _row(fmt, n, wire, enc, dec):
    return od(("format", fmt), ("fields", n), ("wire_bytes", wire),
              ("encode", od(("allocated", enc[0]), ("retained", enc[1]))),
              ("decode", od(("allocated", dec[0]), ("retained", dec[1]))))


def _inline(v):
    if isinstance(v, dict):
        return "{" + ", ".join('"%s": %s' % (k, _inline(v[k])) for k in v.keys()) + "}"
    return _json(v)


def _json(v, indent=0):
    """JSON text with one key per line (MicroPython's json.dumps does not indent)."""
    pad = "  " * (indent + 1)
    if isinstance(v, dict):
        keys = list(v.keys())
        if not keys:
            return "{}"
        parts = ['%s"%s": %s' % (pad, k, _json(v[k], indent + 1)) for k in keys]
        return "{\n" + ",\n".join(parts) + "\n" + "  " * indent + "}"
    if isinstance(v, list):  # one element a line, each on one line
        return "[\n" + ",\n".join(pad + _inline(x) for x in v) + "\n" + "  " * indent + "]"
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        import json

        return json.dumps(v)
    return str(v)


if __name__ == "__main__":
    main()
