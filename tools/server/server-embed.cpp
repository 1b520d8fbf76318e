#include "server-embed.h"

#include <cmath>

#include "server-params.h"

namespace server {

std::vector<std::string> embed_inputs(const json & body, const char * field) {
    auto                     it = body.find(field);
    std::vector<std::string> inputs;
    if (it != body.end() && it->is_string()) {
        inputs.push_back(it->get<std::string>());
    } else if (it != body.end() && it->is_array() && !it->empty() && it->size() <= 256) {
        for (const auto & x : *it) {
            if (!x.is_string()) {
                throw bad_request(std::string("'") + field + "' must be a string or an array of strings");
            }
            inputs.push_back(x.get<std::string>());
        }
    } else {
        throw bad_request(std::string("'") + field + "' must be a string or an array of 1 to 256 strings");
    }
    return inputs;
}

std::vector<float> embedder::embed(const std::string & text, int & n_tokens) {
    const llama_vocab *      vocab = llama_model_get_vocab(model_);
    std::vector<llama_token> toks  = tokenize(vocab, text, true);
    if (toks.empty()) {
        throw bad_request("'input' must not be empty");
    }
    if ((int) toks.size() > n_ctx_) {
        throw bad_request("input has " + std::to_string(toks.size()) + " tokens; the limit is " +
                          std::to_string(n_ctx_));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (ctx_ == nullptr) {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = (uint32_t) n_ctx_;
        cp.n_batch              = (uint32_t) n_ctx_;
        cp.n_ubatch             = (uint32_t) n_ctx_;
        cp.n_seq_max            = 1;
        cp.n_threads            = n_threads_;
        cp.n_threads_batch      = n_threads_;
        cp.embeddings           = true;
        cp.pooling_type         = pooling_;
        ctx_                    = llama_init_from_model(model_, cp);
        if (ctx_ == nullptr) {
            throw std::runtime_error(std::string("cannot create the embeddings context: ") + llama_last_error());
        }
    }
    llama_memory_clear(llama_get_memory(ctx_), true);
    if (llama_decode(ctx_, llama_batch_get_one(toks.data(), (int32_t) toks.size())) != 0) {
        throw std::runtime_error(std::string("decode failed: ") + llama_last_error());
    }
    const float * v = llama_get_embeddings_seq(ctx_, 0);
    if (v == nullptr) {
        throw std::runtime_error(std::string("no pooled embedding: ") + llama_last_error());
    }
    std::vector<float> out(v, v + llama_model_n_embd(model_));
    double             norm = 0;
    for (float x : out) {
        norm += (double) x * x;
    }
    norm = std::sqrt(norm);
    for (float & x : out) {
        x = norm > 0 ? (float) (x / norm) : 0.0f;
    }
    n_tokens = (int) toks.size();
    return out;
}

}  // namespace server
