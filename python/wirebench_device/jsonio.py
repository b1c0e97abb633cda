"""JSON text <-> Python values the way the Rust side (serde_json, wirebench-core
``Value``) reads and writes it; for the command line and the tests.

Runs on CPython and MicroPython (whose ``json`` module neither keeps key order
nor parses floats exactly), so this is a small self-contained parser.

parse(text, pairs=False, markers=True)
    * objects keep key order: ``pson.MapType`` (dict on CPython, OrderedDict on
      MicroPython; duplicate keys: last wins) or, with ``pairs=True``,
      ``pson.Pairs`` (duplicates kept, like serde_json into wirebench ``Value``)
    * a number written with '.', 'e'/'E', or as ``-0``, or an integer outside
      [-2**63, 2**64-1], is a float (serde_json's rules); others are ints
    * floats are rounded correctly (exact integer arithmetic off CPython);
      a finite literal that overflows to infinity is an error, like serde_json;
      on a single-precision port a number that its float cannot hold exactly
      becomes ``pson.F64`` (the binary64 bits serde_json would read)
    * markers: ``{"$bytes":"hex"}`` -> bytes,
      ``{"$f64":"NaN"|"Infinity"|"-Infinity"}`` -> float
dump(value)
    compact JSON exactly as serde_json prints wirebench ``Value``: floats in
    shortest round-trip form (zmij's layout) (``F32`` values with the binary32 rules,
    ``F64`` values from their bits), non-finite
    floats and bytes as the markers above, strings escaped like serde_json.
"""

import binascii
import struct
import sys

from wirebench_device.pson import F32, F64, SINGLE_PRECISION, MapType, Pairs

_IMPL = getattr(getattr(sys, "implementation", None), "name", "cpython")
_EXACT_FLOAT_PARSE = _IMPL in ("cpython", "pypy")

_U64_MAX = 0xFFFFFFFFFFFFFFFF
_I64_MIN = -(1 << 63)
_WS = " \t\n\r"
_DIGITS = "0123456789"


def _bitlen(x):
    """Number of bits of a non-negative int (MicroPython ints lack bit_length)."""
    return len(bin(x)) - 2 if x else 0


# ---------------------------------------------------------------------------
# decimal <-> binary64/binary32, exactly


def _bits_to_f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


_F64_INF = 0x7FF << 52
_F64_SIGN = 1 << 63


def decimal_to_float(neg, digits, exp10):
    """The double nearest to +-int(digits) * 10**exp10 (round half to even),
    computed with integers only; +-inf on overflow. On a single-precision
    port: that double rounded to the port's float."""
    return _bits_to_f64(decimal_to_f64_bits(neg, digits, exp10))


def decimal_to_f64_bits(neg, digits, exp10):
    """The binary64 bits of the double nearest to +-int(digits) * 10**exp10
    (round half to even), computed with integers only; +-inf on overflow."""
    sgn = _F64_SIGN if neg else 0
    d = int(digits) if digits else 0
    if d == 0:
        return sgn
    nd = len(str(d))
    if nd + exp10 > 311:
        return sgn | _F64_INF
    if nd + exp10 < -326:
        return sgn
    if exp10 >= 0:
        num = d * 10 ** exp10
        den = 1
    else:
        num = d
        den = 10 ** (-exp10)
    e = _bitlen(num) - _bitlen(den) - 53
    while True:
        if e < -1074:
            e = -1074
        if e >= 0:
            nn, dd = num, den << e
        else:
            nn, dd = num << (-e), den
        q = nn // dd
        if q >= (1 << 53):
            e += 1
            continue
        if q < (1 << 52) and e > -1074:
            e -= 1
            continue
        break
    r = nn - q * dd
    if 2 * r > dd or (2 * r == dd and q & 1):
        q += 1
        if q == (1 << 53):
            q >>= 1
            e += 1
    if e > 971:
        return sgn | _F64_INF
    if q < (1 << 52):  # subnormal (e == -1074)
        bits = q
    else:
        bits = ((e + 1075) << 52) | (q - (1 << 52))
    return sgn | bits


def _parse_float_literal(lit):
    """Float value of a JSON number literal (already validated); on a
    single-precision port an F64 when its float cannot hold the value."""
    if _EXACT_FLOAT_PARSE:
        return float(lit)
    bits = _literal_f64_bits(lit)
    x = _bits_to_f64(bits)
    if SINGLE_PRECISION and (bits & _F64_INF) != _F64_INF and \
            struct.unpack("<Q", struct.pack("<d", x))[0] != bits:
        return F64(bits)
    return x


def _literal_f64_bits(lit):
    neg = lit.startswith("-")
    if neg:
        lit = lit[1:]
    mant, exp = lit, 0
    for c in "eE":
        if c in mant:
            mant, es = mant.split(c)
            exp = int(es)
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    return decimal_to_f64_bits(neg, ip + fp, exp - len(fp))


def _shortest(x, f32):
    """Shortest decimal D*10**K (D int) that rounds back to ``x`` (> 0, finite)
    as binary32 (f32=True) or binary64; among the shortest, the closest to x
    (ties: even D). The digits serde_json (zmij / ryu) prints."""
    if isinstance(x, F64):
        bits = x.bits & ~_F64_SIGN
        mb, bias = 52, 1023
    elif f32:
        bits = struct.unpack("<I", struct.pack("<f", x))[0]
        mb, bias = 23, 127
    else:
        bits = struct.unpack("<Q", struct.pack("<d", x))[0]
        mb, bias = 52, 1023
    ef = bits >> mb
    frac = bits & ((1 << mb) - 1)
    if ef == 0:
        m, e = frac, 1 - bias - mb
    else:
        m, e = frac | (1 << mb), ef - bias - mb
    # in units of 2**(e-2): x = 4m, the rounding interval is (lo, hi)
    X = 4 * m
    HI = X + 2
    LO = X - 1 if (frac == 0 and ef > 1) else X - 2
    E2 = e - 2
    inclusive = m % 2 == 0

    def cmp_pow10(k):  # sign of x - 10**k
        a, b = X, 1
        if E2 >= 0:
            a <<= E2
        else:
            b <<= -E2
        if k >= 0:
            b *= 10 ** k
        else:
            a *= 10 ** (-k)
        return (a > b) - (a < b)

    k10 = int(((_bitlen(m) - 1 + e) * 0.30102999566398120) // 1)
    while cmp_pow10(k10) < 0:
        k10 -= 1
    while cmp_pow10(k10 + 1) >= 0:
        k10 += 1
    for p in range(1, 18):
        K = k10 - p + 1
        t2 = -E2 if E2 < 0 else 0
        t10 = -K if K < 0 else 0
        f = (1 << (E2 + t2)) * 10 ** t10
        xs, los, his = X * f, LO * f, HI * f
        unit = (10 ** (K + t10)) << t2
        d0 = (2 * xs + unit) // (2 * unit)
        best = None
        best_dist = 0
        for d in (d0 - 1, d0, d0 + 1):
            if d <= 0:
                continue
            c = d * unit
            if los < c < his or (inclusive and (c == los or c == his)):
                dist = c - xs if c >= xs else xs - c
                if best is None or dist < best_dist or (dist == best_dist and d % 2 == 0):
                    best, best_dist = d, dist
        if best is not None:
            while best % 10 == 0:
                best //= 10
                K += 1
            return best, K
    raise AssertionError("no shortest representation for %r" % (x,))


def format_float(x, f32=False):
    """``x`` as serde_json prints a finite f64 (or f32 with f32=True): the
    shortest round-trip digits, fixed notation for decimal exponents -5..15
    (f32: -6..12), else ``d.ddde+NN`` (the zmij crate's layout, which is ryu's
    with a signed exponent). ``x`` may be an F64 (finite)."""
    if isinstance(x, F64):
        neg = x.bits >> 63 == 1
        if x.bits & ~_F64_SIGN == 0:
            return "-0.0" if neg else "0.0"
        d, k = _shortest(x, False)
    else:
        neg = x < 0 or (x == 0 and struct.pack("<d", x)[7] & 0x80 != 0)
        if x == 0:
            return "-0.0" if neg else "0.0"
        d, k = _shortest(-x if neg else x, f32)
    s = str(d)
    n = len(s)
    kk = n + k  # 10**(kk-1) <= |x| < 10**kk
    lim, low = (13, -6) if f32 else (16, -5)
    if 0 <= k and kk <= lim:
        t = s + "0" * k + ".0"
    elif 0 < kk <= lim:
        t = s[:kk] + "." + s[kk:]
    elif low < kk <= 0:
        t = "0." + "0" * (-kk) + s
    else:  # scientific, exponent always signed: 1e+300, 1.5e-7
        ex = kk - 1
        t = s if n == 1 else s[0] + "." + s[1:]
        t += ("e+" if ex >= 0 else "e-") + str(ex if ex >= 0 else -ex)
    return "-" + t if neg else t


# ---------------------------------------------------------------------------
# parse


class _Obj(object):
    def __init__(self):
        self.items = []
        self.key = None


def _err(msg, i):
    raise ValueError("%s at character %d" % (msg, i))


def _ws(s, i, n):
    while i < n and s[i] in _WS:
        i += 1
    return i


def _parse_string(s, i, n):
    """s[i] == '"'; returns (str, index after the closing quote)."""
    i += 1
    parts = []
    start = i
    while True:
        if i >= n:
            _err("EOF while parsing a string", i)
        c = s[i]
        if c == '"':
            parts.append(s[start:i])
            return "".join(parts), i + 1
        if c == "\\":
            parts.append(s[start:i])
            i += 1
            if i >= n:
                _err("EOF while parsing a string", i)
            c = s[i]
            if c == "u":
                cp, i = _hex4(s, i + 1, n)
                if 0xD800 <= cp <= 0xDBFF:
                    if s[i:i + 2] != "\\u":
                        _err("lone leading surrogate in hex escape", i)
                    lo, i = _hex4(s, i + 2, n)
                    if not 0xDC00 <= lo <= 0xDFFF:
                        _err("lone leading surrogate in hex escape", i)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                elif 0xDC00 <= cp <= 0xDFFF:
                    _err("lone trailing surrogate in hex escape", i)
                parts.append(chr(cp))
            else:
                r = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f",
                     "n": "\n", "r": "\r", "t": "\t"}.get(c)
                if r is None:
                    _err("invalid escape", i)
                parts.append(r)
                i += 1
            start = i
            continue
        if ord(c) < 0x20:
            _err("control character in string", i)
        i += 1


def _hex4(s, i, n):
    h = s[i:i + 4]
    if len(h) != 4:
        _err("EOF while parsing a string", n)
    for c in h:
        if c not in "0123456789abcdefABCDEF":
            _err("invalid escape", i)
    return int(h, 16), i + 4


def _parse_number(s, i, n):
    start = i
    if s[i] == "-":
        i += 1
    if i >= n or s[i] not in _DIGITS:
        _err("invalid number", i)
    if s[i] == "0":
        i += 1
        if i < n and s[i] in _DIGITS:
            _err("invalid number", i)
    else:
        while i < n and s[i] in _DIGITS:
            i += 1
    is_float = False
    if i < n and s[i] == ".":
        is_float = True
        i += 1
        if i >= n or s[i] not in _DIGITS:
            _err("invalid number", i)
        while i < n and s[i] in _DIGITS:
            i += 1
    if i < n and s[i] in "eE":
        is_float = True
        i += 1
        if i < n and s[i] in "+-":
            i += 1
        if i >= n or s[i] not in _DIGITS:
            _err("invalid number", i)
        while i < n and s[i] in _DIGITS:
            i += 1
    lit = s[start:i]
    if not is_float:
        v = int(lit)
        if lit != "-0" and _I64_MIN <= v <= _U64_MAX:
            return v, i
    f = _parse_float_literal(lit)
    if not isinstance(f, F64) and f - f != 0.0:
        _err("number out of range", start)
    return f, i


def _finish_obj(obj, pairs, markers):
    items = obj.items
    if markers and len(items) == 1 and isinstance(items[0][1], str):
        k, v = items[0]
        if k == "$bytes":
            try:
                if len(v) % 2:
                    raise ValueError
                return binascii.unhexlify(v)
            except Exception:
                raise ValueError('"$bytes" marker holds invalid hex %r' % (v,))
        if k == "$f64":
            if v == "NaN":
                return float("nan")
            if v == "Infinity":
                return float("inf")
            if v == "-Infinity":
                return float("-inf")
            raise ValueError('"$f64" marker must be NaN, Infinity or -Infinity, not %r' % (v,))
    if pairs:
        return Pairs(items)
    d = MapType()
    for k, v in items:
        d[k] = v
    return d


def parse(text, pairs=False, markers=True):
    """Parse one JSON value (see the module docstring). Iterative, so any
    nesting depth works on MicroPython's small stack. Raises ValueError."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    s = text
    n = len(s)
    i = _ws(s, 0, n)
    stack = []  # _Obj or list
    while True:
        # ---- one value at i (containers: push and continue with the first child)
        if i >= n:
            _err("EOF while parsing a value", i)
        c = s[i]
        if c == "{":
            i = _ws(s, i + 1, n)
            if i < n and s[i] == "}":
                value = _finish_obj(_Obj(), pairs, markers)
                i += 1
            else:
                obj = _Obj()
                if i >= n or s[i] != '"':
                    _err("key must be a string", i)
                obj.key, i = _parse_string(s, i, n)
                i = _ws(s, i, n)
                if i >= n or s[i] != ":":
                    _err("expected ':'", i)
                i = _ws(s, i + 1, n)
                stack.append(obj)
                continue
        elif c == "[":
            i = _ws(s, i + 1, n)
            if i < n and s[i] == "]":
                value = []
                i += 1
            else:
                stack.append([])
                continue
        elif c == '"':
            value, i = _parse_string(s, i, n)
        elif c == "-" or c in _DIGITS:
            value, i = _parse_number(s, i, n)
        elif s.startswith("true", i):
            value, i = True, i + 4
        elif s.startswith("false", i):
            value, i = False, i + 5
        elif s.startswith("null", i):
            value, i = None, i + 4
        else:
            _err("expected value", i)
        # ---- attach to the open containers, closing those that end here
        while True:
            if not stack:
                i = _ws(s, i, n)
                if i != n:
                    _err("trailing characters", i)
                return value
            top = stack[-1]
            is_obj = isinstance(top, _Obj)
            if is_obj:
                top.items.append((top.key, value))
            else:
                top.append(value)
            i = _ws(s, i, n)
            if i < n and s[i] == ",":
                i = _ws(s, i + 1, n)
                if is_obj:
                    if i >= n or s[i] != '"':
                        _err("key must be a string", i)
                    top.key, i = _parse_string(s, i, n)
                    i = _ws(s, i, n)
                    if i >= n or s[i] != ":":
                        _err("expected ':'", i)
                    i = _ws(s, i + 1, n)
                break
            if i < n and s[i] == ("}" if is_obj else "]"):
                i += 1
                stack.pop()
                value = _finish_obj(top, pairs, markers) if is_obj else top
                continue
            _err("expected ',' or '%s'" % ("}" if is_obj else "]"), i)


# ---------------------------------------------------------------------------
# dump

_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f",
                  "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(s):
    """A JSON string literal, escaped as serde_json does (non-ASCII kept)."""
    out = []
    start = 0
    i = 0
    for c in s:
        if c == '"' or c == "\\" or ord(c) < 0x20:
            out.append(s[start:i])
            r = _SHORT_ESCAPES.get(c)
            out.append(r if r is not None else "\\u%04x" % ord(c))
            start = i + 1
        i += 1
    out.append(s[start:])
    return '"' + "".join(out) + '"'


class _Raw(object):
    def __init__(self, text):
        self.text = text


_COMMA = _Raw(",")
_COLON = _Raw(":")
_CLOSE_ARRAY = _Raw("]")
_CLOSE_OBJ = _Raw("}")


def _nonfinite(x):
    if x != x:
        return '{"$f64":"NaN"}'
    return '{"$f64":"Infinity"}' if x > 0 else '{"$f64":"-Infinity"}'


def dump(value):
    """Compact JSON text of ``value`` (see the module docstring). Iterative."""
    out = []
    work = [value]
    while work:
        v = work.pop()
        if isinstance(v, _Raw):
            out.append(v.text)
        elif v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, int):
            out.append(str(v))
        elif isinstance(v, float):
            out.append(format_float(v) if v - v == 0.0 else _nonfinite(v))
        elif isinstance(v, F32):
            x = v.value
            out.append(format_float(x, True) if x - x == 0.0 else _nonfinite(x))
        elif isinstance(v, F64):
            finite = v.bits & _F64_INF != _F64_INF
            out.append(format_float(v) if finite else _nonfinite(v.value))
        elif isinstance(v, str):
            out.append(quote(v))
        elif isinstance(v, (bytes, bytearray, memoryview)):
            out.append('{"$bytes":"%s"}' % binascii.hexlify(bytes(v)).decode())
        elif isinstance(v, (list, tuple)):
            out.append("[")
            work.append(_CLOSE_ARRAY)
            first = True
            for item in reversed(list(v)):
                if not first:
                    work.append(_COMMA)
                work.append(item)
                first = False
        elif isinstance(v, (dict, Pairs)):
            items = list(v.items if isinstance(v, Pairs) else v.items())
            out.append("{")
            work.append(_CLOSE_OBJ)
            first = True
            for k, item in reversed(items):
                if not isinstance(k, str):
                    raise TypeError("JSON object keys must be str")
                if not first:
                    work.append(_COMMA)
                work.append(item)
                work.append(_COLON)
                work.append(_Raw(quote(k)))
                first = False
        else:
            raise TypeError("cannot write %s as JSON" % (type(v).__name__,))
    return "".join(out)
