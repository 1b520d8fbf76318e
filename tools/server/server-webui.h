// The chat page at / (tools/server/webui/: HTML, CSS and JS written for this server, no build step).
// Its files are compiled into the binary (tools/server/webui/embed.cmake generates the table below),
// so the server reads no file at run time and the page fetches nothing from the network.
#pragma once

#include <cstddef>
#include <string>

namespace httplib {
class Server;
}  // namespace httplib

namespace server {

struct webui_file {
    const char *          path;  // "/index.html", "/app.js", ...
    const unsigned char * data;
    size_t                size;
};
// generated: one row per file of tools/server/webui/ named in CMakeLists.txt
extern const webui_file k_webui_files[];
extern const size_t     k_webui_n_files;

// Serves GET / (index.html) and each file at its own path, with its Content-Type.
void webui_routes(httplib::Server & s);

// Whether path is one of the page's files (served without the API key, as upstream: the page asks
// for the key and sends it on its API requests).
bool webui_path(const std::string & path);

}  // namespace server
