// Speculative decoding (llama_spec_*) refuses bad input with its documented code and a reason, and
// changes nothing: a draft with another vocabulary, parameters out of range, NULL pointers, unknown
// or repeated sequences, tokens outside the vocabulary, unknown type names.
#include <cmath>
#include <string>

#include "test-speculative-util.h"

using namespace spec_test;
using testing_util::data_path;

namespace {

bool error_mentions(const char * what) {
    return std::string(llama_last_error()).find(what) != std::string::npos;
}

struct fixture : testing::Test {
    model_ptr tgt;
    ctx_ptr   ct;
    ctx_ptr   cd;

    void SetUp() override {
        llama_log_set(quiet_log, nullptr);
        tgt = load(data_path("models/stories260K.gguf"));
        ASSERT_NE(tgt, nullptr);
        ct = make_ctx(tgt.get(), 2);
        cd = make_ctx(tgt.get(), 2);
        ASSERT_NE(ct, nullptr);
        ASSERT_NE(cd, nullptr);
    }
};

using SpeculativeErrors = fixture;

TEST_F(SpeculativeErrors, DraftVocabularyMismatchIsRefused) {
    // a random model with the built-in byte vocabulary: another tokenizer than stories260K's
    temp_model fd(micro("llama", GGML_TYPE_F16), "spec-err-dft.gguf");
    model_ptr  dft = load(fd.path);
    ASSERT_NE(dft, nullptr);
    ctx_ptr other = make_ctx(dft.get());
    EXPECT_EQ(llama_spec_init(ct.get(), other.get(), llama_spec_default_params()), nullptr);
    EXPECT_TRUE(error_mentions("draft vocabulary mismatch")) << llama_last_error();
    // n-gram drafting ignores a draft context
    llama_spec_params sp = llama_spec_default_params();
    sp.type              = LLAMA_SPEC_TYPE_NGRAM;
    spec_ptr ok(llama_spec_init(ct.get(), other.get(), sp));
    EXPECT_NE(ok, nullptr) << llama_last_error();
}

// A recurrent (mamba2) or hybrid (lfm2) model is accepted as the target and as the draft model, with
// a plain model on the other side or itself (the step saves and restores the states of both:
// test-speculative-stateful), and with n-gram drafting.
TEST(SpeculativeStateful, StatefulModelsAreAcceptedOnEitherSide) {
    llama_log_set(quiet_log, nullptr);
    model_ptr plain = load(data_path("models/synthetic/llama-micro-f16.gguf"));
    ASSERT_NE(plain, nullptr);
    for (const char * f : {"models/synthetic/mamba2-micro-f16.gguf", "models/synthetic/lfm2-micro-f16.gguf"}) {
        model_ptr m = load(data_path(f));
        ASSERT_NE(m, nullptr) << f << ": " << llama_last_error();
        ctx_ptr tgt = make_ctx(m.get(), 1);
        ctx_ptr dft = make_ctx(m.get(), 1);
        ctx_ptr pd  = make_ctx(plain.get(), 1);
        ctx_ptr pt  = make_ctx(plain.get(), 1);
        ASSERT_NE(tgt, nullptr);
        ASSERT_NE(dft, nullptr);
        spec_ptr both(llama_spec_init(tgt.get(), dft.get(), llama_spec_default_params()));
        EXPECT_NE(both, nullptr) << f << ": " << llama_last_error();
        spec_ptr with_plain(llama_spec_init(tgt.get(), pd.get(), llama_spec_default_params()));
        EXPECT_NE(with_plain, nullptr) << f << ": " << llama_last_error();
        spec_ptr plain_target(llama_spec_init(pt.get(), dft.get(), llama_spec_default_params()));
        EXPECT_NE(plain_target, nullptr) << f << ": " << llama_last_error();
        llama_spec_params sp = llama_spec_default_params();
        sp.type              = LLAMA_SPEC_TYPE_NGRAM;
        spec_ptr ngram(llama_spec_init(tgt.get(), nullptr, sp));
        EXPECT_NE(ngram, nullptr) << f << ": " << llama_last_error();
    }
}

TEST_F(SpeculativeErrors, BadParamsAreRefused) {
    const auto refused = [&](llama_spec_params p, llama_context * t, llama_context * d, const char * what) {
        llama_spec * s = llama_spec_init(t, d, p);
        EXPECT_EQ(s, nullptr) << what;
        llama_spec_free(s);
        EXPECT_TRUE(error_mentions(what)) << llama_last_error();
    };
    const llama_spec_params def = llama_spec_default_params();
    llama_spec_params       p   = def;
    p.n_draft_max               = 0;
    refused(p, ct.get(), cd.get(), "n_draft_max");
    p.n_draft_max = LLAMA_SPEC_DRAFT_MAX + 1;
    refused(p, ct.get(), cd.get(), "n_draft_max");
    p             = def;
    p.n_draft_min = p.n_draft_max + 1;
    refused(p, ct.get(), cd.get(), "n_draft_min");
    p       = def;
    p.p_min = std::nanf("");
    refused(p, ct.get(), cd.get(), "p_min");
    p.p_min = 1.5f;
    refused(p, ct.get(), cd.get(), "p_min");
    p           = def;
    p.ngram_min = 0;
    refused(p, ct.get(), cd.get(), "ngram");
    p.ngram_min = 5;
    p.ngram_max = 4;
    refused(p, ct.get(), cd.get(), "ngram");
    p      = def;
    p.type = (llama_spec_type) 7;
    refused(p, ct.get(), cd.get(), "type");
    refused(def, nullptr, cd.get(), "ctx_tgt");
    refused(def, ct.get(), nullptr, "draft context");
    refused(def, ct.get(), ct.get(), "target context");
    // a target batch too small for the drafts plus id_last
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_batch              = 8;
    cp.n_ubatch             = 8;
    ctx_ptr small(llama_init_from_model(tgt.get(), cp));
    ASSERT_NE(small, nullptr);
    refused(def, small.get(), cd.get(), "n_batch");
}

TEST_F(SpeculativeErrors, BadCallsAreRefusedAndChangeNothing) {
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), llama_spec_default_params()));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    const std::vector<llama_token> prompt = tokenize(tgt.get(), "Once upon a time");
    ASSERT_TRUE(decode(ct.get(), prompt, 0));
    const llama_token t = prompt.back();

    EXPECT_EQ(llama_spec_seq_begin(nullptr, 0, prompt.data(), 1), -1);
    EXPECT_EQ(llama_spec_seq_begin(spec.get(), -1, prompt.data(), 1), -1);
    EXPECT_EQ(llama_spec_seq_begin(spec.get(), 2, prompt.data(), 1), -1);  // n_seq_max is 2
    EXPECT_TRUE(error_mentions("seq_id 2")) << llama_last_error();
    EXPECT_EQ(llama_spec_seq_begin(spec.get(), 0, nullptr, 3), -1);
    EXPECT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), -1), -1);
    EXPECT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), 100000), -1);
    const llama_token bad_tok[] = {1, 99999};
    EXPECT_EQ(llama_spec_seq_begin(spec.get(), 0, bad_tok, 2), -1);
    EXPECT_TRUE(error_mentions("outside the vocabulary")) << llama_last_error();

    std::vector<llama_token> buf(LLAMA_SPEC_DRAFT_MAX + 1);
    llama_spec_seq           s = {0, t, nullptr, buf.data(), 0, 0, 0, 0, 0.0f, 0};
    // not begun yet
    EXPECT_EQ(llama_spec_step(spec.get(), &s, 1), -1);
    EXPECT_TRUE(error_mentions("not begun")) << llama_last_error();
    ASSERT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), (int32_t) prompt.size()), 0);
    EXPECT_EQ(llama_spec_step(nullptr, &s, 1), -1);
    EXPECT_EQ(llama_spec_step(spec.get(), nullptr, 1), -1);
    EXPECT_EQ(llama_spec_step(spec.get(), &s, 0), -1);
    llama_spec_seq twice[2] = {s, s};
    EXPECT_EQ(llama_spec_step(spec.get(), twice, 2), -1);
    EXPECT_TRUE(error_mentions("given twice")) << llama_last_error();
    llama_spec_seq no_out = s;
    no_out.out            = nullptr;
    EXPECT_EQ(llama_spec_step(spec.get(), &no_out, 1), -1);
    llama_spec_seq bad_last = s;
    bad_last.id_last        = 99999;
    EXPECT_EQ(llama_spec_step(spec.get(), &bad_last, 1), -1);
    // nothing changed: the target's cache still ends at the prompt, and a valid step works
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(ct.get()), 0), (llama_pos) prompt.size() - 1);
    EXPECT_EQ(llama_spec_step(spec.get(), &s, 1), 0) << llama_last_error();
    EXPECT_GE(s.n_out, 1);

    llama_spec_stats st;
    EXPECT_EQ(llama_spec_stats_get(nullptr, &st), -1);
    EXPECT_EQ(llama_spec_stats_get(spec.get(), nullptr), -1);
    EXPECT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
    EXPECT_EQ(st.n_steps, 1);
    llama_spec_stats_reset(spec.get());
    EXPECT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
    EXPECT_EQ(st.n_steps, 0);
    llama_spec_stats_reset(nullptr);

    EXPECT_EQ(llama_spec_seq_end(spec.get(), 0), 0);
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(cd.get()), 0), -1);  // the draft cache is emptied
    EXPECT_EQ(llama_spec_seq_end(spec.get(), 9), -1);
    EXPECT_EQ(llama_spec_seq_end(nullptr, 0), -1);
    llama_spec_free(nullptr);
}

TEST(SpeculativeTypes, NamesAreParsedAndUnknownOnesRefused) {
    llama_log_set(quiet_log, nullptr);
    llama_spec_type t = LLAMA_SPEC_TYPE_DRAFT;
    EXPECT_EQ(llama_spec_type_from_name("ngram", &t), 0);
    EXPECT_EQ(t, LLAMA_SPEC_TYPE_NGRAM);
    EXPECT_EQ(llama_spec_type_from_name("draft", &t), 0);
    EXPECT_EQ(t, LLAMA_SPEC_TYPE_DRAFT);
    EXPECT_EQ(llama_spec_type_from_name("eagle3", &t), -1);
    EXPECT_TRUE(error_mentions("eagle3")) << llama_last_error();
    EXPECT_EQ(llama_spec_type_from_name(nullptr, &t), -1);
    EXPECT_EQ(llama_spec_type_from_name("ngram", nullptr), -1);
}

}  // namespace
