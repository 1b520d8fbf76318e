// llama-server's prompt cache on disk (--prompt-cache-dir DIR, --prompt-cache-max-mib N): a folder
// of prompt-cache files (tools/common/prompt-cache.h), one per stored sequence, indexed by their
// token lists. At start only the headers are read; a damaged file (empty, truncated, checksum) is
// deleted and one written by another model or cache type is skipped, each with one message. The
// engine stores a slot's cache when a task ends and, when a new task's prompt shares a longer
// prefix with a stored file than with the slot's own cache, restores that file into the slot.
// Disk use stays under the cap: the least recently used files (by modification time, which a
// restore refreshes) are deleted first. Used by the engine thread only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "llama.h"
#include "prompt-cache.h"

namespace server {

class prompt_store {
public:
    // Indexes the prompt-cache files (*.pcache) of `dir` and deletes stale temporary files.
    // max_bytes: the cap on the files' total size (0: no cap).
    prompt_store(std::string dir, uint64_t max_bytes, const prompt_cache::fingerprint & fp, int32_t n_vocab);

    // `have`: the prompt tokens the slot's cache (sequence `seq`, token list `cache`) can reuse.
    // When a stored file shares a longer prefix with `prompt` (by at least k_min_gain tokens, or all
    // of the prompt but its last token), restores it into `seq`, sets `cache` to its tokens and
    // returns the common prefix of `prompt` and `cache`; otherwise returns `have`. A file that fails
    // to load is dropped from the index (deleted when damaged), with one message; when the failed
    // load emptied the sequence, `cache` is cleared and 0 returned.
    size_t restore_longer(llama_context * ctx, llama_seq_id seq, const std::vector<llama_token> & prompt, size_t have,
                          std::vector<llama_token> & cache, size_t max_tokens);

    // Stores sequence `seq` holding `tokens` unless a file already holds them (or more after them);
    // files holding a strict prefix of them are replaced. Then evicts down to the cap.
    void store(llama_context * ctx, llama_seq_id seq, const std::vector<llama_token> & tokens);

    size_t   n_files() const { return entries_.size(); }
    uint64_t total_bytes() const;

    static constexpr size_t k_min_gain = 16;  // restoring a file for fewer tokens costs more than decoding them

private:
    struct entry {
        std::string                     path;
        std::vector<llama_token>        tokens;
        uint64_t                        bytes = 0;
        std::filesystem::file_time_type last_use;
    };
    void drop(size_t i, bool remove_file);
    void evict();

    std::string               dir_;
    uint64_t                  max_bytes_;
    prompt_cache::fingerprint fp_;
    int32_t                   n_vocab_;
    std::vector<entry>        entries_;
};

}  // namespace server
