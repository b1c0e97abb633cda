/*
 * test_pson.c - tests of the C PSON v2 codec.
 *
 *  1. every entry of vectors/pson.json (through build/vectors.h, generated
 *     by gen_vectors.py): encode / decode / re-encode / encoded_len, the
 *     writer at every too-small capacity (canary bytes after cap untouched),
 *     decode_only ok / error vectors, every prefix of every vector;
 *  2. every error kind with its exact offset (the cases of
 *     crates/pson/tests/errors.rs);
 *  3. encodings from the spec, the float rule against a floating-point
 *     reference, encoded_len == bytes written, UTF-8 against a reference.
 *
 * Exit status 0 iff every check passed.
 */
#include "pson.h"
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

/* ------------------------------------------------------------------ */
/* Harness                                                              */
/* ------------------------------------------------------------------ */


static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return p;
}



/* ------------------------------------------------------------------ */
/* Events                                                               */
/* ------------------------------------------------------------------ */

enum { EV_NULL, EV_BOOL, EV_UINT, EV_INT, EV_F32, EV_F64, EV_STR, EV_BYTES, EV_MAP, EV_ARRAY };

typedef struct ev_t {
    int type;
    uint64_t u; /* BOOL 0/1, UINT, INT (two's complement), F32/F64 bits, MAP/ARRAY count */
    const uint8_t *data;
    size_t len;
} ev_t;

typedef struct vector_t {
    const char *name;
    const char *kind;
    const uint8_t *hex;
    size_t hex_len;
    const ev_t *json;
    size_t njson;
    const ev_t *dec;
    size_t ndec;
    int has_json;
    int expect; /* decode_only: 1 ok, 0 error */
    long long consumed; /* -1: absent */
    long long size;     /* -1: absent */
    const char *gen_error;
} vector_t;

#include "vectors.h"

/* Events of one decoded root item (keys are EV_STR events). */
typedef struct ev_buf {
    ev_t *ev;
    size_t n, cap;
} ev_buf;

static pson_err collect_cb(void *ctx, walk_event_kind kind, const pson_item *it, int parent, size_t index)
{
    ev_buf *b = (ev_buf *)ctx;
    ev_t *e;
    (void)parent;
    (void)index;
    if (kind == WALK_END) {
        return PSON_OK;
    }
    if (b->n == b->cap) {
        return PSON_ERR_BUFFER_TOO_SMALL; /* cannot happen: <= 1 event per input byte */
    }
    e = &b->ev[b->n++];
    e->u = 0;
    e->data = NULL;
    e->len = 0;
    switch (it->type) {
    case PSON_TYPE_UINT: e->type = EV_UINT; e->u = it->v.u; break;
    case PSON_TYPE_INT: e->type = EV_INT; e->u = (uint64_t)it->v.i; break;
    case PSON_TYPE_F32: {
        uint32_t b32;
        memcpy(&b32, &it->v.f32, 4);
        e->type = EV_F32;
        e->u = b32;
        break;
    }
    case PSON_TYPE_F64: e->type = EV_F64; memcpy(&e->u, &it->v.f64, 8); break;
    case PSON_TYPE_BOOL: e->type = EV_BOOL; e->u = it->v.b; break;
    case PSON_TYPE_NULL: e->type = EV_NULL; break;
    case PSON_TYPE_STR: e->type = EV_STR; e->data = it->v.str.ptr; e->len = it->v.str.len; break;
    case PSON_TYPE_BYTES: e->type = EV_BYTES; e->data = it->v.bytes.ptr; e->len = it->v.bytes.len; break;
    case PSON_TYPE_MAP: e->type = EV_MAP; e->u = it->v.count; break;
    case PSON_TYPE_ARRAY: e->type = EV_ARRAY; e->u = it->v.count; break;
    }
    return PSON_OK;
}

/* Decode like Rust `decode_with` into events; cross-checked with pson_validate. */
static pson_err decode_events(const uint8_t *buf, size_t len, size_t max_depth, ev_buf *out,
                              size_t *consumed, pson_error *err)
{
    walk_frame stack[PSON_MAX_DEPTH];
    size_t used = 0, vused = 0;
    pson_error e1 = {PSON_OK, 0}, e2 = {PSON_OK, 0};
    pson_err r1, r2;
    out->cap = len + 1;
    out->ev = (ev_t *)xmalloc(out->cap * sizeof(ev_t));
    out->n = 0;
    r1 = walk(buf, len, max_depth, stack, PSON_MAX_DEPTH, collect_cb, out, &used, &e1);
    r2 = pson_validate(buf, len, max_depth, &vused, &e2);
    CHECK(r1 == r2, "walk %s vs pson_validate %s on %s", pson_err_name(r1), pson_err_name(r2), hexs(buf, len));
    if (r1 == PSON_OK && r2 == PSON_OK) {
        CHECK(used == vused, "consumed %zu vs %zu", used, vused);
    } else {
        CHECK(e1.kind == e2.kind && e1.offset == e2.offset, "walk error %s@%zu vs validate %s@%zu",
              pson_err_name(e1.kind), e1.offset, pson_err_name(e2.kind), e2.offset);
        CHECK(e1.kind == r1, "walk error kind");
        CHECK(e2.offset <= len, "error offset %zu > input length %zu", e2.offset, len);
    }
    if (consumed) {
        *consumed = used;
    }
    if (err) {
        *err = e1;
    }
    return r1;
}

/* Encode events with the writer; *lensum = sum of the pson_len_* values. */
static pson_err encode_events(const ev_t *ev, size_t n, pson_writer *w, size_t *lensum)
{
    size_t i, sum = 0;
    pson_err e = PSON_OK;
    for (i = 0; i < n && e == PSON_OK; i++) {
        const ev_t *x = &ev[i];
        double d;
        switch (x->type) {
        case EV_NULL: e = pson_write_null(w); sum += pson_len_null(); break;
        case EV_BOOL: e = pson_write_bool(w, x->u != 0); sum += pson_len_bool(x->u != 0); break;
        case EV_UINT: e = pson_write_u64(w, x->u); sum += pson_len_u64(x->u); break;
        case EV_INT: e = pson_write_i64(w, (int64_t)x->u); sum += pson_len_i64((int64_t)x->u); break;
        case EV_F32: {
            float f;
            uint32_t b32 = (uint32_t)x->u;
            memcpy(&f, &b32, 4);
            e = pson_write_f32(w, f);
            sum += pson_len_f32(f);
            break;
        }
        case EV_F64:
            memcpy(&d, &x->u, 8);
            e = pson_write_f64(w, d);
            sum += pson_len_f64(d);
            break;
        case EV_STR: e = pson_write_str(w, (const char *)x->data, x->len); sum += pson_len_str(x->len); break;
        case EV_BYTES: e = pson_write_bytes(w, x->data, x->len); sum += pson_len_bytes(x->len); break;
        case EV_MAP: e = pson_write_map(w, x->u); sum += pson_len_map(x->u); break;
        default: e = pson_write_array(w, x->u); sum += pson_len_array(x->u); break;
        }
    }
    if (lensum) {
        *lensum = sum;
    }
    return e;
}

/* Index after the subtree starting at ev[i]. */
static size_t ev_skip(const ev_t *ev, size_t n, size_t i)
{
    uint64_t pending = 1;
    while (pending && i < n) {
        const ev_t *x = &ev[i++];
        pending--;
        if (x->type == EV_MAP) {
            pending += 2 * x->u;
        } else if (x->type == EV_ARRAY) {
            pending += x->u;
        }
    }
    return i;
}

/* Numbers compared by value, as nums_equal in crates/pson/tests/vectors.rs. */
typedef struct num {
    int kind; /* 0 integer, 1 f64, 2 f32 */
    int neg;
    uint64_t mag;
    double f;
    float f32;
} num;

static int as_num(const ev_t *e, num *n)
{
    memset(n, 0, sizeof *n);
    switch (e->type) {
    case EV_UINT: n->kind = 0; n->mag = e->u; return 1;
    case EV_INT:
        n->kind = 0;
        n->neg = (int64_t)e->u < 0;
        n->mag = n->neg ? (uint64_t)0 - e->u : e->u;
        return 1;
    case EV_F64: n->kind = 1; memcpy(&n->f, &e->u, 8); return 1;
    case EV_F32: {
        uint32_t b32 = (uint32_t)e->u;
        n->kind = 2;
        memcpy(&n->f32, &b32, 4);
        return 1;
    }
    default: return 0;
    }
}

static double int_to_f64(const num *n) { return n->neg ? -(double)n->mag : (double)n->mag; }
static int feq(double x, double y) { return (isnan(x) && isnan(y)) || x == y; }

static int f64_to_f32_eq(double y, float x)
{
    /* y as f32 == x, with Rust's `as` (round to nearest, overflow to inf)
     * and without the C UB of converting an out-of-range double */
    if (!isfinite(y)) {
        return 0;
    }
    if (fabs(y) > FLT_MAX) {
        /* below FLT_MAX + half an ulp (2^103) it still rounds to FLT_MAX */
        float r = fabs(y) < (double)FLT_MAX + ldexp(1.0, 103) ? FLT_MAX : HUGE_VALF;
        return (y < 0 ? -r : r) == x;
    }
    return (float)y == x;
}

static int nums_equal(const num *a, const num *b)
{
    if (a->kind == 0 && b->kind == 0) {
        return a->neg == b->neg && a->mag == b->mag;
    }
    if (a->kind == 0 && b->kind == 1) {
        return feq(int_to_f64(a), b->f) && isfinite(b->f) && trunc(b->f) == b->f;
    }
    if (a->kind == 1 && b->kind == 0) {
        return nums_equal(b, a);
    }
    if (a->kind == 1 && b->kind == 1) {
        return feq(a->f, b->f);
    }
    if (a->kind == 2 && b->kind == 1) {
        return feq((double)a->f32, b->f) || f64_to_f32_eq(b->f, a->f32);
    }
    if (a->kind == 1 && b->kind == 2) {
        return nums_equal(b, a);
    }
    if (a->kind == 2 && b->kind == 0) {
        return (double)a->f32 == int_to_f64(b);
    }
    if (a->kind == 0 && b->kind == 2) {
        return nums_equal(b, a);
    }
    return feq((double)a->f32, (double)b->f32);
}

static int blob_eq(const ev_t *a, const ev_t *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Like `same` in vectors.rs: maps ordered unless `unordered` or the decoded
 * map has duplicate keys (then: distinct keys, last one wins). */
static int same(const ev_t *g, size_t gn, size_t gi, const ev_t *w, size_t wn, size_t wi, int unordered)
{
    num a, b;
    if (gi >= gn || wi >= wn) {
        return 0;
    }
    if (as_num(&g[gi], &a) && as_num(&w[wi], &b)) {
        return nums_equal(&a, &b);
    }
    if (g[gi].type != w[wi].type) {
        return 0;
    }
    switch (g[gi].type) {
    case EV_NULL: return 1;
    case EV_BOOL: return g[gi].u == w[wi].u;
    case EV_STR:
    case EV_BYTES: return blob_eq(&g[gi], &w[wi]);
    case EV_ARRAY: {
        size_t k, x = gi + 1, y = wi + 1;
        if (g[gi].u != w[wi].u) {
            return 0;
        }
        for (k = 0; k < g[gi].u; k++) {
            if (!same(g, gn, x, w, wn, y, unordered)) {
                return 0;
            }
            x = ev_skip(g, gn, x);
            y = ev_skip(w, wn, y);
        }
        return 1;
    }
    case EV_MAP: {
        size_t np = (size_t)g[gi].u, nw = (size_t)w[wi].u, k, j;
        size_t *gk = (size_t *)xmalloc((np + 1) * sizeof(size_t));
        size_t *wk = (size_t *)xmalloc((nw + 1) * sizeof(size_t));
        size_t distinct = 0, x = gi + 1, y = wi + 1;
        int ok = 1;
        for (k = 0; k < np; k++) {
            gk[k] = x;
            x = ev_skip(g, gn, x + 1);
        }
        for (k = 0; k < nw; k++) {
            wk[k] = y;
            y = ev_skip(w, wn, y + 1);
        }
        for (k = 0; k < np; k++) {
            int dup = 0;
            for (j = 0; j < k; j++) {
                if (blob_eq(&g[gk[j]], &g[gk[k]])) {
                    dup = 1;
                    break;
                }
            }
            distinct += !dup;
        }
        if (!unordered && distinct == np) {
            ok = np == nw;
            for (k = 0; ok && k < np; k++) {
                ok = blob_eq(&g[gk[k]], &w[wk[k]]) && same(g, gn, gk[k] + 1, w, wn, wk[k] + 1, unordered);
            }
        } else {
            ok = distinct == nw;
            for (k = 0; ok && k < nw; k++) {
                size_t m = np;
                while (m-- > 0) {
                    if (blob_eq(&g[gk[m]], &w[wk[k]])) {
                        break;
                    }
                }
                ok = m < np && same(g, gn, gk[m] + 1, w, wn, wk[k] + 1, unordered);
            }
        }
        free(gk);
        free(wk);
        return ok;
    }
    default: return 0;
    }
}

/* ------------------------------------------------------------------ */
/* 1. Vectors                                                           */
/* ------------------------------------------------------------------ */

static unsigned long c_roundtrip, c_decode_ok, c_decode_err, c_cap_sweeps, c_prefixes;

/* Encode at every capacity below the full size: BUFFER_TOO_SMALL, the
 * written prefix is correct, nothing at or after pos is touched. */
static void cap_sweep(const ev_t *ev, size_t n, const uint8_t *want, size_t want_len)
{
    size_t cap, i;
    uint8_t *buf = (uint8_t *)xmalloc(want_len + 16);
    for (cap = 0; cap < want_len; cap++) {
        pson_writer w;
        pson_err e;
        memset(buf, 0xa5, want_len + 16);
        pson_writer_init(&w, buf, cap);
        e = encode_events(ev, n, &w, NULL);
        CHECK(e == PSON_ERR_BUFFER_TOO_SMALL, "cap %zu: got %s", cap, pson_err_name(e));
        CHECK(w.pos <= cap, "cap %zu: pos %zu", cap, w.pos);
        CHECK(memcmp(buf, want, w.pos) == 0, "cap %zu: written prefix differs", cap);
        for (i = w.pos; i < want_len + 16; i++) {
            if (buf[i] != 0xa5) {
                break;
            }
        }
        CHECK(i == want_len + 16, "cap %zu: byte %zu touched", cap, i);
        c_cap_sweeps++;
    }
    free(buf);
}

/* Every prefix (and the input with an extra byte) decodes without crashing,
 * with consistent walk / validate results. */
static void prefixes(const uint8_t *hex, size_t len)
{
    size_t k;
    uint8_t *copy = (uint8_t *)xmalloc(len + 1);
    for (k = 0; k <= len; k++) {
        ev_buf b;
        pson_error err;
        memcpy(copy, hex, k);
        /* exact-size heap copy: ASan catches any read past the end */
        decode_events(copy, k, PSON_MAX_DEPTH, &b, NULL, &err);
        free(b.ev);
        c_prefixes++;
    }
    free(copy);
}

static void run_roundtrip(const vector_t *v)
{
    uint8_t *buf;
    size_t cap = v->hex_len + 64, lensum = 0, used = 0, i;
    pson_writer w;
    pson_err e;
    ev_buf dec;
    pson_error err;
    int ok = 1;

    /* encode json */
    buf = (uint8_t *)xmalloc(cap);
    memset(buf, 0xa5, cap);
    pson_writer_init(&w, buf, cap);
    e = encode_events(v->json, v->njson, &w, &lensum);
    ok &= CHECK(e == PSON_OK, "encode: %s", pson_err_name(e));
    ok &= CHECK(w.pos == v->hex_len && memcmp(buf, v->hex, v->hex_len) == 0, "encode: got %s want %s",
                hexs(buf, w.pos), hexs(v->hex, v->hex_len));
    ok &= CHECK(lensum == v->hex_len, "encoded_len %zu != %zu", lensum, v->hex_len);
    for (i = w.pos; i < cap && buf[i] == 0xa5; i++) {
    }
    ok &= CHECK(i == cap, "writer touched byte %zu past pos", i);
    if (v->size >= 0) {
        ok &= CHECK((size_t)v->size == v->hex_len, "size field %lld != hex length %zu", v->size, v->hex_len);
    }
    cap_sweep(v->json, v->njson, v->hex, v->hex_len);

    /* decode */
    e = decode_events(v->hex, v->hex_len, PSON_MAX_DEPTH, &dec, &used, &err);
    ok &= CHECK(e == PSON_OK, "decode: %s at %zu", pson_err_name(err.kind), err.offset);
    if (e == PSON_OK) {
        ok &= CHECK(used == v->hex_len, "decode consumed %zu of %zu", used, v->hex_len);
        ok &= CHECK(same(dec.ev, dec.n, 0, v->dec, v->ndec, 0, 0), "decoded value differs from decoded_json");
        ok &= CHECK(pson_validate_exact(v->hex, v->hex_len, PSON_MAX_DEPTH, &err) == PSON_OK, "validate_exact");
        /* re-encode the decoded value */
        memset(buf, 0xa5, cap);
        pson_writer_init(&w, buf, cap);
        e = encode_events(dec.ev, dec.n, &w, &lensum);
        ok &= CHECK(e == PSON_OK && w.pos == v->hex_len && memcmp(buf, v->hex, v->hex_len) == 0,
                    "re-encode: got %s want %s", hexs(buf, w.pos), hexs(v->hex, v->hex_len));
        ok &= CHECK(lensum == v->hex_len, "encoded_len of decoded value %zu", lensum);
        /* and through the streaming re-encoder */
        {
            walk_frame stack[PSON_MAX_DEPTH];
            pson_writer_init(&w, buf, cap);
            e = walk(v->hex, v->hex_len, PSON_MAX_DEPTH, stack, PSON_MAX_DEPTH, walk_reencode_cb, &w, &used, &err);
            ok &= CHECK(e == PSON_OK && w.pos == v->hex_len && memcmp(buf, v->hex, v->hex_len) == 0,
                        "walk re-encode: got %s", hexs(buf, w.pos));
        }
    }
    free(dec.ev);
    free(buf);
    prefixes(v->hex, v->hex_len);
    if (ok) {
        c_roundtrip++;
    }
}

static void run_decode_only(const vector_t *v)
{
    ev_buf dec;
    size_t used = 0;
    pson_error err;
    pson_err e = decode_events(v->hex, v->hex_len, PSON_MAX_DEPTH, &dec, &used, &err);
    int ok = 1;
    if (v->expect == 1) {
        ok &= CHECK(e == PSON_OK, "expected ok, got error %s at byte %zu", pson_err_name(err.kind), err.offset);
        if (e == PSON_OK && v->has_json) {
            ok &= CHECK(same(dec.ev, dec.n, 0, v->json, v->njson, 0, 1), "decoded value differs from json");
        }
        if (e == PSON_OK && v->consumed >= 0) {
            ok &= CHECK((long long)used == v->consumed, "consumed %zu, want %lld", used, v->consumed);
        }
        if (ok) {
            c_decode_ok++;
        }
    } else {
        ok &= CHECK(e != PSON_OK, "expected an error, decoded %zu bytes", used);
        if (e != PSON_OK) {
            ok &= CHECK(err.offset <= v->hex_len, "error offset %zu beyond input", err.offset);
            ok &= CHECK(strcmp(pson_err_name(err.kind), "unknown") != 0, "error kind has no name");
        }
        if (ok) {
            c_decode_err++;
        }
    }
    free(dec.ev);
    prefixes(v->hex, v->hex_len);
}

static void test_vectors(void)
{
    size_t i;
    unsigned long failed_before = n_failed;
    for (i = 0; i < VEC_COUNT; i++) {
        const vector_t *v = &VECTORS[i];
        context = v->name;
        if (v->gen_error) {
            CHECK(0, "%s (%s): %s", v->name, v->kind, v->gen_error);
            continue;
        }
        if (strcmp(v->kind, "roundtrip") == 0) {
            run_roundtrip(v);
        } else if (strcmp(v->kind, "decode_only") == 0) {
            run_decode_only(v);
        } else {
            CHECK(0, "unknown kind %s", v->kind);
        }
    }
    context = "vectors";
    CHECK(VEC_COUNT > 0, "no vectors");
    CHECK(c_roundtrip + c_decode_ok + c_decode_err == VEC_COUNT, "every vector must pass (%lu of %d)",
          c_roundtrip + c_decode_ok + c_decode_err, (int)VEC_COUNT);
    printf("pson vectors: %d entries: %lu roundtrip, %lu decode ok, %lu decode error; "
           "%lu too-small capacities, %lu prefixes; %lu failed checks\n",
           (int)VEC_COUNT, c_roundtrip, c_decode_ok, c_decode_err, c_cap_sweeps, c_prefixes,
           n_failed - failed_before);
}

/* ------------------------------------------------------------------ */
/* 2. Errors (crates/pson/tests/errors.rs)                              */
/* ------------------------------------------------------------------ */

static void expect_err_d(const uint8_t *in, size_t len, size_t max_depth, pson_err kind, size_t offset, int line)
{
    pson_error err = {PSON_OK, 0};
    size_t used = 0;
    ev_buf b;
    pson_err e = pson_validate(in, len, max_depth, &used, &err);
    check_(e == kind && err.kind == kind && err.offset == offset, __FILE__, line,
           "%s: got %s@%zu want %s@%zu", hexs(in, len), pson_err_name(err.kind), err.offset,
           pson_err_name(kind), offset);
    decode_events(in, len, max_depth, &b, NULL, NULL); /* walk agrees */
    free(b.ev);
}
#define EXPECT_ERR(kind, offset, ...)                                                       \
    do {                                                                                    \
        static const uint8_t in_[] = {__VA_ARGS__};                                         \
        expect_err_d(in_, sizeof in_, PSON_MAX_DEPTH, kind, offset, __LINE__);              \
    } while (0)

static void test_errors(void)
{
    uint8_t *v;
    size_t i, used;
    pson_error err;
    pson_reader r;
    pson_item it;
    pson_view key;
    context = "errors";

    /* unexpected_end: offset = where the missing data starts (input length) */
    expect_err_d((const uint8_t *)"", 0, PSON_MAX_DEPTH, PSON_ERR_UNEXPECTED_END, 0, __LINE__);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 2, 0x84, 0x61);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 3, 0x40, 0x00, 0x00);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 1, 0x41);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 2, 0x1f, 0x80);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 1, 0x1f);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 3, 0xa3, 0x00, 0xff);
    EXPECT_ERR(PSON_ERR_UNEXPECTED_END, 3, 0xc1, 0x81, 0x61);

    /* varint_too_long at the 11th byte, present or not */
    v = (uint8_t *)xmalloc(12);
    v[0] = 0x1f;
    memset(v + 1, 0xff, 10);
    v[11] = 0x01;
    expect_err_d(v, 12, PSON_MAX_DEPTH, PSON_ERR_VARINT_TOO_LONG, 11, __LINE__);
    expect_err_d(v, 11, PSON_MAX_DEPTH, PSON_ERR_VARINT_TOO_LONG, 11, __LINE__);
    v[0] = 0x9f;
    memset(v + 1, 0x80, 10);
    v[11] = 0x00;
    expect_err_d(v, 12, PSON_MAX_DEPTH, PSON_ERR_VARINT_TOO_LONG, 11, __LINE__);
    free(v);
    /* 10 bytes with bits above 2^64 dropped: 1f ff x9 7f = 2^64-1 */
    {
        static const uint8_t m[] = {0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
        pson_reader_init(&r, m, sizeof m);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_UINT && it.v.u == UINT64_MAX &&
                  r.pos == sizeof m, "1f ff x9 7f");
    }

    /* invalid_float_width / invalid_discrete at the header */
    EXPECT_ERR(PSON_ERR_INVALID_FLOAT_WIDTH, 0, 0x42);
    EXPECT_ERR(PSON_ERR_INVALID_FLOAT_WIDTH, 1, 0xe1, 0x5f, 0x02);
    EXPECT_ERR(PSON_ERR_INVALID_DISCRETE, 0, 0x63);
    EXPECT_ERR(PSON_ERR_INVALID_DISCRETE, 0, 0x7f, 0x1f);

    /* non_string_key at the key header (before its varint) */
    EXPECT_ERR(PSON_ERR_NON_STRING_KEY, 1, 0xc1, 0x01, 0x01);
    EXPECT_ERR(PSON_ERR_NON_STRING_KEY, 4, 0xc2, 0x81, 0x61, 0x01, 0xa0, 0x01);
    EXPECT_ERR(PSON_ERR_NON_STRING_KEY, 1, 0xc1, 0x1f, 0xff);
    {
        static const uint8_t k[] = {0x61};
        pson_reader_init(&r, k, 1);
        CHECK(pson_key(&r, &key) == PSON_ERR_NON_STRING_KEY && r.error.offset == 0 && r.pos == 0, "pson_key");
    }

    /* integer_overflow for magnitude > 2^63; 2^63 itself is INT64_MIN */
    EXPECT_ERR(PSON_ERR_INTEGER_OVERFLOW, 0, 0x3f, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    {
        static const uint8_t m[] = {0x3f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
        pson_reader_init(&r, m, sizeof m);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_INT && it.v.i == INT64_MIN, "i64 min");
        static const uint8_t z[] = {0x20};
        pson_reader_init(&r, z, 1);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_INT && it.v.i == 0, "signed zero");
    }

    /* invalid_utf8 at the first bad byte */
    EXPECT_ERR(PSON_ERR_INVALID_UTF8, 2, 0x83, 0x61, 0xff, 0x62);
    EXPECT_ERR(PSON_ERR_INVALID_UTF8, 2, 0xc1, 0x81, 0xc3, 0x01);
    EXPECT_ERR(PSON_ERR_INVALID_UTF8, 2, 0x84, 0x61, 0xe2, 0x82, 0x41);

    /* depth_limit */
    v = (uint8_t *)xmalloc(201);
    memset(v, 0xe1, 200);
    v[200] = 0x01;
    expect_err_d(v, 201, PSON_MAX_DEPTH, PSON_ERR_DEPTH_LIMIT, 128, __LINE__);
    v[128] = 0x01;
    CHECK(pson_validate(v, 129, PSON_MAX_DEPTH, &used, &err) == PSON_OK && used == 129, "128 levels decode");
    free(v);
    {
        static const uint8_t a[] = {0xe1, 0xe1, 0xe0}, c0[] = {0xc0}, one[] = {0x01};
        expect_err_d(a, 3, 2, PSON_ERR_DEPTH_LIMIT, 2, __LINE__);
        expect_err_d(c0, 1, 0, PSON_ERR_DEPTH_LIMIT, 0, __LINE__);
        CHECK(pson_validate(one, 1, 0, &used, &err) == PSON_OK, "scalar with max_depth 0");
    }
    {
        /* very deep input with a huge limit: iterative; a caller-provided
         * stack lifts the PSON_MAX_DEPTH clamp (LengthLimit like Rust). */
        size_t n = 100000;
        size_t *stack = (size_t *)xmalloc(n * sizeof(size_t));
        v = (uint8_t *)xmalloc(n);
        memset(v, 0xe1, n);
        pson_reader_init(&r, v, n);
        CHECK(pson_skip_ex(&r, (size_t)-1, stack, n) == PSON_ERR_LENGTH_LIMIT && r.error.offset == n - 1 &&
                  r.pos == 0, "deep: %s@%zu", pson_err_name(r.error.kind), r.error.offset);
        /* pson_validate clamps at PSON_MAX_DEPTH (documented difference) */
        CHECK(pson_validate(v, n, (size_t)-1, &used, &err) == PSON_ERR_DEPTH_LIMIT && err.offset == PSON_MAX_DEPTH,
              "deep clamp");
        free(stack);
        free(v);
    }

    /* length_limit before anything else */
    EXPECT_ERR(PSON_ERR_LENGTH_LIMIT, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xe0);
    EXPECT_ERR(PSON_ERR_LENGTH_LIMIT, 0, 0xe2, 0x01);
    EXPECT_ERR(PSON_ERR_LENGTH_LIMIT, 0, 0xc2, 0x81, 0x61, 0x01);
    EXPECT_ERR(PSON_ERR_LENGTH_LIMIT, 0, 0xdf, 0x80, 0x80, 0x80, 0x80, 0x01, 0x80, 0x00);
    EXPECT_ERR(PSON_ERR_LENGTH_LIMIT, 1, 0xe1, 0xe1);
    {
        static const uint8_t a[] = {0xe2, 0x01};
        pson_reader_init(&r, a, 2);
        CHECK(pson_next(&r, &it) == PSON_ERR_LENGTH_LIMIT && r.error.offset == 0, "pull length_limit");
    }
    /* length_limit wins over depth_limit for the same container */
    {
        static const uint8_t a[] = {0xe1, 0xe2, 0x01};
        expect_err_d(a, 3, 1, PSON_ERR_LENGTH_LIMIT, 1, __LINE__);
    }

    /* trailing_bytes only for the exact variant */
    {
        static const uint8_t t[] = {0x01, 0x02};
        CHECK(pson_validate(t, 2, PSON_MAX_DEPTH, &used, &err) == PSON_OK && used == 1, "trailing allowed");
        CHECK(pson_validate_exact(t, 2, PSON_MAX_DEPTH, &err) == PSON_ERR_TRAILING_BYTES &&
                  err.kind == PSON_ERR_TRAILING_BYTES && err.offset == 1, "trailing_bytes");
    }

    /* buffer_too_small at the write position */
    {
        uint8_t buf[3 + 4];
        pson_writer w;
        memset(buf, 0xa5, sizeof buf);
        pson_writer_init(&w, buf, 3);
        CHECK(pson_write_u64(&w, 1) == PSON_OK, "u64");
        CHECK(pson_write_str(&w, "abc", 3) == PSON_ERR_BUFFER_TOO_SMALL && pson_writer_pos(&w) == 2,
              "str: header written, body not");
        CHECK(pson_write_bool(&w, true) == PSON_OK, "bool after failure");
        CHECK(pson_write_null(&w) == PSON_ERR_BUFFER_TOO_SMALL && pson_writer_pos(&w) == 3, "null");
        CHECK(memcmp(buf, "\x01\x83\x61\xa5\xa5\xa5\xa5", 7) == 0, "buffer %s", hexs(buf, 7));
        pson_writer_init(&w, NULL, 0);
        CHECK(pson_write_array(&w, 0) == PSON_ERR_BUFFER_TOO_SMALL && pson_writer_pos(&w) == 0, "empty buffer");
        pson_writer_init(&w, buf, 4);
        CHECK(pson_write_f64(&w, 1.5) == PSON_ERR_BUFFER_TOO_SMALL && pson_writer_pos(&w) == 0, "f32 needs 5");
        CHECK(pson_write_u64(&w, 1u << 28) == PSON_ERR_BUFFER_TOO_SMALL && pson_writer_pos(&w) == 0, "varint");
        CHECK(pson_writer_remaining(&w) == 4, "remaining");
    }

    /* names, in the order of the Rust ErrorKind::ALL */
    {
        static const char *names[] = {"unexpected_end", "varint_too_long", "invalid_float_width",
                                      "invalid_discrete", "non_string_key", "integer_overflow",
                                      "invalid_utf8", "depth_limit", "length_limit", "buffer_too_small",
                                      "trailing_bytes", "unknown_field_type", "length_mismatch"};
        for (i = 0; i < 13; i++) {
            CHECK(strcmp(pson_err_name((pson_err)(i + 1)), names[i]) == 0, "name %zu", i);
        }
        CHECK(strcmp(pson_err_name(PSON_OK), "ok") == 0, "ok name");
    }

    /* pull reader: position unchanged after an error */
    {
        static const uint8_t d[] = {0x01, 0x84, 0x61};
        pson_reader_init(&r, d, 3);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_UINT && it.v.u == 1, "first");
        CHECK(pson_next(&r, &it) == PSON_ERR_UNEXPECTED_END && r.error.offset == 3, "second");
        CHECK(pson_reader_pos(&r) == 1 && pson_reader_remaining(&r) == 2, "position kept");
    }
    /* pson_skip leaves the reader after the item / at its start on error */
    {
        static const uint8_t d[] = {0xc1, 0x81, 0x61, 0xe2, 0x01, 0x02, 0x03, 0x84};
        pson_reader_init(&r, d, sizeof d);
        CHECK(pson_skip(&r, PSON_MAX_DEPTH) == PSON_OK && r.pos == 6, "skip map");
        CHECK(pson_skip(&r, PSON_MAX_DEPTH) == PSON_OK && r.pos == 7, "skip uint");
        CHECK(pson_skip(&r, PSON_MAX_DEPTH) == PSON_ERR_UNEXPECTED_END && r.pos == 7 && r.error.offset == 8,
              "skip truncated");
    }
    /* accepted non-canonical forms (spec 1.7) */
    {
        static const uint8_t a[] = {0x1f, 0x05}, b[] = {0x1f, 0x80, 0x00}, c[] = {0x5f, 0x00, 0, 0, 0xc0, 0x3f},
                             d[] = {0x7f, 0x00}, e[] = {0xc2, 0x81, 0x61, 0x01, 0x81, 0x61, 0x02};
        pson_reader_init(&r, a, 2);
        CHECK(pson_next(&r, &it) == PSON_OK && it.v.u == 5, "1f 05");
        pson_reader_init(&r, b, 3);
        CHECK(pson_next(&r, &it) == PSON_OK && it.v.u == 0 && r.pos == 3, "1f 80 00");
        pson_reader_init(&r, c, 6);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_F32 && it.v.f32 == 1.5f, "5f 00 f32");
        pson_reader_init(&r, d, 2);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_BOOL && !it.v.b, "7f 00");
        CHECK(pson_validate_exact(e, sizeof e, PSON_MAX_DEPTH, &err) == PSON_OK, "duplicate keys");
    }
}

/* ------------------------------------------------------------------ */
/* 3. Encodings, float rule, sizes, UTF-8                               */
/* ------------------------------------------------------------------ */

static double f64_from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

static void expect_bytes(pson_writer *w, const uint8_t *buf, size_t expect_len, const char *want_hex, size_t lenfn,
                         pson_err e, int line)
{
    uint8_t want[64];
    size_t n = unhex(want_hex, want);
    check_(e == PSON_OK && w->pos == n && memcmp(buf, want, n) == 0 && lenfn == n && expect_len == n, __FILE__,
           line, "got %s (len fn %zu) want %s", hexs(buf, w->pos), lenfn, want_hex);
}
#define ENC(call, lenexpr, want)                                                            \
    do {                                                                                    \
        uint8_t b_[64];                                                                     \
        pson_writer w_;                                                                     \
        pson_err e_;                                                                        \
        pson_writer_init(&w_, b_, sizeof b_);                                               \
        e_ = call;                                                                          \
        expect_bytes(&w_, b_, w_.pos, want, lenexpr, e_, __LINE__);                         \
    } while (0)

static void test_encodings(void)
{
    context = "encodings";
    ENC(pson_write_u64(&w_, 0), pson_len_u64(0), "00");
    ENC(pson_write_u64(&w_, 30), pson_len_u64(30), "1e");
    ENC(pson_write_u64(&w_, 31), pson_len_u64(31), "1f1f");
    ENC(pson_write_u64(&w_, 127), pson_len_u64(127), "1f7f");
    ENC(pson_write_u64(&w_, 128), pson_len_u64(128), "1f8001");
    ENC(pson_write_u64(&w_, 16384), pson_len_u64(16384), "1f808001");
    ENC(pson_write_u64(&w_, 1351824120), pson_len_u64(1351824120), "1ff8e5cc8405");
    ENC(pson_write_u64(&w_, UINT64_MAX), pson_len_u64(UINT64_MAX), "1fffffffffffffffffff01");
    ENC(pson_write_i64(&w_, 5), pson_len_i64(5), "05");
    ENC(pson_write_i64(&w_, -1), pson_len_i64(-1), "21");
    ENC(pson_write_i64(&w_, -2), pson_len_i64(-2), "22");
    ENC(pson_write_i64(&w_, -31), pson_len_i64(-31), "3f1f");
    ENC(pson_write_i64(&w_, INT64_MAX), pson_len_i64(INT64_MAX), "1fffffffffffffffff7f");
    ENC(pson_write_i64(&w_, INT64_MIN), pson_len_i64(INT64_MIN), "3f80808080808080808001");
    ENC(pson_write_null(&w_), pson_len_null(), "62");
    ENC(pson_write_bool(&w_, true), pson_len_bool(true), "61");
    ENC(pson_write_bool(&w_, false), pson_len_bool(false), "60");
    ENC(pson_write_str(&w_, "", 0), pson_len_str(0), "80");
    ENC(pson_write_str(&w_, "a\0b", 3), pson_len_str(3), "83610062");
    ENC(pson_write_cstr(&w_, "neg"), pson_len_str(3), "836e6567");
    ENC(pson_write_bytes(&w_, NULL, 0), pson_len_bytes(0), "a0");
    ENC(pson_write_bytes(&w_, "\x00\xff\x7f", 3), pson_len_bytes(3), "a300ff7f");
    ENC(pson_write_map(&w_, 0), pson_len_map(0), "c0");
    ENC(pson_write_map(&w_, 31), pson_len_map(31), "df1f");
    ENC(pson_write_array(&w_, 0), pson_len_array(0), "e0");
    ENC(pson_write_array(&w_, 30), pson_len_array(30), "fe");
    ENC(pson_write_array(&w_, 31), pson_len_array(31), "ff1f");
    ENC(pson_write_header(&w_, 5, 2), pson_header_len(2), "a2");
    /* float rule (spec 1.5) */
    ENC(pson_write_f64(&w_, 1.0), pson_len_f64(1.0), "01");
    ENC(pson_write_f64(&w_, -1.0), pson_len_f64(-1.0), "21");
    ENC(pson_write_f64(&w_, -2.0), pson_len_f64(-2.0), "22");
    ENC(pson_write_f64(&w_, 0.0), pson_len_f64(0.0), "00");
    ENC(pson_write_f64(&w_, -0.0), pson_len_f64(-0.0), "00");
    ENC(pson_write_f64(&w_, 4294967296.0), pson_len_f64(4294967296.0), "1f8080808010");
    ENC(pson_write_f64(&w_, 1.5), pson_len_f64(1.5), "400000c03f");
    ENC(pson_write_f64(&w_, -1.5), pson_len_f64(-1.5), "400000c0bf");
    ENC(pson_write_f64(&w_, 0.5), pson_len_f64(0.5), "400000003f");
    ENC(pson_write_f64(&w_, 48.75), pson_len_f64(48.75), "4000004342");
    ENC(pson_write_f64(&w_, 2.3), pson_len_f64(2.3), "416666666666660240");
    ENC(pson_write_f64(&w_, 1.03), pson_len_f64(1.03), "417b14ae47e17af03f");
    ENC(pson_write_f64(&w_, 0.1), pson_len_f64(0.1), "419a9999999999b93f");
    ENC(pson_write_f64(&w_, HUGE_VAL), pson_len_f64(HUGE_VAL), "400000807f");
    ENC(pson_write_f64(&w_, -HUGE_VAL), pson_len_f64(-HUGE_VAL), "40000080ff");
    ENC(pson_write_f64(&w_, 9223372036854775808.0), pson_len_f64(9223372036854775808.0), "400000005f");
    ENC(pson_write_f64(&w_, -9223372036854775808.0), pson_len_f64(-9223372036854775808.0),
        "3f80808080808080808001");
    ENC(pson_write_f64(&w_, 9223372036854774784.0), pson_len_f64(9223372036854774784.0), "1f80f8ffffffffffff7f");
    ENC(pson_write_f64(&w_, -9223372036854774784.0), pson_len_f64(-9223372036854774784.0), "3f80f8ffffffffffff7f");
    ENC(pson_write_f64(&w_, -9223372036854779904.0), pson_len_f64(-9223372036854779904.0), "41020000000000e0c3");
    ENC(pson_write_f64(&w_, 18446744073709551616.0), pson_len_f64(18446744073709551616.0), "400000805f");
    ENC(pson_write_f64(&w_, 9007199254740992.0), pson_len_f64(9007199254740992.0), "1f8080808080808010");
    ENC(pson_write_f64(&w_, 1e15 + 0.5), pson_len_f64(1e15 + 0.5), "4104003426f56b0c43");
    ENC(pson_write_f64(&w_, 16777217.0), pson_len_f64(16777217.0), "1f81808008");
    ENC(pson_write_f64(&w_, 1e20), pson_len_f64(1e20), "41408cb5781daf1544");
    ENC(pson_write_f64(&w_, FLT_MAX), pson_len_f64(FLT_MAX), "40ffff7f7f");
    ENC(pson_write_f64(&w_, 3.4e38), pson_len_f64(3.4e38), "41addf8cc733f9ef47");
    ENC(pson_write_f64(&w_, 1e300), pson_len_f64(1e300), "419c7500883ce4377e");
    ENC(pson_write_f64(&w_, 1e-300), pson_len_f64(1e-300), "4159f3f8c21f6ea501");
    ENC(pson_write_f64(&w_, FLT_MIN), pson_len_f64(FLT_MIN), "4000008000");
    ENC(pson_write_f64_bits(&w_, 0x36a0000000000000u), pson_len_f64_bits(0x36a0000000000000u), "4001000000");
    ENC(pson_write_f64_bits(&w_, 0x36b8000000000000u), pson_len_f64_bits(0x36b8000000000000u), "4003000000");
    ENC(pson_write_f64_bits(&w_, 0x3690000000000000u), pson_len_f64_bits(0x3690000000000000u), "410000000000009036");
    ENC(pson_write_f64_bits(&w_, 0x380fffffc0000000u), pson_len_f64_bits(0x380fffffc0000000u), "40ffff7f00");
    ENC(pson_write_f64_bits(&w_, 1), pson_len_f64_bits(1), "410100000000000000");
    ENC(pson_write_f64_bits(&w_, 0x7ff8000000000000u), pson_len_f64_bits(0x7ff8000000000000u), "41000000000000f87f");
    ENC(pson_write_f64_bits(&w_, 0xfff8000000000000u), pson_len_f64_bits(0xfff8000000000000u), "41000000000000f87f");
    ENC(pson_write_f64_bits(&w_, 0x7ff0000000000001u), pson_len_f64_bits(0x7ff0000000000001u), "41000000000000f87f");
    ENC(pson_write_f64(&w_, f64_from_bits(0x7ff8dead00000000u)), 9, "41000000000000f87f");
    ENC(pson_write_f32(&w_, 1.5f), pson_len_f32(1.5f), "400000c03f");
    ENC(pson_write_f32(&w_, 0.1f), pson_len_f32(0.1f), "40cdcccc3d");
    ENC(pson_write_f32(&w_, 16777216.0f), pson_len_f32(16777216.0f), "1f80808008");
    ENC(pson_write_f32(&w_, -0.0f), pson_len_f32(-0.0f), "00");
    ENC(pson_write_f32_bits(&w_, 1), pson_len_f64_bits(pson_f32_bits_to_f64_bits(1)), "4001000000");
    ENC(pson_write_f32_bits(&w_, 0x807fffffu), 5, "40ffff7f80");
    ENC(pson_write_f32_bits(&w_, 0x7fc00001u), 9, "41000000000000f87f");
    ENC(pson_write_f32_bits(&w_, 0xff800000u), 5, "40000080ff");
    ENC(pson_write_f32_bits(&w_, 0x5f000000u), 5, "400000005f");
    ENC(pson_write_f32_bits(&w_, 0xdf000000u), 11, "3f80808080808080808001");
    ENC(pson_write_f32_bits(&w_, 0x7f7fffffu), 5, "40ffff7f7f");
    /* the spec's paper payload Test05 {"bool":true}, streamed */
    ENC((pson_write_map(&w_, 1), pson_write_cstr(&w_, "bool"), pson_write_bool(&w_, true)), 7, "c184626f6f6c61");
}

/* Floating-point reference of the Rust classify_f64 (no UB: ranges first). */
static pson_float_repr ref_classify(double d)
{
    pson_float_repr r;
    const double two63 = 9223372036854775808.0;
    if (isfinite(d) && d >= -two63 && d < two63 && trunc(d) == d) {
        r.kind = d >= 0 ? PSON_FLOAT_UINT : PSON_FLOAT_NEG;
        r.value = d >= 0 ? (uint64_t)d : (uint64_t)(-d);
    } else if (isnan(d)) {
        r.kind = PSON_FLOAT_F64;
        r.value = 0x7ff8000000000000u;
    } else if (isinf(d) || fabs(d) <= FLT_MAX) {
        float f = (float)d;
        if ((double)f == d) {
            uint32_t b;
            memcpy(&b, &f, 4);
            r.kind = PSON_FLOAT_F32;
            r.value = b;
        } else {
            r.kind = PSON_FLOAT_F64;
            memcpy(&r.value, &d, 8);
        }
    } else {
        r.kind = PSON_FLOAT_F64;
        memcpy(&r.value, &d, 8);
    }
    return r;
}

#define M52_T ((1ull << 52) - 1)

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* A double with an interesting bit pattern. */
static uint64_t rnd_double_bits(void)
{
    uint64_t r = rnd(), b;
    uint64_t sign = (r & 1) << 63;
    unsigned mode = (unsigned)(r >> 1) % 6;
    uint64_t exp, mant = rnd() & M52_T;
    switch (mode) {
    case 0: return rnd(); /* anything */
    case 1: exp = 1023 + (rnd() % 70); break;                    /* integers, around 2^63 */
    case 2: exp = 1023 - 160 + (rnd() % 40); break;              /* f32 subnormal range */
    case 3: exp = 1023 - 130 + (rnd() % 260); mant &= ~((1ull << 29) - 1); break; /* f32-exact */
    case 4: exp = rnd() % 3 == 0 ? 0 : 0x7ff; break;           /* specials */
    default: exp = 1023 + (rnd() % 64); mant &= ~((1ull << (rnd() % 53)) - 1); break;
    }
    b = sign | (exp << 52) | mant;
    return b;
}

static void test_float_rule_and_sizes(void)
{
    unsigned long i;
    uint8_t buf[16];
    context = "float rule";
    for (i = 0; i < 2000000; i++) {
        uint64_t bits = rnd_double_bits();
        double d = f64_from_bits(bits);
        pson_float_repr a = pson_classify_f64_bits(bits), b = ref_classify(d);
        if (!CHECK(a.kind == b.kind && a.value == b.value, "classify %016llx: %d/%016llx vs ref %d/%016llx",
                   (unsigned long long)bits, a.kind, (unsigned long long)a.value, b.kind,
                   (unsigned long long)b.value)) {
            break;
        }
        if ((i & 7) == 0) {
            /* encoded_len == bytes written; the item decodes to the same number */
            pson_writer w;
            pson_reader r;
            pson_item it;
            pson_writer_init(&w, buf, sizeof buf);
            CHECK(pson_write_f64(&w, d) == PSON_OK && w.pos == pson_len_f64(d), "len f64");
            pson_reader_init(&r, buf, w.pos);
            if (CHECK(pson_next(&r, &it) == PSON_OK && r.pos == w.pos, "decode back")) {
                double back = it.type == PSON_TYPE_UINT ? (double)it.v.u
                              : it.type == PSON_TYPE_INT ? (double)it.v.i
                              : it.type == PSON_TYPE_F32 ? (double)it.v.f32
                                                          : it.v.f64;
                CHECK(feq(back, d) || (d == 0 && back == 0), "value %016llx", (unsigned long long)bits);
            }
        }
    }
    /* f32 widening against the hardware conversion */
    for (i = 0; i < 1000000; i++) {
        uint32_t fb = (uint32_t)rnd();
        float f;
        double d;
        uint64_t db;
        if (i < 256) {
            fb = (uint32_t)i; /* subnormals */
        }
        memcpy(&f, &fb, 4);
        d = (double)f;
        memcpy(&db, &d, 8);
        if (isnan(f)) {
            CHECK(isnan(f64_from_bits(pson_f32_bits_to_f64_bits(fb))), "widen NaN");
        } else if (!CHECK(pson_f32_bits_to_f64_bits(fb) == db, "widen %08x", fb)) {
            break;
        }
    }
    context = "sizes";
    for (i = 0; i < 200000; i++) {
        uint64_t u = rnd() >> (rnd() % 64);
        int64_t s = (int64_t)u;
        size_t len = (size_t)(rnd() % 300);
        pson_writer w;
        uint8_t big[320], src[300];
        pson_reader r;
        pson_item it;
        pson_writer_init(&w, big, sizeof big);
        CHECK(pson_write_u64(&w, u) == PSON_OK && w.pos == pson_len_u64(u), "len u64");
        pson_reader_init(&r, big, w.pos);
        CHECK(pson_next(&r, &it) == PSON_OK && it.type == PSON_TYPE_UINT && it.v.u == u, "u64 back");
        pson_writer_init(&w, big, sizeof big);
        CHECK(pson_write_i64(&w, s) == PSON_OK && w.pos == pson_len_i64(s), "len i64");
        pson_reader_init(&r, big, w.pos);
        CHECK(pson_next(&r, &it) == PSON_OK &&
                  ((it.type == PSON_TYPE_UINT && s >= 0 && it.v.u == (uint64_t)s) ||
                   (it.type == PSON_TYPE_INT && s < 0 && it.v.i == s)),
              "i64 back");
        pson_writer_init(&w, big, sizeof big);
        memset(src, 'x', len);
        CHECK(pson_write_bytes(&w, src, len) == PSON_OK && w.pos == pson_len_bytes(len), "len bytes");
        CHECK(pson_varint_len(u) == (u < 128 ? 1u : pson_header_len(u) - 1), "varint_len");
    }
    CHECK(pson_len_str((size_t)-1) == (size_t)-1, "saturating len");
}

/* Reference UTF-8 check: decode the code point, apply the ranges. */
static size_t ref_utf8(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t b = p[i];
        size_t k, need;
        uint32_t cp, min;
        if (b < 0x80) {
            i++;
            continue;
        } else if ((b & 0xe0) == 0xc0) {
            need = 1, cp = b & 0x1f, min = 0x80;
        } else if ((b & 0xf0) == 0xe0) {
            need = 2, cp = b & 0x0f, min = 0x800;
        } else if ((b & 0xf8) == 0xf0) {
            need = 3, cp = b & 0x07, min = 0x10000;
        } else {
            return i;
        }
        for (k = 1; k <= need; k++) {
            if (i + k >= n || (p[i + k] & 0xc0) != 0x80) {
                return i;
            }
            cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            return i;
        }
        i += need + 1;
    }
    return n;
}

/* The f32 and 32-bit-varint fast paths write exactly what the general 64-bit paths write:
 * every 4099th binary32 pattern plus the edges of each exponent, and headers around every
 * power of two. */
static void test_fast_paths(void)
{
    uint8_t a[16], b[16];
    uint64_t i;
    unsigned long bad = 0;
    for (i = 0; i <= 0xffffffffu; i += (i & 0xffffu) == 0 ? 1 : 4099) {
        pson_writer wa, wb;
        uint32_t bits = (uint32_t)i;
        pson_err ea, eb;
        pson_writer_init(&wa, a, sizeof a);
        pson_writer_init(&wb, b, sizeof b);
        ea = pson_write_f32_bits(&wa, bits);
        eb = pson_write_f64_bits(&wb, pson_f32_bits_to_f64_bits(bits));
        if (ea != eb || pson_writer_pos(&wa) != pson_writer_pos(&wb) || memcmp(a, b, pson_writer_pos(&wa)) != 0) {
            bad++;
        }
    }
    CHECK(bad == 0, "f32 fast path: %lu patterns differ from the widened f64 path", bad);
    for (i = 0; i < 64; i++) {
        uint64_t base = (uint64_t)1 << i, d;
        for (d = 0; d < 3; d++) {
            uint64_t v = base - 1 + d;
            pson_writer wa;
            size_t k, n = 1;
            uint8_t want[11];
            uint64_t x = v;
            pson_writer_init(&wa, a, sizeof a);
            CHECK(pson_write_u64(&wa, v) == PSON_OK, "u64 %llu", (unsigned long long)v);
            if (v < 31) {
                want[0] = (uint8_t)v;
            } else {
                want[0] = 31;
                while (x >= 0x80u) {
                    want[n++] = (uint8_t)((x & 0x7fu) | 0x80u);
                    x >>= 7;
                }
                want[n++] = (uint8_t)x;
            }
            CHECK(pson_writer_pos(&wa) == n, "u64 %llu: length", (unsigned long long)v);
            for (k = 0; k < n && k < pson_writer_pos(&wa); k++) {
                CHECK(a[k] == want[k], "u64 %llu: byte %lu", (unsigned long long)v, (unsigned long)k);
            }
        }
    }
}

static void test_utf8(void)
{
    uint8_t s[5];
    uint32_t x;
    context = "utf8";
    s[0] = 'a';
    /* every 1-, 2- and 3-byte sequence after an 'a' */
    for (x = 0; x < (1u << 24); x++) {
        s[1] = (uint8_t)(x >> 16);
        s[2] = (uint8_t)(x >> 8);
        s[3] = (uint8_t)x;
        if (pson_utf8_valid_up_to(s, 4) != ref_utf8(s, 4) || pson_utf8_valid_up_to(s, 3) != ref_utf8(s, 3) ||
            pson_utf8_valid_up_to(s, 2) != ref_utf8(s, 2)) {
            CHECK(0, "utf8 %s", hexs(s, 4));
            break;
        }
    }
    /* random 4-byte sequences with a 4-byte lead */
    for (x = 0; x < 2000000; x++) {
        uint64_t r = rnd();
        s[1] = (uint8_t)(0xf0 + (r & 7));
        s[2] = (uint8_t)(r >> 8);
        s[3] = (uint8_t)(r >> 16);
        s[4] = (uint8_t)(r >> 24);
        if ((r >> 40) & 1) {
            s[3] = (uint8_t)(0x80 | (s[3] & 0x3f));
            s[4] = (uint8_t)(0x80 | (s[4] & 0x3f));
        }
        if (pson_utf8_valid_up_to(s, 5) != ref_utf8(s, 5) || pson_utf8_valid_up_to(s, 4) != ref_utf8(s, 4)) {
            CHECK(0, "utf8 %s", hexs(s, 5));
            break;
        }
    }
    CHECK(pson_utf8_valid_up_to((const uint8_t *)"\xf4\x8f\xbf\xbf", 4) == 4, "U+10FFFF");
    CHECK(pson_utf8_valid_up_to((const uint8_t *)"\xf4\x90\x80\x80", 4) == 0, "> U+10FFFF");
    CHECK(pson_utf8_valid_up_to((const uint8_t *)"\xed\xa0\x80", 3) == 0, "surrogate");
    CHECK(pson_utf8_valid_up_to((const uint8_t *)"ab\xe2\x82", 4) == 2, "incomplete");
}

int main(void)
{
    test_vectors();
    test_errors();
    test_encodings();
    test_float_rule_and_sizes();
    test_fast_paths();
    test_utf8();
    printf("%lu checks, %lu failed\n", n_checks, n_failed);
    return n_failed == 0 ? 0 : 1;
}
