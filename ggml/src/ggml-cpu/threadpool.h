// A persistent pool of worker threads for the CPU backend. The caller's thread is worker 0.
// Hand-off is built for ~500 tiny nodes per graph: during a job threads meet at a spinning
// barrier (atomics only); between jobs workers spin briefly and then sleep on a condition variable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#    include <immintrin.h>  // _mm_pause
#elif defined(_M_ARM64)
#    include <intrin.h>  // __yield
#endif

// The job each participating thread runs: ith in [0, nth).
typedef void (*ggml_cpu_job_fn)(int ith, int nth, void * arg);

struct alignas(64) ggml_cpu_pad_atomic_u32 {
    std::atomic<uint32_t> v{0};
    char                  pad[64 - sizeof(std::atomic<uint32_t>)];
};

struct ggml_cpu_threadpool {
    explicit ggml_cpu_threadpool(int n_threads);
    ~ggml_cpu_threadpool();

    // Ensures at least n_threads threads (caller included). False if a thread could not start.
    bool reserve(int n_threads);
    int  size() const { return (int) workers.size() + 1; }

    // Runs fn(ith, nth, arg) on nth threads (the caller is ith 0) and returns when all are done.
    void run(ggml_cpu_job_fn fn, void * arg, int nth);

    // Spinning barrier among the nth threads of the current job.
    void barrier(int nth);

    // Work items of a node handed out first come, first served: a thread that finishes early takes
    // the next tile instead of waiting at the barrier for a sibling that was preempted or runs on a
    // slower core (shared machines, hybrid CPUs). The counter is 0 at the start of every job and
    // after every barrier, so a kernel may run one claiming loop per stretch between two barriers;
    // nodes that share a barrier-free stretch (ggml-cpu.cpp joinable) must not claim.
    int64_t claim() { return item_next.fetch_add(1, std::memory_order_relaxed); }

    // Scratch shared by the threads of a node, grown between graphs only.
    void * work_data(size_t size);

private:
    void worker_main(int ith, uint32_t seen);

    std::vector<std::thread> workers;

    // seqlock: odd while the caller writes the job fields below, even when published
    alignas(64) std::atomic<uint32_t> generation{0};
    std::atomic<ggml_cpu_job_fn> job_fn{nullptr};
    std::atomic<void *>          job_arg{nullptr};
    std::atomic<int>             job_nth{0};

    ggml_cpu_job_fn job_fn_load() const { return job_fn.load(std::memory_order_acquire); }
    void *          job_arg_load() const { return job_arg.load(std::memory_order_acquire); }
    void            job_fn_store(ggml_cpu_job_fn f) { job_fn.store(f, std::memory_order_release); }
    void            job_arg_store(void * a) { job_arg.store(a, std::memory_order_release); }

    alignas(64) std::atomic<int> n_finished{0};  // workers done with the current job
    alignas(64) std::atomic<int> n_sleeping{0};
    ggml_cpu_pad_atomic_u32 barrier_count;
    ggml_cpu_pad_atomic_u32 barrier_phase;
    alignas(64) std::atomic<int64_t> item_next{0};

    std::mutex              mtx;
    std::condition_variable cv;
    std::atomic<bool>       stopping{false};

    void * wbuf      = nullptr;
    size_t wbuf_size = 0;
};

// CPU pause hint for spin loops.
static inline void ggml_cpu_spin_pause() {
#if defined(__x86_64__) || defined(_M_X64)
    _mm_pause();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ __volatile__("yield");
#elif defined(_M_ARM64)
    __yield();
#endif
}
