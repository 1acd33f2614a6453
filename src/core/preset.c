/* preset.c: the libyaml preset loader (HACKING §3, vramlab-presets(5)). */
#include "preset.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lora.h"
#include "names.h"
#include "units.h"
#include "yamldoc.h"

const char *const vl_kind_names[VL_N_KINDS] = {"model", "gpu", "scenario", "framework",
                                                "lesson"};
const char *const vl_lang_names[VL_N_LANGS] = {"en", "zh"};
#define VL_LESSON_PANEL_NAME(name) #name,
const char *const vl_lesson_panel_names[VL_N_LESSON_PANELS] = {
    VL_LESSON_PANELS(VL_LESSON_PANEL_NAME)};
#undef VL_LESSON_PANEL_NAME

/* ---- schema ------------------------------------------------------------------------ */

typedef enum {
    T_COUNT,   /* whole number ("7B" too), into a uint64_t or an unsigned */
    T_SIZE,    /* bytes ("80GiB" too) */
    T_DOUBLE,  /* non-negative number */
    T_BOOL,
    T_STR,
    T_NAME,    /* [a-z0-9._-]+ */
    T_ENUM,    /* one of enum_names, into an int-sized enum */
    T_MAP,     /* a nested mapping, walked with its own table */
    T_SEQ,     /* a sequence, read by the kind's own loader */
    T_ROUNDED, /* a rounded published count: value and unit (vl_parse_rounded) */
    T_PERCENT, /* "2%" into a double */
    T_LORA,    /* LoRA targets ("q,v", "all-linear") into an unsigned mask */
    T_FRACTION,/* 0..1 ("0.4", "40%") into a uint64_t of millionths, within min..max */
    T_SETTING, /* a choice of setting `setting` as the command line reads it (vl_setting_parse:
                * a release's patch or older line, a GGUF type in capitals) */
} vtype;

typedef struct key_desc {
    const char *name;
    vtype type;
    size_t offset, size;
    const char *const *enum_names;
    int n_enum;
    int enum_first; /* T_ENUM: the names before it are not taken here (a GPU's link: no auto) */
    bool required;
    uint64_t min, max; /* T_COUNT, T_SIZE: the range when max > 0 */
    vl_setting setting; /* T_SETTING */
} key_desc;

_Static_assert(sizeof(vl_position) == sizeof(int) && sizeof(vl_mlp) == sizeof(int) &&
                   sizeof(vl_norm) == sizeof(int) && sizeof(vl_norm_position) == sizeof(int) &&
                   sizeof(vl_qk_norm) == sizeof(int) && sizeof(vl_eager_softmax) == sizeof(int) &&
                   sizeof(vl_mode) == sizeof(int) && sizeof(vl_precision) == sizeof(int) &&
                   sizeof(vl_optimizer) == sizeof(int) && sizeof(vl_recompute) == sizeof(int) &&
                   sizeof(vl_dtype) == sizeof(int),
               "enum fields are written as int");
_Static_assert(offsetof(vl_model, rounded_unit) ==
                   offsetof(vl_model, rounded_params) + sizeof(uint64_t),
               "T_ROUNDED writes the value and the unit side by side");

static const char *const position_names[] = {"rope", "learned", "alibi"};
static const char *const mlp_names[] = {"gated", "standard"};
static const char *const norm_names[] = {"rmsnorm", "layernorm"};
static const char *const norm_position_names[] = {"pre", "post"};
static const char *const qk_norm_names[] = {"none", "head", "full"};
static const char *const eager_softmax_names[] = {"fp32", "input", "fused"};
static const char *const qkv_views_names[] = {"none", "v", "qkv"};
/* A boolean whose default follows another key (attention_dropout: dropout's;
 * attention_out_bias: mlp_bias's): "" is that default, not a value a preset writes. */
static const char *const follows_names[] = {"", "false", "true"};
_Static_assert(VL_ATTN_DROPOUT_OFF == 1 && VL_ATTN_DROPOUT_ON == 2 && VL_OUT_BIAS_OFF == 1 &&
                   VL_OUT_BIAS_ON == 2,
               "follows_names");

#define FIELD(type, f) .offset = offsetof(type, f), .size = sizeof(((type *)0)->f)
#define A(f) FIELD(vl_model, arch.f)
#define ENUM(names) .enum_names = names, .n_enum = (int)(sizeof names / sizeof names[0])
static const key_desc arch_keys[] = {
    {"hidden_size", T_COUNT, A(hidden), .required = true},
    {"num_layers", T_COUNT, A(layers), .required = true},
    {"num_heads", T_COUNT, A(heads), .required = true},
    {"num_kv_heads", T_COUNT, A(kv_heads)},
    {"head_dim", T_COUNT, A(head_dim)},
    {"intermediate_size", T_COUNT, A(ffn)},
    {"vocab_size", T_COUNT, A(vocab), .required = true},
    {"max_position_embeddings", T_COUNT, A(max_positions)},
    {"position", T_ENUM, A(position), ENUM(position_names)},
    {"position_offset", T_COUNT, A(position_offset)},
    {"mlp", T_ENUM, A(mlp), ENUM(mlp_names)},
    {"norm", T_ENUM, A(norm), ENUM(norm_names)},
    {"norm_position", T_ENUM, A(norm_position), ENUM(norm_position_names)},
    {"norms_per_layer", T_COUNT, A(norms_per_layer)},
    {"qk_norm", T_ENUM, A(qk_norm), ENUM(qk_norm_names)},
    {"attention_bias", T_BOOL, A(attention_bias)},
    {"mlp_bias", T_BOOL, A(mlp_bias)},
    {"attention_out_bias", T_ENUM, A(attention_out_bias), ENUM(follows_names),
     .enum_first = VL_OUT_BIAS_OFF},
    {"qkv_views", T_ENUM, A(qkv_views), ENUM(qkv_views_names)},
    {"tie_embeddings", T_BOOL, A(tie_embeddings)},
    {"head_bias", T_BOOL, A(head_bias)},
    {"parallel_attention", T_BOOL, A(parallel_attention)},
    {"dropout", T_BOOL, A(dropout)},
    {"attention_dropout", T_ENUM, A(attention_dropout), ENUM(follows_names),
     .enum_first = VL_ATTN_DROPOUT_OFF},
    {"eager_softmax", T_ENUM, A(eager_softmax), ENUM(eager_softmax_names)},
    {"model_type", T_ENUM, A(model_type), .enum_names = vl_model_type_names,
     .n_enum = VL_N_MODEL_TYPES},
    {"sdpa_from", T_ENUM, A(sdpa_from), .enum_names = vl_transformers_names,
     .n_enum = VL_N_TRANSFORMERS, .enum_first = VL_TF_4_31},
    {"sliding_window", T_COUNT, A(sliding_window)},
    {"token_types", T_COUNT, A(token_types)},
    {"embedding_norm", T_BOOL, A(embedding_norm)},
    {"pooler", T_BOOL, A(pooler)},
    {"experts", T_COUNT, A(experts)},
    {"experts_per_token", T_COUNT, A(experts_per_token)},
    {"shared_experts", T_COUNT, A(shared_experts)},
    {"moe_intermediate_size", T_COUNT, A(moe_ffn)},
    {"shared_expert_intermediate_size", T_COUNT, A(shared_ffn)},
    {"dense_layers", T_COUNT, A(dense_layers)},
    {"router_bias", T_BOOL, A(router_bias)},
    {"q_lora_rank", T_COUNT, A(q_lora_rank)},
    {"kv_lora_rank", T_COUNT, A(kv_lora_rank)},
    {"qk_rope_head_dim", T_COUNT, A(qk_rope_head_dim)},
    {"v_head_dim", T_COUNT, A(v_head_dim)},
    {NULL, 0},
};
#undef A

#define M(f) FIELD(vl_model, f)
static const key_desc model_keys[] = {
    {"kind", T_STR, .required = true}, /* read before the walk */
    {"name", T_NAME, M(name), .required = true},
    {"display", T_STR, M(display)},
    {"source", T_STR, M(source)},
    {"notes", T_STR, M(notes)},
    {"params", T_COUNT, M(published_params)},
    {"params_rounded", T_ROUNDED, M(rounded_params)},
    {"params_rounded_tolerance", T_PERCENT, M(rounded_tolerance)},
    {"architecture", T_MAP, .required = true},
    {NULL, 0},
};
#undef M

#define G(f) FIELD(vl_gpu, f)
static const key_desc gpu_keys[] = {
    {"kind", T_STR, .required = true},
    {"name", T_NAME, G(name), .required = true},
    {"display", T_STR, G(display)},
    {"source", T_STR, G(source)},
    {"notes", T_STR, G(notes)},
    {"memory", T_SIZE, G(memory), .required = true, .min = 1, .max = 1ULL << 46},
    {"cuda_memory", T_SIZE, G(cuda_memory), .min = 1, .max = 1ULL << 46},
    {"bandwidth", T_DOUBLE, G(bandwidth)},
    {"bf16_flops", T_DOUBLE, G(bf16_flops)},
    {"fp16_flops", T_DOUBLE, G(fp16_flops)},
    {"fp8_flops", T_DOUBLE, G(fp8_flops)},
    {"generation", T_ENUM, G(generation), .enum_names = vl_gpu_arch_names,
     .n_enum = VL_N_GPU_ARCHS},
    {"host_bandwidth", T_DOUBLE, G(host_bandwidth)},
    /* the largest GPU has a few hundred (AMD Instinct MI300X: 304 compute units) */
    {"sms", T_COUNT, G(sms), .max = 4096},
    {"interconnect", T_ENUM, G(interconnect), .enum_names = vl_link_names, .n_enum = VL_N_LINKS,
     .enum_first = VL_LINK_PCIE},
    /* 18 on an H100 SXM or a B200 (NVLink 4 and 5 datasheets): 64 is far above any */
    {"nvlinks", T_COUNT, G(nvlinks), .max = 64},
    {"compute_capability", T_DOUBLE, G(compute_capability)},
    {NULL, 0},
};
#undef G

#define S(f) FIELD(vl_scenario, f)
static const key_desc scenario_keys[] = {
    {"kind", T_STR, .required = true},
    {"name", T_NAME, S(name), .required = true},
    {"display", T_STR, S(display)},
    {"source", T_STR, S(source)},
    {"notes", T_STR, S(notes)},
    {"model", T_NAME, S(model)},
    {"params", T_COUNT, S(params), .min = 1000000, .max = 100000000000000ULL},
    {"model_definition", T_MAP}, /* a model preset embedded (kind: model and its keys) */
    {"settings", T_MAP},
    {NULL, 0},
};

#undef S

#define L(f) FIELD(vl_lesson, f)
static const key_desc lesson_keys[] = {
    {"kind", T_STR, .required = true},
    {"name", T_NAME, L(name), .required = true},
    {"display", T_STR, L(display)},
    {"source", T_STR, L(source)},
    {"notes", T_STR, L(notes)},
    {"steps", T_SEQ, .required = true},
    {NULL, 0},
};
#undef L

/* A step's texts (title, text, question) are mappings of vl_lang_names (lang_keys). */
#define ST(f) FIELD(vl_lesson_step, f)
static const key_desc step_keys[] = {
    {"title", T_MAP, .required = true},
    {"text", T_MAP, .required = true},
    {"question", T_MAP},
    {"panel", T_ENUM, ST(panel), ENUM(vl_lesson_panel_names)},
    {"scenario", T_NAME, ST(scenario)},
    {"model", T_NAME, ST(state.model)},
    {"params", T_COUNT, ST(state.params), .min = 1000000, .max = 100000000000000ULL},
    {"settings", T_MAP},
    {"slider", T_NAME, ST(slider)},
    {NULL, 0},
};
#undef ST
_Static_assert(sizeof(vl_lesson_panel) == sizeof(int), "enum fields are written as int");

/* A framework: its own keys, `base:` (the built-in profile under it), then every field of
 * vl_framework_fields (framework_keys fills them in). */
typedef struct framework_doc {
    vl_framework f;
    int base; /* vl_framework_id */
} framework_doc;
#define F(f) FIELD(framework_doc, f)
static const key_desc framework_head[] = {
    {"kind", T_STR, .required = true},
    {"name", T_NAME, F(f.name), .required = true},
    {"display", T_STR, F(f.display)},
    {"source", T_STR, F(f.source)},
    {"notes", T_STR, F(f.notes)},
    {"base", T_ENUM, F(base), .enum_names = vl_framework_names, .n_enum = VL_N_FRAMEWORKS},
};
#undef F
#define N_FRAMEWORK_HEAD (sizeof framework_head / sizeof *framework_head)
#define MAX_FRAMEWORK_KEYS (N_FRAMEWORK_HEAD + VL_N_FRAMEWORK_FIELDS + 1) /* and the end */

#undef FIELD
#undef ENUM

/* A scenario's settings: the settings table's rows in vl_setting order (key i gives
 * setting i), then the GPU, the old key flash_attn and the rows' old keys
 * (int4_format), each read into its row's field. */
#define OLD_KEYS (VL_N_SETTINGS + 2)
#define N_SETTINGS_KEYS (2 * VL_N_SETTINGS + 3)
static void settings_keys(key_desc keys[N_SETTINGS_KEYS])
{
    static const vtype types[] = {[VL_ST_COUNT] = T_COUNT, [VL_ST_SIZE] = T_SIZE,
                                  [VL_ST_ENUM] = T_SETTING, [VL_ST_BOOL] = T_BOOL,
                                  [VL_ST_LORA] = T_LORA, [VL_ST_FRAMEWORK] = T_NAME,
                                  [VL_ST_FRACTION] = T_FRACTION, [VL_ST_DAY] = T_SETTING};
    size_t base = offsetof(vl_scenario, settings) + offsetof(vl_settings_patch, values);
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        keys[k] = (key_desc){vl_setting_keys[k], types[d->type], base + d->offset, d->size,
                             .min = d->min, .max = d->max, .setting = (vl_setting)k};
        if (d->type == VL_ST_FRAMEWORK) /* a catalog's name, which the front end resolves */
            keys[k] = (key_desc){vl_setting_keys[k], T_NAME, offsetof(vl_scenario, framework),
                                 sizeof(((vl_scenario *)0)->framework)};
    }
    keys[VL_N_SETTINGS] = (key_desc){"gpu", T_NAME, offsetof(vl_scenario, gpu),
                                     sizeof(((vl_scenario *)0)->gpu)};
    keys[VL_N_SETTINGS + 1] = (key_desc){"flash_attn", T_BOOL, offsetof(vl_scenario, flash_attn),
                                         sizeof(bool)};
    size_t n = OLD_KEYS;
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (vl_setting_table[k].old_key) {
            keys[n] = keys[k];
            keys[n++].name = vl_setting_table[k].old_key;
        }
    keys[n] = (key_desc){NULL, 0};
}

#define MAX_KEYS N_SETTINGS_KEYS
_Static_assert(MAX_FRAMEWORK_KEYS <= MAX_KEYS, "a framework preset's keys fit a walk");

/* ---- values -------------------------------------------------------------------------- */

static bool set_number(vl_ydoc *d, const key_desc *k, const char *path, yaml_node_t *v,
                       const char *s, char *field)
{
    const char *why = NULL;
    uint64_t x[2];
    bool ok = vl_ynode_plain(v) &&
              (k->type == T_COUNT    ? vl_parse_count(s, &x[0], &why)
               : k->type == T_SIZE   ? vl_parse_size(s, &x[0], &why)
                                     : vl_parse_rounded(s, &x[0], &x[1], &why));
    if (!ok)
        return vl_ydoc_fail(d, v->start_mark, "%s: '%s' is not a %s%s%s", path, s,
                            k->type == T_SIZE ? "size in bytes" : "whole number",
                            why ? ": " : "", why ? why : " (remove the quotes)");
    if (k->max && (x[0] < k->min || x[0] > k->max)) {
        char lo[32], hi[32];
        return vl_ydoc_fail(d, v->start_mark, "%s: must be between %s and %s", path,
                            vl_fmt_int(k->min, lo, sizeof lo), vl_fmt_int(k->max, hi, sizeof hi));
    }
    if (k->type == T_ROUNDED) {
        memcpy(field, x, sizeof x);
    } else if (k->size == sizeof(unsigned)) { /* ranges keep these small */
        unsigned u = (unsigned)x[0];
        memcpy(field, &u, sizeof u);
    } else {
        memcpy(field, &x[0], sizeof x[0]);
    }
    return true;
}

static bool set_real(vl_ydoc *d, const key_desc *k, const char *path, yaml_node_t *v,
                     const char *s, char *field)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    bool percent = k->type == T_PERCENT;
    bool ok = vl_ynode_plain(v) && *s != '\0' && end != s && errno == 0 && isfinite(x) &&
              x >= 0 && (percent ? strcmp(end, "%") == 0 && x <= 10 : *end == '\0');
    if (!ok)
        return vl_ydoc_fail(d, v->start_mark, "%s: '%s' is not %s", path, s,
                            percent ? "a percentage from 0% to 10%" : "a non-negative number");
    memcpy(field, &x, sizeof x);
    return true;
}

static bool set_value(vl_ydoc *d, const key_desc *k, const char *path, yaml_node_t *v, void *base)
{
    char *field = (char *)base + k->offset;

    if (v->type != YAML_SCALAR_NODE)
        return vl_ydoc_fail(d, v->start_mark, "%s: expected %s, got %s", path,
                            k->type == T_STR || k->type == T_NAME ? "text" : "a value",
                            vl_ynode_kind(v));
    const char *s = vl_ynode_text(v);
    if (!s)
        return vl_ydoc_fail(d, v->start_mark, "%s: contains a NUL byte", path);

    switch (k->type) {
    case T_COUNT:
    case T_SIZE:
    case T_ROUNDED:
        return set_number(d, k, path, v, s, field);
    case T_DOUBLE:
    case T_PERCENT:
        return set_real(d, k, path, v, s, field);
    case T_FRACTION: {
        const char *why;
        uint64_t x;
        if (!vl_ynode_plain(v) || !vl_parse_fraction(s, &x, &why))
            return vl_ydoc_fail(d, v->start_mark, "%s: '%s' is not a fraction from 0 to 1", path, s);
        if (x < k->min || x > k->max)
            return vl_ydoc_fail(d, v->start_mark, "%s: must be above 0 and at most 1", path);
        memcpy(field, &x, sizeof x);
        return true;
    }
    case T_BOOL: {
        bool x = strcmp(s, "true") == 0;
        if (!vl_ynode_plain(v) || (!x && strcmp(s, "false") != 0))
            return vl_ydoc_fail(d, v->start_mark, "%s: expected true or false, got '%s'", path, s);
        memcpy(field, &x, sizeof x);
        return true;
    }
    case T_NAME:
        if (*s == '\0' || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(s))
            return vl_ydoc_fail(
                d, v->start_mark,
                "%s: '%s' is not a valid name (lower-case letters, digits, '.', '_', '-')", path, s);
        /* fall through */
    case T_STR:
        if (strlen(s) >= k->size)
            return vl_ydoc_fail(d, v->start_mark, "%s: too long (at most %zu characters)", path,
                                k->size - 1);
        memcpy(field, s, strlen(s) + 1);
        return true;
    case T_ENUM: {
        const char *const *names = k->enum_names + k->enum_first;
        const size_t n = (size_t)(k->n_enum - k->enum_first);
        int i = vl_lookup(names, (int)n, s);
        if (i < 0) {
            char list[512], hint[96]; /* model_type's 35 names take about 330 */
            return vl_ydoc_fail(d, v->start_mark, "%s: unknown value '%s' (expected %s%s)", path,
                                s, vl_join(names, n, list, sizeof list),
                                vl_hint(s, names, n, hint, sizeof hint));
        }
        i += k->enum_first;
        memcpy(field, &i, sizeof i);
        return true;
    }
    case T_SETTING: { /* parsed alone, its field copied */
        const vl_setting_desc *sd = &vl_setting_table[k->setting];
        vl_settings one = {0};
        char why[512];
        if (!vl_setting_parse(k->setting, s, &one, why, sizeof why))
            return vl_ydoc_fail(d, v->start_mark, "%s: %s", path, why);
        memcpy(field, (const char *)&one + sd->offset, sd->size);
        return true;
    }
    case T_LORA: {
        unsigned mask;
        char why[256];
        if (!vl_lora_parse_targets(s, &mask, why, sizeof why))
            return vl_ydoc_fail(d, v->start_mark, "%s: %s", path, why);
        memcpy(field, &mask, sizeof mask);
        return true;
    }
    case T_MAP:
    case T_SEQ:
        break;
    }
    return true;
}

/* ---- walking a mapping against a table ----------------------------------------------- */

typedef struct walk {
    yaml_mark_t marks[MAX_KEYS];  /* where each key was */
    yaml_node_t *maps[MAX_KEYS];  /* T_MAP values */
    bool seen[MAX_KEYS];
} walk;

/* Fills base from node against keys[]; prefix is "" or "architecture." for messages. */
static bool walk_map(vl_ydoc *d, yaml_node_t *node, const key_desc *keys, const char *prefix,
                     void *base, walk *w)
{
    const char *names[MAX_KEYS];
    size_t n = 0;
    for (; keys[n].name; n++)
        names[n] = keys[n].name;

    memset(w, 0, sizeof *w);
    if (node->type != YAML_MAPPING_NODE)
        return vl_ydoc_fail(d, node->start_mark, "%s: expected a mapping of keys, got %s",
                            *prefix ? prefix : "preset", vl_ynode_kind(node));
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&d->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&d->doc, p->value);
        if (!k || !v)
            return vl_ydoc_fail(d, node->start_mark, "broken document");
        const char *name = vl_ynode_text(k);
        if (!name)
            return vl_ydoc_fail(d, k->start_mark, "%sexpected a key name, got %s", prefix,
                                vl_ynode_kind(k));
        int i = vl_lookup(names, (int)n, name);
        if (i < 0) {
            char hint[96];
            return vl_ydoc_fail(d, k->start_mark, "unknown key '%s%s'%s", prefix, name,
                                vl_hint(name, names, n, hint, sizeof hint));
        }
        char path[128];
        snprintf(path, sizeof path, "%s%s", prefix, name);
        if (w->seen[i])
            return vl_ydoc_fail(d, k->start_mark, "%s: duplicate key", path);
        w->seen[i] = true;
        w->marks[i] = k->start_mark;
        if (keys[i].type == T_MAP || keys[i].type == T_SEQ) {
            bool map = keys[i].type == T_MAP;
            if (v->type != (map ? YAML_MAPPING_NODE : YAML_SEQUENCE_NODE))
                return vl_ydoc_fail(d, v->start_mark, "%s: expected a %s, got %s", path,
                                    map ? "mapping of keys" : "list", vl_ynode_kind(v));
            w->maps[i] = v;
        } else if (strcmp(name, "kind") != 0 && !set_value(d, &keys[i], path, v, base)) {
            return false;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (keys[i].required && !w->seen[i])
            return vl_ydoc_fail(d, node->start_mark, "missing key '%s%s'", prefix, keys[i].name);
    return true;
}

static int key_index(const key_desc *keys, const char *name)
{
    for (int i = 0; keys[i].name; i++)
        if (strcmp(keys[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- models -------------------------------------------------------------------------- */

void vl_describe_params(const vl_arch *a, const vl_params *p, char *buf, size_t len)
{
    char n1[32], n2[32];
    size_t o = (size_t)snprintf(buf, len, "embedding %s", vl_fmt_int(p->embedding, n1, sizeof n1));
#define TERM(label, v)                                                                         \
    if ((v) && o < len)                                                                        \
        o += (size_t)snprintf(buf + o, len - o, " + " label " %s", vl_fmt_int(v, n1, sizeof n1));
    TERM("positions", p->positions)
    TERM("token types", p->token_types)
    TERM("embedding norm", p->embedding_norm)
    TERM("output layer", p->lm_head)
    TERM("output-layer bias", p->head_bias)
    if (a->dense_layers && o < len)
        o += (size_t)snprintf(buf + o, len - o, " + %s dense layers x %s",
                              vl_fmt_int(a->dense_layers, n1, sizeof n1),
                              vl_fmt_int(p->per_dense_layer, n2, sizeof n2));
    if (o < len)
        o += (size_t)snprintf(buf + o, len - o, " + %s %slayers x %s",
                              vl_fmt_int(a->layers - a->dense_layers, n1, sizeof n1),
                              a->dense_layers ? "MoE " : "", vl_fmt_int(p->per_layer, n2, sizeof n2));
    TERM("final norm", p->final_norm)
    TERM("pooler", p->pooler)
#undef TERM
    if (o < len)
        snprintf(buf + o, len - o, " = %s", vl_fmt_int(p->total, n1, sizeof n1));
}

/* The published figures against the architecture's count. */
static bool check_published(vl_ydoc *d, const vl_model *m, const vl_params *p, const walk *w)
{
    char pub[32], br[512], u[32];
    if (m->published_params && m->published_params != p->total) {
        vl_describe_params(&m->arch, p, br, sizeof br);
        return vl_ydoc_fail(d, w->marks[key_index(model_keys, "params")],
                            "params: %s does not match the architecture's count (%s)",
                            vl_fmt_int(m->published_params, pub, sizeof pub), br);
    }
    int tol_key = key_index(model_keys, "params_rounded_tolerance");
    if (!m->rounded_params) {
        if (w->seen[tol_key])
            return vl_ydoc_fail(d, w->marks[tol_key],
                                "params_rounded_tolerance: needs params_rounded");
        return true;
    }
    uint64_t r = m->rounded_params, diff = p->total > r ? p->total - r : r - p->total;
    bool ok = m->rounded_tolerance > 0 ? (double)diff <= (double)r * m->rounded_tolerance / 100
                                       : diff <= m->rounded_unit / 2;
    if (ok)
        return true;
    vl_describe_params(&m->arch, p, br, sizeof br);
    if (m->rounded_tolerance > 0)
        return vl_ydoc_fail(d, w->marks[key_index(model_keys, "params_rounded")],
                            "params_rounded: %s is not within %g%% of the architecture's count "
                            "(%s)", vl_fmt_int(r, pub, sizeof pub), m->rounded_tolerance, br);
    return vl_ydoc_fail(d, w->marks[key_index(model_keys, "params_rounded")],
                        "params_rounded: %s is not within %s (half its last digit) of the "
                        "architecture's count (%s); a looser figure needs "
                        "params_rounded_tolerance",
                        vl_fmt_int(r, pub, sizeof pub),
                        vl_fmt_int(m->rounded_unit / 2, u, sizeof u), br);
}

/* A model preset at root (the document's, or a scenario's model_definition, whose keys are
 * named after prefix in messages). */
static bool load_model_at(vl_ydoc *d, yaml_node_t *root, const char *prefix, vl_model *m)
{
    walk top, arch;
    char arch_prefix[64];

    memset(m, 0, sizeof *m);
    m->arch.position = VL_POS_ROPE;
    m->arch.mlp = VL_MLP_GATED;
    m->arch.norm = VL_NORM_RMSNORM;
    m->arch.norm_position = VL_NORM_PRE;
    if (!walk_map(d, root, model_keys, prefix, m, &top))
        return false;
    yaml_node_t *node = top.maps[key_index(model_keys, "architecture")];
    snprintf(arch_prefix, sizeof arch_prefix, "%sarchitecture.", prefix);
    if (!walk_map(d, node, arch_keys, arch_prefix, m, &arch))
        return false;

    vl_arch_defaults(&m->arch);
    const char *key;
    const char *why = vl_arch_check(&m->arch, &key);
    if (why) {
        int i = key_index(arch_keys, key);
        return vl_ydoc_fail(d, arch.seen[i] ? arch.marks[i] : node->start_mark,
                            "architecture.%s: %s", key, why);
    }
    vl_params p;
    if (!vl_count_params(&m->arch, &p))
        return vl_ydoc_fail(d, node->start_mark, "architecture: the parameter count overflows");
    if (!check_published(d, m, &p, &top))
        return false;
    if (!m->display[0])
        snprintf(m->display, sizeof m->display, "%s", m->name);
    return true;
}

static bool load_model(vl_ydoc *d, vl_model *m)
{
    return load_model_at(d, d->root, "", m);
}

/* A YAML double-quoted scalar of s: quotes and backslashes escaped, control bytes as \xNN. */
static void yaml_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7F)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    fputc('"', f);
}

void vl_model_write_yaml(FILE *f, const vl_model *m, const char *indent)
{
    vl_params p;
    vl_count_params(&m->arch, &p);
    fprintf(f, "%skind: model\n%sname: %s\n%sdisplay: ", indent, indent, m->name, indent);
    yaml_text(f, m->display);
    fprintf(f, "\n%ssource: ", indent);
    yaml_text(f, m->source[0] ? m->source : m->origin);
    fprintf(f, "\n%sparams: %" PRIu64 "\n%sarchitecture:\n", indent, p.total, indent);
    for (const key_desc *k = arch_keys; k->name; k++) {
        const char *field = (const char *)m + k->offset;
        uint64_t v = 0;
        if (k->type == T_COUNT && k->size == sizeof(uint64_t))
            memcpy(&v, field, sizeof v);
        else if (k->type == T_COUNT || k->type == T_ENUM) {
            unsigned u;
            memcpy(&u, field, sizeof u);
            v = u;
        } else if (k->type == T_BOOL) {
            bool b;
            memcpy(&b, field, sizeof b);
            v = b;
        }
        if (k->type == T_ENUM && v < (uint64_t)k->enum_first)
            continue; /* a default no preset writes (attention_dropout: as dropout) */
        fprintf(f, "%s  %s: ", indent, k->name);
        if (k->type == T_ENUM)
            fprintf(f, "%s\n", v < (uint64_t)k->n_enum ? k->enum_names[v] : "?");
        else if (k->type == T_BOOL)
            fprintf(f, "%s\n", v ? "true" : "false");
        else
            fprintf(f, "%" PRIu64 "\n", v);
    }
}

/* ---- GPUs ---------------------------------------------------------------------------- */

uint64_t vl_gpu_capacity(const vl_gpu *g)
{
    return g->cuda_memory ? g->cuda_memory : g->memory;
}

static bool load_gpu(vl_ydoc *d, vl_gpu *g)
{
    walk w;

    memset(g, 0, sizeof *g);
    g->generation = VL_ARCH_UNKNOWN;
    g->interconnect = VL_LINK_PCIE;
    if (!walk_map(d, d->root, gpu_keys, "", g, &w))
        return false;
    /* 0 is unknown.  The floors, 1 GB/s and 1 GFLOP/s, are far below any GPU's (the slowest
     * preset, the T4: 320 GB/s, 65 TFLOP/s fp16) and keep the roofline bounds finite. */
    static const struct {
        const char *key;
        size_t offset;
        double min, max;
    } rates[] = {
        {"bandwidth", offsetof(vl_gpu, bandwidth), 1e9, 1e15},
        {"bf16_flops", offsetof(vl_gpu, bf16_flops), 1e9, 1e18},
        {"fp16_flops", offsetof(vl_gpu, fp16_flops), 1e9, 1e18},
        {"fp8_flops", offsetof(vl_gpu, fp8_flops), 1e9, 1e18},
        /* PCIe 3.0 x16, the slowest link a preset has, is 15.75 GB/s (PCI-SIG); NVLink-C2C's
         * 450 GB/s a direction the fastest (NVIDIA Grace Hopper Superchip datasheet) */
        {"host_bandwidth", offsetof(vl_gpu, host_bandwidth), 1e9, 1e15},
    };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        double x;
        memcpy(&x, (const char *)g + rates[i].offset, sizeof x);
        yaml_mark_t at = w.marks[key_index(gpu_keys, rates[i].key)];
        if (x > rates[i].max)
            return vl_ydoc_fail(d, at, "%s: %g is beyond any GPU (at most %g)", rates[i].key, x,
                                rates[i].max);
        if (x > 0 && x < rates[i].min)
            return vl_ydoc_fail(d, at, "%s: %g is below any GPU (at least %g, or 0 when unknown)",
                                rates[i].key, x, rates[i].min);
    }
    const double cc = g->compute_capability;
    if (cc != 0 && (cc < 1 || cc >= 20 || fabs(cc * 10 - round(cc * 10)) > 1e-6))
        return vl_ydoc_fail(d, w.marks[key_index(gpu_keys, "compute_capability")],
                            "compute_capability: %g is no CUDA compute capability (major.minor, "
                            "as 8.6; or 0 when unknown)", cc);
    if (g->cuda_memory > g->memory)
        return vl_ydoc_fail(d, w.marks[key_index(gpu_keys, "cuda_memory")],
                            "cuda_memory: more than the GPU's memory (what CUDA reports is "
                            "nvidia-smi's total less what the driver keeps)");
    if (!g->display[0])
        snprintf(g->display, sizeof g->display, "%s", g->name);
    return true;
}

/* ---- scenarios ----------------------------------------------------------------------- */

/* A scenario's (or a lesson step's) settings: node into s->settings, its GPU and framework;
 * prefix names the mapping in messages ("settings.", "steps[2].settings."). */
static bool load_settings(vl_ydoc *d, yaml_node_t *node, const char *prefix, vl_scenario *s)
{
    key_desc keys[N_SETTINGS_KEYS];
    walk set;

    settings_keys(keys);
    if (!walk_map(d, node, keys, prefix, s, &set))
        return false;
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (set.seen[k] && k != VL_SET_FRAMEWORK) /* a name: s->framework */
            vl_patch_mark(&s->settings, (vl_setting)k);
    if (set.seen[VL_N_SETTINGS + 1]) { /* flash_attn: true is attention: flash */
        vl_setting k;
        const char *value;
        if (set.seen[VL_SET_ATTENTION])
            return vl_ydoc_fail(d, set.marks[VL_N_SETTINGS + 1],
                                "%sflash_attn: give attention or flash_attn, not both", prefix);
        vl_setting_alias("flash_attn", s->flash_attn ? "true" : "false", &k, &value);
        char why[128];
        vl_setting_parse(k, value, &s->settings.values, why, sizeof why);
        vl_patch_mark(&s->settings, k);
    }
    for (int i = OLD_KEYS; keys[i].name; i++) {
        const vl_setting k = keys[i].setting;
        if (set.seen[i] && set.seen[k])
            return vl_ydoc_fail(d, set.marks[i], "%s%s: give %s or %s, not both", prefix,
                                keys[i].name, vl_setting_keys[k], keys[i].name);
        if (set.seen[i])
            vl_patch_mark(&s->settings, k);
    }
    vl_settings all;
    vl_settings_default(&all);
    vl_settings_apply(&all, &s->settings);
    char why[256];
    if (!vl_settings_valid(&all, NULL, why, sizeof why))
        return vl_ydoc_fail(d, node->start_mark, "%.*s: %s", (int)strlen(prefix) - 1, prefix,
                            why);
    return true;
}

static bool load_scenario(vl_ydoc *d, vl_scenario *s)
{
    walk top;

    memset(s, 0, sizeof *s);
    if (!walk_map(d, d->root, scenario_keys, "", s, &top))
        return false;
    int model = key_index(scenario_keys, "model"), params = key_index(scenario_keys, "params"),
        def = key_index(scenario_keys, "model_definition");
    int given = top.seen[model] + top.seen[params] + top.seen[def];
    if (given != 1)
        return vl_ydoc_fail(d, given ? top.marks[top.seen[def] ? def : params] : d->root->start_mark,
                            "%s", given ? "give one of model, params and model_definition"
                                        : "missing key 'model' (or 'params' or 'model_definition')");
    if (top.seen[def]) { /* the model itself, as a model preset: not a name to look up */
        yaml_node_t *kind = NULL;
        yaml_node_t *m = top.maps[def];
        for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
            const char *k = vl_ynode_text(yaml_document_get_node(&d->doc, p->key));
            if (k && strcmp(k, "kind") == 0)
                kind = yaml_document_get_node(&d->doc, p->value);
        }
        const char *text = kind ? vl_ynode_text(kind) : NULL;
        if (kind && (!text || strcmp(text, "model") != 0))
            return vl_ydoc_fail(d, kind->start_mark, "model_definition.kind: must be model");
        if (!load_model_at(d, m, "model_definition.", &s->model_def))
            return false;
        s->has_model = true;
        snprintf(s->model, sizeof s->model, "%s", s->model_def.name);
    }
    yaml_node_t *node = top.maps[key_index(scenario_keys, "settings")];
    if (node && !load_settings(d, node, "settings.", s))
        return false;
    if (!s->display[0])
        snprintf(s->display, sizeof s->display, "%s", s->name);
    return true;
}

/* ---- lessons ------------------------------------------------------------------------- */

/* One of a step's texts: {en: ..., zh: ...} into langs[VL_N_LANGS][size], English required;
 * a language left out is the English. */
static bool load_texts(vl_ydoc *d, yaml_node_t *node, const char *prefix, char *langs,
                       size_t size)
{
    key_desc keys[VL_N_LANGS + 1];
    walk w;

    for (int l = 0; l < VL_N_LANGS; l++)
        keys[l] = (key_desc){vl_lang_names[l], T_STR, (size_t)l * size, size,
                             .required = l == VL_LANG_EN};
    keys[VL_N_LANGS] = (key_desc){NULL, 0};
    if (!walk_map(d, node, keys, prefix, langs, &w))
        return false;
    for (int l = 0; l < VL_N_LANGS; l++)
        if (!w.seen[l])
            memcpy(langs + (size_t)l * size, langs, size);
    return true;
}

static bool load_step(vl_ydoc *d, yaml_node_t *node, size_t i, vl_lesson_step *st)
{
    char prefix[48], sub[64];
    walk w;

    snprintf(prefix, sizeof prefix, "steps[%zu].", i + 1);
    if (!walk_map(d, node, step_keys, prefix, st, &w))
        return false;
    static const struct {
        const char *key;
        size_t offset, size;
    } texts[] = {
        {"title", offsetof(vl_lesson_step, title), sizeof st->title[0]},
        {"text", offsetof(vl_lesson_step, text), sizeof st->text[0]},
        {"question", offsetof(vl_lesson_step, question), sizeof st->question[0]},
    };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        yaml_node_t *map = w.maps[key_index(step_keys, texts[t].key)];
        snprintf(sub, sizeof sub, "%s%s.", prefix, texts[t].key);
        if (map && !load_texts(d, map, sub, (char *)st + texts[t].offset, texts[t].size))
            return false;
    }
    int sc = key_index(step_keys, "scenario"), model = key_index(step_keys, "model"),
        params = key_index(step_keys, "params"), slider = key_index(step_keys, "slider");
    int given = w.seen[sc] + w.seen[model] + w.seen[params];
    if (given != 1)
        return vl_ydoc_fail(d, given ? w.marks[w.seen[params] ? params : model] : node->start_mark,
                            "%s%s", prefix, given ? "give one of scenario, model and params"
                                                  : "missing key 'scenario' (or 'model', 'params')");
    if (w.seen[slider] && vl_setting_by_key(st->slider) < 0 && strcmp(st->slider, "params") != 0 &&
        strcmp(st->slider, "gpu") != 0) {
        char hint[96];
        return vl_ydoc_fail(d, w.marks[slider], "%sslider: unknown slider '%s' (a setting's key, "
                            "params or gpu)%s", prefix, st->slider,
                            vl_hint(st->slider, vl_setting_keys, VL_N_SETTINGS, hint, sizeof hint));
    }
    yaml_node_t *set = w.maps[key_index(step_keys, "settings")];
    snprintf(sub, sizeof sub, "%ssettings.", prefix);
    return !set || load_settings(d, set, sub, &st->state);
}

static bool load_lesson(vl_ydoc *d, vl_lesson *l)
{
    walk top;

    memset(l, 0, sizeof *l);
    if (!walk_map(d, d->root, lesson_keys, "", l, &top))
        return false;
    yaml_node_t *seq = top.maps[key_index(lesson_keys, "steps")];
    yaml_node_item_t *it = seq->data.sequence.items.start;
    size_t n = (size_t)(seq->data.sequence.items.top - it);
    if (n == 0 || n > VL_LESSON_STEPS)
        return vl_ydoc_fail(d, seq->start_mark, "steps: give 1 to %d steps, not %zu",
                            VL_LESSON_STEPS, n);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *step = yaml_document_get_node(&d->doc, it[i]);
        if (!step)
            return vl_ydoc_fail(d, seq->start_mark, "broken document");
        if (!load_step(d, step, i, &l->steps[i]))
            return false;
    }
    l->n_steps = n;
    if (!l->display[0])
        snprintf(l->display, sizeof l->display, "%s", l->name);
    return true;
}

/* ---- frameworks ---------------------------------------------------------------------- */

/* The keys of a framework preset: framework_head, then vl_framework_fields by their keys. */
static void framework_keys(key_desc keys[MAX_FRAMEWORK_KEYS])
{
    static const vtype types[] = {[VL_FIELD_ENUM] = T_ENUM, [VL_FIELD_BOOL] = T_BOOL,
                                  [VL_FIELD_COUNT] = T_COUNT, [VL_FIELD_FRACTION] = T_FRACTION};
    size_t n = 0;
    for (; n < N_FRAMEWORK_HEAD; n++)
        keys[n] = framework_head[n];
    for (size_t i = 0; i < vl_n_framework_fields; i++, n++) {
        const vl_framework_field *fd = &vl_framework_fields[i];
        keys[n] = (key_desc){fd->key, types[fd->kind], offsetof(framework_doc, f) + fd->offset,
                             fd->size, .enum_names = fd->names, .n_enum = fd->n_names,
                             .min = fd->min, .max = fd->max};
    }
    keys[n] = (key_desc){NULL, 0};
}

/* Every field the file does not give is its base's (the built-in `base:` names, pytorch
 * when none): the file is read into a scratch copy, and the fields it gave are laid over
 * the base. */
static bool load_framework(vl_ydoc *d, vl_framework *out)
{
    key_desc keys[MAX_FRAMEWORK_KEYS];
    framework_doc doc;
    walk w;

    framework_keys(keys);
    memset(&doc, 0, sizeof doc);
    doc.base = VL_FW_PYTORCH;
    if (!walk_map(d, d->root, keys, "", &doc, &w))
        return false;
    *out = vl_frameworks[doc.base];
    memset(out->name, 0, sizeof out->name);
    memset(out->display, 0, sizeof out->display);
    const size_t f0 = offsetof(framework_doc, f);
    for (size_t i = 0; keys[i].name; i++)
        if (w.seen[i] && keys[i].size && keys[i].offset >= f0 &&
            keys[i].offset + keys[i].size <= f0 + sizeof doc.f)
            memcpy((char *)out + keys[i].offset - f0, (const char *)&doc + keys[i].offset,
                   keys[i].size);
    if (out->comm_nvlink_init > out->comm_nvlink) {
        const int init = key_index(keys, "comm_nvlink_init");
        return vl_ydoc_fail(d, w.marks[w.seen[init] ? init : key_index(keys, "comm_nvlink")],
                            "comm_nvlink_init: more than comm_nvlink (it is the part of "
                            "comm_nvlink the communicators take as they are made)");
    }
    if (!out->display[0])
        snprintf(out->display, sizeof out->display, "%s", out->name);
    return true;
}

/* ---- one preset ---------------------------------------------------------------------- */

static bool read_kind(vl_ydoc *d, vl_kind *kind)
{
    char list[64];
    vl_join(vl_kind_names, VL_N_KINDS, list, sizeof list);
    if (d->root->type != YAML_MAPPING_NODE)
        return vl_ydoc_fail(d, d->root->start_mark,
                            "expected a preset (a mapping with 'kind:'), got %s",
                            vl_ynode_kind(d->root));
    yaml_node_t *v = vl_ydoc_get(d, d->root, "kind", NULL);
    if (!v)
        return vl_ydoc_fail(d, d->root->start_mark, "missing key 'kind' (%s)", list);
    const char *s = vl_ynode_text(v);
    if (!s)
        return vl_ydoc_fail(d, v->start_mark, "kind: expected %s, got %s", list,
                            vl_ynode_kind(v));
    int i = vl_lookup(vl_kind_names, VL_N_KINDS, s);
    if (i < 0) {
        char hint[96];
        return vl_ydoc_fail(d, v->start_mark, "kind: unknown kind '%s' (expected %s%s)", s, list,
                            vl_hint(s, vl_kind_names, VL_N_KINDS, hint, sizeof hint));
    }
    *kind = (vl_kind)i;
    return true;
}

static bool parse(const char *file, const char *text, size_t len, bool trusted, vl_preset *out,
                  char err[VL_ERR_LEN])
{
    vl_ydoc d;
    if (!vl_ydoc_load(&d, file, text, len, "a preset (kind: model, gpu, scenario, framework or lesson)",
                      trusted, err))
        return false;
    bool ok = read_kind(&d, &out->kind);
    if (ok) {
        char *origin;
        switch (out->kind) {
        case VL_KIND_MODEL:
            ok = load_model(&d, &out->u.model);
            origin = out->u.model.origin;
            break;
        case VL_KIND_GPU:
            ok = load_gpu(&d, &out->u.gpu);
            origin = out->u.gpu.origin;
            break;
        case VL_KIND_SCENARIO:
            ok = load_scenario(&d, &out->u.scenario);
            origin = out->u.scenario.origin;
            break;
        case VL_KIND_LESSON:
            ok = load_lesson(&d, &out->u.lesson);
            origin = out->u.lesson.origin;
            break;
        default:
            ok = load_framework(&d, &out->u.framework);
            origin = out->u.framework.origin;
            break;
        }
        _Static_assert(sizeof out->u.model.origin == sizeof out->u.framework.origin &&
                           sizeof out->u.model.origin == sizeof out->u.scenario.origin &&
                           sizeof out->u.model.origin == sizeof out->u.gpu.origin &&
                           sizeof out->u.model.origin == sizeof out->u.lesson.origin,
                       "origins are alike");
        if (ok)
            snprintf(origin, sizeof out->u.model.origin, "%s", file);
    }
    vl_ydoc_free(&d);
    return ok;
}

bool vl_preset_parse(const char *file, const char *text, size_t len, vl_preset *out,
                     char err[VL_ERR_LEN])
{
    return parse(file, text, len, false, out, err);
}

bool vl_preset_parse_builtin(const char *file, const char *text, size_t len, vl_preset *out,
                             char err[VL_ERR_LEN])
{
    return parse(file, text, len, true, out, err);
}
