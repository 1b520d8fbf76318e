// GGUF -> metadata access and the weights map: which file and offset hold each tensor, checked
// against the file size; split files; the load modes (mmap / reads / mlock / direct I/O).
#pragma once

#include "llama-arch.h"
#include "llama-mmap.h"
#include "llama.h"

#include "gguf.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Where one weight lives on disk.
struct llama_tensor_weight {
    std::string name;
    ggml_type   type;
    int64_t     ne[4];
    uint32_t    n_dims;
    uint16_t    idx;   // index of the (split) file
    size_t      offs;  // absolute byte offset of the data in that file
    size_t      size;  // bytes
};

// Flags of create_tensor.
enum llama_tensor_flags {
    LLAMA_TENSOR_REQUIRED     = 0,
    LLAMA_TENSOR_NOT_REQUIRED = 1 << 0,  // absent -> nullptr instead of an error
    LLAMA_TENSOR_DUPLICATED   = 1 << 1,  // the same weight created a second time (not counted again)
};

// Thrown when the progress callback asks to stop.
struct llama_load_cancelled : std::runtime_error {
    llama_load_cancelled() : std::runtime_error("model load cancelled by the progress callback") {}
};

struct llama_model_loader {
    // paths: the split files in order; when it holds one path of a split model, the other parts are
    // derived from its name. Throws llama_error with a clear reason on any problem.
    llama_model_loader(const std::vector<std::string> & paths, const llama_model_params & params);
    ~llama_model_loader();
    llama_model_loader(const llama_model_loader &)             = delete;
    llama_model_loader & operator=(const llama_model_loader &) = delete;

    // general.architecture: arch is LLM_ARCH_UNKNOWN for a name this library cannot run, which
    // only a vocab-only load accepts; arch_name is always the file's name (it prefixes the keys).
    llm_arch    arch = LLM_ARCH_UNKNOWN;
    std::string arch_name;

    gguf_context *              meta = nullptr;  // the first file, kv overrides applied
    std::vector<gguf_context *> splits;          // splits[0] == meta; owned

    llama_files  files;
    llama_mmaps  mappings;  // one per file when mapping
    llama_mlocks mlocks;
    bool         use_mmap      = false;
    bool         use_mlock     = false;
    bool         check_tensors = false;

    std::map<std::string, llama_tensor_weight> weights_map;
    size_t                                     n_elements = 0;  // of all weights in the files
    size_t                                     n_bytes    = 0;

    // ---- metadata ----
    std::string kv_name(llm_kv kv) const { return llm_kv_name(kv, arch_name); }

    // Typed getters: false if absent and !required; throw if absent and required or of an
    // incompatible type. Integer keys accept any integer type that fits.
    bool get_key(const std::string & key, uint32_t & out, bool required = true) const;
    bool get_key(const std::string & key, int32_t & out, bool required = true) const;
    bool get_key(const std::string & key, int64_t & out, bool required = true) const;  // any integer type
    bool get_key(const std::string & key, float & out, bool required = true) const;
    bool get_key(const std::string & key, bool & out, bool required = true) const;
    bool get_key(const std::string & key, std::string & out, bool required = true) const;
    template <typename T>
    bool get_key(llm_kv kv, T & out, bool required = true) const {
        return get_key(kv_name(kv), out, required);
    }
    // Per-layer flags from an array key of exactly n elements (bool or integer, non-zero = true).
    // False if the key is absent or a scalar (read it as one then); throws on another element type
    // or another length.
    bool get_arr_flags(llm_kv kv, std::vector<bool> & out, uint32_t n) const;
    // An array of n unsigned integers (any integer width, values below 2^32); false if the key is
    // missing or not an array; throws on another element type, a negative value or another length.
    bool get_arr_u32(llm_kv kv, std::vector<uint32_t> & out, uint32_t n) const;

    // Every key/value of the first file as strings (for llama_model_meta_*).
    std::vector<std::pair<std::string, std::string>> metadata_strings() const;

    // ---- tensors ----
    const llama_tensor_weight * get_weight(const std::string & name) const;

    // Creates the tensor `name` in ctx with the file's type, checking its shape against ne
    // (dims not given must be 1). Missing: nullptr with NOT_REQUIRED, else throws.
    ggml_tensor * create_tensor(ggml_context * ctx, const std::string & name, const std::vector<int64_t> & ne,
                                int flags = LLAMA_TENSOR_REQUIRED);
    int           n_created = 0;

    // Gives every tensor of each context its data, in buffers of that context's buffer type (the
    // buffers are returned in bufs, owned by the caller, marked USAGE_WEIGHTS). CPU tensors point
    // into the mapped files (mmap) or are read into a CPU buffer; tensors of a device buffer type
    // are uploaded from the mapping or through a staging read. Reports progress per tensor; throws
    // llama_load_cancelled if the callback returns false.
    void load_all_data(const std::vector<std::pair<ggml_context *, ggml_backend_buffer_type_t>> & ctxs,
                       std::vector<ggml_backend_buffer_t> & bufs, llama_progress_callback progress_cb,
                       void * progress_ud);

private:
    void            open(const std::vector<std::string> & paths, const llama_model_params & params);
    void            open_split(const std::string & path, uint16_t idx);
    void            free_splits();
    void            apply_overrides(const llama_model_kv_override * kvo);
    llama_load_mode mode = LLAMA_LOAD_MODE_AUTO;
};

// A GGUF value as text: numbers, strings as-is, arrays as "[a, b, ...]" (truncated).
std::string llama_gguf_value_to_string(const gguf_context * ctx, int64_t key_id);
