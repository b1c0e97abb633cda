/*
 * uadp.c - OPC UA PubSub UADP NetworkMessages (see uadp.h and
 * shared/specs/uadp.md section 2; reference: crates/uadp).
 *
 * No malloc, no recursion, no floating-point arithmetic (Float / Double are
 * moved as bit patterns), no libc beyond memcpy / memset. Multi-byte values
 * are assembled with shifts, so the code is independent of the host byte
 * order.
 */
#include "uadp.h"

#include <string.h>

#include "wb_utf8.h"

#if UADP_HAS_DOUBLE
typedef char uadp_assert_double_is_binary64[(sizeof(double) == 8) ? 1 : -1];
#endif
typedef char uadp_assert_float_is_binary32[(sizeof(float) == 4) ? 1 : -1];

/* Length limits; as uint64_t where size_t is narrower than 32 bits, so the
 * limits (and the errors) are the same on every target. */
#if SIZE_MAX < 0xffffffffu
typedef uint64_t limit_t;
#else
typedef size_t limit_t;
#endif
#define DEFAULT_MAX_ARRAY ((limit_t)1 << 20)
#define DEFAULT_MAX_STRING ((limit_t)1 << 24)
/* n above 0x7fffffff: only possible where size_t has 32 bits or more (no
 * always-false comparison on 16-bit targets). */
#if SIZE_MAX > 0x7fffffffu
#define SIZE_ABOVE_I32(n) ((n) > 0x7fffffffu)
#else
#define SIZE_ABOVE_I32(n) ((void)(n), 0)
#endif
#define NONE ((size_t)-1)

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        uadp_err e_ = (expr);                                                                      \
        if (e_ != UADP_OK) {                                                                       \
            return e_;                                                                             \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------ */
/* Names and types                                                      */
/* ------------------------------------------------------------------ */

const char *uadp_err_name(uadp_err kind)
{
    switch (kind) {
    case UADP_OK: return "ok";
    case UADP_ERR_UNEXPECTED_END: return "unexpected_end";
    case UADP_ERR_TRAILING_BYTES: return "trailing_bytes";
    case UADP_ERR_UNSUPPORTED_VERSION: return "unsupported_version";
    case UADP_ERR_RESERVED_PUBLISHER_ID_TYPE: return "reserved_publisher_id_type";
    case UADP_ERR_RESERVED_FLAGS: return "reserved_flags";
    case UADP_ERR_CHUNK_UNSUPPORTED: return "chunk_unsupported";
    case UADP_ERR_SECURITY_UNSUPPORTED: return "security_unsupported";
    case UADP_ERR_UNSUPPORTED_NETWORK_MESSAGE_TYPE: return "unsupported_network_message_type";
    case UADP_ERR_INVALID_COUNT: return "invalid_count";
    case UADP_ERR_SIZE_MISMATCH: return "size_mismatch";
    case UADP_ERR_RESERVED_FIELD_ENCODING: return "reserved_field_encoding";
    case UADP_ERR_UNSUPPORTED_MESSAGE_TYPE: return "unsupported_message_type";
    case UADP_ERR_INVALID_VARIANT_TYPE: return "invalid_variant_type";
    case UADP_ERR_UNSUPPORTED_VARIANT_TYPE: return "unsupported_variant_type";
    case UADP_ERR_UNSUPPORTED_ARRAY_DIMENSIONS: return "unsupported_array_dimensions";
    case UADP_ERR_INVALID_LENGTH: return "invalid_length";
    case UADP_ERR_LENGTH_LIMIT: return "length_limit";
    case UADP_ERR_INVALID_UTF8: return "invalid_utf8";
    case UADP_ERR_MISSING_METADATA: return "missing_metadata";
    case UADP_ERR_BUFFER_TOO_SMALL: return "buffer_too_small";
    case UADP_ERR_TYPE_MISMATCH: return "type_mismatch";
    case UADP_ERR_FIELD_ENCODING_MISMATCH: return "field_encoding_mismatch";
    case UADP_ERR_INVALID_PADDING: return "invalid_padding";
    case UADP_ERR_JSON_SYNTAX: return "json_syntax";
    case UADP_ERR_DEPTH_LIMIT: return "depth_limit";
    case UADP_ERR_JSON_VALUE: return "json_value";
    case UADP_ERR_UNREPRESENTABLE: return "unrepresentable";
    }
    return "unknown";
}

bool uadp_err_is_unsupported(uadp_err kind)
{
    return kind == UADP_ERR_CHUNK_UNSUPPORTED || kind == UADP_ERR_SECURITY_UNSUPPORTED ||
           kind == UADP_ERR_UNSUPPORTED_NETWORK_MESSAGE_TYPE || kind == UADP_ERR_UNSUPPORTED_VARIANT_TYPE ||
           kind == UADP_ERR_UNSUPPORTED_ARRAY_DIMENSIONS || kind == UADP_ERR_MISSING_METADATA;
}

const char *uadp_type_name(unsigned type)
{
    switch (type) {
    case UADP_BOOLEAN: return "Boolean";
    case UADP_SBYTE: return "SByte";
    case UADP_BYTE: return "Byte";
    case UADP_INT16: return "Int16";
    case UADP_UINT16: return "UInt16";
    case UADP_INT32: return "Int32";
    case UADP_UINT32: return "UInt32";
    case UADP_INT64: return "Int64";
    case UADP_UINT64: return "UInt64";
    case UADP_FLOAT: return "Float";
    case UADP_DOUBLE: return "Double";
    case UADP_STRING: return "String";
    case UADP_DATETIME: return "DateTime";
    case UADP_GUID: return "Guid";
    case UADP_BYTESTRING: return "ByteString";
    case UADP_STATUSCODE: return "StatusCode";
    default: return NULL;
    }
}

static bool supported(unsigned type)
{
    return (type >= 1 && type <= 15) || type == UADP_STATUSCODE;
}

/* Bytes of a fixed-size type; 4 (the length) for String / ByteString, which
 * is also the smallest encoding (Rust BuiltInType::min_encoded_len). */
static unsigned wire_len(unsigned type)
{
    switch (type) {
    case UADP_BOOLEAN:
    case UADP_SBYTE:
    case UADP_BYTE: return 1;
    case UADP_INT16:
    case UADP_UINT16: return 2;
    case UADP_INT64:
    case UADP_UINT64:
    case UADP_DOUBLE:
    case UADP_DATETIME: return 8;
    case UADP_GUID: return 16;
    default: return 4;
    }
}

/* log2 of the smallest encoding (1, 2, 4, 8 or 16 bytes): counts are
 * checked with a shift, no division. */
static unsigned wire_shift(unsigned type)
{
    unsigned n = wire_len(type), k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

static bool is_signed(unsigned type)
{
    return type == UADP_SBYTE || type == UADP_INT16 || type == UADP_INT32 || type == UADP_INT64 ||
           type == UADP_DATETIME;
}

static uint64_t rd_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n-- > 0) {
        v = (v << 8) | p[n];
    }
    return v;
}

static void wr_le(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
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

/* Optional fixed-size header fields, in wire order: presence bit (in the
 * struct's `has` / mask), wire size, offset in the struct. Reader and writer
 * walk the same tables. */
typedef struct opt_field {
    uint8_t has;
    uint8_t size;
    uint8_t offset;
} opt_field;

static const opt_field DSM_OPTS[6] = {
    {UADP_DSM_SEQUENCE_NUMBER, 2, offsetof(uadp_dsm_header, sequence_number)},
    {UADP_DSM_TIMESTAMP, 8, offsetof(uadp_dsm_header, timestamp)},
    {UADP_DSM_PICOSECONDS, 2, offsetof(uadp_dsm_header, picoseconds)},
    {UADP_DSM_STATUS, 2, offsetof(uadp_dsm_header, status)},
    {UADP_DSM_CONFIG_MAJOR, 4, offsetof(uadp_dsm_header, config_major)},
    {UADP_DSM_CONFIG_MINOR, 4, offsetof(uadp_dsm_header, config_minor)}};

static const opt_field GROUP_OPTS[4] = {
    {UADP_GROUP_WRITER_GROUP_ID, 2, offsetof(uadp_network_header, writer_group_id)},
    {UADP_GROUP_VERSION, 4, offsetof(uadp_network_header, group_version)},
    {UADP_GROUP_NETWORK_MESSAGE_NUMBER, 2, offsetof(uadp_network_header, network_message_number)},
    {UADP_GROUP_SEQUENCE_NUMBER, 2, offsetof(uadp_network_header, group_sequence_number)}};

static const opt_field NM_OPTS[2] = {
    {UADP_NM_TIMESTAMP, 8, offsetof(uadp_network_header, timestamp)},
    {UADP_NM_PICOSECONDS, 2, offsetof(uadp_network_header, picoseconds)}};

static const opt_field DV_OPTS[5] = {
    {UADP_DV_STATUS, 4, offsetof(uadp_field, dv_status)},
    {UADP_DV_SOURCE_TIMESTAMP, 8, offsetof(uadp_field, dv_source_timestamp)},
    {UADP_DV_SOURCE_PICOSECONDS, 2, offsetof(uadp_field, dv_source_picoseconds)},
    {UADP_DV_SERVER_TIMESTAMP, 8, offsetof(uadp_field, dv_server_timestamp)},
    {UADP_DV_SERVER_PICOSECONDS, 2, offsetof(uadp_field, dv_server_picoseconds)}};

static uint64_t opt_load(const void *base, const opt_field *f)
{
    const uint8_t *p = (const uint8_t *)base + f->offset;
    uint16_t x16;
    uint32_t x32;
    uint64_t x64;
    if (f->size == 2) {
        memcpy(&x16, p, 2);
        return x16;
    }
    if (f->size == 4) {
        memcpy(&x32, p, 4);
        return x32;
    }
    memcpy(&x64, p, 8);
    return x64;
}

static void opt_store(void *base, const opt_field *f, uint64_t v)
{
    uint8_t *p = (uint8_t *)base + f->offset;
    uint16_t x16 = (uint16_t)v;
    uint32_t x32 = (uint32_t)v;
    if (f->size == 2) {
        memcpy(p, &x16, 2);
    } else if (f->size == 4) {
        memcpy(p, &x32, 4);
    } else {
        memcpy(p, &v, 8); /* int64_t fields: the same two's complement bits */
    }
}

void uadp_guid_bytes(uint8_t out[16], uint32_t data1, uint16_t data2, uint16_t data3, const uint8_t data4[8])
{
    wr_le(out, data1, 4);
    wr_le(out + 4, data2, 2);
    wr_le(out + 6, data3, 2);
    memcpy(out + 8, data4, 8);
}

uint16_t uadp_writer_id(const uadp_network_header *h, size_t i)
{
    if ((h->has & UADP_NM_PAYLOAD_HEADER) == 0 || i >= h->count) {
        return 0;
    }
    if (h->writer_ids != NULL) {
        return h->writer_ids[i];
    }
    return h->writer_ids_le != NULL ? (uint16_t)rd_le(h->writer_ids_le + 2 * i, 2) : 0;
}

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

enum { R_INIT, R_HEADER, R_IN_DSM };

static uadp_err rfail(uadp_reader *r, uadp_err kind, size_t offset)
{
    if (r->error.kind == UADP_OK) {
        r->error.kind = kind;
        r->error.offset = offset;
    }
    return r->error.kind;
}

static size_t remaining(const uadp_reader *r)
{
    return r->end > r->pos ? r->end - r->pos : 0;
}

/* A read that does not fit: inside a sized part (DataSetMessage Size,
 * PromotedFields size) that ends before the input it runs past that size. */
static uadp_err short_read(uadp_reader *r)
{
    return r->end < r->len ? rfail(r, UADP_ERR_SIZE_MISMATCH, r->end) : rfail(r, UADP_ERR_UNEXPECTED_END, r->len);
}

static uadp_err take(uadp_reader *r, size_t n, const uint8_t **p)
{
    if (n > remaining(r)) {
        return short_read(r);
    }
    *p = r->buf + r->pos;
    r->pos += n;
    return UADP_OK;
}

static uadp_err rd(uadp_reader *r, unsigned n, uint64_t *v)
{
    const uint8_t *p;
    TRY(take(r, n, &p));
    *v = rd_le(p, n);
    return UADP_OK;
}

static uadp_err read_opts(uadp_reader *r, unsigned has, const opt_field *t, unsigned n, void *base)
{
    unsigned i;
    uint64_t v;
    for (i = 0; i < n; i++) {
        if (has & t[i].has) {
            TRY(rd(r, t[i].size, &v));
            opt_store(base, &t[i], v);
        }
    }
    return UADP_OK;
}

static limit_t max_string(const uadp_reader *r)
{
    return r->opts != NULL && r->opts->max_string_len != 0 ? (limit_t)r->opts->max_string_len : DEFAULT_MAX_STRING;
}

static limit_t max_array(const uadp_reader *r)
{
    return r->opts != NULL && r->opts->max_array_len != 0 ? (limit_t)r->opts->max_array_len : DEFAULT_MAX_ARRAY;
}

/* Int32 length (-1 = null) and the bytes; UTF-8 checked for String. */
static uadp_err read_bytes(uadp_reader *r, unsigned type, uadp_scalar *s)
{
    size_t at = r->pos;
    uint64_t v;
    const uint8_t *p;
    TRY(rd(r, 4, &v));
    if (v == 0xffffffffu) {
        s->is_null = 1;
        return UADP_OK;
    }
    if (v & 0x80000000u) {
        return rfail(r, UADP_ERR_INVALID_LENGTH, at);
    }
    if (v > max_string(r)) {
        return rfail(r, UADP_ERR_LENGTH_LIMIT, at);
    }
#if SIZE_MAX < 0xffffffffu
    if (v > remaining(r)) { /* what take() reports; v may not fit in a size_t here */
        return short_read(r);
    }
#endif
    TRY(take(r, (size_t)v, &p));
    if (type == UADP_STRING) {
        size_t ok = wb_utf8_valid_up_to(p, (size_t)v);
        if (ok != (size_t)v) {
            return rfail(r, UADP_ERR_INVALID_UTF8, at + 4 + ok);
        }
    }
    s->v.bytes.ptr = p;
    s->v.bytes.len = (size_t)v;
    return UADP_OK;
}

static uadp_err read_scalar(uadp_reader *r, unsigned type, uadp_scalar *s)
{
    uint64_t v;
    unsigned n = wire_len(type);
    memset(s, 0, sizeof *s);
    s->type = (uint8_t)type;
    if (type == UADP_STRING || type == UADP_BYTESTRING) {
        return read_bytes(r, type, s);
    }
    if (type == UADP_GUID) {
        return take(r, 16, &s->v.guid);
    }
    TRY(rd(r, n, &v));
    if (type == UADP_BOOLEAN) {
        s->v.b = v != 0; /* Part 6 5.2.2.1: any non-zero byte is true */
    } else if (type == UADP_FLOAT) {
        uint32_t b = (uint32_t)v;
        memcpy(&s->v.f32, &b, 4);
    } else if (type == UADP_DOUBLE) {
        memcpy(&s->v.f64_bits, &v, 8); /* the double member, where it exists, shares these bytes */
    } else if (is_signed(type)) {
        s->v.i = sext(v, n);
    } else {
        s->v.u = v;
    }
    return UADP_OK;
}

/* Int32 length (-1 = null array) and that many values of `type`. */
static uadp_err read_array(uadp_reader *r, unsigned type, uadp_variant *v)
{
    size_t at = r->pos, start, i;
    uint64_t n;
    uadp_scalar s;
    v->type = (uint8_t)type;
    v->is_array = 1;
    TRY(rd(r, 4, &n));
    v->elems.ptr = r->buf + r->pos;
    if (n == 0xffffffffu) {
        v->count = -1;
        return UADP_OK;
    }
    if (n & 0x80000000u) {
        return rfail(r, UADP_ERR_INVALID_LENGTH, at);
    }
    if (n > max_array(r) || n > (remaining(r) >> wire_shift(type))) {
        return rfail(r, UADP_ERR_LENGTH_LIMIT, at);
    }
    start = r->pos;
    for (i = 0; i < (size_t)n; i++) {
        TRY(read_scalar(r, type, &s));
    }
    v->count = (int32_t)n;
    v->elems.len = r->pos - start;
    return UADP_OK;
}

static uadp_err check_type(uadp_reader *r, unsigned id, size_t at)
{
    if (supported(id)) {
        return UADP_OK;
    }
    return rfail(r, id >= 16 && id <= 25 ? UADP_ERR_UNSUPPORTED_VARIANT_TYPE : UADP_ERR_INVALID_VARIANT_TYPE, at);
}

static uadp_err read_variant(uadp_reader *r, uadp_variant *v)
{
    size_t at = r->pos;
    uint64_t m;
    unsigned id;
    memset(v, 0, sizeof *v);
    TRY(rd(r, 1, &m));
    id = (unsigned)m & 0x3fu;
    if ((m & 0x80) == 0) {
        if (m & 0x40) {
            return rfail(r, UADP_ERR_INVALID_VARIANT_TYPE, at);
        }
        if (id == 0) {
            return UADP_OK; /* the null Variant */
        }
        TRY(check_type(r, id, at));
        v->type = (uint8_t)id;
        return read_scalar(r, id, &v->scalar);
    }
    if (id == 0) {
        return rfail(r, UADP_ERR_INVALID_VARIANT_TYPE, at);
    }
    TRY(check_type(r, id, at));
    if (m & 0x40) {
        return rfail(r, UADP_ERR_UNSUPPORTED_ARRAY_DIMENSIONS, at);
    }
    return read_array(r, id, v);
}

/* A RawData value of metadata type t (| UADP_ARRAY). */
static uadp_err read_raw(uadp_reader *r, unsigned t, uadp_variant *v)
{
    memset(v, 0, sizeof *v);
    if (t & UADP_ARRAY) {
        return read_array(r, t & 0x7fu, v);
    }
    v->type = (uint8_t)t;
    return read_scalar(r, t, &v->scalar);
}

static uadp_err read_datavalue(uadp_reader *r, uadp_field *f)
{
    size_t at = r->pos;
    uint64_t m;
    TRY(rd(r, 1, &m));
    if (m & 0xc0) {
        return rfail(r, UADP_ERR_RESERVED_FLAGS, at);
    }
    f->is_datavalue = 1;
    f->dv_mask = (uint8_t)m;
    if (m & UADP_DV_VALUE) {
        TRY(read_variant(r, &f->value));
    }
    return read_opts(r, (unsigned)m, DV_OPTS, 5, f);
}

void uadp_reader_init(uadp_reader *r, const void *buf, size_t len, const uadp_decode_options *opts)
{
    memset(r, 0, sizeof *r);
    r->buf = (const uint8_t *)buf;
    r->len = len;
    r->end = len;
    r->opts = opts;
}

uadp_err uadp_read_network_header(uadp_reader *r, uadp_network_header *h)
{
    uint64_t flags, ext1 = 0, ext2 = 0, v;
    size_t ext1_at = 0, at;
    unsigned pubid_type;
    memset(h, 0, sizeof *h);
    h->count = 1;
    if (r->error.kind != UADP_OK) {
        return r->error.kind;
    }
    if (r->state != R_INIT) {
        return rfail(r, UADP_ERR_INVALID_COUNT, r->pos);
    }
    TRY(rd(r, 1, &flags));
    if ((flags & 0x0f) != 1) {
        return rfail(r, UADP_ERR_UNSUPPORTED_VERSION, 0);
    }
    if (flags & 0x80) {
        ext1_at = r->pos;
        TRY(rd(r, 1, &ext1));
    }
    pubid_type = (unsigned)ext1 & 7u;
    if ((flags & 0x10) && pubid_type > 4) {
        return rfail(r, UADP_ERR_RESERVED_PUBLISHER_ID_TYPE, ext1_at);
    }
    if (ext1 & 0x10) {
        return rfail(r, UADP_ERR_SECURITY_UNSUPPORTED, ext1_at);
    }
    if (ext1 & 0x80) {
        at = r->pos;
        TRY(rd(r, 1, &ext2));
        if (ext2 & 0x01) {
            return rfail(r, UADP_ERR_CHUNK_UNSUPPORTED, at);
        }
        if (ext2 & 0xe0) {
            return rfail(r, UADP_ERR_RESERVED_FLAGS, at);
        }
        if ((ext2 >> 2) & 7u) {
            return rfail(r, UADP_ERR_UNSUPPORTED_NETWORK_MESSAGE_TYPE, at);
        }
    }
    if (flags & 0x10) {
        h->has |= UADP_NM_PUBLISHER_ID;
        h->publisher_id_type = (uint8_t)pubid_type;
        if (pubid_type == UADP_PUBID_STRING) {
            uadp_scalar s;
            at = r->pos;
            memset(&s, 0, sizeof s);
            TRY(read_bytes(r, UADP_STRING, &s));
            if (s.is_null) {
                return rfail(r, UADP_ERR_INVALID_LENGTH, at);
            }
            h->publisher_id_str = s.v.bytes;
        } else {
            TRY(rd(r, 1u << pubid_type, &h->publisher_id));
        }
    }
    if (ext1 & 0x08) {
        h->has |= UADP_NM_CLASS_ID;
        TRY(take(r, 16, &h->class_id));
    }
    if (flags & 0x20) {
        at = r->pos;
        TRY(rd(r, 1, &v));
        if (v & 0xf0) {
            return rfail(r, UADP_ERR_RESERVED_FLAGS, at);
        }
        h->has |= UADP_NM_GROUP_HEADER;
        h->group_flags = (uint8_t)v;
        TRY(read_opts(r, (unsigned)v, GROUP_OPTS, 4, h));
    }
    if (flags & 0x40) {
        at = r->pos;
        TRY(rd(r, 1, &v));
        if (v == 0) {
            return rfail(r, UADP_ERR_INVALID_COUNT, at);
        }
        h->has |= UADP_NM_PAYLOAD_HEADER;
        h->count = (uint16_t)v;
        TRY(take(r, 2 * (size_t)v, &h->writer_ids_le));
        r->ids = h->writer_ids_le;
    }
    h->has |= (uint8_t)((ext1 & 0x20 ? UADP_NM_TIMESTAMP : 0u) | (ext1 & 0x40 ? UADP_NM_PICOSECONDS : 0u));
    TRY(read_opts(r, h->has, NM_OPTS, 2, h));
    if (ext2 & 0x02) {
        size_t outer = r->end, start;
        uadp_variant var;
        TRY(rd(r, 2, &v));
        start = r->pos;
        if (v > remaining(r)) {
            return short_read(r);
        }
        r->end = start + (size_t)v;
        while (r->pos < r->end) {
            TRY(read_variant(r, &var));
            h->promoted_count++;
        }
        r->end = outer;
        h->has |= UADP_NM_PROMOTED_FIELDS;
        h->promoted.ptr = r->buf + start;
        h->promoted.len = (size_t)v;
        r->promoted_pos = start;
        r->promoted_end = start + (size_t)v;
    }
    if ((h->has & UADP_NM_PAYLOAD_HEADER) && h->count > 1) {
        TRY(take(r, 2 * (size_t)h->count, &r->sizes));
    }
    r->count = h->count;
    r->done = 0;
    r->state = R_HEADER;
    return UADP_OK;
}

uadp_err uadp_next_promoted(uadp_reader *r, uadp_variant *v)
{
    uadp_reader t;
    uadp_err e;
    if (r->error.kind != UADP_OK) {
        return r->error.kind;
    }
    if (r->promoted_pos >= r->promoted_end) {
        return rfail(r, UADP_ERR_INVALID_COUNT, r->pos);
    }
    t = *r;
    t.pos = r->promoted_pos;
    t.end = r->promoted_end;
    e = read_variant(&t, v);
    r->promoted_pos = t.pos;
    return e == UADP_OK ? UADP_OK : rfail(r, e, t.error.offset);
}

uadp_err uadp_array_next(const uadp_variant *v, size_t *offset, uadp_scalar *out)
{
    uadp_reader t;
    uadp_decode_options o;
    memset(&o, 0, sizeof o);
    o.max_string_len = (size_t)-1;
    uadp_reader_init(&t, v->elems.ptr, v->elems.len, &o);
    t.pos = *offset;
    if (!v->is_array || t.pos >= t.len) {
        return UADP_ERR_UNEXPECTED_END;
    }
    TRY(read_scalar(&t, v->type, out));
    *offset = t.pos;
    return UADP_OK;
}

static const uadp_metadata *find_meta(const uadp_reader *r, int has_writer, uint16_t writer)
{
    size_t i;
    if (r->opts == NULL || r->opts->meta == NULL) {
        return NULL;
    }
    if (has_writer) {
        for (i = 0; i < r->opts->meta_count; i++) {
            if (r->opts->meta[i].writer_id == (int32_t)writer) {
                return &r->opts->meta[i];
            }
        }
    }
    for (i = 0; i < r->opts->meta_count; i++) {
        if (r->opts->meta[i].writer_id < 0) {
            return &r->opts->meta[i];
        }
    }
    return NULL;
}

static bool meta_ok(const uadp_metadata *m)
{
    size_t i;
    if (m->count != 0 && m->types == NULL) {
        return false;
    }
    for (i = 0; i < m->count; i++) {
        if (!supported(m->types[i] & 0x7fu)) {
            return false;
        }
    }
    return true;
}

uadp_err uadp_next_dsm(uadp_reader *r, uadp_dsm_header *d)
{
    size_t start, f2_at, at;
    uint64_t f1, f2 = 0, v;
    unsigned enc, type;
    memset(d, 0, sizeof *d);
    if (r->error.kind != UADP_OK) {
        return r->error.kind;
    }
    if (r->state == R_IN_DSM) {
        TRY(uadp_end_dsm_read(r, NULL));
    }
    if (r->state != R_HEADER || r->done >= r->count) {
        return rfail(r, UADP_ERR_INVALID_COUNT, r->pos);
    }
    if (r->sizes != NULL) {
        size_t size = (size_t)rd_le(r->sizes + 2 * (size_t)r->done, 2);
        if (size > remaining(r)) {
            return short_read(r);
        }
        r->end = r->pos + size;
    }
    start = r->pos;
    f2_at = start;
    TRY(rd(r, 1, &f1));
    if (f1 & 0x80) {
        f2_at = r->pos;
        TRY(rd(r, 1, &f2));
        if (f2 & 0xc0) {
            return rfail(r, UADP_ERR_RESERVED_FLAGS, f2_at);
        }
    }
    d->valid = (uint8_t)(f1 & 1u);
    enc = (unsigned)(f1 >> 1) & 3u;
    type = (unsigned)f2 & 0x0fu;
    d->field_encoding = (uint8_t)enc;
    d->message_type = (uint8_t)type;
    d->has = (uint8_t)(((f1 >> 3) & 1u) | ((f2 >> 4) & 3u) << 1 | ((f1 >> 4) & 7u) << 3);
    TRY(read_opts(r, d->has, DSM_OPTS, 6, d));
    r->state = R_IN_DSM;
    r->done++;
    r->enc = (uint8_t)enc;
    r->type = (uint8_t)type;
    r->meta = NULL;
    r->fields_left = 0;
    r->field_index = 0;
    if (enc == UADP_ENC_RESERVED || (type != UADP_MSG_KEY_FRAME && type != UADP_MSG_DELTA_FRAME &&
                                     type != UADP_MSG_KEEP_ALIVE)) {
        if (r->opts != NULL && r->opts->skip_unknown) {
            size_t n = remaining(r);
            d->skipped = true;
            d->data.len = n;
            return take(r, n, &d->data.ptr);
        }
        return enc == UADP_ENC_RESERVED ? rfail(r, UADP_ERR_RESERVED_FIELD_ENCODING, start)
                                        : rfail(r, UADP_ERR_UNSUPPORTED_MESSAGE_TYPE, f2_at);
    }
    if (enc == UADP_ENC_RAWDATA && type != UADP_MSG_KEEP_ALIVE) {
        size_t i = (size_t)r->done - 1u;
        r->meta = find_meta(r, r->ids != NULL, r->ids != NULL ? (uint16_t)rd_le(r->ids + 2 * i, 2) : 0);
        if (r->meta == NULL || !meta_ok(r->meta)) {
            return rfail(r, UADP_ERR_MISSING_METADATA, start);
        }
        d->meta = r->meta;
    }
    if (type == UADP_MSG_KEY_FRAME) {
        if (r->meta != NULL) {
            r->fields_left = r->meta->count;
        } else {
            at = r->pos;
            TRY(rd(r, 2, &v));
            if (v > remaining(r)) {
                return rfail(r, UADP_ERR_LENGTH_LIMIT, at);
            }
            r->fields_left = (size_t)v;
        }
    } else if (type == UADP_MSG_DELTA_FRAME) {
        at = r->pos;
        TRY(rd(r, 2, &v));
        if ((uint32_t)v * 3u > remaining(r)) { /* v <= 65535: no overflow */
            return rfail(r, UADP_ERR_LENGTH_LIMIT, at);
        }
        r->fields_left = (size_t)v;
    }
    d->field_count = r->fields_left;
    return UADP_OK;
}

uadp_err uadp_next_field(uadp_reader *r, uadp_field *f)
{
    size_t index;
    memset(f, 0, sizeof *f);
    if (r->error.kind != UADP_OK) {
        return r->error.kind;
    }
    if (r->state != R_IN_DSM || r->fields_left == 0) {
        return rfail(r, UADP_ERR_INVALID_COUNT, r->pos);
    }
    index = r->field_index;
    if (r->type == UADP_MSG_DELTA_FRAME) {
        size_t at = r->pos;
        uint64_t v;
        TRY(rd(r, 2, &v));
        f->index = (uint16_t)v;
        index = (size_t)v;
        if (r->meta != NULL && index >= r->meta->count) {
            return rfail(r, UADP_ERR_MISSING_METADATA, at);
        }
    }
    if (r->meta != NULL) {
        TRY(read_raw(r, r->meta->types[index], &f->value));
    } else if (r->enc == UADP_ENC_DATAVALUE) {
        TRY(read_datavalue(r, f));
    } else {
        TRY(read_variant(r, &f->value));
    }
    r->fields_left--;
    r->field_index++;
    return UADP_OK;
}

uadp_err uadp_end_dsm_read(uadp_reader *r, size_t *padding)
{
    uadp_field f;
    size_t pad = 0;
    if (r->error.kind != UADP_OK) {
        return r->error.kind;
    }
    if (r->state != R_IN_DSM) {
        return rfail(r, UADP_ERR_INVALID_COUNT, r->pos);
    }
    while (r->fields_left > 0) {
        TRY(uadp_next_field(r, &f));
    }
    if (r->sizes != NULL) {
        /* whatever is left of the declared size must be zero padding */
        size_t i;
        pad = remaining(r);
        for (i = 0; i < pad; i++) {
            if (r->buf[r->pos + i] != 0) {
                return rfail(r, UADP_ERR_SIZE_MISMATCH, r->pos + i);
            }
        }
        r->pos += pad;
        r->end = r->len;
    }
    r->state = R_HEADER;
    if (padding != NULL) {
        *padding = pad;
    }
    return UADP_OK;
}

uadp_err uadp_finish(uadp_reader *r, bool exact, size_t *consumed)
{
    if (consumed != NULL) {
        *consumed = 0;
    }
    if (r->error.kind == UADP_OK && r->state == R_INIT) {
        uadp_network_header h;
        TRY(uadp_read_network_header(r, &h));
    }
    if (r->error.kind == UADP_OK && r->state == R_IN_DSM) {
        TRY(uadp_end_dsm_read(r, NULL));
    }
    while (r->error.kind == UADP_OK && r->done < r->count) {
        uadp_dsm_header d;
        TRY(uadp_next_dsm(r, &d));
        TRY(uadp_end_dsm_read(r, NULL));
    }
    if (r->error.kind != UADP_OK) {
        return r->error.kind;
    }
    if (exact && r->pos != r->len) {
        return rfail(r, UADP_ERR_TRAILING_BYTES, r->pos);
    }
    if (consumed != NULL) {
        *consumed = r->pos;
    }
    return UADP_OK;
}

uadp_err uadp_validate(const void *buf, size_t len, const uadp_decode_options *opts, bool exact,
                       size_t *consumed, uadp_error *err)
{
    uadp_reader r;
    uadp_err e;
    uadp_reader_init(&r, buf, len, opts);
    e = uadp_finish(&r, exact, consumed);
    if (err != NULL) {
        *err = r.error;
    }
    return e;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

enum { W_INIT, W_PROMOTED, W_BETWEEN, W_IN_DSM, W_DONE };
#define W_OTHER 0xffu /* w->type of a message written as bytes (reserved / other type) */

static uadp_err wfail(uadp_writer *w, uadp_err kind, size_t offset)
{
    if (w->error.kind == UADP_OK) {
        w->error.kind = kind;
        w->error.offset = offset;
    }
    return w->error.kind;
}

static uadp_err put(uadp_writer *w, const void *p, size_t n)
{
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->buf != NULL) {
        if (n > w->cap - w->pos) {
            return wfail(w, UADP_ERR_BUFFER_TOO_SMALL, w->pos);
        }
        if (n != 0) {
            memcpy(w->buf + w->pos, p, n);
        }
    }
    w->pos += n;
    return UADP_OK;
}

static uadp_err put_le(uadp_writer *w, uint64_t v, unsigned n)
{
    uint8_t b[8];
    wr_le(b, v, n);
    return put(w, b, n);
}

static uadp_err write_opts(uadp_writer *w, unsigned has, const opt_field *t, unsigned n, const void *base)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        if (has & t[i].has) {
            TRY(put_le(w, opt_load(base, &t[i]), t[i].size));
        }
    }
    return UADP_OK;
}

/* Zero bytes, one at a time as far as they fit (as the Rust encoder). */
static uadp_err put_zeros(uadp_writer *w, size_t n)
{
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->buf != NULL) {
        size_t room = w->cap - w->pos;
        memset(w->buf + w->pos, 0, n < room ? n : room);
        if (n > room) {
            w->pos += room;
            return wfail(w, UADP_ERR_BUFFER_TOO_SMALL, w->pos);
        }
    }
    w->pos += n;
    return UADP_OK;
}

static void patch_u16(uadp_writer *w, size_t at, size_t v)
{
    if (w->buf != NULL) {
        wr_le(w->buf + at, v, 2);
    }
}

void uadp_writer_init(uadp_writer *w, void *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = (uint8_t *)buf;
    w->cap = buf != NULL ? cap : 0;
    w->sizes_at = NONE;
    w->slot_at = NONE;
}

size_t uadp_writer_pos(const uadp_writer *w)
{
    return w->pos;
}

static uadp_err put_bytes(uadp_writer *w, const uint8_t *p, size_t len)
{
    if (SIZE_ABOVE_I32(len)) {
        return wfail(w, UADP_ERR_LENGTH_LIMIT, w->pos);
    }
    TRY(put_le(w, len, 4));
    return put(w, p, len);
}

/* A value without its type byte. */
static uadp_err put_scalar(uadp_writer *w, const uadp_scalar *s)
{
    unsigned t = s->type;
    switch (t) {
    case UADP_STRING:
    case UADP_BYTESTRING:
        if (s->is_null) {
            return put_le(w, 0xffffffffu, 4);
        }
        return put_bytes(w, s->v.bytes.ptr, s->v.bytes.len);
    case UADP_GUID:
        if (s->v.guid == NULL) {
            return wfail(w, UADP_ERR_TYPE_MISMATCH, w->pos);
        }
        return put(w, s->v.guid, 16);
    case UADP_BOOLEAN: return put_le(w, s->v.b ? 1u : 0u, 1);
    case UADP_FLOAT: {
        uint32_t b;
        memcpy(&b, &s->v.f32, 4);
        return put_le(w, b, 4);
    }
    case UADP_DOUBLE: {
        uint64_t b;
        memcpy(&b, &s->v.f64_bits, 8);
        return put_le(w, b, 8);
    }
    default:
        if (!supported(t)) {
            return wfail(w, UADP_ERR_TYPE_MISMATCH, w->pos);
        }
        return put_le(w, is_signed(t) ? (uint64_t)s->v.i : s->v.u, wire_len(t));
    }
}

/* Array body: Int32 count (-1 = null array), then the elements. */
static uadp_err put_array(uadp_writer *w, const uadp_variant *v)
{
    int32_t i;
    if (v->count < 0) {
        return put_le(w, 0xffffffffu, 4);
    }
    TRY(put_le(w, (uint32_t)v->count, 4));
    if (v->items == NULL) {
        size_t k;
        if (v->type != UADP_BOOLEAN) {
            return put(w, v->elems.ptr, v->elems.len);
        }
        for (k = 0; k < v->elems.len; k++) { /* canonical Booleans, as scalars */
            TRY(put_le(w, v->elems.ptr[k] != 0, 1));
        }
        return UADP_OK;
    }
    for (i = 0; i < v->count; i++) {
        if (v->items[i].type != v->type) {
            return wfail(w, UADP_ERR_TYPE_MISMATCH, w->pos);
        }
        TRY(put_scalar(w, &v->items[i]));
    }
    return UADP_OK;
}

/* A Variant: type byte (| 0x80 for arrays), then the value. */
static uadp_err put_variant(uadp_writer *w, const uadp_variant *v)
{
    if (v->type == 0) {
        return put_le(w, 0, 1);
    }
    if (!supported(v->type) || (!v->is_array && v->scalar.type != v->type)) {
        return wfail(w, UADP_ERR_TYPE_MISMATCH, w->pos);
    }
    TRY(put_le(w, v->type | (v->is_array ? 0x80u : 0u), 1));
    return v->is_array ? put_array(w, v) : put_scalar(w, &v->scalar);
}

/* A RawData value: the Variant without its type byte. */
static uadp_err put_raw(uadp_writer *w, const uadp_variant *v)
{
    if (v->type == 0 || !supported(v->type) || (!v->is_array && v->scalar.type != v->type)) {
        return wfail(w, UADP_ERR_TYPE_MISMATCH, w->pos);
    }
    return v->is_array ? put_array(w, v) : put_scalar(w, &v->scalar);
}

static uadp_err put_datavalue(uadp_writer *w, const uadp_field *f)
{
    unsigned m = f->dv_mask & 0x3fu;
    TRY(put_le(w, m, 1));
    if (m & UADP_DV_VALUE) {
        TRY(put_variant(w, &f->value));
    }
    return write_opts(w, m, DV_OPTS, 5, f);
}

static uadp_err reserve_sizes(uadp_writer *w)
{
    uint16_t i;
    w->state = W_BETWEEN;
    if (w->sizes_at == 0) { /* marker set by the header: Count > 1 */
        w->sizes_at = w->pos;
        for (i = 0; i < w->count; i++) {
            TRY(put_le(w, 0, 2));
        }
    }
    return UADP_OK;
}

uadp_err uadp_write_network_header(uadp_writer *w, const uadp_network_header *h)
{
    unsigned ext1 = 0, ext2 = 0, flags = 0x01, has = h->has, i;
    bool ph = (has & UADP_NM_PAYLOAD_HEADER) != 0;
    unsigned count = ph ? h->count : 1u;
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->state != W_INIT) {
        return wfail(w, UADP_ERR_INVALID_COUNT, w->pos);
    }
    if (ph && (count == 0 || count > 255 || (h->writer_ids == NULL && h->writer_ids_le == NULL))) {
        return wfail(w, UADP_ERR_INVALID_COUNT, 0);
    }
    if ((has & UADP_NM_PUBLISHER_ID) && h->publisher_id_type > UADP_PUBID_STRING) {
        return wfail(w, UADP_ERR_RESERVED_PUBLISHER_ID_TYPE, 0);
    }
    if ((has & UADP_NM_CLASS_ID) && h->class_id == NULL) {
        return wfail(w, UADP_ERR_TYPE_MISMATCH, 0);
    }
    if (has & UADP_NM_PROMOTED_FIELDS) {
        ext2 |= 0x02;
    }
    if (has & UADP_NM_PUBLISHER_ID) {
        ext1 = h->publisher_id_type;
        flags |= 0x10;
    }
    ext1 |= (has & UADP_NM_CLASS_ID ? 0x08u : 0u) | (has & UADP_NM_TIMESTAMP ? 0x20u : 0u) |
            (has & UADP_NM_PICOSECONDS ? 0x40u : 0u) | (ext2 ? 0x80u : 0u);
    flags |= (has & UADP_NM_GROUP_HEADER ? 0x20u : 0u) | (ph ? 0x40u : 0u) | (ext1 ? 0x80u : 0u);
    TRY(put_le(w, flags, 1));
    if (ext1) {
        TRY(put_le(w, ext1, 1));
    }
    if (ext2) {
        TRY(put_le(w, ext2, 1));
    }
    if (has & UADP_NM_PUBLISHER_ID) {
        if (h->publisher_id_type == UADP_PUBID_STRING) {
            TRY(put_bytes(w, h->publisher_id_str.ptr, h->publisher_id_str.len));
        } else {
            TRY(put_le(w, h->publisher_id, 1u << h->publisher_id_type));
        }
    }
    if (has & UADP_NM_CLASS_ID) {
        TRY(put(w, h->class_id, 16));
    }
    if (has & UADP_NM_GROUP_HEADER) {
        unsigned g = h->group_flags & 0x0fu;
        TRY(put_le(w, g, 1));
        TRY(write_opts(w, g, GROUP_OPTS, 4, h));
    }
    if (ph) {
        TRY(put_le(w, count, 1));
        for (i = 0; i < count; i++) {
            TRY(put_le(w, uadp_writer_id(h, i), 2));
        }
    }
    TRY(write_opts(w, has, NM_OPTS, 2, h));
    w->count = (uint16_t)count;
    w->done = 0;
    w->sizes_at = ph && count > 1 ? 0 : NONE;
    if (has & UADP_NM_PROMOTED_FIELDS) {
        w->slot_at = w->pos;
        w->state = W_PROMOTED;
        return put_le(w, 0, 2);
    }
    return reserve_sizes(w);
}

static uadp_err close_promoted(uadp_writer *w)
{
    size_t size = w->pos - w->slot_at - 2;
    if (size > 0xffffu) {
        return wfail(w, UADP_ERR_LENGTH_LIMIT, w->slot_at);
    }
    patch_u16(w, w->slot_at, size);
    w->slot_at = NONE;
    return reserve_sizes(w);
}

uadp_err uadp_begin_dsm(uadp_writer *w, const uadp_dsm_header *d)
{
    unsigned enc = d->field_encoding & 3u, type = d->message_type & 0x0fu, has = d->has;
    unsigned f1, f2;
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->state == W_PROMOTED) {
        TRY(close_promoted(w));
    }
    if (w->state == W_IN_DSM) {
        TRY(uadp_end_dsm(w, 0));
    }
    if (w->state != W_BETWEEN) {
        return wfail(w, UADP_ERR_INVALID_COUNT, w->pos);
    }
    if (w->done >= w->count) {
        return wfail(w, UADP_ERR_INVALID_COUNT, 0);
    }
    w->dsm_start = w->pos;
    f2 = type | ((has >> 1) & 3u) << 4;
    f1 = (d->valid ? 1u : 0u) | enc << 1 | (has & 1u) << 3 | ((has >> 3) & 7u) << 4 | (f2 ? 0x80u : 0u);
    TRY(put_le(w, f1, 1));
    if (f2) {
        TRY(put_le(w, f2, 1));
    }
    TRY(write_opts(w, has, DSM_OPTS, 6, d));
    w->enc = (uint8_t)enc;
    w->type = (uint8_t)type;
    w->fields = 0;
    w->slot_at = NONE;
    w->state = W_IN_DSM;
    w->done++;
    if (enc == UADP_ENC_RESERVED ||
        (type != UADP_MSG_KEY_FRAME && type != UADP_MSG_DELTA_FRAME && type != UADP_MSG_KEEP_ALIVE)) {
        w->type = W_OTHER;
        return put(w, d->data.ptr, d->data.len);
    }
    if (type == UADP_MSG_DELTA_FRAME || (type == UADP_MSG_KEY_FRAME && enc != UADP_ENC_RAWDATA)) {
        w->slot_at = w->pos; /* FieldCount, filled in by uadp_end_dsm */
        return put_le(w, 0, 2);
    }
    return UADP_OK;
}

uadp_err uadp_write_field(uadp_writer *w, const uadp_field *f)
{
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->state != W_IN_DSM || w->type == W_OTHER || w->type == UADP_MSG_KEEP_ALIVE) {
        return wfail(w, UADP_ERR_FIELD_ENCODING_MISMATCH, w->pos);
    }
    if (w->type == UADP_MSG_DELTA_FRAME) {
        TRY(put_le(w, f->index, 2));
    }
    if ((w->enc == UADP_ENC_DATAVALUE) != (f->is_datavalue != 0)) {
        return wfail(w, UADP_ERR_FIELD_ENCODING_MISMATCH, w->pos);
    }
    if (w->enc == UADP_ENC_DATAVALUE) {
        TRY(put_datavalue(w, f));
    } else if (w->enc == UADP_ENC_RAWDATA) {
        TRY(put_raw(w, &f->value));
    } else {
        TRY(put_variant(w, &f->value));
    }
    w->fields++;
    return UADP_OK;
}

uadp_err uadp_write_variant(uadp_writer *w, const uadp_variant *v)
{
    uadp_field f;
    if (w->error.kind == UADP_OK && w->state == W_PROMOTED) {
        return put_variant(w, v);
    }
    memset(&f, 0, sizeof f);
    f.value = *v;
    return uadp_write_field(w, &f);
}

uadp_err uadp_write_scalar(uadp_writer *w, const uadp_scalar *s)
{
    /* a key-frame field of a Variant / RawData message, without the generic path */
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->state != W_IN_DSM || w->type != UADP_MSG_KEY_FRAME || w->enc == UADP_ENC_DATAVALUE) {
        return wfail(w, UADP_ERR_FIELD_ENCODING_MISMATCH, w->pos);
    }
    if (!supported(s->type)) {
        return wfail(w, UADP_ERR_TYPE_MISMATCH, w->pos);
    }
    if (w->enc == UADP_ENC_VARIANT) {
        TRY(put_le(w, s->type, 1));
    }
    TRY(put_scalar(w, s));
    w->fields++;
    return UADP_OK;
}

/* Integer-valued scalar shorthands (bits = the value, sign-extended for
 * signed types). */
static uadp_err write_num(uadp_writer *w, unsigned type, uint64_t bits)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = (uint8_t)type;
    if (is_signed(type)) {
        s.v.i = (int64_t)bits;
    } else {
        s.v.u = bits;
    }
    return uadp_write_scalar(w, &s);
}

uadp_err uadp_write_bool(uadp_writer *w, bool v)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = UADP_BOOLEAN;
    s.v.b = v;
    return uadp_write_scalar(w, &s);
}

uadp_err uadp_write_i8(uadp_writer *w, int8_t v) { return write_num(w, UADP_SBYTE, (uint64_t)(int64_t)v); }
uadp_err uadp_write_u8(uadp_writer *w, uint8_t v) { return write_num(w, UADP_BYTE, v); }
uadp_err uadp_write_i16(uadp_writer *w, int16_t v) { return write_num(w, UADP_INT16, (uint64_t)(int64_t)v); }
uadp_err uadp_write_u16(uadp_writer *w, uint16_t v) { return write_num(w, UADP_UINT16, v); }
uadp_err uadp_write_i32(uadp_writer *w, int32_t v) { return write_num(w, UADP_INT32, (uint64_t)(int64_t)v); }
uadp_err uadp_write_u32(uadp_writer *w, uint32_t v) { return write_num(w, UADP_UINT32, v); }
uadp_err uadp_write_i64(uadp_writer *w, int64_t v) { return write_num(w, UADP_INT64, (uint64_t)v); }
uadp_err uadp_write_u64(uadp_writer *w, uint64_t v) { return write_num(w, UADP_UINT64, v); }
uadp_err uadp_write_datetime(uadp_writer *w, int64_t ticks) { return write_num(w, UADP_DATETIME, (uint64_t)ticks); }
uadp_err uadp_write_statuscode(uadp_writer *w, uint32_t code) { return write_num(w, UADP_STATUSCODE, code); }

uadp_err uadp_write_f32(uadp_writer *w, float v)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = UADP_FLOAT;
    s.v.f32 = v;
    return uadp_write_scalar(w, &s);
}

#if UADP_HAS_DOUBLE
uadp_err uadp_write_f64(uadp_writer *w, double v)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = UADP_DOUBLE;
    s.v.f64 = v;
    return uadp_write_scalar(w, &s);
}
#endif

uadp_err uadp_write_f32_bits(uadp_writer *w, uint32_t bits)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = UADP_FLOAT;
    s.v.f32_bits = bits;
    return uadp_write_scalar(w, &s);
}

uadp_err uadp_write_f64_bits(uadp_writer *w, uint64_t bits)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = UADP_DOUBLE;
    s.v.f64_bits = bits;
    return uadp_write_scalar(w, &s);
}

static uadp_err write_blob(uadp_writer *w, unsigned type, const void *p, size_t len)
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = (uint8_t)type;
    s.v.bytes.ptr = (const uint8_t *)p;
    s.v.bytes.len = len;
    return uadp_write_scalar(w, &s);
}

uadp_err uadp_write_string(uadp_writer *w, const char *s, size_t len) { return write_blob(w, UADP_STRING, s, len); }
uadp_err uadp_write_bytestring(uadp_writer *w, const void *p, size_t len) { return write_blob(w, UADP_BYTESTRING, p, len); }

uadp_err uadp_write_guid(uadp_writer *w, const uint8_t guid[16])
{
    uadp_scalar s;
    memset(&s, 0, sizeof s);
    s.type = UADP_GUID;
    s.v.guid = guid;
    return uadp_write_scalar(w, &s);
}

uadp_err uadp_end_dsm(uadp_writer *w, size_t padding)
{
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->state != W_IN_DSM) {
        return wfail(w, UADP_ERR_INVALID_COUNT, w->pos);
    }
    if (padding != 0 && w->sizes_at == NONE) {
        return wfail(w, UADP_ERR_INVALID_PADDING, 0);
    }
    TRY(put_zeros(w, padding));
    if (w->slot_at != NONE) {
        if (w->fields > 0xffffu) {
            return wfail(w, UADP_ERR_LENGTH_LIMIT, w->slot_at);
        }
        patch_u16(w, w->slot_at, w->fields);
        w->slot_at = NONE;
    }
    if (w->sizes_at != NONE) {
        size_t size = w->pos - w->dsm_start;
        if (size > 0xffffu) {
            return wfail(w, UADP_ERR_LENGTH_LIMIT, w->dsm_start);
        }
        patch_u16(w, w->sizes_at + 2 * (size_t)(w->done - 1u), size);
    }
    w->state = W_BETWEEN;
    return UADP_OK;
}

uadp_err uadp_end_network(uadp_writer *w, size_t *len)
{
    if (len != NULL) {
        *len = 0;
    }
    if (w->error.kind == UADP_OK && w->state == W_PROMOTED) {
        TRY(close_promoted(w));
    }
    if (w->error.kind == UADP_OK && w->state == W_IN_DSM) {
        TRY(uadp_end_dsm(w, 0));
    }
    if (w->error.kind != UADP_OK) {
        return w->error.kind;
    }
    if (w->state != W_BETWEEN || w->done != w->count) {
        return wfail(w, UADP_ERR_INVALID_COUNT, 0);
    }
    w->state = W_DONE;
    if (len != NULL) {
        *len = w->pos;
    }
    return UADP_OK;
}

/* ------------------------------------------------------------------ */
/* Sizes (a counting writer)                                            */
/* ------------------------------------------------------------------ */

size_t uadp_len_network_header(const uadp_network_header *h)
{
    uadp_writer w;
    uadp_writer_init(&w, NULL, 0);
    if (uadp_write_network_header(&w, h) != UADP_OK) {
        return 0;
    }
    /* with PromotedFields the Sizes array follows the fields */
    return w.pos + (w.state == W_PROMOTED && w.sizes_at == 0 ? 2u * w.count : 0u);
}

size_t uadp_len_dsm_header(const uadp_dsm_header *d)
{
    uadp_writer w;
    uadp_writer_init(&w, NULL, 0);
    w.state = W_BETWEEN;
    w.count = 1;
    return uadp_begin_dsm(&w, d) == UADP_OK ? w.pos : 0;
}

size_t uadp_len_scalar(const uadp_scalar *s, bool raw)
{
    uadp_writer w;
    uadp_writer_init(&w, NULL, 0);
    if (!raw) {
        w.pos = 1;
    }
    return put_scalar(&w, s) == UADP_OK ? w.pos : 0;
}

size_t uadp_len_variant(const uadp_variant *v, bool raw)
{
    uadp_writer w;
    uadp_writer_init(&w, NULL, 0);
    return (raw ? put_raw(&w, v) : put_variant(&w, v)) == UADP_OK ? w.pos : 0;
}

size_t uadp_len_field(const uadp_field *f, unsigned field_encoding, unsigned message_type)
{
    uadp_writer w;
    uadp_writer_init(&w, NULL, 0);
    w.state = W_IN_DSM;
    w.enc = (uint8_t)(field_encoding & 3u);
    w.type = (uint8_t)message_type;
    return uadp_write_field(&w, f) == UADP_OK ? w.pos : 0;
}
