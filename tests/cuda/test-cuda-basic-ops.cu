// The CUDA basic ops (ggml/src/ggml-cuda/ops-*.cu) on a real device, node by node, against the CPU
// backend (the oracle): each case builds one op on host tensors, computes it with the CPU engine, runs
// the same node through ggml_cuda_op_run on copies of its inputs in device memory, and compares.
// Quantized results (set_rows / cpy into KV-cache blocks), indices and bit copies must be identical;
// float results must agree to rounding (normalized MSE). Every case must also be accepted by
// ggml_cuda_op_supported, so a refused op fails here instead of passing.
// Without a CUDA device the test skips with one line; LLAMA_TEST_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ggml-cpu/ggml-cpu-compute.h"
#include "ggml-cuda/common.cuh"
#include "ggml.h"
#include "test-common.h"

namespace {

bool device_or_skip(ggml_cuda_device_info & info, std::string & why) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        why = "no CUDA device";
        return false;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        why = "cudaGetDeviceProperties failed";
        return false;
    }
    info.device               = 0;
    info.cc                   = prop.major * 10 + prop.minor;
    info.sm_count             = prop.multiProcessorCount;
    info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
    info.total_mem            = prop.totalGlobalMem;
    return true;
}

void fill(ggml_tensor * t, float lo, float hi, uint32_t seed) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    const int64_t                         n = ggml_nelements(t);
    for (int64_t i = 0; i < n; ++i) {
        const float v = u(rng);
        if (t->type == GGML_TYPE_F32) {
            ((float *) t->data)[i] = v;
        } else if (t->type == GGML_TYPE_F16) {
            ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(v);
        } else if (t->type == GGML_TYPE_BF16) {
            ((ggml_bf16_t *) t->data)[i] = ggml_fp32_to_bf16(v);
        } else if (t->type == GGML_TYPE_I32) {
            ((int32_t *) t->data)[i] = (int32_t) v;
        }
    }
}

ggml_tensor * rnd(ggml_context * c, ggml_type type, int64_t n0, int64_t n1 = 1, int64_t n2 = 1, int64_t n3 = 1,
                  float lo = -2.0f, float hi = 2.0f) {
    static uint32_t seed = 1;
    ggml_tensor *   t    = ggml_new_tensor_4d(c, type, n0, n1, n2, n3);
    fill(t, lo, hi, seed++);
    return t;
}

ggml_tensor * base_of(ggml_tensor * t) {
    while (t->view_src) {
        t = t->view_src;
    }
    return t;
}

std::vector<float> as_floats(const ggml_tensor * t, const void * data) {
    const int64_t      n = ggml_nelements(t);
    std::vector<float> v((size_t) n);
    for (int64_t i = 0; i < n; ++i) {
        switch (t->type) {
            case GGML_TYPE_F32:
                v[(size_t) i] = ((const float *) data)[i];
                break;
            case GGML_TYPE_F16:
                v[(size_t) i] = ggml_fp16_to_fp32(((const ggml_fp16_t *) data)[i]);
                break;
            default:
                v[(size_t) i] = ggml_bf16_to_fp32(((const ggml_bf16_t *) data)[i]);
                break;
        }
    }
    return v;
}

struct op_case {
    std::string                                  name;
    std::function<ggml_tensor *(ggml_context *)> build;
    double                                       max_nmse = 1e-10;  // float results; others exact
};

// Runs one case; returns "" or the reason it failed.
std::string run_case(const ggml_cuda_device_info & info, cudaStream_t stream, const op_case & oc) {
    ggml_init_params ip{256u << 20, nullptr, false};
    ggml_context *   ctx = ggml_init(ip);
    ggml_tensor *    out = oc.build(ctx);
    if (!ggml_cuda_op_supported(info, out)) {
        ggml_free(ctx);
        return "refused by ggml_cuda_op_supported";
    }
    // every base tensor the node touches, with its bytes before the CPU computes (in-place ops)
    std::map<ggml_tensor *, std::vector<uint8_t>> bases;
    std::vector<ggml_tensor *>                    touched = {out};
    for (ggml_tensor * s : out->src) {
        if (s) {
            touched.push_back(s);
        }
    }
    for (ggml_tensor * t : touched) {
        ggml_tensor * b = base_of(t);
        if (!bases.count(b)) {
            bases[b].assign((uint8_t *) b->data, (uint8_t *) b->data + ggml_nbytes(b));
        }
    }
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    ggml_cpu_threadpool * tp = ggml_cpu_threadpool_new(2);
    const ggml_status     st = ggml_cpu_graph_compute(tp, gf, 2, nullptr, nullptr);
    ggml_cpu_threadpool_free(tp);
    if (st != GGML_STATUS_SUCCESS) {
        ggml_free(ctx);
        return "CPU compute failed";
    }
    ggml_tensor *              ob = base_of(out);
    const std::vector<uint8_t> want((uint8_t *) ob->data, (uint8_t *) ob->data + ggml_nbytes(ob));

    // device copies of the bases; the touched tensors point into them while the node runs
    std::map<ggml_tensor *, char *> dev;
    std::string                     err;
    for (auto & kv : bases) {
        char * p = nullptr;
        if (cudaMalloc(&p, kv.second.size() + 256) != cudaSuccess ||
            cudaMemcpy(p, kv.second.data(), kv.second.size(), cudaMemcpyHostToDevice) != cudaSuccess) {
            err = "device allocation failed";
        }
        dev[kv.first] = p;
    }
    std::map<ggml_tensor *, void *> host_ptr;
    for (ggml_tensor * t : touched) {
        if (!host_ptr.count(t)) {
            host_ptr[t]     = t->data;
            ggml_tensor * b = base_of(t);
            t->data         = dev[b] + ((char *) t->data - (char *) b->data);
        }
    }
    std::vector<uint8_t> got(want.size());
    if (err.empty()) {
        ggml_cuda_op_ctx oc_ctx;
        oc_ctx.info   = &info;
        oc_ctx.stream = stream;
        if (!ggml_cuda_op_run(oc_ctx, out)) {
            err = "ggml_cuda_op_run returned false";
        } else if (const cudaError_t le = cudaGetLastError(); le != cudaSuccess) {
            err = std::string("launch failed: ") + cudaGetErrorString(le);
        } else if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
            err = std::string("kernel failed: ") + cudaGetErrorString(e);
        } else if (cudaMemcpy(got.data(), dev[ob], got.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
            err = "copy back failed";
        }
    }
    for (auto & kv : host_ptr) {
        kv.first->data = kv.second;
    }
    for (auto & kv : dev) {
        cudaFree(kv.second);
    }
    if (err.empty()) {
        const bool is_float = ob->type == GGML_TYPE_F32 || ob->type == GGML_TYPE_F16 || ob->type == GGML_TYPE_BF16;
        if (!is_float || oc.max_nmse == 0.0) {
            if (want != got) {
                size_t i = 0;
                while (want[i] == got[i]) {
                    ++i;
                }
                err = "bytes differ from the CPU's (first at byte " + std::to_string(i) + ")";
            }
        } else {
            const double e = testing_util::nmse(as_floats(ob, got.data()), as_floats(ob, want.data()));
            if (!(e <= oc.max_nmse)) {
                err = "nmse " + std::to_string(e) + " > " + std::to_string(oc.max_nmse);
            }
        }
    }
    ggml_free(ctx);
    return err;
}

ggml_tensor * ids_i32(ggml_context * c, const std::vector<int32_t> & v) {
    ggml_tensor * t = ggml_new_tensor_1d(c, GGML_TYPE_I32, (int64_t) v.size());
    std::memcpy(t->data, v.data(), v.size() * 4);
    return t;
}

std::vector<op_case> cases() {
    std::vector<op_case> cs;
    // binary, with broadcasting, mixed types and a transposed operand
    cs.push_back({"add_bcast", [](ggml_context * c) {
                      return ggml_add(c, rnd(c, GGML_TYPE_F32, 64, 5, 3), rnd(c, GGML_TYPE_F32, 64, 1, 3));
                  }});
    cs.push_back(
        {"add_f16",
         [](ggml_context * c) { return ggml_add(c, rnd(c, GGML_TYPE_F16, 33, 4), rnd(c, GGML_TYPE_F32, 33, 4)); },
         1e-6});
    cs.push_back({"mul_col", [](ggml_context * c) {
                      return ggml_mul(c, rnd(c, GGML_TYPE_F32, 100, 6, 2), rnd(c, GGML_TYPE_F32, 1, 6, 1));
                  }});
    cs.push_back({"div_transposed", [](ggml_context * c) {
                      return ggml_div(c, ggml_transpose(c, rnd(c, GGML_TYPE_F32, 7, 40)),
                                      rnd(c, GGML_TYPE_F32, 40, 1, 1, 1, 0.5f, 2.0f));
                  }});
    // unary family
    for (int u = 0; u < GGML_UNARY_OP_COUNT; ++u) {
        cs.push_back({std::string("unary_") + ggml_unary_op_name((ggml_unary_op) u), [u](ggml_context * c) {
                          return ggml_unary(c, rnd(c, GGML_TYPE_F32, 300, 7, 1, 1, -6.0f, 6.0f), (ggml_unary_op) u);
                      }});
    }
    cs.push_back({"silu_f16", [](ggml_context * c) { return ggml_silu(c, rnd(c, GGML_TYPE_F16, 130, 3)); }, 1e-6});
    cs.push_back({"sqr", [](ggml_context * c) { return ggml_sqr(c, rnd(c, GGML_TYPE_F32, 50, 3)); }});
    cs.push_back(
        {"sqrt", [](ggml_context * c) { return ggml_sqrt(c, rnd(c, GGML_TYPE_F32, 50, 3, 1, 1, 0.0f, 9.0f)); }});
    cs.push_back(
        {"scale_bias", [](ggml_context * c) { return ggml_scale_bias(c, rnd(c, GGML_TYPE_F32, 77, 2), 0.3f, -1.5f); }});
    cs.push_back({"clamp", [](ggml_context * c) { return ggml_clamp(c, rnd(c, GGML_TYPE_F32, 77, 2), -0.5f, 0.75f); }});
    for (int g = 0; g < GGML_GLU_OP_COUNT; ++g) {
        for (int form = 0; form < 3; ++form) {
            cs.push_back({"glu" + std::to_string(g) + "_" + std::to_string(form), [g, form](ggml_context * c) {
                              if (form == 2) {
                                  return ggml_glu_split(c, rnd(c, GGML_TYPE_F32, 96, 5), rnd(c, GGML_TYPE_F32, 96, 5),
                                                        (ggml_glu_op) g);
                              }
                              return ggml_glu(c, rnd(c, GGML_TYPE_F32, 192, 5), (ggml_glu_op) g, form == 1);
                          }});
        }
    }
    // norms and reductions
    cs.push_back({"norm", [](ggml_context * c) { return ggml_norm(c, rnd(c, GGML_TYPE_F32, 4096, 3), 1e-5f); }});
    cs.push_back(
        {"rms_norm", [](ggml_context * c) { return ggml_rms_norm(c, rnd(c, GGML_TYPE_F32, 4096, 5, 2), 1e-6f); }});
    cs.push_back(
        {"rms_norm_short", [](ggml_context * c) { return ggml_rms_norm(c, rnd(c, GGML_TYPE_F32, 17, 40), 1e-6f); }});
    cs.push_back({"sum_rows", [](ggml_context * c) { return ggml_sum_rows(c, rnd(c, GGML_TYPE_F32, 1000, 9, 2)); }});
    cs.push_back({"mean", [](ggml_context * c) { return ggml_mean(c, rnd(c, GGML_TYPE_F32, 999, 4)); }});
    cs.push_back({"argmax", [](ggml_context * c) { return ggml_argmax(c, rnd(c, GGML_TYPE_F32, 32000, 6)); }});
    // rope: modes, freq factors, YaRN, F16, long positions
    for (int v = 0; v < 5; ++v) {
        cs.push_back({"rope" + std::to_string(v),
                      [v](ggml_context * c) {
                          const ggml_type t    = v == 4 ? GGML_TYPE_F16 : GGML_TYPE_F32;
                          ggml_tensor *   a    = rnd(c, t, 128, 8, 6);
                          ggml_tensor *   pos  = ids_i32(c, {0, 1, 7, 500, 4095, 70000});
                          ggml_tensor *   ff   = v == 2 ? rnd(c, GGML_TYPE_F32, 48, 1, 1, 1, 1.0f, 8.0f) : nullptr;
                          const int       mode = v % 2 ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_NORMAL;
                          return ggml_rope_ext(c, a, pos, ff, v == 2 ? 96 : 128, mode, 4096, 10000.0f,
                                               v == 3 ? 0.25f : 1.0f, v == 3 ? 1.0f : 0.0f, 1.0f, 32.0f, 1.0f);
                      },
                      v == 4 ? 1e-6 : 1e-10});
    }
    // soft_max: plain, F16 mask broadcast over heads with ALiBi, a fully masked row
    cs.push_back({"soft_max", [](ggml_context * c) { return ggml_soft_max(c, rnd(c, GGML_TYPE_F32, 1000, 7)); }});
    cs.push_back({"soft_max_mask_alibi", [](ggml_context * c) {
                      ggml_tensor * m = rnd(c, GGML_TYPE_F16, 256, 9, 1, 1, -1.0f, 1.0f);
                      for (int i = 0; i < 256 * 9; ++i) {
                          if (i % 7 == 0 || i / 256 == 3) {
                              ((ggml_fp16_t *) m->data)[i] = ggml_fp32_to_fp16(-INFINITY);
                          }
                      }
                      return ggml_soft_max_ext(c, rnd(c, GGML_TYPE_F32, 256, 9, 12), m, 0.125f, 8.0f);
                  }});
    // argsort (with ties: values rounded to few levels)
    for (int o = 0; o < 2; ++o) {
        cs.push_back({"argsort" + std::to_string(o), [o](ggml_context * c) {
                          ggml_tensor * a = rnd(c, GGML_TYPE_F32, 1000, 4);
                          for (int i = 0; i < 4000; ++i) {
                              ((float *) a->data)[i] = (float) (int) (((float *) a->data)[i] * 5.0f);
                          }
                          return ggml_argsort(c, a, (ggml_sort_order) o);
                      }});
    }
    // the recurrent ops (ops-ssm.cu): conv windows of LFM2 (3) and Mamba (4) over several sequences; the scan
    // with Mamba-2's scalar A (groups shared by heads, snapshot slots, states read through permuted ids) and
    // Mamba-1's per-state A; the delta rule with the scalar and the per-channel gate, q/k heads and
    // sequences shared, a row width that is not a warp multiple, a decode step and prefills
    for (int64_t d_conv : {3, 4}) {
        cs.push_back({"ssm_conv" + std::to_string(d_conv), [d_conv](ggml_context * c) {
                          return ggml_ssm_conv(c, rnd(c, GGML_TYPE_F32, d_conv - 1 + 9, 96, 3),
                                               rnd(c, GGML_TYPE_F32, d_conv, 96));
                      }});
    }
    for (int mamba1 = 0; mamba1 < 2; ++mamba1) {
        cs.push_back({std::string("ssm_scan_mamba") + (mamba1 ? "1" : "2"),
                      [mamba1](ggml_context * c) {
                          const int64_t ds = mamba1 ? 16 : 64, hd = mamba1 ? 1 : 16, nh = mamba1 ? 48 : 6;
                          const int64_t ng = mamba1 ? 1 : 2, nt = 7, ns = 3, K = mamba1 ? 1 : 3;
                          return ggml_ssm_scan(c, rnd(c, GGML_TYPE_F32, ds, hd, nh, 4),
                                               rnd(c, GGML_TYPE_F32, hd, nh, nt, ns),
                                               rnd(c, GGML_TYPE_F32, nh, nt, ns, 1, -3.0f, 1.0f),
                                               rnd(c, GGML_TYPE_F32, mamba1 ? ds : 1, nh, 1, 1, -2.0f, -0.1f),
                                               rnd(c, GGML_TYPE_F32, ds, ng, nt, ns),
                                               rnd(c, GGML_TYPE_F32, ds, ng, nt, ns), ids_i32(c, {2, 0, 3}), K);
                      },
                      1e-10});
    }
    struct gdn_shape {
        int64_t S, H, H_k, nt, ns, ns_k, K;
        bool    per_ch;
    };
    for (const gdn_shape & g : {gdn_shape{128, 4, 2, 1, 3, 3, 1, false}, gdn_shape{128, 4, 2, 1, 2, 2, 3, true},
                                gdn_shape{128, 2, 1, 24, 2, 1, 1, false}, gdn_shape{48, 3, 1, 17, 2, 2, 2, true},
                                gdn_shape{20, 2, 2, 5, 1, 1, 4, false}}) {
        cs.push_back(
            {"gated_delta_net_S" + std::to_string(g.S) + "_nt" + std::to_string(g.nt) + (g.per_ch ? "_kda" : ""),
             [g](ggml_context * c) {
                 return ggml_gated_delta_net(c, rnd(c, GGML_TYPE_F32, g.S, g.H_k, g.nt, g.ns_k, -0.1f, 0.1f),
                                             rnd(c, GGML_TYPE_F32, g.S, g.H_k, g.nt, g.ns_k, -0.1f, 0.1f),
                                             rnd(c, GGML_TYPE_F32, g.S, g.H, g.nt, g.ns),
                                             rnd(c, GGML_TYPE_F32, g.per_ch ? g.S : 1, g.H, g.nt, g.ns, -1.0f, 0.0f),
                                             rnd(c, GGML_TYPE_F32, 1, g.H, g.nt, g.ns, 0.05f, 0.95f),
                                             rnd(c, GGML_TYPE_F32, g.S, g.S, g.H, g.ns, -0.5f, 0.5f), g.K);
             },
             1e-9});  // the CPU takes its chunked form from 6 tokens on: another rounding
    }
    // concat along each dim, copies and conversions
    for (int d = 0; d < 4; ++d) {
        cs.push_back({"concat" + std::to_string(d), [d](ggml_context * c) {
                          return ggml_concat(
                              c, rnd(c, GGML_TYPE_F32, 6, 5, 4, 3),
                              rnd(c, GGML_TYPE_F32, d == 0 ? 2 : 6, d == 1 ? 2 : 5, d == 2 ? 2 : 4, d == 3 ? 2 : 3), d);
                      }});
    }
    cs.push_back({"cont_permute", [](ggml_context * c) {
                      return ggml_cont(c, ggml_permute(c, rnd(c, GGML_TYPE_F32, 64, 8, 5), 0, 2, 1, 3));
                  }});
    cs.push_back({"cpy_f32_f16",
                  [](ggml_context * c) {
                      return ggml_cpy(c, rnd(c, GGML_TYPE_F32, 70, 3), ggml_new_tensor_2d(c, GGML_TYPE_F16, 70, 3));
                  },
                  0.0});
    cs.push_back({"cpy_f16_bf16",
                  [](ggml_context * c) {
                      return ggml_cpy(c, rnd(c, GGML_TYPE_F16, 70, 3), ggml_new_tensor_2d(c, GGML_TYPE_BF16, 70, 3));
                  },
                  0.0});
    cs.push_back({"cpy_reshape",
                  [](ggml_context * c) {
                      return ggml_cpy(c, ggml_transpose(c, rnd(c, GGML_TYPE_F32, 12, 10)),
                                      ggml_new_tensor_3d(c, GGML_TYPE_F32, 4, 6, 5));
                  },
                  0.0});
    cs.push_back({"dup_i32", [](ggml_context * c) {
                      return ggml_cont(c, ggml_transpose(c, rnd(c, GGML_TYPE_I32, 9, 7, 1, 1, -100.0f, 100.0f)));
                  }});
    const ggml_type qtypes[] = {GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1,
                                GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL};
    for (ggml_type q : qtypes) {
        cs.push_back({std::string("cpy_f32_") + ggml_type_name(q), [q](ggml_context * c) {
                          return ggml_cpy(c, rnd(c, GGML_TYPE_F32, 256, 9), ggml_new_tensor_2d(c, q, 256, 9));
                      }});
        cs.push_back({std::string("set_rows_") + ggml_type_name(q), [q](ggml_context * c) {
                          ggml_tensor * cache = ggml_new_tensor_3d(c, q, 128, 16, 2);
                          std::memset(cache->data, 0, ggml_nbytes(cache));
                          ggml_tensor * ids  = ggml_new_tensor_2d(c, GGML_TYPE_I64, 3, 2);  // [n, S2]
                          const int64_t v[6] = {5, 0, 15, 7, 5, 1};
                          std::memcpy(ids->data, v, sizeof(v));
                          return ggml_set_rows(c, cache, rnd(c, GGML_TYPE_F32, 128, 3, 2, 1, -4.0f, 4.0f), ids);
                      }});
    }
    cs.push_back({"set_rows_f16",
                  [](ggml_context * c) {
                      ggml_tensor * cache = ggml_new_tensor_2d(c, GGML_TYPE_F16, 64, 10);
                      std::memset(cache->data, 0, ggml_nbytes(cache));
                      return ggml_set_rows(c, cache, rnd(c, GGML_TYPE_F32, 64, 4), ids_i32(c, {9, 2, 3, 0}));
                  },
                  0.0});
    return cs;
}

TEST(CudaBasicOps, EveryCaseMatchesTheCpuBackend) {
    ggml_cuda_device_info info;
    std::string           why;
    if (!device_or_skip(info, why)) {
        const char * req = std::getenv("LLAMA_TEST_REQUIRE_CUDA");
        if (req && std::strcmp(req, "1") == 0) {
            FAIL() << why << " and LLAMA_TEST_REQUIRE_CUDA=1";
        }
        GTEST_SKIP() << why;
    }
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    int n = 0;
    for (const op_case & oc : cases()) {
        const std::string err = run_case(info, stream, oc);
        EXPECT_TRUE(err.empty()) << oc.name << ": " << err;
        ++n;
    }
    cudaStreamDestroy(stream);
    std::printf("%d basic-op cases compared with the CPU backend\n", n);
}

}  // namespace
