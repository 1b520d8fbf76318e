// A model-load progress line for the libllama tools: "loading model: 42%" redrawn on stderr, only
// when stderr is a terminal and only once the load has taken more than half a second (small models
// load silently). Header-only because it needs llama.h, which the ggml-only tools do not link.
//   llama_model_params mp = llama_model_default_params();
//   tool::load_progress progress;
//   progress.attach(mp);
//   model = llama_model_load_from_file(path, mp);
//   progress.finish();
#pragma once

#include <cstdio>

#include "console.h"
#include "llama.h"

namespace tool {

struct load_progress {
    int64_t t_start_us = 0;
    int     shown_pct  = -1;  // -1: nothing drawn yet

    void attach(llama_model_params & mp) {
        if (!is_terminal(stderr)) {
            return;
        }
        t_start_us                     = llama_time_us();
        mp.progress_callback           = &load_progress::callback;
        mp.progress_callback_user_data = this;
    }

    // Erases the line (after success or failure) so the next message starts clean.
    void finish() {
        if (shown_pct >= 0) {
            fputs("\r\033[K", stderr);
            fflush(stderr);
            shown_pct = -1;
        }
    }

    static bool callback(float progress, void * user_data) {
        auto *    self = static_cast<load_progress *>(user_data);
        const int pct  = (int) (progress * 100.0f);
        if (pct != self->shown_pct && (self->shown_pct >= 0 || llama_time_us() - self->t_start_us > 500000)) {
            fprintf(stderr, "\rloading model: %3d%%", pct);
            fflush(stderr);
            self->shown_pct = pct;
        }
        return true;  // never cancels
    }
};

}  // namespace tool
