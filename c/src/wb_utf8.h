/*
 * wb_utf8.h - private helper of uadp.c and cdr.c (not installed): the
 * length of the longest valid UTF-8 prefix, with the rules of Rust's
 * core::str::from_utf8 (no overlong forms, no surrogates, nothing above
 * U+10FFFF; an incomplete or invalid sequence stops at its lead byte).
 * A static function so that each codec stays one self-contained object.
 */
#ifndef WB_UTF8_H
#define WB_UTF8_H

#include <stddef.h>
#include <stdint.h>

static size_t wb_utf8_valid_up_to(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t c = p[i];
        size_t need;
        uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            if (c == 0xe0) {
                lo = 0xa0; /* no overlong 3-byte forms */
            } else if (c == 0xed) {
                hi = 0x9f; /* no surrogates */
            }
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            if (c == 0xf0) {
                lo = 0x90; /* no overlong 4-byte forms */
            } else if (c == 0xf4) {
                hi = 0x8f; /* nothing above U+10FFFF */
            }
        } else {
            return i;
        }
        if (len - i <= need) {
            /* not enough bytes: still check what is there, the result is i */
            return i;
        }
        if (p[i + 1] < lo || p[i + 1] > hi) {
            return i;
        }
        for (k = 2; k <= need; k++) {
            if ((p[i + k] & 0xc0) != 0x80) {
                return i;
            }
        }
        i += need + 1;
    }
    return i;
}

#endif /* WB_UTF8_H */
