// The KV-cache writers' quantizers for one 32-element block (set_rows_q.comp): the twins of the CPU's
// quantize_row_*_ref over the scale searches of ggml-quants-search.c (and of the CUDA writer,
// ggml-cuda/quantize.cuh), so a block written here is the block the CPU writes, bit for bit. That
// holds because every float operation is the CPU's, in the CPU's order, and rounded on its own: every
// float variable is `precise` (SPIR-V NoContraction: no multiply-add fusion, no reassociation), no
// expression folds two literals (glslang folds in double), and the fp16 conversion is done on the bits.
// The including shader defines one of D_Q8_0, D_Q4_0, D_Q4_1, D_Q5_0, D_Q5_1, D_IQ4_NL, fills qb_x and
// calls the writer of its type; the codes are left in qb_q.
// Holds for finite inputs whose scale and offset fit fp16 and whose values are not fp32 subnormals (a
// device may flush those to zero; the CPU keeps them).

float qb_x[32];  // the block's values
int   qb_q[32];  // its codes: signed levels (Q4_0, Q5_0), 0..nmax (Q4_1, Q5_1), level indices (IQ4_NL), q8

// (int) lrintf(v) as the x86-64 CPU computes it for the values that reach it: round half to even; a
// non-finite v (an offset that overflowed fp16) gives 0, as (int) of lrintf's out-of-range answer does.
int q_rint(float v) { return abs(v) < 2147483648.0 ? int(roundEven(v)) : 0; }

// F32 -> FP16 bits as the CPU's ggml_fp32_to_fp16: round to nearest even, overflow to inf, NaN quiet
uint q_f32_to_fp16(float f) {
    const uint x    = floatBitsToUint(f);
    const uint sign = (x >> 16) & 0x8000u;
    const uint ax   = x & 0x7FFFFFFFu;
    if (ax >= 0x7F800000u) return sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u : 0u);
    if (ax >= 0x477FF000u) return sign | 0x7C00u;
    if (ax < 0x38800000u) {
        precise float v = uintBitsToFloat(ax) * 16777216.0;  // * 2^24: exact
        return sign | uint(q_rint(v));
    }
    uint       h   = (((ax >> 23) - 112u) << 10) | ((ax & 0x7FFFFFu) >> 13);
    const uint rem = ax & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) h++;
    return sign | h;
}

// FP16 bits -> F32, exact (a subnormal half is a normal float)
float q_fp16_to_f32(uint h) {
    const uint sign = (h & 0x8000u) << 16;
    const uint e    = (h >> 10) & 0x1Fu;
    const uint mant = h & 0x3FFu;
    if (e == 0u) {
        precise float v = float(mant) * 5.9604644775390625e-08;  // mant * 2^-24: exact
        return uintBitsToFloat(floatBitsToUint(v) | sign);
    }
    if (e == 31u) return uintBitsToFloat(sign | 0x7F800000u | (mant << 13));
    return uintBitsToFloat(sign | ((e + 112u) << 23) | (mant << 13));
}

#if defined(D_Q8_0)
// quantize_row_q8_0_ref: scale amax / 127, q = lrintf(x / scale); the fp16 scale bits returned
uint quantize_q8_0() {
    precise float amax = 0.0;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) amax = max(amax, abs(qb_x[j]));
    precise float sc = amax / 127.0;
    precise float id = sc != 0.0 ? 1.0 / sc : 0.0;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        precise float v = qb_x[j] * id;
        qb_q[j]         = q_rint(v);
    }
    return q_f32_to_fp16(sc);
}

#elif defined(D_Q4_1) || defined(D_Q5_1)
// ---- ggml_qsearch_affine (b_nonpos = false) ------------------------------------------------------
#if defined(D_Q4_1)
const int Q_NMAX = 15;
#else
const int Q_NMAX = 31;
#endif

// ggml_qsearch_err_affine: codes into qb_q for x ~ a * q + b, and the squared error
float q_err_affine(float a, float b) {
    precise float ia  = a != 0.0 ? 1.0 / a : 0.0;
    precise float err = 0.0;
    for (uint i = 0u; i < 32u; ++i) {
        precise float v = (qb_x[i] - b) * ia;
        qb_q[i]         = clamp(q_rint(v), 0, Q_NMAX);
        precise float e = qb_x[i] - (a * float(qb_q[i]) + b);
        err             = err + e * e;
    }
    return err;
}

// fit_affine / ggml_qsearch_fit_affine: least-squares (a, b) for the codes in qb_q; false when they
// are constant or a < 0
bool q_fit_affine(out float a, out float b) {
    precise float sq = 0.0, sqq = 0.0, sx = 0.0, sxq = 0.0;
    for (uint i = 0u; i < 32u; ++i) {
        sq  = sq + float(qb_q[i]);
        sqq = sqq + float(qb_q[i] * qb_q[i]);
        sx  = sx + qb_x[i];
        sxq = sxq + qb_x[i] * float(qb_q[i]);
    }
    precise float n   = 32.0;
    precise float det = n * sqq - sq * sq;
    a                 = 0.0;
    b                 = 0.0;
    if (det <= 0.0) return false;
    precise float fa = (n * sxq - sq * sx) / det;
    precise float fb = (sqq * sx - sq * sxq) / det;
    a                = fa;
    b                = fb;
    return !(fa < 0.0);
}

// ggml_qsearch_affine then the codes for the stored fp16 scale and offset: returns d | m << 16
uint quantize_affine() {
    precise float mn = qb_x[0], mx = qb_x[0];
    for (uint i = 1u; i < 32u; ++i) {
        mn = min(mn, qb_x[i]);
        mx = max(mx, qb_x[i]);
    }
    precise float range = mx - mn;
    precise float best_a = 0.0, best_b = mn;
    if (!(range < uintBitsToFloat(0x0DA24260u))) {  // 1e-30f
        precise float fn     = float(Q_NMAX);
        precise float a0     = range / fn;
        precise float best_e = q_err_affine(a0, mn);
        best_a               = a0;
        for (int k = -10; k <= 10; ++k) {
            precise float ks     = 0.1 * float(k);
            precise float iscale = (fn + ks) / range;
            for (uint i = 0u; i < 32u; ++i) {
                precise float v = iscale * (qb_x[i] - mn);
                qb_q[i]         = clamp(q_rint(v), 0, Q_NMAX);
            }
            float ca, cb;
            if (!q_fit_affine(ca, cb)) continue;
            // refine: reassign to the fitted grid and refit once more
            for (int it = 0; it < 2; ++it) {
                precise float e = q_err_affine(ca, cb);
                if (e < best_e) {
                    best_e = e;
                    best_a = ca;
                    best_b = cb;
                }
                if (!q_fit_affine(ca, cb)) break;
            }
        }
    }
    const uint dh = q_f32_to_fp16(best_a), mh = q_f32_to_fp16(best_b);
    q_err_affine(q_fp16_to_f32(dh), q_fp16_to_f32(mh));
    return dh | (mh << 16);
}

#else
// ---- ggml_qsearch_sym: Q4_0 / Q5_0 (integer levels) and IQ4_NL (a table of 16 levels) -----------
#if defined(D_IQ4_NL)
const float k_q_levels[16] = float[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
const float Q_LO = -127.0, Q_HI = 113.0;

// ggml_qsearch_nearest over the table: the first level at the least distance
int q_nearest(float v) {
    int           best  = 0;
    precise float bestd = abs(v - k_q_levels[0]);
    for (int l = 1; l < 16; ++l) {
        precise float dd = abs(v - k_q_levels[l]);
        if (dd < bestd) {
            bestd = dd;
            best  = l;
        }
    }
    return best;
}
float q_level(int q) { return k_q_levels[q]; }
#else
#if defined(D_Q4_0)
const int Q_MIN = -8, Q_MAX = 7;
#else
const int Q_MIN = -16, Q_MAX = 15;
#endif
const float Q_LO = float(Q_MIN), Q_HI = float(Q_MAX);

int   q_nearest(float v) { return clamp(q_rint(v), Q_MIN, Q_MAX); }
float q_level(int q) { return float(q); }
#endif

// ggml_qsearch_sym: the scale whose codes explain the block best (max sxq^2 / sqq)
float q_search_sym() {
    precise float amax = 0.0, xm = 0.0;
    for (uint i = 0u; i < 32u; ++i) {
        if (abs(qb_x[i]) > amax) {
            amax = abs(qb_x[i]);
            xm   = qb_x[i];
        }
    }
    if (amax < uintBitsToFloat(0x0DA24260u)) return 0.0;  // 1e-30f
    precise float best_score = -1.0, best_d = 0.0;
    // the extreme element lands on either end level; sweep the mapping from 1 level short to half a
    // level beyond
    for (int side = 0; side < 2; ++side) {
        precise float t = side == 0 ? Q_LO : Q_HI;
#if defined(D_IQ4_NL)
        precise float step = abs(t) / 16.0;
#else
        precise float step = 1.0;
#endif
        for (int k = -10; k <= 5; ++k) {
            precise float sg     = t > 0.0 ? 1.0 : -1.0;
            precise float tt     = t + sg * 0.1 * float(k) * step;
            precise float iscale = tt / xm;
            precise float sxq = 0.0, sqq = 0.0;
            for (uint i = 0u; i < 32u; ++i) {
                precise float v = iscale * qb_x[i];
                precise float l = q_level(q_nearest(v));
                sxq             = sxq + qb_x[i] * l;
                sqq             = sqq + l * l;
            }
            if (sqq > 0.0) {
                precise float score = sxq * sxq / sqq;
                if (score > best_score) {
                    best_score = score;
                    best_d     = sxq / sqq;
                }
            }
        }
    }
    return best_d;
}

// the searched scale as fp16 bits, and the codes for the scale actually stored (ggml_qsearch_err_sym)
uint quantize_sym() {
    const uint    dh = q_f32_to_fp16(q_search_sym());
    precise float sc = q_fp16_to_f32(dh);
    precise float id = sc != 0.0 ? 1.0 / sc : 0.0;
    for (uint i = 0u; i < 32u; ++i) {
        precise float v = qb_x[i] * id;
        qb_q[i]         = q_nearest(v);
    }
    return dh;
}
#endif
