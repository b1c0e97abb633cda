#!/usr/bin/env bash
# Public schema sets nobody here wrote, fetched from package registries at test time (they are
# not committed) and checked against their SHA-256 sums:
#
#   sparkplug/sparkplug_b.proto      Eclipse Tahu's Sparkplug B payload, from the PyPI sdist of
#                                    pysparkplug 0.6.1 (byte-identical with tahu's file)
#   meshtastic/meshtastic/*.proto    Meshtastic's protobufs v2.7.21 (mesh.proto, telemetry.proto
#                                    and their imports), from the crates.io crate meshtastic 0.1.9
#   ros2/<pkg>/msg/*.idl             ROS 2's generated IDL of sensor_msgs/Imu and its includes,
#                                    from the PyPI wheels ros-sensor-msgs 5.5.1, ros-std-msgs
#                                    5.5.1, ros-geometry-msgs 5.5.1, ros-builtin-interfaces 2.3.0
#
# Usage: scripts/fetch-public-schemas.sh DIR   (DIR/.complete marks a finished fetch; a second
# call with the same DIR does nothing). Exit 0 with the sets in DIR, else 1 naming what failed.
set -euo pipefail

OUT=${1:?usage: fetch-public-schemas.sh DIR}
if [ -f "$OUT/.complete" ]; then
    exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

check() { # sha256 file
    echo "$1  $2" | sha256sum -c --quiet - || { echo "fetch-public-schemas: $2: unexpected checksum" >&2; exit 1; }
}

# Sparkplug B.
python3 -m pip download --quiet --no-cache-dir --no-deps --no-binary :all: -d "$TMP/spb" pysparkplug==0.6.1
mkdir -p "$OUT/sparkplug"
tar -xzf "$TMP/spb/pysparkplug-0.6.1.tar.gz" -C "$OUT/sparkplug" --strip-components=1 pysparkplug-0.6.1/sparkplug_b.proto
check 4432c5c483b7fb9732d0594c98a2e97dca5e517e39c5374a8b918d837f0b4a19 "$OUT/sparkplug/sparkplug_b.proto"

# Meshtastic: the crate is only downloaded (cargo fetch into a private CARGO_HOME), never built.
mkdir -p "$TMP/mesh/src"
cat > "$TMP/mesh/Cargo.toml" <<'TOML'
[package]
name = "fetch-meshtastic-protos"
version = "0.0.0"
edition = "2021"
[dependencies]
meshtastic = { version = "=0.1.9", default-features = false }
TOML
echo 'fn main() {}' > "$TMP/mesh/src/main.rs"
(cd "$TMP/mesh" && CARGO_HOME="$TMP/cargo-home" cargo fetch --quiet)
CRATE=$(ls "$TMP"/cargo-home/registry/cache/*/meshtastic-0.1.9.crate)
check 181991c1fd7812f0be99f7229daa8c3b4d77acbafd6f640c4d87b4eb4791cf70 "$CRATE"
mkdir -p "$OUT/meshtastic"
tar -xzf "$CRATE" -C "$OUT/meshtastic" --strip-components=3 --wildcards \
    'meshtastic-0.1.9/src/protobufs/meshtastic/*.proto' meshtastic-0.1.9/src/protobufs/nanopb.proto
test -f "$OUT/meshtastic/meshtastic/mesh.proto" && test -f "$OUT/meshtastic/meshtastic/telemetry.proto"

# ROS 2: the wheels are zip files; only the .idl and .msg files of the five messages are kept.
python3 -m pip download --quiet --no-cache-dir --no-deps --only-binary :all: -d "$TMP/ros" \
    --python-version 3.11 --platform manylinux_2_28_x86_64 \
    ros-sensor-msgs==5.5.1 ros-std-msgs==5.5.1 ros-geometry-msgs==5.5.1 ros-builtin-interfaces==2.3.0
python3 - "$OUT/ros2" "$TMP"/ros/*.whl <<'PY'
import os, re, sys, zipfile
out, wheels = sys.argv[1], sys.argv[2:]
want = {"sensor_msgs/msg/Imu", "std_msgs/msg/Header", "builtin_interfaces/msg/Time",
        "geometry_msgs/msg/Quaternion", "geometry_msgs/msg/Vector3"}
found = set()
for whl in wheels:
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            m = re.search(r"\.data/data/share/(.+)\.(idl|msg)$", n)
            if m and m.group(1) in want:
                dst = os.path.join(out, m.group(1) + "." + m.group(2))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "wb") as f:
                    f.write(z.read(n))
                found.add(m.group(1))
missing = want - found
if missing:
    sys.exit("fetch-public-schemas: not in the wheels: " + ", ".join(sorted(missing)))
PY
touch "$OUT/.complete"
