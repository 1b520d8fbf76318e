// The tools' OS layer (console.h).
#include "console.h"

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ggml.h"

#if defined(_WIN32)
#    ifndef WIN32_LEAN_AND_MEAN
#        define WIN32_LEAN_AND_MEAN
#    endif
#    ifndef NOMINMAX
#        define NOMINMAX
#    endif
#    include <windows.h>
// after windows.h
#    include <io.h>
#    include <shellapi.h>
#else
#    include <pthread.h>
#    include <signal.h>
#    include <unistd.h>
#endif

namespace tool {

void console_init(int & argc, char **& argv) {
#if defined(_WIN32)
    SetConsoleOutputCP(CP_UTF8);
    int        n  = 0;
    wchar_t ** wv = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!wv) {
        return;
    }
    // kept for the life of the process: argv must stay valid wherever the tool keeps pointers into it
    static std::vector<std::string> utf8;
    static std::vector<char *>      ptrs;
    utf8.clear();
    for (int i = 0; i < n; ++i) {
        const int   len = WideCharToMultiByte(CP_UTF8, 0, wv[i], -1, nullptr, 0, nullptr, nullptr);
        std::string s(len > 0 ? (size_t) len - 1 : 0, '\0');
        if (len > 1) {
            WideCharToMultiByte(CP_UTF8, 0, wv[i], -1, &s[0], len, nullptr, nullptr);
        }
        utf8.push_back(std::move(s));
    }
    LocalFree(wv);
    ptrs.clear();
    for (std::string & s : utf8) {
        ptrs.push_back(&s[0]);
    }
    ptrs.push_back(nullptr);
    argc = n;
    argv = ptrs.data();
#else
    (void) argc;
    (void) argv;
#endif
}

bool is_terminal(FILE * f) {
#if defined(_WIN32)
    return _isatty(_fileno(f)) != 0;
#else
    return isatty(fileno(f)) != 0;
#endif
}

bool read_file(const std::string & path, std::string & out, std::string & why) {
    std::unique_ptr<FILE, int (*)(FILE *)> f(ggml_fopen(path.c_str(), "rb"), fclose);
    if (!f) {
        why = std::strerror(errno);
        return false;
    }
    out.clear();
    char   buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f.get())) > 0) {
        out.append(buf, n);
    }
    if (ferror(f.get())) {
        why = "read error";
        return false;
    }
    return true;
}

#if defined(_WIN32)
// The console control handler runs on a thread of its own: it records the event and wakes wait().
struct stop_requests::impl {
    std::mutex              m;
    std::condition_variable cv;
    std::string             what;
    bool                    done = false;
};

static stop_requests::impl * g_stop = nullptr;

static BOOL WINAPI on_console_event(DWORD ev) {
    if (!g_stop) {
        return FALSE;
    }
    std::lock_guard<std::mutex> lock(g_stop->m);
    g_stop->what = ev == CTRL_C_EVENT ? "Ctrl+C" : ev == CTRL_BREAK_EVENT ? "Ctrl+Break" : "console close";
    g_stop->done = true;
    g_stop->cv.notify_all();
    return TRUE;  // handled: the process is not terminated here, the program finishes its work
}

stop_requests::stop_requests() : impl_(new impl) {
    g_stop = impl_;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

stop_requests::~stop_requests() {
    SetConsoleCtrlHandler(on_console_event, FALSE);
    g_stop = nullptr;
    delete impl_;
}

std::string stop_requests::wait() {
    std::unique_lock<std::mutex> lock(impl_->m);
    impl_->cv.wait(lock, [&] { return impl_->done; });
    return impl_->what;
}

void stop_requests::wake() {
    std::lock_guard<std::mutex> lock(impl_->m);
    impl_->done = true;
    impl_->cv.notify_all();
}
#else
// One thread takes the signals with sigwait; wake() sends the waiting thread a SIGTERM of its own,
// recorded as a wake-up rather than a request.
struct stop_requests::impl {
    sigset_t sigs;
    std::mutex m;
    bool woken = false;
    bool waiting = false;
    pthread_t waiter{};
};

stop_requests::stop_requests() : impl_(new impl) {
    sigemptyset(&impl_->sigs);
    sigaddset(&impl_->sigs, SIGTERM);
    sigaddset(&impl_->sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &impl_->sigs, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

stop_requests::~stop_requests() {
    delete impl_;
}

std::string stop_requests::wait() {
    {
        std::lock_guard<std::mutex> lock(impl_->m);
        if (impl_->woken) {
            return "";
        }
        impl_->waiter = pthread_self();
        impl_->waiting = true;
    }
    int sig = 0;
    sigwait(&impl_->sigs, &sig);
    std::lock_guard<std::mutex> lock(impl_->m);
    impl_->waiting = false;
    if (impl_->woken) {
        return "";
    }
    return sig == SIGTERM ? "SIGTERM" : "SIGINT";
}

void stop_requests::wake() {
    std::lock_guard<std::mutex> lock(impl_->m);
    impl_->woken = true;
    if (impl_->waiting) {
        pthread_kill(impl_->waiter, SIGTERM);
    }
}
#endif

}  // namespace tool
