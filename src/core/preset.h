/* preset.h: YAML presets (HACKING §3, vramlab-presets(5)): models, GPUs, scenarios,
 * framework profiles and lessons.
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
#include "runtime.h"
#include "model.h"
#include "scenario.h"

#define VL_ERR_LEN 1024

typedef struct vl_gpu {
    char name[64];        /* first: the catalog finds entries by it */
    char display[128];
    char source[256];
    char notes[512];
    char origin[256];
    uint64_t memory;      /* bytes: nvidia-smi's total */
    uint64_t cuda_memory; /* bytes: the total CUDA reports (cudaMemGetInfo, PyTorch's
                           * total_memory), less what the driver keeps; 0 = unknown */
    double bandwidth;     /* bytes/s; 0 = unknown */
    double bf16_flops;    /* dense, FLOP/s; 0 = unknown or not supported */
    double fp16_flops;
    double fp8_flops;
    vl_gpu_arch generation; /* for the CUDA context and library workspaces */
    double host_bandwidth;  /* bytes/s from CPU memory, one direction (--cpu-offload); 0 =
                             * unknown */
    uint64_t sms;           /* streaming multiprocessors (AMD: compute units); 0 = unknown */
    vl_link interconnect;   /* how a server's GPUs of this kind are linked: pcie or nvlink */
    uint64_t nvlinks;       /* NVLink links of one GPU to its board's switches or peers; 0 =
                             * none or unknown */
    double compute_capability; /* CUDA's major.minor (8.6); 0 = unknown (or not CUDA) */
} vl_gpu;

/* What a run on g can use: the total CUDA reports where the preset knows it, nvidia-smi's
 * otherwise. */
uint64_t vl_gpu_capacity(const vl_gpu *g);

/* A lesson (HACKING §3): a guided tour, one step a state of the explorer with a text in
 * each language.  Every step's text is given in English; a language a step leaves out
 * shows the English. */
typedef enum { VL_LANG_EN, VL_LANG_ZH, VL_N_LANGS } vl_lang;
extern const char *const vl_lang_names[VL_N_LANGS];
/* The explorer's panels a step may show, in the explorer's tab order (UI_PANELS). */
#define VL_LESSON_PANELS(X) X(memory) X(probe) X(formats) X(train) X(timeline)
#define VL_LESSON_PANEL_ID(name) VL_PANEL_##name,
typedef enum { VL_LESSON_PANELS(VL_LESSON_PANEL_ID) VL_N_LESSON_PANELS } vl_lesson_panel;
#undef VL_LESSON_PANEL_ID
extern const char *const vl_lesson_panel_names[VL_N_LESSON_PANELS];

#define VL_LESSON_STEPS 16
typedef struct vl_lesson_step {
    char title[VL_N_LANGS][128];
    char text[VL_N_LANGS][1024];
    char question[VL_N_LANGS][512];
    vl_lesson_panel panel;
    char scenario[64];     /* a scenario preset under the step's own settings, or "" */
    char slider[32];       /* the selected slider: a setting's key, "params" or "gpu"; or "" */
    /* The step's own model (or params), GPU, framework and settings; its name is "".  With
     * `scenario`, model and params are empty and the settings lie over the scenario's. */
    vl_scenario state;
} vl_lesson_step;

typedef struct vl_lesson {
    char name[64];         /* first: the catalog finds entries by it */
    char display[128];
    char source[256];
    char notes[512];
    char origin[256];
    size_t n_steps;
    vl_lesson_step steps[VL_LESSON_STEPS];
} vl_lesson;

typedef enum {
    VL_KIND_MODEL, VL_KIND_GPU, VL_KIND_SCENARIO, VL_KIND_FRAMEWORK, VL_KIND_LESSON, VL_N_KINDS
} vl_kind;
extern const char *const vl_kind_names[VL_N_KINDS];

typedef struct vl_preset {
    vl_kind kind;
    union {
        vl_model model;
        vl_gpu gpu;
        vl_scenario scenario;
        vl_framework framework; /* a built-in's fields (base:) under the file's own */
        vl_lesson lesson;
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
