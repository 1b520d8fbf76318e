// The CPU backend's op table (cpu-op-table.cpp): one row per ggml_op. The graph loop (ggml-cpu.cpp),
// the backend glue and the profiler read an op's properties here, never through a switch on the op.
#pragma once

#include "ggml-cpu-impl.h"

// Which type names a node in the profile (GGML_CPU_PROFILE): none, an input's, the result's, or F32
// when the node heads a fused pass (ADD + RMS_NORM + MUL) and no type otherwise.
enum class cpu_prof : uint8_t { none, src0, src1, dst, fused };

struct ggml_cpu_op_row {
    ggml_op op;
    // nullptr (or false) = the CPU does not run this node
    bool (*supports)(const ggml_tensor * node);
    // the kernel, called on every thread of the node; nullptr for ops that run nothing (views, leaves)
    void (*run)(const ggml_cpu_params * p, ggml_tensor * dst);
    // scratch bytes the threads share (nullptr: none)
    size_t (*work_size)(const ggml_tensor * dst, int nth);
    // rough multiply-adds, to decide whether extra threads pay for their barriers
    double (*cost)(const ggml_tensor * dst);
    // light: no scratch shared between threads (at most a private slot per thread) and no barrier of
    // its own, so a thread may start it while another still computes an earlier light node
    bool     light;
    cpu_prof prof;
};

// The row of op (the NONE row for an invalid op).
const ggml_cpu_op_row & ggml_cpu_op_row_of(ggml_op op);
