// POSIX calls the tests use, on Windows too: setenv / unsetenv and aligned memory. Tests only; the
// library's own OS layer is ggml/src/platform.
#pragma once

#include <cstdlib>

#if defined(_WIN32)
#    include <malloc.h>

inline int setenv(const char * name, const char * value, int overwrite) {
    if (!overwrite && std::getenv(name)) {
        return 0;
    }
    return _putenv_s(name, value);
}

inline int unsetenv(const char * name) {
    return _putenv_s(name, "");  // an empty value removes the variable
}

inline void * test_aligned_alloc(size_t align, size_t size) {
    return _aligned_malloc(size, align);
}

inline void test_aligned_free(void * p) {
    _aligned_free(p);
}
#else
inline void * test_aligned_alloc(size_t align, size_t size) {
    return std::aligned_alloc(align, size);
}

inline void test_aligned_free(void * p) {
    std::free(p);
}
#endif
