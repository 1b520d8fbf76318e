// Model and context loading for the libllama tools (llama-cli, llama-server, simple-chat,
// save-load-state, embedding): the start-up every one of them shares, with its errors reported once
// in the tools' form (tool-log.h). examples/simple keeps its own copy on purpose: it is the minimal
// example a reader follows from top to bottom.
//   tool::llama_start(k_prog, verbose);
//   llama_model * model = tool::load_model(model_path, true);
//   if (!model) return tool::EXIT_RUNTIME;                 // already reported
//   llama_context * ctx = tool::new_context(model, cp);
//   if (!ctx) return tool::EXIT_RUNTIME;                   // reported; model freed
#pragma once

#include <string>

#include "llama.h"

namespace tool {

// Installs the tools' log policy for PROG (WARN and above, everything when VERBOSE; errors the
// library returns are held for report_failure) and initializes the backends.
void llama_start(const char * prog, bool verbose);

// Loads PATH with the default model parameters; PROGRESS: draw tool::load_progress on a terminal.
// Returns the model (free with llama_model_free), or NULL after printing
// "PROG: error: cannot load model PATH: REASON".
llama_model * load_model(const std::string & path, bool progress);
// The same with the caller's model parameters (the tools' -ngl, -dev, --no-mmap ...).
llama_model * load_model(const std::string & path, bool progress, llama_model_params mp);

// Creates a context on MODEL with CP. Returns it (free with llama_free), or NULL after printing
// "PROG: error: cannot create the context: REASON" and freeing MODEL, so a caller only returns.
llama_context * new_context(llama_model * model, const llama_context_params & cp);

}  // namespace tool
