#include "llama-batch.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "llama-cparams.h"
#include "llama-log.h"
#include "llama-memory.h"

bool llama_batch_allocr::init(const llama_batch & batch, int32_t n_vocab, int32_t n_embd, uint32_t n_seq_max,
                              const llama_memory_i * mem, bool output_all, std::string & err, bool tokens_and_embd) {
    n_tokens_ = batch.n_tokens;
    token_    = batch.token;
    embd_     = batch.embd;
    if (n_tokens_ <= 0) {
        err = llama_format("n_tokens = %d: a batch needs at least one token", n_tokens_);
        return false;
    }
    if (tokens_and_embd) {
        if (!batch.token || !batch.embd) {
            err = "the batch needs both tokens and embeddings (hidden rows)";
            return false;
        }
    } else if (!batch.token == !batch.embd) {
        err = batch.token ? "the batch has both tokens and embeddings" : "the batch has neither tokens nor embeddings";
        return false;
    }
    (void) n_embd;
    if (batch.token) {
        for (int32_t i = 0; i < n_tokens_; i++) {
            if (batch.token[i] < 0 || batch.token[i] >= n_vocab) {
                err = llama_format("invalid token[%d] = %d (the vocab has %d tokens)", i, batch.token[i], n_vocab);
                return false;
            }
        }
    }
    const uint32_t seq_limit = std::min<uint32_t>(n_seq_max, LLAMA_MAX_SEQ);

    // sequence ids: given, or sequence 0 for every token
    n_seq_id_.assign(n_tokens_, 1);
    seq_id_.assign(n_tokens_, nullptr);
    if (batch.seq_id) {
        for (int32_t i = 0; i < n_tokens_; i++) {
            const int32_t ns = batch.n_seq_id ? batch.n_seq_id[i] : 1;
            if (ns < 1 || ns > (int32_t) seq_limit || !batch.seq_id[i]) {
                err = llama_format("token %d: invalid n_seq_id = %d (must be in [1, %u])", i, ns, seq_limit);
                return false;
            }
            for (int32_t s = 0; s < ns; s++) {
                const llama_seq_id id = batch.seq_id[i][s];
                if (id < 0 || (uint32_t) id >= seq_limit) {
                    err =
                        llama_format("token %d: invalid seq_id = %d (must be in [0, %u), n_seq_max)", i, id, seq_limit);
                    return false;
                }
            }
            n_seq_id_[i] = ns;
            seq_id_[i]   = batch.seq_id[i];
        }
    } else {
        seq_id_zero_.assign(1, 0);
        for (int32_t i = 0; i < n_tokens_; i++) {
            seq_id_[i] = seq_id_zero_.data();
        }
    }

    // positions: given, or continuing each sequence after what the memory holds
    pos_.resize(n_tokens_);
    if (batch.pos) {
        std::copy(batch.pos, batch.pos + n_tokens_, pos_.begin());
    } else {
        std::vector<llama_pos> next(seq_limit, 0);
        for (uint32_t s = 0; s < seq_limit; s++) {
            next[s] = mem ? mem->seq_pos_max((llama_seq_id) s) + 1 : 0;
        }
        for (int32_t i = 0; i < n_tokens_; i++) {
            pos_[i] = next[seq_id_[i][0]];
            for (int32_t s = 0; s < n_seq_id_[i]; s++) {
                next[seq_id_[i][s]] = pos_[i] + 1;
            }
        }
    }

    if (!check_sequences(mem, seq_limit, err)) {
        return false;
    }

    // outputs: given, all (embeddings), or the last token only
    output_.assign(n_tokens_, 0);
    if (output_all) {
        std::fill(output_.begin(), output_.end(), 1);
    } else if (batch.logits) {
        for (int32_t i = 0; i < n_tokens_; i++) {
            output_[i] = batch.logits[i] != 0;
        }
    } else {
        output_[n_tokens_ - 1] = 1;
    }
    out_ids_.assign(n_tokens_, -1);
    n_outputs_ = 0;
    for (int32_t i = 0; i < n_tokens_; i++) {
        if (output_[i]) {
            out_ids_[i] = (int32_t) n_outputs_++;
        }
    }
    return true;
}

// The KV cache stores one cell per token, shared by all its sequences, and a query attends to the
// cells of its sequence with positions <= its own. So a batch is representable only if:
//  - a token shared by several sequences extends identical histories (the cell is computed once,
//    from one history, and becomes part of all of them);
//  - each sequence grows by exactly one position per token, in batch order, starting right after
//    what the memory holds (any start >= 0 for an empty sequence).
bool llama_batch_allocr::check_sequences(const llama_memory_i * mem, uint32_t seq_limit, std::string & err) const {
    // History classes: sequences with the same id have identical cells so far. Ids from the memory
    // come first (only computed for sequences that share tokens); each token then moves all its
    // sequences to a new class of their own.
    std::vector<int64_t>   hist(seq_limit);
    std::vector<llama_pos> last(seq_limit);
    for (uint32_t s = 0; s < seq_limit; s++) {
        hist[s] = (int64_t) s;
        last[s] = mem ? mem->seq_pos_max((llama_seq_id) s) : -1;
    }
    std::vector<bool> shared(seq_limit, false);
    bool              any_shared = false;
    for (int32_t i = 0; i < n_tokens_; i++) {
        if (n_seq_id_[i] > 1) {
            for (int32_t k = 0; k < n_seq_id_[i]; k++) {
                shared[seq_id_[i][k]] = true;
            }
            any_shared = true;
        }
    }
    if (any_shared) {
        for (uint32_t s = 0; s < seq_limit; s++) {
            for (uint32_t r = 0; shared[s] && r < s; r++) {
                if (shared[r] && hist[r] == (int64_t) r && seq_same_history(mem, (llama_seq_id) r, (llama_seq_id) s)) {
                    hist[s] = (int64_t) r;
                    break;
                }
            }
        }
    }

    std::vector<bool> seen(seq_limit);
    for (int32_t i = 0; i < n_tokens_; i++) {
        const llama_seq_id s0 = seq_id_[i][0];
        for (int32_t k = 1; k < n_seq_id_[i]; k++) {
            const llama_seq_id s = seq_id_[i][k];
            if (hist[s] != hist[s0]) {
                err = llama_format(
                    "token %d belongs to sequences %d and %d, whose histories differ (its cell would be computed "
                    "from one of them only); a token may be shared only by sequences with identical contents, "
                    "e.g. empty ones or copies made with llama_memory_seq_cp",
                    i, s0, s);
                return false;
            }
        }
        const llama_pos p = pos_[i];
        if (p < 0) {
            err = llama_format("token %d: negative position %d (sequence %d)", i, p, s0);
            return false;
        }
        if (last[s0] >= 0 && p != last[s0] + 1) {
            const bool in_batch = seen[s0];
            err                 = llama_format(
                                "token %d: sequence %d is at position %d %s, so this token must have position %d, not %d "
                                                "(positions of a sequence increase by one per token, in batch order)",
                                i, s0, last[s0], in_batch ? "after the previous token of this batch" : "in the memory", last[s0] + 1,
                                p);
            return false;
        }
        // a new class per token: distinct from every memory class (< seq_limit) and every other token
        const int64_t h = (int64_t) seq_limit + i;
        for (int32_t k = 0; k < n_seq_id_[i]; k++) {
            const llama_seq_id s = seq_id_[i][k];
            hist[s]              = h;
            last[s]              = p;
            seen[s]              = true;
        }
    }
    return true;
}

bool llama_batch_allocr::seq_same_history(const llama_memory_i * mem, llama_seq_id a, llama_seq_id b) {
    return !mem || mem->seq_same_cells(a, b);
}

std::vector<llama_ubatch> llama_batch_allocr::split(uint32_t n_ubatch) const {
    std::vector<llama_ubatch> out;
    for (uint32_t b = 0; b < (uint32_t) n_tokens_; b += n_ubatch) {
        llama_ubatch ub;
        ub.i_begin  = b;
        ub.n_tokens = std::min<uint32_t>(n_ubatch, (uint32_t) n_tokens_ - b);
        ub.token    = token_ ? token_ + b : nullptr;
        ub.embd     = embd_;  // offset applied by the caller (it knows n_embd)
        ub.pos      = pos_.data() + b;
        ub.n_seq_id = n_seq_id_.data() + b;
        ub.seq_id   = seq_id_.data() + b;
        ub.output   = output_.data() + b;
        for (uint32_t i = 0; i < ub.n_tokens; i++) {
            ub.n_outputs += ub.output[i] ? 1 : 0;
        }
        out.push_back(ub);
    }
    return out;
}

std::vector<llama_ubatch> llama_batch_allocr::split_equal(uint32_t n_ubatch) const {
    std::vector<llama_ubatch> out;
    const uint32_t            n = (uint32_t) n_tokens_;
    std::vector<bool>         in_ub(LLAMA_MAX_SEQ);
    for (uint32_t b = 0; b < n;) {
        const llama_seq_id s0  = seq_id_[b][0];
        uint32_t           e   = b + 1;
        const bool         run = e < n && seq_id_[e][0] == s0;  // one sequence, or one token per sequence
        std::fill(in_ub.begin(), in_ub.end(), false);
        in_ub[s0] = true;
        while (e < n && e - b < n_ubatch) {
            const llama_seq_id s = seq_id_[e][0];
            if (run ? s != s0 : (bool) in_ub[s]) {
                break;
            }
            in_ub[s] = true;
            e++;
        }
        llama_ubatch ub;
        ub.i_begin      = b;
        ub.n_tokens     = e - b;
        ub.token        = token_ ? token_ + b : nullptr;
        ub.embd         = embd_;
        ub.pos          = pos_.data() + b;
        ub.n_seq_id     = n_seq_id_.data() + b;
        ub.seq_id       = seq_id_.data() + b;
        ub.output       = output_.data() + b;
        ub.n_seqs       = run ? 1 : ub.n_tokens;
        ub.n_seq_tokens = run ? ub.n_tokens : 1;
        for (uint32_t i = 0; i < ub.n_tokens; i++) {
            ub.n_outputs += ub.output[i] ? 1 : 0;
        }
        out.push_back(ub);
        b = e;
    }
    return out;
}

// ---- public batch helpers ----------------------------------------------------------------------

struct llama_batch llama_batch_get_one(llama_token * tokens, int32_t n_tokens) {
    llama_batch b = {};
    b.n_tokens    = n_tokens;
    b.token       = tokens;
    return b;
}

struct llama_batch llama_batch_init(int32_t n_tokens_alloc, int32_t embd, int32_t n_seq_max) {
    llama_batch b = {};
    if (n_tokens_alloc <= 0 || embd < 0 || n_seq_max <= 0) {
        llama_report_error(__func__, llama_format("invalid arguments (n_tokens %d, embd %d, n_seq_max %d)",
                                                  n_tokens_alloc, embd, n_seq_max)
                                         .c_str());
        return b;
    }
    const size_t n  = (size_t) n_tokens_alloc;
    bool         ok = true;
    if (embd) {
        b.embd = (float *) calloc(n * (size_t) embd, sizeof(float));
        ok     = ok && b.embd;
    } else {
        b.token = (llama_token *) calloc(n, sizeof(llama_token));
        ok      = ok && b.token;
    }
    b.pos      = (llama_pos *) calloc(n, sizeof(llama_pos));
    b.n_seq_id = (int32_t *) calloc(n, sizeof(int32_t));
    // one extra NULL entry marks the end, so llama_batch_free needs no count
    b.seq_id = (llama_seq_id **) calloc(n + 1, sizeof(llama_seq_id *));
    b.logits = (int8_t *) calloc(n, sizeof(int8_t));
    ok       = ok && b.pos && b.n_seq_id && b.seq_id && b.logits;
    for (size_t i = 0; ok && i < n; i++) {
        b.seq_id[i] = (llama_seq_id *) calloc((size_t) n_seq_max, sizeof(llama_seq_id));
        ok          = b.seq_id[i] != nullptr;
    }
    if (!ok) {
        llama_batch_free(b);
        llama_report_error(__func__, "out of memory");
        return llama_batch{};
    }
    return b;
}

void llama_batch_free(struct llama_batch batch) {
    free(batch.token);
    free(batch.embd);
    free(batch.pos);
    free(batch.n_seq_id);
    if (batch.seq_id) {
        for (size_t i = 0; batch.seq_id[i]; i++) {
            free(batch.seq_id[i]);
        }
    }
    free(batch.seq_id);
    free(batch.logits);
}
