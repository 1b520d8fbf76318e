// llama-server: an OpenAI-compatible HTTP server over one model with N parallel slots (see
// docs/server.md). This file: command line, model and context, signals, start and graceful stop.
//
//   llama-server -m MODEL [--host H] [--port P] [-np N] [-c N_CTX] [--api-key KEY] ... (arg-table.h)
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "arg-llama.h"
#include "arg-parse.h"
#include "arg-table.h"
#include "console.h"
#include "llama.h"
#include "server-embed.h"
#include "server-engine.h"
#include "server-http.h"
#include "server-lora.h"
#include "server-metrics.h"
#include "server-params.h"
#include "server-prompt-cache.h"
#include "server-router.h"
#include "tool-log.h"
#include "tool-model.h"
#include "tool-spec.h"

static const char * k_prog = "llama-server";

static const char * k_usage =
    "usage: llama-server -m MODEL [options]\n\n"
    "OpenAI-compatible HTTP server: POST /v1/chat/completions, /v1/completions, /v1/embeddings;\n"
    "GET /v1/models, /health, /metrics (Prometheus). SIGTERM/SIGINT: finish in-flight requests, exit.\n"
    "Without -m, --models-dir / --models-preset start a router over several models (docs/server.md).\n"
    "-c is the context of all slots together: each slot gets -c / -np tokens, or the whole -c with\n"
    "--kv-unified (the default when -np is not given: 4 slots).\n"
    "exit status: 0 after a clean shutdown, 1 usage error, 2 load or listen failure\n\n"
    "options (an environment variable is read when its option is not given):\n";

static void print_usage(FILE * out) {
    fputs(k_usage, out);
    tool::print_options(tool::TOOL_SERVER, out);
}

// Router mode: no model in this process; instances of this program serve the models.
static int run_router(const tool::params & p, int argc, char ** argv, const tool::args & args) {
    server::router_config rc;
    rc.models_dir    = p.models_dir;
    rc.models_preset = p.models_preset;
    rc.models_max    = p.models_max;
    rc.autoload      = p.models_autoload;
    rc.idle_s        = p.sleep_idle_seconds;
    if (!p.models_memory_max.empty() && !server::parse_size(p.models_memory_max, rc.memory_max)) {
        args.fail("invalid value '" + p.models_memory_max +
                  "' for --models-memory-max: expected a size such as 512M or 8G");
    }
    rc.instance_args = server::router_instance_args(argc, argv);
    rc.host          = p.host;
    rc.port          = p.port;
    rc.api_keys      = p.api_keys;
    rc.max_body      = (size_t) p.max_body;
    rc.timeout_s     = p.timeout_s;
    rc.http_threads  = p.http_threads;
    rc.verbose       = p.verbose;
    rc.webui         = p.webui;
    if (!p.ssl_key_file.empty() || !p.ssl_cert_file.empty()) {
        args.fail("--ssl-key-file / --ssl-cert-file are not supported in router mode (put TLS in front)");
    }

    tool::stop_requests             stop;  // before any thread starts (see main)
    std::unique_ptr<server::router> r;
    try {
        r = std::make_unique<server::router>(rc);
    } catch (const std::exception & e) {
        fprintf(stderr, "%s: error: %s\n", k_prog, e.what());
        return tool::EXIT_USAGE;
    }
    const int port = r->bind();
    if (port < 0) {
        return tool::report_failure("cannot listen on " + rc.host + ":" + std::to_string(rc.port));
    }
    printf("%s: listening on http://%s:%d (router: %zu models)\n", k_prog, rc.host.c_str(), port, r->n_models());
    fflush(stdout);
    std::thread sig_thread([&] {
        const std::string what = stop.wait();
        if (!what.empty()) {
            fprintf(stderr, "%s: %s received, finishing in-flight requests\n", k_prog, what.c_str());
        }
        r->shutdown(p.grace_s);
    });
    r->listen();
    stop.wake();
    sig_thread.join();
    r.reset();  // stops every instance
    printf("%s: stopped\n", k_prog);
    return tool::EXIT_OK;
}

int main(int argc, char ** argv) {
    tool::params p;
    p.n_predict = 0;  // given or not: -n replaces --max-tokens only when given
    tool::parse_or_exit(tool::TOOL_SERVER, k_prog, argc, argv, p, k_usage);
    tool::args args(k_prog, argc, argv, print_usage);  // its fail() reports the checks below
    if (p.list_devices) {
        tool::llama_start(k_prog, p.verbose);
        tool::print_devices(stdout);
        llama_backend_free();
        return tool::EXIT_OK;
    }
    if (p.model.empty() && (!p.models_dir.empty() || !p.models_preset.empty())) {
        return run_router(p, argc, argv, args);
    }
    if (p.model.empty()) {
        args.fail("no model given (-m MODEL, or --models-dir / --models-preset for several)");
    }
    // upstream's auto: 4 slots sharing one cache, each may use all of it
    const int  n_slots = p.n_parallel < 0 ? 4 : p.n_parallel;
    const bool unified = p.kv_unified < 0 ? p.n_parallel < 0 : p.kv_unified == 1;
    if (p.n_ctx > 0 && !unified && p.n_ctx / n_slots < 16) {
        args.fail("each slot needs at least 16 tokens of context (-c / -np)");
    }

    server::http_config hc;
    hc.host             = p.host;
    hc.port             = p.port;
    hc.api_keys         = p.api_keys;
    hc.ssl_key_file     = p.ssl_key_file;
    hc.ssl_cert_file    = p.ssl_cert_file;
    hc.cors_origins     = p.cors_origins;
    hc.cors_methods     = p.cors_methods;
    hc.cors_headers     = p.cors_headers;
    hc.cors_credentials = p.cors_credentials;
    hc.max_body         = (size_t) p.max_body;
    hc.max_tokens       = p.n_predict == 0 ? p.max_tokens : p.n_predict < 0 ? 1 << 22 : p.n_predict;
    hc.timeout_s        = p.timeout_s;
    hc.http_threads     = p.http_threads;
    hc.chat_template    = p.chat_template;
    hc.jinja            = p.jinja;
    hc.model_id         = p.alias;
    hc.embeddings_only  = p.embeddings_only;
    hc.webui            = p.webui;
    hc.model_path       = p.model;
    hc.slot_save_path   = p.slot_save_path;
    hc.sampling         = server::sampling_defaults(p.sampling);
    if (hc.model_id.empty()) {
        const size_t slash = p.model.find_last_of('/');
        hc.model_id        = slash == std::string::npos ? p.model : p.model.substr(slash + 1);
    }

    // stop requests (SIGTERM, SIGINT; Ctrl+C on Windows) are taken by one thread; set up before any
    // thread starts so that none of the others receives them
    tool::stop_requests stop;

    tool::llama_start(k_prog, p.verbose);

    llama_model_params  mp;
    tool::model_storage store;
    std::string         why;
    if (!tool::model_params(p, mp, store, why)) {
        args.fail(why);
    }
    llama_model * model = tool::load_model(p.model, true, mp);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    const llama_context_params cp  = tool::context_params(p, n_slots);
    llama_context *            ctx = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    // with -c 0 (the model's context) the slot size is known only now
    const int n_ctx      = (int) llama_n_ctx(ctx);
    const int n_ctx_slot = unified ? n_ctx : n_ctx / n_slots;
    if (n_ctx_slot < 16) {
        why = "each slot needs at least 16 tokens of context (the model's " + std::to_string(n_ctx) + " / -np " +
              std::to_string(n_slots) + ")";
    }
    // the engine sets the adapters per batch: each request may ask for its own scales
    server::lora_set                           loras;
    std::vector<std::pair<std::string, float>> lora_args;
    for (const auto & l : p.lora) {
        lora_args.emplace_back(l.path, p.lora_init_without_apply ? 0.0f : l.scale);
    }
    if (server::resolve_pooling(model, p.pooling) == LLAMA_POOLING_TYPE_RANK && llama_model_n_cls_out(model) == 0) {
        why = "reranking (--reranking, --pooling rank) needs a model with a classifier head (cls.output): " + p.model +
              " has none";
    }
    // the draft model and context, loaded once; refused here (vocabulary, parameters) before listening
    tool::speculative spec;
    if (!why.empty() || !loras.load(model, lora_args, why) || !spec.start(p, ctx, n_slots, why)) {
        spec.close();
        llama_free(ctx);
        llama_model_free(model);
        fprintf(stderr, "%s: error: %s\n", k_prog, why.c_str());
        return tool::EXIT_RUNTIME;
    }

    int rc = tool::EXIT_OK;
    {
        server::metrics                       m;
        std::unique_ptr<server::prompt_store> disk;
        if (!p.prompt_cache_dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(p.prompt_cache_dir, ec);
            disk = std::make_unique<server::prompt_store>(p.prompt_cache_dir, (uint64_t) p.prompt_cache_max_mib << 20,
                                                          prompt_cache::make_fingerprint(model, cp),
                                                          llama_vocab_n_tokens(llama_model_get_vocab(model)));
        }
        server::spec_config sc;
        if ((sc.spec = spec.get()) != nullptr) {
            sc.n_max = spec.settings().n_draft_max;
            sc.n_min = spec.settings().n_draft_min;
            sc.p_min = spec.settings().p_min;
            sc.type  = spec.type();
        }
        server::engine      eng(ctx, n_slots, p.queue_limit, m, n_ctx_slot, &loras, disk.get(), sc);
        server::embedder    emb(model, eng.slot_ctx(), cp.n_threads, server::resolve_pooling(model, p.pooling));
        server::http_server http(hc, model, eng, emb, m);
        const int           port = http.ok(why) ? http.bind() : -1;
        if (!why.empty()) {
            fprintf(stderr, "%s: error: %s\n", k_prog, why.c_str());
            rc = tool::EXIT_RUNTIME;
        } else if (port < 0) {
            rc = tool::report_failure("cannot listen on " + hc.host + ":" + std::to_string(hc.port));
        } else {
            printf("%s: listening on %s://%s:%d (%d slots of %d tokens%s)\n", k_prog,
                   hc.ssl_cert_file.empty() ? "http" : "https", hc.host.c_str(), port, n_slots, eng.slot_ctx(),
                   unified ? ", one shared cache" : "");
            fflush(stdout);
            std::thread sig_thread([&] {
                const std::string what = stop.wait();
                if (!what.empty()) {
                    fprintf(stderr, "%s: %s received, finishing in-flight requests\n", k_prog, what.c_str());
                }
                http.shutdown(p.grace_s);
            });
            http.listen();
            // listen() also returns on failure: wake the signal thread so it can be joined
            stop.wake();
            sig_thread.join();
            printf("%s: stopped\n", k_prog);
        }
        eng.stop();
    }
    spec.close();
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
