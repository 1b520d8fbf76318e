// Per-op timing of CPU graphs for finding per-token overhead (GGML_CPU_PROFILE=1). Off by default;
// when off the graph loop pays one predictable branch per node. The summary goes to stderr at exit.
#pragma once

#include <cstdint>

#include "ggml.h"

// True when GGML_CPU_PROFILE=1 (read once).
bool ggml_cpu_profile_on();

// Monotonic nanoseconds.
int64_t ggml_cpu_profile_now();

// One thread's record of one graph, merged into the process totals by ggml_cpu_profile_commit.
struct ggml_cpu_profile_rec {
    static constexpr int N_KEYS = GGML_OP_COUNT * (GGML_TYPE_COUNT + 1);
    int64_t              compute_ns[N_KEYS];
    int64_t              barrier_ns[N_KEYS];  // waiting at the barrier after a node of this key
    int64_t              calls[N_KEYS];
    int64_t              n_barriers;
};

// Key of a node: its op and, for products, gathers and attention, the type of the weights / cache.
int ggml_cpu_profile_key(const ggml_tensor * t, bool fused_next);

void ggml_cpu_profile_clear(ggml_cpu_profile_rec * r);
// Adds one thread's record of one graph (thread ith of nth).
void ggml_cpu_profile_commit(const ggml_cpu_profile_rec * r, int ith, int nth);
// Counts one graph compute call taking `ns` from entry to return (preparation included).
void ggml_cpu_profile_graph(int64_t ns, int n_threads);
// GGML_CPU_PROFILE=2: prints the node order of the first graph of more than 64 nodes once, with
// the barriers the graph loop will wait at ("|" after a node).
void ggml_cpu_profile_dump(ggml_tensor * const * nodes, const uint8_t * barrier_after, int n_nodes,
                           bool (*is_noop)(const ggml_tensor *));
