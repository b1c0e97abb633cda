/*
 * pson_tool - command-line front end of the C PSON v2 codec (host tool, for
 * differential tests against the Rust implementation).
 *
 *   pson_tool decode   [--exact] [--max-depth N] HEX|-
 *       prints the root item as one line of JSON: keys in wire order
 *       (duplicates kept), bytes as {"$bytes":"hex"}, non-finite floats as
 *       {"$f64":"NaN"|"Infinity"|"-Infinity"}, floats always with a '.' or
 *       exponent (shortest text that reads back to the same f64 / f32).
 *   pson_tool reencode [--exact] [--max-depth N] HEX|-
 *       prints the canonical re-encoding of the root item in hex.
 *   pson_tool validate [--exact] [--max-depth N] HEX|-
 *       prints "ok <bytes consumed>".
 *
 * Like the Rust `pson::decode`, bytes after the root item are ignored unless
 * --exact is given (then: trailing_bytes). The default depth limit is 128.
 * On a decode error: prints "error <kind_name> <offset>" and exits with 2.
 * Usage errors (bad hex, bad arguments) exit with 1. HEX "-" reads stdin.
 */
#include "pson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

static void usage(void)
{
    fputs("usage: pson_tool decode|reencode|validate [--exact] [--max-depth N] HEX|-\n", stderr);
    exit(1);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Hex text (whitespace ignored) to bytes; NULL on bad input. */
static uint8_t *parse_hex(const char *text, size_t n, size_t *out_len)
{
    uint8_t *out = (uint8_t *)malloc(n / 2 + 1);
    size_t i, k = 0;
    int hi = -1;
    if (!out) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        int v;
        if (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t') {
            continue;
        }
        v = hexval((unsigned char)text[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        if (hi < 0) {
            hi = v;
        } else {
            out[k++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        free(out);
        return NULL;
    }
    *out_len = k;
    return out;
}

static char *read_stdin(size_t *n)
{
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, stdin)) > 0) {
        len += got;
        if (len == cap) {
            char *nb = (char *)realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
    }
    *n = len;
    return buf;
}

/* ---- JSON output ---- */

static void put_json_string(const uint8_t *p, size_t n)
{
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++) {
        uint8_t c = p[i];
        switch (c) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\b': fputs("\\b", stdout); break;
        case '\f': fputs("\\f", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (c < 0x20) {
                printf("\\u%04x", c);
            } else {
                putchar(c); /* valid UTF-8 (checked by the reader) */
            }
        }
    }
    putchar('"');
}

static void put_float(double d, int is_f32)
{
    char b[64];
    int prec;
    if (d != d) {
        fputs("{\"$f64\":\"NaN\"}", stdout);
        return;
    }
    if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
        fputs(d > 0 ? "{\"$f64\":\"Infinity\"}" : "{\"$f64\":\"-Infinity\"}", stdout);
        return;
    }
    /* shortest %g text that reads back exactly */
    for (prec = 1; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (is_f32 ? (strtof(b, NULL) == (float)d) : (strtod(b, NULL) == d)) {
            break;
        }
    }
    if (!strpbrk(b, ".eE")) {
        strcat(b, ".0");
    }
    fputs(b, stdout);
}

static pson_err json_cb(void *ctx, walk_event_kind ev, const pson_item *it, int parent, size_t index)
{
    size_t i;
    (void)ctx;
    if (ev == WALK_END) {
        putchar(it->type == PSON_TYPE_MAP ? '}' : ']');
        return PSON_OK;
    }
    if (ev == WALK_KEY) {
        if (index > 0) {
            putchar(',');
        }
        put_json_string(it->v.str.ptr, it->v.str.len);
        putchar(':');
        return PSON_OK;
    }
    if (parent == PSON_TYPE_ARRAY && index > 0) {
        putchar(',');
    }
    switch (it->type) {
    case PSON_TYPE_UINT: printf("%llu", (unsigned long long)it->v.u); break;
    case PSON_TYPE_INT: printf("%lld", (long long)it->v.i); break;
    case PSON_TYPE_F32: put_float((double)it->v.f32, 1); break;
    case PSON_TYPE_F64: put_float(it->v.f64, 0); break;
    case PSON_TYPE_BOOL: fputs(it->v.b ? "true" : "false", stdout); break;
    case PSON_TYPE_NULL: fputs("null", stdout); break;
    case PSON_TYPE_STR: put_json_string(it->v.str.ptr, it->v.str.len); break;
    case PSON_TYPE_BYTES:
        fputs("{\"$bytes\":\"", stdout);
        for (i = 0; i < it->v.bytes.len; i++) {
            printf("%02x", it->v.bytes.ptr[i]);
        }
        fputs("\"}", stdout);
        break;
    case PSON_TYPE_MAP: putchar('{'); break;
    case PSON_TYPE_ARRAY: putchar('['); break;
    }
    return PSON_OK;
}

int main(int argc, char **argv)
{
    const char *cmd, *arg = NULL;
    int exact = 0, i;
    size_t max_depth = PSON_MAX_DEPTH, len = 0, used = 0;
    uint8_t *in;
    pson_error err;
    pson_err e;
    walk_frame *stack;

    if (argc < 3) {
        usage();
    }
    cmd = argv[1];
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--exact") == 0) {
            exact = 1;
        } else if (strcmp(argv[i], "--max-depth") == 0 && i + 1 < argc) {
            char *end;
            max_depth = (size_t)strtoull(argv[++i], &end, 10);
            if (*end) {
                usage();
            }
        } else if (!arg) {
            arg = argv[i];
        } else {
            usage();
        }
    }
    if (!arg || (strcmp(cmd, "decode") && strcmp(cmd, "reencode") && strcmp(cmd, "validate"))) {
        usage();
    }
    if (strcmp(arg, "-") == 0) {
        size_t n;
        char *text = read_stdin(&n);
        in = text ? parse_hex(text, n, &len) : NULL;
        free(text);
    } else {
        in = parse_hex(arg, strlen(arg), &len);
    }
    if (!in) {
        fputs("pson_tool: input is not hex\n", stderr);
        return 1;
    }

    /* Validate first (same checks and offsets as the Rust decoder); the
     * walk below then cannot fail. The walk's frame stack bounds the depth
     * (the library's pson_validate clamps at PSON_MAX_DEPTH; use the
     * caller-stack variant for bigger limits). */
    {
        size_t cap = max_depth < ((size_t)1 << 20) ? max_depth : ((size_t)1 << 20);
        stack = (walk_frame *)malloc((cap ? cap : 1) * sizeof *stack);
        size_t *vstack = (size_t *)malloc((cap ? cap : 1) * sizeof(size_t));
        pson_reader r;
        if (!stack || !vstack) {
            return 1;
        }
        pson_reader_init(&r, in, len);
        e = pson_skip_ex(&r, max_depth, vstack, cap);
        err = r.error;
        used = r.pos;
        free(vstack);
        max_depth = cap;
    }
    if (e == PSON_OK && exact && used != len) {
        e = err.kind = PSON_ERR_TRAILING_BYTES;
        err.offset = used;
    }
    if (e != PSON_OK) {
        printf("error %s %lu\n", pson_err_name(err.kind), (unsigned long)err.offset);
        return 2;
    }

    if (strcmp(cmd, "validate") == 0) {
        printf("ok %lu\n", (unsigned long)used);
    } else if (strcmp(cmd, "decode") == 0) {
        walk(in, len, max_depth, stack, max_depth, json_cb, NULL, &used, &err);
        putchar('\n');
    } else {
        /* canonical output is at most 2x the input (f32 -> 10-byte integer) */
        size_t cap = 2 * len + 16, k;
        uint8_t *out = (uint8_t *)malloc(cap);
        pson_writer w;
        if (!out) {
            return 1;
        }
        pson_writer_init(&w, out, cap);
        e = walk(in, len, max_depth, stack, max_depth, walk_reencode_cb, &w, &used, &err);
        if (e != PSON_OK) {
            printf("error %s %lu\n", pson_err_name(e), (unsigned long)w.pos);
            return 2;
        }
        for (k = 0; k < w.pos; k++) {
            printf("%02x", out[k]);
        }
        putchar('\n');
        free(out);
    }
    free(stack);
    free(in);
    return 0;
}
