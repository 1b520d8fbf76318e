/*
 * A client written as for llama.cpp's llama.h: it includes only llama.h and relies on what that
 * header pulls in (printf and FILE from stdio.h, the ggml and gguf declarations). Built with
 * -std=c99 -Werror=implicit-function-declaration: it fails to compile if llama.h stops providing
 * them. Run, it checks a few answers that need no model.
 */
#include "llama.h"

#include <string.h> /* strcmp: not something llama.h provides, upstream or here */

static int check(int ok, const char * what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    return ok ? 0 : 1;
}

int main(void) {
    int                                fails = 0;
    FILE *                             out   = stdout;
    struct llama_model_params          mp    = llama_model_default_params();
    struct llama_context_params        cp    = llama_context_default_params();
    struct llama_model_quantize_params qp    = llama_model_quantize_default_params();
    ggml_threadpool_t                  tp    = NULL;
    struct gguf_context *              g     = gguf_init_empty();

    llama_backend_init();
    llama_numa_init(GGML_NUMA_STRATEGY_DISTRIBUTE);
    fprintf(out, "%s\n", llama_print_system_info());
    fails += check(mp.load_mode == LLAMA_LOAD_MODE_AUTO, "default load_mode");
    fails += check(cp.samplers == NULL && cp.n_samplers == 0 && cp.ctx_other == NULL, "default samplers");
    fails += check(qp.output_tensor_type == GGML_TYPE_COUNT, "quantize default output type");
    fails += check(strcmp(llama_flash_attn_type_name(LLAMA_FLASH_ATTN_TYPE_AUTO), "auto") == 0, "flash attn name");
    fails += check(llama_load_mode_from_str("mmap") == LLAMA_LOAD_MODE_MMAP, "load mode from str");
    fails += check(llama_model_load_from_file("/nonexistent.gguf", mp) == NULL, "missing file fails");
    fails += check(g != NULL, "gguf from llama.h");
    gguf_free(g);
    (void) tp;
    llama_backend_free();
    return fails;
}
