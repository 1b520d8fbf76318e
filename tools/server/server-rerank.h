// Reranking (POST /rerank, /reranking, /v1/rerank, /v1/reranking) as upstream llama-server offers it:
// each (query, document) pair is one sequence of a classifier model (pooling rank, server-embed.h),
// and its score is the head's first output, raw as upstream sends it. The Jina/Cohere body
// {query, documents, top_n, return_documents} answers {model, object, usage, results}; the TEI body
// {query, texts, return_text} answers a bare array of {index, score, text?}. Both sort by score.
#pragma once

#include <string>
#include <vector>

#include "llama.h"
#include "server-embed.h"
#include "server-metrics.h"
#include "server-params.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace server {

// The most documents one request may rank.
constexpr size_t k_rerank_max_documents = 1024;

struct rerank_request {
    std::string              model;  // echoed back (empty: the server's model id)
    std::string              query;
    std::vector<std::string> documents;
    size_t                   top_n          = 0;      // results kept, best first (= documents.size() unless given)
    bool                     tei            = false;  // 'texts' instead of 'documents': TEI's shape
    bool                     with_documents = false;  // return_documents (Jina, Cohere) / return_text (TEI)
};

// Reads a rerank body; bad_request naming the field when query, documents (texts), top_n or
// return_documents (return_text) is missing or of the wrong kind, or documents is empty or too long.
rerank_request parse_rerank(const json & body);

// The tokens of one pair: the model's rerank template (tokenizer.chat_template.rerank, with {query}
// and {document} replaced) when it has one, else [BOS] query [EOS] [SEP] document [EOS], each special
// token where the vocabulary adds it (SEP standing in for a missing EOS), as upstream.
std::vector<llama_token> rerank_tokens(const llama_model * model, const std::string & query, const std::string & doc);

// The response body for scores[i] of request.documents[i] (n_tokens: all pairs' tokens).
json rerank_response(const rerank_request & request, const std::string & model_id, const std::vector<float> & scores,
                     int n_tokens);

// Registers the four routes. A server whose embedder does not pool with rank answers 501.
void rerank_routes(httplib::Server & s, embedder & emb, metrics & m, const std::string & model_id);

}  // namespace server
