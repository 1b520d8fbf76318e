// Ternary types end to end: TQ1_0 / TQ2_0 store {-1, 0, +1} x one F16 scale per 256-value block, which
// only suits ternary-trained weights (BitNet b1.58). A synthetic llama with ternary weight matrices
// (llama-gguf-synth --ternary) is quantized through llama_model_quantize, with and without an importance
// matrix, and must give the F16 run's greedy tokens and nearly its logits (the only error left is the
// 8-bit activations of the CPU dot products). The negative control: the same quantization of the
// Gaussian twin of the model misses the bound by far. docs/quants.md has the measured figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

namespace {

using llama_test_util::ctx_ptr;
using llama_test_util::model_ptr;

constexpr int k_prompt   = 24;
constexpr int k_generate = 24;

struct ternary_row {
    const char * name;
    llama_ftype  ftype;
    ggml_type    type;
    // RMS(logits - F16 logits) / RMS(F16 logits) over all positions: ~1.3x the figure measured with the
    // whole model in the type (docs/quants.md); the Gaussian model gives ~1
    double max_rel_rmse;
};

const ternary_row k_rows[] = {
    {"TQ1_0", LLAMA_FTYPE_MOSTLY_TQ1_0, GGML_TYPE_TQ1_0, 0.017},
    {"TQ2_0", LLAMA_FTYPE_MOSTLY_TQ2_0, GGML_TYPE_TQ2_0, 0.017},
};

// teacher-forced positions whose top token must be the F16 run's (measured 47 of 48: one near-tie)
constexpr double k_min_top1 = 0.95;
// a top-2 gap below this share of the logits' RMS is a near-tie (the logit error is ~1.3% of the RMS)
constexpr double k_tie = 0.05;

void quiet_log(ggml_log_level, const char *, void *) {}

double rms(const float * l, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += (double) l[i] * l[i];
    }
    return std::sqrt(s / n);
}

// the top logit minus the second
double top2_gap(const float * l, int n) {
    const int t   = llama_test_util::argmax(l, n);
    double    gap = INFINITY;
    for (int i = 0; i < n; i++) {
        if (i != t) {
            gap = std::min(gap, (double) l[t] - l[i]);
        }
    }
    return gap;
}

synth::params model_params(bool ternary) {
    synth::params p;
    synth::apply_preset("tiny", p);  // 256 wide, n_ff 768 (whole 256 blocks), 512-token byte vocab, untied
    p.n_layer   = 2;
    p.type      = GGML_TYPE_F16;
    p.n_threads = 2;
    p.ternary   = ternary;
    return p;
}

// Logits of every position of seq, one batch.
std::vector<float> all_logits(const std::string & path, const std::vector<llama_token> & seq, std::string & err) {
    int n_vocab = 0;
    return llama_test_util::sequence_logits(path, seq, n_vocab, err);
}

std::vector<llama_token> greedy(const std::string & path, std::string & err) {
    model_ptr model(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    if (!model) {
        err = std::string("load: ") + llama_last_error();
        return {};
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = 64;
    cp.n_threads = cp.n_threads_batch = 2;
    ctx_ptr ctx(llama_init_from_model(model.get(), cp));
    if (!ctx) {
        err = std::string("context: ") + llama_last_error();
        return {};
    }
    std::vector<llama_token> gen;
    std::vector<float>       rows;
    llama_test_util::run_greedy(ctx.get(), llama_test_util::synthetic_prompt(k_prompt), k_generate, gen, rows);
    return gen;
}

double rel_rmse(const std::vector<float> & a, const std::vector<float> & ref) {
    double se = 0, sr = 0;
    for (size_t i = 0; i < ref.size(); i++) {
        se += (double) (a[i] - ref[i]) * (a[i] - ref[i]);
        sr += (double) ref[i] * ref[i];
    }
    return std::sqrt(se / sr);
}

std::string read_file(const std::string & path) {
    std::string s;
    FILE *      f = fopen(path.c_str(), "rb");
    if (!f) {
        return s;
    }
    char   buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        s.append(buf, n);
    }
    fclose(f);
    return s;
}

// One F16 model and what the quantized ones are compared with.
struct reference_model {
    std::unique_ptr<llama_test_util::temp_model> f16;
    std::vector<llama_token>                     gen;       // F16 greedy continuation of the prompt
    std::vector<llama_token>                     sequence;  // prompt + gen
    std::vector<float>                           logits;    // [sequence position][n_vocab]
    std::string                                  error;

    reference_model(bool ternary, const char * stem) {
        f16 = std::make_unique<llama_test_util::temp_model>(model_params(ternary), stem);
        gen = greedy(f16->path, error);
        if (!error.empty()) {
            return;
        }
        sequence = llama_test_util::synthetic_prompt(k_prompt);
        sequence.insert(sequence.end(), gen.begin(), gen.end());
        logits = all_logits(f16->path, sequence, error);
    }
};

struct shared_state {
    std::unique_ptr<reference_model>          ternary, gaussian;
    std::map<std::string, std::vector<float>> values;  // a random imatrix for every block matrix
    std::vector<llama_model_imatrix_data>     entries;
};

shared_state * g_state = nullptr;

// Log-normal column importances for every 2-D block matrix of the model (what llama-imatrix would give
// a trained model: a few channels far more active than the rest).
void make_imatrix(const std::string & path, shared_state & s) {
    gguf_context * g = gguf_init_from_file(path.c_str(), {/*no_alloc =*/true});
    ASSERT_NE(g, nullptr);
    std::mt19937                    rng(7);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const std::string name = gguf_get_tensor_name(g, i);
        int64_t           ne[4];
        gguf_get_tensor_shape(g, i, ne);
        if (name.rfind("blk.", 0) == 0 && gguf_get_tensor_n_dims(g, i) == 2) {
            auto & v = s.values[name];
            for (int64_t j = 0; j < ne[0]; j++) {
                v.push_back(std::exp(1.5f * nd(rng)));
            }
        }
    }
    gguf_free(g);
    for (const auto & kv : s.values) {
        s.entries.push_back({kv.first.c_str(), kv.second.data(), kv.second.size()});
    }
    s.entries.push_back({nullptr, nullptr, 0});
}

class TernaryE2E : public ::testing::TestWithParam<ternary_row> {
public:
    static void SetUpTestSuite() {
        llama_log_set(quiet_log, nullptr);
        g_state           = new shared_state();
        g_state->ternary  = std::make_unique<reference_model>(true, "ternary-f16.gguf");
        g_state->gaussian = std::make_unique<reference_model>(false, "ternary-gauss-f16.gguf");
        make_imatrix(g_state->ternary->f16->path, *g_state);
    }

    static void TearDownTestSuite() {
        delete g_state;
        g_state = nullptr;
        llama_log_set(nullptr, nullptr);
    }
};

// The share of positions whose top token is the F16 run's (q: logits of ref.sequence).
double top1_agreement(const std::vector<float> & q, const reference_model & ref) {
    const int nv   = (int) (ref.logits.size() / ref.sequence.size());
    int       same = 0;
    for (size_t pos = 0; pos < ref.sequence.size(); pos++) {
        same += llama_test_util::argmax(q.data() + pos * nv, nv) ==
                llama_test_util::argmax(ref.logits.data() + pos * nv, nv);
    }
    return (double) same / (double) ref.sequence.size();
}

// Every matrix in the row's type (the default mix keeps token_embd Q4_K and the LM head Q6_K: their error
// would hide the ternary type's); the output file's name is returned, "" on failure with err set.
std::string quantize(const std::string & in, const ternary_row & row, bool whole_model, bool with_imatrix,
                     const char * stem, std::string & err) {
    const std::string           out = testing_util::write_temp_file(stem, {});
    llama_model_quantize_params qp  = llama_model_quantize_default_params();
    qp.ftype                        = row.ftype;
    qp.nthread                      = 2;
    qp.imatrix                      = with_imatrix ? g_state->entries.data() : nullptr;
    if (whole_model) {
        qp.output_tensor_type   = row.type;
        qp.token_embedding_type = row.type;
    }
    if (llama_model_quantize(in.c_str(), out.c_str(), &qp) != 0) {
        err = std::string("quantize: ") + llama_last_error();
        remove(out.c_str());
        return "";
    }
    return out;
}

// The types of the file's 2-D tensors, by name.
std::map<std::string, ggml_type> matrix_types(const std::string & path) {
    std::map<std::string, ggml_type> m;
    gguf_context *                   g = gguf_init_from_file(path.c_str(), {/*no_alloc =*/true});
    if (!g) {
        return m;
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        if (gguf_get_tensor_n_dims(g, i) == 2) {
            m[gguf_get_tensor_name(g, i)] = gguf_get_tensor_type(g, i);
        }
    }
    gguf_free(g);
    return m;
}

// How many matrix values of the quantized file dequantize to something else than the F16 file's
// (-1 if the files do not pair up).
int64_t count_changed_weights(const std::string & f16_path, const std::string & q_path) {
    gguf_context * a       = gguf_init_from_file(f16_path.c_str(), {/*no_alloc =*/false});
    gguf_context * b       = gguf_init_from_file(q_path.c_str(), {/*no_alloc =*/false});
    int64_t        changed = a && b && gguf_get_n_tensors(a) == gguf_get_n_tensors(b) ? 0 : -1;
    for (int64_t i = 0; changed >= 0 && i < gguf_get_n_tensors(a); i++) {
        if (gguf_get_tensor_n_dims(a, i) != 2) {
            continue;
        }
        const int64_t j = gguf_find_tensor(b, gguf_get_tensor_name(a, i));
        int64_t       ne[4];
        gguf_get_tensor_shape(a, i, ne);
        if (j < 0 || gguf_get_tensor_type(a, i) != GGML_TYPE_F16) {
            changed = -1;
            break;
        }
        const int64_t      n = ne[0] * ne[1];
        std::vector<float> x(n), y(n);
        ggml_fp16_to_fp32_row((const ggml_fp16_t *) gguf_get_tensor_data(a, i), x.data(), n);
        if (!ggml_dequantize_row(gguf_get_tensor_type(b, j), gguf_get_tensor_data(b, j), y.data(), n)) {
            changed = -1;
            break;
        }
        for (int64_t k = 0; k < n; k++) {
            changed += x[k] != y[k];
        }
    }
    gguf_free(a);
    gguf_free(b);
    return changed;
}

}  // namespace

// The generator's ternary option: every matrix holds one scale per tensor times {-1, 0, +1}, about a
// third zeros; norms stay 1.
TEST_F(TernaryE2E, GeneratorWritesTernaryMatrices) {
    ASSERT_TRUE(g_state->ternary->error.empty()) << g_state->ternary->error;
    gguf_context * g = gguf_init_from_file(g_state->ternary->f16->path.c_str(), {/*no_alloc =*/false});
    ASSERT_NE(g, nullptr);
    int n_matrices = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const std::string name = gguf_get_tensor_name(g, i);
        int64_t           ne[4];
        gguf_get_tensor_shape(g, i, ne);
        const int64_t n = ne[0] * ne[1];
        if (gguf_get_tensor_n_dims(g, i) != 2) {
            continue;
        }
        ASSERT_EQ(gguf_get_tensor_type(g, i), GGML_TYPE_F16) << name;
        const ggml_fp16_t * v     = (const ggml_fp16_t *) gguf_get_tensor_data(g, i);
        float               scale = 0;
        int64_t             zeros = 0, pos = 0;
        for (int64_t j = 0; j < n; j++) {
            const float x = ggml_fp16_to_fp32(v[j]);
            if (x == 0) {
                zeros++;
                continue;
            }
            scale = scale == 0 ? std::fabs(x) : scale;
            ASSERT_EQ(std::fabs(x), scale) << name << " value " << j;
            pos += x > 0;
        }
        EXPECT_NEAR((double) zeros / (double) n, 1.0 / 3.0, 0.02) << name;
        EXPECT_NEAR((double) pos / (double) n, 1.0 / 3.0, 0.02) << name;
        n_matrices++;
    }
    gguf_free(g);
    EXPECT_EQ(n_matrices, 2 + 2 * 7);  // token_embd, output, 7 per layer
}

TEST_P(TernaryE2E, QuantizedModelKeepsTheF16Run) {
    const reference_model & ref = *g_state->ternary;
    ASSERT_TRUE(ref.error.empty()) << ref.error;
    const ternary_row & row = GetParam();
    std::string         err;
    const std::string   plain = quantize(ref.f16->path, row, true, false, "ternary-q.gguf", err);
    ASSERT_FALSE(plain.empty()) << err;
    const std::string with = quantize(ref.f16->path, row, true, true, "ternary-qi.gguf", err);
    ASSERT_FALSE(with.empty()) << err;

    for (const auto & kv : matrix_types(plain)) {
        EXPECT_EQ(kv.second, row.type) << row.name << ": " << kv.first;
    }
    // ternary x an F16 scale is exactly what the type stores: every weight comes back bit for bit
    EXPECT_EQ(count_changed_weights(ref.f16->path, plain), 0) << row.name;
    // the ternary quantizers take no importance weights (as llama.cpp): an imatrix changes no byte
    const std::string bytes = read_file(plain);
    EXPECT_GT(bytes.size(), 0u);
    EXPECT_TRUE(bytes == read_file(with)) << row.name << ": the imatrix changed the file";
    remove(with.c_str());

    const std::vector<llama_token> gen = greedy(plain, err);
    ASSERT_TRUE(err.empty()) << err;
    const std::vector<float> q = all_logits(plain, ref.sequence, err);
    remove(plain.c_str());
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_EQ(q.size(), ref.logits.size());
    const double e    = rel_rmse(q, ref.logits);
    const double top1 = top1_agreement(q, ref);
    printf("%s whole model: rel. logit RMSE %.5f, top-1 agreement %.2f\n", row.name, e, top1);
    EXPECT_LE(e, row.max_rel_rmse) << row.name;
    EXPECT_GE(top1, k_min_top1) << row.name;
    // greedy: the F16 run's tokens until the F16 run itself had a near-tie (the 8-bit activations may
    // break it the other way; the random model's logits have several within 0.5% of their RMS)
    ASSERT_EQ(gen.size(), ref.gen.size());
    size_t agreed = 0;
    while (agreed < gen.size() && gen[agreed] == ref.gen[agreed]) {
        agreed++;
    }
    if (agreed < gen.size()) {
        const int     nv = (int) (ref.logits.size() / ref.sequence.size());
        const float * l  = ref.logits.data() + (k_prompt - 1 + agreed) * nv;
        EXPECT_LT(top2_gap(l, nv), k_tie * rms(l, nv))
            << row.name << ": greedy token " << agreed << " differs from the F16 run without a near-tie";
    }
    printf("%s: greedy tokens equal to the F16 run's for %zu of %zu steps\n", row.name, agreed, gen.size());

    // the default mix (token_embd Q4_K, LM head Q6_K), for docs/quants.md
    const std::string mix = quantize(ref.f16->path, row, false, false, "ternary-mix.gguf", err);
    ASSERT_FALSE(mix.empty()) << err;
    const std::vector<float> qm = all_logits(mix, ref.sequence, err);
    remove(mix.c_str());
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_EQ(qm.size(), ref.logits.size());
    printf("%s default mix: rel. logit RMSE %.5f\n", row.name, rel_rmse(qm, ref.logits));
}

// Negative control: the Gaussian twin of the model, quantized the same way, is far outside the bound
// (the test above can fail).
TEST_P(TernaryE2E, GaussianModelMissesTheBound) {
    const reference_model & ref = *g_state->gaussian;
    ASSERT_TRUE(ref.error.empty()) << ref.error;
    const ternary_row & row = GetParam();
    std::string         err;
    const std::string   out = quantize(ref.f16->path, row, true, false, "ternary-gq.gguf", err);
    ASSERT_FALSE(out.empty()) << err;
    const std::vector<float> q = all_logits(out, ref.sequence, err);
    remove(out.c_str());
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_EQ(q.size(), ref.logits.size());
    const double e    = rel_rmse(q, ref.logits);
    const double top1 = top1_agreement(q, ref);
    printf("%s on the Gaussian model: rel. logit RMSE %.4f, top-1 agreement %.2f\n", row.name, e, top1);
    EXPECT_GT(e, 10 * row.max_rel_rmse) << row.name;
    EXPECT_LT(top1, k_min_top1) << row.name;
}

INSTANTIATE_TEST_SUITE_P(Types, TernaryE2E, ::testing::ValuesIn(k_rows),
                         [](const ::testing::TestParamInfo<ternary_row> & i) { return std::string(i.param.name); });
