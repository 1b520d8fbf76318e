// The accept loop of the HTTP server and of the router, stoppable from the signal thread at any moment.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace server {

// cpp-httplib's Server::stop() acts only on a loop that has started: a stop between bind() and
// listen_after_bind() (a SIGTERM right after "listening" is printed) was lost, and the loop then ran
// forever. stop() therefore waits until the loop has started (and stops it) or has ended; a loop not
// yet started when stop() is asked does not start at all.
class listen_loop {
public:
    // Runs s's loop until stop(); false when it could not run.
    bool run(httplib::Server & s) {
        bool ok = true;
        if (!stop_asked_) {
            ok = s.listen_after_bind();
        }
        ended_ = true;
        return ok;
    }

    // Returns once the loop is told to end (run() returns soon after). Call it only when run() has
    // been or will be called.
    void stop(httplib::Server & s) {
        stop_asked_ = true;
        while (!ended_) {
            if (s.is_running()) {
                s.stop();
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

private:
    std::atomic<bool> stop_asked_{false};
    std::atomic<bool> ended_{false};
};

}  // namespace server
