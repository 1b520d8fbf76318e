// libFuzzer harness: tokenize + detokenize arbitrary bytes on every vocab type. The first input byte
// picks the vocab and the add_special / parse_special flags; the rest is the text. Any crash, sanitizer
// report or failed invariant (ids in range, llama.h return conventions) is a finding; keep crashing
// inputs in tests/fuzz/regressions-tokenizer/ and replay them with `fuzz-tokenizer <dir>`.
// Vocabs come from $LLAMA_TEST_DATA_DIR (default: tests/data of this checkout).
#include "gguf.h"
#include "llama-log.h"
#include "llama-vocab.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

// the harness links only the tokenizer sources, so it provides the library's log sink itself
void llama_log_internal(ggml_log_level, const char *, ...) {}

namespace {

std::vector<std::unique_ptr<llama_vocab>> g_vocabs;

void add_vocab(const std::string & dir, const char * name) {
    const std::string path = dir + "/vocab/ggml-vocab-" + name + ".gguf";
    gguf_context *    g    = gguf_init_from_file(path.c_str(), gguf_init_params{true});
    if (!g) {
        return;
    }
    auto v = std::make_unique<llama_vocab>();
    v->load(g);
    gguf_free(g);
    g_vocabs.push_back(std::move(v));
}

void add_small() {
    llama_vocab_data u;
    u.model       = "t5";
    u.tokens      = {"<pad>",
                     "</s>",
                     "<unk>",
                     "\xE2\x96\x81",
                     "\xE2\x96\x81"
                          "a",
                     "a",
                     "b",
                     "ab",
                     "<u>"};
    u.scores      = {0, 0, 0, -2, -1, -3, -3, -2, 0};
    u.token_types = {3, 3, 2, 1, 1, 1, 1, 1, 4};
    auto v        = std::make_unique<llama_vocab>();
    v->load(u);
    g_vocabs.push_back(std::move(v));
    llama_vocab_data r;
    r.model  = "rwkv";
    r.tokens = {"a", "ab", "\\n", "\\x00", "\\xff", " ", "\\\\", "\\x"};
    v        = std::make_unique<llama_vocab>();
    v->load(r);
    g_vocabs.push_back(std::move(v));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    std::string dir = std::getenv("LLAMA_TEST_DATA_DIR") ? std::getenv("LLAMA_TEST_DATA_DIR") : "";
    if (dir.empty()) {
        std::string src = __FILE__;  // <root>/tests/fuzz/fuzz-tokenizer.cpp
        dir             = src.substr(0, src.find_last_of('/')) + "/../data";
    }
    for (const char * name : {"llama-spm", "phi-3", "bert-bge", "gpt-2", "llama-bpe", "qwen2", "deepseek-llm",
                              "deepseek-coder", "falcon", "starcoder", "mpt"}) {
        add_vocab(dir, name);
    }
    add_small();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (size < 1 || g_vocabs.empty()) {
        return 0;
    }
    const llama_vocab & v             = *g_vocabs[data[0] % g_vocabs.size()];
    const bool          add_special   = data[0] & 0x40;
    const bool          parse_special = data[0] & 0x80;
    const char *        text          = reinterpret_cast<const char *>(data + 1);
    const int32_t       len           = static_cast<int32_t>(size - 1);

    std::vector<llama_token> toks(len + 8);
    const int32_t n = v.tokenize(text, len, toks.data(), static_cast<int32_t>(toks.size()), add_special, parse_special);
    if (n < 0) {
        abort();  // at most one token per byte plus BOS/EOS/SEP
    }
    for (int32_t i = 0; i < n; ++i) {
        if (toks[i] < 0 || toks[i] >= v.n_tokens()) {
            abort();
        }
    }
    if (n > 0 && v.tokenize(text, len, toks.data(), n - 1, add_special, parse_special) != -n) {
        abort();
    }
    std::vector<char> out(4 * static_cast<size_t>(len) + 64);
    const int32_t     m =
        v.detokenize(toks.data(), n, out.data(), static_cast<int32_t>(out.size()), add_special, parse_special);
    const int32_t need = m < 0 ? -m : m;
    if (m == INT32_MIN || (m < 0 && v.detokenize(toks.data(), n, nullptr, 0, add_special, parse_special) != m)) {
        abort();
    }
    if (m >= 0 && need > 0 && v.detokenize(toks.data(), n, out.data(), need - 1, add_special, parse_special) != -need) {
        abort();
    }
    for (int32_t i = 0; i < n; ++i) {
        char piece[8];
        v.token_to_piece(toks[i], piece, sizeof(piece), i & 1, parse_special);
    }
    return 0;
}
