#!/usr/bin/env python3
"""Turn vectors/uadp.json into a C header for c/tests/test_uadp.c.

usage: gen_uadp_vectors.py IN.json OUT.h        (Python 3 standard library only)
       gen_uadp_vectors.py --seeds IN.json DIR  (each UADP vector's bytes as
                                                 DIR/uadp_<i>, a fuzz seed corpus)
       gen_uadp_vectors.py --avr IN.json OUT.h  (the same, message bytes in flash)
       gen_uadp_vectors.py --meta IN.json NAME  (print the --meta arguments of
                                                 uadp_tool for one vector)

Per UADP entry (`encoding` "uadp"; JSON entries are counted and skipped):
name, the `hex` bytes, the `spec` verdict (valid / invalid / other), the
RawData metadata the Rust vector test derives (crates/uadp/tests/common:
field types per RawData DataSetMessage of `decoded`, else the
`decode_options` text "fields Float, Float, Int32 for DataSetWriterId 1000"),
and the expected error kind / offset for the entries whose error the Rust
test knows by name. A problem with an entry becomes its gen_error (the C
test reports the entry as failed) instead of stopping the generator.
"""
import json
import os
import sys

TYPES = {"Boolean": 1, "SByte": 2, "Byte": 3, "Int16": 4, "UInt16": 5, "Int32": 6,
         "UInt32": 7, "Int64": 8, "UInt64": 9, "Float": 10, "Double": 11, "String": 12,
         "DateTime": 13, "Guid": 14, "ByteString": 15, "StatusCode": 19}

# As KNOWN_ERRORS in crates/uadp/tests/vectors.rs.
KNOWN_ERRORS = {"invalid_truncated": ("UADP_ERR_UNEXPECTED_END", 50)}


class GenError(Exception):
    pass


def unhex(s):
    if not isinstance(s, str) or len(s) % 2:
        raise GenError("bad hex")
    try:
        return bytes.fromhex(s)
    except ValueError as e:
        raise GenError("bad hex: %s" % e)


def metadata(v):
    """[(writer_id or -1, [type ids])] as raw_metadata() in the Rust tests."""
    out = []
    d = v.get("decoded")
    if isinstance(d, dict):
        ids = d.get("dataSetWriterIds") or []
        for i, dsm in enumerate(d.get("dataSetMessages") or []):
            if not isinstance(dsm, dict) or dsm.get("fieldEncoding") != "RawData":
                continue
            types = []
            for f in dsm.get("fields") or []:
                if not isinstance(f, dict) or f.get("type") not in TYPES:
                    continue
                types.append(TYPES[f["type"]] | (0x80 if isinstance(f.get("value"), list) else 0))
            wid = ids[i] if i < len(ids) and isinstance(ids[i], int) else -1
            out.append((wid, types))
    if not out:
        text = v.get("decode_options")
        if isinstance(text, str) and "fields " in text:
            rest = text.split("fields ", 1)[1]
            wid = -1
            if " for DataSetWriterId " in rest:
                rest, w = rest.split(" for DataSetWriterId ", 1)
                try:
                    wid = int(w.strip())
                except ValueError:
                    wid = -1
            types = [TYPES[t.strip()] for t in rest.split(",") if t.strip() in TYPES]
            out.append((wid, types))
    return out


def spec_of(v):
    s = v.get("spec")
    s = s.lower() if isinstance(s, str) else ""
    if s.startswith("valid"):
        return 1
    if s.startswith("invalid"):
        return 0
    return -1


def c_string(s):
    out = []
    for b in s.encode("utf-8", "surrogatepass"):
        c = chr(b)
        out.append(c if 0x20 <= b < 0x7F and c not in '"\\?' else "\\%03o" % b)
    return '"' + "".join(out) + '"'


AVR = False  # --avr: the message bytes are declared UV_FLASH (c/tests/avr keeps them in flash)


def c_bytes(name, data, flash=False):
    lines = [",".join("0x%02x" % b for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    return "static const uint8_t %s[]%s = {\n%s\n};\n" % (name, " UV_FLASH" if flash else "", ",\n".join(lines) or "0")


def load(src):
    with open(src, encoding="utf-8") as f:
        entries = json.load(f)
    if isinstance(entries, dict):
        entries = entries.get("vectors", [])
    if not isinstance(entries, list):
        sys.exit("gen_uadp_vectors.py: %s is not a JSON list" % src)
    return [e for e in entries if isinstance(e, dict)]


def main():
    global AVR
    if len(sys.argv) == 4 and sys.argv[1] == "--avr":
        AVR = True
        del sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[1] == "--seeds":
        os.makedirs(sys.argv[3], exist_ok=True)
        n = 0
        for i, e in enumerate(load(sys.argv[2])):
            if e.get("encoding") != "uadp":
                continue
            try:
                data = unhex(e.get("hex"))
            except GenError:
                continue
            with open(os.path.join(sys.argv[3], "uadp_%d" % i), "wb") as f:
                f.write(data)
            n += 1
        print("gen_uadp_vectors.py: %d seed files in %s" % (n, sys.argv[3]))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--meta":
        for e in load(sys.argv[2]):
            if e.get("name") == sys.argv[3]:
                print(" ".join("--meta %d:%s" % (w, ",".join(str(t) for t in ts)) for w, ts in metadata(e)))
        return
    if len(sys.argv) != 3:
        sys.exit("usage: gen_uadp_vectors.py IN.json OUT.h | --seeds IN.json DIR | --meta IN.json NAME")
    entries = load(sys.argv[1])
    parts = ["/* Generated by c/tests/gen_uadp_vectors.py from %s - do not edit. */\n"
             % sys.argv[1].replace("*/", "*_/")]
    rows = []
    n_json = 0
    for i, e in enumerate(entries):
        if e.get("encoding") != "uadp":
            n_json += 1
            continue
        name = e.get("name") if isinstance(e.get("name"), str) else "<unnamed>"
        err, data, meta = None, b"", []
        try:
            data = unhex(e.get("hex"))
            if isinstance(e.get("size"), int) and e["size"] != len(data):
                raise GenError("size %d but hex has %d bytes" % (e["size"], len(data)))
            meta = metadata(e)
        except GenError as ge:
            err = str(ge)
        parts.append(c_bytes("uv_hex_%d" % i, data, AVR))
        mrows = []
        for k, (wid, types) in enumerate(meta):
            parts.append(c_bytes("uv_mt_%d_%d" % (i, k), bytes(types)))
            mrows.append("{%d, uv_mt_%d_%d, %d}" % (wid, i, k, len(types)))
        parts.append("static const uadp_metadata uv_meta_%d[] = {%s};\n"
                     % (i, ", ".join(mrows) or "{-1, NULL, 0}"))
        kind, off = KNOWN_ERRORS.get(name, ("UADP_OK", -1))
        rows.append("  {%s, uv_hex_%d, %d, %d, uv_meta_%d, %d, %s, %d, %s},"
                    % (c_string(name), i, len(data), spec_of(e), i, len(meta), kind, off,
                       c_string(err) if err else "NULL"))
    if not rows:
        rows = ['  {"<none>", NULL, 0, -1, NULL, 0, UADP_OK, -1, "no UADP vectors"},']
    parts.append("#define UV_COUNT %d\n#define UV_JSON_COUNT %d\n" % (len(rows), n_json))
    parts.append("static const uadp_vec UV[] = {\n%s\n};\n" % "\n".join(rows))
    with open(sys.argv[2], "w", encoding="ascii") as f:
        f.write("".join(parts))


if __name__ == "__main__":
    main()
