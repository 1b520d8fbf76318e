// A child process for the router (server-router.h): one llama-server instance per loaded model.
// Its stdout and stderr arrive on a pipe read by a thread of ours, line by line: the line announcing
// the port is kept, every line goes to a callback (the router prefixes them with the model id).
// POSIX only (posix_spawn); on other systems start() fails with a message.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace server {

class child_process {
public:
    child_process() = default;
    ~child_process();  // terminate(5000) if still running
    child_process(const child_process &)             = delete;
    child_process & operator=(const child_process &) = delete;

    // Starts argv[0] with argv (a path, not searched in PATH) and env as its environment, with the
    // signal mask cleared (the server blocks SIGTERM/SIGINT in its threads). on_line receives every
    // output line. False with `why` set when it could not start.
    bool start(const std::vector<std::string> & argv, const std::vector<std::string> & env,
               std::function<void(const std::string &)> on_line, std::string & why);

    // Waits up to timeout_ms for an output line matching `pred` (true: that line), the process's end
    // or the timeout (false).
    bool wait_line(const std::function<bool(const std::string &)> & pred, std::string & line, int timeout_ms);

    // The process is still running (reaps it when it ended).
    bool running();
    // Its exit status once it ended (128 + signal when killed), -1 while running or never started.
    int exit_code();

    // SIGTERM, up to grace_ms for it to exit, then SIGKILL; reaps it and joins the reader thread.
    void terminate(int grace_ms);

private:
    void reap(bool block);

    int                                      pid_       = -1;
    int                                      exit_code_ = -1;
    int                                      out_fd_    = -1;
    std::thread                              reader_;
    std::mutex                               mutex_;
    std::condition_variable                  cv_;
    std::vector<std::string>                 lines_;  // every line so far (only startup lines are kept long)
    bool                                     eof_ = false;
    std::function<void(const std::string &)> on_line_;
};

// The path of the running executable (the router starts its instances from it); empty if unknown.
std::string self_executable();

}  // namespace server
