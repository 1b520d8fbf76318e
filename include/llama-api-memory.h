/*
 * llama-api-memory.h — a context's memory (KV cache / recurrent state) and saving and restoring it
 * (whole-context sessions and single sequences).
 *
 * Part of the public C API of libllama: llama.h includes it, so a program includes llama.h only
 * (including this header alone works too). The conventions of llama.h (errors, ownership, threads,
 * ABI) hold here.
 */
#ifndef LLAMA_API_MEMORY_H
#define LLAMA_API_MEMORY_H

/* The declarations below use llama.h's types. llama.h includes this header at its end, after its
 * own declarations, and the include guards make either order of inclusion declare the same. */
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Memory (KV cache, or the recurrent state of a state-space model)
 *
 * A cell of the cache holds one token's K and V, its position and the set of sequences it belongs
 * to. A recurrent model (mamba2) holds instead one state per sequence (n_seq_max of them), the
 * result of all its tokens so far, with the position of its last token; the calls below act on
 * that state as described where they differ.
 * Position ranges are half-open [p0, p1); p0 < 0 means 0 and p1 < 0 means infinity.
 * seq_id < 0 means every sequence where stated. mem may be NULL (every call is then a no-op
 * returning false/-1).
 * ========================================================================================== */

/* Removes every cell; data == true also zeroes the K/V buffers. */
LLAMA_API void llama_memory_clear(llama_memory_t mem, bool data);

/* Removes sequence seq_id (any if < 0) from the cells with positions in [p0, p1). Returns false
 * only if a partial removal is impossible, true otherwise. A KV cache never refuses. A recurrent
 * state cannot be cut: a range covering the whole sequence empties it (its next token starts from
 * a zero state) and a range past its last position removes nothing (both true); a range that would
 * keep only part of the history (from the middle, or a tail starting after position 0) returns
 * false and leaves the state as it was, still usable. seq_id >= n_seq_max: false. */
LLAMA_API bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1);

/* Adds seq_id_dst to the cells of seq_id_src with positions in [p0, p1) (they are shared, not
 * copied). A recurrent model copies seq_id_src's whole state into seq_id_dst (the range is
 * ignored); ids outside [0, n_seq_max) do nothing. */
LLAMA_API void llama_memory_seq_cp(llama_memory_t mem, llama_seq_id seq_id_src, llama_seq_id seq_id_dst,
                                   llama_pos p0, llama_pos p1);

/* Removes every sequence except seq_id. */
LLAMA_API void llama_memory_seq_keep(llama_memory_t mem, llama_seq_id seq_id);

/* Adds delta to the positions of seq_id's cells in [p0, p1) (the K rotations are updated before
 * the next decode). Cells whose position becomes negative are removed. */
LLAMA_API void llama_memory_seq_add(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1,
                                    llama_pos delta);

/* Divides the positions of seq_id's cells in [p0, p1) by d (> 1), rounding down. */
LLAMA_API void llama_memory_seq_div(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d);

/* Smallest / largest position stored for seq_id; -1 if the sequence is empty. A recurrent state
 * has only its last token's position: both return it. */
LLAMA_API llama_pos llama_memory_seq_pos_min(llama_memory_t mem, llama_seq_id seq_id);
LLAMA_API llama_pos llama_memory_seq_pos_max(llama_memory_t mem, llama_seq_id seq_id);

/* Whether positions can be shifted with seq_add/seq_div. */
LLAMA_API bool llama_memory_can_shift(llama_memory_t mem);

/* ============================================================================================
 * State / sessions
 *
 * The state of a context is what a later llama_decode depends on: the KV cells (positions,
 * sequence sets, pending position shifts) with their K/V data in the cache's own type, read from
 * whichever device holds each layer, and the outputs (logits, embeddings, batch-index map) of the
 * last decode, so llama_get_logits_ith works right after a restore. The context has no random
 * number generator (samplers own theirs). Format: docs/state.md.
 *
 * A state loads only into a context of the same model (architecture, n_layer, n_vocab, n_embd,
 * K/V row sizes) and the same KV cache types (type_k, type_v), whose cache has room for its cells;
 * the flash-attention setting and device placement may differ. Every load checks the whole buffer
 * (sizes, ranges, a checksum) before changing anything: a load that fails returns 0 / false, sets
 * llama_last_error() and leaves the context exactly as it was. A restore keeps the saved cell
 * indices where they fit, so restoring into a context shaped like the source continues with
 * bit-identical results.
 * ========================================================================================== */

/* Exact size in bytes of the whole-context state now (it changes with every decode). 0 on error
 * (ctx NULL). */
LLAMA_API size_t llama_state_get_size(struct llama_context * ctx);

/* Writes the whole-context state into dst (size bytes of room; llama_state_get_size tells how many
 * are needed). Returns the bytes written, or 0 if dst is NULL or too small (nothing usable then). */
LLAMA_API size_t llama_state_get_data(struct llama_context * ctx, uint8_t * dst, size_t size);

/* Restores a whole-context state from src[0, size): replaces every cell and the outputs. src may
 * be longer than the state. Returns the bytes read, 0 on error (truncated, corrupt, another model,
 * another KV type, too many cells for this cache, a sequence id >= n_seq_max): the context is
 * then unchanged. */
LLAMA_API size_t llama_state_set_data(struct llama_context * ctx, const uint8_t * src, size_t size);

/* Saves the whole-context state to a session file, with the n_token_count tokens (may be 0 and
 * tokens NULL) the caller wants back on load, usually the tokens decoded so far. Writes a
 * temporary file renamed into place. Returns true on success, false on error. */
LLAMA_API bool llama_state_save_file(struct llama_context * ctx, const char * path_session, const llama_token * tokens,
                                     size_t n_token_count);

/* Loads a session file: restores the state and copies its tokens to tokens_out (room for
 * n_token_capacity) and their count to *n_token_count_out (may be NULL). Returns false on any
 * error (unreadable file, bad magic/version, more tokens than n_token_capacity, a token outside
 * the vocabulary, any state error, trailing bytes): the context and tokens_out are unchanged. */
LLAMA_API bool llama_state_load_file(struct llama_context * ctx, const char * path_session, llama_token * tokens_out,
                                     size_t n_token_capacity, size_t * n_token_count_out);

/* Flags of the _ext sequence calls. A sequence state records its flags and loads only with the
 * same ones. This cache has no partial part (no sliding-window or recurrent cache), so, as in
 * llama.cpp for a plain KV cache, PARTIAL_ONLY still saves the whole sequence. Other bits are
 * rejected (ON_DEVICE is not supported). */
#define LLAMA_STATE_SEQ_FLAGS_NONE         0
#define LLAMA_STATE_SEQ_FLAGS_SWA_ONLY     1 /* the older name of PARTIAL_ONLY */
#define LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY 1
#define LLAMA_STATE_SEQ_FLAGS_ON_DEVICE    2 /* llama.cpp's device-resident states: rejected here */
typedef uint32_t llama_state_seq_flags;

/* Exact size of sequence seq_id's state (its cells and their K/V; no outputs). 0 on error (ctx
 * NULL, seq_id outside [0, n_seq_max)). An empty sequence still has a small state. */
LLAMA_API size_t llama_state_seq_get_size(struct llama_context * ctx, llama_seq_id seq_id);

/* Writes sequence seq_id's state into dst. Returns the bytes written, 0 on error (as above, or
 * dst NULL or too small). */
LLAMA_API size_t llama_state_seq_get_data(struct llama_context * ctx, uint8_t * dst, size_t size,
                                          llama_seq_id seq_id);

/* Restores a sequence state into sequence dest_seq_id of ctx (any context of the same model and
 * KV types): first removes dest_seq_id's cells, then places the saved ones (at their saved indices
 * if those cells are free, else in the first free cells). Other sequences are untouched. Returns
 * the bytes read; 0 on error (as llama_state_set_data, or dest_seq_id outside [0, n_seq_max), or
 * not enough free cells), and then the context is unchanged. */
LLAMA_API size_t llama_state_seq_set_data(struct llama_context * ctx, const uint8_t * src, size_t size,
                                          llama_seq_id dest_seq_id);

/* Saves sequence seq_id's state and n_token_count tokens to a file. Returns the file size in
 * bytes, 0 on error. */
LLAMA_API size_t llama_state_seq_save_file(struct llama_context * ctx, const char * filepath, llama_seq_id seq_id,
                                           const llama_token * tokens, size_t n_token_count);

/* Loads a sequence-state file into dest_seq_id; tokens as llama_state_load_file. Returns the file
 * size in bytes, 0 on error (context and tokens_out unchanged). With tokens_out NULL nothing is
 * restored: only the token count is stored in *n_token_count_out (then required) and 12 (the
 * header size) is returned. */
LLAMA_API size_t llama_state_seq_load_file(struct llama_context * ctx, const char * filepath, llama_seq_id dest_seq_id,
                                           llama_token * tokens_out, size_t n_token_capacity,
                                           size_t * n_token_count_out);

/* The same with flags (LLAMA_STATE_SEQ_FLAGS_*); the calls above pass LLAMA_STATE_SEQ_FLAGS_NONE. */
LLAMA_API size_t llama_state_seq_get_size_ext(struct llama_context * ctx, llama_seq_id seq_id,
                                              llama_state_seq_flags flags);
LLAMA_API size_t llama_state_seq_get_data_ext(struct llama_context * ctx, uint8_t * dst, size_t size,
                                              llama_seq_id seq_id, llama_state_seq_flags flags);
LLAMA_API size_t llama_state_seq_set_data_ext(struct llama_context * ctx, const uint8_t * src, size_t size,
                                              llama_seq_id dest_seq_id, llama_state_seq_flags flags);

/* Deprecated llama.cpp names. llama_copy_state_data / llama_set_state_data take no size: they
 * trust the buffer to be large enough (use the sized calls). */
LLAMA_API LLAMA_DEPRECATED(size_t llama_get_state_size(struct llama_context * ctx), "use llama_state_get_size");
LLAMA_API LLAMA_DEPRECATED(size_t llama_copy_state_data(struct llama_context * ctx, uint8_t * dst),
                           "use llama_state_get_data");
LLAMA_API LLAMA_DEPRECATED(size_t llama_set_state_data(struct llama_context * ctx, const uint8_t * src),
                           "use llama_state_set_data");
LLAMA_API LLAMA_DEPRECATED(bool llama_load_session_file(struct llama_context * ctx, const char * path_session,
                                                        llama_token * tokens_out, size_t n_token_capacity,
                                                        size_t * n_token_count_out),
                           "use llama_state_load_file");
LLAMA_API LLAMA_DEPRECATED(bool llama_save_session_file(struct llama_context * ctx, const char * path_session,
                                                        const llama_token * tokens, size_t n_token_count),
                           "use llama_state_save_file");

#ifdef __cplusplus
}
#endif

#endif /* LLAMA_API_MEMORY_H */
