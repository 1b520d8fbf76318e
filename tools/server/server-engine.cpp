#include "server-engine.h"

#include "server-engine-slot.h"

#include <algorithm>
#include <cmath>

namespace server {

size_t utf8_incomplete_tail(const std::string & s) {
    // look back at most 3 bytes for a lead byte whose sequence runs past the end
    for (size_t k = 1; k <= 3 && k <= s.size(); k++) {
        const unsigned char c = (unsigned char) s[s.size() - k];
        if ((c & 0xC0) == 0x80) {
            continue;  // continuation byte
        }
        const size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        return need > k ? k : 0;
    }
    return 0;
}

bool utf8_valid(const std::string & s) {
    size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = (unsigned char) s[i];
        size_t              n;
        uint32_t            cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n  = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n  = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n  = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n > s.size()) {
            return false;
        }
        for (size_t k = 1; k < n; k++) {
            const unsigned char d = (unsigned char) s[i + k];
            if ((d & 0xC0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (d & 0x3F);
        }
        // overlong forms, surrogates and values past U+10FFFF are invalid
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += n;
    }
    return true;
}

namespace {

std::string token_piece(const llama_vocab * vocab, llama_token tok, bool special) {
    char      buf[256];
    const int n = llama_token_to_piece(vocab, tok, buf, sizeof(buf), 0, special);
    return n > 0 ? std::string(buf, (size_t) n) : std::string();
}

// The log-softmax of row i's raw logits at `chosen` and the n_top most probable tokens.
token_probs logprobs_of(llama_context * ctx, const llama_vocab * vocab, int i, llama_token chosen, int n_top,
                        std::vector<llama_token> & idx) {
    token_probs   tp;
    const float * logits  = llama_get_logits_ith(ctx, i);
    const int     n_vocab = llama_vocab_n_tokens(vocab);
    tp.chosen.id          = chosen;
    if (logits == nullptr) {
        return tp;
    }
    float max_l = logits[0];
    for (int t = 1; t < n_vocab; t++) {
        max_l = std::max(max_l, logits[t]);
    }
    double sum = 0.0;
    for (int t = 0; t < n_vocab; t++) {
        sum += std::exp((double) (logits[t] - max_l));
    }
    const float log_z = max_l + (float) std::log(sum);
    tp.chosen.logprob = logits[chosen] - log_z;
    n_top             = std::min(n_top, n_vocab);
    if (n_top > 0) {
        idx.resize((size_t) n_vocab);
        for (int t = 0; t < n_vocab; t++) {
            idx[(size_t) t] = t;
        }
        // ties in logits keep the lower id first, so the order is deterministic
        std::partial_sort(idx.begin(), idx.begin() + n_top, idx.end(), [logits](llama_token a, llama_token b) {
            return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
        });
        for (int k = 0; k < n_top; k++) {
            const llama_token t = idx[(size_t) k];
            tp.top.push_back({t, token_piece(vocab, t, true), logits[t] - log_z});
        }
    }
    return tp;
}

}  // namespace

// The chain of one task (upstream's order); the grammar is a separate sampler (make_grammar)
// because the prompt is fed to the chain's penalties but must not be fed to the grammar.
static llama_sampler * make_sampler(const sampling_params & sp, const llama_vocab * vocab, int n_ctx_slot) {
    llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    if (!sp.logit_bias.empty()) {
        llama_sampler_chain_add(
            chain, llama_sampler_init_logit_bias(llama_vocab_n_tokens(vocab), (int32_t) sp.logit_bias.size(),
                                                 sp.logit_bias.data()));
    }
    if (sp.presence_penalty != 0.0f || sp.frequency_penalty != 0.0f || sp.repeat_penalty != 1.0f) {
        llama_sampler_chain_add(
            chain, llama_sampler_init_penalties(llama_vocab_n_tokens(vocab),
                                                sp.repeat_last_n < 0 ? n_ctx_slot : sp.repeat_last_n, sp.repeat_penalty,
                                                sp.frequency_penalty, sp.presence_penalty));
    }
    if (sp.dry_multiplier > 0.0f) {
        std::vector<const char *> breakers;
        for (const auto & b : sp.dry_sequence_breakers) {
            breakers.push_back(b.c_str());
        }
        llama_sampler_chain_add(chain,
                                llama_sampler_init_dry(vocab, sp.dry_multiplier, sp.dry_base, sp.dry_allowed_length,
                                                       sp.dry_penalty_last_n < 0 ? n_ctx_slot : sp.dry_penalty_last_n,
                                                       breakers.data(), breakers.size()));
    }
    if (sp.temperature <= 0.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_greedy());
        return chain;
    }
    if (sp.mirostat == 1) {
        llama_sampler_chain_add(chain, llama_sampler_init_temp(sp.temperature));
        llama_sampler_chain_add(chain, llama_sampler_init_mirostat(llama_vocab_n_tokens(vocab), sp.seed,
                                                                   sp.mirostat_tau, sp.mirostat_eta, 100));
        return chain;
    }
    if (sp.mirostat == 2) {
        llama_sampler_chain_add(chain, llama_sampler_init_temp(sp.temperature));
        llama_sampler_chain_add(chain, llama_sampler_init_mirostat_v2(sp.seed, sp.mirostat_tau, sp.mirostat_eta));
        return chain;
    }
    if (sp.top_n_sigma > 0.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_top_n_sigma(sp.top_n_sigma));
    }
    if (sp.top_k > 0) {
        llama_sampler_chain_add(chain, llama_sampler_init_top_k(sp.top_k));
    }
    if (sp.typical_p < 1.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_typical(sp.typical_p, 1));
    }
    if (sp.top_p < 1.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_top_p(sp.top_p, 1));
    }
    if (sp.min_p > 0.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_min_p(sp.min_p, 1));
    }
    if (sp.xtc_probability > 0.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_xtc(sp.xtc_probability, sp.xtc_threshold, 1, sp.seed));
    }
    llama_sampler_chain_add(chain, llama_sampler_init_temp(sp.temperature));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(sp.seed));
    return chain;
}

// Samples row i: the grammar (if any) prunes the candidates first, then the chain picks; both
// accept the pick. LLAMA_TOKEN_NULL when nothing is left (reason in llama_last_error()).
static llama_token sample_row(llama_sampler * chain, llama_sampler * grammar, llama_context * ctx, int i,
                              std::vector<llama_token_data> & cur) {
    if (grammar == nullptr) {
        return llama_sampler_sample(chain, ctx, i);
    }
    const float * logits = llama_get_logits_ith(ctx, i);
    if (logits == nullptr) {
        return LLAMA_TOKEN_NULL;
    }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    cur.resize((size_t) n_vocab);
    for (llama_token t = 0; t < n_vocab; t++) {
        cur[(size_t) t] = {t, logits[t], 0.0f};
    }
    llama_token_data_array arr = {cur.data(), cur.size(), -1, false};
    llama_sampler_apply(grammar, &arr);
    llama_sampler_apply(chain, &arr);
    if (arr.selected < 0 || arr.selected >= (int64_t) arr.size || std::isinf(arr.data[arr.selected].logit)) {
        return LLAMA_TOKEN_NULL;  // the grammar left no candidate
    }
    const llama_token tok = arr.data[arr.selected].id;
    llama_sampler_accept(grammar, tok);
    llama_sampler_accept(chain, tok);
    return tok;
}

engine::engine(llama_context * ctx, int n_slots, int queue_limit, metrics & m, int n_ctx_slot, lora_set * loras,
               prompt_store * disk, const spec_config & spec)
    : ctx_(ctx),
      vocab_(llama_model_get_vocab(llama_get_model(ctx))),
      mem_(llama_get_memory(ctx)),
      n_ctx_slot_(n_ctx_slot > 0 ? n_ctx_slot : (int) llama_n_ctx(ctx) / n_slots),
      n_batch_((int) llama_n_batch(ctx)),
      queue_limit_(queue_limit),
      metrics_(m),
      loras_(loras),
      disk_(disk),
      spec_(spec) {
    // no adapter is set on ctx yet: the same as every scale 0
    lora_applied_.assign(loras_ != nullptr ? loras_->adapters().size() : 0, 0.0f);
    for (int i = 0; i < n_slots; i++) {
        slots_.push_back(std::make_unique<slot>());
        slots_.back()->id = i;
    }
    metrics_.n_slots     = n_slots;
    metrics_.kv_capacity = llama_n_ctx(ctx);
    thread_              = std::thread([this] { run(); });
}

engine::~engine() {
    stop();
    for (auto & s : slots_) {
        llama_sampler_free(s->spec_smpl);
        llama_sampler_free(s->smpl);
        llama_sampler_free(s->grmr);
    }
}

engine::submit_status engine::submit(task t) {
    if (t.prompt.empty() || (int) t.prompt.size() + 1 > n_ctx_slot_) {
        return submit_status::too_long;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) {
        return submit_status::stopping;
    }
    // the limit counts tasks that must wait: those a free slot will take at once do not
    if ((int) waiting_.size() >= queue_limit_ + (int) slots_.size() - n_running_) {
        return submit_status::queue_full;
    }
    waiting_.push_back(std::move(t));
    metrics_.queue_depth = (int64_t) waiting_.size();
    cv_.notify_all();
    return submit_status::ok;
}

bool engine::idle() {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_.empty() && n_running_ == 0;
}

engine::slot_op_result engine::slot_file(slot_op op, int id, const std::string & path) {
    if (id < 0 || id >= (int) slots_.size()) {
        return {"Invalid slot ID", 400};
    }
    slot_request r;
    r.op     = op;
    r.id     = id;
    r.path   = path;
    auto fut = r.done.get_future();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) {
            return {"server shutting down", 503};
        }
        slot_requests_.push_back(std::move(r));
    }
    cv_.notify_all();
    return fut.get();
}

// Runs one slot-file request on a free slot (engine thread). The slot's token list follows its KV
// cache exactly, so that the next task reuses the restored prefix; a failed restore leaves the slot
// empty rather than holding cells its token list does not describe.
void engine::run_slot_request(slot_request & r) {
    slot &         s  = *slots_[(size_t) r.id];
    const int64_t  t0 = llama_time_us();
    slot_op_result out;
    if (r.op == slot_op::erase) {
        out.n_tokens = s.cache.size();
        llama_memory_seq_rm(mem_, s.id, -1, -1);
        s.cache.clear();
        spec_forget(s);
    } else if (r.op == slot_op::save) {
        out.n_tokens = s.cache.size();
        out.n_bytes  = llama_state_seq_save_file(ctx_, r.path.c_str(), s.id, s.cache.data(), s.cache.size());
        if (out.n_bytes == 0) {
            out.error  = std::string("Unable to save slot: ") + llama_last_error();
            out.status = 500;
        }
    } else {
        size_t n_tok = 0;
        // first the token count alone (nothing restored), so that a file larger than the slot is refused
        size_t                   n = llama_state_seq_load_file(ctx_, r.path.c_str(), s.id, nullptr, 0, &n_tok);
        std::vector<llama_token> toks;
        if (n == 0) {
            out.error = std::string("cannot read the slot file: ") + llama_last_error();
        } else if (n_tok + 1 > (size_t) n_ctx_slot_) {
            out.error = "the saved prompt (" + std::to_string(n_tok) + " tokens) does not fit in the slot (" +
                        std::to_string(n_ctx_slot_) + ")";
        } else {
            toks.resize(std::max<size_t>(n_tok, 1));
            n = llama_state_seq_load_file(ctx_, r.path.c_str(), s.id, toks.data(), toks.size(), &n_tok);
            toks.resize(n == 0 ? 0 : n_tok);
            const int n_vocab = llama_vocab_n_tokens(vocab_);
            if (n == 0) {
                out.error = std::string("cannot load the slot file: ") + llama_last_error();
            } else if (std::any_of(toks.begin(), toks.end(),
                                   [n_vocab](llama_token t) { return t < 0 || t >= n_vocab; })) {
                out.error = "the slot file holds token ids outside the vocabulary";
            } else if (llama_memory_seq_pos_max(mem_, s.id) + 1 != (llama_pos) toks.size()) {
                out.error = "the slot file's cache and token list disagree";
            }
        }
        if (out.error.empty()) {
            // the file does not say which LoRA scales made it: reused only by tasks without adapters
            s.cache_lora.assign(loras_ != nullptr && !loras_->adapters().empty() ? 1 : 0, NAN);
            s.cache      = std::move(toks);
            out.n_tokens = s.cache.size();
            out.n_bytes  = n;
        } else {
            out.error  = "Unable to restore slot: " + out.error;
            out.status = 400;
            llama_memory_seq_rm(mem_, s.id, -1, -1);
            s.cache.clear();
        }
        spec_forget(s);  // the draft context holds what the slot had before
    }
    out.t_ms = (double) (llama_time_us() - t0) / 1000.0;
    r.done.set_value(std::move(out));
}

void engine::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

// Places waiting tasks on free slots, each on the free slot whose cache shares the longest prefix
// with its prompt. Called with mutex_ held.
void engine::assign_waiting() {
    while (!waiting_.empty()) {
        slot * best     = nullptr;
        size_t best_lcp = 0;
        for (auto & s : slots_) {
            if (s->busy) {
                continue;
            }
            const auto & p   = waiting_.front().prompt;
            size_t       lcp = 0;
            // a cache computed with other LoRA scales holds other K/V: nothing of it is reused
            const bool reuse = waiting_.front().cache_prompt && s->cache_lora == waiting_.front().lora;
            while (reuse && lcp < s->cache.size() && lcp < p.size() && s->cache[lcp] == p[lcp]) {
                lcp++;
            }
            if (best == nullptr || lcp > best_lcp) {
                best     = s.get();
                best_lcp = lcp;
            }
        }
        if (best == nullptr) {
            return;
        }
        slot & s = *best;
        s.t      = std::move(waiting_.front());
        waiting_.pop_front();
        if (use_disk(s.t)) {  // a stored file may share more of the prompt than the slot's cache
            best_lcp = disk_->restore_longer(ctx_, s.id, s.t.prompt, best_lcp, s.cache, (size_t) n_ctx_slot_);
        }
        // at least the last prompt token is decoded again: its logits give the first token
        size_t keep = std::min(best_lcp, s.t.prompt.size() - 1);
        if (!llama_memory_seq_rm(mem_, s.id, (llama_pos) keep, -1)) {
            llama_memory_seq_rm(mem_, s.id, -1, -1);
            keep = 0;
        }
        s.cache.resize(keep);
        s.cache_lora    = s.t.lora;
        s.n_prompt_done = keep;
        s.n_cached      = (int) keep;
        s.next          = LLAMA_TOKEN_NULL;
        s.n_gen         = 0;
        s.text.clear();
        s.n_sent = 0;
        s.gen.clear();
        s.gen_end.clear();
        s.probs.clear();
        s.n_tok_sent  = 0;
        s.t_start     = llama_time_us();
        s.t_first     = 0;
        s.spec_synced = false;  // the cache kept only the shared prefix
        s.n_draft     = 0;
        s.n_draft_acc = 0;
        llama_sampler_free(s.spec_smpl);  // refers to the two below
        llama_sampler_free(s.smpl);
        llama_sampler_free(s.grmr);
        s.spec_smpl = nullptr;
        s.smpl      = make_sampler(s.t.sampling, vocab_, n_ctx_slot_);
        // checked when the request was parsed; NULL here only if memory ran out
        s.grmr = nullptr;
        if (!s.t.sampling.grammar.empty() && s.t.sampling.grammar_lazy) {
            std::vector<const char *> pats;
            for (const auto & p : s.t.sampling.grammar_triggers) {
                pats.push_back(p.c_str());
            }
            s.grmr = llama_sampler_init_grammar_lazy_patterns(vocab_, s.t.sampling.grammar.c_str(), "root", pats.data(),
                                                              pats.size(), nullptr, 0);
        } else if (!s.t.sampling.grammar.empty()) {
            s.grmr = llama_sampler_init_grammar(vocab_, s.t.sampling.grammar.c_str(), "root");
        }
        for (size_t i = 0; i < keep; i++) {
            llama_sampler_accept(s.smpl, s.cache[i]);  // penalties see the whole prompt
        }
        s.busy = true;
        n_running_++;
        metrics_.cached_tokens += keep;
    }
    metrics_.queue_depth = (int64_t) waiting_.size();
}

void engine::add_to_batch(llama_batch & batch, llama_token tok, llama_pos pos, int seq, bool logits) {
    const int i        = batch.n_tokens++;
    batch.token[i]     = tok;
    batch.pos[i]       = pos;
    batch.n_seq_id[i]  = 1;
    batch.seq_id[i][0] = seq;
    batch.logits[i]    = logits ? 1 : 0;
}

// Sends the part of the generated text that can no longer change: not a possible start of a stop
// string, not an incomplete UTF-8 sequence. With final set, everything complete is sent.
void engine::emit_text(slot & s, bool final) {
    size_t end = s.text.size();
    if (!final) {
        for (const auto & stop : s.t.stop) {
            for (size_t k = std::min(stop.size() - 1, s.text.size()); k > 0; k--) {
                if (s.text.size() - k >= s.n_sent && s.text.compare(s.text.size() - k, k, stop, 0, k) == 0) {
                    end = std::min(end, s.text.size() - k);
                    break;
                }
            }
        }
    }
    end -= utf8_incomplete_tail(s.text.substr(0, end));
    if (end > s.n_sent) {
        task_event ev;
        ev.index = s.t.index;
        ev.text  = s.text.substr(s.n_sent, end - s.n_sent);
        s.n_sent = end;
        take_tokens(s, ev, end);
        s.t.out->push(std::move(ev));
    }
}

// Moves the tokens whose text ends within the first `end` bytes of the text into the event.
void engine::take_tokens(slot & s, task_event & ev, size_t end) {
    while (s.n_tok_sent < s.gen.size() && s.gen_end[s.n_tok_sent] <= end) {
        ev.tokens.push_back(s.gen[s.n_tok_sent]);
        if (s.n_tok_sent < s.probs.size()) {
            ev.probs.push_back(std::move(s.probs[s.n_tok_sent]));
        }
        s.n_tok_sent++;
    }
}

void engine::finish(slot & s, const std::string & reason, const std::string & error, const std::string & stop_word) {
    // a speculative step may have put tokens past the end into the cache: it keeps what was emitted
    // (no-op otherwise); the decoder's view of the sequence is then stale
    llama_memory_seq_rm(mem_, s.id, (llama_pos) s.cache.size(), -1);
    s.spec_synced = false;
    if (error.empty()) {
        // a token cut by a stop string still contributed the text before it: it goes with that text
        for (size_t k = s.n_tok_sent; k < s.gen.size(); k++) {
            const size_t begin = k == 0 ? 0 : s.gen_end[k - 1];
            if (begin < s.text.size()) {
                s.gen_end[k] = std::min(s.gen_end[k], s.text.size());
            }
        }
        emit_text(s, true);
    }
    task_event ev;
    ev.index          = s.t.index;
    ev.done           = true;
    ev.finish_reason  = reason;
    ev.error          = error;
    ev.stop_word      = stop_word;
    ev.n_prompt       = (int) s.t.prompt.size();
    ev.n_cached       = s.n_cached;
    ev.n_gen          = s.n_gen;
    ev.slot_id        = s.id;
    const int64_t now = llama_time_us();
    ev.t_prompt_ms    = (double) ((s.t_first > 0 ? s.t_first : now) - s.t_start) / 1000.0;
    ev.t_gen_ms       = s.t_first > 0 ? (double) (now - s.t_first) / 1000.0 : 0.0;
    ev.n_draft        = s.n_draft;
    ev.n_draft_acc    = s.n_draft_acc;
    if (error.empty()) {
        take_tokens(s, ev, s.text.size());
    }
    s.t.out->push(std::move(ev));
    s.t.out.reset();
    if (error.empty() && use_disk(s.t)) {  // after the reply was sent: the client does not wait for it
        disk_->store(ctx_, s.id, s.cache);
    }
    s.busy    = false;
    s.i_batch = -1;
    std::lock_guard<std::mutex> lock(mutex_);
    n_running_--;
}

void engine::process_token(slot & s, llama_token tok, int i_batch) {
    s.n_gen++;
    metrics_.generated_tokens++;
    if (s.t_first == 0) {
        s.t_first = llama_time_us();
    }
    // with a grammar, end-of-generation means the grammar is complete: nothing may follow
    if ((!s.t.ignore_eos || s.grmr != nullptr) && llama_vocab_is_eog(vocab_, tok)) {
        finish(s, "stop");
        return;
    }
    const std::string piece = token_piece(vocab_, tok, false);
    const size_t      from  = s.text.size();
    s.text += piece;
    s.gen.push_back(tok);
    s.gen_end.push_back(s.text.size());
    if (s.t.n_probs >= 0) {
        s.probs.push_back(logprobs_of(ctx_, vocab_, i_batch, tok, s.t.n_probs, idx_));
        s.probs.back().chosen.piece = piece;  // the text it added, even for a special token
        s.probs.back().offset       = from;
    }
    if (!piece.empty()) {
        for (const auto & stop : s.t.stop) {
            // a stop string may start in earlier text (across token boundaries) but not in sent text
            const size_t start = from >= stop.size() ? from - stop.size() + 1 : 0;
            const size_t pos   = s.text.find(stop, std::max(start, s.n_sent));
            if (pos != std::string::npos) {
                s.text.resize(pos);
                finish(s, "stop", "", stop);
                return;
            }
        }
    }
    if (s.n_gen >= s.t.max_tokens || (int) s.cache.size() + 1 >= n_ctx_slot_) {
        finish(s, "length");
        return;
    }
    emit_text(s, false);
    s.next = tok;
}

// The disk cache holds states computed without adapters: only tasks with every LoRA scale 0 use it.
bool engine::use_disk(const task & t) const {
    return disk_ != nullptr && t.cache_prompt &&
           std::all_of(t.lora.begin(), t.lora.end(), [](float v) { return v == 0.0f; });
}

void engine::update_gauges() {
    int64_t kv = 0, busy = 0;
    for (auto & sp : slots_) {
        kv += (int64_t) sp->cache.size();
        busy += sp->busy ? 1 : 0;
    }
    metrics_.kv_tokens  = kv;
    metrics_.slots_busy = busy;
    std::lock_guard<std::mutex> lock(mutex_);
    states_.resize(slots_.size());
    for (size_t i = 0; i < slots_.size(); i++) {
        const slot & sl = *slots_[i];
        states_[i]      = {sl.id, sl.busy, (int) sl.cache.size(), (int) sl.t.prompt.size(), sl.n_gen, sl.t.max_tokens};
    }
}

std::vector<engine::slot_state> engine::slot_states() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<slot_state>     out = states_;
    for (size_t i = out.size(); i < slots_.size(); i++) {
        out.push_back({(int) i, false, 0, 0, 0, 0});  // before the first step
    }
    return out;
}

void engine::apply_lora(const std::vector<float> * lora) {
    if (lora != nullptr && *lora != lora_applied_) {
        // cannot fail: the adapters are the model's and the scales one per adapter (server-lora)
        std::vector<float> scales = *lora;  // llama_set_adapters_lora takes a non-const array
        if (llama_set_adapters_lora(ctx_, const_cast<llama_adapter_lora **>(loras_->adapters().data()), scales.size(),
                                    scales.data()) == 0) {
            lora_applied_ = *lora;
        }
    }
}

void engine::run() {
    llama_batch batch = llama_batch_init(n_batch_, 0, 1);
    while (true) {
        std::deque<slot_request> todo;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            cv_.wait(lock, [this] { return stop_ || !waiting_.empty() || n_running_ > 0 || !slot_requests_.empty(); });
            if (stop_) {
                break;
            }
            // slot-file requests on free slots go before new tasks, which could otherwise take the slot
            for (auto it = slot_requests_.begin(); it != slot_requests_.end();) {
                if (slots_[(size_t) it->id]->busy) {
                    ++it;
                } else {
                    todo.push_back(std::move(*it));
                    it = slot_requests_.erase(it);
                }
            }
        }
        for (auto & r : todo) {
            run_slot_request(r);
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            assign_waiting();
        }
        if (!todo.empty()) {
            update_gauges();
        }
        // drop cancelled and late tasks
        const int64_t now = llama_time_us();
        for (auto & sp : slots_) {
            slot & s = *sp;
            if (!s.busy) {
                continue;
            }
            if (s.t.out->cancelled()) {
                finish(s, "", "cancelled");
            } else if (s.t.deadline_us > 0 && now > s.t.deadline_us) {
                finish(s, "", "request timed out");
            }
        }
        // one batch: every generating slot's next token, then prompt chunks while there is room;
        // with LoRA adapters, only the slots of one configuration (that of the first slot with
        // work, counting from lora_turn_)
        const std::vector<float> * lora = nullptr;
        for (size_t k = 0; k < slots_.size() && loras_ != nullptr && !lora_applied_.empty(); k++) {
            const slot & s = *slots_[(lora_turn_ + k) % slots_.size()];
            if (s.busy && (s.next != LLAMA_TOKEN_NULL || s.n_prompt_done < s.t.prompt.size())) {
                lora = &s.t.lora;
                break;
            }
        }
        lora_turn_      = (lora_turn_ + 1) % slots_.size();
        auto other_lora = [lora](const slot & s) { return lora != nullptr && s.t.lora != *lora; };
        // generating slots that may speculate advance in one verification batch of their own
        spec_step(lora);
        batch.n_tokens     = 0;
        int n_gen_in_batch = 0, n_prompt_in_batch = 0, n_slots_in_batch = 0;
        for (auto & sp : slots_) {
            slot & s  = *sp;
            s.i_batch = -1;
            if (s.busy && s.next != LLAMA_TOKEN_NULL && !other_lora(s) && !s.spec_done) {
                s.spec_synced = false;  // the decoder does not see this token
                s.i_batch     = batch.n_tokens;
                add_to_batch(batch, s.next, (llama_pos) s.cache.size(), s.id, true);
                s.cache.push_back(s.next);
                s.next = LLAMA_TOKEN_NULL;
                n_gen_in_batch++;
                n_slots_in_batch++;
                metrics_.observe_sequence((int64_t) s.cache.size());
            }
        }
        for (auto & sp : slots_) {
            slot &    s      = *sp;
            const int before = n_prompt_in_batch;
            while (s.busy && s.i_batch < 0 && !other_lora(s) && s.n_prompt_done < s.t.prompt.size() &&
                   batch.n_tokens < n_batch_) {
                const bool last = s.n_prompt_done + 1 == s.t.prompt.size();
                if (last) {
                    s.i_batch = batch.n_tokens;
                }
                add_to_batch(batch, s.t.prompt[s.n_prompt_done], (llama_pos) s.cache.size(), s.id, last);
                s.cache.push_back(s.t.prompt[s.n_prompt_done]);
                s.n_prompt_done++;
                n_prompt_in_batch++;
            }
            if (n_prompt_in_batch > before) {
                n_slots_in_batch++;
                metrics_.observe_sequence((int64_t) s.cache.size());
            }
        }
        if (batch.n_tokens == 0) {
            update_gauges();  // tasks may have been dropped above
            continue;
        }
        apply_lora(lora);
        const int64_t t0 = llama_time_us();
        const int     rc = llama_decode(ctx_, batch);
        metrics_.record_decode(n_prompt_in_batch, n_gen_in_batch, n_slots_in_batch, (uint64_t) (llama_time_us() - t0));
        if (rc != 0) {
            // fail every task of this batch and forget their cache (it may hold part of the batch)
            const std::string err = std::string("decode failed: ") + llama_last_error();
            std::vector<bool> in_batch(slots_.size(), false);
            for (int i = 0; i < batch.n_tokens; i++) {
                in_batch[(size_t) batch.seq_id[i][0]] = true;
            }
            for (auto & sp : slots_) {
                if (in_batch[(size_t) sp->id]) {
                    llama_memory_seq_rm(mem_, sp->id, -1, -1);
                    sp->cache.clear();
                    spec_forget(*sp);
                    if (sp->busy) {
                        finish(*sp, "", err);
                    }
                }
            }
            update_gauges();
            continue;
        }
        for (auto & sp : slots_) {
            slot & s = *sp;
            if (s.busy && s.i_batch >= 0) {
                if (s.grmr == nullptr && !s.t.sampling.grammar.empty()) {
                    finish(s, "", std::string("cannot create the grammar: ") + llama_last_error());
                    continue;
                }
                const llama_token tok = sample_row(s.smpl, s.grmr, ctx_, s.i_batch, cur_);
                if (tok == LLAMA_TOKEN_NULL) {
                    finish(s, "", std::string("sampling failed: ") + llama_last_error());
                } else {
                    process_token(s, tok, s.i_batch);
                }
            }
        }
        update_gauges();
    }
    // shutting down: fail what is left
    for (auto & sp : slots_) {
        if (sp->busy) {
            finish(*sp, "", "server shutting down");
        }
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto & t : waiting_) {
            task_event ev;
            ev.index = t.index;
            ev.done  = true;
            ev.error = "server shutting down";
            t.out->push(std::move(ev));
        }
        waiting_.clear();
        for (auto & r : slot_requests_) {
            r.done.set_value({"server shutting down", 503});
        }
        slot_requests_.clear();
    }
    llama_batch_free(batch);
}

}  // namespace server
