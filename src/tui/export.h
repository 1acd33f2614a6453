/* export.h: files the explorer writes, always atomically (temp file + rename). */
#ifndef VL_EXPORT_H
#define VL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "explorer.h"

/* A file to write: fill writes its content to the stream it is given. */
typedef struct atomic_file {
    const char *path;
    void (*fill)(FILE *, const void *);
    const void *arg;
} atomic_file;
#define ATOMIC_MAX_FILES 4

/* Writes each file through a temporary file in its folder, and renames them all into place
 * only once every one is complete.  false and a reason in err on any failure, with none of
 * them left behind (nor a temporary file).  At most ATOMIC_MAX_FILES. */
bool write_atomic_all(const atomic_file *files, size_t n, char *err, size_t errlen);
/* One file, the same way. */
bool write_atomic(const char *path, void (*fill)(FILE *, const void *), const void *arg,
                  char *err, size_t errlen);

/* The folder user presets live in: $XDG_CONFIG_HOME/vramlab/presets or
 * ~/.config/vramlab/presets.  false when neither variable is set. */
bool user_preset_dir(char *buf, size_t len);

/* Writes the current what-if as Markdown and SVG into dir, under names with a time stamp,
 * both or neither; their paths come back in md and svg. */
bool export_whatif(const explorer *e, const char *dir, char *md, char *svg, size_t len, char *err,
                   size_t errlen);

/* A default scenario name for the current what-if ("llama-2-7b-bf16-mixed-zero3-8gpu"). */
void scenario_default_name(const explorer *e, char *buf, size_t len);

typedef enum { SAVE_OK, SAVE_EXISTS, SAVE_FAILED } save_result;
/* Saves the what-if as `kind: scenario` YAML in dir/NAME.yaml, creating dir.  Without
 * overwrite an existing file is left alone (SAVE_EXISTS).  The path comes back in path. */
save_result scenario_save(const explorer *e, const char *dir, const char *name, bool overwrite,
                          char *path, size_t len, char *err, size_t errlen);

#endif
