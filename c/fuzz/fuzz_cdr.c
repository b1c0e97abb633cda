/*
 * libFuzzer target for the C CDR reader and writer.
 *
 * 1. Every generated vector decoder (build/cdr_vectors.h: the reader calls
 *    for the types of vectors/cdr.json, value-specific and type-driven) runs
 *    on the input: no crash, error offsets within the input.
 * 2. An op program taken from the end of the input (K = last byte % 64 op
 *    bytes before it) drives the reader API over the rest (primitives,
 *    strings, octets, enums, sequences, arrays, appendable bodies,
 *    optionals, nested up to 16 deep). Every value read is written again
 *    with the writer in the same encoding (counted first, then written into
 *    a heap buffer of exactly that size); reading the output with the same
 *    program must give the same values (round trip; it may stop early only
 *    with length_limit: a count checked against the remaining bytes, which
 *    are fewer when the program read fewer elements than counted), and
 *    writing into one byte less must fail with buffer_too_small.
 * Any disagreement calls abort().
 */
#include "cdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(msg)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz_cdr: %s (line %d)\n", msg, __LINE__);                               \
        abort();                                                                                   \
    } while (0)

/* ---- the generated vector decoders ---- */

typedef struct cv_ctx {
    unsigned mismatches;
    const char *first;
} cv_ctx;

#define CV_EXPECT(cond, path)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            c->mismatches++;                                                                       \
            c->first = (path);                                                                     \
        }                                                                                          \
    } while (0)

static float cv_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static double cv_f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

static uint32_t cv_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint64_t cv_f64_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

typedef struct cdr_vec {
    const char *name;
    const char *encoding;
    const uint8_t *hex;
    size_t len;
    unsigned pad;
    void (*enc)(cdr_writer *w);
    void (*dec)(cdr_reader *r, cv_ctx *c);
    void (*walk)(cdr_reader *r);
    const char *skip;
    const char *gen_error;
} cdr_vec;

#include "cdr_vectors.h"

/* ---- op programs ---- */

#define MAX_VALS 512
#define MAX_NEST 16

typedef struct val {
    uint64_t u;
    const uint8_t *p;
    size_t n;
} val;

typedef struct nest {
    int kind; /* 0 sequence, 1 array, 2 appendable, 3 optional */
    cdr_mark m;
} nest;

/* Runs the program on a reader; records values into vals (record) or
 * compares with them (!record), for at most `limit` values. Returns the
 * number of values handled. */
static size_t run_reader(cdr_reader *r, const uint8_t *ops, size_t nops, val *vals, int record, size_t limit)
{
    nest st[MAX_NEST];
    size_t depth = 0, nv = 0, i;
    for (i = 0; i < nops && r->error.kind == CDR_OK && nv < limit; i++) {
        unsigned op = ops[i] % 16u, arg = ops[i] / 16u;
        val v;
        cdr_view view;
        bool b;
        memset(&v, 0, sizeof v);
        switch (op) {
        case 0: cdr_read_bool(r, &b); v.u = b; break;
        case 1: { uint8_t x; cdr_read_u8(r, &x); v.u = x; } break;
        case 2: { uint16_t x; cdr_read_u16(r, &x); v.u = x; } break;
        case 3: { uint32_t x; cdr_read_u32(r, &x); v.u = x; } break;
        case 4: { uint64_t x; cdr_read_u64(r, &x); v.u = x; } break;
        case 5: { float x; cdr_read_f32(r, &x); memcpy(&v.u, &x, 4); } break;
        case 6: { double x; cdr_read_f64(r, &x); memcpy(&v.u, &x, 8); } break;
        case 7: cdr_read_string(r, arg ? arg : CDR_UNBOUNDED, &view); v.p = view.ptr; v.n = view.len; break;
        case 8: cdr_read_octets(r, arg ? arg : CDR_UNBOUNDED, &view); v.p = view.ptr; v.n = view.len; break;
        case 9: { int32_t x; cdr_read_enum(r, arg * 2u, NULL, 0, &x); v.u = (uint32_t)x; } break;
        case 10:
        case 11: /* sequence (arg & 1: primitive elements) / array of arg elements */
            if (depth == MAX_NEST) {
                continue;
            }
            st[depth].kind = op == 10 ? 0 : 1;
            if (op == 10) {
                uint32_t count;
                cdr_begin_read_sequence(r, arg & 1u, arg >> 1, CDR_UNBOUNDED, &count, &st[depth].m);
                v.u = count;
            } else {
                cdr_begin_read_array(r, arg & 1u, arg >> 1, 1, &st[depth].m);
            }
            depth++;
            break;
        case 12:
            if (depth == MAX_NEST) {
                continue;
            }
            st[depth].kind = 2;
            cdr_begin_read_appendable(r, &st[depth++].m);
            break;
        case 13:
            if (depth == MAX_NEST) {
                continue;
            }
            st[depth].kind = 3;
            cdr_begin_read_optional(r, &b, &st[depth++].m);
            v.u = b;
            break;
        case 14: { cdr_view raw; cdr_read_bytes(r, arg, &raw); v.p = raw.ptr; v.n = raw.len; } break;
        default: /* close the innermost */
            if (depth == 0) {
                continue;
            }
            depth--;
            switch (st[depth].kind) {
            case 0: cdr_end_read_sequence(r, &st[depth].m); break;
            case 1: cdr_end_read_array(r, &st[depth].m); break;
            case 2: cdr_end_read_appendable(r, &st[depth].m); break;
            default: cdr_end_read_optional(r, &st[depth].m); break;
            }
            break;
        }
        if (r->error.kind != CDR_OK) {
            break;
        }
        if (record) {
            vals[nv] = v;
        } else if (op == 13 && !r->v2 && vals[nv].u == 1 && v.u == 0) {
            /* XCDR1: a present optional whose member was never written has
             * length 0, which reads as absent (the only encoding of "empty") */
        } else if (vals[nv].u != v.u || vals[nv].n != v.n || (v.n && memcmp(vals[nv].p, v.p, v.n) != 0)) {
            FAIL("round trip changed a value");
        }
        nv++;
    }
    while (depth > 0 && r->error.kind == CDR_OK) {
        depth--;
        switch (st[depth].kind) {
        case 0: cdr_end_read_sequence(r, &st[depth].m); break;
        case 1: cdr_end_read_array(r, &st[depth].m); break;
        case 2: cdr_end_read_appendable(r, &st[depth].m); break;
        default: cdr_end_read_optional(r, &st[depth].m); break;
        }
    }
    return nv;
}

/* Writes the first nv values of the program. */
static void run_writer(cdr_writer *w, const uint8_t *ops, size_t nops, const val *vals, size_t nv)
{
    nest st[MAX_NEST];
    size_t depth = 0, k = 0, i;
    for (i = 0; i < nops && k < nv; i++) {
        unsigned op = ops[i] % 16u, arg = ops[i] / 16u;
        const val *v = &vals[k];
        switch (op) {
        case 0: cdr_write_bool(w, v->u != 0); break;
        case 1: cdr_write_u8(w, (uint8_t)v->u); break;
        case 2: cdr_write_u16(w, (uint16_t)v->u); break;
        case 3: cdr_write_u32(w, (uint32_t)v->u); break;
        case 4: cdr_write_u64(w, v->u); break;
        case 5: { float x; uint32_t b = (uint32_t)v->u; memcpy(&x, &b, 4); cdr_write_f32(w, x); } break;
        case 6: { double x; memcpy(&x, &v->u, 8); cdr_write_f64(w, x); } break;
        case 7: cdr_write_string_bounded(w, (const char *)v->p, v->n, arg ? arg : CDR_UNBOUNDED); break;
        case 8: cdr_write_octets(w, v->p, v->n); break;
        case 9: cdr_write_enum(w, arg * 2u, (int32_t)(uint32_t)v->u); break;
        case 10:
        case 11:
            if (depth == MAX_NEST) {
                continue;
            }
            st[depth].kind = op == 10 ? 0 : 1;
            if (op == 10) {
                cdr_begin_sequence(w, (size_t)v->u, arg & 1u, &st[depth].m);
            } else {
                cdr_begin_array(w, arg & 1u, &st[depth].m);
            }
            depth++;
            break;
        case 12:
            if (depth == MAX_NEST) {
                continue;
            }
            st[depth].kind = 2;
            cdr_begin_appendable(w, &st[depth++].m);
            break;
        case 13:
            if (depth == MAX_NEST) {
                continue;
            }
            st[depth].kind = 3;
            cdr_begin_optional(w, arg, v->u != 0, &st[depth++].m);
            break;
        case 14: cdr_write_bytes(w, v->p, v->n); break;
        default:
            if (depth == 0) {
                continue;
            }
            depth--;
            switch (st[depth].kind) {
            case 0: cdr_end_sequence(w, &st[depth].m); break;
            case 1: cdr_end_array(w, &st[depth].m); break;
            case 2: cdr_end_appendable(w, &st[depth].m); break;
            default: cdr_end_optional(w, &st[depth].m); break;
            }
            break;
        }
        k++;
    }
    while (depth > 0) {
        depth--;
        switch (st[depth].kind) {
        case 0: cdr_end_sequence(w, &st[depth].m); break;
        case 1: cdr_end_array(w, &st[depth].m); break;
        case 2: cdr_end_appendable(w, &st[depth].m); break;
        default: cdr_end_optional(w, &st[depth].m); break;
        }
    }
}

static unsigned ext_of(const cdr_reader *r)
{
    switch (r->representation) {
    case CDR_REP_D_CDR2: return CDR_APPENDABLE;
    case CDR_REP_PL_CDR:
    case CDR_REP_PL_CDR2: return CDR_MUTABLE;
    default: return CDR_FINAL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static val vals[MAX_VALS], vals2[MAX_VALS];
    cdr_reader r;
    size_t i, k, nops, nv, n, len;
    const uint8_t *ops;
    cdr_writer w;
    uint8_t *out;
    bool pad;

    /* 1. the vector decoders: value-specific and type-driven */
    for (i = 0; i < CV_COUNT; i++) {
        cv_ctx c = {0, NULL};
        if (CV[i].dec == NULL) {
            continue;
        }
        cdr_reader_init(&r, data, size);
        CV[i].dec(&r, &c);
        cdr_reader_finish(&r, (size & 1) != 0);
        if (r.error.kind != CDR_OK && (r.error.offset > size || r.error.kind == CDR_ERR_BUFFER_TOO_SMALL)) {
            FAIL("vector decoder error offset");
        }
        cdr_reader_init(&r, data, size);
        CV[i].walk(&r);
        cdr_reader_finish(&r, (size & 1) != 0);
        if (r.error.kind != CDR_OK && (r.error.offset > size || r.error.kind == CDR_ERR_BUFFER_TOO_SMALL)) {
            FAIL("vector decoder error offset");
        }
        if (r.pos > size || r.end > size) {
            FAIL("reader position");
        }
    }

    /* 2. op program round trip */
    if (size < 1) {
        return 0;
    }
    nops = data[size - 1] % 64u;
    if (nops > size - 1) {
        nops = size - 1;
    }
    ops = data + size - 1 - nops;
    len = size - 1 - nops;
    if (cdr_reader_init(&r, data, len) != CDR_OK) {
        if (r.error.offset > len) {
            FAIL("header error offset");
        }
        return 0;
    }
    nv = run_reader(&r, ops, nops, vals, 1, MAX_VALS);
    if (r.error.kind != CDR_OK && r.error.offset > len) {
        FAIL("error offset");
    }
    pad = (data[size - 1] & 0x40) != 0;
    cdr_writer_init(&w, NULL, 0, cdr_reader_encoding(&r));
    cdr_write_header(&w, ext_of(&r));
    run_writer(&w, ops, nops, vals, nv);
    if (cdr_writer_finish(&w, pad, &n) != CDR_OK) {
        FAIL("the writer refused values the reader accepted");
    }
    out = (uint8_t *)malloc(n);
    if (!out) {
        FAIL("oom");
    }
    cdr_writer_init(&w, out, n, cdr_reader_encoding(&r));
    cdr_write_header(&w, ext_of(&r));
    run_writer(&w, ops, nops, vals, nv);
    if (cdr_writer_finish(&w, pad, &k) != CDR_OK || k != n) {
        FAIL("writer disagrees with its counting pass");
    }
    {
        cdr_reader r2;
        size_t nv2;
        if (cdr_reader_init(&r2, out, n) != CDR_OK) {
            FAIL("own header");
        }
        memcpy(vals2, vals, sizeof(val) * nv);
        nv2 = run_reader(&r2, ops, nops, vals2, 0, nv);
        /* a count checked against the remaining bytes may fail on the output,
         * which holds only what the program read (LENGTH_LIMIT); anything else
         * must read back completely */
        if ((r2.error.kind != CDR_OK && r2.error.kind != CDR_ERR_LENGTH_LIMIT) ||
            (r2.error.kind == CDR_OK && nv2 < nv)) {
            fprintf(stderr, "%s at %zu\n", cdr_err_name(r2.error.kind), r2.error.offset);
            FAIL("re-reading the written bytes failed");
        }
    }
    free(out);
    if (n > 4) {
        out = (uint8_t *)malloc(n - 1);
        if (!out) {
            FAIL("oom");
        }
        cdr_writer_init(&w, out, n - 1, cdr_reader_encoding(&r));
        cdr_write_header(&w, ext_of(&r));
        run_writer(&w, ops, nops, vals, nv);
        if (cdr_writer_finish(&w, pad, &k) != CDR_ERR_BUFFER_TOO_SMALL || w.error.offset > n - 1 || w.pos > n - 1) {
            FAIL("short buffer");
        }
        free(out);
    }
    return 0;
}
