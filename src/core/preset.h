/* preset.h: YAML presets (HACKING §3, vramlab-presets(5)): models, GPUs, scenarios and
 * framework profiles.
 *
 * The loader reads one preset per file with libyaml and checks it against the schema:
 * unknown keys (with a did-you-mean), wrong types, out-of-range sizes and a `params` that
 * disagrees with the architecture are errors of the form "file:line:column: message".
 * It never writes anything.  The catalog that holds what was loaded is in catalog.h. */
#ifndef VL_PRESET_H
#define VL_PRESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "framework.h"
#include "model.h"
#include "scenario.h"

#define VL_ERR_LEN 1024

typedef struct vl_gpu {
    char name[64];        /* first: the catalog finds entries by it */
    char display[128];
    char source[256];
    char notes[512];
    char origin[256];
    uint64_t memory;      /* bytes */
    double bandwidth;     /* bytes/s; 0 = unknown */
    double bf16_flops;    /* dense, FLOP/s; 0 = unknown or not supported */
    double fp16_flops;
    double fp8_flops;
} vl_gpu;

typedef enum {
    VL_KIND_MODEL, VL_KIND_GPU, VL_KIND_SCENARIO, VL_KIND_FRAMEWORK, VL_N_KINDS
} vl_kind;
extern const char *const vl_kind_names[VL_N_KINDS];

typedef struct vl_preset {
    vl_kind kind;
    union {
        vl_model model;
        vl_gpu gpu;
        vl_scenario scenario;
        vl_framework framework; /* a built-in's fields (base:) under the file's own */
    } u;
} vl_preset;

/* Parses one preset, the text of `file` (which becomes its origin). */
bool vl_preset_parse(const char *file, const char *text, size_t len, vl_preset *out,
                     char err[VL_ERR_LEN]);
/* The same for a built-in preset's text (compiled in, checked at build time), which skips
 * the nesting-depth pass that guards against hostile files. */
bool vl_preset_parse_builtin(const char *file, const char *text, size_t len, vl_preset *out,
                             char err[VL_ERR_LEN]);

/* m as a model preset's keys (kind, name, display, source, params, architecture), each line
 * after indent: what a scenario embeds as model_definition so that it loads this model and
 * no other of the same name. */
void vl_model_write_yaml(FILE *f, const vl_model *m, const char *indent);

/* "embedding 131,072,000 + output layer 131,072,000 + 32 layers x 202,383,360 + final norm
 * 4,096 = 6,738,415,616": a count, term by term, for messages and the formula pane. */
void vl_describe_params(const vl_arch *a, const vl_params *p, char *buf, size_t len);


#endif
