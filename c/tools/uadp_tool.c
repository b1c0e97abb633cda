/*
 * uadp_tool - command-line front end of the C UADP codec (host tool, for
 * differential tests against the Rust crate and the vector file).
 *
 *   uadp_tool decode   [OPTIONS] HEX|-   one line of JSON in the shape of the
 *                                        vectors' `decoded` objects
 *   uadp_tool reencode [OPTIONS] HEX|-   the message decoded and written
 *                                        again by the C writer, in hex
 *   uadp_tool validate [OPTIONS] HEX|-   "ok <bytes consumed>"
 *   uadp_tool batch    [OPTIONS]         one hex message per stdin line ->
 *                                        "ok <consumed> <re-encoded hex>" or
 *                                        "error <kind> <offset>" per line
 * OPTIONS:
 *   --exact          the message must fill the input (else trailing_bytes),
 *                    as Rust decode_exact; default: trailing bytes ignored
 *   --skip-unknown   keep reserved-encoding / event / action messages as bytes
 *   --meta W:T,T,..  RawData field types for DataSetWriterId W (-1: any
 *                    writer); T = a type name (Float, Int32, ...) or id,
 *                    "[]" after it for an array; repeatable
 *
 * JSON: DateTimes as {"$ticks":N}, ByteStrings as {"$bytes":"hex"}, Guids as
 * upper-case text, Float/Double as the shortest decimal that reads back to
 * the same f32/f64, non-finite values as "NaN" / "Infinity" / "-Infinity".
 * A decode error prints "error <kind_name> <offset>" and exits with 2;
 * usage errors exit with 1.
 */
#include "uadp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uadp_reencode.h"

#define MAX_META 16
#define MAX_META_FIELDS 256

static uadp_metadata metas[MAX_META];
static uint8_t meta_types[MAX_META][MAX_META_FIELDS];
static size_t n_meta;

static void usage(void)
{
    fputs("usage: uadp_tool decode|reencode|validate|batch [--exact] [--skip-unknown] [--meta W:T,T,...] [HEX|-]\n", stderr);
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

static char *read_all(FILE *f, size_t *n)
{
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    size_t got;
    if (!buf) {
        exit(3);
    }
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap);
            if (!buf) {
                exit(3);
            }
        }
    }
    *n = len;
    return buf;
}

static int type_id(const char *s, size_t n)
{
    unsigned t;
    char tmp[32];
    if (n == 0 || n >= sizeof tmp) {
        return -1;
    }
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (tmp[0] >= '0' && tmp[0] <= '9') {
        return (int)strtoul(tmp, NULL, 0);
    }
    for (t = 1; t < 32; t++) {
        const char *name = uadp_type_name(t);
        if (name && strcmp(name, tmp) == 0) {
            return (int)t;
        }
    }
    return -1;
}

static void parse_meta(const char *arg)
{
    char *end;
    long w = strtol(arg, &end, 10);
    const char *p;
    size_t n = 0;
    if (*end != ':' || n_meta == MAX_META) {
        usage();
    }
    p = end + 1;
    while (*p) {
        const char *q = p;
        int t, arr = 0;
        size_t len;
        while (*q && *q != ',') {
            q++;
        }
        len = (size_t)(q - p);
        if (len > 2 && p[len - 2] == '[' && p[len - 1] == ']') {
            arr = 1;
            len -= 2;
        }
        t = type_id(p, len);
        if (t < 0 || n == MAX_META_FIELDS) {
            usage();
        }
        meta_types[n_meta][n++] = (uint8_t)(t | (arr ? UADP_ARRAY : 0));
        p = *q ? q + 1 : q;
    }
    metas[n_meta].writer_id = (int32_t)w;
    metas[n_meta].types = meta_types[n_meta];
    metas[n_meta].count = n;
    n_meta++;
}

/* ------------------------------------------------------------------ */
/* JSON output                                                          */
/* ------------------------------------------------------------------ */

static void put_json_string(const uint8_t *p, size_t n)
{
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
        } else if (c < 0x20) {
            printf("\\u%04x", c);
        } else {
            putchar(c);
        }
    }
    putchar('"');
}

static void put_hex(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        printf("%02x", p[i]);
    }
}

static void put_f64(double d)
{
    char buf[40];
    int prec;
    if (d != d) {
        fputs("\"NaN\"", stdout);
        return;
    }
    if (isinf(d)) {
        fputs(d > 0 ? "\"Infinity\"" : "\"-Infinity\"", stdout);
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) {
            break;
        }
    }
    fputs(buf, stdout);
}

static void put_f32(float f)
{
    char buf[40];
    int prec;
    if (f != f || isinf(f)) {
        put_f64((double)f);
        return;
    }
    for (prec = 1; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
        if (strtof(buf, NULL) == f) {
            break;
        }
    }
    fputs(buf, stdout);
}

static void put_guid(const uint8_t *g)
{
    printf("\"%08lX-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X\"",
           (unsigned long)((uint32_t)g[0] | (uint32_t)g[1] << 8 | (uint32_t)g[2] << 16 | (uint32_t)g[3] << 24),
           (unsigned)(g[4] | g[5] << 8), (unsigned)(g[6] | g[7] << 8), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static void put_scalar(const uadp_scalar *s)
{
    switch (s->type) {
    case UADP_BOOLEAN: fputs(s->v.b ? "true" : "false", stdout); break;
    case UADP_SBYTE:
    case UADP_INT16:
    case UADP_INT32:
    case UADP_INT64: printf("%lld", (long long)s->v.i); break;
    case UADP_DATETIME: printf("{\"$ticks\":%lld}", (long long)s->v.i); break;
    case UADP_FLOAT: put_f32(s->v.f32); break;
    case UADP_DOUBLE: put_f64(s->v.f64); break;
    case UADP_STRING:
        if (s->is_null) {
            fputs("null", stdout);
        } else {
            put_json_string(s->v.bytes.ptr, s->v.bytes.len);
        }
        break;
    case UADP_BYTESTRING:
        if (s->is_null) {
            fputs("null", stdout);
        } else {
            fputs("{\"$bytes\":\"", stdout);
            put_hex(s->v.bytes.ptr, s->v.bytes.len);
            fputs("\"}", stdout);
        }
        break;
    case UADP_GUID: put_guid(s->v.guid); break;
    default: printf("%llu", (unsigned long long)s->v.u); break;
    }
}

/* {"type":..,"value":..} (+ "index" for delta-frame fields when index >= 0) */
static void put_variant_ix(const uadp_variant *v, long index)
{
    if (v->type == 0) {
        fputs("{\"type\":null,\"value\":null", stdout);
        if (index >= 0) {
            printf(",\"index\":%ld", index);
        }
        putchar('}');
        return;
    }
    printf("{\"type\":\"%s\",\"value\":", uadp_type_name(v->type));
    if (!v->is_array) {
        put_scalar(&v->scalar);
    } else if (v->count < 0) {
        fputs("null", stdout);
    } else {
        size_t off = 0;
        int32_t i;
        uadp_scalar s;
        putchar('[');
        for (i = 0; i < v->count; i++) {
            if (uadp_array_next(v, &off, &s) != UADP_OK) {
                break;
            }
            if (i) {
                putchar(',');
            }
            put_scalar(&s);
        }
        putchar(']');
    }
    if (index >= 0) {
        printf(",\"index\":%ld", index);
    }
    putchar('}');
}

static void put_variant(const uadp_variant *v)
{
    put_variant_ix(v, -1);
}

static void put_field(const uadp_field *f, int delta)
{
    if (!f->is_datavalue) {
        put_variant_ix(&f->value, delta ? (long)f->index : -1);
        return;
    }
    putchar('{');
    {
        const char *sep = "";
        if (f->dv_mask & UADP_DV_VALUE) {
            fputs("\"value\":", stdout);
            put_variant(&f->value);
            sep = ",";
        }
        if (f->dv_mask & UADP_DV_STATUS) {
            printf("%s\"status\":%lu", sep, (unsigned long)f->dv_status);
            sep = ",";
        }
        if (f->dv_mask & UADP_DV_SOURCE_TIMESTAMP) {
            printf("%s\"sourceTimestamp\":{\"$ticks\":%lld}", sep, (long long)f->dv_source_timestamp);
            sep = ",";
        }
        if (f->dv_mask & UADP_DV_SOURCE_PICOSECONDS) {
            printf("%s\"sourcePicoseconds\":%u", sep, (unsigned)f->dv_source_picoseconds);
            sep = ",";
        }
        if (f->dv_mask & UADP_DV_SERVER_TIMESTAMP) {
            printf("%s\"serverTimestamp\":{\"$ticks\":%lld}", sep, (long long)f->dv_server_timestamp);
            sep = ",";
        }
        if (f->dv_mask & UADP_DV_SERVER_PICOSECONDS) {
            printf("%s\"serverPicoseconds\":%u", sep, (unsigned)f->dv_server_picoseconds);
            sep = ",";
        }
        if (delta) {
            printf("%s\"index\":%u", sep, (unsigned)f->index);
        }
    }
    putchar('}');
}

static const char *msg_type_name(const uadp_dsm_header *d)
{
    if (d->skipped) {
        return "Skipped";
    }
    switch (d->message_type) {
    case UADP_MSG_KEY_FRAME: return "DataKeyFrame";
    case UADP_MSG_DELTA_FRAME: return "DataDeltaFrame";
    default: return "KeepAlive";
    }
}

static const char *const ENC_NAMES[4] = {"Variant", "RawData", "DataValue", "Reserved"};

/* Decode and print; returns the decode error. */
static uadp_err decode_json(const uint8_t *in, size_t len, const uadp_decode_options *o, bool exact, uadp_error *err)
{
    uadp_reader r;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    uadp_variant v;
    size_t i, k, used;
    /* validate first, so that nothing is printed for a bad message */
    if (uadp_validate(in, len, o, exact, &used, err) != UADP_OK) {
        return err->kind;
    }
    uadp_reader_init(&r, in, len, o);
    uadp_read_network_header(&r, &h);
    fputs("{\"version\":1,\"publisherId\":", stdout);
    if (h.has & UADP_NM_PUBLISHER_ID) {
        static const char *const pub[5] = {"Byte", "UInt16", "UInt32", "UInt64", "String"};
        printf("{\"type\":\"%s\",\"value\":", pub[h.publisher_id_type]);
        if (h.publisher_id_type == UADP_PUBID_STRING) {
            put_json_string(h.publisher_id_str.ptr, h.publisher_id_str.len);
        } else {
            printf("%llu", (unsigned long long)h.publisher_id);
        }
        putchar('}');
    } else {
        fputs("null", stdout);
    }
    fputs(",\"groupHeader\":", stdout);
    if (h.has & UADP_NM_GROUP_HEADER) {
        const char *sep = "";
        putchar('{');
        if (h.group_flags & UADP_GROUP_WRITER_GROUP_ID) {
            printf("\"writerGroupId\":%u", (unsigned)h.writer_group_id);
            sep = ",";
        }
        if (h.group_flags & UADP_GROUP_VERSION) {
            printf("%s\"groupVersion\":%lu", sep, (unsigned long)h.group_version);
            sep = ",";
        }
        if (h.group_flags & UADP_GROUP_NETWORK_MESSAGE_NUMBER) {
            printf("%s\"networkMessageNumber\":%u", sep, (unsigned)h.network_message_number);
            sep = ",";
        }
        if (h.group_flags & UADP_GROUP_SEQUENCE_NUMBER) {
            printf("%s\"sequenceNumber\":%u", sep, (unsigned)h.group_sequence_number);
        }
        putchar('}');
    } else {
        fputs("null", stdout);
    }
    fputs(",\"dataSetClassId\":", stdout);
    if (h.has & UADP_NM_CLASS_ID) {
        put_guid(h.class_id);
    } else {
        fputs("null", stdout);
    }
    if (h.has & UADP_NM_TIMESTAMP) {
        printf(",\"timestamp\":{\"$ticks\":%lld}", (long long)h.timestamp);
    }
    if (h.has & UADP_NM_PICOSECONDS) {
        printf(",\"picoseconds\":%u", (unsigned)h.picoseconds);
    }
    if (h.has & UADP_NM_PROMOTED_FIELDS) {
        fputs(",\"promotedFields\":[", stdout);
        for (i = 0; i < h.promoted_count; i++) {
            uadp_next_promoted(&r, &v);
            if (i) {
                putchar(',');
            }
            put_variant(&v);
        }
        putchar(']');
    }
    printf(",\"payloadHeader\":%s,\"messageCount\":%u,\"dataSetWriterIds\":[",
           h.has & UADP_NM_PAYLOAD_HEADER ? "true" : "false", (unsigned)h.count);
    for (i = 0; (h.has & UADP_NM_PAYLOAD_HEADER) && i < h.count; i++) {
        printf("%s%u", i ? "," : "", (unsigned)uadp_writer_id(&h, i));
    }
    fputs("],\"dataSetMessages\":[", stdout);
    for (i = 0; i < h.count; i++) {
        size_t pad = 0;
        int delta;
        uadp_next_dsm(&r, &d);
        delta = !d.skipped && d.message_type == UADP_MSG_DELTA_FRAME;
        printf("%s{\"valid\":%s,\"fieldEncoding\":\"%s\",\"messageType\":\"%s\"", i ? "," : "", d.valid ? "true" : "false",
               ENC_NAMES[d.field_encoding & 3], msg_type_name(&d));
        if (d.has & UADP_DSM_SEQUENCE_NUMBER) {
            printf(",\"sequenceNumber\":%u", (unsigned)d.sequence_number);
        }
        if (d.has & UADP_DSM_TIMESTAMP) {
            printf(",\"timestamp\":{\"$ticks\":%lld}", (long long)d.timestamp);
        }
        if (d.has & UADP_DSM_PICOSECONDS) {
            printf(",\"picoseconds\":%u", (unsigned)d.picoseconds);
        }
        if (d.has & UADP_DSM_STATUS) {
            printf(",\"status\":%u", (unsigned)d.status);
        }
        if (d.has & UADP_DSM_CONFIG_MAJOR) {
            printf(",\"configVersionMajor\":%lu", (unsigned long)d.config_major);
        }
        if (d.has & UADP_DSM_CONFIG_MINOR) {
            printf(",\"configVersionMinor\":%lu", (unsigned long)d.config_minor);
        }
        printf(",\"fieldCount\":%lu,\"fields\":[", (unsigned long)d.field_count);
        for (k = 0; k < d.field_count; k++) {
            uadp_next_field(&r, &f);
            if (k) {
                putchar(',');
            }
            put_field(&f, delta);
        }
        putchar(']');
        uadp_end_dsm_read(&r, &pad);
        if (pad) {
            printf(",\"padding\":%lu", (unsigned long)pad);
        }
        if (d.skipped) {
            printf(",\"skippedType\":%u,\"data\":{\"$bytes\":\"", (unsigned)d.message_type);
            put_hex(d.data.ptr, d.data.len);
            fputs("\"}", stdout);
        }
        putchar('}');
    }
    fputs("]}\n", stdout);
    return UADP_OK;
}

static int run_one(const char *mode, const uint8_t *in, size_t len, const uadp_decode_options *o, bool exact)
{
    uadp_error err, de, ee;
    size_t used = 0, n = 0;
    uint8_t *out;
    uadp_err e;
    if (strcmp(mode, "decode") == 0) {
        e = decode_json(in, len, o, exact, &err);
    } else if (strcmp(mode, "validate") == 0) {
        e = uadp_validate(in, len, o, exact, &used, &err);
        if (e == UADP_OK) {
            printf("ok %lu\n", (unsigned long)used);
        }
    } else {
        int batch = strcmp(mode, "batch") == 0;
        e = uadp_validate(in, len, o, exact, &used, &err);
        if (e == UADP_OK) {
            uadp_reencode(in, len, o, exact, NULL, 0, &n, &de, &ee);
            out = (uint8_t *)malloc(n + 1);
            if (!out) {
                exit(3);
            }
            e = uadp_reencode(in, len, o, exact, out, n, &n, &de, &ee);
            if (e != UADP_OK) {
                err = de.kind != UADP_OK ? de : ee;
            } else {
                if (batch) {
                    printf("ok %lu ", (unsigned long)used);
                }
                put_hex(out, n);
                putchar('\n');
            }
            free(out);
        }
    }
    if (e != UADP_OK) {
        printf("error %s %lu\n", uadp_err_name(e), (unsigned long)err.offset);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode, *hex = NULL;
    bool exact = false;
    uadp_decode_options o;
    size_t len, n;
    uint8_t *in;
    char *text;
    int i, rc;
    memset(&o, 0, sizeof o);
    if (argc < 2) {
        usage();
    }
    mode = argv[1];
    if (strcmp(mode, "decode") && strcmp(mode, "reencode") && strcmp(mode, "validate") && strcmp(mode, "batch")) {
        usage();
    }
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--exact") == 0) {
            exact = true;
        } else if (strcmp(argv[i], "--skip-unknown") == 0) {
            o.skip_unknown = true;
        } else if (strcmp(argv[i], "--meta") == 0 && i + 1 < argc) {
            parse_meta(argv[++i]);
        } else if (hex == NULL && argv[i][0] != '-') {
            hex = argv[i];
        } else if (hex == NULL && strcmp(argv[i], "-") == 0) {
            hex = "-";
        } else {
            usage();
        }
    }
    o.meta = metas;
    o.meta_count = n_meta;
    if (strcmp(mode, "batch") == 0) {
        char line[1 << 16];
        rc = 0;
        while (fgets(line, sizeof line, stdin)) {
            in = parse_hex(line, strlen(line), &len);
            if (!in) {
                puts("badhex");
                continue;
            }
            run_one(mode, in, len, &o, exact);
            free(in);
            fflush(stdout);
        }
        return rc;
    }
    if (hex == NULL) {
        usage();
    }
    if (strcmp(hex, "-") == 0) {
        text = read_all(stdin, &n);
        in = parse_hex(text, n, &len);
        free(text);
    } else {
        in = parse_hex(hex, strlen(hex), &len);
    }
    if (!in) {
        fputs("uadp_tool: bad hex\n", stderr);
        return 1;
    }
    rc = run_one(mode, in, len, &o, exact);
    free(in);
    return rc;
}
