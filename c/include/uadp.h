/*
 * uadp.h - OPC UA PubSub UADP NetworkMessages for devices (C99, no malloc,
 * no libc beyond <string.h> memcpy/memset, no recursion, no floating-point
 * arithmetic).
 *
 * Format: OPC 10000-14 section 7.2.4 (shared/specs/uadp.md section 2);
 * built-in types: OPC 10000-6 section 5.2.2. Behaviour, error kinds and
 * error offsets follow the Rust reference implementation in crates/uadp
 * (decode.rs, encode.rs, error.rs).
 *
 * Supported (encoder and decoder): every PublisherId type (Byte, UInt16,
 * UInt32, UInt64, String), DataSetClassId, GroupHeader, PayloadHeader with
 * 1..255 DataSetWriterIds (Sizes array when Count > 1, with zero padding),
 * NetworkMessage Timestamp / PicoSeconds, PromotedFields; DataSetMessage
 * header options (valid, field encoding, SequenceNumber, Timestamp,
 * PicoSeconds, Status, ConfigVersion Major/Minor); key frames, delta frames
 * and keep-alives; Variant, RawData (the caller gives the field types) and
 * DataValue fields; built-in types Boolean..ByteString (1..15) and
 * StatusCode (19), scalars and one-dimensional arrays.
 * Refused like the Rust crate: chunks (chunk_unsupported), security
 * (security_unsupported), discovery (unsupported_network_message_type),
 * other built-in types (unsupported_variant_type), ArrayDimensions
 * (unsupported_array_dimensions), RawData without metadata
 * (missing_metadata); event/action DataSetMessages and the reserved field
 * encoding fail (unsupported_message_type / reserved_field_encoding) or,
 * with skip_unknown, are returned as uninterpreted bytes.
 *
 * Writer: streaming, into a caller buffer (or counting only), errors sticky.
 *     uadp_writer_init(&w, buf, cap);
 *     uadp_write_network_header(&w, &nm);        // flags .. PicoSeconds
 *     [uadp_write_variant(&w, &v) ...]           // PromotedFields, if any
 *     for each DataSetMessage:
 *         uadp_begin_dsm(&w, &dsm);              // header (FieldCount patched later)
 *         uadp_write_f32(&w, 25.5f); ...         // fields
 *         uadp_end_dsm(&w, padding);             // FieldCount and Sizes[i] patched
 *     uadp_end_network(&w, &len);
 *
 * Reader: pull, zero-copy (strings, byte strings, Guids and arrays are
 * views into the input), errors sticky.
 *     uadp_reader_init(&r, buf, len, &opts_or_NULL);
 *     uadp_read_network_header(&r, &nm);         // .. Sizes; PromotedFields validated
 *     for (i = 0; i < nm.count; i++) {
 *         uadp_next_dsm(&r, &dsm);
 *         for (k = 0; k < dsm.field_count; k++) uadp_next_field(&r, &f);
 *     }
 *     uadp_finish(&r, exact, &consumed);         // trailing_bytes when exact
 * Every check of the Rust decoder is made, in the same order, so the first
 * error (kind and offset) is the Rust one. uadp_validate does all of this.
 */
#ifndef UADP_H
#define UADP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* UADP_HAS_DOUBLE: 1 where `double` is IEEE-754 binary64 (hosts, Cortex-M),
 * 0 where it is 32 bits wide (avr-gcc's default). With 0 the `double` API
 * does not exist and f64 values are moved as raw binary64 bits (the *_bits
 * functions and union members, which exist on every target). Derived from
 * __SIZEOF_DOUBLE__ (gcc, clang); other compilers get 1, and the source
 * file checks the size at compile time. */
#ifndef UADP_HAS_DOUBLE
#if defined(__SIZEOF_DOUBLE__) && __SIZEOF_DOUBLE__ != 8
#define UADP_HAS_DOUBLE 0
#else
#define UADP_HAS_DOUBLE 1
#endif
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* Error kinds in the order of the Rust uadp::ErrorKind::ALL; uadp_err_name()
 * gives the shared snake_case names. The JSON-only kinds are never
 * returned by this library. */
typedef enum uadp_err {
    UADP_OK = 0,
    UADP_ERR_UNEXPECTED_END,         /* "unexpected_end": offset = input length */
    UADP_ERR_TRAILING_BYTES,         /* "trailing_bytes": first unused byte */
    UADP_ERR_UNSUPPORTED_VERSION,    /* "unsupported_version": 0 */
    UADP_ERR_RESERVED_PUBLISHER_ID_TYPE, /* "reserved_publisher_id_type": ExtendedFlags1 */
    UADP_ERR_RESERVED_FLAGS,         /* "reserved_flags": the flags byte */
    UADP_ERR_CHUNK_UNSUPPORTED,      /* "chunk_unsupported": ExtendedFlags2 */
    UADP_ERR_SECURITY_UNSUPPORTED,   /* "security_unsupported": ExtendedFlags1 */
    UADP_ERR_UNSUPPORTED_NETWORK_MESSAGE_TYPE, /* "unsupported_network_message_type": ExtendedFlags2 */
    UADP_ERR_INVALID_COUNT,          /* "invalid_count" */
    UADP_ERR_SIZE_MISMATCH,          /* "size_mismatch": end of the sized part / first non-zero padding byte */
    UADP_ERR_RESERVED_FIELD_ENCODING, /* "reserved_field_encoding": DataSetFlags1 */
    UADP_ERR_UNSUPPORTED_MESSAGE_TYPE, /* "unsupported_message_type": DataSetFlags2 */
    UADP_ERR_INVALID_VARIANT_TYPE,   /* "invalid_variant_type": EncodingMask */
    UADP_ERR_UNSUPPORTED_VARIANT_TYPE, /* "unsupported_variant_type": EncodingMask */
    UADP_ERR_UNSUPPORTED_ARRAY_DIMENSIONS, /* "unsupported_array_dimensions": EncodingMask */
    UADP_ERR_INVALID_LENGTH,         /* "invalid_length": the Int32 length */
    UADP_ERR_LENGTH_LIMIT,           /* "length_limit": the count / length */
    UADP_ERR_INVALID_UTF8,           /* "invalid_utf8": first byte of the bad sequence */
    UADP_ERR_MISSING_METADATA,       /* "missing_metadata": DataSetFlags1 / FieldIndex */
    UADP_ERR_BUFFER_TOO_SMALL,       /* "buffer_too_small": writer position */
    UADP_ERR_TYPE_MISMATCH,          /* "type_mismatch" (encoder) */
    UADP_ERR_FIELD_ENCODING_MISMATCH, /* "field_encoding_mismatch" (encoder) */
    UADP_ERR_INVALID_PADDING,        /* "invalid_padding" (encoder) */
    UADP_ERR_JSON_SYNTAX,            /* "json_syntax": JSON mapping only, never returned */
    UADP_ERR_DEPTH_LIMIT,            /* "depth_limit": JSON mapping only, never returned */
    UADP_ERR_JSON_VALUE,             /* "json_value": JSON mapping only, never returned */
    UADP_ERR_UNREPRESENTABLE         /* "unrepresentable": JSON mapping only, never returned */
} uadp_err;

typedef struct uadp_error {
    uadp_err kind;
    size_t offset; /* in the input (decoder) or the output (encoder) */
} uadp_error;

/* "unexpected_end", ...; "ok" for UADP_OK, "unknown" for other values. */
const char *uadp_err_name(uadp_err kind);

/* Whether the kind means "a valid message using a feature that is refused"
 * (as Rust ErrorKind::is_unsupported). */
bool uadp_err_is_unsupported(uadp_err kind);

/* ------------------------------------------------------------------ */
/* Values                                                               */
/* ------------------------------------------------------------------ */

/* Built-in type ids (OPC 10000-6 Table 1) that this codec handles. */
enum {
    UADP_BOOLEAN = 1,
    UADP_SBYTE = 2,
    UADP_BYTE = 3,
    UADP_INT16 = 4,
    UADP_UINT16 = 5,
    UADP_INT32 = 6,
    UADP_UINT32 = 7,
    UADP_INT64 = 8,
    UADP_UINT64 = 9,
    UADP_FLOAT = 10,
    UADP_DOUBLE = 11,
    UADP_STRING = 12,
    UADP_DATETIME = 13,
    UADP_GUID = 14,
    UADP_BYTESTRING = 15,
    UADP_STATUSCODE = 19,
    /* RawData metadata: field type | UADP_ARRAY = one-dimensional array */
    UADP_ARRAY = 0x80
};

/* "Boolean", "Float", ... for the ids above; NULL for others. */
const char *uadp_type_name(unsigned type);

typedef struct uadp_view {
    const uint8_t *ptr;
    size_t len;
} uadp_view;

/* One scalar value. */
typedef struct uadp_scalar {
    uint8_t type;    /* built-in type id */
    uint8_t is_null; /* String / ByteString: the null value (length -1) */
    union {
        bool b;              /* Boolean (decoder: any non-zero byte is true) */
        int64_t i;           /* SByte, Int16, Int32, Int64, DateTime (100 ns ticks since 1601) */
        uint64_t u;          /* Byte, UInt16, UInt32, UInt64, StatusCode */
        float f32;           /* Float */
        uint32_t f32_bits;   /* Float as binary32 bits (shares the bytes of f32) */
#if UADP_HAS_DOUBLE
        double f64;          /* Double */
#endif
        uint64_t f64_bits;   /* Double as binary64 bits (every target; the only
                                Double member without UADP_HAS_DOUBLE) */
        uadp_view bytes;     /* String (UTF-8, no NUL), ByteString */
        const uint8_t *guid; /* Guid: 16 bytes in wire order (uadp_guid_bytes) */
    } v;
} uadp_scalar;

/* A Variant: the null Variant (type 0), a scalar, or a one-dimensional
 * array. Decoded arrays are views of their element bytes (validated; read
 * them with uadp_array_next). The encoder writes `items` when non-NULL,
 * else copies `elems` (the wire bytes of `count` elements). */
typedef struct uadp_variant {
    uint8_t type;              /* 0 = null Variant; else a built-in type id */
    uint8_t is_array;
    int32_t count;             /* arrays: element count, -1 = null array */
    uadp_scalar scalar;        /* scalars (scalar.type == type) */
    uadp_view elems;           /* arrays: element bytes */
    const uadp_scalar *items;  /* encoder: `count` elements of `type` */
} uadp_variant;

/* DataValue EncodingMask bits (uadp_field.dv_mask). */
enum {
    UADP_DV_VALUE = 0x01,
    UADP_DV_STATUS = 0x02,
    UADP_DV_SOURCE_TIMESTAMP = 0x04,
    UADP_DV_SERVER_TIMESTAMP = 0x08,
    UADP_DV_SOURCE_PICOSECONDS = 0x10,
    UADP_DV_SERVER_PICOSECONDS = 0x20
};

/* One DataSet field. Variant and RawData encodings use `value`; the
 * DataValue encoding uses the dv_* members (value when UADP_DV_VALUE). */
typedef struct uadp_field {
    uint16_t index;        /* delta frames: FieldIndex */
    uint8_t is_datavalue;
    uint8_t dv_mask;       /* UADP_DV_* */
    uadp_variant value;
    uint32_t dv_status;    /* full StatusCode */
    int64_t dv_source_timestamp;
    int64_t dv_server_timestamp;
    uint16_t dv_source_picoseconds;
    uint16_t dv_server_picoseconds;
} uadp_field;

/* Read the next element of a decoded array: *offset starts at 0 and
 * advances; UADP_ERR_UNEXPECTED_END when the view is exhausted. */
uadp_err uadp_array_next(const uadp_variant *v, size_t *offset, uadp_scalar *out);

/* Guid text fields -> 16 wire bytes (Data1..3 little-endian, Data4 as is). */
void uadp_guid_bytes(uint8_t out[16], uint32_t data1, uint16_t data2, uint16_t data3,
                     const uint8_t data4[8]);

/* ------------------------------------------------------------------ */
/* NetworkMessage and DataSetMessage headers                            */
/* ------------------------------------------------------------------ */

/* uadp_network_header.has */
enum {
    UADP_NM_PUBLISHER_ID = 0x01,
    UADP_NM_CLASS_ID = 0x02,
    UADP_NM_GROUP_HEADER = 0x04,
    UADP_NM_PAYLOAD_HEADER = 0x08,
    UADP_NM_TIMESTAMP = 0x10,
    UADP_NM_PICOSECONDS = 0x20,
    UADP_NM_PROMOTED_FIELDS = 0x40
};

/* PublisherId types (ExtendedFlags1 bits 0-2). */
enum {
    UADP_PUBID_BYTE = 0,
    UADP_PUBID_UINT16 = 1,
    UADP_PUBID_UINT32 = 2,
    UADP_PUBID_UINT64 = 3,
    UADP_PUBID_STRING = 4
};

/* GroupFlags bits (uadp_network_header.group_flags, as on the wire). */
enum {
    UADP_GROUP_WRITER_GROUP_ID = 0x01,
    UADP_GROUP_VERSION = 0x02,
    UADP_GROUP_NETWORK_MESSAGE_NUMBER = 0x04,
    UADP_GROUP_SEQUENCE_NUMBER = 0x08
};

typedef struct uadp_network_header {
    uint8_t has;                /* UADP_NM_* */
    uint8_t publisher_id_type;  /* UADP_PUBID_* */
    uint64_t publisher_id;      /* numeric PublisherIds */
    uadp_view publisher_id_str; /* String PublisherId (UTF-8) */
    const uint8_t *class_id;    /* DataSetClassId: 16 wire bytes */
    uint8_t group_flags;        /* UADP_GROUP_* */
    uint16_t writer_group_id;
    uint32_t group_version;
    uint16_t network_message_number;
    uint16_t group_sequence_number;
    /* DataSetMessages: 1..255 with a PayloadHeader; always 1 without one
     * (the encoder ignores the value then, the decoder sets 1). */
    uint16_t count;
    const uint16_t *writer_ids;    /* encoder: count DataSetWriterIds */
    const uint8_t *writer_ids_le;  /* decoder: count x UInt16 LE in the input
                                      (the encoder uses it when writer_ids is NULL) */
    int64_t timestamp;             /* DateTime ticks */
    uint16_t picoseconds;
    /* decoder outputs */
    uadp_view promoted;            /* PromotedFields bytes (after the size) */
    size_t promoted_count;         /* Variants in it (read with uadp_next_promoted) */
} uadp_network_header;

/* DataSetWriterId i of a header (writer_ids or writer_ids_le); 0 without a
 * PayloadHeader or when i >= count. */
uint16_t uadp_writer_id(const uadp_network_header *h, size_t i);

/* Field encodings (DataSetFlags1 bits 1-2) and DataSetMessage types
 * (DataSetFlags2 bits 0-3). */
enum {
    UADP_ENC_VARIANT = 0,
    UADP_ENC_RAWDATA = 1,
    UADP_ENC_DATAVALUE = 2,
    UADP_ENC_RESERVED = 3
};
enum {
    UADP_MSG_KEY_FRAME = 0,
    UADP_MSG_DELTA_FRAME = 1,
    UADP_MSG_EVENT = 2,
    UADP_MSG_KEEP_ALIVE = 3
};

/* uadp_dsm_header.has */
enum {
    UADP_DSM_SEQUENCE_NUMBER = 0x01,
    UADP_DSM_TIMESTAMP = 0x02,
    UADP_DSM_PICOSECONDS = 0x04,
    UADP_DSM_STATUS = 0x08,
    UADP_DSM_CONFIG_MAJOR = 0x10,
    UADP_DSM_CONFIG_MINOR = 0x20
};

/* Field types of one DataSet, for RawData (DataSetMetaData). */
typedef struct uadp_metadata {
    int32_t writer_id;      /* DataSetWriterId, or -1 for any writer */
    const uint8_t *types;   /* per field: built-in type id, | UADP_ARRAY for arrays */
    size_t count;
} uadp_metadata;

typedef struct uadp_dsm_header {
    uint8_t valid;          /* DataSetFlags1 bit 0 */
    uint8_t field_encoding; /* UADP_ENC_* */
    uint8_t message_type;   /* UADP_MSG_* (0..15) */
    uint8_t has;            /* UADP_DSM_* */
    uint16_t sequence_number;
    uint16_t picoseconds;
    uint16_t status;        /* the high-order 16 bits of a StatusCode */
    int64_t timestamp;
    uint32_t config_major;
    uint32_t config_minor;
    /* Decoder outputs; `data` is also the encoder input of a message of
     * reserved encoding / other type (written as is after the header). */
    size_t field_count;     /* fields to read with uadp_next_field */
    const uadp_metadata *meta; /* RawData: the metadata used */
    bool skipped;           /* skip_unknown: not interpreted, see data */
    uadp_view data;
} uadp_dsm_header;

/* ------------------------------------------------------------------ */
/* Encoded sizes (nothing written)                                      */
/* ------------------------------------------------------------------ */

/* NetworkMessage header up to the first DataSetMessage: flags .. PicoSeconds,
 * the PromotedFields size (not the fields) and the Sizes array. */
size_t uadp_len_network_header(const uadp_network_header *h);
/* DataSetMessage header incl. the FieldCount of Variant/DataValue key
 * frames and of delta frames (and `data` of other types). */
size_t uadp_len_dsm_header(const uadp_dsm_header *d);
/* A scalar with (raw = false) or without (raw = true) its Variant type byte. */
size_t uadp_len_scalar(const uadp_scalar *s, bool raw);
size_t uadp_len_variant(const uadp_variant *v, bool raw);
/* A field as written in a DataSetMessage of that encoding / type. */
size_t uadp_len_field(const uadp_field *f, unsigned field_encoding, unsigned message_type);
/* The exact size of a whole message: run the writer with buf == NULL. */

/* ------------------------------------------------------------------ */
/* Writer                                                               */
/* ------------------------------------------------------------------ */

typedef struct uadp_writer {
    uint8_t *buf;       /* NULL: count only */
    size_t cap;
    size_t pos;
    uadp_error error;   /* sticky: the first error; every later call returns it */
    /* private */
    uint8_t state, enc, type;
    uint16_t count, done;
    size_t sizes_at, slot_at, dsm_start;
    uint32_t fields;
} uadp_writer;

/* buf == NULL: a counting writer (never too small; uadp_writer_pos() is the
 * size the same calls write). */
void uadp_writer_init(uadp_writer *w, void *buf, size_t cap);
size_t uadp_writer_pos(const uadp_writer *w);

/* Flags .. PicoSeconds; then the PromotedFields size slot (write the
 * promoted Variants next with uadp_write_variant) or the Sizes array
 * placeholders. Checks the count (invalid_count at 0). */
uadp_err uadp_write_network_header(uadp_writer *w, const uadp_network_header *h);
/* DataSetMessage header. With the reserved encoding or a type other than
 * key frame / delta frame / keep-alive, d->data is written as the payload. */
uadp_err uadp_begin_dsm(uadp_writer *w, const uadp_dsm_header *d);
/* One field (delta frames: f->index first). Variant encoding: the Variant;
 * RawData: the bare value (null Variant: type_mismatch); DataValue: the
 * DataValue (a DataValue field elsewhere, or the reverse:
 * field_encoding_mismatch). */
uadp_err uadp_write_field(uadp_writer *w, const uadp_field *f);
/* A Variant: a key-frame field of a Variant / RawData DataSetMessage, or a
 * PromotedField right after the header. */
uadp_err uadp_write_variant(uadp_writer *w, const uadp_variant *v);
uadp_err uadp_write_scalar(uadp_writer *w, const uadp_scalar *s);
/* Key-frame field shorthands. */
uadp_err uadp_write_bool(uadp_writer *w, bool v);
uadp_err uadp_write_i8(uadp_writer *w, int8_t v);
uadp_err uadp_write_u8(uadp_writer *w, uint8_t v);
uadp_err uadp_write_i16(uadp_writer *w, int16_t v);
uadp_err uadp_write_u16(uadp_writer *w, uint16_t v);
uadp_err uadp_write_i32(uadp_writer *w, int32_t v);
uadp_err uadp_write_u32(uadp_writer *w, uint32_t v);
uadp_err uadp_write_i64(uadp_writer *w, int64_t v);
uadp_err uadp_write_u64(uadp_writer *w, uint64_t v);
uadp_err uadp_write_f32(uadp_writer *w, float v);
#if UADP_HAS_DOUBLE
uadp_err uadp_write_f64(uadp_writer *w, double v);
#endif
uadp_err uadp_write_f32_bits(uadp_writer *w, uint32_t bits); /* binary32 bits */
uadp_err uadp_write_f64_bits(uadp_writer *w, uint64_t bits); /* binary64 bits */
uadp_err uadp_write_string(uadp_writer *w, const char *s, size_t len);
uadp_err uadp_write_bytestring(uadp_writer *w, const void *p, size_t len);
uadp_err uadp_write_datetime(uadp_writer *w, int64_t ticks);
uadp_err uadp_write_guid(uadp_writer *w, const uint8_t guid[16]);
uadp_err uadp_write_statuscode(uadp_writer *w, uint32_t code);
/* Zero padding (only with a Sizes array, else invalid_padding at 0), then
 * the FieldCount and Sizes[i] are filled in. */
uadp_err uadp_end_dsm(uadp_writer *w, size_t padding);
/* Every DataSetMessage written? (invalid_count at 0 otherwise.) *len may be NULL. */
uadp_err uadp_end_network(uadp_writer *w, size_t *len);

/* ------------------------------------------------------------------ */
/* Reader                                                               */
/* ------------------------------------------------------------------ */

typedef struct uadp_decode_options {
    const uadp_metadata *meta; /* RawData field types, found by writer id: an */
    size_t meta_count;         /* exact match first, else the first writer_id -1 */
    bool skip_unknown;         /* keep reserved-encoding / event / action messages as bytes */
    size_t max_array_len;      /* 0: default 1 << 20 elements */
    size_t max_string_len;     /* 0: default 1 << 24 bytes */
} uadp_decode_options;

typedef struct uadp_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    size_t end;           /* end of the current sized part */
    uadp_error error;     /* sticky */
    /* private */
    const uadp_decode_options *opts;
    const uint8_t *ids, *sizes;
    const uadp_metadata *meta;
    size_t fields_left, field_index, promoted_pos, promoted_end;
    uint16_t count, done;
    uint8_t state, enc, type;
} uadp_reader;

/* opts may be NULL (defaults, no RawData metadata). */
void uadp_reader_init(uadp_reader *r, const void *buf, size_t len, const uadp_decode_options *opts);
uadp_err uadp_read_network_header(uadp_reader *r, uadp_network_header *h);
/* PromotedField i (call h->promoted_count times; already validated). */
uadp_err uadp_next_promoted(uadp_reader *r, uadp_variant *v);
/* Next DataSetMessage header (finishing the previous message first: its
 * unread fields are read and its padding checked). */
uadp_err uadp_next_dsm(uadp_reader *r, uadp_dsm_header *d);
/* Next field of the current DataSetMessage (dsm->field_count of them). */
uadp_err uadp_next_field(uadp_reader *r, uadp_field *f);
/* Finish the current DataSetMessage now (optional); *padding (may be NULL)
 * = zero bytes after its data (Sizes array only). */
uadp_err uadp_end_dsm_read(uadp_reader *r, size_t *padding);
/* Read whatever is left (all checks), then: *consumed = message size;
 * exact: trailing_bytes unless the message fills the input. */
uadp_err uadp_finish(uadp_reader *r, bool exact, size_t *consumed);

/* The whole message, every check (Rust decode_with / decode_exact). */
uadp_err uadp_validate(const void *buf, size_t len, const uadp_decode_options *opts, bool exact,
                       size_t *consumed, uadp_error *err);

#ifdef __cplusplus
}
#endif

#endif /* UADP_H */
