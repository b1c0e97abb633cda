#!/usr/bin/env python3
"""Check results files the way their users read them.

usage: check-results.py --wirebench BIN [--studies NAME,...] [--keep DIR] [RESULTS.json ...]

With --studies, runs each built-in study (`BIN run NAME --out DIR/NAME`) first and checks what
it wrote. For every results file:
  - it validates against docs/results.schema.json (JSON Schema 2020-12, `jsonschema` package);
  - `BIN report F -o csv` loads with `pandas.read_csv` unchanged: one frame with a `table`
    column, one row per table row;
  - `BIN report F -o csv --out D` writes one CSV per table, each of which loads as well;
  - `BIN report F -o table|md|html` renders (exit 0, not empty).
  - with a speed section, `BIN compare F F -o json` is JSON and `-o csv` loads in pandas with
    one row per case and numeric figure columns.
  - report.md carries what report.html shows: every section title, sub-heading and table
    caption of the page is a heading of the Markdown, and every table row of the page (the
    published figures beside ours included) is a row of a Markdown table.
Prints a line per check and closes with 'N passed, N failed'; exits 1 on any failure.
"""
import argparse
import html.parser
import io
import json
import re
import os
import subprocess
import sys
import tempfile
import time

import jsonschema
import pandas

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class PageParts(html.parser.HTMLParser):
    """The headings (h2, h3), table captions and table rows of a report page's <main>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.headings, self.rows = [], []
        self.main = False
        self.text = None  # collecting the text of a heading or caption
        self.cell = None  # collecting the text of a table cell
        self.row = None
        self.svg = 0

    def handle_starttag(self, tag, attrs):
        if tag == "main":
            self.main = True
        elif not self.main:
            return
        elif tag == "svg":
            self.svg += 1
        elif self.svg:
            return
        elif tag in ("h2", "h3", "caption"):
            self.text = []
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "main":
            self.main = False
        elif tag == "svg":
            self.svg -= 1
        elif tag in ("h2", "h3", "caption") and self.text is not None:
            self.headings.append(" ".join("".join(self.text).split()))
            self.text = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(tuple(self.row))
            self.row = None

    def handle_data(self, data):
        if self.svg:
            return
        if self.text is not None:
            self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


def markdown_parts(md):
    """The headings and table rows (cells, whitespace collapsed) of a Markdown report."""
    headings, rows = set(), set()
    for line in md.splitlines():
        m = re.match(r"#{2,3} (.*)", line)
        if m:
            headings.add(" ".join(m.group(1).split()))
        elif line.startswith("| ") and line.endswith(" |"):
            cells = re.split(r"(?<!\\) \| ", line[2:-2])
            rows.add(tuple(" ".join(c.replace("\\|", "|").split()) for c in cells))
    return headings, rows


def page_in_markdown(page, md):
    """What report.html shows that report.md lacks: (headings, table rows)."""
    p = PageParts()
    p.feed(page)
    headings, rows = markdown_parts(md)
    return [h for h in p.headings if h not in headings], [r for r in p.rows if r not in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wirebench", required=True)
    ap.add_argument("--studies", default="")
    ap.add_argument("--keep", help="write the study runs here (default: a temporary folder)")
    ap.add_argument("--run-args", default="", help="more arguments for each `run` (e.g. --ci)")
    ap.add_argument("results", nargs="*")
    args = ap.parse_args()
    with open(os.path.join(ROOT, "docs", "results.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    passed, failed = 0, 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok      {name}")
        else:
            failed += 1
            print(f"FAILED  {name}: {detail}")

    work = args.keep or tempfile.mkdtemp(prefix="wb-check-")
    files = list(args.results)
    for study in [s for s in args.studies.split(",") if s]:
        out = os.path.join(work, study)
        t0 = time.monotonic()
        r = subprocess.run([args.wirebench, "run", study, "--out", out, *args.run_args.split()],
                           capture_output=True, text=True)
        took = time.monotonic() - t0
        check(f"run {study} ({took:.0f} s)", r.returncode == 0, r.stderr.strip()[-2000:])
        if r.returncode == 0:
            files.append(os.path.join(out, "results.json"))

    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        check(
            f"{path}: valid against the results schema",
            not errors,
            "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5]),
        )
        r = subprocess.run([args.wirebench, "report", path, "-o", "csv"], capture_output=True, text=True)
        try:
            df = pandas.read_csv(io.StringIO(r.stdout))
            ok = r.returncode == 0 and "table" in df.columns and len(df) > 0
            check(f"{path}: report -o csv loads in pandas ({len(df)} rows, {df['table'].nunique()} tables)", ok, r.stderr)
        except Exception as e:  # noqa: BLE001 - any parse failure is the finding
            check(f"{path}: report -o csv loads in pandas", False, f"{type(e).__name__}: {e}")
        d = tempfile.mkdtemp(prefix="wb-csv-")
        r = subprocess.run([args.wirebench, "report", path, "-o", "csv", "--out", d], capture_output=True, text=True)
        names = sorted(os.listdir(d)) if r.returncode == 0 else []
        bad = []
        for n in names:
            try:
                pandas.read_csv(os.path.join(d, n))
            except Exception as e:  # noqa: BLE001
                bad.append(f"{n}: {e}")
        check(f"{path}: report -o csv --out DIR gives {len(names)} loadable CSV files", r.returncode == 0 and names and not bad, r.stderr + "; ".join(bad))
        # Every column is a snake_case name with its unit (no display labels such as "payload B").
        odd = sorted({c for n in names for c in pandas.read_csv(os.path.join(d, n), nrows=0).columns
                      if not re.fullmatch(r"[a-z0-9_.]+", str(c))})
        check(f"{path}: every CSV column is snake_case", not odd, ", ".join(map(repr, odd[:10])))
        # `compare` of a run with itself, as a script reads it: -o json is JSON, -o csv loads in
        # pandas with one row per case and the figures as numbers.
        if doc.get("speed"):
            rj = subprocess.run([args.wirebench, "compare", path, path, "-o", "json"], capture_output=True, text=True)
            rc = subprocess.run([args.wirebench, "compare", path, path, "-o", "csv"], capture_output=True, text=True)
            try:
                cases = json.loads(rj.stdout)["comparison"]["cases"]
                df = pandas.read_csv(io.StringIO(rc.stdout))
                numeric = ["old_ns", "new_ns", "change_ratio", "ci_low_ratio", "ci_high_ratio"]
                odd = [c for c in numeric if c not in df.columns or df[c].dtype.kind not in "if"]
                ok = rj.returncode == 0 and rc.returncode == 0 and len(df) == len(cases) > 0 and not odd
                check(f"{path}: compare -o json / -o csv in pandas ({len(df)} rows for {len(cases)} cases)", ok,
                      f"not numeric: {odd}; {rc.stderr[-300:]}")
            except Exception as e:  # noqa: BLE001 - any parse failure is the finding
                check(f"{path}: compare -o json / -o csv in pandas", False, f"{type(e).__name__}: {e}")
        shown = {}
        for kind in ("table", "md", "html"):
            r = subprocess.run([args.wirebench, "report", path, "-o", kind], capture_output=True)
            check(f"{path}: report -o {kind}", r.returncode == 0 and len(r.stdout) > 0, r.stderr.decode(errors="replace"))
            shown[kind] = r.stdout.decode(errors="replace")
        missing_h, missing_rows = page_in_markdown(shown["html"], shown["md"])
        check(f"{path}: report.md carries every heading, caption and table row of report.html",
              not missing_h and not missing_rows,
              f"{len(missing_h)} headings missing, the first {missing_h[:5]}; "
              f"{len(missing_rows)} table rows missing, the first {missing_rows[:3]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
