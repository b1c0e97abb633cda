#!/usr/bin/env python3
"""Do two runs of an MQTT study agree on every throughput figure within their printed 95 % CI?

usage: mqtt-repro.py A/results.json B/results.json

Reads the `mqtt` section of two results files (e.g. two consecutive
`wirebench run studies/seed000-opcua-mqtt.toml --out DIR` runs) and, for every throughput
figure both have — each row's ours and bare msgs/s (subscriber and publisher side), MB/s, the
ours/bare ratio, and the comparison rows with an interval (UADP msgs/s, JSON msgs/s,
UADP / JSON) — prints the figure of each run with its 95 % interval and whether
  - B's figure lies within A's interval and A's within B's ("agree"), and
  - the two intervals overlap at least.
A figure without an interval (fewer than 6 repetitions, or a file written before intervals
were recorded) is "no CI" and counts as not agreeing.

The summary also gives what two runs under identical conditions would show: each figure is a
median of n repetitions and its interval the order statistics that cover the median with
≥ 95 %, so even with no drift at all a rerun's median falls outside that interval now and
then. Repetitions drawn independently from one distribution (simulated, seeded; the result
does not depend on the distribution) put both figures inside each other's interval with
probability about 0.83 at n = 6 (0.92 at 8, 0.85 at 10, where the interval narrows to the
2nd and 9th); the summary prints the number of figures expected to agree and what the chance
that all of them do would be if the figures were independent. Agreeing less often than expected points
at the host drifting between the runs.

Prints one line per figure and a summary; exits 0 when every figure agrees, 1 when one does
not, 2 on bad input (a missing or unreadable file, no mqtt section).
"""
import json
import math
import random
import sys


def fail(msg):
    print(f"mqtt-repro: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    s = doc.get("mqtt") if isinstance(doc, dict) else None
    if not isinstance(s, dict):
        fail(f"{path}: no mqtt section")
    return s


def figures(s):
    """{key: (value, (lo, hi) or None, repetitions or None)} for every throughput figure."""
    out = {}
    for r in s.get("throughput", []):
        case = f"{r['broker']} · {r['payload']} · QoS {r['qos']}"
        reps = r.get("reps")
        for side in ("ours", "bare"):
            x = r.get(side)
            if not x:
                continue
            for metric in ("msgs_per_s", "publisher_msgs_per_s", "mb_per_s"):
                if x.get(metric) is not None:
                    out[f"{case} · {side} {metric}"] = (x[metric], x.get(f"{metric}_ci95"), reps)
        if r.get("ratio") is not None:
            out[f"{case} · ours/bare"] = (r["ratio"], r.get("ratio_ci95"), reps)
    for c in s.get("comparison", []):
        if c.get("unit") in ("msgs/s", "×") and c.get("ours") is not None:
            out[f"comparison · {c['what']}"] = (c["ours"], c.get("ours_ci95"), None)
    return out


def order_ci(n, level=0.95):
    """The 1-based order statistics (k, n + 1 - k) of the median's interval for n values: the
    narrowest covering ≥ level (as wirebench's stats::median_ci_order), or None."""
    below, acc = [], 0.0
    for i in range(n // 2 + 1):
        acc += math.comb(n, i) / 2 ** n
        below.append(acc)
    best = None
    for k in range(1, (n + 1) // 2 + 1):
        if 1 - 2 * below[k - 1] + 1e-12 < level:
            break
        best = k
    return None if best is None else (best, n + 1 - best)


def p_agree(n, trials=20000):
    """The chance that two runs of n independent repetitions from one distribution each have
    their median inside the other's interval (simulated with a fixed seed)."""
    ks = order_ci(n)
    if ks is None:
        return None
    rng = random.Random(n)
    hits = 0
    med = lambda v: (v[(n - 1) // 2] + v[n // 2]) / 2  # noqa: E731
    for _ in range(trials):
        a = sorted(rng.random() for _ in range(n))
        b = sorted(rng.random() for _ in range(n))
        hits += a[ks[0] - 1] <= med(b) <= a[ks[1] - 1] and b[ks[0] - 1] <= med(a) <= b[ks[1] - 1]
    return hits / trials


def inside(v, ci):
    return ci is not None and ci[0] <= v <= ci[1]


def fmt(v):
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def fmt_ci(ci):
    return "no CI" if ci is None else f"{fmt(ci[0])}–{fmt(ci[1])}"


def main():
    if len(sys.argv) != 3:
        fail("usage: mqtt-repro.py A/results.json B/results.json")
    a, b = figures(load(sys.argv[1])), figures(load(sys.argv[2]))
    keys = [k for k in a if k in b]
    if not keys:
        fail("the two files have no throughput figure in common")
    agree = overlap = 0
    width = max(len(k) for k in keys)
    print(f"{'figure':<{width}}  {'A':>8}  {'A 95 % CI':>17}  {'B':>8}  {'B 95 % CI':>17}  B in A  A in B  verdict")
    expected, all_agree, counted, cache = 0.0, 1.0, 0, {}
    for k in keys:
        (va, ca, na), (vb, cb, nb) = a[k], b[k]
        if na is not None and na == nb:
            if na not in cache:
                cache[na] = p_agree(na)
            if cache[na] is not None:
                expected += cache[na]
                all_agree *= cache[na]
                counted += 1
        b_in_a, a_in_b = inside(vb, ca), inside(va, cb)
        ok = b_in_a and a_in_b
        ov = ca is not None and cb is not None and ca[0] <= cb[1] and cb[0] <= ca[1]
        agree += ok
        overlap += ov
        verdict = "agree" if ok else ("no CI" if ca is None or cb is None else ("overlap only" if ov else "DISAGREE"))
        yn = lambda x: "yes" if x else "no"  # noqa: E731
        print(f"{k:<{width}}  {fmt(va):>8}  {fmt_ci(ca):>17}  {fmt(vb):>8}  {fmt_ci(cb):>17}  {yn(b_in_a):>6}  {yn(a_in_b):>6}  {verdict}")
    only = sorted(set(a) ^ set(b))
    for k in only:
        print(f"{k}: in one file only")
    print(f"{agree} of {len(keys)} figures agree (each run's figure within the other's 95 % CI); "
          f"{overlap} of {len(keys)} intervals overlap")
    if cache:
        per = ", ".join(f"{p:.2f} at {n} repetitions" for n, p in sorted(cache.items()) if p is not None)
        print(f"under identical conditions (independent repetitions, no drift between the runs) "
              f"about {expected:.0f} of the {counted} figures with a repetition count would agree "
              f"this strictly ({per} per figure); that all {counted} do would have a chance of "
              f"{all_agree:.1g} if they were independent (they are not: a case's msgs/s and MB/s "
              f"are one measurement, so the chance is higher, but far from certain)")
    sys.exit(0 if agree == len(keys) and not only else 1)


if __name__ == "__main__":
    main()
