/*
 * cdr.c - XCDR1 / XCDR2 writer and reader (see cdr.h and
 * shared/specs/cdr-dds.md section 1; reference: crates/cdr).
 *
 * No malloc, no recursion, no floating-point arithmetic (float / double are
 * moved as bit patterns), no libc beyond memcpy / memset. Byte order is
 * applied with shifts, independent of the host.
 */
#include "cdr.h"

#include <string.h>

#include "wb_utf8.h"

#if CDR_HAS_DOUBLE
typedef char cdr_assert_double_is_binary64[(sizeof(double) == 8) ? 1 : -1];
#endif
typedef char cdr_assert_float_is_binary32[(sizeof(float) == 4) ? 1 : -1];

#define NONE ((size_t)-1)
/* n above 0xffffffff / at least 0xffffffff: only possible where size_t is
 * wider than 32 bits (no always-false comparisons on 16-bit targets). */
#if SIZE_MAX >= 0xffffffffu
#define SIZE_ABOVE_U32(n) ((n) > 0xffffffffu)
#define SIZE_AT_LEAST_U32(n) ((n) >= 0xffffffffu)
#else
#define SIZE_ABOVE_U32(n) ((void)(n), 0)
#define SIZE_AT_LEAST_U32(n) ((void)(n), 0)
#endif

/* A 32-bit wire length as a size_t. Where size_t is narrower, values above
 * SIZE_MAX become SIZE_MAX: no input is that long, so every check against
 * the input fails exactly as it does for the real value. */
static size_t wire_size(uint64_t v)
{
#if SIZE_MAX < 0xffffffffu
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
#else
    return (size_t)v;
#endif
}
#define PID_EXTENDED 0x3f01u
#define PID_LIST_END 0x3f02u
#define PID_EXTENDED_MU 0x7f01u
#define MAX_EMPTY_ELEMENTS 65536u

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        cdr_err e_ = (expr);                                                                       \
        if (e_ != CDR_OK) {                                                                        \
            return e_;                                                                             \
        }                                                                                          \
    } while (0)

const char *cdr_err_name(cdr_err kind)
{
    switch (kind) {
    case CDR_OK: return "ok";
    case CDR_ERR_UNEXPECTED_END: return "unexpected_end";
    case CDR_ERR_INVALID_HEADER: return "invalid_header";
    case CDR_ERR_INVALID_BOOL: return "invalid_bool";
    case CDR_ERR_INVALID_STRING: return "invalid_string";
    case CDR_ERR_INVALID_UTF8: return "invalid_utf8";
    case CDR_ERR_INVALID_ENUM: return "invalid_enum";
    case CDR_ERR_BOUND_EXCEEDED: return "bound_exceeded";
    case CDR_ERR_LENGTH_LIMIT: return "length_limit";
    case CDR_ERR_DEPTH_LIMIT: return "depth_limit";
    case CDR_ERR_LENGTH_MISMATCH: return "length_mismatch";
    case CDR_ERR_INVALID_PARAMETER: return "invalid_parameter";
    case CDR_ERR_MUST_UNDERSTAND: return "must_understand";
    case CDR_ERR_MISSING_KEY: return "missing_key";
    case CDR_ERR_TRAILING_BYTES: return "trailing_bytes";
    case CDR_ERR_BUFFER_TOO_SMALL: return "buffer_too_small";
    case CDR_ERR_TYPE_MISMATCH: return "type_mismatch";
    case CDR_ERR_OUT_OF_RANGE: return "out_of_range";
    case CDR_ERR_ARRAY_LENGTH: return "array_length";
    case CDR_ERR_INVALID_TYPE: return "invalid_type";
    }
    return "unknown";
}

/* Alignment of an n-byte primitive: XCDR2 caps it at 4. */
static size_t align_of(unsigned v2, size_t n)
{
    return v2 && n > 4 ? 4 : n;
}

static unsigned enum_size(unsigned v2, unsigned bit_bound)
{
    if (v2 && bit_bound != 0 && bit_bound <= 8) {
        return 1;
    }
    return v2 && bit_bound != 0 && bit_bound <= 16 ? 2 : 4;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

static cdr_err wfail(cdr_writer *w, cdr_err kind, size_t offset)
{
    if (w->error.kind == CDR_OK) {
        w->error.kind = kind;
        w->error.offset = offset;
    }
    return w->error.kind;
}

/* All or nothing. */
static cdr_err put(cdr_writer *w, const void *p, size_t n)
{
    if (w->error.kind != CDR_OK) {
        return w->error.kind;
    }
    if (w->buf != NULL) {
        if (n > w->cap - w->pos) {
            return wfail(w, CDR_ERR_BUFFER_TOO_SMALL, w->pos);
        }
        if (n != 0) {
            memcpy(w->buf + w->pos, p, n);
        }
    }
    w->pos += n;
    return CDR_OK;
}

static cdr_err walign(cdr_writer *w, size_t n)
{
    static const uint8_t zeros[8] = {0};
    size_t pad;
    n = align_of(w->v2, n);
    if (n <= 1) {
        return CDR_OK;
    }
    pad = (0u - (w->pos - w->origin)) & (n - 1u); /* n is 2, 4 or 8 */
    return pad ? put(w, zeros, pad) : CDR_OK;
}

static void store(uint8_t *p, uint64_t v, unsigned n, unsigned be)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        p[be ? n - 1 - i : i] = (uint8_t)v;
        v >>= 8;
    }
}

/* An aligned n-byte number in the writer's byte order. */
static cdr_err put_num(cdr_writer *w, uint64_t v, unsigned n)
{
    uint8_t b[8];
    TRY(walign(w, n));
    store(b, v, n, w->be);
    return put(w, b, n);
}

/* A 4-aligned uint32 length slot, filled by wclose. */
static cdr_err wopen(cdr_writer *w, cdr_mark *m)
{
    TRY(walign(w, 4));
    m->slot = w->pos;
    TRY(put_num(w, 0, 4));
    m->start = w->pos;
    return CDR_OK;
}

static cdr_err wclose(cdr_writer *w, const cdr_mark *m)
{
    size_t len;
    if (w->error.kind != CDR_OK) {
        return w->error.kind;
    }
    if (m->slot == NONE) {
        return CDR_OK;
    }
    len = w->pos - m->start;
    if (SIZE_ABOVE_U32(len)) {
        return wfail(w, CDR_ERR_OUT_OF_RANGE, w->pos);
    }
    if (w->buf != NULL) {
        store(w->buf + m->slot, len, 4, w->be);
    }
    return CDR_OK;
}

void cdr_writer_init(cdr_writer *w, void *buf, size_t cap, unsigned encoding)
{
    memset(w, 0, sizeof *w);
    w->buf = (uint8_t *)buf;
    w->cap = buf != NULL ? cap : 0;
    w->be = (uint8_t)(encoding & 1u);
    w->v2 = (uint8_t)((encoding >> 1) & 1u);
}

size_t cdr_writer_pos(const cdr_writer *w)
{
    return w->pos;
}

cdr_err cdr_write_header(cdr_writer *w, unsigned extensibility)
{
    uint8_t h[4] = {0, 0, 0, 0};
    unsigned rep;
    if (w->error.kind == CDR_OK && w->pos != 0) {
        return wfail(w, CDR_ERR_TYPE_MISMATCH, w->pos);
    }
    if (w->v2) {
        rep = extensibility == CDR_MUTABLE ? CDR_REP_PL_CDR2
              : extensibility == CDR_APPENDABLE ? CDR_REP_D_CDR2 : CDR_REP_CDR2;
    } else {
        rep = extensibility == CDR_MUTABLE ? CDR_REP_PL_CDR : CDR_REP_CDR;
    }
    h[1] = (uint8_t)(rep | (w->be ? 0u : 1u));
    TRY(put(w, h, 4));
    w->origin = 4;
    w->header = 1;
    return CDR_OK;
}

cdr_err cdr_write_bool(cdr_writer *w, bool v) { return put_num(w, v ? 1u : 0u, 1); }
cdr_err cdr_write_u8(cdr_writer *w, uint8_t v) { return put_num(w, v, 1); }
cdr_err cdr_write_i8(cdr_writer *w, int8_t v) { return put_num(w, (uint8_t)v, 1); }
cdr_err cdr_write_u16(cdr_writer *w, uint16_t v) { return put_num(w, v, 2); }
cdr_err cdr_write_i16(cdr_writer *w, int16_t v) { return put_num(w, (uint16_t)v, 2); }
cdr_err cdr_write_u32(cdr_writer *w, uint32_t v) { return put_num(w, v, 4); }
cdr_err cdr_write_i32(cdr_writer *w, int32_t v) { return put_num(w, (uint32_t)v, 4); }
cdr_err cdr_write_u64(cdr_writer *w, uint64_t v) { return put_num(w, v, 8); }
cdr_err cdr_write_i64(cdr_writer *w, int64_t v) { return put_num(w, (uint64_t)v, 8); }

cdr_err cdr_write_f32(cdr_writer *w, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return put_num(w, b, 4);
}

#if CDR_HAS_DOUBLE
cdr_err cdr_write_f64(cdr_writer *w, double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return put_num(w, b, 8);
}
#endif

cdr_err cdr_write_f32_bits(cdr_writer *w, uint32_t bits) { return put_num(w, bits, 4); }
cdr_err cdr_write_f64_bits(cdr_writer *w, uint64_t bits) { return put_num(w, bits, 8); }

cdr_err cdr_write_enum(cdr_writer *w, unsigned bit_bound, int32_t v)
{
    unsigned n = enum_size(w->v2, bit_bound);
    return put_num(w, (uint32_t)v & (n == 4 ? 0xffffffffu : ((uint32_t)1 << (8u * n)) - 1u), n);
}

cdr_err cdr_write_string_bounded(cdr_writer *w, const char *s, size_t len, uint32_t bound)
{
    static const uint8_t nul = 0;
    if (w->error.kind != CDR_OK) {
        return w->error.kind;
    }
    if (bound != CDR_UNBOUNDED && len > bound) {
        return wfail(w, CDR_ERR_BOUND_EXCEEDED, w->pos);
    }
    if (SIZE_AT_LEAST_U32(len)) {
        return wfail(w, CDR_ERR_OUT_OF_RANGE, w->pos);
    }
    TRY(put_num(w, (uint64_t)len + 1u, 4));
    TRY(put(w, s, len));
    return put(w, &nul, 1);
}

cdr_err cdr_write_string(cdr_writer *w, const char *s, size_t len)
{
    return cdr_write_string_bounded(w, s, len, CDR_UNBOUNDED);
}

cdr_err cdr_write_octets(cdr_writer *w, const void *p, size_t n)
{
    if (w->error.kind == CDR_OK && SIZE_ABOVE_U32(n)) {
        return wfail(w, CDR_ERR_OUT_OF_RANGE, w->pos);
    }
    TRY(put_num(w, n, 4));
    return put(w, p, n);
}

cdr_err cdr_write_bytes(cdr_writer *w, const void *p, size_t n)
{
    return put(w, p, n);
}

cdr_err cdr_begin_sequence(cdr_writer *w, size_t count, bool primitive_elements, cdr_mark *m)
{
    m->slot = NONE;
    m->origin = w->origin;
    if (w->error.kind == CDR_OK && SIZE_ABOVE_U32(count)) {
        return wfail(w, CDR_ERR_OUT_OF_RANGE, w->pos);
    }
    if (w->v2 && !primitive_elements) {
        TRY(wopen(w, m));
    }
    return put_num(w, count, 4);
}

cdr_err cdr_end_sequence(cdr_writer *w, const cdr_mark *m) { return wclose(w, m); }

cdr_err cdr_begin_array(cdr_writer *w, bool primitive_elements, cdr_mark *m)
{
    m->slot = NONE;
    m->origin = w->origin;
    if (w->v2 && !primitive_elements) {
        return wopen(w, m);
    }
    return w->error.kind;
}

cdr_err cdr_end_array(cdr_writer *w, const cdr_mark *m) { return wclose(w, m); }

cdr_err cdr_begin_appendable(cdr_writer *w, cdr_mark *m)
{
    return cdr_begin_array(w, !w->v2, m);
}

cdr_err cdr_end_appendable(cdr_writer *w, const cdr_mark *m) { return wclose(w, m); }

cdr_err cdr_begin_optional(cdr_writer *w, uint32_t member_id, bool present, cdr_mark *m)
{
    m->slot = NONE;
    m->origin = w->origin;
    if (w->v2) {
        return put_num(w, present ? 1u : 0u, 1);
    }
    /* XCDR1: extended parameter header PID_EXTENDED|MUST_UNDERSTAND, 8,
     * member id, member length (filled by cdr_end_optional) */
    TRY(walign(w, 4));
    TRY(put_num(w, PID_EXTENDED_MU, 2));
    TRY(put_num(w, 8, 2));
    TRY(put_num(w, member_id & 0x0fffffffu, 4));
    TRY(wopen(w, m));
    if (present) {
        w->origin = m->start; /* the member aligns from its own start */
    } else {
        m->slot = NONE; /* absent: the length stays 0 */
    }
    return CDR_OK;
}

cdr_err cdr_end_optional(cdr_writer *w, const cdr_mark *m)
{
    w->origin = m->origin;
    return wclose(w, m);
}

cdr_err cdr_writer_finish(cdr_writer *w, bool pad_to_4, size_t *len)
{
    if (len != NULL) {
        *len = 0;
    }
    if (pad_to_4 && w->header && w->error.kind == CDR_OK) {
        static const uint8_t zeros[4] = {0};
        size_t pad = (0u - (w->pos - 4u)) & 3u;
        TRY(put(w, zeros, pad));
        if (w->buf != NULL) {
            w->buf[3] = (uint8_t)(w->buf[3] | pad);
        }
    }
    if (w->error.kind != CDR_OK) {
        return w->error.kind;
    }
    if (len != NULL) {
        *len = w->pos;
    }
    return CDR_OK;
}

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

static cdr_err rfail(cdr_reader *r, cdr_err kind, size_t offset)
{
    if (r->error.kind == CDR_OK) {
        r->error.kind = kind;
        r->error.offset = offset;
    }
    return r->error.kind;
}

size_t cdr_reader_remaining(const cdr_reader *r)
{
    return r->end > r->pos ? r->end - r->pos : 0;
}

bool cdr_reader_at_end(const cdr_reader *r)
{
    return r->pos >= r->end;
}

/* A read past the innermost region: past a DHEADER / parameter length, or
 * past the end of the body. */
static cdr_err short_read(cdr_reader *r)
{
    return r->end < r->body_end ? rfail(r, CDR_ERR_LENGTH_MISMATCH, r->pos) : rfail(r, CDR_ERR_UNEXPECTED_END, r->end);
}

static cdr_err take(cdr_reader *r, size_t n, const uint8_t **p)
{
    if (r->error.kind != CDR_OK) {
        return r->error.kind;
    }
    if (n > cdr_reader_remaining(r)) {
        return short_read(r);
    }
    *p = r->buf + r->pos;
    r->pos += n;
    return CDR_OK;
}

static cdr_err ralign(cdr_reader *r, size_t n)
{
    size_t pad;
    if (r->error.kind != CDR_OK) {
        return r->error.kind;
    }
    n = align_of(r->v2, n);
    if (n <= 1) {
        return CDR_OK;
    }
    pad = (0u - (r->pos - r->origin)) & (n - 1u); /* n is 2, 4 or 8 */
    if (pad > cdr_reader_remaining(r)) {
        return short_read(r);
    }
    r->pos += pad;
    return CDR_OK;
}

static cdr_err get_num(cdr_reader *r, unsigned n, uint64_t *v)
{
    const uint8_t *p;
    unsigned i;
    *v = 0;
    TRY(ralign(r, n));
    TRY(take(r, n, &p));
    for (i = 0; i < n; i++) {
        *v = (*v << 8) | p[r->be ? i : n - 1 - i];
    }
    return CDR_OK;
}

/* Open a region of len bytes at the current position. */
static cdr_err enter_region(cdr_reader *r, size_t len, size_t at, cdr_mark *m)
{
    if (len > cdr_reader_remaining(r)) {
        return r->end < r->body_end ? rfail(r, CDR_ERR_LENGTH_MISMATCH, at) : rfail(r, CDR_ERR_UNEXPECTED_END, r->end);
    }
    m->end = r->end;
    r->end = r->pos + len;
    return CDR_OK;
}

/* Skip to the end of the region and restore the outer end. */
static cdr_err leave_region(cdr_reader *r, const cdr_mark *m)
{
    if (r->error.kind != CDR_OK) {
        return r->error.kind;
    }
    if (m->end != NONE) {
        r->pos = r->end;
        r->end = m->end;
    }
    return CDR_OK;
}

static cdr_err dheader(cdr_reader *r, cdr_mark *m)
{
    uint64_t n;
    size_t at;
    TRY(ralign(r, 4));
    at = r->pos;
    TRY(get_num(r, 4, &n));
    return enter_region(r, wire_size(n), at, m);
}

static void reader_setup(cdr_reader *r, const void *buf, size_t len, unsigned encoding, size_t start, size_t body_end)
{
    r->buf = (const uint8_t *)buf;
    r->len = len;
    r->pos = start;
    r->origin = start;
    r->end = body_end;
    r->body_end = body_end;
    r->be = (uint8_t)(encoding & 1u);
    r->v2 = (uint8_t)((encoding >> 1) & 1u);
}

cdr_err cdr_reader_init(cdr_reader *r, const void *buf, size_t len)
{
    const uint8_t *h = (const uint8_t *)buf;
    unsigned rep, pad;
    memset(r, 0, sizeof *r);
    reader_setup(r, buf, len, 0, 0, 0);
    if (len < 4) {
        return rfail(r, CDR_ERR_UNEXPECTED_END, len);
    }
    if (h[0] != 0) {
        return rfail(r, CDR_ERR_INVALID_HEADER, 0);
    }
    rep = h[1] & 0xfeu;
    if (rep != CDR_REP_CDR && rep != CDR_REP_PL_CDR && rep != CDR_REP_CDR2 && rep != CDR_REP_D_CDR2 &&
        rep != CDR_REP_PL_CDR2) {
        return rfail(r, CDR_ERR_INVALID_HEADER, 1);
    }
    pad = h[3] & 3u;
    if (len - 4 < pad) {
        return rfail(r, CDR_ERR_INVALID_HEADER, 3);
    }
    reader_setup(r, buf, len, ((h[1] & 1u) ? 0u : 1u) | (rep >= CDR_REP_CDR2 ? 2u : 0u), 4, len - pad);
    r->representation = (uint8_t)rep;
    r->options[0] = h[2];
    r->options[1] = h[3];
    return CDR_OK;
}

void cdr_reader_init_headerless(cdr_reader *r, const void *buf, size_t len, unsigned encoding)
{
    memset(r, 0, sizeof *r);
    reader_setup(r, buf, len, encoding, 0, len);
    r->representation = (uint8_t)((encoding & 2u) ? CDR_REP_CDR2 : CDR_REP_CDR);
}

unsigned cdr_reader_encoding(const cdr_reader *r)
{
    return (r->be ? 1u : 0u) | (r->v2 ? 2u : 0u);
}

cdr_err cdr_read_bool(cdr_reader *r, bool *v)
{
    size_t at = r->pos;
    uint64_t x;
    *v = false;
    TRY(get_num(r, 1, &x));
    if (x > 1) {
        return rfail(r, CDR_ERR_INVALID_BOOL, at);
    }
    *v = x == 1;
    return CDR_OK;
}

#define READ_NUM(name, type, n, conv)                                                              \
    cdr_err name(cdr_reader *r, type *v)                                                           \
    {                                                                                              \
        uint64_t x;                                                                                \
        cdr_err e = get_num(r, n, &x);                                                             \
        *v = conv;                                                                                 \
        return e;                                                                                  \
    }

/* Sign-extend the low n bytes of v. */
static int64_t sext(uint64_t v, unsigned n)
{
    if (n < 8) {
        uint64_t m = (uint64_t)1 << (8u * n - 1u);
        v = (v ^ m) - m;
    }
    return (int64_t)v;
}

READ_NUM(cdr_read_u8, uint8_t, 1, (uint8_t)x)
READ_NUM(cdr_read_i8, int8_t, 1, (int8_t)sext(x, 1))
READ_NUM(cdr_read_u16, uint16_t, 2, (uint16_t)x)
READ_NUM(cdr_read_i16, int16_t, 2, (int16_t)sext(x, 2))
READ_NUM(cdr_read_u32, uint32_t, 4, (uint32_t)x)
READ_NUM(cdr_read_i32, int32_t, 4, (int32_t)sext(x, 4))
READ_NUM(cdr_read_u64, uint64_t, 8, x)
READ_NUM(cdr_read_i64, int64_t, 8, sext(x, 8))

cdr_err cdr_read_f32(cdr_reader *r, float *v)
{
    uint64_t x;
    cdr_err e = get_num(r, 4, &x);
    uint32_t b = (uint32_t)x;
    memcpy(v, &b, 4);
    return e;
}

#if CDR_HAS_DOUBLE
cdr_err cdr_read_f64(cdr_reader *r, double *v)
{
    uint64_t x;
    cdr_err e = get_num(r, 8, &x);
    memcpy(v, &x, 8);
    return e;
}
#endif

cdr_err cdr_read_f32_bits(cdr_reader *r, uint32_t *bits)
{
    uint64_t x;
    cdr_err e = get_num(r, 4, &x);
    *bits = (uint32_t)x;
    return e;
}

cdr_err cdr_read_f64_bits(cdr_reader *r, uint64_t *bits) { return get_num(r, 8, bits); }

cdr_err cdr_read_enum(cdr_reader *r, unsigned bit_bound, const int32_t *values, size_t n, int32_t *v)
{
    size_t at = r->pos, i;
    uint64_t x;
    *v = 0;
    TRY(get_num(r, enum_size(r->v2, bit_bound), &x));
    *v = (int32_t)sext(x, 4);
    if (values != NULL) {
        for (i = 0; i < n; i++) {
            if (values[i] == *v) {
                return CDR_OK;
            }
        }
        return rfail(r, CDR_ERR_INVALID_ENUM, at);
    }
    return CDR_OK;
}

cdr_err cdr_read_string(cdr_reader *r, uint32_t bound, cdr_view *s)
{
    uint64_t n;
    size_t at, start, ok;
    const uint8_t *p;
    s->ptr = NULL;
    s->len = 0;
    TRY(ralign(r, 4));
    at = r->pos;
    TRY(get_num(r, 4, &n));
    if (n == 0) {
        return rfail(r, CDR_ERR_INVALID_STRING, at);
    }
    if (n > cdr_reader_remaining(r)) {
        return short_read(r);
    }
    if (bound != CDR_UNBOUNDED && n - 1u > bound) {
        return rfail(r, CDR_ERR_BOUND_EXCEEDED, at);
    }
    start = r->pos;
    TRY(take(r, (size_t)n, &p));
    if (p[n - 1u] != 0) {
        return rfail(r, CDR_ERR_INVALID_STRING, start + (size_t)n - 1u);
    }
    ok = wb_utf8_valid_up_to(p, (size_t)n - 1u);
    if (ok != (size_t)n - 1u) {
        return rfail(r, CDR_ERR_INVALID_UTF8, start + ok);
    }
    s->ptr = p;
    s->len = (size_t)n - 1u;
    return CDR_OK;
}

cdr_err cdr_read_octets(cdr_reader *r, uint32_t bound, cdr_view *b)
{
    uint64_t n;
    size_t at;
    b->ptr = NULL;
    b->len = 0;
    TRY(ralign(r, 4));
    at = r->pos;
    TRY(get_num(r, 4, &n));
    if (bound != CDR_UNBOUNDED && n > bound) {
        return rfail(r, CDR_ERR_BOUND_EXCEEDED, at);
    }
    if (n > cdr_reader_remaining(r)) {
        return rfail(r, CDR_ERR_LENGTH_LIMIT, at);
    }
    b->len = (size_t)n;
    return take(r, (size_t)n, &b->ptr);
}

cdr_err cdr_read_bytes(cdr_reader *r, size_t n, cdr_view *b)
{
    b->len = 0;
    b->ptr = NULL;
    TRY(take(r, n, &b->ptr));
    b->len = n;
    return CDR_OK;
}

/* Element counts: uint64_t where size_t is narrower than 32 bits (a wire
 * count must not be cut to size_t before the checks). */
#if SIZE_MAX < 0xffffffffu
typedef uint64_t count_t;
#else
typedef size_t count_t;
#endif

static cdr_err check_count(cdr_reader *r, count_t count, size_t min, size_t at)
{
    if (min == 0 ? count > MAX_EMPTY_ELEMENTS : count > cdr_reader_remaining(r) / min) {
        return rfail(r, CDR_ERR_LENGTH_LIMIT, at);
    }
    return CDR_OK;
}

cdr_err cdr_begin_read_sequence(cdr_reader *r, bool primitive_elements, size_t min_element_size, uint32_t bound,
                                uint32_t *count, cdr_mark *m)
{
    uint64_t n;
    size_t at;
    *count = 0;
    m->end = NONE;
    m->origin = r->origin;
    TRY(ralign(r, 4));
    if (r->v2 && !primitive_elements) {
        TRY(dheader(r, m));
    }
    at = r->pos;
    TRY(get_num(r, 4, &n));
    if (bound != CDR_UNBOUNDED && n > bound) {
        return rfail(r, CDR_ERR_BOUND_EXCEEDED, at);
    }
    TRY(check_count(r, (count_t)n, min_element_size, at));
    *count = (uint32_t)n;
    return CDR_OK;
}

cdr_err cdr_end_read_sequence(cdr_reader *r, const cdr_mark *m) { return leave_region(r, m); }

cdr_err cdr_begin_read_array(cdr_reader *r, bool primitive_elements, size_t count, size_t min_element_size,
                             cdr_mark *m)
{
    m->end = NONE;
    m->origin = r->origin;
    if (r->v2 && !primitive_elements) {
        TRY(dheader(r, m));
    }
    if (r->error.kind != CDR_OK) {
        return r->error.kind;
    }
    return check_count(r, count, min_element_size, r->pos);
}

cdr_err cdr_end_read_array(cdr_reader *r, const cdr_mark *m) { return leave_region(r, m); }

cdr_err cdr_begin_read_appendable(cdr_reader *r, cdr_mark *m)
{
    m->end = NONE;
    m->origin = r->origin;
    if (r->v2) {
        return dheader(r, m);
    }
    return r->error.kind;
}

cdr_err cdr_end_read_appendable(cdr_reader *r, const cdr_mark *m) { return leave_region(r, m); }

cdr_err cdr_begin_read_optional(cdr_reader *r, bool *present, cdr_mark *m)
{
    uint64_t pid, len, x;
    size_t at = r->pos, hdr;
    *present = false;
    m->end = NONE;
    m->origin = r->origin;
    if (r->v2) {
        TRY(get_num(r, 1, &x));
        if (x > 1) {
            return rfail(r, CDR_ERR_INVALID_BOOL, at);
        }
        *present = x == 1;
        return CDR_OK;
    }
    /* XCDR1 parameter header, short or extended form */
    TRY(ralign(r, 4));
    hdr = r->pos;
    TRY(get_num(r, 2, &pid));
    TRY(get_num(r, 2, &len));
    if ((pid & 0x3fffu) == PID_LIST_END) {
        return rfail(r, CDR_ERR_INVALID_PARAMETER, at);
    }
    if ((pid & 0x3fffu) == PID_EXTENDED) {
        if (len != 8) {
            return rfail(r, CDR_ERR_INVALID_PARAMETER, hdr);
        }
        TRY(get_num(r, 4, &x)); /* member id (not checked: the caller knows the member) */
        TRY(get_num(r, 4, &len));
    }
    if (len == 0) {
        return CDR_OK;
    }
    TRY(enter_region(r, wire_size(len), r->pos, m));
    r->origin = r->pos; /* the member aligns from its own start */
    *present = true;
    return CDR_OK;
}

cdr_err cdr_end_read_optional(cdr_reader *r, const cdr_mark *m)
{
    r->origin = m->origin;
    return leave_region(r, m);
}

cdr_err cdr_reader_finish(cdr_reader *r, bool allow_trailing)
{
    if (r->error.kind != CDR_OK) {
        return r->error.kind;
    }
    if (!allow_trailing && r->pos != r->body_end) {
        return rfail(r, CDR_ERR_TRAILING_BYTES, r->pos);
    }
    return CDR_OK;
}
