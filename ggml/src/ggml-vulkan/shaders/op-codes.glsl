// Sub-op codes shared by the shaders and vk-ops.cpp, which includes this file too: #defines only, so
// it is valid GLSL and C++. A shader that serves several ops reads one of these from its push
// constants.

#ifndef VK_OP_CODES_GLSL
#define VK_OP_CODES_GLSL

// binary.comp: d = a (op) b
#define VK_BINARY_ADD 0u
#define VK_BINARY_SUB 1u
#define VK_BINARY_MUL 2u
#define VK_BINARY_DIV 3u

// unary.comp: values below VK_MAP_FIRST are a ggml_unary_op (activations.glsl); these are the other maps
#define VK_MAP_FIRST 100u
#define VK_MAP_SQR   100u
#define VK_MAP_SQRT  101u
#define VK_MAP_SCALE 102u  // x * f0 + f1
#define VK_MAP_CLAMP 103u  // min(max(x, f0), f1)

// norm.comp: one workgroup per row
#define VK_ROW_SUM      0u
#define VK_ROW_MEAN     1u
#define VK_ROW_NORM     2u  // (x - mean) / sqrt(var + eps)
#define VK_ROW_RMS_NORM 3u  // x / sqrt(mean(x^2) + eps)
#define VK_ROW_L2_NORM  4u  // x / max(sqrt(sum(x^2)), eps)

#endif
