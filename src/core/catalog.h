/* catalog.h: the presets that were found, by kind and name (HACKING §3).
 *
 * The search path, later wins on equal names: the built-in presets compiled in, the
 * installed $(datadir)/vramlab/presets, ./presets when run from the source tree,
 * $XDG_CONFIG_HOME/vramlab/presets (or ~/.config/vramlab/presets), then each folder of
 * $VRAMLAB_PRESETS (colon-separated).  A bad file on the path, or a name used twice in one
 * folder, becomes a warning in the catalog, never a failure: the caller shows them.
 *
 * A command parses only what it asks for.  vl_catalog_open finds every entry's kind and name
 * and which file wins for each, parsing no built-in preset: their kinds and names come with
 * their texts (build-aux/embed-presets), and a look-up parses an entry the first time it is
 * asked for (a look-up takes a const catalog and may fill in the entry it returns).  A
 * folder's files are read when the folder is searched, since only a file's content says
 * what it defines and a bad file must be a warning at once; a file with the bytes of a
 * built-in preset (the installed presets, ./presets in the source tree) defines what that
 * built-in defines, with the file as its origin, and is parsed when looked up like the
 * built-in.  vl_catalog_load parses every entry: the arrays below are complete only after it
 * (listing, the explorer's pickers); after vl_catalog_open use only the look-ups. */
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
    vl_framework *frameworks;
    size_t n_frameworks, cap_frameworks;
    vl_lesson *lessons;
    size_t n_lessons, cap_lessons;
    char (*warnings)[VL_ERR_LEN];
    size_t n_warnings, cap_warnings;
    struct vl_pending *pending; /* the entries known by kind and name only, not yet parsed */
    size_t n_pending, cap_pending;
    bool opened; /* vl_catalog_open searched the path */
} vl_catalog;

void vl_catalog_init(vl_catalog *c);
void vl_catalog_free(vl_catalog *c);

/* Parses one preset (the text of `file`) and adds it; an entry with the same name and kind
 * is replaced (later wins).  On success *kind and *index say what was added.  Adding may
 * move the entries: pointers from earlier look-ups are then stale (look-ups move none). */
bool vl_catalog_add_text(vl_catalog *c, const char *file, const char *text, size_t len,
                         vl_kind *kind, size_t *index, char err[VL_ERR_LEN]);
/* Reads and adds a file; errors name the file (and line and column when it parsed). */
bool vl_catalog_add_file(vl_catalog *c, const char *path, vl_kind *kind, size_t *index,
                         char err[VL_ERR_LEN]);
/* The presets compiled into the program (presets/ at build time), every one parsed. */
bool vl_catalog_add_builtin(vl_catalog *c, char err[VL_ERR_LEN]);
/* Every *.yaml and *.yml file in dir and in its subfolders (one level), in name order.  A
 * folder that does not exist is skipped; bad files and duplicate names are warnings. */
void vl_catalog_add_dir(vl_catalog *c, const char *dir);
/* The built-in presets, then every folder of the search path (see above), for look-ups by
 * name; a second call does nothing.  False only when out of memory. */
bool vl_catalog_open(vl_catalog *c, char err[VL_ERR_LEN]);
/* vl_catalog_open, then every entry parsed.  False when a built-in preset fails to parse. */
bool vl_catalog_load(vl_catalog *c, char err[VL_ERR_LEN]);

/* The folders of the search path after the built-in presets, in order (`vramlab presets`
 * prints them).  Returns how many were written, at most max, each VL_PATH_LEN long; in
 * *dropped how many $VRAMLAB_PRESETS names were left out (too long, or past max), which
 * vl_catalog_open says in a warning. */
#define VL_PATH_LEN 4096
#define VL_MAX_PRESET_DIRS 64
size_t vl_preset_dirs(char (*dirs)[VL_PATH_LEN], size_t max, size_t *dropped);
/* The user's folder: $XDG_CONFIG_HOME/vramlab/presets when XDG_CONFIG_HOME is an absolute
 * path (the XDG Base Directory specification: a relative one is invalid and ignored), else
 * $HOME/.config/vramlab/presets.  False when there is neither, or it does not fit in len. */
bool vl_user_preset_dir(char *buf, size_t len);

/* The entry of that name, parsed now if it was not yet; NULL when there is none (or it does
 * not parse: the reason is then added to the warnings). */
const vl_model *vl_catalog_model(const vl_catalog *c, const char *name);
/* The model preset read from Hugging Face repository repo ("meta-llama/Llama-2-7b-hf", any
 * case): the one whose source begins "repo config.json"; NULL when none does. */
const vl_model *vl_catalog_model_of_repo(const vl_catalog *c, const char *repo);
/* The model preset whose name, or whose repository's name, repo's name begins with, the
 * longest ("Qwen/Qwen2.5-7B-Instruct": qwen2.5-7b; "meta-llama/Meta-Llama-3-8B-Instruct":
 * llama-3-8b, read from meta-llama/Meta-Llama-3-8B), in any case and spacing: as like as not
 * a variant of the same architecture, to hint at; NULL when none is. */
const char *vl_catalog_model_like_repo(const vl_catalog *c, const char *repo);
const vl_gpu *vl_catalog_gpu(const vl_catalog *c, const char *name);
const vl_scenario *vl_catalog_scenario(const vl_catalog *c, const char *name);
const vl_framework *vl_catalog_framework(const vl_catalog *c, const char *name);
const vl_lesson *vl_catalog_lesson(const vl_catalog *c, const char *name);

/* "; did you mean 'x'?" for a name not in the catalog, or "" (in buf).  For VL_KIND_MODEL
 * the scenarios count as well, since --preset takes either. */
const char *vl_catalog_hint(const vl_catalog *c, vl_kind kind, const char *name, char *buf,
                            size_t len);

#endif
