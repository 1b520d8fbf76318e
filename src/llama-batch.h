// Batch validation, filling of the optional fields, ubatch splitting and the batch index ->
// output row map used by llama_get_logits_ith.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llama.h"

struct llama_memory_i;

// A slice of a validated batch computed in one graph (<= n_ubatch tokens). Arrays point into the
// allocator's storage.
struct llama_ubatch {
    uint32_t n_tokens = 0;

    const llama_token *    token    = nullptr;  // [n_tokens] or nullptr with embd
    const float *          embd     = nullptr;  // [n_embd * n_tokens] or nullptr
    const llama_pos *      pos      = nullptr;
    const int32_t *        n_seq_id = nullptr;
    llama_seq_id * const * seq_id   = nullptr;
    const int8_t *         output   = nullptr;

    uint32_t n_outputs = 0;  // tokens with output[i] != 0
    uint32_t i_begin   = 0;  // index of the first token in the batch

    // Equal split (recurrent models): n_seqs sequences of n_seq_tokens tokens each, sequence-major
    // (n_tokens = n_seqs * n_seq_tokens). 0 in a plain split.
    uint32_t n_seqs       = 0;
    uint32_t n_seq_tokens = 0;
};

// Validates a llama_batch and fills what the caller left NULL, exactly as llama.h documents.
class llama_batch_allocr {
public:
    // Returns false with the reason in `err` if the batch is invalid. n_vocab bounds token ids,
    // n_embd sizes embeddings, mem gives the positions to continue from (may be nullptr),
    // output_all: every token outputs (embeddings without pooling). tokens_and_embd: the batch carries
    // both (an MTP context: each token with the hidden row it follows), else exactly one of them.
    bool init(const llama_batch & batch, int32_t n_vocab, int32_t n_embd, uint32_t n_seq_max,
              const llama_memory_i * mem, bool output_all, std::string & err, bool tokens_and_embd = false);

    // Splits the batch into consecutive ubatches of at most n_ubatch tokens.
    std::vector<llama_ubatch> split(uint32_t n_ubatch) const;
    // The split a recurrent model needs: consecutive ubatches of at most n_ubatch tokens, each either
    // a run of one sequence's tokens or one token each of distinct sequences, so that every ubatch
    // holds whole per-sequence runs of equal length in batch order (outputs keep their order). Every
    // token must belong to exactly one sequence.
    std::vector<llama_ubatch> split_equal(uint32_t n_ubatch) const;

    uint32_t n_tokens() const { return (uint32_t) n_tokens_; }
    uint32_t n_outputs() const { return n_outputs_; }

    // For each batch index, its output row (in batch order), or -1.
    const std::vector<int32_t> & output_ids() const { return out_ids_; }

private:
    // Sequence sharing and position rules (see llama_decode in llama.h); false with the reason.
    bool        check_sequences(const llama_memory_i * mem, uint32_t seq_limit, std::string & err) const;
    static bool seq_same_history(const llama_memory_i * mem, llama_seq_id a, llama_seq_id b);

    int32_t             n_tokens_ = 0;
    const llama_token * token_    = nullptr;
    const float *       embd_     = nullptr;

    std::vector<llama_pos>      pos_;
    std::vector<int32_t>        n_seq_id_;
    std::vector<llama_seq_id *> seq_id_;
    std::vector<llama_seq_id>   seq_id_zero_;  // storage for default seq 0
    std::vector<int8_t>         output_;
    std::vector<int32_t>        out_ids_;
    uint32_t                    n_outputs_ = 0;
};
