#!/usr/bin/env python3
"""CDR byte oracle: the PyPI `cyclonedds` (11.0.1) serializer, for crates/cdr's differential test.

Every test type is written twice: once as IDL (what the Rust side parses with `cdr::idl`)
and once, by hand and independently, as cyclonedds-python classes. The bytes come from
cyclonedds' own `serialize()` / `serialize_key()`.

Modes (JSON lines on stdout):

  cdr_oracle.py cases
      For every case, value and encoding (XCDR1/XCDR2 x LE/BE), print
      {"case", "idl", "type", "encoding", "key", "value", "hex"}; "value" is canonical JSON
      (structs as objects, unions as {"discriminator": d, "value": v}, enums by name, octets
      as lists of ints, chars as 1-char strings, absent optionals as null). Each hex is also
      deserialized by cyclonedds and checked to give the value back. Key lines ("key": true)
      hold IdlStruct.serialize_key() output (encapsulation header included).

  cdr_oracle.py check  < lines
      Read {"case", "encoding", "key", "value", "hex"} lines (bytes produced by the Rust
      codec), build the value in Python, serialize it with cyclonedds, and print
      {"case", "encoding", "key", "ok", "python_hex", "why"}: ok when the bytes are identical
      and cyclonedds deserializes the Rust bytes back to the same value.

Exit status 3 (with a message on stderr) when cyclonedds is not importable:
`pip install cyclonedds==11.0.1` (a prebuilt wheel with libddsc; no compiler needed).
"""

import json
import math
import sys
from dataclasses import dataclass
from enum import Enum
from inspect import isclass
from typing import Optional

try:
    from cyclonedds.idl import IdlEnum, IdlStruct, IdlUnion
    from cyclonedds.idl import annotations as annotate
    from cyclonedds.idl import types
    from cyclonedds.idl._support import Endianness
    from cyclonedds.idl._type_normalize import WrapOpt, get_extended_type_hints
except Exception as e:  # pragma: no cover - depends on the machine
    print(f"cdr_oracle.py: cyclonedds is not importable ({e}); pip install cyclonedds==11.0.1",
          file=sys.stderr)
    sys.exit(3)


# ---------------------------------------------------------------------------------------------
# Types (Python side). The IDL for the Rust side is in CASES below.

class Color(IdlEnum, typename="Color"):
    RED = 0
    GREEN = 1
    BLUE = 2


@annotate.bit_bound(8)
class Small(IdlEnum, typename="Small"):
    A = 0
    B = 1
    C = 2


@annotate.bit_bound(16)
class Mid(IdlEnum, typename="Mid"):
    X = 0
    Y = 1


@dataclass
@annotate.final
class Payload(IdlStruct, typename="Payload"):
    seq: types.uint32
    data: types.sequence[types.byte]


@dataclass
@annotate.final
class Sensor(IdlStruct, typename="Sensor"):
    id: types.int32
    ts: types.float64
    values: types.array[types.float32, 3]
    name: str
    samples: types.sequence[types.int16]
    ok: bool


@dataclass
@annotate.final
class Align(IdlStruct, typename="Align"):
    a: types.byte
    b: types.int64
    c: types.byte
    d: types.float64
    e: types.uint16
    f: types.int32


@dataclass
@annotate.final
class Point(IdlStruct, typename="Point"):
    x: types.int32
    y: types.int32


@dataclass
@annotate.final
class Pose(IdlStruct, typename="Pose"):
    tag: types.byte
    position: Point
    path: types.sequence[Point]


@dataclass
@annotate.final
class Colored(IdlStruct, typename="Colored"):
    color: Color
    o: types.byte


@annotate.final
class Value(IdlUnion, discriminator=types.int32, typename="Value"):
    i: types.case[1, types.int32]
    d: types.case[2, types.float64]
    s: types.default[str]


@dataclass
@annotate.final
class Tagged(IdlStruct, typename="Tagged"):
    k: types.byte
    v: Value


@dataclass
@annotate.appendable
class AppSensor(IdlStruct, typename="AppSensor"):
    id: types.int32
    ts: types.float64
    name: str


@dataclass
@annotate.mutable
class MutSensor(IdlStruct, typename="MutSensor"):
    id: types.int32
    ts: types.float64
    name: str


@dataclass
@annotate.appendable
class OptSensor(IdlStruct, typename="OptSensor"):
    id: types.int32
    f: Optional[types.float32]
    s: Optional[str]


@dataclass
@annotate.final
class Outer(IdlStruct, typename="Outer"):
    a: types.byte
    inner: AppSensor
    z: types.uint16


@dataclass
class ShapeType(IdlStruct, typename="ShapeType"):
    color: str
    annotate.key("color")
    x: types.int32
    y: types.int32
    shapesize: types.int32


@dataclass
class KeyedSeq(IdlStruct, typename="KeyedSeq"):
    seq: types.uint32
    keyval: types.uint32
    annotate.key("keyval")
    baggage: types.sequence[types.byte]


@dataclass
@annotate.final
class Prims(IdlStruct, typename="Prims"):
    b: bool
    c: types.char
    o: types.byte
    i8: types.int8
    u8: types.uint8
    s: types.int16
    us: types.uint16
    l: types.int32
    ul: types.uint32
    ll: types.int64
    ull: types.uint64
    f: types.float32
    d: types.float64


@dataclass
@annotate.final
class Containers(IdlStruct, typename="Containers"):
    strs: types.sequence[str]
    nested: types.sequence[types.sequence[types.int32]]
    matrix: types.array[types.array[types.int32, 3], 2]
    names: types.array[str, 2]
    pts: types.sequence[Point]
    grid: types.array[Point, 2]
    ds: types.sequence[types.float64]
    bs: types.sequence[bool]
    colors: types.sequence[Color]
    carr: types.array[Color, 2]
    chars: types.sequence[types.char]
    short_name: types.bounded_str[8]
    few: types.sequence[types.int32, 4]
    raw: types.array[types.byte, 3]
    after: types.float64


@dataclass
@annotate.mutable
class MutAll(IdlStruct, typename="MutAll"):
    a: types.byte
    b: types.int16
    c: types.int32
    d: types.int64
    s: str
    so: types.sequence[types.byte]
    ss: types.sequence[types.int16]
    sl: types.sequence[types.int32]
    sd: types.sequence[types.float64]
    sp: types.sequence[Point]
    p: Point
    arr: types.array[types.int32, 3]
    col: Color
    opt: Optional[types.int32]
    strs: types.array[str, 2]
    app: AppSensor


@dataclass
@annotate.mutable
class MutIds(IdlStruct, typename="MutIds"):
    k: types.int32
    annotate.key("k")
    annotate.member_id("k", 10)
    name: str
    annotate.member_id("name", 20)
    maybe: Optional[types.float64]
    h: types.int32
    annotate.member_hash_id("h")


@dataclass
@annotate.final
class HasMut(IdlStruct, typename="HasMut"):
    pre: types.byte
    m: MutSensor
    post: types.float64


@dataclass
@annotate.mutable
class MutNest(IdlStruct, typename="MutNest"):
    x: types.float64
    inner: AppSensor
    sub: MutSensor
    lst: types.sequence[MutSensor]
    o: types.byte


@dataclass
@annotate.final
class OptFinal(IdlStruct, typename="OptFinal"):
    a: types.byte
    d: Optional[types.float64]
    p: Optional[Point]
    sl: Optional[types.sequence[types.int32]]
    z: types.byte


@annotate.final
class ByColor(IdlUnion, discriminator=Color, typename="ByColor"):
    r: types.case[Color.RED, types.int32]
    gb: types.case[[Color.GREEN, Color.BLUE], str]


@annotate.final
class ByShort(IdlUnion, discriminator=types.int16, typename="ByShort"):
    neg: types.case[-1, types.float64]
    pt: types.case[5, Point]
    rest: types.default[types.sequence[types.int32]]


@annotate.appendable
class AppU(IdlUnion, discriminator=types.byte, typename="AppU"):
    a: types.case[0, str]
    b: types.case[1, types.int64]


@annotate.final
class ByChar(IdlUnion, discriminator=types.char, typename="ByChar"):
    a: types.case['a', types.int32]
    b: types.case['b', str]


@annotate.final
class ByBool(IdlUnion, discriminator=bool, typename="ByBool"):
    t: types.case[True, types.int64]


@dataclass
@annotate.final
class Unions(IdlStruct, typename="Unions"):
    pre: types.byte
    bc: ByColor
    bs: ByShort
    au: AppU
    ch: ByChar
    bb: ByBool
    post: types.int16


@dataclass
@annotate.final
class BitBound(IdlStruct, typename="BitBound"):
    s: Small
    o: types.byte
    m: Mid
    ss: types.sequence[Small]
    c: Color


@dataclass
@annotate.final
class Base(IdlStruct, typename="Base"):
    a: types.int32


@dataclass
@annotate.final
class Derived(Base, typename="Derived"):
    b: types.float64
    c: str


@dataclass
@annotate.appendable
class Typedefs(IdlStruct, typename="Typedefs"):
    ls: types.sequence[types.int32]
    rows: types.array[types.array[types.int32, 3], 2]
    label: types.bounded_str[16]


@dataclass
@annotate.appendable
class AppNest(IdlStruct, typename="AppNest"):
    head: types.byte
    apps: types.sequence[AppSensor]
    opt: Optional[AppSensor]
    tail: types.float64


@dataclass
@annotate.final
class Big(IdlStruct, typename="Big"):
    tag: types.int8
    vals: types.sequence[types.float64]
    tail: types.int64


# ---------------------------------------------------------------------------------------------
# Cases: (name, IDL, Python top type, values, also serialize_key?)

IDL_COLOR = "enum Color { RED, GREEN, BLUE };"
IDL_POINT = "@final struct Point { long x; long y; };"
IDL_APP = "@appendable struct AppSensor { long id; double ts; string name; };"
IDL_MUT = "@mutable struct MutSensor { long id; double ts; string name; };"

CASES = [
    ("Payload", "@final struct Payload { unsigned long seq; sequence<octet> data; };", Payload,
     [Payload(1, [1, 2, 3, 4, 5]), Payload(0, []), Payload(4294967295, list(range(256)))], False),
    ("Sensor",
     "@final struct Sensor { long id; double ts; float values[3]; string name; "
     "sequence<short> samples; boolean ok; };", Sensor,
     [Sensor(42, 1.5, [1.0, 2.0, 3.0], "imu", [-1, 2, 300], True),
      Sensor(-7, -0.0, [0.5, -1.25, 2.0 ** 100], "", [], False)], False),
    ("Align",
     "@final struct Align { octet a; long long b; octet c; double d; unsigned short e; long f; };",
     Align, [Align(1, -2, 3, 4.5, 65535, -2147483648)], False),
    ("Pose", IDL_POINT + " @final struct Pose { octet tag; Point position; sequence<Point> path; };",
     Pose, [Pose(9, Point(1, -1), [Point(2, 3), Point(4, 5)]), Pose(0, Point(0, 0), [])], False),
    ("Colored", IDL_COLOR + " @final struct Colored { Color color; octet o; };", Colored,
     [Colored(Color.GREEN, 7), Colored(Color.BLUE, 0)], False),
    ("Tagged",
     "union Value switch(long) { case 1: long i; case 2: double d; default: string s; };\n"
     "@final struct Tagged { octet k; Value v; };", Tagged,
     [Tagged(1, Value(i=-5)), Tagged(2, Value(d=2.5)), Tagged(3, Value(s="dflt")),
      Tagged(4, Value(discriminator=77, value="explicit"))], False),
    ("AppSensor", IDL_APP, AppSensor, [AppSensor(7, 0.25, "app"), AppSensor(0, 0.0, "")], False),
    ("MutSensor", IDL_MUT, MutSensor, [MutSensor(7, 0.25, "mut"), MutSensor(-1, 1e-300, "x" * 13)], False),
    ("OptSensor", "@appendable struct OptSensor { long id; @optional float f; @optional string s; };",
     OptSensor, [OptSensor(1, 2.5, "on"), OptSensor(2, None, None), OptSensor(3, None, "half")], False),
    ("Outer", IDL_APP + " @final struct Outer { octet a; AppSensor inner; unsigned short z; };", Outer,
     [Outer(5, AppSensor(1, 2.0, "in"), 65000)], False),
    ("ShapeType", "struct ShapeType { @key string color; long x; long y; long shapesize; };", ShapeType,
     [ShapeType("BLUE", 34, 100, 24), ShapeType("a much longer colour name", -1, 0, 1)], True),
    ("KeyedSeq",
     "struct KeyedSeq { unsigned long seq; @key unsigned long keyval; sequence<octet> baggage; };",
     KeyedSeq, [KeyedSeq(1, 0, [0xee] * 20), KeyedSeq(2, 77, [0xee] * 21)], True),
    ("Prims",
     "@final struct Prims { boolean b; char c; octet o; int8 i8; uint8 u8; short s; unsigned short us; "
     "long l; unsigned long ul; long long ll; unsigned long long ull; float f; double d; };", Prims,
     [Prims(True, 'z', 255, -128, 200, -32768, 65535, -1, 4294967295, -9223372036854775808,
            18446744073709551615, 3.5, -2.75),
      Prims(False, '\0', 0, 127, 0, 1, 2, 3, 4, 5, 6, 0.0, 1e308)], False),
    ("Containers",
     IDL_COLOR + " " + IDL_POINT + "\n@final struct Containers { sequence<string> strs; "
     "sequence<sequence<long> > nested; long matrix[2][3]; string names[2]; sequence<Point> pts; "
     "Point grid[2]; sequence<double> ds; sequence<boolean> bs; sequence<Color> colors; Color carr[2]; "
     "sequence<char> chars; string<8> short_name; sequence<long, 4> few; octet raw[3]; double after; };",
     Containers,
     [Containers(["a", "bb", ""], [[1], [], [2, 3]], [[1, 2, 3], [4, 5, 6]], ["n1", "n2"],
                 [Point(1, 2)], [Point(3, 4), Point(5, 6)], [0.5, 1.5], [True, False, True],
                 [Color.RED, Color.BLUE], [Color.GREEN, Color.RED], ['h', 'i'], "eight888", [9, 8],
                 bytes([1, 2, 3]), 6.25),
      Containers([], [], [[0] * 3] * 2, ["", ""], [], [Point(0, 0), Point(0, 0)], [], [], [],
                 [Color.RED, Color.RED], [], "", [], bytes(3), 0.0)], False),
    ("MutAll",
     IDL_COLOR + " " + IDL_POINT + " " + IDL_APP + "\n@mutable struct MutAll { octet a; short b; long c; "
     "long long d; string s; sequence<octet> so; sequence<short> ss; sequence<long> sl; "
     "sequence<double> sd; sequence<Point> sp; Point p; long arr[3]; Color col; @optional long opt; "
     "string strs[2]; AppSensor app; };", MutAll,
     [MutAll(1, -2, 3, -4, "five", [6, 7], [8, -9, 10], [11], [12.5, 13.5], [Point(14, 15)],
             Point(16, 17), [18, 19, 20], Color.BLUE, 21, ["x", "yz"], AppSensor(1, 2.0, "a")),
      MutAll(0, 0, 0, 0, "", [], [], [], [], [], Point(0, 0), [0, 0, 0], Color.RED, None, ["", ""],
             AppSensor(0, 0.0, ""))], False),
    ("MutIds",
     "@mutable struct MutIds { @key @id(10) long k; @id(20) string name; @optional double maybe; "
     "@hashid long h; };", MutIds,
     [MutIds(5, "five", 5.5, -5), MutIds(6, "", None, 0)], True),
    ("HasMut", IDL_MUT + " @final struct HasMut { octet pre; MutSensor m; double post; };", HasMut,
     [HasMut(1, MutSensor(2, 3.0, "four"), 5.0)], False),
    ("MutNest",
     IDL_APP + " " + IDL_MUT + "\n@mutable struct MutNest { double x; AppSensor inner; MutSensor sub; "
     "sequence<MutSensor> lst; octet o; };", MutNest,
     [MutNest(1.5, AppSensor(1, 2.0, "app"), MutSensor(3, 4.0, "mut"),
              [MutSensor(5, 6.0, "l1"), MutSensor(7, 8.0, "")], 9)], False),
    ("OptFinal",
     IDL_POINT + " @final struct OptFinal { octet a; @optional double d; @optional Point p; "
     "@optional sequence<long> sl; octet z; };", OptFinal,
     [OptFinal(1, 2.5, Point(3, 4), [5, 6], 7), OptFinal(8, None, None, None, 9),
      OptFinal(10, None, Point(-1, -2), [], 11)], False),
    ("Unions",
     IDL_COLOR + " " + IDL_POINT + "\n"
     "union ByColor switch(Color) { case RED: long r; case GREEN: case BLUE: string gb; };\n"
     "union ByShort switch(short) { case -1: double neg; case 5: Point pt; default: sequence<long> rest; };\n"
     "@appendable union AppU switch(octet) { case 0: string a; case 1: long long b; };\n"
     "union ByChar switch(char) { case 'a': long a; case 'b': string b; };\n"
     "union ByBool switch(boolean) { case TRUE: long long t; };\n"
     "@final struct Unions { octet pre; ByColor bc; ByShort bs; AppU au; ByChar ch; ByBool bb; short post; };",
     Unions,
     [Unions(1, ByColor(r=7), ByShort(neg=-0.5), AppU(a="app"), ByChar(a=3), ByBool(t=-9), 2),
      Unions(3, ByColor(discriminator=Color.BLUE, value="blue"), ByShort(pt=Point(1, 2)), AppU(b=-1),
             ByChar(b="bee"), ByBool(discriminator=False, value=None), 4),
      Unions(5, ByColor(gb="green"), ByShort(rest=[1, 2, 3]), AppU(b=1 << 40),
             ByChar(discriminator='z', value=None), ByBool(t=0), 6),
      Unions(7, ByColor(r=0), ByShort(discriminator=100, value=[]), AppU(a=""),
             ByChar(a=-1), ByBool(t=1), 8)], False),
    ("BitBound",
     IDL_COLOR + "\n@bit_bound(8) enum Small { A, B, C };\n@bit_bound(16) enum Mid { X, Y };\n"
     "@final struct BitBound { Small s; octet o; Mid m; sequence<Small> ss; Color c; };", BitBound,
     [BitBound(Small.C, 1, Mid.Y, [Small.A, Small.B], Color.BLUE)], False),
    ("Derived",
     "@final struct Base { long a; };\n@final struct Derived : Base { double b; string c; };", Derived,
     [Derived(1, 2.0, "three")], False),
    ("Typedefs",
     "module td {\n  const long N = 2;\n  typedef sequence<long> LongSeq;\n  typedef long Row[N + 1];\n"
     "  typedef string<16> Label;\n  @appendable struct Typedefs { LongSeq ls; Row rows[N]; Label label; };\n};",
     Typedefs, [Typedefs([1, 2], [[1, 2, 3], [4, 5, 6]], "label")], False),
    ("AppNest",
     IDL_APP + "\n@appendable struct AppNest { octet head; sequence<AppSensor> apps; "
     "@optional AppSensor opt; double tail; };", AppNest,
     [AppNest(1, [AppSensor(2, 3.0, "a"), AppSensor(4, 5.0, "")], AppSensor(6, 7.0, "o"), 8.0),
      AppNest(0, [], None, 0.5)], False),
    ("Big", "@final struct Big { int8 tag; sequence<double> vals; long long tail; };", Big,
     [Big(-1, [float(i) / 7.0 for i in range(300)], 1 << 40)], False),
]

CASE_BY_NAME = {c[0]: c for c in CASES}

ENCODINGS = [("XCDR1-LE", False, Endianness.Little), ("XCDR1-BE", False, Endianness.Big),
             ("XCDR2-LE", True, Endianness.Little), ("XCDR2-BE", True, Endianness.Big)]
ENC_BY_NAME = {e[0]: e for e in ENCODINGS}


# ---------------------------------------------------------------------------------------------
# Python value <-> canonical JSON

BYTE_TYPES = (types.byte, types.uint8)
FLOAT_TYPES = (types.float32, types.float64, float)


def _num(x):
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return {"$f64": "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")}
    return x


def _fnum(j):
    if isinstance(j, dict) and "$f64" in j:
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[j["$f64"]])
    return float(j)


def _union_branch(tp, disc):
    hints = get_extended_type_hints(tp)
    if disc in tp.__idl_cases__:
        name = tp.__idl_cases__[disc][0]
    elif tp.__idl_default__ is not None:
        name = tp.__idl_default__[0]
    else:
        return None
    return hints[name].subtype


def _disc_to_json(tp, d):
    if d is None:
        d = tp.__idl_default_discriminator__
    if isinstance(d, Enum):
        return d.value
    if isinstance(d, bool):
        return int(d)
    if isinstance(d, str):
        return ord(d)
    return int(d)


def _disc_from_json(tp, j):
    dt = tp.__idl_discriminator__
    if isclass(dt) and issubclass(dt, Enum):
        try:
            return dt[j] if isinstance(j, str) else dt(j)
        except (KeyError, ValueError):
            return j  # not an enumerator (a default discriminator)
    if dt is bool:
        return bool(j)
    if dt == types.char:
        return j if isinstance(j, str) else chr(j)
    return int(j)


def to_json(tp, v):
    if isinstance(tp, WrapOpt):
        return None if v is None else to_json(tp.inner, v)
    if isinstance(tp, types.typedef):
        return to_json(tp.subtype, v)
    if isinstance(tp, (types.array, types.sequence)):
        return [to_json(tp.subtype, x) for x in v]
    if isinstance(tp, types.bounded_str) or tp is str or tp == types.char:
        return v
    if tp is bool:
        return bool(v)
    if tp in FLOAT_TYPES:
        return _num(float(v))
    if isclass(tp) and issubclass(tp, Enum):
        return v.name if isinstance(v, Enum) else int(v)
    if isclass(tp) and issubclass(tp, IdlUnion):
        d = v.discriminator if v.discriminator is not None else tp.__idl_default_discriminator__
        branch = _union_branch(tp, d)
        val = None if branch is None or v.value is None else to_json(branch, v.value)
        return {"discriminator": _disc_to_json(tp, d), "value": val}
    if isclass(tp) and issubclass(tp, IdlStruct):
        return {k: to_json(t, getattr(v, k)) for k, t in get_extended_type_hints(tp).items()}
    return int(v)


def from_json(tp, j):
    if isinstance(tp, WrapOpt):
        return None if j is None else from_json(tp.inner, j)
    if isinstance(tp, types.typedef):
        return from_json(tp.subtype, j)
    if isinstance(tp, types.array):
        if tp.subtype in BYTE_TYPES:
            return bytes(j)
        return [from_json(tp.subtype, x) for x in j]
    if isinstance(tp, types.sequence):
        return [from_json(tp.subtype, x) for x in j]
    if isinstance(tp, types.bounded_str) or tp is str or tp == types.char:
        return j
    if tp is bool:
        return bool(j)
    if tp in FLOAT_TYPES:
        return _fnum(j)
    if isclass(tp) and issubclass(tp, Enum):
        return tp[j] if isinstance(j, str) else tp(j)
    if isclass(tp) and issubclass(tp, IdlUnion):
        d = _disc_from_json(tp, j["discriminator"])
        branch = _union_branch(tp, d)
        val = None if branch is None or j.get("value") is None else from_json(branch, j["value"])
        return tp(discriminator=d, value=val)
    if isclass(tp) and issubclass(tp, IdlStruct):
        return tp(**{k: from_json(t, j.get(k)) for k, t in get_extended_type_hints(tp).items()})
    return int(j)


def serialize(obj, enc, key):
    _, v2, endian = ENC_BY_NAME[enc]
    if key:
        return obj.serialize_key(endianness=endian, use_version_2=v2)
    return obj.serialize(endianness=endian, use_version_2=v2)


def deserialize(tp, data, enc, key):
    if key:
        return tp.deserialize_key(data)
    return tp.deserialize(data)


def key_json(tp, j):
    """The part of a value that serialize_key writes (the top-level @key members)."""
    keys = [k for k, a in tp.__idl_field_annotations__.items() if a.get("key")]
    return {k: j[k] for k in keys}


# ---------------------------------------------------------------------------------------------

def cases():
    for name, idl, tp, values, with_key in CASES:
        for v in values:
            vj = to_json(tp, v)
            for enc, _, _ in ENCODINGS:
                for key in ([False, True] if with_key else [False]):
                    data = serialize(v, enc, key)
                    back = to_json(tp, deserialize(tp, data, enc, key))
                    if (key_json(tp, back) if key else back) != (key_json(tp, vj) if key else vj):
                        raise SystemExit(f"cyclonedds does not round-trip {name} {enc} key={key}: "
                                         f"{vj} -> {back}")
                    print(json.dumps({"case": name, "idl": idl, "type": tp.__name__, "encoding": enc,
                                      "key": key, "value": vj, "hex": data.hex()}))


def check():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        out = {"case": req["case"], "encoding": req["encoding"], "key": req.get("key", False)}
        try:
            tp = CASE_BY_NAME[req["case"]][2]
            key = req.get("key", False)
            obj = from_json(tp, req["value"])
            ours = serialize(obj, req["encoding"], key)
            out["python_hex"] = ours.hex()
            back = to_json(tp, deserialize(tp, bytes.fromhex(req["hex"]), req["encoding"], key))
            want = to_json(tp, obj)
            if key:
                back, want = key_json(tp, back), key_json(tp, want)
            why = []
            if ours.hex() != req["hex"]:
                why.append("bytes differ")
            if back != want:
                why.append(f"cyclonedds decodes the Rust bytes to {back}, expected {want}")
            out["ok"] = not why
            out["why"] = "; ".join(why)
        except Exception as e:  # report, do not die: one bad case must not hide the rest
            out["ok"] = False
            out["why"] = f"{type(e).__name__}: {e}"
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "cases"
    if mode == "cases":
        cases()
    elif mode == "check":
        check()
    else:
        raise SystemExit(f"usage: {sys.argv[0]} [cases|check]")
