// What the tools need from the OS, in one place (the library's own platform layer is
// ggml/src/platform; the tools link only the public libraries, so they keep this small file of their
// own): UTF-8 command lines and console output on Windows, terminal detection, reading a whole file
// by a UTF-8 path.
#pragma once

#include <cstdio>
#include <string>

namespace tool {

// Called once by tool::args: on Windows, replaces argv by the command line as UTF-8 (Windows hands
// main() the arguments in the ANSI code page, which loses every character outside it) and switches the
// console to UTF-8 output. Elsewhere nothing changes (arguments and terminals are UTF-8 already).
void console_init(int & argc, char **& argv);

// True when f is a terminal (or a Windows console).
bool is_terminal(FILE * f);

// The whole file at path (UTF-8) into out; false with the reason in why.
bool read_file(const std::string & path, std::string & out, std::string & why);

// Stop requests for a long-running program (llama-server): SIGINT / SIGTERM on POSIX, Ctrl+C, Ctrl+Break
// and console close on Windows. Construct it before starting any thread: on POSIX the signals are
// blocked in the constructing thread and so in every thread it starts later, and only wait() takes them
// (SIGPIPE is ignored too: a closed socket is an error return, not a signal).
class stop_requests {
public:
    stop_requests();
    ~stop_requests();
    stop_requests(const stop_requests &)             = delete;
    stop_requests & operator=(const stop_requests &) = delete;

    // Blocks until a stop is requested (returns its name, e.g. "SIGTERM") or wake() is called ("").
    std::string wait();
    // Makes a pending or future wait() return "" (from any thread).
    void wake();

    struct impl;  // per OS (console.cpp); public so that the Windows console handler can reach it

private:
    impl * impl_;
};

}  // namespace tool
