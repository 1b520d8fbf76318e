// Embeddings (POST /v1/embeddings, /embedding) and the sequence scores of reranking (server-rerank.h):
// a second context on the same model with embeddings on, used by one request at a time (the model is
// shared; contexts are per thread of use). Its pooling is --pooling, else the model's own (the GGUF's
// <arch>.pooling_type), else mean for a model that states none (decoders), so that any model embeds.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "llama.h"
#include "server-params.h"

namespace server {

// The pooling the embeddings context uses: `requested` unless UNSPECIFIED, else the model's
// <arch>.pooling_type, else MEAN.
enum llama_pooling_type resolve_pooling(const llama_model * model, enum llama_pooling_type requested);

// The name --pooling takes for a pooling type ("none", "mean", "cls", "last", "rank").
const char * pooling_name(enum llama_pooling_type type);

// Normalises v in place as upstream's embd_normalize: -1 none, 0 max-abs scaled to int16 range,
// 1 taxicab, 2 Euclidean, > 2 the p-norm of that order. A zero vector stays zero.
void normalize(std::vector<float> & v, int mode);

class embedder {
public:
    // n_ctx: the most tokens one sequence may have (also the tokens of one decode), at most the
    // model's training length (where an encoder's position embeddings end).
    embedder(llama_model * model, int n_ctx, int n_threads, enum llama_pooling_type pooling);
    ~embedder() { llama_free(ctx_); }

    enum llama_pooling_type pooling() const { return pooling_; }

    const llama_model * model() const { return model_; }

    // bad_request (naming `field`) unless 1 <= toks.size() <= the sequence limit.
    void check_length(const std::vector<llama_token> & toks, const char * field) const;

    // The raw pooled output of each sequence (n_embd floats; with pooling rank, the
    // llama_model_n_cls_out scores of the classifier head). Several sequences go into one decode;
    // each is pooled over its own tokens only, so a result does not depend on its neighbours.
    // runtime_error on failure (or with pooling none).
    std::vector<std::vector<float>> pooled(const std::vector<std::vector<llama_token>> & seqs);

    // The final hidden state of every token of one sequence (pooling none).
    std::vector<std::vector<float>> token_rows(const std::vector<llama_token> & toks);

    // The L2-normalised pooled embedding of each text (several per decode); n_tokens gets the tokens
    // of all. bad_request when a text is empty or longer than the context, or when the pooling gives
    // no single vector (none, rank); runtime_error on failure.
    std::vector<std::vector<float>> embed(const std::vector<std::string> & texts, int & n_tokens);

private:
    // Decodes the sequences (seq ids 0..n-1) in one batch; needs mutex_ held.
    void decode(const std::vector<const std::vector<llama_token> *> & seqs);

    llama_model *           model_;
    int                     n_ctx_;
    int                     n_threads_;
    enum llama_pooling_type pooling_;        // resolve_pooling(--pooling)
    llama_context *         ctx_ = nullptr;  // created on first use
    std::mutex              mutex_;
};

// The texts to embed: body[field], a string or an array of 1 to 256 strings; bad_request otherwise.
std::vector<std::string> embed_inputs(const json & body, const char * field);

// The body of upstream's POST /embedding: [{index, embedding: [row, ...]}] with one pooled row
// normalised by 'embd_normalize' (default 2), or with pooling none one row per token.
json embedding_native(embedder & emb, const json & body);

}  // namespace server
