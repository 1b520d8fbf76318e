// Router mode (llama-server without -m, with --models-dir or --models-preset): several models behind
// one address. Each loaded model runs in its own llama-server process (an "instance", started from
// this executable on a free loopback port) and the router forwards every request to the instance of
// the model the request names: the JSON body's "model" for POST, the "model" query parameter for GET.
// Models load on first use (unless --no-models-autoload), and unload after --sleep-idle-seconds
// without requests, or to make room: at most --models-max loaded, their files' total size at most
// --models-memory-max, and never more than the machine's available memory. An instance that crashes
// takes only its own requests down. See docs/server.md ("Several models").
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server-listen.h"
#include "server-process.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace server {

struct router_config {
    std::string              models_dir;             // *.gguf files (and folders holding them) found here
    std::string              models_preset;          // INI: [id] sections with model = PATH and instance flags
    int                      models_max     = 4;     // loaded at once; 0: no limit
    uint64_t                 memory_max     = 0;     // bytes of model files loaded at once; 0: no limit
    bool                     autoload       = true;  // load a model when a request names it
    int                      idle_s         = -1;    // unload an instance idle this long; -1: never
    int                      load_timeout_s = 300;   // an instance must answer /health within this
    std::vector<std::string> instance_args;          // flags every instance gets (the router's own, filtered)
    std::string              host = "127.0.0.1";
    int                      port = 8080;
    std::vector<std::string> api_keys;  // checked by the router; instances listen on loopback without
    size_t                   max_body     = 1 << 20;
    int                      timeout_s    = 600;
    int                      http_threads = 64;
    bool                     verbose      = false;  // echo the instances' output
    bool                     webui        = true;   // serve the chat page (it offers the models)
};

// The flags of argv (without argv[0]) that every instance gets: all but the router's own and the
// listening ones (--host, --port, --api-key, ...), which the router sets or keeps.
std::vector<std::string> router_instance_args(int argc, char ** argv);

// "1500000", "512K", "2.5M", "8G" (binary units) as bytes; false when malformed.
bool parse_size(const std::string & text, uint64_t & out);

class router {
public:
    // Finds the models (throws std::runtime_error with a message when there are none or the preset
    // is malformed).
    explicit router(router_config cfg);
    ~router();

    int  bind();  // the port, or -1
    bool listen();
    // Refuses new requests, waits up to grace_s for forwarded ones, stops every instance.
    void shutdown(int grace_s);

    size_t n_models() const { return models_.size(); }

private:
    struct model;
    struct lease;  // one forwarded request holding its instance busy

    void routes();
    void forward(const httplib::Request & req, httplib::Response & res, const std::string & id);
    // Loads `id` if needed and marks one request active on it; false with HTTP status and message.
    bool acquire(const std::string & id, bool autoload, int & port, int & status, std::string & message);
    void release(const std::string & id);
    bool load_locked(std::unique_lock<std::mutex> & lock, model & m, int & status, std::string & message);
    void unload_locked(std::unique_lock<std::mutex> & lock, model & m);
    bool make_room_locked(std::unique_lock<std::mutex> & lock, const model & m, std::string & message);
    void reaper();

    router_config                                 cfg_;
    std::map<std::string, std::unique_ptr<model>> models_;
    std::mutex                                    mutex_;
    std::condition_variable                       cv_;
    std::unique_ptr<httplib::Server>              svr_;
    listen_loop                                   loop_;
    std::atomic<bool>                             draining_{false};
    std::atomic<int>                              in_flight_{0};
    bool                                          stop_reaper_ = false;
    std::thread                                   reaper_;
    int64_t                                       created_ = 0;
};

}  // namespace server
