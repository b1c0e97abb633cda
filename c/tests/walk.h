/*
 * walk.h - test/tool helper (not part of the device library): walks one
 * root item with the pull reader, exactly in the order of the Rust
 * `decode_with` (pop finished containers; read a key when the innermost map
 * expects one; else read an item and, for a container, check the depth after
 * its count check), calling a callback per item and per container end.
 *
 * It is written independently of pson_skip_ex so the two cross-check each
 * other in the tests and the fuzz target.
 */
#ifndef PSON_WALK_H
#define PSON_WALK_H

#include "pson.h"

typedef struct walk_frame {
    pson_type type; /* PSON_TYPE_MAP or PSON_TYPE_ARRAY */
    size_t count;   /* pairs / elements */
    size_t done;    /* pairs / elements completed */
    int have_key;   /* maps: key of pair `done` already read */
} walk_frame;

typedef enum walk_event_kind {
    WALK_ITEM, /* an item (containers: their header) */
    WALK_KEY,  /* a map key (item->type == PSON_TYPE_STR) */
    WALK_END   /* the end of a container (item->type = MAP / ARRAY) */
} walk_event_kind;

/* index: position in the parent (pair index for keys and map values,
 * element index in arrays; 0 for the root); parent: the parent's type, or
 * -1 for the root. Return anything but PSON_OK to stop the walk; walk then
 * returns that code (and leaves *err alone). */
typedef pson_err (*walk_cb)(void *ctx, walk_event_kind ev, const pson_item *item,
                       int parent, size_t index);

static pson_err walk(const uint8_t *buf, size_t len, size_t max_depth,
                     walk_frame *stack, size_t stack_cap,
                     walk_cb cb, void *ctx, size_t *consumed, pson_error *err)
{
    pson_reader r;
    size_t depth = 0;
    pson_err e;
    pson_item it;

    pson_reader_init(&r, buf, len);
    for (;;) {
        walk_frame *top = depth ? &stack[depth - 1] : NULL;
        int parent = top ? (int)top->type : -1;
        size_t index = top ? top->done : 0;

        if (top && top->done == top->count) {
            it.type = top->type;
            it.v.count = top->count;
            depth--;
            if (cb && (e = cb(ctx, WALK_END, &it, depth ? (int)stack[depth - 1].type : -1,
                              depth ? stack[depth - 1].done : 0)) != PSON_OK) {
                return e;
            }
        } else if (top && top->type == PSON_TYPE_MAP && !top->have_key) {
            pson_view k;
            e = pson_key(&r, &k);
            if (e != PSON_OK) {
                break;
            }
            top->have_key = 1;
            it.type = PSON_TYPE_STR;
            it.v.str = k;
            if (cb && (e = cb(ctx, WALK_KEY, &it, parent, index)) != PSON_OK) {
                return e;
            }
            continue;
        } else {
            size_t at = r.pos;
            e = pson_next(&r, &it);
            if (e != PSON_OK) {
                break;
            }
            if (it.type == PSON_TYPE_MAP || it.type == PSON_TYPE_ARRAY) {
                if (depth >= max_depth || depth >= stack_cap) {
                    r.error.kind = e = PSON_ERR_DEPTH_LIMIT;
                    r.error.offset = at;
                    break;
                }
            }
            if (cb && (e = cb(ctx, WALK_ITEM, &it, parent, index)) != PSON_OK) {
                return e;
            }
            if (it.type == PSON_TYPE_MAP || it.type == PSON_TYPE_ARRAY) {
                walk_frame *f = &stack[depth++];
                f->type = it.type;
                f->count = it.v.count;
                f->done = 0;
                f->have_key = 0;
                continue; /* empty containers end on the next round */
            }
        }
        /* a value is complete */
        if (depth == 0) {
            if (consumed) {
                *consumed = r.pos;
            }
            return PSON_OK;
        }
        stack[depth - 1].done++;
        stack[depth - 1].have_key = 0;
    }
    if (err) {
        *err = r.error;
    }
    return e;
}

/* Re-encode callback: writes every item canonically (ctx = pson_writer). */
static pson_err walk_reencode_cb(void *ctx, walk_event_kind ev, const pson_item *it,
                            int parent, size_t index)
{
    pson_writer *w = (pson_writer *)ctx;
    pson_err e = PSON_OK;
    (void)parent;
    (void)index;
    if (ev == WALK_END) {
        return PSON_OK;
    }
    switch (it->type) {
    case PSON_TYPE_UINT: e = pson_write_u64(w, it->v.u); break;
    case PSON_TYPE_INT: e = pson_write_i64(w, it->v.i); break;
    case PSON_TYPE_F32: e = pson_write_f32(w, it->v.f32); break;
#if PSON_HAS_DOUBLE
    case PSON_TYPE_F64: e = pson_write_f64(w, it->v.f64); break;
#else
    case PSON_TYPE_F64: e = pson_write_f64_bits(w, it->v.f64_bits); break;
#endif
    case PSON_TYPE_BOOL: e = pson_write_bool(w, it->v.b); break;
    case PSON_TYPE_NULL: e = pson_write_null(w); break;
    case PSON_TYPE_STR: e = pson_write_str(w, (const char *)it->v.str.ptr, it->v.str.len); break;
    case PSON_TYPE_BYTES: e = pson_write_bytes(w, it->v.bytes.ptr, it->v.bytes.len); break;
    case PSON_TYPE_MAP: e = pson_write_map(w, it->v.count); break;
    case PSON_TYPE_ARRAY: e = pson_write_array(w, it->v.count); break;
    }
    return e;
}

#endif /* PSON_WALK_H */
