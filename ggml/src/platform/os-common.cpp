// The parts of the platform layer every OS shares: the per-thread error text and the once flag.
#include "ggml-os.h"

#include <mutex>
#include <string>

#include "os-internal.h"

namespace {
thread_local std::string t_error;

// A recursive mutex: an initialiser may itself start another one-time initialisation.
std::recursive_mutex & once_mutex() {
    static std::recursive_mutex m;
    return m;
}

#if defined(_MSC_VER) && !defined(__clang__)
long load_acquire(volatile long * p) {
    return _InterlockedCompareExchange(p, 0, 0);
}
void store_release(volatile long * p, long v) {
    _InterlockedExchange(p, v);
}
#else
long load_acquire(volatile long * p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
void store_release(volatile long * p, long v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
#endif
}  // namespace

void ggml_os_set_error(const std::string & msg) {
    t_error = msg;
}

extern "C" {

const char * ggml_os_error(void) {
    return t_error.c_str();
}

void ggml_os_call_once(ggml_os_once * once, void (*fn)(void)) {
    if (load_acquire(&once->state) == 2) {
        return;
    }
    std::lock_guard<std::recursive_mutex> lock(once_mutex());
    if (once->state == 2) {
        return;
    }
    fn();
    store_release(&once->state, 2);
}

}  // extern "C"
