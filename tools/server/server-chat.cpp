#include "server-chat.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace server {

namespace {

std::string token_text(const llama_vocab * vocab, llama_token t) {
    if (t == LLAMA_TOKEN_NULL || t < 0 || t >= llama_vocab_n_tokens(vocab)) {
        return "";
    }
    const char * s = llama_vocab_get_text(vocab, t);
    return s ? s : "";
}

bool looks_like_jinja(const std::string & s) {
    return s.find("{%") != std::string::npos || s.find("{{") != std::string::npos;
}

json delta_json(const llama_tools::chat_msg_delta & d, const llama_tools::chat_msg & msg) {
    json j = json::object();
    if (d.tool_call_index >= 0) {
        json call = {{"index", d.tool_call_index}};
        if (!d.tool_call_name.empty()) {
            const auto & tc  = msg.tool_calls[(size_t) d.tool_call_index];
            call["id"]       = tc.id.empty() ? "call_" + std::to_string(d.tool_call_index) : tc.id;
            call["type"]     = "function";
            call["function"] = {{"name", d.tool_call_name}, {"arguments", d.tool_call_arguments}};
        } else {
            call["function"] = {{"arguments", d.tool_call_arguments}};
        }
        j["tool_calls"] = json::array({call});
    }
    if (!d.content.empty()) {
        j["content"] = d.content;
    }
    if (!d.reasoning_content.empty()) {
        j["reasoning_content"] = d.reasoning_content;
    }
    return j;
}

json deltas(const llama_tools::chat_msg & before, const llama_tools::chat_msg & after) {
    json out = json::array();
    for (const auto & d : llama_tools::diff(before, after)) {
        out.push_back(delta_json(d, after));
    }
    return out;
}

}  // namespace

chat_renderer::chat_renderer(const llama_model * model, const std::string & tmpl_arg, bool use_jinja) {
    const llama_vocab * vocab = llama_model_get_vocab(model);
    bos_text_                 = token_text(vocab, llama_vocab_bos(vocab));
    std::string source;
    if (tmpl_arg.empty()) {
        const char * t = llama_model_chat_template(model, nullptr);
        source         = t ? t : "";
        builtin_       = t;
    } else {
        source       = tmpl_arg;
        builtin_arg_ = tmpl_arg;
        builtin_     = builtin_arg_.c_str();
    }
    source_ = source;
    if (use_jinja && looks_like_jinja(source)) {
        char err[512] = "";
        tmpl_         = llama_chat_template_init(source.c_str(), bos_text_.c_str(),
                                                 token_text(vocab, llama_vocab_eos(vocab)).c_str(), err, sizeof err);
        if (!tmpl_) {
            fprintf(stderr,
                    "llama-server: warning: the Jinja chat template does not parse (%s); using the built-in formats\n",
                    err);
        } else {
            fmt_ = llama_tools::detect_chat_format(source);
            // a template that writes a reasoning block (of any family) lets the model reason first
            for (const char * m : {"<think>", "[THINK]", "<|START_THINKING|>", "<|channel|>analysis"}) {
                reasons_ = reasons_ || source.find(m) != std::string::npos;
            }
        }
    }
    if (!tmpl_) {
        // a template llama_chat_apply_template does not know would fail every chat request: use chatml
        const llama_chat_message probe = {"user", "hi"};
        char                     buf[16];
        if (builtin_ != nullptr && llama_chat_apply_template(builtin_, &probe, 1, true, buf, sizeof(buf)) < 0) {
            fprintf(stderr, "llama-server: warning: chat template not supported, using chatml\n");
            builtin_ = nullptr;
        }
    }
}

chat_renderer::~chat_renderer() {
    llama_chat_template_free(tmpl_);
}

void chat_renderer::apply(const json & body, const llama_vocab * vocab, completion_request & cr) const {
    auto it = body.find("messages");
    if (it == body.end() || !it->is_array() || it->empty()) {
        throw bad_request("'messages' must be a non-empty array");
    }
    for (const auto & m : *it) {
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
            throw bad_request("each message must be an object with a string 'role'");
        }
        if (m.contains("content")) {
            content_text(m["content"]);  // checks the shape
        }
    }
    std::string tool_choice = "auto";
    if (auto tc = body.find("tool_choice"); tc != body.end() && !tc->is_null()) {
        if (tc->is_string()) {
            tool_choice = tc->get<std::string>();
            if (tool_choice != "auto" && tool_choice != "none" && tool_choice != "required") {
                throw bad_request(
                    "'tool_choice' must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", ...}");
            }
        } else if (tc->is_object() && tc->contains("function") && (*tc)["function"].is_object() &&
                   (*tc)["function"].contains("name") && (*tc)["function"]["name"].is_string()) {
            tool_choice = (*tc)["function"]["name"].get<std::string>();
        } else {
            throw bad_request(
                "'tool_choice' must be a string or {\"type\": \"function\", \"function\": {\"name\": ...}}");
        }
    }
    bool parallel = true;
    if (auto p = body.find("parallel_tool_calls"); p != body.end() && !p->is_null()) {
        if (!p->is_boolean()) {
            throw bad_request("'parallel_tool_calls' must be a boolean");
        }
        parallel = p->get<bool>();
    }
    json tools;
    if (auto t = body.find("tools"); t != body.end() && !t->is_null()) {
        if (!t->is_array()) {
            throw bad_request("'tools' must be an array");
        }
        for (const auto & tool : *t) {
            if (!tool.is_object() || !tool.contains("function") || !tool["function"].is_object() ||
                !tool["function"].contains("name") || !tool["function"]["name"].is_string()) {
                throw bad_request("each tool must be {\"type\": \"function\", \"function\": {\"name\": ...}}");
            }
        }
        if (!t->empty()) {
            tools = *t;
        }
    }

    if (!tmpl_) {
        if (!tools.is_null() && tool_choice != "none") {
            throw bad_request("'tools' need the model's Jinja chat template (start the server with --jinja)");
        }
        std::vector<std::string> roles, contents;
        for (const auto & m : *it) {
            roles.push_back(m["role"].get<std::string>());
            contents.push_back(content_text(m.contains("content") ? m["content"] : json()));
        }
        std::vector<llama_chat_message> msgs;
        for (size_t i = 0; i < roles.size(); i++) {
            msgs.push_back({roles[i].c_str(), contents[i].c_str()});
        }
        std::vector<char> buf(4096);
        int32_t           n =
            llama_chat_apply_template(builtin_, msgs.data(), msgs.size(), true, buf.data(), (int32_t) buf.size());
        if (n > (int32_t) buf.size()) {
            buf.resize((size_t) n + 1);
            n = llama_chat_apply_template(builtin_, msgs.data(), msgs.size(), true, buf.data(), (int32_t) buf.size());
        }
        if (n < 0) {
            throw std::runtime_error("the model's chat template is not supported");
        }
        cr.prompt.assign(buf.data(), (size_t) n);
        return;
    }

    json extra = json::object();
    if (auto k = body.find("chat_template_kwargs"); k != body.end() && !k->is_null()) {
        if (!k->is_object()) {
            throw bad_request("'chat_template_kwargs' must be an object");
        }
        extra = *k;
    }
    if (auto r = body.find("reasoning_effort");
        r != body.end() && r->is_string() && !extra.contains("reasoning_effort")) {
        extra["reasoning_effort"] = *r;
    }
    const std::string msgs_json  = it->dump();
    const bool        with_tools = !tools.is_null() && tool_choice != "none";
    const std::string tools_json = with_tools ? tools.dump() : "";
    const std::string extra_json = extra.dump();
    {
        std::lock_guard<std::mutex> lock(mu_);
        llama_chat_template_inputs  in = llama_chat_template_default_inputs();
        in.messages_json               = msgs_json.c_str();
        in.tools_json                  = with_tools ? tools_json.c_str() : nullptr;
        in.extra_context_json          = extra_json.c_str();
        in.add_generation_prompt       = true;
        const char * out               = llama_chat_template_render(tmpl_, &in);
        if (!out) {
            throw bad_request(std::string("the chat template failed: ") + llama_chat_template_last_error(tmpl_));
        }
        cr.prompt = out;
    }
    // the template wrote BOS itself: do not add a second one when tokenizing
    cr.add_special = bos_text_.empty() || cr.prompt.compare(0, bos_text_.size(), bos_text_) != 0;

    cr.parse                  = true;
    cr.fmt                    = fmt_;
    cr.popts                  = llama_tools::chat_parse_options();
    cr.popts.parse_tool_calls = with_tools;
    cr.popts.tools_json       = tools_json;
    // a prompt that ends inside an opened reasoning block: the output starts in it
    std::string tail = cr.prompt.substr(cr.prompt.size() > 64 ? cr.prompt.size() - 64 : 0);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) {
        tail.pop_back();
    }
    cr.popts.thinking_forced_open = tail.size() >= 7 && tail.compare(tail.size() - 7, 7, "<think>") == 0;

    if (with_tools && fmt_ != llama_tools::chat_format::content_only && fmt_ != llama_tools::chat_format::think) {
        if (!cr.sampling.grammar.empty()) {
            throw bad_request("give either 'tools' or a grammar / 'response_format', not both");
        }
        try {
            auto g                       = llama_tools::build_tool_call_grammar(fmt_, tools_json, tool_choice, parallel,
                                                          cr.popts.thinking_forced_open
                                                                                    ? llama_tools::chat_thinking::forced_open
                                                                                : reasons_ ? llama_tools::chat_thinking::optional
                                                                                           : llama_tools::chat_thinking::none);
            cr.sampling.grammar          = g.grammar;
            cr.sampling.grammar_lazy     = g.lazy;
            cr.sampling.grammar_triggers = g.trigger_patterns;
        } catch (const std::exception & e) {
            throw bad_request(std::string("'tools': ") + e.what());
        }
        std::vector<const char *> pats;
        for (const auto & p : cr.sampling.grammar_triggers) {
            pats.push_back(p.c_str());
        }
        llama_sampler * g = cr.sampling.grammar_lazy
                                ? llama_sampler_init_grammar_lazy_patterns(vocab, cr.sampling.grammar.c_str(), "root",
                                                                           pats.data(), pats.size(), nullptr, 0)
                                : llama_sampler_init_grammar(vocab, cr.sampling.grammar.c_str(), "root");
        if (!g) {
            throw bad_request(std::string("cannot build the tool-call grammar: ") + llama_last_error());
        }
        llama_sampler_free(g);
    } else if (with_tools && tool_choice != "auto") {
        throw bad_request("'tool_choice' \"" + tool_choice + "\": the model's chat template has no tool-call format");
    }
}

void choice_parser::init(const completion_request & cr) {
    if (cr.parse) {
        parser = std::make_unique<llama_tools::chat_parser>(cr.fmt, cr.popts);
    }
}

json choice_parser::feed(const std::string & text) {
    if (!parser) {
        return text.empty() ? json::array() : json::array({{{"content", text}}});
    }
    parser->feed(text);
    llama_tools::chat_msg now = parser->partial();
    json                  out = deltas(last, now);
    last                      = std::move(now);
    return out;
}

json choice_parser::finish_deltas() {
    if (!parser) {
        return json::array();
    }
    llama_tools::chat_msg fin = parser->finish();
    json                  out = deltas(last, fin);
    last                      = std::move(fin);
    return out;
}

json choice_parser::message(const completion_request & cr, const std::string & text, bool & has_calls) {
    has_calls = false;
    if (!cr.parse) {
        return {{"role", "assistant"}, {"content", text}};
    }
    llama_tools::chat_parser p(cr.fmt, cr.popts);
    p.feed(text);
    llama_tools::chat_msg m   = p.finish();
    json                  msg = {{"role", "assistant"}};
    msg["content"]            = m.tool_calls.empty() || !m.content.empty() ? json(m.content) : json(nullptr);
    if (!m.reasoning_content.empty()) {
        msg["reasoning_content"] = m.reasoning_content;
    }
    if (!m.tool_calls.empty()) {
        has_calls  = true;
        json calls = json::array();
        for (size_t i = 0; i < m.tool_calls.size(); i++) {
            const auto & tc = m.tool_calls[i];
            calls.push_back({{"id", tc.id.empty() ? "call_" + std::to_string(i) : tc.id},
                             {"type", "function"},
                             {"function", {{"name", tc.name}, {"arguments", tc.arguments}}}});
        }
        msg["tool_calls"] = calls;
    }
    return msg;
}

}  // namespace server
