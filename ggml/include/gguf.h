/*
 * gguf.h — read and write GGUF files (the container format of model weights and metadata).
 *
 * File layout (all little-endian):
 *   magic "GGUF" | u32 version (2 or 3) | u64 n_tensors | u64 n_kv
 *   n_kv     x { string key | u32 value type | value }
 *   n_tensors x { string name | u32 n_dims (1..4) | u64 ne[n_dims] | u32 type | u64 offset }
 *   padding to general.alignment (default 32)
 *   tensor data: each tensor at data_offset + offset, offsets aligned to general.alignment
 * A string is u64 length + bytes (no terminator). An array is u32 element type + u64 count + elements.
 *
 * Reading validates everything (see gguf_init_from_file): counts and lengths against the bytes left,
 * dims and sizes without overflow, aligned in-file offsets, unique keys and tensor names, known types,
 * and the GGUF specification's explicit rules: keys are ASCII, at most 65,535 bytes; bools are 0 or 1.
 * A file that fails any check yields NULL with the reason sent to the log callback (ggml_log_set) —
 * the reader never aborts and never reads past its input.
 *
 * Ownership: a gguf_context owns every string it returns; pointers stay valid until gguf_free or
 * until the key/tensor they belong to is modified or removed.
 */
#pragma once

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GGUF_MAGIC             "GGUF"
#define GGUF_VERSION           3
#define GGUF_KEY_GENERAL_ALIGNMENT "general.alignment"
#define GGUF_DEFAULT_ALIGNMENT 32

/* Value types; the numeric values are part of the file format. */
enum gguf_type {
    GGUF_TYPE_UINT8   = 0,
    GGUF_TYPE_INT8    = 1,
    GGUF_TYPE_UINT16  = 2,
    GGUF_TYPE_INT16   = 3,
    GGUF_TYPE_UINT32  = 4,
    GGUF_TYPE_INT32   = 5,
    GGUF_TYPE_FLOAT32 = 6,
    GGUF_TYPE_BOOL    = 7,
    GGUF_TYPE_STRING  = 8,
    GGUF_TYPE_ARRAY   = 9,
    GGUF_TYPE_UINT64  = 10,
    GGUF_TYPE_INT64   = 11,
    GGUF_TYPE_FLOAT64 = 12,
    GGUF_TYPE_COUNT,
};

struct gguf_context;

struct gguf_init_params {
    /* true: read only header, key/values and tensor infos; tensor data is not read or checked
     * beyond its bounds (the caller maps it itself). false: the data section is read into memory
     * (gguf_get_tensor_data). */
    bool no_alloc;
};

/* Returns NULL on any error (unreadable file, bad magic or version, malformed or inconsistent
 * content); the reason goes to the log and to gguf_last_error. Free with gguf_free. */
GGML_API struct gguf_context * gguf_init_from_file(const char * path, struct gguf_init_params params);
/* The same from a memory buffer of `size` bytes, which is not retained after the call. */
GGML_API struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params);
/* The message of the last failed gguf_init_* or setter/writer call on this thread, as it was logged
 * ("gguf: <file>: offset 24: empty key"); "" if none failed yet. Not reset by calls that
 * succeed. Owned by the library; valid until the next failing gguf call on this thread. */
GGML_API const char *          gguf_last_error(void);
/* An empty context (version 3, no keys, no tensors), for writing. */
GGML_API struct gguf_context * gguf_init_empty(void);
GGML_API void                  gguf_free(struct gguf_context * ctx); /* NULL is a no-op */

GGML_API const char * gguf_type_name(enum gguf_type type); /* "u8", ..., "array"; "invalid" otherwise */

GGML_API uint32_t gguf_get_version(const struct gguf_context * ctx);
GGML_API size_t   gguf_get_alignment(const struct gguf_context * ctx);
/* Offset of the data section from the start of the file (0 for a context not read from a file). */
GGML_API size_t   gguf_get_data_offset(const struct gguf_context * ctx);
/* Bytes of the whole file or buffer the context was read from (0 for an empty context). */
GGML_API size_t   gguf_get_file_size(const struct gguf_context * ctx);

/* ---- key/values ---------------------------------------------------------------------------
 * key_id is in [0, gguf_get_n_kv). Getters with a wrong type or out-of-range id return a zero
 * value (0, false, NULL) and log an error; callers check gguf_get_kv_type first. */
GGML_API int64_t        gguf_get_n_kv(const struct gguf_context * ctx);
GGML_API int64_t        gguf_find_key(const struct gguf_context * ctx, const char * key); /* -1 if absent */
GGML_API const char *   gguf_get_key(const struct gguf_context * ctx, int64_t key_id);
GGML_API enum gguf_type gguf_get_kv_type(const struct gguf_context * ctx, int64_t key_id);
GGML_API enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id);

GGML_API uint8_t      gguf_get_val_u8(const struct gguf_context * ctx, int64_t key_id);
GGML_API int8_t       gguf_get_val_i8(const struct gguf_context * ctx, int64_t key_id);
GGML_API uint16_t     gguf_get_val_u16(const struct gguf_context * ctx, int64_t key_id);
GGML_API int16_t      gguf_get_val_i16(const struct gguf_context * ctx, int64_t key_id);
GGML_API uint32_t     gguf_get_val_u32(const struct gguf_context * ctx, int64_t key_id);
GGML_API int32_t      gguf_get_val_i32(const struct gguf_context * ctx, int64_t key_id);
GGML_API float        gguf_get_val_f32(const struct gguf_context * ctx, int64_t key_id);
GGML_API uint64_t     gguf_get_val_u64(const struct gguf_context * ctx, int64_t key_id);
GGML_API int64_t      gguf_get_val_i64(const struct gguf_context * ctx, int64_t key_id);
GGML_API double       gguf_get_val_f64(const struct gguf_context * ctx, int64_t key_id);
GGML_API bool         gguf_get_val_bool(const struct gguf_context * ctx, int64_t key_id);
GGML_API const char * gguf_get_val_str(const struct gguf_context * ctx, int64_t key_id); /* NUL-terminated */
GGML_API uint64_t     gguf_get_val_str_len(const struct gguf_context * ctx, int64_t key_id); /* may hold NULs */
/* Pointer to a non-array, non-string value's bytes; NULL otherwise. */
GGML_API const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t key_id);

/* Arrays: number of elements; raw element data (for arrays of fixed-size types, element size of
 * gguf_type_size(arr_type); NULL for string and nested arrays); the i-th string of a string array. */
GGML_API size_t       gguf_get_arr_n(const struct gguf_context * ctx, int64_t key_id);
GGML_API const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t key_id);
GGML_API const char * gguf_get_arr_str(const struct gguf_context * ctx, int64_t key_id, size_t i);
GGML_API uint64_t     gguf_get_arr_str_len(const struct gguf_context * ctx, int64_t key_id, size_t i);
/* Nested arrays (an array of arrays): the i-th element as a read-only view is not offered; the
 * reader accepts nesting up to depth 2 and exposes the inner arrays' count via gguf_get_arr_n only. */

/* Bytes of one value of a fixed-size type (0 for STRING, ARRAY and invalid). */
GGML_API size_t gguf_type_size(enum gguf_type type);

/* ---- tensor infos ------------------------------------------------------------------------ */
GGML_API int64_t        gguf_get_n_tensors(const struct gguf_context * ctx);
GGML_API int64_t        gguf_find_tensor(const struct gguf_context * ctx, const char * name); /* -1 if absent */
GGML_API const char *   gguf_get_tensor_name(const struct gguf_context * ctx, int64_t tensor_id);
GGML_API enum ggml_type gguf_get_tensor_type(const struct gguf_context * ctx, int64_t tensor_id);
/* Offset of the tensor's data relative to the data section (add gguf_get_data_offset). */
GGML_API size_t         gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t tensor_id);
GGML_API size_t         gguf_get_tensor_size(const struct gguf_context * ctx, int64_t tensor_id); /* bytes */
GGML_API uint32_t       gguf_get_tensor_n_dims(const struct gguf_context * ctx, int64_t tensor_id);
/* ne[0..3] of the tensor (dims past n_dims are 1). */
GGML_API void           gguf_get_tensor_shape(const struct gguf_context * ctx, int64_t tensor_id, int64_t ne[4]);
/* The tensor's bytes when the context was read with no_alloc == false, or given data with
 * gguf_add_tensor; NULL otherwise. */
GGML_API const void *   gguf_get_tensor_data(const struct gguf_context * ctx, int64_t tensor_id);

/* ---- writing ------------------------------------------------------------------------------
 * Setters add the key or replace its value (and type) in place. Return false (logged) on
 * invalid input: NULL or empty key, a key with a byte outside ASCII or longer than 65,535 bytes,
 * invalid type, a bool array element other than 0 or 1, general.alignment not a power of two. */
GGML_API bool gguf_set_val_u8(struct gguf_context * ctx, const char * key, uint8_t val);
GGML_API bool gguf_set_val_i8(struct gguf_context * ctx, const char * key, int8_t val);
GGML_API bool gguf_set_val_u16(struct gguf_context * ctx, const char * key, uint16_t val);
GGML_API bool gguf_set_val_i16(struct gguf_context * ctx, const char * key, int16_t val);
GGML_API bool gguf_set_val_u32(struct gguf_context * ctx, const char * key, uint32_t val);
GGML_API bool gguf_set_val_i32(struct gguf_context * ctx, const char * key, int32_t val);
GGML_API bool gguf_set_val_f32(struct gguf_context * ctx, const char * key, float val);
GGML_API bool gguf_set_val_u64(struct gguf_context * ctx, const char * key, uint64_t val);
GGML_API bool gguf_set_val_i64(struct gguf_context * ctx, const char * key, int64_t val);
GGML_API bool gguf_set_val_f64(struct gguf_context * ctx, const char * key, double val);
GGML_API bool gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool val);
GGML_API bool gguf_set_val_str(struct gguf_context * ctx, const char * key, const char * val);
/* An array of n fixed-size values of `type` copied from data. */
GGML_API bool gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data,
                                size_t n);
/* An array of n NUL-terminated strings. */
GGML_API bool gguf_set_arr_str(struct gguf_context * ctx, const char * key, const char ** data, size_t n);
/* Copies every key/value of src into ctx (replacing equal keys). */
GGML_API bool gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src);
/* Removes a key; returns its former id or -1 if it was absent. */
GGML_API int64_t gguf_remove_key(struct gguf_context * ctx, const char * key);

/* Adds a tensor info: name, type, n_dims 1..4 and ne. Its offset is placed after the previous
 * tensor, aligned. data (ggml_row_size * rows bytes) is copied when non-NULL; with NULL, only the
 * metadata is written and the caller writes the data itself. False on a duplicate name or bad shape. */
GGML_API bool gguf_add_tensor_info(struct gguf_context * ctx, const char * name, enum ggml_type type, int n_dims,
                                   const int64_t * ne, const void * data);

/* Writes the file: header, key/values, tensor infos, padding and (unless only_meta) every tensor's
 * data, zero-filled where none was given. False (logged) on I/O error. */
GGML_API bool gguf_write_to_file(const struct gguf_context * ctx, const char * path, bool only_meta);
/* Bytes of the metadata part (everything before the data section, padding included). */
GGML_API size_t gguf_get_meta_size(const struct gguf_context * ctx);
/* Copies the metadata part into data, which must hold gguf_get_meta_size bytes. */
GGML_API void   gguf_get_meta_data(const struct gguf_context * ctx, void * data);

#ifdef __cplusplus
}
#endif
