/* scenario.h: a saved what-if: a model, settings given in part (laid over the defaults,
 * then the command line's flags over them: later wins) and a GPU. */
#ifndef VL_SCENARIO_H
#define VL_SCENARIO_H

#include <stdint.h>

#include "model.h"
#include "settings.h"

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
    bool has_model;              /* model_definition: the model itself, embedded */
    vl_model model_def;
    char framework[64];          /* a framework preset (the front end resolves it), or "" */
    vl_settings_patch settings;
    bool flash_attn;             /* the old key settings.flash_attn (vl_setting_alias) */
} vl_scenario;

#endif
