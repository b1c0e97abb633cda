#!/usr/bin/env python3
"""Tests of armsim.py: builds the kernels and firmware of this directory with
arm-none-eabi-gcc for both cores and checks armsim's output.

    python3 run_tests.py [--build-dir DIR]      (or: pytest run_tests.py)

- k_*.S: cycle kernels between MARK 1 and MARK 2; each file states its hand
  count from the TRM tables in `@ expect <cpu> cycles=<n> instructions=<n>`
  lines, compared exactly with armsim's mark 2 minus mark 1. A kernel runs on
  the cores it has expectations for; its exit code must be 0 (it checks its
  own results).
- k_loop.S again with --flash-wait-states 1: one more cycle per instruction.
- fw_hello.c: PUTC lines, a non-zero exit code (armsim still exits 0), the
  calibration marks, malloc through _sbrk.
- fw_errors.S: unmapped read, endless loop (instruction and cycle limits),
  write to flash, BKPT, Thumb-2 on cortex-m0plus (UDIV, ADD.W), entering the
  HardFault handler, an unaligned load on cortex-m0plus: exit status 3 and
  one stderr line.
- Firmware built for the other core is refused (exit status 2).
- Two runs give identical output.
- fw_bench.c: armsim's instructions per second (reported, not checked).

Environment: ARM_CC (default arm-none-eabi-gcc), PYTHON (default this one).
"""

import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ARM = os.path.dirname(HERE)
LAB = os.path.dirname(ARM)
ARMSIM = os.path.join(ARM, "armsim.py")
CC = os.environ.get("ARM_CC", "arm-none-eabi-gcc")
PYTHON = os.environ.get("PYTHON", sys.executable)
CPUS = {"cortex-m0plus": 32 * 1024, "cortex-m4": 256 * 1024}

_build_dir = None
_built = {}


def build_dir():
    global _build_dir
    if _build_dir is None:
        _build_dir = os.environ.get("ARM_LAB_BUILD") or tempfile.mkdtemp(prefix="armsim-tests-")
        os.makedirs(_build_dir, exist_ok=True)
    return _build_dir


def build(src, cpu, defines=()):
    """Link src with startup.c and link.ld for cpu; returns the ELF path."""
    key = (src, cpu, tuple(defines))
    if key in _built:
        return _built[key]
    tag = "".join(d.replace("-D", "_").replace("=", "") for d in defines)
    elf = os.path.join(build_dir(), f"{os.path.splitext(src)[0]}{tag}_{cpu}.elf")
    cmd = [CC, f"-mcpu={cpu}", "-mthumb", "-mfloat-abi=soft", "-Os", "-g",
           "-ffunction-sections", "-fdata-sections", "-I", LAB, "-I", HERE,
           "--specs=nano.specs", "-nostartfiles", "-T", os.path.join(ARM, "link.ld"),
           f"-Wl,--defsym=WB_RAM_SIZE={CPUS[cpu]}", "-Wl,--gc-sections", *defines,
           "-o", elf, os.path.join(ARM, "startup.c"), os.path.join(HERE, src)]
    if src.endswith(".c"):
        cmd[1:1] = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"build failed: {' '.join(cmd)}\n{r.stderr}")
    _built[key] = elf
    return elf


def armsim(elf, cpu, *args):
    r = subprocess.run([PYTHON, ARMSIM, "--cpu", cpu, *args, elf],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def events(stdout):
    """[(kind, fields...)] of armsim's stdout."""
    ev = []
    for line in stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in ("mark", "exit"):
            ev.append((kind, *map(int, rest.split())))
        elif kind == "out":
            ev.append((kind, rest))
        else:
            raise AssertionError(f"unexpected armsim output line: {line!r}")
    return ev


def mark_delta(stdout, first=1, second=2):
    marks = {e[1]: (e[2], e[3]) for e in events(stdout) if e[0] == "mark"}
    assert first in marks and second in marks, f"marks {first}/{second} missing:\n{stdout}"
    return marks[second][0] - marks[first][0], marks[second][1] - marks[first][1]


def exit_code(stdout):
    ex = [e for e in events(stdout) if e[0] == "exit"]
    assert len(ex) == 1, f"no single exit line:\n{stdout}"
    return ex[0][1]


def expectations(src):
    exp = {}
    with open(os.path.join(HERE, src)) as f:
        for line in f:
            m = re.match(r"@ expect (\S+) cycles=(\d+) instructions=(\d+)", line)
            if m:
                exp[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    assert exp, f"{src}: no expectations"
    return exp


def kernels():
    return sorted(f for f in os.listdir(HERE) if f.startswith("k_") and f.endswith(".S"))


# ---- tests ----------------------------------------------------------------

def test_kernels():
    failures = []
    for src in kernels():
        for cpu, want in expectations(src).items():
            rc, out, err = armsim(build(src, cpu), cpu)
            if rc != 0:
                failures.append(f"{src} {cpu}: armsim status {rc}: {err.strip()}")
                continue
            got = mark_delta(out)
            code = exit_code(out)
            status = "ok" if got == want and code == 0 else "FAIL"
            print(f"  {status:4} {src:14} {cpu:14} cycles {got[0]:4} (expected {want[0]:4})"
                  f"  instructions {got[1]:4} (expected {want[1]:4})  exit {code}")
            if got != want or code != 0:
                failures.append(f"{src} {cpu}: got {got}, expected {want}, exit code {code}")
    assert not failures, "\n".join(failures)


def test_flash_wait_states():
    for cpu, (cyc, ins) in expectations("k_loop.S").items():
        rc, out, err = armsim(build("k_loop.S", cpu), cpu, "--flash-wait-states", "1")
        assert rc == 0, err
        assert mark_delta(out) == (cyc + ins, ins), (cpu, mark_delta(out))


def test_hello():
    for cpu in CPUS:
        rc, out, err = armsim(build("fw_hello.c", cpu, ["-DEXIT_CODE=7"]), cpu)
        assert rc == 0, f"{cpu}: status {rc}: {err}"
        assert err == "", err
        ev = events(out)
        outs = [e[1] for e in ev if e[0] == "out"]
        assert outs == [f"hello from {cpu}", "sum 16500 heap 1", "no newline at exit"], outs
        assert exit_code(out) == 7
        # the marker itself: movs (1) + strb (2)
        assert mark_delta(out, 0x7E, 0x7F) == (3, 2), mark_delta(out, 0x7E, 0x7F)
        cyc, ins = mark_delta(out)
        assert cyc > ins > 100, (cyc, ins)
        ex = [e for e in ev if e[0] == "exit"][0]
        last_mark = [e for e in ev if e[0] == "mark"][-1]
        assert ex[2] > last_mark[2] and ex[3] > last_mark[3]


def test_exit_zero():
    rc, out, _ = armsim(build("fw_hello.c", "cortex-m4", ["-DEXIT_CODE=0"]), "cortex-m4")
    assert rc == 0 and exit_code(out) == 0


ERRORS = [
    (1, "read of unmapped memory at 0x30000000"),
    (2, "instruction limit exceeded"),
    (3, "write to read-only memory (flash) at 0x00000000"),
    (4, "CPU exception"),
    (7, "HardFault (vector 3)"),
]


def test_errors():
    for cpu in CPUS:
        for n, text in ERRORS:
            elf = build("fw_errors.S", cpu, [f"-DERR={n}"])
            rc, out, err = armsim(elf, cpu, "--max-instructions", "100000")
            assert rc == 3, f"ERR={n} {cpu}: status {rc}, stdout {out!r}, stderr {err!r}"
            lines = err.splitlines()
            assert len(lines) == 1 and text in lines[0], f"ERR={n} {cpu}: {err!r}"
            assert "mark 1 " in out, out  # output before the error is kept
    # Thumb-2 in M0+ firmware: UDIV (refused by the cycle model or by unicorn)
    # and ADD.W (which only unicorn's Cortex-M0 CPU model can refuse); both
    # run on the M4.
    for n, texts in ((5, ("unsupported instruction", "invalid instruction")),
                     (6, ("invalid instruction",))):
        rc, out, err = armsim(build("fw_errors.S", "cortex-m0plus", [f"-DERR={n}"]),
                              "cortex-m0plus")
        assert rc == 3 and len(err.splitlines()) == 1 and any(t in err for t in texts), \
            (n, rc, err)
        rc, out, err = armsim(build("fw_errors.S", "cortex-m4", [f"-DERR={n}"]), "cortex-m4")
        assert rc == 0 and exit_code(out) == 0, (n, rc, out, err)
    # an unaligned word load: a fault on ARMv6-M, fine on the M4
    rc, out, err = armsim(build("fw_errors.S", "cortex-m0plus", ["-DERR=8"]), "cortex-m0plus")
    assert rc == 3 and len(err.splitlines()) == 1 and "unaligned" in err, (rc, err)
    rc, out, err = armsim(build("fw_errors.S", "cortex-m4", ["-DERR=8"]), "cortex-m4")
    assert rc == 0 and exit_code(out) == 0, (rc, out, err)
    # the cycle limit too
    rc, out, err = armsim(build("fw_errors.S", "cortex-m4", ["-DERR=2"]), "cortex-m4",
                          "--max-cycles", "5000")
    assert rc == 3 and "cycle limit exceeded" in err, (rc, err)


def test_wrong_cpu():
    """Firmware built for one core is refused on the other (status 2)."""
    for built, run in (("cortex-m4", "cortex-m0plus"), ("cortex-m0plus", "cortex-m4")):
        rc, out, err = armsim(build("k_mul.S", built), run)
        assert rc == 2 and out == "" and len(err.splitlines()) == 1 \
            and f"rebuild with -mcpu={run}" in err, (built, run, rc, err)


def test_deterministic():
    for cpu in CPUS:
        elf = build("fw_hello.c", cpu, ["-DEXIT_CODE=7"])
        a, b = armsim(elf, cpu), armsim(elf, cpu)
        assert a == b, (a, b)
        elf = build("k_calls.S", cpu)
        assert armsim(elf, cpu) == armsim(elf, cpu)


def test_throughput():
    """Reports armsim's speed on fw_bench.c (asserts only that it ran)."""
    for cpu in CPUS:
        elf = build("fw_bench.c", cpu)
        t0 = time.perf_counter()
        rc, out, err = armsim(elf, cpu)
        wall = time.perf_counter() - t0
        assert rc == 0, err
        ex = [e for e in events(out) if e[0] == "exit"][0]
        cyc, ins = mark_delta(out)
        print(f"  {cpu:14} fw_bench: {ex[3]} instructions, {ex[2]} cycles in {wall:.2f} s "
              f"(process, incl. start-up): {ex[3] / wall / 1e6:.2f} M instructions/s; "
              f"work loop {ins} instructions, {cyc} cycles, CPI {cyc / ins:.3f}")


TESTS = [test_kernels, test_flash_wait_states, test_hello, test_exit_zero, test_errors,
         test_wrong_cpu, test_deterministic, test_throughput]


def main():
    global _build_dir
    args = sys.argv[1:]
    if args[:1] == ["--build-dir"] and len(args) == 2:
        _build_dir = args[1]
        os.makedirs(_build_dir, exist_ok=True)
    elif args:
        sys.stderr.write("usage: run_tests.py [--build-dir DIR]\n")
        return 2
    failed = 0
    for t in TESTS:
        print(f"== {t.__name__}")
        try:
            t()
        except AssertionError as e:
            failed += 1
            print(f"FAIL {t.__name__}: {e}")
    print(f"{len(TESTS) - failed}/{len(TESTS)} test groups passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
