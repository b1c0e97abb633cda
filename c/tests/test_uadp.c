/*
 * test_uadp.c - tests of the C UADP codec.
 *
 *  1. every UADP entry of vectors/uadp.json (build/uadp_vectors.h, made by
 *     gen_uadp_vectors.py): spec-valid entries decode exactly (RawData with
 *     the metadata the Rust test derives; reserved encodings / event types
 *     retried with skip_unknown) or are refused with an "unsupported" kind,
 *     and re-encode byte-identically (also counting only, and at every
 *     too-small capacity: buffer_too_small, nothing written past cap);
 *     spec-invalid entries fail (kind + offset where known); every prefix of
 *     every entry fails cleanly;
 *  2. the crafted error cases of crates/uadp/tests/errors.rs (kind + offset),
 *     skip_unknown, and the encoder errors;
 *  3. the seed layout: 39 + 5N bytes for N Float/Int32 Variant fields, the
 *     exact bytes of shared/specs/uadp.md section 2, the *_len functions;
 *     the smallest-header message as the Rust CLI encodes it;
 *  4. a message with every feature, built, decoded (values compared) and
 *     re-encoded; the writer and the size functions agree;
 *  5. truncations, random mutations and random inputs never crash, and
 *     whatever decodes re-encodes to a fixed point.
 *
 * Exit status 0 iff every check passed.
 */
#include "uadp.h"
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uadp_reencode.h"

typedef struct uadp_vec {
    const char *name;
    const uint8_t *bytes;
    size_t len;
    int spec; /* 1 valid, 0 invalid, -1 other */
    const uadp_metadata *meta;
    size_t meta_count;
    uadp_err expect_kind; /* UADP_OK: not known */
    long expect_offset;
    const char *gen_error;
} uadp_vec;

#include "uadp_vectors.h"

/* ------------------------------------------------------------------ */
/* Harness                                                              */
/* ------------------------------------------------------------------ */



typedef struct bytes_t {
    uint8_t b[600];
    size_t n;
} bytes_t;


static bytes_t B(const char *hex)
{
    bytes_t x;
    x.n = unhex(hex, x.b);
    return x;
}

static bytes_t cat(bytes_t a, const uint8_t *p, size_t n)
{
    memcpy(a.b + a.n, p, n);
    a.n += n;
    return a;
}

static bytes_t slice(bytes_t a, size_t from, size_t to)
{
    bytes_t x;
    x.n = to - from;
    memcpy(x.b, a.b + from, x.n);
    return x;
}

static bytes_t with(bytes_t a, size_t at, uint8_t v)
{
    a.b[at] = v;
    return a;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ------------------------------------------------------------------ */
/* Message builders                                                     */
/* ------------------------------------------------------------------ */

static const char SEED_HEADER[] = "d10c0b00000045535033322d42656e63689497e7eaf71a964f84014096cd1d890801e803";
static const char *const SEED_FIELDS[10] = {"0a0000cc41", "0a00507d44", "062a000000", "0a00007242", "06f9ffffff",
                                            "0a00005040", "0a000020c2", "06a0860100", "0a0000003e", "0600000000"};
static const uint8_t SEED_CLASS[16] = {0x94, 0x97, 0xe7, 0xea, 0xf7, 0x1a, 0x96, 0x4f,
                                       0x84, 0x01, 0x40, 0x96, 0xcd, 0x1d, 0x89, 0x08};

static void seed_header(uadp_network_header *h, const uint16_t *ids, uint16_t count)
{
    memset(h, 0, sizeof *h);
    h->has = UADP_NM_PUBLISHER_ID | UADP_NM_CLASS_ID | UADP_NM_PAYLOAD_HEADER;
    h->publisher_id_type = UADP_PUBID_STRING;
    h->publisher_id_str.ptr = (const uint8_t *)"ESP32-Bench";
    h->publisher_id_str.len = 11;
    h->class_id = SEED_CLASS;
    h->count = count;
    h->writer_ids = ids;
}

static void seed_field(uadp_writer *w, int k)
{
    static const float f[10] = {25.5f, 1013.25f, 0, 60.5f, 0, 3.25f, -40.0f, 0, 0.125f, 0};
    static const int32_t i[10] = {0, 0, 42, 0, -7, 0, 0, 100000, 0, 0};
    static const int is_int[10] = {0, 0, 1, 0, 1, 0, 0, 1, 0, 1};
    if (is_int[k % 10]) {
        uadp_write_i32(w, i[k % 10]);
    } else {
        uadp_write_f32(w, f[k % 10]);
    }
}

/* The seed layout with n fields; returns the length (0 on error). */
static size_t build_seed(uint8_t *buf, size_t cap, int n, uadp_error *err)
{
    static const uint16_t ids[1] = {1000};
    uadp_writer w;
    uadp_network_header h;
    uadp_dsm_header d;
    size_t len = 0;
    int k;
    seed_header(&h, ids, 1);
    memset(&d, 0, sizeof d);
    d.valid = 1;
    uadp_writer_init(&w, buf, cap);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    for (k = 0; k < n; k++) {
        seed_field(&w, k);
    }
    uadp_end_network(&w, &len);
    if (err) {
        *err = w.error;
    }
    return len;
}

static bytes_t seed_bytes(int n)
{
    bytes_t x;
    uadp_error e;
    x.n = build_seed(x.b, sizeof x.b, n, &e);
    return x;
}

/* seed(3) and a second DataSetMessage with seed field 0 (writers 1000, 1001). */
static bytes_t two_bytes(void)
{
    static const uint16_t ids[2] = {1000, 1001};
    bytes_t x;
    uadp_writer w;
    uadp_network_header h;
    uadp_dsm_header d;
    seed_header(&h, ids, 2);
    memset(&d, 0, sizeof d);
    d.valid = 1;
    uadp_writer_init(&w, x.b, sizeof x.b);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    seed_field(&w, 0);
    seed_field(&w, 1);
    seed_field(&w, 2);
    uadp_end_dsm(&w, 0);
    uadp_begin_dsm(&w, &d);
    seed_field(&w, 0);
    uadp_end_network(&w, &x.n);
    return x;
}

/* ------------------------------------------------------------------ */
/* 1. vectors                                                           */
/* ------------------------------------------------------------------ */

static void roundtrip_checks(const uint8_t *in, size_t len, const uadp_decode_options *o, const char *name)
{
    uint8_t *out = (uint8_t *)malloc(len + 16);
    size_t n = 0, cap;
    uadp_error de, ee;
    uadp_err e;
    if (!out) {
        exit(3);
    }
    e = uadp_reencode(in, len, o, true, out, len + 16, &n, &de, &ee);
    CHECK(e == UADP_OK && n == len && memcmp(out, in, len) == 0, "%s: re-encode %s (%s at %zu / %s at %zu):\n  in  %s\n  out %s",
          name, uadp_err_name(e), uadp_err_name(de.kind), de.offset, uadp_err_name(ee.kind), ee.offset,
          hexs(in, len), hexs(out, n));
    e = uadp_reencode(in, len, o, true, NULL, 0, &n, &de, &ee);
    CHECK(e == UADP_OK && n == len, "%s: counting writer %zu, want %zu", name, n, len);
    for (cap = 0; cap < len; cap++) {
        memset(out, 0xa5, len + 16);
        e = uadp_reencode(in, len, o, true, out, cap, &n, &de, &ee);
        CHECK(e == UADP_ERR_BUFFER_TOO_SMALL && de.kind == UADP_OK && ee.offset <= cap && n <= cap,
              "%s: cap %zu: %s at %zu, pos %zu", name, cap, uadp_err_name(e), ee.offset, n);
        {
            size_t i;
            int canary = 1;
            for (i = cap; i < len + 16; i++) {
                canary &= out[i] == 0xa5;
            }
            CHECK(canary, "%s: cap %zu: wrote past the capacity", name, cap);
        }
    }
    free(out);
}

static void test_vectors(void)
{
    size_t i;
    unsigned n_ok = 0, n_refused = 0, n_invalid = 0, n_prefix = 0;
    for (i = 0; i < UV_COUNT; i++) {
        const uadp_vec *v = &UV[i];
        uadp_decode_options o;
        uadp_error err;
        size_t used = 0, cut;
        uadp_err e;
        context = v->name;
        if (!CHECK(v->gen_error == NULL, "generator: %s", v->gen_error ? v->gen_error : "")) {
            continue;
        }
        memset(&o, 0, sizeof o);
        o.meta = v->meta;
        o.meta_count = v->meta_count;
        e = uadp_validate(v->bytes, v->len, &o, true, &used, &err);
        if (v->spec == 1 && (e == UADP_ERR_RESERVED_FIELD_ENCODING || e == UADP_ERR_UNSUPPORTED_MESSAGE_TYPE)) {
            printf("  note: %s: %s at %zu -> decoded with skip_unknown\n", v->name, uadp_err_name(e), err.offset);
            o.skip_unknown = true;
            e = uadp_validate(v->bytes, v->len, &o, true, &used, &err);
        }
        if (v->spec != 0) {
            if (e == UADP_OK) {
                n_ok++;
                CHECK(used == v->len, "consumed %zu of %zu", used, v->len);
                roundtrip_checks(v->bytes, v->len, &o, v->name);
            } else if (uadp_err_is_unsupported(e)) {
                n_refused++;
                printf("  note: %s: refused as unsupported: %s at %zu\n", v->name, uadp_err_name(e), err.offset);
                CHECK(err.offset <= v->len, "offset past the input");
            } else {
                CHECK(v->spec != 1, "valid per spec but failed: %s at %zu", uadp_err_name(e), err.offset);
                if (v->spec != 1) {
                    printf("  note: %s (spec other): %s at %zu\n", v->name, uadp_err_name(e), err.offset);
                }
            }
        } else {
            n_invalid++;
            CHECK(e != UADP_OK, "invalid per spec but decoded");
            CHECK(err.offset <= v->len, "offset %zu past the input", err.offset);
            if (v->expect_kind != UADP_OK) {
                CHECK(e == v->expect_kind && (long)err.offset == v->expect_offset, "expected %s at %ld, got %s at %zu",
                      uadp_err_name(v->expect_kind), v->expect_offset, uadp_err_name(e), err.offset);
            }
            printf("  note: %s: rejected: %s at %zu\n", v->name, uadp_err_name(e), err.offset);
        }
        /* every prefix fails cleanly (or decodes a shorter message) */
        for (cut = 0; cut < v->len; cut++) {
            size_t u = 0, n = 0;
            uadp_error de, ee;
            e = uadp_validate(v->bytes, cut, &o, false, &u, &err);
            CHECK(e == UADP_OK ? u <= cut : err.offset <= cut, "prefix %zu: %s at %zu", cut, uadp_err_name(e), err.offset);
            CHECK(uadp_reencode(v->bytes, cut, &o, false, NULL, 0, &n, &de, &ee) == e, "prefix %zu: reencode path disagrees", cut);
            CHECK(e != UADP_OK || de.offset == 0, "prefix %zu", cut);
            n_prefix++;
        }
    }
    context = "";
    printf("uadp vectors: %u UADP entries (%u decoded and re-encoded, %u refused as unsupported, %u invalid rejected), "
           "%u JSON entries skipped, %u prefixes\n",
           (unsigned)UV_COUNT, n_ok, n_refused, n_invalid, (unsigned)UV_JSON_COUNT, n_prefix);
}

/* ------------------------------------------------------------------ */
/* 2. errors                                                            */
/* ------------------------------------------------------------------ */

typedef struct err_case {
    const char *what;
    bytes_t bytes;
    uadp_err kind;
    size_t offset;
} err_case;

static void test_crafted_errors(void)
{
    bytes_t s = seed_bytes(3), two = two_bytes(), e0;
    static const uint8_t u81_02[] = {0x81, 0x02}, u81_40[] = {0x81, 0x40}, fe[] = {0xfe, 0xff, 0xff, 0xff},
                         ff4[] = {0xff, 0xff, 0xff, 0xff}, len64k[] = {0x00, 0x00, 0x01, 0x00}, ffff[] = {0xff, 0xff},
                         arr_big[] = {0x86, 0xff, 0xff, 0xff, 0x7f}, arr_m5[] = {0x86, 0xfb, 0xff, 0xff, 0xff},
                         zero[] = {0}, dv[] = {0x01, 0x00, 0x40};
    err_case cases[40];
    size_t n = 0, i;
    e0.n = 0;
    CHECK(s.n == 54 && two.n == 68, "seed3 %zu, two %zu", s.n, two.n);
#define CASE(w, b, k, o) (cases[n].what = (w), cases[n].bytes = (b), cases[n].kind = (k), cases[n].offset = (o), n++)
    CASE("empty", e0, UADP_ERR_UNEXPECTED_END, 0);
    CASE("UADP version 2", with(s, 0, 0xd2), UADP_ERR_UNSUPPORTED_VERSION, 0);
    CASE("UADP version 0", B("00"), UADP_ERR_UNSUPPORTED_VERSION, 0);
    CASE("reserved PublisherId type 101", with(s, 1, 0x0d), UADP_ERR_RESERVED_PUBLISHER_ID_TYPE, 1);
    CASE("reserved PublisherId type 111", B("910700"), UADP_ERR_RESERVED_PUBLISHER_ID_TYPE, 1);
    CASE("security", with(s, 1, 0x1c), UADP_ERR_SECURITY_UNSUPPORTED, 1);
    CASE("chunk", B("8180010000"), UADP_ERR_CHUNK_UNSUPPORTED, 2);
    CASE("discovery request", B("818004"), UADP_ERR_UNSUPPORTED_NETWORK_MESSAGE_TYPE, 2);
    CASE("ExtendedFlags2 reserved bit", B("818020"), UADP_ERR_RESERVED_FLAGS, 2);
    CASE("GroupFlags reserved bit", B("2110"), UADP_ERR_RESERVED_FLAGS, 1);
    CASE("PayloadHeader Count 0", B("4100010000"), UADP_ERR_INVALID_COUNT, 1);
    CASE("reserved field encoding", with(s, 36, 0x07), UADP_ERR_RESERVED_FIELD_ENCODING, 36);
    CASE("event DataSetMessage", cat(cat(slice(s, 0, 36), u81_02, 2), s.b + 37, s.n - 37), UADP_ERR_UNSUPPORTED_MESSAGE_TYPE, 37);
    CASE("DataSetFlags2 reserved bit", cat(cat(slice(s, 0, 36), u81_40, 2), s.b + 37, s.n - 37), UADP_ERR_RESERVED_FLAGS, 37);
    CASE("Variant type 26", with(s, 39, 0x1a), UADP_ERR_INVALID_VARIANT_TYPE, 39);
    CASE("Variant type 17 (NodeId)", with(s, 39, 0x11), UADP_ERR_UNSUPPORTED_VARIANT_TYPE, 39);
    CASE("Variant array of type 0", with(s, 39, 0x80), UADP_ERR_INVALID_VARIANT_TYPE, 39);
    CASE("Variant ArrayDimensions", with(s, 39, 0xca), UADP_ERR_UNSUPPORTED_ARRAY_DIMENSIONS, 39);
    CASE("String length -2", cat(cat(slice(s, 0, 2), fe, 4), s.b + 6, s.n - 6), UADP_ERR_INVALID_LENGTH, 2);
    CASE("String PublisherId null", cat(cat(slice(s, 0, 2), ff4, 4), s.b + 6, s.n - 6), UADP_ERR_INVALID_LENGTH, 2);
    CASE("String longer than the input", cat(slice(s, 0, 2), len64k, 4), UADP_ERR_UNEXPECTED_END, 6);
    CASE("invalid UTF-8", with(s, 8, 0xff), UADP_ERR_INVALID_UTF8, 8);
    CASE("FieldCount larger than the input", cat(cat(slice(s, 0, 37), ffff, 2), s.b + 39, s.n - 39), UADP_ERR_LENGTH_LIMIT, 37);
    CASE("array count larger than the input", cat(slice(s, 0, 39), arr_big, 5), UADP_ERR_LENGTH_LIMIT, 40);
    CASE("array length -5", cat(slice(s, 0, 39), arr_m5, 5), UADP_ERR_INVALID_LENGTH, 40);
    CASE("trailing bytes", cat(s, zero, 1), UADP_ERR_TRAILING_BYTES, 54);
    CASE("truncated (invalid_truncated)", slice(s, 0, 50), UADP_ERR_UNEXPECTED_END, 50);
    CASE("first DataSetMessage longer than its Size", with(two, 38, 0x11), UADP_ERR_SIZE_MISMATCH, 59);
    CASE("first DataSetMessage shorter than its Size", with(two, 38, 0x13), UADP_ERR_SIZE_MISMATCH, 60);
    CASE("Sizes past the input", with(two, 41, 0x7f), UADP_ERR_UNEXPECTED_END, 68);
    CASE("DataValue EncodingMask reserved bit", cat(slice(with(s, 36, 0x05), 0, 37), dv, 3), UADP_ERR_RESERVED_FLAGS, 39);
    CASE("PromotedFields size past the input", B("818002100006"), UADP_ERR_UNEXPECTED_END, 6);
    CASE("PromotedFields Variant crossing its size", B("81800202000600000000"), UADP_ERR_SIZE_MISMATCH, 7);
    /* more, from the Rust decoder's rules */
    CASE("RawData without metadata", with(s, 36, 0x03), UADP_ERR_MISSING_METADATA, 36);
    CASE("Sizes truncated", slice(two, 0, 39), UADP_ERR_UNEXPECTED_END, 39);
    CASE("padding not zero", B("4102010002000400030001000005010000"), UADP_ERR_SIZE_MISMATCH, 13);
#undef CASE
    for (i = 0; i < n; i++) {
        uadp_error err;
        uadp_err e;
        context = cases[i].what;
        e = uadp_validate(cases[i].bytes.b, cases[i].bytes.n, NULL, true, NULL, &err);
        CHECK(e == cases[i].kind && err.offset == cases[i].offset, "expected %s at %zu, got %s at %zu (%s)",
              uadp_err_name(cases[i].kind), cases[i].offset, uadp_err_name(e), err.offset,
              hexs(cases[i].bytes.b, cases[i].bytes.n));
        CHECK(err.kind == e, "err.kind");
    }
    context = "";
}

static void test_skip_unknown(void)
{
    bytes_t s = seed_bytes(3);
    static const uint8_t u81_02[] = {0x81, 0x02};
    bytes_t in[2];
    int i;
    in[0] = with(s, 36, 0x07);
    in[1] = cat(cat(slice(s, 0, 36), u81_02, 2), s.b + 37, s.n - 37);
    for (i = 0; i < 2; i++) {
        uadp_decode_options o;
        uadp_reader r;
        uadp_network_header h;
        uadp_dsm_header d;
        uint8_t out[128];
        size_t n;
        uadp_error de, ee;
        memset(&o, 0, sizeof o);
        o.skip_unknown = true;
        uadp_reader_init(&r, in[i].b, in[i].n, &o);
        CHECK(uadp_read_network_header(&r, &h) == UADP_OK && uadp_next_dsm(&r, &d) == UADP_OK, "skip_unknown");
        CHECK(d.skipped && d.data.len == in[i].n - (i ? 38u : 37u) && d.field_count == 0, "skipped data %zu", d.data.len);
        CHECK(uadp_finish(&r, true, &n) == UADP_OK && n == in[i].n, "finish");
        CHECK(uadp_reencode(in[i].b, in[i].n, &o, true, out, sizeof out, &n, &de, &ee) == UADP_OK && n == in[i].n &&
                  memcmp(out, in[i].b, n) == 0,
              "skipped message re-encodes");
    }
}

static void test_encoder_errors(void)
{
    static const uint16_t ids2[2] = {1, 2}, ids1[1] = {1000};
    uint8_t buf[256];
    uadp_writer w;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    uadp_scalar items[1];
    size_t n;
    memset(&d, 0, sizeof d);
    d.valid = 1;

    /* two writer ids, one message */
    seed_header(&h, ids2, 2);
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    seed_field(&w, 0);
    CHECK(uadp_end_network(&w, &n) == UADP_ERR_INVALID_COUNT && w.error.offset == 0, "ids vs messages: %s",
          uadp_err_name(w.error.kind));
    /* no PayloadHeader, two messages */
    seed_header(&h, ids1, 1);
    h.has &= (uint8_t)~UADP_NM_PAYLOAD_HEADER;
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    CHECK(uadp_begin_dsm(&w, &d) == UADP_ERR_INVALID_COUNT && w.error.offset == 0, "second message without a PayloadHeader");
    /* no message at all */
    seed_header(&h, ids1, 1);
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    CHECK(uadp_end_network(&w, &n) == UADP_ERR_INVALID_COUNT, "no messages");
    /* Count 0 / 256 */
    h.count = 0;
    uadp_writer_init(&w, buf, sizeof buf);
    CHECK(uadp_write_network_header(&w, &h) == UADP_ERR_INVALID_COUNT && w.pos == 0, "count 0");
    h.count = 256;
    uadp_writer_init(&w, buf, sizeof buf);
    CHECK(uadp_write_network_header(&w, &h) == UADP_ERR_INVALID_COUNT, "count 256");
    /* padding without a Sizes array */
    seed_header(&h, ids1, 1);
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    seed_field(&w, 0);
    CHECK(uadp_end_dsm(&w, 2) == UADP_ERR_INVALID_PADDING && w.error.offset == 0, "padding");
    /* array of Float holding an Int32: type_mismatch at 44 */
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    memset(&f, 0, sizeof f);
    memset(items, 0, sizeof items);
    items[0].type = UADP_INT32;
    items[0].v.i = 1;
    f.value.type = UADP_FLOAT;
    f.value.is_array = 1;
    f.value.count = 1;
    f.value.items = items;
    CHECK(uadp_write_field(&w, &f) == UADP_ERR_TYPE_MISMATCH && w.error.offset == 44, "array type: %s at %zu",
          uadp_err_name(w.error.kind), w.error.offset);
    /* a Variant in a DataValue message */
    d.field_encoding = UADP_ENC_DATAVALUE;
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    CHECK(uadp_write_f32(&w, 1.0f) == UADP_ERR_FIELD_ENCODING_MISMATCH, "Variant in DataValue message");
    /* a DataValue in a Variant message */
    d.field_encoding = UADP_ENC_VARIANT;
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    memset(&f, 0, sizeof f);
    f.is_datavalue = 1;
    CHECK(uadp_write_field(&w, &f) == UADP_ERR_FIELD_ENCODING_MISMATCH, "DataValue in Variant message");
    /* RawData null */
    d.field_encoding = UADP_ENC_RAWDATA;
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    memset(&f, 0, sizeof f);
    CHECK(uadp_write_field(&w, &f) == UADP_ERR_TYPE_MISMATCH, "RawData null");
    /* a field in a keep-alive */
    d.field_encoding = UADP_ENC_VARIANT;
    d.message_type = UADP_MSG_KEEP_ALIVE;
    uadp_writer_init(&w, buf, sizeof buf);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    CHECK(uadp_write_f32(&w, 1.0f) == UADP_ERR_FIELD_ENCODING_MISMATCH, "field in a keep-alive");
    d.message_type = UADP_MSG_KEY_FRAME;
    /* 70000 fields: length_limit at the FieldCount (37) */
    {
        static uint8_t big[150000], src[70000];
        uint32_t k;
        uadp_writer_init(&w, big, sizeof big);
        uadp_write_network_header(&w, &h);
        uadp_begin_dsm(&w, &d);
        for (k = 0; k < 70000; k++) {
            uadp_write_u8(&w, 1);
        }
        CHECK(uadp_end_network(&w, &n) == UADP_ERR_LENGTH_LIMIT && w.error.offset == 37, "70000 fields: %s at %zu",
              uadp_err_name(w.error.kind), w.error.offset);
        /* a 70000-byte DataSetMessage in a Sizes array: length_limit at its start */
        {
            static const uint16_t ids[2] = {1000, 1001};
            seed_header(&h, ids, 2);
            uadp_writer_init(&w, big, sizeof big);
            uadp_write_network_header(&w, &h);
            uadp_begin_dsm(&w, &d);
            seed_field(&w, 0);
            uadp_end_dsm(&w, 0);
            n = w.pos;
            uadp_begin_dsm(&w, &d);
            uadp_write_bytestring(&w, src, 70000);
            CHECK(uadp_end_network(&w, NULL) == UADP_ERR_LENGTH_LIMIT && w.error.offset == n, "70000-byte message: %s at %zu",
                  uadp_err_name(w.error.kind), w.error.offset);
        }
    }
    /* every too-short buffer: buffer_too_small, offset <= n, sticky */
    for (n = 0; n < 54; n++) {
        uadp_error e;
        CHECK(build_seed(buf, n, 3, &e) == 0 && e.kind == UADP_ERR_BUFFER_TOO_SMALL && e.offset <= n, "cap %zu", n);
    }
}

/* ------------------------------------------------------------------ */
/* 3. seed layout and the smallest header                               */
/* ------------------------------------------------------------------ */

static void test_seed_layout(void)
{
    static const int ns[4] = {1, 3, 5, 10};
    static const uint16_t ids[1] = {1000};
    int i, k;
    for (i = 0; i < 4; i++) {
        char hex[400];
        uint8_t want[200], got[200];
        size_t wn, gn, lens;
        uadp_error e;
        uadp_network_header h;
        uadp_dsm_header d;
        uadp_scalar s;
        snprintf(hex, sizeof hex, "%s01%02x00", SEED_HEADER, ns[i]);
        for (k = 0; k < ns[i]; k++) {
            strcat(hex, SEED_FIELDS[k]);
        }
        wn = unhex(hex, want);
        gn = build_seed(got, sizeof got, ns[i], &e);
        CHECK(wn == (size_t)(39 + 5 * ns[i]), "spec size %zu", wn);
        CHECK(gn == wn && memcmp(got, want, wn) == 0, "seed %d fields:\n  got  %s\n  want %s", ns[i], hexs(got, gn), hexs(want, wn));
        /* the size functions */
        seed_header(&h, ids, 1);
        memset(&d, 0, sizeof d);
        d.valid = 1;
        memset(&s, 0, sizeof s);
        s.type = UADP_FLOAT;
        lens = uadp_len_network_header(&h) + uadp_len_dsm_header(&d) + (size_t)ns[i] * uadp_len_scalar(&s, false);
        CHECK(lens == wn, "len functions %zu", lens);
        gn = build_seed(NULL, 0, ns[i], &e);
        CHECK(gn == wn && e.kind == UADP_OK, "counting writer %zu", gn);
        /* same bytes as the vector file, where it has them */
        {
            char name[32];
            size_t j;
            snprintf(name, sizeof name, "seed_variant_%df", ns[i]);
            for (j = 0; j < UV_COUNT; j++) {
                if (strcmp(UV[j].name, name) == 0) {
                    CHECK(UV[j].len == wn && memcmp(UV[j].bytes, want, wn) == 0, "%s differs from the spec table", name);
                }
            }
        }
        /* decode back */
        {
            uadp_reader r;
            uadp_field f;
            size_t used;
            uadp_reader_init(&r, want, wn, NULL);
            CHECK(uadp_read_network_header(&r, &h) == UADP_OK && h.count == 1 && uadp_writer_id(&h, 0) == 1000 &&
                      h.publisher_id_str.len == 11 && memcmp(h.publisher_id_str.ptr, "ESP32-Bench", 11) == 0 &&
                      memcmp(h.class_id, SEED_CLASS, 16) == 0,
                  "seed header");
            CHECK(uadp_next_dsm(&r, &d) == UADP_OK && d.valid && d.field_count == (size_t)ns[i], "seed dsm");
            for (k = 0; k < ns[i]; k++) {
                CHECK(uadp_next_field(&r, &f) == UADP_OK, "field %d", k);
                if (k == 0) {
                    CHECK(f.value.type == UADP_FLOAT && f.value.scalar.v.f32 == 25.5f, "field 0");
                } else if (k == 4) {
                    CHECK(f.value.type == UADP_INT32 && f.value.scalar.v.i == -7, "field 4");
                } else if (k == 7) {
                    CHECK(f.value.type == UADP_INT32 && f.value.scalar.v.i == 100000, "field 7");
                }
            }
            CHECK(uadp_finish(&r, true, &used) == UADP_OK && used == wn, "finish");
        }
    }
    /* The Rust CLI (wirebench encode -f uadp) writes the smallest header:
     * UADPFlags 0x01, DataSetFlags1 0x01, FieldCount, the Variants.
     * {"t":25.5 (float32), "p":1013.25 (float32), "n":-7 (int32), "ok":true,
     *  "name":"imu", "d":2.5 (float64)} */
    {
        static const char want_hex[] = "010106000a0000cc410a00507d4406f9ffffff01010c03000000696d750b0000000000000440";
        uint8_t want[64], got[64];
        size_t wn = unhex(want_hex, want), gn = 0;
        uadp_writer w;
        uadp_network_header h;
        uadp_dsm_header d;
        memset(&h, 0, sizeof h);
        memset(&d, 0, sizeof d);
        d.valid = 1;
        uadp_writer_init(&w, got, sizeof got);
        uadp_write_network_header(&w, &h);
        uadp_begin_dsm(&w, &d);
        uadp_write_f32(&w, 25.5f);
        uadp_write_f32(&w, 1013.25f);
        uadp_write_i32(&w, -7);
        uadp_write_bool(&w, true);
        uadp_write_string(&w, "imu", 3);
        uadp_write_f64(&w, 2.5);
        CHECK(uadp_end_network(&w, &gn) == UADP_OK && gn == wn && memcmp(got, want, wn) == 0,
              "smallest header:\n  got  %s\n  want %s", hexs(got, gn), hexs(want, wn));
    }
}

/* ------------------------------------------------------------------ */
/* 4. every feature                                                     */
/* ------------------------------------------------------------------ */

static const uint8_t GUID2[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t RAW_TYPES[4] = {UADP_FLOAT, UADP_STRING, UADP_INT16 | UADP_ARRAY, UADP_GUID};

/* Scalars of every type (k-th). */
static int make_scalar(int k, uadp_scalar *s)
{
    memset(s, 0, sizeof *s);
    switch (k) {
    case 0: s->type = UADP_BOOLEAN; s->v.b = true; break;
    case 1: s->type = UADP_SBYTE; s->v.i = -128; break;
    case 2: s->type = UADP_BYTE; s->v.u = 255; break;
    case 3: s->type = UADP_INT16; s->v.i = -12345; break;
    case 4: s->type = UADP_UINT16; s->v.u = 65535; break;
    case 5: s->type = UADP_INT32; s->v.i = INT32_MIN; break;
    case 6: s->type = UADP_UINT32; s->v.u = 0xfffffffeu; break;
    case 7: s->type = UADP_INT64; s->v.i = INT64_MIN; break;
    case 8: s->type = UADP_UINT64; s->v.u = UINT64_MAX; break;
    case 9: s->type = UADP_FLOAT; s->v.f32 = -0.0f; break;
    case 10: s->type = UADP_DOUBLE; s->v.f64 = 1e300; break;
    case 11: s->type = UADP_STRING; s->v.bytes.ptr = (const uint8_t *)"gr\xc3\xbc\xc3\x9f"; s->v.bytes.len = 6; break;
    case 12: s->type = UADP_DATETIME; s->v.i = 132000000000000000; break;
    case 13: s->type = UADP_GUID; s->v.guid = GUID2; break;
    case 14: s->type = UADP_BYTESTRING; s->v.bytes.ptr = (const uint8_t *)"\0\1\2"; s->v.bytes.len = 3; break;
    case 15: s->type = UADP_STATUSCODE; s->v.u = 0x80350000u; break;
    case 16: s->type = UADP_STRING; s->is_null = 1; break;
    case 17: s->type = UADP_BYTESTRING; s->is_null = 1; break;
    case 18: s->type = UADP_STRING; s->v.bytes.ptr = (const uint8_t *)""; s->v.bytes.len = 0; break;
    default: return 0;
    }
    return 1;
}

static int scalar_eq(const uadp_scalar *a, const uadp_scalar *b)
{
    if (a->type != b->type || a->is_null != b->is_null) {
        return 0;
    }
    if (a->is_null) {
        return 1;
    }
    switch (a->type) {
    case UADP_BOOLEAN: return a->v.b == b->v.b;
    case UADP_FLOAT: return memcmp(&a->v.f32, &b->v.f32, 4) == 0;
    case UADP_DOUBLE: return memcmp(&a->v.f64, &b->v.f64, 8) == 0;
    case UADP_STRING:
    case UADP_BYTESTRING:
        return a->v.bytes.len == b->v.bytes.len && (a->v.bytes.len == 0 || memcmp(a->v.bytes.ptr, b->v.bytes.ptr, a->v.bytes.len) == 0);
    case UADP_GUID: return memcmp(a->v.guid, b->v.guid, 16) == 0;
    case UADP_SBYTE:
    case UADP_INT16:
    case UADP_INT32:
    case UADP_INT64:
    case UADP_DATETIME: return a->v.i == b->v.i;
    default: return a->v.u == b->v.u;
    }
}

/* Writes (or, with r != NULL, reads and compares) the every-feature message. */
static size_t everything(uint8_t *buf, size_t cap, uadp_error *err)
{
    static const uint16_t ids[4] = {7, 8, 9, 10};
    static const int16_t arr[3] = {-1, 0, 300};
    uadp_writer w;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    uadp_scalar s, items[3];
    uadp_variant v;
    size_t len = 0;
    int k;
    memset(&h, 0, sizeof h);
    h.has = UADP_NM_PUBLISHER_ID | UADP_NM_CLASS_ID | UADP_NM_GROUP_HEADER | UADP_NM_PAYLOAD_HEADER |
            UADP_NM_TIMESTAMP | UADP_NM_PICOSECONDS | UADP_NM_PROMOTED_FIELDS;
    h.publisher_id_type = UADP_PUBID_UINT64;
    h.publisher_id = 0x0102030405060708ULL;
    h.class_id = GUID2;
    h.group_flags = 0x0f;
    h.writer_group_id = 11;
    h.group_version = 12;
    h.network_message_number = 13;
    h.group_sequence_number = 14;
    h.count = 4;
    h.writer_ids = ids;
    h.timestamp = 133000000000000000;
    h.picoseconds = 999;
    uadp_writer_init(&w, buf, cap);
    uadp_write_network_header(&w, &h);
    /* PromotedFields: a String and a null Variant */
    memset(&v, 0, sizeof v);
    make_scalar(11, &v.scalar);
    v.type = v.scalar.type;
    uadp_write_variant(&w, &v);
    memset(&v, 0, sizeof v);
    uadp_write_variant(&w, &v);
    /* 1: key frame, every scalar type, an array, a null array; all options; padding */
    memset(&d, 0, sizeof d);
    d.valid = 1;
    d.has = UADP_DSM_SEQUENCE_NUMBER | UADP_DSM_TIMESTAMP | UADP_DSM_PICOSECONDS | UADP_DSM_STATUS |
            UADP_DSM_CONFIG_MAJOR | UADP_DSM_CONFIG_MINOR;
    d.sequence_number = 1;
    d.timestamp = 2;
    d.picoseconds = 3;
    d.status = 0x8000;
    d.config_major = 5;
    d.config_minor = 6;
    uadp_begin_dsm(&w, &d);
    for (k = 0; make_scalar(k, &s); k++) {
        uadp_write_scalar(&w, &s);
    }
    memset(&v, 0, sizeof v);
    for (k = 0; k < 3; k++) {
        memset(&items[k], 0, sizeof items[k]);
        items[k].type = UADP_INT16;
        items[k].v.i = arr[k];
    }
    v.type = UADP_INT16;
    v.is_array = 1;
    v.count = 3;
    v.items = items;
    uadp_write_variant(&w, &v);
    v.count = -1;
    v.type = UADP_STRING;
    uadp_write_variant(&w, &v);
    uadp_end_dsm(&w, 3);
    /* 2: delta frame of DataValues, invalid, no FieldCount problem */
    memset(&d, 0, sizeof d);
    d.field_encoding = UADP_ENC_DATAVALUE;
    d.message_type = UADP_MSG_DELTA_FRAME;
    uadp_begin_dsm(&w, &d);
    memset(&f, 0, sizeof f);
    f.index = 4;
    f.is_datavalue = 1;
    f.dv_mask = 0x3f;
    make_scalar(9, &f.value.scalar);
    f.value.type = UADP_FLOAT;
    f.dv_status = 0x40000000u;
    f.dv_source_timestamp = 1;
    f.dv_server_timestamp = 2;
    f.dv_source_picoseconds = 3;
    f.dv_server_picoseconds = 4;
    uadp_write_field(&w, &f);
    memset(&f, 0, sizeof f);
    f.index = 9;
    f.is_datavalue = 1;
    f.dv_mask = UADP_DV_STATUS;
    f.dv_status = 7;
    uadp_write_field(&w, &f);
    uadp_end_dsm(&w, 0);
    /* 3: RawData key frame (metadata RAW_TYPES for writer 9) */
    memset(&d, 0, sizeof d);
    d.valid = 1;
    d.field_encoding = UADP_ENC_RAWDATA;
    uadp_begin_dsm(&w, &d);
    uadp_write_f32(&w, 1.5f);
    uadp_write_string(&w, "raw", 3);
    v.type = UADP_INT16;
    v.count = 3;
    uadp_write_variant(&w, &v);
    uadp_write_guid(&w, GUID2);
    uadp_end_dsm(&w, 0);
    /* 4: keep-alive with a sequence number */
    memset(&d, 0, sizeof d);
    d.valid = 1;
    d.message_type = UADP_MSG_KEEP_ALIVE;
    d.has = UADP_DSM_SEQUENCE_NUMBER;
    d.sequence_number = 77;
    uadp_begin_dsm(&w, &d);
    uadp_end_network(&w, &len);
    *err = w.error;
    return len;
}

static void test_everything(void)
{
    uint8_t buf[512], out[512];
    uadp_error e, de, ee;
    size_t n = everything(buf, sizeof buf, &e), m, used;
    uadp_metadata meta[1];
    uadp_decode_options o;
    uadp_reader r;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    uadp_variant v;
    uadp_scalar s, t;
    int k;
    context = "everything";
    CHECK(e.kind == UADP_OK && n > 0, "build: %s at %zu", uadp_err_name(e.kind), e.offset);
    CHECK(everything(NULL, 0, &e) == n, "counting writer");
    meta[0].writer_id = 9;
    meta[0].types = RAW_TYPES;
    meta[0].count = 4;
    memset(&o, 0, sizeof o);
    o.meta = meta;
    o.meta_count = 1;
    CHECK(uadp_validate(buf, n, &o, true, &used, &e) == UADP_OK && used == n, "validate: %s at %zu", uadp_err_name(e.kind), e.offset);
    CHECK(uadp_validate(buf, n, NULL, true, &used, &e) == UADP_ERR_MISSING_METADATA, "no metadata");
    meta[0].writer_id = 10; /* no match, no "any" entry */
    CHECK(uadp_validate(buf, n, &o, true, &used, &e) == UADP_ERR_MISSING_METADATA, "wrong writer");
    meta[0].writer_id = -1; /* any writer */
    CHECK(uadp_validate(buf, n, &o, true, &used, &e) == UADP_OK, "any writer");
    CHECK(uadp_reencode(buf, n, &o, true, out, sizeof out, &m, &de, &ee) == UADP_OK && m == n && memcmp(out, buf, n) == 0,
          "re-encode:\n  in  %s\n  out %s", hexs(buf, n), hexs(out, m));
    roundtrip_checks(buf, n, &o, "everything");

    uadp_reader_init(&r, buf, n, &o);
    CHECK(uadp_read_network_header(&r, &h) == UADP_OK, "header");
    CHECK(h.publisher_id_type == UADP_PUBID_UINT64 && h.publisher_id == 0x0102030405060708ULL && h.group_flags == 0x0f &&
              h.writer_group_id == 11 && h.group_version == 12 && h.network_message_number == 13 &&
              h.group_sequence_number == 14 && h.count == 4 && uadp_writer_id(&h, 3) == 10 &&
              h.timestamp == 133000000000000000 && h.picoseconds == 999 && h.promoted_count == 2,
          "header values");
    CHECK(uadp_next_promoted(&r, &v) == UADP_OK && v.type == UADP_STRING && v.scalar.v.bytes.len == 6, "promoted 0");
    CHECK(uadp_next_promoted(&r, &v) == UADP_OK && v.type == 0, "promoted 1");
    CHECK(uadp_next_dsm(&r, &d) == UADP_OK && d.has == 0x3f && d.sequence_number == 1 && d.timestamp == 2 &&
              d.picoseconds == 3 && d.status == 0x8000 && d.config_major == 5 && d.config_minor == 6 && d.field_count == 21,
          "dsm 1");
    for (k = 0; make_scalar(k, &s); k++) {
        CHECK(uadp_next_field(&r, &f) == UADP_OK && !f.value.is_array && scalar_eq(&f.value.scalar, &s), "scalar %d", k);
    }
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.value.is_array && f.value.count == 3 && f.value.type == UADP_INT16, "array");
    {
        size_t off = 0;
        CHECK(uadp_array_next(&f.value, &off, &t) == UADP_OK && t.v.i == -1 && uadp_array_next(&f.value, &off, &t) == UADP_OK &&
                  t.v.i == 0 && uadp_array_next(&f.value, &off, &t) == UADP_OK && t.v.i == 300 &&
                  uadp_array_next(&f.value, &off, &t) == UADP_ERR_UNEXPECTED_END,
              "array items");
    }
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.value.is_array && f.value.count == -1 && f.value.type == UADP_STRING, "null array");
    CHECK(uadp_next_field(&r, &f) == UADP_ERR_INVALID_COUNT, "one field too many");
    uadp_reader_init(&r, buf, n, &o);
    uadp_read_network_header(&r, &h);
    uadp_next_dsm(&r, &d);
    CHECK(uadp_end_dsm_read(&r, &m) == UADP_OK && m == 3, "padding %zu", m);
    CHECK(uadp_next_dsm(&r, &d) == UADP_OK && d.message_type == UADP_MSG_DELTA_FRAME && d.field_count == 2 && !d.valid, "dsm 2");
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.is_datavalue && f.index == 4 && f.dv_mask == 0x3f && f.dv_status == 0x40000000u &&
              f.dv_source_timestamp == 1 && f.dv_server_timestamp == 2 && f.dv_source_picoseconds == 3 && f.dv_server_picoseconds == 4 &&
              f.value.type == UADP_FLOAT,
          "datavalue");
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.index == 9 && f.dv_mask == UADP_DV_STATUS && f.dv_status == 7, "datavalue 2");
    CHECK(uadp_next_dsm(&r, &d) == UADP_OK && d.field_encoding == UADP_ENC_RAWDATA && d.field_count == 4 && d.meta == meta, "dsm 3");
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.value.type == UADP_FLOAT && f.value.scalar.v.f32 == 1.5f, "raw 0");
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.value.type == UADP_STRING && f.value.scalar.v.bytes.len == 3, "raw 1");
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.value.is_array && f.value.count == 3, "raw 2");
    CHECK(uadp_next_field(&r, &f) == UADP_OK && f.value.type == UADP_GUID && memcmp(f.value.scalar.v.guid, GUID2, 16) == 0, "raw 3");
    CHECK(uadp_next_dsm(&r, &d) == UADP_OK && d.message_type == UADP_MSG_KEEP_ALIVE && d.sequence_number == 77 && d.field_count == 0,
          "dsm 4");
    CHECK(uadp_next_dsm(&r, &d) == UADP_ERR_INVALID_COUNT, "one message too many");

    /* size functions agree with the writer */
    for (k = 0; make_scalar(k, &s); k++) {
        uadp_writer w;
        uadp_variant vv;
        uadp_field ff;
        memset(&vv, 0, sizeof vv);
        vv.type = s.type;
        vv.scalar = s;
        memset(&ff, 0, sizeof ff);
        ff.value = vv;
        uadp_writer_init(&w, NULL, 0);
        CHECK(uadp_len_scalar(&s, true) + 1 == uadp_len_scalar(&s, false) && uadp_len_variant(&vv, false) == uadp_len_scalar(&s, false) &&
                  uadp_len_variant(&vv, true) == uadp_len_scalar(&s, true) &&
                  uadp_len_field(&ff, UADP_ENC_VARIANT, UADP_MSG_DELTA_FRAME) == 2 + uadp_len_scalar(&s, false),
              "len %d", k);
    }
    context = "";
}

/* ------------------------------------------------------------------ */
/* 5. hostile input                                                     */
/* ------------------------------------------------------------------ */

static unsigned long n_hostile, n_hostile_ok;

static void hostile_one(const uint8_t *p, size_t n, const uadp_decode_options *o)
{
    static uint8_t out[70000], out2[70000];
    size_t used = 0, m = 0, m2 = 0;
    uadp_error err, de, ee;
    uadp_err e = uadp_validate(p, n, o, false, &used, &err);
    n_hostile++;
    if (e != UADP_OK) {
        CHECK(err.offset <= n && err.kind == e, "offset %zu past %zu (%s)", err.offset, n, hexs(p, n));
        CHECK(uadp_reencode(p, n, o, false, NULL, 0, &m, &de, &ee) == e && de.offset == err.offset, "pull path disagrees (%s)", hexs(p, n));
        return;
    }
    n_hostile_ok++;
    CHECK(used <= n, "consumed");
    e = uadp_reencode(p, n, o, false, out, sizeof out, &m, &de, &ee);
    CHECK(e == UADP_OK, "decoded message does not re-encode: %s (%s)", uadp_err_name(e), hexs(p, n));
    if (e != UADP_OK) {
        return;
    }
    e = uadp_validate(out, m, o, true, &used, &err);
    CHECK(e == UADP_OK, "re-encoded bytes do not decode: %s at %zu (%s -> %s)", uadp_err_name(e), err.offset, hexs(p, n), hexs(out, m));
    e = uadp_reencode(out, m, o, true, out2, sizeof out2, &m2, &de, &ee);
    CHECK(e == UADP_OK && m2 == m && memcmp(out, out2, m) == 0, "not a fixed point (%s)", hexs(p, n));
}

static void test_hostile(void)
{
    static const uint8_t types[3] = {UADP_FLOAT, UADP_STRING, UADP_INT16 | UADP_ARRAY};
    uadp_metadata meta[1];
    uadp_decode_options o, o_skip;
    bytes_t corpus[32];
    size_t nc = 0, i, cut;
    int k, j;
    uadp_error e;
    meta[0].writer_id = -1;
    meta[0].types = types;
    meta[0].count = 3;
    memset(&o, 0, sizeof o);
    o.meta = meta;
    o.meta_count = 1;
    o_skip = o;
    o_skip.skip_unknown = true;
    for (i = 0; i < UV_COUNT && nc < 20; i++) {
        if (UV[i].len <= sizeof corpus[0].b) {
            corpus[nc].n = UV[i].len;
            memcpy(corpus[nc].b, UV[i].bytes, UV[i].len);
            nc++;
        }
    }
    corpus[nc++] = seed_bytes(0);
    corpus[nc++] = seed_bytes(10);
    corpus[nc++] = two_bytes();
    corpus[nc].n = everything(corpus[nc].b, sizeof corpus[nc].b, &e);
    nc++;
    context = "hostile";
    for (i = 0; i < nc; i++) {
        const uadp_decode_options *oo = corpus[i].n && corpus[i].b[0] == 0xd1 ? &o_skip : &o;
        for (cut = 0; cut <= corpus[i].n; cut++) {
            hostile_one(corpus[i].b, cut, oo);
        }
        for (k = 0; k < 400; k++) {
            bytes_t b = corpus[i];
            int muts = 1 + (int)(next_rand() % 4);
            for (j = 0; j < muts && b.n; j++) {
                size_t at = (size_t)(next_rand() % b.n);
                switch (next_rand() % 4) {
                case 0: b.b[at] = (uint8_t)next_rand(); break;
                case 1: b.b[at] ^= (uint8_t)(1u << (next_rand() % 8)); break;
                case 2: b.b[at] = 0xff; break;
                default: b.b[at] = 0; break;
                }
            }
            hostile_one(b.b, b.n, oo);
        }
    }
    for (k = 0; k < 5000; k++) {
        uint8_t b[64];
        size_t n = (size_t)(next_rand() % 64);
        for (i = 0; i < n; i++) {
            b[i] = (uint8_t)next_rand();
        }
        if (n) {
            b[0] = (uint8_t)((b[0] & 0xf0) | 1); /* mostly version 1 */
        }
        hostile_one(b, n, k & 1 ? &o : &o_skip);
    }
    context = "";
    printf("uadp hostile inputs: %lu (%lu decoded, re-encoded to a fixed point)\n", n_hostile, n_hostile_ok);
}

static void test_names(void)
{
    int k;
    CHECK(strcmp(uadp_err_name(UADP_ERR_RESERVED_PUBLISHER_ID_TYPE), "reserved_publisher_id_type") == 0, "name");
    CHECK(strcmp(uadp_err_name(UADP_ERR_UNREPRESENTABLE), "unrepresentable") == 0, "last name");
    CHECK(strcmp(uadp_err_name(UADP_OK), "ok") == 0 && strcmp(uadp_err_name((uadp_err)99), "unknown") == 0, "ok/unknown");
    for (k = 1; k <= 27; k++) {
        const char *n = uadp_err_name((uadp_err)k), *c;
        int j;
        for (c = n; *c; c++) {
            CHECK((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_', "snake case %s", n);
        }
        for (j = 1; j < k; j++) {
            CHECK(strcmp(n, uadp_err_name((uadp_err)j)) != 0, "duplicate %s", n);
        }
    }
    CHECK(strcmp(uadp_type_name(UADP_STATUSCODE), "StatusCode") == 0 && uadp_type_name(16) == NULL &&
              strcmp(uadp_type_name(UADP_BYTESTRING), "ByteString") == 0,
          "type names");
}

int main(void)
{
    test_names();
    test_vectors();
    test_crafted_errors();
    test_skip_unknown();
    test_encoder_errors();
    test_seed_layout();
    test_everything();
    test_hostile();
    printf("%lu checks, %lu failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
