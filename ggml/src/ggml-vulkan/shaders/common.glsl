// Shared by every shader: 16-bit storage access, the flat invocation index over a 2-D grid (the host
// splits large dispatches into x * y workgroups because x is limited to 65535), and dequantizers.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : enable

uint flat_index(uint wg_size) {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * wg_size + gl_LocalInvocationID.x;
}
uint flat_group() {
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}

// F32 -> BF16 bits as the CPU's ggml_fp32_to_bf16: round to nearest even, NaN kept quiet
uint f32_to_bf16(float f) {
    const uint u = floatBitsToUint(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (u >> 16) | 64u;
    return (u + (0x7FFFu + ((u >> 16) & 1u))) >> 16;
}
