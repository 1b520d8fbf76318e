#include "server-http.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "server-params.h"

namespace server {

namespace {

std::string dump(const json & j) {
    // invalid UTF-8 cannot reach here, but a dump must never throw
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void send_error(httplib::Response & res, int status, const std::string & message,
                const char * type = "invalid_request_error") {
    res.status = status;
    res.set_content(dump({{"error", {{"message", message}, {"type", type}, {"code", status}}}}), "application/json");
}

// Counts a request as in flight for /metrics and the shutdown drain while it lives.
struct in_flight {
    metrics & m;
    explicit in_flight(metrics & m) : m(m) { m.requests_in_flight++; }
    ~in_flight() { m.requests_in_flight--; }
};

std::string random_id(const char * prefix) {
    static std::atomic<uint64_t> counter{0};
    char                         buf[64];
    snprintf(buf, sizeof(buf), "%s-%llx%llx", prefix, (unsigned long long) llama_time_us(),
             (unsigned long long) counter++);
    return buf;
}

// What one streamed or collected response is made of.
struct response_state {
    std::shared_ptr<channel>   ch;
    std::unique_ptr<in_flight> guard;
    bool                       chat          = false;
    bool                       include_usage = false;
    int                        n             = 1;
    int                        n_done        = 0;
    bool                       started       = false;  // first SSE chunk sent
    std::string                id, model;
    int64_t                    created  = 0;
    int                        n_prompt = 0, n_gen = 0, n_cached = 0;
    std::string                error;
    std::vector<choice_parser> parsers;  // chat: per choice, the text to content/reasoning/tool calls

    json usage() const {
        return {{"prompt_tokens", n_prompt},
                {"completion_tokens", n_gen},
                {"total_tokens", n_prompt + n_gen},
                {"prompt_tokens_details", {{"cached_tokens", n_cached}}}};
    }

    json chunk(int index, const json & delta_or_text, const json & finish) const {
        json choice = {{"index", index}};
        if (chat) {
            choice["delta"] = delta_or_text;
        } else {
            choice["text"]     = delta_or_text;
            choice["logprobs"] = nullptr;
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
        n_prompt = ev.n_prompt;  // the same prompt for every choice
        n_cached = ev.n_cached;
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

// The key of a request: "Authorization: Bearer KEY", else "X-Api-Key: KEY" (upstream's order).
bool key_accepted(const std::vector<std::string> & keys, const httplib::Request & req) {
    if (keys.empty()) {
        return true;
    }
    std::string key = req.get_header_value("Authorization");
    if (key.empty()) {
        key = req.get_header_value("X-Api-Key");
    }
    if (key.compare(0, 7, "Bearer ") == 0) {
        key = key.substr(7);
    }
    return std::find(keys.begin(), keys.end(), key) != keys.end();
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

int error_status(const std::string & error) {
    if (error == "request timed out") {
        return 504;
    }
    if (error == "server shutting down") {
        return 503;
    }
    return 500;
}

}  // namespace

http_server::http_server(const http_config & cfg, llama_model * model, engine & eng, embedder & emb, metrics & m)
    : cfg_(cfg),
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
    if (cfg_.port == 0) {
        return svr_->bind_to_any_port(cfg_.host);
    }
    return svr_->bind_to_port(cfg_.host, cfg_.port) ? cfg_.port : -1;
}

bool http_server::listen() {
    return svr_->listen_after_bind();
}

void http_server::shutdown(int grace_s) {
    draining_        = true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(grace_s);
    while (std::chrono::steady_clock::now() < until && (metrics_.requests_in_flight > 0 || !engine_.idle())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    svr_->stop();
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
        if (req.path == "/health" || req.path == "/metrics") {
            return httplib::Server::HandlerResponse::Unhandled;
        }
        if (!key_accepted(cfg_.api_keys, req)) {
            send_error(res, 401, "invalid or missing API key (Authorization: Bearer KEY)", "authentication_error");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (cfg_.embeddings_only && (req.path == "/v1/completions" || req.path == "/v1/chat/completions")) {
            send_error(res, 501, "this server was started with --embeddings: only /v1/embeddings is served",
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
    s.set_exception_handler([](const httplib::Request &, httplib::Response & res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception & e) {
            what = e.what();
        } catch (...) {
        }
        send_error(res, 500, what, "server_error");
    });
    s.set_error_handler([](const httplib::Request &, httplib::Response & res) {
        if (!res.body.empty()) {
            return;
        }
        if (res.status == 413) {
            send_error(res, 413, "request body too large");
        } else if (res.status == 404) {
            send_error(res, 404, "no such endpoint");
        } else {
            send_error(res, res.status, "request failed (HTTP " + std::to_string(res.status) + ")");
        }
    });

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
        json model = {{"id", cfg_.model_id}, {"object", "model"}, {"created", created_}, {"owned_by", "libllama"}};
        res.set_content(dump({{"object", "list"}, {"data", json::array({model})}}), "application/json");
    });
    auto guarded = [](auto fn) {
        return [fn](const httplib::Request & req, httplib::Response & res) {
            try {
                fn(req, res);
            } catch (const bad_request & e) {
                send_error(res, 400, e.what());
            } catch (const std::exception & e) {
                send_error(res, 500, e.what(), "server_error");
            }
        };
    };
    s.Post("/v1/chat/completions", guarded([this](const httplib::Request & req, httplib::Response & res) {
               handle_completion(req, res, true);
           }));
    s.Post("/v1/completions", guarded([this](const httplib::Request & req, httplib::Response & res) {
               handle_completion(req, res, false);
           }));
    s.Post("/v1/embeddings",
           guarded([this](const httplib::Request & req, httplib::Response & res) { handle_embeddings(req, res); }));
}

void http_server::handle_completion(const httplib::Request & req, httplib::Response & res, bool chat) {
    auto               guard = std::make_unique<in_flight>(metrics_);
    const json         body  = parse_body(req.body);
    completion_request cr;
    if (chat) {
        cr = parse_completion(body, vocab_);
        chat_->apply(body, vocab_, cr);
    } else {
        cr             = parse_completion(body, vocab_);
        auto       it  = body.find("prompt");
        const bool one = it != body.end() && it->is_array() && it->size() == 1 && (*it)[0].is_string();
        if (it == body.end() || (!it->is_string() && !one)) {
            throw bad_request("'prompt' must be a string (or an array of one string)");
        }
        cr.prompt = one ? (*it)[0].get<std::string>() : it->get<std::string>();
    }
    const std::vector<llama_token> prompt = tokenize(vocab_, cr.prompt, cr.add_special);
    if (prompt.empty()) {
        throw bad_request("the prompt is empty");
    }
    if ((int) prompt.size() + 1 > engine_.slot_ctx()) {
        throw bad_request("the prompt has " + std::to_string(prompt.size()) + " tokens; a slot holds " +
                          std::to_string(engine_.slot_ctx()) + " tokens (context size / parallel slots)");
    }

    auto st           = std::make_shared<response_state>();
    st->ch            = std::make_shared<channel>();
    st->chat          = chat;
    st->n             = cr.n;
    st->include_usage = cr.include_usage;
    st->id            = random_id(chat ? "chatcmpl" : "cmpl");
    st->model         = cfg_.model_id;
    st->created       = (int64_t) time(nullptr);
    st->parsers.resize((size_t) cr.n);
    for (auto & p : st->parsers) {
        p.init(cr);
    }

    const int max_tokens = cr.max_tokens < 0 ? cfg_.max_tokens : std::min(std::max(cr.max_tokens, 1), cfg_.max_tokens);
    for (int i = 0; i < cr.n; i++) {
        task t;
        t.prompt     = prompt;
        t.max_tokens = max_tokens;
        t.stop       = cr.stop;
        t.ignore_eos = cr.ignore_eos;
        t.sampling   = cr.sampling;
        if (t.sampling.seed != LLAMA_DEFAULT_SEED) {
            t.sampling.seed += (uint32_t) i;  // n choices from one seed must differ
        }
        t.deadline_us = llama_time_us() + (int64_t) cfg_.timeout_s * 1000000;
        t.index       = i;
        t.out         = st->ch;
        switch (engine_.submit(std::move(t))) {
            case engine::submit_status::ok:
                break;
            case engine::submit_status::queue_full:
                st->ch->cancel();
                res.set_header("Retry-After", "1");
                send_error(res, 503, "too many requests queued; retry later", "unavailable");
                return;
            case engine::submit_status::stopping:
                st->ch->cancel();
                send_error(res, 503, "server shutting down", "unavailable");
                return;
            case engine::submit_status::too_long:
                st->ch->cancel();
                throw bad_request("the prompt does not fit in a slot");
        }
    }

    if (!cr.stream) {
        std::vector<std::string> texts((size_t) cr.n), reasons((size_t) cr.n);
        task_event               ev;
        while (st->n_done < st->n) {
            if (!st->ch->pop(ev, 1000)) {
                continue;  // the engine enforces the deadline and always ends every task
            }
            texts[(size_t) ev.index] += ev.text;
            if (ev.done) {
                reasons[(size_t) ev.index] = ev.finish_reason;
                st->account(ev);
            }
        }
        if (!st->error.empty()) {
            send_error(res, error_status(st->error), st->error, "server_error");
            return;
        }
        json choices = json::array();
        for (int i = 0; i < cr.n; i++) {
            json c         = {{"index", i}};
            bool has_calls = false;
            if (chat) {
                c["message"] = choice_parser::message(cr, texts[(size_t) i], has_calls);
            } else {
                c["text"]     = texts[(size_t) i];
                c["logprobs"] = nullptr;
            }
            c["finish_reason"] = has_calls && reasons[(size_t) i] == "stop" ? "tool_calls" : reasons[(size_t) i];
            choices.push_back(c);
        }
        json out = {{"id", st->id},           {"object", chat ? "chat.completion" : "text_completion"},
                    {"created", st->created}, {"model", st->model},
                    {"choices", choices},     {"usage", st->usage()}};
        res.set_content(dump(out), "application/json");
        return;
    }

    st->guard = std::move(guard);  // the stream outlives this handler
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [st](size_t, httplib::DataSink & sink) {
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
                    ok = ok && send(st->chunk(ev.index, json::object(), reason));
                } else {
                    ok = send(st->chunk(ev.index, json(""), ev.finish_reason));
                }
            }
            if (ok && st->n_done == st->n) {
                if (st->include_usage) {
                    json u       = st->chunk(0, json::object(), nullptr);
                    u["choices"] = json::array();
                    u["usage"]   = st->usage();
                    ok           = send(u);
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
    in_flight                guard(metrics_);
    const json               body = parse_body(req.body);
    auto                     it   = body.find("input");
    std::vector<std::string> inputs;
    if (it != body.end() && it->is_string()) {
        inputs.push_back(it->get<std::string>());
    } else if (it != body.end() && it->is_array() && !it->empty() && it->size() <= 256) {
        for (const auto & x : *it) {
            if (!x.is_string()) {
                throw bad_request("'input' must be a string or an array of strings");
            }
            inputs.push_back(x.get<std::string>());
        }
    } else {
        throw bad_request("'input' must be a string or an array of 1 to 256 strings");
    }
    bool base64 = false;
    if (auto f = body.find("encoding_format"); f != body.end() && !f->is_null()) {
        if (!f->is_string() || (*f != "float" && *f != "base64")) {
            throw bad_request("'encoding_format' must be \"float\" or \"base64\"");
        }
        base64 = *f == "base64";
    }
    json data     = json::array();
    int  n_tokens = 0;
    for (size_t i = 0; i < inputs.size(); i++) {
        int  n = 0;
        auto v = embedder_.embed(inputs[i], n);
        n_tokens += n;
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
