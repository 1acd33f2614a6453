/* catalog.h: the presets that were found, by kind and name (HACKING §3).
 *
 * The search path, later wins on equal names: the built-in presets compiled in, the
 * installed $(datadir)/vramlab/presets, ./presets when run from the source tree,
 * $XDG_CONFIG_HOME/vramlab/presets (or ~/.config/vramlab/presets), then each folder of
 * $VRAMLAB_PRESETS (colon-separated).  A bad file on the path, or a name used twice in one
 * folder, becomes a warning in the catalog, never a failure: the caller shows them. */
#ifndef VL_CATALOG_H
#define VL_CATALOG_H

#include "preset.h"

typedef struct vl_catalog {
    vl_model *models;
    size_t n_models, cap_models;
    vl_gpu *gpus;
    size_t n_gpus, cap_gpus;
    vl_scenario *scenarios;
    size_t n_scenarios, cap_scenarios;
    char (*warnings)[VL_ERR_LEN];
    size_t n_warnings, cap_warnings;
} vl_catalog;

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
/* Every *.yaml and *.yml file in dir and in its subfolders (one level), in name order.  A
 * folder that does not exist is skipped; bad files and duplicate names are warnings. */
void vl_catalog_add_dir(vl_catalog *c, const char *dir);
/* The built-in presets, then every folder of the search path (see above).  False only when
 * the built-in presets fail to load. */
bool vl_catalog_load(vl_catalog *c, char err[VL_ERR_LEN]);

/* The folders of the search path after the built-in presets, in order (`vramlab presets`
 * prints them).  Returns how many were written, at most max, each VL_PATH_LEN long. */
#define VL_PATH_LEN 4096
size_t vl_preset_dirs(char (*dirs)[VL_PATH_LEN], size_t max);

const vl_model *vl_catalog_model(const vl_catalog *c, const char *name);
const vl_gpu *vl_catalog_gpu(const vl_catalog *c, const char *name);
const vl_scenario *vl_catalog_scenario(const vl_catalog *c, const char *name);

/* "; did you mean 'x'?" for a name not in the catalog, or "" (in buf).  For VL_KIND_MODEL
 * the scenarios count as well, since --preset takes either. */
const char *vl_catalog_hint(const vl_catalog *c, vl_kind kind, const char *name, char *buf,
                            size_t len);

#endif
