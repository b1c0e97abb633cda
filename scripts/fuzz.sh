#!/usr/bin/env bash
# A fuzz campaign over the targets in fuzz/ (cargo-fuzz + libFuzzer), one target at a time
# (the machine may be shared: one process; campaigns on disjoint targets may run side by side). Each target starts from its kept seeds
# (fuzz/seeds/<target>/) and its growing corpus (fuzz/corpus/<target>/, not kept).
# Prints per target: executions, coverage (cov/ft from libFuzzer's final stats), crashes.
# Exits 1 if any target crashed (the input is in fuzz/artifacts/<target>/).
#   usage: scripts/fuzz.sh [--minutes N] [target ...]     (default: 10 minutes, every target)
#   env:   FUZZ_MAX_LEN (default 4096)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes=10
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="$2"; shift 2 ;;
        --minutes=*) minutes="${1#*=}"; shift ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
case "$minutes" in ''|*[!0-9.]*) echo "fuzz.sh: --minutes needs a number, not '$minutes'" >&2; exit 2 ;; esac
cd "$root/fuzz"
# shellcheck source=cargo-fuzz.sh
source "$root/scripts/cargo-fuzz.sh"
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^wirebench-fuzz$')
fi
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
[ "$seconds" -ge 1 ] || { echo "fuzz.sh: --minutes must be positive" >&2; exit 2; }
mkdir -p logs
summary=()
failed=0
for t in "${targets[@]}"; do
    [ -f "fuzz_targets/$t.rs" ] || { echo "fuzz.sh: no target $t (see fuzz/fuzz_targets/)" >&2; exit 2; }
    mkdir -p "corpus/$t" "seeds/$t" "artifacts/$t"
    before=$(find "artifacts/$t" -type f | wc -l)
    echo "== $t: ${minutes} min" >&2
    status=0
    # One process in the foreground (no -jobs: its log would be ./fuzz-0.log, shared by
    # campaigns run side by side on disjoint targets).
    "${fuzz[@]}" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-4096}" \
        >"logs/$t.log" 2>&1 || status=$?
    log="logs/$t.log"
    runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    [ -n "$runs" ] || runs=$(printf '%s' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
    cov=$(printf '%s' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    crashes=$(( $(find "artifacts/$t" -type f | wc -l) - before ))
    if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        failed=1
        [ "$crashes" -gt 0 ] || crashes="exit $status"
    fi
    summary+=("$(printf '%-14s %12s %8s %8s %8s' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$crashes")")
done
printf '%-14s %12s %8s %8s %8s\n' target executions cov ft crashes
printf '%s\n' "${summary[@]}"
exit "$failed"
