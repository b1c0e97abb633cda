/*
 * uadp_reencode.h - test/tool helper (not part of the device library):
 * decode a UADP NetworkMessage with the pull reader and write it again with
 * the streaming writer, item by item (header, PromotedFields, every
 * DataSetMessage header, field and padding). Byte-identical output for
 * canonical input is the round-trip property the tests check.
 */
#ifndef UADP_REENCODE_H
#define UADP_REENCODE_H

#include "uadp.h"

/* Returns UADP_OK, or the first decode error (*derr) / encode error (*eerr).
 * out == NULL counts only. *out_len = bytes written (also on errors). */
static uadp_err uadp_reencode(const uint8_t *in, size_t len, const uadp_decode_options *opts, bool exact,
                              uint8_t *out, size_t cap, size_t *out_len, uadp_error *derr, uadp_error *eerr)
{
    uadp_reader r;
    uadp_writer w;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    uadp_variant v;
    size_t i, k, pad, used;
    uadp_err e = UADP_OK;

    uadp_reader_init(&r, in, len, opts);
    uadp_writer_init(&w, out, cap);
    derr->kind = eerr->kind = UADP_OK;
    derr->offset = eerr->offset = 0;
    if (uadp_read_network_header(&r, &h) != UADP_OK) {
        goto done;
    }
    uadp_write_network_header(&w, &h);
    for (i = 0; i < h.promoted_count; i++) {
        if (uadp_next_promoted(&r, &v) != UADP_OK) {
            goto done;
        }
        uadp_write_variant(&w, &v);
    }
    for (i = 0; i < h.count; i++) {
        if (uadp_next_dsm(&r, &d) != UADP_OK) {
            goto done;
        }
        uadp_begin_dsm(&w, &d);
        for (k = 0; k < d.field_count; k++) {
            if (uadp_next_field(&r, &f) != UADP_OK) {
                goto done;
            }
            uadp_write_field(&w, &f);
        }
        if (uadp_end_dsm_read(&r, &pad) != UADP_OK) {
            goto done;
        }
        uadp_end_dsm(&w, pad);
    }
    if (uadp_finish(&r, exact, &used) != UADP_OK) {
        goto done;
    }
    uadp_end_network(&w, NULL);
done:
    *derr = r.error;
    *eerr = w.error;
    *out_len = uadp_writer_pos(&w);
    if (derr->kind != UADP_OK) {
        e = derr->kind;
    } else if (eerr->kind != UADP_OK) {
        e = eerr->kind;
    }
    return e;
}

#endif /* UADP_REENCODE_H */
