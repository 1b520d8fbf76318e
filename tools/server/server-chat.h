// Chat requests through the model's own Jinja template (--jinja, the default): the OpenAI messages,
// tools and chat_template_kwargs rendered by llama_chat_template_render, the tool-call grammar of
// the template's output format, and the parsing of each choice's text back into content,
// reasoning_content and tool_calls (whole or as streaming deltas). Without a usable Jinja template
// the built-in formats of llama_chat_apply_template are used and the text is returned as is.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "chat-format.h"
#include "llama.h"
#include "server-params.h"

namespace server {

class chat_renderer {
public:
    // tmpl_arg: --chat-template (a built-in name or Jinja source); empty: the model's template.
    chat_renderer(const llama_model * model, const std::string & tmpl_arg, bool use_jinja);
    ~chat_renderer();
    chat_renderer(const chat_renderer &)             = delete;
    chat_renderer & operator=(const chat_renderer &) = delete;

    // Fills cr.prompt (and, with the Jinja template, the tool grammar and the output parsing) from
    // the body's messages, tools, tool_choice, parallel_tool_calls and chat_template_kwargs.
    // Throws bad_request.
    void apply(const json & body, const llama_vocab * vocab, completion_request & cr) const;

    bool jinja() const { return tmpl_ != nullptr; }
    // The template text in use: --chat-template's value or the model's (empty: none, chatml).
    const std::string &      source() const { return source_; }
    llama_tools::chat_format format() const { return fmt_; }

private:
    llama_chat_template *    tmpl_    = nullptr;  // the Jinja template, or NULL: builtin_ is used
    const char *             builtin_ = nullptr;
    std::string              builtin_arg_;
    std::string              source_;
    std::string              bos_text_;
    llama_tools::chat_format fmt_     = llama_tools::chat_format::content_only;
    bool                     reasons_ = false;  // the template has a reasoning block
    mutable std::mutex       mu_;               // a llama_chat_template renders one request at a time
};

// Per choice: the parser of its generated text (see chat_renderer::apply).
struct choice_parser {
    std::unique_ptr<llama_tools::chat_parser> parser;  // NULL: the text is plain content
    llama_tools::chat_msg                     last;    // what was already streamed

    void init(const completion_request & cr);
    // Streaming: the OpenAI deltas for a new piece of text (several when the parser releases more).
    json feed(const std::string & text);
    // The deltas of what the end resolves, and the final message fields.
    json finish_deltas();
    // Non-streamed: the message object for the whole text.
    static json message(const completion_request & cr, const std::string & text, bool & has_calls);
    bool        has_calls() const { return !last.tool_calls.empty(); }
};

}  // namespace server
