#!/usr/bin/env python3
"""Self-test of avr_run against hand-counted code (see cycle_test.c).

usage: check_cycles.py AVR_RUN MCU OK.elf SLEEP.elf LOOP.elf
Runs OK.elf twice (identical output, the hand-counted marker deltas, an
`out ok` line and `exit 0`), SLEEP.elf (sleeps with interrupts off: status 3,
one stderr line) and LOOP.elf with --max-cycles 100000 (status 3, one line).
"""
import subprocess
import sys

# (start id, end id): (cycles, instructions), worked out in cycle_test.c
EXPECT = {(0x7E, 0x7F): (2, 2), (1, 2): (402, 303), (3, 4): (4003, 2004), (5, 6): (12, 6)}
EXPECT_3BYTE_PC = {(5, 6): (14, 6)}  # rcall / ret take one cycle more each


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: check_cycles.py AVR_RUN MCU OK.elf SLEEP.elf LOOP.elf")
    avr_run, mcu, ok_elf, sleep_elf, loop_elf = sys.argv[1:]
    expect = dict(EXPECT)
    if mcu in ("atmega2560", "atmega2561"):
        expect.update(EXPECT_3BYTE_PC)
    fails = []
    rc1, out1, err1 = run([avr_run, "--mcu", mcu, ok_elf])
    rc2, out2, _ = run([avr_run, "--mcu", mcu, ok_elf])
    if rc1 != 0 or err1:
        fails.append("status %d, stderr %r" % (rc1, err1))
    if out1 != out2 or rc1 != rc2:
        fails.append("two runs differ")
    marks, outs, exits = {}, [], []
    for line in out1.splitlines():
        f = line.split(" ")
        if f[0] == "mark" and len(f) == 4:
            marks[int(f[1])] = (int(f[2]), int(f[3]))
        elif f[0] == "out":
            outs.append(line[4:])
        elif f[0] == "exit" and len(f) == 4:
            exits.append(int(f[1]))
        else:
            fails.append("not a contract line: %r" % line)
    for (a, b), (cyc, ins) in sorted(expect.items()):
        if a not in marks or b not in marks:
            fails.append("marker %d or %d missing" % (a, b))
            continue
        got = (marks[b][0] - marks[a][0], marks[b][1] - marks[a][1])
        status = "ok" if got == (cyc, ins) else "FAIL"
        print("  avr_run cycles: mark %d -> %d: %d cycles, %d instructions (hand count %d, %d) %s"
              % (a, b, got[0], got[1], cyc, ins, status))
        if got != (cyc, ins):
            fails.append("mark %d -> %d" % (a, b))
    if outs != ["ok"] or exits != [0]:
        fails.append("output %r, exit %r" % (outs, exits))
    for elf, extra, what in ((sleep_elf, [], "sleep with interrupts off"),
                             (loop_elf, ["--max-cycles", "100000"], "cycle limit")):
        rc, out, err = run([avr_run, "--mcu", mcu] + extra + [elf])
        lines = err.splitlines()
        if rc != 3 or len(lines) != 1 or "exit " in out:
            fails.append("%s: status %d, stderr %r" % (what, rc, err))
        else:
            print("  avr_run %s: status 3: %s" % (what, lines[0]))
    rc, _, err = run([avr_run, "--mcu", "no_such_mcu", ok_elf])
    if rc == 0 or len(err.splitlines()) != 1:
        fails.append("unknown MCU: status %d, stderr %r" % (rc, err))
    for f in fails:
        print("FAIL avr_run: %s" % f)
    print("avr_run self-test (%s): %s" % (mcu, "FAIL" if fails else "pass"))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
