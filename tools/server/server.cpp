// llama-server: an OpenAI-compatible HTTP server over one model with N parallel slots (see
// docs/server.md). This file: command line, model and context, signals, start and graceful stop.
//
//   llama-server -m MODEL [--host H] [--port P] [-np N] [-c N_CTX] [--api-key KEY] ...
#include <cstdio>
#include <string>
#include <thread>

#include "arg-parse.h"
#include "console.h"
#include "llama.h"
#include "server-embed.h"
#include "server-engine.h"
#include "server-http.h"
#include "server-metrics.h"
#include "server-router.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-server";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL [options]\n\n"
            "OpenAI-compatible HTTP server: POST /v1/chat/completions, /v1/completions, /v1/embeddings;\n"
            "GET /v1/models, /health, /metrics (Prometheus), / (the chat page).\n"
            "SIGTERM/SIGINT: finish in-flight requests, exit.\n\n"
            "  -m, --model FILE       GGUF model to load (required)\n"
            "  --host ADDR            address to listen on (default 127.0.0.1)\n"
            "  --port N               port, 0 = any free port (default 8080); the chosen one is printed\n"
            "  -np, --parallel N      slots: requests decoded together, 1 to 256 (default 4)\n"
            "  -c, --ctx-size N       context size shared by the slots, each gets N / slots (default 4096)\n"
            "  -b, --batch-size N     most tokens per decode step, 16 to 65536 (default 512)\n"
            "  -t, --threads N        CPU threads, 1 to 512 (default 2)\n"
            "  --api-key KEY          require 'Authorization: Bearer KEY' (not for /health, /metrics)\n"
            "  --max-body N           largest request body in bytes (default 1048576)\n"
            "  --max-tokens N         most tokens a request may generate per choice (default 4096)\n"
            "  --timeout N            seconds a request may take, queue included (default 600)\n"
            "  --queue-limit N        requests waiting for a slot before 503 + Retry-After (default 64)\n"
            "  --http-threads N       connections served at once (default 64)\n"
            "  --grace N              seconds to finish in-flight requests on SIGTERM (default 30)\n"
            "  --alias NAME           model id in the API (default: the file name)\n"
            "  --chat-template T      template name or Jinja source (default: the model's, else chatml)\n"
            "  --chat-template-file F the Jinja template in file F\n"
            "  --jinja, --no-jinja    run the Jinja template: tools, reasoning (default: on; off: built-in formats)\n"
            "  --models-dir DIR       router mode (no -m): serve the *.gguf files in DIR, one instance each\n"
            "  --models-preset F      router mode: INI file of [id] sections (model = PATH, instance flags)\n"
            "  --models-max N         router: models loaded at once, 0 = no limit (default 4)\n"
            "  --models-memory-max S  router: total size of loaded model files (e.g. 8G; default no limit)\n"
            "  --models-autoload, --no-models-autoload\n"
            "                         router: load a model when a request names it (default: on)\n"
            "  --sleep-idle-seconds N router: unload a model idle for N seconds (default -1: never)\n"
            "  --webui, --no-webui    serve the chat page at / (default: on; also --ui, --no-ui)\n"
            "  -v, --verbose          show the library's log\n"
            "  -h, --help             print this help and exit\n\n"
            "exit status: 0 after a clean shutdown, 1 usage error, 2 load or listen failure\n",
            k_prog);
}

// Router mode: no model in this process; instances of this program serve the models.
static int run_router(const server::router_config & rc, int grace) {
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
        r->shutdown(grace);
    });
    r->listen();
    stop.wake();
    sig_thread.join();
    r.reset();  // stops every instance
    printf("%s: stopped\n", k_prog);
    return tool::EXIT_OK;
}

int main(int argc, char ** argv) {
    std::string           model_path;
    server::http_config   hc;
    int                   n_slots = 4, n_ctx = 4096, n_batch = 512, n_threads = 2, queue_limit = 64, grace = 30;
    bool                  verbose = false;
    server::router_config rcfg;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("--host")) {
            hc.host = args.value();
        } else if (args.is("--port")) {
            hc.port = (int) args.int_value(0, 65535);
        } else if (args.is("-np", "--parallel")) {
            n_slots = (int) args.int_value(1, 256);
        } else if (args.is("-c", "--ctx-size")) {
            n_ctx = (int) args.int_value(16, 1 << 22);
        } else if (args.is("-b", "--batch-size")) {
            n_batch = (int) args.int_value(16, 65536);
        } else if (args.is("-t", "--threads")) {
            n_threads = (int) args.int_value(1, 512);
        } else if (args.is("--api-key")) {
            hc.api_key = args.value();
        } else if (args.is("--max-body")) {
            hc.max_body = (size_t) args.int_value(64, (int64_t) 1 << 32);
        } else if (args.is("--max-tokens")) {
            hc.max_tokens = (int) args.int_value(1, 1 << 22);
        } else if (args.is("--timeout")) {
            hc.timeout_s = (int) args.int_value(1, 86400);
        } else if (args.is("--queue-limit")) {
            queue_limit = (int) args.int_value(0, 1 << 20);
        } else if (args.is("--http-threads")) {
            hc.http_threads = (int) args.int_value(2, 4096);
        } else if (args.is("--grace")) {
            grace = (int) args.int_value(0, 86400);
        } else if (args.is("--chat-template")) {
            hc.chat_template = args.value();
        } else if (args.is("--chat-template-file")) {
            const std::string path = args.value();
            std::string       why;
            if (!tool::read_file(path, hc.chat_template, why)) {
                args.fail("cannot read --chat-template-file " + path + ": " + why);
            }
        } else if (args.is("--jinja")) {
            hc.jinja = true;
        } else if (args.is("--no-jinja")) {
            hc.jinja = false;
        } else if (args.is("--webui", "--ui")) {
            hc.webui = true;
        } else if (args.is("--no-webui", "--no-ui")) {
            hc.webui = false;
        } else if (args.is("--alias")) {
            hc.model_id = args.value();
        } else if (args.is("--models-dir")) {
            rcfg.models_dir = args.value();
        } else if (args.is("--models-preset")) {
            rcfg.models_preset = args.value();
        } else if (args.is("--models-max")) {
            rcfg.models_max = (int) args.int_value(0, 1024);
        } else if (args.is("--models-memory-max")) {
            const std::string v = args.value();
            if (!server::parse_size(v, rcfg.memory_max)) {
                args.fail("invalid value '" + v + "' for --models-memory-max: expected a size such as 512M or 8G");
            }
        } else if (args.is("--models-autoload")) {
            rcfg.autoload = true;
        } else if (args.is("--no-models-autoload")) {
            rcfg.autoload = false;
        } else if (args.is("--sleep-idle-seconds")) {
            rcfg.idle_s = (int) args.int_value(-1, 1 << 24);
        } else if (args.is("-v", "--verbose")) {
            verbose = true;
        } else {
            args.unknown();
        }
    }
    if (model_path.empty() && (!rcfg.models_dir.empty() || !rcfg.models_preset.empty())) {
        rcfg.instance_args = server::router_instance_args(argc, argv);
        rcfg.host          = hc.host;
        rcfg.port          = hc.port;
        if (!hc.api_key.empty()) {
            rcfg.api_keys.push_back(hc.api_key);
        }
        rcfg.max_body     = hc.max_body;
        rcfg.timeout_s    = hc.timeout_s;
        rcfg.http_threads = hc.http_threads;
        rcfg.verbose      = verbose;
        return run_router(rcfg, grace);
    }
    if (model_path.empty()) {
        args.fail("no model given (-m MODEL, or --models-dir / --models-preset for several)");
    }
    if (n_ctx / n_slots < 16) {
        args.fail("each slot needs at least 16 tokens of context (-c / -np)");
    }
    hc.model_path = model_path;
    if (hc.model_id.empty()) {
        const size_t slash = model_path.find_last_of('/');
        hc.model_id        = slash == std::string::npos ? model_path : model_path.substr(slash + 1);
    }

    // stop requests (SIGTERM, SIGINT; Ctrl+C on Windows) are taken by one thread; set up before any
    // thread starts so that none of the others receives them
    tool::stop_requests stop;

    tool::llama_start(k_prog, verbose);

    llama_model * model = tool::load_model(model_path, true);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) n_ctx;
    cp.n_batch              = (uint32_t) n_batch;
    cp.n_ubatch             = (uint32_t) std::min(n_batch, 512);
    cp.n_seq_max            = (uint32_t) n_slots;
    cp.n_threads            = n_threads;
    cp.n_threads_batch      = n_threads;
    cp.kv_unified           = true;
    llama_context * ctx     = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }

    int rc = tool::EXIT_OK;
    {
        server::metrics     m;
        server::engine      eng(ctx, n_slots, queue_limit, m);
        server::embedder    emb(model, eng.slot_ctx(), n_threads);
        server::http_server http(hc, model, eng, emb, m);
        const int           port = http.bind();
        if (port < 0) {
            rc = tool::report_failure("cannot listen on " + hc.host + ":" + std::to_string(hc.port));
        } else {
            printf("%s: listening on http://%s:%d (%d slots of %d tokens)\n", k_prog, hc.host.c_str(), port, n_slots,
                   eng.slot_ctx());
            fflush(stdout);
            std::thread sig_thread([&] {
                const std::string what = stop.wait();
                if (!what.empty()) {
                    fprintf(stderr, "%s: %s received, finishing in-flight requests\n", k_prog, what.c_str());
                }
                http.shutdown(grace);
            });
            http.listen();
            // listen() also returns on failure: wake the signal thread so it can be joined
            stop.wake();
            sig_thread.join();
            printf("%s: stopped\n", k_prog);
        }
        eng.stop();
    }
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
