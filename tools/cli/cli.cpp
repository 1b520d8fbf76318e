// llama-cli: interactive chat (or one-shot completion with -p) with the model's chat template, a
// system prompt, the sampler flags, context shift when the context fills, multiline input, colours
// on a terminal only, a load progress bar, and --json output for scripts. See docs/tools.md.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "arg-llama.h"
#include "arg-parse.h"
#include "arg-table.h"
#include "cli-session.h"
#include "console.h"
#include "tool-spec.h"
#ifdef LLAMA_CLI_JSON_SCHEMA
#    include "json-schema-grammar.h"
#endif
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-cli";

static const char * k_usage =
    "usage: llama-cli -m MODEL [options]\n\n"
    "Without -p/-f: a chat on stdin. A line ending in '\\' continues on the next line; a line \"\"\"\n"
    "starts and ends a block of several lines. Commands: /exit (or /quit), /clear (new chat), /help.\n"
    "End of input ends the chat. With -p or -f: one reply (or, with -no-cnv, a plain completion) and exit.\n"
    "Colours are used only when stdout is a terminal and NO_COLOR is not set.\n"
    "exit status: 0 success, 1 usage error, 2 load or generation failure\n\n"
    "options (an environment variable is read when its option is not given):\n";

static void print_usage(FILE * out) {
    fputs(k_usage, out);
    tool::print_options(tool::TOOL_CLI, out);
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

// GBNF of a JSON schema; a usage error (with the converter's reason) when it cannot be converted.
static std::string schema_grammar(const tool::args & args, const std::string & schema) {
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
    tool::params p;
    tool::parse_or_exit(tool::TOOL_CLI, k_prog, argc, argv, p, k_usage);
    tool::args args(k_prog, argc, argv, print_usage);  // its fail() reports the checks below
    if (p.list_devices) {
        tool::llama_start(k_prog, p.verbose);
        tool::print_devices(stdout);
        llama_backend_free();
        return tool::EXIT_OK;
    }
    if (p.model.empty()) {
        args.fail("no model given (-m MODEL)");
    }
    if (p.n_constraints > 1) {
        args.fail("give only one of --grammar, --grammar-file, --json-schema and --json-schema-file");
    }
    const bool one_shot = p.prompt_given;
    const bool raw      = !p.conversation;
    if (raw && !one_shot) {
        args.fail("-no-cnv needs -p TEXT or -f FILE");
    }
    if (!p.prompt_cache.empty() && !one_shot) {
        args.fail("--prompt-cache needs -p TEXT or -f FILE");
    }
    if ((p.prompt_cache_all || p.prompt_cache_ro) && p.prompt_cache.empty()) {
        args.fail("--prompt-cache-all and --prompt-cache-ro need --prompt-cache FNAME");
    }
    const std::string   grammar       = p.json_schema.empty() ? p.grammar : schema_grammar(args, p.json_schema);
    const bool          json          = p.json;
    const bool          verbose       = p.verbose;
    const int           n_predict     = p.n_predict < 0 ? INT32_MAX : p.n_predict;  // -1: until the model ends it
    const std::string & system_prompt = p.system_prompt;
    const std::string & tmpl_arg      = p.chat_template;
    const std::string & prompt        = p.prompt;
    const bool          color         = !json && tool::use_color(stdout);
    const char *        c_user        = color ? "\033[32m" : "";
    const char *        c_reply       = color ? "\033[33m" : "";
    const char *        c_reset       = color ? "\033[0m" : "";

    tool::llama_start(k_prog, verbose);

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
    const llama_context_params cp  = tool::context_params(p, 1);
    llama_context *            ctx = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    if (!tool::apply_lora(model, ctx, p, why)) {
        llama_free(ctx);
        llama_model_free(model);
        fprintf(stderr, "%s: error: %s\n", k_prog, why.c_str());
        return tool::EXIT_RUNTIME;
    }
    const int           n_ctx = (int) llama_n_ctx(ctx);  // -c 0: the model's
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
    tool::speculative spec;
    if (!spec.start(p, ctx, 1, why)) {
        llama_sampler_free(grmr);
        llama_free(ctx);
        llama_model_free(model);
        fprintf(stderr, "%s: speculative decoding: %s\n", k_prog, why.c_str());
        return tool::EXIT_RUNTIME;
    }
    llama_sampler * smpl = cli::make_sampler(p.sampling, vocab, n_ctx);
    cli::session    chat(ctx, smpl, verbose);
    chat.set_grammar(grmr);
    chat.set_speculative(spec.get(), spec.settings().n_draft_max);
    if (!p.prompt_cache.empty()) {
        std::string adapters;  // the K/V the file holds depend on them
        for (const auto & l : p.lora) {
            adapters += l.path + ":" + std::to_string(l.scale) + ";";
        }
        chat.set_prompt_cache(p.prompt_cache, prompt_cache::make_fingerprint(model, cp, adapters), p.prompt_cache_all,
                              p.prompt_cache_ro);
    }
    const char * tmpl = tmpl_arg.empty() ? llama_model_chat_template(model, nullptr) : tmpl_arg.c_str();
    // the model's Jinja template runs as written (--no-jinja: the built-in formats, told from it)
    llama_chat_template * jinja = nullptr;
    if (p.jinja && tmpl && (strstr(tmpl, "{%") || strstr(tmpl, "{{"))) {
        char err[512] = "";
        jinja         = tmpl_arg.empty()
                            ? llama_chat_template_init_from_model(model, nullptr, err, sizeof err)
                            : llama_chat_template_init(tmpl, text_of(vocab, llama_vocab_bos(vocab)).c_str(),
                                                       text_of(vocab, llama_vocab_eos(vocab)).c_str(), err, sizeof err);
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
    spec.print_stats(stderr);
    spec.close();
    llama_sampler_free(smpl);
    llama_sampler_free(grmr);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
