// <arch>.attention.sliding_window_pattern as one flag per layer (upstream reads it as a period or as
// an array, true = sliding window): the flags reach hparams.swa_layers, the flags spelling the default
// period give the same logits as the period, all-false flags give the model without a window, and a
// malformed array (wrong length, strings) is refused with a reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama-model.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-suite.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

using namespace llama_test_util;

namespace {

synth::params gemma3(int n_swa) {
    synth::params p;
    synth::apply_preset("micro", p);
    p.arch    = "gemma3";
    p.n_layer = 7;
    p.n_swa   = n_swa;
    p.n_vocab = 512;
    p.std     = 0.2f;
    return p;
}

std::vector<float> run(const std::string & path, std::vector<bool> * swa_layers = nullptr) {
    model_ptr m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    EXPECT_NE(m, nullptr) << llama_last_error();
    if (!m) {
        return {};
    }
    if (swa_layers) {
        *swa_layers = m->hparams.swa_layers;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 256;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    ctx_ptr ctx(llama_init_from_model(m.get(), cp));
    EXPECT_NE(ctx, nullptr) << llama_last_error();
    const std::vector<llama_token> prompt = synthetic_prompt(40);
    std::vector<llama_token>       out;
    std::vector<float>             rows;
    run_greedy(ctx.get(), prompt, 3, out, rows);
    return rows;
}

class SwaPattern : public quiet_llama_suite<> {};

}  // namespace

TEST_F(SwaPattern, FlagsArrayEqualsPeriod) {
    temp_model    period(gemma3(4));  // the default period 6: layer 5 global
    synth::params p = gemma3(4);
    p.swa_flags     = {true, true, true, true, true, false, true};
    temp_model         flags(p);
    std::vector<bool>  l_period, l_flags;
    std::vector<float> a = run(period.path, &l_period), b = run(flags.path, &l_flags);
    EXPECT_EQ(l_period, p.swa_flags);
    EXPECT_EQ(l_flags, p.swa_flags);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(max_abs_diff(a, b), 0.0);

    // another pattern is read as given and changes the result (the 40-token prompt is past the window)
    p.swa_flags = {false, true, false, true, false, true, false};
    temp_model         other(p);
    std::vector<bool>  l_other;
    std::vector<float> c = run(other.path, &l_other);
    EXPECT_EQ(l_other, p.swa_flags);
    EXPECT_GT(max_abs_diff(a, c), 1e-3);
}

TEST_F(SwaPattern, AllFalseIsNoWindow) {
    synth::params p = gemma3(4);
    p.swa_flags.assign(7, false);
    temp_model    none(p);
    synth::params q = gemma3(4096);  // a window longer than the run: every layer sees everything
    q.swa_flags.assign(7, false);
    temp_model        wide(q);
    std::vector<bool> l;
    const auto        a = run(none.path, &l);
    EXPECT_EQ(l, p.swa_flags);
    EXPECT_EQ(max_abs_diff(a, run(wide.path)), 0.0);
}

TEST_F(SwaPattern, MalformedArrayIsRefused) {
    synth::params p = gemma3(4);
    temp_model    base(p);
    // rewrite the key as an array of the wrong length, then as strings
    for (int bad = 0; bad < 2; bad++) {
        gguf_context * g = gguf_init_from_file(base.path.c_str(), {false});
        ASSERT_NE(g, nullptr);
        if (bad == 0) {
            const int8_t f[3] = {1, 0, 1};
            gguf_set_arr_data(g, "gemma3.attention.sliding_window_pattern", GGUF_TYPE_BOOL, f, 3);
        } else {
            const char * s[7] = {"a", "b", "c", "d", "e", "f", "g"};
            gguf_set_arr_str(g, "gemma3.attention.sliding_window_pattern", s, 7);
        }
        const std::string path = base.path + ".bad.gguf";
        ASSERT_TRUE(gguf_write_to_file(g, path.c_str(), false));
        gguf_free(g);
        llama_model * m = llama_model_load_from_file(path.c_str(), llama_model_default_params());
        EXPECT_EQ(m, nullptr);
        EXPECT_NE(std::string(llama_last_error()).find("sliding_window_pattern"), std::string::npos)
            << llama_last_error();
        llama_model_free(m);
        remove(path.c_str());
    }
}
