// Thread safety of the public API: one model shared by contexts on several threads gives the same
// tokens as serial runs; llama_backend_init, model loads, tokenization (lazy tables), logging and
// the last-error string are safe from several threads at once. Fast enough to run under
// ThreadSanitizer (LLAMA_SANITIZE_THREAD), which is what finds the races these tests provoke.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

// counts the messages so the callback really runs concurrently from several threads
std::atomic<int> g_log_count{0};

void counting_log(ggml_log_level, const char *, void *) {
    g_log_count++;
}

const char * const k_models[]  = {"models/stories260K.gguf", "models/synthetic/llama-micro-f16.gguf"};
const char * const k_prompts[] = {"Once upon a time", "The little dog", "Lily and Tom went"};
constexpr int      k_steps     = 12;
constexpr int      k_threads   = 4;

llama_context * new_ctx(const llama_model * m) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_batch              = 64;
    cp.n_threads            = 2;  // each context runs its own CPU thread pool as well
    cp.n_threads_batch      = 2;
    return llama_init_from_model(const_cast<llama_model *>(m), cp);
}

// Greedy tokens for prompt on a fresh context of m.
std::vector<llama_token> generate(const llama_model * m, const char * prompt) {
    ctx_ptr                  ctx(new_ctx(m));
    std::vector<llama_token> out;
    std::vector<float>       rows;
    if (!ctx) {
        ADD_FAILURE() << "context: " << llama_last_error();
        return out;
    }
    run_greedy(ctx.get(), tokenize(m, prompt), k_steps, out, rows);
    return out;
}

model_ptr load(const char * rel) {
    return model_ptr(llama_model_load_from_file(data_path(rel).c_str(), llama_model_default_params()));
}

class Concurrency : public ::testing::Test {
protected:
    void SetUp() override {
        llama_log_set(counting_log, nullptr);
        llama_backend_init();
    }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

TEST_F(Concurrency, ContextsOnSharedModelMatchSerialRuns) {
    for (const char * rel : k_models) {
        model_ptr m = load(rel);
        ASSERT_NE(m, nullptr) << rel << ": " << llama_last_error();
        const int                             n_prompts = (int) (sizeof k_prompts / sizeof k_prompts[0]);
        std::vector<std::vector<llama_token>> serial;
        for (int p = 0; p < n_prompts; p++) {
            serial.push_back(generate(m.get(), k_prompts[p]));
            ASSERT_FALSE(serial.back().empty()) << rel;
        }
        // every thread runs every prompt, starting at a different one so different prompts overlap
        std::vector<std::vector<std::vector<llama_token>>> got(k_threads);
        std::vector<std::thread>                           threads;
        for (int t = 0; t < k_threads; t++) {
            threads.emplace_back([&, t] {
                for (int k = 0; k < n_prompts; k++) {
                    got[t].push_back(generate(m.get(), k_prompts[(t + k) % n_prompts]));
                }
            });
        }
        for (auto & th : threads) {
            th.join();
        }
        for (int t = 0; t < k_threads; t++) {
            for (int k = 0; k < n_prompts; k++) {
                EXPECT_EQ(got[t][k], serial[(t + k) % n_prompts]) << rel << " thread " << t << " prompt " << k;
            }
        }
    }
}

TEST_F(Concurrency, BackendInitLoadsAndTokenizationInParallel) {
    // the first user of each lazy table may be any thread: vocab + unicode (BPE regex) tables, backend registry,
    // CPU feature detection, type traits
    std::vector<std::thread>      threads;
    std::vector<std::vector<int>> n_tokens(k_threads);
    std::vector<std::string>      errors(k_threads);
    std::atomic<bool>             go{false};
    const std::string             text = "Hello wörld, 123 — ünïcode & émoji 🙂 tokens";
    for (int t = 0; t < k_threads; t++) {
        threads.emplace_back([&, t] {
            while (!go) {
                std::this_thread::yield();
            }
            llama_backend_init();
            model_ptr m = load(k_models[t % 2]);
            if (!m) {
                errors[t] = llama_last_error();
                return;
            }
            for (const char * vrel : {"vocab/ggml-vocab-llama-bpe.gguf", "vocab/ggml-vocab-llama-spm.gguf"}) {
                llama_model_params mp = llama_model_default_params();
                mp.vocab_only         = true;
                model_ptr v(llama_model_load_from_file(data_path(vrel).c_str(), mp));
                if (!v) {
                    errors[t] = llama_last_error();
                    return;
                }
                n_tokens[t].push_back((int) tokenize(v.get(), text, false).size());
            }
            n_tokens[t].push_back((int) tokenize(m.get(), text).size());
            (void) llama_print_system_info();
            ctx_ptr ctx(new_ctx(m.get()));
            if (!ctx) {
                errors[t] = llama_last_error();
            }
        });
    }
    go = true;
    for (auto & th : threads) {
        th.join();
    }
    for (int t = 0; t < k_threads; t++) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
        ASSERT_EQ(n_tokens[t].size(), 3u) << "thread " << t;
        EXPECT_EQ(n_tokens[t][0], n_tokens[0][0]);
        EXPECT_EQ(n_tokens[t][1], n_tokens[0][1]);
        EXPECT_EQ(n_tokens[t][2], n_tokens[t % 2][2]);
    }
}

TEST_F(Concurrency, LastErrorIsPerThreadAndLogSetIsSafe) {
    std::vector<std::thread> threads;
    std::vector<std::string> mine(k_threads), after(k_threads);
    std::atomic<bool>        stop{false};
    // a thread switching the log callback while the others log errors
    std::thread switcher([&] {
        while (!stop) {
            llama_log_set(counting_log, nullptr);
            llama_log_set(counting_log, &stop);
        }
    });
    for (int t = 0; t < k_threads; t++) {
        threads.emplace_back([&, t] {
            const std::string path = "/nonexistent/model-" + std::to_string(t) + ".gguf";
            for (int i = 0; i < 20; i++) {
                EXPECT_EQ(llama_model_load_from_file(path.c_str(), llama_model_default_params()), nullptr);
            }
            mine[t] = llama_last_error();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // others fail meanwhile
            after[t] = llama_last_error();
        });
    }
    for (auto & th : threads) {
        th.join();
    }
    stop = true;
    switcher.join();
    for (int t = 0; t < k_threads; t++) {
        EXPECT_NE(mine[t].find("model-" + std::to_string(t) + ".gguf"), std::string::npos) << mine[t];
        EXPECT_EQ(after[t], mine[t]);
    }
    EXPECT_GT(g_log_count.load(), 0);
}

}  // namespace
