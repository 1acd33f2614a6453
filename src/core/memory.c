/* memory.c: per-GPU training memory (DESIGN §4.2-§4.4). */
#include "memory.h"

#include <string.h>

#include "units.h"

const char *const vl_mode_names[VL_N_MODES] = {"train", "infer"};
const char *const vl_precision_names[VL_N_PRECISIONS] = {"fp32", "fp16", "bf16", "fp16-mixed",
                                                         "bf16-mixed"};
const char *const vl_optimizer_names[VL_N_OPTIMIZERS] = {"adamw", "adam-8bit", "sgd-momentum",
                                                         "sgd", "lion"};
const char *const vl_recompute_names[VL_N_RECOMPUTES] = {"none", "selective", "full"};
const char *const vl_dtype_names[VL_N_DTYPES] = {"fp32", "fp16", "bf16", "fp8", "int8", "int4"};
const char *const vl_component_keys[VL_N_COMPONENTS] = {
    "weights", "gradients", "optimizer", "activations", "kv_cache", "zero3_live", "overhead"};
const char *const vl_component_labels[VL_N_COMPONENTS] = {
    "weights", "gradients", "optimizer states", "activations", "KV cache", "ZeRO-3 live params",
    "overhead"};

void vl_settings_default(vl_settings *s)
{
    *s = (vl_settings){
        .mode = VL_MODE_TRAIN, .precision = VL_BF16_MIXED, .optimizer = VL_ADAMW,
        .fp32_grads = false, .fp32_grad_copy = true, .zero = 0, .gpus = 1, .batch = 1,
        .seq = 2048, .gen = 0, .recompute = VL_RECOMPUTE_NONE, .flash_attn = false,
        .weight_dtype = VL_DT_BF16, .kv_dtype = VL_DT_BF16, .group_size = 128,
        .overhead = VL_GIB,
    };
}

const char *vl_settings_check(const vl_settings *s)
{
    if (s->zero > 3)
        return "--zero must be 0, 1, 2 or 3";
    if (s->gpus < 1 || s->gpus > VL_MAX_GPUS)
        return "--gpus must be between 1 and 1048576";
    if (s->batch < 1 || s->batch > VL_MAX_BATCH)
        return "--batch must be between 1 and 1048576";
    if (s->seq < 1 || s->seq > VL_MAX_SEQ)
        return "--seq must be between 1 and 16777216";
    if (s->mode == VL_MODE_INFER) {
        if (s->zero != 0)
            return "--zero applies to training only (inference splits weights by tensor "
                   "parallelism over --gpus)";
        if (s->recompute != VL_RECOMPUTE_NONE)
            return "--recompute applies to training only";
        if (s->fp32_grads)
            return "--fp32-grads applies to training only";
        if (s->kv_dtype == VL_DT_INT4)
            return "--kv-dtype must be fp32, fp16, bf16, fp8 or int8";
        if (s->gen > VL_MAX_SEQ || s->seq + s->gen > VL_MAX_SEQ)
            return "--seq plus --gen must be at most 16777216";
        if (s->group_size < 1 || s->group_size > 65536)
            return "--group-size must be between 1 and 65536";
        return NULL;
    }
    if (s->gen != 0)
        return "--gen applies to --mode infer only";
    if (s->fp32_grads && (s->precision == VL_FP16 || s->precision == VL_BF16))
        return "--fp32-grads needs fp32 or a mixed precision (fp16-mixed, bf16-mixed)";
    return NULL;
}

bool vl_precision_is_mixed(vl_precision p)
{
    return p == VL_FP16_MIXED || p == VL_BF16_MIXED;
}

unsigned vl_activation_bytes(vl_precision p)
{
    return p == VL_FP32 ? 4 : 2;
}

vl_bpp vl_bytes_per_param(const vl_settings *s)
{
    vl_bpp b = {0};
    bool mixed = vl_precision_is_mixed(s->precision);
    bool pure16 = s->precision == VL_FP16 || s->precision == VL_BF16;

    b.weights = pure16 || mixed ? 2 : 4;
    b.gradients = b.weights == 4 || (mixed && s->fp32_grads) ? 4 : 2;
    b.master = mixed ? 4 : 0;
    b.grad_copy = mixed && b.gradients != 4 && s->fp32_grad_copy ? 4 : 0;
    /* Moments live in fp32 except in the pure 16-bit modes, where optimizers keep their
     * state in the parameters' dtype; 8-bit Adam keeps two 1-byte moments always. */
    unsigned elem = pure16 ? 2 : 4;
    switch (s->optimizer) {
    case VL_ADAMW: b.moments = 2 * elem; break;
    case VL_ADAM_8BIT: b.moments = 2; break;
    case VL_SGD_MOMENTUM: b.moments = elem; break;
    case VL_LION: b.moments = elem; break;
    case VL_SGD: case VL_N_OPTIMIZERS: b.moments = 0; break;
    }
    b.optimizer = b.master + b.grad_copy + b.moments;
    return b;
}

uint64_t vl_state_bytes(uint64_t params, unsigned bytes_per_param, bool sharded, uint64_t gpus,
                        bool *ovf)
{
    uint64_t held = sharded ? vl_ceil_div(params, gpus) : params;
    return vl_mul(held, bytes_per_param, ovf);
}

uint64_t vl_zero3_live_bytes(uint64_t largest_matrix, const vl_bpp *b, bool *ovf)
{
    return vl_mul(largest_matrix, b->weights + b->gradients, ovf);
}

static void term(vl_term *list, int *n, uint64_t *sum, const char *name, uint64_t bytes,
                 bool *ovf)
{
    list[*n] = (vl_term){name, bytes};
    (*n)++;
    *sum = vl_add(*sum, bytes, ovf);
}

/* Per tensor, after Korthikanti et al. 2022 §4.1: for a GPT layer (a·d = h, k = a, f = 4h,
 * standard MLP, dropout, 16-bit) this is s·b·h·(34 + 5·a·s/h) bytes. */
void vl_activations_compute(const vl_arch *a, const vl_settings *s, vl_activations *out,
                            bool *ovf)
{
    const uint64_t beta = vl_activation_bytes(s->precision);
    const uint64_t sb = vl_mul(s->seq, s->batch, ovf);
    const uint64_t sbh = vl_mul(sb, a->hidden, ovf);
    const uint64_t q = vl_mul(sb, a->heads * a->head_dim, ovf);
    const uint64_t kv = vl_mul(sb, a->kv_heads * a->head_dim, ovf);
    const uint64_t ass = vl_mul(vl_mul(vl_mul(s->seq, s->seq, ovf), s->batch, ovf), a->heads, ovf);
    const uint64_t mlp = vl_mul(sb, vl_active_mlp_width(a), ovf);
    const bool drop = a->dropout;
    const bool core_saved = s->recompute != VL_RECOMPUTE_SELECTIVE;
    vl_term *L = out->layer, *O = out->outside;
    uint64_t *ls = &out->layer_bytes, *os = &out->outside_bytes;

    memset(out, 0, sizeof *out);
    out->layers = a->layers;
    int *n = &out->n_layer;
    term(L, n, ls, "attention norm input", vl_mul(beta, sbh, ovf), ovf);
    term(L, n, ls, "QKV projection input", vl_mul(beta, sbh, ovf), ovf);
    term(L, n, ls, "Q", vl_mul(beta, q, ovf), ovf);
    term(L, n, ls, "K", vl_mul(beta, kv, ovf), ovf);
    term(L, n, ls, "V", vl_mul(beta, kv, ovf), ovf);
    if (core_saved && !s->flash_attn) {
        term(L, n, ls, "attention softmax output (s x s per head)", vl_mul(beta, ass, ovf), ovf);
        if (drop) {
            term(L, n, ls, "attention dropout mask", ass, ovf);
            term(L, n, ls, "attention dropout output", vl_mul(beta, ass, ovf), ovf);
        }
    } else if (core_saved) {
        term(L, n, ls, "flash-attention row statistics (fp32)",
             vl_mul(4 * a->heads, sb, ovf), ovf);
    }
    term(L, n, ls, "attention output-projection input", vl_mul(beta, q, ovf), ovf);
    if (drop)
        term(L, n, ls, "attention residual dropout mask", sbh, ovf);
    if (!a->parallel_attention) {
        term(L, n, ls, "MLP norm input", vl_mul(beta, sbh, ovf), ovf);
        term(L, n, ls, "MLP input", vl_mul(beta, sbh, ovf), ovf);
    }
    if (a->experts > 1)
        term(L, n, ls, "router probabilities (fp32)", vl_mul(4 * a->experts, sb, ovf), ovf);
    if (a->mlp == VL_MLP_GATED) {
        term(L, n, ls, "MLP gate projection output", vl_mul(beta, mlp, ovf), ovf);
        term(L, n, ls, "MLP up projection output", vl_mul(beta, mlp, ovf), ovf);
    } else {
        term(L, n, ls, "MLP activation input", vl_mul(beta, mlp, ovf), ovf);
    }
    term(L, n, ls, "MLP down projection input", vl_mul(beta, mlp, ovf), ovf);
    if (drop)
        term(L, n, ls, "MLP dropout mask", sbh, ovf);

    n = &out->n_outside;
    term(O, n, os, "token ids (int64)", vl_mul(8, sb, ovf), ovf);
    if (drop)
        term(O, n, os, "embedding dropout mask", sbh, ovf);
    term(O, n, os, "final norm input", vl_mul(beta, sbh, ovf), ovf);
    term(O, n, os, "output-projection input", vl_mul(beta, sbh, ovf), ovf);
    term(O, n, os, "logits (fp32, for the loss)", vl_mul(vl_mul(4, sb, ovf), a->vocab, ovf), ovf);

    if (s->recompute == VL_RECOMPUTE_FULL) {
        /* each layer keeps only its input; one layer is recomputed at a time */
        out->checkpoint_bytes = vl_mul(beta, sbh, ovf);
        out->total = vl_add(vl_mul(out->checkpoint_bytes, a->layers, ovf), out->layer_bytes, ovf);
    } else {
        out->total = vl_mul(out->layer_bytes, a->layers, ovf);
    }
    out->total = vl_add(out->total, out->outside_bytes, ovf);
}

const char *vl_estimate(const vl_model *m, const vl_settings *s, vl_breakdown *out)
{
    const char *why = vl_settings_check(s);
    if (why)
        return why;

    bool ovf = false;
    memset(out, 0, sizeof *out);
    if (!vl_count_params(&m->arch, &out->params))
        return "the model's parameter count does not fit in 64 bits";
    out->P = vl_model_params(m, &out->params);
    if (s->mode == VL_MODE_INFER)
        return vl_estimate_infer(m, s, out);
    out->bpp = vl_bytes_per_param(s);

    uint64_t *b = out->bytes;
    b[VL_C_WEIGHTS] = vl_state_bytes(out->P, out->bpp.weights, s->zero >= 3, s->gpus, &ovf);
    b[VL_C_GRADIENTS] = vl_state_bytes(out->P, out->bpp.gradients, s->zero >= 2, s->gpus, &ovf);
    b[VL_C_OPTIMIZER] = vl_state_bytes(out->P, out->bpp.optimizer, s->zero >= 1, s->gpus, &ovf);
    vl_activations_compute(&m->arch, s, &out->act, &ovf);
    b[VL_C_ACTIVATIONS] = out->act.total;
    b[VL_C_KV_CACHE] = 0;
    b[VL_C_ZERO3_LIVE] =
        s->zero == 3 ? vl_zero3_live_bytes(out->params.largest_matrix, &out->bpp, &ovf) : 0;
    b[VL_C_OVERHEAD] = s->overhead;
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        out->total = vl_add(out->total, b[c], &ovf);
    if (ovf)
        return "the result does not fit in 64 bits (over 16 EiB per GPU): reduce --batch or --seq";
    return NULL;
}
