# Cross-compiling for 64-bit RISC-V Linux with Debian's g++-riscv64-linux-gnu: a CPU without kernels of
# its own, so the build is the scalar engine (GGML_CPU_ARCH=generic). Programs run under qemu-riscv64.
#   cmake -S . -B build-riscv64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(CMAKE_C_COMPILER riscv64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER riscv64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/riscv64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(LLAMA_QEMU_RISCV64 qemu-riscv64)
if (LLAMA_QEMU_RISCV64)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${LLAMA_QEMU_RISCV64} -L /usr/riscv64-linux-gnu)
endif()
