// Chat templates: every built-in format on one conversation, detection from Jinja snippets of
// published templates, and the buffer contract of llama_chat_apply_template.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "gguf.h"
#include "llama.h"
#include "test-common.h"

namespace {

// system, user, assistant (with surrounding spaces: shows which formats trim), user
const std::vector<llama_chat_message> k_chat = {
    {"system", "You are a helpful assistant"},
    {"user", "Hello"},
    {"assistant", "  Hi there  "},
    {"user", "Who are you"},
};

// Formats k_chat with tmpl; "<error N>" when the call fails.
std::string format(const char * tmpl, bool add_ass, const std::vector<llama_chat_message> & chat = k_chat) {
    const int32_t n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), add_ass, nullptr, 0);
    if (n < 0) {
        return "<error " + std::to_string(n) + ">";
    }
    std::vector<char> buf((size_t) n + 1, '\x7f');
    const int32_t     m = llama_chat_apply_template(tmpl, chat.data(), chat.size(), add_ass, buf.data(), n + 1);
    EXPECT_EQ(m, n);
    EXPECT_EQ(buf[n], '\0');
    return std::string(buf.data(), (size_t) n);
}

struct expected_format {
    const char * name;
    const char * base;       // add_ass = false
    const char * assistant;  // appended when add_ass = true ("" if the format ignores add_ass)
};

// Written out by hand from each family's published format (BOS never included).
const expected_format k_expected[] = {
    {"chatml",
     "<|im_start|>system\nYou are a helpful assistant<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n"
     "<|im_start|>assistant\n  Hi there  <|im_end|>\n<|im_start|>user\nWho are you<|im_end|>\n",
     "<|im_start|>assistant\n"},
    {"llama2", "[INST] You are a helpful assistant\nHello [/INST]  Hi there  </s>[INST] Who are you [/INST]", ""},
    {"llama2-sys",
     "[INST] <<SYS>>\nYou are a helpful assistant\n<</SYS>>\n\nHello [/INST]  Hi there  </s>[INST] Who are you [/INST]",
     ""},
    {"llama2-sys-bos",
     "[INST] <<SYS>>\nYou are a helpful assistant\n<</SYS>>\n\nHello [/INST]  Hi there  </s><s>[INST] Who are you "
     "[/INST]",
     ""},
    {"llama2-sys-strip",
     "[INST] <<SYS>>\nYou are a helpful assistant\n<</SYS>>\n\nHello [/INST]Hi there</s>[INST] Who are you [/INST]",
     ""},
    {"mistral-v1", " [INST] You are a helpful assistant\n\nHello [/INST]   Hi there  </s> [INST] Who are you [/INST]",
     ""},
    {"mistral-v3", "[INST] You are a helpful assistant\n\nHello[/INST] Hi there</s>[INST] Who are you[/INST]", ""},
    {"mistral-v3-tekken", "[INST]You are a helpful assistant\n\nHello[/INST]  Hi there  </s>[INST]Who are you[/INST]",
     ""},
    {"mistral-v7",
     "[SYSTEM_PROMPT] You are a helpful assistant[/SYSTEM_PROMPT][INST] Hello[/INST]   Hi there  </s>"
     "[INST] Who are you[/INST]",
     ""},
    {"mistral-v7-tekken",
     "[SYSTEM_PROMPT]You are a helpful assistant[/SYSTEM_PROMPT][INST]Hello[/INST]  Hi there  </s>"
     "[INST]Who are you[/INST]",
     ""},
    {"phi3",
     "<|system|>\nYou are a helpful assistant<|end|>\n<|user|>\nHello<|end|>\n<|assistant|>\n  Hi there  <|end|>\n"
     "<|user|>\nWho are you<|end|>\n",
     "<|assistant|>\n"},
    {"phi4",
     "<|im_start|>system<|im_sep|>You are a helpful assistant<|im_end|><|im_start|>user<|im_sep|>Hello<|im_end|>"
     "<|im_start|>assistant<|im_sep|>  Hi there  <|im_end|><|im_start|>user<|im_sep|>Who are you<|im_end|>",
     "<|im_start|>assistant<|im_sep|>"},
    {"falcon3",
     "<|system|>\nYou are a helpful assistant\n<|user|>\nHello\n<|assistant|>\n  Hi there  \n<|user|>\nWho are you\n",
     "<|assistant|>\n"},
    {"zephyr",
     "<|system|>\nYou are a helpful assistant<|endoftext|>\n<|user|>\nHello<|endoftext|>\n"
     "<|assistant|>\n  Hi there  <|endoftext|>\n<|user|>\nWho are you<|endoftext|>\n",
     "<|assistant|>\n"},
    {"monarch",
     "system\nYou are a helpful assistant</s>\n<s>user\nHello</s>\n<s>assistant\n  Hi there  </s>\n"
     "<s>user\nWho are you</s>\n",
     "<s>assistant\n"},
    {"gemma",
     "<start_of_turn>user\nYou are a helpful assistant\n\nHello<end_of_turn>\n<start_of_turn>model\nHi there"
     "<end_of_turn>\n<start_of_turn>user\nWho are you<end_of_turn>\n",
     "<start_of_turn>model\n"},
    {"orion",
     "Human: You are a helpful assistant\n\nHello\n\nAssistant: </s>  Hi there  </s>Human: Who are you\n\n"
     "Assistant: </s>",
     ""},
    {"openchat",
     "You are a helpful assistant<|end_of_turn|>GPT4 Correct User: Hello<|end_of_turn|>"
     "GPT4 Correct Assistant:   Hi there  <|end_of_turn|>GPT4 Correct User: Who are you<|end_of_turn|>",
     "GPT4 Correct Assistant:"},
    {"vicuna", "You are a helpful assistant\n\nUSER: Hello\nASSISTANT:   Hi there  </s>\nUSER: Who are you\n",
     "ASSISTANT:"},
    {"vicuna-orca",
     "SYSTEM: You are a helpful assistant\nUSER: Hello\nASSISTANT:   Hi there  </s>\nUSER: Who are you\n",
     "ASSISTANT:"},
    {"deepseek",
     "You are a helpful assistant### Instruction:\nHello\n### Response:\n  Hi there  \n<|EOT|>\n"
     "### Instruction:\nWho are you\n",
     "### Response:\n"},
    {"deepseek2",
     "You are a helpful assistant\n\nUser: Hello\n\nAssistant:   Hi there  <\xef\xbd\x9c"
     "end\xe2\x96\x81of"
     "\xe2\x96\x81sentence\xef\xbd\x9c>User: Who are you\n\n",
     "Assistant:"},
    {"deepseek3",
     "You are a helpful assistant\n\n<\xef\xbd\x9cUser\xef\xbd\x9c>Hello<\xef\xbd\x9c"
     "Assistant\xef\xbd\x9c>"
     "  Hi there  <\xef\xbd\x9c"
     "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c><\xef\xbd\x9cUser\xef\xbd\x9c>"
     "Who are you",
     "<\xef\xbd\x9c"
     "Assistant\xef\xbd\x9c>"},
    {"command-r",
     "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You are a helpful assistant<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hello<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>Hi there<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Who are you<|END_OF_TURN_TOKEN|>",
     "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"},
    {"llama3",
     "<|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant<|eot_id|>"
     "<|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|>"
     "<|start_header_id|>assistant<|end_header_id|>\n\nHi there<|eot_id|>"
     "<|start_header_id|>user<|end_header_id|>\n\nWho are you<|eot_id|>",
     "<|start_header_id|>assistant<|end_header_id|>\n\n"},
    {"llama4",
     "<|header_start|>system<|header_end|>\n\nYou are a helpful assistant<|eot|>"
     "<|header_start|>user<|header_end|>\n\nHello<|eot|>"
     "<|header_start|>assistant<|header_end|>\n\nHi there<|eot|>"
     "<|header_start|>user<|header_end|>\n\nWho are you<|eot|>",
     "<|header_start|>assistant<|header_end|>\n\n"},
    {"chatglm3",
     "[gMASK]sop<|system|>\n You are a helpful assistant<|user|>\n Hello<|assistant|>\n   Hi there  "
     "<|user|>\n Who are you",
     "<|assistant|>"},
    {"chatglm4",
     "[gMASK]<sop><|system|>\nYou are a helpful assistant<|user|>\nHello<|assistant|>\n  Hi there  "
     "<|user|>\nWho are you",
     "<|assistant|>"},
    {"minicpm",
     "You are a helpful assistant<\xe7\x94\xa8\xe6\x88\xb7>Hello<AI>Hi there<\xe7\x94\xa8\xe6\x88\xb7>Who are you<AI>",
     ""},
    {"exaone3",
     "[|system|]You are a helpful assistant[|endofturn|]\n[|user|]Hello\n[|assistant|]Hi there[|endofturn|]\n"
     "[|user|]Who are you\n",
     "[|assistant|]"},
    {"rwkv-world", "System: You are a helpful assistant\n\nUser: Hello\n\nAssistant: Hi there\n\nUser: Who are you\n\n",
     "Assistant:"},
    {"granite",
     "<|start_of_role|>system<|end_of_role|>You are a helpful assistant<|end_of_text|>\n"
     "<|start_of_role|>user<|end_of_role|>Hello<|end_of_text|>\n"
     "<|start_of_role|>assistant<|end_of_role|>  Hi there  <|end_of_text|>\n"
     "<|start_of_role|>user<|end_of_role|>Who are you<|end_of_text|>\n",
     "<|start_of_role|>assistant<|end_of_role|>"},
    {"megrez",
     "<|role_start|>system<|role_end|>You are a helpful assistant<|turn_end|>"
     "<|role_start|>user<|role_end|>Hello<|turn_end|>"
     "<|role_start|>assistant<|role_end|>  Hi there  <|turn_end|>"
     "<|role_start|>user<|role_end|>Who are you<|turn_end|>",
     "<|role_start|>assistant<|role_end|>"},
};

// The built-in name a template string is detected as ("" when unsupported), found by comparing
// its output with each named template's output on a probe conversation.
std::string detect(const std::string & jinja) {
    const std::string got = format(jinja.c_str(), true);
    if (got.rfind("<error", 0) == 0) {
        return "";
    }
    std::vector<const char *> names(64);
    const int32_t             n = llama_chat_builtin_templates(names.data(), names.size());
    std::string               match;
    for (int32_t i = 0; i < n; ++i) {
        if (format(names[i], true) == got) {
            EXPECT_TRUE(match.empty()) << "ambiguous probe: " << match << " and " << names[i];
            match = names[i];
        }
    }
    return match;
}

}  // namespace

TEST(Chat, EveryBuiltinTemplateFormatsExactly) {
    std::set<std::string> covered;
    for (const auto & e : k_expected) {
        SCOPED_TRACE(e.name);
        EXPECT_EQ(format(e.name, false), std::string(e.base));
        EXPECT_EQ(format(e.name, true), std::string(e.base) + e.assistant);
        covered.insert(e.name);
    }
    // every built-in template has an expected string above
    std::vector<const char *> names(64);
    const int32_t             n = llama_chat_builtin_templates(names.data(), names.size());
    ASSERT_GT(n, 0);
    ASSERT_LE(n, 64);
    for (int32_t i = 0; i < n; ++i) {
        EXPECT_TRUE(covered.count(names[i])) << names[i] << " has no expected output";
    }
    EXPECT_EQ((size_t) n, covered.size());
}

TEST(Chat, BuiltinList) {
    const int32_t n = llama_chat_builtin_templates(nullptr, 0);
    ASSERT_GT(n, 20);
    const char * two[2] = {nullptr, nullptr};
    EXPECT_EQ(llama_chat_builtin_templates(two, 2), n);
    EXPECT_STREQ(two[0], "chatml");
    ASSERT_NE(two[1], nullptr);
}

TEST(Chat, DetectsPublishedJinjaTemplates) {
    struct detection_case {
        const char * want;
        const char * jinja;
    };
    const detection_case cases[] = {
        {"chatml",
         "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
         "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"},
        {"phi4",
         "{% for message in messages %}{% if (message['role'] == 'system') %}{{'<|im_start|>system<|im_sep|>' + "
         "message['content'] + '<|im_end|>'}}{% endif %}{% endfor %}"},
        {"llama2-sys-strip",
         "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + "
         "'\\n<</SYS>>\\n\\n' + message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + "
         "'[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' ' + "
         "content.strip() + ' ' + eos_token }}{% endif %}"},
        {"llama2",
         "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + "
         "message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + "
         "eos_token}}{% endif %}{% endfor %}"},
        {"llama2-sys-bos",
         "{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content + ' [/INST]' }}{% endif %}"
         "{{ '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' }}"},
        {"mistral-v7",
         "{%- if message['role'] == 'system' %}{{- '[SYSTEM_PROMPT] ' + message['content'] + '[/SYSTEM_PROMPT]' }}"
         "{%- elif message['role'] == 'user' %}{{- '[INST] ' + message['content'] + '[/INST]' }}{%- endif %}"},
        {"mistral-v7-tekken",
         "{{- '[SYSTEM_PROMPT]' + system_message + '[/SYSTEM_PROMPT]' }}{%- for message in loop_messages %}"
         "{%- if message['role'] == 'user' %}{{- '[INST]' + message['content'] + '[/INST]' }}{%- endif %}"},
        {"mistral-v1",
         "{%- if loop.first and system_message is defined %}{{- ' [INST] ' + system_message + '\\n\\n' + "
         "message['content'] + ' [/INST]' }}{%- endif %}"},
        {"mistral-v3",
         "{%- if message['role'] == 'user' %}{%- if tools is not none %}{{- '[AVAILABLE_TOOLS] [' }}{%- endif %}"
         "{{- '[INST] ' + message['content'] + '[/INST]' }}{%- endif %}"},
        {"mistral-v3-tekken",
         "{%- if tools is not none %}{{- \"[AVAILABLE_TOOLS]\" }}{%- endif %}{{- \"[INST]\" + message[\"content\"] + "
         "\"[/INST]\" }}"},
        {"llama3",
         "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
         "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + "
         "'<|eot_id|>' %}{{ content }}{% endfor %}"},
        {"llama4",
         "{{- '<|header_start|>' + message['role'] + '<|header_end|>\\n\\n' }}{{- message['content'] | trim }}"
         "{{- '<|eot|>' }}"},
        {"phi3",
         "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\\n' + message['content'] + "
         "'<|end|>\\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\\n' + message['content'] + "
         "'<|end|>\\n'}}{% endif %}{% endfor %}"},
        {"falcon3",
         "{% if message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + '\\n' }}{% elif "
         "message['role'] == 'assistant' %}{{ '<|assistant|>\\n' + message['content'] + '</s>\\n' }}{% endif %}"},
        {"zephyr",
         "{% for message in messages %}{% if message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + "
         "'<|endoftext|>' }}{% endif %}{% endfor %}"},
        {"monarch",
         "{% for message in messages %}{{bos_token + message['role'] + '\\n' + message['content'] + eos_token + "
         "'\\n'}}{% endfor %}"},
        {"gemma",
         "{{ bos_token }}{% for message in messages %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | "
         "trim + '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif "
         "%}"},
        {"orion",
         "{% for message in messages %}{% if message['role'] == 'user' %}{{ 'Human: ' + message['content'] + "
         "'\\n\\nAssistant: ' + eos_token }}{% elif message['role'] == 'assistant' %}{{ message['content'] + "
         "eos_token }}{% endif %}{% endfor %}"},
        {"openchat",
         "{{ bos_token }}{% for message in messages %}{{ 'GPT4 Correct ' + message['role'].title() + ': ' + "
         "message['content'] + '<|end_of_turn|>'}}{% endfor %}"},
        {"vicuna",
         "{% if message['role'] == 'user' %}{{ 'USER: ' + message['content'] + '\\n' }}{% elif message['role'] == "
         "'assistant' %}{{ 'ASSISTANT: ' + message['content'] + '</s>\\n' }}{% endif %}"},
        {"vicuna-orca",
         "{% if message['role'] == 'system' %}{{ 'SYSTEM: ' + message['content'] + '\\n' }}{% elif message['role'] "
         "== 'user' %}{{ 'USER: ' + message['content'] + '\\n' }}{% else %}{{ 'ASSISTANT: ' + message['content'] + "
         "'</s>\\n' }}{% endif %}"},
        {"deepseek",
         "{% if message['role'] == 'user' %}{{'### Instruction:\\n' + message['content'] + '\\n'}}{% else %}"
         "{{'### Response:\\n' + message['content'] + '\\n<|EOT|>\\n'}}{% endif %}"},
        {"deepseek2",
         "{% if message['role'] == 'user' %}{{ 'User: ' + message['content'] + '\\n\\n' }}{% elif message['role'] == "
         "'assistant' %}{{ 'Assistant: ' + message['content'] + eos_token }}{% endif %}"},
        {"deepseek3",
         "{%- if message['role'] == 'user' %}{{'<\xef\xbd\x9cUser\xef\xbd\x9c>' + message['content']}}{%- endif %}"
         "{{'<\xef\xbd\x9c"
         "Assistant\xef\xbd\x9c>' + content + '<\xef\xbd\x9c"
         "end\xe2\x96\x81of\xe2\x96\x81"
         "sentence\xef\xbd\x9c>'}}"},
        {"command-r",
         "{{ '<|START_OF_TURN_TOKEN|><|USER_TOKEN|>' + content.strip() + '<|END_OF_TURN_TOKEN|>' }}{{ "
         "'<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>' }}"},
        {"chatglm3",
         "{% for message in messages %}{% if loop.first %}[gMASK]sop<|{{ message['role'] }}|>\\n "
         "{{ message['content'] }}{% endif %}{% endfor %}"},
        {"chatglm4",
         "[gMASK]<sop>{% for item in messages %}<|{{ item['role'] }}|>\\n{{ item['content'] }}{% endfor %}"},
        {"minicpm",
         "{% for message in messages %}{% if message['role'] == 'user' %}{{'<\xe7\x94\xa8\xe6\x88\xb7>' + "
         "message['content'].strip() + '<AI>'}}{% else %}{{message['content'].strip()}}{% endif %}{% endfor %}"},
        {"exaone3",
         "{% if loop.first and message['role'] != 'system' %}{{ '[|system|][|endofturn|]\\n' }}{% endif %}{{ '[|' + "
         "message['role'] + '|]' + message['content'] }}{% if add_generation_prompt %}{{ '[|assistant|]' }}{% endif "
         "%}"},
        {"rwkv-world", "{%- if message['role'] == 'user' -%}{{- 'User: ' + message['content']|trim + '\\n\\n' -}}"},
        {"granite",
         "{{- '<|start_of_role|>' + message['role'] + '<|end_of_role|>' + message['content'] + '<|end_of_text|>\\n' "
         "}}"},
        {"megrez", "{{ '<|role_start|>' + message['role'] + '<|role_end|>' + message['content'] + '<|turn_end|>' }}"},
    };
    for (const auto & c : cases) {
        EXPECT_EQ(detect(c.jinja), std::string(c.want)) << c.jinja;
    }
    // a name is looked up before any detection
    EXPECT_EQ(detect("gemma"), "gemma");
}

// The tokenizer.chat_template stored in a GGUF file, or "" if it has none.
static std::string gguf_chat_template(const std::string & path) {
    gguf_init_params params = {true};
    gguf_context *   ctx    = gguf_init_from_file(path.c_str(), params);
    if (ctx == nullptr) {
        return "";
    }
    const int64_t key = gguf_find_key(ctx, "tokenizer.chat_template");
    std::string   res = key >= 0 ? gguf_get_val_str(ctx, key) : "";
    gguf_free(ctx);
    return res;
}

TEST(Chat, DetectsTemplatesStoredInRealModels) {
    struct model_case {
        const char * path;
        const char * want;
    };
    const model_case cases[] = {
        {"vocab/ggml-vocab-llama-bpe.gguf", "llama3"},
        {"vocab/ggml-vocab-phi-3.gguf", "phi3"},
        {"vocab/ggml-vocab-qwen2.gguf", "chatml"},
        {"models/synthetic/phi3-micro-f16.gguf", "phi3"},
    };
    for (const auto & c : cases) {
        const std::string tmpl = gguf_chat_template(testing_util::data_path(c.path));
        if (tmpl.empty()) {
            GTEST_SKIP() << c.path << " is not available";
        }
        EXPECT_EQ(detect(tmpl), std::string(c.want)) << c.path;
    }
}

// Our output equals what each stored Jinja template renders (rendered by hand from the template
// text printed by the test above, without the BOS token the tokenizer adds).
TEST(Chat, MatchesRenderingOfRealTemplates) {
    const std::string llama3 = gguf_chat_template(testing_util::data_path("vocab/ggml-vocab-llama-bpe.gguf"));
    const std::string phi3   = gguf_chat_template(testing_util::data_path("vocab/ggml-vocab-phi-3.gguf"));
    const std::string qwen2  = gguf_chat_template(testing_util::data_path("vocab/ggml-vocab-qwen2.gguf"));
    ASSERT_FALSE(llama3.empty() || phi3.empty() || qwen2.empty()) << "vocab files missing from tests/data/vocab";
    // the llama-3 template always ends with the assistant header and trims every message
    EXPECT_EQ(format(llama3.c_str(), true),
              "<|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\nHi there<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nWho are you<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n");
    // the phi-3 template has no system role and opens the assistant turn after each user turn
    const std::vector<llama_chat_message> no_system(k_chat.begin() + 1, k_chat.end());
    EXPECT_EQ(format(phi3.c_str(), true, no_system),
              "<|user|>\nHello<|end|>\n<|assistant|>\n  Hi there  <|end|>\n<|user|>\nWho are you<|end|>\n"
              "<|assistant|>\n");
    // qwen2 (no tools, no <think>): plain chatml
    EXPECT_EQ(format(qwen2.c_str(), true),
              "<|im_start|>system\nYou are a helpful assistant<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n"
              "<|im_start|>assistant\n  Hi there  <|im_end|>\n<|im_start|>user\nWho are you<|im_end|>\n"
              "<|im_start|>assistant\n");
}

TEST(Chat, UnknownTemplateIsError) {
    char buf[16] = "untouched";
    EXPECT_EQ(
        llama_chat_apply_template("{{ messages[0]['content'] }}", k_chat.data(), k_chat.size(), true, buf, sizeof(buf)),
        -1);
    EXPECT_STREQ(buf, "untouched");
    EXPECT_EQ(llama_chat_apply_template("", k_chat.data(), k_chat.size(), true, buf, sizeof(buf)), -1);
    EXPECT_EQ(llama_chat_apply_template("not-a-template", k_chat.data(), k_chat.size(), true, buf, sizeof(buf)), -1);
}

TEST(Chat, ShortBufferGetsFullLength) {
    const std::string full = format("chatml", true);
    ASSERT_GT(full.size(), 20u);

    char buf[12];
    std::memset(buf, '#', sizeof(buf));
    const int32_t n = llama_chat_apply_template("chatml", k_chat.data(), k_chat.size(), true, buf, 10);
    EXPECT_EQ(n, (int32_t) full.size());
    EXPECT_EQ(std::string(buf, 10), full.substr(0, 10));
    EXPECT_EQ(buf[10], '#');  // nothing written past length

    // exactly the text length: all of it, no room for a terminator
    std::vector<char> exact(full.size() + 1, '#');
    EXPECT_EQ(llama_chat_apply_template("chatml", k_chat.data(), k_chat.size(), true, exact.data(), n), n);
    EXPECT_EQ(std::string(exact.data(), full.size()), full);
    EXPECT_EQ(exact[full.size()], '#');

    // no buffer, or a non-positive length: only the size
    EXPECT_EQ(llama_chat_apply_template("chatml", k_chat.data(), k_chat.size(), true, nullptr, 100), n);
    EXPECT_EQ(llama_chat_apply_template("chatml", k_chat.data(), k_chat.size(), true, buf, -5), n);
    EXPECT_EQ(buf[0], full[0]);  // untouched since the first call
}

TEST(Chat, NullAndEdgeInputs) {
    // NULL template = chatml
    EXPECT_EQ(format(nullptr, true), format("chatml", true));
    // empty conversation
    EXPECT_EQ(llama_chat_apply_template("chatml", nullptr, 0, true, nullptr, 0),
              (int32_t) std::strlen("<|im_start|>assistant\n"));
    EXPECT_EQ(llama_chat_apply_template("llama3", nullptr, 0, false, nullptr, 0), 0);
    // NULL messages with a count, NULL role or content
    EXPECT_EQ(llama_chat_apply_template("chatml", nullptr, 3, true, nullptr, 0), -1);
    const llama_chat_message bad_role[]    = {{nullptr, "x"}};
    const llama_chat_message bad_content[] = {{"user", nullptr}};
    EXPECT_EQ(llama_chat_apply_template("chatml", bad_role, 1, true, nullptr, 0), -1);
    EXPECT_EQ(llama_chat_apply_template("chatml", bad_content, 1, true, nullptr, 0), -1);
    // gemma: a conversation without a system message, and one that ends with the system message
    const std::vector<llama_chat_message> only_user = {{"user", "Hi"}};
    EXPECT_EQ(format("gemma", true, only_user), "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n");
    // multi-byte content passes through unchanged
    const std::vector<llama_chat_message> utf8 = {{"user", "caf\xc3\xa9 \xe2\x9c\x93"}};
    EXPECT_EQ(format("chatml", false, utf8), "<|im_start|>user\ncaf\xc3\xa9 \xe2\x9c\x93<|im_end|>\n");
}
