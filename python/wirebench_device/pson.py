"""PSON v2 codec (spec shared/specs/pson.md section 1), for CPython >= 3.8 and MicroPython.

A port of the Rust reference crate ``crates/pson``: the same bytes on encode,
the same error kinds and byte offsets on decode.

Item layout::

    header byte = wire << 5 | p
    p in 0..30 -> the value/length/count is p; p == 31 -> an unsigned LEB128
    varint follows (the encoder escapes iff value >= 31; the decoder accepts
    the escape on every wire type)

    wire 0  unsigned integer v          wire 4  string, v UTF-8 bytes
    wire 1  integer -v (magnitude)      wire 5  bytes, v raw bytes
    wire 2  v=0: f32, v=1: f64 (LE)     wire 6  map, v (string key, value) pairs
    wire 3  0 false, 1 true, 2 null     wire 7  array, v items

Python mapping:

    encode  None, bool, int (-2**63 .. 2**64-1), float, F32, str,
            bytes/bytearray/memoryview, list/tuple, dict (iteration order),
            Pairs (ordered pairs, duplicates kept)
    decode  None, bool, int, float (or F32 with f32=True), str, bytes, list,
            dict (CPython) / collections.OrderedDict (MicroPython, whose dict
            does not keep insertion order) or Pairs with pairs=True

Floats are written with the spec's rule (1.5): integral, finite and in
[-2**63, 2**63) -> integer; exact in float32 -> 0x40 + f32 LE; otherwise
0x41 + f64 LE; NaN -> 41 000000000000f87f; -0.0 -> 00.

Single-precision ports (MicroPython built with MICROPY_FLOAT_IMPL_FLOAT:
esp32, rp2, esp8266, stm32, samd boards): a Python float there is a binary32
value, and the same rule applied to it gives what Rust's Encoder::f32 and
C's pson_write_f32 write (an integer, 0x40 + f32, or the NaN item; never
another 0x41 item). A binary64 value travels as F64 (its 64 IEEE-754 bits,
like C's pson_write_f64_bits where double is 32 bits wide): 0x41 items
decode to F64 there by default and F64 encodes with the rule applied to its
bits, so encode(decode(data)) == data as on double-precision ports. See
python/README.md, "Single-precision ports".

API: dumps, loads, load_prefix, encoded_len, PsonError, F32, Pairs.
Command line (CPython): python3 -m wirebench_device.pson decode|reencode HEX,
encode JSON.
"""

import struct
import sys

try:
    from collections import OrderedDict as _OrderedDict
except ImportError:  # pragma: no cover - MicroPython builds without collections
    _OrderedDict = None

__all__ = [
    "dumps", "loads", "load_prefix", "encoded_len", "PsonError", "F32", "F64", "Pairs",
    "MapType", "DEFAULT_MAX_DEPTH", "U64_MAX", "KINDS", "SINGLE_PRECISION", "main",
]

_IMPL = getattr(getattr(sys, "implementation", None), "name", "cpython")

# CPython/PyPy: dict keeps insertion order and bytes.decode('utf-8') is strict
# (rejects surrogates, overlong forms and code points above U+10FFFF), exactly
# like Rust's str::from_utf8. MicroPython: neither holds, so use OrderedDict
# and validate UTF-8 ourselves.
_STRICT_PLATFORM = _IMPL in ("cpython", "pypy")
if _STRICT_PLATFORM or _OrderedDict is None:
    MapType = dict
else:
    MapType = _OrderedDict

DEFAULT_MAX_DEPTH = 128

U64_MAX = 0xFFFFFFFFFFFFFFFF
_TWO_63 = 1 << 63
_TWO_63_F = float(_TWO_63)  # exact on every port (a power of two)

# True where the interpreter's float is binary32 (MicroPython built with
# MICROPY_FLOAT_IMPL_FLOAT): 1 + 2**-40 is 1 there and only there.
SINGLE_PRECISION = 1.0 + 2.0 ** -40 == 1.0

_ESCAPE = 0x1F

_WIRE_UINT = 0
_WIRE_NEG = 1
_WIRE_FLOAT = 2
_WIRE_DISCRETE = 3
_WIRE_STR = 4
_WIRE_BYTES = 5
_WIRE_MAP = 6
_WIRE_ARRAY = 7

# Canonical quiet NaN, as the Rust encoder writes for every NaN.
_NAN_ITEM = b"\x41\x00\x00\x00\x00\x00\x00\xf8\x7f"

# Error kinds: the snake_case names shared with the Rust crate (ErrorKind::name)
# and its one-line descriptions (ErrorKind::description).
KINDS = (
    ("unexpected_end", "unexpected end of input"),
    ("varint_too_long", "varint longer than 10 bytes"),
    ("invalid_float_width", "invalid float width (payload is not 0 or 1)"),
    ("invalid_discrete", "invalid discrete value (not false/true/null)"),
    ("non_string_key", "map key is not a string"),
    ("integer_overflow", "negative integer magnitude exceeds 2^63"),
    ("invalid_utf8", "invalid UTF-8 in string"),
    ("depth_limit", "nesting depth limit exceeded"),
    ("length_limit", "declared count exceeds the remaining input"),
    ("buffer_too_small", "output buffer too small"),
    ("trailing_bytes", "trailing bytes after the root item"),
    ("unknown_field_type", "unknown protoson field type"),
    ("length_mismatch", "item overruns its container's declared byte length"),
)
_DESCRIPTIONS = {}
for _k, _d in KINDS:
    _DESCRIPTIONS[_k] = _d


class PsonError(ValueError):
    """A decode (or encode range) error: ``kind`` is the Rust ErrorKind name
    (e.g. ``"unexpected_end"``), ``offset`` the byte offset of the problem.
    ``str(err)`` is one line ending in ``at byte N``, as in Rust."""

    def __init__(self, kind, offset):
        self.kind = kind
        self.offset = offset
        super().__init__(self._message())

    def _message(self):
        return "%s at byte %d" % (_DESCRIPTIONS.get(self.kind, self.kind), self.offset)

    def __str__(self):
        return self._message()

    def __repr__(self):
        return "PsonError(%r, %d)" % (self.kind, self.offset)


def _round_f32(x):
    """x rounded to the nearest binary32 value (overflow gives +-inf, NaN stays NaN)."""
    x = float(x)
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # CPython refuses finite values that round past FLT_MAX
        return float("inf") if x > 0 else float("-inf")


class F32(object):
    """Marks a float as binary32 (the value is rounded to float32 on creation).

    ``dumps`` widens it to f64 and applies the normal float rule (as Rust's
    ``Encoder::f32``), so ``F32(0.1)`` encodes as ``40 cdcccc3d`` while the
    plain float ``0.1`` encodes as ``41 9a9999999999b93f``. ``loads(...,
    f32=True)`` returns binary32 items as F32. Compares equal (by value) to
    F32 and plain numbers; ``.value`` is the float."""

    def __init__(self, x):
        if isinstance(x, F32):
            x = x.value
        self.value = _round_f32(x)

    def __float__(self):
        return self.value

    def __eq__(self, other):
        if isinstance(other, F32):
            other = other.value
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            return False
        return self.value == other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return "F32(%r)" % (self.value,)


def _f64_fraction(bits):
    """The exact value of binary64 ``bits`` as (numerator, denominator) in lowest
    terms (denominator a power of two; zeros give (0, 1), infinities (+-1, 0)),
    or None for a NaN."""
    sign = bits >> 63
    ef = (bits >> 52) & 0x7FF
    m = bits & 0xFFFFFFFFFFFFF
    if ef == 0x7FF:
        return None if m else ((-1 if sign else 1), 0)
    if ef:
        m |= 1 << 52
        e = ef - 1075
    else:
        e = -1074
    if m == 0:
        return (0, 1)
    while not m & 1:
        m >>= 1
        e += 1
    if sign:
        m = -m
    return (m << e, 1) if e >= 0 else (m, 1 << -e)


def _float_bits(x):
    """The binary64 bits of a float (exact: a binary32 float widens exactly)."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


class F64(object):
    """A binary64 value carried as its IEEE-754 bits (``.bits``, an int in
    0 .. 2**64-1), so that single-precision ports keep it exactly.

    ``dumps`` applies the float rule to the bits (integers, exact binary32 and
    every NaN as for a float; otherwise 41 + the 8 bytes), giving the bytes
    Rust's Encoder::f64 writes on every port. ``loads`` returns 0x41 items as
    F64 when the port's float cannot hold them (single-precision ports;
    ``f64=True`` asks for F64 everywhere).
    ``.value`` (and ``float(x)``) is the nearest float the port holds: exact
    on double-precision ports; on single-precision ones rounded to nearest
    (beyond +-FLT_MAX: +-inf; below the binary32 subnormals: +-0.0).
    Compares equal to F64, F32, int and float by exact value (NaN equals
    nothing)."""

    def __init__(self, bits):
        if isinstance(bits, F64):
            bits = bits.bits
        if isinstance(bits, bool) or not isinstance(bits, int):
            raise TypeError("F64 takes the binary64 bits as an int")
        if not 0 <= bits <= U64_MAX:
            raise ValueError("F64 bits outside 0 .. 2**64-1")
        self.bits = bits

    @staticmethod
    def from_float(x):
        """The F64 of the port's float ``x`` (exact: widening)."""
        return F64(_float_bits(float(x)))

    @property
    def value(self):
        return struct.unpack("<d", struct.pack("<Q", self.bits))[0]

    def __float__(self):
        return self.value

    def _fraction(self):
        return _f64_fraction(self.bits)

    def __eq__(self, other):
        if isinstance(other, F64):
            b = other.bits
        elif isinstance(other, F32):
            b = _float_bits(other.value)
        elif isinstance(other, float):
            b = _float_bits(other)
        elif isinstance(other, int) and not isinstance(other, bool):
            a = self._fraction()
            return a is not None and a[1] == 1 and a[0] == other
        else:
            return False
        a = self._fraction()
        return a is not None and a == _f64_fraction(b)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._fraction())

    def __repr__(self):
        return "F64(0x%016x)" % (self.bits,)


def f64_from_bits(bits, f64=None):
    """The binary64 ``bits`` as the decoders return them: ``f64=True`` F64;
    ``f64=False`` float (the nearest one on a single-precision port); None:
    float when the port's float is exactly that binary64 (same bits; always
    on double-precision ports), else F64."""
    if f64:
        return F64(bits)
    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    if f64 is None and SINGLE_PRECISION and _float_bits(x) != bits:
        return F64(bits)
    return x


class Pairs(object):
    """A PSON map as an ordered list of ``(key, value)`` pairs.

    Keeps key order on every platform and keeps duplicate keys (the wire
    format allows them; the Rust decoder keeps them too). ``dumps`` encodes
    it as a map; ``loads(..., pairs=True)`` returns every map as Pairs."""

    def __init__(self, items=None):
        self.items = [] if items is None else [(k, v) for k, v in items]

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __eq__(self, other):
        return isinstance(other, Pairs) and self.items == other.items

    def __ne__(self, other):
        return not self.__eq__(other)

    def append(self, key, value):
        self.items.append((key, value))

    def to_dict(self):
        """An insertion-ordered mapping; for duplicate keys the last value wins."""
        d = MapType()
        for k, v in self.items:
            d[k] = v
        return d

    def __repr__(self):
        return "Pairs(%r)" % (self.items,)


# ---------------------------------------------------------------------------
# Encoding


class _Counter(object):
    """Stands in for the output bytearray when only the length is wanted."""

    def __init__(self):
        self.n = 0

    def append(self, b):
        self.n += 1

    def extend(self, b):
        self.n += len(b)


def _header(out, wire, v):
    """Header byte (wire << 5 | v) for v < 31, else escape 31 + minimal LEB128."""
    if v < _ESCAPE:
        out.append((wire << 5) | v)
        return
    out.append((wire << 5) | _ESCAPE)
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _put_int(out, n):
    if n >= 0:
        if n > U64_MAX:
            raise PsonError("integer_overflow", len(out) if isinstance(out, bytearray) else out.n)
        _header(out, _WIRE_UINT, n)
    else:
        if n < -_TWO_63:
            raise PsonError("integer_overflow", len(out) if isinstance(out, bytearray) else out.n)
        _header(out, _WIRE_NEG, -n)


def _put_float(out, d):
    """The spec 1.5 rule, in order (same decisions as Rust classify_f64)."""
    if d != d:  # NaN
        out.extend(_NAN_ITEM)
        return
    if d - d == 0.0 and -_TWO_63_F <= d < _TWO_63_F:  # finite, in [-2^63, 2^63)
        i = int(d)  # truncates exactly
        if float(i) == d:  # integral (-0.0 gives 0)
            if i >= 0:
                _header(out, _WIRE_UINT, i)
            else:
                _header(out, _WIRE_NEG, -i)
            return
    try:
        b4 = struct.pack("<f", d)
    except OverflowError:  # CPython: |d| rounds past FLT_MAX -> not exact in f32
        b4 = None
    if b4 is not None and struct.unpack("<f", b4)[0] == d:
        out.append(0x40)
        out.extend(b4)
    else:
        out.append(0x41)
        out.extend(struct.pack("<d", d))


def _put_f64_bits(out, b):
    """The spec 1.5 rule on binary64 bits, with integers only (the decisions
    of C's pson_classify_f64_bits and Rust's classify_f64)."""
    sign = b >> 63
    ef = (b >> 52) & 0x7FF
    mant = b & 0xFFFFFFFFFFFFF
    if ef == 0x7FF:
        if mant:  # NaN
            out.extend(_NAN_ITEM)
        else:  # +-inf is exact in binary32
            out.append(0x40)
            out.extend(b"\x00\x00\x80\xff" if sign else b"\x00\x00\x80\x7f")
        return
    if ef == 0:
        if mant == 0:  # +0.0 and -0.0 -> 00
            out.append(0x00)
            return
        f32 = None  # a binary64 subnormal is neither integral nor exact in binary32
    else:
        e = ef - 1023
        sig = mant | (1 << 52)
        # 1. integral and in [-2^63, 2^63) -> integer
        if 0 <= e <= 62:
            if e >= 52 or mant & ((1 << (52 - e)) - 1) == 0:
                mag = sig << (e - 52) if e >= 52 else sig >> (52 - e)
                _header(out, _WIRE_NEG if sign else _WIRE_UINT, mag)
                return
        elif e == 63 and sign and mant == 0:  # exactly -2^63
            _header(out, _WIRE_NEG, _TWO_63)
            return
        # 2. exactly representable in binary32
        f32 = None
        if -126 <= e <= 127:
            if mant & ((1 << 29) - 1) == 0:
                f32 = (sign << 31) | ((e + 127) << 23) | (mant >> 29)
        elif -149 <= e < -126:  # binary32 subnormal k * 2^-149
            shift = -97 - e
            if sig & ((1 << shift) - 1) == 0:
                f32 = (sign << 31) | (sig >> shift)
    if f32 is not None:
        out.append(0x40)
        out.extend(struct.pack("<I", f32))
    else:
        out.append(0x41)
        out.extend(struct.pack("<Q", b))


def _put_str(out, s):
    b = s.encode("utf-8")
    _header(out, _WIRE_STR, len(b))
    out.extend(b)


def _encode_into(out, value):
    """Write one value. Iterative (explicit stack), so deep values do not
    exhaust the (small, on MicroPython) call stack; cycles raise ValueError."""
    stack = []  # [iterator, is_map, container id]
    active = set()
    v = value
    while True:
        # ---- write v (scalar, or a container header + push its iterator)
        if v is None:
            out.append(0x62)
        elif v is True:
            out.append(0x61)
        elif v is False:
            out.append(0x60)
        elif isinstance(v, int):
            _put_int(out, v)
        elif isinstance(v, float):
            _put_float(out, v)
        elif isinstance(v, F32):
            _put_float(out, v.value)
        elif isinstance(v, F64):
            _put_f64_bits(out, v.bits)
        elif isinstance(v, str):
            _put_str(out, v)
        elif isinstance(v, (bytes, bytearray, memoryview)):
            b = bytes(v)
            _header(out, _WIRE_BYTES, len(b))
            out.extend(b)
        elif isinstance(v, (list, tuple)):
            _header(out, _WIRE_ARRAY, len(v))
            if len(v):
                if id(v) in active:
                    raise ValueError("circular reference in value to encode")
                active.add(id(v))
                stack.append([iter(v), False, id(v)])
        elif isinstance(v, (dict, Pairs)):
            items = v.items if isinstance(v, Pairs) else v.items()
            _header(out, _WIRE_MAP, len(v))
            if len(v):
                if id(v) in active:
                    raise ValueError("circular reference in value to encode")
                active.add(id(v))
                stack.append([iter(items), True, id(v)])
        else:
            raise TypeError("cannot encode %s as PSON" % (type(v).__name__,))
        # ---- next child of the innermost open container
        while stack:
            top = stack[-1]
            try:
                nxt = next(top[0])
            except StopIteration:
                stack.pop()
                active.discard(top[2])
                continue
            if top[1]:
                k, nxt = nxt
                if not isinstance(k, str):
                    raise TypeError("PSON map keys must be str, not %s" % (type(k).__name__,))
                _put_str(out, k)
            v = nxt
            break
        else:
            return


def dumps(value):
    """Encode ``value`` as PSON v2; returns bytes (canonical, minimal form).

    Raises PsonError("integer_overflow", offset) for an int outside
    [-2**63, 2**64-1] (offset: where the item would start in the output),
    TypeError for a type PSON cannot carry or a non-str map key, ValueError
    for a container that contains itself."""
    out = bytearray()
    _encode_into(out, value)
    return bytes(out)


def encoded_len(value):
    """Exact number of bytes ``dumps(value)`` returns, without building them."""
    c = _Counter()
    _encode_into(c, value)
    return c.n


# ---------------------------------------------------------------------------
# Decoding


def _utf8_error_at(b):
    """Index of the first byte that does not start a well-formed UTF-8
    sequence (Rust's Utf8Error::valid_up_to), or -1 if ``b`` is valid."""
    n = len(b)
    i = 0
    while i < n:
        c = b[i]
        if c < 0x80:
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            need, lo, hi = 1, 0x80, 0xBF
        elif c == 0xE0:
            need, lo, hi = 2, 0xA0, 0xBF
        elif 0xE1 <= c <= 0xEC or c == 0xEE or c == 0xEF:
            need, lo, hi = 2, 0x80, 0xBF
        elif c == 0xED:  # no UTF-16 surrogates
            need, lo, hi = 2, 0x80, 0x9F
        elif c == 0xF0:
            need, lo, hi = 3, 0x90, 0xBF
        elif 0xF1 <= c <= 0xF3:
            need, lo, hi = 3, 0x80, 0xBF
        elif c == 0xF4:  # nothing above U+10FFFF
            need, lo, hi = 3, 0x80, 0x8F
        else:
            return i
        # a truncated or broken sequence is reported at its first byte
        if i + 1 >= n or not (lo <= b[i + 1] <= hi):
            return i
        j = 2
        while j <= need:
            if i + j >= n or not (0x80 <= b[i + j] <= 0xBF):
                return i
            j += 1
        i += need + 1
    return -1


def _utf8(raw, offset):
    try:
        s = raw.decode("utf-8")
    except Exception:  # UnicodeDecodeError (CPython) / UnicodeError (MicroPython)
        s = None
    if s is None or (not _STRICT_PLATFORM and len(s) != len(raw)):
        # failed, or non-ASCII on a platform whose decoder is lenient
        bad = _utf8_error_at(raw)
        if bad >= 0:
            raise PsonError("invalid_utf8", offset + bad)
        if s is None:
            raise PsonError("invalid_utf8", offset)
    return s


def _decode(data, max_depth, pairs, f32, f64):
    """Decode one root item; returns (value, consumed). Iterative like the
    Rust decode_with; the checks run in the same order so that the first
    error found (kind and offset) is the same."""
    if not isinstance(data, bytes):
        data = bytes(data)
    n = len(data)
    pos = 0
    # frames: [is_map, left, container, key (None while a key is due)]
    stack = []
    unpack = struct.unpack
    while True:
        if stack and stack[-1][1] == 0:
            frame = stack.pop()
            value = frame[2]
        else:
            key_due = bool(stack) and stack[-1][0] and stack[-1][3] is None
            start = pos
            if pos >= n:
                raise PsonError("unexpected_end", n)
            h = data[pos]
            pos += 1
            w = h >> 5
            if key_due and w != _WIRE_STR:
                raise PsonError("non_string_key", start)
            v = h & _ESCAPE
            if v == _ESCAPE:
                # unsigned LEB128: at most 10 bytes; bits beyond 64 dropped
                v = 0
                shift = 0
                while True:
                    if shift >= 64:
                        raise PsonError("varint_too_long", pos)
                    if pos >= n:
                        raise PsonError("unexpected_end", n)
                    b = data[pos]
                    pos += 1
                    v |= (b & 0x7F) << shift
                    if not b & 0x80:
                        break
                    shift += 7
                v &= U64_MAX
            if w == _WIRE_UINT:
                value = v
            elif w == _WIRE_NEG:
                if v > _TWO_63:
                    raise PsonError("integer_overflow", start)
                value = -v
            elif w == _WIRE_FLOAT:
                if v == 0:
                    if n - pos < 4:
                        raise PsonError("unexpected_end", n)
                    value = unpack("<f", data[pos:pos + 4])[0]
                    pos += 4
                    if f32:
                        value = F32(value)
                elif v == 1:
                    if n - pos < 8:
                        raise PsonError("unexpected_end", n)
                    value = f64_from_bits(unpack("<Q", data[pos:pos + 8])[0], f64)
                    pos += 8
                else:
                    raise PsonError("invalid_float_width", start)
            elif w == _WIRE_DISCRETE:
                if v == 0:
                    value = False
                elif v == 1:
                    value = True
                elif v == 2:
                    value = None
                else:
                    raise PsonError("invalid_discrete", start)
            elif w == _WIRE_STR or w == _WIRE_BYTES:
                if v > n - pos:
                    raise PsonError("unexpected_end", n)
                raw = data[pos:pos + v]
                body = pos
                pos += v
                if w == _WIRE_STR:
                    value = _utf8(raw, body)
                    if key_due:
                        stack[-1][3] = value
                        continue
                else:
                    value = raw
            else:
                # containers: the count must fit the remaining input (a map
                # pair needs >= 2 bytes, an array element >= 1), then depth
                if w == _WIRE_MAP:
                    if v > (n - pos) // 2:
                        raise PsonError("length_limit", start)
                else:
                    if v > n - pos:
                        raise PsonError("length_limit", start)
                if len(stack) >= max_depth:
                    raise PsonError("depth_limit", start)
                if w == _WIRE_MAP:
                    container = Pairs() if pairs else MapType()
                else:
                    container = []
                if v:
                    stack.append([w == _WIRE_MAP, v, container, None])
                    continue
                value = container
        # ---- attach value to its parent
        if not stack:
            return value, pos
        parent = stack[-1]
        if parent[0]:
            if pairs:
                parent[2].items.append((parent[3], value))
            else:
                parent[2][parent[3]] = value
            parent[3] = None
        else:
            parent[2].append(value)
        parent[1] -= 1


def load_prefix(data, max_depth=DEFAULT_MAX_DEPTH, pairs=False, f32=False, f64=None):
    """Decode the item at the start of ``data``; returns ``(value, consumed)``.
    Trailing bytes are allowed (as Rust ``decode``). Raises PsonError.

    max_depth: containers nested deeper fail with ``depth_limit`` (the root
    container is depth 1; empty containers count, scalars do not).
    pairs: return maps as Pairs (order and duplicate keys kept) instead of
    dict/OrderedDict (duplicate keys: last value wins).
    f32: return binary32 items as F32 instead of float.
    f64: True returns binary64 items as F64 (exact bits); False as float
    (on a single-precision port rounded to the nearest binary32: lossy,
    1e300 -> inf, 1e-300 -> 0.0, 2.3 -> 2.2999999523); None (the default)
    as float when the port's float is exactly that binary64 (always on
    double-precision ports) and as F64 otherwise (f64_from_bits)."""
    return _decode(data, max_depth, pairs, f32, f64)


def loads(data, max_depth=DEFAULT_MAX_DEPTH, pairs=False, f32=False, f64=None):
    """Decode exactly one item spanning all of ``data`` (as Rust
    ``decode_exact``): bytes after it fail with ``trailing_bytes`` at the
    first unconsumed byte. Options as for ``load_prefix``."""
    value, used = _decode(data, max_depth, pairs, f32, f64)
    if used != len(data):
        raise PsonError("trailing_bytes", used)
    return value


# ---------------------------------------------------------------------------
# Command line (used by the cross-language differential test)

_USAGE = """usage: python3 -m wirebench_device.pson decode HEX
       python3 -m wirebench_device.pson reencode HEX
       python3 -m wirebench_device.pson encode JSON

decode    print the value of the PSON item HEX as one line of JSON (keys in
          order, duplicates kept, bytes as {"$bytes":"hex"}, non-finite floats
          as {"$f64":"NaN"|"Infinity"|"-Infinity"})
reencode  print the canonical PSON encoding of the decoded item, in hex
encode    print the PSON encoding of the JSON text, in hex (a number written
          with '.', 'e' or as -0 is a float; the markers above are read)
A PSON error prints 'error <kind> <offset>' and exits 2."""


def _write_line(text):
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        out.write(text.encode("utf-8") + b"\n")
        out.flush()
    else:  # pragma: no cover - MicroPython without stdout.buffer
        sys.stdout.write(text + "\n")


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    import binascii

    # Use the package's module objects (not this file run as __main__), so
    # that Pairs/F32 are the classes jsonio knows.
    from wirebench_device import jsonio
    from wirebench_device import pson as codec

    if argv is None:
        argv = sys.argv[1:]
    if len(argv) != 2 or argv[0] not in ("decode", "reencode", "encode"):
        sys.stderr.write(_USAGE + "\n")
        return 64
    cmd, arg = argv
    try:
        if cmd == "encode":
            try:
                value = jsonio.parse(arg, pairs=True)
            except ValueError as e:
                _write_line("error json %s" % (e,))
                return 2
            _write_line(binascii.hexlify(codec.dumps(value)).decode())
            return 0
        try:
            data = binascii.unhexlify("".join(arg.split()))
        except Exception:
            _write_line("error hex invalid hex input")
            return 2
        value = codec.loads(data, pairs=True, f32=True)
        if cmd == "decode":
            _write_line(jsonio.dump(value))
        else:
            _write_line(binascii.hexlify(codec.dumps(value)).decode())
        return 0
    except codec.PsonError as e:
        _write_line("error %s %d" % (e.kind, e.offset))
        return 2


if __name__ == "__main__":
    sys.exit(main())
