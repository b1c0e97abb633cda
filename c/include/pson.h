/*
 * pson.h - PSON v2 codec for devices (C99, no malloc, no libc beyond
 * <string.h> memcpy/memset/strlen).
 *
 * Format: shared/specs/pson.md section 1 (PSON v2, the 3-bit wire type /
 * 5-bit payload header). Behaviour, error kinds and error offsets follow the
 * Rust reference implementation in crates/pson (decode.rs, encode.rs).
 *
 *   item = header [LEB128 varint, iff payload == 31] [body]
 *   header = wire << 5 | payload; payload 0..30 is the value itself,
 *   31 means "an unsigned LEB128 varint follows" (the encoder escapes iff
 *   value >= 31).
 *
 *   wire 0 uint | 1 negative int (magnitude) | 2 float (0=f32, 1=f64, LE)
 *   wire 3 discrete (0 false, 1 true, 2 null) | 4 string (byte length)
 *   wire 5 bytes (byte length) | 6 map (pairs) | 7 array (elements)
 *
 * Writer:  pson_writer over a caller buffer; every pson_write_* returns
 *          PSON_OK or PSON_ERR_BUFFER_TOO_SMALL and never writes past cap.
 * Reader:  pson_reader, a pull reader giving one item at a time with
 *          zero-copy string/bytes views; pson_validate / pson_skip walk a
 *          whole item iteratively with a bounded depth stack.
 */
#ifndef PSON_H
#define PSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default container nesting limit (same as the Rust crate's
 * Limits::DEFAULT_MAX_DEPTH) and the size of the depth stack that
 * pson_validate / pson_skip keep on the C stack (PSON_MAX_DEPTH size_t
 * words: 512 bytes on a 32-bit MCU). Override with -DPSON_MAX_DEPTH=n. */
#ifndef PSON_MAX_DEPTH
#define PSON_MAX_DEPTH 128
#endif

/* PSON_HAS_DOUBLE: 1 where `double` is IEEE-754 binary64 (hosts, Cortex-M),
 * 0 where it is 32 bits wide (avr-gcc's default). With 0 the `double` API
 * (pson_write_f64, pson_len_f64, pson_item.v.f64) does not exist: f64 values
 * are written with pson_write_f64_bits and read from pson_item.v.f64_bits as
 * raw binary64 bits. The `float` API and every *_bits function exist on every
 * target. Derived from __SIZEOF_DOUBLE__ (gcc, clang); other compilers get 1,
 * and pson.c checks the size at compile time. */
#ifndef PSON_HAS_DOUBLE
#if defined(__SIZEOF_DOUBLE__) && __SIZEOF_DOUBLE__ != 8
#define PSON_HAS_DOUBLE 0
#else
#define PSON_HAS_DOUBLE 1
#endif
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* Error kinds, in the order of the Rust ErrorKind::ALL. pson_err_name()
 * returns the snake_case names shared by every port. */
typedef enum pson_err {
    PSON_OK = 0,
    PSON_ERR_UNEXPECTED_END,      /* "unexpected_end": offset = input length */
    PSON_ERR_VARINT_TOO_LONG,     /* "varint_too_long": offset of the 11th byte */
    PSON_ERR_INVALID_FLOAT_WIDTH, /* "invalid_float_width": header offset */
    PSON_ERR_INVALID_DISCRETE,    /* "invalid_discrete": header offset */
    PSON_ERR_NON_STRING_KEY,      /* "non_string_key": key header offset */
    PSON_ERR_INTEGER_OVERFLOW,    /* "integer_overflow": header offset */
    PSON_ERR_INVALID_UTF8,        /* "invalid_utf8": first invalid byte */
    PSON_ERR_DEPTH_LIMIT,         /* "depth_limit": header of the too-deep container */
    PSON_ERR_LENGTH_LIMIT,        /* "length_limit": container header offset */
    PSON_ERR_BUFFER_TOO_SMALL,    /* "buffer_too_small": writer position */
    PSON_ERR_TRAILING_BYTES,      /* "trailing_bytes": first byte after the root */
    PSON_ERR_UNKNOWN_FIELD_TYPE,  /* "unknown_field_type": Protoson v1 only, never returned here */
    PSON_ERR_LENGTH_MISMATCH      /* "length_mismatch": Protoson v1 only, never returned here */
} pson_err;

/* An error kind with the byte offset of the problem (in the input; for
 * PSON_ERR_BUFFER_TOO_SMALL the writer position). */
typedef struct pson_error {
    pson_err kind;
    size_t offset;
} pson_error;

/* "unexpected_end", ... ; "ok" for PSON_OK, "unknown" for other values. */
const char *pson_err_name(pson_err kind);

/* ------------------------------------------------------------------ */
/* Wire types                                                           */
/* ------------------------------------------------------------------ */

enum {
    PSON_WIRE_UINT = 0,
    PSON_WIRE_NEG_INT = 1,
    PSON_WIRE_FLOAT = 2,
    PSON_WIRE_DISCRETE = 3,
    PSON_WIRE_STR = 4,
    PSON_WIRE_BYTES = 5,
    PSON_WIRE_MAP = 6,
    PSON_WIRE_ARRAY = 7
};

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

/* Writes into buf[0..cap). Invariant: pos <= cap. A write that does not fit
 * returns PSON_ERR_BUFFER_TOO_SMALL, writes nothing and leaves pos unchanged
 * (so the Rust error offset is pson_writer_pos()). As in the Rust encoder,
 * strings and bytes are written as two steps (header, then body), so a
 * failing string/bytes write can leave its header behind; everything else is
 * one all-or-nothing step. Not sticky: a later, smaller write may succeed. */
typedef struct pson_writer {
    uint8_t *buf;
    size_t cap;
    size_t pos;
} pson_writer;

void pson_writer_init(pson_writer *w, void *buf, size_t cap);
size_t pson_writer_pos(const pson_writer *w);       /* bytes written */
size_t pson_writer_remaining(const pson_writer *w); /* cap - pos */

/* Header `wire << 5 | value` with the inline/escape rule (value < 31 inline). */
pson_err pson_write_header(pson_writer *w, unsigned wire, uint64_t value);

pson_err pson_write_null(pson_writer *w);              /* 62 */
pson_err pson_write_bool(pson_writer *w, bool v);      /* 60 / 61 */
pson_err pson_write_u64(pson_writer *w, uint64_t v);   /* wire 0 */
pson_err pson_write_i64(pson_writer *w, int64_t v);    /* >= 0: wire 0, else wire 1 + |v| */
/* Floats, spec section 1.5: integral, finite and in [-2^63, 2^63) -> integer
 * (-0.0 -> 00); exactly representable in binary32 (incl. +-inf) -> 40 + f32 LE;
 * else 41 + f64 LE; every NaN -> 41 000000000000f87f. Implemented on the bit
 * pattern: no floating-point arithmetic, no float->int casts. */
#if PSON_HAS_DOUBLE
pson_err pson_write_f64(pson_writer *w, double v);
#endif
pson_err pson_write_f32(pson_writer *w, float v);        /* widened to f64, same rule */
pson_err pson_write_f64_bits(pson_writer *w, uint64_t bits); /* IEEE-754 binary64 bits */
pson_err pson_write_f32_bits(pson_writer *w, uint32_t bits); /* IEEE-754 binary32 bits */
/* String: wire 4, byte length, raw bytes (embedded NULs kept; the bytes are
 * not checked: pass UTF-8, see pson_utf8_valid_up_to). */
pson_err pson_write_str(pson_writer *w, const char *s, size_t len);
pson_err pson_write_cstr(pson_writer *w, const char *s); /* strlen(s) bytes */
pson_err pson_write_bytes(pson_writer *w, const void *p, size_t len);
pson_err pson_write_map(pson_writer *w, uint64_t pairs); /* then `pairs` x (key str, value) */
pson_err pson_write_array(pson_writer *w, uint64_t n);   /* then `n` items */

/* ------------------------------------------------------------------ */
/* Encoded sizes (what the pson_write_* call writes, nothing written)   */
/* ------------------------------------------------------------------ */

size_t pson_varint_len(uint64_t v);  /* minimal LEB128 length, 1..10 */
size_t pson_header_len(uint64_t v);  /* 1 if v < 31, else 1 + varint */
size_t pson_len_null(void);
size_t pson_len_bool(bool v);
size_t pson_len_u64(uint64_t v);
size_t pson_len_i64(int64_t v);
#if PSON_HAS_DOUBLE
size_t pson_len_f64(double v);
#endif
size_t pson_len_f32(float v);
size_t pson_len_f64_bits(uint64_t bits);
size_t pson_len_f32_bits(uint32_t bits);
size_t pson_len_str(size_t len);     /* header + len (saturating) */
size_t pson_len_bytes(size_t len);
size_t pson_len_map(uint64_t pairs); /* header only */
size_t pson_len_array(uint64_t n);   /* header only */

/* How a float is put on the wire (spec 1.5), as the Rust classify_f64. */
typedef enum pson_float_kind {
    PSON_FLOAT_UINT, /* value = the integer (wire 0); includes -0.0 */
    PSON_FLOAT_NEG,  /* value = magnitude 1..2^63 (wire 1) */
    PSON_FLOAT_F32,  /* value = binary32 bits (40 + 4 bytes) */
    PSON_FLOAT_F64   /* value = binary64 bits, NaN canonicalised (41 + 8 bytes) */
} pson_float_kind;

typedef struct pson_float_repr {
    pson_float_kind kind;
    uint64_t value;
} pson_float_repr;

pson_float_repr pson_classify_f64_bits(uint64_t bits);
uint64_t pson_f32_bits_to_f64_bits(uint32_t bits); /* exact widening */

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

typedef enum pson_type {
    PSON_TYPE_UINT,  /* v.u */
    PSON_TYPE_INT,   /* v.i (from wire 1: -magnitude; magnitude 0 gives 0) */
    PSON_TYPE_F32,   /* v.f32 (v.f32_bits: its binary32 bits) */
    PSON_TYPE_F64,   /* v.f64 (v.f64_bits: its binary64 bits; only these without PSON_HAS_DOUBLE) */
    PSON_TYPE_BOOL,  /* v.b */
    PSON_TYPE_NULL,
    PSON_TYPE_STR,   /* v.str: valid UTF-8, zero-copy view into the input */
    PSON_TYPE_BYTES, /* v.bytes: zero-copy view into the input */
    PSON_TYPE_MAP,   /* v.count pairs follow (key via pson_key, then value) */
    PSON_TYPE_ARRAY  /* v.count items follow */
} pson_type;

typedef struct pson_view {
    const uint8_t *ptr;
    size_t len;
} pson_view;

typedef struct pson_item {
    pson_type type;
    union {
        uint64_t u;
        int64_t i;
        float f32;
        uint32_t f32_bits; /* the same value as binary32 bits */
#if PSON_HAS_DOUBLE
        double f64;
#endif
        uint64_t f64_bits; /* the f64 as binary64 bits (every target) */
        bool b;
        pson_view str;
        pson_view bytes;
        size_t count; /* <= remaining input (maps: <= remaining / 2) */
    } v;
} pson_item;

/* Pull reader. On error, pos is left at the start of the failing item and
 * `error` holds the kind and offset (identical to the Rust Decoder). */
typedef struct pson_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    pson_error error;
} pson_reader;

void pson_reader_init(pson_reader *r, const void *buf, size_t len);
size_t pson_reader_pos(const pson_reader *r);
size_t pson_reader_remaining(const pson_reader *r);

/* Read the next item: scalars, strings and bytes completely; containers only
 * their header (the caller then reads the elements). Checks: truncation,
 * varint length, float width, discrete value, magnitude <= 2^63, UTF-8,
 * container count <= remaining bytes (maps: pairs <= remaining / 2).
 * No depth tracking here (use pson_validate / pson_skip). */
pson_err pson_next(pson_reader *r, pson_item *item);

/* Read a map key: the item must have wire type 4, else
 * PSON_ERR_NON_STRING_KEY at its header (checked before its varint). */
pson_err pson_key(pson_reader *r, pson_view *key);

/* Skip one complete item (a whole subtree) starting at the current position,
 * with exactly the checks and error offsets of the Rust decode_with: the item
 * may open at most max_depth nested containers (a container at nesting level
 * max_depth + 1 fails with PSON_ERR_DEPTH_LIMIT; 0 rejects any container).
 * Iterative; uses PSON_MAX_DEPTH size_t words of stack, so the effective
 * limit is min(max_depth, PSON_MAX_DEPTH). On error pos is unchanged. */
pson_err pson_skip(pson_reader *r, size_t max_depth);

/* Same with caller-provided depth storage: effective limit
 * min(max_depth, stack_cap). */
pson_err pson_skip_ex(pson_reader *r, size_t max_depth, size_t *stack, size_t stack_cap);

/* Validate one root item of buf[0..len) like the Rust `decode_with`
 * (trailing bytes allowed). On success *consumed = bytes of the root item.
 * On failure *err holds kind and offset. consumed / err may be NULL. */
pson_err pson_validate(const void *buf, size_t len, size_t max_depth,
                       size_t *consumed, pson_error *err);

/* Like pson_validate, but the root item must span the whole input, else
 * PSON_ERR_TRAILING_BYTES at the first unconsumed byte (Rust decode_exact). */
pson_err pson_validate_exact(const void *buf, size_t len, size_t max_depth, pson_error *err);

/* Length of the longest valid UTF-8 prefix of p[0..len) (== len when
 * valid), with the same rules as Rust's str::from_utf8 (no overlongs, no
 * surrogates, nothing above U+10FFFF; an incomplete sequence stops at its
 * lead byte). */
size_t pson_utf8_valid_up_to(const uint8_t *p, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PSON_H */
