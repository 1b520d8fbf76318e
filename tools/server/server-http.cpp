#include "server-http.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <thread>

#include "server-logprobs.h"
#include "server-params.h"
#include "server-prompt.h"
#include "server-reply.h"
#include "server-rerank.h"
#include "server-webui.h"

namespace server {

namespace {

// What one streamed or collected response is made of.
struct response_state {
    std::shared_ptr<channel>   ch;
    std::unique_ptr<in_flight> guard;
    bool                       chat          = false;
    bool                       include_usage = false;
    bool                       logprobs      = false;  // choices carry log-probabilities
    int                        n             = 1;      // choices: prompts x n_per_prompt
    int                        n_per_prompt  = 1;
    int                        n_done        = 0;
    bool                       started       = false;  // first SSE chunk sent
    std::string                id, model;
    int64_t                    created  = 0;
    int                        n_prompt = 0, n_gen = 0, n_cached = 0;
    std::string                error;
    task_event                 last;     // one choice: its final event (the usage chunk's timings)
    std::vector<choice_parser> parsers;  // chat: per choice, the text to content/reasoning/tool calls
    // streamed: per choice, log-probabilities of tokens not yet sent (a chat delta may lag its text)
    std::vector<std::vector<token_probs>> pending;

    json usage() const {
        return {{"prompt_tokens", n_prompt},
                {"completion_tokens", n_gen},
                {"total_tokens", n_prompt + n_gen},
                {"prompt_tokens_details", {{"cached_tokens", n_cached}}}};
    }

    // A streamed chunk of one choice; it carries the choice's pending log-probabilities.
    json chunk(int index, const json & delta_or_text, const json & finish) {
        json   choice = {{"index", index}};
        auto * probs  = logprobs && (size_t) index < pending.size() ? &pending[(size_t) index] : nullptr;
        if (chat) {
            choice["delta"] = delta_or_text;
            if (probs != nullptr && !probs->empty()) {
                choice["logprobs"] = chat_logprobs(*probs);
            }
        } else {
            choice["text"]     = delta_or_text;
            choice["logprobs"] = probs != nullptr ? completion_logprobs(*probs) : json(nullptr);
        }
        if (probs != nullptr) {
            probs->clear();
        }
        choice["finish_reason"] = finish;
        return {{"id", id},
                {"object", chat ? "chat.completion.chunk" : "text_completion"},
                {"created", created},
                {"model", model},
                {"choices", json::array({choice})}};
    }

    void account(const task_event & ev) {
        n_done++;
        if (ev.index % n_per_prompt == 0) {  // the n choices of a prompt share it
            n_prompt += ev.n_prompt;
            n_cached += ev.n_cached;
        }
        n_gen += ev.n_gen;
        if (!ev.error.empty() && error.empty()) {
            error = ev.error;
        }
    }
};

// The float32 little-endian bytes of v in base64 (encoding_format "base64", the openai client's default).
std::string base64_floats(const std::vector<float> & v) {
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const auto *      p     = reinterpret_cast<const unsigned char *>(v.data());
    const size_t      n     = v.size() * sizeof(float);
    std::string       out;
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t b =
            (uint32_t) p[i] << 16 | (i + 1 < n ? (uint32_t) p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out += tbl[(b >> 18) & 63];
        out += tbl[(b >> 12) & 63];
        out += i + 1 < n ? tbl[(b >> 6) & 63] : '=';
        out += i + 2 < n ? tbl[b & 63] : '=';
    }
    return out;
}

// http(s)://localhost, 127.0.0.1 or [::1], any port.
bool origin_is_localhost(const std::string & origin) {
    const size_t scheme = origin.find("://");
    if (scheme == std::string::npos) {
        return false;
    }
    std::string host = origin.substr(scheme + 3);
    if (host.compare(0, 5, "[::1]") == 0) {
        return host.size() == 5 || host[5] == ':';
    }
    host = host.substr(0, host.find(':'));
    return host == "localhost" || host == "127.0.0.1";
}

void set_cors(const http_config & cfg, const httplib::Request & req, httplib::Response & res) {
    const std::string origin = req.get_header_value("Origin");
    if (cfg.cors_credentials && cfg.cors_origins == "*") {
        // credentials cannot go with "*": echo the asking origin instead
        if (!origin.empty()) {
            res.set_header("Access-Control-Allow-Origin", origin);
        }
    } else if (cfg.cors_origins == "localhost") {
        if (!origin.empty() && origin_is_localhost(origin)) {
            res.set_header("Access-Control-Allow-Origin", origin);
        }
    } else {
        res.set_header("Access-Control-Allow-Origin", cfg.cors_origins);
    }
}

}  // namespace

http_server::http_server(const http_config & cfg, llama_model * model, engine & eng, embedder & emb, metrics & m)
    : cfg_(cfg),
      model_(model),
      vocab_(llama_model_get_vocab(model)),
      chat_(std::make_unique<chat_renderer>(model, cfg.chat_template, cfg.jinja)),
      engine_(eng),
      embedder_(emb),
      metrics_(m),
      created_((int64_t) time(nullptr)) {
    if (!cfg.ssl_key_file.empty() || !cfg.ssl_cert_file.empty()) {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
        if (cfg.ssl_key_file.empty() || cfg.ssl_cert_file.empty()) {
            setup_error_ = "HTTPS needs both --ssl-key-file and --ssl-cert-file";
        } else {
            auto ssl = std::make_unique<httplib::SSLServer>(cfg.ssl_cert_file.c_str(), cfg.ssl_key_file.c_str());
            if (!ssl->is_valid()) {
                setup_error_ = "cannot use --ssl-key-file " + cfg.ssl_key_file + " with --ssl-cert-file " +
                               cfg.ssl_cert_file + " (unreadable, not PEM, or they do not match)";
            }
            svr_ = std::move(ssl);
        }
#else
        setup_error_ = "this llama-server was built without OpenSSL: --ssl-key-file/--ssl-cert-file unsupported";
#endif
    }
    if (!svr_) {
        svr_ = std::make_unique<httplib::Server>();
    }
    routes();
}

bool http_server::ok(std::string & error) const {
    error = setup_error_;
    return setup_error_.empty();
}

http_server::~http_server() = default;

int http_server::bind() {
    return bind_port(*svr_, cfg_.host, cfg_.port);
}

bool http_server::listen() {
    return loop_.run(*svr_);
}

void http_server::shutdown(int grace_s) {
    draining_        = true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(grace_s);
    while (std::chrono::steady_clock::now() < until && (metrics_.requests_in_flight > 0 || !engine_.idle())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    loop_.stop(*svr_);
}

void http_server::routes() {
    httplib::Server & s = *svr_;
    const int         n = cfg_.http_threads;
    s.new_task_queue    = [n] { return new httplib::ThreadPool((size_t) n); };
    s.set_payload_max_length(cfg_.max_body);
    s.set_read_timeout(30, 0);
    s.set_write_timeout(cfg_.timeout_s, 0);

    s.set_pre_routing_handler([this](const httplib::Request & req, httplib::Response & res) {
        set_cors(cfg_, req, res);
        // a browser's preflight carries no credentials: answered before the key check, as upstream
        if (req.method == "OPTIONS") {
            res.set_header("Access-Control-Allow-Credentials", cfg_.cors_credentials ? "true" : "false");
            res.set_header("Access-Control-Allow-Methods", cfg_.cors_methods);
            res.set_header("Access-Control-Allow-Headers", cfg_.cors_headers);
            res.set_content("", "text/html");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (req.path == "/health" || req.path == "/metrics" || (cfg_.webui && webui_path(req.path))) {
            return httplib::Server::HandlerResponse::Unhandled;
        }
        if (!key_accepted(cfg_.api_keys, req)) {
            send_error(res, 401, "invalid or missing API key (Authorization: Bearer KEY)", "authentication_error");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (cfg_.embeddings_only && (req.path == "/v1/completions" || req.path == "/v1/chat/completions")) {
            send_error(res, 501, "this server was started with --embeddings or --reranking: it does not generate",
                       "not_supported_error");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (draining_) {
            res.set_header("Retry-After", "1");
            send_error(res, 503, "server shutting down", "unavailable");
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    s.set_logger([this](const httplib::Request & req, const httplib::Response & res) {
        metrics_.count_request(req.path, res.status);
    });
    set_error_bodies(s);

    s.Get("/health", [this](const httplib::Request &, httplib::Response & res) {
        if (draining_) {
            res.status = 503;
            res.set_content(R"({"status":"shutting down"})", "application/json");
        } else {
            res.set_content(R"({"status":"ok"})", "application/json");
        }
    });
    s.Get("/metrics", [this](const httplib::Request &, httplib::Response & res) {
        res.set_content(metrics_.render(), "text/plain; version=0.0.4");
    });
    s.Get("/v1/models", [this](const httplib::Request &, httplib::Response & res) {
        // meta: upstream's model details
        json meta  = {{"n_vocab", llama_vocab_n_tokens(vocab_)},
                      {"n_ctx_train", llama_model_n_ctx_train(model_)},
                      {"n_embd", llama_model_n_embd(model_)},
                      {"n_params", llama_model_n_params(model_)},
                      {"size", llama_model_size(model_)}};
        json model = {{"id", cfg_.model_id},
                      {"object", "model"},
                      {"created", created_},
                      {"owned_by", "libllama"},
                      {"meta", meta}};
        res.set_content(dump({{"object", "list"}, {"data", json::array({model})}}), "application/json");
    });
    s.Post("/v1/chat/completions", guarded([this](const httplib::Request & req, httplib::Response & res) {
               handle_completion(req, res, true);
           }));
    s.Post("/v1/completions", guarded([this](const httplib::Request & req, httplib::Response & res) {
               handle_completion(req, res, false);
           }));
    s.Post("/v1/messages",
           guarded([this](const httplib::Request & req, httplib::Response & res) { handle_messages(req, res); }));
    s.Post("/v1/messages/count_tokens",
           guarded([this](const httplib::Request & req, httplib::Response & res) { handle_count_tokens(req, res); }));
    if (cfg_.webui) {
        webui_routes(s);
    }
    s.Post("/v1/embeddings",
           guarded([this](const httplib::Request & req, httplib::Response & res) { handle_embeddings(req, res); }));
    rerank_routes(s, embedder_, metrics_, cfg_.model_id);
    native_routes();
    slot_routes();
}

bool http_server::submit_tasks(const std::vector<std::vector<llama_token>> & prompts, const completion_request & cr,
                               const std::shared_ptr<channel> & ch, httplib::Response & res) {
    // every prompt is checked before any task is queued
    for (const auto & p : prompts) {
        if (p.empty()) {
            throw bad_request("the prompt is empty");
        }
        if ((int) p.size() + 1 > engine_.slot_ctx()) {
            throw bad_request("the prompt has " + std::to_string(p.size()) + " tokens; a slot holds " +
                              std::to_string(engine_.slot_ctx()) + " tokens (context size / parallel slots)");
        }
    }
    if (prompts.size() * (size_t) cr.n > 64) {
        throw bad_request("prompts x 'n' must be at most 64 choices");
    }
    const int max_tokens = cr.max_tokens < 0 ? cfg_.max_tokens : std::min(std::max(cr.max_tokens, 1), cfg_.max_tokens);
    for (size_t p = 0; p < prompts.size(); p++) {
        for (int i = 0; i < cr.n; i++) {
            task t;
            t.prompt       = prompts[p];
            t.max_tokens   = max_tokens;
            t.stop         = cr.stop;
            t.ignore_eos   = cr.ignore_eos;
            t.n_probs      = cr.n_probs;
            t.cache_prompt = cr.cache_prompt;
            t.sampling     = cr.sampling;
            t.lora         = cr.lora.empty() && engine_.loras() ? engine_.loras()->scales() : cr.lora;
            if (t.sampling.seed != LLAMA_DEFAULT_SEED) {
                t.sampling.seed += (uint32_t) i;  // n choices from one seed must differ
            }
            t.deadline_us = llama_time_us() + (int64_t) cfg_.timeout_s * 1000000;
            t.index       = (int) p * cr.n + i;
            t.out         = ch;
            switch (engine_.submit(std::move(t))) {
                case engine::submit_status::ok:
                    break;
                case engine::submit_status::queue_full:
                    ch->cancel();
                    res.set_header("Retry-After", "1");
                    send_error(res, 503, "too many requests queued; retry later", "unavailable");
                    return false;
                case engine::submit_status::stopping:
                    ch->cancel();
                    send_error(res, 503, "server shutting down", "unavailable");
                    return false;
                case engine::submit_status::too_long:
                    ch->cancel();
                    throw bad_request("the prompt does not fit in a slot");
            }
        }
    }
    return true;
}

void http_server::handle_completion(const httplib::Request & req, httplib::Response & res, bool chat,
                                    bool report_stop_word) {
    auto                                  guard = std::make_unique<in_flight>(metrics_);
    const json                            body  = parse_body(req.body);
    completion_request                    cr    = parse_completion(body, vocab_, cfg_.sampling);
    std::vector<std::vector<llama_token>> prompts;
    if (engine_.loras() != nullptr) {
        cr.lora = engine_.loras()->for_request(body);
    }
    if (chat) {
        chat_->apply(body, vocab_, cr);
        cr.n_probs = parse_logprobs(body, probs_api::chat);
        prompts.push_back(tokenize(vocab_, cr.prompt, cr.add_special));
    } else {
        cr.n_probs = parse_logprobs(body, probs_api::completions);
        auto it    = body.find("prompt");
        if (it == body.end()) {
            throw bad_request("'prompt' is required");
        }
        prompts = parse_prompts(*it, vocab_, true, 64);
    }

    auto st           = std::make_shared<response_state>();
    st->ch            = std::make_shared<channel>();
    st->chat          = chat;
    st->n_per_prompt  = cr.n;
    st->n             = (int) prompts.size() * cr.n;
    st->logprobs      = cr.n_probs >= 0;
    st->include_usage = cr.include_usage;
    st->id            = random_id(chat ? "chatcmpl" : "cmpl");
    st->model         = cfg_.model_id;
    st->created       = (int64_t) time(nullptr);
    if (!submit_tasks(prompts, cr, st->ch, res)) {
        return;
    }
    st->parsers.resize((size_t) st->n);
    st->pending.resize((size_t) st->n);
    for (auto & p : st->parsers) {
        p.init(cr);
    }

    if (!cr.stream) {
        std::string error;
        const auto  results = collect_results(*st->ch, st->n, error);
        if (!error.empty()) {
            send_error(res, error_status(error), error, "server_error");
            return;
        }
        json choices = json::array();
        for (int i = 0; i < st->n; i++) {
            const choice_result & r = results[(size_t) i];
            st->account(r.last);
            json c         = {{"index", i}};
            bool has_calls = false;
            if (chat) {
                c["message"]  = choice_parser::message(cr, r.text, has_calls);
                c["logprobs"] = st->logprobs ? chat_logprobs(r.probs) : json(nullptr);
            } else {
                c["text"]     = r.text;
                c["logprobs"] = st->logprobs ? completion_logprobs(r.probs) : json(nullptr);
            }
            const std::string & reason = r.last.finish_reason;
            c["finish_reason"]         = has_calls && reason == "stop" ? "tool_calls" : reason;
            if (report_stop_word && !r.last.stop_word.empty()) {
                c["stop_word"] = r.last.stop_word;
            }
            if (st->n > 1) {  // several tasks: each choice carries its own
                c["timings"] = timings_json(r.last);
            }
            choices.push_back(c);
        }
        json out = {{"id", st->id},           {"object", chat ? "chat.completion" : "text_completion"},
                    {"created", st->created}, {"model", st->model},
                    {"choices", choices},     {"usage", st->usage()}};
        if (st->n == 1) {  // upstream's extra field: one task's timings
            out["timings"] = timings_json(results[0].last);
        }
        res.set_content(dump(out), "application/json");
        return;
    }

    st->guard = std::move(guard);  // the stream outlives this handler
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [st, report_stop_word](size_t, httplib::DataSink & sink) {
            auto send = [&](const json & j) {
                const std::string line = "data: " + dump(j) + "\n\n";
                return sink.write(line.data(), line.size());
            };
            if (!st->started) {
                st->started = true;
                if (st->chat) {
                    for (int i = 0; i < st->n; i++) {
                        if (!send(st->chunk(i, {{"role", "assistant"}, {"content", ""}}, nullptr))) {
                            st->ch->cancel();
                            return false;
                        }
                    }
                }
            }
            task_event ev;
            if (!st->ch->pop(ev, 200)) {
                if (!sink.is_writable()) {
                    st->ch->cancel();
                    return false;
                }
                return true;  // called again
            }
            auto & pending = st->pending[(size_t) ev.index];
            std::move(ev.probs.begin(), ev.probs.end(), std::back_inserter(pending));
            bool ok = true;
            if (!ev.text.empty()) {
                if (st->chat) {
                    for (const auto & d : st->parsers[(size_t) ev.index].feed(ev.text)) {
                        ok = ok && send(st->chunk(ev.index, d, nullptr));
                    }
                } else {
                    ok = send(st->chunk(ev.index, json(ev.text), nullptr));
                }
            }
            if (ok && ev.done) {
                st->account(ev);
                if (!ev.error.empty()) {
                    ok = send({{"error", {{"message", ev.error}, {"type", "server_error"}}}});
                } else if (st->chat) {
                    auto & p = st->parsers[(size_t) ev.index];
                    for (const auto & d : p.finish_deltas()) {
                        ok = ok && send(st->chunk(ev.index, d, nullptr));
                    }
                    const std::string reason =
                        p.has_calls() && ev.finish_reason == "stop" ? "tool_calls" : ev.finish_reason;
                    json fin = st->chunk(ev.index, json::object(), reason);
                    if (report_stop_word && !ev.stop_word.empty()) {
                        fin["choices"][0]["stop_word"] = ev.stop_word;
                    }
                    fin["timings"] = timings_json(ev);  // upstream's: on a choice's last chunk
                    ok             = ok && send(fin);
                } else {
                    json fin       = st->chunk(ev.index, json(""), ev.finish_reason);
                    fin["timings"] = timings_json(ev);
                    ok             = send(fin);
                }
                if (st->n == 1) {
                    st->last = ev;
                }
            }
            if (ok && st->n_done == st->n) {
                if (st->include_usage) {
                    json u       = st->chunk(0, json::object(), nullptr);
                    u["choices"] = json::array();
                    u["usage"]   = st->usage();
                    if (st->n == 1) {  // upstream puts the timings on the stream's last chunk
                        u["timings"] = timings_json(st->last);
                    }
                    ok = send(u);
                }
                static const char done[] = "data: [DONE]\n\n";
                ok                       = ok && sink.write(done, sizeof(done) - 1);
                if (ok) {
                    sink.done();
                }
            }
            if (!ok) {
                st->ch->cancel();  // the client went away: stop generating
            }
            return ok;
        },
        [st](bool) {
            st->ch->cancel();  // no-op when every task already ended
            st->guard.reset();
        });
}

void http_server::handle_embeddings(const httplib::Request & req, httplib::Response & res) {
    in_flight  guard(metrics_);
    const json body   = parse_body(req.body);
    const auto inputs = embed_inputs(body, "input");
    bool       base64 = false;
    if (auto f = body.find("encoding_format"); f != body.end() && !f->is_null()) {
        if (!f->is_string() || (*f != "float" && *f != "base64")) {
            throw bad_request("'encoding_format' must be \"float\" or \"base64\"");
        }
        base64 = *f == "base64";
    }
    json       data     = json::array();
    int        n_tokens = 0;
    const auto vecs     = embedder_.embed(inputs, n_tokens);
    for (size_t i = 0; i < inputs.size(); i++) {
        const auto & v = vecs[i];
        data.push_back(
            {{"object", "embedding"}, {"index", i}, {"embedding", base64 ? json(base64_floats(v)) : json(v)}});
    }
    json out = {{"object", "list"},
                {"data", data},
                {"model", cfg_.model_id},
                {"usage", {{"prompt_tokens", n_tokens}, {"total_tokens", n_tokens}}}};
    res.set_content(dump(out), "application/json");
}

}  // namespace server
