"""The JSON NetworkMessage mapping (OPC 10000-14 section 7.2.5, v1.05; field values per
OPC 10000-6 section 5.4), a port of ``crates/uadp/src/json.rs`` on the dict model of
``uadp``. Runs on CPython and MicroPython (its own JSON reader: byte offsets in errors,
numbers kept as text, exact float conversion).

Two forms:

* reversible (the 1.05 typed form, Compact encoding): a Variant field is
  ``{"UaType":10,"Value":25.5}``, a DataValue field is flattened
  ``{"UaType":10,"Value":25.5,"Status":{"Code":n},"SourceTimestamp":"..."}``, a StatusCode
  is ``{"Code":n}``. What open62541 v1.5 reads and writes; JSON -> UADP -> JSON is lossless.
* non-reversible (untyped): a Variant field is the bare value ``25.5``, a DataValue field
  ``{"Value":25.5,"SourceTimestamp":"..."}``, a StatusCode ``{"Code":n,"Symbol":"Bad"}``.
  Reading takes the types from metadata; without it they are guessed (number -> Double,
  string -> String, ...).

Values: Int64/UInt64 as JSON strings, NaN/Infinity/-Infinity as strings, ByteString as
base64, DateTime as ISO 8601 (7 fraction digits at most), Guid upper case, a null
String/ByteString omits "Value", a null Variant is ``{}`` (``null`` untyped), a null array
is ``[]``; floats are printed as Rust's ``{}`` (``{:e}`` outside [1e-6, 1e21)).

Not carried by JSON (lost UADP -> JSON): GroupHeader, NetworkMessage timestamp and
picoseconds, PromotedFields, DataSetMessage picoseconds and valid bit, the field encoding
(reading picks DataValue when a field has status or timestamps), the PublisherId type,
Good (0) status codes. ``from_json`` keeps what JSON has and UADP has not (MessageId, field
names, the header layout) under the message's ``"json"`` key, which ``to_json`` uses, so
``to_json(from_json(text))`` gives the same text.
"""

import binascii
import struct
import sys

from wirebench_device import jsonio
from wirebench_device.pson import F64, f64_from_bits
from wirebench_device.uadp import (
    UadpError, _TYPE_ID, _TYPE_NAME, _is_int, _is_variant_field, _norm_metadata, _variant_parts,
    data_set_message, find_metadata, guid_from_bytes, guid_to_bytes, message, type_name,
)

__all__ = ["to_json", "from_json", "json_options", "iso8601", "parse_iso8601", "in_text_range",
           "base64_encode", "base64_decode", "format_float", "status_symbol", "MAX_DEPTH"]

_IMPL = getattr(getattr(sys, "implementation", None), "name", "cpython")
_EXACT_FLOAT_PARSE = _IMPL in ("cpython", "pypy")

MAX_DEPTH = 64

# ---------------------------------------------------------------------------
# DateTime <-> ISO 8601 (crates/uadp/src/time.rs)

_TICKS_PER_SEC = 10000000
_DAYS_1601_TO_1970 = 134774
MIN_TEXT = "0001-01-01T00:00:00Z"
MAX_TEXT = "9999-12-31T23:59:59Z"
_I64_MIN = -(1 << 63)
_I64_MAX = (1 << 63) - 1


def _civil_from_days(z):
    z += 719468
    era = z // 146097
    doe = z % 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def _days_from_civil(y, m, d):
    if m <= 2:
        y -= 1
    era = y // 400
    yoe = y % 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _days_in_month(y, m):
    if m in (1, 3, 5, 7, 8, 10, 12):
        return 31
    if m in (4, 6, 9, 11):
        return 30
    if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0:
        return 29
    return 28


def in_text_range(t):
    """Whether the DateTime ``t`` (ticks) lies in years 0001-9999 (exact text form)."""
    y = _civil_from_days((t // _TICKS_PER_SEC) // 86400 - _DAYS_1601_TO_1970)[0]
    return 1 <= y <= 9999


def iso8601(t):
    """ISO 8601 text of the DateTime ``t``: ``2000-01-01T00:00:15Z``,
    ``2024-05-06T07:08:09.1234567Z``; clamped to MIN_TEXT/MAX_TEXT outside 0001-9999."""
    secs = t // _TICKS_PER_SEC
    frac = t % _TICKS_PER_SEC
    days = secs // 86400
    sod = secs % 86400
    y, mo, d = _civil_from_days(days - _DAYS_1601_TO_1970)
    if y < 1:
        return MIN_TEXT
    if y > 9999:
        return MAX_TEXT
    s = "%04d-%02d-%02dT%02d:%02d:%02d" % (y, mo, d, sod // 3600, sod // 60 % 60, sod % 60)
    if frac:
        f = "%07d" % frac
        while f.endswith("0"):
            f = f[:-1]
        s += "." + f
    return s + "Z"


def _digits(b, lo, hi):
    if hi > len(b):
        return None
    v = 0
    for i in range(lo, hi):
        c = b[i]
        if c < 48 or c > 57:
            return None
        v = v * 10 + c - 48
    return v


def parse_iso8601(text):
    """Ticks of ``YYYY-MM-DDTHH:MM:SS[.fraction](Z|+-HH:MM)`` (fraction digits beyond 7 are
    truncated); None for anything else or a value outside the Int64 range."""
    b = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    if len(b) < 20 or b[4] != 45 or b[7] != 45 or b[10] not in (84, 116) or b[13] != 58 or b[16] != 58:
        return None
    y, mo, d = _digits(b, 0, 4), _digits(b, 5, 7), _digits(b, 8, 10)
    h, mi, s = _digits(b, 11, 13), _digits(b, 14, 16), _digits(b, 17, 19)
    if y is None or mo is None or d is None or h is None or mi is None or s is None:
        return None
    if not 1 <= mo <= 12 or d < 1 or d > _days_in_month(y, mo) or h > 23 or mi > 59 or s > 59:
        return None
    i = 19
    n = len(b)
    frac = 0
    if i < n and b[i] == 46:
        i += 1
        start = i
        while i < n and 48 <= b[i] <= 57:
            if i - start < 7:
                frac = frac * 10 + b[i] - 48
            i += 1
        if i == start:
            return None
        for _ in range(i - start, 7):
            frac *= 10
    if i >= n:
        return None
    c = b[i]
    if c in (90, 122) and i + 1 == n:
        off = 0
    elif c in (43, 45) and i + 6 == n and b[i + 3] == 58:
        oh, om = _digits(b, i + 1, i + 3), _digits(b, i + 4, i + 6)
        if oh is None or om is None or oh > 23 or om > 59:
            return None
        off = oh * 3600 + om * 60
        if c == 45:
            off = -off
    else:
        return None
    days = _days_from_civil(y, mo, d) + _DAYS_1601_TO_1970
    ticks = (days * 86400 + h * 3600 + mi * 60 + s - off) * _TICKS_PER_SEC + frac
    if ticks < _I64_MIN or ticks > _I64_MAX:
        return None
    return ticks


# ---------------------------------------------------------------------------
# base64 (RFC 4648 standard alphabet), as json.rs: padded on output; on input padding is
# optional (at most two '='), no whitespace, len % 4 != 1

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VAL = {}
for _i, _c in enumerate(_B64):
    _B64_VAL[_c] = _i


def base64_encode(b):
    return binascii.b2a_base64(bytes(b)).decode().rstrip("\n")


def base64_decode(text):
    """The bytes of base64 ``text``; None if it is not base64 (json.rs rules)."""
    t = text.rstrip("=")
    if len(text) - len(t) > 2 or len(t) % 4 == 1:
        return None
    out = bytearray()
    for i in range(0, len(t), 4):
        chunk = t[i:i + 4]
        n = 0
        j = 0
        for c in chunk:
            v = _B64_VAL.get(c)
            if v is None:
                return None
            n |= v << (18 - 6 * j)
            j += 1
        out += bytes(((n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF))[:len(chunk) - 1]
    return bytes(out)


# ---------------------------------------------------------------------------
# floats: Rust's Display / LowerExp text, exact decimal -> binary32/binary64


def _shortest(x, f32):
    """Shortest decimal D*10**K (D int) that reads back as ``x`` (> 0, finite) in binary32
    (f32) or binary64, as Rust's ``core::fmt`` finds it (flt2dec: Grisu, Dragon4 fallback):
    the first digit count where the truncated or the rounded-up digits lie in the rounding
    interval; when both do, the closer one, an exact tie rounding up. (serde_json's ryu,
    ``jsonio._shortest``, takes the even one on exact ties: 463557.625f32 prints as
    463557.63 here, 463557.62 there.)"""
    if isinstance(x, F64):
        bits = x.bits & 0x7FFFFFFFFFFFFFFF
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
    # in units of 2**(e-2): x = 4m; the interval (LO, HI), inclusive when m is even
    X = 4 * m
    HI = X + 2
    LO = X - 1 if (frac == 0 and ef > 1) else X - 2
    E2 = e - 2
    inclusive = m % 2 == 0
    # scale everything to integers: value(u) = u * 2**E2
    s2 = -E2 if E2 < 0 else 0
    base = 1 << (E2 + s2)  # value(u) * 2**s2 = u * base

    def cmp_pow10(k):  # sign of x - 10**k
        a, b = X * base, 1 << s2
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
    for p in range(1, 19):
        K = k10 - p + 1
        t10 = -K if K < 0 else 0
        f = base * 10 ** t10
        xs, los, his = X * f, LO * f, HI * f
        unit = (10 ** (K + t10)) << s2
        c = xs // unit
        lo_c, hi_c = c * unit, (c + 1) * unit
        down = los < lo_c or (inclusive and lo_c == los)
        up = hi_c < his or (inclusive and hi_c == his)
        if down and up:
            d = c + 1 if 2 * (xs - lo_c) >= unit else c
        elif down:
            d = c
        elif up:
            d = c + 1
        else:
            continue
        while d % 10 == 0:
            d //= 10
            K += 1
        return d, K
    raise AssertionError("no shortest representation for %r" % (x,))  # pragma: no cover


def format_float(x, f32=False):
    """``x`` as json.rs writes it: NaN/Infinity/-Infinity as JSON strings; otherwise Rust's
    ``{}`` (shortest round-trip digits of the f32/f64, no exponent) when 1e-6 <= |x| < 1e21
    or x == 0, else ``{:e}`` (``1e-7``, ``2.5e22``). ``x`` may be a pson.F64."""
    if isinstance(x, F64):
        return _format_f64(x)
    if x != x:
        return '"NaN"'
    if x - x != 0.0:
        return '"Infinity"' if x > 0 else '"-Infinity"'
    neg = x < 0 or (x == 0 and struct.pack("<d", x)[7] & 0x80 != 0)
    a = -x if neg else x
    if a == 0:
        return "-0" if neg else "0"
    d, k = _shortest(a, f32)
    s = str(d)
    n = len(s)
    if 1e-6 <= a < 1e21:
        if k >= 0:
            t = s + "0" * k
        elif n + k > 0:
            t = s[:n + k] + "." + s[n + k:]
        else:
            t = "0." + "0" * (-(n + k)) + s
    else:
        t = s[0] + ("." + s[1:] if n > 1 else "") + "e" + str(n + k - 1)
    return "-" + t if neg else t


_F64_1E_6 = F64(0x3EB0C6F7A0B5ED8D)  # the binary64 nearest 1e-6 (1e21 is exact)


def _format_f64(x):
    """format_float for a binary64 given by its bits (exact integer arithmetic)."""
    if (x.bits >> 52) & 0x7FF == 0x7FF:
        return format_float(x.value)  # NaN / +-inf: the port's float says the same
    neg = x.bits >> 63 == 1
    a = F64(x.bits & 0x7FFFFFFFFFFFFFFF)
    num, den = a._fraction()
    if num == 0:
        return "-0" if neg else "0"
    d, k = _shortest(a, False)
    s = str(d)
    n = len(s)
    # 1e-6 <= |x| < 1e21 with the binary64 bounds, as the f64 comparison does
    lo_n, lo_d = _F64_1E_6._fraction()
    if num * lo_d >= lo_n * den and num < 10 ** 21 * den:
        if k >= 0:
            t = s + "0" * k
        elif n + k > 0:
            t = s[:n + k] + "." + s[n + k:]
        else:
            t = "0." + "0" * (-(n + k)) + s
    else:
        t = s[0] + ("." + s[1:] if n > 1 else "") + "e" + str(n + k - 1)
    return "-" + t if neg else t


def _bitlen(x):
    return len(bin(x)) - 2 if x else 0


def _dec_to_float(neg, digits, exp10, f32):
    """The binary32 (f32) or binary64 value nearest to +-int(digits) * 10**exp10 (round
    half to even), with integers only; +-inf on overflow (as Rust's ``parse``)."""
    if f32:
        p, emin, emax, sign = 24, -149, 104, 1 << 31
    else:
        p, emin, emax, sign = 53, -1074, 971, 1 << 63
    inf = float("-inf") if neg else float("inf")
    d = int(digits) if digits else 0
    if d == 0:
        return -0.0 if neg else 0.0
    nd = len(str(d))
    if nd + exp10 > 311:
        return inf
    if nd + exp10 < -326:
        return -0.0 if neg else 0.0
    if exp10 >= 0:
        num, den = d * 10 ** exp10, 1
    else:
        num, den = d, 10 ** (-exp10)
    e = _bitlen(num) - _bitlen(den) - p
    top = 1 << p
    half = 1 << (p - 1)
    while True:
        if e < emin:
            e = emin
        if e >= 0:
            nn, dd = num, den << e
        else:
            nn, dd = num << (-e), den
        q = nn // dd
        if q >= top:
            e += 1
            continue
        if q < half and e > emin:
            e -= 1
            continue
        break
    r = nn - q * dd
    if 2 * r > dd or (2 * r == dd and q & 1):
        q += 1
        if q == top:
            q >>= 1
            e += 1
    if e > emax:
        return inf
    bits = q if q < half else ((e - emin + 1) << (p - 1)) | (q - half)
    if neg:
        bits |= sign
    if f32:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return f64_from_bits(bits)  # pson.F64 where the port's float cannot hold it


def _rust_parse_float(text, f32):
    """Rust's ``str::parse::<f32/f64>``: ``[+-]`` then digits with an optional '.' (at least
    one digit) and exponent, or inf/infinity/nan (any case). None when it does not parse."""
    s = text
    neg = False
    if s[:1] in ("+", "-"):
        neg = s[0] == "-"
        s = s[1:]
    low = s.lower()
    if low in ("inf", "infinity"):
        return float("-inf") if neg else float("inf")
    if low == "nan":
        return float("nan")
    mant, exp = s, 0
    for c in "eE":
        if c in mant:
            mant, es = mant.split(c, 1)
            if es[:1] in ("+", "-"):
                sg, es = es[0], es[1:]
            else:
                sg = "+"
            if not es or not _all_digits(es):
                return None
            exp = int(es) if sg == "+" else -int(es)
            break
    if "." in mant:
        ip, fp = mant.split(".", 1)
    else:
        ip, fp = mant, ""
    if not ip and not fp:
        return None
    if (ip and not _all_digits(ip)) or (fp and not _all_digits(fp)):
        return None
    if not f32 and _EXACT_FLOAT_PARSE:
        return float(("-" if neg else "") + (ip or "0") + "." + (fp or "0") + "e" + str(exp))
    return _dec_to_float(neg, ip + fp, exp - len(fp), f32)


def _all_digits(s):
    for c in s:
        if c < "0" or c > "9":
            return False
    return True


# ---------------------------------------------------------------------------
# A small JSON reader: a tree with byte offsets, numbers kept as text

_NULL, _BOOL, _NUM, _STR, _ARR, _OBJ = 0, 1, 2, 3, 4, 5


class _Node(object):
    def __init__(self, at, kind, v):
        self.at = at
        self.kind = kind
        self.v = v

    def get(self, key):
        if self.kind != _OBJ:
            return None
        for k, v in self.v:
            if k == key:
                return v
        return None

    def has_any(self, keys):
        for k in keys:
            if self.get(k) is not None:
                return True
        return False

    def bad(self):
        return UadpError("json_value", self.at)

    def str_(self):
        if self.kind != _STR:
            raise self.bad()
        return self.v

    def uint(self, hi):
        """An unsigned integer member in 0..hi (Rust ``parse::<u64>`` of the number text)."""
        if self.kind == _NUM and _all_digits(self.v):
            v = int(self.v)
            if v <= hi and v <= 0xFFFFFFFFFFFFFFFF:
                return v
        raise self.bad()


class _Parser(object):
    def __init__(self, b):
        self.b = b
        self.n = len(b)
        self.pos = 0

    def syntax(self):
        return UadpError("json_syntax", self.pos if self.pos < self.n else self.n)

    def peek(self):
        return self.b[self.pos] if self.pos < self.n else -1

    def ws(self):
        b, n, p = self.b, self.n, self.pos
        while p < n and b[p] in (32, 9, 10, 13):
            p += 1
        self.pos = p

    def lit(self, word):
        if self.b[self.pos:self.pos + len(word)] == word:
            self.pos += len(word)
            return True
        return False

    def digits(self):
        start = self.pos
        b, n = self.b, self.n
        while self.pos < n and 48 <= b[self.pos] <= 57:
            self.pos += 1
        return self.pos - start

    def number(self):
        start = self.pos
        if self.peek() == 45:
            self.pos += 1
        c = self.peek()
        if c == 48:
            self.pos += 1
        elif 49 <= c <= 57:
            self.digits()
        else:
            raise self.syntax()
        if self.peek() == 46:
            self.pos += 1
            if self.digits() == 0:
                raise self.syntax()
        if self.peek() in (101, 69):
            self.pos += 1
            if self.peek() in (43, 45):
                self.pos += 1
            if self.digits() == 0:
                raise self.syntax()
        return bytes(self.b[start:self.pos]).decode()

    def hex4(self):
        v = 0
        for _ in range(4):
            c = self.peek()
            if 48 <= c <= 57:
                d = c - 48
            elif 97 <= c <= 102:
                d = c - 87
            elif 65 <= c <= 70:
                d = c - 55
            else:
                raise self.syntax()
            v = (v << 4) | d
            self.pos += 1
        return v

    def string(self):
        if self.peek() != 34:
            raise self.syntax()
        self.pos += 1
        out = bytearray()
        b, n = self.b, self.n
        while True:
            run = self.pos
            p = run
            while p < n:
                c = b[p]
                if c == 34 or c == 92 or c < 0x20:
                    break
                p += 1
            self.pos = p
            out += b[run:p]
            c = self.peek()
            if c == 34:
                self.pos += 1
                return bytes(out).decode("utf-8")
            if c != 92:
                raise self.syntax()
            self.pos += 1
            if self.pos >= n:
                raise self.syntax()
            c = b[self.pos]
            self.pos += 1
            simple = {34: 34, 92: 92, 47: 47, 98: 8, 102: 12, 110: 10, 114: 13, 116: 9}.get(c)
            if simple is not None:
                out.append(simple)
            elif c == 117:
                at = self.pos - 2
                hi = self.hex4()
                if 0xD800 <= hi < 0xDC00:
                    if not self.lit(b"\\u"):
                        raise UadpError("json_syntax", at)
                    lo = self.hex4()
                    if not 0xDC00 <= lo < 0xE000:
                        raise UadpError("json_syntax", at)
                    cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                elif 0xDC00 <= hi < 0xE000:
                    raise UadpError("json_syntax", at)
                else:
                    cp = hi
                out += chr(cp).encode("utf-8")
            else:
                self.pos -= 1
                raise self.syntax()

    def parse(self):
        """One value covering the input (json.rs ``parse``), iteratively: the same errors at
        the same offsets as the recursive reader."""
        stack = []  # open containers: [node, key (objects)]
        while True:
            # ---- a value starts here
            self.ws()
            at = self.pos
            c = self.peek()
            node = None
            if c == 91 or c == 123:  # [ {
                if len(stack) >= MAX_DEPTH:
                    raise UadpError("depth_limit", at)
                self.pos += 1
                self.ws()
                if c == 91:
                    if self.peek() == 93:
                        self.pos += 1
                        node = _Node(at, _ARR, [])
                    else:
                        stack.append([_Node(at, _ARR, []), None])
                        continue
                else:
                    if self.peek() == 125:
                        self.pos += 1
                        node = _Node(at, _OBJ, [])
                    else:
                        top = [_Node(at, _OBJ, []), None]
                        top[1] = self._key()
                        stack.append(top)
                        continue
            elif c == 110:
                if not self.lit(b"null"):
                    raise self.syntax()
                node = _Node(at, _NULL, None)
            elif c == 116:
                if not self.lit(b"true"):
                    raise self.syntax()
                node = _Node(at, _BOOL, True)
            elif c == 102:
                if not self.lit(b"false"):
                    raise self.syntax()
                node = _Node(at, _BOOL, False)
            elif c == 34:
                node = _Node(at, _STR, self.string())
            elif c == 45 or 48 <= c <= 57:
                node = _Node(at, _NUM, self.number())
            else:
                raise self.syntax()
            # ---- attach to the open containers, closing those that end here
            while True:
                if not stack:
                    return node
                top = stack[-1]
                parent = top[0]
                if parent.kind == _OBJ:
                    parent.v.append((top[1], node))
                else:
                    parent.v.append(node)
                self.ws()
                c = self.peek()
                if c == 44:
                    self.pos += 1
                    if parent.kind == _OBJ:
                        top[1] = self._key()
                    break
                if c == (125 if parent.kind == _OBJ else 93):
                    self.pos += 1
                    stack.pop()
                    node = parent
                    continue
                raise self.syntax()

    def _key(self):
        self.ws()
        if self.peek() != 34:
            raise self.syntax()
        k = self.string()
        self.ws()
        if self.peek() != 58:
            raise self.syntax()
        self.pos += 1
        return k


def _parse(text):
    if isinstance(text, str):
        try:
            b = text.encode("utf-8")
        except UnicodeError:  # CPython str with a lone surrogate: not UTF-8 text
            i = 0
            while i < len(text) and not 0xD800 <= ord(text[i]) <= 0xDFFF:
                i += 1
            raise UadpError("invalid_utf8", len(text[:i].encode("utf-8")))
    else:
        from wirebench_device.uadp import _utf8

        b = bytes(text)
        _utf8(b, 0)
    p = _Parser(b)
    root = p.parse()
    p.ws()
    if p.pos != p.n:
        raise p.syntax()
    return root


# ---------------------------------------------------------------------------
# Writing

_SYMBOLS = {
    0x00000000: "Good", 0x40000000: "Uncertain", 0x80000000: "Bad",
    0x80010000: "BadUnexpectedError", 0x80020000: "BadInternalError", 0x80030000: "BadOutOfMemory",
    0x80040000: "BadResourceUnavailable", 0x80050000: "BadCommunicationError",
    0x80060000: "BadEncodingError", 0x80070000: "BadDecodingError",
    0x80080000: "BadEncodingLimitsExceeded", 0x800A0000: "BadTimeout",
}


def status_symbol(code):
    """Symbolic name of a few StatusCodes (OPC 10000-6 A.2), InfoBits ignored; else None."""
    return _SYMBOLS.get(code & 0xFFFF0000)


_quote = jsonio.quote


def _field_name(meta, i):
    if meta is not None and i < len(meta["fields"]):
        name = meta["fields"][i].get("name")
        if name:
            return name
    return "Field%d" % i


def _pubid_text(p):
    if isinstance(p, str):
        return p
    v = p.get("value")
    return v if isinstance(v, str) else str(v)


class _Writer(object):
    def __init__(self, reversible):
        self.out = []
        self.rev = reversible

    def err(self, kind):
        return UadpError(kind, len("".join(self.out).encode("utf-8")))

    def key(self, first, k):
        if not first[0]:
            self.out.append(",")
        first[0] = False
        self.out.append(_quote(k))
        self.out.append(":")

    def network_message(self, m, o):
        msgs = m.get("messages") or []
        ids = m.get("data_set_writer_ids")
        if o["single_data_set_message"] and len(msgs) != 1:
            raise self.err("invalid_count")
        if ids is not None and len(ids) != len(msgs):
            raise self.err("invalid_count")
        pub = m.get("publisher_id")
        if o["network_message_header"]:
            self.out.append("{")
            first = [True]
            self.key(first, "MessageId")
            self.out.append(_quote(o["message_id"] or ""))
            self.key(first, "MessageType")
            self.out.append('"ua-data"')
            if pub is not None:
                self.key(first, "PublisherId")
                self.out.append(_quote(_pubid_text(pub)))
            if m.get("data_set_class_id") is not None:
                self.key(first, "DataSetClassId")
                g = guid_to_bytes(m["data_set_class_id"])
                if g is None:
                    raise self.err("type_mismatch")
                self.out.append(_quote(guid_from_bytes(g)))
            self.key(first, "Messages")
        if not o["single_data_set_message"]:
            self.out.append("[")
        for i in range(len(msgs)):
            if i > 0:
                self.out.append(",")
            writer = ids[i] if ids is not None else None
            self.data_set_message(msgs[i], writer, None if o["network_message_header"] else pub, o)
        if not o["single_data_set_message"]:
            self.out.append("]")
        if o["network_message_header"]:
            self.out.append("}")

    def data_set_message(self, d, writer, pub, o):
        meta = find_metadata(o["metadata"], writer)
        mt = d.get("message_type") or "KeyFrame"
        if not o["data_set_message_header"]:
            if mt == "KeepAlive":
                raise self.err("unrepresentable")
            self.payload(d, meta)
            return
        self.out.append("{")
        first = [True]
        if writer is not None:
            self.key(first, "DataSetWriterId")
            self.out.append(str(writer))
        if pub is not None:
            self.key(first, "PublisherId")
            self.out.append(_quote(_pubid_text(pub)))
        if d.get("sequence_number") is not None:
            self.key(first, "SequenceNumber")
            self.out.append(str(d["sequence_number"]))
        major, minor = d.get("config_version_major"), d.get("config_version_minor")
        if major is not None or minor is not None:
            self.key(first, "MetaDataVersion")
            self.out.append("{")
            f = [True]
            if major is not None:
                self.key(f, "MajorVersion")
                self.out.append(str(major))
            if minor is not None:
                self.key(f, "MinorVersion")
                self.out.append(str(minor))
            self.out.append("}")
        if d.get("timestamp") is not None:
            self.key(first, "Timestamp")
            self.datetime(d["timestamp"])
        s = d.get("status")
        if s is not None:
            self.key(first, "Status")
            self.status_code((s << 16) & 0xFFFFFFFF)
        if o["message_type"]:
            self.key(first, "MessageType")
            t = {"KeyFrame": "ua-keyframe", "DeltaFrame": "ua-deltaframe", "KeepAlive": "ua-keepalive"}.get(mt)
            if t is None:
                raise self.err("unrepresentable")
            self.out.append(_quote(t))
        if mt != "KeepAlive":
            self.key(first, "Payload")
            self.payload(d, meta)
        self.out.append("}")

    def payload(self, d, meta):
        mt = d.get("message_type") or "KeyFrame"
        self.out.append("{")
        first = [True]
        if mt == "KeyFrame":
            i = 0
            for f in d.get("fields") or []:
                self.key(first, _field_name(meta, i))
                self.field(f)
                i += 1
        elif mt == "DeltaFrame":
            for df in d.get("fields") or []:
                self.key(first, _field_name(meta, df.get("index")))
                self.field(df.get("value"))
        elif mt != "KeepAlive":
            raise self.err("unrepresentable")
        self.out.append("}")

    def field(self, f):
        if _is_variant_field(f):
            if self.rev:
                self.out.append("{")
                self.typed_members(f, [True])
                self.out.append("}")
            else:
                self.bare(f)
            return
        if not isinstance(f, dict):
            raise self.err("type_mismatch")
        self.out.append("{")
        first = [True]
        if f.get("value") is not None:
            if self.rev:
                self.typed_members(f["value"], first)
            else:
                self.key(first, "Value")
                self.bare(f["value"])
        s = f.get("status")
        if s is not None and s != 0:
            self.key(first, "Status")
            self.status_code(s)
        if f.get("source_timestamp") is not None:
            self.key(first, "SourceTimestamp")
            self.datetime(f["source_timestamp"])
        p = f.get("source_picoseconds")
        if p is not None and p != 0:
            self.key(first, "SourcePicoseconds")
            self.out.append(str(p))
        if f.get("server_timestamp") is not None:
            self.key(first, "ServerTimestamp")
            self.datetime(f["server_timestamp"])
        p = f.get("server_picoseconds")
        if p is not None and p != 0:
            self.key(first, "ServerPicoseconds")
            self.out.append(str(p))
        self.out.append("}")

    def parts(self, v):
        try:
            return _variant_parts(v)
        except (KeyError, AttributeError):
            raise self.err("type_mismatch")

    def typed_members(self, v, first):
        """``"UaType":n,"Value":v`` (nothing for a null Variant; no Value for a null
        String/ByteString scalar)."""
        ty, value, is_array = self.parts(v)
        if ty is None:
            return
        self.key(first, "UaType")
        self.out.append(str(_TYPE_ID[ty]))
        if not is_array and value is None and ty in ("String", "ByteString"):
            return
        self.key(first, "Value")
        self.bare(v)

    def bare(self, v):
        ty, value, is_array = self.parts(v)
        if ty is None:
            self.out.append("null")
        elif not is_array:
            self.scalar(ty, value)
        elif value is None:
            self.out.append("[]")
        else:
            self.out.append("[")
            i = 0
            for x in value:
                if i:
                    self.out.append(",")
                self.scalar(ty, x)
                i += 1
            self.out.append("]")

    def scalar(self, ty, v):
        o = self.out
        if ty == "Boolean":
            if not isinstance(v, bool):
                raise self.err("type_mismatch")
            o.append("true" if v else "false")
        elif ty in ("SByte", "Byte", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "StatusCode",
                    "DateTime"):
            if not _is_int(v):
                raise self.err("type_mismatch")
            if ty in ("Int64", "UInt64"):
                o.append('"%d"' % v)
            elif ty == "DateTime":
                self.datetime(v)
            elif ty == "StatusCode":
                self.status_code(v)
            else:
                o.append(str(v))
        elif ty == "Float" or ty == "Double":
            if isinstance(v, bool) or not isinstance(v, (int, float, F64)):
                raise self.err("type_mismatch")
            x = v if isinstance(v, F64) and ty == "Double" else float(v)
            if ty == "Float":
                try:
                    x = struct.unpack("<f", struct.pack("<f", x))[0]
                except OverflowError:
                    x = float("inf") if x > 0 else float("-inf")
            o.append(format_float(x, ty == "Float"))
        elif ty == "String":
            o.append("null" if v is None else _quote(v))
        elif ty == "Guid":
            g = guid_to_bytes(v)
            if g is None:
                raise self.err("type_mismatch")
            o.append(_quote(guid_from_bytes(g)))
        else:  # ByteString
            o.append("null" if v is None else '"' + base64_encode(v) + '"')

    def datetime(self, t):
        self.out.append('"' + iso8601(t) + '"')

    def status_code(self, c):
        """``{"Code":n}``; non-reversible adds ``"Symbol"`` when known. Good is ``{}``."""
        if c == 0:
            self.out.append("{}")
            return
        s = '{"Code":%d' % c
        if not self.rev:
            sym = status_symbol(c)
            if sym is not None:
                s += ',"Symbol":' + _quote(sym)
        self.out.append(s + "}")


_DEFAULTS = (("reversible", True), ("message_id", ""), ("metadata", None),
             ("network_message_header", True), ("data_set_message_header", True),
             ("single_data_set_message", False), ("message_type", True))


def json_options(msg):
    """The writing options a message read by ``from_json`` carries (its ``"json"`` key)."""
    j = msg.get("json") or {}
    out = {}
    for k, dflt in _DEFAULTS:
        v = j.get(k)
        out[k] = dflt if v is None else v
    return out


def to_json(msg, reversible=None, message_id=None, metadata=None, network_message_header=None,
            data_set_message_header=None, single_data_set_message=None, message_type=None):
    """Write a NetworkMessage dict as JSON text. Options left at None come from the
    message's ``"json"`` key (set by ``from_json``), else: reversible=True (typed 1.05
    form; False: untyped), message_id="", metadata=None (field names per writer id; a field
    without one is ``Field<i>``), network_message_header=True, data_set_message_header=True,
    single_data_set_message=False, message_type=True (``"MessageType":"ua-keyframe"``).
    Raises UadpError (offset: bytes of JSON written before the problem)."""
    o = json_options(msg)
    given = (("reversible", reversible), ("message_id", message_id), ("metadata", metadata),
             ("network_message_header", network_message_header),
             ("data_set_message_header", data_set_message_header),
             ("single_data_set_message", single_data_set_message), ("message_type", message_type))
    for k, v in given:
        if v is not None:
            o[k] = v
    o["metadata"] = _norm_metadata(o["metadata"])
    w = _Writer(bool(o["reversible"]))
    w.network_message(msg, o)
    return "".join(w.out)


# ---------------------------------------------------------------------------
# Reading

_DATA_VALUE_KEYS = ("Status", "StatusCode", "SourceTimestamp", "SourcePicoseconds", "SourcePicoSeconds",
                    "ServerTimestamp", "ServerPicoseconds")
_HEADER_KEYS = ("Payload", "DataSetWriterId", "SequenceNumber", "MessageType", "MetaDataVersion",
                "Timestamp", "Status")


def from_json(text, metadata=None, publisher_id_type=None):
    """Read a JSON NetworkMessage (any layout ``to_json`` writes) into a NetworkMessage
    dict. ``metadata`` gives field names -> indices (needed for delta frames) and the types
    of untyped values. ``publisher_id_type``: read the PublisherId text as "Byte", "UInt16",
    "UInt32" or "UInt64" (default: digits that fit in 64 bits, no leading zero, are a UInt64,
    other text a String). The result has a ``"json"`` key
    (message_id, reversible, the header layout, metadata with the field names) that
    ``to_json`` uses. Raises UadpError (offset: byte in the UTF-8 text)."""
    root = _parse(text)
    meta_in_list = _norm_metadata(metadata)
    pid_type = None if publisher_id_type is None else type_name(publisher_id_type)
    msg = message()
    js = {"message_id": None, "reversible": True, "network_message_header": False,
          "data_set_message_header": True, "single_data_set_message": False, "message_type": False,
          "metadata": []}
    is_nm = root.kind == _OBJ and root.has_any(("Messages", "MessageId"))
    if is_nm:
        js["network_message_header"] = True
        n = root.get("MessageId")
        if n is not None:
            js["message_id"] = n.str_()
        t = root.get("MessageType")
        if t is not None and t.str_() != "ua-data":
            raise UadpError("unrepresentable", t.at)
        p = root.get("PublisherId")
        if p is not None:
            msg["publisher_id"] = _publisher_id(p, pid_type)
        g = root.get("DataSetClassId")
        if g is not None:
            b = guid_to_bytes(g.str_())
            if b is None:
                raise g.bad()
            msg["data_set_class_id"] = guid_from_bytes(b)
        ms = root.get("Messages")
        if ms is None:
            dsms = []
        elif ms.kind == _OBJ:
            js["single_data_set_message"] = True
            dsms = [ms]
        elif ms.kind == _ARR:
            dsms = ms.v
        else:
            raise ms.bad()
    elif root.kind == _ARR:
        dsms = root.v
    elif root.kind == _OBJ:
        js["single_data_set_message"] = True
        dsms = [root]
    else:
        raise root.bad()
    if not dsms:
        raise UadpError("invalid_count", root.at)
    if len(dsms) > 255:
        raise UadpError("length_limit", root.at)
    headerless = True
    for d in dsms:
        if not (d.kind == _OBJ and not d.has_any(_HEADER_KEYS)):
            headerless = False
    js["data_set_message_header"] = not headerless
    # the form: untyped if any field value is (a bare value, or an untyped "Value")
    any_untyped = False
    for d in dsms:
        payload = d if headerless else d.get("Payload")
        if payload is not None and payload.kind == _OBJ:
            for _, v in payload.v:
                if v.kind == _OBJ:
                    if v.get("UaType") is None and v.has_any(("Value", "Code", "Symbol")):
                        any_untyped = True
                else:
                    any_untyped = True
    if any_untyped:
        js["reversible"] = False
    ids = []
    for d in dsms:
        dsm, writer, meta = _read_dsm(d, headerless, meta_in_list, pid_type, msg, js)
        msg["messages"].append(dsm)
        ids.append(writer)
        js["metadata"].append(meta)
    if all(i is not None for i in ids):
        msg["data_set_writer_ids"] = ids
    elif any(i is not None for i in ids) or len(msg["messages"]) != 1:
        # UADP has writer ids for all messages (PayloadHeader) or for none (one message)
        raise UadpError("unrepresentable", root.at)
    msg["json"] = js
    return msg


def _publisher_id(p, pid_type):
    t = p.str_()
    # Unconfigured: digits that fit in 64 bits (no leading zero) are a UInt64 PublisherId
    # (as open62541 reads them), other text a String.
    if pid_type is None and t and _all_digits(t) and (t == "0" or t[0] != "0") and int(t) <= 0xFFFFFFFFFFFFFFFF:
        return {"type": "UInt64", "value": int(t)}
    if pid_type is None or pid_type == "String":
        return {"type": "String", "value": t}
    limits = {"Byte": 0xFF, "UInt16": 0xFFFF, "UInt32": 0xFFFFFFFF, "UInt64": 0xFFFFFFFFFFFFFFFF}
    hi = limits.get(pid_type)
    if hi is None:
        raise p.bad()
    s = t[1:] if t[:1] == "+" else t  # Rust's u64 parse takes a leading '+'
    if not s or not _all_digits(s):
        raise p.bad()
    v = int(s)
    if v > hi:
        raise p.bad()
    return {"type": pid_type, "value": v}


def _read_dsm(d, headerless, meta_list, pid_type, msg, js):
    m = data_set_message()
    writer = None
    kind = "ua-keyframe"
    if headerless:
        payload = d
    else:
        if d.kind != _OBJ:
            raise d.bad()
        w = d.get("DataSetWriterId")
        if w is not None:
            writer = w.uint(0xFFFF)
        p = d.get("PublisherId")
        if p is not None and msg["publisher_id"] is None:
            msg["publisher_id"] = _publisher_id(p, pid_type)
        s = d.get("SequenceNumber")
        if s is not None:
            v = s.uint(0xFFFFFFFF)
            if v > 0xFFFF:
                raise UadpError("unrepresentable", s.at)
            m["sequence_number"] = v
        v = d.get("MetaDataVersion")
        if v is not None:
            x = v.get("MajorVersion")
            if x is not None:
                m["config_version_major"] = x.uint(0xFFFFFFFF)
            x = v.get("MinorVersion")
            if x is not None:
                m["config_version_minor"] = x.uint(0xFFFFFFFF)
        t = d.get("Timestamp")
        if t is not None:
            m["timestamp"] = _datetime(t)
        s = d.get("Status")
        if s is not None:
            code = _status_code(s)
            if code & 0xFFFF:
                raise UadpError("unrepresentable", s.at)
            # A Good status ({}) is still a status: kept on re-encode.
            m["status"] = code >> 16
        payload = d.get("Payload")
        t = d.get("MessageType")
        if t is not None:
            js["message_type"] = True
            kind = t.str_()
        elif payload is None:
            kind = "ua-keepalive"
    meta_in = find_metadata(meta_list, writer)
    meta_out = {"data_set_writer_id": writer, "fields": []}
    if payload is None:
        members = []
    elif payload.kind == _OBJ:
        members = payload.v
    else:
        raise payload.bad()
    if len(members) > 0xFFFF:
        raise UadpError("length_limit", d.at)
    untyped_form = not js["reversible"]
    as_data_value = False
    for _, v in members:
        if (v.has_any(_DATA_VALUE_KEYS) or (v.get("Value") is not None and v.get("UaType") is None)
                or (untyped_form and v.kind == _OBJ and not v.v)):
            as_data_value = True
            break
    m["field_encoding"] = "DataValue" if as_data_value else "Variant"
    fields = []  # (index or None, field)
    for name, node in members:
        index = None
        hint = None
        if meta_in is not None:
            mf = meta_in["fields"]
            for j in range(len(mf)):
                if mf[j]["name"] == name:
                    index = j
                    hint = mf[j]
                    break
        f = _data_value(node, hint) if as_data_value else _variant_field(node, hint)
        vv = f.get("value") if not _is_variant_field(f) else f
        try:
            bt, _, arr = _variant_parts(vv)
        except KeyError:  # pragma: no cover - the reader only makes known types
            bt, arr = None, False
        meta_out["fields"].append({
            "name": name,
            "type": hint["type"] if hint is not None else (bt if bt is not None else "String"),
            "array": hint["array"] if hint is not None else arr,
        })
        fields.append((index, f))
    if kind == "ua-keyframe":
        if meta_in is not None:
            if len(fields) == len(meta_in["fields"]) and all(i is not None for i, _ in fields):
                fields = sorted(fields, key=lambda p: p[0])
                meta_out["fields"] = [dict(f) for f in meta_in["fields"]]
        m["fields"] = [f for _, f in fields]
    elif kind == "ua-deltaframe":
        m["message_type"] = "DeltaFrame"
        delta = []
        for k in range(len(fields)):
            index, value = fields[k]
            if index is None:
                raise UadpError("missing_metadata", members[k][1].at)
            delta.append({"index": index, "value": value})
        if meta_in is not None:
            meta_out["fields"] = [dict(f) for f in meta_in["fields"]]
        m["fields"] = delta
    elif kind == "ua-keepalive":
        if members:
            raise d.bad()
        m["message_type"] = "KeepAlive"
    else:
        t = d.get("MessageType")
        raise UadpError("unrepresentable", t.at if t is not None else d.at)
    return m, writer, meta_out


def _variant_field(n, hint):
    """A Variant field value (typed ``{"UaType":...}``, ``{}``, or a bare value)."""
    if n.kind == _OBJ:
        status_hint = hint is not None and hint["type"] == "StatusCode" and not hint["array"]
        if n.get("UaType") is not None or (not n.v and not status_hint):
            return _typed_variant(n)
    return _untyped_variant(n, hint)


def _data_value(n, hint):
    """A DataValue field (``{"UaType":…,"Value":…,"Status":…,…}`` or without UaType)."""
    d = {"value": None, "status": None, "source_timestamp": None, "source_picoseconds": None,
         "server_timestamp": None, "server_picoseconds": None}
    if n.kind != _OBJ:
        d["value"] = _untyped_variant(n, hint)  # a bare value among DataValues
        return d
    if n.get("UaType") is not None:
        d["value"] = _typed_variant(n)
    else:
        v = n.get("Value")
        if v is not None:
            d["value"] = _untyped_variant(v, hint)
    s = n.get("Status")
    if s is None:
        s = n.get("StatusCode")
    if s is not None:
        c = _status_code(s)
        if c:
            d["status"] = c
    t = n.get("SourceTimestamp")
    if t is not None:
        d["source_timestamp"] = _datetime(t)
    p = n.get("SourcePicoseconds")
    if p is None:
        p = n.get("SourcePicoSeconds")
    if p is not None:
        d["source_picoseconds"] = p.uint(0xFFFF) or None
    t = n.get("ServerTimestamp")
    if t is not None:
        d["server_timestamp"] = _datetime(t)
    p = n.get("ServerPicoseconds")
    if p is None:
        p = n.get("ServerPicoSeconds")
    if p is not None:
        d["server_picoseconds"] = p.uint(0xFFFF) or None
    return d


def _typed_variant(n):
    """``{"UaType":n,"Value":…}`` (or ``{}`` for the null Variant)."""
    t = n.get("UaType")
    if t is None:
        return {"type": None, "value": None}
    tid = t.uint(255)
    if tid == 0:
        return {"type": None, "value": None}
    ty = _TYPE_NAME.get(tid)
    if ty is None:
        raise UadpError("unsupported_variant_type" if 16 <= tid <= 25 else "invalid_variant_type", t.at)
    dims = n.get("Dimensions")
    if dims is not None and not (dims.kind == _ARR and len(dims.v) <= 1):
        raise UadpError("unsupported_array_dimensions", dims.at)
    v = n.get("Value")
    if v is None:
        if ty == "String" or ty == "ByteString":
            return {"type": ty, "value": None}
        raise t.bad()
    if v.kind == _ARR:
        return {"type": ty, "value": [_scalar(it, ty) for it in v.v], "array": True}
    return {"type": ty, "value": _scalar(v, ty)}


def _guess(n):
    if n.kind == _BOOL:
        return "Boolean"
    if n.kind == _NUM:
        return "Double"
    if n.kind == _STR:
        return "String"
    if n.kind == _OBJ and n.has_any(("Code", "Symbol")):
        return "StatusCode"
    return None


def _untyped_variant(n, hint):
    """A bare value: typed by the metadata when given, else guessed from the JSON."""
    if hint is not None:
        if n.kind == _NULL:
            return {"type": None, "value": None}
        if n.kind == _ARR and hint["array"]:
            return {"type": hint["type"], "value": [_scalar(it, hint["type"]) for it in n.v], "array": True}
        if not hint["array"]:
            return {"type": hint["type"], "value": _scalar(n, hint["type"])}
        raise n.bad()
    if n.kind == _NULL:
        return {"type": None, "value": None}
    if n.kind == _ARR:
        if not n.v:
            ty = "Double"
        else:
            ty = _guess(n.v[0])
            if ty is None:
                raise n.v[0].bad()
        items = []
        for it in n.v:
            if _guess(it) != ty:
                raise it.bad()
            items.append(_scalar(it, ty))
        return {"type": ty, "value": items, "array": True}
    ty = _guess(n)
    if ty is None:
        raise n.bad()
    return {"type": ty, "value": _scalar(n, ty)}


def _datetime(n):
    t = parse_iso8601(n.str_())
    if t is None:
        raise n.bad()
    return t


def _status_code(n):
    if n.kind == _NUM:
        return n.uint(0xFFFFFFFF)
    if n.kind == _OBJ:
        c = n.get("Code")
        return 0 if c is None else c.uint(0xFFFFFFFF)
    if n.kind == _NULL:
        return 0
    raise n.bad()


def _rust_int(text):
    """``text.parse::<i128>()`` (a leading '+' or '-', digits); None when it does not parse."""
    s = text[1:] if text[:1] in ("+", "-") else text
    if not s or not _all_digits(s):
        return None
    return int(text[1:]) * (-1 if text[0] == "-" else 1) if text[:1] in ("+", "-") else int(text)


def _int(n, lo, hi, allow_string):
    """An integer from a JSON number (or, for 64-bit types, a string) within lo..hi."""
    if n.kind == _NUM or (allow_string and n.kind == _STR):
        text = n.v
    else:
        raise n.bad()
    v = _rust_int(text)
    if v is None:
        # 4.2e1 and 42.0 are integers too
        f = _rust_parse_float(text, False)
        if isinstance(f, F64):  # single-precision port: the exact value from the bits
            q = f._fraction()
            if q is None or q[1] != 1:
                raise n.bad()
            v = q[0]
        else:
            if f is None or f - f != 0.0 or abs(f) > 1.9e19 or float(int(f)) != f:
                raise n.bad()
            v = int(f)
    if v < lo or v > hi:
        raise n.bad()
    return v


def _float_text(n):
    if n.kind == _NUM:
        return n.v
    if n.kind == _STR and n.v in ("NaN", "Infinity", "-Infinity"):
        return n.v
    raise n.bad()


_INT_RANGES = {
    "SByte": (-128, 127), "Byte": (0, 255), "Int16": (-32768, 32767), "UInt16": (0, 0xFFFF),
    "Int32": (-(1 << 31), (1 << 31) - 1), "UInt32": (0, 0xFFFFFFFF),
    "Int64": (-(1 << 63), (1 << 63) - 1), "UInt64": (0, 0xFFFFFFFFFFFFFFFF),
}


def _scalar(n, ty):
    r = _INT_RANGES.get(ty)
    if r is not None:
        return _int(n, r[0], r[1], ty in ("Int64", "UInt64"))
    if ty == "Boolean":
        if n.kind != _BOOL:
            raise n.bad()
        return n.v
    if ty == "Float" or ty == "Double":
        f = _rust_parse_float(_float_text(n), ty == "Float")
        if f is None:  # pragma: no cover - JSON number text always parses
            raise n.bad()
        return f
    if ty == "String":
        if n.kind == _STR:
            return n.v
        if n.kind == _NULL:
            return None
        raise n.bad()
    if ty == "DateTime":
        return _datetime(n)
    if ty == "Guid":
        b = guid_to_bytes(n.str_())
        if b is None:
            raise n.bad()
        return guid_from_bytes(b)
    if ty == "ByteString":
        if n.kind == _STR:
            b = base64_decode(n.v)
            if b is None:
                raise n.bad()
            return b
        if n.kind == _NULL:
            return None
        raise n.bad()
    # StatusCode
    return _status_code(n)
