#!/usr/bin/env bash
# Render results files with two wirebench binaries, in every output kind, and say which
# renderings differ: a refactor of the reports must leave every byte as it was.
#   usage: scripts/same-reports.sh OLD_BIN NEW_BIN RESULTS.json...   (exit 1 if any differs)
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: scripts/same-reports.sh OLD_BIN NEW_BIN RESULTS.json..." >&2; exit 2; }
old=$1 new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
differ=0 total=0
for f in "$@"; do
    for o in table md csv json html; do
        total=$((total + 1))
        "$old" report "$f" -o "$o" >"$tmp/old" 2>&1
        a=$?
        "$new" report "$f" -o "$o" >"$tmp/new" 2>&1
        b=$?
        if [ "$a" != "$b" ] || ! cmp -s "$tmp/old" "$tmp/new"; then
            differ=$((differ + 1))
            echo "differs: $f -o $o (exit $a, then $b; $(diff "$tmp/old" "$tmp/new" | grep -c '^[<>]') lines)"
        fi
    done
done
echo "$((total - differ)) of $total renderings the same"
[ "$differ" = 0 ]
