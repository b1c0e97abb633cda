#!/usr/bin/env python3
"""Inputs for `make rust-diff` (Python 3 standard library only).

usage: corpus.py uadp VECTORS.json [FUZZ_CORPUS_DIR] > lines    hex per line
       corpus.py cdr VECTORS.json TYPES_OUT > lines              "<index> <hex>" per line
       corpus.py oracle ORACLE.jsonl > vectors.json              cdr_oracle.py cases -> vector file

Each seed (a vector, a Rust fuzz corpus file) is used as is, cut at many
lengths and mutated (seeded PRNG, so runs are reproducible). For CDR the
types file gets, per vector index, "<key 0|1>\\t<type name>\\t<IDL>" with the
type picked as gen_cdr_vectors.py picks it.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gen_cdr_vectors as gc  # noqa: E402


def mutations(b, n, rnd):
    out = [b]
    step = max(1, len(b) // 16)
    out += [b[:cut] for cut in range(0, len(b), step)]
    for _ in range(n):
        x = bytearray(b)
        for _ in range(rnd.randint(1, 4)):
            if not x:
                break
            i = rnd.randrange(len(x))
            r = rnd.randrange(4)
            x[i] = rnd.randrange(256) if r == 0 else x[i] ^ (1 << rnd.randrange(8)) if r == 1 else 0xff if r == 2 else 0
        if rnd.random() < 0.1:
            x += bytes([rnd.randrange(256)])
        out.append(bytes(x))
    return out


def main():
    rnd = random.Random(20240611)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "uadp":
        seeds = []
        with open(sys.argv[2], encoding="utf-8") as f:
            for e in json.load(f):
                if isinstance(e, dict) and e.get("encoding") == "uadp" and isinstance(e.get("hex"), str):
                    seeds.append(bytes.fromhex(e["hex"]))
        if len(sys.argv) > 3 and os.path.isdir(sys.argv[3]):
            for name in sorted(os.listdir(sys.argv[3])):
                with open(os.path.join(sys.argv[3], name), "rb") as f:
                    seeds.append(f.read())
        for s in seeds:
            for x in mutations(s, 60, rnd):
                print(x.hex())
    elif mode == "cdr":
        entries = gc.load(sys.argv[2])
        with open(sys.argv[3], "w", encoding="utf-8") as types:
            for i, e in enumerate(entries):
                line = "0\t\t"
                try:
                    idl = gc.Idl(e.get("idl") or "")
                    ty = gc.pick_type(idl, e.get("name") or "", e.get("type"))
                    line = "%d\t%s\t%s" % (1 if gc.mentions_key(e) else 0, ty[1],
                                           " ".join((e.get("idl") or "").split()))
                    b = bytes.fromhex(e.get("hex", ""))
                except (gc.Skip, gc.GenError, ValueError, TypeError):
                    b = None
                types.write(line + "\n")
                if b:
                    for x in mutations(b, 300, rnd):
                        print("%d %s" % (i, x.hex()))
    elif mode == "oracle":
        out = []
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                c = json.loads(line)
                out.append({"name": c["case"] + ": cyclonedds oracle", "idl": c["idl"], "type": c["type"],
                            "value": c["value"], "hex": c["hex"],
                            "encoding": c["encoding"] + (" key" if c.get("key") else "")})
        json.dump(out, sys.stdout)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
