# One Vulkan shader through a SPIR-V cache directory (LLAMA_VULKAN_SPV_CACHE, CMakeLists.txt): the key is
# the compiler command line and the contents of the shader's source and of every shared header
# (shaders/*.glsl), so a build of the same checkout with the same compiler (another build directory:
# the static-library install test, a cross build) copies what an earlier one compiled instead of
# running the compiler again on the ~390 shaders (~2 CPU-minutes each time on a 2-core machine).
#   cmake -DCMD=<compiler|arg|arg...> -DSRC=<shader.comp> -DHDR_DIR=<dir of *.glsl> -DCACHE=<dir>
#         -DOUT=<file.spv> -P compile-shader.cmake
# CMD's arguments are separated by "|" (a list would be split by the custom command); OUT is appended
# as "-o OUT". A compile error stops the build as the compiler's own command would.
string(REPLACE "|" ";" cmd "${CMD}")
set(key "${CMD}")
file(GLOB headers "${HDR_DIR}/*.glsl")
list(SORT headers)
foreach(f ${SRC} ${headers})
    file(SHA256 "${f}" h)
    string(APPEND key "|${h}")
endforeach()
string(SHA256 key "${key}")
set(hit "${CACHE}/${key}.spv")
if (EXISTS "${hit}")
    file(COPY_FILE "${hit}" "${OUT}")
    return()
endif()
execute_process(COMMAND ${cmd} -o "${OUT}" RESULT_VARIABLE rc)
if (NOT rc EQUAL 0)
    file(REMOVE "${OUT}")
    message(FATAL_ERROR "shader compile failed (${rc}): ${SRC}")
endif()
# into the cache under a name of its own first: builds running at the same time never read a partial file
file(MAKE_DIRECTORY "${CACHE}")
string(RANDOM LENGTH 12 tag)
file(COPY_FILE "${OUT}" "${hit}.${tag}.tmp")
file(RENAME "${hit}.${tag}.tmp" "${hit}")
