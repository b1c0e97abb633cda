#!/bin/sh
# instr.sh PROGRAM N OUT.csv - deterministic instruction counts per encode
# and per decode of each payload of PROGRAM (tools/instr_pson.c), measured
# with callgrind: only bench_encode / bench_decode are counted
# (--toggle-collect), each run once with N and once with 2N iterations, and
# the difference divided by N (so the call, the loop set-up and the warm-up
# cancel out; the result is exact: the remainder must be 0).
# Prints a table and writes OUT.csv (payload,encode_instr,decode_instr).
# env: VALGRIND (valgrind)
set -eu
prog=$1
n=$2
csv=$3
vg=${VALGRIND:-valgrind}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/instr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$prog" check >/dev/null

# Ir counted inside FUNC for `PROGRAM MODE NAME ITER`
ir() {
    "$vg" --tool=callgrind --toggle-collect="$1" --callgrind-out-file="$tmp/cg.out" \
        "$prog" "$2" "$3" "$4" >/dev/null 2>"$tmp/vg.err" || { cat "$tmp/vg.err" >&2; exit 1; }
    awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg.out"
}

per_op() { # MODE NAME -> instructions per operation (integer division, exact when the loop is uniform)
    a=$(ir "bench_$1" "$1" "$2" $((2 * n)))
    b=$(ir "bench_$1" "$1" "$2" "$n")
    echo $(( (a - b) / n )) $(( (a - b) % n ))
}

echo "payload,encode_instr,decode_instr" > "$csv"
printf '%-8s %6s %13s %13s\n' payload bytes encode_instr decode_instr
"$prog" list | while read -r name bytes; do
    set -- $(per_op encode "$name")
    enc=$1 enc_rem=$2
    set -- $(per_op decode "$name")
    dec=$1 dec_rem=$2
    if [ "$enc_rem" != 0 ] || [ "$dec_rem" != 0 ]; then
        echo "instr: $name: iterations differ (remainders $enc_rem, $dec_rem of $n)" >&2
    fi
    printf '%-8s %6s %13s %13s\n' "$name" "$bytes" "$enc" "$dec"
    echo "$name,$enc,$dec" >> "$csv"
done
echo "instr: $csv (valgrind $("$vg" --version | sed 's/valgrind-//'), N=$n, callgrind Ir per operation)"
