#!/usr/bin/env python3
"""Turn vectors/cdr.json into C code for c/tests/test_cdr.c.

usage: gen_cdr_vectors.py IN.json OUT.h          (Python 3 standard library only)
       gen_cdr_vectors.py --seeds IN.json DIR    (each vector's bytes as DIR/cdr_<i>)
       gen_cdr_vectors.py --avr IN.json OUT.h    (for c/tests/avr/test_avr_cdr.c: double
                                                  as binary64 bits, bytes in flash)

Each entry is {"name","idl","value","encoding","hex",...}. The generator reads
the IDL (a subset: modules, @final / @appendable structs, nested structs,
struct inheritance,
enums (@bit_bound), unions with an integer / boolean / char / enum
discriminator, typedefs, integer constants, primitives, (bounded) strings,
sequences, multi-dimensional arrays, @optional, @key, @id), picks the type
the way the Rust vector test does (a "type" hint, the vector name's first
word, else the last top-level struct or union), builds the value from JSON
(the lenient rules of crates/cdr/tests/common) and emits, per vector:

  cv_enc_<i>(cdr_writer *)            the calls that write the value, and
  cv_dec_<i>(cdr_reader *, cv_ctx *)  the calls that read it back, comparing
                                      every value with the expected one, and
  cv_walk_<i>(cdr_reader *)           type-driven reader calls for any value of
                                      the type (sequences loop over the count
                                      read, unions switch on the discriminator):
                                      the fuzz target's decoders.

Key serializations (an `encoding` / name / notes mentioning the key, as in
the Rust test) write and read only the @key members (serialize_key).
Entries the C API does not cover are listed with the reason and skipped by
the C test: @mutable types (PL_CDR / PL_CDR2 member lists), wide
characters, IDL the parser does not read. Problems with an entry never stop the generator.
"""
import json
import os
import re
import struct
import sys

PRIMS = {  # name: (size, C writer suffix, C type, signed)
    "boolean": (1, "bool", "bool", False), "octet": (1, "u8", "uint8_t", False),
    "char": (1, "u8", "uint8_t", False), "int8": (1, "i8", "int8_t", True),
    "uint8": (1, "u8", "uint8_t", False), "short": (2, "i16", "int16_t", True),
    "int16": (2, "i16", "int16_t", True), "unsigned short": (2, "u16", "uint16_t", False),
    "uint16": (2, "u16", "uint16_t", False), "long": (4, "i32", "int32_t", True),
    "int32": (4, "i32", "int32_t", True), "unsigned long": (4, "u32", "uint32_t", False),
    "uint32": (4, "u32", "uint32_t", False), "long long": (8, "i64", "int64_t", True),
    "int64": (8, "i64", "int64_t", True), "unsigned long long": (8, "u64", "uint64_t", False),
    "uint64": (8, "u64", "uint64_t", False), "float": (4, "f32", "float", False),
    "double": (8, "f64", "double", False),
}


class Skip(Exception):
    """The entry uses something outside the C API (reported, not failed)."""


class GenError(Exception):
    """The entry cannot be read (the C test reports it as failed)."""


# ---------------------------------------------------------------------------
# IDL

TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|#[^\n]*|"(?:[^"\\]|\\.)*"|' + r"'(?:[^'\\]|\\.)'" + r'|::|<<|>>|[A-Za-z_][A-Za-z0-9_]*'
                   r'|0[xX][0-9a-fA-F]+|\d+|[{}();:,<>=\[\]@+\-*/|&^~%.]', re.S)


def tokenize(text):
    out, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise GenError("IDL: unexpected character %r" % text[pos])
        t = m.group(0)
        pos = m.end()
        if t.isspace() or t.startswith("//") or t.startswith("/*") or t.startswith("#"):
            continue
        out.append(t)
    return out


class Idl:
    def __init__(self, text):
        self.t = tokenize(text)
        self.i = 0
        self.types = {}    # name -> type
        self.consts = {}
        self.tops = []     # top-level struct / union names in order
        self.scope = []
        self.parse_defs(top=True)

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def next(self):
        if self.i >= len(self.t):
            raise GenError("IDL: unexpected end")
        self.i += 1
        return self.t[self.i - 1]

    def expect(self, tok):
        got = self.next()
        if got != tok:
            raise GenError("IDL: expected %r, found %r" % (tok, got))

    def annotations(self):
        anns = {}
        while self.peek() == "@":
            self.next()
            name = self.next()
            args = None
            if self.peek() == "(":
                self.next()
                depth, parts = 1, []
                while depth:
                    tok = self.next()
                    if tok == "(":
                        depth += 1
                    elif tok == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    parts.append(tok)
                args = " ".join(parts)
            anns[name.lower()] = args
        return anns

    def const_expr(self, stop):
        parts = []
        while self.peek() not in stop:
            parts.append(self.next())
        expr = " ".join(self.consts.get(p, p) if not isinstance(self.consts.get(p), int) else str(self.consts[p])
                        for p in parts)
        if not re.fullmatch(r"[0-9xXa-fA-F()+\-*/%<>|&^~ ]*", expr):
            raise GenError("IDL: constant expression %r" % expr)
        try:
            return int(eval(expr.replace("/", "//"), {"__builtins__": {}}))
        except Exception as e:  # noqa: BLE001
            raise GenError("IDL: constant expression %r: %s" % (expr, e))

    def parse_defs(self, top):
        while self.peek() is not None and self.peek() != "}":
            anns = self.annotations()
            kw = self.next()
            if kw == ";":
                continue
            if kw == "module":
                self.scope.append(self.next())
                self.expect("{")
                self.parse_defs(top)
                self.expect("}")
                self.scope.pop()
            elif kw == "struct":
                self.parse_struct(anns, top)
            elif kw == "union":
                self.parse_union(anns, top)
            elif kw == "enum":
                self.parse_enum(anns)
            elif kw == "typedef":
                base = self.parse_type()
                while True:
                    name, ty = self.declarator(base)
                    self.types[name] = ty
                    if self.peek() != ",":
                        break
                    self.next()
            elif kw == "const":
                self.parse_type()
                name = self.next()
                self.expect("=")
                self.consts[name] = self.const_expr({";"})
            elif kw == "bitmask" or kw == "bitset" or kw == "interface" or kw == "valuetype":
                raise Skip("IDL %s" % kw)
            else:
                raise GenError("IDL: unexpected %r" % kw)
            if self.peek() == ";":
                self.next()

    def parse_type(self):
        tok = self.next()
        if tok == "unsigned":
            nxt = self.next()
            if nxt == "long" and self.peek() == "long":
                self.next()
                return ("prim", "unsigned long long")
            return ("prim", "unsigned " + nxt)
        if tok == "long" and self.peek() == "long":
            self.next()
            return ("prim", "long long")
        if tok == "long" and self.peek() == "double":
            raise Skip("long double")
        if tok in PRIMS:
            return ("prim", tok)
        if tok in ("wchar", "wstring", "fixed", "any", "Object", "map"):
            raise Skip("IDL type %s" % tok)
        if tok == "string":
            bound = None
            if self.peek() == "<":
                self.next()
                bound = self.const_expr({">"})
                self.expect(">")
            return ("string", bound)
        if tok == "sequence":
            self.expect("<")
            elem = self.parse_type()
            bound = None
            if self.peek() == ",":
                self.next()
                bound = self.const_expr({">"})
            self.expect(">")
            return ("seq", elem, bound)
        name = tok
        while self.peek() == "::":
            self.next()
            name = self.next()
        if name.startswith("::"):
            name = name[2:]
        return ("ref", name)

    def declarator(self, base):
        name = self.next()
        dims = []
        while self.peek() == "[":
            self.next()
            dims.append(self.const_expr({"]"}))
            self.expect("]")
        return name, (("array", base, dims) if dims else base)

    def parse_struct(self, anns, top):
        name = self.next()
        if self.peek() == ";":  # forward declaration
            return
        base_members = []
        if self.peek() == ":":  # inheritance: the base members come first
            self.next()
            base = self.resolve(self.parse_type())
            if base[0] != "struct":
                raise GenError("IDL: %s inherits from a non-struct" % name)
            base_members = list(base[3])
        ext = "final"
        for a in ("appendable", "mutable", "final"):
            if a in anns:
                ext = a
        if "extensibility" in anns and anns["extensibility"]:
            ext = anns["extensibility"].strip().lower()
        self.expect("{")
        members = base_members
        while self.peek() != "}":
            manns = self.annotations()
            base = self.parse_type()
            while True:
                mname, ty = self.declarator(base)
                mid = len(members)
                if "id" in manns and manns["id"]:
                    mid = self.const_expr_str(manns["id"])
                members.append({"name": mname, "ty": ty, "optional": "optional" in manns,
                                "key": "key" in manns, "id": mid})
                if self.peek() != ",":
                    break
                self.next()
            self.expect(";")
        self.expect("}")
        self.types[name] = ("struct", name, ext, members)
        if top:
            self.tops.append(name)

    def const_expr_str(self, s):
        try:
            return int(s, 0)
        except ValueError:
            raise GenError("IDL: @id(%s)" % s)

    def parse_union(self, anns, top):
        name = self.next()
        ext = "final"
        for a in ("appendable", "mutable", "final"):
            if a in anns:
                ext = a
        self.expect("switch")
        self.expect("(")
        disc = self.parse_type()
        self.expect(")")
        self.expect("{")
        cases = []
        while self.peek() != "}":
            labels, default = [], False
            while self.peek() in ("case", "default"):
                if self.next() == "case":
                    label_toks = []
                    while self.peek() != ":" or (self.peek() == ":" and self.peek(1) == ":"):
                        if self.peek() == "::":
                            self.next()
                            continue
                        label_toks.append(self.next())
                    labels.append(label_toks)
                else:
                    default = True
                self.expect(":")
            self.annotations()
            base = self.parse_type()
            mname, ty = self.declarator(base)
            self.expect(";")
            cases.append({"name": mname, "ty": ty, "labels": labels, "default": default})
        self.expect("}")
        self.types[name] = ("union", name, ext, disc, cases)
        if top:
            self.tops.append(name)

    def parse_enum(self, anns):
        name = self.next()
        bb = int(anns["bit_bound"]) if anns.get("bit_bound") else None
        self.expect("{")
        values, nxt = [], 0
        while self.peek() != "}":
            ea = self.annotations()
            ename = self.next()
            if "value" in ea and ea["value"]:
                nxt = int(ea["value"], 0)
            values.append((ename, nxt))
            self.consts[ename] = nxt
            nxt += 1
            if self.peek() == ",":
                self.next()
        self.expect("}")
        self.types[name] = ("enum", name, bb, values)

    def resolve(self, ty, depth=0):
        while ty[0] == "ref":
            if ty[1] not in self.types or depth > 50:
                raise GenError("IDL: unknown type %s" % ty[1])
            ty = self.types[ty[1]]
            depth += 1
        if ty[0] == "array":  # an array of (typedef'd) arrays is one multi-dimensional array
            elem = self.resolve(ty[1], depth + 1)
            if elem[0] == "array":
                return ("array", elem[1], list(ty[2]) + list(elem[2]))
        return ty


# ---------------------------------------------------------------------------
# Type facts (as crates/cdr)

def is_prim(idl, ty):
    return idl.resolve(ty)[0] == "prim"


def enum_size(ty, v2):
    bb = ty[2]
    if v2 and bb is not None and bb <= 8:
        return 1
    if v2 and bb is not None and bb <= 16:
        return 2
    return 4


def includes(key, has_keys, m):
    """Members written in key mode `key` (all / top / nested), as KeyMode::includes."""
    if key == "all":
        return True
    if key == "top":
        return m["key"]
    return not has_keys or m["key"]


def child_key(key):
    return "all" if key == "all" else "nested"


def min_size(idl, ty, v2, depth=0, key="all"):
    ty = idl.resolve(ty)
    if depth > 32:
        return 0
    k = ty[0]
    if k == "prim":
        return PRIMS[ty[1]][0]
    if k == "string":
        return 5
    if k == "enum":
        return enum_size(ty, v2)
    if k == "seq":
        return 8 if v2 and not is_prim(idl, ty[1]) else 4
    if k == "array":
        if v2 and not is_prim(idl, ty[1]):
            return 4
        n = 1
        for d in ty[2]:
            n *= d
        return n * min_size(idl, ty[1], v2, depth + 1, key)
    if k == "struct":
        if ty[2] == "mutable" or (ty[2] == "appendable" and v2):
            return 4
        total = 0
        has_keys = key != "all" and any(m["key"] for m in ty[3])
        for m in ty[3]:
            if not includes(key, has_keys, m):
                continue
            total += (1 if v2 else 12) if m["optional"] else min_size(idl, m["ty"], v2, depth + 1, child_key(key))
        return total
    if k == "union":
        if v2 and ty[2] != "final":
            return 4
        return min_size(idl, ty[3], v2, depth + 1)
    return 0


# ---------------------------------------------------------------------------
# JSON values (lenient, as crates/cdr/tests/common/mod.rs from_json)

def strip_scope(s):
    return s.rsplit("::", 1)[-1].rsplit(".", 1)[-1]


def int_json(j):
    if isinstance(j, bool):
        return int(j)
    if isinstance(j, int):
        return j
    if isinstance(j, float) and j == int(j):
        return int(j)
    if isinstance(j, str):
        try:
            return int(j.strip(), 0)
        except ValueError:
            pass
    raise GenError("expected an integer, found %r" % (j,))


def float_json(j):
    if isinstance(j, (int, float)) and not isinstance(j, bool):
        return float(j)
    if isinstance(j, str):
        s = j.lower()
        specials = {"nan": float("nan"), "infinity": float("inf"), "inf": float("inf"), "+infinity": float("inf"),
                    "+inf": float("inf"), "-infinity": float("-inf"), "-inf": float("-inf")}
        if s in specials:
            return specials[s]
        try:
            return float(s)
        except ValueError:
            pass
    if isinstance(j, dict) and len(j) == 1:
        return float_json(next(iter(j.values())))
    raise GenError("expected a float, found %r" % (j,))


def bytes_json(j):
    if isinstance(j, list):
        return bytes(int_json(x) & 0xff for x in j)
    if isinstance(j, str):
        try:
            return bytes.fromhex(j)
        except ValueError:
            return j.encode()
    if isinstance(j, dict) and len(j) == 1:
        return bytes.fromhex(next(iter(j.values())))
    raise GenError("expected octets, found %r" % (j,))


def enum_value(ty, j):
    if isinstance(j, str):
        name = strip_scope(j)
        for n, v in ty[3]:
            if n == name:
                return v
        return int_json(name)
    return int_json(j)


def default_disc(idl, u):
    disc = idl.resolve(u[3])
    used = set()
    for c in u[4]:
        for lab in c["labels"]:
            used.add(label_value(idl, disc, lab))
    if disc[0] == "prim" and PRIMS[disc[1]][3]:
        v = -1
        while v in used:
            v -= 1
        return v
    v = 0
    while v in used:
        v += 1
    return v


def label_value(idl, disc, toks):
    text = " ".join(toks)
    if disc[0] == "enum":
        for n, v in disc[3]:
            if n == strip_scope(text.replace(" ", "")):
                return v
    if disc[0] == "prim" and disc[1] == "boolean":
        if text in ("TRUE", "true"):
            return 1
        if text in ("FALSE", "false"):
            return 0
    if disc[0] == "prim" and disc[1] == "char" and len(text) == 3 and text[0] == "'":
        return ord(text[1])
    val = text
    for name, v in idl.consts.items():
        val = re.sub(r"\b%s\b" % re.escape(name), str(v), val)
    try:
        return int(eval(val.replace("/", "//"), {"__builtins__": {}}))
    except Exception:  # noqa: BLE001
        raise GenError("union label %r" % text)


def select_case(idl, u, d):
    disc = idl.resolve(u[3])
    default = None
    for c in u[4]:
        if any(label_value(idl, disc, lab) == d for lab in c["labels"]):
            return c
        if c["default"]:
            default = c
    return default


# ---------------------------------------------------------------------------
# C emission

def c_string(b):
    out = []
    for x in b:
        c = chr(x)
        out.append(c if 0x20 <= x < 0x7F and c not in '"\\?' else "\\%03o" % x)
    return '"' + "".join(out) + '"'


class Emitter:
    def __init__(self, idl, v2, idx):
        self.idl, self.v2, self.idx = idl, v2, idx
        self.enc, self.dec, self.data = [], [], []
        self.n = 0

    def var(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def blob(self, b):
        name = "cv_d_%d_%d" % (self.idx, len(self.data))
        self.data.append("static const uint8_t %s[]%s = {%s};\n"
                         % (name, " CV_FLASH" if AVR else "", ",".join("0x%02x" % x for x in b) or "0"))
        # --avr: the bytes stay in flash; CV_RAM(name, n) gives a RAM copy
        return "CV_RAM(%s, %d)" % (name, len(b)) if AVR else name

    @staticmethod
    def same_bytes(view, data, n):
        if n == 0:
            return "%s.len == 0" % view
        return "%s.len == %d && memcmp(%s.ptr, %s, %d) == 0" % (view, n, view, data, n)

    def expect(self, cond, path):
        self.dec.append("    CV_EXPECT(%s, %s);" % (cond, c_string(path.encode())))

    def prim(self, name, j, path):
        size, suf, ctype, signed = PRIMS[name]
        if name == "boolean":
            v = 1 if (j if isinstance(j, bool) else int_json(j) != 0) else 0
            self.enc.append("    cdr_write_bool(w, %d);" % v)
            x = self.var("b")
            self.dec.append("    { bool %s; cdr_read_bool(r, &%s);" % (x, x))
            self.expect("%s == %d" % (x, v), path)
            self.dec.append("    }")
            return
        if name == "char":
            if isinstance(j, str):
                if len(j.encode("latin-1", "replace")) > 1:
                    raise GenError("%s: char %r" % (path, j))
                v = ord(j) if j else 0
            else:
                v = int_json(j)
            lit = "%du" % (v & 0xff)
        elif name in ("float", "double"):
            f = float_json(j)
            if name == "float":
                bits = struct.unpack("<I", struct.pack("<f", f))[0] if f == f else 0x7fc00000
                self.enc.append("    cdr_write_f32(w, cv_f32(0x%08xu));" % bits)
                x = self.var("f")
                self.dec.append("    { float %s; cdr_read_f32(r, &%s);" % (x, x))
                self.expect("cv_f32_bits(%s) == 0x%08xu" % (x, bits), path)
            elif AVR:  # no 64-bit double on the device: binary64 bits
                bits = struct.unpack("<Q", struct.pack("<d", f))[0] if f == f else 0x7ff8000000000000
                self.enc.append("    cdr_write_f64_bits(w, UINT64_C(0x%016x));" % bits)
                x = self.var("d")
                self.dec.append("    { uint64_t %s; cdr_read_f64_bits(r, &%s);" % (x, x))
                self.expect("%s == UINT64_C(0x%016x)" % (x, bits), path)
            else:
                bits = struct.unpack("<Q", struct.pack("<d", f))[0] if f == f else 0x7ff8000000000000
                self.enc.append("    cdr_write_f64(w, cv_f64(UINT64_C(0x%016x)));" % bits)
                x = self.var("d")
                self.dec.append("    { double %s; cdr_read_f64(r, &%s);" % (x, x))
                self.expect("cv_f64_bits(%s) == UINT64_C(0x%016x)" % (x, bits), path)
            self.dec.append("    }")
            return
        else:
            v = int_json(j)
            lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
            if not lo <= v <= hi:
                raise GenError("%s: %d out of range for %s" % (path, v, name))
            if size == 8:
                lit = ("INT64_C(%d)" % v if v != lo else "INT64_MIN") if signed else "UINT64_C(%d)" % v
            elif signed:
                lit = "(%s)%d" % (ctype, v) if v != lo else "(%s)(%d - 1)" % (ctype, v + 1)
            else:
                lit = "%du" % v
        self.enc.append("    cdr_write_%s(w, %s);" % (suf, lit))
        x = self.var("v")
        self.dec.append("    { %s %s; cdr_read_%s(r, &%s);" % (ctype, x, suf, x))
        self.expect("%s == %s" % (x, lit), path)
        self.dec.append("    }")

    def value(self, ty, j, path, key="all"):
        idl = self.idl
        ty = idl.resolve(ty)
        k = ty[0]
        if k == "prim":
            self.prim(ty[1], j, path)
        elif k == "string":
            if not isinstance(j, str):
                raise GenError("%s: expected a string" % path)
            b = j.encode("utf-8")
            if 0 in b:
                raise GenError("%s: NUL in string" % path)
            bound = "CDR_UNBOUNDED" if ty[1] is None else "%du" % ty[1]
            self.enc.append("    cdr_write_string_bounded(w, %s, %d, %s);" % (c_string(b), len(b), bound))
            x = self.var("s")
            self.dec.append("    { cdr_view %s; cdr_read_string(r, %s, &%s);" % (x, bound, x))
            self.expect(self.same_bytes(x, c_string(b), len(b)), path)
            self.dec.append("    }")
        elif k == "enum":
            v = enum_value(ty, j)
            bb = ty[2] or 0
            vals = ",".join(str(x) for _, x in ty[3])
            self.enc.append("    cdr_write_enum(w, %d, %d);" % (bb, v))
            x, arr = self.var("e"), self.var("ev")
            self.dec.append("    { static const int32_t %s[] = {%s}; int32_t %s; cdr_read_enum(r, %d, %s, %d, &%s);"
                            % (arr, vals, x, bb, arr, len(ty[3]), x))
            self.expect("%s == %d" % (x, v), path)
            self.dec.append("    }")
        elif k == "seq":
            elem, bound = ty[1], ty[2]
            er = idl.resolve(elem)
            cb = "CDR_UNBOUNDED" if bound is None else "%du" % bound
            if er == ("prim", "octet") or er == ("prim", "uint8"):
                b = bytes_json(j)
                name = self.blob(b)
                self.enc.append("    cdr_write_octets(w, %s, %d);" % (name, len(b)))
                x = self.var("o")
                self.dec.append("    { cdr_view %s; cdr_read_octets(r, %s, &%s);" % (x, cb, x))
                self.expect(self.same_bytes(x, name, len(b)), path)
                self.dec.append("    }")
                return
            if not isinstance(j, list):
                raise GenError("%s: expected a list" % path)
            prim = "true" if is_prim(idl, elem) else "false"
            m, n = self.var("m"), self.var("n")
            self.enc.append("    { cdr_mark %s; cdr_begin_sequence(w, %d, %s, &%s);" % (m, len(j), prim, m))
            self.dec.append("    { cdr_mark %s; uint32_t %s; cdr_begin_read_sequence(r, %s, %d, %s, &%s, &%s);"
                            % (m, n, prim, min_size(idl, elem, self.v2, 0, key), cb, n, m))
            self.expect("%s == %d" % (n, len(j)), path + ".count")
            for i, x in enumerate(j):
                self.value(elem, x, "%s[%d]" % (path, i), key)
            self.enc.append("    cdr_end_sequence(w, &%s); }" % m)
            self.dec.append("    cdr_end_read_sequence(r, &%s); }" % m)
        elif k == "array":
            elem, dims = ty[1], ty[2]
            total = 1
            for d in dims:
                total *= d
            er = idl.resolve(elem)
            flat = self.flatten(j, dims, er, path)
            prim = is_prim(idl, elem)
            if er == ("prim", "octet") and isinstance(flat, bytes):
                name = self.blob(flat)
                self.enc.append("    cdr_write_bytes(w, %s, %d);" % (name, total))
                x, m = self.var("o"), self.var("m")
                self.dec.append("    { cdr_view %s; cdr_mark %s; cdr_begin_read_array(r, true, %d, 1, &%s); "
                                "cdr_read_bytes(r, %d, &%s); cdr_end_read_array(r, &%s);" % (x, m, total, m, total, x, m))
                self.expect(self.same_bytes(x, name, total), path)
                self.dec.append("    }")
                return
            m = self.var("m")
            self.enc.append("    { cdr_mark %s; cdr_begin_array(w, %s, &%s);" % (m, "true" if prim else "false", m))
            self.dec.append("    { cdr_mark %s; cdr_begin_read_array(r, %s, %d, %d, &%s);"
                            % (m, "true" if prim else "false", total, min_size(idl, elem, self.v2, 0, key), m))
            for i, x in enumerate(flat):
                self.value(elem, x, "%s[%d]" % (path, i), key)
            self.enc.append("    cdr_end_array(w, &%s); }" % m)
            self.dec.append("    cdr_end_read_array(r, &%s); }" % m)
        elif k == "struct":
            self.struct(ty, j, path, key)
        elif k == "union":
            self.union(ty, j, path)
        else:
            raise GenError("%s: type %r" % (path, k))

    def flatten(self, j, dims, er, path):
        total = 1
        for d in dims:
            total *= d
        if er == ("prim", "octet") and len(dims) == 1 and not isinstance(j, list):
            b = bytes_json(j)
            if len(b) != total:
                raise GenError("%s: array of %d given %d" % (path, total, len(b)))
            return b

        def walk(x, ds):
            if not ds:
                return [x]
            if not isinstance(x, list):
                raise GenError("%s: expected a list for an array" % path)
            if len(x) == ds[0]:
                out = []
                for y in x:
                    out += walk(y, ds[1:])
                return out
            inner = 1
            for d in ds[1:]:
                inner *= d
            if len(x) == ds[0] * inner and ds[1:]:
                return list(x)
            raise GenError("%s: array of %d given %d elements" % (path, ds[0], len(x)))
        flat = walk(j, dims)
        if er == ("prim", "octet"):
            return bytes(int_json(x) & 0xff for x in flat)
        return flat

    def struct(self, ty, j, path, key="all"):
        _, name, ext, members = ty
        if ext == "mutable":
            raise Skip("@mutable struct %s (PL_CDR / PL_CDR2 member lists are not in the C API)" % name)
        if isinstance(j, list) and len(j) == len(members):
            j = {m["name"]: x for m, x in zip(members, j)}
        if not isinstance(j, dict):
            raise GenError("%s: expected an object for %s" % (path, name))
        m0 = None
        if ext == "appendable":
            m0 = self.var("m")
            self.enc.append("    { cdr_mark %s; cdr_begin_appendable(w, &%s);" % (m0, m0))
            self.dec.append("    { cdr_mark %s; cdr_begin_read_appendable(r, &%s);" % (m0, m0))
        has_keys = key != "all" and any(m["key"] for m in members)
        bounded = ext == "appendable" and self.v2
        for mem in members:
            if not includes(key, has_keys, mem):
                continue
            if bounded:  # an older writer may end the body early: the member keeps its default
                self.dec.append("    if (!cdr_reader_at_end(r)) {")
            self.member(mem, j, path, key)
            if bounded:
                self.dec.append("    }")
        if m0:
            self.enc.append("    cdr_end_appendable(w, &%s); }" % m0)
            self.dec.append("    cdr_end_read_appendable(r, &%s); }" % m0)

    def member(self, mem, j, path, key):
        jk = mem["name"] if mem["name"] in j else "_" + mem["name"]
        x = j.get(jk)
        p = "%s.%s" % (path, mem["name"])
        if not mem["optional"]:
            if jk not in j:
                raise GenError("%s: member %s missing" % (path, mem["name"]))
            self.value(mem["ty"], x, p, child_key(key))
            return
        present = x is not None
        m = self.var("m")
        pr = self.var("p")
        self.enc.append("    { cdr_mark %s; cdr_begin_optional(w, %du, %d, &%s);"
                        % (m, mem["id"], 1 if present else 0, m))
        self.dec.append("    { cdr_mark %s; bool %s; cdr_begin_read_optional(r, &%s, &%s);" % (m, pr, pr, m))
        self.expect("%s == %d" % (pr, 1 if present else 0), p + ".present")
        if present:
            self.value(mem["ty"], x, p, child_key(key))
        self.enc.append("    cdr_end_optional(w, &%s); }" % m)
        self.dec.append("    cdr_end_read_optional(r, &%s); }" % m)

    def union(self, ty, j, path):
        idl = self.idl
        _, name, ext, disc_t, cases = ty
        if ext == "mutable":
            raise Skip("@mutable union %s" % name)
        disc = idl.resolve(disc_t)
        if disc[0] not in ("prim", "enum") or (disc[0] == "prim" and disc[1] in ("float", "double")):
            raise GenError("%s: union discriminator type" % path)
        names = {c["name"] for c in cases}
        d = val = None
        member = None
        if isinstance(j, dict):
            member = next((k for k in j if k in names), None)
            for k in ("discriminator", "_d", "disc", "$discriminator", "_discriminator", "d"):
                if k in j and k not in names:
                    d = j[k]
                    break
            else:
                for k, v in j.items():
                    if k not in names and k.lower().endswith("discriminator"):
                        d = v
                        break
            val = j.get(member) if member else None
            if member is None:
                for k in ("value", "_v", "$value", "_value", "v"):
                    if k in j and k not in names:
                        val = j[k]
                        break
        elif isinstance(j, list) and len(j) == 2:
            d, val = j
        else:
            raise GenError("%s: expected a union object" % path)
        if d is not None:
            if disc[0] == "enum":
                dv = enum_value(disc, d)
            elif disc[0] == "prim" and disc[1] == "char" and isinstance(d, str) and len(d) == 1:
                dv = ord(d)
            else:
                dv = int_json(d)
        elif member is not None:
            case = next(c for c in cases if c["name"] == member)
            dv = label_value(idl, disc, case["labels"][0]) if case["labels"] else default_disc(idl, ty)
        else:
            raise GenError("%s: union without discriminator or member" % path)
        m0 = None
        if ext == "appendable" and self.v2:
            m0 = self.var("m")
            self.enc.append("    { cdr_mark %s; cdr_begin_appendable(w, &%s);" % (m0, m0))
            self.dec.append("    { cdr_mark %s; cdr_begin_read_appendable(r, &%s);" % (m0, m0))
        if disc[0] == "enum":
            self.value(disc, dv, path + ".discriminator")
        else:
            self.prim(disc[1], dv, path + ".discriminator")
        case = select_case(idl, ty, dv)
        if case is not None:
            if val is None and not isinstance(j, list):
                raise GenError("%s: no value for member %s" % (path, case["name"]))
            if m0:
                self.dec.append("    if (!cdr_reader_at_end(r)) {")
            self.value(case["ty"], val, "%s.%s" % (path, case["name"]))
            if m0:
                self.dec.append("    }")
        if m0:
            self.enc.append("    cdr_end_appendable(w, &%s); }" % m0)
            self.dec.append("    cdr_end_read_appendable(r, &%s); }" % m0)


class Walker:
    """Type-driven reader calls (no expected value): sequences loop over the
    count read, unions switch on the discriminator read. Used by the fuzz
    target and for differential runs against the Rust decoder."""

    def __init__(self, idl, v2):
        self.idl, self.v2 = idl, v2
        self.out = []
        self.n = 0
        self.depth = 0

    def var(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def emit(self, line):
        self.out.append("    " * (1 + self.depth) + line)

    def walk(self, ty, key="all"):
        idl = self.idl
        ty = idl.resolve(ty)
        if self.depth > 24:
            raise Skip("type nested too deeply (recursive?)")
        k = ty[0]
        if k == "prim":
            size, suf, ctype, _ = PRIMS[ty[1]]
            x = self.var("v")
            self.emit("{ %s %s; cdr_read_%s(r, &%s); (void)%s; }" % (ctype, x, suf, x, x))
        elif k == "string":
            x = self.var("s")
            bound = "CDR_UNBOUNDED" if ty[1] is None else "%du" % ty[1]
            self.emit("{ cdr_view %s; cdr_read_string(r, %s, &%s); }" % (x, bound, x))
        elif k == "enum":
            x, arr = self.var("e"), self.var("ev")
            vals = ",".join(str(v) for _, v in ty[3])
            self.emit("{ static const int32_t %s[] = {%s}; int32_t %s; cdr_read_enum(r, %d, %s, %d, &%s); }"
                      % (arr, vals, x, ty[2] or 0, arr, len(ty[3]), x))
        elif k == "seq":
            elem, bound = ty[1], ty[2]
            cb = "CDR_UNBOUNDED" if bound is None else "%du" % bound
            er = idl.resolve(elem)
            if er in (("prim", "octet"), ("prim", "uint8")):
                x = self.var("o")
                self.emit("{ cdr_view %s; cdr_read_octets(r, %s, &%s); }" % (x, cb, x))
                return
            m, n, i = self.var("m"), self.var("n"), self.var("i")
            self.emit("{ cdr_mark %s; uint32_t %s, %s; cdr_begin_read_sequence(r, %s, %d, %s, &%s, &%s);"
                      % (m, n, i, "true" if is_prim(idl, elem) else "false", min_size(idl, elem, self.v2, 0, key),
                         cb, n, m))
            self.emit("for (%s = 0; %s < %s && r->error.kind == CDR_OK; %s++) {" % (i, i, n, i))
            self.depth += 1
            self.walk(elem, key)
            self.depth -= 1
            self.emit("}")
            self.emit("cdr_end_read_sequence(r, &%s); }" % m)
        elif k == "array":
            elem, dims = ty[1], ty[2]
            total = 1
            for d in dims:
                total *= d
            er = idl.resolve(elem)
            if er == ("prim", "octet"):
                x, m = self.var("o"), self.var("m")
                self.emit("{ cdr_view %s; cdr_mark %s; cdr_begin_read_array(r, true, %d, 1, &%s); "
                          "cdr_read_bytes(r, %d, &%s); cdr_end_read_array(r, &%s); }" % (x, m, total, m, total, x, m))
                return
            m, i = self.var("m"), self.var("i")
            self.emit("{ cdr_mark %s; size_t %s; cdr_begin_read_array(r, %s, %d, %d, &%s);"
                      % (m, i, "true" if is_prim(idl, elem) else "false", total,
                         min_size(idl, elem, self.v2, 0, key), m))
            self.emit("for (%s = 0; %s < %d && r->error.kind == CDR_OK; %s++) {" % (i, i, total, i))
            self.depth += 1
            self.walk(elem, key)
            self.depth -= 1
            self.emit("}")
            self.emit("cdr_end_read_array(r, &%s); }" % m)
        elif k == "struct":
            _, name, ext, members = ty
            if ext == "mutable":
                raise Skip("@mutable struct %s" % name)
            m0 = None
            if ext == "appendable":
                m0 = self.var("m")
                self.emit("{ cdr_mark %s; cdr_begin_read_appendable(r, &%s);" % (m0, m0))
            bounded = ext == "appendable" and self.v2
            has_keys = key != "all" and any(mm["key"] for mm in members)
            for mem in members:
                if not includes(key, has_keys, mem):
                    continue
                if bounded:
                    self.emit("if (!cdr_reader_at_end(r)) {")
                    self.depth += 1
                if mem["optional"]:
                    m, pr = self.var("m"), self.var("p")
                    self.emit("{ cdr_mark %s; bool %s; cdr_begin_read_optional(r, &%s, &%s);" % (m, pr, pr, m))
                    self.emit("if (%s) {" % pr)
                    self.depth += 1
                    self.walk(mem["ty"], child_key(key))
                    self.depth -= 1
                    self.emit("}")
                    self.emit("cdr_end_read_optional(r, &%s); }" % m)
                else:
                    self.walk(mem["ty"], child_key(key))
                if bounded:
                    self.depth -= 1
                    self.emit("}")
            if m0:
                self.emit("cdr_end_read_appendable(r, &%s); }" % m0)
        elif k == "union":
            _, name, ext, disc_t, cases = ty
            if ext == "mutable":
                raise Skip("@mutable union %s" % name)
            disc = idl.resolve(disc_t)
            m0 = None
            if ext == "appendable" and self.v2:
                m0 = self.var("m")
                self.emit("{ cdr_mark %s; cdr_begin_read_appendable(r, &%s);" % (m0, m0))
            d = self.var("d")
            if disc[0] == "enum":
                self.emit("{ int64_t %s; { int32_t t; cdr_read_enum(r, %d, NULL, 0, &t); %s = t; }"
                          % (d, disc[2] or 0, d))
            elif disc[0] == "prim" and disc[1] not in ("float", "double"):
                size, suf, ctype, _ = PRIMS[disc[1]]
                self.emit("{ int64_t %s; { %s t; cdr_read_%s(r, &t); %s = (int64_t)t; }" % (d, ctype, suf, d))
            else:
                raise GenError("union discriminator type")
            default = None
            first = True
            for c in cases:
                if c["default"]:
                    default = c
                if not c["labels"]:
                    continue
                conds = " || ".join("%s == INT64_C(%d)" % (d, label_value(idl, disc, lab)) for lab in c["labels"])
                self.emit("%sif (%s) {" % ("" if first else "} else ", conds))
                first = False
                self.depth += 1
                if m0:
                    self.emit("if (!cdr_reader_at_end(r)) {")
                self.walk(c["ty"])
                if m0:
                    self.emit("}")
                self.depth -= 1
            if default is not None:
                self.emit("%s{" % ("" if first else "} else "))
                self.depth += 1
                if m0:
                    self.emit("if (!cdr_reader_at_end(r)) {")
                self.walk(default["ty"])
                if m0:
                    self.emit("}")
                self.depth -= 1
                self.emit("}")
            elif not first:
                self.emit("}")
            self.emit("(void)%s; }" % d)
            if m0:
                self.emit("cdr_end_read_appendable(r, &%s); }" % m0)


def top_extensibility(idl, ty):
    return {"final": "CDR_FINAL", "appendable": "CDR_APPENDABLE", "mutable": "CDR_MUTABLE"}[ty[2]]


def mentions_key(e):
    enc = str(e.get("encoding", "")).lower()
    text = ("%s %s" % (e.get("name", ""), e.get("notes", ""))).lower()
    return "key" in enc or any(p in text for p in ("serialize_key", "key serialization", "key-only", "key only",
                                                   "keyhash", "key hash"))


def pick_type(idl, name, hint):
    if isinstance(hint, str) and hint in idl.types:
        return idl.types[hint]
    head = name.split(":")[0].strip()
    word = head.split()[0] if head.split() else ""
    for cand in (head, word):
        t = idl.types.get(cand)
        if t and t[0] in ("struct", "union"):
            return t
    if idl.tops:
        return idl.types[idl.tops[-1]]
    raise GenError("no struct or union in the IDL")


def parse_encoding(s):
    s = str(s).upper().replace("_", "-").replace(" ", "-")
    m = re.search(r"XCDR([12])-(LE|BE)", s)
    if not m:
        return None
    return (2 if m.group(1) == "2" else 0) | (1 if m.group(2) == "BE" else 0)


def load(src):
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, dict):
        doc = doc.get("vectors", [])
    return [e for e in doc if isinstance(e, dict)] if isinstance(doc, list) else []


AVR = False  # --avr: code for c/tests/avr (f64 as bits, vector bytes in flash)


def main():
    global AVR
    if len(sys.argv) == 4 and sys.argv[1] == "--avr":
        AVR = True
        del sys.argv[1]
        PRIMS["double"] = (8, "f64_bits", "uint64_t", False)
    if len(sys.argv) == 4 and sys.argv[1] == "--seeds":
        os.makedirs(sys.argv[3], exist_ok=True)
        n = 0
        for i, e in enumerate(load(sys.argv[2])):
            try:
                data = bytes.fromhex(e.get("hex", ""))
            except (ValueError, TypeError):
                continue
            with open(os.path.join(sys.argv[3], "cdr_%d" % i), "wb") as f:
                f.write(data)
            n += 1
        print("gen_cdr_vectors.py: %d seed files in %s" % (n, sys.argv[3]))
        return
    if len(sys.argv) != 3:
        sys.exit("usage: gen_cdr_vectors.py IN.json OUT.h | --seeds IN.json DIR")
    entries = load(sys.argv[1])
    parts = ["/* Generated by c/tests/gen_cdr_vectors.py from %s - do not edit. */\n"
             % sys.argv[1].replace("*/", "*_/")]
    rows = []
    for i, e in enumerate(entries):
        name = e.get("name") if isinstance(e.get("name"), str) else "<unnamed>"
        encs = str(e.get("encoding", ""))
        data, skip, err, pad, enc_fn, dec_fn, walk_fn = b"", None, None, 0, "NULL", "NULL", "NULL"
        try:
            try:
                data = bytes.fromhex(e.get("hex", ""))
            except (ValueError, TypeError):
                raise GenError("bad hex")
            if len(data) < 4:
                raise GenError("shorter than the header")
            enc = parse_encoding(encs)
            hdr_enc = (1 if data[1] & 1 == 0 else 0) | (2 if (data[1] & 0xfe) >= 6 else 0)
            if enc is None:
                enc = hdr_enc
            if enc != hdr_enc:
                raise GenError("encoding %s but the header says %02x%02x" % (encs, data[0], data[1]))
            pad = data[3] & 3
            idl = Idl(e.get("idl") or "")
            ty = pick_type(idl, name, e.get("type"))
            em = Emitter(idl, enc >> 1, i)
            em.value(ty, e.get("value"), "value", "top" if mentions_key(e) else "all")
            parts.extend(em.data)
            parts.append("static void cv_enc_%d(cdr_writer *w)\n{\n    cdr_write_header(w, %s);\n%s\n}\n"
                         % (i, top_extensibility(idl, ty), "\n".join(em.enc)))
            parts.append("static void cv_dec_%d(cdr_reader *r, cv_ctx *c)\n{\n%s\n}\n" % (i, "\n".join(em.dec)))
            # the walker follows the header's version at run time (XCDR1 and XCDR2 code)
            bodies = []
            for v2 in (0, 1):
                wk = Walker(idl, v2)
                wk.walk(ty, "top" if mentions_key(e) else "all")
                bodies.append("\n".join(wk.out))
            parts.append("static void cv_walk_%d(cdr_reader *r)\n{\n    if (!r->v2) {\n%s\n    } else {\n%s\n    }\n}\n"
                         % (i, bodies[0], bodies[1]))
            enc_fn, dec_fn, walk_fn = "cv_enc_%d" % i, "cv_dec_%d" % i, "cv_walk_%d" % i
        except Skip as s:
            skip = str(s)
        except GenError as g:
            err = str(g)
        except (RecursionError, KeyError, IndexError, TypeError, ValueError, StopIteration) as x:
            err = "generator: %s: %s" % (type(x).__name__, x)
        parts.append("static const uint8_t cv_hex_%d[]%s = {%s};\n"
                     % (i, " CV_FLASH" if AVR else "", ",".join("0x%02x" % b for b in data) or "0"))
        rows.append("  {%s, %s, cv_hex_%d, %d, %d, %s, %s, %s, %s, %s},"
                    % (c_string(name.encode()), c_string(encs.encode()), i, len(data), pad, enc_fn, dec_fn, walk_fn,
                       c_string(skip.encode()) if skip else "NULL", c_string(err.encode()) if err else "NULL"))
    if not rows:
        rows = ['  {"<none>", "", NULL, 0, 0, NULL, NULL, NULL, NULL, "no vectors"},']
    parts.append("#define CV_COUNT %d\n" % len(rows))
    parts.append("static const cdr_vec CV[] = {\n%s\n};\n" % "\n".join(rows))
    with open(sys.argv[2], "w", encoding="ascii") as f:
        f.write("".join(parts))


if __name__ == "__main__":
    main()
