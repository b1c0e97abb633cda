/*
 * instr_pson - host program for `make instr`: encodes or decodes one of the
 * pson-paper payloads (Test01..Test10, build/instr_payloads.h generated from
 * vectors/pson.json) N times inside bench_encode / bench_decode, so that
 * valgrind --tool=callgrind --toggle-collect=bench_encode (or bench_decode)
 * counts exactly those instructions.
 *
 *   instr_pson check                     every payload: the encoder gives the
 *                                        vector bytes and they decode; "ok"
 *   instr_pson list                      payload names
 *   instr_pson encode|decode NAME N      run the loop N times
 *
 * encode = the straight-line pson_write_* calls of the message into a
 * 4 KiB buffer (pson_writer_init included); decode = pson_validate_exact
 * of the message: the pull reader reads every item (headers, varints,
 * integers, floats, UTF-8-checked strings, map keys) with the depth limit,
 * exactly the checks of the Rust decoder (no tree is built).
 */
#include "pson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct payload_t {
    const char *name;
    void (*enc)(pson_writer *w);
    const uint8_t *hex;
    size_t len;
} payload_t;

#include "instr_payloads.h"

static uint8_t buf[4096];
volatile size_t sink;

__attribute__((noinline, noclone)) void bench_encode(const payload_t *p, long n);
__attribute__((noinline, noclone)) void bench_decode(const payload_t *p, long n);

void bench_encode(const payload_t *p, long n)
{
    long i;
    for (i = 0; i < n; i++) {
        pson_writer w;
        pson_writer_init(&w, buf, sizeof buf);
        p->enc(&w);
        sink += pson_writer_pos(&w);
    }
}

void bench_decode(const payload_t *p, long n)
{
    long i;
    for (i = 0; i < n; i++) {
        pson_error err;
        sink += (size_t)pson_validate_exact(p->hex, p->len, PSON_MAX_DEPTH, &err);
    }
}

static void warm_encode(const payload_t *p)
{
    pson_writer w;
    pson_writer_init(&w, buf, sizeof buf);
    p->enc(&w);
    sink += pson_writer_pos(&w);
}

static void warm_decode(const payload_t *p)
{
    pson_error err;
    sink += (size_t)pson_validate_exact(p->hex, p->len, PSON_MAX_DEPTH, &err);
}

int main(int argc, char **argv)
{
    size_t i;
    if (argc == 2 && strcmp(argv[1], "check") == 0) {
        int bad = 0;
        for (i = 0; i < N_PAYLOADS; i++) {
            const payload_t *p = &PAYLOADS[i];
            pson_writer w;
            pson_error err;
            pson_writer_init(&w, buf, sizeof buf);
            p->enc(&w);
            if (pson_writer_pos(&w) != p->len || memcmp(buf, p->hex, p->len) != 0) {
                fprintf(stderr, "instr_pson: %s: encoder output differs from the vector\n", p->name);
                bad = 1;
            }
            if (pson_validate_exact(p->hex, p->len, PSON_MAX_DEPTH, &err) != PSON_OK) {
                fprintf(stderr, "instr_pson: %s: does not decode\n", p->name);
                bad = 1;
            }
        }
        puts(bad ? "FAILED" : "ok");
        return bad;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (i = 0; i < N_PAYLOADS; i++) {
            printf("%s %lu\n", PAYLOADS[i].name, (unsigned long)PAYLOADS[i].len);
        }
        return 0;
    }
    if (argc == 4) {
        long n = strtol(argv[3], NULL, 10);
        for (i = 0; i < N_PAYLOADS; i++) {
            if (strcmp(PAYLOADS[i].name, argv[2]) == 0) {
                /* one warm-up run outside the counted function (resolves the
                 * lazily bound memcpy / strlen, touches the data) */
                if (strcmp(argv[1], "encode") == 0) {
                    warm_encode(&PAYLOADS[i]);
                    bench_encode(&PAYLOADS[i], n);
                    return 0;
                }
                if (strcmp(argv[1], "decode") == 0) {
                    warm_decode(&PAYLOADS[i]);
                    bench_decode(&PAYLOADS[i], n);
                    return 0;
                }
            }
        }
    }
    fputs("usage: instr_pson check | list | encode|decode NAME N\n", stderr);
    return 1;
}
