"""Scaffolding shared by the device-codec test modules, on CPython (pytest) and MicroPython
(tests/run_micropython.py): the package on sys.path, the interpreter, the environment, skips
and hex helpers."""

import binascii
import sys

try:
    import os
except ImportError:  # pragma: no cover
    os = None


def _dirname(path):
    path = path.replace("\\", "/")
    return path.rsplit("/", 1)[0] if "/" in path else "."


_HERE = _dirname(__file__)
_PYROOT = _HERE + "/.."
if _PYROOT not in sys.path:
    sys.path.insert(0, _PYROOT)

_IMPL = getattr(getattr(sys, "implementation", None), "name", "cpython")
CPYTHON = _IMPL == "cpython"


def _getenv(name):
    if os is not None and hasattr(os, "getenv"):
        return os.getenv(name)
    try:  # MicroPython has no environment: run_micropython.mjs writes this module
        import _test_env

        return getattr(_test_env, name, None)
    except ImportError:
        return None


class SkipTest(Exception):
    pass


def _skip(msg):
    try:
        import pytest
    except ImportError:
        raise SkipTest(msg)
    pytest.skip(msg)


def unhex(s):
    return binascii.unhexlify(s)


def hexs(b):
    return binascii.hexlify(bytes(b)).decode()


def exact_f64(bits):
    """The binary64 value ``bits`` as this port holds it exactly: a float when the
    port's float is that value, else pson.F64 (single-precision ports). Tests build
    doubles from bits: MicroPython's float literal parser is not always correctly
    rounded (1.25: 3.4028234663852886e38 reads one ulp off)."""
    import struct

    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    if struct.unpack("<Q", struct.pack("<d", x))[0] == bits:
        return x
    from wirebench_device.pson import F64

    return F64(bits)


def _test_name(i, name):
    s = []
    for c in str(name):
        s.append(c if (c.isalpha() or c.isdigit()) and ord(c) < 128 else "_")
    return "test_vector_%03d_%s" % (i, "".join(s))


def register_vector_tests(namespace, vectors, check):
    """One test function per vector, named after it, in the test module's `namespace`
    (its globals()), so pytest and the MicroPython runner list each vector on its own."""
    if not vectors:
        return

    def make(entry):
        def t():
            check(entry)

        return t

    for i, e in enumerate(vectors):
        namespace[_test_name(i, e.get("name", "unnamed"))] = make(e)
