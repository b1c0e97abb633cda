/*
 * libFuzzer target for the C UADP reader and writer.
 *
 * For every input, with and without skip_unknown (RawData metadata for any
 * writer: Float, String, Int16[]), exact and not:
 *  - uadp_validate and the item-by-item pull path (tests/uadp_reencode.h)
 *    agree on the result, the error kind and its offset (<= input length);
 *  - the error is never an encoder kind;
 * and when the message decodes:
 *  - every array element can be read with uadp_array_next;
 *  - its re-encoding (into a heap buffer of exactly the counted size, so
 *    ASan sees any overflow) decodes exactly and re-encodes to itself;
 *  - re-encoding into a buffer one byte too small fails cleanly with
 *    buffer_too_small at an offset within the buffer.
 * Any disagreement calls abort().
 */
#include "uadp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uadp_reencode.h"

#define FAIL(msg)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_uadp: %s (line %d)\n", msg, __LINE__);                              \
        abort();                                                                                   \
    } while (0)

static const uint8_t META_TYPES[3] = {UADP_FLOAT, UADP_STRING, UADP_INT16 | UADP_ARRAY};

static void walk_arrays(const uint8_t *data, size_t size, const uadp_decode_options *o)
{
    uadp_reader r;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    size_t i, k;
    uadp_reader_init(&r, data, size, o);
    if (uadp_read_network_header(&r, &h) != UADP_OK) {
        FAIL("header of a valid message");
    }
    for (i = 0; i < h.count; i++) {
        if (uadp_next_dsm(&r, &d) != UADP_OK) {
            FAIL("dsm of a valid message");
        }
        for (k = 0; k < d.field_count; k++) {
            if (uadp_next_field(&r, &f) != UADP_OK) {
                FAIL("field of a valid message");
            }
            if (f.value.is_array && f.value.count > 0) {
                size_t off = 0;
                int32_t j;
                uadp_scalar s;
                for (j = 0; j < f.value.count; j++) {
                    if (uadp_array_next(&f.value, &off, &s) != UADP_OK || s.type != f.value.type) {
                        FAIL("array element");
                    }
                }
                if (off != f.value.elems.len || uadp_array_next(&f.value, &off, &s) != UADP_ERR_UNEXPECTED_END) {
                    FAIL("array end");
                }
            }
        }
    }
}

static void one(const uint8_t *data, size_t size, const uadp_decode_options *o, bool exact)
{
    size_t used = 0, n = 0, n2 = 0, n3 = 0;
    uadp_error err, de, ee;
    uadp_err e = uadp_validate(data, size, o, exact, &used, &err), e2;
    uint8_t *out, *out2;

    e2 = uadp_reencode(data, size, o, exact, NULL, 0, &n, &de, &ee);
    if (e != UADP_OK) {
        if (err.kind != e || err.offset > size || e2 != e || de.kind != e || de.offset != err.offset) {
            FAIL("validate and the pull path disagree");
        }
        if (e == UADP_ERR_BUFFER_TOO_SMALL || e == UADP_ERR_TYPE_MISMATCH || e == UADP_ERR_FIELD_ENCODING_MISMATCH ||
            e == UADP_ERR_INVALID_PADDING || e >= UADP_ERR_JSON_SYNTAX) {
            FAIL("impossible decode error");
        }
        return;
    }
    if (e2 != UADP_OK || used > size || (exact && used != size)) {
        FAIL("valid message does not re-encode (counting)");
    }
    walk_arrays(data, used, o);
    out = (uint8_t *)malloc(n ? n : 1);
    if (!out) {
        FAIL("oom");
    }
    if (uadp_reencode(data, size, o, exact, out, n, &n2, &de, &ee) != UADP_OK || n2 != n) {
        FAIL("re-encode");
    }
    if (uadp_validate(out, n, o, true, &used, &err) != UADP_OK) {
        FAIL("re-encoding does not decode");
    }
    out2 = (uint8_t *)malloc(n ? n : 1);
    if (!out2) {
        FAIL("oom");
    }
    if (uadp_reencode(out, n, o, true, out2, n, &n3, &de, &ee) != UADP_OK || n3 != n || memcmp(out, out2, n) != 0) {
        FAIL("re-encoding is not a fixed point");
    }
    free(out2);
    if (n > 0) {
        out2 = (uint8_t *)malloc(n - 1 ? n - 1 : 1);
        if (!out2) {
            FAIL("oom");
        }
        if (uadp_reencode(data, size, o, exact, out2, n - 1, &n3, &de, &ee) != UADP_ERR_BUFFER_TOO_SMALL ||
            ee.offset > n - 1 || n3 > n - 1) {
            FAIL("short buffer");
        }
        free(out2);
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uadp_metadata meta[1];
    uadp_decode_options o;
    meta[0].writer_id = -1;
    meta[0].types = META_TYPES;
    meta[0].count = 3;
    memset(&o, 0, sizeof o);
    o.meta = meta;
    o.meta_count = 1;
    one(data, size, &o, false);
    one(data, size, &o, true);
    o.skip_unknown = true;
    one(data, size, &o, false);
    return 0;
}
