#include "server-task.h"

#include <chrono>
#include <iterator>

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

std::vector<choice_result> collect_results(channel & ch, int n_tasks, std::string & error) {
    std::vector<choice_result> out((size_t) n_tasks);
    int                        n_done = 0;
    task_event                 ev;
    while (n_done < n_tasks) {
        if (!ch.pop(ev, 1000)) {
            continue;  // the engine enforces the deadline and always ends every task
        }
        choice_result & r = out[(size_t) ev.index];
        r.text += ev.text;
        r.tokens.insert(r.tokens.end(), ev.tokens.begin(), ev.tokens.end());
        std::move(ev.probs.begin(), ev.probs.end(), std::back_inserter(r.probs));
        if (ev.done) {
            n_done++;
            if (!ev.error.empty() && error.empty()) {
                error = ev.error;
            }
            ev.text.clear();
            ev.tokens.clear();
            ev.probs.clear();
            r.last = std::move(ev);
        }
    }
    return out;
}

}  // namespace server
