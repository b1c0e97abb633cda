#!/usr/bin/env bash
# without-cyclone.sh COMMAND [ARG...] - run COMMAND as on a machine without Cyclone DDS: in a
# private mount namespace, idlc and ddsperf cannot be run and the Cyclone headers and libddsc.so
# are gone (empty mounts over them). The rest of the machine is as it is. Needs root (unshare -m).
# CI uses it to build and run wirebench the way a user without Cyclone does.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
    echo "without-cyclone.sh: needs root for a private mount namespace" >&2
    exit 1
fi
exec unshare --mount --propagation private bash -c '
    set -e
    empty=$(mktemp)
    chmod 0644 "$empty"
    for f in "$(command -v idlc || true)" "$(command -v ddsperf || true)" /usr/lib/*/libddsc.so /usr/lib/libddsc.so; do
        [ -n "$f" ] && [ -e "$f" ] && mount --bind "$empty" "$f"
    done
    for d in /usr/include/dds /usr/include/*/dds /usr/include/ddsc; do
        [ -d "$d" ] && mount -t tmpfs none "$d"
    done
    rm -f "$empty"
    exec "$@"
' without-cyclone "$@"
