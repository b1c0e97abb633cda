/*
 * cdr.h - OMG CDR as DDS uses it (XCDR1 / XCDR2, DDS-XTypes 1.3 section
 * 7.4) for devices: a streaming writer and a pull reader that the caller
 * drives member by member (C99, no malloc, no recursion, no libc beyond
 * <string.h> memcpy/memset, no floating-point arithmetic).
 *
 * Format: shared/specs/cdr-dds.md section 1. Layout, error kinds and error
 * offsets follow the Rust crate crates/cdr (stream.rs Writer / Reader,
 * encode.rs, decode.rs, error.rs).
 *
 *   payload = encapsulation header (2-byte big-endian representation id,
 *             2 option bytes; options & 3 = padding bytes at the end)
 *             + body; alignment is counted from the first body byte.
 *   XCDR1: every primitive aligned to its size (up to 8); XCDR2: at most 4.
 *   string: uint32 length incl. the NUL, the bytes, the NUL.
 *   sequence: uint32 count, the elements; XCDR2 puts a DHEADER (uint32
 *   byte length) first when the elements are not primitive (strings,
 *   structs, enums, sequences, ...). Arrays: no count (same DHEADER rule).
 *   @appendable (XCDR2): DHEADER before the members. @optional: XCDR2 a
 *   presence byte; XCDR1 an extended parameter header (0x7f01, 8, member
 *   id, length) with the member aligned from its own start.
 *
 * A @final struct is its members in order; the caller writes / reads them
 * with these calls. Not supported: @mutable bodies (PL_CDR / PL_CDR2 member
 * lists), key-only serialization; the caller composes unions (discriminator
 * then the member) and enums (cdr_write_enum / cdr_read_enum).
 *
 * Errors are sticky: the first error is kept in w->error / r->error and
 * every later call returns it, so a whole struct can be written or read and
 * checked once. A failing write writes nothing (offset = writer position).
 */
#ifndef CDR_H
#define CDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CDR_HAS_DOUBLE: 1 where `double` is IEEE-754 binary64 (hosts, Cortex-M),
 * 0 where it is 32 bits wide (avr-gcc's default). With 0 the `double` API
 * does not exist and f64 values are moved as raw binary64 bits (the *_bits
 * functions and union members, which exist on every target). Derived from
 * __SIZEOF_DOUBLE__ (gcc, clang); other compilers get 1, and the source
 * file checks the size at compile time. */
#ifndef CDR_HAS_DOUBLE
#if defined(__SIZEOF_DOUBLE__) && __SIZEOF_DOUBLE__ != 8
#define CDR_HAS_DOUBLE 0
#else
#define CDR_HAS_DOUBLE 1
#endif
#endif

/* Error kinds in the order of the Rust cdr::ErrorKind::ALL; cdr_err_name()
 * gives the shared snake_case names. */
typedef enum cdr_err {
    CDR_OK = 0,
    CDR_ERR_UNEXPECTED_END,    /* "unexpected_end": end of the input / region */
    CDR_ERR_INVALID_HEADER,    /* "invalid_header": 0 / 1 (unknown id) / 3 (padding > body) */
    CDR_ERR_INVALID_BOOL,      /* "invalid_bool": the byte */
    CDR_ERR_INVALID_STRING,    /* "invalid_string": length 0 (at the length) / no NUL (at the last byte) */
    CDR_ERR_INVALID_UTF8,      /* "invalid_utf8": first byte of the bad sequence */
    CDR_ERR_INVALID_ENUM,      /* "invalid_enum": the value */
    CDR_ERR_BOUND_EXCEEDED,    /* "bound_exceeded": the length / count */
    CDR_ERR_LENGTH_LIMIT,      /* "length_limit": the count */
    CDR_ERR_DEPTH_LIMIT,       /* "depth_limit": never returned (the caller nests) */
    CDR_ERR_LENGTH_MISMATCH,   /* "length_mismatch": a read past a DHEADER / parameter length */
    CDR_ERR_INVALID_PARAMETER, /* "invalid_parameter": the parameter header */
    CDR_ERR_MUST_UNDERSTAND,   /* "must_understand": never returned */
    CDR_ERR_MISSING_KEY,       /* "missing_key": never returned */
    CDR_ERR_TRAILING_BYTES,    /* "trailing_bytes": first unread byte */
    CDR_ERR_BUFFER_TOO_SMALL,  /* "buffer_too_small": writer position */
    CDR_ERR_TYPE_MISMATCH,     /* "type_mismatch": API used out of order */
    CDR_ERR_OUT_OF_RANGE,      /* "out_of_range": a length that does not fit a uint32 */
    CDR_ERR_ARRAY_LENGTH,      /* "array_length": never returned */
    CDR_ERR_INVALID_TYPE       /* "invalid_type": never returned */
} cdr_err;

typedef struct cdr_error {
    cdr_err kind;
    size_t offset; /* from the first byte of the encapsulation header */
} cdr_error;

/* "unexpected_end", ...; "ok" for CDR_OK, "unknown" for other values. */
const char *cdr_err_name(cdr_err kind);

/* Encodings: bit 0 big-endian, bit 1 XCDR2. */
enum {
    CDR_XCDR1_LE = 0,
    CDR_XCDR1_BE = 1,
    CDR_XCDR2_LE = 2,
    CDR_XCDR2_BE = 3
};

/* Extensibility of the top-level type (selects the representation id). */
enum {
    CDR_FINAL = 0,
    CDR_APPENDABLE = 1,
    CDR_MUTABLE = 2
};

/* Representation ids without the little-endian bit. */
enum {
    CDR_REP_CDR = 0x00,
    CDR_REP_PL_CDR = 0x02,
    CDR_REP_CDR2 = 0x06,
    CDR_REP_D_CDR2 = 0x08,
    CDR_REP_PL_CDR2 = 0x0a
};

/* String / sequence bound meaning "unbounded". */
#define CDR_UNBOUNDED 0xffffffffu

typedef struct cdr_view {
    const uint8_t *ptr;
    size_t len;
} cdr_view;

/* Saved state of a begin_* call, for the matching end_* call. */
typedef struct cdr_mark {
    size_t slot;   /* writer: DHEADER / length slot, or (size_t)-1 */
    size_t start;  /* writer: first byte measured by the slot */
    size_t end;    /* reader: enclosing region end to restore, or (size_t)-1 */
    size_t origin; /* alignment origin to restore */
} cdr_mark;

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

typedef struct cdr_writer {
    uint8_t *buf;    /* NULL: count only */
    size_t cap;
    size_t pos;
    size_t origin;   /* alignment origin */
    uint8_t be, v2;
    uint8_t header;  /* a header was written at offset 0 */
    cdr_error error; /* sticky */
} cdr_writer;

/* buf == NULL counts only (never too small): cdr_writer_pos() is then the
 * size the same calls write - the size function of this codec. */
void cdr_writer_init(cdr_writer *w, void *buf, size_t cap, unsigned encoding);
size_t cdr_writer_pos(const cdr_writer *w);
/* The encapsulation header of a top-level type of that extensibility
 * (options 0); call first. Without it the body is headerless. */
cdr_err cdr_write_header(cdr_writer *w, unsigned extensibility);

cdr_err cdr_write_bool(cdr_writer *w, bool v);
cdr_err cdr_write_u8(cdr_writer *w, uint8_t v); /* octet, uint8, char */
cdr_err cdr_write_i8(cdr_writer *w, int8_t v);
cdr_err cdr_write_u16(cdr_writer *w, uint16_t v);
cdr_err cdr_write_i16(cdr_writer *w, int16_t v);
cdr_err cdr_write_u32(cdr_writer *w, uint32_t v);
cdr_err cdr_write_i32(cdr_writer *w, int32_t v);
cdr_err cdr_write_u64(cdr_writer *w, uint64_t v);
cdr_err cdr_write_i64(cdr_writer *w, int64_t v);
cdr_err cdr_write_f32(cdr_writer *w, float v);
#if CDR_HAS_DOUBLE
cdr_err cdr_write_f64(cdr_writer *w, double v);
#endif
/* float / double given as IEEE-754 binary32 / binary64 bits (every target). */
cdr_err cdr_write_f32_bits(cdr_writer *w, uint32_t bits);
cdr_err cdr_write_f64_bits(cdr_writer *w, uint64_t bits);
/* An enum value: 4 bytes, or with @bit_bound in XCDR2 1 (<= 8) / 2 (<= 16). */
cdr_err cdr_write_enum(cdr_writer *w, unsigned bit_bound, int32_t v);
/* string / string<bound>: len bytes (no NUL inside expected; not checked). */
cdr_err cdr_write_string(cdr_writer *w, const char *s, size_t len);
cdr_err cdr_write_string_bounded(cdr_writer *w, const char *s, size_t len, uint32_t bound);
/* sequence<octet>: count + bytes. */
cdr_err cdr_write_octets(cdr_writer *w, const void *p, size_t n);
/* Raw bytes, no count (octet arrays). */
cdr_err cdr_write_bytes(cdr_writer *w, const void *p, size_t n);

/* sequence<T>: DHEADER (XCDR2, non-primitive T) and count; then the
 * elements; then cdr_end_sequence. */
cdr_err cdr_begin_sequence(cdr_writer *w, size_t count, bool primitive_elements, cdr_mark *m);
cdr_err cdr_end_sequence(cdr_writer *w, const cdr_mark *m);
/* T[N]...: DHEADER (XCDR2, non-primitive T); then the elements. */
cdr_err cdr_begin_array(cdr_writer *w, bool primitive_elements, cdr_mark *m);
cdr_err cdr_end_array(cdr_writer *w, const cdr_mark *m);
/* An @appendable struct / union body (XCDR2: DHEADER; XCDR1: nothing). */
cdr_err cdr_begin_appendable(cdr_writer *w, cdr_mark *m);
cdr_err cdr_end_appendable(cdr_writer *w, const cdr_mark *m);
/* An @optional member of a final / appendable struct; write the value when
 * present, then cdr_end_optional in either case. */
cdr_err cdr_begin_optional(cdr_writer *w, uint32_t member_id, bool present, cdr_mark *m);
cdr_err cdr_end_optional(cdr_writer *w, const cdr_mark *m);
/* Done: with pad_to_4 (and a header), zero padding to a multiple of 4 and
 * its count in the header's options & 3, as C DDS writers do (cyclonedds-
 * python writes neither). *len (may be NULL) = bytes written. */
cdr_err cdr_writer_finish(cdr_writer *w, bool pad_to_4, size_t *len);

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

typedef struct cdr_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    size_t end;        /* end of the innermost region (DHEADER, parameter) */
    size_t body_end;   /* end of the body (options & 3 padding excluded) */
    size_t origin;     /* alignment origin */
    uint8_t be, v2;
    uint8_t representation; /* CDR_REP_* (header), or from the encoding */
    uint8_t options[2];
    cdr_error error;   /* sticky */
} cdr_reader;

/* The input starts with the encapsulation header: version and byte order
 * from it, its options & 3 padding excluded (both wire forms accepted). */
cdr_err cdr_reader_init(cdr_reader *r, const void *buf, size_t len);
/* A bare body in that encoding (alignment origin at its first byte). */
void cdr_reader_init_headerless(cdr_reader *r, const void *buf, size_t len, unsigned encoding);
/* CDR_XCDR1_LE ... from the header. */
unsigned cdr_reader_encoding(const cdr_reader *r);
size_t cdr_reader_remaining(const cdr_reader *r);

cdr_err cdr_read_bool(cdr_reader *r, bool *v); /* 0 or 1, else invalid_bool */
cdr_err cdr_read_u8(cdr_reader *r, uint8_t *v);
cdr_err cdr_read_i8(cdr_reader *r, int8_t *v);
cdr_err cdr_read_u16(cdr_reader *r, uint16_t *v);
cdr_err cdr_read_i16(cdr_reader *r, int16_t *v);
cdr_err cdr_read_u32(cdr_reader *r, uint32_t *v);
cdr_err cdr_read_i32(cdr_reader *r, int32_t *v);
cdr_err cdr_read_u64(cdr_reader *r, uint64_t *v);
cdr_err cdr_read_i64(cdr_reader *r, int64_t *v);
cdr_err cdr_read_f32(cdr_reader *r, float *v);
#if CDR_HAS_DOUBLE
cdr_err cdr_read_f64(cdr_reader *r, double *v);
#endif
/* float / double as IEEE-754 binary32 / binary64 bits (every target). */
cdr_err cdr_read_f32_bits(cdr_reader *r, uint32_t *bits);
cdr_err cdr_read_f64_bits(cdr_reader *r, uint64_t *bits);
/* An enum (size as cdr_write_enum); with values != NULL it must be one of
 * the n enumerators (else invalid_enum at its offset). */
cdr_err cdr_read_enum(cdr_reader *r, unsigned bit_bound, const int32_t *values, size_t n, int32_t *v);
/* A string (view without the NUL; UTF-8 checked), bound or CDR_UNBOUNDED. */
cdr_err cdr_read_string(cdr_reader *r, uint32_t bound, cdr_view *s);
/* sequence<octet> (bound or CDR_UNBOUNDED). */
cdr_err cdr_read_octets(cdr_reader *r, uint32_t bound, cdr_view *b);
/* n raw bytes (octet arrays). */
cdr_err cdr_read_bytes(cdr_reader *r, size_t n, cdr_view *b);

/* sequence<T>: DHEADER (XCDR2, non-primitive T), count (bound check, then
 * count x min_element_size must fit in what is left; 0 = elements that can
 * be empty: at most 65536). Read *count elements, then cdr_end_read_sequence
 * (which skips to the end of the DHEADER region). */
cdr_err cdr_begin_read_sequence(cdr_reader *r, bool primitive_elements, size_t min_element_size, uint32_t bound,
                                uint32_t *count, cdr_mark *m);
cdr_err cdr_end_read_sequence(cdr_reader *r, const cdr_mark *m);
/* T[N]... of `count` elements in total (same checks). */
cdr_err cdr_begin_read_array(cdr_reader *r, bool primitive_elements, size_t count, size_t min_element_size,
                             cdr_mark *m);
cdr_err cdr_end_read_array(cdr_reader *r, const cdr_mark *m);
/* @appendable body. Members may end early (an older writer): check
 * cdr_reader_at_end() before each and use its default value then. */
cdr_err cdr_begin_read_appendable(cdr_reader *r, cdr_mark *m);
cdr_err cdr_end_read_appendable(cdr_reader *r, const cdr_mark *m);
bool cdr_reader_at_end(const cdr_reader *r);
/* @optional member: *present; when present read the value, then
 * cdr_end_read_optional in either case. */
cdr_err cdr_begin_read_optional(cdr_reader *r, bool *present, cdr_mark *m);
cdr_err cdr_end_read_optional(cdr_reader *r, const cdr_mark *m);
/* The whole body read? (trailing_bytes at the first unread byte unless
 * allow_trailing.) */
cdr_err cdr_reader_finish(cdr_reader *r, bool allow_trailing);

#ifdef __cplusplus
}
#endif

#endif /* CDR_H */
