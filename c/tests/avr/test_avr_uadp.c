/*
 * test_avr_uadp.c - the UADP vectors on AVR (make test-avr), from
 * gen_uadp_vectors.py --avr (message bytes in flash, copied to RAM before
 * use). The host test's vector checks: spec-valid entries decode exactly
 * (RawData with the derived metadata; a reserved encoding / event type
 * retried with skip_unknown) or are refused with an "unsupported" kind, and
 * re-encode byte-identically through the pull reader and the writer (the
 * written bytes come from the decoded values, so this compares the values
 * too), also counting only and at every smaller capacity; spec-invalid
 * entries fail (kind and offset where known); every prefix fails cleanly.
 */
#include "uadp.h"
#include "avr_check.h"
#include "uadp_reencode.h"

typedef struct uadp_vec {
    const char *name;
    const uint8_t *bytes; /* flash */
    size_t len;
    int spec;
    const uadp_metadata *meta;
    size_t meta_count;
    uadp_err expect_kind;
    long expect_offset;
    const char *gen_error;
} uadp_vec;

#define UV_FLASH PROGMEM
#include "uadp_vectors.h"

static uint8_t in[1024], out[1024 + 16];

static void roundtrip(const uint8_t *p, size_t len, const uadp_decode_options *o)
{
    size_t n = 0, cap, k;
    uadp_error de, ee;
    uadp_err e = uadp_reencode(p, len, o, true, out, len + 16, &n, &de, &ee);
    CHECK(e == UADP_OK && n == len && memcmp(out, p, len) == 0, "re-encode differs");
    e = uadp_reencode(p, len, o, true, NULL, 0, &n, &de, &ee);
    CHECK(e == UADP_OK && n == len, "counting writer");
    for (cap = 0; cap < len; cap++) {
        memset(out, 0xa5, len + 16);
        e = uadp_reencode(p, len, o, true, out, cap, &n, &de, &ee);
        CHECKV(e == UADP_ERR_BUFFER_TOO_SMALL && de.kind == UADP_OK && ee.offset <= cap && n <= cap, "capacity %lu",
               cap);
        for (k = cap; k < len + 16 && out[k] == 0xa5; k++) {
        }
        CHECKV(k == len + 16, "capacity %lu: wrote past it", cap);
    }
}

int main(void)
{
    size_t i, cut;
    unsigned long n_vec = 0;
    check_init();
    for (i = 0; i < UV_COUNT; i++) {
        const uadp_vec *v = &UV[i];
        uadp_decode_options o;
        uadp_error err;
        size_t used = 0;
        uadp_err e;
        strncpy(context, v->name, sizeof context - 1);
        n_vec++;
        if (!CHECK(v->gen_error == NULL, "generator could not read the vector")) {
            continue;
        }
        if (!CHECK(v->len <= sizeof in, "vector larger than the RAM buffer")) {
            continue;
        }
        memcpy_P(in, v->bytes, v->len);
        memset(&o, 0, sizeof o);
        o.meta = v->meta;
        o.meta_count = v->meta_count;
        e = uadp_validate(in, v->len, &o, true, &used, &err);
        if (v->spec == 1 && (e == UADP_ERR_RESERVED_FIELD_ENCODING || e == UADP_ERR_UNSUPPORTED_MESSAGE_TYPE)) {
            o.skip_unknown = true;
            e = uadp_validate(in, v->len, &o, true, &used, &err);
        }
        if (v->spec != 0) {
            if (e == UADP_OK) {
                CHECK(used == v->len, "consumed differs");
                roundtrip(in, v->len, &o);
            } else if (uadp_err_is_unsupported(e)) {
                printf_P(PSTR("  note: %s: refused as unsupported: %s at %u\n"), v->name, uadp_err_name(e),
                         (unsigned)err.offset);
                CHECK(err.offset <= v->len, "offset past the input");
            } else {
                CHECKV(v->spec != 1, "valid per spec but failed at %lu", err.offset);
            }
        } else {
            CHECK(e != UADP_OK, "invalid per spec but decoded");
            CHECK(err.offset <= v->len, "offset past the input");
            if (v->expect_kind != UADP_OK) {
                CHECKV(e == v->expect_kind && (long)err.offset == v->expect_offset, "wrong error (offset %lu)",
                       err.offset);
            }
        }
        for (cut = 0; cut < v->len; cut++) {
            size_t u = 0, n = 0;
            uadp_error de, ee;
            e = uadp_validate(in, cut, &o, false, &u, &err);
            CHECKV(e == UADP_OK ? u <= cut : err.offset <= cut, "prefix %lu", cut);
            CHECKV(uadp_reencode(in, cut, &o, false, NULL, 0, &n, &de, &ee) == e, "prefix %lu: paths disagree", cut);
        }
    }
    check_done(PSTR("uadp"), n_vec + UV_JSON_COUNT, UV_JSON_COUNT); /* JSON entries: not UADP, skipped as on the host */
    return 0;
}
