# Cross-compiling for 64-bit ARM Linux with Debian's g++-aarch64-linux-gnu:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# The programs run under qemu-user (apt qemu-user): CMAKE_CROSSCOMPILING_EMULATOR lets ctest start
# them through qemu-aarch64 with the cross sysroot as the library root.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# LLAMA_CROSS_ROOTS: more folders holding arm64 packages unpacked with dpkg -x (e.g. the Vulkan loader)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${LLAMA_CROSS_ROOTS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(LLAMA_QEMU_AARCH64 qemu-aarch64)
if (LLAMA_QEMU_AARCH64)
    # QEMU_CPU in the environment picks the emulated CPU (max, neoverse-n1, cortex-a72, ...)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${LLAMA_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
