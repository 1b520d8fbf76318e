// Upstream llama-server's native endpoints, with its request fields and response shapes, for the
// scripts written against them: /completion (text, token or mixed prompts; n_predict, n_probs,
// cache_prompt, the samplers; streamed as `data: {...}` lines without [DONE]), /infill (its prompt
// built by server-infill), /tokenize, /detokenize, /apply-template, /props, /slots, /embedding and
// /lora-adapters (server-lora).
// Generation goes through the same parsing (server-params), prompt reading (server-prompt) and
// task submission as /v1/completions.
#include <httplib.h>

#include <iterator>

#include "server-http.h"
#include "server-infill.h"
#include "server-logprobs.h"
#include "server-params.h"
#include "server-prompt.h"
#include "server-reply.h"

namespace server {

namespace {

bool opt_bool(const json & body, const char * key, bool dflt) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) {
        return dflt;
    }
    if (!it->is_boolean()) {
        throw bad_request(std::string("'") + key + "' must be a boolean");
    }
    return it->get<bool>();
}

std::string piece_of(const llama_vocab * vocab, llama_token tok) {
    char      buf[256];
    const int n = llama_token_to_piece(vocab, tok, buf, sizeof(buf), 0, true);
    return n > 0 ? std::string(buf, (size_t) n) : std::string();
}

// upstream's stop_type: why generation ended
const char * stop_type(const task_event & last) {
    if (last.finish_reason == "length") {
        return "limit";
    }
    return last.stop_word.empty() ? "eos" : "word";
}

// The sampler settings a task runs with, in upstream's names (/props and /slots).
json settings_json(const sampling_params & sp, int n_predict) {
    return {{"n_predict", n_predict},
            {"seed", sp.seed},
            {"temperature", sp.temperature},
            {"top_k", sp.top_k},
            {"top_p", sp.top_p},
            {"min_p", sp.min_p},
            {"top_n_sigma", sp.top_n_sigma},
            {"xtc_probability", sp.xtc_probability},
            {"xtc_threshold", sp.xtc_threshold},
            {"typical_p", sp.typical_p},
            {"repeat_last_n", sp.repeat_last_n},
            {"repeat_penalty", sp.repeat_penalty},
            {"presence_penalty", sp.presence_penalty},
            {"frequency_penalty", sp.frequency_penalty},
            {"dry_multiplier", sp.dry_multiplier},
            {"dry_base", sp.dry_base},
            {"dry_allowed_length", sp.dry_allowed_length},
            {"dry_penalty_last_n", sp.dry_penalty_last_n},
            {"mirostat", sp.mirostat},
            {"mirostat_tau", sp.mirostat_tau},
            {"mirostat_eta", sp.mirostat_eta}};
}

// One final /completion result (also the last streamed line, with empty content).
json final_result(const task_event & last, const std::string & content, const std::vector<llama_token> & tokens,
                  const std::vector<token_probs> * probs, const std::string & model) {
    json r = {{"index", last.index},
              {"content", content},
              {"tokens", tokens},
              {"id_slot", last.slot_id},
              {"stop", true},
              {"model", model},
              {"tokens_predicted", last.n_gen},
              {"tokens_evaluated", last.n_prompt},
              {"tokens_cached", last.n_cached},
              {"has_new_line", content.find('\n') != std::string::npos},
              {"truncated", false},
              {"stop_type", stop_type(last)},
              {"stopping_word", last.stop_word},
              {"timings", timings_json(last)}};
    if (probs != nullptr) {
        r["completion_probabilities"] = native_probs(*probs);
    }
    return r;
}

}  // namespace

void http_server::native_routes() {
    httplib::Server & s = *svr_;

    // /completion, and /infill (infill set) with the prompt built from its own fields
    auto serve = [this](const httplib::Request & req, httplib::Response & res, bool infill) {
        if (infill) {
            if (const std::string why = infill_missing_tokens(vocab_); !why.empty()) {
                throw bad_request(why);
            }
        }
        auto               guard = std::make_unique<in_flight>(metrics_);
        const json         body  = parse_body(req.body);
        completion_request cr    = parse_completion(body, vocab_, cfg_.sampling);
        if (engine_.loras() != nullptr) {
            cr.lora = engine_.loras()->for_request(body);
        }
        cr.n = 1;  // not a /completion field: one result per prompt
        if (auto it = body.find("n_predict"); it != body.end() && !it->is_null()) {
            if (!it->is_number_integer() || it->get<int64_t>() < -1 || it->get<int64_t>() > (1 << 20)) {
                throw bad_request("'n_predict' must be an integer in [-1, 1048576]");
            }
            cr.max_tokens = (int) it->get<int64_t>();  // -1: the server's limit
        }
        cr.n_probs                                       = parse_logprobs(body, probs_api::native);
        cr.cache_prompt                                  = opt_bool(body, "cache_prompt", true);
        const bool                            ret_tokens = opt_bool(body, "return_tokens", false);
        std::vector<std::vector<llama_token>> prompts;
        bool                                  multi = false;
        if (infill) {
            const int n_predict = cr.max_tokens < 0 ? cfg_.max_tokens : cr.max_tokens;
            prompts.push_back(infill_prompt(body, vocab_, engine_.n_batch(), n_predict, engine_.slot_ctx()));
        } else {
            auto it = body.find("prompt");
            if (it == body.end()) {
                throw bad_request("'prompt' is required");
            }
            prompts = parse_prompts(*it, vocab_, true, 64);
            multi   = it->is_array() && prompts.size() > 1;
        }
        auto ch = std::make_shared<channel>();
        if (!submit_tasks(prompts, cr, ch, res)) {
            return;
        }
        const int n_tasks = (int) prompts.size();

        if (!cr.stream) {
            std::string error;
            const auto  results = collect_results(*ch, n_tasks, error);
            if (!error.empty()) {
                send_error(res, error_status(error), error, "server_error");
                return;
            }
            json out = json::array();
            for (const auto & r : results) {
                out.push_back(final_result(r.last, r.text, ret_tokens ? r.tokens : std::vector<llama_token>(),
                                           cr.n_probs >= 0 ? &r.probs : nullptr, cfg_.model_id));
            }
            res.set_content(dump(multi ? out : out[0]), "application/json");
            return;
        }

        struct stream_state {
            std::shared_ptr<channel>   ch;
            std::unique_ptr<in_flight> guard;
            int                        n_tasks = 1, n_done = 0;
            bool                       probs = false;
            std::string                model;
        };
        auto st     = std::make_shared<stream_state>();
        st->ch      = ch;
        st->guard   = std::move(guard);  // the stream outlives this handler
        st->n_tasks = n_tasks;
        st->probs   = cr.n_probs >= 0;
        st->model   = cfg_.model_id;
        res.set_header("Cache-Control", "no-cache");
        res.set_chunked_content_provider(
            "text/event-stream",
            [st](size_t, httplib::DataSink & sink) {
                auto send = [&](const json & j) {
                    const std::string line = "data: " + dump(j) + "\n\n";
                    return sink.write(line.data(), line.size());
                };
                task_event ev;
                if (!st->ch->pop(ev, 200)) {
                    if (!sink.is_writable()) {
                        st->ch->cancel();
                        return false;
                    }
                    return true;  // called again
                }
                bool ok = true;
                if (!ev.text.empty() || !ev.tokens.empty()) {
                    json j = {{"index", ev.index}, {"content", ev.text}, {"tokens", ev.tokens}, {"stop", false}};
                    if (st->probs) {
                        j["completion_probabilities"] = native_probs(ev.probs);
                    }
                    ok = send(j);
                }
                if (ok && ev.done) {
                    st->n_done++;
                    if (!ev.error.empty()) {
                        ok = send(
                            {{"error",
                              {{"code", error_status(ev.error)}, {"message", ev.error}, {"type", "server_error"}}}});
                    } else {
                        const std::vector<token_probs> none;
                        ok = send(final_result(ev, "", {}, st->probs ? &none : nullptr, st->model));
                    }
                }
                if (ok && st->n_done == st->n_tasks) {
                    sink.done();
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
    };
    auto completion =
        guarded([serve](const httplib::Request & req, httplib::Response & res) { serve(req, res, false); });
    s.Post("/completion", completion);
    s.Post("/completions", completion);
    s.Post("/infill",
           guarded([serve](const httplib::Request & req, httplib::Response & res) { serve(req, res, true); }));

    s.Post("/tokenize", guarded([this](const httplib::Request & req, httplib::Response & res) {
               const json body = parse_body(req.body);
               auto       it   = body.find("content");
               if (it == body.end() || !it->is_string()) {
                   throw bad_request("'content' must be a string");
               }
               const bool add_special   = opt_bool(body, "add_special", false);
               const bool parse_special = opt_bool(body, "parse_special", true);
               const bool with_pieces   = opt_bool(body, "with_pieces", false);
               const auto toks          = tokenize(vocab_, it->get<std::string>(), add_special, parse_special);
               json       out           = json::array();
               for (llama_token t : toks) {
                   if (!with_pieces) {
                       out.push_back(t);
                       continue;
                   }
                   // a piece that is part of a UTF-8 character is given as its bytes (upstream)
                   const std::string piece = piece_of(vocab_, t);
                   json              p     = piece;
                   if (!utf8_valid(piece)) {
                       p = json::array();
                       for (unsigned char c : piece) {
                           p.push_back((int) c);
                       }
                   }
                   out.push_back({{"id", t}, {"piece", p}});
               }
               res.set_content(dump({{"tokens", out}}), "application/json");
           }));

    s.Post("/detokenize", guarded([this](const httplib::Request & req, httplib::Response & res) {
               const json body = parse_body(req.body);
               auto       it   = body.find("tokens");
               if (it == body.end()) {
                   throw bad_request("'tokens' is required");
               }
               // the inverse of tokenize (a space the tokenizer put in front is removed again);
               // control tokens are written as their text
               const auto  toks = parse_token_ids(*it, vocab_, "tokens");
               std::string text(toks.size() * 8 + 16, '\0');
               int32_t     n = llama_detokenize(vocab_, toks.data(), (int32_t) toks.size(), text.data(),
                                                (int32_t) text.size(), false, true);
               if (n < 0) {
                   text.resize((size_t) -n);
                   n = llama_detokenize(vocab_, toks.data(), (int32_t) toks.size(), text.data(), (int32_t) text.size(),
                                        false, true);
               }
               text.resize((size_t) std::max(n, 0));
               res.set_content(dump({{"content", text}}), "application/json");
           }));

    s.Post("/apply-template", guarded([this](const httplib::Request & req, httplib::Response & res) {
               const json         body = parse_body(req.body);
               completion_request cr;
               chat_->apply(body, vocab_, cr);  // the renderer of /v1/chat/completions
               res.set_content(dump({{"prompt", cr.prompt}}), "application/json");
           }));

    s.Get("/props", [this](const httplib::Request &, httplib::Response & res) {
        const sampling_params dflt = cfg_.sampling;  // the command line's sampler defaults
        json                  gen  = {{"id", 0},
                                      {"id_task", -1},
                                      {"n_ctx", engine_.slot_ctx()},
                                      {"speculative", engine_.speculative().spec != nullptr},
                                      {"is_processing", false},
                                      {"params", settings_json(dflt, -1)}};
        if (const spec_config & sc = engine_.speculative(); sc.spec != nullptr) {
            // upstream's names; the values a request starts from (speculative.n_max ...)
            gen["params"]["speculative.types"] = sc.type;
            gen["params"]["speculative.n_max"] = sc.n_max;
            gen["params"]["speculative.n_min"] = sc.n_min;
            gen["params"]["speculative.p_min"] = sc.p_min;
        }
        const int bos = llama_vocab_bos(vocab_), eos = llama_vocab_eos(vocab_);
        json      out = {{"default_generation_settings", gen},
                         {"total_slots", engine_.n_slots()},
                         {"model_alias", cfg_.model_id},
                         {"model_path", cfg_.model_path},
                         {"chat_template", chat_->source()},
                         {"bos_token", bos == LLAMA_TOKEN_NULL ? "" : piece_of(vocab_, bos)},
                         {"eos_token", eos == LLAMA_TOKEN_NULL ? "" : piece_of(vocab_, eos)},
                         {"modalities", {{"vision", false}, {"audio", false}}},
                         {"build_info", std::string("libllama ") + llama_version()}};
        res.set_content(dump(out), "application/json");
    });

    s.Get("/slots", [this](const httplib::Request &, httplib::Response & res) {
        json out = json::array();
        for (const auto & st : engine_.slot_states()) {
            const bool gen = st.busy && st.n_gen > 0;
            out.push_back({{"id", st.id},
                           {"id_task", -1},
                           {"n_ctx", engine_.slot_ctx()},
                           {"speculative", engine_.speculative().spec != nullptr},
                           {"is_processing", st.busy},
                           {"n_prompt_tokens", st.n_prompt},
                           {"n_cache_tokens", st.n_cache},
                           {"next_token",
                            {{"has_next_token", gen},
                             {"n_remain", st.busy ? st.max_tokens - st.n_gen : -1},
                             {"n_decoded", st.n_gen}}}});
        }
        res.set_content(dump(out), "application/json");
    });

    // the run's LoRA adapters and their global scales (a request's `lora` overrides them)
    s.Get("/lora-adapters", [this](const httplib::Request &, httplib::Response & res) {
        res.set_content(dump(engine_.loras() != nullptr ? engine_.loras()->list() : json::array()), "application/json");
    });
    s.Post("/lora-adapters", guarded([this](const httplib::Request & req, httplib::Response & res) {
               if (engine_.loras() == nullptr) {
                   throw bad_request("no LoRA adapter is loaded (--lora)");
               }
               engine_.loras()->set(json::parse(req.body.empty() ? "null" : req.body, nullptr, false));
               res.set_content(dump({{"success", true}}), "application/json");
           }));

    auto embedding = guarded([this](const httplib::Request & req, httplib::Response & res) {
        in_flight  guard(metrics_);
        const json body = parse_body(req.body);
        const json out  = embedding_native(embedder_, body);
        res.set_content(dump(out), "application/json");
    });
    s.Post("/embedding", embedding);
    s.Post("/embeddings", embedding);
}

}  // namespace server
