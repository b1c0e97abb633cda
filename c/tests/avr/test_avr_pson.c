/*
 * test_avr_pson.c - the PSON vectors on AVR (make test-avr): for every
 * entry of the vector file (build/avr/pson_vectors.h, made by
 * gen_avr_pson.py; a record is copied from flash to RAM before use):
 *   roundtrip: the `json` events written with the bit-pattern API give
 *     exactly `hex`, the pson_len_* sum is the length, every smaller
 *     capacity fails with buffer_too_small without writing past it; `hex`
 *     decodes (walk and pson_validate agree) to exactly the reference
 *     events (floats as bits), consuming everything, and re-encodes to `hex`;
 *   decode_only: ok vectors decode to the reference events and `consumed`,
 *     error vectors fail with an offset inside the input;
 *   every prefix of every vector: walk and pson_validate agree.
 */
#include "pson.h"
#include "avr_check.h"
#include "walk.h"

enum { EV_NULL, EV_BOOL, EV_UINT, EV_INT, EV_F32, EV_F64, EV_STR, EV_BYTES, EV_MAP, EV_ARRAY };

typedef struct pv_vec {
    const char *name;     /* flash */
    const char *gen_error; /* flash, "" = none */
    const uint8_t *rec;   /* flash: hex, json events, decode events */
    uint16_t hex_len;
    uint16_t njson, json_bytes, ndec, dec_bytes;
    int8_t kind;   /* 1 roundtrip, 2 decode_only */
    int8_t expect; /* decode: 1 ok, 0 error */
    long consumed;
} pv_vec;

#define PV_FLASH PROGMEM
#include "pson_vectors.h"

typedef struct ev {
    uint8_t type;
    uint64_t u;
    const uint8_t *data;
    uint16_t len;
} ev;

#define MAX_EV (PV_MAX_EV + 1)
static uint8_t rec[PV_MAX_REC];
static ev want[MAX_EV], got[MAX_EV];
static size_t n_got;
static uint8_t out[PV_MAX_REC + 16];

/* Parse n serialized events at p (type, u64 LE, u16 LE length, bytes). */
static const uint8_t *parse_events(const uint8_t *p, size_t n, ev *e)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned k;
        e[i].type = p[0];
        e[i].u = 0;
        for (k = 8; k > 0; k--) {
            e[i].u = (e[i].u << 8) | p[k];
        }
        e[i].len = (uint16_t)(p[9] | (p[10] << 8));
        e[i].data = p + 11;
        p += 11 + e[i].len;
    }
    return p;
}

static pson_err encode(const ev *e, size_t n, pson_writer *w, size_t *lensum)
{
    size_t i, sum = 0;
    pson_err r = PSON_OK;
    for (i = 0; i < n && r == PSON_OK; i++) {
        const ev *x = &e[i];
        switch (x->type) {
        case EV_NULL: r = pson_write_null(w); sum += pson_len_null(); break;
        case EV_BOOL: r = pson_write_bool(w, x->u != 0); sum += pson_len_bool(x->u != 0); break;
        case EV_UINT: r = pson_write_u64(w, x->u); sum += pson_len_u64(x->u); break;
        case EV_INT: r = pson_write_i64(w, (int64_t)x->u); sum += pson_len_i64((int64_t)x->u); break;
        case EV_F32: r = pson_write_f32_bits(w, (uint32_t)x->u); sum += pson_len_f32_bits((uint32_t)x->u); break;
        case EV_F64: r = pson_write_f64_bits(w, x->u); sum += pson_len_f64_bits(x->u); break;
        case EV_STR: r = pson_write_str(w, (const char *)x->data, x->len); sum += pson_len_str(x->len); break;
        case EV_BYTES: r = pson_write_bytes(w, x->data, x->len); sum += pson_len_bytes(x->len); break;
        case EV_MAP: r = pson_write_map(w, x->u); sum += pson_len_map(x->u); break;
        default: r = pson_write_array(w, x->u); sum += pson_len_array(x->u); break;
        }
    }
    if (lensum) {
        *lensum = sum;
    }
    return r;
}

static pson_err collect(void *ctx, walk_event_kind kind, const pson_item *it, int parent, size_t index)
{
    ev *e;
    (void)ctx;
    (void)parent;
    (void)index;
    if (kind == WALK_END) {
        return PSON_OK;
    }
    if (n_got == MAX_EV) {
        return PSON_ERR_BUFFER_TOO_SMALL;
    }
    e = &got[n_got++];
    e->u = 0;
    e->data = NULL;
    e->len = 0;
    switch (it->type) {
    case PSON_TYPE_UINT: e->type = EV_UINT; e->u = it->v.u; break;
    case PSON_TYPE_INT: e->type = EV_INT; e->u = (uint64_t)it->v.i; break;
    case PSON_TYPE_F32: e->type = EV_F32; e->u = it->v.f32_bits; break;
    case PSON_TYPE_F64: e->type = EV_F64; e->u = it->v.f64_bits; break;
    case PSON_TYPE_BOOL: e->type = EV_BOOL; e->u = it->v.b; break;
    case PSON_TYPE_NULL: e->type = EV_NULL; break;
    case PSON_TYPE_STR: e->type = EV_STR; e->data = it->v.str.ptr; e->len = (uint16_t)it->v.str.len; break;
    case PSON_TYPE_BYTES: e->type = EV_BYTES; e->data = it->v.bytes.ptr; e->len = (uint16_t)it->v.bytes.len; break;
    case PSON_TYPE_MAP: e->type = EV_MAP; e->u = it->v.count; break;
    case PSON_TYPE_ARRAY: e->type = EV_ARRAY; e->u = it->v.count; break;
    }
    return PSON_OK;
}

static walk_frame stack[32];

/* walk (collecting events) and pson_validate must agree. */
static pson_err decode(const uint8_t *p, size_t n, size_t *used, pson_error *err)
{
    size_t u1 = 0, u2 = 0;
    pson_error e1 = {PSON_OK, 0}, e2 = {PSON_OK, 0};
    pson_err r1, r2;
    n_got = 0;
    r1 = walk(p, n, 32, stack, 32, collect, NULL, &u1, &e1);
    r2 = pson_validate(p, n, 32, &u2, &e2);
    CHECKV(r1 == r2, "walk and pson_validate disagree on %lu bytes", n);
    if (r1 == PSON_OK && r2 == PSON_OK) {
        CHECK(u1 == u2, "consumed differs");
    } else {
        CHECK(e1.kind == e2.kind && e1.offset == e2.offset, "error kind / offset differ");
        CHECK(e2.offset <= n, "error offset past the input");
    }
    *used = u1;
    *err = e1;
    return r1;
}

static int same_events(const ev *a, const ev *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (a[i].type != b[i].type || a[i].u != b[i].u || a[i].len != b[i].len ||
            (a[i].len && memcmp(a[i].data, b[i].data, a[i].len) != 0)) {
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    size_t i;
    unsigned long n_vec = 0;
    check_init();
    for (i = 0; i < PV_COUNT; i++) {
        pv_vec v;
        const uint8_t *hex = rec, *p;
        pson_writer w;
        pson_error err;
        size_t used = 0, sum = 0, cap, k;
        pson_err e;
        memcpy_P(&v, &PV[i], sizeof v);
        set_context_P(v.name);
        n_vec++;
        if (pgm_read_byte(v.gen_error) != 0) {
            CHECK(0, "generator could not read the vector");
            continue;
        }
        memcpy_P(rec, v.rec, (size_t)v.hex_len + v.json_bytes + v.dec_bytes);
        p = parse_events(rec + v.hex_len, v.njson, want); /* json events after hex */
        if (v.kind == 1) {
            static ev jev[MAX_EV];
            memcpy(jev, want, v.njson * sizeof(ev));
            pson_writer_init(&w, out, sizeof out);
            e = encode(jev, v.njson, &w, &sum);
            CHECK(e == PSON_OK && w.pos == v.hex_len && memcmp(out, hex, v.hex_len) == 0, "encode: bytes differ");
            CHECK(sum == v.hex_len, "pson_len_* sum differs");
            for (cap = 0; cap < v.hex_len; cap++) {
                memset(out, 0xa5, sizeof out);
                pson_writer_init(&w, out, cap);
                e = encode(jev, v.njson, &w, NULL);
                CHECKV(e == PSON_ERR_BUFFER_TOO_SMALL && w.pos <= cap && memcmp(out, hex, w.pos) == 0,
                       "capacity %lu", cap);
                for (k = w.pos; k < sizeof out && out[k] == 0xa5; k++) {
                }
                CHECKV(k == sizeof out, "capacity %lu: wrote past it", cap);
            }
        }
        parse_events(p, v.ndec, want);
        e = decode(hex, v.hex_len, &used, &err);
        if (v.expect == 1) {
            CHECKV(e == PSON_OK, "decode failed at %lu", err.offset);
            if (e == PSON_OK) {
                CHECK(n_got == v.ndec && same_events(got, want, v.ndec), "decoded events differ from the reference");
                CHECKV((long)used == v.consumed, "consumed %lu", used);
            }
            if (e == PSON_OK && v.kind == 1) {
                pson_writer_init(&w, out, sizeof out);
                e = walk(hex, v.hex_len, 32, stack, 32, walk_reencode_cb, &w, &used, &err);
                CHECK(e == PSON_OK && w.pos == v.hex_len && memcmp(out, hex, v.hex_len) == 0, "re-encode differs");
                CHECK(pson_validate_exact(hex, v.hex_len, 32, &err) == PSON_OK, "validate_exact");
            }
        } else {
            CHECK(e != PSON_OK, "decoded, but the vector expects an error");
        }
        for (k = 0; k <= v.hex_len; k++) { /* every prefix */
            memcpy(out, hex, k);
            decode(out, k, &used, &err);
        }
    }
    check_done(PSTR("pson"), n_vec, 0);
    return 0;
}
