#include "server-lora.h"

#include <cmath>

namespace server {

bool lora_set::load(llama_model * model, const std::vector<std::pair<std::string, float>> & args, std::string & error) {
    for (const auto & a : args) {
        llama_adapter_lora * ad = llama_adapter_lora_init(model, a.first.c_str());
        if (ad == nullptr) {
            error = "cannot load LoRA adapter " + a.first + ": " + llama_last_error();
            return false;
        }
        adapters_.push_back(ad);  // owned by the model, freed with it
        paths_.push_back(a.first);
        scales_.push_back(a.second);
    }
    return true;
}

std::vector<float> lora_set::scales() {
    std::lock_guard<std::mutex> lock(mutex_);
    return scales_;
}

json lora_set::list() {
    const auto sc  = scales();
    json       out = json::array();
    for (size_t i = 0; i < adapters_.size(); i++) {
        out.push_back({{"id", i}, {"path", paths_[i]}, {"scale", sc[i]}});
    }
    return out;
}

std::vector<float> lora_set::parse(const json & arr, const char * field) const {
    const std::string f = std::string("'") + field + "'";
    if (!arr.is_array()) {
        throw bad_request(f + " must be an array of {\"id\": integer, \"scale\": number}");
    }
    std::vector<float> out(adapters_.size(), 0.0f);
    for (const auto & e : arr) {
        auto id = e.is_object() ? e.find("id") : e.end();
        if (!e.is_object() || id == e.end() || !id->is_number_integer()) {
            throw bad_request(f + " entries must be objects with an integer 'id'");
        }
        const int64_t i = id->get<int64_t>();
        if (i < 0 || i >= (int64_t) adapters_.size()) {
            throw bad_request(f + ": no LoRA adapter with id " + std::to_string(i) + " (" +
                              std::to_string(adapters_.size()) + " loaded)");
        }
        auto sc = e.find("scale");
        if (sc == e.end() || !sc->is_number() || !std::isfinite(sc->get<double>()) ||
            std::fabs(sc->get<double>()) > 1e6) {
            throw bad_request(f + ": 'scale' of adapter " + std::to_string(i) + " must be a number in [-1e6, 1e6]");
        }
        out[(size_t) i] = sc->get<float>();
    }
    return out;
}

void lora_set::set(const json & body) {
    auto                        sc = parse(body, "body");
    std::lock_guard<std::mutex> lock(mutex_);
    scales_ = std::move(sc);
}

std::vector<float> lora_set::for_request(const json & body) {
    auto it = body.find("lora");
    if (it == body.end() || it->is_null()) {
        return scales();
    }
    return parse(*it, "lora");
}

}  // namespace server
