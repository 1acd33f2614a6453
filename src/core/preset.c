/* preset.c: the libyaml preset loader and the catalog (DESIGN §3). */
#include "preset.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "builtin.h"
#include "names.h"
#include "units.h"

const char *const vl_kind_names[VL_N_KINDS] = {"model", "gpu"};

/* ---- schema ------------------------------------------------------------------------ */

typedef enum { T_COUNT, T_SIZE, T_DOUBLE, T_BOOL, T_STR, T_NAME, T_ENUM, T_MAP } vtype;

typedef struct key_desc {
    const char *name;
    vtype type;
    size_t offset, size;
    const char *const *enum_names;
    int n_enum;
    bool required;
} key_desc;

_Static_assert(sizeof(vl_position) == sizeof(int) && sizeof(vl_mlp) == sizeof(int) &&
                   sizeof(vl_norm) == sizeof(int),
               "enum fields are written as int");

static const char *const position_names[] = {"rope", "learned", "alibi"};
static const char *const mlp_names[] = {"gated", "standard"};
static const char *const norm_names[] = {"rmsnorm", "layernorm"};

#define A(field) offsetof(vl_model, arch.field), sizeof(((vl_arch *)0)->field)
static const key_desc arch_keys[] = {
    {"hidden_size", T_COUNT, A(hidden), NULL, 0, true},
    {"num_layers", T_COUNT, A(layers), NULL, 0, true},
    {"num_heads", T_COUNT, A(heads), NULL, 0, true},
    {"num_kv_heads", T_COUNT, A(kv_heads), NULL, 0, false},
    {"head_dim", T_COUNT, A(head_dim), NULL, 0, false},
    {"intermediate_size", T_COUNT, A(ffn), NULL, 0, false},
    {"vocab_size", T_COUNT, A(vocab), NULL, 0, true},
    {"max_position_embeddings", T_COUNT, A(max_positions), NULL, 0, false},
    {"position", T_ENUM, A(position), position_names, 3, false},
    {"mlp", T_ENUM, A(mlp), mlp_names, 2, false},
    {"norm", T_ENUM, A(norm), norm_names, 2, false},
    {"attention_bias", T_BOOL, A(attention_bias), NULL, 0, false},
    {"mlp_bias", T_BOOL, A(mlp_bias), NULL, 0, false},
    {"tie_embeddings", T_BOOL, A(tie_embeddings), NULL, 0, false},
    {"parallel_attention", T_BOOL, A(parallel_attention), NULL, 0, false},
    {"dropout", T_BOOL, A(dropout), NULL, 0, false},
    {"sliding_window", T_COUNT, A(sliding_window), NULL, 0, false},
    {"experts", T_COUNT, A(experts), NULL, 0, false},
    {"experts_per_token", T_COUNT, A(experts_per_token), NULL, 0, false},
    {"shared_experts", T_COUNT, A(shared_experts), NULL, 0, false},
    {NULL, 0, 0, 0, NULL, 0, false},
};
#undef A

#define M(field) offsetof(vl_model, field), sizeof(((vl_model *)0)->field)
static const key_desc model_keys[] = {
    {"kind", T_STR, 0, 0, NULL, 0, true}, /* read before the walk */
    {"name", T_NAME, M(name), NULL, 0, true},
    {"display", T_STR, M(display), NULL, 0, false},
    {"source", T_STR, M(source), NULL, 0, false},
    {"params", T_COUNT, M(published_params), NULL, 0, false},
    {"architecture", T_MAP, 0, 0, NULL, 0, true},
    {NULL, 0, 0, 0, NULL, 0, false},
};
#undef M

#define G(field) offsetof(vl_gpu, field), sizeof(((vl_gpu *)0)->field)
static const key_desc gpu_keys[] = {
    {"kind", T_STR, 0, 0, NULL, 0, true},
    {"name", T_NAME, G(name), NULL, 0, true},
    {"display", T_STR, G(display), NULL, 0, false},
    {"source", T_STR, G(source), NULL, 0, false},
    {"memory", T_SIZE, G(memory), NULL, 0, true},
    {"bandwidth", T_DOUBLE, G(bandwidth), NULL, 0, false},
    {"bf16_flops", T_DOUBLE, G(bf16_flops), NULL, 0, false},
    {"fp16_flops", T_DOUBLE, G(fp16_flops), NULL, 0, false},
    {"fp8_flops", T_DOUBLE, G(fp8_flops), NULL, 0, false},
    {NULL, 0, 0, 0, NULL, 0, false},
};
#undef G

#define MAX_KEYS 32

/* ---- walking a libyaml document ---------------------------------------------------- */

typedef struct ctx {
    const char *file;
    yaml_document_t *doc;
    char *err;
} ctx;

static bool fail_at(ctx *c, yaml_mark_t mark, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(c->err, VL_ERR_LEN, "%s:%zu:%zu: ", c->file, mark.line + 1, mark.column + 1);
    va_start(ap, fmt);
    if (n >= 0 && n < VL_ERR_LEN)
        vsnprintf(c->err + n, VL_ERR_LEN - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static const char *node_kind(const yaml_node_t *n)
{
    return n->type == YAML_MAPPING_NODE    ? "a mapping"
           : n->type == YAML_SEQUENCE_NODE ? "a list"
                                           : "a scalar";
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static bool plain(const yaml_node_t *n)
{
    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static bool set_value(ctx *c, const key_desc *k, const char *path, yaml_node_t *v, void *base)
{
    char *field = (char *)base + k->offset;
    const char *why = NULL;

    if (v->type != YAML_SCALAR_NODE)
        return fail_at(c, v->start_mark, "%s: expected %s, got %s", path,
                       k->type == T_STR || k->type == T_NAME ? "text" : "a value", node_kind(v));
    const char *s = scalar(v);
    if (strlen(s) != v->data.scalar.length)
        return fail_at(c, v->start_mark, "%s: contains a NUL byte", path);

    switch (k->type) {
    case T_COUNT:
    case T_SIZE: {
        uint64_t x;
        bool ok = plain(v) && (k->type == T_COUNT ? vl_parse_count(s, &x, &why)
                                                  : vl_parse_size(s, &x, &why));
        if (!ok)
            return fail_at(c, v->start_mark, "%s: '%s' is not a %s%s%s", path, s,
                           k->type == T_COUNT ? "whole number" : "size in bytes",
                           why ? ": " : "", why ? why : " (remove the quotes)");
        memcpy(field, &x, sizeof x);
        return true;
    }
    case T_DOUBLE: {
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (!plain(v) || *s == '\0' || *end != '\0' || errno || !isfinite(x) || x < 0)
            return fail_at(c, v->start_mark, "%s: '%s' is not a non-negative number", path, s);
        memcpy(field, &x, sizeof x);
        return true;
    }
    case T_BOOL: {
        bool x = strcmp(s, "true") == 0;
        if (!plain(v) || (!x && strcmp(s, "false") != 0))
            return fail_at(c, v->start_mark, "%s: expected true or false, got '%s'", path, s);
        memcpy(field, &x, sizeof x);
        return true;
    }
    case T_NAME:
        if (*s == '\0' || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(s))
            return fail_at(c, v->start_mark,
                           "%s: '%s' is not a valid name (lower-case letters, digits, '.', '_', '-')",
                           path, s);
        /* fall through */
    case T_STR:
        if (strlen(s) >= k->size)
            return fail_at(c, v->start_mark, "%s: too long (at most %zu characters)", path,
                           k->size - 1);
        memcpy(field, s, strlen(s) + 1);
        return true;
    case T_ENUM: {
        int i = vl_lookup(k->enum_names, k->n_enum, s);
        if (i < 0) {
            char list[128], hint[96];
            return fail_at(c, v->start_mark, "%s: unknown value '%s' (expected %s%s)", path, s,
                           vl_join(k->enum_names, (size_t)k->n_enum, list, sizeof list),
                           vl_hint(s, k->enum_names, (size_t)k->n_enum, hint, sizeof hint));
        }
        memcpy(field, &i, sizeof i);
        return true;
    }
    case T_MAP:
        break;
    }
    return true;
}

/* Walks a mapping against keys[]: fills base, records each key's mark in marks[] and, for
 * T_MAP keys, the value node in maps[].  prefix is "" or "architecture." for messages. */
static bool walk_map(ctx *c, yaml_node_t *node, const key_desc *keys, const char *prefix,
                     void *base, yaml_mark_t *marks, yaml_node_t **maps, bool *seen)
{
    const char *names[MAX_KEYS];
    size_t n = 0;
    for (; keys[n].name; n++)
        names[n] = keys[n].name;

    if (node->type != YAML_MAPPING_NODE)
        return fail_at(c, node->start_mark, "%s: expected a mapping of keys, got %s",
                       *prefix ? prefix : "preset", node_kind(node));

    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        if (!k || !v)
            return fail_at(c, node->start_mark, "broken document");
        if (k->type != YAML_SCALAR_NODE)
            return fail_at(c, k->start_mark, "%sexpected a key name, got %s", prefix,
                           node_kind(k));
        const char *name = scalar(k);
        int i = vl_lookup(names, (int)n, name);
        if (i < 0) {
            char hint[96];
            return fail_at(c, k->start_mark, "unknown key '%s%s'%s", prefix, name,
                           vl_hint(name, names, n, hint, sizeof hint));
        }
        char path[128];
        snprintf(path, sizeof path, "%s%s", prefix, name);
        if (seen[i])
            return fail_at(c, k->start_mark, "%s: duplicate key", path);
        seen[i] = true;
        marks[i] = k->start_mark;
        if (keys[i].type == T_MAP) {
            if (v->type != YAML_MAPPING_NODE)
                return fail_at(c, v->start_mark, "%s: expected a mapping of keys, got %s", path,
                               node_kind(v));
            maps[i] = v;
        } else if (strcmp(name, "kind") != 0 && !set_value(c, &keys[i], path, v, base)) {
            return false;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (keys[i].required && !seen[i])
            return fail_at(c, node->start_mark, "missing key '%s%s'", prefix, keys[i].name);
    return true;
}

static int key_index(const key_desc *keys, const char *name)
{
    for (int i = 0; keys[i].name; i++)
        if (strcmp(keys[i].name, name) == 0)
            return i;
    return -1;
}

static void describe_params(const vl_params *p, uint64_t layers, char *buf, size_t len)
{
    char e[32], l[32], pl[32], fn[32], t[32];
    snprintf(buf, len, "embedding %s%s%s + %s layers x %s + final norm %s = %s",
             vl_fmt_int(p->embedding, e, sizeof e),
             p->lm_head ? " + untied output layer" : "", p->positions ? " + positions" : "",
             vl_fmt_int(layers, l, sizeof l), vl_fmt_int(p->per_layer, pl, sizeof pl),
             vl_fmt_int(p->final_norm, fn, sizeof fn), vl_fmt_int(p->total, t, sizeof t));
}

static bool load_model(ctx *c, yaml_node_t *root, vl_model *m)
{
    yaml_mark_t top_marks[MAX_KEYS], arch_marks[MAX_KEYS];
    yaml_node_t *maps[MAX_KEYS] = {0}, *unused[MAX_KEYS];
    bool top_seen[MAX_KEYS] = {0}, arch_seen[MAX_KEYS] = {0};

    memset(m, 0, sizeof *m);
    m->arch.position = VL_POS_ROPE;
    m->arch.mlp = VL_MLP_GATED;
    m->arch.norm = VL_NORM_RMSNORM;
    if (!walk_map(c, root, model_keys, "", m, top_marks, maps, top_seen))
        return false;
    yaml_node_t *arch = maps[key_index(model_keys, "architecture")];
    if (!walk_map(c, arch, arch_keys, "architecture.", m, arch_marks, unused, arch_seen))
        return false;

    vl_arch_defaults(&m->arch);
    const char *key;
    const char *why = vl_arch_check(&m->arch, &key);
    if (why) {
        int i = key_index(arch_keys, key);
        return fail_at(c, arch_seen[i] ? arch_marks[i] : arch->start_mark, "architecture.%s: %s",
                       key, why);
    }
    vl_params p;
    if (!vl_count_params(&m->arch, &p))
        return fail_at(c, arch->start_mark, "architecture: the parameter count overflows");
    if (m->published_params && m->published_params != p.total) {
        char pub[32], br[256];
        describe_params(&p, m->arch.layers, br, sizeof br);
        return fail_at(c, top_marks[key_index(model_keys, "params")],
                       "params: %s does not match the architecture's count (%s)",
                       vl_fmt_int(m->published_params, pub, sizeof pub), br);
    }
    if (!m->display[0])
        snprintf(m->display, sizeof m->display, "%s", m->name);
    return true;
}

static bool load_gpu(ctx *c, yaml_node_t *root, vl_gpu *g)
{
    yaml_mark_t marks[MAX_KEYS];
    yaml_node_t *maps[MAX_KEYS];
    bool seen[MAX_KEYS] = {0};

    memset(g, 0, sizeof *g);
    if (!walk_map(c, root, gpu_keys, "", g, marks, maps, seen))
        return false;
    if (g->memory == 0)
        return fail_at(c, marks[key_index(gpu_keys, "memory")], "memory: must be more than 0");
    if (!g->display[0])
        snprintf(g->display, sizeof g->display, "%s", g->name);
    return true;
}

/* ---- the catalog ------------------------------------------------------------------- */

void vl_catalog_init(vl_catalog *c)
{
    memset(c, 0, sizeof *c);
}

void vl_catalog_free(vl_catalog *c)
{
    free(c->models);
    free(c->gpus);
    memset(c, 0, sizeof *c);
}

/* Index of the entry called name, or a new slot at the end; SIZE_MAX when out of memory. */
static size_t slot(void **arr, size_t *n, size_t *cap, size_t elem, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((const char *)*arr + i * elem, name) == 0) /* name is the first field */
            return i;
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        void *p = realloc(*arr, ncap * elem);
        if (!p)
            return SIZE_MAX;
        *arr = p;
        *cap = ncap;
    }
    return (*n)++;
}

_Static_assert(offsetof(vl_model, name) == 0 && offsetof(vl_gpu, name) == 0,
               "slot() finds entries by their leading name");

static bool read_kind(ctx *c, yaml_node_t *root, vl_kind *kind)
{
    if (root->type != YAML_MAPPING_NODE)
        return fail_at(c, root->start_mark, "expected a preset (a mapping with 'kind:'), got %s",
                       node_kind(root));
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE || strcmp(scalar(k), "kind") != 0)
            continue;
        if (v->type != YAML_SCALAR_NODE)
            return fail_at(c, v->start_mark, "kind: expected model or gpu, got %s", node_kind(v));
        int i = vl_lookup(vl_kind_names, VL_N_KINDS, scalar(v));
        if (i < 0) {
            char hint[96];
            return fail_at(c, v->start_mark, "kind: unknown kind '%s' (expected model or gpu%s)",
                           scalar(v), vl_hint(scalar(v), vl_kind_names, VL_N_KINDS, hint, sizeof hint));
        }
        *kind = (vl_kind)i;
        return true;
    }
    return fail_at(c, root->start_mark, "missing key 'kind' (model or gpu)");
}

bool vl_catalog_add_text(vl_catalog *c, const char *file, const char *text, size_t len,
                         vl_kind *kind, size_t *index, char err[VL_ERR_LEN])
{
    yaml_parser_t parser;
    yaml_document_t doc;
    ctx cx = {file, &doc, err};
    bool ok = false;

    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, VL_ERR_LEN, "%s: out of memory", file);
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_mark_t m = parser.problem_mark;
        snprintf(err, VL_ERR_LEN, "%s:%zu:%zu: YAML syntax error: %s%s%s", file, m.line + 1,
                 m.column + 1, parser.problem ? parser.problem : "unknown problem",
                 parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return false;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        snprintf(err, VL_ERR_LEN, "%s:1:1: empty file: expected a preset (kind: model or gpu)",
                 file);
        goto out;
    }
    yaml_document_t next;
    if (!yaml_parser_load(&parser, &next)) {
        yaml_mark_t m = parser.problem_mark;
        snprintf(err, VL_ERR_LEN, "%s:%zu:%zu: YAML syntax error: %s", file, m.line + 1,
                 m.column + 1, parser.problem ? parser.problem : "unknown problem");
        goto out;
    }
    bool second = yaml_document_get_root_node(&next) != NULL;
    yaml_mark_t second_mark = next.start_mark;
    yaml_document_delete(&next);
    if (second) {
        fail_at(&cx, second_mark, "a second YAML document: one preset per file");
        goto out;
    }
    if (!read_kind(&cx, root, kind))
        goto out;

    if (*kind == VL_KIND_MODEL) {
        vl_model m;
        if (!load_model(&cx, root, &m))
            goto out;
        *index = slot((void **)&c->models, &c->n_models, &c->cap_models, sizeof m, m.name);
        if (*index != SIZE_MAX)
            c->models[*index] = m;
    } else {
        vl_gpu g;
        if (!load_gpu(&cx, root, &g))
            goto out;
        *index = slot((void **)&c->gpus, &c->n_gpus, &c->cap_gpus, sizeof g, g.name);
        if (*index != SIZE_MAX)
            c->gpus[*index] = g;
    }
    if (*index == SIZE_MAX)
        snprintf(err, VL_ERR_LEN, "%s: out of memory", file);
    else
        ok = true;
out:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return ok;
}

#define MAX_PRESET_BYTES (1 << 20)

bool vl_catalog_add_file(vl_catalog *c, const char *path, vl_kind *kind, size_t *index,
                         char err[VL_ERR_LEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, VL_ERR_LEN, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    char *buf = malloc(MAX_PRESET_BYTES + 1);
    size_t len = buf ? fread(buf, 1, MAX_PRESET_BYTES + 1, f) : 0;
    bool bad = !buf || ferror(f);
    int saved = errno;
    fclose(f);
    bool ok = false;
    if (bad)
        snprintf(err, VL_ERR_LEN, "%s: cannot read: %s", path, buf ? strerror(saved) : "out of memory");
    else if (len > MAX_PRESET_BYTES)
        snprintf(err, VL_ERR_LEN, "%s: too large for a preset (over 1 MiB)", path);
    else
        ok = vl_catalog_add_text(c, path, buf, len, kind, index, err);
    free(buf);
    return ok;
}

bool vl_catalog_add_builtin(vl_catalog *c, char err[VL_ERR_LEN])
{
    for (size_t i = 0; i < vl_n_builtin_presets; i++) {
        const vl_builtin_preset *b = &vl_builtin_presets[i];
        char file[128];
        vl_kind kind;
        size_t index;
        snprintf(file, sizeof file, "(built-in)/%s", b->file);
        if (!vl_catalog_add_text(c, file, b->text, strlen(b->text), &kind, &index, err))
            return false;
    }
    return true;
}

const vl_model *vl_catalog_model(const vl_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n_models; i++)
        if (strcmp(c->models[i].name, name) == 0)
            return &c->models[i];
    return NULL;
}

const char *vl_catalog_hint(const vl_catalog *c, vl_kind kind, const char *name, char *buf,
                            size_t len)
{
    size_t n = kind == VL_KIND_MODEL ? c->n_models : c->n_gpus;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    buf[0] = '\0';
    if (!names)
        return buf;
    for (size_t i = 0; i < n; i++)
        names[i] = kind == VL_KIND_MODEL ? c->models[i].name : c->gpus[i].name;
    vl_hint(name, names, n, buf, len);
    free(names);
    return buf;
}

const vl_gpu *vl_catalog_gpu(const vl_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n_gpus; i++)
        if (strcmp(c->gpus[i].name, name) == 0)
            return &c->gpus[i];
    return NULL;
}
