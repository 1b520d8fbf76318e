#include "server-embed.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "server-params.h"

namespace server {

namespace {

// Sequences per decode: enough to fill a batch with short documents, few enough to keep the
// per-sequence bookkeeping of the context small.
constexpr int k_max_seqs = 16;

}  // namespace

enum llama_pooling_type resolve_pooling(const llama_model * model, enum llama_pooling_type requested) {
    if (requested != LLAMA_POOLING_TYPE_UNSPECIFIED) {
        return requested;
    }
    // the key is read from the file, not llama_pooling_type(ctx): that says NONE both for a model
    // that asks for per-token output and for one that says nothing (a decoder), and only the first
    // should lose /v1/embeddings
    char arch[64] = {0};
    char val[32]  = {0};
    if (llama_model_meta_val_str(model, "general.architecture", arch, sizeof(arch)) > 0 &&
        llama_model_meta_val_str(model, (std::string(arch) + ".pooling_type").c_str(), val, sizeof(val)) > 0) {
        char *     end = nullptr;
        const long v   = std::strtol(val, &end, 10);
        if (end != val && *end == '\0' && v >= LLAMA_POOLING_TYPE_NONE && v <= LLAMA_POOLING_TYPE_RANK) {
            return (enum llama_pooling_type) v;
        }
    }
    return LLAMA_POOLING_TYPE_MEAN;
}

const char * pooling_name(enum llama_pooling_type type) {
    switch (type) {
        case LLAMA_POOLING_TYPE_NONE:
            return "none";
        case LLAMA_POOLING_TYPE_MEAN:
            return "mean";
        case LLAMA_POOLING_TYPE_CLS:
            return "cls";
        case LLAMA_POOLING_TYPE_LAST:
            return "last";
        case LLAMA_POOLING_TYPE_RANK:
            return "rank";
        default:
            return "unspecified";
    }
}

void normalize(std::vector<float> & v, int mode) {
    double sum = 0;
    if (mode < 0) {
        return;
    }
    if (mode == 0) {
        for (float x : v) {
            sum = std::max(sum, (double) std::fabs(x));
        }
        sum /= 32760.0;  // the largest magnitude becomes 32760: the vector fits int16
    } else if (mode == 1) {
        for (float x : v) {
            sum += std::fabs(x);
        }
    } else if (mode == 2) {
        for (float x : v) {
            sum += (double) x * x;
        }
        sum = std::sqrt(sum);
    } else {
        for (float x : v) {
            sum += std::pow(std::fabs((double) x), mode);
        }
        sum = std::pow(sum, 1.0 / mode);
    }
    for (float & x : v) {
        x = sum > 0 ? (float) (x / sum) : 0.0f;
    }
}

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

embedder::embedder(llama_model * model, int n_ctx, int n_threads, enum llama_pooling_type pooling)
    : model_(model), n_ctx_(n_ctx), n_threads_(n_threads), pooling_(pooling) {
    const int n_train = llama_model_n_ctx_train(model);
    if (n_train > 0 && n_train < n_ctx_) {
        n_ctx_ = n_train;
    }
}

void embedder::check_length(const std::vector<llama_token> & toks, const char * field) const {
    if (toks.empty()) {
        throw bad_request(std::string("'") + field + "' must not be empty");
    }
    if ((int) toks.size() > n_ctx_) {
        throw bad_request(std::string("'") + field + "' has " + std::to_string(toks.size()) + " tokens; the limit is " +
                          std::to_string(n_ctx_));
    }
}

void embedder::decode(const std::vector<const std::vector<llama_token> *> & seqs) {
    if (ctx_ == nullptr) {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = (uint32_t) n_ctx_;
        cp.n_batch              = (uint32_t) n_ctx_;
        // one ubatch per decode: an encoder attends over its whole sequence at once
        cp.n_ubatch        = (uint32_t) n_ctx_;
        cp.n_seq_max       = k_max_seqs;
        cp.n_threads       = n_threads_;
        cp.n_threads_batch = n_threads_;
        cp.embeddings      = true;
        cp.pooling_type    = pooling_;
        ctx_               = llama_init_from_model(model_, cp);
        if (ctx_ == nullptr) {
            throw std::runtime_error(std::string("cannot create the embeddings context: ") + llama_last_error());
        }
    }
    size_t n_tokens = 0;
    for (const auto * s : seqs) {
        n_tokens += s->size();
    }
    llama_batch batch = llama_batch_init((int32_t) n_tokens, 0, 1);
    for (size_t s = 0; s < seqs.size(); s++) {
        for (size_t i = 0; i < seqs[s]->size(); i++) {
            const int32_t k    = batch.n_tokens++;
            batch.token[k]     = (*seqs[s])[i];
            batch.pos[k]       = (llama_pos) i;
            batch.n_seq_id[k]  = 1;
            batch.seq_id[k][0] = (llama_seq_id) s;
            batch.logits[k]    = 1;
        }
    }
    // every decode starts from an empty cache: a sequence sees only its own tokens
    llama_memory_clear(llama_get_memory(ctx_), true);
    const int32_t rc = llama_decode(ctx_, batch);
    llama_batch_free(batch);
    if (rc != 0) {
        throw std::runtime_error(std::string("decode failed: ") + llama_last_error());
    }
}

std::vector<std::vector<float>> embedder::pooled(const std::vector<std::vector<llama_token>> & seqs) {
    if (pooling_ == LLAMA_POOLING_TYPE_NONE) {
        throw std::runtime_error("pooling none gives no pooled vector");
    }
    const int n_out =
        pooling_ == LLAMA_POOLING_TYPE_RANK ? (int) llama_model_n_cls_out(model_) : llama_model_n_embd_out(model_);
    std::vector<std::vector<float>> out;
    out.reserve(seqs.size());
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t first = 0; first < seqs.size();) {
        // as many whole sequences as fit into one decode of n_ctx_ tokens
        std::vector<const std::vector<llama_token> *> group;
        size_t                                        n_tokens = 0;
        while (first + group.size() < seqs.size() && (int) group.size() < k_max_seqs &&
               n_tokens + seqs[first + group.size()].size() <= (size_t) n_ctx_) {
            n_tokens += seqs[first + group.size()].size();
            group.push_back(&seqs[first + group.size()]);
        }
        if (group.empty()) {
            throw std::runtime_error("a sequence is longer than the context");
        }
        decode(group);
        for (size_t s = 0; s < group.size(); s++) {
            const float * v = llama_get_embeddings_seq(ctx_, (llama_seq_id) s);
            if (v == nullptr) {
                throw std::runtime_error(std::string("no pooled embedding: ") + llama_last_error());
            }
            out.emplace_back(v, v + n_out);
        }
        first += group.size();
    }
    return out;
}

std::vector<std::vector<float>> embedder::token_rows(const std::vector<llama_token> & toks) {
    const int                       n_embd = llama_model_n_embd_out(model_);
    std::vector<std::vector<float>> rows;
    std::lock_guard<std::mutex>     lock(mutex_);
    decode({&toks});
    for (size_t i = 0; i < toks.size(); i++) {
        const float * v = llama_get_embeddings_ith(ctx_, (int32_t) i);
        if (v == nullptr) {
            throw std::runtime_error(std::string("no token embedding: ") + llama_last_error());
        }
        rows.emplace_back(v, v + n_embd);
    }
    return rows;
}

std::vector<std::vector<float>> embedder::embed(const std::vector<std::string> & texts, int & n_tokens) {
    if (pooling_ == LLAMA_POOLING_TYPE_NONE || pooling_ == LLAMA_POOLING_TYPE_RANK) {
        // OpenAI's embedding is one vector per input; upstream refuses none the same way
        throw bad_request(std::string("this server pools with '") + pooling_name(pooling_) +
                          "', which gives no embedding vector: use " +
                          (pooling_ == LLAMA_POOLING_TYPE_NONE ? "/embedding for per-token vectors" : "/v1/rerank") +
                          ", or start the server with --pooling mean|cls|last");
    }
    std::vector<std::vector<llama_token>> seqs;
    n_tokens = 0;
    for (const std::string & text : texts) {
        seqs.push_back(tokenize(llama_model_get_vocab(model_), text, true));
        check_length(seqs.back(), "input");
        n_tokens += (int) seqs.back().size();
    }
    std::vector<std::vector<float>> out = pooled(seqs);
    for (auto & v : out) {
        normalize(v, 2);
    }
    return out;
}

json embedding_native(embedder & emb, const json & body) {
    const char * field     = body.contains("content") ? "content" : "input";
    const auto   inputs    = embed_inputs(body, field);
    int          normalise = 2;
    if (auto n = body.find("embd_normalize"); n != body.end() && !n->is_null()) {
        if (!n->is_number_integer() || *n < -1 || *n > 64) {
            throw bad_request("'embd_normalize' must be an integer from -1 to 64");
        }
        normalise = n->get<int>();
    }
    if (emb.pooling() == LLAMA_POOLING_TYPE_RANK) {
        throw bad_request("this server pools with 'rank' (a reranker): use /v1/rerank");
    }
    std::vector<std::vector<llama_token>> seqs;
    for (const std::string & text : inputs) {
        seqs.push_back(tokenize(llama_model_get_vocab(emb.model()), text, true));
        emb.check_length(seqs.back(), field);
    }
    json out = json::array();
    if (emb.pooling() == LLAMA_POOLING_TYPE_NONE) {
        // upstream's shape: the raw rows of every token, not normalised
        for (size_t i = 0; i < seqs.size(); i++) {
            json rows = json::array();
            for (auto & r : emb.token_rows(seqs[i])) {
                rows.push_back(std::move(r));
            }
            out.push_back({{"index", i}, {"embedding", std::move(rows)}});
        }
        return out;
    }
    std::vector<std::vector<float>> vecs = emb.pooled(seqs);
    for (size_t i = 0; i < vecs.size(); i++) {
        normalize(vecs[i], normalise);
        out.push_back({{"index", i}, {"embedding", json::array({std::move(vecs[i])})}});
    }
    return out;
}

}  // namespace server
