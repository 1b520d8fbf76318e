// The recurrent-layer ops on the device: SSM_CONV (Mamba's conv1d, LFM2's short conv), SSM_SCAN (the Mamba /
// Mamba-2 selective scan) and GATED_DELTA_NET (the gated delta rule of Qwen3-Next / Qwen3.5, and Kimi's KDA
// with a per-channel gate). The work of one item lives in ops-ssm-math.cuh (also run by the host test):
//   SSM_CONV         one thread per output element (channel fastest, so the writes coalesce);
//   SSM_SCAN         one warp per state row (sequence, head, row of head_dim), lanes over d_state;
//   GATED_DELTA_NET  one warp per row j of M (sequence, head, j), lanes over the S columns;
// the scan and the delta rule run the tokens one by one inside the warp (the recurrent form: no chunked
// prefill), the row in the result's slot 0, each element read and written by its own lane only, so the
// warps need no synchronisation beyond their shuffle sums.
#include "ops-basic.cuh"
#include "ops-ssm-math.cuh"

namespace cm = ggml_cuda_math;

namespace {

constexpr int k_rows_per_block = 4;  // warps (state rows) per block of the row kernels

__global__ void k_ssm_conv(cm::ssm_conv_params p, int64_t n) {
    for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (int64_t) gridDim.x * blockDim.x) {
        cm::ssm_conv_elem(p, e);
    }
}

// rows (sequence, head, row) flat, row fastest; threadIdx.y picks the warp, so each loop bound is warp-uniform
__global__ void k_ssm_scan(cm::ssm_scan_params p, int64_t n_rows) {
    for (int64_t r = (int64_t) blockIdx.x * k_rows_per_block + threadIdx.y; r < n_rows;
         r += (int64_t) gridDim.x * k_rows_per_block) {
        cm::ssm_scan_item(p, r, threadIdx.x, cm::SSM_WARP_LANES);
    }
}

__global__ void k_gated_delta_net(cm::gdn_params p, int64_t n_rows) {
    for (int64_t r = (int64_t) blockIdx.x * k_rows_per_block + threadIdx.y; r < n_rows;
         r += (int64_t) gridDim.x * k_rows_per_block) {
        cm::gdn_item(p, r, threadIdx.x, cm::SSM_WARP_LANES);
    }
}

// one warp per row, k_rows_per_block rows per block
dim3 row_block() {
    return dim3(cm::SSM_WARP_LANES, k_rows_per_block, 1);
}
unsigned row_grid(int64_t n_rows) {
    return cuda_row_blocks((n_rows + k_rows_per_block - 1) / k_rows_per_block);
}

}  // namespace

bool ggml_cuda_op_ssm_conv(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const int64_t n = ggml_nelements(dst);
    k_ssm_conv<<<cuda_row_blocks(ggml_cuda_blocks(n, 256)), 256, 0, ctx.stream>>>(cm::ssm_conv_params_of(dst), n);
    return true;
}

bool ggml_cuda_op_ssm_scan(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const cm::ssm_scan_params p      = cm::ssm_scan_params_of(dst);
    const int64_t             n_rows = p.ns * p.nh * p.hd;
    if (p.nt == 0 || n_rows == 0) {
        return true;  // nothing is written without tokens
    }
    k_ssm_scan<<<row_grid(n_rows), row_block(), 0, ctx.stream>>>(p, n_rows);
    return true;
}

bool ggml_cuda_op_gated_delta_net(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const cm::gdn_params p      = cm::gdn_params_of(dst);
    const int64_t        n_rows = p.ns * p.H * p.S;
    k_gated_delta_net<<<row_grid(n_rows), row_block(), 0, ctx.stream>>>(p, n_rows);
    return true;
}
