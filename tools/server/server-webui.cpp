#include "server-webui.h"

#include <httplib.h>

#include <cstring>

namespace server {

namespace {

const char * content_type(const char * path) {
    const char * dot = strrchr(path, '.');
    if (dot && strcmp(dot, ".html") == 0) {
        return "text/html; charset=utf-8";
    }
    if (dot && strcmp(dot, ".js") == 0) {
        return "text/javascript; charset=utf-8";
    }
    if (dot && strcmp(dot, ".css") == 0) {
        return "text/css; charset=utf-8";
    }
    return "application/octet-stream";
}

const webui_file * find_file(const std::string & path) {
    const std::string p = path == "/" ? "/index.html" : path;
    for (size_t i = 0; i < k_webui_n_files; i++) {
        if (p == k_webui_files[i].path) {
            return &k_webui_files[i];
        }
    }
    return nullptr;
}

}  // namespace

bool webui_path(const std::string & path) {
    return find_file(path) != nullptr;
}

void webui_routes(httplib::Server & s) {
    auto serve = [](const httplib::Request & req, httplib::Response & res) {
        const webui_file * f = find_file(req.path);
        if (!f) {  // httplib patterns are regexes: "/app.js" also matches "/appXjs"
            res.status = 404;
            return;
        }
        // no-cache: a browser revalidates, so a new server binary's page is never mixed with an old script
        res.set_header("Cache-Control", "no-cache");
        res.set_header("X-Content-Type-Options", "nosniff");
        // the page talks to this server only: no other origin can be fetched, framed or run
        res.set_header("Content-Security-Policy",
                       "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
        res.set_content(reinterpret_cast<const char *>(f->data), f->size, content_type(f->path));
    };
    s.Get("/", serve);
    for (size_t i = 0; i < k_webui_n_files; i++) {
        s.Get(k_webui_files[i].path, serve);
    }
}

}  // namespace server
