/* hfconfig.h: a Hugging Face config.json as a model, read with jansson.
 *
 * Each supported model_type maps the config's keys (and the family's fixed traits: norm,
 * MLP, biases, positions) onto vl_arch, as transformers' configuration class for that type
 * names them; a key left out takes that class's default where it has one.  Unknown keys are
 * ignored, as transformers does; a missing or ill-typed key that the count needs is an
 * error "file:line:column: ...". */
#ifndef VL_HFCONFIG_H
#define VL_HFCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "preset.h"

/* What a config that loads is warned about: "file:line: key "K" given twice: the last
 * value is used, as in Python".  The first VL_HF_MAX_WARNINGS are kept; more counts the
 * rest. */
#define VL_HF_MAX_WARNINGS 8
typedef struct vl_hf_warnings {
    char text[VL_HF_MAX_WARNINGS][VL_ERR_LEN];
    size_t n, more;
} vl_hf_warnings;

/* The model of the config.json text; warnings may be NULL. */
bool vl_model_from_hf_text(const char *file, const char *text, size_t len, vl_model *m,
                           vl_hf_warnings *warnings, char err[VL_ERR_LEN]);
bool vl_model_from_hf_file(const char *path, vl_model *m, vl_hf_warnings *warnings,
                           char err[VL_ERR_LEN]);
/* A model's name from a repository id or a path: the last part, lowercased, characters
 * other than [a-z0-9._-] as '-' ("meta-llama/Llama-2-7b-hf": "llama-2-7b-hf"). */
void vl_hf_model_name(const char *from, char *name, size_t len);

#endif
