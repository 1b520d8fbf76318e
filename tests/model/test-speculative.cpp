// Speculative decoding (llama_spec_*) against plain decoding: greedy output is token-identical for
// every draft length 1-16, with a draft model (the same model, a Q8_0/Q4_0 copy) and with n-gram
// drafting, on stories260K and synthetic llama/qwen3 models; several sequences in one step equal
// each decoded alone; a step with rejected drafts leaves the caches as if they were never decoded.
#include "test-speculative-util.h"

using namespace spec_test;
using testing_util::data_path;

namespace {

std::vector<llama_token> repetitive_prompt(const llama_model * m) {
    return tokenize(m, "one two three four five one two three four five one two three four five one two three");
}

TEST(Speculative, StoriesDraftModelGreedyIdentical) {
    llama_log_set(quiet_log, nullptr);
    const std::string path = data_path("models/stories260K.gguf");
    model_ptr         tgt  = load(path);
    ASSERT_NE(tgt, nullptr);
    // the draft: a Q4_0 copy, quantized here
    const std::string           q8 = testing_util::write_temp_file("spec-stories-q4_0.gguf", {});
    llama_model_quantize_params qp = llama_model_quantize_default_params();
    qp.ftype                       = LLAMA_FTYPE_MOSTLY_Q4_0;
    qp.nthread                     = 2;
    ASSERT_EQ(llama_model_quantize(path.c_str(), q8.c_str(), &qp), 0u) << llama_last_error();
    model_ptr dft = load(q8);
    remove(q8.c_str());
    ASSERT_NE(dft, nullptr);
    check_lengths(tgt.get(), dft.get(), LLAMA_SPEC_TYPE_DRAFT, tokenize(tgt.get(), "Once upon a time"), true);
}

TEST(Speculative, StoriesNgramGreedyIdentical) {
    llama_log_set(quiet_log, nullptr);
    model_ptr tgt = load(data_path("models/stories260K.gguf"));
    ASSERT_NE(tgt, nullptr);
    check_lengths(tgt.get(), nullptr, LLAMA_SPEC_TYPE_NGRAM, repetitive_prompt(tgt.get()), true);
}

class SpeculativeSynth : public testing::TestWithParam<std::string> {};

TEST_P(SpeculativeSynth, DraftModelAndNgramGreedyIdentical) {
    llama_log_set(quiet_log, nullptr);
    // weights wider than the default, so the greedy text varies instead of repeating one token
    synth::params pt = micro(GetParam(), GGML_TYPE_F16);
    pt.std           = 0.5f;
    synth::params pd = pt;
    pd.type          = GGML_TYPE_Q4_0;
    temp_model ft(pt, "spec-" + GetParam() + "-f16.gguf");
    temp_model fd(pd, "spec-" + GetParam() + "-q4_0.gguf");
    model_ptr  tgt = load(ft.path);
    model_ptr  dft = load(fd.path);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    const std::vector<llama_token> prompt = synthetic_prompt(12);
    check_lengths(tgt.get(), dft.get(), LLAMA_SPEC_TYPE_DRAFT, prompt, true);
    // a repeated phrase, which the n-gram drafter proposes again, on a model whose weights are
    // narrow enough for its greedy text to repeat too
    pt.std = 0.1f;
    temp_model fn(pt, "spec-" + GetParam() + "-ngram.gguf");
    model_ptr  tgn = load(fn.path);
    ASSERT_NE(tgn, nullptr);
    std::vector<llama_token> rep;
    for (int i = 0; i < 4; i++) {
        rep.insert(rep.end(), prompt.begin(), prompt.begin() + 5);
    }
    check_lengths(tgn.get(), nullptr, LLAMA_SPEC_TYPE_NGRAM, rep, true);
}

INSTANTIATE_TEST_SUITE_P(Archs, SpeculativeSynth, testing::Values("llama", "qwen3"));

// Acceptance rate (accepted / drafted) of greedy speculative decoding with draft model dft, 8 tokens a step.
double acceptance(llama_model * tgt, llama_model * dft, const std::vector<llama_token> & prompt) {
    ctx_ptr  ref = make_ctx(tgt);
    ctx_ptr  ct  = make_ctx(tgt);
    ctx_ptr  cd  = make_ctx(dft);
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), fixed_draft_params(8)));
    EXPECT_NE(spec, nullptr) << llama_last_error();
    if (!spec) {
        return -1.0;
    }
    EXPECT_EQ(spec_greedy(spec.get(), ct.get(), prompt, k_n_gen), plain_greedy(ref.get(), prompt, k_n_gen));
    llama_spec_stats st;
    EXPECT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
    return st.n_drafted > 0 ? (double) st.n_accepted / (double) st.n_drafted : -1.0;
}

// llama-gguf-synth --quiet-from N (the speculative benchmarks' agreeing pair): the first N blocks,
// embeddings and head of the quiet model are byte for byte the same seed's N-block model, and that
// model, as a draft, has most of its tokens accepted; the same pair without the option has few.
TEST(Speculative, QuietDeepBlocksMakeAnAgreeingDraft) {
    llama_log_set(quiet_log, nullptr);
    synth::params pt = micro("llama", GGML_TYPE_F16);
    pt.std           = 0.5f;  // a varied greedy text (see SpeculativeSynth)
    pt.n_layer       = 6;
    pt.quiet_from    = 2;
    synth::params pd = pt;
    pd.n_layer       = 2;
    pd.quiet_from    = 0;
    temp_model ft(pt, "spec-quiet-target.gguf");
    temp_model fd(pd, "spec-quiet-draft.gguf");

    gguf_init_params gp = {true};
    gguf_context *   gt = gguf_init_from_file(ft.path.c_str(), gp);
    gguf_context *   gd = gguf_init_from_file(fd.path.c_str(), gp);
    ASSERT_NE(gt, nullptr);
    ASSERT_NE(gd, nullptr);
    const std::vector<uint8_t> bt = testing_util::read_file(ft.path), bd = testing_util::read_file(fd.path);
    for (int64_t i = 0; i < gguf_get_n_tensors(gd); i++) {
        const char *  name = gguf_get_tensor_name(gd, i);
        const int64_t j    = gguf_find_tensor(gt, name);
        ASSERT_GE(j, 0) << name;
        const size_t n = gguf_get_tensor_size(gd, i);
        ASSERT_EQ(gguf_get_tensor_size(gt, j), n) << name;
        const size_t od = gguf_get_data_offset(gd) + gguf_get_tensor_offset(gd, i);
        const size_t ot = gguf_get_data_offset(gt) + gguf_get_tensor_offset(gt, j);
        ASSERT_LE(od + n, bd.size());
        ASSERT_LE(ot + n, bt.size());
        EXPECT_EQ(memcmp(bd.data() + od, bt.data() + ot, n), 0) << name << " differs";
    }
    gguf_free(gt);
    gguf_free(gd);

    model_ptr tgt = load(ft.path);
    model_ptr dft = load(fd.path);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    const std::vector<llama_token> prompt = synthetic_prompt(12);
    const double                   quiet  = acceptance(tgt.get(), dft.get(), prompt);
    EXPECT_GE(quiet, 0.75);  // 0.85 measured (the micro shape at std 0.5 amplifies the quiet blocks)

    pt.quiet_from = 0;  // the same 6-block shape with every block as loud as usual
    temp_model fl(pt, "spec-loud-target.gguf");
    model_ptr  loud = load(fl.path);
    ASSERT_NE(loud, nullptr);
    const double loud_rate = acceptance(loud.get(), dft.get(), prompt);
    EXPECT_LT(loud_rate, 0.3);  // 0.01 measured
    printf("acceptance of the 2-block draft: %.3f (quiet target), %.3f (usual target)\n", quiet, loud_rate);
}

// Three sequences in one step (one target batch) give what each gives decoded alone.
TEST(Speculative, SeveralSequencesEqualEachAlone) {
    llama_log_set(quiet_log, nullptr);
    model_ptr tgt = load(data_path("models/stories260K.gguf"));
    ASSERT_NE(tgt, nullptr);
    const std::vector<std::vector<llama_token>> prompts = {
        tokenize(tgt.get(), "Once upon a time"),
        tokenize(tgt.get(), "The cat sat on the mat. The cat sat on the"),
        tokenize(tgt.get(), "Lily and Ben went to the park"),
    };
    for (llama_spec_type type : {LLAMA_SPEC_TYPE_DRAFT, LLAMA_SPEC_TYPE_NGRAM}) {
        std::vector<std::vector<llama_token>> want;
        for (const auto & p : prompts) {
            ctx_ptr ref = make_ctx(tgt.get());
            want.push_back(plain_greedy(ref.get(), p, k_n_gen));
        }
        ctx_ptr           ct = make_ctx(tgt.get(), 3, 1024);
        ctx_ptr           cd = type == LLAMA_SPEC_TYPE_DRAFT ? make_ctx(tgt.get(), 3, 1024) : nullptr;
        llama_spec_params sp = llama_spec_default_params();
        sp.type              = type;
        sp.n_draft_max       = 5;
        sp.p_min             = 0.0f;
        sp.ngram_min         = 1;
        spec_ptr spec(llama_spec_init(ct.get(), cd.get(), sp));
        ASSERT_NE(spec, nullptr) << llama_last_error();
        const std::vector<std::vector<llama_token>> got =
            spec_greedy_seqs(spec.get(), ct.get(), prompts, (size_t) k_n_gen);
        for (size_t s = 0; s < prompts.size(); s++) {
            EXPECT_EQ(got[s], want[s]) << "sequence " << s << ", type " << (int) type;
        }
    }
}

// A draft that the target rejects (a random model with stories260K's vocabulary): after the
// step the target's cache ends where the kept tokens end, and the next decode gives the logits of a
// context that decoded only the kept tokens.
TEST(Speculative, RollbackLeavesCacheAsIfNeverDecoded) {
    llama_log_set(quiet_log, nullptr);
    synth::params dp = micro("llama", GGML_TYPE_F16, 7);
    dp.vocab_path    = data_path("models/stories260K.gguf");
    dp.n_vocab       = 0;
    temp_model fd(dp, "spec-rb-dft.gguf");
    model_ptr  tgt = load(data_path("models/stories260K.gguf"));
    model_ptr  dft = load(fd.path);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    ctx_ptr           ct = make_ctx(tgt.get());
    ctx_ptr           cd = make_ctx(dft.get());
    llama_spec_params sp = llama_spec_default_params();
    sp.n_draft_max       = 8;
    sp.p_min             = 0.0f;
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), sp));
    ASSERT_NE(spec, nullptr) << llama_last_error();

    std::vector<llama_token> hist;
    llama_token              last         = 0;
    const int                n_rejections = spec_run_steps(
                       spec.get(), ct.get(), tokenize(tgt.get(), "Once upon a time"), 6, hist, last,
                       [&](int, const llama_spec_seq &, const std::vector<llama_token> &) {
            // the cache holds exactly the kept tokens, in both contexts
            EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(ct.get()), 0), (llama_pos) hist.size() - 1);
            EXPECT_LE(llama_memory_seq_pos_max(llama_get_memory(cd.get()), 0), (llama_pos) hist.size() - 1);
        });
    ASSERT_GT(n_rejections, 0) << "the other model's drafts were all accepted: no rollback was tested";

    // next decode vs a context that never saw the rejected tokens
    expect_continues_like_fresh(ct.get(), tgt.get(), hist, last);
}

}  // namespace

// The per-sequence fields of llama_spec_seq: n_draft_max caps the draft below the decoder's, and
// i_logits names the target rows each emitted token was chosen from (llama-server's n_probs).
TEST(Speculative, PerSequenceLimitsAndLogitsRows) {
    model_ptr tgt = load(data_path("models/stories260K.gguf"));
    model_ptr dft = load(data_path("models/stories260K.gguf"));
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    ctx_ptr           ct = make_ctx(tgt.get());
    ctx_ptr           cd = make_ctx(dft.get());
    llama_spec_params sp = llama_spec_default_params();
    sp.n_draft_max       = 8;
    sp.p_min             = 0.0f;
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), sp));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    const std::vector<llama_token> prompt = tokenize(tgt.get(), "Once upon a time");
    ASSERT_TRUE(decode(ct.get(), prompt, 0));
    ASSERT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), (int32_t) prompt.size()), 0);
    llama_token              last = argmax_row(ct.get(), -1);
    std::vector<llama_token> buf(9);
    int                      n_drafted = 0;
    for (int step = 0; step < 8; step++) {
        const int      cap = step < 4 ? 2 : 0;  // then 0: the decoder's 8
        llama_spec_seq s   = {0, last, nullptr, buf.data(), 0, 0, cap, 0, 0.0f, -1};
        ASSERT_EQ(llama_spec_step(spec.get(), &s, 1), 0) << llama_last_error();
        EXPECT_LE(s.n_drafted, cap > 0 ? cap : 8);
        n_drafted += s.n_drafted;
        ASSERT_GE(s.i_logits, 0);
        for (int j = 0; j < s.n_out; j++) {
            EXPECT_EQ(argmax_row(ct.get(), s.i_logits + j), buf[(size_t) j]) << "step " << step << " token " << j;
        }
        last = buf[(size_t) s.n_out - 1];
    }
    EXPECT_GT(n_drafted, 8) << "the model as its own draft should draft past the cap once it is lifted";
}
