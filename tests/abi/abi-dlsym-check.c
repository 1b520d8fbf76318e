/*
 * abi-dlsym-check: every function name of llama.cpp's llama.h (a list, one a line) must resolve
 * in the shared libllama (dlsym / GetProcAddress, through the platform layer's loader, which this
 * also tests), except the names of a "pending" list.
 *   abi-dlsym-check <libllama.so | llama.dll> <names.txt> <pending.txt>
 * Prints each missing name; exits 1 if any is missing, 2 on usage or I/O errors.
 */
#include <stdio.h>
#include <string.h>

#include "ggml-os.h"

#define MAX_PENDING 256

static int read_line(FILE * f, char * buf, size_t n) {
    if (!fgets(buf, (int) n, f)) {
        return 0;
    }
    buf[strcspn(buf, "\r\n")] = '\0';
    return 1;
}

int main(int argc, char ** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s <lib> <names.txt> <pending.txt>\n", argv[0]);
        return 2;
    }
    void * lib = ggml_os_dl_open(argv[1]);
    if (!lib) {
        fprintf(stderr, "loading %s failed: %s\n", argv[1], ggml_os_error());
        return 2;
    }
    static char pending[MAX_PENDING][128];
    int         n_pending = 0;
    char        line[256];
    FILE *      fp = fopen(argv[3], "r");
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", argv[3]);
        return 2;
    }
    while (read_line(fp, line, sizeof(line)) && n_pending < MAX_PENDING) {
        if (line[0] != '\0' && line[0] != '#') {
            snprintf(pending[n_pending++], sizeof(pending[0]), "%s", line);
        }
    }
    fclose(fp);

    FILE * fn = fopen(argv[2], "r");
    if (!fn) {
        fprintf(stderr, "cannot open %s\n", argv[2]);
        return 2;
    }
    int n_total = 0, n_missing = 0, n_skipped = 0;
    while (read_line(fn, line, sizeof(line))) {
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
        n_total++;
        int skip = 0;
        for (int i = 0; i < n_pending; i++) {
            skip |= strcmp(pending[i], line) == 0;
        }
        if (ggml_os_dl_sym(lib, line) != NULL) {
            continue;
        }
        if (skip) {
            n_skipped++;
            continue;
        }
        printf("missing: %s\n", line);
        n_missing++;
    }
    fclose(fn);
    ggml_os_dl_close(lib);
    printf("%d functions, %d missing, %d pending (not yet required)\n", n_total, n_missing, n_skipped);
    return n_missing > 0 || n_total == 0 ? 1 : 0;
}
