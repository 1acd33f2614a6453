/* lora.c: LoRA trainable parameters and NF4 base weights. */
#include "lora.h"

#include <stdio.h>
#include <string.h>

#include "names.h"
#include "units.h"

const char *const vl_lora_target_names[VL_N_LORA_TARGETS] = {"q", "k", "v", "o",
                                                             "gate", "up", "down", "head"};

bool vl_lora_parse_targets(const char *s, unsigned *mask, char *why, size_t len)
{
    char item[32];
    *mask = 0;
    for (const char *p = s;;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof item) {
            snprintf(why, len, "expected q, k, v, o, gate, up, down, head (comma-separated) "
                               "or all-linear");
            return false;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        int i = vl_lookup(vl_lora_target_names, VL_N_LORA_TARGETS, item);
        if (strcmp(item, "all-linear") == 0) {
            *mask |= VL_LORA_ALL_LINEAR;
        } else if (strcmp(item, "lm_head") == 0) { /* PEFT's name for the output layer */
            *mask |= 1u << VL_LORA_HEAD;
        } else if (i < 0) {
            char hint[96];
            snprintf(why, len, "unknown target '%s' (expected q, k, v, o, gate, up, down, "
                               "head or all-linear)%s",
                     item, vl_hint(item, vl_lora_target_names, VL_N_LORA_TARGETS, hint,
                                   sizeof hint));
            return false;
        } else {
            *mask |= 1u << i;
        }
        if (!p[n])
            return true;
        p += n + 1;
    }
}

const char *vl_lora_format_targets(unsigned mask, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    if ((mask & VL_LORA_ALL_LINEAR) == VL_LORA_ALL_LINEAR) {
        o = (size_t)snprintf(buf, len, "all-linear");
        mask &= ~(unsigned)VL_LORA_ALL_LINEAR;
    }
    for (int i = 0; i < VL_N_LORA_TARGETS && o < len; i++)
        if (mask & (1u << i))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "", vl_lora_target_names[i]);
    return buf;
}

/* One adapter's A (r x in) and B (out x r), those of at least min elements. */
static uint64_t adapter(uint64_t r, uint64_t in, uint64_t out, uint64_t min)
{
    return (r * in >= min ? r * in : 0) + (r * out >= min ? r * out : 0);
}

/* Adapter parameters on one MLP of width f: gate and up are h -> f, down f -> h; a
 * standard MLP has no gate, its up (fc1) and down (fc2). */
static uint64_t mlp_adapters(const vl_arch *a, unsigned mask, uint64_t r, uint64_t f,
                             uint64_t min)
{
    uint64_t n = 0;
    if ((mask & (1u << VL_LORA_GATE)) && a->mlp == VL_MLP_GATED)
        n += adapter(r, a->hidden, f, min);
    if (mask & (1u << VL_LORA_UP))
        n += adapter(r, a->hidden, f, min);
    if (mask & (1u << VL_LORA_DOWN))
        n += adapter(r, f, a->hidden, min);
    return n;
}

const char *vl_lora_params(const vl_arch *a, unsigned mask, uint64_t rank, uint64_t min,
                           uint64_t *out)
{
    bool ovf = false;
    const uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;

    const unsigned attention = (1u << VL_LORA_Q) | (1u << VL_LORA_K) | (1u << VL_LORA_V) |
                               (1u << VL_LORA_O);
    if (mask == 0)
        return "no LoRA targets";
    if (a->kv_lora_rank && (mask & attention))
        return "LoRA on multi-head latent attention's q, k, v, o is not modelled; target the "
               "MLP only (--lora-targets gate,up,down)";
    if (a->mlp != VL_MLP_GATED && mask == 1u << VL_LORA_GATE)
        return "the model's MLP has no gate projection (standard MLP: up and down)";
    uint64_t attn = 0;
    if (mask & (1u << VL_LORA_Q))
        attn += adapter(rank, h, q, min);
    if (mask & (1u << VL_LORA_K))
        attn += adapter(rank, h, kv, min);
    if (mask & (1u << VL_LORA_V))
        attn += adapter(rank, h, kv, min);
    if (mask & (1u << VL_LORA_O))
        attn += adapter(rank, q, h, min);

    uint64_t moe_layer = vl_add(vl_mul(mlp_adapters(a, mask, rank, a->moe_ffn, min), a->experts,
                                       &ovf),
                                vl_mul(mlp_adapters(a, mask, rank, a->shared_ffn, min),
                                       a->shared_experts, &ovf),
                                &ovf);
    uint64_t dense_layer = attn + mlp_adapters(a, mask, rank, a->ffn, min);
    uint64_t routed = a->experts > 1 ? a->layers - a->dense_layers : 0;
    uint64_t dense = a->layers - routed;
    *out = vl_add(vl_mul(vl_add(attn, moe_layer, &ovf), routed, &ovf),
                  vl_mul(dense_layer, dense, &ovf), &ovf);
    if (mask & (1u << VL_LORA_HEAD))
        *out = vl_add(*out, adapter(rank, h, a->vocab, min), &ovf);
    return ovf ? "the adapter count does not fit in 64 bits" : NULL;
}

uint64_t vl_lora_head_params(const vl_arch *a, unsigned mask, uint64_t rank)
{
    return mask & (1u << VL_LORA_HEAD) ? adapter(rank, a->hidden, a->vocab, 0) : 0;
}

uint64_t vl_nf4_scale_bytes(uint64_t n, bool double_quant)
{
    const uint64_t blocks = vl_ceil_div(n, 64);
    return double_quant ? blocks + 4 * vl_ceil_div(blocks, 256) : 4 * blocks;
}

uint64_t vl_nf4_bytes(uint64_t n, bool double_quant)
{
    return vl_ceil_div(n, 2) + vl_nf4_scale_bytes(n, double_quant);
}

typedef struct nf4_sum {
    uint64_t params, bytes, scales, largest;
    bool dq, ovf;
} nf4_sum;

/* count matrices of n weights each */
static void nf4_add(nf4_sum *s, uint64_t n, uint64_t count)
{
    if (!n || !count)
        return;
    s->params = vl_add(s->params, vl_mul(n, count, &s->ovf), &s->ovf);
    s->bytes = vl_add(s->bytes, vl_mul(vl_nf4_bytes(n, s->dq), count, &s->ovf), &s->ovf);
    s->scales =
        vl_add(s->scales, vl_mul(vl_nf4_scale_bytes(n, s->dq), count, &s->ovf), &s->ovf);
    if (n > s->largest)
        s->largest = n;
}

/* One MLP of width f, count of them. */
static void nf4_mlp(nf4_sum *s, const vl_arch *a, uint64_t f, uint64_t count)
{
    nf4_add(s, vl_mul(a->hidden, f, &s->ovf), vl_mul(a->mlp == VL_MLP_GATED ? 3 : 2, count,
                                                    &s->ovf));
}

const char *vl_nf4_base(const vl_arch *a, bool double_quant, uint64_t *params, uint64_t *bytes,
                        uint64_t *scales, uint64_t *largest)
{
    nf4_sum s = {.dq = double_quant};
    const uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    if (a->kv_lora_rank)
        return "QLoRA on multi-head latent attention is not modelled";
    uint64_t routed = a->experts > 1 ? a->layers - a->dense_layers : 0;
    uint64_t dense = a->layers - routed;
    nf4_add(&s, vl_mul(h, q, &s.ovf), vl_mul(2, a->layers, &s.ovf)); /* q, o */
    nf4_add(&s, vl_mul(h, kv, &s.ovf), vl_mul(2, a->layers, &s.ovf)); /* k, v */
    nf4_mlp(&s, a, a->ffn, dense);
    if (routed) {
        nf4_mlp(&s, a, a->moe_ffn, vl_mul(a->experts, routed, &s.ovf));
        nf4_mlp(&s, a, a->shared_ffn, vl_mul(a->shared_experts, routed, &s.ovf));
    }
    *params = s.params;
    *bytes = s.bytes;
    *scales = s.scales;
    *largest = s.largest;
    return s.ovf ? "the base model's NF4 bytes do not fit in 64 bits" : NULL;
}
