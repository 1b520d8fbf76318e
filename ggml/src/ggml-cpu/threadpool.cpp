// Persistent worker pool: seqlock-published jobs, a spinning barrier, spin-then-sleep between jobs.
#include "threadpool.h"

#include "ggml-os.h"

#include <chrono>
#include <cstdlib>
#include <new>

namespace {
// How long an idle worker spins before sleeping: long enough to catch the next decode graph,
// short enough not to burn a core when the application is idle.
constexpr auto k_idle_spin = std::chrono::microseconds(300);
// Spins inside a barrier before yielding the core (matters when threads outnumber cores).
// GGML_CPU_BARRIER_SPINS overrides it (for A/B runs; -1 = never yield).
int barrier_spins_before_yield() {
    static const int n = [] {
        const char * e = std::getenv("GGML_CPU_BARRIER_SPINS");
        return e && *e ? std::atoi(e) : 1 << 8;
    }();
    return n;
}
}  // namespace

ggml_cpu_threadpool::ggml_cpu_threadpool(int n_threads) {
    reserve(n_threads);
}

ggml_cpu_threadpool::~ggml_cpu_threadpool() {
    {
        std::lock_guard<std::mutex> lk(mtx);
        stopping.store(true, std::memory_order_seq_cst);
    }
    cv.notify_all();
    for (auto & t : workers) {
        t.join();
    }
    ggml_os_aligned_free(wbuf);
}

bool ggml_cpu_threadpool::reserve(int n_threads) {
    while (size() < n_threads) {
        const int ith = size();
        // the worker must start from the generation current now, not when its thread gets scheduled
        const uint32_t gen = generation.load(std::memory_order_acquire);
        try {
            workers.emplace_back([this, ith, gen] { worker_main(ith, gen); });
        } catch (...) {
            return false;
        }
    }
    return true;
}

void ggml_cpu_threadpool::worker_main(int ith, uint32_t seen) {
    for (;;) {
        uint32_t g     = 0;
        auto     start = std::chrono::steady_clock::now();
        int      spins = 0;
        for (;;) {
            g = generation.load(std::memory_order_acquire);
            if (g != seen && (g & 1) == 0) {
                break;
            }
            if (stopping.load(std::memory_order_relaxed)) {
                return;
            }
            ggml_cpu_spin_pause();
            if ((++spins & 63) != 0 || std::chrono::steady_clock::now() - start < k_idle_spin) {
                continue;
            }
            // Sleep. n_sleeping is raised before the last look at generation (both seq_cst), and the
            // publisher reads n_sleeping after bumping generation, so a wake-up cannot be lost.
            std::unique_lock<std::mutex> lk(mtx);
            n_sleeping.fetch_add(1, std::memory_order_seq_cst);
            for (;;) {
                g = generation.load(std::memory_order_seq_cst);
                if ((g != seen && (g & 1) == 0) || stopping.load(std::memory_order_relaxed)) {
                    break;
                }
                cv.wait(lk);
            }
            n_sleeping.fetch_sub(1, std::memory_order_relaxed);
            start = std::chrono::steady_clock::now();
        }
        if (stopping.load(std::memory_order_relaxed)) {
            return;
        }
        // seqlock read: retry if the job changed while we read it. The job fields are read with
        // acquire (not a fence, which ThreadSanitizer cannot follow), so the generation check below
        // cannot move before them; a field written after the odd generation implies we see it.
        ggml_cpu_job_fn fn  = job_fn_load();
        void *          arg = job_arg_load();
        const int       nth = job_nth.load(std::memory_order_acquire);
        if (generation.load(std::memory_order_relaxed) != g) {
            continue;
        }
        seen = g;
        if (ith < nth) {
            fn(ith, nth, arg);
            n_finished.fetch_add(1, std::memory_order_release);
        }
    }
}

void ggml_cpu_threadpool::run(ggml_cpu_job_fn fn, void * arg, int nth) {
    if (nth > size()) {
        nth = size();
    }
    // nobody runs: no claim of the previous job can still be in flight
    item_next.store(0, std::memory_order_relaxed);
    if (nth <= 1) {
        fn(0, 1, arg);
        return;
    }
    n_finished.store(0, std::memory_order_relaxed);
    const uint32_t g = generation.load(std::memory_order_relaxed);
    // odd generation = job being written; the release stores of the fields order it before them
    generation.store(g + 1, std::memory_order_relaxed);
    job_fn_store(fn);
    job_arg_store(arg);
    job_nth.store(nth, std::memory_order_release);
    generation.store(g + 2, std::memory_order_seq_cst);
    if (n_sleeping.load(std::memory_order_seq_cst) > 0) {
        { std::lock_guard<std::mutex> lk(mtx); }
        cv.notify_all();
    }

    fn(0, nth, arg);

    int       spins     = 0;
    const int max_spins = barrier_spins_before_yield();
    while (n_finished.load(std::memory_order_acquire) != nth - 1) {
        ggml_cpu_spin_pause();
        if (max_spins >= 0 && ++spins > max_spins) {
            std::this_thread::yield();
        }
    }
}

void ggml_cpu_threadpool::barrier(int nth) {
    if (nth <= 1) {
        item_next.store(0, std::memory_order_relaxed);
        return;
    }
    const uint32_t phase = barrier_phase.v.load(std::memory_order_acquire);
    if (barrier_count.v.fetch_add(1, std::memory_order_acq_rel) == (uint32_t) nth - 1) {
        // the last to arrive: every other thread's claims happen before its arrival, and the
        // release below publishes the reset to all of them
        item_next.store(0, std::memory_order_relaxed);
        barrier_count.v.store(0, std::memory_order_relaxed);
        barrier_phase.v.fetch_add(1, std::memory_order_release);
        return;
    }
    int       spins     = 0;
    const int max_spins = barrier_spins_before_yield();
    while (barrier_phase.v.load(std::memory_order_acquire) == phase) {
        ggml_cpu_spin_pause();
        if (max_spins >= 0 && ++spins > max_spins) {
            std::this_thread::yield();
        }
    }
}

void * ggml_cpu_threadpool::work_data(size_t size) {
    if (size <= wbuf_size && wbuf) {
        return wbuf;
    }
    ggml_os_aligned_free(wbuf);
    wbuf_size          = 0;
    const size_t bytes = (size + 63) / 64 * 64 + 64;
    wbuf               = ggml_os_aligned_alloc(64, bytes);
    if (wbuf) {
        wbuf_size = bytes;
    }
    return wbuf;
}
