/* steptime.c: training step time (see steptime.h). */
#include "steptime.h"

#include "units.h"

/* The GPU's dense peak for the precision's matmuls: 16-bit formats (mixed and autocast
 * too) run at the bf16 or fp16 rate; fp32 has no figure in the GPU presets. */
static double peak_for(const vl_gpu *g, vl_precision p)
{
    switch (p) {
    case VL_BF16:
    case VL_BF16_MIXED:
    case VL_BF16_AMP:
        return g->bf16_flops;
    case VL_FP16:
    case VL_FP16_MIXED:
    case VL_FP16_AMP:
        return g->fp16_flops > 0 ? g->fp16_flops : g->bf16_flops;
    default:
        return 0;
    }
}

vl_train_speed vl_train_speed_of(const vl_model *m, const vl_breakdown *b, const vl_settings *s,
                                 const vl_gpu *gpu)
{
    vl_train_speed v = {0};
    if (s->mode != VL_MODE_TRAIN)
        return v;
    const vl_arch *a = &m->arch;
    const vl_params *p = &b->params;

    /* what a token multiplies: its active weights less the looked-up tables, and the output
     * layer (V x h, tied or not) */
    uint64_t active = m->free_params ? b->P : p->active;
    uint64_t lookup = p->embedding + p->positions + p->token_types + p->embedding_norm +
                      p->lm_head + p->head_bias;
    v.matmul_params = (active > lookup ? active - lookup : 0) + a->vocab * a->hidden;
    uint64_t output = a->vocab * a->hidden;

    /* attention: QK^T and AV over the keys attended, per layer, forward 2 x context x a x
     * (d_qk + d_v), the whole square as Megatron-LM and PaLM count it */
    v.context = a->sliding_window && a->sliding_window < s->seq ? a->sliding_window : s->seq;
    uint64_t dv = a->v_head_dim ? a->v_head_dim : a->head_dim;
    double attn_fwd = 2.0 * (double)a->layers * (double)v.context * (double)a->heads *
                      (double)(a->head_dim + dv);

    /* forward 2 FLOPs a weight, backward 4 (the input's gradient and the weight's); a frozen
     * LoRA base computes the input's gradient only, its adapters train in full */
    double mm = (double)v.matmul_params;
    double per_weight = b->lora.on ? 4.0 : 6.0;
    v.model_flops_per_token =
        per_weight * mm + 6.0 * (double)b->lora.trainable_params + 3.0 * attn_fwd;
    v.hardware_flops_per_token = v.model_flops_per_token;
    if (s->recompute == VL_RECOMPUTE_FULL) /* the layers' forward again */
        v.hardware_flops_per_token += 2.0 * (mm - (double)output) + attn_fwd;
    else if (s->recompute == VL_RECOMPUTE_SELECTIVE) /* the attention core again */
        v.hardware_flops_per_token += attn_fwd;

    v.tokens_per_step = b->par.global_batch * s->seq;
    v.peak_flops = peak_for(gpu, s->precision);
    v.known = v.peak_flops > 0 && s->mfu > 0;
    if (!v.known)
        return v;
    double achieved = (double)s->gpus * ((double)s->mfu / (double)VL_PPM) * v.peak_flops;
    v.tokens_per_s = achieved / v.model_flops_per_token;
    v.tokens_per_s_per_gpu = v.tokens_per_s / (double)s->gpus;
    v.step_seconds = (double)v.tokens_per_step / v.tokens_per_s;
    if (s->tokens) {
        double seconds = (double)s->tokens / v.tokens_per_s;
        v.days = seconds / 86400;
        v.gpu_hours = seconds * (double)s->gpus / 3600;
    }
    return v;
}
