/* Compiled as strict C99 (-std=c99 -pedantic -Wall -Wextra -Werror): llama.h must stay plain C. */
#include "llama.h"

#include <stdio.h>

static bool on_progress(float progress, void * user_data) {
    (void) user_data;
    return progress >= 0.0f;
}

int main(void) {
    struct llama_model_params         mp = llama_model_default_params();
    struct llama_context_params       cp = llama_context_default_params();
    struct llama_model_kv_override    kvo;
    llama_token_data_array            arr;
    struct llama_sampler_chain_params sp = llama_sampler_chain_default_params();

    mp.progress_callback = on_progress;
    mp.load_mode         = LLAMA_LOAD_MODE_AUTO;
    kvo.tag              = LLAMA_KV_OVERRIDE_TYPE_INT;
    kvo.val_i64          = 1;
    arr.data             = NULL;
    arr.size             = 0;
    arr.selected         = -1;
    arr.sorted           = false;
    (void) mp;
    (void) kvo;
    (void) arr;
    (void) sp;

    if (LLAMA_VERSION_MAJOR < 0 || llama_abi_version() != LLAMA_ABI_VERSION) {
        return 1;
    }
    printf("libllama %s, n_ctx default %u\n", llama_version(), cp.n_ctx);
    return 0;
}
