// The HTTP front: routes (OpenAI endpoints, /health, /metrics), the API key, limits, error bodies,
// SSE streaming, and the graceful drain on shutdown. Handlers run on httplib's thread pool and talk
// to the engine through tasks and channels (server-task.h).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "llama.h"
#include "server-chat.h"
#include "server-embed.h"
#include "server-engine.h"
#include "server-listen.h"
#include "server-metrics.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace server {

struct http_config {
    std::string              host = "127.0.0.1";
    int                      port = 8080;                  // 0: any free port
    std::vector<std::string> api_keys;                     // empty: no authentication; else any one of them
    std::string              ssl_key_file, ssl_cert_file;  // both set: HTTPS
    // CORS as llama.cpp: origins "*" with credentials echoes the request's Origin; "localhost"
    // echoes only localhost origins; anything else is sent as is. OPTIONS is answered before auth.
    std::string cors_origins     = "*";
    std::string cors_methods     = "GET, POST, DELETE, OPTIONS";
    std::string cors_headers     = "*";
    bool        cors_credentials = true;
    bool        embeddings_only  = false;  // --embeddings: completion and chat answer 501
    size_t      max_body         = 1 << 20;
    int         max_tokens       = 4096;  // cap on max_tokens per choice
    int         timeout_s        = 600;   // per request (queue + generation)
    int         http_threads     = 64;    // connections served at once (streams hold one each)
    std::string model_id;
    std::string model_path;      // the model file (GET /props)
    std::string chat_template;   // template name or Jinja source; empty: the model's (else chatml)
    bool        jinja = true;    // run the Jinja template (tools, reasoning); false: built-in formats only
    bool        webui = true;    // serve the chat page at / (server-webui.h)
    std::string slot_save_path;  // POST /slots/{id}?action=save|restore: the folder of slot files; empty: off

    // a request's sampler defaults: the command line's --temp, --top-k, ... (server-params.h)
    sampling_params sampling;
};

class http_server {
public:
    http_server(const http_config & cfg, llama_model * model, engine & eng, embedder & emb, metrics & m);
    ~http_server();

    // False (with `error` set) when the server could not be made: HTTPS asked of a build without
    // OpenSSL, or an unreadable key or certificate.
    bool ok(std::string & error) const;
    // Binds the listening socket; returns the port, or -1.
    int bind();
    // Serves until stop() (blocks).
    bool listen();
    // Refuses new work (503), waits up to grace_s for in-flight requests, then stops listen().
    void shutdown(int grace_s);

private:
    void routes();
    // report_stop_word: each choice also says which stop string ended it ("stop_word"; for the
    // Anthropic translation, which OpenAI's shape has no field for)
    void handle_completion(const httplib::Request & req, httplib::Response & res, bool chat,
                           bool report_stop_word = false);
    // Queues one task per prompt x choice (index = prompt * cr.n + choice) answering on ch. false:
    // refused and answered in res (503); bad_request for a prompt that is empty or too long.
    bool submit_tasks(const std::vector<std::vector<llama_token>> & prompts, const completion_request & cr,
                      const std::shared_ptr<channel> & ch, httplib::Response & res);
    // The native endpoints (server-native.cpp): /completion, /tokenize, /detokenize,
    // /apply-template, /props, /slots, /embedding.
    void native_routes();
    // POST /slots/{id}?action=save|restore|erase (server-slots.cpp)
    void slot_routes();
    void handle_embeddings(const httplib::Request & req, httplib::Response & res);
    // Anthropic Messages API (server-anthropic.cpp)
    void handle_messages(const httplib::Request & req, httplib::Response & res);
    void handle_count_tokens(const httplib::Request & req, httplib::Response & res);

    http_config                      cfg_;
    const llama_model *              model_;
    const llama_vocab *              vocab_;
    std::unique_ptr<chat_renderer>   chat_;
    engine &                         engine_;
    embedder &                       embedder_;
    metrics &                        metrics_;
    std::unique_ptr<httplib::Server> svr_;
    listen_loop                      loop_;
    std::string                      setup_error_;
    std::atomic<bool>                draining_{false};
    int64_t                          created_;
};

}  // namespace server
