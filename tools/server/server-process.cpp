#include "server-process.h"

#include <chrono>

#if defined(_WIN32)

namespace server {

child_process::~child_process() = default;

bool child_process::start(const std::vector<std::string> &, const std::vector<std::string> &,
                          std::function<void(const std::string &)>, std::string & why) {
    why = "starting model instances is not supported on this system";
    return false;
}

bool child_process::wait_line(const std::function<bool(const std::string &)> &, std::string &, int) {
    return false;
}

bool child_process::running() {
    return false;
}

int child_process::exit_code() {
    return exit_code_;
}

void child_process::terminate(int) {}

void child_process::reap(bool) {}

std::string self_executable() {
    return "";
}

}  // namespace server

#else

#    include <fcntl.h>
#    include <signal.h>
#    include <spawn.h>
#    include <sys/wait.h>
#    include <unistd.h>

#    include <cerrno>
#    include <climits>
#    include <cstring>

namespace server {

child_process::~child_process() {
    terminate(5000);
}

bool child_process::start(const std::vector<std::string> & argv, const std::vector<std::string> & env,
                          std::function<void(const std::string &)> on_line, std::string & why) {
    // one start at a time: both pipe ends are close-on-exec before any other instance starts, so an
    // instance holds only its own pipe (as stdout/stderr, the dup2 copies) and EOF means it ended
    static std::mutex           spawn_mutex;
    std::lock_guard<std::mutex> spawn_lock(spawn_mutex);
    int                         fds[2];
    if (pipe(fds) != 0) {
        why = std::string("pipe: ") + strerror(errno);
        return false;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t dfl;  // SIGTERM/SIGINT back to their default action in the instance
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char *> av, ev;
    for (const auto & a : argv) {
        av.push_back(const_cast<char *>(a.c_str()));
    }
    av.push_back(nullptr);
    for (const auto & e : env) {
        ev.push_back(const_cast<char *>(e.c_str()));
    }
    ev.push_back(nullptr);
    pid_t     pid = -1;
    const int rc  = posix_spawn(&pid, av[0], &fa, &attr, av.data(), ev.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        why = "cannot start " + argv[0] + ": " + strerror(rc);
        return false;
    }
    pid_     = pid;
    out_fd_  = fds[0];
    on_line_ = std::move(on_line);
    reader_  = std::thread([this] {
        std::string buf;
        char        chunk[4096];
        while (true) {
            const ssize_t n = read(out_fd_, chunk, sizeof(chunk));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            buf.append(chunk, (size_t) n);
            size_t nl;
            while ((nl = buf.find('\n')) != std::string::npos) {
                std::string line = buf.substr(0, nl);
                buf.erase(0, nl + 1);
                if (on_line_) {
                    on_line_(line);
                }
                std::lock_guard<std::mutex> lock(mutex_);
                if (lines_.size() < 256) {  // enough for startup; later lines only go to on_line_
                    lines_.push_back(std::move(line));
                }
                cv_.notify_all();
            }
        }
        std::lock_guard<std::mutex> lock(mutex_);
        eof_ = true;
        cv_.notify_all();
    });
    return true;
}

bool child_process::wait_line(const std::function<bool(const std::string &)> & pred, std::string & line,
                              int timeout_ms) {
    const auto                   until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    std::unique_lock<std::mutex> lock(mutex_);
    size_t                       seen = 0;
    while (true) {
        for (; seen < lines_.size(); seen++) {
            if (pred(lines_[seen])) {
                line = lines_[seen];
                return true;
            }
        }
        if (eof_ || cv_.wait_until(lock, until) == std::cv_status::timeout) {
            // one last look: lines may have arrived with the end
            for (; seen < lines_.size(); seen++) {
                if (pred(lines_[seen])) {
                    line = lines_[seen];
                    return true;
                }
            }
            return false;
        }
    }
}

void child_process::reap(bool block) {
    if (pid_ <= 0) {
        return;
    }
    int         status = 0;
    const pid_t r      = waitpid(pid_, &status, block ? 0 : WNOHANG);
    if (r == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        pid_       = -1;
    } else if (r < 0 && errno == ECHILD) {
        pid_ = -1;
    }
}

bool child_process::running() {
    reap(false);
    return pid_ > 0;
}

int child_process::exit_code() {
    reap(false);
    return exit_code_;
}

void child_process::terminate(int grace_ms) {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
        while (running() && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            reap(true);
        }
    }
    if (reader_.joinable()) {
        reader_.join();  // the pipe closed with the process
    }
    if (out_fd_ >= 0) {
        close(out_fd_);
        out_fd_ = -1;
    }
}

std::string self_executable() {
    char          buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    return n > 0 ? std::string(buf, (size_t) n) : std::string();
}

}  // namespace server

#endif
