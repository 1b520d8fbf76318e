// Multi-token prediction (MTP): the qwen35 and deepseek2 (latent attention) NextN blocks loaded with
// load_mtp and run in an MTP context give upstream's logits (tests/data/reference,
// tests/probe/mtp-logits.cpp); the MTP drafter (LLAMA_SPEC_TYPE_MTP) keeps greedy output identical to
// plain decoding for draft lengths 1-4 (qwen35, qwen35moe -- written by the test as the reference's
// command writes it -- and deepseek2), leaves
// no rejected position in the target's cache or the head's own; the target keeps every token's hidden
// row at its (sequence, position), so a prompt decoded with one output gives the head the whole
// prompt; misuse is refused with its reason.
#include <cmath>
#include <cstring>
#include <string>

#include "llama-context.h"
#include "llama-speculative-impl.h"
#include "test-speculative-util.h"

using namespace spec_test;
using testing_util::data_path;

namespace {

const char * k_mtp_model = "models/synthetic/qwen35-mtp-micro-f16.gguf";
// deepseek2's micro shape with a fourth block that is a NextN block (latent attention, experts)
const char * k_ds_mtp_model = "models/synthetic/deepseek2-mtp-micro-f16.gguf";

// The probe's tokens (tests/data/reference/README.md, "MTP head").
const std::vector<llama_token> k_tokens = {1, 17, 42, 99, 3, 64, 127, 8, 200, 31, 45, 7, 150, 90, 201, 33};

model_ptr load_mtp(const std::string & path, bool mtp = true) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    mp.load_mtp           = mtp;
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

// Three prompts of different lengths, one per sequence.
const std::vector<std::vector<llama_token>> k_three_prompts = {
    {1, 17, 42, 99, 3}, {1, 64, 127, 8, 200, 31, 45}, {1, 7, 150}};

// The probe's contexts: 64 cells, one thread, no flash attention.
ctx_ptr probe_ctx(llama_model * m, llama_context_type type, bool embeddings) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = 64;
    cp.n_threads = cp.n_threads_batch = 1;
    cp.flash_attn_type                = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.ctx_type                       = type;
    cp.embeddings                     = embeddings;
    return ctx_ptr(llama_init_from_model(m, cp));
}

// A context of n_ctx cells and batch with ubatches of n_ubatch tokens, 2 threads.
ctx_ptr split_ctx(llama_model * m, uint32_t n_ctx, uint32_t n_ubatch, uint32_t n_seq = 1) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = n_ctx;
    cp.n_ubatch           = n_ubatch;
    cp.n_seq_max          = n_seq;
    cp.n_threads = cp.n_threads_batch = 2;
    return ctx_ptr(llama_init_from_model(m, cp));
}

// A probe context holding prompt decoded alone with an output per token and embeddings on: its
// embedding rows are the final norm's rows of the prompt's tokens (nullptr on failure, recorded).
ctx_ptr final_norm_rows(llama_model * m, const std::vector<llama_token> & prompt) {
    ctx_ptr     ref = probe_ctx(m, LLAMA_CONTEXT_TYPE_DEFAULT, true);
    owned_batch b((int) prompt.size());
    for (size_t i = 0; i < prompt.size(); i++) {
        b.add(prompt[i], (llama_pos) i, {0}, true);
    }
    if (!ref || llama_decode(ref.get(), b.b) != 0) {
        ADD_FAILURE() << llama_last_error();
        return nullptr;
    }
    return ref;
}

bool error_mentions(const char * what) {
    return std::string(llama_last_error()).find(what) != std::string::npos;
}

// Rows a and b (n rows of width w) agree within tol times each row's RMS (float noise across batch shapes).
void expect_rows_near(const float * a, const float * b, int n, int w, double tol, const char * what) {
    ASSERT_NE(a, nullptr) << what;
    ASSERT_NE(b, nullptr) << what;
    for (int r = 0; r < n; r++) {
        double ss = 0.0, worst = 0.0;
        for (int k = 0; k < w; k++) {
            const size_t i = (size_t) r * w + k;
            ss += (double) b[i] * b[i];
            worst = std::max(worst, (double) std::fabs(a[i] - b[i]));
        }
        EXPECT_LE(worst, tol * std::sqrt(ss / w)) << what << ", row " << r;
    }
}

// The target's final-norm rows of k_tokens, then the MTP context's logits for the pairs (token p, row
// p - 1), against upstream's (the probe's run): within 1% of each row's RMS.
void expect_upstream_logits(llama_model * m, const std::string & ref_path) {
    ctx_ptr tgt = probe_ctx(m, LLAMA_CONTEXT_TYPE_DEFAULT, true);
    ctx_ptr mtp = probe_ctx(m, LLAMA_CONTEXT_TYPE_MTP, false);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(mtp, nullptr);
    const int   n = (int) k_tokens.size();
    owned_batch b(n);
    for (int i = 0; i < n; i++) {
        b.add(k_tokens[i], i, {0}, true);
    }
    ASSERT_EQ(llama_decode(tgt.get(), b.b), 0) << llama_last_error();

    const int                   n_embd = llama_model_n_embd(m);
    std::vector<llama_token>    tok(k_tokens);
    std::vector<float>          embd((size_t) n * n_embd, 0.0f);
    std::vector<llama_pos>      pos(n);
    std::vector<int32_t>        n_seq(n, 1);
    llama_seq_id                seq0 = 0;
    std::vector<llama_seq_id *> seqs(n, &seq0);
    std::vector<int8_t>         out(n, 1);
    for (int i = 0; i < n; i++) {
        pos[i] = i;
        if (i > 0) {
            const float * h = llama_get_embeddings_ith(tgt.get(), i - 1);
            ASSERT_NE(h, nullptr);
            std::memcpy(embd.data() + (size_t) i * n_embd, h, sizeof(float) * n_embd);
        }
    }
    llama_batch mb = {n, tok.data(), embd.data(), pos.data(), n_seq.data(), seqs.data(), out.data()};
    ASSERT_EQ(llama_decode(mtp.get(), mb), 0) << llama_last_error();

    const std::vector<float> ref = testing_util::read_f32(data_path(ref_path));
    const int                nv  = llama_vocab_n_tokens(llama_model_get_vocab(m));
    ASSERT_EQ(ref.size(), (size_t) n * nv);
    for (int i = 0; i < n; i++) {
        const float * got  = llama_get_logits_ith(mtp.get(), i);
        const float * want = ref.data() + (size_t) i * nv;
        double        ss = 0.0, worst = 0.0;
        for (int k = 0; k < nv; k++) {
            ss += (double) want[k] * want[k];
            worst = std::max(worst, (double) std::fabs(got[k] - want[k]));
        }
        EXPECT_LE(worst, 0.01 * std::sqrt(ss / nv)) << "row " << i;
    }

    // a batch of tokens alone is not an MTP batch
    owned_batch only(1);
    only.add(k_tokens[0], n, {0}, true);
    EXPECT_EQ(llama_decode(mtp.get(), only.b), -1);
    EXPECT_TRUE(error_mentions("both tokens and embeddings")) << llama_last_error();
}

// Micro model `micro` (synth::micro_model_files) with n_layer blocks of which the last is a NextN block,
// written to `file` and loaded with load_mtp.
model_ptr write_mtp(std::unique_ptr<temp_model> & file, const char * micro, int64_t n_layer) {
    synth::params p;
    EXPECT_TRUE(synth::apply_micro_model(micro, p));
    p.vocab_path = data_path("models/synthetic/llama-micro-f16.gguf");
    p.n_layer    = n_layer;
    p.n_nextn    = 1;
    file.reset(new temp_model(p, std::string(micro) + "-mtp.gguf"));
    return load_mtp(file->path);
}

// The micro qwen35moe shape with a NextN block (its experts and shared expert), as the reference's
// command writes it (tests/data/reference/README.md, "MTP head").
model_ptr write_moe_mtp(std::unique_ptr<temp_model> & file) {
    return write_mtp(file, "qwen35moe", 7);
}

// Greedy speculative decoding with MTP drafts equals plain decoding for draft lengths 1-4 (every step
// drafts: no probability cut, no adaptive length), and the head's drafts are used.
void expect_greedy_identity(llama_model * m) {
    const std::vector<llama_token> prompt(k_tokens.begin(), k_tokens.begin() + 8);
    ctx_ptr                        ref  = make_ctx(m);
    const std::vector<llama_token> want = plain_greedy(ref.get(), prompt, 32);
    for (int n_draft = 1; n_draft <= 4; n_draft++) {
        ctx_ptr  ct = make_ctx(m);
        spec_ptr spec(llama_spec_init(ct.get(), nullptr, fixed_draft_params(n_draft, LLAMA_SPEC_TYPE_MTP)));
        ASSERT_NE(spec, nullptr) << llama_last_error();
        EXPECT_EQ(spec_greedy(spec.get(), ct.get(), prompt, 32), want) << "n_draft_max " << n_draft;
        llama_spec_stats st;
        ASSERT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
        EXPECT_GT(st.n_drafted, 0) << "n_draft_max " << n_draft;
    }
}

}  // namespace

// mtp_file's one NextN block (after n_layer decoder blocks) loads with load_mtp only: without it the
// block is skipped, the decoder runs and an MTP context is refused. plain_file, the same architecture
// without NextN blocks, loads with load_mtp and has nothing for an MTP context.
static void expect_nextn_loaded_with_load_mtp_only(const char * mtp_file, int n_layer, const char * plain_file) {
    model_ptr with = load_mtp(data_path(mtp_file));
    ASSERT_NE(with, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer_nextn(with.get()), 1);
    EXPECT_EQ(llama_model_n_layer(with.get()), n_layer);
    EXPECT_NE(probe_ctx(with.get(), LLAMA_CONTEXT_TYPE_MTP, false), nullptr) << llama_last_error();

    model_ptr without = load_mtp(data_path(mtp_file), false);
    ASSERT_NE(without, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer_nextn(without.get()), 1);
    EXPECT_EQ(llama_model_n_layer(without.get()), n_layer);
    EXPECT_NE(probe_ctx(without.get(), LLAMA_CONTEXT_TYPE_DEFAULT, false), nullptr);
    EXPECT_EQ(probe_ctx(without.get(), LLAMA_CONTEXT_TYPE_MTP, false), nullptr);
    EXPECT_TRUE(error_mentions("load_mtp")) << llama_last_error();

    model_ptr plain = load_mtp(data_path(plain_file));
    ASSERT_NE(plain, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer_nextn(plain.get()), 0);
    EXPECT_EQ(probe_ctx(plain.get(), LLAMA_CONTEXT_TYPE_MTP, false), nullptr);
    EXPECT_TRUE(error_mentions("no NextN")) << llama_last_error();
}

TEST(Mtp, LoadsWithLoadMtpOnly) {
    llama_log_set(quiet_log, nullptr);
    expect_nextn_loaded_with_load_mtp_only(k_mtp_model, 6, "models/synthetic/qwen35-micro-f16.gguf");

    // glm4moe has NextN blocks but no MTP graph here: load_mtp is refused by name
    EXPECT_EQ(load_mtp(data_path("models/synthetic/glm4moe-micro-f16.gguf")), nullptr);
    EXPECT_TRUE(error_mentions("load_mtp: glm4moe")) << llama_last_error();
}

// The stored model model_file loaded with load_mtp: its MTP logits against upstream's in ref_path.
static void expect_upstream_logits_of(const char * model_file, const std::string & ref_path) {
    model_ptr m = load_mtp(data_path(model_file));
    ASSERT_NE(m, nullptr) << llama_last_error();
    expect_upstream_logits(m.get(), ref_path);
}

TEST(Mtp, LogitsMatchUpstream) {
    llama_log_set(quiet_log, nullptr);
    expect_upstream_logits_of(k_mtp_model, "reference/qwen35-mtp-micro-f16.mtp.logits.f32");
}

TEST(Mtp, MoeLogitsMatchUpstream) {
    llama_log_set(quiet_log, nullptr);
    std::unique_ptr<temp_model> file;
    model_ptr                   m = write_moe_mtp(file);
    ASSERT_NE(m, nullptr) << llama_last_error();
    expect_upstream_logits(m.get(), "reference/qwen35moe-mtp-synth.mtp.logits.f32");
}

// deepseek2: the NextN block (latent attention, experts) loads with load_mtp only; without NextN tensors
// in the file (the plain micro model) load_mtp loads the decoder and an MTP context or drafter is refused.
TEST(Mtp, Deepseek2LoadsWithLoadMtpOnly) {
    llama_log_set(quiet_log, nullptr);
    const char * plain_file = "models/synthetic/deepseek2-micro-f16.gguf";
    expect_nextn_loaded_with_load_mtp_only(k_ds_mtp_model, 3, plain_file);
    // and the drafter on the plain file
    model_ptr plain = load_mtp(data_path(plain_file));
    ASSERT_NE(plain, nullptr) << llama_last_error();
    ctx_ptr           ct = make_ctx(plain.get());
    llama_spec_params sp = llama_spec_default_params();
    sp.type              = LLAMA_SPEC_TYPE_MTP;
    EXPECT_EQ(llama_spec_init(ct.get(), nullptr, sp), nullptr);
    EXPECT_TRUE(error_mentions("no NextN")) << llama_last_error();

    // the older fused attn_kv_b form has no head here (nor upstream): its MTP context names the reason
    std::unique_ptr<temp_model> kvb;
    model_ptr                   fused = write_mtp(kvb, "deepseek2-kvb", 4);
    ASSERT_NE(fused, nullptr) << llama_last_error();
    EXPECT_EQ(probe_ctx(fused.get(), LLAMA_CONTEXT_TYPE_MTP, false), nullptr);
    EXPECT_TRUE(error_mentions("split latent attention")) << llama_last_error();
}

TEST(Mtp, Deepseek2LogitsMatchUpstream) {
    llama_log_set(quiet_log, nullptr);
    expect_upstream_logits_of(k_ds_mtp_model, "reference/deepseek2-mtp-micro-f16.mtp.logits.f32");
}

TEST(Mtp, Deepseek2GreedyEqualsPlainDecoding) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_mtp(data_path(k_ds_mtp_model));
    ASSERT_NE(m, nullptr) << llama_last_error();
    expect_greedy_identity(m.get());
}

TEST(Mtp, GreedyEqualsPlainDecoding) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(m, nullptr) << llama_last_error();
    expect_greedy_identity(m.get());
    std::unique_ptr<temp_model> file;
    model_ptr                   moe = write_moe_mtp(file);
    ASSERT_NE(moe, nullptr) << llama_last_error();
    expect_greedy_identity(moe.get());
}

// Three sequences stepped together (one MTP batch per drafting round, one verification batch) give
// each sequence's plain greedy text.
TEST(Mtp, SeveralSequencesEqualEachAlone) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const std::vector<std::vector<llama_token>> & prompts = k_three_prompts;
    const size_t                                  n_gen   = 24;
    std::vector<std::vector<llama_token>>         want;
    for (const auto & p : prompts) {
        ctx_ptr ref = make_ctx(m.get());
        want.push_back(plain_greedy(ref.get(), p, (int) n_gen));
    }
    ctx_ptr  ct = make_ctx(m.get(), 3);
    spec_ptr spec(llama_spec_init(ct.get(), nullptr, fixed_draft_params(3, LLAMA_SPEC_TYPE_MTP)));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    const std::vector<std::vector<llama_token>> got = spec_greedy_seqs(spec.get(), ct.get(), prompts, n_gen);
    for (size_t s = 0; s < prompts.size(); s++) {
        EXPECT_EQ(got[s], want[s]) << "sequence " << s;
    }
    llama_spec_stats st;
    ASSERT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
    EXPECT_GT(st.n_drafted, 0);
}

// After each step (rejections included) the target's cache ends at the kept history and the head's
// cache holds no drafted position: only pairs below the sequence's mtp_from, none past the history.
TEST(Mtp, RejectedDraftsLeaveNoTrace) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(m, nullptr) << llama_last_error();
    ctx_ptr  ct = make_ctx(m.get());
    spec_ptr spec(llama_spec_init(ct.get(), nullptr, fixed_draft_params(4, LLAMA_SPEC_TYPE_MTP)));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    std::vector<llama_token> hist;
    llama_token              last = 0;
    const int                rej  = spec_run_steps(
                        spec.get(), ct.get(), k_tokens, 12, hist, last,
                        [&](int step, const llama_spec_seq &, const std::vector<llama_token> &) {
            EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(ct.get()), 0), (llama_pos) hist.size() - 1) << step;
            const llama_spec_seq_state & st = spec->seqs.at(0);
            const llama_pos              mtp_max = llama_memory_seq_pos_max(llama_get_memory(spec->ctx_mtp), 0);
            EXPECT_LT(mtp_max, (llama_pos) st.mtp_from) << step;
            EXPECT_LT(mtp_max, (llama_pos) hist.size()) << step;
            EXPECT_EQ(st.h.size(), (hist.size() + 1 - st.mtp_from) * (size_t) llama_model_n_embd(m.get())) << step;
        });
    EXPECT_GT(rej, 0) << "no draft was rejected: the rollback went untested";
    // and the target continues as a context that never saw the rejected drafts
    expect_continues_like_fresh(ct.get(), m.get(), hist, last);
}

// A prompt decoded with one output (the usual call) gives the head the whole prompt, as one decoded
// with an output per token does: the target keeps every token's row while it drafts with MTP. Both
// give the same pairs, the same head cache (positions 1 .. n after the first step) and the same MTP
// logits; the target's own logits of the prompt's last token are those of a context without MTP.
static void expect_prompt_rows_start_the_head(const char * model_file) {
    model_ptr m = load_mtp(data_path(model_file));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const std::vector<llama_token> prompt(k_tokens.begin(), k_tokens.begin() + 8);
    const llama_pos                n     = (llama_pos) prompt.size();
    const int                      nv    = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    ctx_ptr                        plain = make_ctx(m.get());
    ASSERT_TRUE(decode(plain.get(), prompt, 0));
    const std::vector<float> plain_logits(llama_get_logits_ith(plain.get(), -1),
                                          llama_get_logits_ith(plain.get(), -1) + nv);

    std::vector<float> h[2], mtp_logits[2];
    for (bool all : {false, true}) {
        ctx_ptr  ct = make_ctx(m.get());
        spec_ptr spec(llama_spec_init(ct.get(), nullptr, fixed_draft_params(1, LLAMA_SPEC_TYPE_MTP)));
        ASSERT_NE(spec, nullptr) << llama_last_error();
        owned_batch b((int) n);
        for (llama_pos i = 0; i < n; i++) {
            b.add(prompt[(size_t) i], i, {0}, all || i + 1 == n);
        }
        ASSERT_EQ(llama_decode(ct.get(), b.b), 0);
        expect_rows_near(llama_get_logits_ith(ct.get(), -1), plain_logits.data(), 1, nv, 1e-4, "target logits");
        ASSERT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), n), 0) << llama_last_error();
        EXPECT_EQ(spec->seqs.at(0).mtp_from, 1u) << all;
        h[all] = spec->seqs.at(0).h;
        std::vector<llama_token> buf(LLAMA_SPEC_DRAFT_MAX + 1);
        llama_spec_seq           s = {0, argmax_row(ct.get(), -1), nullptr, buf.data(), 0, 0, 0, 0, 0.0f, 0};
        ASSERT_EQ(llama_spec_step(spec.get(), &s, 1), 0) << llama_last_error();
        EXPECT_GT(s.n_drafted, 0) << all;
        // one drafting round: its one output is the head's prediction after id_last's pair
        const float * lg = llama_get_logits_ith(spec->ctx_mtp, -1);
        ASSERT_NE(lg, nullptr);
        mtp_logits[all].assign(lg, lg + nv);
        llama_memory_t mem = llama_get_memory(spec->ctx_mtp);
        EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), 1) << all;
        EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), n) << all;  // id_last's pair; the drafts' are gone
    }
    const int n_embd = llama_model_n_embd(m.get());
    ASSERT_EQ(h[0].size(), (size_t) n * n_embd);
    ASSERT_EQ(h[1].size(), h[0].size());
    expect_rows_near(h[0].data(), h[1].data(), n, n_embd, 1e-4, "prompt rows");
    // and they are the final norm's rows of the prompt's tokens in order
    ctx_ptr ref = final_norm_rows(m.get(), prompt);
    ASSERT_NE(ref, nullptr);
    expect_rows_near(h[0].data(), llama_get_embeddings(ref.get()), n, n_embd, 1e-3, "prompt rows vs embeddings");
    expect_rows_near(mtp_logits[0].data(), mtp_logits[1].data(), 1, nv, 1e-4, "MTP logits");
}

TEST(Mtp, PromptRowsStartTheHead) {
    llama_log_set(quiet_log, nullptr);
    expect_prompt_rows_start_the_head(k_mtp_model);
    expect_prompt_rows_start_the_head(k_ds_mtp_model);  // the hidden rows of deepseek2's graph
}

// The head takes at most half an MTP batch of the prompt's last rows, also when they were computed
// in several ubatches, and only rows of the target's last decode.
TEST(Mtp, PromptRowsAreCappedAtHalfABatch) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(m, nullptr) << llama_last_error();
    std::vector<llama_token> prompt;
    for (int i = 0; i < 20; i++) {
        prompt.push_back((llama_token) (1 + (i * 37) % 250));
    }
    ctx_ptr  ct = split_ctx(m.get(), 32, 8);  // the prompt's rows come from three ubatches
    spec_ptr spec(llama_spec_init(ct.get(), nullptr, fixed_draft_params(3, LLAMA_SPEC_TYPE_MTP)));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    ASSERT_TRUE(decode(ct.get(), prompt, 0));
    ASSERT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), (int32_t) prompt.size()), 0) << llama_last_error();
    const size_t cap = llama_n_batch(spec->ctx_mtp) / 2;
    EXPECT_EQ(spec->seqs.at(0).mtp_from, prompt.size() - cap + 1);
    ASSERT_EQ(spec->seqs.at(0).h.size(), cap * (size_t) llama_model_n_embd(m.get()));
    const float * last = ct->hidden_at(0, (llama_pos) prompt.size() - 1);
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(std::memcmp(spec->seqs.at(0).h.data() + (cap - 1) * llama_model_n_embd(m.get()), last,
                          sizeof(float) * llama_model_n_embd(m.get())),
              0);

    // a continuation decoded with no output at all still keeps its rows; only the last decode's count
    owned_batch more(3);
    for (int i = 0; i < 3; i++) {
        prompt.push_back((llama_token) (5 + i));
        more.add(prompt.back(), (llama_pos) prompt.size() - 1, {0}, false);
    }
    ASSERT_EQ(llama_decode(ct.get(), more.b), 0) << llama_last_error();
    ASSERT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), (int32_t) prompt.size()), 0) << llama_last_error();
    EXPECT_EQ(spec->seqs.at(0).mtp_from, prompt.size() - 3 + 1);
}

// A batch of three sequences (their tokens interleaved and in runs, one output each, two ubatches)
// keeps every token's row at its (sequence, position): each equals the final norm's row of that token
// when the sequence is decoded alone with embeddings on; each sequence's begin takes its whole prompt.
TEST(Mtp, HiddenRowsOfSeveralSequencesLandAtTheirPositions) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const std::vector<std::vector<llama_token>> & prompts = k_three_prompts;
    const int                                     n_embd  = llama_model_n_embd(m.get());

    // the batch: one token of each sequence in turn while all have some, then the rest in runs
    std::vector<std::pair<llama_seq_id, llama_pos>> order;
    for (llama_pos p = 0; p < 7; p++) {
        for (llama_seq_id s = 0; s < 3; s++) {
            if ((size_t) p < prompts[(size_t) s].size()) {
                order.push_back({s, p});
            }
        }
    }
    ctx_ptr  ct = split_ctx(m.get(), 64, 8, 3);
    spec_ptr spec(llama_spec_init(ct.get(), nullptr, fixed_draft_params(3, LLAMA_SPEC_TYPE_MTP)));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    owned_batch b((int) order.size());
    for (const auto & sp : order) {
        const std::vector<llama_token> & pr = prompts[(size_t) sp.first];
        b.add(pr[(size_t) sp.second], sp.second, {sp.first}, (size_t) sp.second + 1 == pr.size());
    }
    ASSERT_EQ(llama_decode(ct.get(), b.b), 0) << llama_last_error();

    for (llama_seq_id s = 0; s < 3; s++) {
        const std::vector<llama_token> & pr  = prompts[(size_t) s];
        ctx_ptr                          ref = final_norm_rows(m.get(), pr);
        ASSERT_NE(ref, nullptr);
        for (size_t p = 0; p < pr.size(); p++) {
            const float * got = ct->hidden_at(s, (llama_pos) p);
            ASSERT_NE(got, nullptr) << "sequence " << s << " position " << p;
            const std::string what = "sequence " + std::to_string(s) + " position " + std::to_string(p);
            expect_rows_near(got, llama_get_embeddings_ith(ref.get(), (int32_t) p), 1, n_embd, 1e-3, what.c_str());
        }
        EXPECT_EQ(ct->hidden_at(s, (llama_pos) pr.size()), nullptr) << "sequence " << s;
        ASSERT_EQ(llama_spec_seq_begin(spec.get(), s, pr.data(), (int32_t) pr.size()), 0) << llama_last_error();
        EXPECT_EQ(spec->seqs.at(s).mtp_from, 1u) << "sequence " << s;
    }
    EXPECT_EQ(ct->hidden_at(3, 0), nullptr);
    // by batch index: the same rows
    std::string err;
    for (size_t i = 0; i < order.size(); i++) {
        EXPECT_EQ(ct->hidden_ith((int32_t) i, err), ct->hidden_at(order[i].first, order[i].second)) << "token " << i;
    }
    EXPECT_EQ(ct->hidden_ith((int32_t) order.size(), err), nullptr);
}

TEST(Mtp, MisuseIsRefused) {
    llama_log_set(quiet_log, nullptr);
    llama_spec_params sp = llama_spec_default_params();
    sp.type              = LLAMA_SPEC_TYPE_MTP;
    // NextN blocks in the file, not loaded
    model_ptr skipped = load_mtp(data_path(k_mtp_model), false);
    ASSERT_NE(skipped, nullptr);
    ctx_ptr c1 = make_ctx(skipped.get());
    EXPECT_EQ(llama_spec_init(c1.get(), nullptr, sp), nullptr);
    EXPECT_TRUE(error_mentions("load_mtp")) << llama_last_error();
    // no NextN blocks at all (qwen35 without them; llama: no MTP graph)
    for (const char * f : {"models/synthetic/qwen35-micro-f16.gguf", "models/synthetic/llama-micro-f16.gguf"}) {
        model_ptr plain = load_mtp(data_path(f), false);
        ASSERT_NE(plain, nullptr) << f;
        ctx_ptr c2 = make_ctx(plain.get());
        EXPECT_EQ(llama_spec_init(c2.get(), nullptr, sp), nullptr) << f;
        EXPECT_TRUE(error_mentions("no NextN")) << f << ": " << llama_last_error();
    }
    // an MTP context is neither a target nor a draft context
    model_ptr mm = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(mm, nullptr);
    ctx_ptr head = probe_ctx(mm.get(), LLAMA_CONTEXT_TYPE_MTP, false);
    ctx_ptr tgt  = make_ctx(mm.get());
    ASSERT_NE(head, nullptr);
    EXPECT_EQ(llama_spec_init(head.get(), nullptr, sp), nullptr);
    EXPECT_TRUE(error_mentions("MTP context")) << llama_last_error();
    EXPECT_EQ(llama_spec_init(tgt.get(), head.get(), llama_spec_default_params()), nullptr);
    EXPECT_TRUE(error_mentions("MTP context")) << llama_last_error();
    // the name, and a step before the sequence was begun
    llama_spec_type t = LLAMA_SPEC_TYPE_DRAFT;
    EXPECT_EQ(llama_spec_type_from_name("mtp", &t), 0);
    EXPECT_EQ(t, LLAMA_SPEC_TYPE_MTP);
    model_ptr m = load_mtp(data_path(k_mtp_model));
    ASSERT_NE(m, nullptr);
    ctx_ptr  ct = make_ctx(m.get());
    spec_ptr spec(llama_spec_init(ct.get(), nullptr, sp));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    std::vector<llama_token> buf(LLAMA_SPEC_DRAFT_MAX + 1);
    llama_spec_seq           s = {0, 1, nullptr, buf.data(), 0, 0, 0, 0, 0.0f, 0};
    EXPECT_EQ(llama_spec_step(spec.get(), &s, 1), -1);
    EXPECT_TRUE(error_mentions("not begun")) << llama_last_error();
}
