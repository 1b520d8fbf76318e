// The Jinja chat template C API: rendering conversations with tools, tool results, reasoning and
// extra variables; the model's own template and BOS/EOS; and every error being a message (syntax,
// raise_exception, malformed JSON, the sandbox's limits), never a crash. Byte-equality with the
// reference Jinja2 over a corpus is test-jinja-conformance's job.
#include <gtest/gtest.h>

#include <string>

#include "llama.h"
#include "test-common.h"

namespace {

struct tmpl_holder {
    llama_chat_template * t = nullptr;
    std::string           err;
    explicit tmpl_holder(const std::string & src, const char * bos = "<s>", const char * eos = "</s>") {
        char buf[512] = "unset";
        t             = llama_chat_template_init(src.c_str(), bos, eos, buf, sizeof buf);
        err           = buf;
    }
    ~tmpl_holder() { llama_chat_template_free(t); }
};

// Renders; "<error: message>" when rendering fails.
std::string render(llama_chat_template * t, const char * messages, const char * tools = nullptr,
                   const char * extra = nullptr, bool add_gen = false, int64_t now = 1733259000) {
    llama_chat_template_inputs in = llama_chat_template_default_inputs();
    in.messages_json              = messages;
    in.tools_json                 = tools;
    in.extra_context_json         = extra;
    in.add_generation_prompt      = add_gen;
    in.now                        = now;
    const char * out              = llama_chat_template_render(t, &in);
    if (!out) {
        return std::string("<error: ") + llama_chat_template_last_error(t) + ">";
    }
    EXPECT_STREQ(llama_chat_template_last_error(t), "");
    return out;
}

// A ChatML-like template with tools, tool calls, tool results and reasoning, written for this test.
const char * k_tool_template = R"({%- if tools %}
<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}

{% endif %}Tools:
{% for t in tools %}{{ t.function | tojson }}
{% endfor %}<|im_end|>
{% elif messages[0].role == 'system' %}
<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif %}
{%- for m in messages if m.role != 'system' %}
<|im_start|>{{ m.role }}
{% if m.reasoning_content and enable_thinking %}<think>{{ m.reasoning_content }}</think>
{% endif %}
{%- if m.content is string %}{{ m.content }}{% endif %}
{%- for c in m.tool_calls | default([]) %}<tool_call>{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}</tool_call>{% endfor %}
{%- if m.role == 'tool' %} (for {{ m.tool_call_id }}){% endif %}<|im_end|>
{% endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %})";

const char * k_conv = R"([
  {"role": "system", "content": "Be brief."},
  {"role": "user", "content": "Weather in Paris?"},
  {"role": "assistant", "content": "", "reasoning_content": "call the tool",
   "tool_calls": [{"id": "c1", "type": "function",
                   "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"days\": 2}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "21 C"}
])";

const char * k_tools = R"([{"type": "function", "function": {"name": "get_weather", "description": "Weather",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}])";

TEST(ChatTemplate, RendersToolsCallsResultsAndReasoning) {
    tmpl_holder h(k_tool_template);
    ASSERT_NE(h.t, nullptr) << h.err;
    EXPECT_EQ(h.err, "");
    const std::string out = render(h.t, k_conv, k_tools, R"({"enable_thinking": true})", true);
    // arguments given as JSON text reach the template as an object (tojson writes it back with
    // Python's separators); the system message moves into the tools block
    EXPECT_EQ(out,
              "<|im_start|>system\nBe brief.\n\nTools:\n"
              "{\"name\": \"get_weather\", \"description\": \"Weather\", \"parameters\": {\"type\": \"object\", "
              "\"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}\n<|im_end|>\n"
              "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
              "<|im_start|>assistant\n<think>call the tool</think>\n"
              "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}</tool_call>"
              "<|im_end|>\n"
              "<|im_start|>tool\n21 C (for c1)<|im_end|>\n"
              "<|im_start|>assistant\n");
    // without tools and with thinking off: the plain system block, no reasoning
    const std::string plain = render(h.t, k_conv, nullptr, R"({"enable_thinking": false})", false);
    EXPECT_EQ(plain.rfind("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n", 0), 0u) << plain;
    EXPECT_EQ(plain.find("<think>"), std::string::npos);
}

TEST(ChatTemplate, BosEosDatesAndExtraVariables) {
    tmpl_holder h(
        "{{ bos_token }}[{{ strftime_now('%d %b %Y %H:%M') }}][{{ date_string | default('none') }}]"
        "{{ messages | length }}{{ eos_token }}");
    ASSERT_NE(h.t, nullptr) << h.err;
    EXPECT_EQ(render(h.t, "[]", nullptr, nullptr, false, 1733259000), "<s>[03 Dec 2024 20:50][none]0</s>");
    EXPECT_EQ(render(h.t, R"([{"role":"user","content":"x"}])", nullptr, R"({"date_string": "1 Jan"})"),
              "<s>[03 Dec 2024 20:50][1 Jan]1</s>");
}

TEST(ChatTemplate, ContentPartsFollowWhatTheTemplateReads) {
    const char * msgs = R"([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"},
                                                         {"type": "text", "text": "b"}]}])";
    // a template written for strings gets the text parts joined
    tmpl_holder str_tmpl("{% for m in messages %}{{ m.role }}: {{ m.content | trim }}|{% endfor %}");
    ASSERT_NE(str_tmpl.t, nullptr);
    EXPECT_EQ(render(str_tmpl.t, msgs), "user: a\nb|");
    // a template that iterates parts sees them as given
    tmpl_holder parts_tmpl(
        "{% for m in messages %}{% for p in m.content %}[{{ p.type }}{% if p.text %}:{{ p.text }}"
        "{% endif %}]{% endfor %}{% endfor %}");
    ASSERT_NE(parts_tmpl.t, nullptr);
    EXPECT_EQ(render(parts_tmpl.t, msgs), "[text:a][image][text:b]");
}

TEST(ChatTemplate, SyntaxErrorsNameTheLine) {
    const char * bad[] = {
        "line one\n{% if x %}\n{{ x + }}\n{% endif %}",
        "{% for x in y %}never closed",
        "{{ unterminated",
        "{% endif %}",
        "{{ 'str }}",
        "{% set %}",
        "{% include 'other.j2' %}",
    };
    // parentheses nested past the parser's depth bound
    const std::string deep = "{{ " + std::string(200, '(') + "1" + std::string(200, ')') + " }}";
    {
        tmpl_holder h(deep);
        EXPECT_EQ(h.t, nullptr);
        EXPECT_NE(h.err.find("nesting deeper"), std::string::npos) << h.err;
    }
    for (const char * src : bad) {
        tmpl_holder h(src);
        EXPECT_EQ(h.t, nullptr) << src;
        EXPECT_NE(h.err.find("chat template: "), std::string::npos) << h.err;
    }
    tmpl_holder h("line one\n{% if x %}\n{{ x + }}\n{% endif %}");
    EXPECT_NE(h.err.find("line 3"), std::string::npos) << h.err;
    EXPECT_EQ(llama_chat_template_init(nullptr, nullptr, nullptr, nullptr, 0), nullptr);
}

TEST(ChatTemplate, RenderErrorsAreMessagesAndTheTemplateStaysUsable) {
    tmpl_holder h(
        "{% if messages[0].role != 'user' %}{{ raise_exception('first message must be user') }}"
        "{% endif %}ok:{{ messages[0].content }}");
    ASSERT_NE(h.t, nullptr);
    EXPECT_EQ(render(h.t, R"([{"role":"system","content":"s"}])"),
              "<error: raise_exception: first message must be user>");
    EXPECT_EQ(render(h.t, R"([{"role":"user","content":"u"}])"), "ok:u");
    // malformed inputs
    EXPECT_NE(render(h.t, "[{\"role\": ").find("<error: invalid JSON"), std::string::npos);
    EXPECT_NE(render(h.t, "{}").find("must be a JSON array"), std::string::npos);
    EXPECT_NE(render(h.t, "[1]").find("must be a JSON object"), std::string::npos);
    EXPECT_NE(render(h.t, "[]", "{}").find("tools_json must be a JSON array"), std::string::npos);
    EXPECT_NE(render(h.t, "[]", nullptr, "[]").find("extra_context_json must be a JSON object"), std::string::npos);
    llama_chat_template_inputs in = llama_chat_template_default_inputs();
    EXPECT_EQ(llama_chat_template_render(h.t, &in), nullptr);  // no messages
    EXPECT_EQ(llama_chat_template_render(h.t, nullptr), nullptr);
    EXPECT_EQ(llama_chat_template_render(nullptr, &in), nullptr);
    // type errors
    tmpl_holder types("{{ messages[0].content + 1 }}");
    EXPECT_NE(render(types.t, R"([{"role":"user","content":"u"}])").find("unsupported operand"), std::string::npos);
    tmpl_holder undef("{{ nothing.attr }}");
    EXPECT_NE(render(undef.t, "[]").find("'nothing' is undefined"), std::string::npos);
    // unknown filters fail where they are used (Jinja2 defers them too when they sit in a branch)
    tmpl_holder nofilter("{% if messages %}{{ x | no_such_filter }}{% endif %}ok");
    EXPECT_EQ(render(nofilter.t, "[]"), "ok");
    EXPECT_NE(render(nofilter.t, R"([{"role": "user"}])").find("no filter named 'no_such_filter'"), std::string::npos);
    tmpl_holder unsafe("{% set l = [] %}{{ l.append(1) }}");
    EXPECT_NE(render(unsafe.t, "[]").find("unsafe"), std::string::npos);
}

TEST(ChatTemplate, SandboxLimitsEndRunawayTemplates) {
    struct limit_case {
        const char * src;
        const char * message;
    } cases[] = {
        {"{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "steps"},
        {"{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "output exceeds"},
        {"{{ 'x' * 100000000000 }}", "exceeds"},
        {"{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}", "nested deeper"},
        {"{{ range(10000000000) | length }}", "too large"},
        {"{% set ns = namespace(x=1) %}{% set ns.x = [ns] %}", "cannot contain itself"},
        {"{{ 9223372036854775807 + 1 }}", "overflow"},
        {"{{ 1 // 0 }}", "by zero"},
    };
    for (const auto & c : cases) {
        tmpl_holder h(c.src);
        ASSERT_NE(h.t, nullptr) << c.src << ": " << h.err;
        const std::string out = render(h.t, "[]");
        EXPECT_NE(out.find(c.message), std::string::npos) << c.src << " -> " << out.substr(0, 200);
    }
}

TEST(ChatTemplate, ModelTemplateWithItsBosAndEos) {
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only         = true;
    llama_model * model =
        llama_model_load_from_file(testing_util::data_path("vocab/ggml-vocab-llama-bpe.gguf").c_str(), mp);
    ASSERT_NE(model, nullptr);
    char                  err[256];
    llama_chat_template * t = llama_chat_template_init_from_model(model, nullptr, err, sizeof err);
    ASSERT_NE(t, nullptr) << err;
    EXPECT_STREQ(llama_chat_template_source(t), llama_model_chat_template(model, nullptr));
    const std::string out =
        render(t, R"([{"role":"system","content":"S"},{"role":"user","content":"Hi"}])", nullptr, nullptr, true);
    EXPECT_EQ(
        out,
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    llama_chat_template_free(t);
    EXPECT_EQ(llama_chat_template_init_from_model(model, "no-such-name", err, sizeof err), nullptr);
    EXPECT_NE(std::string(err).find("no chat template named no-such-name"), std::string::npos) << err;
    EXPECT_EQ(llama_chat_template_init_from_model(nullptr, nullptr, nullptr, 0), nullptr);
    llama_model_free(model);
}

}  // namespace
