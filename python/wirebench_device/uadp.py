"""OPC UA PubSub UADP NetworkMessages (OPC 10000-14 section 7.2.4), for CPython >= 3.8
and MicroPython.

A port of the Rust reference crate ``crates/uadp``: the same bytes on encode, the same
error kinds (``ErrorKind::name``) at the same byte offsets on decode. The JSON mapping
(section 7.2.5) is in ``uadp_json`` (``to_json``/``from_json`` are re-exported here).

Data model: plain dicts, lists and scalars (``None`` always means "absent")::

    NetworkMessage = {
        "publisher_id":       None | {"type": "Byte"|"UInt16"|"UInt32"|"UInt64"|"String",
                                      "value": int | str},
        "data_set_class_id":  None | "EAE79794-1AF7-4F96-8401-4096CD1D8908"  (Guid text)
        "group_header":       None | {"writer_group_id": u16|None, "group_version": u32|None,
                                      "network_message_number": u16|None,
                                      "sequence_number": u16|None},
        "data_set_writer_ids": None (no PayloadHeader: exactly one message) | [u16, ...],
        "timestamp":          None | int (DateTime: 100 ns ticks since 1601-01-01),
        "picoseconds":        None | u16,
        "promoted_fields":    None | [Variant, ...],
        "messages":           [DataSetMessage, ...],
    }
    DataSetMessage = {
        "valid": True, "field_encoding": "Variant"|"RawData"|"DataValue"|"Reserved",
        "message_type": "KeyFrame"|"DeltaFrame"|"KeepAlive"|"Skipped",
        "sequence_number": u16|None, "timestamp": int|None, "picoseconds": u16|None,
        "status": u16|None (the high 16 bits of a StatusCode),
        "config_version_major": u32|None, "config_version_minor": u32|None,
        "fields": [Field, ...]                    (KeyFrame; [] for KeepAlive/Skipped)
                | [{"index": u16, "value": Field}, ...]   (DeltaFrame),
        "padding": 0 (zero bytes after the data; only with a Sizes array),
        "raw_type": int, "data": bytes            (Skipped only: DataSetFlags2 type, bytes)
    }
    Field   = Variant (Variant/RawData encodings) | DataValue (DataValue encoding)
    Variant = {"type": None, "value": None}                    null Variant (None is accepted)
            | {"type": "Float", "value": 25.5}                 scalar
            | {"type": "Float", "value": [1.5, 2.0], "array": True}   1-D array
            | {"type": "Int32", "value": None, "array": True}          null array
    DataValue = {"value": Variant|None, "status": u32|None, "source_timestamp": int|None,
                 "source_picoseconds": u16|None, "server_timestamp": int|None,
                 "server_picoseconds": u16|None}

Scalar values by built-in type: Boolean bool; SByte..UInt64 int; Float/Double float (a
Float is rounded to binary32); String str or None (null); DateTime int ticks; Guid str
(decoded upper case); ByteString bytes or None (null); StatusCode int (u32). A type may
also be given by its id (``10`` for Float). A field is a DataValue when it is a dict
without a ``"type"`` key.

RawData (no type bytes on the wire) needs DataSetMetaData to decode::

    metadata = [{"data_set_writer_id": 1000 | None,
                 "fields": [{"name": "t", "type": "Float", "array": False}, ...]}]

(a field may also be just a type name, ``"Float"``); the entry for a DataSetMessage is the
one with its writer id, else the first one without a writer id.

API::

    encode(msg) -> bytes            encoded_len(msg) -> int
    decode(data, metadata=None, skip_unknown=False) -> msg      (all of data)
    decode_prefix(data, ...) -> (msg, used)                     (trailing bytes allowed)
    to_json(msg, reversible=True, ...) -> str   from_json(text, metadata=None) -> msg
    view(msg) -> the open62541-style view printed by the command line
    UadpError(kind, offset): ValueError with .kind (Rust's snake_case name) and .offset

Encoder errors carry the output offset (bytes written before the problem); a value that
does not fit its type (Byte 300, a str for an Int32, an unknown type name) is
``type_mismatch`` there.

Command line (CPython)::

    python3 -m wirebench_device.uadp decode HEX [--metadata JSON] [--skip-unknown]
    python3 -m wirebench_device.uadp reencode HEX [--metadata JSON] [--skip-unknown]
    python3 -m wirebench_device.uadp tojson HEX [--nonreversible] [--message-id ID]
                                                [--metadata JSON]
    python3 -m wirebench_device.uadp fromjson TEXT [--metadata JSON]   (UADP hex)
"""

import struct
import sys

from wirebench_device.pson import F64, SINGLE_PRECISION, f64_from_bits

__all__ = [
    "encode", "encoded_len", "decode", "decode_prefix", "to_json", "from_json", "view",
    "UadpError", "KINDS", "TYPES", "UNSUPPORTED_KINDS", "message", "data_set_message",
    "variant", "find_metadata", "guid_to_bytes", "guid_from_bytes", "main",
]

_IMPL = getattr(getattr(sys, "implementation", None), "name", "cpython")
_STRICT_UTF8 = _IMPL in ("cpython", "pypy")

# Error kinds: (name, description) in the Rust declaration order (crates/uadp/src/error.rs).
KINDS = (
    ("unexpected_end", "unexpected end of input"),
    ("trailing_bytes", "trailing bytes after the NetworkMessage"),
    ("unsupported_version", "UADP version is not 1"),
    ("reserved_publisher_id_type", "reserved PublisherId type"),
    ("reserved_flags", "reserved flag bit set"),
    ("chunk_unsupported", "chunked NetworkMessages are not supported"),
    ("security_unsupported", "secured NetworkMessages are not supported"),
    ("unsupported_network_message_type",
     "NetworkMessage type is not a DataSetMessage payload (discovery is not supported)"),
    ("invalid_count", "invalid DataSetMessage count"),
    ("size_mismatch", "DataSetMessage does not match its declared size"),
    ("reserved_field_encoding", "reserved DataSetMessage field encoding"),
    ("unsupported_message_type", "unsupported DataSetMessage type"),
    ("invalid_variant_type", "invalid Variant built-in type"),
    ("unsupported_variant_type", "unsupported Variant built-in type"),
    ("unsupported_array_dimensions", "multi-dimensional arrays are not supported"),
    ("invalid_length", "invalid negative length"),
    ("length_limit", "declared count or length exceeds the remaining input or a limit"),
    ("invalid_utf8", "invalid UTF-8 in string"),
    ("missing_metadata", "DataSetMetaData needed and not given"),
    ("buffer_too_small", "output buffer too small"),
    ("type_mismatch", "value does not match its declared type"),
    ("field_encoding_mismatch", "field does not match the DataSetMessage field encoding"),
    ("invalid_padding", "padding on a DataSetMessage without a Sizes entry"),
    ("json_syntax", "invalid JSON"),
    ("depth_limit", "JSON nesting depth limit exceeded"),
    ("json_value", "JSON member of the wrong type or out of range"),
    ("unrepresentable", "value cannot be represented in the target encoding"),
)
_DESCRIPTIONS = {}
for _k, _d in KINDS:
    _DESCRIPTIONS[_k] = _d

# Kinds meaning "a valid message using a feature this port refuses" (ErrorKind::is_unsupported).
UNSUPPORTED_KINDS = ("chunk_unsupported", "security_unsupported", "unsupported_network_message_type",
                     "unsupported_variant_type", "unsupported_array_dimensions", "missing_metadata")


class UadpError(ValueError):
    """A UADP/JSON error: ``kind`` is the Rust ErrorKind name (``"unexpected_end"``),
    ``offset`` the byte offset of the problem (input, or output for the encoder).
    ``str(err)`` is Rust's Display: ``reserved PublisherId type at byte 1``."""

    def __init__(self, kind, offset):
        self.kind = kind
        self.offset = offset
        super().__init__(self._message())

    def _message(self):
        return "%s at byte %d" % (_DESCRIPTIONS.get(self.kind, self.kind), self.offset)

    def __str__(self):
        return self._message()

    def __repr__(self):
        return "UadpError(%r, %d)" % (self.kind, self.offset)


# ---------------------------------------------------------------------------
# Built-in types (OPC 10000-6 Table 1): name, id, struct format, smallest encoding

TYPES = (
    ("Boolean", 1), ("SByte", 2), ("Byte", 3), ("Int16", 4), ("UInt16", 5), ("Int32", 6),
    ("UInt32", 7), ("Int64", 8), ("UInt64", 9), ("Float", 10), ("Double", 11), ("String", 12),
    ("DateTime", 13), ("Guid", 14), ("ByteString", 15), ("StatusCode", 19),
)
_TYPE_ID = {}
_TYPE_NAME = {}
for _n, _i in TYPES:
    _TYPE_ID[_n] = _i
    _TYPE_NAME[_i] = _n

# fixed-size types: (struct format, size, low, high) -- ints range-checked on encode
_FIXED = {
    "SByte": ("<b", 1, -128, 127),
    "Byte": ("<B", 1, 0, 255),
    "Int16": ("<h", 2, -32768, 32767),
    "UInt16": ("<H", 2, 0, 0xFFFF),
    "Int32": ("<i", 4, -(1 << 31), (1 << 31) - 1),
    "UInt32": ("<I", 4, 0, 0xFFFFFFFF),
    "Int64": ("<q", 8, -(1 << 63), (1 << 63) - 1),
    "UInt64": ("<Q", 8, 0, 0xFFFFFFFFFFFFFFFF),
    "DateTime": ("<q", 8, -(1 << 63), (1 << 63) - 1),
    "StatusCode": ("<I", 4, 0, 0xFFFFFFFF),
}
_MIN_LEN = {
    "Boolean": 1, "SByte": 1, "Byte": 1, "Int16": 2, "UInt16": 2, "Int32": 4, "UInt32": 4,
    "Float": 4, "StatusCode": 4, "String": 4, "ByteString": 4, "Int64": 8, "UInt64": 8,
    "Double": 8, "DateTime": 8, "Guid": 16,
}

_PUBID_TYPES = ("Byte", "UInt16", "UInt32", "UInt64", "String")
_ENCODINGS = ("Variant", "RawData", "DataValue", "Reserved")
_MSG_TYPES = {"KeyFrame": 0, "DeltaFrame": 1, "KeepAlive": 3}

# Decoder limits (crates/uadp Limits::default)
MAX_ARRAY_LEN = 1 << 20
MAX_STRING_LEN = 1 << 24

_U16 = 0xFFFF
_U32 = 0xFFFFFFFF
_I32_MAX = (1 << 31) - 1


def _is_int(v):
    # MicroPython's bool is not an int subclass; CPython's is: exclude it on both
    return isinstance(v, int) and not isinstance(v, bool)


def type_name(t):
    """The built-in type name for a name or id (``10`` -> ``"Float"``); None if unknown."""
    if isinstance(t, str):
        return t if t in _TYPE_ID else None
    if _is_int(t):
        return _TYPE_NAME.get(t)
    return None


# ---------------------------------------------------------------------------
# Guid: text XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX <-> 16 wire bytes

_HEX = "0123456789abcdefABCDEF"


def guid_to_bytes(text):
    """The 16 wire bytes of a Guid text (either case); None if the text is not a Guid."""
    if not isinstance(text, str) or len(text) != 36:
        return None
    if text[8] != "-" or text[13] != "-" or text[18] != "-" or text[23] != "-":
        return None
    h = text[0:8] + text[9:13] + text[14:18] + text[19:23] + text[24:36]
    for c in h:
        if c not in _HEX:
            return None
    d1 = int(h[0:8], 16)
    d2 = int(h[8:12], 16)
    d3 = int(h[12:16], 16)
    d4 = bytes(int(h[16 + 2 * i:18 + 2 * i], 16) for i in range(8))
    return struct.pack("<IHH", d1, d2, d3) + d4


def guid_from_bytes(b):
    """Upper-case Guid text of 16 wire bytes (as open62541 and the Rust crate write it)."""
    d1, d2, d3 = struct.unpack("<IHH", bytes(b[0:8]))
    d4 = "".join("%02X" % x for x in bytes(b[8:16]))
    return "%08X-%04X-%04X-%s-%s" % (d1, d2, d3, d4[0:4], d4[4:16])


# ---------------------------------------------------------------------------
# UTF-8 (Rust's str::from_utf8: offset of the first invalid sequence)


def _utf8(raw, offset):
    from wirebench_device.pson import _utf8_error_at

    try:
        s = raw.decode("utf-8")
    except Exception:  # UnicodeDecodeError (CPython) / UnicodeError (MicroPython)
        s = None
    if s is None or (not _STRICT_UTF8 and len(s) != len(raw)):
        bad = _utf8_error_at(raw)
        if bad >= 0:
            raise UadpError("invalid_utf8", offset + bad)
        if s is None:
            raise UadpError("invalid_utf8", offset)
    return s


# ---------------------------------------------------------------------------
# Model helpers


def variant(type_, value, array=False):
    """A Variant dict: ``variant("Float", 25.5)``, ``variant("Int32", [1, 2])``,
    ``variant(None, None)`` (null), ``variant("Int32", None, array=True)`` (null array)."""
    v = {"type": type_name(type_) if type_ is not None else None, "value": value}
    if array or isinstance(value, (list, tuple)):
        v["array"] = True
    return v


def data_set_message(fields=None, **kw):
    """A DataSetMessage dict with every key (defaults: a valid Variant key frame)."""
    d = {
        "valid": True, "field_encoding": "Variant", "message_type": "KeyFrame",
        "sequence_number": None, "timestamp": None, "picoseconds": None, "status": None,
        "config_version_major": None, "config_version_minor": None,
        "fields": [] if fields is None else list(fields), "padding": 0,
    }
    for k in kw:
        d[k] = kw[k]
    return d


def message(messages=None, **kw):
    """A NetworkMessage dict with every key (defaults: nothing optional, no messages)."""
    m = {
        "publisher_id": None, "data_set_class_id": None, "group_header": None,
        "data_set_writer_ids": None, "timestamp": None, "picoseconds": None,
        "promoted_fields": None, "messages": [] if messages is None else list(messages),
    }
    for k in kw:
        m[k] = kw[k]
    return m


def _norm_field_meta(f):
    if isinstance(f, str) or _is_int(f):
        f = {"type": f}
    t = type_name(f.get("type"))
    if t is None:
        raise TypeError("metadata: unknown built-in type %r" % (f.get("type"),))
    return {"name": f.get("name") or "", "type": t, "array": bool(f.get("array"))}


def _norm_metadata(metadata):
    """A list of {"data_set_writer_id", "fields": [{"name","type","array"}]}."""
    if metadata is None:
        return []
    if isinstance(metadata, dict):
        metadata = [metadata]
    out = []
    for md in metadata:
        if isinstance(md, (list, tuple)):  # just the fields
            md = {"fields": md}
        out.append({
            "data_set_writer_id": md.get("data_set_writer_id"),
            "fields": [_norm_field_meta(f) for f in (md.get("fields") or [])],
        })
    return out


def find_metadata(metadata, writer):
    """DataSetMetaData::find: the entry for ``writer``, else the first without a writer id."""
    if writer is not None:
        for md in metadata:
            if md.get("data_set_writer_id") == writer:
                return md
    for md in metadata:
        if md.get("data_set_writer_id") is None:
            return md
    return None


def _variant_parts(v):
    """(type name or None for null, value, is_array) of a Variant given as dict/None.
    Raises KeyError for an unknown type (the caller maps it to an error kind)."""
    if v is None:
        return None, None, False
    t = v.get("type")
    if t is None:
        return None, None, False
    name = type_name(t)
    if name is None:
        raise KeyError(t)
    value = v.get("value")
    is_array = bool(v.get("array")) or isinstance(value, (list, tuple))
    return name, value, is_array


def _is_variant_field(f):
    return f is None or (isinstance(f, dict) and "type" in f)


# ---------------------------------------------------------------------------
# Decoding


class _Reader(object):
    """A cursor over the whole input with an end bound (a DataSetMessage's declared size, or
    the PromotedFields size). Offsets in errors are absolute."""

    def __init__(self, buf):
        self.buf = buf
        self.n = len(buf)
        self.pos = 0
        self.end = self.n

    def remaining(self):
        r = self.end - self.pos
        return r if r > 0 else 0

    def short(self):
        if self.end < self.n:  # inside a sized part: it runs past its declared size
            return UadpError("size_mismatch", self.end)
        return UadpError("unexpected_end", self.n)

    def take(self, k):
        if k > self.remaining():
            raise self.short()
        p = self.pos
        self.pos = p + k
        return self.buf[p:p + k]

    def u8(self):
        if self.remaining() < 1:
            raise self.short()
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def fmt(self, f, k):
        return struct.unpack(f, self.take(k))[0]

    def byte_string(self):
        """Int32 length + bytes; None for -1."""
        at = self.pos
        n = self.fmt("<i", 4)
        if n == -1:
            return None
        if n < -1:
            raise UadpError("invalid_length", at)
        if n > MAX_STRING_LEN:
            raise UadpError("length_limit", at)
        return self.take(n)

    def string(self):
        start = self.pos + 4
        b = self.byte_string()
        if b is None:
            return None
        return _utf8(b, start)

    def check_count(self, count, least, at):
        if count * least > self.remaining():
            raise UadpError("length_limit", at)


def _type_of(tid, at):
    name = _TYPE_NAME.get(tid)
    if name is not None:
        return name
    if 16 <= tid <= 25:
        raise UadpError("unsupported_variant_type", at)
    raise UadpError("invalid_variant_type", at)


def _read_scalar(r, ty):
    f = _FIXED.get(ty)
    if f is not None:
        return r.fmt(f[0], f[1])
    if ty == "Boolean":
        return r.u8() != 0  # Part 6 5.2.2.1: any non-zero byte is true
    if ty == "Float":
        return _f32_from_bits(r.fmt("<I", 4))
    if ty == "Double":
        # a float, or pson.F64 where the port's float cannot hold it (single precision)
        return f64_from_bits(r.fmt("<Q", 8))
    if ty == "String":
        return r.string()
    if ty == "ByteString":
        b = r.byte_string()
        return None if b is None else bytes(b)
    # Guid
    return guid_from_bytes(r.take(16))


def _read_array(r, ty):
    at = r.pos
    n = r.fmt("<i", 4)
    if n == -1:
        return {"type": ty, "value": None, "array": True}
    if n < -1:
        raise UadpError("invalid_length", at)
    if n > MAX_ARRAY_LEN:
        raise UadpError("length_limit", at)
    r.check_count(n, _MIN_LEN[ty], at)
    items = []
    for _ in range(n):
        items.append(_read_scalar(r, ty))
    return {"type": ty, "value": items, "array": True}


def _read_variant(r):
    at = r.pos
    mask = r.u8()
    tid = mask & 0x3F
    is_array = mask & 0x80
    has_dims = mask & 0x40
    if not is_array:
        if has_dims:
            raise UadpError("invalid_variant_type", at)
        if tid == 0:
            return {"type": None, "value": None}
        ty = _type_of(tid, at)
        return {"type": ty, "value": _read_scalar(r, ty)}
    if tid == 0:
        raise UadpError("invalid_variant_type", at)
    ty = _type_of(tid, at)
    if has_dims:
        raise UadpError("unsupported_array_dimensions", at)
    return _read_array(r, ty)


def _read_raw(r, f):
    if f["array"]:
        return _read_array(r, f["type"])
    return {"type": f["type"], "value": _read_scalar(r, f["type"])}


def _read_data_value(r):
    at = r.pos
    mask = r.u8()
    if mask & 0xC0:
        raise UadpError("reserved_flags", at)
    d = {"value": None, "status": None, "source_timestamp": None, "source_picoseconds": None,
         "server_timestamp": None, "server_picoseconds": None}
    if mask & 0x01:
        d["value"] = _read_variant(r)
    if mask & 0x02:
        d["status"] = r.fmt("<I", 4)
    if mask & 0x04:
        d["source_timestamp"] = r.fmt("<q", 8)
    if mask & 0x10:
        d["source_picoseconds"] = r.fmt("<H", 2)
    if mask & 0x08:
        d["server_timestamp"] = r.fmt("<q", 8)
    if mask & 0x20:
        d["server_picoseconds"] = r.fmt("<H", 2)
    return d


def _read_field(r, enc):
    if enc == "DataValue":
        return _read_data_value(r)
    return _read_variant(r)


def _read_dsm(r, writer, metadata, skip_unknown):
    start = r.pos
    f1 = r.u8()
    f2 = 0
    f2_at = start
    if f1 & 0x80:
        f2_at = r.pos
        f2 = r.u8()
        if f2 & 0xC0:
            raise UadpError("reserved_flags", f2_at)
    m = data_set_message(valid=bool(f1 & 0x01), field_encoding=_ENCODINGS[(f1 >> 1) & 0x03])
    if f1 & 0x08:
        m["sequence_number"] = r.fmt("<H", 2)
    if f2 & 0x10:
        m["timestamp"] = r.fmt("<q", 8)
    if f2 & 0x20:
        m["picoseconds"] = r.fmt("<H", 2)
    if f1 & 0x10:
        m["status"] = r.fmt("<H", 2)
    if f1 & 0x20:
        m["config_version_major"] = r.fmt("<I", 4)
    if f1 & 0x40:
        m["config_version_minor"] = r.fmt("<I", 4)

    enc = m["field_encoding"]
    mtype = f2 & 0x0F
    known = mtype in (0, 1, 3)
    if enc == "Reserved" or not known:
        if skip_unknown:
            m["message_type"] = "Skipped"
            m["raw_type"] = mtype
            m["data"] = bytes(r.take(r.remaining()))
            return m
        if enc == "Reserved":
            raise UadpError("reserved_field_encoding", start)
        raise UadpError("unsupported_message_type", f2_at)

    meta = None
    if enc == "RawData" and mtype != 3:
        meta = find_metadata(metadata, writer)
        if meta is None:
            raise UadpError("missing_metadata", start)
    if mtype == 0:
        fields = []
        if meta is not None:
            for f in meta["fields"]:
                fields.append(_read_raw(r, f))
        else:
            at = r.pos
            n = r.fmt("<H", 2)
            r.check_count(n, 1, at)
            for _ in range(n):
                fields.append(_read_field(r, enc))
        m["fields"] = fields
    elif mtype == 1:
        m["message_type"] = "DeltaFrame"
        at = r.pos
        n = r.fmt("<H", 2)
        r.check_count(n, 3, at)
        fields = []
        for _ in range(n):
            index_at = r.pos
            index = r.fmt("<H", 2)
            if meta is not None:
                if index >= len(meta["fields"]):
                    raise UadpError("missing_metadata", index_at)
                value = _read_raw(r, meta["fields"][index])
            else:
                value = _read_field(r, enc)
            fields.append({"index": index, "value": value})
        m["fields"] = fields
    else:
        m["message_type"] = "KeepAlive"
    return m


def _read_network_message(r, metadata, skip_unknown):
    flags = r.u8()
    if flags & 0x0F != 1:
        raise UadpError("unsupported_version", 0)
    has_pubid = flags & 0x10
    has_group = flags & 0x20
    has_payload_header = flags & 0x40

    ext1 = 0
    ext1_at = 0
    if flags & 0x80:
        ext1_at = r.pos
        ext1 = r.u8()
    pubid_type = ext1 & 0x07
    if has_pubid and pubid_type > 4:
        raise UadpError("reserved_publisher_id_type", ext1_at)
    if ext1 & 0x10:
        raise UadpError("security_unsupported", ext1_at)
    ext2 = 0
    if ext1 & 0x80:
        at = r.pos
        ext2 = r.u8()
        if ext2 & 0x01:
            raise UadpError("chunk_unsupported", at)
        if ext2 & 0xE0:
            raise UadpError("reserved_flags", at)
        if (ext2 >> 2) & 0x07:
            raise UadpError("unsupported_network_message_type", at)

    msg = message()
    if has_pubid:
        if pubid_type == 0:
            pid = r.u8()
        elif pubid_type == 1:
            pid = r.fmt("<H", 2)
        elif pubid_type == 2:
            pid = r.fmt("<I", 4)
        elif pubid_type == 3:
            pid = r.fmt("<Q", 8)
        else:
            at = r.pos
            pid = r.string()
            if pid is None:
                raise UadpError("invalid_length", at)
        msg["publisher_id"] = {"type": _PUBID_TYPES[pubid_type], "value": pid}
    if ext1 & 0x08:
        msg["data_set_class_id"] = guid_from_bytes(r.take(16))
    if has_group:
        at = r.pos
        gf = r.u8()
        if gf & 0xF0:
            raise UadpError("reserved_flags", at)
        g = {"writer_group_id": None, "group_version": None, "network_message_number": None,
             "sequence_number": None}
        if gf & 0x01:
            g["writer_group_id"] = r.fmt("<H", 2)
        if gf & 0x02:
            g["group_version"] = r.fmt("<I", 4)
        if gf & 0x04:
            g["network_message_number"] = r.fmt("<H", 2)
        if gf & 0x08:
            g["sequence_number"] = r.fmt("<H", 2)
        msg["group_header"] = g
    count = 1
    if has_payload_header:
        at = r.pos
        count = r.u8()
        if count == 0:
            raise UadpError("invalid_count", at)
        ids = []
        for _ in range(count):
            ids.append(r.fmt("<H", 2))
        msg["data_set_writer_ids"] = ids
    if ext1 & 0x20:
        msg["timestamp"] = r.fmt("<q", 8)
    if ext1 & 0x40:
        msg["picoseconds"] = r.fmt("<H", 2)
    if ext2 & 0x02:
        size = r.fmt("<H", 2)
        start = r.pos
        if size > r.remaining():
            raise r.short()
        outer = r.end
        r.end = start + size
        fields = []
        while r.pos < r.end:
            fields.append(_read_variant(r))
        r.end = outer
        msg["promoted_fields"] = fields

    # Payload: Sizes only with a PayloadHeader and Count > 1
    sizes = []
    if has_payload_header and count > 1:
        for _ in range(count):
            sizes.append(r.fmt("<H", 2))
    ids = msg["data_set_writer_ids"]
    messages = []
    for i in range(count):
        writer = ids[i] if ids is not None else None
        if not sizes:
            dsm = _read_dsm(r, writer, metadata, skip_unknown)
        else:
            size = sizes[i]
            start = r.pos
            if size > r.remaining():
                raise r.short()
            outer = r.end
            r.end = start + size
            dsm = _read_dsm(r, writer, metadata, skip_unknown)
            # whatever is left of the declared size must be zero padding
            rest_at = r.pos
            rest = r.take(r.remaining())
            for j in range(len(rest)):
                if rest[j] != 0:
                    raise UadpError("size_mismatch", rest_at + j)
            dsm["padding"] = len(rest)
            r.end = outer
        messages.append(dsm)
    msg["messages"] = messages
    return msg


def decode_prefix(data, metadata=None, skip_unknown=False):
    """Decode one NetworkMessage from the start of ``data``; returns ``(msg, used)``
    (Rust ``decode_with``; UADP has no length field, so trailing bytes are allowed).

    metadata: DataSetMetaData for RawData (see the module docstring).
    skip_unknown: keep DataSetMessages with a reserved field encoding or a type other than
    key/delta frame or keep-alive as ``"Skipped"`` (their bytes in ``"data"``), as Part 14
    asks a subscriber to do, instead of raising ``reserved_field_encoding`` /
    ``unsupported_message_type``."""
    if not isinstance(data, bytes):
        data = bytes(data)
    r = _Reader(data)
    msg = _read_network_message(r, _norm_metadata(metadata), skip_unknown)
    return msg, r.pos


def decode(data, metadata=None, skip_unknown=False):
    """Decode a NetworkMessage that must cover all of ``data`` (Rust ``decode_exact``):
    bytes after it raise ``trailing_bytes`` at the first unused byte. Raises UadpError."""
    msg, used = decode_prefix(data, metadata, skip_unknown)
    if used != len(data):
        raise UadpError("trailing_bytes", used)
    return msg


# ---------------------------------------------------------------------------
# Encoding


class _Enc(object):
    """Output bytes plus the absolute offset of their first byte (parts measured before
    their size is written keep their final offsets)."""

    def __init__(self, base=0):
        self.out = bytearray()
        self.base = base

    def pos(self):
        return self.base + len(self.out)

    def err(self, kind):
        return UadpError(kind, self.pos())

    def u8(self, v):
        self.out.append(v)

    def put(self, f, v):
        self.out += struct.pack(f, v)

    def uint(self, v, f, hi):
        """An unsigned header value (type_mismatch when it is not an int in range)."""
        if not _is_int(v) or v < 0 or v > hi:
            raise self.err("type_mismatch")
        self.out += struct.pack(f, v)

    def byte_string(self, b):
        if b is None:
            self.out += b"\xff\xff\xff\xff"
            return
        if len(b) > _I32_MAX:
            raise self.err("length_limit")
        self.out += struct.pack("<i", len(b))
        self.out += b


def _f32_from_bits(bits):
    """The binary32 value ``bits`` as a float. A NaN keeps its payload and quiet bit (the
    mantissa moves to the top of the binary64 mantissa, as a quiet NaN's does when the
    hardware widens it; a single-precision port's float holds the bits as they are), so
    that ``_f32_bytes`` gives the same bits back, signalling NaNs included."""
    if bits & 0x7F800000 == 0x7F800000 and bits & 0x7FFFFF and not SINGLE_PRECISION:
        d = ((bits >> 31) << 63) | (0x7FF << 52) | ((bits & 0x7FFFFF) << 29)
        return struct.unpack("<d", struct.pack("<Q", d))[0]
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _f32_bytes(x):
    """binary32 bytes of x, rounded like Rust's ``as f32`` (overflow -> infinity); a NaN
    keeps the top of its payload (see ``_f32_from_bits``). ``x`` may be a pson.F64."""
    if isinstance(x, F64):
        if (x.bits >> 52) & 0x7FF == 0x7FF and x.bits & 0xFFFFFFFFFFFFF:  # NaN: keep the payload
            d = x.bits
            bits = ((d >> 63) << 31) | 0x7F800000 | ((d >> 29) & 0x7FFFFF)
            return struct.pack("<I", bits | (0 if bits & 0x7FFFFF else 0x400000))
        x = x.value  # rounded once: to the double (exact), or to the port's binary32
    if x != x and SINGLE_PRECISION:
        return struct.pack("<f", x)  # the port's binary32 NaN, bits as they are
    if x != x:
        d = struct.unpack("<Q", struct.pack("<d", x))[0]
        bits = ((d >> 63) << 31) | 0x7F800000 | ((d >> 29) & 0x7FFFFF)
        if not bits & 0x7FFFFF:
            bits |= 0x400000
        return struct.pack("<I", bits)
    try:
        return struct.pack("<f", x)
    except OverflowError:  # CPython refuses finite values that round past FLT_MAX
        return struct.pack("<f", float("inf") if x > 0 else float("-inf"))


def _utf8_bytes(e, s):
    try:
        return s.encode("utf-8")
    except UnicodeError:  # CPython str with a lone surrogate: not a Unicode string
        raise e.err("type_mismatch")


def _put_scalar(e, ty, v):
    f = _FIXED.get(ty)
    if f is not None:
        if not _is_int(v) or v < f[2] or v > f[3]:
            raise e.err("type_mismatch")
        e.out += struct.pack(f[0], v)
    elif ty == "Boolean":
        if not isinstance(v, bool):
            raise e.err("type_mismatch")
        e.out.append(1 if v else 0)
    elif ty == "Float" or ty == "Double":
        if isinstance(v, bool) or not isinstance(v, (int, float, F64)):
            raise e.err("type_mismatch")
        if ty == "Float":
            e.out += _f32_bytes(v if isinstance(v, F64) else float(v))
        elif isinstance(v, F64):
            e.out += struct.pack("<Q", v.bits)  # the binary64 as it was given or decoded
        else:
            e.out += struct.pack("<d", float(v))  # a binary32 float widens exactly
    elif ty == "String":
        if v is not None and not isinstance(v, str):
            raise e.err("type_mismatch")
        e.byte_string(None if v is None else _utf8_bytes(e, v))
    elif ty == "ByteString":
        if v is not None and not isinstance(v, (bytes, bytearray, memoryview)):
            raise e.err("type_mismatch")
        e.byte_string(None if v is None else bytes(v))
    else:  # Guid
        b = guid_to_bytes(v)
        if b is None:
            raise e.err("type_mismatch")
        e.out += b


def _parts_or_error(e, v):
    try:
        return _variant_parts(v)
    except (KeyError, AttributeError):
        raise e.err("type_mismatch")


def _put_raw_parts(e, ty, value, is_array):
    """The value without a type byte (RawData; also the body of a Variant array)."""
    if not is_array:
        _put_scalar(e, ty, value)
        return
    if value is None:
        e.out += b"\xff\xff\xff\xff"
        return
    if len(value) > _I32_MAX:
        raise e.err("length_limit")
    e.out += struct.pack("<i", len(value))
    for item in value:
        _put_scalar(e, ty, item)


def _put_raw(e, v):
    ty, value, is_array = _parts_or_error(e, v)
    if ty is None:  # a null Variant has no RawData form
        raise e.err("type_mismatch")
    _put_raw_parts(e, ty, value, is_array)


def _put_variant(e, v):
    ty, value, is_array = _parts_or_error(e, v)
    if ty is None:
        e.out.append(0)
        return
    tid = _TYPE_ID[ty]
    if is_array:
        e.out.append(tid | 0x80)
    else:
        e.out.append(tid)
    _put_raw_parts(e, ty, value, is_array)


def _put_data_value(e, d):
    get = d.get
    mask = 0
    if get("value") is not None:
        mask |= 0x01
    if get("status") is not None:
        mask |= 0x02
    if get("source_timestamp") is not None:
        mask |= 0x04
    if get("server_timestamp") is not None:
        mask |= 0x08
    if get("source_picoseconds") is not None:
        mask |= 0x10
    if get("server_picoseconds") is not None:
        mask |= 0x20
    e.out.append(mask)
    if mask & 0x01:
        _put_variant(e, get("value"))
    if mask & 0x02:
        e.uint(get("status"), "<I", _U32)
    if mask & 0x04:
        _put_scalar(e, "DateTime", get("source_timestamp"))
    if mask & 0x10:
        e.uint(get("source_picoseconds"), "<H", _U16)
    if mask & 0x08:
        _put_scalar(e, "DateTime", get("server_timestamp"))
    if mask & 0x20:
        e.uint(get("server_picoseconds"), "<H", _U16)


def _put_field(e, f, enc):
    if _is_variant_field(f):
        if enc == "Variant":
            _put_variant(e, f)
            return
        if enc == "RawData":
            _put_raw(e, f)
            return
    elif enc == "DataValue" and isinstance(f, dict):
        _put_data_value(e, f)
        return
    raise e.err("field_encoding_mismatch")


def _dsm_type(e, d):
    t = d.get("message_type") or "KeyFrame"
    if t == "Skipped":
        rt = d.get("raw_type") or 0
        if not _is_int(rt):
            raise e.err("type_mismatch")
        return t, rt & 0x0F
    bits = _MSG_TYPES.get(t)
    if bits is None:
        raise e.err("type_mismatch")
    return t, bits


def _put_dsm(e, d):
    enc = d.get("field_encoding") or "Variant"
    if enc not in _ENCODINGS:
        raise e.err("type_mismatch")
    mtype, type_bits = _dsm_type(e, d)
    if enc == "Reserved" and mtype != "Skipped":
        raise e.err("field_encoding_mismatch")
    get = d.get
    f2 = type_bits
    if get("timestamp") is not None:
        f2 |= 0x10
    if get("picoseconds") is not None:
        f2 |= 0x20
    valid = get("valid")
    f1 = (0 if valid is not None and not valid else 1) | (_ENCODINGS.index(enc) << 1)
    if get("sequence_number") is not None:
        f1 |= 0x08
    if get("status") is not None:
        f1 |= 0x10
    if get("config_version_major") is not None:
        f1 |= 0x20
    if get("config_version_minor") is not None:
        f1 |= 0x40
    if f2:
        f1 |= 0x80
    e.out.append(f1)
    if f2:
        e.out.append(f2)
    if f1 & 0x08:
        e.uint(get("sequence_number"), "<H", _U16)
    if f2 & 0x10:
        _put_scalar(e, "DateTime", get("timestamp"))
    if f2 & 0x20:
        e.uint(get("picoseconds"), "<H", _U16)
    if f1 & 0x10:
        e.uint(get("status"), "<H", _U16)
    if f1 & 0x20:
        e.uint(get("config_version_major"), "<I", _U32)
    if f1 & 0x40:
        e.uint(get("config_version_minor"), "<I", _U32)
    fields = get("fields") or []
    if mtype == "KeyFrame":
        if enc != "RawData":
            if len(fields) > _U16:
                raise e.err("length_limit")
            e.out += struct.pack("<H", len(fields))
        for f in fields:
            _put_field(e, f, enc)
    elif mtype == "DeltaFrame":
        if len(fields) > _U16:
            raise e.err("length_limit")
        e.out += struct.pack("<H", len(fields))
        for f in fields:
            if not isinstance(f, dict):
                raise e.err("type_mismatch")
            e.uint(f.get("index"), "<H", _U16)
            _put_field(e, f.get("value"), enc)
    elif mtype == "Skipped":
        data = get("data") or b""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise e.err("type_mismatch")
        e.out += bytes(data)
    pad = get("padding") or 0
    if not _is_int(pad) or pad < 0 or pad > _U16:
        raise e.err("type_mismatch")
    e.out += bytes(pad)


def _padding_of(d):
    p = d.get("padding") if isinstance(d, dict) else None
    return p or 0


def _put_network_message(e, m):
    get = m.get
    ids = get("data_set_writer_ids")
    msgs = get("messages") or []
    if ids is not None:
        if len(ids) == 0 or len(ids) > 255 or len(ids) != len(msgs):
            raise e.err("invalid_count")
    elif len(msgs) != 1:
        raise e.err("invalid_count")
    with_sizes = ids is not None and len(ids) > 1
    if not with_sizes:
        for d in msgs:
            if _padding_of(d) != 0:
                raise e.err("invalid_padding")

    pub = get("publisher_id")
    if isinstance(pub, str):
        pub = {"type": "String", "value": pub}
    pub_bits = 0
    if pub is not None:
        pt = pub.get("type") if isinstance(pub, dict) else None
        if pt not in _PUBID_TYPES:
            raise e.err("type_mismatch")
        pub_bits = _PUBID_TYPES.index(pt)
    promoted = get("promoted_fields")
    ext2 = 0x02 if promoted is not None else 0
    ext1 = pub_bits
    if get("data_set_class_id") is not None:
        ext1 |= 0x08
    if get("timestamp") is not None:
        ext1 |= 0x20
    if get("picoseconds") is not None:
        ext1 |= 0x40
    if ext2:
        ext1 |= 0x80
    flags = 0x01
    if pub is not None:
        flags |= 0x10
    group = get("group_header")
    if group is not None:
        flags |= 0x20
    if ids is not None:
        flags |= 0x40
    if ext1:
        flags |= 0x80
    e.out.append(flags)
    if ext1:
        e.out.append(ext1)
    if ext2:
        e.out.append(ext2)
    if pub is not None:
        v = pub.get("value")
        if pub_bits == 0:
            e.uint(v, "<B", 0xFF)
        elif pub_bits == 1:
            e.uint(v, "<H", _U16)
        elif pub_bits == 2:
            e.uint(v, "<I", _U32)
        elif pub_bits == 3:
            e.uint(v, "<Q", 0xFFFFFFFFFFFFFFFF)
        else:
            if not isinstance(v, str):
                raise e.err("type_mismatch")
            e.byte_string(_utf8_bytes(e, v))
    if ext1 & 0x08:
        _put_scalar(e, "Guid", get("data_set_class_id"))
    if group is not None:
        gget = group.get
        gf = 0
        if gget("writer_group_id") is not None:
            gf |= 0x01
        if gget("group_version") is not None:
            gf |= 0x02
        if gget("network_message_number") is not None:
            gf |= 0x04
        if gget("sequence_number") is not None:
            gf |= 0x08
        e.out.append(gf)
        if gf & 0x01:
            e.uint(gget("writer_group_id"), "<H", _U16)
        if gf & 0x02:
            e.uint(gget("group_version"), "<I", _U32)
        if gf & 0x04:
            e.uint(gget("network_message_number"), "<H", _U16)
        if gf & 0x08:
            e.uint(gget("sequence_number"), "<H", _U16)
    if ids is not None:
        e.out.append(len(ids))
        for i in ids:
            e.uint(i, "<H", _U16)
    if ext1 & 0x20:
        _put_scalar(e, "DateTime", get("timestamp"))
    if ext1 & 0x40:
        e.uint(get("picoseconds"), "<H", _U16)
    if ext2:
        sub = _Enc(e.pos() + 2)
        for f in promoted:
            _put_variant(sub, f)
        if len(sub.out) > _U16:
            raise e.err("length_limit")
        e.out += struct.pack("<H", len(sub.out))
        e.out += sub.out
    if with_sizes:
        # Sizes[Count]: each DataSetMessage encoded first (errors keep their offsets)
        at = e.pos() + 2 * len(msgs)
        parts = []
        for d in msgs:
            sub = _Enc(at)
            _put_dsm(sub, d)
            if len(sub.out) > _U16:
                raise UadpError("length_limit", at)
            parts.append(sub.out)
            at = sub.pos()
        for p in parts:
            e.out += struct.pack("<H", len(p))
        for p in parts:
            e.out += p
    else:
        for d in msgs:
            _put_dsm(e, d)


def encode(msg):
    """Encode a NetworkMessage dict as UADP bytes (flag bytes derived from what is
    present; optional flag bytes written only when not zero). Raises UadpError."""
    e = _Enc()
    _put_network_message(e, msg)
    return bytes(e.out)


def encoded_len(msg):
    """The exact number of bytes ``encode(msg)`` gives."""
    return len(encode(msg))


# ---------------------------------------------------------------------------
# JSON mapping (uadp_json), imported on first use


def to_json(msg, reversible=None, **options):
    """The JSON NetworkMessage text (see ``uadp_json.to_json``)."""
    from wirebench_device import uadp_json

    return uadp_json.to_json(msg, reversible, **options)


def from_json(text, metadata=None, publisher_id_type=None):
    """A NetworkMessage dict from JSON text (see ``uadp_json.from_json``)."""
    from wirebench_device import uadp_json

    return uadp_json.from_json(text, metadata, publisher_id_type)


# ---------------------------------------------------------------------------
# The open62541-style view (the shape of the vectors' "decoded" objects)


def _nonfinite(x):
    if x != x:
        return "NaN"
    return "Infinity" if x > 0 else "-Infinity"


def _leaf_plain(ty, v):
    """A scalar as JSON-ready data: Float as pson.F32 (printed with binary32 digits),
    non-finite floats as "NaN"/"Infinity"/"-Infinity", DateTime as ISO 8601 text (ticks
    when outside years 1-9999), ByteString as base64."""
    if v is None:
        return None
    if ty == "Float" or ty == "Double":
        if isinstance(v, F64):
            return _nonfinite(v.value) if (v.bits >> 52) & 0x7FF == 0x7FF else v
        if v - v != 0.0:
            return _nonfinite(v)
        if ty == "Float":
            from wirebench_device.pson import F32

            return F32(v)
        return v
    if ty == "DateTime":
        from wirebench_device import uadp_json

        return uadp_json.iso8601(v) if uadp_json.in_text_range(v) else v
    if ty == "ByteString":
        from wirebench_device import uadp_json

        return uadp_json.base64_encode(v)
    return v


def _variant_view(v, leaf):
    ty, value, is_array = _variant_parts(v)
    if ty is None:
        return {"type": None, "value": None}
    if is_array:
        if value is None:
            return {"type": ty, "value": None}
        return {"type": ty, "value": [leaf(ty, x) for x in value]}
    return {"type": ty, "value": leaf(ty, value)}


def _field_view(f, leaf):
    if _is_variant_field(f):
        return _variant_view(f, leaf)
    out = {}
    if f.get("value") is not None:
        out["value"] = _variant_view(f["value"], leaf)
    if f.get("status") is not None:
        out["status"] = f["status"]
    for k, name in (("source_timestamp", "sourceTimestamp"), ("source_picoseconds", "sourcePicoseconds"),
                    ("server_timestamp", "serverTimestamp"), ("server_picoseconds", "serverPicoseconds")):
        if f.get(k) is not None:
            out[name] = leaf("DateTime", f[k]) if k.endswith("timestamp") else f[k]
    return out


_VIEW_TYPES = {"KeyFrame": "DataKeyFrame", "DeltaFrame": "DataDeltaFrame", "KeepAlive": "KeepAlive",
               "Skipped": "Skipped"}


def _dsm_view(d, leaf):
    out = {"valid": d.get("valid") is None or bool(d.get("valid")),
           "fieldEncoding": d.get("field_encoding") or "Variant"}
    mt = d.get("message_type") or "KeyFrame"
    fields = []
    if mt == "KeyFrame":
        fields = [_field_view(f, leaf) for f in (d.get("fields") or [])]
    elif mt == "DeltaFrame":
        for df in d.get("fields") or []:
            fv = _field_view(df.get("value"), leaf)
            fv["index"] = df.get("index")
            fields.append(fv)
    out["messageType"] = _VIEW_TYPES.get(mt, mt)
    for k, name in (("sequence_number", "sequenceNumber"), ("timestamp", "timestamp"),
                    ("picoseconds", "picoseconds"), ("status", "status"),
                    ("config_version_major", "configVersionMajor"),
                    ("config_version_minor", "configVersionMinor")):
        if d.get(k) is not None:
            out[name] = leaf("DateTime", d[k]) if k == "timestamp" else d[k]
    out["fieldCount"] = len(fields)
    out["fields"] = fields
    return out


def view(msg, version=1, leaf=None):
    """The message in the shape of the vectors' ``decoded`` objects (open62541's decode):
    camelCase keys, Variants as ``{"type": name, "value": ...}``. ``leaf(type, value)``
    converts scalar values (default: JSON-ready, see ``_leaf_plain``)."""
    if leaf is None:
        leaf = _leaf_plain
    out = {"version": version}
    pub = msg.get("publisher_id")
    if isinstance(pub, str):
        pub = {"type": "String", "value": pub}
    out["publisherId"] = None if pub is None else {"type": pub.get("type"), "value": pub.get("value")}
    g = msg.get("group_header")
    if g is None:
        out["groupHeader"] = None
    else:
        gv = {}
        for k, name in (("writer_group_id", "writerGroupId"), ("group_version", "groupVersion"),
                        ("network_message_number", "networkMessageNumber"),
                        ("sequence_number", "sequenceNumber")):
            if g.get(k) is not None:
                gv[name] = g[k]
        out["groupHeader"] = gv
    out["dataSetClassId"] = msg.get("data_set_class_id")
    if msg.get("timestamp") is not None:
        out["timestamp"] = leaf("DateTime", msg["timestamp"])
    if msg.get("picoseconds") is not None:
        out["picoseconds"] = msg["picoseconds"]
    if msg.get("promoted_fields") is not None:
        out["promotedFields"] = [_variant_view(v, leaf) for v in msg["promoted_fields"]]
    ids = msg.get("data_set_writer_ids")
    msgs = msg.get("messages") or []
    out["payloadHeader"] = ids is not None
    out["messageCount"] = len(msgs)
    out["dataSetWriterIds"] = list(ids) if ids is not None else []
    out["dataSetMessages"] = [_dsm_view(d, leaf) for d in msgs]
    return out


# ---------------------------------------------------------------------------
# Command line

_USAGE = """usage: python3 -m wirebench_device.uadp decode HEX [--metadata JSON] [--skip-unknown]
       python3 -m wirebench_device.uadp reencode HEX [--metadata JSON] [--skip-unknown]
       python3 -m wirebench_device.uadp tojson HEX [--nonreversible] [--message-id ID] [--metadata JSON]
       python3 -m wirebench_device.uadp fromjson TEXT [--metadata JSON]

decode    print the NetworkMessage HEX as one line of JSON, in the shape of the
          vectors' "decoded" objects (open62541's view)
reencode  print the UADP encoding of the decoded message, in hex
tojson    print the JSON NetworkMessage (typed 1.05 form; --nonreversible: untyped)
fromjson  read a JSON NetworkMessage and print its UADP encoding, in hex
--metadata  DataSetMetaData as JSON: [{"data_set_writer_id":1000,"fields":[{"name":"a",
            "type":"Float"}]}] (RawData needs the types; JSON uses the names)
An error prints 'error <kind> <offset>' and exits 2."""


def _write_line(text):
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        out.write(text.encode("utf-8") + b"\n")
        out.flush()
    else:  # pragma: no cover
        sys.stdout.write(text + "\n")


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    import binascii

    # the package's module objects (not this file run as __main__)
    from wirebench_device import jsonio
    from wirebench_device import uadp as codec

    if argv is None:
        argv = sys.argv[1:]
    args = list(argv)
    opts = {"--nonreversible": False, "--skip-unknown": False, "--metadata": None, "--message-id": ""}
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--nonreversible", "--skip-unknown"):
            opts[a] = True
        elif a in ("--metadata", "--message-id") and i + 1 < len(args):
            opts[a] = args[i + 1]
            i += 1
        else:
            pos.append(a)
        i += 1
    if len(pos) != 2 or pos[0] not in ("decode", "reencode", "tojson", "fromjson"):
        sys.stderr.write(_USAGE + "\n")
        return 64
    cmd, arg = pos
    metadata = None
    if opts["--metadata"] is not None:
        try:
            metadata = codec._norm_metadata(jsonio.parse(opts["--metadata"]))
        except (ValueError, TypeError, AttributeError) as e:
            _write_line("error metadata %s" % (e,))
            return 2
    try:
        if cmd == "fromjson":
            m = codec.from_json(arg, metadata)
            _write_line(binascii.hexlify(codec.encode(m)).decode())
            return 0
        try:
            data = binascii.unhexlify("".join(arg.split()))
        except Exception:
            _write_line("error hex invalid hex input")
            return 2
        m = codec.decode(data, metadata, opts["--skip-unknown"])
        if cmd == "decode":
            _write_line(jsonio.dump(codec.view(m)))
        elif cmd == "reencode":
            _write_line(binascii.hexlify(codec.encode(m)).decode())
        else:
            _write_line(codec.to_json(m, not opts["--nonreversible"], message_id=opts["--message-id"],
                                      metadata=metadata))
        return 0
    except codec.UadpError as e:
        _write_line("error %s %d" % (e.kind, e.offset))
        return 2


if __name__ == "__main__":
    sys.exit(main())
