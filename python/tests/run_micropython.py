"""A tiny test runner for interpreters without pytest (MicroPython).

Imports the test modules (test_pson, test_uadp), calls every module-level
function whose name starts with ``test_`` (sorted by name), and prints one
line per failure, one line per module and the closing line
``micropython: N passed, N failed, N skipped``. Works the same on CPython
(``python3 tests/run_micropython.py [--label NAME] [module ...]``) and on
MicroPython's unix port (``micropython -X heapsize=64M tests/run_micropython.py
--label micropython-f32``; run_tests.sh does).

run_micropython.mjs loads this file into MicroPython's WebAssembly port and
calls main(); as a script it exits 1 when a test failed.
"""

import sys


def _print_exc(e):
    pe = getattr(sys, "print_exception", None)
    if pe is not None:  # MicroPython
        pe(e)
        return
    import traceback

    traceback.print_exception(type(e), e, e.__traceback__)


MODULES = ("test_pson", "test_uadp")


def run_module(module_name, label):
    """Run one module's tests; returns (passed, failed, skipped)."""
    mod = __import__(module_name)
    skip_type = getattr(mod, "SkipTest", None)
    # the module dict, not dir(): MicroPython's dir() misses names added at
    # import time through globals() (the generated per-vector tests)
    space = getattr(mod, "__dict__", None) or dir(mod)
    names = sorted(n for n in space if n.startswith("test_"))
    passed = failed = skipped = 0
    for name in names:
        fn = getattr(mod, name)
        if not callable(fn):
            continue
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - a runner reports everything
            if skip_type is not None and isinstance(e, skip_type):
                skipped += 1
                print("SKIP %s.%s: %s" % (module_name, name, e))
                continue
            failed += 1
            print("FAIL %s.%s: %s: %s" % (module_name, name, type(e).__name__, e))
            _print_exc(e)
            continue
        passed += 1
    return passed, failed, skipped


def main(modules=MODULES, label=None):
    """Run the tests of ``modules`` (a name or a list of names); prints a line
    per module (when several) and the total; returns (passed, failed, skipped)."""
    if label is None:
        label = getattr(getattr(sys, "implementation", None), "name", "python")
    if isinstance(modules, str):
        modules = [modules]
    passed = failed = skipped = 0
    for m in modules:
        p, f, s = run_module(m, label)
        if len(modules) > 1:
            print("%s %s: %d passed, %d failed, %d skipped" % (label, m, p, f, s))
        passed += p
        failed += f
        skipped += s
    print("%s: %d passed, %d failed, %d skipped" % (label, passed, failed, skipped))
    return passed, failed, skipped


if __name__ == "__main__":
    here = __file__.replace("\\", "/").rsplit("/", 1)[0] if "/" in __file__.replace("\\", "/") else "."
    if here not in sys.path:
        sys.path.insert(0, here)
    args = sys.argv[1:]
    label = None
    if len(args) >= 2 and args[0] == "--label":
        label = args[1]
        args = args[2:]
    p, f, s = main(args or MODULES, label)
    sys.exit(1 if f or not p else 0)
