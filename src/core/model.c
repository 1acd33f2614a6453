/* model.c: exact parameter counts (HACKING §4.1) and GPT-3-like shapes for free counts. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

#define VL_MODEL_TYPE_NAME(id, name, ...) name,
const char *const vl_model_type_names[VL_N_MODEL_TYPES] = {VL_MODEL_TYPES(VL_MODEL_TYPE_NAME)};

void vl_arch_defaults(vl_arch *a)
{
    if (a->kv_heads == 0)
        a->kv_heads = a->heads;
    if (a->head_dim == 0 && a->heads != 0 && a->hidden % a->heads == 0)
        a->head_dim = a->hidden / a->heads;
    if (a->ffn == 0)
        a->ffn = 4 * a->hidden;
    if (a->experts == 0)
        a->experts = 1;
    if (a->experts_per_token == 0)
        a->experts_per_token = 1;
    if (a->moe_ffn == 0)
        a->moe_ffn = a->ffn;
    if (a->shared_ffn == 0)
        a->shared_ffn = a->moe_ffn;
    if (a->norms_per_layer == 0)
        a->norms_per_layer = a->parallel_attention ? 1 : 2;
    if (a->v_head_dim == 0)
        a->v_head_dim = a->head_dim;
}

#define FAIL(k, msg) \
    do {                \
        *key = (k);     \
        return (msg);   \
    } while (0)

static const char *check_moe(const vl_arch *a, const char **key)
{
    if (a->experts == 0 || a->experts > 65536)
        FAIL("experts", "experts must be between 1 and 65536");
    if (a->experts_per_token == 0 || a->experts_per_token > a->experts)
        FAIL("experts_per_token", "experts_per_token must be between 1 and experts");
    if (a->shared_experts > 65536)
        FAIL("shared_experts", "shared_experts must be at most 65536");
    if (a->moe_ffn > (1u << 24))
        FAIL("moe_intermediate_size", "moe_intermediate_size must be at most 16777216");
    if (a->shared_ffn > (1u << 24))
        FAIL("shared_expert_intermediate_size",
             "shared_expert_intermediate_size must be at most 16777216");
    if (a->experts == 1 && a->moe_ffn != a->ffn)
        FAIL("moe_intermediate_size", "moe_intermediate_size needs experts > 1");
    if (a->experts == 1 && a->dense_layers)
        FAIL("dense_layers", "dense_layers needs experts > 1");
    if (a->experts == 1 && a->router_bias)
        FAIL("router_bias", "router_bias needs experts > 1");
    if (a->shared_expert_gate && !a->shared_experts)
        FAIL("shared_experts", "a shared-expert gate needs shared experts");
    if (a->dense_layers >= a->layers)
        FAIL("dense_layers", "dense_layers must be less than num_layers");
    return NULL;
}

static const char *check_mla(const vl_arch *a, const char **key)
{
    if (a->q_lora_rank > 65536)
        FAIL("q_lora_rank", "q_lora_rank must be at most 65536");
    if (a->kv_lora_rank > 65536)
        FAIL("kv_lora_rank", "kv_lora_rank must be at most 65536");
    if (a->v_head_dim > 65536)
        FAIL("v_head_dim", "v_head_dim must be at most 65536");
    if (a->kv_lora_rank == 0) {
        if (a->q_lora_rank)
            FAIL("q_lora_rank", "q_lora_rank needs kv_lora_rank (multi-head latent attention)");
        if (a->qk_rope_head_dim)
            FAIL("qk_rope_head_dim",
                 "qk_rope_head_dim needs kv_lora_rank (multi-head latent attention)");
        if (a->v_head_dim != a->head_dim)
            FAIL("v_head_dim", "v_head_dim needs kv_lora_rank (multi-head latent attention)");
        return NULL;
    }
    if (a->qk_rope_head_dim > a->head_dim)
        FAIL("qk_rope_head_dim", "qk_rope_head_dim must be at most head_dim");
    if (a->kv_heads != a->heads)
        FAIL("num_kv_heads", "multi-head latent attention needs num_kv_heads = num_heads");
    if (a->attention_bias)
        FAIL("attention_bias", "multi-head latent attention has no q, k, v biases");
    if (a->qk_norm != VL_QK_NORM_NONE)
        FAIL("qk_norm", "multi-head latent attention has no query and key norms");
    return NULL;
}

const char *vl_arch_check(const vl_arch *a, const char **key)
{
    if (a->hidden == 0 || a->hidden > (1u << 20))
        FAIL("hidden_size", "hidden_size must be between 1 and 1048576");
    if (a->layers == 0 || a->layers > 65536)
        FAIL("num_layers", "num_layers must be between 1 and 65536");
    if (a->heads == 0 || a->heads > 65536)
        FAIL("num_heads", "num_heads must be between 1 and 65536");
    if (a->kv_heads == 0 || a->kv_heads > a->heads)
        FAIL("num_kv_heads", "num_kv_heads must be between 1 and num_heads");
    if (a->heads % a->kv_heads != 0)
        FAIL("num_kv_heads", "num_kv_heads must divide num_heads");
    if (a->head_dim == 0)
        FAIL("head_dim", "num_heads does not divide hidden_size: give head_dim");
    if (a->head_dim > 65536)
        FAIL("head_dim", "head_dim must be at most 65536");
    if (a->ffn == 0 || a->ffn > (1u << 24))
        FAIL("intermediate_size", "intermediate_size must be between 1 and 16777216");
    if (a->vocab == 0 || a->vocab > (1u << 24))
        FAIL("vocab_size", "vocab_size must be between 1 and 16777216");
    if (a->max_positions > (1u << 24))
        FAIL("max_position_embeddings", "max_position_embeddings must be at most 16777216");
    if (a->position == VL_POS_LEARNED && a->max_positions == 0)
        FAIL("max_position_embeddings", "learned positions need max_position_embeddings");
    if (a->position_offset > 65536)
        FAIL("position_offset", "position_offset must be at most 65536");
    if (a->position != VL_POS_LEARNED && a->position_offset)
        FAIL("position_offset", "position_offset needs learned positions");
    if (a->token_types > 65536)
        FAIL("token_types", "token_types must be at most 65536");
    if (a->norms_per_layer == 0 || a->norms_per_layer > 8)
        FAIL("norms_per_layer", "norms_per_layer must be between 1 and 8");
    const char *why = check_moe(a, key);
    return why ? why : check_mla(a, key);
}
#undef FAIL

uint64_t vl_mlp_params(const vl_arch *a, uint64_t f)
{
    uint64_t matrices = a->mlp == VL_MLP_GATED ? 3 : 2;
    uint64_t n = matrices * a->hidden * f;
    if (a->mlp_bias)
        n += (matrices - 1) * f + a->hidden;
    return n;
}

uint64_t vl_active_mlp_width(const vl_arch *a)
{
    if (a->experts == 1)
        return a->ffn;
    return a->experts_per_token * a->moe_ffn + a->shared_experts * a->shared_ffn;
}

uint64_t vl_norm_params(const vl_arch *a, uint64_t width)
{
    return a->norm == VL_NORM_LAYERNORM ? 2 * width : width;
}

static uint64_t max_of(const uint64_t *v, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

/* Multi-head latent attention (DeepSeek-V2 §2.1): queries through an optional rank-q_lora
 * bottleneck (with its norm), keys and values through a shared rank-kv_lora latent (with
 * its norm) plus one rotary key of qk_rope_head_dim shared by all heads. */
static uint64_t mla_params(const vl_arch *a, uint64_t *largest)
{
    const uint64_t h = a->hidden, n = a->heads, qk = a->head_dim, rope = a->qk_rope_head_dim,
                   v = a->v_head_dim, qr = a->q_lora_rank, kr = a->kv_lora_rank;
    uint64_t q = qr ? h * qr + vl_norm_params(a, qr) + qr * n * qk : h * n * qk;
    uint64_t kv = h * (kr + rope) + vl_norm_params(a, kr) + kr * n * (qk - rope + v);
    uint64_t o = n * v * h;
    const uint64_t mats[] = {qr ? h * qr : h * n * qk, qr * n * qk, h * (kr + rope),
                             kr * n * (qk - rope + v), o};
    *largest = max_of(mats, sizeof mats / sizeof mats[0]);
    return q + kv + o;
}

/* q and o are h x (a·d); k and v are h x (k·d); optional q, k, v biases. */
static uint64_t mha_params(const vl_arch *a, uint64_t *largest)
{
    const uint64_t h = a->hidden, q_width = a->heads * a->head_dim,
                   kv_width = a->kv_heads * a->head_dim;
    uint64_t n = 2 * h * q_width + 2 * h * kv_width;
    if (a->attention_bias)
        n += q_width + 2 * kv_width;
    *largest = h * q_width > h * kv_width ? h * q_width : h * kv_width;
    return n;
}

/* Qwen3Attention's q_norm and k_norm are RMSNorm(head_dim) (transformers
 * models/qwen3/modeling_qwen3.py); Olmo2Attention's are RMSNorm(heads * head_dim) and
 * RMSNorm(kv_heads * head_dim) (models/olmo2/modeling_olmo2.py). */
uint64_t vl_qk_norm_params(const vl_arch *a)
{
    switch (a->qk_norm) {
    case VL_QK_NORM_HEAD:
        return 2 * vl_norm_params(a, a->head_dim);
    case VL_QK_NORM_FULL:
        return vl_norm_params(a, a->heads * a->head_dim) +
               vl_norm_params(a, a->kv_heads * a->head_dim);
    case VL_QK_NORM_NONE:
        break;
    }
    return 0;
}

bool vl_shared_norm(const vl_arch *a)
{
    return a->parallel_attention && a->norms_per_layer == 1;
}

bool vl_arch_encoder(const vl_arch *a)
{
    return a->norm_position == VL_NORM_POST &&
           (a->pooler || a->token_types > 0 || a->embedding_norm);
}

bool vl_attention_dropout(const vl_arch *a)
{
    return a->attention_dropout == VL_ATTN_DROPOUT_AS_DROPOUT
               ? a->dropout
               : a->attention_dropout == VL_ATTN_DROPOUT_ON;
}

bool vl_attention_out_bias(const vl_arch *a)
{
    return a->attention_out_bias == VL_OUT_BIAS_AS_MLP ? a->mlp_bias
                                                       : a->attention_out_bias == VL_OUT_BIAS_ON;
}

bool vl_count_params(const vl_arch *a, vl_params *p)
{
    bool ovf = false;
    const uint64_t h = a->hidden, norm = vl_norm_params(a, h);
    uint64_t attn_largest;

    memset(p, 0, sizeof *p);
    p->embedding = vl_mul(a->vocab, h, &ovf);
    if (a->position == VL_POS_LEARNED)
        p->positions = vl_mul(a->max_positions + a->position_offset, h, &ovf);
    p->token_types = a->token_types * h;
    p->embedding_norm = a->embedding_norm ? norm : 0;
    p->lm_head = a->tie_embeddings ? 0 : p->embedding;
    p->head_bias = a->head_bias ? a->vocab : 0;
    p->final_norm = a->norm_position == VL_NORM_PRE ? norm : 0;
    p->pooler = a->pooler ? h * h + h : 0;

    p->attention = a->kv_lora_rank ? mla_params(a, &attn_largest) : mha_params(a, &attn_largest);
    if (vl_attention_out_bias(a))
        p->attention += h; /* output-projection bias */

    const uint64_t expert = vl_mlp_params(a, a->moe_ffn), shared = vl_mlp_params(a, a->shared_ffn);
    p->mlp = vl_add(vl_mul(expert, a->experts, &ovf), vl_mul(shared, a->shared_experts, &ovf), &ovf);
    p->mlp_active = vl_add(vl_mul(expert, a->experts_per_token, &ovf),
                           vl_mul(shared, a->shared_experts, &ovf), &ovf);
    p->router = a->experts > 1 ? h * a->experts + (a->router_bias ? a->experts : 0) +
                                     (a->shared_expert_gate ? h : 0)
                               : 0;
    p->norms = a->norms_per_layer * norm + vl_qk_norm_params(a);
    if (a->dense_layers) {
        p->dense_mlp = vl_mlp_params(a, a->ffn);
        p->per_dense_layer = p->attention + p->dense_mlp + p->norms;
    }

    p->per_layer = vl_add(vl_add(p->attention, p->mlp, &ovf), p->router + p->norms, &ovf);
    p->outside = p->embedding + p->positions + p->token_types + p->embedding_norm + p->lm_head +
                 p->head_bias + p->final_norm + p->pooler;
    const uint64_t routed = a->layers - a->dense_layers;
    const uint64_t dense = vl_mul(p->per_dense_layer, a->dense_layers, &ovf);
    p->total = vl_add(vl_add(vl_mul(p->per_layer, routed, &ovf), dense, &ovf), p->outside, &ovf);
    uint64_t active_layer = p->attention + p->mlp_active + p->router + p->norms;
    p->active = vl_add(vl_add(vl_mul(active_layer, routed, &ovf), dense, &ovf), p->outside, &ovf);

    const uint64_t layer[] = {attn_largest, h * a->ffn, h * a->moe_ffn, h * a->shared_ffn};
    p->largest_layer_matrix = max_of(layer, sizeof layer / sizeof layer[0]);
    const uint64_t candidates[] = {p->embedding, p->positions, p->largest_layer_matrix};
    p->largest_matrix = max_of(candidates, sizeof candidates / sizeof candidates[0]);
    return !ovf;
}

/* One r x c weight matrix, n times (hidden: inside the transformer layers). */
static void matrix(vl_shapes *o, uint64_t r, uint64_t c, uint64_t n, bool hidden, bool *ovf)
{
    uint64_t params = vl_mul(vl_mul(r, c, ovf), n, ovf);
    o->matrix = vl_add(o->matrix, params, ovf);
    o->matrix_dims = vl_add(o->matrix_dims, vl_mul(r + c, n, ovf), ovf);
    if (hidden)
        o->hidden_matrix = vl_add(o->hidden_matrix, params, ovf);
}

/* One layer's MLP of width f (n of them), as vl_mlp_params counts it. */
static void mlp_shapes(const vl_arch *a, uint64_t f, uint64_t n, vl_shapes *o, bool *ovf)
{
    uint64_t matrices = a->mlp == VL_MLP_GATED ? 3 : 2;
    matrix(o, a->hidden, f, vl_mul(matrices, n, ovf), true, ovf);
    if (a->mlp_bias)
        o->vector = vl_add(o->vector, vl_mul((matrices - 1) * f + a->hidden, n, ovf), ovf);
}

bool vl_param_shapes(const vl_arch *a, vl_shapes *o)
{
    bool ovf = false;
    const uint64_t h = a->hidden, L = a->layers, routed = a->layers - a->dense_layers;
    memset(o, 0, sizeof *o);
    /* the embedding side and the output side */
    matrix(o, a->vocab, h, a->tie_embeddings ? 1 : 2, false, &ovf);
    if (a->position == VL_POS_LEARNED)
        matrix(o, a->max_positions + a->position_offset, h, 1, false, &ovf);
    if (a->token_types)
        matrix(o, a->token_types, h, 1, false, &ovf);
    if (a->pooler) {
        matrix(o, h, h, 1, false, &ovf);
        o->vector += h;
    }
    o->vector += (a->embedding_norm ? vl_norm_params(a, h) : 0) +
                 (a->norm_position == VL_NORM_PRE ? vl_norm_params(a, h) : 0) +
                 (a->head_bias ? a->vocab : 0);
    /* attention, L layers */
    if (a->kv_lora_rank) {
        const uint64_t n = a->heads, qk = a->head_dim, rope = a->qk_rope_head_dim,
                       v = a->v_head_dim, qr = a->q_lora_rank, kr = a->kv_lora_rank;
        if (qr) {
            matrix(o, h, qr, L, true, &ovf);
            matrix(o, qr, n * qk, L, true, &ovf);
            o->vector = vl_add(o->vector, vl_mul(vl_norm_params(a, qr), L, &ovf), &ovf);
        } else {
            matrix(o, h, n * qk, L, true, &ovf);
        }
        matrix(o, h, kr + rope, L, true, &ovf);
        matrix(o, kr, n * (qk - rope + v), L, true, &ovf);
        matrix(o, n * v, h, L, true, &ovf);
        o->vector = vl_add(o->vector, vl_mul(vl_norm_params(a, kr), L, &ovf), &ovf);
    } else {
        const uint64_t q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
        matrix(o, h, q, vl_mul(2, L, &ovf), true, &ovf);
        matrix(o, h, kv, vl_mul(2, L, &ovf), true, &ovf);
        if (a->attention_bias)
            o->vector = vl_add(o->vector, vl_mul(q + 2 * kv, L, &ovf), &ovf);
    }
    if (vl_attention_out_bias(a))
        o->vector = vl_add(o->vector, vl_mul(h, L, &ovf), &ovf); /* output-projection bias */
    o->vector =
        vl_add(o->vector, vl_mul(a->norms_per_layer * vl_norm_params(a, h), L, &ovf), &ovf);
    o->vector = vl_add(o->vector, vl_mul(vl_qk_norm_params(a), L, &ovf), &ovf);
    /* the MLPs: routed and shared experts, the routers, the leading dense layers */
    mlp_shapes(a, a->moe_ffn, vl_mul(a->experts, routed, &ovf), o, &ovf);
    mlp_shapes(a, a->shared_ffn, vl_mul(a->shared_experts, routed, &ovf), o, &ovf);
    if (a->experts > 1) {
        matrix(o, h, a->experts, routed, true, &ovf);
        if (a->shared_expert_gate)
            matrix(o, h, 1, routed, true, &ovf);
        if (a->router_bias)
            o->vector = vl_add(o->vector, vl_mul(a->experts, routed, &ovf), &ovf);
    }
    if (a->dense_layers)
        mlp_shapes(a, a->ffn, a->dense_layers, o, &ovf);
    return !ovf;
}

uint64_t vl_model_params(const vl_model *m, const vl_params *p)
{
    if (m->free_params)
        return m->free_params;
    return m->checkpoint_params ? m->checkpoint_params : p->total;
}

/* Brown et al. 2020, Table 2.1: parameters, d_model, n_layers. */
static const struct {
    double params, hidden;
} gpt3_shapes[] = {
    {125e6, 768}, {350e6, 1024}, {760e6, 1536}, {1.3e9, 2048},
    {2.7e9, 2560}, {6.7e9, 4096}, {13e9, 5120}, {175e9, 12288},
};
#define N_SHAPES (sizeof gpt3_shapes / sizeof gpt3_shapes[0])

static double gpt3_hidden(double n)
{
    size_t i = 1;
    while (i < N_SHAPES - 1 && n > gpt3_shapes[i].params)
        i++;
    /* log-log line through rows i-1 and i, also used past either end */
    double x0 = log(gpt3_shapes[i - 1].params), x1 = log(gpt3_shapes[i].params);
    double y0 = log(gpt3_shapes[i - 1].hidden), y1 = log(gpt3_shapes[i].hidden);
    return exp(y0 + (log(n) - x0) * (y1 - y0) / (x1 - x0));
}

void vl_model_from_params(vl_model *m, uint64_t n)
{
    vl_arch *a = &m->arch;
    memset(m, 0, sizeof *m);

    double hraw = gpt3_hidden((double)n);
    uint64_t step = hraw >= 2048 ? 128 : 64;
    uint64_t h = (uint64_t)llround(hraw / (double)step) * step;
    if (h < 64)
        h = 64;
    if (h > (1u << 20))
        h = 1u << 20;

    *a = (vl_arch){
        .hidden = h, .layers = 1, .heads = h / (h >= 2048 ? 128 : 64), .vocab = 50257,
        .max_positions = 2048, .position = VL_POS_LEARNED, .mlp = VL_MLP_STANDARD,
        .norm = VL_NORM_LAYERNORM, .attention_bias = true, .mlp_bias = true,
        .tie_embeddings = true, .dropout = true,
    };
    vl_arch_defaults(a);

    vl_params p;
    vl_count_params(a, &p);
    uint64_t outside = p.total - p.per_layer;
    if (n > outside) {
        uint64_t layers = (n - outside + p.per_layer / 2) / p.per_layer;
        a->layers = layers < 1 ? 1 : layers > 65536 ? 65536 : layers;
    }
    m->free_params = n;
    char c[32];
    snprintf(m->name, sizeof m->name, "gpt3-like-%s", vl_fmt_count(n, c, sizeof c));
    snprintf(m->display, sizeof m->display, "GPT-3-like %s", c);
    snprintf(m->source, sizeof m->source,
             "shape interpolated on Brown et al. 2020, Table 2.1");
}
