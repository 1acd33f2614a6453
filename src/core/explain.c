/* explain.c: formulas with the current values substituted. */
#include "explain.h"

#include <stdio.h>

static const char *const optimizer_labels[VL_N_OPTIMIZERS] = {
    "AdamW m, v", "8-bit Adam m, v", "SGD momentum", "SGD", "Lion momentum"};

/* " / 8 GPUs (ZeRO-1 and up)" when the state is sharded, else "". */
static void shard_note(const vl_settings *s, unsigned from_stage, char *buf, size_t len)
{
    if (s->zero >= from_stage && s->gpus > 1)
        snprintf(buf, len, " / %llu GPUs (ZeRO-%u shards it)", (unsigned long long)s->gpus,
                 from_stage);
    else
        buf[0] = '\0';
}

void vl_explain(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                char *buf, size_t len)
{
    char p[32], v[32], x[32], y[32], z[32], sh[64];
    const vl_bpp *bpp = &b->bpp;
    const vl_activations *a = &b->act;

    vl_fmt_count(b->P, p, sizeof p);
    vl_fmt_bytes(b->bytes[c], u, v, sizeof v);
    switch (c) {
    case VL_C_WEIGHTS:
        shard_note(s, 3, sh, sizeof sh);
        snprintf(buf, len, "%u B/param x %s params%s = %s", bpp->weights, p, sh, v);
        break;
    case VL_C_GRADIENTS:
        shard_note(s, 2, sh, sizeof sh);
        snprintf(buf, len, "%u B/param x %s params%s = %s", bpp->gradients, p, sh, v);
        break;
    case VL_C_OPTIMIZER:
        shard_note(s, 1, sh, sizeof sh);
        snprintf(buf, len, "(%u master + %u grad copy + %u %s) = %u B/param x %s params%s = %s",
                 bpp->master, bpp->grad_copy, bpp->moments, optimizer_labels[s->optimizer],
                 bpp->optimizer, p, sh, v);
        break;
    case VL_C_ACTIVATIONS:
        vl_fmt_bytes(a->layer_bytes, u, x, sizeof x);
        vl_fmt_bytes(a->outside_bytes, u, z, sizeof z);
        if (s->recompute == VL_RECOMPUTE_FULL) {
            char w[32];
            snprintf(buf, len,
                     "full recompute: %llu layers x %s (each layer's input) + the larger of %s "
                     "(end of the forward: embedding, final norm, fp32 logits%s) and %s (in "
                     "backward: one layer recomputed, its input counted once, and the "
                     "embedding side) = %s",
                     (unsigned long long)a->layers, vl_fmt_bytes(a->checkpoint_bytes, u, y, sizeof y),
                     vl_fmt_bytes(a->forward_end_bytes, u, z, sizeof z),
                     a->layer_weight_copies ? ", every layer's 16-bit weight copies" : "",
                     vl_fmt_bytes(a->recompute_bytes, u, w, sizeof w), v);
        } else {
            snprintf(buf, len,
                     "%llu layers x %s per layer (%d tensors PyTorch eager modules save%s%s) "
                     "+ %s (embedding, final norm, fp32 logits) = %s",
                     (unsigned long long)a->layers, x, a->n_layer,
                     vl_precision_is_amp(s->precision) ? ", under autocast" : "",
                     s->recompute == VL_RECOMPUTE_SELECTIVE ? ", attention core recomputed"
                     : s->flash_attn                         ? ", flash attention"
                                                             : "",
                     z, v);
        }
        break;
    case VL_C_KV_CACHE:
        snprintf(buf, len, "none in training = %s", v);
        break;
    case VL_C_ZERO3_LIVE:
        if (s->zero == 3)
            snprintf(buf, len,
                     "largest matrix %s params x (%u + %u) B (weights + gradients, DeepSpeed's "
                     "estimate) = %s",
                     vl_fmt_count(b->params.largest_matrix, x, sizeof x), bpp->weights,
                     bpp->gradients, v);
        else
            snprintf(buf, len, "only at ZeRO-3 = %s", v);
        break;
    case VL_C_OVERHEAD:
        snprintf(buf, len, "--overhead (CUDA context, allocator, workspace) = %s", v);
        break;
    case VL_N_COMPONENTS:
        buf[0] = '\0';
        break;
    }
}

const char *vl_convention(const vl_settings *s)
{
    bool mixed = vl_precision_is_mixed(s->precision);
    if (s->precision == VL_FP32)
        return "fp32 training: weights, gradients and optimizer moments in fp32";
    if (vl_precision_is_amp(s->precision))
        return "PyTorch autocast: weights, gradients and optimizer moments in fp32, no master "
               "copy; the 16-bit weight copies autocast makes count as activations";
    if (!mixed)
        return "pure 16-bit training: no fp32 master copy; optimizer state in the parameters' "
               "dtype (8-bit Adam: 1 byte a moment)";
    if (s->fp32_grads)
        return "fp32 gradients (Megatron-LM main grads): no separate fp32 gradient copy; "
               "AdamW 2 + 4 + 12 = 18 B/param";
    if (s->fp32_grad_copy)
        return "optimizer states count an fp32 gradient copy, as in the article (AdamW 16, "
               "8-bit Adam 10, SGD momentum 12 B/param); --no-fp32-grad-copy gives the ZeRO "
               "paper's K = 12";
    return "no fp32 gradient copy: the ZeRO paper's K = 12 for Adam (Rajbhandari et al. 2019, "
           "section 3), 2 + 2 + 12 = 16 B/param";
}
