#include "server-router.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "server-reply.h"
#include "server-webui.h"

extern char ** environ;

namespace server {

namespace fs = std::filesystem;

namespace {

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

bool ends_with_gguf(const std::string & name) {
    if (name.size() < 5) {
        return false;
    }
    std::string ext = name.substr(name.size() - 5);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return (char) std::tolower(c); });
    return ext == ".gguf";
}

std::string trim(const std::string & s) {
    const size_t b = s.find_first_not_of(" \t\r");
    const size_t e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Bytes the kernel says can be allocated without swapping (MemAvailable); 0 when unknown.
uint64_t available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string   key;
    uint64_t      kb = 0;
    std::string   unit;
    while (in >> key >> kb >> unit) {
        if (key == "MemAvailable:") {
            return kb * 1024;
        }
    }
    return 0;
}

std::string random_key() {
    std::random_device rd;
    char               buf[33];
    for (int i = 0; i < 4; i++) {
        snprintf(buf + 8 * i, 9, "%08x", (unsigned) rd());
    }
    return buf;
}

// Flags the router keeps for itself (name, takes a value): the instances get everything else.
struct router_flag {
    const char * name;
    bool         value;
};
const router_flag k_router_flags[] = {
    {"--models-dir", true},
    {"--models-preset", true},
    {"--models-max", true},
    {"--models-memory-max", true},
    {"--models-autoload", false},
    {"--no-models-autoload", false},
    {"--sleep-idle-seconds", true},
    {"--host", true},
    {"--port", true},
    {"--api-key", true},
    {"--threads-http", true},
    {"--api-key-file", true},
    {"--alias", true},
    {"-a", true},
    {"--ssl-key-file", true},
    {"--ssl-cert-file", true},
    {"--http-threads", true},
    {"--grace", true},
    {"-m", true},
    {"--model", true},
};

// Environment variables naming router settings: not passed on (the instance's flags say it all).
bool router_env(const std::string & kv) {
    static const char * names[] = {"LLAMA_ARG_MODELS_", "LLAMA_API_KEY",    "LLAMA_ARG_THREADS_HTTP=",
                                   "LLAMA_ARG_HOST=",   "LLAMA_ARG_PORT=",  "LLAMA_ARG_API_KEY",
                                   "LLAMA_ARG_ALIAS=",  "LLAMA_ARG_MODEL=", "LLAMA_ARG_SSL_"};
    for (const char * n : names) {
        if (kv.compare(0, strlen(n), n) == 0) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool parse_size(const std::string & text, uint64_t & out) {
    if (text.empty() || !isdigit((unsigned char) text[0])) {
        return false;
    }
    char *            end  = nullptr;
    const double      v    = strtod(text.c_str(), &end);
    const std::string unit = end;
    double            mul  = 1;
    if (unit == "K" || unit == "k" || unit == "KiB") {
        mul = 1024.0;
    } else if (unit == "M" || unit == "m" || unit == "MiB") {
        mul = 1024.0 * 1024;
    } else if (unit == "G" || unit == "g" || unit == "GiB") {
        mul = 1024.0 * 1024 * 1024;
    } else if (!unit.empty()) {
        return false;
    }
    if (!(v >= 0) || v * mul > 1e18) {
        return false;
    }
    out = (uint64_t) (v * mul);
    return true;
}

std::vector<std::string> router_instance_args(int argc, char ** argv) {
    std::vector<std::string> out;
    for (int i = 1; i < argc; i++) {
        std::string a    = argv[i];
        bool        drop = false, value = false;
        for (const auto & f : k_router_flags) {
            const size_t n = strlen(f.name);
            if (a == f.name) {
                drop  = true;
                value = f.value;
            } else if (f.value && a.compare(0, n + 1, std::string(f.name) + "=") == 0) {
                drop = true;  // --flag=value form
            }
        }
        if (drop) {
            i += value ? 1 : 0;
            continue;
        }
        out.push_back(a);
    }
    return out;
}

struct router::model {
    enum class state { unloaded, loading, loaded, unloading };
    std::string                    id, path;
    std::vector<std::string>       args;  // from the preset
    uint64_t                       bytes = 0;
    state                          st    = state::unloaded;
    std::unique_ptr<child_process> proc;
    std::vector<std::string>       argv;  // of the running instance (for /models)
    std::string                    key;   // the instance's API key (only the router knows it)
    int                            port         = 0;
    int                            active       = 0;
    int64_t                        last_used_ms = 0;
    bool                           failed       = false;
    int                            exit_code    = 0;
    std::string                    error;

    const char * state_name() const {
        switch (st) {
            case state::loading:
                return "loading";
            case state::loaded:
                return "loaded";
            case state::unloading:
                return "unloading";
            default:
                return "unloaded";
        }
    }
};

router::router(router_config cfg) : cfg_(std::move(cfg)), svr_(std::make_unique<httplib::Server>()) {
    created_ = (int64_t) time(nullptr);
    auto add = [this](const std::string & id, const std::string & path, std::vector<std::string> args) {
        if (models_.count(id)) {
            throw std::runtime_error("two models are named '" + id + "'");
        }
        auto m  = std::make_unique<model>();
        m->id   = id;
        m->path = path;
        m->args = std::move(args);
        std::error_code ec;
        m->bytes = fs::file_size(path, ec);
        if (ec) {
            throw std::runtime_error("cannot read model file " + path + ": " + ec.message());
        }
        models_[id] = std::move(m);
    };
    if (!cfg_.models_dir.empty()) {
        std::error_code ec;
        if (!fs::is_directory(cfg_.models_dir, ec)) {
            throw std::runtime_error("--models-dir " + cfg_.models_dir + " is not a directory");
        }
        std::vector<fs::path> entries;
        for (const auto & e : fs::directory_iterator(cfg_.models_dir, ec)) {
            entries.push_back(e.path());
        }
        std::sort(entries.begin(), entries.end());
        for (const auto & p : entries) {
            if (fs::is_regular_file(p, ec) && ends_with_gguf(p.filename().string())) {
                add(p.stem().string(), p.string(), {});
            } else if (fs::is_directory(p, ec)) {
                // a folder of one model: its (first) GGUF that is not a multimodal projector; shards
                // sort with -00001-of- first
                std::vector<fs::path> files;
                for (const auto & f : fs::directory_iterator(p, ec)) {
                    const std::string n = f.path().filename().string();
                    if (ends_with_gguf(n) && n.rfind("mmproj", 0) != 0) {
                        files.push_back(f.path());
                    }
                }
                std::sort(files.begin(), files.end());
                if (!files.empty()) {
                    add(p.filename().string(), files[0].string(), {});
                }
            }
        }
    }
    if (!cfg_.models_preset.empty()) {
        std::ifstream in(cfg_.models_preset);
        if (!in) {
            throw std::runtime_error("cannot read --models-preset " + cfg_.models_preset);
        }
        // [id] sections of `key = value` lines; [*] holds flags for every model. A key is a flag
        // name without its dashes (one to three letters: a short flag, e.g. c, np, ngl).
        struct section {
            std::string              id, model;
            std::vector<std::string> args;
            int                      line = 0;
        };
        std::vector<section>     sections;
        std::vector<std::string> common;
        std::string              line;
        int                      n_line = 0;
        section *                cur    = nullptr;
        bool                     global = false;
        while (std::getline(in, line)) {
            n_line++;
            line = trim(line);
            if (line.empty() || line[0] == ';' || line[0] == '#') {
                continue;
            }
            const std::string where = cfg_.models_preset + ":" + std::to_string(n_line) + ": ";
            if (line[0] == '[') {
                if (line.back() != ']' || line.size() < 3) {
                    throw std::runtime_error(where + "malformed section header");
                }
                const std::string id = trim(line.substr(1, line.size() - 2));
                global               = id == "*";
                if (!global) {
                    sections.push_back({id, "", {}, n_line});
                    cur = &sections.back();
                }
                continue;
            }
            const size_t eq = line.find('=');
            if (eq == std::string::npos || (!cur && !global)) {
                throw std::runtime_error(where + "expected `key = value` inside a [section]");
            }
            std::string       key   = trim(line.substr(0, eq));
            const std::string value = trim(line.substr(eq + 1));
            while (!key.empty() && key[0] == '-') {
                key.erase(0, 1);
            }
            if (key.empty()) {
                throw std::runtime_error(where + "empty key");
            }
            if (key == "model" || key == "m") {
                if (global) {
                    throw std::runtime_error(where + "[*] cannot name a model file");
                }
                fs::path p(value);
                if (p.is_relative()) {
                    p = fs::path(cfg_.models_preset).parent_path() / p;
                }
                cur->model = p.string();
                continue;
            }
            const std::string flag         = (key.size() <= 3 && key.find('-') == std::string::npos ? "-" : "--") + key;
            std::vector<std::string> & dst = global ? common : cur->args;
            if (value == "true") {
                dst.push_back(flag);
            } else if (value != "false") {
                dst.push_back(flag);
                dst.push_back(value);
            }
        }
        for (auto & s : sections) {
            if (s.model.empty()) {
                throw std::runtime_error(cfg_.models_preset + ":" + std::to_string(s.line) + ": [" + s.id +
                                         "] has no `model = PATH`");
            }
            std::vector<std::string> args = common;
            args.insert(args.end(), s.args.begin(), s.args.end());
            add(s.id, s.model, args);
        }
    }
    if (models_.empty()) {
        throw std::runtime_error(
            "no models found (--models-dir holds *.gguf files or folders of them; "
            "--models-preset has [id] sections)");
    }
    routes();
    reaper_ = std::thread([this] { reaper(); });
}

router::~router() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_reaper_ = true;
        cv_.notify_all();
    }
    if (reaper_.joinable()) {
        reaper_.join();
    }
    for (auto & [id, m] : models_) {
        if (m->proc) {
            m->proc->terminate(10000);
        }
    }
    // forwarding threads still running (past the grace period) end now that their instances are
    // gone; they use this object until then
    while (in_flight_ > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

int router::bind() {
    return bind_port(*svr_, cfg_.host, cfg_.port);
}

bool router::listen() {
    return loop_.run(*svr_);
}

void router::shutdown(int grace_s) {
    draining_        = true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(grace_s);
    while (std::chrono::steady_clock::now() < until && in_flight_ > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    loop_.stop(*svr_);
}

bool router::make_room_locked(std::unique_lock<std::mutex> & lock, const model & want, std::string & message) {
    if (cfg_.memory_max > 0 && want.bytes > cfg_.memory_max) {
        message = "model '" + want.id + "' needs " + std::to_string(want.bytes) +
                  " bytes, more than --models-memory-max (" + std::to_string(cfg_.memory_max) + ")";
        return false;
    }
    while (true) {
        int      count = 0;
        uint64_t bytes = 0;
        for (auto & [id, m] : models_) {
            if (m.get() != &want && m->st != model::state::unloaded) {
                count++;
                bytes += m->bytes;
            }
        }
        const uint64_t avail      = available_memory();
        const bool     over_count = cfg_.models_max > 0 && count >= cfg_.models_max;
        const bool     over_cap   = cfg_.memory_max > 0 && bytes + want.bytes > cfg_.memory_max;
        const bool     short_mem  = avail > 0 && avail < want.bytes && count > 0;
        if (!over_count && !over_cap && !short_mem) {
            return true;
        }
        model * victim = nullptr;  // the least recently used idle instance
        for (auto & [id, m] : models_) {
            if (m->st == model::state::loaded && m->active == 0 &&
                (!victim || m->last_used_ms < victim->last_used_ms)) {
                victim = m.get();
            }
        }
        if (!victim) {
            message = std::string("no room to load '") + want.id + "': " +
                      (over_count ? "--models-max models are loaded"
                       : over_cap ? "--models-memory-max is reached"
                                  : "the machine's memory is short") +
                      " and all of them are busy; retry later";
            return false;
        }
        unload_locked(lock, *victim);
    }
}

void router::unload_locked(std::unique_lock<std::mutex> & lock, model & m) {
    if (m.st != model::state::loaded) {
        return;
    }
    m.st = model::state::unloading;
    cv_.wait(lock, [&] { return m.active == 0; });
    std::unique_ptr<child_process> proc = std::move(m.proc);
    lock.unlock();
    if (proc) {
        proc->terminate(10000);
    }
    lock.lock();
    m.st   = model::state::unloaded;
    m.port = 0;
    m.argv.clear();
    if (cfg_.verbose) {
        fprintf(stderr, "llama-server: unloaded %s\n", m.id.c_str());
    }
    cv_.notify_all();
}

bool router::load_locked(std::unique_lock<std::mutex> & lock, model & m, int & status, std::string & message) {
    if (!make_room_locked(lock, m, message)) {
        status = 503;
        return false;
    }
    m.st                          = model::state::loading;
    m.key                         = random_key();
    std::vector<std::string> argv = {self_executable(), "-m", m.path,      "--host", "127.0.0.1", "--port", "0",
                                     "--alias",         m.id, "--api-key", m.key};
    argv.insert(argv.end(), cfg_.instance_args.begin(), cfg_.instance_args.end());
    argv.insert(argv.end(), m.args.begin(), m.args.end());
    std::vector<std::string> env;
    for (char ** e = environ; e && *e; e++) {
        if (!router_env(*e)) {
            env.emplace_back(*e);
        }
    }
    const std::string id      = m.id;
    const bool        verbose = cfg_.verbose;
    lock.unlock();

    auto        proc = std::make_unique<child_process>();
    std::string why;
    int         port = 0;
    bool        ok   = !argv[0].empty() && proc->start(
                                               argv, env,
                                               [id, verbose](const std::string & line) {
                                          if (verbose) {
                                              fprintf(stderr, "[%s] %s\n", id.c_str(), line.c_str());
                                          }
                                      },
                                               why);
    if (argv[0].empty()) {
        why = "cannot find this executable to start an instance";
    }
    std::string line;
    if (ok) {
        ok = proc->wait_line([](const std::string & l) { return l.find("listening on http://") != std::string::npos; },
                             line, cfg_.load_timeout_s * 1000);
        const size_t colon = line.rfind(':');
        if (ok && colon != std::string::npos) {
            port = atoi(line.c_str() + colon + 1);
        }
        ok = ok && port > 0;
        // the instance has bound its port; /health answers once it serves
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(cfg_.load_timeout_s);
        while (ok) {
            httplib::Client cli("127.0.0.1", port);
            cli.set_connection_timeout(1, 0);
            auto r = cli.Get("/health");
            if (r && r->status == 200) {
                break;
            }
            if (!proc->running() || std::chrono::steady_clock::now() > until) {
                ok = false;
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        if (!ok) {
            // the instance's last words say why (e.g. the model file is refused)
            std::string last;
            proc->wait_line(
                [&last](const std::string & l) {
                    if (!l.empty()) {
                        last = l;
                    }
                    return false;
                },
                line, 0);
            proc->terminate(2000);
            why = "the instance exited with status " + std::to_string(proc->exit_code()) +
                  (last.empty() ? std::string() : ": " + last);
        }
    }

    lock.lock();
    if (!ok) {
        m.st        = model::state::unloaded;
        m.failed    = true;
        m.exit_code = proc->exit_code();
        m.error     = why;
        status      = 500;
        message     = "cannot load model '" + m.id + "': " + why;
        cv_.notify_all();
        return false;
    }
    m.st     = model::state::loaded;
    m.proc   = std::move(proc);
    m.port   = port;
    m.argv   = argv;  // shown by /models, with the key redacted
    m.failed = false;
    m.error.clear();
    m.last_used_ms = now_ms();
    if (cfg_.verbose) {
        fprintf(stderr, "llama-server: loaded %s on port %d\n", m.id.c_str(), port);
    }
    cv_.notify_all();
    return true;
}

bool router::acquire(const std::string & id, bool autoload, int & port, int & status, std::string & message) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto                         it = models_.find(id);
    if (it == models_.end()) {
        status  = 404;
        message = "model '" + id + "' not found (GET /v1/models lists them)";
        return false;
    }
    model & m = *it->second;
    while (true) {
        switch (m.st) {
            case model::state::loaded:
                if (!m.proc->running()) {
                    // it crashed: forget it, the next request loads it again
                    m.failed    = true;
                    m.exit_code = m.proc->exit_code();
                    m.error     = "the instance exited with status " + std::to_string(m.exit_code);
                    m.proc.reset();
                    m.st = model::state::unloaded;
                    continue;
                }
                m.active++;
                m.last_used_ms = now_ms();
                port           = m.port;
                return true;
            case model::state::loading:
            case model::state::unloading:
                cv_.wait(lock);
                continue;
            case model::state::unloaded:
                if (!autoload) {
                    status  = 503;
                    message = "model '" + id + "' is not loaded (autoload is off: POST /models/load first)";
                    return false;
                }
                if (!load_locked(lock, m, status, message)) {
                    return false;
                }
                continue;
        }
    }
}

void router::release(const std::string & id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto                        it = models_.find(id);
    if (it != models_.end()) {
        it->second->active--;
        it->second->last_used_ms = now_ms();
    }
    cv_.notify_all();
}

void router::reaper() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_reaper_) {
        cv_.wait_for(lock, std::chrono::milliseconds(200));
        if (stop_reaper_) {
            break;
        }
        for (auto & [id, m] : models_) {
            if (m->st != model::state::loaded) {
                continue;
            }
            if (!m->proc->running()) {
                m->failed    = true;
                m->exit_code = m->proc->exit_code();
                m->error     = "the instance exited with status " + std::to_string(m->exit_code);
                m->proc.reset();
                m->st = model::state::unloaded;
                fprintf(stderr, "llama-server: the instance of %s exited (status %d)\n", id.c_str(), m->exit_code);
                cv_.notify_all();
            } else if (cfg_.idle_s >= 0 && m->active == 0 && now_ms() - m->last_used_ms >= cfg_.idle_s * 1000LL) {
                unload_locked(lock, *m);
                break;  // the lock was released: look again from the start on the next round
            }
        }
    }
}

// One forwarded request: the instance's answer travels through a queue from the thread that reads it
// to the HTTP thread that writes it to the client, chunk by chunk as it arrives (SSE streams too).
struct router::lease {
    std::mutex              mutex;
    std::condition_variable cv;
    std::deque<std::string> chunks;
    bool                    headers = false, done = false, failed = false;
    std::atomic<bool>       cancelled{false};
    int                     status = 0;
    std::string             content_type, retry_after;
};

void router::forward(const httplib::Request & req, httplib::Response & res, const std::string & id) {
    const std::string autoload_q = req.get_param_value("autoload");
    const bool        autoload   = autoload_q.empty() ? cfg_.autoload : autoload_q == "true" || autoload_q == "1";
    int               port = 0, status = 0;
    std::string       message;
    if (!acquire(id, autoload, port, status, message)) {
        if (status == 503) {
            res.set_header("Retry-After", "1");
        }
        send_error(res, status, message, status == 404 ? "not_found_error" : "server_error");
        return;
    }
    std::string key;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        key = models_[id]->key;
    }
    auto l = std::make_shared<lease>();
    in_flight_++;
    httplib::Request preq;
    preq.method = req.method;
    preq.path   = req.target.empty() ? req.path : req.target;
    preq.body   = req.body;
    for (const char * h : {"Content-Type", "Accept"}) {
        if (req.has_header(h)) {
            preq.set_header(h, req.get_header_value(h));
        }
    }
    preq.set_header("Authorization", "Bearer " + key);
    preq.response_handler = [l](const httplib::Response & r) {
        std::lock_guard<std::mutex> lock(l->mutex);
        l->status       = r.status;
        l->content_type = r.get_header_value("Content-Type");
        l->retry_after  = r.get_header_value("Retry-After");
        l->headers      = true;
        l->cv.notify_all();
        return !l->cancelled;
    };
    preq.content_receiver = [l](const char * data, size_t n, uint64_t, uint64_t) {
        std::lock_guard<std::mutex> lock(l->mutex);
        l->chunks.emplace_back(data, n);
        l->cv.notify_all();
        return !l->cancelled;
    };
    const int timeout_s = cfg_.timeout_s;
    std::thread([this, l, preq = std::move(preq), port, id, timeout_s]() mutable {
        httplib::Client cli("127.0.0.1", port);
        cli.set_connection_timeout(5, 0);
        cli.set_read_timeout(timeout_s + 5, 0);
        cli.set_write_timeout(timeout_s + 5, 0);
        httplib::Response pres;
        httplib::Error    err = httplib::Error::Success;
        const bool        ok  = cli.send(preq, pres, err);
        {
            std::lock_guard<std::mutex> lock(l->mutex);
            l->done   = true;
            l->failed = !ok;
            l->cv.notify_all();
        }
        release(id);
        in_flight_--;
    }).detach();

    {
        std::unique_lock<std::mutex> lock(l->mutex);
        l->cv.wait(lock, [&] { return l->headers || l->done; });
        if (!l->headers) {
            send_error(res, 502, "the instance of model '" + id + "' did not answer", "server_error");
            return;
        }
        res.status = l->status;
        if (!l->retry_after.empty()) {
            res.set_header("Retry-After", l->retry_after);
        }
    }
    const std::string ctype = l->content_type.empty() ? "application/json" : l->content_type;
    if (ctype.rfind("text/event-stream", 0) == 0) {
        res.set_header("Cache-Control", "no-cache");
    }
    res.set_chunked_content_provider(
        ctype,
        [l](size_t, httplib::DataSink & sink) {
            std::unique_lock<std::mutex> lock(l->mutex);
            l->cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return !l->chunks.empty() || l->done; });
            while (!l->chunks.empty()) {
                std::string c = std::move(l->chunks.front());
                l->chunks.pop_front();
                lock.unlock();
                if (!sink.write(c.data(), c.size())) {
                    l->cancelled = true;  // the client left: the instance's connection is dropped too
                    return false;
                }
                lock.lock();
            }
            if (l->done) {
                if (l->failed) {
                    return false;  // the instance died mid-answer: cut the client's connection too
                }
                sink.done();
                return true;
            }
            if (!sink.is_writable()) {
                l->cancelled = true;
                return false;
            }
            return true;
        },
        [l](bool) { l->cancelled = true; });
}

void router::routes() {
    httplib::Server & s = *svr_;
    const int         n = cfg_.http_threads;
    s.new_task_queue    = [n] { return new httplib::ThreadPool((size_t) n); };
    s.set_payload_max_length(cfg_.max_body);
    s.set_read_timeout(30, 0);
    s.set_write_timeout(cfg_.timeout_s, 0);

    s.set_pre_routing_handler([this](const httplib::Request & req, httplib::Response & res) {
        if (req.path == "/health" || (cfg_.webui && webui_path(req.path))) {
            return httplib::Server::HandlerResponse::Unhandled;  // the page asks for the key itself
        }
        if (!key_accepted(cfg_.api_keys, req)) {
            send_error(res, 401, "invalid or missing API key (Authorization: Bearer KEY)", "authentication_error");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (draining_) {
            res.set_header("Retry-After", "1");
            send_error(res, 503, "server shutting down", "unavailable");
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    set_error_bodies(s);

    s.Get("/health", [this](const httplib::Request &, httplib::Response & res) {
        res.status = draining_ ? 503 : 200;
        res.set_content(draining_ ? R"({"status":"shutting down"})" : R"({"status":"ok"})", "application/json");
    });
    auto list = [this](const httplib::Request &, httplib::Response & res) {
        json                        data = json::array();
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto & [id, m] : models_) {
            json status = {{"value", m->state_name()}};
            if (m->st == model::state::loaded) {
                std::vector<std::string> args = m->argv;
                for (size_t i = 0; i + 1 < args.size(); i++) {
                    if (args[i] == "--api-key") {
                        args[i + 1] = "***";
                    }
                }
                status["args"] = args;
            }
            if (m->failed) {
                status["failed"]    = true;
                status["exit_code"] = m->exit_code;
                status["error"]     = m->error;
            }
            data.push_back({{"id", id},
                            {"object", "model"},
                            {"created", created_},
                            {"owned_by", "libllama"},
                            {"path", m->path},
                            {"size", m->bytes},
                            {"status", status}});
        }
        res.set_content(dump({{"object", "list"}, {"data", data}}), "application/json");
    };
    if (cfg_.webui) {
        webui_routes(s);  // before the catch-all forwarding below
    }
    s.Get("/v1/models", list);
    s.Get("/models", list);

    // the model a request names: the body's "model" (POST) or ?model= (GET); with one model known,
    // it may be left out
    auto model_of = [this](const httplib::Request & req, std::string & id, std::string & why) {
        if (req.method == "POST") {
            json body = json::parse(req.body, nullptr, false);
            if (body.is_discarded() || !body.is_object()) {
                why = "the request body must be a JSON object";
                return false;
            }
            auto it = body.find("model");
            if (it != body.end() && !it->is_null()) {
                if (!it->is_string()) {
                    why = "'model' must be a string";
                    return false;
                }
                id = it->get<std::string>();
                return true;
            }
        } else if (req.has_param("model")) {
            id = req.get_param_value("model");
            return true;
        }
        if (models_.size() == 1) {
            id = models_.begin()->first;
            return true;
        }
        why = "'model' is required: this server routes by model (GET /v1/models lists them)";
        return false;
    };
    auto load_unload = [this, model_of](bool load) {
        return [this, model_of, load](const httplib::Request & req, httplib::Response & res) {
            std::string id, why;
            if (!model_of(req, id, why)) {
                send_error(res, 400, why);
                return;
            }
            std::unique_lock<std::mutex> lock(mutex_);
            auto                         it = models_.find(id);
            if (it == models_.end()) {
                send_error(res, 404, "model '" + id + "' not found", "not_found_error");
                return;
            }
            model & m = *it->second;
            if (load) {
                while (m.st == model::state::loading || m.st == model::state::unloading) {
                    cv_.wait(lock);
                }
                int         status = 0;
                std::string message;
                if (m.st == model::state::unloaded && !load_locked(lock, m, status, message)) {
                    lock.unlock();
                    send_error(res, status, message, "server_error");
                    return;
                }
            } else {
                while (m.st == model::state::loading) {
                    cv_.wait(lock);
                }
                unload_locked(lock, m);
            }
            res.set_content(R"({"success":true})", "application/json");
        };
    };
    s.Post("/models/load", load_unload(true));
    s.Post("/models/unload", load_unload(false));

    auto fwd = [this, model_of](const httplib::Request & req, httplib::Response & res) {
        std::string id, why;
        if (!model_of(req, id, why)) {
            send_error(res, 400, why);
            return;
        }
        forward(req, res, id);
    };
    s.Post(R"(/.*)", fwd);
    s.Get(R"(/.*)", fwd);
}

}  // namespace server
