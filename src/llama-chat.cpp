// Built-in chat templates. Each format below is written from the model family's published chat
// format; the BOS token is never added here (the tokenizer adds it), so templates that start with
// "<s>" in their Jinja source start without it here.
#include "llama-chat.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <exception>
#include <sstream>

#include "llama-log.h"

// A failed call: sets the last-error string and logs "<function>: <message>".
#define LLAMA_CHAT_FAIL(...) llama_report_error(__func__, llama_format(__VA_ARGS__).c_str())

// Name table: one row per enum value, in enum order (checked at compile time below).
static const char * const LLM_CHAT_TEMPLATE_NAMES[] = {
    "chatml",
    "llama2",
    "llama2-sys",
    "llama2-sys-bos",
    "llama2-sys-strip",
    "mistral-v1",
    "mistral-v3",
    "mistral-v3-tekken",
    "mistral-v7",
    "mistral-v7-tekken",
    "phi3",
    "phi4",
    "falcon3",
    "zephyr",
    "monarch",
    "gemma",
    "orion",
    "openchat",
    "vicuna",
    "vicuna-orca",
    "deepseek",
    "deepseek2",
    "deepseek3",
    "command-r",
    "llama3",
    "llama4",
    "chatglm3",
    "chatglm4",
    "minicpm",
    "exaone3",
    "rwkv-world",
    "granite",
    "megrez",
};
static_assert(sizeof(LLM_CHAT_TEMPLATE_NAMES) / sizeof(LLM_CHAT_TEMPLATE_NAMES[0]) == LLM_CHAT_TEMPLATE_COUNT,
              "one name per llm_chat_template value");

const char * llm_chat_template_name(llm_chat_template tmpl) {
    if (tmpl < 0 || tmpl >= LLM_CHAT_TEMPLATE_COUNT) {
        return "unknown";
    }
    return LLM_CHAT_TEMPLATE_NAMES[tmpl];
}

llm_chat_template llm_chat_template_from_name(const std::string & name) {
    for (int i = 0; i < LLM_CHAT_TEMPLATE_COUNT; ++i) {
        if (name == LLM_CHAT_TEMPLATE_NAMES[i]) {
            return (llm_chat_template) i;
        }
    }
    return LLM_CHAT_TEMPLATE_UNKNOWN;
}

// ---------------------------------------------------------------------------------------------
// detection
// ---------------------------------------------------------------------------------------------

llm_chat_template llm_chat_detect_template(const std::string & tmpl) {
    const llm_chat_template by_name = llm_chat_template_from_name(tmpl);
    if (by_name != LLM_CHAT_TEMPLATE_UNKNOWN) {
        return by_name;
    }
    auto has = [&](const char * s) { return tmpl.find(s) != std::string::npos; };

    // order matters: several families share markers, so the more specific test comes first
    if (has("<|im_start|>")) {
        return has("<|im_sep|>") ? LLM_CHAT_TEMPLATE_PHI_4 : LLM_CHAT_TEMPLATE_CHATML;
    }
    if (tmpl.rfind("mistral", 0) == 0 || has("[INST]")) {
        if (has("[SYSTEM_PROMPT]")) {
            // v7 puts a space after [INST] and [SYSTEM_PROMPT]; the tekken variant does not
            return has("[INST] ") || has("[SYSTEM_PROMPT] ") ? LLM_CHAT_TEMPLATE_MISTRAL_V7
                                                             : LLM_CHAT_TEMPLATE_MISTRAL_V7_TEKKEN;
        }
        if (has("' [INST] ' + system_message") || has("[AVAILABLE_TOOLS]")) {
            // mistral's official v1 / v3 / v3-tekken templates
            if (has(" [INST]")) {
                return LLM_CHAT_TEMPLATE_MISTRAL_V1;
            }
            if (has("\"[INST]\"")) {
                return LLM_CHAT_TEMPLATE_MISTRAL_V3_TEKKEN;
            }
            return LLM_CHAT_TEMPLATE_MISTRAL_V3;
        }
        if (has("content.strip()")) {
            return LLM_CHAT_TEMPLATE_LLAMA_2_SYS_STRIP;
        }
        if (has("bos_token + '[INST]")) {
            return LLM_CHAT_TEMPLATE_LLAMA_2_SYS_BOS;
        }
        if (has("<<SYS>>")) {
            return LLM_CHAT_TEMPLATE_LLAMA_2_SYS;
        }
        return LLM_CHAT_TEMPLATE_LLAMA_2;
    }
    if (has("<|assistant|>") && has("<|end|>")) {
        return LLM_CHAT_TEMPLATE_PHI_3;
    }
    if (has("[gMASK]<sop>")) {
        return LLM_CHAT_TEMPLATE_CHATGLM_4;
    }
    if (has("<|assistant|>") && has("<|user|>") && has("</s>")) {
        return LLM_CHAT_TEMPLATE_FALCON_3;
    }
    if (has("<|user|>") && has("<|endoftext|>")) {
        return LLM_CHAT_TEMPLATE_ZEPHYR;
    }
    if (has("bos_token + message['role']")) {
        return LLM_CHAT_TEMPLATE_MONARCH;
    }
    if (has("<start_of_turn>")) {
        return LLM_CHAT_TEMPLATE_GEMMA;
    }
    if (has("'\\n\\nAssistant: ' + eos_token")) {
        return LLM_CHAT_TEMPLATE_ORION;  // OrionStarAI/Orion-14B-Chat
    }
    if (has("GPT4 Correct ")) {
        return LLM_CHAT_TEMPLATE_OPENCHAT;  // openchat/openchat-3.5
    }
    if (has("USER: ") && has("ASSISTANT: ")) {
        return has("SYSTEM: ") ? LLM_CHAT_TEMPLATE_VICUNA_ORCA : LLM_CHAT_TEMPLATE_VICUNA;
    }
    if (has("### Instruction:") && has("<|EOT|>")) {
        return LLM_CHAT_TEMPLATE_DEEPSEEK;  // deepseek-coder-instruct
    }
    if (has("<|START_OF_TURN_TOKEN|>") && has("<|USER_TOKEN|>")) {
        return LLM_CHAT_TEMPLATE_COMMAND_R;  // Cohere command-r
    }
    if (has("<|start_header_id|>") && has("<|end_header_id|>")) {
        return LLM_CHAT_TEMPLATE_LLAMA_3;
    }
    if (has("<|header_start|>") && has("<|header_end|>")) {
        return LLM_CHAT_TEMPLATE_LLAMA_4;
    }
    if (has("[gMASK]sop")) {
        return LLM_CHAT_TEMPLATE_CHATGLM_3;
    }
    if (has("<\xe7\x94\xa8\xe6\x88\xb7>")) {  // "<用户>"
        return LLM_CHAT_TEMPLATE_MINICPM;
    }
    if (has("'Assistant: ' + message['content'] + eos_token")) {
        return LLM_CHAT_TEMPLATE_DEEPSEEK_2;
    }
    if (has("<\xef\xbd\x9c"
            "Assistant\xef\xbd\x9c>") &&
        has("<\xef\xbd\x9c"
            "User\xef\xbd\x9c>")) {  // <｜Assistant｜>
        return LLM_CHAT_TEMPLATE_DEEPSEEK_3;
    }
    if (has("[|system|]") && has("[|assistant|]") && has("[|endofturn|]")) {
        return LLM_CHAT_TEMPLATE_EXAONE_3;
    }
    if (has("rwkv-world") || has("'User: ' + message['content']|trim")) {
        return LLM_CHAT_TEMPLATE_RWKV_WORLD;
    }
    if (has("<|start_of_role|>")) {
        return LLM_CHAT_TEMPLATE_GRANITE;
    }
    if (has("<|role_start|>")) {
        return LLM_CHAT_TEMPLATE_MEGREZ;
    }
    return LLM_CHAT_TEMPLATE_UNKNOWN;
}

// ---------------------------------------------------------------------------------------------
// formatting
// ---------------------------------------------------------------------------------------------

static std::string trim(const std::string & s) {
    size_t b = 0;
    size_t e = s.size();
    while (b < e && std::isspace((unsigned char) s[b])) {
        ++b;
    }
    while (e > b && std::isspace((unsigned char) s[e - 1])) {
        --e;
    }
    return s.substr(b, e - b);
}

// "<|im_start|>role\ncontent<|im_end|>\n"-like formats: prefix + role + mid + content + suffix
static void format_simple(std::ostringstream & ss, const std::vector<const llama_chat_message *> & chat,
                          const char * prefix, const char * mid, const char * suffix, bool trim_content) {
    for (const auto * m : chat) {
        ss << prefix << m->role << mid << (trim_content ? trim(m->content) : std::string(m->content)) << suffix;
    }
}

static void format_llama2(std::ostringstream & ss, llm_chat_template tmpl,
                          const std::vector<const llama_chat_message *> & chat) {
    // [INST] <<SYS>>\nsystem\n<</SYS>>\n\nuser [/INST]assistant</s>[INST] user [/INST]
    const bool sys_block = tmpl != LLM_CHAT_TEMPLATE_LLAMA_2;
    const bool bos_turns = tmpl == LLM_CHAT_TEMPLATE_LLAMA_2_SYS_BOS;
    const bool strip     = tmpl == LLM_CHAT_TEMPLATE_LLAMA_2_SYS_STRIP;
    bool       in_turn   = true;  // the first "[INST] " comes without <s>: BOS is the tokenizer's
    ss << "[INST] ";
    for (const auto * m : chat) {
        const std::string role    = m->role;
        const std::string content = strip ? trim(m->content) : std::string(m->content);
        if (!in_turn) {
            in_turn = true;
            ss << (bos_turns ? "<s>[INST] " : "[INST] ");
        }
        if (role == "system") {
            if (sys_block) {
                ss << "<<SYS>>\n" << content << "\n<</SYS>>\n\n";
            } else {
                ss << content << "\n";  // no system slot: prepend it to the first user message
            }
        } else if (role == "user") {
            ss << content << " [/INST]";
        } else {
            ss << content << "</s>";
            in_turn = false;
        }
    }
}

static void format_mistral_v1_v3(std::ostringstream & ss, llm_chat_template tmpl,
                                 const std::vector<const llama_chat_message *> & chat) {
    // mistral's documented tokenization formats: v1 " [INST] user [/INST] answer</s>",
    // v3 "[INST] user[/INST] answer</s>", v3-tekken "[INST]user[/INST]answer</s>"
    const char * lead        = tmpl == LLM_CHAT_TEMPLATE_MISTRAL_V1 ? " " : "";
    const char * trail       = tmpl == LLM_CHAT_TEMPLATE_MISTRAL_V3_TEKKEN ? "" : " ";
    const bool   trim_answer = tmpl == LLM_CHAT_TEMPLATE_MISTRAL_V3;
    bool         in_turn     = false;
    for (const auto * m : chat) {
        const std::string role = m->role;
        if (!in_turn) {
            ss << lead << "[INST]" << trail;
            in_turn = true;
        }
        if (role == "system") {
            ss << m->content << "\n\n";
        } else if (role == "user") {
            ss << m->content << lead << "[/INST]";
        } else {
            ss << trail << (trim_answer ? trim(m->content) : std::string(m->content)) << "</s>";
            in_turn = false;
        }
    }
}

static void format_mistral_v7(std::ostringstream & ss, llm_chat_template tmpl,
                              const std::vector<const llama_chat_message *> & chat) {
    const char * sp = tmpl == LLM_CHAT_TEMPLATE_MISTRAL_V7 ? " " : "";
    for (const auto * m : chat) {
        const std::string role = m->role;
        if (role == "system") {
            ss << "[SYSTEM_PROMPT]" << sp << m->content << "[/SYSTEM_PROMPT]";
        } else if (role == "user") {
            ss << "[INST]" << sp << m->content << "[/INST]";
        } else {
            ss << sp << m->content << "</s>";
        }
    }
}

static void format_gemma(std::ostringstream & ss, const std::vector<const llama_chat_message *> & chat, bool add_ass) {
    // no system role: the system text opens the first user turn; "assistant" is called "model"
    std::string system;
    for (const auto * m : chat) {
        std::string role = m->role;
        if (role == "system") {
            system = trim(m->content);
            continue;
        }
        if (role == "assistant") {
            role = "model";
        }
        ss << "<start_of_turn>" << role << "\n";
        if (!system.empty() && role != "model") {
            ss << system << "\n\n";
            system.clear();
        }
        ss << trim(m->content) << "<end_of_turn>\n";
    }
    if (add_ass) {
        ss << "<start_of_turn>model\n";
    }
}

int32_t llm_chat_apply_template(llm_chat_template tmpl, const std::vector<const llama_chat_message *> & chat,
                                std::string & dest, bool add_ass) {
    std::ostringstream ss;
    switch (tmpl) {
        case LLM_CHAT_TEMPLATE_CHATML:
            format_simple(ss, chat, "<|im_start|>", "\n", "<|im_end|>\n", false);
            if (add_ass) {
                ss << "<|im_start|>assistant\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_LLAMA_2:
        case LLM_CHAT_TEMPLATE_LLAMA_2_SYS:
        case LLM_CHAT_TEMPLATE_LLAMA_2_SYS_BOS:
        case LLM_CHAT_TEMPLATE_LLAMA_2_SYS_STRIP:
            format_llama2(ss, tmpl, chat);  // "[/INST]" already is the assistant prefix
            break;
        case LLM_CHAT_TEMPLATE_MISTRAL_V1:
        case LLM_CHAT_TEMPLATE_MISTRAL_V3:
        case LLM_CHAT_TEMPLATE_MISTRAL_V3_TEKKEN:
            format_mistral_v1_v3(ss, tmpl, chat);
            break;
        case LLM_CHAT_TEMPLATE_MISTRAL_V7:
        case LLM_CHAT_TEMPLATE_MISTRAL_V7_TEKKEN:
            format_mistral_v7(ss, tmpl, chat);
            break;
        case LLM_CHAT_TEMPLATE_PHI_3:
            format_simple(ss, chat, "<|", "|>\n", "<|end|>\n", false);
            if (add_ass) {
                ss << "<|assistant|>\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_PHI_4:
            format_simple(ss, chat, "<|im_start|>", "<|im_sep|>", "<|im_end|>", false);
            if (add_ass) {
                ss << "<|im_start|>assistant<|im_sep|>";
            }
            break;
        case LLM_CHAT_TEMPLATE_FALCON_3:
            format_simple(ss, chat, "<|", "|>\n", "\n", false);
            if (add_ass) {
                ss << "<|assistant|>\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_ZEPHYR:
            format_simple(ss, chat, "<|", "|>\n", "<|endoftext|>\n", false);
            if (add_ass) {
                ss << "<|assistant|>\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_MONARCH:
            // "<s>" opens every turn but the first (the tokenizer adds that one)
            for (size_t i = 0; i < chat.size(); ++i) {
                ss << (i == 0 ? "" : "<s>") << chat[i]->role << "\n" << chat[i]->content << "</s>\n";
            }
            if (add_ass) {
                ss << "<s>assistant\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_GEMMA:
            format_gemma(ss, chat, add_ass);
            break;
        case LLM_CHAT_TEMPLATE_ORION: {
            // system text is prepended to the next user turn; the prompt always ends with "Assistant: </s>"
            std::string system;
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    system = m->content;
                } else if (role == "user") {
                    ss << "Human: ";
                    if (!system.empty()) {
                        ss << system << "\n\n";
                        system.clear();
                    }
                    ss << m->content << "\n\nAssistant: </s>";
                } else {
                    ss << m->content << "</s>";
                }
            }
            break;
        }
        case LLM_CHAT_TEMPLATE_OPENCHAT:
            for (const auto * m : chat) {
                std::string role = m->role;
                if (role == "system") {
                    ss << m->content << "<|end_of_turn|>";
                } else {
                    if (!role.empty()) {
                        role[0] = (char) std::toupper((unsigned char) role[0]);
                    }
                    ss << "GPT4 Correct " << role << ": " << m->content << "<|end_of_turn|>";
                }
            }
            if (add_ass) {
                ss << "GPT4 Correct Assistant:";
            }
            break;
        case LLM_CHAT_TEMPLATE_VICUNA:
        case LLM_CHAT_TEMPLATE_VICUNA_ORCA:
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    if (tmpl == LLM_CHAT_TEMPLATE_VICUNA_ORCA) {
                        ss << "SYSTEM: " << m->content << "\n";
                    } else {
                        ss << m->content << "\n\n";
                    }
                } else if (role == "user") {
                    ss << "USER: " << m->content << "\n";
                } else if (role == "assistant") {
                    ss << "ASSISTANT: " << m->content << "</s>\n";
                }
            }
            if (add_ass) {
                ss << "ASSISTANT:";
            }
            break;
        case LLM_CHAT_TEMPLATE_DEEPSEEK:
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    ss << m->content;
                } else if (role == "user") {
                    ss << "### Instruction:\n" << m->content << "\n";
                } else if (role == "assistant") {
                    ss << "### Response:\n" << m->content << "\n<|EOT|>\n";
                }
            }
            if (add_ass) {
                ss << "### Response:\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_DEEPSEEK_2:
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    ss << m->content << "\n\n";
                } else if (role == "user") {
                    ss << "User: " << m->content << "\n\n";
                } else if (role == "assistant") {
                    ss << "Assistant: " << m->content
                       << "<\xef\xbd\x9c"
                          "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>";
                }
            }
            if (add_ass) {
                ss << "Assistant:";
            }
            break;
        case LLM_CHAT_TEMPLATE_DEEPSEEK_3:
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    ss << m->content << "\n\n";
                } else if (role == "user") {
                    ss << "<\xef\xbd\x9cUser\xef\xbd\x9c>" << m->content;
                } else if (role == "assistant") {
                    ss << "<\xef\xbd\x9c"
                          "Assistant\xef\xbd\x9c>"
                       << m->content
                       << "<\xef\xbd\x9c"
                          "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>";
                }
            }
            if (add_ass) {
                ss << "<\xef\xbd\x9c"
                      "Assistant\xef\xbd\x9c>";
            }
            break;
        case LLM_CHAT_TEMPLATE_COMMAND_R:
            for (const auto * m : chat) {
                const std::string role = m->role;
                const char *      tag  = role == "system" ? "<|SYSTEM_TOKEN|>"
                                         : role == "user" ? "<|USER_TOKEN|>"
                                                          : "<|CHATBOT_TOKEN|>";
                ss << "<|START_OF_TURN_TOKEN|>" << tag << trim(m->content) << "<|END_OF_TURN_TOKEN|>";
            }
            if (add_ass) {
                ss << "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
            }
            break;
        case LLM_CHAT_TEMPLATE_LLAMA_3:
            format_simple(ss, chat, "<|start_header_id|>", "<|end_header_id|>\n\n", "<|eot_id|>", true);
            if (add_ass) {
                ss << "<|start_header_id|>assistant<|end_header_id|>\n\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_LLAMA_4:
            format_simple(ss, chat, "<|header_start|>", "<|header_end|>\n\n", "<|eot|>", true);
            if (add_ass) {
                ss << "<|header_start|>assistant<|header_end|>\n\n";
            }
            break;
        case LLM_CHAT_TEMPLATE_CHATGLM_3:
            ss << "[gMASK]sop";
            format_simple(ss, chat, "<|", "|>\n ", "", false);
            if (add_ass) {
                ss << "<|assistant|>";
            }
            break;
        case LLM_CHAT_TEMPLATE_CHATGLM_4:
            ss << "[gMASK]<sop>";
            format_simple(ss, chat, "<|", "|>\n", "", false);
            if (add_ass) {
                ss << "<|assistant|>";
            }
            break;
        case LLM_CHAT_TEMPLATE_MINICPM:
            // "<用户>user<AI>assistant": the user tag and the AI tag wrap each user turn
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "user") {
                    ss << "<\xe7\x94\xa8\xe6\x88\xb7>" << trim(m->content) << "<AI>";
                } else {
                    ss << trim(m->content);
                }
            }
            break;
        case LLM_CHAT_TEMPLATE_EXAONE_3:
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    ss << "[|system|]" << trim(m->content) << "[|endofturn|]\n";
                } else if (role == "user") {
                    ss << "[|user|]" << trim(m->content) << "\n";
                } else if (role == "assistant") {
                    ss << "[|assistant|]" << trim(m->content) << "[|endofturn|]\n";
                }
            }
            if (add_ass) {
                ss << "[|assistant|]";
            }
            break;
        case LLM_CHAT_TEMPLATE_RWKV_WORLD:
            for (const auto * m : chat) {
                const std::string role = m->role;
                if (role == "system") {
                    ss << "System: " << trim(m->content) << "\n\n";
                } else if (role == "user") {
                    ss << "User: " << trim(m->content) << "\n\n";
                } else if (role == "assistant") {
                    ss << "Assistant: " << trim(m->content) << "\n\n";
                }
            }
            if (add_ass) {
                ss << "Assistant:";
            }
            break;
        case LLM_CHAT_TEMPLATE_GRANITE:
            format_simple(ss, chat, "<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>\n", false);
            if (add_ass) {
                ss << "<|start_of_role|>assistant<|end_of_role|>";
            }
            break;
        case LLM_CHAT_TEMPLATE_MEGREZ:
            format_simple(ss, chat, "<|role_start|>", "<|role_end|>", "<|turn_end|>", false);
            if (add_ass) {
                ss << "<|role_start|>assistant<|role_end|>";
            }
            break;
        default:
            return -1;
    }
    dest = ss.str();
    if (dest.size() > (size_t) INT32_MAX) {
        return -1;
    }
    return (int32_t) dest.size();
}

// ---------------------------------------------------------------------------------------------
// public API
// ---------------------------------------------------------------------------------------------

int32_t llama_chat_apply_template(const char * tmpl, const struct llama_chat_message * chat, size_t n_msg, bool add_ass,
                                  char * buf, int32_t length) {
    if (chat == nullptr && n_msg > 0) {
        LLAMA_CHAT_FAIL("chat is NULL but n_msg = %zu", n_msg);
        return -1;
    }
    try {
        const std::string       name(tmpl == nullptr ? "chatml" : tmpl);
        const llm_chat_template detected = llm_chat_detect_template(name);
        if (detected == LLM_CHAT_TEMPLATE_UNKNOWN) {
            LLAMA_CHAT_FAIL("unsupported chat template");
            return -1;
        }
        std::vector<const llama_chat_message *> msgs(n_msg);
        for (size_t i = 0; i < n_msg; ++i) {
            if (chat[i].role == nullptr || chat[i].content == nullptr) {
                LLAMA_CHAT_FAIL("message %zu has a NULL role or content", i);
                return -1;
            }
            msgs[i] = &chat[i];
        }
        std::string   out;
        const int32_t res = llm_chat_apply_template(detected, msgs, out, add_ass);
        if (res < 0) {
            return res;
        }
        if (buf != nullptr && length > 0) {
            // copy what fits; NUL-terminate only when there is room (strncpy semantics)
            const size_t n = std::min(out.size(), (size_t) length);
            std::memcpy(buf, out.data(), n);
            if (n < (size_t) length) {
                buf[n] = '\0';
            }
        }
        return res;
    } catch (const std::exception & e) {
        LLAMA_CHAT_FAIL("%s", e.what());
        return -1;
    }
}

int32_t llama_chat_builtin_templates(const char ** output, size_t len) {
    if (output != nullptr) {
        const size_t n = std::min(len, (size_t) LLM_CHAT_TEMPLATE_COUNT);
        for (size_t i = 0; i < n; ++i) {
            output[i] = LLM_CHAT_TEMPLATE_NAMES[i];
        }
    }
    return (int32_t) LLM_CHAT_TEMPLATE_COUNT;
}
