#!/usr/bin/env python3
"""fetch.py DEST [LIB...] - the peer C libraries of the device lab, from Debian's archive.

Each library is a Debian source package at a pinned version: the upstream tarball (and,
where the archive still serves it, Debian's own patch set) is downloaded from the Debian
pool, checked against its SHA-256 below, unpacked to DEST/<lib> and patched with Debian's
quilt series. Nothing of these libraries is kept in the repository. A library already
unpacked at the same version is left alone (DEST/<lib>/.wirebench-version).

Set WIREBENCH_DEBIAN_MIRROR to use another mirror (default http://deb.debian.org/debian).
Exit 0 when every library asked for is present, 1 with one line per failure otherwise.
"""
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

# name: (pool dir, upstream tarball, sha256, debian tarball or None, sha256, top dir in tarball)
LIBS = {
    "cjson": ("c/cjson", "cjson_1.7.15.orig.tar.gz",
              "5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2",
              "cjson_1.7.15-1+deb12u4.debian.tar.xz",
              "afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb", "cJSON-1.7.15"),
    "msgpuck": ("m/msgpuck", "msgpuck_1.0.3.orig.tar.gz",
                "0f2b0d44607bfd6cc3964e96c0567cf95fe824ef3261444d027abcd19825359d",
                "msgpuck_1.0.3-1.1.debian.tar.xz",
                "bc951d75062338e95fb0a61053a0667e3c96035b12b4790ed6e8d4bcc498face", "msgpuck_1.0.3"),
    "nanopb": ("n/nanopb", "nanopb_0.4.7.orig.tar.gz",
               "e1d89b166367a3c42d42311bdc2ed57ff78f86aede9a66828516e45490d48c81",
               "nanopb_0.4.7-2.debian.tar.xz",
               "c90421efbcc82316f4004849fa0ec36b028a024730f0eb3b66b71642b129c41e", "nanopb-0.4.7"),
    "tinycbor": ("t/tinycbor", "tinycbor_0.6.1.orig.tar.gz",
                 "0f9944496d1143935e9c996bc6233ca0dd5451299def33ef400a409942f8f34b",
                 None, None, "tinycbor-0.6.1"),
    "tinyxml2": ("t/tinyxml2", "tinyxml2_9.0.0+dfsg.orig.tar.xz",
                 "96510f47a5db537f70dff3e83dd71fd2180cbba4aa76c589a549467e7f34bc9b",
                 "tinyxml2_9.0.0+dfsg-3.1.debian.tar.xz",
                 "1b9a530419da20087e802b2cec913e477ccedd20d73f5e8afe4c095877e1e076", "tinyxml2-9.0.0"),
}


def download(url, sha256):
    with urllib.request.urlopen(url, timeout=60) as r:
        data = r.read()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise RuntimeError(f"{url}: SHA-256 {got} is not the pinned {sha256}")
    return data


def fetch(dest, name):
    pool, orig, orig_sha, deb, deb_sha, top = LIBS[name]
    version = f"{orig} {deb or '-'}"
    out = os.path.join(dest, name)
    stamp = os.path.join(out, ".wirebench-version")
    if os.path.exists(stamp) and open(stamp).read() == version:
        return
    mirror = os.environ.get("WIREBENCH_DEBIAN_MIRROR", "http://deb.debian.org/debian").rstrip("/")
    data = download(f"{mirror}/pool/main/{pool}/{orig}", orig_sha)
    # A folder of this process's own: several runs may fetch the same library at once.
    tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=dest)
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        t.extractall(tmp, filter="data")
    src = os.path.join(tmp, top)
    if deb:
        with tarfile.open(fileobj=io.BytesIO(download(f"{mirror}/pool/main/{pool}/{deb}", deb_sha))) as t:
            t.extractall(src, filter="data")
        series = os.path.join(src, "debian", "patches", "series")
        if os.path.exists(series):
            for line in open(series):
                patch = line.split("#")[0].strip()
                if not patch:
                    continue
                with open(os.path.join(src, "debian", "patches", patch.split()[0]), "rb") as p:
                    subprocess.run(["patch", "-s", "-p1", "-d", src], stdin=p, check=True)
    with open(os.path.join(src, ".wirebench-version"), "w") as f:
        f.write(version)
    try:
        if os.path.exists(stamp) and open(stamp).read() == version:
            return  # another run finished first
        old = None
        if os.path.exists(out):
            old = tempfile.mkdtemp(prefix=f".{name}-old-", dir=dest)
            os.rename(out, os.path.join(old, name))
        os.rename(src, out)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        # Lost a race with another run: use its copy when it is complete.
        if not (os.path.exists(stamp) and open(stamp).read() == version):
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if len(sys.argv) < 2:
        print("usage: fetch.py DEST [LIB...]", file=sys.stderr)
        return 2
    dest = sys.argv[1]
    names = sys.argv[2:] or list(LIBS)
    os.makedirs(dest, exist_ok=True)
    failed = 0
    for name in names:
        if name not in LIBS:
            print(f"fetch.py: unknown library {name!r} (known: {', '.join(LIBS)})", file=sys.stderr)
            return 2
        try:
            fetch(dest, name)
        except Exception as e:  # one line per library, the others still fetched
            print(f"fetch.py: {name}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
