// Compile-time check of a backend's op table against the core one (ggml-op-table.h): one row per
// ggml_op, in enum order. Each backend keeps a constexpr array of its own row type (with an `op`
// member) and asserts
//     static_assert(ggml_op_rows_complete(k_rows), "...");
// so that adding an op without a row in that backend fails to build; a backend that cannot run the
// op says so in its row (no supports function, or one that returns false), never by omission.
#pragma once

#include <cstddef>

#include "ggml.h"

template <typename Row, std::size_t N>
constexpr bool ggml_op_rows_complete(const Row (&rows)[N]) {
    if (N != (std::size_t) GGML_OP_COUNT) {
        return false;
    }
    for (std::size_t i = 0; i < N; ++i) {
        if ((std::size_t) rows[i].op != i) {
            return false;
        }
    }
    return true;
}
