// Slot files, as upstream llama-server: POST /slots/{id}?action=save|restore with {"filename": F}
// writes or reads the slot's KV cache and token list as F in --slot-save-path; action=erase empties
// the slot. The work runs on the engine thread (engine::slot_file); file names are checked here so
// that no request reaches outside the folder.
#include <httplib.h>

#include <cstdlib>

#include "server-http.h"
#include "server-reply.h"

namespace server {

namespace {

// A plain file name: no folder part ('/', '\\', a drive ':'), no "..", not hidden, no control
// characters, valid UTF-8, at most 255 bytes (upstream's fs_validate_filename is as strict).
bool valid_filename(const std::string & f) {
    if (f.empty() || f.size() > 255 || f[0] == '.' || f.find("..") != std::string::npos || !utf8_valid(f)) {
        return false;
    }
    for (unsigned char c : f) {
        if (c < 0x20 || c == 0x7F || c == '/' || c == '\\' || c == ':') {
            return false;
        }
    }
    return true;
}

std::string filename_of(const std::string & body) {
    const json j  = parse_body(body);
    auto       it = j.find("filename");
    if (it == j.end() || !it->is_string()) {
        throw bad_request("'filename' must be a string");
    }
    const std::string f = it->get<std::string>();
    if (!valid_filename(f)) {
        throw bad_request("Invalid filename: '" + f + "' (a plain file name without '/', '\\' or '..')");
    }
    return f;
}

}  // namespace

void http_server::slot_routes() {
    svr_->Post(R"(/slots/([^/]*))", guarded([this](const httplib::Request & req, httplib::Response & res) {
                   if (cfg_.slot_save_path.empty()) {
                       send_error(res, 501,
                                  "This server does not support slots action. Start it with `--slot-save-path`",
                                  "not_supported_error");
                       return;
                   }
                   const std::string id_str = req.matches[1];
                   char *            end    = nullptr;
                   const long        id     = std::strtol(id_str.c_str(), &end, 10);
                   if (id_str.empty() || *end != '\0' || id < 0 || id >= engine_.n_slots()) {
                       throw bad_request("Invalid slot ID: '" + id_str + "' (0 to " +
                                         std::to_string(engine_.n_slots() - 1) + ")");
                   }
                   const std::string action = req.get_param_value("action");
                   engine::slot_op   op;
                   std::string       filename;
                   if (action == "save" || action == "restore") {
                       op       = action == "save" ? engine::slot_op::save : engine::slot_op::restore;
                       filename = filename_of(req.body);
                   } else if (action == "erase") {
                       op = engine::slot_op::erase;
                   } else {
                       throw bad_request("Invalid action: '" + action + "' (save, restore or erase)");
                   }
                   const auto r = engine_.slot_file(op, (int) id, cfg_.slot_save_path + "/" + filename);
                   if (!r.error.empty()) {
                       send_error(res, r.status, r.error, r.status >= 500 ? "server_error" : "invalid_request_error");
                       return;
                   }
                   json out = {{"id_slot", id}};
                   if (op == engine::slot_op::erase) {
                       out["n_erased"] = r.n_tokens;
                   } else if (op == engine::slot_op::save) {
                       out["filename"]  = filename;
                       out["n_saved"]   = r.n_tokens;
                       out["n_written"] = r.n_bytes;
                       out["timings"]   = {{"save_ms", r.t_ms}};
                   } else {
                       out["filename"]   = filename;
                       out["n_restored"] = r.n_tokens;
                       out["n_read"]     = r.n_bytes;
                       out["timings"]    = {{"restore_ms", r.t_ms}};
                   }
                   res.set_content(dump(out), "application/json");
               }));
}

}  // namespace server
