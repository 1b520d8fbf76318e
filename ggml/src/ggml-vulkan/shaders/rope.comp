#version 450
// Rotary position embedding, NORMAL (pairs 2k, 2k+1) and NEOX (pairs k, k + n_dims/2), with
// frequency factors and YaRN. The angle pos * base^(-2k/n_dims) reaches thousands of radians, so it
// is formed and reduced modulo 2*pi in double precision; sin/cos then run in float on [-pi, pi].
#extension GL_ARB_gpu_shader_fp64 : require
#include "common.glsl"
layout(local_size_x = 256) in;
#ifdef A_F16
layout(binding = 0) readonly buffer A { float16_t a[]; };
layout(binding = 3) writeonly buffer D { float16_t d[]; };
#define STORE(i, v) d[i] = float16_t(v)
#else
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 3) writeonly buffer D { float d[]; };
#define STORE(i, v) d[i] = (v)
#endif
layout(binding = 1) readonly buffer Pos { int pos[]; };
layout(binding = 2) readonly buffer FF { float ff[]; };

layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint a_off, a_s1, a_s2, a_s3;
    uint d_off, d_s1, d_s2, d_s3;
    uint pos_off, ff_off, has_ff;
    uint n_dims, neox;
    uint theta_scale_lo, theta_scale_hi;  // double base^(-2/n_dims)
    float freq_scale, ext_factor, attn_factor, corr0, corr1, mscale_yarn;
} p;

void main() {
    uint i = flat_index(256u);
    const uint half_ne0 = p.ne0 / 2u;
    if (i >= half_ne0 * p.ne1 * p.ne2 * p.ne3) return;
    const uint k  = i % half_ne0; i /= half_ne0;
    const uint i1 = i % p.ne1; i /= p.ne1;
    const uint i2 = i % p.ne2;
    const uint i3 = i / p.ne2;
    const uint ab = p.a_off + i1 * p.a_s1 + i2 * p.a_s2 + i3 * p.a_s3;
    const uint db = p.d_off + i1 * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3;

    if (k >= p.n_dims / 2u) {  // beyond the rotated dims: copy the pair through
        STORE(db + 2u * k, float(a[ab + 2u * k]));
        STORE(db + 2u * k + 1u, float(a[ab + 2u * k + 1u]));
        return;
    }
    // theta_scale^k by repeated squaring (exact enough in double, no double pow in GLSL)
    const double ts = packDouble2x32(uvec2(p.theta_scale_lo, p.theta_scale_hi));
    double f = 1.0LF, base = ts;
    for (uint e = k; e > 0u; e >>= 1u) {
        if ((e & 1u) != 0u) f *= base;
        base *= base;
    }
    double theta_extrap = double(pos[p.pos_off + i2]) * f;
    if (p.has_ff != 0u) theta_extrap /= double(ff[p.ff_off + k]);
    double theta = double(p.freq_scale) * theta_extrap;
    float  ms    = p.attn_factor;
    if (p.ext_factor != 0.0) {
        const float y   = (float(k) - p.corr0) / max(0.001, p.corr1 - p.corr0);
        const float mix = (1.0 - min(1.0, max(0.0, y))) * p.ext_factor;
        theta = theta * double(1.0 - mix) + theta_extrap * double(mix);
        ms *= p.mscale_yarn;
    }
    const double two_pi = 6.283185307179586476925LF;
    const float  th     = float(theta - two_pi * floor(theta / two_pi + 0.5LF));
    const float  c = cos(th) * ms, s = sin(th) * ms;

    const uint j0 = p.neox != 0u ? k : 2u * k;
    const uint j1 = p.neox != 0u ? k + p.n_dims / 2u : 2u * k + 1u;
    const float x0 = float(a[ab + j0]), x1 = float(a[ab + j1]);
    STORE(db + j0, x0 * c - x1 * s);
    STORE(db + j1, x0 * s + x1 * c);
}
