#!/usr/bin/env bash
# without-device-lab.sh COMMAND [ARG...] - run COMMAND as on a fresh machine that has Rust and a
# C compiler but none of the device lab's tools: in a private mount namespace, a copy-on-write
# overlay of / (the changes go to a tmpfs and vanish afterwards) from which the lab's Debian
# packages (crates/wirebench-measure/data/setup.toml, part device, but the C compiler, make and
# python3) are removed with apt-get and its Python modules with pip; COMMAND runs chrooted
# there, so `wirebench setup --install device` installs them for real (apt-get, pip) and the
# machine itself is left as it was. Writes go to the overlay, except in the folders named by
# WITHOUT_DEVICE_LAB_SHARE (colon-separated; default: the current folder), which are the real
# ones. Needs root (unshare, mount, chroot).
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
    echo "without-device-lab.sh: needs root for a private mount namespace" >&2
    exit 1
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The lab's packages as the list names them, less what a fresh machine has (a C compiler, make,
# python3 and pip).
keep=" gcc make python3 python3-pip build-essential "
remove=()
for p in $(python3 - "$root/crates/wirebench-measure/data/setup.toml" <<'PY'
import sys, tomllib
parts = tomllib.load(open(sys.argv[1], "rb"))
print(" ".join(d for n in parts["device"]["need"] for d in n.get("debian", "").split()))
PY
); do
    case "$keep" in *" $p "*) continue ;; esac
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && remove+=("$p")
done
modules=$(python3 -c 'import sys; print(" ".join(m for m in ("unicorn", "capstone", "pyelftools") if __import__("importlib.util").util.find_spec("elftools" if m == "pyelftools" else m)))')
exec unshare --mount --propagation private bash -c '
    set -e
    base=$(mktemp -d)
    mount -t tmpfs -o size=8g tmpfs "$base"
    mkdir -p "$base/upper" "$base/work" "$base/root"
    mount -t overlay overlay -o "lowerdir=/,upperdir=$base/upper,workdir=$base/work" "$base/root"
    for d in proc sys dev dev/pts; do mount --rbind "/$d" "$base/root/$d"; done
    remove="$1"; modules="$2"; share="$3"; shift 3
    # The folders whose writes must outlive the overlay (the caller reads them afterwards).
    IFS=: read -r -a dirs <<<"$share"
    for d in "${dirs[@]}"; do
        [ -n "$d" ] && [ -d "$d" ] && mount --rbind "$d" "$base/root$d"
    done
    chroot "$base/root" /bin/bash -c "
        set -e
        if [ -n \"$remove\" ]; then
            DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq $remove >/dev/null
        fi
        if [ -n \"$modules\" ]; then
            python3 -m pip uninstall -y -q $modules >/dev/null 2>&1 || python3 -m pip uninstall -y -q --break-system-packages $modules >/dev/null
        fi
        echo \"without-device-lab: removed ${remove:-nothing} and the Python modules ${modules:-none}\" >&2
        cd \"\$1\"; shift
        exec \"\$@\"
    " without-device-lab "$@"
' without-device-lab "${remove[*]}" "$modules" "${WITHOUT_DEVICE_LAB_SHARE:-$PWD}" "$PWD" "$@"
