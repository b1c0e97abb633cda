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
