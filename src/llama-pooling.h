// Pooling of per-token embeddings into one vector per sequence (llama_get_embeddings_seq):
// MEAN, CLS (first token), LAST (last token) and RANK (the first token, or the mean for modern-bert,
// through the reranker's classifier head, n_cls_out scores). Runs on the host over the output rows of a whole decode;
// normalisation is left to the caller, as in llama.cpp.
#pragma once

#include "llama-batch.h"
#include "llama.h"

#include <map>
#include <string>
#include <vector>

struct llama_model;

class llama_pooling {
public:
    // Checks that the model can pool this way (RANK needs a cls.output head); false with the
    // reason in err.
    static bool supported(const llama_model & model, enum llama_pooling_type type, std::string & err);

    // Pools the rows of the last decode: embd holds one row of n_embd floats per output token, in
    // the order of the ubatches' outputs (every token is an output when pooling). A token in
    // several sequences counts in each. Replaces the previous results. Throws llama_error if the
    // classifier weights cannot be read.
    void pool(const llama_model & model, enum llama_pooling_type type, const std::vector<llama_ubatch> & ubatches,
              const float * embd, int32_t n_embd);

    // The pooled vector of seq_id from the last pool(), or nullptr if the batch had no such sequence.
    float * seq(llama_seq_id seq_id);

    void clear() { out.clear(); }

private:
    std::map<llama_seq_id, std::vector<float>> out;

    // the classifier head in F32, read from the model on first use
    bool               head_loaded = false;
    std::vector<float> cls, cls_b, cls_out, cls_out_b, cls_norm;
    void               load_head(const llama_model & model);
    void               apply_head(const llama_model & model, std::vector<float> & v) const;
};
