// Helpers shared by the libllama end-to-end tests: the reference files of tests/data/reference,
// RAII handles, tokenization and the probe-style greedy run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gguf.h"
#include "llama.h"

namespace llama_test_util {

// One NAME.once*.jsonl file of tests/data/reference.
struct reference {
    std::vector<llama_token> prompt;
    std::vector<llama_token> greedy;  // top token of each step
    std::string              text;    // the generated text
};

// rel is relative to tests/data (e.g. "reference/stories260K.once.jsonl").
reference load_reference(const std::string & rel);
// A NAME.once.logits.f32 file: n_vocab floats per step.
std::vector<float> load_logits(const std::string & rel);

// Largest |a - b| over two vectors; records a failure if their sizes differ.
double max_abs_diff(const std::vector<float> & a, const std::vector<float> & b);

// A fixed prompt of n tokens for the synthetic models (ids 3..252: past the special tokens, inside
// every micro vocabulary).
std::vector<llama_token> synthetic_prompt(int n);

// Largest |a - b| relative to the RMS of b (the reference's tolerance measure).
double max_err_rel_rms(const float * a, const float * b, int n);
int    argmax(const float * v, int n);

// An owned llama_batch filled token by token (explicit positions and sequences).
struct owned_batch {
    llama_batch b;
    explicit owned_batch(int n, int n_seq = 4) : b(llama_batch_init(n, 0, n_seq)) {}
    ~owned_batch() { llama_batch_free(b); }
    owned_batch(const owned_batch &)             = delete;
    owned_batch & operator=(const owned_batch &) = delete;
    void          add(llama_token t, llama_pos p, const std::vector<llama_seq_id> & seqs, bool logits = true) {
                 const int i   = b.n_tokens++;
                 b.token[i]    = t;
                 b.pos[i]      = p;
                 b.n_seq_id[i] = (int32_t) seqs.size();
                 for (size_t s = 0; s < seqs.size(); s++) {
                     b.seq_id[i][s] = seqs[s];
        }
                 b.logits[i] = logits;
    }
};

struct model_deleter {
    void operator()(llama_model * m) const { llama_model_free(m); }
};
struct ctx_deleter {
    void operator()(llama_context * c) const { llama_free(c); }
};
using model_ptr = std::unique_ptr<llama_model, model_deleter>;
using ctx_ptr   = std::unique_ptr<llama_context, ctx_deleter>;

// Tokenizes with parse_special on (as the probe does); records a test failure if sizes disagree.
std::vector<llama_token> tokenize(const llama_model * m, const std::string & text, bool add_special = true);

// Probe-style run: prefill + greedy steps (stopping at end of generation); appends the generated
// tokens to out and every step's last-position logits row to rows. Records a failure on error.
void run_greedy(llama_context * ctx, std::vector<llama_token> prompt, int n_steps, std::vector<llama_token> & out,
                std::vector<float> & rows);

// Decodes toks into seq at positions pos0.. (logits for the last one only); records a failure on error.
void decode_into(llama_context * ctx, const std::vector<llama_token> & toks, llama_pos pos0, llama_seq_id seq);

// Greedy continuation of seq from position pos, starting from the context's current last logits row:
// every row seen, the current one first (n_steps + 1 rows of n_vocab floats).
std::vector<float> continue_greedy(llama_context * ctx, llama_seq_id seq, llama_pos pos, int n_steps);

// Loads path (default model parameters), decodes seq as one batch in sequence 0 with logits for every
// position (n_ctx = n_batch = n_ubatch = max(n_ctx_min, seq.size()), 2 threads) and returns the rows back
// to back: seq.size() x n_vocab floats. On failure returns {} and sets err ("load: ", "context: " or
// "decode: " followed by llama_last_error()).
std::vector<float> sequence_logits(const std::string & path, const std::vector<llama_token> & seq, int & n_vocab,
                                   std::string & err, int n_ctx_min = 64);

// Loads path with one metadata key overridden: INT takes value as an integer, FLOAT as a double, BOOL as
// value != 0. Returns nullptr if the load fails (llama_last_error() says why).
model_ptr load_with_override(const std::string & path, const std::string & key, int64_t value);
model_ptr load_with_override(const std::string & path, const std::string & key, llama_model_kv_override_type tag,
                             double value);

// Records a failure unless m is null and llama_last_error() contains why (a load refused for that reason).
void expect_refused(const model_ptr & m, const std::string & why);

// Writes a temporary copy of the GGUF file src (metadata and tensors) after edit has changed its metadata;
// returns the copy's path (the caller removes it). Records a failure if src cannot be read or the copy written.
std::string write_edited_copy(const std::string & src, const std::string & stem,
                              const std::function<void(gguf_context *)> & edit);

// Loads that edited copy with default parameters and removes the file.
model_ptr load_edited_copy(const std::string & src, const std::function<void(gguf_context *)> & edit);

}  // namespace llama_test_util
