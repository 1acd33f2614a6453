/* hfconfig.c: Hugging Face config.json files as models. */
#include "hfconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "units.h"
#include "yamldoc.h"

#define MAX_CONFIG_BYTES (4 << 20)

typedef struct hf {
    vl_ydoc d;
    vl_arch *a;
} hf;

/* ---- reading keys -------------------------------------------------------------------- */

/* The first of the keys (a NULL-terminated list of aliases) that is present and not null. */
static yaml_node_t *get(hf *h, const char *const *keys, const char **which)
{
    for (; *keys; keys++) {
        yaml_node_t *v = vl_ydoc_get(&h->d, h->d.root, *keys, NULL);
        const char *s = v ? vl_ynode_text(v) : NULL;
        if (v && !(s && vl_ynode_plain(v) && strcmp(s, "null") == 0)) {
            *which = *keys;
            return v;
        }
    }
    return NULL;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A whole number; *out untouched when absent.  required: absence is an error. */
static bool get_count(hf *h, const char *const *keys, uint64_t *out, bool required)
{
    const char *which, *why = NULL;
    yaml_node_t *v = get(h, keys, &which);
    if (!v) {
        if (required)
            return vl_ydoc_fail(&h->d, h->d.root->start_mark, "missing key '%s'", keys[0]);
        return true;
    }
    const char *s = vl_ynode_text(v);
    if (!s || !vl_ynode_plain(v) || !vl_parse_count(s, out, &why) || strchr(s, ' '))
        return vl_ydoc_fail(&h->d, v->start_mark, "%s: expected a whole number, got %s", which,
                            s ? s : vl_ynode_kind(v));
    return true;
}

static bool get_bool(hf *h, const char *const *keys, bool *out)
{
    const char *which;
    yaml_node_t *v = get(h, keys, &which);
    if (!v)
        return true;
    const char *s = vl_ynode_text(v);
    if (!s || !vl_ynode_plain(v) || (strcmp(s, "true") != 0 && strcmp(s, "false") != 0))
        return vl_ydoc_fail(&h->d, v->start_mark, "%s: expected true or false, got %s", which,
                            s ? s : vl_ynode_kind(v));
    *out = strcmp(s, "true") == 0;
    return true;
}

/* True when any of the keys is a probability above 0 (dropout present in training). */
static bool get_dropout(hf *h, const char *const *keys, bool *out)
{
    for (; *keys; keys++) {
        const char *k[] = {*keys, NULL}, *which;
        yaml_node_t *v = get(h, k, &which);
        if (!v)
            continue;
        const char *s = vl_ynode_text(v);
        char *end = NULL;
        double p = s ? strtod(s, &end) : NAN;
        if (!s || end == s || *end != '\0' || !(p >= 0 && p <= 1))
            return vl_ydoc_fail(&h->d, v->start_mark, "%s: expected a probability, got %s", which,
                                s ? s : vl_ynode_kind(v));
        if (p > 0)
            *out = true;
    }
    return true;
}

static const char *get_text(hf *h, const char *key)
{
    const char *k[] = {key, NULL}, *which;
    yaml_node_t *v = get(h, k, &which);
    return v ? vl_ynode_text(v) : NULL;
}

static bool unsupported(hf *h, const char *const *keys, const char *what)
{
    const char *which;
    yaml_node_t *v = get(h, keys, &which);
    return vl_ydoc_fail(&h->d, v ? v->start_mark : h->d.root->start_mark, "%s: %s", keys[0], what);
}

/* ---- what every family has ----------------------------------------------------------- */

static bool read_common(hf *h, bool tie_default)
{
    vl_arch *a = h->a;
    a->tie_embeddings = tie_default;
    return get_count(h, KEYS("hidden_size", "n_embd", "n_embed", "d_model"), &a->hidden, true) &&
           get_count(h, KEYS("num_hidden_layers", "n_layer", "num_layers"), &a->layers, true) &&
           get_count(h, KEYS("num_attention_heads", "n_head", "num_heads"), &a->heads, true) &&
           get_count(h, KEYS("vocab_size"), &a->vocab, true) &&
           get_count(h, KEYS("num_key_value_heads"), &a->kv_heads, false) &&
           get_count(h, KEYS("head_dim"), &a->head_dim, false) &&
           get_count(h, KEYS("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"),
                     &a->ffn, false) &&
           get_count(h, KEYS("max_position_embeddings", "n_positions"), &a->max_positions,
                     false) &&
           get_bool(h, KEYS("tie_word_embeddings"), &a->tie_embeddings);
}

/* Llama and the families built like it: RoPE, SwiGLU/GeGLU, RMSNorm, no biases. */
static bool read_llama_like(hf *h, bool tie_default)
{
    h->a->position = VL_POS_ROPE;
    h->a->mlp = VL_MLP_GATED;
    h->a->norm = VL_NORM_RMSNORM;
    return read_common(h, tie_default);
}

static bool read_llama(hf *h)
{
    bool attn_bias = false, mlp_bias = false;
    if (!read_llama_like(h, false) || !get_bool(h, KEYS("attention_bias"), &attn_bias) ||
        !get_bool(h, KEYS("mlp_bias"), &mlp_bias))
        return false;
    if (attn_bias)
        return unsupported(h, KEYS("attention_bias"), "biases on q, k, v and o are not supported");
    if (mlp_bias)
        return unsupported(h, KEYS("mlp_bias"), "MLP biases without attention biases are not "
                                                "supported");
    return true;
}

static bool read_mistral(hf *h)
{
    return read_llama_like(h, false) &&
           get_count(h, KEYS("sliding_window"), &h->a->sliding_window, false);
}

static bool read_mixtral(hf *h)
{
    return read_mistral(h) &&
           get_count(h, KEYS("num_local_experts"), &h->a->experts, true) &&
           get_count(h, KEYS("num_experts_per_tok"), &h->a->experts_per_token, true);
}

static bool read_qwen2(hf *h)
{
    bool sliding = false;
    uint64_t window = 0;
    h->a->attention_bias = true; /* Qwen2 has q, k, v biases */
    if (!read_llama_like(h, false) || !get_bool(h, KEYS("use_sliding_window"), &sliding) ||
        !get_count(h, KEYS("sliding_window"), &window, false))
        return false;
    h->a->sliding_window = sliding ? window : 0;
    return true;
}

static bool read_gemma(hf *h)
{
    return read_llama_like(h, true);
}

static bool read_phi3(hf *h)
{
    return read_mistral(h);
}

/* GPT-2 and its descendants: learned positions, GELU MLP, LayerNorm, biases everywhere. */
static void gpt_traits(vl_arch *a)
{
    a->position = VL_POS_LEARNED;
    a->mlp = VL_MLP_STANDARD;
    a->norm = VL_NORM_LAYERNORM;
    a->attention_bias = true;
    a->mlp_bias = true;
}

static bool read_gpt2(hf *h)
{
    gpt_traits(h->a);
    return read_common(h, true) &&
           get_dropout(h, KEYS("attn_pdrop", "resid_pdrop", "embd_pdrop"), &h->a->dropout);
}

static bool read_opt(hf *h)
{
    bool pre = true, bias = true;
    uint64_t proj = 0;
    gpt_traits(h->a);
    h->a->position_offset = 2; /* OPT's learned positions start at row 2 */
    if (!read_common(h, true) || !get_bool(h, KEYS("do_layer_norm_before"), &pre) ||
        !get_bool(h, KEYS("enable_bias"), &bias) ||
        !get_count(h, KEYS("word_embed_proj_dim"), &proj, false) ||
        !get_dropout(h, KEYS("dropout", "attention_dropout"), &h->a->dropout))
        return false;
    if (proj && proj != h->a->hidden)
        return unsupported(h, KEYS("word_embed_proj_dim"),
                           "embedding projections (OPT-350M) are not supported");
    if (!pre)
        return unsupported(h, KEYS("do_layer_norm_before"),
                           "OPT with post-norm layers (OPT-350M) is not supported");
    h->a->attention_bias = h->a->mlp_bias = bias;
    return true;
}

static bool read_falcon(hf *h)
{
    vl_arch *a = h->a;
    bool alibi = false, bias = false, parallel = true, new_arch = false, multi_query = true;
    uint64_t kv = 0, norms = 0;
    a->mlp = VL_MLP_STANDARD;
    a->norm = VL_NORM_LAYERNORM;
    if (!read_common(h, true) || !get_bool(h, KEYS("alibi"), &alibi) ||
        !get_bool(h, KEYS("bias"), &bias) || !get_bool(h, KEYS("parallel_attn"), &parallel) ||
        !get_bool(h, KEYS("new_decoder_architecture"), &new_arch) ||
        !get_bool(h, KEYS("multi_query"), &multi_query) ||
        !get_count(h, KEYS("num_kv_heads", "n_head_kv"), &kv, false) ||
        !get_count(h, KEYS("num_ln_in_parallel_attn"), &norms, false))
        return false;
    a->position = alibi ? VL_POS_ALIBI : VL_POS_ROPE;
    a->attention_bias = a->mlp_bias = bias;
    a->parallel_attention = parallel || new_arch;
    if (new_arch) { /* grouped KV heads and, by default, two norms per layer */
        a->kv_heads = kv ? kv : a->heads;
        a->norms_per_layer = norms ? norms : 2;
    } else {
        a->kv_heads = multi_query ? 1 : a->heads;
    }
    return true;
}

static bool read_bloom(hf *h)
{
    vl_arch *a = h->a;
    gpt_traits(a);
    a->position = VL_POS_ALIBI;
    a->embedding_norm = true;
    return read_common(h, true) &&
           get_dropout(h, KEYS("hidden_dropout", "attention_dropout"), &a->dropout);
}

static bool read_gpt_neox(hf *h)
{
    vl_arch *a = h->a;
    bool attn_bias = true, parallel = true;
    gpt_traits(a);
    a->position = VL_POS_ROPE;
    if (!read_common(h, false) || !get_bool(h, KEYS("attention_bias"), &attn_bias) ||
        !get_bool(h, KEYS("use_parallel_residual"), &parallel) ||
        !get_dropout(h, KEYS("attention_dropout", "hidden_dropout"), &a->dropout))
        return false;
    if (!attn_bias)
        return unsupported(h, KEYS("attention_bias"),
                           "GPT-NeoX without attention biases is not supported");
    a->parallel_attention = parallel; /* with both norms of the layer */
    a->norms_per_layer = 2;
    return true;
}

static bool read_bert(hf *h)
{
    vl_arch *a = h->a;
    gpt_traits(a);
    a->norm_position = VL_NORM_POST;
    a->embedding_norm = true;
    a->pooler = true;
    return read_common(h, true) && get_count(h, KEYS("type_vocab_size"), &a->token_types, false) &&
           get_dropout(h, KEYS("hidden_dropout_prob", "attention_probs_dropout_prob"),
                       &a->dropout);
}

static bool read_deepseek(hf *h)
{
    vl_arch *a = h->a;
    uint64_t nope = 0, freq = 1;
    const char *topk;
    if (!read_llama_like(h, false) ||
        !get_count(h, KEYS("kv_lora_rank"), &a->kv_lora_rank, true) ||
        !get_count(h, KEYS("q_lora_rank"), &a->q_lora_rank, false) ||
        !get_count(h, KEYS("qk_nope_head_dim"), &nope, true) ||
        !get_count(h, KEYS("qk_rope_head_dim"), &a->qk_rope_head_dim, true) ||
        !get_count(h, KEYS("v_head_dim"), &a->v_head_dim, true) ||
        !get_count(h, KEYS("n_routed_experts"), &a->experts, true) ||
        !get_count(h, KEYS("num_experts_per_tok"), &a->experts_per_token, true) ||
        !get_count(h, KEYS("n_shared_experts"), &a->shared_experts, false) ||
        !get_count(h, KEYS("moe_intermediate_size"), &a->moe_ffn, true) ||
        !get_count(h, KEYS("first_k_dense_replace"), &a->dense_layers, false) ||
        !get_count(h, KEYS("moe_layer_freq"), &freq, false))
        return false;
    if (freq != 1)
        return unsupported(h, KEYS("moe_layer_freq"), "MoE layers other than every layer are "
                                                      "not supported");
    a->head_dim = nope + a->qk_rope_head_dim;
    a->kv_heads = a->heads;
    topk = get_text(h, "topk_method");
    a->router_bias = topk && strcmp(topk, "noaux_tc") == 0; /* e_score_correction_bias */
    return true;
}

/* ---- the families -------------------------------------------------------------------- */

static const struct family {
    const char *type;
    bool (*read)(hf *h);
} families[] = {
    {"bert", read_bert},        {"bloom", read_bloom},       {"deepseek_v2", read_deepseek},
    {"deepseek_v3", read_deepseek}, {"falcon", read_falcon}, {"gemma", read_gemma},
    {"gpt2", read_gpt2},        {"gpt_neox", read_gpt_neox}, {"llama", read_llama},
    {"mistral", read_mistral},  {"mixtral", read_mixtral},   {"opt", read_opt},
    {"phi3", read_phi3},        {"qwen2", read_qwen2},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

const char *const vl_hf_model_types[N_FAMILIES] = {
    "bert", "bloom", "deepseek_v2", "deepseek_v3", "falcon", "gemma", "gpt2",
    "gpt_neox", "llama", "mistral", "mixtral", "opt", "phi3", "qwen2",
};
const size_t vl_n_hf_model_types = N_FAMILIES;

/* A name for the catalog's rules, from _name_or_path or the file name. */
void vl_hf_model_name(const char *from, char *name, size_t len)
{
    const char *slash = strrchr(from, '/');
    size_t o = 0;
    for (const char *s = slash ? slash + 1 : from; *s && o + 1 < len; s++) {
        char c = (*s >= 'A' && *s <= 'Z') ? (char)(*s - 'A' + 'a') : *s;
        name[o++] = strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", c) && c ? c : '-';
    }
    name[o] = '\0';
    if (!o)
        snprintf(name, len, "hf-config");
}

bool vl_model_from_hf_text(const char *file, const char *text, size_t len, vl_model *m,
                           char err[VL_ERR_LEN])
{
    hf h = {.a = &m->arch};
    memset(m, 0, sizeof *m);
    if (!vl_ydoc_load(&h.d, file, text, len, "a Hugging Face config.json (a JSON object)", err))
        return false;
    bool ok = false;
    yaml_node_t *type = vl_ydoc_get(&h.d, h.d.root, "model_type", NULL);
    const char *t = type ? vl_ynode_text(type) : NULL;
    size_t i = 0;
    while (t && i < N_FAMILIES && strcmp(families[i].type, t) != 0)
        i++;
    char list[256], hint[96];
    vl_join(vl_hf_model_types, N_FAMILIES, list, sizeof list);
    if (h.d.root->type != YAML_MAPPING_NODE)
        vl_ydoc_fail(&h.d, h.d.root->start_mark, "expected a JSON object, got %s",
                     vl_ynode_kind(h.d.root));
    else if (!type)
        vl_ydoc_fail(&h.d, h.d.root->start_mark, "missing key 'model_type' (supported: %s)", list);
    else if (!t)
        vl_ydoc_fail(&h.d, type->start_mark, "model_type: expected text, got %s",
                     vl_ynode_kind(type));
    else if (i == N_FAMILIES)
        vl_ydoc_fail(&h.d, type->start_mark, "model_type '%s' is not supported (supported: %s)%s",
                     t, list, vl_hint(t, vl_hf_model_types, N_FAMILIES, hint, sizeof hint));
    else
        ok = families[i].read(&h);
    if (ok) {
        const char *key;
        vl_arch_defaults(h.a);
        const char *why = vl_arch_check(h.a, &key);
        if (why)
            ok = vl_ydoc_fail(&h.d, h.d.root->start_mark, "%s (architecture.%s)", why, key);
    }
    if (ok) {
        const char *id = get_text(&h, "_name_or_path");
        vl_hf_model_name(id && *id ? id : file, m->name, sizeof m->name);
        snprintf(m->display, sizeof m->display, "%s", id && *id ? id : m->name);
        snprintf(m->source, sizeof m->source, "%s (model_type %s)", file, t);
        snprintf(m->origin, sizeof m->origin, "%s", file);
    }
    vl_ydoc_free(&h.d);
    return ok;
}

bool vl_model_from_hf_file(const char *path, vl_model *m, char err[VL_ERR_LEN])
{
    char *buf;
    size_t len;
    if (!vl_read_text_file(path, MAX_CONFIG_BYTES, &buf, &len, err))
        return false;
    bool ok = vl_model_from_hf_text(path, buf, len, m, err);
    free(buf);
    return ok;
}
