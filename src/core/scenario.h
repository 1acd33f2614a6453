/* scenario.h: settings given in part, by a scenario preset or on the command line, and laid
 * over the defaults in order (defaults, then the scenario, then the flags: later wins). */
#ifndef VL_SCENARIO_H
#define VL_SCENARIO_H

#include <stdint.h>

#include "memory.h"

/* The settings a scenario or a flag can set, named as the YAML and JSON spell them. */
typedef enum {
    VL_SET_MODE, VL_SET_PRECISION, VL_SET_OPTIMIZER, VL_SET_FP32_GRADS, VL_SET_FP32_GRAD_COPY,
    VL_SET_ZERO, VL_SET_GPUS, VL_SET_BATCH, VL_SET_SEQ, VL_SET_GEN, VL_SET_RECOMPUTE,
    VL_SET_FLASH_ATTN, VL_SET_WEIGHT_DTYPE, VL_SET_KV_DTYPE, VL_SET_OVERHEAD, VL_SET_GROUP_SIZE,
    VL_SET_LORA_RANK, VL_SET_LORA_TARGETS, VL_SET_QLORA, VL_SET_OFFLOAD, VL_SET_GPUS_PER_NODE,
    VL_SET_TP, VL_SET_PP, VL_SET_SP, VL_SET_GRAD_ACCUM, VL_N_SETTINGS
} vl_setting;
extern const char *const vl_setting_names[VL_N_SETTINGS];

/* Values for the settings whose bit (1 << vl_setting) is in given; the rest are unused. */
typedef struct vl_settings_patch {
    vl_settings values;
    uint32_t given;
} vl_settings_patch;

/* Marks k as given (its value is in p->values). */
void vl_patch_mark(vl_settings_patch *p, vl_setting k);
/* Copies the given settings of p into s. */
void vl_settings_apply(vl_settings *s, const vl_settings_patch *p);

/* A saved what-if: a model (a preset's name, or a free parameter count), settings, a GPU. */
typedef struct vl_scenario {
    char name[64];               /* first: the catalog finds entries by it */
    char display[128];
    char source[256];
    char notes[512];
    char origin[256];
    char model[64];              /* a model preset, or "" when params is given */
    uint64_t params;             /* a free parameter count (like --params), or 0 */
    char gpu[64];                /* a GPU preset, or "" for the default */
    vl_settings_patch settings;
} vl_scenario;

#endif
