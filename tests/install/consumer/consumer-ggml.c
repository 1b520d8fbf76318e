/* An application of the installed libggml alone, in C: reads a GGUF file's header and prints its
 * architecture and tensor count (run-install-test.cmake checks them).
 *
 *   consumer-ggml MODEL */
#include <stdio.h>

#include "gguf.h"

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL\n", argv[0]);
        return 2;
    }
    struct gguf_init_params params = {true};
    struct gguf_context *   ctx    = gguf_init_from_file(argv[1], params);
    if (!ctx) {
        fprintf(stderr, "consumer: not a readable GGUF file: %s\n", argv[1]);
        return 1;
    }
    const int64_t key = gguf_find_key(ctx, "general.architecture");
    if (key < 0 || gguf_get_kv_type(ctx, key) != GGUF_TYPE_STRING) {
        gguf_free(ctx);
        return 1;
    }
    printf("gguf v%u arch=%s tensors=%lld\n", (unsigned) gguf_get_version(ctx), gguf_get_val_str(ctx, key),
           (long long) gguf_get_n_tensors(ctx));
    gguf_free(ctx);
    return 0;
}
