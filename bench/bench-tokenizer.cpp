// Tokenization throughput (one thread) on ~400 KB of deterministic mixed text: English prose, C++ code,
// Russian, Chinese, Hindi, emoji and numbers. Reports bytes/s (MB/s) per vocab.
#include "gguf.h"
#include "llama-vocab.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>

namespace {

std::string mixed_text() {
    static const char * const parts[] = {
        "The quick brown fox jumps over the lazy dog. ",
        "It's 12:45 and we've got 3,141 items left! ",
        "    for (int i = 0; i < n; ++i) {\n        sum += a[i] * b[i];\n    }\n",
        "std::vector<std::string> words = split(text, ' ');\n",
        "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82, "
        "\xD0\xBC\xD0\xB8\xD1\x80! ",
        "\xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x8C\xE4\xB8\x96\xE7\x95\x8C\xE3\x80\x82",
        "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D\xE0\xA4\xA4\xE0\xA5\x87 ",
        "\xF0\x9F\xA6\x99\xF0\x9F\x9A\x80 ",
        "\n\n",
        "\t",
        "def f(x):\n    return x ** 2  # square\n",
        "Caf\xC3\xA9 na\xC3\xAFve r\xC3\xA9sum\xC3\xA9. ",
        "https://example.com/path?q=1&r=2 ",
        "1234567890 ",
        "HELLO World hello WORLD ",
    };
    std::mt19937 rng(42);
    std::string  s;
    while (s.size() < 400 * 1024) {
        s += parts[rng() % (sizeof(parts) / sizeof(parts[0]))];
    }
    return s;
}

// tests/data of this checkout (bench/ has no configured path): $LLAMA_TEST_DATA_DIR overrides
std::string data_dir() {
    if (const char * env = std::getenv("LLAMA_TEST_DATA_DIR")) {
        return env;
    }
    std::string src = __FILE__;  // <root>/bench/bench-tokenizer.cpp
    src             = src.substr(0, src.find_last_of('/'));
    return src + "/../tests/data";
}

const llama_vocab & vocab(const std::string & name) {
    static std::map<std::string, std::unique_ptr<llama_vocab>> cache;
    auto &                                                     v = cache[name];
    if (!v) {
        const std::string path = data_dir() + "/vocab/ggml-vocab-" + name + ".gguf";
        gguf_context *    g    = gguf_init_from_file(path.c_str(), gguf_init_params{true});
        v                      = std::make_unique<llama_vocab>();
        if (g) {
            v->load(g);
            gguf_free(g);
        }
    }
    return *v;
}

void bm_tokenize(benchmark::State & state, const char * name) {
    const llama_vocab & v    = vocab(name);
    const std::string   text = mixed_text();
    if (v.n_tokens() == 0) {
        state.SkipWithError("vocab not found");
        return;
    }
    size_t n = 0;
    for (auto _ : state) {
        n = v.tokenize(text, false, false).size();
        benchmark::DoNotOptimize(n);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
    state.counters["tokens"] = static_cast<double>(n);
}

}  // namespace

BENCHMARK_CAPTURE(bm_tokenize, llama_spm, "llama-spm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_tokenize, llama_bpe, "llama-bpe")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_tokenize, qwen2, "qwen2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_tokenize, gpt2, "gpt-2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_tokenize, bert_bge, "bert-bge")->Unit(benchmark::kMillisecond);
