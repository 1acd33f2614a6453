/* hfconfig.h: a Hugging Face config.json as a model, read with libyaml (JSON is YAML).
 *
 * Each supported model_type maps the config's keys (and the family's fixed traits: norm,
 * MLP, biases, positions) onto vl_arch.  Unknown keys are ignored, as transformers does;
 * a missing or ill-typed key that the count needs is an error "file:line:column: ...". */
#ifndef VL_HFCONFIG_H
#define VL_HFCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "preset.h"

/* The model_type values understood, in alphabetical order. */
extern const char *const vl_hf_model_types[];
extern const size_t vl_n_hf_model_types;

bool vl_model_from_hf_text(const char *file, const char *text, size_t len, vl_model *m,
                           char err[VL_ERR_LEN]);
/* A model's name from a repository id or a path: the last part, lowercased, characters
 * other than [a-z0-9._-] as '-' ("meta-llama/Llama-2-7b-hf": "llama-2-7b-hf"). */
void vl_hf_model_name(const char *from, char *name, size_t len);
bool vl_model_from_hf_file(const char *path, vl_model *m, char err[VL_ERR_LEN]);

#endif
