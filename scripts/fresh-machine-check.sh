#!/usr/bin/env bash
# fresh-machine-check.sh - wirebench as a user without Cyclone DDS meets it: `cargo install` of
# the release binary with Cyclone hidden (scripts/without-cyclone.sh; as root), then, from a
# folder outside the checkout, the README's main job by name (`wirebench run seed001`) and the
# one-line refusals of the DDS parts. Prints the time of each step and the binary's size.
# env: FRESH_TARGET_DIR (default target/no-dds: its own, so the normal build keeps its DDS).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${FRESH_TARGET_DIR:-$root/target/no-dds}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "fresh-machine-check: $*" >&2; exit 1; }

hide=()
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
    hide=("$root/scripts/without-cyclone.sh")
else
    echo "fresh-machine-check: not root, Cyclone stays visible; building with WIREBENCH_DDS=off instead"
fi
mode=auto
[ ${#hide[@]} -eq 0 ] && mode=off

t0=$(date +%s)
# One release build: cargo install into a scratch root (the user's ~/.cargo/bin is left alone).
WIREBENCH_DDS=$mode "${hide[@]}" cargo install --quiet --locked --path "$root/crates/wirebench" \
    --root "$work/root" --target-dir "$target"
t1=$(date +%s)
wb="$work/root/bin/wirebench"
echo "release build (cargo install --locked, no Cyclone DDS): $((t1 - t0)) s; binary $(stat -c %s "$wb") bytes"

"$wb" --version | tee "$work/version"
grep -q "no dds: this wirebench was built without DDS" "$work/version" || fail "--version does not say the build has no DDS"

mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
t2=$(date +%s)
# The README's main job: set up the device lab, then seed 001. As root, on a copy-on-write
# overlay of this machine without the device lab's packages (scripts/without-device-lab.sh), so
# the setup installs them for real; otherwise on this machine as it is.
main_job="\"$wb\" setup --install device >\"$work/setup.out\" 2>&1 && COLUMNS=100 \"$wb\" run seed001 >\"$work/run.out\" 2>\"$work/run.err\""
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 && [ -z "${FRESH_KEEP_DEVICE_LAB:-}" ]; then
    WITHOUT_DEVICE_LAB_SHARE="$work" "$root/scripts/without-device-lab.sh" bash -c "
        set -e
        if \"$wb\" setup --check device >\"$work/check.out\" 2>&1; then
            echo 'setup --check device says ready on a machine without the lab' >&2; cat \"$work/check.out\" >&2; exit 1
        fi
        grep -q 'avr-gcc' \"$work/check.out\"
        $main_job
    " || { cat "$work/check.out" "$work/setup.out" "$work/run.err" >&2 2>/dev/null; fail "the main job (setup --install device, run seed001) failed on a machine without the device lab"; }
    echo "setup --install device, on a machine without the lab: $(tail -1 "$work/setup.out")"
else
    bash -c "$main_job" || { cat "$work/setup.out" "$work/run.err" >&2; fail "the main job failed"; }
fi
t3=$(date +%s)
for f in results.json report.md report.html; do
    [ -s "out/seed001-pson-paper/$f" ] || fail "out/seed001-pson-paper/$f was not written"
done
grep -q '"study": "built in: studies/seed001-pson-paper.toml"' out/seed001-pson-paper/results.json \
    || fail "results.json does not name the built-in study"
echo "the main job from $PWD: $((t3 - t2)) s; $(wc -l <"$work/run.out") lines on the terminal"
# The heart of it: device-lab rows measured on AVR, Cortex-M0+ and Cortex-M4, and energy rows.
python3 - out/seed001-pson-paper/results.json <<'PY' || fail "the main job has no device-lab or energy figures"
import json, sys
r = json.load(open(sys.argv[1]))
rows = (r.get("device") or {}).get("lab", {}).get("rows", [])
for t in ("avr", "cortex-m0plus", "cortex-m4"):
    ok = [x for x in rows if x["target"] == t and x["status"] == "ok" and x.get("encode_cycles")]
    print(f"device lab {t}: {len(ok)} rows measured")
    assert ok, f"no measured row for {t}: {[x['status'] for x in rows if x['target'] == t][:3]}"
energy = (r.get("energy") or {}).get("rows", [])
print(f"energy: {len(energy)} rows")
assert energy, "the energy table is empty"
PY
# Characters, not bytes (awk's length counts bytes in most builds: → and × are several).
python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$work/run.out" || fail "the main job printed lines over 100 characters at COLUMNS=100"
[ "$(wc -l <"$work/run.out")" -le 120 ] || fail "the main job printed $(wc -l <"$work/run.out") lines (at most 120: the answer first, the rest in the reports)"

# The DDS parts: one line, exit 2, nothing measured or written.
set +e
"$wb" dds latency >/dev/null 2>"$work/dds.err"; rc=$?
"$wb" run seed004 --out "$work/s4" >/dev/null 2>"$work/s4.err"; rc4=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l <"$work/dds.err")" = 1 ] && grep -q "built without DDS" "$work/dds.err" \
    || fail "wirebench dds latency: exit $rc, $(cat "$work/dds.err")"
[ "$rc4" = 2 ] && [ "$(wc -l <"$work/s4.err")" = 1 ] && grep -q "built without DDS" "$work/s4.err" && [ ! -e "$work/s4" ] \
    || fail "wirebench run seed004: exit $rc4, $(cat "$work/s4.err")"
echo "without DDS: $(cat "$work/s4.err")"
echo "fresh-machine-check: ok"
