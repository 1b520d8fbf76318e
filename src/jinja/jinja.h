// The Jinja template engine behind llama_chat_template_* (llama-chat-template.cpp): Jinja2 as
// Hugging Face transformers runs chat templates, sandboxed and bounded. docs/chat.md lists what
// it implements.
#pragma once

#include "jinja-ast.h"
#include "jinja-eval.h"
#include "jinja-value.h"

#include <string>

namespace jinja {

class chat_template_engine {
  public:
    // Parses source; throws error ("line L: ...") on a syntax error.
    explicit chat_template_engine(const std::string & source);

    // Renders with the members of the dict `context` as variables, the globals (range, dict,
    // namespace, raise_exception, strftime_now formatting `now`) under them. Throws error.
    std::string render(const value & context, int64_t now, const limits & lim = {}) const;

  private:
    body_t body_;
};

// Parse + render with the variables of a JSON object (for harnesses). Throws error.
std::string render_json(const std::string & source, const std::string & context_json, int64_t now);

}  // namespace jinja
