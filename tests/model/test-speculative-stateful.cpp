// Speculative decoding with a recurrent (mamba2) or hybrid (lfm2, qwen35, granitehybrid, kimi-linear)
// target: the step saves each sequence's state; after a rejected draft the state after the kept tokens
// is had from the verification's recorded inputs: conv windows, and the SSM / delta-net recurrences
// replayed from the saved state over the kept tokens (no token is decoded twice). Greedy output equals plain decoding
// for every draft length, with a draft model (a plain llama model with the same vocabulary, whose drafts are mostly
// rejected) and with n-gram drafting; after rejections the state continues as if the rejected tokens had never been
// decoded; several sequences in one step equal each alone, and the logits rows a step reports are the ones its tokens
// were chosen from.
#include <cmath>
#include <cstring>

#include "llama-context.h"
#include "llama-memory-recurrent.h"
#include "test-speculative-util.h"

using namespace spec_test;

namespace {

// The shared micro shape of file (llama-gguf-synth --micro), random weights of width std.
synth::params micro_file(const std::string & file, ggml_type t, float std, uint64_t seed = 42) {
    synth::params p;
    EXPECT_TRUE(synth::apply_micro_model(file, p)) << file;
    p.type      = t;
    p.seed      = seed;
    p.std       = std;
    p.n_threads = 2;
    return p;
}

// The recurrent state of sequence seq as floats (conv rows, then SSM rows per layer).
std::vector<float> recurrent_state(llama_context * ctx, llama_seq_id seq) {
    llama_memory_recurrent::checkpoint cp;
    ctx->recurrent()->seq_save(seq, cp);
    std::vector<float> v(cp.data.size() / sizeof(float));
    std::memcpy(v.data(), cp.data.data(), v.size() * sizeof(float));
    return v;
}

// Largest difference between two states relative to the largest magnitude of b.
double state_err(const std::vector<float> & a, const std::vector<float> & b) {
    if (a.size() != b.size() || b.empty()) {
        return INFINITY;
    }
    double d = 0.0, m = 1e-6;
    for (size_t i = 0; i < a.size(); i++) {
        d = std::max(d, (double) std::fabs(a[i] - b[i]));
        m = std::max(m, (double) std::fabs(b[i]));
    }
    return d / m;
}

class SpeculativeStateful : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override { llama_log_set(quiet_log, nullptr); }
};

TEST_P(SpeculativeStateful, DraftModelAndNgramGreedyIdentical) {
    // wide weights, so that the greedy text varies; the draft, another model with the same built-in
    // vocabulary, is rejected often: every step that rejects restores the target's states
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-" + GetParam() + "-f16.gguf");
    temp_model fd(micro("llama", GGML_TYPE_F16, 7), "spec-st-" + GetParam() + "-dft.gguf");
    model_ptr  tgt = load(ft.path);
    model_ptr  dft = load(fd.path);
    ASSERT_NE(tgt, nullptr) << llama_last_error();
    ASSERT_NE(dft, nullptr) << llama_last_error();
    const std::vector<llama_token> prompt = synthetic_prompt(12);
    check_lengths(tgt.get(), dft.get(), LLAMA_SPEC_TYPE_DRAFT, prompt, false);

    // narrow weights repeat a repeated phrase, which the n-gram drafter proposes again
    temp_model fn(micro_file(GetParam(), GGML_TYPE_F16, 0.1f), "spec-st-" + GetParam() + "-ngram.gguf");
    model_ptr  tgn = load(fn.path);
    ASSERT_NE(tgn, nullptr);
    std::vector<llama_token> rep;
    for (int i = 0; i < 4; i++) {
        rep.insert(rep.end(), prompt.begin(), prompt.begin() + 5);
    }
    check_lengths(tgn.get(), nullptr, LLAMA_SPEC_TYPE_NGRAM, rep, false);
}

// Steps with rejected drafts, then one plain decode: its logits equal those of a context that decoded
// only the kept tokens (the restored state holds nothing of the rejected ones).
TEST_P(SpeculativeStateful, RejectedDraftsLeaveNoTrace) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-rb-" + GetParam() + ".gguf");
    temp_model fd(micro("llama", GGML_TYPE_F16, 7), "spec-st-rb-dft-" + GetParam() + ".gguf");
    model_ptr  tgt = load(ft.path);
    model_ptr  dft = load(fd.path);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    ctx_ptr  ct = make_ctx(tgt.get());
    ctx_ptr  cd = make_ctx(dft.get());
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), fixed_draft_params(6)));
    ASSERT_NE(spec, nullptr) << llama_last_error();

    std::vector<llama_token> hist;
    llama_token              last         = 0;
    const int                n_rejections = spec_run_steps(
                       spec.get(), ct.get(), synthetic_prompt(10), 8, hist, last,
                       [&](int step, const llama_spec_seq & s, const std::vector<llama_token> & emitted) {
            // the emitted tokens were chosen from the reported rows (after a restore: the second decode's)
            for (int32_t j = 0; j < s.n_out; j++) {
                EXPECT_EQ(argmax_row(ct.get(), s.i_logits + j), emitted[(size_t) j]) << "step " << step << " row " << j;
            }
            EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(ct.get()), 0), (llama_pos) hist.size() - 1);
        });
    ASSERT_GT(n_rejections, 0) << "every draft was accepted: no state was restored";
    llama_spec_stats st;
    ASSERT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
    EXPECT_EQ(st.n_redecoded, 0) << "a rejection decoded the kept tokens again";

    expect_continues_like_fresh(ct.get(), tgt.get(), hist, last);
}

// Three sequences in one step: when one rejects, all are restored and decoded again together; each
// still gives what it gives alone.
TEST_P(SpeculativeStateful, SeveralSequencesEqualEachAlone) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-ms-" + GetParam() + ".gguf");
    temp_model fd(micro("llama", GGML_TYPE_F16, 7), "spec-st-ms-dft-" + GetParam() + ".gguf");
    model_ptr  tgt = load(ft.path);
    model_ptr  dft = load(fd.path);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    const std::vector<llama_token>              base    = synthetic_prompt(12);
    const std::vector<std::vector<llama_token>> prompts = {
        {base.begin(), base.begin() + 4}, {base.begin() + 2, base.end()}, {base.rbegin(), base.rend()}};
    constexpr int                         n_gen = 24;
    std::vector<std::vector<llama_token>> want;
    for (const auto & p : prompts) {
        ctx_ptr ref = make_ctx(tgt.get());
        want.push_back(plain_greedy(ref.get(), p, n_gen));
    }
    ctx_ptr  ct = make_ctx(tgt.get(), 3);
    ctx_ptr  cd = make_ctx(dft.get(), 3);
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), fixed_draft_params(4)));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    const std::vector<std::vector<llama_token>> got = spec_greedy_seqs(spec.get(), ct.get(), prompts, (size_t) n_gen);
    for (size_t s = 0; s < prompts.size(); s++) {
        EXPECT_EQ(got[s], want[s]) << "sequence " << s;
    }
}

// A step without drafts skips saving the states (a plain decode), unless an abort callback could stop
// it half-way: then an aborted step still leaves the states as before it (return code 2), and the next
// decode equals that of a context that never saw the aborted step.
TEST_P(SpeculativeStateful, AbortedStepWithoutDraftsKeepsStates) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-ab-" + GetParam() + ".gguf");
    model_ptr  tgt = load(ft.path);
    ASSERT_NE(tgt, nullptr);
    ctx_ptr           ct = make_ctx(tgt.get());
    llama_spec_params sp = llama_spec_default_params();
    sp.type              = LLAMA_SPEC_TYPE_NGRAM;
    spec_ptr spec(llama_spec_init(ct.get(), nullptr, sp));
    ASSERT_NE(spec, nullptr) << llama_last_error();

    const std::vector<llama_token> prompt = synthetic_prompt(10);  // no repeated n-gram: no drafts
    ASSERT_TRUE(decode(ct.get(), prompt, 0));
    ASSERT_EQ(llama_spec_seq_begin(spec.get(), 0, prompt.data(), (int32_t) prompt.size()), 0);
    const llama_token        last = argmax_row(ct.get(), -1);
    std::vector<llama_token> buf(2);
    llama_spec_seq           s = {0, last, nullptr, buf.data(), 0, 0, 0, 0, 0.0f, 0};
    llama_set_abort_callback(
        ct.get(), [](void *) { return true; }, nullptr);
    ASSERT_EQ(llama_spec_step(spec.get(), &s, 1), 2) << llama_last_error();
    EXPECT_EQ(s.n_drafted, 0);
    llama_set_abort_callback(ct.get(), nullptr, nullptr);

    expect_continues_like_fresh(ct.get(), tgt.get(), prompt, last);
}

// A recurrent or hybrid draft model: its state is saved before each round's drafts and put back
// when the target rejects one. Greedy output equals plain decoding with a stateful target and with a
// plain one; a draft with the target's weights has every draft accepted (a draft state that drifted
// would propose other tokens); after rejections the draft context holds exactly a prefix of the
// history, and continuing from it equals a fresh draft context.
TEST_P(SpeculativeStateful, StatefulDraftModel) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-sd-t-" + GetParam() + ".gguf");
    temp_model fo(micro_file(GetParam(), GGML_TYPE_F16, 0.5f, 7), "spec-sd-o-" + GetParam() + ".gguf");
    temp_model fs(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-sd-s-" + GetParam() + ".gguf");
    temp_model fp(micro("llama", GGML_TYPE_F16, 7), "spec-sd-p-" + GetParam() + ".gguf");
    model_ptr  tgt   = load(ft.path);
    model_ptr  other = load(fo.path);
    model_ptr  same  = load(fs.path);
    model_ptr  plain = load(fp.path);
    ASSERT_TRUE(tgt && other && same && plain) << llama_last_error();
    const std::vector<llama_token> prompt = synthetic_prompt(12);
    check_lengths(tgt.get(), other.get(), LLAMA_SPEC_TYPE_DRAFT, prompt, false);
    check_lengths(plain.get(), other.get(), LLAMA_SPEC_TYPE_DRAFT, prompt, false);

    // the target's own weights as the draft: every drafted token is the target's choice
    {
        ctx_ptr  ct = make_ctx(tgt.get());
        ctx_ptr  cd = make_ctx(same.get());
        spec_ptr spec(llama_spec_init(ct.get(), cd.get(), fixed_draft_params(5)));
        ASSERT_NE(spec, nullptr) << llama_last_error();
        spec_greedy(spec.get(), ct.get(), prompt, 40);
        llama_spec_stats st;
        ASSERT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
        EXPECT_GT(st.n_drafted, 20);
        EXPECT_EQ(st.n_accepted, st.n_drafted);
    }

    // rejections, then the draft context against a fresh one
    ctx_ptr  ct = make_ctx(tgt.get());
    ctx_ptr  cd = make_ctx(other.get());
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), fixed_draft_params(6)));
    ASSERT_NE(spec, nullptr) << llama_last_error();
    std::vector<llama_token> hist;
    llama_token              last = 0;
    ASSERT_GT(spec_run_steps(spec.get(), ct.get(), prompt, 8, hist, last), 0)
        << "every draft was accepted: no draft state was restored";
    const llama_pos held = llama_memory_seq_pos_max(llama_get_memory(cd.get()), 0) + 1;
    ASSERT_GT(held, 0);
    ASSERT_LE((size_t) held, hist.size());
    std::vector<llama_token> rest(hist.begin() + held, hist.end());
    rest.push_back(last);
    ASSERT_TRUE(decode(cd.get(), rest, held));
    std::vector<llama_token> all = hist;
    all.push_back(last);
    ctx_ptr fresh = make_ctx(other.get());
    ASSERT_TRUE(decode(fresh.get(), all, 0));
    const int     nv = llama_vocab_n_tokens(llama_model_get_vocab(other.get()));
    const float * a  = llama_get_logits_ith(cd.get(), -1);
    const float * b  = llama_get_logits_ith(fresh.get(), -1);
    ASSERT_TRUE(a && b);
    EXPECT_LT(max_err_rel_rms(a, b, nv), 1e-3);
}

// The mechanism that spares a rejection its second decode: a decode with row recording keeps what
// gives the state after each of its tokens, and seq_rewind sets a sequence to one of them: rewinding a
// 6-token decode to its third token gives the state of a context that decoded 6 tokens in all (one
// token more or less is far outside the bound), and a later decode makes the record unusable. An SSM /
// delta-net state is replayed from the checkpoint taken just before the recorded decode, and from no
// other.
TEST_P(SpeculativeStateful, RewindToARecordedRow) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-rw-" + GetParam() + ".gguf");
    model_ptr  tgt = load(ft.path);
    ASSERT_NE(tgt, nullptr);
    ctx_ptr                        ct   = make_ctx(tgt.get(), 2);
    ctx_ptr                        ref  = make_ctx(tgt.get());
    llama_memory_recurrent *       rs   = ct->recurrent();
    const std::vector<llama_token> toks = synthetic_prompt(9);
    ASSERT_NE(rs, nullptr);
    const bool conv_only = GetParam() == "lfm2";
    EXPECT_TRUE(rs->rows_supported());

    llama_memory_recurrent::checkpoint empty, before;
    rs->seq_save(0, empty);
    ASSERT_TRUE(decode(ct.get(), {toks.begin(), toks.begin() + 3}, 0));
    rs->seq_save(0, before);
    ct->set_rs_rows(true);
    ASSERT_TRUE(decode(ct.get(), {toks.begin() + 3, toks.end()}, 3));  // positions 3 .. 8
    ct->set_rs_rows(false);
    EXPECT_FALSE(rs->seq_can_rewind(0, 2, &before)) << "position 2 was decoded by an earlier, unrecorded batch";
    EXPECT_FALSE(rs->seq_can_rewind(1, 5, &before)) << "sequence 1 decoded nothing";
    EXPECT_EQ(rs->seq_can_rewind(0, 5), conv_only) << "an SSM state is replayed from the state before";
    EXPECT_EQ(rs->seq_can_rewind(0, 5, &empty), conv_only) << "a checkpoint of another position";
    ASSERT_TRUE(rs->seq_can_rewind(0, 5, &before));
    rs->seq_rewind(0, 5, &before);
    ASSERT_TRUE(llama_memory_seq_rm(llama_get_memory(ct.get()), 0, 6, -1));  // a hybrid's attention positions
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(ct.get()), 0), 5);
    ASSERT_TRUE(decode(ref.get(), {toks.begin(), toks.begin() + 6}, 0));
    EXPECT_LT(state_err(recurrent_state(ct.get(), 0), recurrent_state(ref.get(), 0)), 1e-4);
    EXPECT_FALSE(rs->seq_can_rewind(0, 4, &before)) << "a rewound state is not that decode's past any more";

    // the rewound sequence goes on as the reference does
    ASSERT_TRUE(decode(ct.get(), {toks[6]}, 6));
    ASSERT_TRUE(decode(ref.get(), {toks[6]}, 6));
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(tgt.get()));
    EXPECT_LT(max_err_rel_rms(llama_get_logits_ith(ct.get(), -1), llama_get_logits_ith(ref.get(), -1), nv), 1e-3);

    ct->set_rs_rows(true);
    ASSERT_TRUE(decode(ct.get(), {toks[0], toks[1]}, 0, 1));
    ct->set_rs_rows(false);
    ASSERT_TRUE(decode(ct.get(), {toks[2]}, 2, 1));  // unrecorded: the slot moved on
    EXPECT_FALSE(rs->seq_can_rewind(1, 0, &empty));
}

// The memory of checkpoints, recordings and rewinds is taken when a sequence begins (a first touch of
// fresh pages is slow on virtual machines: the first rejection used to cost more than the decode it
// spares): after rewind_reserve for n rows, a checkpoint, a recorded decode of n tokens and rewinds to
// any of them allocate nothing more. Before any recording the replay's layers are a bound, after one
// they are exact; both hold here.
TEST_P(SpeculativeStateful, ReservedRewindsTakeNoNewMemory) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-rr-" + GetParam() + ".gguf");
    model_ptr  tgt = load(ft.path);
    ASSERT_NE(tgt, nullptr);
    ctx_ptr                        ct   = make_ctx(tgt.get());
    ctx_ptr                        ref  = make_ctx(tgt.get());
    llama_memory_recurrent *       rs   = ct->recurrent();
    const std::vector<llama_token> toks = synthetic_prompt(16);
    ASSERT_NE(rs, nullptr);
    const uint32_t n_rows = 7;

    llama_memory_recurrent::checkpoint cp;
    ASSERT_EQ(rs->rewind_reserved(), 0u);
    for (int round = 0; round < 2; round++) {  // the bound, then the layers the first round described
        SCOPED_TRACE(round == 0 ? "before any recording" : "after one");
        const llama_pos p0 = round == 0 ? 0 : 8;
        ASSERT_TRUE(decode(ct.get(), {toks[(size_t) p0]}, p0));
        rs->rewind_reserve(0, n_rows, cp);
        const size_t    held = rs->rewind_reserved();
        const uint8_t * data = cp.data.data();
        EXPECT_GT(held, 0u);
        rs->seq_save(0, cp);
        EXPECT_EQ(cp.data.data(), data) << "the checkpoint's memory moved";
        ct->set_rs_rows(true);
        ASSERT_TRUE(decode(ct.get(), {toks.begin() + p0 + 1, toks.begin() + p0 + 1 + n_rows}, p0 + 1));
        ct->set_rs_rows(false);
        ASSERT_TRUE(rs->seq_can_rewind(0, p0 + 3, &cp));
        rs->seq_rewind(0, p0 + 3, &cp);
        EXPECT_EQ(rs->rewind_reserved(), held) << "the recording or the rewind took memory";
        ASSERT_TRUE(llama_memory_seq_rm(llama_get_memory(ct.get()), 0, p0 + 4, -1));
        if (round == 0) {
            // the rewound state is that of 4 tokens decoded (the reserve changes no result)
            ASSERT_TRUE(decode(ref.get(), {toks.begin(), toks.begin() + 4}, 0));
            EXPECT_LT(state_err(recurrent_state(ct.get(), 0), recurrent_state(ref.get(), 0)), 1e-4);
            // positions 4 .. 7 as the reference, so that round 1 starts at 8 on both
            ASSERT_TRUE(decode(ct.get(), {toks.begin() + 4, toks.begin() + 8}, 4));
        }
    }
}

// A step whose drafts are rejected: the state after the kept tokens comes from the verification (conv
// windows, replayed recurrences); no token is decoded twice. The recurrent state after each step
// equals that of a context that decoded only the kept tokens.
TEST_P(SpeculativeStateful, RejectionDecodesNothingTwice) {
    temp_model ft(micro_file(GetParam(), GGML_TYPE_F16, 0.5f), "spec-st-rc-" + GetParam() + ".gguf");
    temp_model fd(micro("llama", GGML_TYPE_F16, 7), "spec-st-rc-dft-" + GetParam() + ".gguf");
    model_ptr  tgt = load(ft.path);
    model_ptr  dft = load(fd.path);
    ASSERT_NE(tgt, nullptr);
    ASSERT_NE(dft, nullptr);
    ctx_ptr  ct = make_ctx(tgt.get());
    ctx_ptr  cd = make_ctx(dft.get());
    spec_ptr spec(llama_spec_init(ct.get(), cd.get(), fixed_draft_params(6)));
    ASSERT_NE(spec, nullptr) << llama_last_error();

    std::vector<llama_token> hist;
    llama_token              last = 0;
    const int                n_rejections =
        spec_run_steps(spec.get(), ct.get(), synthetic_prompt(10), 8, hist, last,
                       [&](int step, const llama_spec_seq &, const std::vector<llama_token> &) {
                           ctx_ptr fresh = make_ctx(tgt.get());
                           ASSERT_TRUE(decode(fresh.get(), hist, 0));
                           EXPECT_LT(state_err(recurrent_state(ct.get(), 0), recurrent_state(fresh.get(), 0)), 1e-3)
                               << "step " << step;
                       });
    ASSERT_GT(n_rejections, 0);
    llama_spec_stats st;
    ASSERT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
    EXPECT_EQ(st.n_redecoded, 0) << "a rejection decoded the kept tokens again";
}

INSTANTIATE_TEST_SUITE_P(Archs, SpeculativeStateful,
                         testing::Values("mamba2", "lfm2", "qwen35", "granitehybrid", "kimi-linear"));

}  // namespace
