# Initial cache for CI's sanitizer builds (cmake -C cmake/ci/sanitizer-line-tables.cmake):
# RelWithDebInfo with line tables only (-g1; clang reads it as -gline-tables-only). A sanitizer report
# needs function names and file:line, which line tables give; full debug information (variables, types)
# took a quarter of these builds' compile time and most of their link time.
set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG" CACHE STRING "C flags of RelWithDebInfo")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG" CACHE STRING "C++ flags of RelWithDebInfo")
