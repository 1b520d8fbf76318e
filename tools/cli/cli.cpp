// llama-cli: interactive chat (or one-shot completion with -p) with the model's chat template, a
// system prompt, the sampler flags, context shift when the context fills, multiline input, colours
// on a terminal only, a load progress bar, and --json output for scripts. See docs/tools.md.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "cli-session.h"
#include "console.h"
#ifdef LLAMA_CLI_JSON_SCHEMA
#    include "json-schema-grammar.h"
#endif
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-cli";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL [options]\n\n"
            "Without -p: a chat on stdin. A line ending in '\\' continues on the next line; a line \"\"\"\n"
            "starts and ends a block of several lines. Commands: /exit (or /quit), /clear (new chat), /help.\n"
            "End of input ends the chat. With -p: one reply (or, with --raw, a plain completion) and exit.\n\n"
            "  -m, --model FILE          GGUF model to load (required)\n"
            "  -p, --prompt TEXT         one-shot: answer TEXT and exit\n"
            "  -sys, --system-prompt T   system message at the start of the chat\n"
            "  --raw                     no chat template: -p TEXT is continued as is\n"
            "  --chat-template T         template name or Jinja source (default: the model's, else chatml)\n"
            "  --chat-template-file F    the Jinja template in file F\n"
            "  --jinja, --no-jinja       run the Jinja template as written (default: on; off: built-in formats)\n"
            "  -c, --ctx-size N          context size, 16 to %d (default 4096)\n"
            "  -n, --n-predict N         most tokens per reply, 1 to %d (default 512)\n"
            "  -b, --batch-size N        most tokens per decode, 16 to 65536 (default 512)\n"
            "  -t, --threads N           CPU threads, 1 to 512 (default 2)\n"
            "  --temp X                  temperature, 0 = greedy (default 0.8)\n"
            "  --top-k N                 keep the N most likely tokens, 0 = off (default 40)\n"
            "  --top-p X                 nucleus sampling (default 0.95)\n"
            "  --min-p X                 minimum probability relative to the best (default 0.05)\n"
            "  --typical X               locally typical sampling, 1 = off (default 1)\n"
            "  --dynatemp-range X        dynamic temperature range, 0 = off (default 0)\n"
            "  --dynatemp-exp X          dynamic temperature exponent (default 1)\n"
            "  --repeat-last-n N         tokens the penalties look at, -1 = context (default 64)\n"
            "  --repeat-penalty X        repetition penalty, 1 = off (default 1)\n"
            "  --presence-penalty X      presence penalty, 0 = off (default 0)\n"
            "  --frequency-penalty X     frequency penalty, 0 = off (default 0)\n"
            "  --top-nsigma X            keep logits within X standard deviations of the best, <= 0 = off\n"
            "  --xtc-probability X       XTC: chance of removing the top choices, 0 = off (default 0)\n"
            "  --xtc-threshold X         XTC: probability a choice needs to be removed (default 0.1)\n"
            "  --mirostat N              0 off, 1 Mirostat, 2 Mirostat 2.0 (replace top-k/p, min-p, typical)\n"
            "  --mirostat-lr X           Mirostat learning rate eta (default 0.1)\n"
            "  --mirostat-ent X          Mirostat target entropy tau (default 5)\n"
            "  --dry-multiplier X        DRY repetition penalty strength, 0 = off (default 0)\n"
            "  --dry-base X              DRY base, >= 1 (default 1.75)\n"
            "  --dry-allowed-length N    DRY: repeats up to N tokens are free (default 2)\n"
            "  --dry-penalty-last-n N    DRY: tokens looked at, -1 = context (default -1)\n"
            "  --dry-sequence-breaker S  DRY: a sequence breaker (repeatable; replaces the defaults\n"
            "                            \\n : \" *; \"none\" for none)\n"
            "  --grammar GBNF            constrain every reply to a GBNF grammar (docs/sampling.md)\n"
            "  --grammar-file FILE       the grammar from a file\n"
            "  -j, --json-schema SCHEMA  constrain every reply to JSON valid under a JSON schema\n"
            "  -jf, --json-schema-file F the schema from a file\n"
            "  --seed N                  sampling seed, 0 to 4294967295 (default: random)\n"
            "  --prompt-cache FILE       with -p: reuse the prompt prefix saved in FILE, save this prompt's state\n"
            "  --json                    each reply as one JSON line (content, finish_reason, token counts)\n"
            "  -v, --verbose             show the library's log and context shifts\n"
            "  -h, --help                print this help and exit\n\n"
            "Colours are used only when stdout is a terminal and NO_COLOR is not set.\n"
            "exit status: 0 success, 1 usage error, 2 load or generation failure\n",
            k_prog, 1 << 20, 1 << 20);
}

// The text of a token ("" for none).
static std::string text_of(const llama_vocab * vocab, llama_token t) {
    if (t == LLAMA_TOKEN_NULL || t < 0 || t >= llama_vocab_n_tokens(vocab)) {
        return "";
    }
    const char * s = llama_vocab_get_text(vocab, t);
    return s ? s : "";
}

// JSON string literal of UTF-8 text (control characters escaped).
static std::string json_str(const std::string & s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    snprintf(buf, sizeof(buf), "\\u%04x", c);
                    out += buf;
                } else {
                    out += (char) c;
                }
        }
    }
    return out + "\"";
}

// Reads one user message; false at end of input. Multiline: trailing '\' or a """ block.
static bool read_message(std::string & msg) {
    msg.clear();
    std::string line;
    if (!std::getline(std::cin, line)) {
        return false;
    }
    if (line == "\"\"\"") {
        while (std::getline(std::cin, line) && line != "\"\"\"") {
            msg += (msg.empty() ? "" : "\n") + line;
        }
        return true;
    }
    while (!line.empty() && line.back() == '\\') {
        line.pop_back();
        msg += line + "\n";
        if (!std::getline(std::cin, line)) {
            line.clear();
            break;
        }
    }
    msg += line;
    return true;
}

// The whole file (for --grammar-file and --json-schema-file); a usage error when unreadable.
static std::string read_file(tool::args & args, const std::string & path) {
    std::string text, why;
    if (!tool::read_file(path, text, why)) {
        args.fail("cannot read " + path + ": " + why);
    }
    return text;
}

// GBNF of a JSON schema; a usage error (with the converter's reason) when it cannot be converted.
static std::string schema_grammar(tool::args & args, const std::string & schema) {
#ifdef LLAMA_CLI_JSON_SCHEMA
    try {
        return llama_tools::json_schema_to_grammar(schema);
    } catch (const llama_tools::schema_error & e) {
        args.fail(std::string("--json-schema: ") + e.what());
    }
#else
    (void) schema;
    args.fail("--json-schema: this llama-cli was built without nlohmann/json (nlohmann-json3-dev)");
#endif
    return "";
}

int main(int argc, char ** argv) {
    std::string   model_path, prompt, system_prompt, tmpl_arg, prompt_cache;
    bool          one_shot = false, raw = false, json = false, verbose = false, use_jinja = true;
    int           n_ctx = 4096, n_predict = 512, n_batch = 512, n_threads = 2;
    cli::sampling sp;
    bool          custom_breakers = false;
    std::string   grammar;
    int           n_constraint = 0;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("-p", "--prompt")) {
            prompt   = args.value();
            one_shot = true;
        } else if (args.is("-sys", "--system-prompt")) {
            system_prompt = args.value();
        } else if (args.is("--raw")) {
            raw = true;
        } else if (args.is("--chat-template")) {
            tmpl_arg = args.value();
        } else if (args.is("--chat-template-file")) {
            const std::string path = args.value();
            std::string       why;
            if (!tool::read_file(path, tmpl_arg, why)) {
                args.fail("cannot read --chat-template-file " + path + ": " + why);
            }
        } else if (args.is("--jinja")) {
            use_jinja = true;
        } else if (args.is("--no-jinja")) {
            use_jinja = false;
        } else if (args.is("-c", "--ctx-size")) {
            n_ctx = (int) args.int_value(16, 1 << 20);
        } else if (args.is("-n", "--n-predict")) {
            n_predict = (int) args.int_value(1, 1 << 20);
        } else if (args.is("-b", "--batch-size")) {
            n_batch = (int) args.int_value(16, 65536);
        } else if (args.is("-t", "--threads")) {
            n_threads = (int) args.int_value(1, 512);
        } else if (args.is("--temp")) {
            sp.temp = (float) args.float_value(0, 100);
        } else if (args.is("--top-k")) {
            sp.top_k = (int32_t) args.int_value(0, 1 << 20);
        } else if (args.is("--top-p")) {
            sp.top_p = (float) args.float_value(0, 1);
        } else if (args.is("--min-p")) {
            sp.min_p = (float) args.float_value(0, 1);
        } else if (args.is("--typical")) {
            sp.typical_p = (float) args.float_value(0, 1);
        } else if (args.is("--dynatemp-range")) {
            sp.dynatemp_range = (float) args.float_value(0, 100);
        } else if (args.is("--dynatemp-exp")) {
            sp.dynatemp_exp = (float) args.float_value(0, 100);
        } else if (args.is("--repeat-last-n")) {
            sp.repeat_last_n = (int32_t) args.int_value(-1, 1 << 20);
        } else if (args.is("--repeat-penalty")) {
            sp.repeat_penalty = (float) args.float_value(0, 100);
        } else if (args.is("--presence-penalty")) {
            sp.presence_penalty = (float) args.float_value(-100, 100);
        } else if (args.is("--frequency-penalty")) {
            sp.frequency_penalty = (float) args.float_value(-100, 100);
        } else if (args.is("--seed")) {
            sp.seed = (uint32_t) args.uint_value(0, UINT32_MAX);
        } else if (args.is("--top-nsigma")) {
            sp.top_n_sigma = (float) args.float_value(-1, 100);
        } else if (args.is("--xtc-probability")) {
            sp.xtc_probability = (float) args.float_value(0, 1);
        } else if (args.is("--xtc-threshold")) {
            sp.xtc_threshold = (float) args.float_value(0, 1);
        } else if (args.is("--mirostat")) {
            sp.mirostat = (int32_t) args.int_value(0, 2);
        } else if (args.is("--mirostat-lr")) {
            sp.mirostat_eta = (float) args.float_value(0, 1);
        } else if (args.is("--mirostat-ent")) {
            sp.mirostat_tau = (float) args.float_value(0, 100);
        } else if (args.is("--dry-multiplier")) {
            sp.dry_multiplier = (float) args.float_value(0, 100);
        } else if (args.is("--dry-base")) {
            sp.dry_base = (float) args.float_value(1, 100);
        } else if (args.is("--dry-allowed-length")) {
            sp.dry_allowed_length = (int32_t) args.int_value(1, 1 << 20);
        } else if (args.is("--dry-penalty-last-n")) {
            sp.dry_penalty_last_n = (int32_t) args.int_value(-1, 1 << 20);
        } else if (args.is("--dry-sequence-breaker")) {
            if (!custom_breakers) {
                sp.dry_sequence_breakers.clear();  // the first one given replaces the defaults
                custom_breakers = true;
            }
            const std::string b = args.value();
            if (b.empty()) {
                args.fail("--dry-sequence-breaker: empty breaker");
            }
            if (b != "none") {
                sp.dry_sequence_breakers.push_back(b);
            }
        } else if (args.is("--grammar")) {
            grammar = args.value();
            n_constraint++;
        } else if (args.is("--grammar-file")) {
            grammar = read_file(args, args.value());
            n_constraint++;
        } else if (args.is("-j", "--json-schema")) {
            grammar = schema_grammar(args, args.value());
            n_constraint++;
        } else if (args.is("-jf", "--json-schema-file")) {
            grammar = schema_grammar(args, read_file(args, args.value()));
            n_constraint++;
        } else if (args.is("--prompt-cache")) {
            prompt_cache = args.value();
        } else if (args.is("--json")) {
            json = true;
        } else if (args.is("-v", "--verbose")) {
            verbose = true;
        } else {
            args.unknown();
        }
    }
    if (model_path.empty()) {
        args.fail("no model given (-m MODEL)");
    }
    if (n_constraint > 1) {
        args.fail("give only one of --grammar, --grammar-file, --json-schema and --json-schema-file");
    }
    if (raw && !one_shot) {
        args.fail("--raw needs -p TEXT");
    }
    if (!prompt_cache.empty() && !one_shot) {
        args.fail("--prompt-cache needs -p TEXT");
    }
    const bool   color   = !json && tool::use_color(stdout);
    const char * c_user  = color ? "\033[32m" : "";
    const char * c_reply = color ? "\033[33m" : "";
    const char * c_reset = color ? "\033[0m" : "";

    tool::llama_start(k_prog, verbose);

    llama_model * model = tool::load_model(model_path, true);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) n_ctx;
    cp.n_batch              = (uint32_t) n_batch;
    cp.n_threads            = n_threads;
    cp.n_threads_batch      = n_threads;
    llama_context * ctx     = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    llama_sampler *     grmr  = nullptr;
    if (!grammar.empty()) {
        grmr = llama_sampler_init_grammar(vocab, grammar.c_str(), "root");
        if (!grmr) {
            llama_free(ctx);
            llama_model_free(model);
            fprintf(stderr, "%s: invalid grammar: %s\n", k_prog, llama_last_error());
            return 1;
        }
    }
    llama_sampler * smpl = cli::make_sampler(sp, vocab, n_ctx);
    cli::session    chat(ctx, smpl, verbose);
    chat.set_grammar(grmr);
    if (!prompt_cache.empty()) {
        chat.set_prompt_cache(prompt_cache);
    }
    const char * tmpl = tmpl_arg.empty() ? llama_model_chat_template(model, nullptr) : tmpl_arg.c_str();
    // the model's Jinja template runs as written (--no-jinja: the built-in formats, told from it)
    llama_chat_template * jinja = nullptr;
    if (use_jinja && tmpl && (strstr(tmpl, "{%") || strstr(tmpl, "{{"))) {
        char err[512] = "";
        jinja         = tmpl_arg.empty() ? llama_chat_template_init_from_model(model, nullptr, err, sizeof err)
                                         : llama_chat_template_init(tmpl, text_of(vocab, llama_vocab_bos(vocab)).c_str(),
                                                                    text_of(vocab, llama_vocab_eos(vocab)).c_str(), err,
                                                                    sizeof err);
        if (!jinja) {
            fprintf(stderr, "%s: warning: the Jinja chat template does not parse (%s); using the built-in formats\n",
                    k_prog, err);
        }
    }
    struct jinja_guard {
        llama_chat_template * t;
        ~jinja_guard() { llama_chat_template_free(t); }
    } jinja_owner{jinja};

    // the conversation so far, formatted; only the new part of each formatting is decoded
    std::vector<std::string> roles, contents;
    std::string              formatted;
    size_t                   prev_len = 0;
    auto                     format   = [&](bool add_ass) -> bool {
        if (jinja) {
            std::string msgs = "[";
            for (size_t i = 0; i < roles.size(); i++) {
                msgs += (i ? "," : "") + std::string("{\"role\":") + json_str(roles[i]) +
                        ",\"content\":" + json_str(contents[i]) + "}";
            }
            msgs += "]";
            llama_chat_template_inputs in = llama_chat_template_default_inputs();
            in.messages_json              = msgs.c_str();
            in.add_generation_prompt      = add_ass;
            const char * out              = llama_chat_template_render(jinja, &in);
            if (!out) {
                fprintf(stderr, "%s: the chat template failed: %s\n", k_prog, llama_chat_template_last_error(jinja));
                return false;
            }
            formatted = out;
            return true;
        }
        std::vector<llama_chat_message> msgs;
        for (size_t i = 0; i < roles.size(); i++) {
            msgs.push_back({roles[i].c_str(), contents[i].c_str()});
        }
        std::vector<char> buf(4096);
        int32_t           n =
            llama_chat_apply_template(tmpl, msgs.data(), msgs.size(), add_ass, buf.data(), (int32_t) buf.size());
        if (n > (int32_t) buf.size()) {
            buf.resize((size_t) n + 1);
            n = llama_chat_apply_template(tmpl, msgs.data(), msgs.size(), add_ass, buf.data(), (int32_t) buf.size());
        }
        if (n < 0) {
            return false;
        }
        formatted.assign(buf.data(), (size_t) n);
        return true;
    };
    auto reset_history = [&] {
        roles.clear();
        contents.clear();
        prev_len = 0;
        if (!system_prompt.empty()) {
            roles.push_back("system");
            contents.push_back(system_prompt);
        }
    };
    reset_history();

    // one turn: returns the exit code to stop with, or -1 to go on
    auto turn = [&](const std::string & user) -> int {
        std::string text;
        if (raw) {
            text = user;
        } else {
            roles.push_back("user");
            contents.push_back(user);
            if (!format(true)) {
                return tool::report_failure("cannot apply the chat template", "unsupported template");
            }
            text = formatted.substr(prev_len);
        }
        if (!json) {
            printf("%s", c_reply);
        }
        std::string      reply;
        cli::reply_stats st;
        const int64_t    t0 = llama_time_us();
        const int        rc = chat.reply(
                   text, n_predict,
                   [&](const std::string & piece) {
                reply += piece;
                if (!json) {
                    fwrite(piece.data(), 1, piece.size(), stdout);
                    fflush(stdout);
                }
            },
                   st);
        if (!json) {
            printf("%s\n", c_reset);
        }
        if (rc < 0) {
            return tool::report_failure("generation failed");
        }
        if (rc == 0) {
            fprintf(stderr, "%s: message too long for the context (%d tokens, context %d): skipped\n", k_prog,
                    st.n_prompt, n_ctx);
            if (!raw) {
                roles.pop_back();
                contents.pop_back();
            }
            return one_shot ? tool::EXIT_RUNTIME : -1;
        }
        if (json) {
            printf(
                "{\"content\":%s,\"finish_reason\":\"%s\",\"tokens_prompt\":%d,\"tokens_generated\":%d,"
                "\"context_shifts\":%d,\"tokens_cached\":%d,\"ms\":%.1f}\n",
                json_str(reply).c_str(), st.finish_reason.c_str(), st.n_prompt, st.n_gen, st.n_shifts, st.n_cached,
                (double) (llama_time_us() - t0) / 1000.0);
            fflush(stdout);
        }
        if (!raw) {
            roles.push_back("assistant");
            contents.push_back(reply);
            if (!format(false)) {
                return tool::report_failure("cannot apply the chat template", "unsupported template");
            }
            prev_len = formatted.size();
        }
        return -1;
    };

    int rc = tool::EXIT_OK;
    if (one_shot) {
        const int r = turn(prompt);
        rc          = r < 0 ? tool::EXIT_OK : r;
    } else {
        std::string msg;
        while (true) {
            if (!json) {
                printf("%s> %s", c_user, c_reset);
                fflush(stdout);
            }
            if (!read_message(msg)) {
                break;
            }
            if (msg == "/exit" || msg == "/quit") {
                break;
            }
            if (msg == "/clear") {
                chat.clear();
                reset_history();
                continue;
            }
            if (msg == "/help") {
                print_usage(stdout);
                continue;
            }
            if (msg.empty()) {
                continue;
            }
            const int r = turn(msg);
            if (r >= 0) {
                rc = r;
                break;
            }
        }
    }
    llama_sampler_free(smpl);
    llama_sampler_free(grmr);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
