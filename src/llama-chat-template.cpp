// llama_chat_template_*: a model's Jinja chat template run by the engine in src/jinja/, with the
// conversation given as OpenAI-style JSON.
#include "jinja/jinja.h"
#include "llama-log.h"
#include "llama.h"

#include <cstring>
#include <ctime>
#include <memory>
#include <string>

struct llama_chat_template {
    std::string                                  source;
    std::string                                  bos, eos;
    std::unique_ptr<jinja::chat_template_engine> engine;
    bool                                         typed_content = true;  // the template reads content parts
    std::string                                  output;
    std::string                                  last_error;
};

namespace {

void copy_error(const std::string & msg, char * err, size_t err_len) {
    if (err && err_len > 0) {
        size_t n = std::min(msg.size(), err_len - 1);
        memcpy(err, msg.data(), n);
        err[n] = '\0';
    }
}

// Templates written for string content print a list of parts as Python's repr; those get the
// text parts joined instead (as llama.cpp does for them). Whether a template reads parts is found
// by rendering a probe.
bool probe_typed_content(const jinja::chat_template_engine & engine, const std::string & bos, const std::string & eos) {
    const char * marker = "lLaMa-PrObE-7f3a";
    jinja::value msg    = jinja::value::make_dict();
    msg.d->set("role", jinja::value("user"));
    jinja::value part = jinja::value::make_dict();
    part.d->set("type", jinja::value("text"));
    part.d->set("text", jinja::value(marker));
    msg.d->set("content", jinja::value::make_list({ part }));
    jinja::value ctx = jinja::value::make_dict();
    ctx.d->set("messages", jinja::value::make_list({ msg }));
    ctx.d->set("add_generation_prompt", jinja::value(false));
    ctx.d->set("bos_token", jinja::value(bos));
    ctx.d->set("eos_token", jinja::value(eos));
    try {
        std::string out = engine.render(ctx, 0);
        return out.find(marker) != std::string::npos && out.find("'type'") == std::string::npos;
    } catch (const jinja::error &) {
        return false;
    }
}

// messages as templates expect them: tool-call arguments given as JSON text become objects;
// content parts flattened to text for templates that only read strings.
void normalize_messages(jinja::value & messages, bool typed_content) {
    if (!messages.is_list()) {
        throw jinja::error("messages_json must be a JSON array");
    }
    for (auto & m : *messages.l) {
        if (!m.is_dict()) {
            throw jinja::error("every message must be a JSON object");
        }
        if (const jinja::value * calls = m.d->find("tool_calls"); calls && calls->is_list()) {
            for (auto & c : *calls->l) {
                if (!c.is_dict()) {
                    continue;
                }
                const jinja::value * fn = c.d->find("function");
                if (!fn || !fn->is_dict()) {
                    continue;
                }
                const jinja::value * args = fn->d->find("arguments");
                if (args && args->is_string()) {
                    try {
                        jinja::value parsed = jinja::from_json(args->s);
                        fn->d->set("arguments", parsed);
                    } catch (const jinja::error &) {
                        // not JSON: the template sees the text as given
                    }
                }
            }
        }
        const jinja::value * content = m.d->find("content");
        if (!typed_content && content && content->is_list()) {
            std::string text;
            for (const auto & part : *content->l) {
                const jinja::value * type = part.is_dict() ? part.d->find("type") : nullptr;
                const jinja::value * t    = part.is_dict() ? part.d->find("text") : nullptr;
                if (type && type->is_string() && type->s == "text" && t && t->is_string()) {
                    if (!text.empty()) {
                        text += "\n";
                    }
                    text += t->s;
                }
            }
            m.d->set("content", jinja::value(text));
        }
    }
}

llama_chat_template * make_template(const char * source, const std::string & bos, const std::string & eos, char * err,
                                    size_t err_len) {
    if (!source) {
        copy_error("source is NULL", err, err_len);
        llama_report_error("llama_chat_template_init", "source is NULL");
        return nullptr;
    }
    try {
        auto t    = std::make_unique<llama_chat_template>();
        t->source = source;
        t->bos    = bos;
        t->eos    = eos;
        t->engine = std::make_unique<jinja::chat_template_engine>(t->source);
        t->typed_content = probe_typed_content(*t->engine, bos, eos);
        copy_error("", err, err_len);
        return t.release();
    } catch (const std::exception & e) {
        std::string msg = std::string("chat template: ") + e.what();
        copy_error(msg, err, err_len);
        llama_report_error("llama_chat_template_init", msg.c_str());
        return nullptr;
    }
}

}  // namespace

struct llama_chat_template_inputs llama_chat_template_default_inputs(void) {
    llama_chat_template_inputs in;
    in.messages_json         = nullptr;
    in.tools_json            = nullptr;
    in.extra_context_json    = nullptr;
    in.add_generation_prompt = false;
    in.now                   = 0;
    return in;
}

struct llama_chat_template * llama_chat_template_init(const char * source, const char * bos_token,
                                                      const char * eos_token, char * err, size_t err_len) {
    return make_template(source, bos_token ? bos_token : "", eos_token ? eos_token : "", err, err_len);
}

struct llama_chat_template * llama_chat_template_init_from_model(const struct llama_model * model, const char * name,
                                                                 char * err, size_t err_len) {
    if (!model) {
        copy_error("model is NULL", err, err_len);
        llama_report_error(__func__, "model is NULL");
        return nullptr;
    }
    const char * src = llama_model_chat_template(model, name);
    if (!src) {
        std::string msg = std::string("the model has no chat template") + (name ? std::string(" named ") + name : "");
        copy_error(msg, err, err_len);
        llama_report_error(__func__, msg.c_str());
        return nullptr;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    auto text_of = [&](llama_token t) -> std::string {
        if (t == LLAMA_TOKEN_NULL || !vocab || t < 0 || t >= llama_vocab_n_tokens(vocab)) {
            return "";
        }
        const char * s = llama_vocab_get_text(vocab, t);
        return s ? s : "";
    };
    return make_template(src, text_of(llama_vocab_bos(vocab)), text_of(llama_vocab_eos(vocab)), err, err_len);
}

void llama_chat_template_free(struct llama_chat_template * tmpl) {
    delete tmpl;
}

const char * llama_chat_template_render(struct llama_chat_template * tmpl, const struct llama_chat_template_inputs * in) {
    if (!tmpl) {
        llama_report_error(__func__, "tmpl is NULL");
        return nullptr;
    }
    try {
        tmpl->last_error.clear();
        if (!in || !in->messages_json) {
            throw jinja::error("inputs->messages_json is required");
        }
        jinja::value ctx      = jinja::value::make_dict();
        jinja::value messages = jinja::from_json(in->messages_json);
        normalize_messages(messages, tmpl->typed_content);
        ctx.d->set("messages", messages);
        if (in->tools_json) {
            jinja::value tools = jinja::from_json(in->tools_json);
            if (!tools.is_list()) {
                throw jinja::error("tools_json must be a JSON array");
            }
            ctx.d->set("tools", tools);
        }
        ctx.d->set("add_generation_prompt", jinja::value(in->add_generation_prompt));
        ctx.d->set("bos_token", jinja::value(tmpl->bos));
        ctx.d->set("eos_token", jinja::value(tmpl->eos));
        if (in->extra_context_json) {
            jinja::value extra = jinja::from_json(in->extra_context_json);
            if (!extra.is_dict()) {
                throw jinja::error("extra_context_json must be a JSON object");
            }
            for (const auto & kv : extra.d->items) {
                ctx.d->set(kv.first, kv.second);
            }
        }
        int64_t now  = in->now != 0 ? in->now : (int64_t) time(nullptr);
        tmpl->output = tmpl->engine->render(ctx, now);
        return tmpl->output.c_str();
    } catch (const std::exception & e) {
        tmpl->last_error = e.what();
        tmpl->output.clear();
        llama_report_error(__func__, e.what());
        return nullptr;
    }
}

const char * llama_chat_template_last_error(const struct llama_chat_template * tmpl) {
    return tmpl ? tmpl->last_error.c_str() : "tmpl is NULL";
}

const char * llama_chat_template_source(const struct llama_chat_template * tmpl) {
    return tmpl ? tmpl->source.c_str() : nullptr;
}
