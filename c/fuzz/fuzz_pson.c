/*
 * libFuzzer target for the C PSON v2 reader, validator and writer.
 *
 * For every input:
 *  - pson_validate and an independent pull-reader walk (tests/walk.h) agree
 *    on the result, the error kind and offset (offset <= input length), at
 *    the default depth and at a small depth taken from the input;
 *  - a flat pson_next scan keeps the position in bounds and unchanged on error;
 * and when the root item is valid:
 *  - its canonical re-encoding validates exactly, has the size predicted by
 *    the pson_len_* functions, decodes to the same values, and re-encodes to
 *    itself (idempotent);
 *  - re-encoding into a buffer one byte too small fails cleanly (the buffer
 *    is heap-allocated at exactly that size, so ASan sees any overflow).
 * Any disagreement calls abort().
 */
#include "pson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

#define FAIL(msg)                                                                   \
    do {                                                                            \
        fprintf(stderr, "fuzz_pson: %s (line %d)\n", msg, __LINE__);               \
        abort();                                                                    \
    } while (0)

static walk_frame frames[PSON_MAX_DEPTH];

static void agree(const uint8_t *data, size_t size, size_t max_depth, size_t *used_out, pson_err *res)
{
    size_t u1 = 0, u2 = 0;
    pson_error e1 = {PSON_OK, 0}, e2 = {PSON_OK, 0};
    pson_err r1 = pson_validate(data, size, max_depth, &u1, &e1);
    pson_err r2 = walk(data, size, max_depth, frames, PSON_MAX_DEPTH, NULL, NULL, &u2, &e2);
    if (r1 != r2) {
        FAIL("pson_validate and walk disagree");
    }
    if (r1 == PSON_OK) {
        if (u1 != u2 || u1 > size || u1 == 0) {
            FAIL("consumed");
        }
    } else {
        if (e1.kind != r1 || e2.kind != r2 || e1.offset != e2.offset || e1.offset > size) {
            FAIL("error kind/offset");
        }
        if (r1 == PSON_ERR_BUFFER_TOO_SMALL || r1 == PSON_ERR_TRAILING_BYTES) {
            FAIL("impossible decode error");
        }
    }
    *used_out = u1;
    *res = r1;
}

/* Sum of pson_len_* over the items. */
static pson_err len_cb(void *ctx, walk_event_kind ev, const pson_item *it, int parent, size_t index)
{
    size_t *sum = (size_t *)ctx;
    (void)parent;
    (void)index;
    if (ev == WALK_END) {
        return PSON_OK;
    }
    switch (it->type) {
    case PSON_TYPE_UINT: *sum += pson_len_u64(it->v.u); break;
    case PSON_TYPE_INT: *sum += pson_len_i64(it->v.i); break;
    case PSON_TYPE_F32: *sum += pson_len_f32(it->v.f32); break;
    case PSON_TYPE_F64: *sum += pson_len_f64(it->v.f64); break;
    case PSON_TYPE_BOOL: *sum += pson_len_bool(it->v.b); break;
    case PSON_TYPE_NULL: *sum += pson_len_null(); break;
    case PSON_TYPE_STR: *sum += pson_len_str(it->v.str.len); break;
    case PSON_TYPE_BYTES: *sum += pson_len_bytes(it->v.bytes.len); break;
    case PSON_TYPE_MAP: *sum += pson_len_map(it->v.count); break;
    case PSON_TYPE_ARRAY: *sum += pson_len_array(it->v.count); break;
    }
    return PSON_OK;
}

/* Items of a walk, reduced to comparable form. */
typedef struct cmp_item {
    int kind; /* 0 number, 1 other */
    int neg;
    uint64_t mag;     /* integers */
    double f;         /* floats */
    int is_float;
    pson_item item;   /* others */
} cmp_item;

typedef struct cmp_list {
    cmp_item *v;
    size_t n, cap;
} cmp_list;

static pson_err collect_cb(void *ctx, walk_event_kind ev, const pson_item *it, int parent, size_t index)
{
    cmp_list *l = (cmp_list *)ctx;
    cmp_item *c;
    (void)parent;
    (void)index;
    if (ev == WALK_END) {
        return PSON_OK;
    }
    if (l->n == l->cap) {
        FAIL("more items than bytes");
    }
    c = &l->v[l->n++];
    memset(c, 0, sizeof *c);
    c->item = *it;
    switch (it->type) {
    case PSON_TYPE_UINT: c->mag = it->v.u; break;
    case PSON_TYPE_INT:
        c->neg = it->v.i < 0;
        c->mag = c->neg ? (uint64_t)0 - (uint64_t)it->v.i : (uint64_t)it->v.i;
        break;
    case PSON_TYPE_F32: c->is_float = 1; c->f = (double)it->v.f32; break;
    case PSON_TYPE_F64: c->is_float = 1; c->f = it->v.f64; break;
    default: c->kind = 1; break;
    }
    return PSON_OK;
}

static int num_eq(const cmp_item *a, const cmp_item *b)
{
    if (!a->is_float && !b->is_float) {
        return (a->mag == 0 && b->mag == 0) || (a->neg == b->neg && a->mag == b->mag);
    }
    if (a->is_float && b->is_float) {
        return (a->f != a->f && b->f != b->f) || a->f == b->f;
    }
    if (a->is_float) {
        return num_eq(b, a);
    }
    /* a integer, b float: the float must be exactly that integer */
    {
        double x = a->neg ? -(double)a->mag : (double)a->mag;
        return x == b->f;
    }
}

static int item_eq(const cmp_item *a, const cmp_item *b)
{
    if (a->kind != b->kind) {
        return 0;
    }
    if (a->kind == 0) {
        return num_eq(a, b);
    }
    if (a->item.type != b->item.type) {
        return 0;
    }
    switch (a->item.type) {
    case PSON_TYPE_BOOL: return a->item.v.b == b->item.v.b;
    case PSON_TYPE_NULL: return 1;
    case PSON_TYPE_STR:
    case PSON_TYPE_BYTES:
        return a->item.v.str.len == b->item.v.str.len &&
               (a->item.v.str.len == 0 || memcmp(a->item.v.str.ptr, b->item.v.str.ptr, a->item.v.str.len) == 0);
    default: return a->item.v.count == b->item.v.count;
    }
}

static void collect(const uint8_t *p, size_t n, cmp_list *l)
{
    size_t used;
    pson_error err;
    l->cap = n + 1;
    l->n = 0;
    l->v = (cmp_item *)malloc(l->cap * sizeof *l->v);
    if (!l->v) {
        FAIL("oom");
    }
    if (walk(p, n, PSON_MAX_DEPTH, frames, PSON_MAX_DEPTH, collect_cb, l, &used, &err) != PSON_OK) {
        FAIL("collect walk failed on valid input");
    }
}

static uint8_t *reencode(const uint8_t *p, size_t n, size_t cap, size_t *out_len, pson_err *res)
{
    uint8_t *out = (uint8_t *)malloc(cap ? cap : 1);
    pson_writer w;
    size_t used;
    pson_error err;
    if (!out) {
        FAIL("oom");
    }
    pson_writer_init(&w, cap ? out : NULL, cap);
    *res = walk(p, n, PSON_MAX_DEPTH, frames, PSON_MAX_DEPTH, walk_reencode_cb, &w, &used, &err);
    if (w.pos > cap) {
        FAIL("writer position past capacity");
    }
    *out_len = w.pos;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t used = 0, used_small = 0;
    pson_err res, res_small;

    agree(data, size, PSON_MAX_DEPTH, &used, &res);
    agree(data, size, size ? (size_t)(data[0] & 7u) : 0, &used_small, &res_small);

    /* flat scan with the pull reader */
    {
        pson_reader r;
        pson_item it;
        pson_reader_init(&r, data, size);
        for (;;) {
            size_t before = r.pos;
            pson_err e = pson_next(&r, &it);
            if (e != PSON_OK) {
                if (r.pos != before || r.error.kind != e || r.error.offset > size) {
                    FAIL("pull reader error state");
                }
                break;
            }
            if (r.pos <= before || r.pos > size) {
                FAIL("pull reader position");
            }
            if ((it.type == PSON_TYPE_STR && pson_utf8_valid_up_to(it.v.str.ptr, it.v.str.len) != it.v.str.len) ||
                (it.type == PSON_TYPE_ARRAY && it.v.count > size - r.pos) ||
                (it.type == PSON_TYPE_MAP && it.v.count > (size - r.pos) / 2)) {
                FAIL("pull reader item");
            }
        }
    }
    if (pson_utf8_valid_up_to(data, size) > size) {
        FAIL("utf8");
    }

    if (res == PSON_OK) {
        size_t len1 = 0, len2 = 0, predicted = 0, k, used2 = 0;
        pson_err r1, r2;
        pson_error err;
        uint8_t *out1 = reencode(data, used, 2 * used + 16, &len1, &r1);
        uint8_t *out2;
        cmp_list a, b;
        if (r1 != PSON_OK) {
            FAIL("re-encode failed");
        }
        walk(data, used, PSON_MAX_DEPTH, frames, PSON_MAX_DEPTH, len_cb, &predicted, &used2, &err);
        if (predicted != len1) {
            FAIL("pson_len_* disagrees with bytes written");
        }
        if (pson_validate_exact(out1, len1, PSON_MAX_DEPTH, &err) != PSON_OK) {
            FAIL("re-encoding does not validate");
        }
        out2 = reencode(out1, len1, len1, &len2, &r2);
        if (r2 != PSON_OK || len2 != len1 || memcmp(out1, out2, len1) != 0) {
            FAIL("re-encoding is not idempotent");
        }
        free(out2);
        collect(data, used, &a);
        collect(out1, len1, &b);
        if (a.n != b.n) {
            FAIL("item count changed");
        }
        for (k = 0; k < a.n; k++) {
            if (!item_eq(&a.v[k], &b.v[k])) {
                FAIL("value changed by re-encoding");
            }
        }
        free(a.v);
        free(b.v);
        /* one byte short: a clean BUFFER_TOO_SMALL, no write past cap */
        out2 = reencode(data, used, len1 - 1, &len2, &r2);
        if (r2 != PSON_ERR_BUFFER_TOO_SMALL || memcmp(out2, out1, len2) != 0) {
            FAIL("short buffer");
        }
        free(out2);
        free(out1);
    }
    return 0;
}
