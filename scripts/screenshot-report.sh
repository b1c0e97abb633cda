#!/usr/bin/env bash
# Screenshot an HTML report with headless Chromium and check that the page rendered.
#
#   scripts/screenshot-report.sh REPORT.html OUT.png [WIDTH] [HEIGHT]
#
# Fails (non-zero exit) when the browser logs a console error or an uncaught exception, when
# the page tries to load anything from the network, when the DOM dump is empty, when the image
# is blank (fewer than 2 % non-white pixels or fewer than 8 distinct colours), when a table is
# wider than the page at WIDTH (its columns would be hidden behind a scroll bar), or, with
# EXPECT_FIRST_SECTION set, when the first section after the provenance is another one.
# Installs Debian's chromium when it is missing (root only). Needs python3 (stdlib only).
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 REPORT.html OUT.png [WIDTH] [HEIGHT]" >&2
    exit 2
fi
html=$1
png=$2
width=${3:-1280}
height=${4:-4000}

if [ ! -f "$html" ]; then
    echo "no such file: $html" >&2
    exit 2
fi
html_abs=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
png_dir=$(dirname "$png")
mkdir -p "$png_dir"
png_abs=$(cd "$png_dir" && pwd)/$(basename "$png")

browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then
        browser=$b
        break
    fi
done
if [ -z "$browser" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing chromium (Debian package)" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
        browser=chromium
    else
        echo "chromium is not installed (apt-get install chromium)" >&2
        exit 2
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(
    --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --disable-dev-shm-usage --hide-scrollbars --force-device-scale-factor=1
    --enable-logging=stderr --v=0
)

rm -f "$png_abs"
status=0
timeout 120 "$browser" "${flags[@]}" --user-data-dir="$work/profile-shot" \
    --window-size="$width,$height" --screenshot="$png_abs" "file://$html_abs" \
    >"$work/shot.out" 2>"$work/shot.err" || status=$?
if [ "$status" != 0 ] || [ ! -s "$png_abs" ]; then
    echo "FAIL: chromium exited $status without a screenshot" >&2
    tail -20 "$work/shot.err" >&2
    exit 1
fi

timeout 120 "$browser" "${flags[@]}" --user-data-dir="$work/profile-dom" \
    --dump-dom "file://$html_abs" >"$work/dom.html" 2>"$work/dom.err" || {
    echo "FAIL: chromium --dump-dom failed" >&2
    tail -20 "$work/dom.err" >&2
    exit 1
}

# Tables that do not fit the page at this width (their wrapper would scroll, hiding columns):
# a copy of the page with a small script that measures each one after layout, read back from
# the DOM dump.
probe="$work/probe.html"
python3 - "$html_abs" "$probe" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
script = (
    "<script>addEventListener('load',function(){var bad=[];"
    "document.querySelectorAll('.table-wrap').forEach(function(w){"
    "if(w.scrollWidth>w.clientWidth+1){var c=w.querySelector('caption');"
    "bad.push((c?c.textContent:'(no caption)')+' ['+w.scrollWidth+' px in '+w.clientWidth+' px]');}});"
    "var h=[].map.call(document.querySelectorAll('h2'),function(e){return e.textContent;});"
    "var m=document.createElement('pre');m.id='wb-probe';"
    "m.textContent=JSON.stringify({clipped:bad,headings:h});document.body.appendChild(m);});</script>"
)
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", script + "</body>"))
PY
timeout 120 "$browser" "${flags[@]}" --user-data-dir="$work/profile-probe" --window-size="$width,$height" \
    --dump-dom "file://$probe" >"$work/probe-dom.html" 2>"$work/probe.err" || true

fail=0
python3 - "$work/probe-dom.html" "$width" "${EXPECT_FIRST_SECTION:-}" <<'PY' || fail=1
import html, json, re, sys
dom, width, first = open(sys.argv[1], encoding="utf-8", errors="replace").read(), sys.argv[2], sys.argv[3]
m = re.search(r'<pre id="wb-probe">(.*?)</pre>', dom, re.S)
if not m:
    sys.exit("FAIL: the layout probe did not run")
probe = json.loads(html.unescape(m.group(1)))
ok = True
if probe["clipped"]:
    print(f"FAIL: {len(probe['clipped'])} table(s) wider than the page at {width} px:")
    for c in probe["clipped"]:
        print("  " + c)
    ok = False
else:
    print(f"tables: every one fits at {width} px")
sections = [h for h in probe["headings"] if h.strip() != "Provenance"]
if first:
    if not sections or sections[0].strip() != first:
        print(f"FAIL: the first section is {sections[:1]}, not {first!r}")
        ok = False
    else:
        print(f"first section: {first}")
sys.exit(0 if ok else 1)
PY
# References to anything outside the page (text that merely mentions a URL is fine).
if grep -noiE "(src|href|action|poster|srcset)=[\"']?(https?:)?//|url\([\"']?(https?:)?//|@import|<link[ >]" "$html_abs" \
    >"$work/external.txt"; then
    echo "FAIL: the page references external resources:" >&2
    head -20 "$work/external.txt" | sed 's/^/  /' >&2
    fail=1
fi
# Console errors and uncaught exceptions from the page.
if grep -hE "Uncaught|ERROR:CONSOLE|CONSOLE\([0-9]+\).*(Error|error)" "$work/shot.err" "$work/dom.err" >"$work/console.txt"; then
    echo "FAIL: browser console errors:" >&2
    sed 's/^/  /' "$work/console.txt" >&2
    fail=1
fi
# Anything the page tried to fetch (it must be self-contained).
if grep -hiE "net::ERR_|Failed to load resource" "$work/shot.err" "$work/dom.err" >"$work/net.txt"; then
    echo "FAIL: the page tried to load resources:" >&2
    sed 's/^/  /' "$work/net.txt" >&2
    fail=1
fi

python3 - "$png_abs" "$work/dom.html" <<'PY' || fail=1
import struct, sys, zlib

png_path, dom_path = sys.argv[1], sys.argv[2]

def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("FAIL: not a PNG file")
    pos, idat, meta = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            meta = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = meta
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit(f"FAIL: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = read_png(png_path)
colours = set()
non_white = 0
for line in rows:
    for x in range(0, len(line), bpp):
        px = line[x:x + 3]
        colours.add(px)
        if px[0] < 245 or px[1] < 245 or px[2] < 245:
            non_white += 1
total = w * h
share = 100.0 * non_white / total
dom = open(dom_path, encoding="utf-8", errors="replace").read()
svgs = dom.count("<svg")
print(f"screenshot {png_path}: {w}x{h}, {share:.1f}% non-white pixels, {len(colours)} distinct colours; DOM {len(dom)} bytes, {svgs} svg elements")
ok = True
if share < 2.0:
    print("FAIL: the image is almost blank (< 2 % non-white pixels)")
    ok = False
if len(colours) < 8:
    print("FAIL: fewer than 8 distinct colours")
    ok = False
if len(dom) < 200 or "<body" not in dom:
    print("FAIL: the DOM dump is empty")
    ok = False
sys.exit(0 if ok else 1)
PY

if [ "$fail" != 0 ]; then
    exit 1
fi
echo "OK: $png_abs"
