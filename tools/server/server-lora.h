// The run's LoRA adapters (--lora / --lora-scaled) and their scales, as upstream llama-server:
// GET /lora-adapters lists them, POST /lora-adapters sets the global scales, and a request's
// `lora` field ([{"id", "scale"}]) gives its own. A request carries its scales into its task (one
// per adapter); the engine decodes each batch with one configuration (server-engine.h).
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "llama.h"
#include "server-params.h"

namespace server {

class lora_set {
public:
    // Loads each (path, scale) for model. False with `error` naming the adapter that failed.
    bool load(llama_model * model, const std::vector<std::pair<std::string, float>> & args, std::string & error);

    const std::vector<llama_adapter_lora *> & adapters() const { return adapters_; }
    std::vector<float>                        scales();  // the global scales
    // GET /lora-adapters: [{"id", "path", "scale"}]
    json list();
    // POST /lora-adapters: [{"id", "scale"}]; unlisted adapters get 0. bad_request on bad input.
    void set(const json & body);
    // The scales of a request: its `lora` field (unlisted adapters 0) or, without one, the global
    // scales. Empty when no adapter is loaded (then `lora` must be absent or empty).
    std::vector<float> for_request(const json & body);

private:
    std::vector<float> parse(const json & arr, const char * field) const;

    std::vector<llama_adapter_lora *> adapters_;
    std::vector<std::string>          paths_;
    std::mutex                        mutex_;
    std::vector<float>                scales_;  // under mutex_
};

}  // namespace server
