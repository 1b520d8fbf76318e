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
