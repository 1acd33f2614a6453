/* yamldoc.h: one YAML document loaded with libyaml, and errors that point into it as
 * "file:line:column: message", for the preset loader (config.json has its own parser,
 * hfconfig.c).
 *
 * Anchors and aliases stay shared nodes of libyaml's document (never expanded), and the
 * readers walk only the keys they know, so an alias bomb costs its own size, no more. */
#ifndef VL_YAMLDOC_H
#define VL_YAMLDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

typedef struct vl_ydoc {
    const char *file;     /* for messages */
    char *err;            /* VL_ERR_LEN bytes */
    yaml_document_t doc;
    yaml_node_t *root;
} vl_ydoc;

/* Parses exactly one document of text.  what names the expected content for the message on
 * an empty file ("a preset (kind: model, gpu, scenario, framework or lesson)").  Unless trusted (a
 * built-in preset), a first pass over libyaml's events refuses nesting deeper than 64
 * levels, which libyaml would take quadratic time to build.  On failure the message is in
 * err and nothing needs freeing; on success call vl_ydoc_free. */
bool vl_ydoc_load(vl_ydoc *d, const char *file, const char *text, size_t len, const char *what,
                  bool trusted,
                  char *err);
void vl_ydoc_free(vl_ydoc *d);

/* Writes "file:line:column: message" into d->err; returns false. */
bool vl_ydoc_fail(vl_ydoc *d, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "a mapping", "a list" or "a scalar". */
const char *vl_ynode_kind(const yaml_node_t *n);
/* A scalar's text; NULL when n is not a scalar or holds a NUL byte. */
const char *vl_ynode_text(const yaml_node_t *n);
/* A plain (unquoted) scalar. */
bool vl_ynode_plain(const yaml_node_t *n);
/* The value of key in mapping map (and the key node in *key_node), or NULL. */
yaml_node_t *vl_ydoc_get(vl_ydoc *d, yaml_node_t *map, const char *key, yaml_node_t **key_node);

#endif
