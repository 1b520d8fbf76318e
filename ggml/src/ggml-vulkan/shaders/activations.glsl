// Activation functions, written to stay within ~1e-7 relative of the double-precision reference
// (GLSL's tanh has loose precision requirements, and GLSL has no erf).

float act_tanh(float x) {
    const float t = exp(-2.0 * abs(x));
    return sign(x) * (1.0 - t) / (1.0 + t);
}
// Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
float act_erf(float x) {
    const float s = sign(x), ax = abs(x);
    const float t = 1.0 / (1.0 + 0.3275911 * ax);
    const float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-ax * ax);
    return s * y;
}
float act_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
float act_gelu(float x) { return 0.5 * x * (1.0 + act_tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
float act_gelu_erf(float x) { return 0.5 * x * (1.0 + act_erf(x * 0.7071067811865476)); }

// op: ggml_unary_op (RELU, TANH, SIGMOID, SILU, GELU, GELU_ERF, NEG, EXP, SOFTPLUS)
float act_unary(uint op, float x) {
    switch (op) {
        case 0u: return max(x, 0.0);
        case 1u: return act_tanh(x);
        case 2u: return act_sigmoid(x);
        case 3u: return x * act_sigmoid(x);
        case 4u: return act_gelu(x);
        case 5u: return act_gelu_erf(x);
        case 6u: return -x;
        case 7u: return exp(x);
        default: return x > 20.0 ? x : log(1.0 + exp(x));
    }
}
