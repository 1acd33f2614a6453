/* preset.h: YAML presets (DESIGN §3) and the catalog they fill.
 *
 * The loader reads one preset per file with libyaml and checks it against the schema:
 * unknown keys (with a did-you-mean), wrong types, out-of-range sizes and a `params` that
 * disagrees with the architecture are errors of the form "file:line:column: message".
 * It never writes anything. */
#ifndef VL_PRESET_H
#define VL_PRESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct vl_gpu {
    char name[64];
    char display[128];
    char source[256];
    uint64_t memory;      /* bytes */
    double bandwidth;     /* bytes/s; 0 = unknown */
    double bf16_flops;    /* dense, FLOP/s; 0 = unknown */
    double fp16_flops;
    double fp8_flops;
} vl_gpu;

typedef enum { VL_KIND_MODEL, VL_KIND_GPU, VL_N_KINDS } vl_kind;
extern const char *const vl_kind_names[VL_N_KINDS];

typedef struct vl_catalog {
    vl_model *models;
    size_t n_models, cap_models;
    vl_gpu *gpus;
    size_t n_gpus, cap_gpus;
} vl_catalog;

#define VL_ERR_LEN 1024

void vl_catalog_init(vl_catalog *c);
void vl_catalog_free(vl_catalog *c);

/* Parses one preset (the text of `file`) and adds it; an entry with the same name and kind
 * is replaced (later wins).  On success *kind and *index say what was added. */
bool vl_catalog_add_text(vl_catalog *c, const char *file, const char *text, size_t len,
                         vl_kind *kind, size_t *index, char err[VL_ERR_LEN]);
/* Reads and adds a file; errors name the file (and line and column when it parsed). */
bool vl_catalog_add_file(vl_catalog *c, const char *path, vl_kind *kind, size_t *index,
                         char err[VL_ERR_LEN]);
/* The presets compiled into the program (presets/ at build time). */
bool vl_catalog_add_builtin(vl_catalog *c, char err[VL_ERR_LEN]);

const vl_model *vl_catalog_model(const vl_catalog *c, const char *name);
const vl_gpu *vl_catalog_gpu(const vl_catalog *c, const char *name);

/* "; did you mean 'x'?" for a name not in the catalog, or "" (in buf). */
const char *vl_catalog_hint(const vl_catalog *c, vl_kind kind, const char *name, char *buf,
                            size_t len);

#endif
