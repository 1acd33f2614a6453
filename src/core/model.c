/* model.c: exact parameter counts (DESIGN §4.1) and GPT-3-like shapes for free counts. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

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
}

#define FAIL(k, msg) \
    do {                \
        *key = (k);     \
        return (msg);   \
    } while (0)

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
    if (a->experts == 0 || a->experts > 65536)
        FAIL("experts", "experts must be between 1 and 65536");
    if (a->experts_per_token == 0 || a->experts_per_token > a->experts)
        FAIL("experts_per_token", "experts_per_token must be between 1 and experts");
    if (a->shared_experts > 65536)
        FAIL("shared_experts", "shared_experts must be at most 65536");
    *key = NULL;
    return NULL;
}
#undef FAIL

bool vl_count_params(const vl_arch *a, vl_params *p)
{
    bool ovf = false;
    const uint64_t h = a->hidden, q_width = a->heads * a->head_dim,
                   kv_width = a->kv_heads * a->head_dim, f = a->ffn;

    memset(p, 0, sizeof *p);
    p->embedding = vl_mul(a->vocab, h, &ovf);
    p->positions = a->position == VL_POS_LEARNED ? vl_mul(a->max_positions, h, &ovf) : 0;
    p->lm_head = a->tie_embeddings ? 0 : p->embedding;

    /* q and o are h x (a·d); k and v are h x (k·d). */
    p->attention = 2 * h * q_width + 2 * h * kv_width;
    if (a->attention_bias)
        p->attention += q_width + 2 * kv_width;
    if (a->mlp_bias)
        p->attention += h; /* output-projection bias */

    uint64_t matrices = a->mlp == VL_MLP_GATED ? 3 : 2;
    uint64_t expert = matrices * h * f;
    if (a->mlp_bias)
        expert += (matrices - 1) * f + h;
    p->mlp = vl_mul(expert, a->experts + a->shared_experts, &ovf);
    p->mlp_active = vl_mul(expert, a->experts_per_token + a->shared_experts, &ovf);
    p->router = a->experts > 1 ? h * a->experts : 0;

    uint64_t norm = a->norm == VL_NORM_LAYERNORM ? 2 * h : h;
    p->norms = (a->parallel_attention ? 1 : 2) * norm;
    p->final_norm = norm;

    p->per_layer = vl_add(vl_add(p->attention, p->mlp, &ovf), p->router + p->norms, &ovf);
    uint64_t outside = p->embedding + p->positions + p->lm_head + p->final_norm;
    p->total = vl_add(vl_mul(p->per_layer, a->layers, &ovf), outside, &ovf);
    uint64_t active_layer = p->attention + p->mlp_active + p->router + p->norms;
    p->active = vl_add(vl_mul(active_layer, a->layers, &ovf), outside, &ovf);

    uint64_t big = p->embedding;
    const uint64_t candidates[] = {p->positions, h * q_width, h * kv_width, h * f};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (candidates[i] > big)
            big = candidates[i];
    p->largest_matrix = big;
    return !ovf;
}

uint64_t vl_model_params(const vl_model *m, const vl_params *p)
{
    return m->free_params ? m->free_params : p->total;
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
