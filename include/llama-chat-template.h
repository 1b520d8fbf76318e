#ifndef LLAMA_CHAT_TEMPLATE_H
#define LLAMA_CHAT_TEMPLATE_H

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * llama-chat-template.h - libllama's Jinja chat templates (part of the public C API; llama.h
 * includes it, so a program includes llama.h only): a model's own template
 * (tokenizer.chat_template), executed.
 *
 * The engine implements the Jinja2 language as Hugging Face transformers runs chat templates
 * (trim_blocks, lstrip_blocks, loop controls, `raise_exception`, `strftime_now`, a `tojson` that
 * keeps key order and writes ", " / ": " separators without escaping non-ASCII); docs/chat.md lists
 * the statements, filters, tests and methods. It is sandboxed: no file or attribute access beyond
 * data, output at most 64 MiB, at most 2 million evaluation steps (statements, loop iterations,
 * calls), nesting (macros, recursion) at most 256 deep. Any error - a syntax error, `raise_exception`, a type error, a limit - is a
 * message, never a crash.
 */
struct llama_chat_template; /* a parsed template; immutable after init, one render at a time */

struct llama_chat_template_inputs {
    /* Required: JSON array of messages as OpenAI's chat API writes them: {"role", "content"} where
     * content is a string, null or an array of parts ({"type": "text", "text": ...}); assistant
     * messages may carry "tool_calls" ([{"id", "type": "function", "function": {"name",
     * "arguments"}}], arguments a JSON object or a string holding one - a string is parsed so
     * templates see an object) and "reasoning_content"; tool results are {"role": "tool",
     * "tool_call_id", "content"}. Other members are passed through to the template untouched,
     * except content parts for a template that reads content only as a string (told by a probe
     * render at init): their text parts are joined with "\n". */
    const char * messages_json;
    /* JSON array of tool definitions ({"type": "function", "function": {"name", "description",
     * "parameters"}}), the template's `tools`; NULL = undefined in the template. */
    const char * tools_json;
    /* JSON object whose members become template variables (enable_thinking, reasoning_effort,
     * date_string, ...); they override the defaults below. NULL = none. */
    const char * extra_context_json;
    /* End with the opening of an assistant turn (the template's add_generation_prompt). */
    bool add_generation_prompt;
    /* Seconds since the Unix epoch that strftime_now() formats (UTC); 0 = the current time. */
    int64_t now;
};

/* Defaults: everything NULL/false/0. */
LLAMA_API struct llama_chat_template_inputs llama_chat_template_default_inputs(void);

/*
 * Parses a Jinja template. bos_token / eos_token are the texts the template sees as `bos_token`
 * and `eos_token` (NULL = ""). Returns NULL on a syntax error or NULL source; the message (with
 * line and column) goes to the log and, if err is not NULL, into err (at most err_len bytes,
 * NUL-terminated). Free the result with llama_chat_template_free.
 */
LLAMA_API struct llama_chat_template * llama_chat_template_init(const char * source, const char * bos_token,
                                                                const char * eos_token, char * err,
                                                                size_t err_len);

/* The model's template (name NULL = the default one, else tokenizer.chat_template.<name>) with the
 * model's BOS/EOS texts. NULL if the model has no such template or it does not parse (message as
 * above). */
LLAMA_API struct llama_chat_template * llama_chat_template_init_from_model(const struct llama_model * model,
                                                                           const char * name, char * err,
                                                                           size_t err_len);

LLAMA_API void llama_chat_template_free(struct llama_chat_template * tmpl);

/*
 * Renders the template over the inputs. Returns the prompt, NUL-terminated, owned by tmpl and valid
 * until the next render or free; NULL on error (malformed JSON input, raise_exception, a type
 * error, a limit): the message is in llama_chat_template_last_error. Variables the template sees:
 * messages, tools, add_generation_prompt, bos_token, eos_token, the functions raise_exception(msg)
 * and strftime_now(format), and the members of extra_context_json.
 */
LLAMA_API const char * llama_chat_template_render(struct llama_chat_template *              tmpl,
                                                  const struct llama_chat_template_inputs * inputs);

/* The message of the last failed render ("" after a successful one); owned by tmpl. */
LLAMA_API const char * llama_chat_template_last_error(const struct llama_chat_template * tmpl);

/* The template's source text; owned by tmpl. */
LLAMA_API const char * llama_chat_template_source(const struct llama_chat_template * tmpl);

#ifdef __cplusplus
}
#endif

#endif /* LLAMA_CHAT_TEMPLATE_H */
