/* yamldoc.c: one YAML document and errors that point into it. */
#include "yamldoc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "preset.h"

static bool syntax_error(const yaml_parser_t *p, const char *file, char *err)
{
    yaml_mark_t m = p->problem_mark;
    snprintf(err, VL_ERR_LEN, "%s:%zu:%zu: YAML syntax error: %s%s%s", file, m.line + 1,
             m.column + 1, p->problem ? p->problem : "unknown problem", p->context ? " " : "",
             p->context ? p->context : "");
    return false;
}

/* Collections nested deeper than this are refused before libyaml builds its tree: its
 * scanner keeps a list of possible simple keys per flow level and walks it for every
 * token, so nesting costs time quadratic in its depth (100,000 levels: 45 s).  The presets
 * nest three deep and config.json files four; 64 leaves room for anything real. */
#define MAX_DEPTH 64

/* One pass over libyaml's events, which stops at the first collection nested deeper than
 * MAX_DEPTH: the text is refused (or passed) in time linear in its length. */
static bool check_depth(const char *file, const char *text, size_t len, char *err)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0;
    bool ok = true, done = false;

    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, VL_ERR_LEN, "%s: out of memory", file);
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (ok && !done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            ok = syntax_error(&parser, file, err);
            break;
        }
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > MAX_DEPTH) {
                snprintf(err, VL_ERR_LEN, "%s:%zu:%zu: nested more than %d levels deep", file,
                         ev.start_mark.line + 1, ev.start_mark.column + 1, MAX_DEPTH);
                ok = false;
            }
        } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        } else if (ev.type == YAML_STREAM_END_EVENT) {
            done = true;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return ok;
}

bool vl_ydoc_load(vl_ydoc *d, const char *file, const char *text, size_t len, const char *what,
                  bool trusted, char *err)
{
    yaml_parser_t parser;
    yaml_document_t next;

    memset(d, 0, sizeof *d);
    d->file = file;
    d->err = err;
    if (!trusted && !check_depth(file, text, len, err))
        return false;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, VL_ERR_LEN, "%s: out of memory", file);
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &d->doc)) {
        syntax_error(&parser, file, err);
        yaml_parser_delete(&parser);
        return false;
    }
    bool ok = false;
    d->root = yaml_document_get_root_node(&d->doc);
    if (!d->root) {
        snprintf(err, VL_ERR_LEN, "%s:1:1: empty file: expected %s", file, what);
    } else if (!yaml_parser_load(&parser, &next)) {
        syntax_error(&parser, file, err);
    } else {
        bool second = yaml_document_get_root_node(&next) != NULL;
        yaml_mark_t mark = next.start_mark;
        yaml_document_delete(&next);
        ok = second ? vl_ydoc_fail(d, mark, "a second YAML document: one per file") : true;
    }
    yaml_parser_delete(&parser);
    if (!ok)
        yaml_document_delete(&d->doc);
    return ok;
}

void vl_ydoc_free(vl_ydoc *d)
{
    yaml_document_delete(&d->doc);
    d->root = NULL;
}

bool vl_ydoc_fail(vl_ydoc *d, yaml_mark_t mark, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(d->err, VL_ERR_LEN, "%s:%zu:%zu: ", d->file, mark.line + 1, mark.column + 1);
    va_start(ap, fmt);
    if (n >= 0 && n < VL_ERR_LEN)
        vsnprintf(d->err + n, VL_ERR_LEN - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

const char *vl_ynode_kind(const yaml_node_t *n)
{
    return n->type == YAML_MAPPING_NODE    ? "a mapping"
           : n->type == YAML_SEQUENCE_NODE ? "a list"
                                           : "a scalar";
}

const char *vl_ynode_text(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return NULL;
    const char *s = (const char *)n->data.scalar.value;
    return strlen(s) == n->data.scalar.length ? s : NULL;
}

bool vl_ynode_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

yaml_node_t *vl_ydoc_get(vl_ydoc *d, yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
    if (map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
        const char *s = k ? vl_ynode_text(k) : NULL;
        if (s && strcmp(s, key) == 0) {
            if (key_node)
                *key_node = k;
            return yaml_document_get_node(&d->doc, p->value);
        }
    }
    return NULL;
}
