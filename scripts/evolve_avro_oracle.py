#!/usr/bin/env python3
"""fastavro's schema resolution for `wirebench evolve`'s tests.

Reads JSON lines {"writer": AVSC, "reader": AVSC, "hex": BYTES} on stdin and prints one JSON
line each: {"ok": RECORD} (fastavro.schemaless_reader(bytes, writer, reader)) or
{"error": MESSAGE} when fastavro refuses the bytes or the pair of schemas.
"""
import io
import json
import sys

import fastavro


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        try:
            w = fastavro.parse_schema(json.loads(item["writer"]))
            r = fastavro.parse_schema(json.loads(item["reader"]))
            fo = io.BytesIO(bytes.fromhex(item["hex"]))
            rec = fastavro.schemaless_reader(fo, w, r)
            if fo.read(1):
                raise ValueError("bytes after the record")
            out = {"ok": rec}
        except Exception as e:  # any refusal: resolution error, bad bytes
            out = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
