/*
 * pson.c - PSON v2 codec (see pson.h and shared/specs/pson.md section 1).
 *
 * No malloc, no recursion, no floating-point arithmetic (floats are handled
 * as IEEE-754 bit patterns, so soft-float MCUs pull in no FP library), no
 * libc beyond memcpy. Multi-byte values are assembled with shifts, so the
 * output is little-endian on any host.
 */
#include "pson.h"

#include <string.h>

/* Floats are read and written through their bit patterns. */
#if PSON_HAS_DOUBLE
typedef char pson_assert_double_is_binary64[(sizeof(double) == 8) ? 1 : -1];
#endif
typedef char pson_assert_float_is_binary32[(sizeof(float) == 4) ? 1 : -1];

#define PSON_ESCAPE 31u
#define M52 ((((uint64_t)1) << 52) - 1u)
#define CANONICAL_NAN ((uint64_t)0x7ff8000000000000u)
/* Depth-stack entries: remaining child items; the top bit marks a map (whose
 * entry counts keys and values, so an even count means "key next"). Counts
 * are <= the input length, which is < SIZE_MAX / 2 for any real object. */
#define MAP_FLAG (((size_t)1) << (sizeof(size_t) * 8u - 1u))

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

const char *pson_err_name(pson_err kind)
{
    switch (kind) {
    case PSON_OK: return "ok";
    case PSON_ERR_UNEXPECTED_END: return "unexpected_end";
    case PSON_ERR_VARINT_TOO_LONG: return "varint_too_long";
    case PSON_ERR_INVALID_FLOAT_WIDTH: return "invalid_float_width";
    case PSON_ERR_INVALID_DISCRETE: return "invalid_discrete";
    case PSON_ERR_NON_STRING_KEY: return "non_string_key";
    case PSON_ERR_INTEGER_OVERFLOW: return "integer_overflow";
    case PSON_ERR_INVALID_UTF8: return "invalid_utf8";
    case PSON_ERR_DEPTH_LIMIT: return "depth_limit";
    case PSON_ERR_LENGTH_LIMIT: return "length_limit";
    case PSON_ERR_BUFFER_TOO_SMALL: return "buffer_too_small";
    case PSON_ERR_TRAILING_BYTES: return "trailing_bytes";
    case PSON_ERR_UNKNOWN_FIELD_TYPE: return "unknown_field_type";
    case PSON_ERR_LENGTH_MISMATCH: return "length_mismatch";
    }
    return "unknown";
}

/* ------------------------------------------------------------------ */
/* Sizes                                                                */
/* ------------------------------------------------------------------ */

size_t pson_varint_len(uint64_t v)
{
    size_t n = 1;
    while ((v >>= 7) != 0) {
        n++;
    }
    return n;
}

size_t pson_header_len(uint64_t v)
{
    return v < PSON_ESCAPE ? 1u : 1u + pson_varint_len(v);
}

static uint64_t magnitude(int64_t v)
{
    /* |v| without signed overflow (INT64_MIN -> 2^63) */
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static size_t sat_add(size_t a, size_t b)
{
    return (b > (size_t)-1 - a) ? (size_t)-1 : a + b;
}

size_t pson_len_null(void) { return 1; }
size_t pson_len_bool(bool v) { (void)v; return 1; }
size_t pson_len_u64(uint64_t v) { return pson_header_len(v); }
size_t pson_len_i64(int64_t v) { return pson_header_len(magnitude(v)); }
size_t pson_len_str(size_t len) { return sat_add(pson_header_len((uint64_t)len), len); }
size_t pson_len_bytes(size_t len) { return sat_add(pson_header_len((uint64_t)len), len); }
size_t pson_len_map(uint64_t pairs) { return pson_header_len(pairs); }
size_t pson_len_array(uint64_t n) { return pson_header_len(n); }

size_t pson_len_f64_bits(uint64_t bits)
{
    pson_float_repr r = pson_classify_f64_bits(bits);
    switch (r.kind) {
    case PSON_FLOAT_UINT:
    case PSON_FLOAT_NEG: return pson_header_len(r.value);
    case PSON_FLOAT_F32: return 5;
    default: return 9;
    }
}

#if PSON_HAS_DOUBLE
static uint64_t f64_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
#endif

static uint32_t f32_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

#if PSON_HAS_DOUBLE
size_t pson_len_f64(double v) { return pson_len_f64_bits(f64_bits(v)); }
#endif
size_t pson_len_f32_bits(uint32_t bits) { return pson_len_f64_bits(pson_f32_bits_to_f64_bits(bits)); }
size_t pson_len_f32(float v) { return pson_len_f32_bits(f32_bits(v)); }

/* ------------------------------------------------------------------ */
/* Float rule (spec 1.5) on bit patterns                                */
/* ------------------------------------------------------------------ */

uint64_t pson_f32_bits_to_f64_bits(uint32_t b)
{
    uint64_t sign = (uint64_t)(b >> 31) << 63;
    uint32_t exp = (b >> 23) & 0xffu;
    uint32_t mant = b & 0x7fffffu;
    if (exp == 0xffu) {
        return sign | ((uint64_t)0x7ff << 52) | ((uint64_t)mant << 29);
    }
    if (exp == 0) {
        unsigned k = 22;
        if (mant == 0) {
            return sign;
        }
        /* subnormal: mant * 2^-149 = 2^(k-149) * 1.f, k = top set bit */
        while ((mant >> k) == 0) {
            k--;
        }
        return sign | ((uint64_t)(1023u + k - 149u) << 52) | (((uint64_t)mant << (52u - k)) & M52);
    }
    return sign | ((uint64_t)(exp - 127u + 1023u) << 52) | ((uint64_t)mant << 29);
}

pson_float_repr pson_classify_f64_bits(uint64_t b)
{
    pson_float_repr r;
    unsigned sign = (unsigned)(b >> 63);
    unsigned exp = (unsigned)(b >> 52) & 0x7ffu;
    uint64_t mant = b & M52;
    uint64_t sig = mant | ((uint64_t)1 << 52);
    int e = (int)exp - 1023; /* unbiased exponent of a normal number */

    if (exp == 0x7ffu) {
        if (mant != 0) { /* NaN */
            r.kind = PSON_FLOAT_F64;
            r.value = CANONICAL_NAN;
        } else { /* +-inf is exact in binary32 */
            r.kind = PSON_FLOAT_F32;
            r.value = ((uint64_t)sign << 31) | 0x7f800000u;
        }
        return r;
    }
    if (exp == 0) {
        if (mant == 0) { /* +0.0 and -0.0 -> 00 */
            r.kind = PSON_FLOAT_UINT;
            r.value = 0;
        } else { /* binary64 subnormal: neither integral nor exact in f32 */
            r.kind = PSON_FLOAT_F64;
            r.value = b;
        }
        return r;
    }
    /* 1. integral and in [-2^63, 2^63) -> integer */
    if (e >= 0 && e <= 62) {
        if (e >= 52 || (mant & ((((uint64_t)1) << (52 - e)) - 1u)) == 0) {
            r.kind = sign ? PSON_FLOAT_NEG : PSON_FLOAT_UINT;
            r.value = e >= 52 ? sig << (e - 52) : sig >> (52 - e);
            return r;
        }
    } else if (e == 63 && sign && mant == 0) { /* exactly -2^63 */
        r.kind = PSON_FLOAT_NEG;
        r.value = (uint64_t)1 << 63;
        return r;
    }
    /* 2. exactly representable in binary32 */
    if (e >= -126 && e <= 127) {
        if ((mant & ((((uint64_t)1) << 29) - 1u)) == 0) {
            r.kind = PSON_FLOAT_F32;
            r.value = ((uint64_t)sign << 31) | ((uint64_t)(e + 127) << 23) | (mant >> 29);
            return r;
        }
    } else if (e >= -149 && e < -126) {
        /* binary32 subnormal k * 2^-149: the bits of sig below 2^-149 must be 0 */
        unsigned shift = (unsigned)(-97 - e); /* 30..52 */
        if ((sig & ((((uint64_t)1) << shift) - 1u)) == 0) {
            r.kind = PSON_FLOAT_F32;
            r.value = ((uint64_t)sign << 31) | (sig >> shift);
            return r;
        }
    }
    /* 3. binary64 */
    r.kind = PSON_FLOAT_F64;
    r.value = b;
    return r;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

void pson_writer_init(pson_writer *w, void *buf, size_t cap)
{
    w->buf = (uint8_t *)buf;
    w->cap = buf != NULL ? cap : 0;
    w->pos = 0;
}

size_t pson_writer_pos(const pson_writer *w) { return w->pos; }
size_t pson_writer_remaining(const pson_writer *w) { return w->cap - w->pos; }

/* All or nothing. */
static pson_err put(pson_writer *w, const void *src, size_t n)
{
    if (n > w->cap - w->pos) {
        return PSON_ERR_BUFFER_TOO_SMALL;
    }
    if (n != 0) {
        memcpy(w->buf + w->pos, src, n);
        w->pos += n;
    }
    return PSON_OK;
}

pson_err pson_write_header(pson_writer *w, unsigned wire, uint64_t value)
{
    uint8_t out[11];
    size_t n = 1;
    uint8_t tag = (uint8_t)((wire & 7u) << 5);
    if (value < PSON_ESCAPE) {
        /* One byte, stored directly: most headers (short strings, small maps and arrays,
         * small integers, bools) take this path. */
        if (w->pos >= w->cap) {
            return PSON_ERR_BUFFER_TOO_SMALL;
        }
        w->buf[w->pos++] = (uint8_t)(tag | (uint8_t)value);
        return PSON_OK;
    } else if (value <= 0xffffffffu) {
        /* The same varint on 32 bits: on 8- and 32-bit cores a 64-bit shift is a library
         * call or several instructions per step. */
        uint32_t v = (uint32_t)value;
        out[0] = (uint8_t)(tag | PSON_ESCAPE);
        while (v >= 0x80u) {
            out[n++] = (uint8_t)((v & 0x7fu) | 0x80u);
            v >>= 7;
        }
        out[n++] = (uint8_t)v;
    } else {
        out[0] = (uint8_t)(tag | PSON_ESCAPE);
        while (value >= 0x80u) {
            out[n++] = (uint8_t)((value & 0x7fu) | 0x80u);
            value >>= 7;
        }
        out[n++] = (uint8_t)value;
    }
    return put(w, out, n);
}

pson_err pson_write_null(pson_writer *w) { return pson_write_header(w, PSON_WIRE_DISCRETE, 2); }
pson_err pson_write_bool(pson_writer *w, bool v) { return pson_write_header(w, PSON_WIRE_DISCRETE, v ? 1u : 0u); }
pson_err pson_write_u64(pson_writer *w, uint64_t v) { return pson_write_header(w, PSON_WIRE_UINT, v); }

pson_err pson_write_i64(pson_writer *w, int64_t v)
{
    return v >= 0 ? pson_write_header(w, PSON_WIRE_UINT, (uint64_t)v)
                  : pson_write_header(w, PSON_WIRE_NEG_INT, magnitude(v));
}

pson_err pson_write_f64_bits(pson_writer *w, uint64_t bits)
{
    uint8_t out[9];
    size_t i, n;
    pson_float_repr r = pson_classify_f64_bits(bits);
    switch (r.kind) {
    case PSON_FLOAT_UINT: return pson_write_header(w, PSON_WIRE_UINT, r.value);
    case PSON_FLOAT_NEG: return pson_write_header(w, PSON_WIRE_NEG_INT, r.value);
    case PSON_FLOAT_F32: out[0] = 0x40; n = 4; break;
    default: out[0] = 0x41; n = 8; break;
    }
    for (i = 0; i < n; i++) {
        out[1 + i] = (uint8_t)(r.value >> (8u * i));
    }
    return put(w, out, 1 + n);
}

pson_err pson_write_f32_bits(pson_writer *w, uint32_t bits)
{
    /* A normal binary32 value that is not integral is exact in binary32 and not an integer:
     * the float rule gives 40 + its 4 bytes, written here without widening to 64 bits (the
     * widening and the 64-bit classification are most of the cost on 8-bit cores). Zeros,
     * subnormals, integral values, infinities and NaNs take the general path. */
    unsigned exp = (unsigned)(bits >> 23) & 0xffu;
    if (exp != 0 && exp != 0xffu) {
        int e = (int)exp - 127;
        if (e < 0 || (e < 23 && (bits & ((UINT32_C(1) << (23 - e)) - 1u)) != 0)) {
            uint8_t out[5];
            out[0] = 0x40;
            out[1] = (uint8_t)bits;
            out[2] = (uint8_t)(bits >> 8);
            out[3] = (uint8_t)(bits >> 16);
            out[4] = (uint8_t)(bits >> 24);
            return put(w, out, 5);
        }
    }
    return pson_write_f64_bits(w, pson_f32_bits_to_f64_bits(bits));
}

#if PSON_HAS_DOUBLE
pson_err pson_write_f64(pson_writer *w, double v) { return pson_write_f64_bits(w, f64_bits(v)); }
#endif
pson_err pson_write_f32(pson_writer *w, float v) { return pson_write_f32_bits(w, f32_bits(v)); }

/* Header, then body: two steps like the Rust encoder. */
static pson_err write_blob(pson_writer *w, unsigned wire, const void *p, size_t len)
{
    pson_err e = pson_write_header(w, wire, (uint64_t)len);
    if (e != PSON_OK) {
        return e;
    }
    return put(w, p, len);
}

pson_err pson_write_str(pson_writer *w, const char *s, size_t len) { return write_blob(w, PSON_WIRE_STR, s, len); }
pson_err pson_write_cstr(pson_writer *w, const char *s) { return write_blob(w, PSON_WIRE_STR, s, strlen(s)); }
pson_err pson_write_bytes(pson_writer *w, const void *p, size_t len) { return write_blob(w, PSON_WIRE_BYTES, p, len); }
pson_err pson_write_map(pson_writer *w, uint64_t pairs) { return pson_write_header(w, PSON_WIRE_MAP, pairs); }
pson_err pson_write_array(pson_writer *w, uint64_t n) { return pson_write_header(w, PSON_WIRE_ARRAY, n); }

/* ------------------------------------------------------------------ */
/* UTF-8 (same acceptance as Rust's str::from_utf8)                     */
/* ------------------------------------------------------------------ */

size_t pson_utf8_valid_up_to(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t b = p[i];
        size_t need;
        uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the 2nd byte */
        if (b < 0x80u) {
            i++;
            continue;
        }
        if (b >= 0xc2u && b <= 0xdfu) {
            need = 1;
        } else if (b >= 0xe0u && b <= 0xefu) {
            need = 2;
            if (b == 0xe0u) {
                lo = 0xa0; /* no overlongs */
            } else if (b == 0xedu) {
                hi = 0x9f; /* no surrogates */
            }
        } else if (b >= 0xf0u && b <= 0xf4u) {
            need = 3;
            if (b == 0xf0u) {
                lo = 0x90; /* no overlongs */
            } else if (b == 0xf4u) {
                hi = 0x8f; /* <= U+10FFFF */
            }
        } else {
            return i; /* 80..c1, f5..ff */
        }
        /* invalid or incomplete sequence: report its lead byte */
        if (i + 1 >= len || p[i + 1] < lo || p[i + 1] > hi) {
            return i;
        }
        if (need >= 2 && (i + 2 >= len || (p[i + 2] & 0xc0u) != 0x80u)) {
            return i;
        }
        if (need >= 3 && (i + 3 >= len || (p[i + 3] & 0xc0u) != 0x80u)) {
            return i;
        }
        i += need + 1;
    }
    return len;
}

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

void pson_reader_init(pson_reader *r, const void *buf, size_t len)
{
    r->buf = (const uint8_t *)buf;
    r->len = buf != NULL ? len : 0;
    r->pos = 0;
    r->error.kind = PSON_OK;
    r->error.offset = 0;
}

size_t pson_reader_pos(const pson_reader *r) { return r->pos; }
size_t pson_reader_remaining(const pson_reader *r) { return r->pos < r->len ? r->len - r->pos : 0; }

/* Record an error; the position goes back to the failing item's start. */
static pson_err fail(pson_reader *r, size_t start, pson_err kind, size_t offset)
{
    r->pos = start;
    r->error.kind = kind;
    r->error.offset = offset;
    return kind;
}

static uint64_t le_bytes(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n-- != 0) {
        v = (v << 8) | p[n];
    }
    return v;
}

/* key_only: the item must be a string (wire 4), checked before the varint. */
static pson_err read_item(pson_reader *r, pson_item *it, int key_only)
{
    const uint8_t *buf = r->buf;
    size_t len = r->len;
    size_t start = r->pos;
    size_t pos = start;
    size_t rem;
    uint64_t v;
    unsigned h, w;

    if (pos >= len) {
        return fail(r, start, PSON_ERR_UNEXPECTED_END, len);
    }
    h = buf[pos++];
    w = h >> 5;
    if (key_only && w != PSON_WIRE_STR) {
        return fail(r, start, PSON_ERR_NON_STRING_KEY, start);
    }
    v = h & PSON_ESCAPE;
    if (v == PSON_ESCAPE) { /* LEB128: at most 10 bytes, bits past 2^64 dropped */
        unsigned shift = 0;
        v = 0;
        for (;;) {
            uint8_t b;
            if (shift >= 64) {
                return fail(r, start, PSON_ERR_VARINT_TOO_LONG, pos);
            }
            if (pos >= len) {
                return fail(r, start, PSON_ERR_UNEXPECTED_END, len);
            }
            b = buf[pos++];
            v |= (uint64_t)(b & 0x7fu) << shift;
            if ((b & 0x80u) == 0) {
                break;
            }
            shift += 7;
        }
    }
    rem = len - pos;

    switch (w) {
    case PSON_WIRE_UINT:
        it->type = PSON_TYPE_UINT;
        it->v.u = v;
        break;
    case PSON_WIRE_NEG_INT:
        if (v > ((uint64_t)1 << 63)) {
            return fail(r, start, PSON_ERR_INTEGER_OVERFLOW, start);
        }
        it->type = PSON_TYPE_INT;
        /* -v in two's complement; v == 2^63 gives INT64_MIN */
        it->v.i = v == ((uint64_t)1 << 63) ? INT64_MIN : -(int64_t)v;
        break;
    case PSON_WIRE_FLOAT:
        if (v == 0) {
            uint32_t bits;
            if (rem < 4) {
                return fail(r, start, PSON_ERR_UNEXPECTED_END, len);
            }
            bits = (uint32_t)le_bytes(buf + pos, 4);
            memcpy(&it->v.f32, &bits, 4);
            it->type = PSON_TYPE_F32;
            pos += 4;
        } else if (v == 1) {
            uint64_t bits;
            if (rem < 8) {
                return fail(r, start, PSON_ERR_UNEXPECTED_END, len);
            }
            bits = le_bytes(buf + pos, 8);
            memcpy(&it->v.f64_bits, &bits, 8); /* the double member, where it exists, shares these bytes */
            it->type = PSON_TYPE_F64;
            pos += 8;
        } else {
            return fail(r, start, PSON_ERR_INVALID_FLOAT_WIDTH, start);
        }
        break;
    case PSON_WIRE_DISCRETE:
        if (v == 2) {
            it->type = PSON_TYPE_NULL;
        } else if (v <= 1) {
            it->type = PSON_TYPE_BOOL;
            it->v.b = v == 1;
        } else {
            return fail(r, start, PSON_ERR_INVALID_DISCRETE, start);
        }
        break;
    case PSON_WIRE_STR:
    case PSON_WIRE_BYTES: {
        pson_view view;
        if (v > (uint64_t)rem) {
            return fail(r, start, PSON_ERR_UNEXPECTED_END, len);
        }
        view.ptr = buf + pos;
        view.len = (size_t)v;
        if (w == PSON_WIRE_STR) {
            size_t ok = pson_utf8_valid_up_to(view.ptr, view.len);
            if (ok != view.len) {
                return fail(r, start, PSON_ERR_INVALID_UTF8, pos + ok);
            }
            it->type = PSON_TYPE_STR;
            it->v.str = view;
        } else {
            it->type = PSON_TYPE_BYTES;
            it->v.bytes = view;
        }
        pos += view.len;
        break;
    }
    case PSON_WIRE_MAP:
        /* every pair needs at least 2 bytes (key header + value header) */
        if (v > (uint64_t)(rem / 2)) {
            return fail(r, start, PSON_ERR_LENGTH_LIMIT, start);
        }
        it->type = PSON_TYPE_MAP;
        it->v.count = (size_t)v;
        break;
    default: /* PSON_WIRE_ARRAY: every element needs at least 1 byte */
        if (v > (uint64_t)rem) {
            return fail(r, start, PSON_ERR_LENGTH_LIMIT, start);
        }
        it->type = PSON_TYPE_ARRAY;
        it->v.count = (size_t)v;
        break;
    }
    r->pos = pos;
    return PSON_OK;
}

pson_err pson_next(pson_reader *r, pson_item *item)
{
    return read_item(r, item, 0);
}

pson_err pson_key(pson_reader *r, pson_view *key)
{
    pson_item it;
    pson_err e = read_item(r, &it, 1);
    if (e == PSON_OK) {
        *key = it.v.str;
    }
    return e;
}

/* The iterative walk of the Rust decode_with: per step, pop a finished
 * container; else read a key if the innermost map expects one; else read an
 * item, and for a container check the depth (after its count check). */
pson_err pson_skip_ex(pson_reader *r, size_t max_depth, size_t *stack, size_t stack_cap)
{
    size_t start = r->pos;
    size_t depth = 0;
    size_t limit = max_depth < stack_cap ? max_depth : stack_cap;
    pson_err e;

    for (;;) {
        if (depth != 0) {
            size_t top = stack[depth - 1];
            size_t left = top & ~MAP_FLAG;
            if (left == 0) {
                depth--; /* the finished container is a value of its parent */
                if (depth == 0) {
                    return PSON_OK;
                }
                stack[depth - 1]--;
                continue;
            }
            if ((top & MAP_FLAG) != 0 && (left & 1u) == 0) {
                pson_view key;
                e = pson_key(r, &key);
                if (e != PSON_OK) {
                    break;
                }
                stack[depth - 1]--;
                continue;
            }
        }
        {
            pson_item it;
            size_t at = r->pos;
            e = pson_next(r, &it);
            if (e != PSON_OK) {
                break;
            }
            if (it.type == PSON_TYPE_MAP || it.type == PSON_TYPE_ARRAY) {
                if (depth >= limit) {
                    e = fail(r, at, PSON_ERR_DEPTH_LIMIT, at);
                    break;
                }
                if (it.v.count != 0) {
                    stack[depth++] = it.type == PSON_TYPE_MAP ? (it.v.count * 2u) | MAP_FLAG : it.v.count;
                    continue;
                }
            }
            if (depth == 0) {
                return PSON_OK;
            }
            stack[depth - 1]--;
        }
    }
    r->pos = start;
    return e;
}

pson_err pson_skip(pson_reader *r, size_t max_depth)
{
    size_t stack[PSON_MAX_DEPTH > 0 ? PSON_MAX_DEPTH : 1];
    return pson_skip_ex(r, max_depth, stack, PSON_MAX_DEPTH);
}

pson_err pson_validate(const void *buf, size_t len, size_t max_depth,
                       size_t *consumed, pson_error *err)
{
    pson_reader r;
    pson_err e;
    pson_reader_init(&r, buf, len);
    e = pson_skip(&r, max_depth);
    if (consumed != NULL) {
        *consumed = e == PSON_OK ? r.pos : 0;
    }
    if (err != NULL) {
        if (e == PSON_OK) {
            err->kind = PSON_OK;
            err->offset = 0;
        } else {
            *err = r.error;
        }
    }
    return e;
}

pson_err pson_validate_exact(const void *buf, size_t len, size_t max_depth, pson_error *err)
{
    size_t used = 0;
    pson_err e = pson_validate(buf, len, max_depth, &used, err);
    if (e == PSON_OK && used != len) {
        e = PSON_ERR_TRAILING_BYTES;
        if (err != NULL) {
            err->kind = e;
            err->offset = used;
        }
    }
    return e;
}
