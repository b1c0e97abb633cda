#!/usr/bin/env python3
"""Compare build/uadp_tool with the UADP vectors' `decoded` objects.

usage: check_uadp_tool.py UADP_TOOL VECTORS.json      (Python 3 standard library only)

For every UADP entry that decodes: `uadp_tool decode --exact` (RawData
metadata derived as in gen_uadp_vectors.py; a reserved encoding / event type
retried with --skip-unknown) must match `decoded` (open62541's view of the
message, where it decoded it) with the comparison rules of the Rust vector
test (crates/uadp/tests/common: key aliases, DateTime as ticks or ISO 8601,
ByteString as hex / base64 / byte list, Float compared as f32, Guid text
case-insensitive); and `uadp_tool reencode --exact` must give the input hex.
Keys of `decoded` that the C view does not have are listed, not failed.
Exit status 1 on any mismatch.
"""
import base64
import datetime
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_uadp_vectors as gen  # noqa: E402

ALIASES = {
    "datasetmessagesequencenr": "sequencenumber", "datasetmessagesequencenumber": "sequencenumber",
    "seqnr": "sequencenumber", "configversionmajorversion": "configversionmajor",
    "majorversion": "configversionmajor", "configversionminorversion": "configversionminor",
    "minorversion": "configversionminor", "statuscode": "status", "fieldindex": "index",
    "datasetmessagevalid": "valid", "datasetmessagetype": "messagetype", "typename": "type",
}
MSG_TYPES = {"datakeyframe": "K", "keyframe": "K", "ua-keyframe": "K", "datadeltaframe": "D",
             "deltaframe": "D", "ua-deltaframe": "D", "keepalive": "A", "ua-keepalive": "A",
             "dataevent": "E", "event": "E", "ua-event": "E"}
EPOCH = datetime.datetime(1601, 1, 1, tzinfo=datetime.timezone.utc)


def norm_key(k):
    k = "".join(c for c in k if c.isalnum()).lower()
    return ALIASES.get(k, k)


def iso_ticks(s):
    try:
        main, frac = s.rstrip("Z"), ""
        if "." in main:
            main, frac = main.split(".", 1)
        t = datetime.datetime.strptime(main, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
        delta = t - EPOCH
        ticks = (delta.days * 86400 + delta.seconds) * 10_000_000
        return ticks + int((frac + "0000000")[:7] or 0)
    except ValueError:
        return None


def f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except (OverflowError, struct.error):
        return x


def num_eq(a, b):
    return a == b or f32(a) == f32(b) or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def compare(exp, mine, path, bad, unchecked):
    if isinstance(mine, dict) and "$ticks" in mine:
        t = mine["$ticks"]
        ok = (isinstance(exp, int) and not isinstance(exp, bool) and exp == t) or \
             (isinstance(exp, str) and iso_ticks(exp) == t)
        if not ok:
            bad.append("%s: expected %r, got DateTime %d ticks" % (path, exp, t))
        return
    if isinstance(mine, dict) and "$bytes" in mine:
        h = mine["$bytes"]
        raw = bytes.fromhex(h)
        ok = (isinstance(exp, str) and (exp.lower() == h or exp == base64.b64encode(raw).decode())) or \
             (isinstance(exp, list) and bytes(x & 0xff for x in exp if isinstance(x, int)) == raw)
        if not ok:
            bad.append("%s: expected %r, got bytes %s" % (path, exp, h))
        return
    if isinstance(exp, dict) and isinstance(mine, dict):
        if isinstance(exp.get("value"), dict) and "type" in mine:
            # {"value": Variant, ...} (a DataValue-shaped view) against our plain Variant
            compare(exp["value"], mine, path + ".value", bad, unchecked)
            for k, ev in exp.items():
                if k == "value" or ev is None:
                    continue
                if norm_key(k) == "index" and "index" in mine:
                    compare(ev, mine["index"], "%s.%s" % (path, k), bad, unchecked)
                else:
                    bad.append("%s.%s: expected %s, we hold a plain Variant" % (path, k, json.dumps(ev)))
            return
        for k, ev in exp.items():
            p = "%s.%s" % (path, k)
            mk = k if k in mine else next((m for m in mine if norm_key(m) == norm_key(k)), None)
            if mk is None:
                if ev is not None and ev is not False:
                    unchecked.append("%s = %s" % (p, json.dumps(ev)))
                continue
            mv = mine[mk]
            if norm_key(k) == "messagetype":
                if MSG_TYPES.get(str(ev).lower(), "?") != MSG_TYPES.get(str(mv).lower(), "?"):
                    bad.append("%s: expected %r, got %r" % (p, ev, mv))
            else:
                compare(ev, mv, p, bad, unchecked)
        return
    if isinstance(exp, list) and isinstance(mine, list):
        if len(exp) != len(mine):
            bad.append("%s: expected %d items, got %d" % (path, len(exp), len(mine)))
            return
        for i, (a, b) in enumerate(zip(exp, mine)):
            compare(a, b, "%s[%d]" % (path, i), bad, unchecked)
        return
    num = (int, float)
    if isinstance(exp, num) and isinstance(mine, num) and not isinstance(exp, bool) and not isinstance(mine, bool):
        if not num_eq(exp, mine):
            bad.append("%s: expected %r, got %r" % (path, exp, mine))
        return
    if isinstance(exp, str) and isinstance(mine, (int, float)) and not isinstance(mine, bool):
        try:
            if num_eq(float(exp), mine):
                return
        except ValueError:
            pass
    if isinstance(exp, str) and isinstance(mine, str) and len(exp) == 36 and exp.lower() == mine.lower():
        return
    if isinstance(exp, str) and isinstance(mine, str) and exp in ("NaN", "Infinity", "-Infinity") and exp == mine:
        return
    if exp != mine:
        bad.append("%s: expected %r, got %r" % (path, exp, mine))


def run(tool, mode, hexs, meta, skip):
    args = [tool, mode, "--exact"] + (["--skip-unknown"] if skip else [])
    for w, ts in meta:
        args += ["--meta", "%d:%s" % (w, ",".join(str(t) for t in ts) or "")]
    args.append(hexs or "-")
    p = subprocess.run(args, input="" if hexs else "\n", capture_output=True, text=True)
    return p.returncode, p.stdout.strip()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tool, src = sys.argv[1], sys.argv[2]
    failures, notes = [], []
    n_cmp = n_rt = 0
    for e in gen.load(src):
        if e.get("encoding") != "uadp" or not isinstance(e.get("hex"), str):
            continue
        name = e.get("name", "?")
        meta = [(w, ts) for w, ts in gen.metadata(e) if ts]
        rc, out = run(tool, "decode", e["hex"], meta, False)
        skip = False
        if rc == 2 and (" reserved_field_encoding " in out or " unsupported_message_type " in out) \
                and gen.spec_of(e) == 1:
            skip = True
            rc, out = run(tool, "decode", e["hex"], meta, True)
        if rc != 0:
            notes.append("%s: %s" % (name, out))
            continue
        view = json.loads(out)
        exp = e.get("decoded")
        if isinstance(exp, dict):
            exp = dict(exp)
            if not view.get("payloadHeader"):
                for k in ("messageCount", "dataSetWriterIds"):
                    exp.pop(k, None)
            bad, unchecked = [], []
            compare(exp, view, "decoded", bad, unchecked)
            failures += ["%s: %s" % (name, b) for b in bad]
            notes += ["%s: not compared: %s" % (name, u) for u in unchecked]
            n_cmp += 1
        rc, out = run(tool, "reencode", e["hex"], meta, skip)
        if rc != 0 or out != e["hex"].lower():
            failures.append("%s: reencode gives %s" % (name, out))
        n_rt += 1
    for n in notes:
        print("  note: " + n)
    print("check_uadp_tool: %d decoded views compared with `decoded`, %d re-encodings, %d failures"
          % (n_cmp, n_rt, len(failures)))
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
