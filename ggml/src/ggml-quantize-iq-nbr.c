// Neighbour maps of the i-quant grids (see ggml-quantize-iq-nbr.h). Built from the expanded grids of
// ggml-iq-grids.c, so the map and the dequantizers read the same table.
#include "ggml-quantize-iq-nbr.h"

#include "ggml-iq-grids.h"
#include "ggml-os.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct {
    int          dim, nlev, nwant;
    const int8_t levels[8];
} nbr_spec;

static const nbr_spec k_specs[GGML_IQ_NBR_COUNT] = {
    {4, 8, 2, {4, 12, 20, 28, 36, 44, 52, 62}},
    {4, 8, 3, {1, 3, 5, 7, 9, 11, 13, 15}},
    {8, 3, 3, {-1, 0, 1}},
};

static ggml_iq_nbr_map k_maps[GGML_IQ_NBR_COUNT];
static bool            k_ok[GGML_IQ_NBR_COUNT];

static int level_index(const nbr_spec * s, int8_t v) {
    for (int l = 0; l < s->nlev; l++) {
        if (s->levels[l] == v) {
            return l;
        }
    }
    return 0;  // unreachable for the format grids (their values are the levels)
}

// Squared distances are small integers (at most dim * (nlev-1)^2 = 196), so the nwant smallest distinct
// ones are found with a histogram instead of a sort.
#define MAX_D2 256

static int dist2(const uint8_t * a, const uint8_t * b, int dim) {
    int d = 0;
    for (int k = 0; k < dim; k++) {
        const int e = (int) a[k] - (int) b[k];
        d += e * e;
    }
    return d;
}

// The largest distance kept for code c (the nwant-th smallest distinct one), and how many points lie
// within it.
static int threshold(const ggml_iq_nbr_map * m, int nwant, const uint8_t * c, int * count) {
    int hist[MAX_D2] = {0};
    for (int g = 0; g < m->ngrid; g++) {
        hist[dist2(c, m->grid_l + g * m->dim, m->dim)]++;
    }
    int have = 0, n = 0, d = 0;
    for (; d < MAX_D2; d++) {
        if (hist[d] > 0) {
            n += hist[d];
            if (++have == nwant) {
                break;
            }
        }
    }
    *count = n;
    return d;
}

static void code_levels(int code, int dim, int nlev, uint8_t * c) {
    for (int k = 0; k < dim; k++) {
        c[k] = (uint8_t) (code % nlev);
        code /= nlev;
    }
}

static bool build(enum ggml_iq_nbr_kind kind) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    const nbr_spec *             s = &k_specs[kind];
    ggml_iq_nbr_map *            m = &k_maps[kind];
    const int8_t *               gv;
    m->dim  = s->dim;
    m->nlev = s->nlev;
    switch (kind) {
        case GGML_IQ_NBR_IQ3XXS:
            gv       = &G->iq3xxs[0][0];
            m->ngrid = 256;
            break;
        case GGML_IQ_NBR_IQ3S:
            gv       = &G->iq3s[0][0];
            m->ngrid = 512;
            break;
        default:
            gv       = &G->iq1s[0][0];
            m->ngrid = 2048;
            break;
    }
    m->ncodes = 1;
    for (int k = 0; k < m->dim; k++) {
        m->ncodes *= m->nlev;
    }
    uint8_t * gl  = (uint8_t *) malloc((size_t) m->ngrid * m->dim);
    int32_t * map = (int32_t *) malloc((size_t) m->ncodes * sizeof(int32_t));
    if (!gl || !map) {
        free(gl);
        free(map);
        return false;
    }
    m->grid_l = gl;
    for (int i = 0; i < m->ncodes; i++) {
        map[i] = -1;
    }
    for (int g = 0; g < m->ngrid; g++) {
        int code = 0;
        for (int k = m->dim - 1; k >= 0; k--) {
            gl[g * m->dim + k] = (uint8_t) level_index(s, gv[g * m->dim + k]);
            code               = code * m->nlev + gl[g * m->dim + k];
        }
        map[code] = g;
    }
    // pass 1: each off-grid code's distance threshold and count; pass 2: the lists (the count, then the
    // points in grid order)
    int32_t * dmax = (int32_t *) malloc((size_t) m->ncodes * sizeof(int32_t));
    if (!dmax) {
        free(gl);
        free(map);
        return false;
    }
    size_t  total = 0;
    uint8_t c[8];
    for (int i = 0; i < m->ncodes; i++) {
        if (map[i] < 0) {
            int n = 0;
            code_levels(i, m->dim, m->nlev, c);
            dmax[i] = threshold(m, s->nwant, c, &n);
            total += 1 + (size_t) n;
        }
    }
    uint16_t * nb = (uint16_t *) malloc(total * sizeof(uint16_t));
    if (!nb) {
        free(gl);
        free(map);
        free(dmax);
        return false;
    }
    size_t off = 0;
    for (int i = 0; i < m->ncodes; i++) {
        if (map[i] >= 0) {
            continue;
        }
        code_levels(i, m->dim, m->nlev, c);
        const size_t start = off++;
        for (int g = 0; g < m->ngrid; g++) {
            if (dist2(c, gl + g * m->dim, m->dim) <= dmax[i]) {
                nb[off++] = (uint16_t) g;
            }
        }
        nb[start] = (uint16_t) (off - start - 1);
        map[i]    = -(int32_t) start - 1;
    }
    free(dmax);
    m->map  = map;
    m->nbrs = nb;
    return true;
}

static ggml_os_once k_once[GGML_IQ_NBR_COUNT] = {GGML_OS_ONCE_INIT, GGML_OS_ONCE_INIT, GGML_OS_ONCE_INIT};

static void build_iq3xxs(void) {
    k_ok[GGML_IQ_NBR_IQ3XXS] = build(GGML_IQ_NBR_IQ3XXS);
}

static void build_iq3s(void) {
    k_ok[GGML_IQ_NBR_IQ3S] = build(GGML_IQ_NBR_IQ3S);
}

static void build_iq1s(void) {
    k_ok[GGML_IQ_NBR_IQ1S] = build(GGML_IQ_NBR_IQ1S);
}

const ggml_iq_nbr_map * ggml_iq_nbr_get(enum ggml_iq_nbr_kind kind) {
    static void (*const k_build[GGML_IQ_NBR_COUNT])(void) = {build_iq3xxs, build_iq3s, build_iq1s};
    if ((int) kind < 0 || kind >= GGML_IQ_NBR_COUNT) {
        return NULL;
    }
    ggml_os_call_once(&k_once[kind], k_build[kind]);
    return k_ok[kind] ? &k_maps[kind] : NULL;
}
