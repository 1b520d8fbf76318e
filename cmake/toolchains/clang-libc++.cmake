# clang with LLVM's C++ library (libc++) instead of libstdc++: the toolchain of macOS, on Linux
# (Debian: apt install clang libc++-dev libc++abi-dev). CI builds the unit tests with it under ASan +
# UBSan (.ci/run), so code that only GCC and libstdc++ accept (a missing #include, a GCC-only pragma or
# builtin) fails there and not on a Mac.
#   cmake -S . -B build-libcxx -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/clang-libc++.cmake -DLLAMA_BUILD_BENCH=OFF
# (Debian's libbenchmark, like its libgtest, is built against libstdc++: the benchmarks do not link.)
set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_FLAGS_INIT -stdlib=libc++)
foreach(kind EXE SHARED MODULE)
    set(CMAKE_${kind}_LINKER_FLAGS_INIT -stdlib=libc++)
endforeach()
# Debian's libgtest is built against libstdc++: build GoogleTest from its sources (libgtest-dev ships them)
set(LLAMA_GTEST_SOURCE_DIR /usr/src/googletest CACHE PATH "GoogleTest sources to build with the tests")
