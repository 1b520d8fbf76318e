// Shared by the tokenizer tests: load a vocab from tests/data/vocab through the GGUF reader.
#pragma once

#include "gguf.h"
#include "llama-vocab.h"
#include "test-common.h"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

inline const llama_vocab & shared_vocab(const std::string & name) {
    // vocabs are immutable once loaded: keep one per name for the whole test program
    static std::map<std::string, std::unique_ptr<llama_vocab>> cache;
    auto &                                                     slot = cache[name];
    if (!slot) {
        const std::string path = testing_util::data_path("vocab/ggml-vocab-" + name + ".gguf");
        gguf_init_params  params{/*no_alloc =*/true};
        gguf_context *    g = gguf_init_from_file(path.c_str(), params);
        if (!g) {
            throw std::runtime_error("cannot open " + path);
        }
        slot = std::make_unique<llama_vocab>();
        try {
            slot->load(g);
        } catch (...) {
            gguf_free(g);
            throw;
        }
        gguf_free(g);
    }
    return *slot;
}
