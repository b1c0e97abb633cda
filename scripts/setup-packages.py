#!/usr/bin/env python3
"""setup-packages.py debian|pip [PART ...] - what the parts of crates/wirebench-measure/data/setup.toml
miss on this machine: the Debian packages (one line, space-separated) or the pip arguments (one
line per requirement, `-r PATH` for a requirements file of the checkout). No part named: every
part, the test suite's included. The same list and checks as `wirebench setup` (which the
test script cannot run before it has built wirebench)."""
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SBIN = ["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/local/bin"]


def present(need):
    if "program" in need:
        return any(shutil.which(p) or any(os.path.isfile(os.path.join(d, p)) for d in SBIN)
                   for p in need["program"].split("|"))
    if "file" in need:
        return any(os.path.exists(f) for f in need["file"].split("|"))
    if "dpkg" in need:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", need["dpkg"]],
                           capture_output=True, text=True)
        return r.returncode == 0 and "install ok installed" in r.stdout
    if "python" in need:
        return subprocess.run([sys.executable, "-c", "import " + need["python"]],
                              capture_output=True).returncode == 0
    raise SystemExit(f"setup.toml: a need without a check: {need}")


def needs(parts, name):
    p = parts[name]
    return needs(parts, p["same_as"]) if p.get("same_as") else p.get("need", [])


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("debian", "pip"):
        raise SystemExit(__doc__)
    with open(os.path.join(ROOT, "crates/wirebench-measure/data/setup.toml"), "rb") as f:
        parts = tomllib.load(f)
    names = sys.argv[2:] or list(parts)
    out = []
    for name in names:
        if name not in parts:
            raise SystemExit(f"setup-packages.py: unknown part {name!r} (known: {', '.join(parts)})")
        for n in needs(parts, name):
            if present(n):
                continue
            if sys.argv[1] == "debian":
                for d in n.get("debian", "").split():
                    if d not in out:
                        out.append(d)
            elif "pip" in n:
                p = n["pip"]
                p = "-r " + os.path.join(ROOT, p[len("requirements:"):]) if p.startswith("requirements:") else p
                if p not in out:
                    out.append(p)
    print((" " if sys.argv[1] == "debian" else "\n").join(out))


main()
