#include "server-task.h"

#include <chrono>

namespace server {

void channel::push(task_event ev) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.push_back(std::move(ev));
    }
    cv_.notify_all();
}

bool channel::pop(task_event & ev, int timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return !events_.empty(); })) {
        return false;
    }
    ev = std::move(events_.front());
    events_.pop_front();
    return true;
}

}  // namespace server
