/* builtin.h: the preset files compiled into the program (generated at build time from
 * presets/ by build-aux/embed-presets). */
#ifndef VL_BUILTIN_H
#define VL_BUILTIN_H

#include <stddef.h>

#include "preset.h"

typedef struct vl_builtin_preset {
    const char *file; /* path under presets/, e.g. "models/gpt2.yaml" */
    vl_kind kind;     /* its kind and name, from its `kind:` and `name:` lines */
    const char *name;
    size_t len;       /* strlen(text) */
    const char *text;
} vl_builtin_preset;

extern const vl_builtin_preset vl_builtin_presets[];
extern const size_t vl_n_builtin_presets;

#endif
