#include "server-rerank.h"

#include <algorithm>
#include <numeric>

#include "server-reply.h"

namespace server {

namespace {

bool optional_bool(const json & body, const char * field) {
    auto it = body.find(field);
    if (it == body.end() || it->is_null()) {
        return false;
    }
    if (!it->is_boolean()) {
        throw bad_request(std::string("'") + field + "' must be a boolean");
    }
    return it->get<bool>();
}

void replace_all(std::string & s, const std::string & from, const std::string & to) {
    for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
        s.replace(pos, from.size(), to);
    }
}

}  // namespace

rerank_request parse_rerank(const json & body) {
    rerank_request r;
    if (auto m = body.find("model"); m != body.end() && m->is_string()) {
        r.model = m->get<std::string>();
    }
    auto q = body.find("query");
    if (q == body.end() || !q->is_string()) {
        throw bad_request("'query' must be a string");
    }
    r.query           = q->get<std::string>();
    r.tei             = !body.contains("documents") && body.contains("texts");
    const char * name = r.tei ? "texts" : "documents";
    auto         docs = body.find(name);
    if (docs == body.end() || !docs->is_array() || docs->empty() || docs->size() > k_rerank_max_documents) {
        throw bad_request(std::string("'") + name + "' must be an array of 1 to " +
                          std::to_string(k_rerank_max_documents) + " documents");
    }
    for (size_t i = 0; i < docs->size(); i++) {
        const json & d = (*docs)[i];
        // Jina and Cohere also take {"text": ...} objects
        if (d.is_string()) {
            r.documents.push_back(d.get<std::string>());
        } else if (d.is_object() && d.contains("text") && d["text"].is_string()) {
            r.documents.push_back(d["text"].get<std::string>());
        } else {
            throw bad_request(std::string("'") + name + "[" + std::to_string(i) +
                              "]' must be a string or an object with a string 'text'");
        }
    }
    r.top_n = r.documents.size();
    if (auto t = body.find("top_n"); t != body.end() && !t->is_null()) {
        if (!t->is_number_integer() || *t < 1) {
            throw bad_request("'top_n' must be a positive integer");
        }
        r.top_n = std::min(r.top_n, (size_t) t->get<int64_t>());
    }
    r.with_documents = optional_bool(body, r.tei ? "return_text" : "return_documents");
    return r;
}

std::vector<llama_token> rerank_tokens(const llama_model * model, const std::string & query, const std::string & doc) {
    const llama_vocab * vocab = llama_model_get_vocab(model);
    if (const char * tmpl = llama_model_chat_template(model, "rerank")) {
        std::string prompt = tmpl;
        replace_all(prompt, "{query}", query);
        replace_all(prompt, "{document}", doc);
        // the template writes its own special tokens
        return tokenize(vocab, prompt, false, true);
    }
    // the texts are user input: special-token text in them stays text
    const std::vector<llama_token> q   = tokenize(vocab, query, false, false);
    const std::vector<llama_token> d   = tokenize(vocab, doc, false, false);
    llama_token                    eos = llama_vocab_eos(vocab);
    if (eos == LLAMA_TOKEN_NULL) {
        eos = llama_vocab_sep(vocab);
    }
    std::vector<llama_token> out;
    if (llama_vocab_get_add_bos(vocab)) {
        out.push_back(llama_vocab_bos(vocab));
    }
    out.insert(out.end(), q.begin(), q.end());
    if (llama_vocab_get_add_eos(vocab)) {
        out.push_back(eos);
    }
    if (llama_vocab_get_add_sep(vocab)) {
        out.push_back(llama_vocab_sep(vocab));
    }
    out.insert(out.end(), d.begin(), d.end());
    if (llama_vocab_get_add_eos(vocab)) {
        out.push_back(eos);
    }
    return out;
}

json rerank_response(const rerank_request & request, const std::string & model_id, const std::vector<float> & scores,
                     int n_tokens) {
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    // stable: equal scores keep the documents' order, so the answer is deterministic
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    order.resize(std::min(order.size(), request.top_n));
    json results = json::array();
    for (size_t i : order) {
        json r = {{"index", i}, {request.tei ? "score" : "relevance_score", scores[i]}};
        if (request.with_documents && request.tei) {
            r["text"] = request.documents[i];
        } else if (request.with_documents) {
            r["document"] = {{"text", request.documents[i]}};
        }
        results.push_back(std::move(r));
    }
    if (request.tei) {
        return results;
    }
    return {{"model", request.model.empty() ? model_id : request.model},
            {"object", "list"},
            {"usage", {{"prompt_tokens", n_tokens}, {"total_tokens", n_tokens}}},
            {"results", std::move(results)}};
}

void rerank_routes(httplib::Server & s, embedder & emb, metrics & m, const std::string & model_id) {
    auto handler = guarded([&emb, &m, model_id](const httplib::Request & req, httplib::Response & res) {
        in_flight guard(m);
        if (emb.pooling() != LLAMA_POOLING_TYPE_RANK) {
            send_error(res, 501, "this server does not rerank: start it with --reranking and a reranker model",
                       "not_supported_error");
            return;
        }
        const rerank_request                  r = parse_rerank(parse_body(req.body));
        std::vector<std::vector<llama_token>> pairs;
        int                                   n_tokens = 0;
        for (size_t i = 0; i < r.documents.size(); i++) {
            pairs.push_back(rerank_tokens(emb.model(), r.query, r.documents[i]));
            emb.check_length(
                pairs.back(),
                (std::string(r.tei ? "texts[" : "documents[") + std::to_string(i) + "]' with 'query").c_str());
            n_tokens += (int) pairs.back().size();
        }
        std::vector<float> scores;
        for (const auto & out : emb.pooled(pairs)) {
            scores.push_back(out.at(0));
        }
        res.set_content(dump(rerank_response(r, model_id, scores, n_tokens)), "application/json");
    });
    for (const char * path : {"/rerank", "/reranking", "/v1/rerank", "/v1/reranking"}) {
        s.Post(path, handler);
    }
}

}  // namespace server
