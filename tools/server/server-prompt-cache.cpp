#include "server-prompt-cache.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace server {

namespace fs = std::filesystem;

namespace {

constexpr const char * k_ext = ".pcache";

size_t common_prefix(const std::vector<llama_token> & a, const std::vector<llama_token> & b) {
    const size_t n = std::min(a.size(), b.size());
    size_t       i = 0;
    while (i < n && a[i] == b[i]) {
        i++;
    }
    return i;
}

// The file name of a token list: its FNV-1a hash, so that the same sequence maps to the same file.
std::string name_of(const std::vector<llama_token> & tokens) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (llama_token t : tokens) {
        h = (h ^ (uint32_t) t) * 0x100000001b3ull;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%016" PRIx64, h);
    return std::string(buf) + k_ext;
}

void say(const std::string & path, const std::string & what) {
    fprintf(stderr, "llama-server: prompt cache: %s: %s\n", path.c_str(), what.c_str());
}

}  // namespace

prompt_store::prompt_store(std::string dir, uint64_t max_bytes, const prompt_cache::fingerprint & fp, int32_t n_vocab)
    : dir_(std::move(dir)), max_bytes_(max_bytes), fp_(fp), n_vocab_(n_vocab) {
    std::error_code ec;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path p = it->path();
        if (!it->is_regular_file(ec)) {
            continue;
        }
        const std::string name = p.filename().string();
        if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0 && name.find(k_ext) != std::string::npos) {
            fs::remove(p, ec);  // a write that never finished
            continue;
        }
        if (p.extension() != k_ext) {
            continue;
        }
        prompt_cache::header h;
        const auto           e = prompt_cache::read_header(p.string(), fp_, n_vocab_, h);
        if (e.kind == prompt_cache::error::damaged) {
            say(p.string(), e.reason + " (deleted)");
            fs::remove(p, ec);
            continue;
        }
        if (!e.ok()) {
            say(p.string(), e.reason + " (skipped)");
            continue;
        }
        entries_.push_back({p.string(), std::move(h.tokens), h.file_size, fs::last_write_time(p, ec)});
    }
    evict();
}

uint64_t prompt_store::total_bytes() const {
    uint64_t n = 0;
    for (const auto & e : entries_) {
        n += e.bytes;
    }
    return n;
}

void prompt_store::drop(size_t i, bool remove_file) {
    if (remove_file) {
        std::error_code ec;
        fs::remove(entries_[i].path, ec);
    }
    entries_.erase(entries_.begin() + (long) i);
}

void prompt_store::evict() {
    while (max_bytes_ > 0 && !entries_.empty() && total_bytes() > max_bytes_) {
        const auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                             [](const entry & a, const entry & b) { return a.last_use < b.last_use; });
        drop((size_t) (oldest - entries_.begin()), true);
    }
}

size_t prompt_store::restore_longer(llama_context * ctx, llama_seq_id seq, const std::vector<llama_token> & prompt,
                                    size_t have, std::vector<llama_token> & cache, size_t max_tokens) {
    // the last prompt token is always decoded again (its logits give the first token)
    const size_t usable = prompt.empty() ? 0 : prompt.size() - 1;
    size_t       best = 0, best_i = 0;
    for (size_t i = 0; i < entries_.size(); i++) {
        const size_t n = std::min(common_prefix(prompt, entries_[i].tokens), usable);
        if (n > best) {
            best   = n;
            best_i = i;
        }
    }
    if (best <= std::min(have, usable) || (best < have + k_min_gain && best < usable)) {
        return have;
    }
    entry &                  e = entries_[best_i];
    std::vector<llama_token> toks;
    const auto               err = prompt_cache::load(ctx, seq, fp_, e.path, max_tokens, toks);
    if (!err.ok()) {
        const bool damaged = err.kind == prompt_cache::error::damaged;
        say(e.path, err.reason + (damaged ? " (deleted)" : " (skipped)"));
        drop(best_i, damaged);
        if (llama_memory_seq_pos_max(llama_get_memory(ctx), seq) < 0 && !cache.empty()) {
            cache.clear();  // load() emptied the sequence
            return 0;
        }
        return have;
    }
    std::error_code ec;
    e.last_use = fs::file_time_type::clock::now();
    fs::last_write_time(e.path, e.last_use, ec);  // the LRU order survives a restart
    cache = std::move(toks);
    return common_prefix(prompt, cache);
}

void prompt_store::store(llama_context * ctx, llama_seq_id seq, const std::vector<llama_token> & tokens) {
    if (tokens.size() < 2) {
        return;
    }
    for (size_t i = 0; i < entries_.size();) {
        const size_t n = common_prefix(tokens, entries_[i].tokens);
        if (n == tokens.size()) {
            entries_[i].last_use = fs::file_time_type::clock::now();
            return;  // stored already (possibly with more after it)
        }
        if (n == entries_[i].tokens.size()) {
            drop(i, true);  // superseded by this longer sequence
        } else {
            i++;
        }
    }
    const std::string path    = (fs::path(dir_) / name_of(tokens)).string();
    size_t            n_bytes = 0;
    const auto        err     = prompt_cache::save(ctx, seq, fp_, tokens, path, &n_bytes);
    if (!err.ok()) {
        say(path, "not saved: " + err.reason);
        return;
    }
    if (max_bytes_ > 0 && n_bytes > max_bytes_) {
        std::error_code ec;
        fs::remove(path, ec);
        say(path, "not kept: " + std::to_string(n_bytes) + " bytes, more than the cap");
        return;
    }
    // a hash collision replaced another list's file: its entry goes
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const entry & e) { return e.path == path; }),
                   entries_.end());
    std::error_code ec;
    entries_.push_back({path, tokens, n_bytes, fs::last_write_time(path, ec)});
    evict();
}

}  // namespace server
