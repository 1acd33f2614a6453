/* memory.c: per-GPU training memory (HACKING §4.2-§4.4). */
#include "memory.h"

#include <stdio.h>
#include <string.h>

#include "framework.h"
#include "i18n.h"
#include "lora.h"
#include "units.h"

const char *const vl_component_keys[VL_N_COMPONENTS] = {
    "weights", "gradients", "optimizer", "activations", "kv_cache", "zero3_live", "overhead"};
const char *const vl_component_labels[VL_N_COMPONENTS] = {
    N_("weights"), N_("gradients"), N_("optimizer states"), N_("activations"), N_("KV cache"),
    N_("ZeRO-3 live params"), N_("overhead")};

unsigned vl_activation_bytes(vl_precision p)
{
    return p == VL_FP32 ? 4 : 2;
}

/* An auto/true/false setting: auto is the framework's choice. */
static bool chosen(vl_choice c, bool framework_choice)
{
    return c == VL_CHOICE_AUTO ? framework_choice : c == VL_CHOICE_TRUE;
}

/* FSDP's MixedPrecision casts each unit's fp32 shard to param_dtype before it all-gathers it
 * (torch/distributed/fsdp/_flat_param.py, FlatParamHandle._use_low_precision_shard), so the
 * unit's forward and backward read 16-bit weights, autocast finds nothing to cast, and every
 * tensor the layers write is 16-bit, the residual stream too; the unit's gradient is made in
 * param_dtype and reduce-scattered in reduce_dtype before it is cast into the fp32 shard
 * (_cast_grad_to_param_dtype in _runtime_utils.py).  The fp32 shard stays what the
 * optimizer steps. */
bool vl_fsdp_casts_params(const vl_settings *s)
{
    if (vl_setting_table[VL_SET_FSDP_MIXED_PRECISION].inert(s)) /* FSDP under autocast? */
        return false;
    return chosen(s->fsdp_mixed_precision, s->framework->fsdp_mixed_precision);
}

bool vl_loop_keeps_logits(const vl_settings *s)
{
    if (s->mode == VL_MODE_INFER) /* a forward alone's loop, only where told */
        return s->loop_keeps_logits == VL_KEEP_LOGITS_TRUE &&
               !vl_setting_table[VL_SET_LOOP_KEEPS_LOGITS].inert(s);
    return s->loop_keeps_logits == VL_KEEP_LOGITS_AUTO ? s->framework->loop_keeps_logits
                                                       : s->loop_keeps_logits == VL_KEEP_LOGITS_TRUE;
}

bool vl_loop_binds_logits(const vl_settings *s)
{
    return s->loop_keeps_logits == VL_KEEP_LOGITS_BACKWARD || s->framework->loop_keeps_logits;
}

bool vl_outputs_fp32(const vl_settings *s)
{
    if (vl_setting_table[VL_SET_OUTPUTS_FP32].inert(s)) /* autocast, transformers' model? */
        return false;
    return chosen(s->outputs_fp32, s->framework->outputs_to_fp32);
}

bool vl_use_cache(const vl_settings *s)
{
    return chosen(s->use_cache, s->framework->use_cache);
}

bool vl_norm_upcast(const vl_settings *s)
{
    return chosen(s->norm_upcast, s->framework->norm_upcast);
}

bool vl_autocast(const vl_settings *s)
{
    if (vl_precision_is_amp(s->precision))
        return true;
    return vl_precision_holds_16bit(s->precision) && chosen(s->autocast, s->framework->autocast);
}

bool vl_zero_fp32_master(const vl_settings *s)
{
    return s->framework->zero_fp32_master && (s->zero == 1 || s->zero == 2) &&
           (s->precision == VL_FP32 || vl_precision_is_amp(s->precision));
}

bool vl_quant_storage_16bit(const vl_settings *s)
{
    return s->quant_storage == VL_QS_BF16 || s->quant_storage == VL_QS_FP16;
}

/* PEFT gives a layer's new adapters its weight's dtype where that is a float (lora/layer.py,
 * update_layer, and _move_adapter_to_device_of_base_layer from 0.11): a 16-bit layer's are
 * 16-bit until 0.12's autocast_adapter_dtype casts them to fp32 (--peft); a 4-bit layer's
 * packed weight is uint8, no float, and they stay fp32 as made, unless its quant_storage is
 * a 16-bit float, which makes them as a 16-bit layer's. */
bool vl_adapters_fp32(const vl_settings *s)
{
    return s->lora_rank && vl_precision_holds_16bit(s->precision) &&
           (s->qlora && !vl_quant_storage_16bit(s)
                ? s->framework->qlora_adapters_fp32
                : s->framework->lora_adapters_fp32 && s->peft == VL_PEFT_CURRENT);
}

bool vl_adapters_cast_input(const vl_settings *s)
{
    return vl_adapters_fp32(s) && !vl_autocast(s);
}

bool vl_adapters_cast16(const vl_settings *s)
{
    /* a 4-bit layer's forward casts only without autocast (lora/bnb.py,
     * requires_conversion); a 16-bit layer's always (lora/layer.py) */
    return vl_adapters_fp32(s) && !s->qlora && vl_autocast(s);
}

vl_precision vl_compute_precision(const vl_settings *s)
{
    if (!vl_fsdp_casts_params(s))
        return s->precision;
    return s->precision == VL_FP16_AMP ? VL_FP16 : VL_BF16;
}

/* ---- the optimizers' states (§4.2), one rule per row of VL_OPTIMIZER_LIST --------------
 * elem is the bytes of one state element: fp32, except in the pure 16-bit modes, where
 * optimizers keep their state in the parameters' dtype (torch.optim creates it with
 * zeros_like(param)). */

typedef struct opt_state {
    unsigned per_param;  /* bytes for every parameter */
    unsigned tensors;    /* the tensors per_param is, each in its parameter's shape */
    uint64_t shaped;     /* bytes for the whole model besides */
    const char *what;    /* what shaped is, or NULL */
} opt_state;

/* AdamW: m and v (Loshchilov and Hutter 2019; torch.optim.AdamW). */
static opt_state adamw_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    (void)sh, (void)ovf;
    return (opt_state){2 * elem, 2, 0, NULL};
}

/* 8-bit Adam: two 1-byte moments always (Dettmers et al. 2022, bitsandbytes), whose block
 * statistics (one fp32 per 2048 values) are left out. */
static opt_state adam8bit_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    (void)elem, (void)sh, (void)ovf;
    return (opt_state){2, 2, 0, NULL};
}

/* SGD with momentum and Lion (Chen et al. 2023): one momentum buffer. */
static opt_state momentum_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    (void)sh, (void)ovf;
    return (opt_state){elem, 1, 0, NULL};
}

static opt_state sgd_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    (void)elem, (void)sh, (void)ovf;
    return (opt_state){0, 0, 0, NULL};
}

/* Adafactor (Shazeer and Stern 2018, §3-4): a matrix's second moment factored into a row and
 * a column vector, r + c values; a 1-D tensor keeps a full one.  Hugging Face's
 * transformers.Adafactor casts 16-bit gradients to fp32 first, so its states are fp32 in
 * every precision; its per-tensor step and RMS scalars are left out. */
static opt_state adafactor_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    (void)elem;
    return (opt_state){0, 0, vl_mul(4, vl_add(sh->matrix_dims, sh->vector, ovf), ovf),
                       "Adafactor's factored second moment: 4 B x (rows + columns of each "
                       "matrix + every 1-D parameter)"};
}

/* Adafactor with beta1 set: also a full fp32 first moment. */
static opt_state adafactor_m_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    opt_state st = adafactor_state(elem, sh, ovf);
    st.per_param = 4;
    st.tensors = 1;
    return st;
}

/* Muon (Jordan et al. 2024, the reference implementation's MuonWithAuxAdam): one momentum
 * buffer for the transformer layers' matrices; the embeddings, the output layer, norms and
 * biases are left to AdamW, whose second moment they keep besides. */
static opt_state muon_state(unsigned elem, const vl_shapes *sh, bool *ovf)
{
    uint64_t rest = vl_add(sh->matrix - sh->hidden_matrix, sh->vector, ovf);
    return (opt_state){elem, 1, vl_mul(elem, rest, ovf),
                       "AdamW's second moment of what Muon leaves to it (embeddings, output "
                       "layer, norms, biases)"};
}

#define OPT_RULE(id, name, label, rule, shaped) rule,
static opt_state (*const opt_rules[VL_N_OPTIMIZERS])(unsigned, const vl_shapes *, bool *) = {
    VL_OPTIMIZER_LIST(OPT_RULE)};
#undef OPT_RULE

vl_bpp vl_bytes_per_param(const vl_settings *s, const vl_arch *a)
{
    vl_bpp b = {0};
    bool mixed = vl_precision_is_mixed(s->precision);
    bool pure16 = s->precision == VL_FP16 || s->precision == VL_BF16;

    /* autocast keeps fp32 weights, gradients and moments, as fp32 training does */
    b.weights = pure16 || mixed ? 2 : 4;
    b.gradients = b.weights == 4 || (mixed && s->fp32_grads) ? 4 : 2;
    b.master = mixed || vl_zero_fp32_master(s) ? 4 : 0;
    b.grad_copy = mixed && b.gradients != 4 && s->fp32_grad_copy ? 4 : 0;
    const bool cast = vl_fsdp_casts_params(s);
    b.gathered = cast ? 2 : b.weights;
    b.unsharded_grad = cast ? 2 : b.gradients;
    vl_shapes sh = {0};
    bool ovf = false;
    if (a)
        vl_param_shapes(a, &sh);
    opt_state st = opt_rules[s->optimizer](pure16 ? 2 : 4, &sh, &ovf);
    b.moments = st.per_param;
    b.moment_tensors = st.tensors;
    b.shaped_bytes = ovf ? UINT64_MAX : st.shaped;
    b.shaped = st.shaped ? st.what : NULL;
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
    return vl_mul(largest_matrix, b->gathered + b->unsharded_grad, ovf);
}

static void term(vl_term *list, int *n, uint64_t *sum, const char *name, uint64_t bytes,
                 bool *ovf)
{
    list[*n] = (vl_term){name, bytes};
    (*n)++;
    *sum = vl_add(*sum, bytes, ovf);
}

/* One norm's saved tensors: nn.LayerNorm keeps its input; Hugging Face's RMSNorm keeps its
 * input upcast to fp32 and the normalized tensor (for the weight's gradient) in the
 * residual dtype, and one that computes in its input's dtype (upcast false) keeps its
 * input as it is.  The per-token statistics (1/h of the input) are left out, as
 * Korthikanti et al. leave them out. */
static void norm_terms(vl_term *list, int *n, uint64_t *sum, const vl_arch *a, uint64_t rho,
                       uint64_t sbh, bool upcast, const char *const names[4], bool *ovf)
{
    if (a->norm == VL_NORM_RMSNORM) {
        term(list, n, sum, names[upcast ? 1 : 3], vl_mul(upcast ? 4 : rho, sbh, ovf), ovf);
        term(list, n, sum, names[2], vl_mul(rho, sbh, ovf), ovf);
    } else {
        term(list, n, sum, names[0], vl_mul(rho, sbh, ovf), ovf);
    }
}

/* LayerNorm's input; RMSNorm's input upcast, normalized, and in its dtype (the RMSNorm
 * names share "norm input, ", which vl_rmsnorm_input matches) */
static const char *const attn_norm[4] = {
    "attention norm input", "attention norm input, upcast to fp32",
    "attention norm, normalized input", "attention norm input, in its dtype"};
static const char *const mlp_norm[4] = {"MLP norm input", "MLP norm input, upcast to fp32",
                                        "MLP norm, normalized input",
                                        "MLP norm input, in its dtype"};
static const char *const final_norm[4] = {
    "final norm input", "final norm input, upcast to fp32", "final norm, normalized input",
    "final norm input, in its dtype"};
static const char *const embedding_norm[4] = {
    "embedding norm input", "embedding norm input, upcast to fp32",
    "embedding norm, normalized input", "embedding norm input, in its dtype"};

bool vl_rmsnorm_input(const char *term_name)
{
    return strstr(term_name, "norm input, ") != NULL;
}

/* trl's SFTTrainer (0.7.5 to 0.21, peft_module_casting_to_bf16 in trl/trainer/utils.py):
 * training a 4-bit model with bf16, once PEFT's prepare_model_for_kbit_training has upcast
 * every parameter that is not 4-bit to fp32, it casts the embeddings and the output layer
 * (embed_tokens, wte, wpe, lm_head) back to bf16 and keeps the norms in fp32. */
static bool bf16_embeddings(const vl_settings *s)
{
    return s->qlora && s->precision == VL_BF16_AMP && s->framework->qlora_bf16_embeddings;
}

/* --head cls: an encoder without a pooler has a dense layer of its own before the
 * classifier (DistilBertForSequenceClassification's pre_classifier, h x h + h, its ReLU
 * output kept). */
static bool cls_dense(const vl_arch *a)
{
    return vl_arch_encoder(a) && !a->pooler;
}

bool vl_qlora_head(const vl_settings *s, const vl_params *p)
{
    return s->qlora && s->lora_rank && s->framework->bnb_quantize_head && p->lm_head;
}

/* Per tensor, as PyTorch eager modules keep them (vramlab(1), FORMULAS).  For a GPT layer
 * (a·d = h, k = a, f = 4h, standard MLP, LayerNorm, dropout, 16-bit) this is Korthikanti
 * et al. 2022, §4.1: s·b·h·(34 + 5·a·s/h) bytes. */
void vl_activations_compute(const vl_arch *a, const vl_settings *s, vl_activations *out,
                            bool *ovf)
{
    const vl_precision compute = vl_compute_precision(s);
    const bool amp = vl_precision_is_amp(compute);
    /* beta: what the matmuls read and write; rho: what autocast runs in fp32 (the residual
     * stream, the norms, the softmax) */
    const uint64_t beta = vl_activation_bytes(compute);
    const uint64_t rho = amp ? 4 : beta;
    const bool upcast = vl_norm_upcast(s);
    /* context parallel cp (Megatron-Core): every tensor of the layers and the embeddings
     * holds this GPU's seq / cp tokens; attention runs over blocks (never the s x s scores,
     * which vl_settings_check refuses with --cp) with the other GPUs' keys and values passed
     * round a ring */
    const uint64_t cp = s->cp ? s->cp : 1, seq = s->seq / cp;
    const uint64_t sb = vl_mul(seq, s->batch, ovf);
    const uint64_t sbh = vl_mul(sb, a->hidden, ovf);
    const uint64_t q = vl_mul(sb, a->heads * a->head_dim, ovf);
    const uint64_t kv = vl_mul(sb, a->kv_heads * a->head_dim, ovf);
    const uint64_t ass = vl_mul(vl_mul(vl_mul(seq, seq, ovf), s->batch, ovf), a->heads, ovf);
    const uint64_t mlp = vl_mul(sb, vl_active_mlp_width(a), ovf);
    const bool drop = a->dropout, attn_drop = vl_attention_dropout(a),
               gated = a->mlp == VL_MLP_GATED;
    const bool core_saved = s->recompute != VL_RECOMPUTE_SELECTIVE;
    /* K and V as the attention keeps them.  The s² path keeps them as repeat_kv widened
     * them to the a query heads.  A model that repeats them for its kernel (the framework's
     * kv_repeat: transformers' for SDPA, LitGPT's for any) keeps the copies, but one KV
     * head's repeat is a view of it; LitGPT's RoPE, after its repeat, makes K a copy
     * anyway. */
    const vl_attention attention = vl_attention_for(s, a);
    const bool explicit_core = core_saved && attention == VL_ATTN_EAGER;
    const vl_kv_repeat rep = core_saved && !explicit_core ? s->framework->kv_repeat
                                                          : VL_KV_REPEAT_NONE;
    const bool repeats = rep == VL_KV_REPEAT_BEFORE_ROPE ||
                         (rep == VL_KV_REPEAT_AFTER_ROPE && attention == VL_ATTN_SDPA);
    const bool gqa = kv != q;
    const bool wide_v = gqa && (explicit_core || (repeats && a->kv_heads > 1));
    const bool wide_k = gqa && (explicit_core || (repeats && (a->kv_heads > 1 ||
                                                              rep == VL_KV_REPEAT_BEFORE_ROPE)));
    /* tensor parallel t (Korthikanti et al. 2022, Table 2): what attention and the MLP keep
     * is split by heads and by the FFN width (TS); the norms' inputs, the projections'
     * inputs and the residual dropout masks are whole on every GPU (RS) unless sequence
     * parallelism splits them along the sequence */
    const uint64_t t = s->tp ? s->tp : 1;
#define TS(x) vl_ceil_div((x), t)
#define RS(x) (s->sp ? vl_ceil_div((x), t) : (x))
    /* LoRA: a frozen nn.Linear keeps no input (only its weight, for its input's gradient);
     * an adapted one keeps the input its adapter shares, and the adapter its r-wide x.A */
#define KEEPS(target) (!s->lora_rank || (s->lora_targets & (1u << (target))))
    const unsigned qkv_kept = KEEPS(VL_LORA_Q) + KEEPS(VL_LORA_K) + KEEPS(VL_LORA_V);
    const bool fused = s->framework->fused_qkv;
    const unsigned mlp_in_kept = (gated && KEEPS(VL_LORA_GATE)) + KEEPS(VL_LORA_UP);
    /* fp32 adapters without autocast (vl_adapters_cast_input): each keeps an fp32 copy of
     * its input of its own, and its x.A in fp32 */
    const bool cast32 = vl_adapters_cast_input(s);
    const uint64_t ab = cast32 ? 4 : beta;
    /* ... and under autocast a 16-bit layer's fp32 adapters cast the input to fp32, which
     * autocast casts back for the matmul: each keeps a 16-bit copy of its own, as autocast
     * over fp32 weights makes one each */
    const bool cast_each = amp || vl_adapters_cast16(s);
    vl_term *L = out->layer, *O = out->outside;
    uint64_t *ls = &out->layer_bytes, *os = &out->outside_bytes;
    vl_params p;

    memset(out, 0, sizeof *out);
    if (!vl_count_params(a, &p))
        *ovf = true;
    /* pipeline parallel p, 1F1B: the first stage holds ceil(L/p) layers and keeps the
     * activations of min(p, grad_accum) micro-batches (p of them in the steady state) */
    const uint64_t pp = s->pp ? s->pp : 1;
    const uint64_t accum = s->grad_accum ? s->grad_accum : 1;
    out->layers = vl_ceil_div(a->layers, pp);
    out->in_flight = pp > 1 ? (accum < pp ? accum : pp) : 1;
    out->chunk_layers = out->layers;
    out->chunks_in_flight = out->in_flight;
    if (pp > 1 && s->vpp > 1) {
        /* Interleaved 1F1B (Narayanan et al. 2021, §2.2.2), as Megatron-LM counts it
         * (theoretical_memory_usage.py; schedules.py): the first stage runs (p - 1) x 2 +
         * (v - 1) x p chunk forwards before its first backward, so it keeps p·v + p - 1
         * chunks of L/(p·v) layers (of all m·v chunks at most), L·(1 + (p - 1)/(p·v)) layers'
         * worth; the embedding side is kept for ceil(p + (p - 1)/v) micro-batches, Megatron's
         * in-flight micro-batches (at most m). */
        const uint64_t v = s->vpp, w = pp * v + pp - 1, e = vl_ceil_div(w, v);
        out->chunk_layers = a->layers / (pp * v);
        out->chunks_in_flight = w < accum * v ? w : accum * v;
        out->in_flight = e < accum ? e : accum;
    }
    int *n = &out->n_layer;
    const bool shared_norm = vl_shared_norm(a);
    norm_terms(L, n, ls, a, rho, RS(sbh), upcast, attn_norm, ovf);
    /* under autocast every nn.Linear casts the fp32 norm output for itself, a fused QKV
     * projection once */
    if (cast_each && qkv_kept)
        term(L, n, ls,
             fused ? "QKV input (a 16-bit cast)" : "q, k, v inputs (a 16-bit cast each)",
             vl_mul((fused ? 1 : qkv_kept) * beta, RS(sbh), ovf), ovf);
    else if (cast32 && (qkv_kept || (shared_norm && mlp_in_kept)))
        term(L, n, ls, "QKV projection input: each adapter's fp32 copy",
             vl_mul(4 * (qkv_kept + (shared_norm ? mlp_in_kept : 0)), RS(sbh), ovf), ovf);
    else if (!cast_each && (qkv_kept || (shared_norm && mlp_in_kept)))
        term(L, n, ls, "QKV projection input", vl_mul(beta, RS(sbh), ovf), ovf);
    term(L, n, ls, "Q", vl_mul(beta, TS(q), ovf), ovf);
    term(L, n, ls, wide_k ? "K, repeated to the query heads" : "K",
         vl_mul(beta, TS(wide_k ? q : kv), ovf), ovf);
    /* V as a view keeps the whole fused QKV output it slices, where RoPE made Q and K anew:
     * LitGPT's qkv split (its v_views_qkv), transformers' GPT-NeoX and Phi-3 (the model's
     * qkv_views); GPT-2's Q, K and V, all views of one c_attn output, are that output */
    const bool v_view = s->framework->v_views_qkv ||
                        (s->framework->transformers && a->qkv_views == VL_QKV_VIEWS_V);
    if (v_view && !wide_v)
        term(L, n, ls, "V, a view that keeps the fused QKV output whole",
             vl_mul(beta, TS(vl_add(q, vl_mul(2, kv, ovf), ovf)), ovf), ovf);
    else
        term(L, n, ls, wide_v ? "V, repeated to the query heads" : "V",
             vl_mul(beta, TS(wide_v ? q : kv), ovf), ovf);
    if (explicit_core) {
        term(L, n, ls, amp ? "attention softmax output (fp32, s x s)"
                           : "attention softmax output (s x s per head)",
             vl_mul(rho, TS(ass), ovf), ovf);
        if (attn_drop)
            term(L, n, ls, "attention dropout mask", TS(ass), ovf);
        if (attn_drop || amp)
            term(L, n, ls, !amp       ? "attention dropout output"
                           : attn_drop ? "attention dropout output, cast to 16 bits"
                                       : "attention softmax output, cast to 16 bits",
                 vl_mul(beta, TS(ass), ovf), ovf);
    } else if (core_saved) {
        term(L, n, ls, "flash-attention row statistics (fp32)",
             vl_mul(4, TS(vl_mul(a->heads, sb, ovf)), ovf), ovf);
        uint64_t mask, mask_copy;
        vl_sdpa_padding_mask(s, a, rho, beta, &mask, &mask_copy, ovf);
        if (mask_copy)
            term(L, n, ls, "padding mask, SDPA's copy (b x 1 x s x s)", mask_copy, ovf);
    }
    if (KEEPS(VL_LORA_O))
        term(L, n, ls,
             cast32 ? "attention output-projection input: the adapter's fp32 copy"
                    : "attention output-projection input",
             vl_mul(ab, TS(q), ovf), ovf);
    if (drop)
        term(L, n, ls, "attention residual dropout mask", RS(sbh), ovf);
    /* parallel attention's MLP norm, where it has one of its own, reads the input the
     * attention's norm keeps: not counted again */
    if (!a->parallel_attention)
        norm_terms(L, n, ls, a, rho, RS(sbh), upcast, mlp_norm, ovf);
    if (cast_each && mlp_in_kept)
        term(L, n, ls, gated ? "gate, up inputs (a 16-bit cast each)"
                             : "MLP input (16-bit cast)",
             vl_mul(mlp_in_kept * beta, RS(sbh), ovf), ovf);
    else if (cast32 && !shared_norm && mlp_in_kept)
        term(L, n, ls, "MLP input: each adapter's fp32 copy",
             vl_mul(4 * mlp_in_kept, RS(sbh), ovf), ovf);
    else if (!cast_each && !shared_norm && mlp_in_kept)
        term(L, n, ls, "MLP input", vl_mul(beta, RS(sbh), ovf), ovf);
    if (a->experts > 1)
        term(L, n, ls, "router probabilities (fp32)",
             vl_mul(4, RS(vl_mul(a->experts, sb, ovf)), ovf), ovf);
    if (gated) {
        term(L, n, ls, "MLP gate projection output", vl_mul(beta, TS(mlp), ovf), ovf);
        term(L, n, ls, "MLP up projection output", vl_mul(beta, TS(mlp), ovf), ovf);
        term(L, n, ls, "MLP activation output (gate)", vl_mul(beta, TS(mlp), ovf), ovf);
    } else {
        term(L, n, ls, "MLP activation input", vl_mul(beta, TS(mlp), ovf), ovf);
    }
    if (KEEPS(VL_LORA_DOWN))
        term(L, n, ls,
             cast32 ? "MLP down projection input: the adapter's fp32 copy"
                    : "MLP down projection input",
             vl_mul(ab, TS(mlp), ovf), ovf);
    /* each routed expert's output is scaled by its routing weight, and the product keeps
     * the output for the weight's gradient (transformers' MixtralBlockSparseTop2MLP:
     * routing_weights * current_hidden_states; Megatron-Core's unpermute: permuted_tokens *
     * probs): k h-wide rows a token.  The weights need a gradient wherever anything before
     * the router trains. */
    if (a->experts > 1)
        term(L, n, ls, "routed experts' outputs (for the routing weights' gradient)",
             vl_mul(beta, RS(vl_mul(a->experts_per_token, sbh, ovf)), ovf), ovf);
    if (drop)
        term(L, n, ls, "MLP dropout mask", RS(sbh), ovf);
    if (s->lora_rank) {
        /* each adapter's x.A; an expert's adapters see the tokens routed to it */
        uint64_t per_token = 0;
        for (int i = 0; i < VL_N_LORA_TARGETS; i++)
            if (s->lora_targets & (1u << i) && (i != VL_LORA_GATE || gated))
                per_token += i >= VL_LORA_GATE && a->experts > 1
                                 ? a->experts_per_token + a->shared_experts
                                 : 1;
        term(L, n, ls, "LoRA adapters' x.A (r wide)",
             vl_mul(vl_mul(ab * per_token, sb, ovf), s->lora_rank, ovf), ovf);
        /* adapters on some of a fused QKV's q, k, v: their output padded to its width by
         * an index_copy that keeps its source, the output reshaped (a copy) */
        if (s->framework->lora_qkv_pad && qkv_kept && qkv_kept < 3)
            term(L, n, ls, "LoRA's q, k, v output before zero-padding (index_copy keeps it)",
                 vl_mul(beta,
                        TS(vl_add(KEEPS(VL_LORA_Q) ? q : 0,
                                  vl_mul(KEEPS(VL_LORA_K) + KEEPS(VL_LORA_V), kv, ovf), ovf)),
                        ovf),
                 ovf);
    }
    if (s->lora_rank && s->lora_dropout) {
        /* PEFT's lora_dropout: each adapter reads dropout(x), a copy of its own, and keeps
         * it with its bool mask (native_dropout).  Under autocast the adapter keeps its
         * 16-bit cast of the copy, counted above as its cast.  The frozen base keeps
         * nothing, so without autocast the q, k, v (and gate, up) adapters stop sharing one
         * input: a copy each; o's and down's copies stand in for their inputs.  fp32
         * adapters (cast32) drop out their fp32 copies, counted above.  On a fused QKV
         * projection the q, k, v adapters are one, with one dropout. */
        const unsigned qkv_drops = fused && qkv_kept ? 1 : qkv_kept;
        const uint64_t masks =
            vl_add(vl_mul(qkv_drops + mlp_in_kept, RS(sbh), ovf),
                   vl_add(KEEPS(VL_LORA_O) ? TS(q) : 0, KEEPS(VL_LORA_DOWN) ? TS(mlp) : 0, ovf),
                   ovf);
        term(L, n, ls, VL_LORA_MASKS, masks, ovf);
        out->lora_input_masks =
            vl_mul(qkv_drops + (a->parallel_attention ? mlp_in_kept : 0), RS(sbh), ovf);
        const unsigned more = (qkv_drops > 1 ? qkv_drops - 1 : 0) +
                              (mlp_in_kept > 1 && !a->parallel_attention ? mlp_in_kept - 1 : 0);
        if (!cast_each && !cast32 && more)
            term(L, n, ls, "LoRA dropout: each adapter's own dropped input",
                 vl_mul(more * beta, RS(sbh), ovf), ovf);
    }
    const bool qlora = s->qlora && s->lora_rank;
    uint64_t nf4_params = 0, nf4_bytes, nf4_scales, largest = 0;
    if (qlora && vl_nf4_base(a, s->double_quant, &nf4_params, &nf4_bytes, &nf4_scales, &largest))
        *ovf = true;
    if (amp) {
        /* autocast caches a 16-bit copy of every weight the layer's nn.Linear modules use:
         * matrices and biases, every expert's (at training batch sizes each sees tokens);
         * the norms run in fp32 and keep theirs.  QLoRA's 4-bit matrices are no weights
         * autocast casts: each matmul dequantizes its own (the transient below). */
        uint64_t cast = p.per_layer - p.norms, nf4 = nf4_params / a->layers;
        cast = cast > nf4 ? cast - nf4 : 0;
        out->layer_weight_copies = vl_mul(beta, TS(cast), ovf);
        term(L, n, ls, "16-bit weight copies (autocast)", out->layer_weight_copies, ovf);
    }

    n = &out->n_outside;
    if (!s->lora_rank) /* a frozen embedding needs no indices for a weight gradient */
        term(O, n, os, "token ids (int64)", vl_mul(8, sb, ovf), ovf);
    if (a->position == VL_POS_LEARNED)
        term(O, n, os, "position ids (int64)", vl_mul(8, seq, ovf), ovf);
    else if (a->position == VL_POS_ROPE)
        term(O, n, os, "RoPE cos and sin tables (s x d each)",
             vl_mul(vl_mul(2 * rho, seq, ovf), a->head_dim, ovf), ovf);
    if (drop)
        term(O, n, os, "embedding dropout mask", RS(sbh), ovf);
    /* the norm over the embeddings (BERT's, BLOOM's) keeps its input, the embeddings' sum,
     * where that asks for a gradient: not under LoRA's frozen embeddings unless the
     * framework makes their output ask for one (frozen_embeddings_grad) */
    if (a->embedding_norm && (!s->lora_rank || s->framework->frozen_embeddings_grad))
        norm_terms(O, n, os, a, rho, RS(sbh), upcast, embedding_norm, ovf);
    out->embedding_bytes = out->outside_bytes;
    if (pp == 1 && a->norm_position == VL_NORM_PRE) /* post-norm layers end normalized */
        norm_terms(O, n, os, a, rho, RS(sbh), upcast, final_norm, ovf);
    if (pp == 1 && s->head == VL_HEAD_CLS) {
        /* a classifier (or pooler) reads a view of the last hidden state, so the whole
         * tensor stays saved; but an encoder's pooler (or pre-classifier) reads the first
         * position alone, which autocast casts to 16 bits: it saves that copy, b x h, and
         * the 16-bit copy of its weight.  The logits are b x labels. */
        const bool first_cast = amp && vl_arch_encoder(a);
        if (first_cast) {
            out->head_input_live = vl_mul(rho, RS(sbh), ovf);
            term(O, n, os, "classifier input (the first position, a 16-bit cast)",
                 vl_mul(vl_mul(beta, s->batch, ovf), a->hidden, ovf), ovf);
            if (a->pooler || cls_dense(a))
                term(O, n, os, "the head's dense weight, 16-bit copy (autocast)",
                     vl_mul(vl_mul(beta, a->hidden, ovf), a->hidden, ovf), ovf);
        } else {
            term(O, n, os, "classifier input (the last hidden state)", vl_mul(beta, sbh, ovf),
                 ovf);
        }
        if (a->pooler)
            term(O, n, os, "pooler output (tanh)",
                 vl_mul(vl_mul(beta, s->batch, ovf), a->hidden, ovf), ovf);
        else if (cls_dense(a))
            term(O, n, os, "pre-classifier output (ReLU)",
                 vl_mul(vl_mul(beta, s->batch, ovf), a->hidden, ovf), ovf);
        term(O, n, os, VL_CLASS_LOGPROBS, vl_mul(vl_mul(4, s->batch, ovf), s->labels, ovf), ovf);
        term(O, n, os, "labels (int64)", vl_mul(8, s->batch, ovf), ovf);
    } else if (pp == 1) { /* else the output side is the last stage's */
        if (!s->lora_rank) /* the output layer is frozen under LoRA */
            term(O, n, os, "output-projection input", vl_mul(beta, RS(sbh), ovf), ovf);
        /* an adapter on it (--lora-targets head) keeps its input for A's gradient (where
         * lora_dropout drops, the dropped copy and its mask; under autocast the 16-bit cast)
         * and x.A for B's; autocast caches its matrices' 16-bit copies */
        const uint64_t adapter =
            s->lora_rank ? vl_lora_head_params(a, s->lora_targets, s->lora_rank) : 0;
        if (adapter) {
            term(O, n, os, "output layer's adapter input", vl_mul(beta, RS(sbh), ovf), ovf);
            if (s->lora_dropout)
                term(O, n, os, "output layer's adapter dropout mask (bool)", RS(sbh), ovf);
            term(O, n, os, "output layer's adapter x.A (r wide)",
                 vl_mul(vl_mul(beta, sb, ovf), s->lora_rank, ovf), ovf);
            if (amp)
                term(O, n, os, "output layer's adapter, 16-bit copies (autocast)",
                     vl_mul(beta, adapter, ovf), ovf);
        }
        if (amp && !bf16_embeddings(s)) /* else the head is 16-bit itself */
            term(O, n, os, "output-projection weight, 16-bit copy",
                 vl_mul(beta, TS(p.embedding), ovf), ovf);
        /* vocabulary-parallel logits: V/t columns on each GPU */
        term(O, n, os, "logits (fp32, for the loss)",
             vl_mul(vl_mul(4, sb, ovf), TS(a->vocab), ovf), ovf);
        term(O, n, os, "loss targets (int64)", vl_mul(8, sb, ovf), ovf);
    }
    if (qlora) {
        /* QLoRA dequantizes one base matrix at a time to 16 bits for its matmul (forward
         * and backward): a transient copy of the largest of the layers', and two where a
         * bf16 model casts weights quantized from fp16 (vl_bnb4_dequant_copies); a 4-bit
         * output layer is dequantized at the loss.  The larger of the two is the term. */
        const bool bf16 = s->precision == VL_BF16 || s->precision == VL_BF16_MIXED ||
                          s->precision == VL_BF16_AMP;
        const unsigned copies = vl_bnb4_dequant_copies(s->framework, bf16);
        out->largest_base = largest;
        out->layer_dequant_bytes = vl_mul(2 * copies, largest, ovf);
        out->head_dequant_bytes =
            vl_qlora_head(s, &p) ? vl_mul(2 * copies, TS(p.lm_head), ovf) : 0;
        out->dequant_bytes = out->layer_dequant_bytes > out->head_dequant_bytes
                                 ? out->layer_dequant_bytes : out->head_dequant_bytes;
        term(O, n, os, "QLoRA: largest base matrix dequantized to 16 bits (transient)",
             out->dequant_bytes, ovf);
    }

    if (s->recompute == VL_RECOMPUTE_FULL) {
        /* Each layer keeps only its input.  At the end of the forward the outside tensors
         * and autocast's weight copies are kept besides; in backward, once the loss and the
         * output layer are done, one layer at a time is recomputed.  Its first norm keeps
         * the kept input itself when it keeps its input as it is: a LayerNorm, or an
         * RMSNorm whose fp32 upcast is no copy (the residual stream is fp32 already). */
        const uint64_t k = out->in_flight;
        out->checkpoint_bytes = vl_mul(rho, RS(sbh), ovf);
        uint64_t shared = a->norm == VL_NORM_LAYERNORM || rho == 4 ? out->checkpoint_bytes : 0;
        out->forward_end_bytes = vl_add(vl_mul(out->outside_bytes, k, ovf),
                                        vl_mul(out->layer_weight_copies, out->layers, ovf), ovf);
        out->recompute_bytes =
            vl_add(vl_add(out->layer_bytes - shared, vl_mul(out->embedding_bytes, k, ovf), ovf),
                   out->layer_dequant_bytes, ovf);
        out->total = vl_add(vl_mul(vl_mul(out->checkpoint_bytes, out->chunk_layers, ovf),
                                   out->chunks_in_flight, ovf),
                            out->forward_end_bytes > out->recompute_bytes ? out->forward_end_bytes
                                                                          : out->recompute_bytes,
                            ovf);
    } else {
        /* (layers x layer + outside) x in flight without --vpp */
        out->total = vl_add(vl_mul(vl_mul(out->layer_bytes, out->chunk_layers, ovf),
                                   out->chunks_in_flight, ovf),
                            vl_mul(out->outside_bytes, out->in_flight, ovf), ovf);
    }
    out->local_seq = seq;
    /* a layer's K and V as its projections made them, where its attention keeps them
     * repeated instead: what a cache that holds them (use_cache) keeps beside */
    out->kv_elements = TS(kv);
    out->kv_narrow_bytes =
        vl_mul(beta, out->kv_elements, ovf) * ((unsigned)wide_k + (unsigned)wide_v);
    if (cp > 1) {
        /* The ring's buffers, for the one layer whose attention runs: in backward (the
         * larger) a K, V block received from the next GPU and a dK, dV block sent on, each
         * this GPU's tokens x k x d, split by t (Liu et al. 2023, "Ring Attention with
         * Blockwise Transformers": each device sends its key-value block on while it
         * computes with the one it holds; Megatron-Core's p2p context parallelism) */
        out->ring_bytes = vl_mul(4 * beta, TS(kv), ovf);
        out->total = vl_add(out->total, out->ring_bytes, ovf);
    }
    if (s->ep > 1 && a->experts > 1) {
        /* Megatron-Core's MoEAlltoAllTokenDispatcher (megatron/core/transformer/moe/
         * token_dispatcher.py) sends each token to its top-k experts' GPUs: dispatch permutes
         * the b·s tokens into b·s·k rows and all-to-alls them (permute, then _AllToAll), and
         * combine all-to-alls the experts' b·s·k output rows back before unpermuting them;
         * with balanced routing a GPU receives as many rows as it sends.  Neither copy is
         * saved for backward: permute is an index_select and unpermute a scatter_add, whose
         * backward needs only the indices (moe_utils.py), and _AllToAll saves only the split
         * sizes (tensor_parallel/mappings.py), so the buffers live while one MoE layer runs,
         * forward or backward (the gradients take the reverse all-to-alls), and are counted
         * once, as the ring's are above */
        out->a2a_bytes = vl_mul(vl_mul(2 * beta, sb, ovf),
                                vl_mul(a->experts_per_token, a->hidden, ovf), ovf);
        out->total = vl_add(out->total, out->a2a_bytes, ovf);
    }
#undef TS
#undef RS
#undef KEEPS
}

void vl_settings_at_zero(vl_settings *s, unsigned z)
{
    s->zero = z;
    if (s->offload == VL_OFFLOAD_PARAMS && z != 3)
        s->offload = VL_OFFLOAD_OPTIMIZER;
    if (s->offload == VL_OFFLOAD_OPTIMIZER && z == 0)
        s->offload = VL_OFFLOAD_NONE;
}

uint64_t vl_gpus_per_node(const vl_settings *s)
{
    uint64_t n = s->gpus_per_node ? s->gpus_per_node : VL_DEFAULT_GPUS_PER_NODE;
    return n < s->gpus ? n : s->gpus;
}

/* ZeRO-Offload: the optimizer states (master, fp32 gradient copy, moments) and, with
 * --offload params, the weight shards move from each GPU to its node's CPU memory; the
 * 16-bit gradients and ZeRO-3's gathered live parameters stay on the GPU. */
static void offload(const vl_settings *s, vl_breakdown *out, bool *ovf)
{
    vl_cpu *c = &out->cpu;
    c->gpus_per_node = vl_gpus_per_node(s);
    c->nodes = vl_ceil_div(s->gpus, c->gpus_per_node);
    if (s->offload == VL_OFFLOAD_NONE)
        return;
    c->moved[VL_C_OPTIMIZER] = out->bytes[VL_C_OPTIMIZER];
    if (s->offload == VL_OFFLOAD_PARAMS)
        c->moved[VL_C_WEIGHTS] = out->bytes[VL_C_WEIGHTS];
    for (int k = 0; k < VL_N_COMPONENTS; k++) {
        out->bytes[k] -= c->moved[k];
        c->moved_total = vl_add(c->moved_total, c->moved[k], ovf);
        c->per_node[k] = vl_mul(c->moved[k], c->gpus_per_node, ovf);
        c->node_total = vl_add(c->node_total, c->per_node[k], ovf);
    }
}

/* Tensor parallel t, pipeline parallel p: one GPU of the first stage holds ceil(L/p) layers'
 * parameters split by t (their norms whole: tensor parallelism replicates them) and the
 * input embeddings split by t over the vocabulary (with positions and embedding norms
 * whole); with p = 1 also the output layer (split by t) and the final norm.  Data
 * parallel = gpus / (t x p), over which ZeRO shards. */
uint64_t vl_train_dp(const vl_settings *s)
{
    return s->gpus / (s->tp * s->pp * (s->cp ? s->cp : 1));
}

static void parallel_split(const vl_model *m, const vl_settings *s, vl_breakdown *out,
                           bool *ovf)
{
    const vl_arch *a = &m->arch;
    const vl_params *p = &out->params;
    vl_parallel *par = &out->par;
    const uint64_t t = s->tp, pp = s->pp;

    par->tp = t;
    par->pp = pp;
    par->cp = s->cp ? s->cp : 1;
    par->dp = vl_train_dp(s);
    par->model_layers = a->layers;
    par->stage_layers = vl_ceil_div(a->layers, pp);
    par->vpp = s->vpp ? s->vpp : 1; /* in_flight: the activations' (vl_estimate) */
    par->global_batch = vl_mul(vl_mul(s->batch, par->dp, ovf), s->grad_accum, ovf);
    par->ep = s->ep;
    par->expert_dp = par->dp / s->ep;
    if (t * pp == 1) {
        par->params = out->P;
        par->layer_params = out->P - (p->outside < out->P ? p->outside : out->P);
        par->outside_params = out->P - par->layer_params;
        if (s->ep > 1) {
            /* the routed experts of the MoE layers, E x MLP(moe_ffn) each (their MLP less
             * the k a token uses is (E - k) experts), split whole over ep GPUs (Megatron-Core
             * MoE: expert parallelism within data parallelism) */
            uint64_t k = a->experts_per_token, moe_layers = a->layers - a->dense_layers;
            uint64_t one = a->experts > k ? (p->mlp - p->mlp_active) / (a->experts - k) : 0;
            par->expert_params = vl_mul(vl_mul(one, a->experts, ovf), moe_layers, ovf);
            if (par->expert_params > par->params) /* a free count cannot be an MoE */
                par->expert_params = 0;
            par->expert_params_per_gpu = par->expert_params / s->ep;
            par->params -= par->expert_params - par->expert_params_per_gpu;
            par->layer_params -= par->expert_params - par->expert_params_per_gpu;
        }
        return;
    }
    /* a free count: its derived shape's embeddings, the rest in the layers */
    uint64_t layers_total = out->P > p->outside ? out->P - p->outside : out->P;
    uint64_t norms = vl_mul(p->norms, a->layers, ovf);
    uint64_t split = layers_total > norms ? layers_total - norms : 0;
    par->layer_params =
        vl_add(vl_ceil_div(vl_mul(split, par->stage_layers, ovf), vl_mul(a->layers, t, ovf)),
               vl_mul(p->norms, par->stage_layers, ovf), ovf);
    par->outside_params = vl_ceil_div(p->embedding, t) + p->positions + p->token_types +
                          p->embedding_norm;
    if (pp == 1)
        par->outside_params += vl_ceil_div(p->lm_head, t) + vl_ceil_div(p->head_bias, t) +
                               p->final_norm + p->pooler;
    par->params = vl_add(par->layer_params, par->outside_params, ovf);
}

uint64_t vl_cls_classifier(const vl_arch *a, const vl_settings *s, bool *ovf)
{
    uint64_t n =
        vl_add(vl_mul(a->hidden, s->labels, ovf), vl_arch_encoder(a) ? s->labels : 0, ovf);
    if (cls_dense(a))
        n = vl_add(n, vl_add(vl_mul(a->hidden, a->hidden, ovf), a->hidden, ovf), ovf);
    return n;
}

/* --head cls (AutoModelForSequenceClassification): no vocabulary-wide output layer.  An
 * untied one gives way to the classifier; a tied one is the embeddings, which stay, and the
 * classifier comes beside them (vl_cls_classifier). */
static void cls_params(const vl_arch *a, const vl_settings *s, vl_params *p, uint64_t *P,
                       bool *ovf)
{
    const uint64_t classifier = vl_cls_classifier(a, s, ovf);
    const uint64_t head = p->lm_head + p->head_bias;
    *P = vl_add(*P - (head < *P ? head : *P), classifier, ovf);
    p->outside = vl_add(p->outside - head, classifier, ovf);
    p->total = vl_add(p->total - head, classifier, ovf);
    p->active = vl_add(p->active - head, classifier, ovf);
    p->lm_head = p->head_bias = 0;
}

/* LoRA: the adapters train; the base (all of P) is frozen, in the weights' dtype, or with
 * QLoRA its layers' matrices in NF4 and the rest (embeddings, norms, biases, routers) in the
 * weights' dtype. */
static const char *lora_split(const vl_model *m, const vl_settings *s, vl_breakdown *out,
                              bool *ovf)
{
    vl_lora_split *l = &out->lora;
    const char *why = vl_lora_params(&m->arch, s->lora_targets, s->lora_rank, 0,
                                     &l->trainable_params);
    if (!why && (s->lora_targets & (1u << VL_LORA_HEAD)) && s->head == VL_HEAD_CLS)
        why = "a classification head has no output layer over the vocabulary to adapt (PEFT "
              "trains the classifier whole, modules_to_save, which is not modelled)";
    if (why) {
        snprintf(out->why, sizeof out->why, "--lora-targets: %s", why);
        return out->why;
    }
    l->head_params = vl_lora_head_params(&m->arch, s->lora_targets, s->lora_rank);
    l->on = true;
    l->frozen_params = out->P;
    if (!s->qlora) {
        l->frozen_bytes = vl_mul(out->P, out->bpp.weights, ovf);
        return NULL;
    }
    why = vl_nf4_base(&m->arch, s->double_quant, &l->nf4_params, &l->nf4_bytes,
                      &l->nf4_scale_bytes, &l->largest_nf4_matrix);
    if (why) {
        snprintf(out->why, sizeof out->why, "--qlora: %s", why);
        return out->why;
    }
    if (vl_qlora_head(s, &out->params)) { /* the output layer in NF4 too */
        const uint64_t h = out->params.lm_head;
        l->nf4_params = vl_add(l->nf4_params, h, ovf);
        l->nf4_bytes = vl_add(l->nf4_bytes, vl_nf4_bytes(h, s->double_quant), ovf);
        l->nf4_scale_bytes =
            vl_add(l->nf4_scale_bytes, vl_nf4_scale_bytes(h, s->double_quant), ovf);
    }
    if (l->nf4_params > out->P) { /* a free count smaller than its derived shape's matrices */
        l->nf4_params = out->P;
        l->nf4_bytes = vl_nf4_bytes(out->P, s->double_quant);
        l->nf4_scale_bytes = vl_nf4_scale_bytes(out->P, s->double_quant);
    }
    if (bf16_embeddings(s))
        l->bf16_params = out->params.embedding + out->params.positions + out->params.lm_head +
                         out->params.head_bias;
    if (l->bf16_params > out->P - l->nf4_params)
        l->bf16_params = out->P - l->nf4_params;
    l->frozen_bytes = vl_add(
        vl_add(l->nf4_bytes,
               vl_mul(out->P - l->nf4_params - l->bf16_params, out->bpp.weights, ovf), ovf),
        vl_mul(l->bf16_params, 2, ovf), ovf);
    return NULL;
}

/* fp32 adapters over a 16-bit model (vl_adapters_fp32): their weights, gradients and
 * optimizer state as fp32 training keeps them; the frozen base, counted by lora_split, and
 * ZeRO-3's gathers keep the model's. */
static void adapters_in_fp32(const vl_settings *s, const vl_arch *a, vl_breakdown *out)
{
    vl_settings fp32 = *s;
    fp32.precision = VL_FP32;
    const vl_bpp f = vl_bytes_per_param(&fp32, a);
    vl_bpp *b = &out->bpp;
    b->weights = f.weights;
    b->gradients = f.gradients;
    b->unsharded_grad = f.unsharded_grad;
    b->master = f.master;
    b->grad_copy = f.grad_copy;
    b->moments = f.moments;
    b->moment_tensors = f.moment_tensors;
    b->optimizer = f.optimizer;
    out->lora.fp32 = true;
}

const vl_model *vl_model_as_built(const vl_model *m, const vl_framework *f, vl_model *own)
{
    if (!f || !f->unties_embeddings || !m->arch.tie_embeddings)
        return m;
    *own = *m;
    own->arch.tie_embeddings = false;
    if (own->checkpoint_params) /* the copy is the framework's, not the checkpoint's */
        own->checkpoint_params += m->arch.vocab * m->arch.hidden;
    return own;
}

const char *vl_estimate(const vl_model *m0, const vl_settings *s, vl_breakdown *out)
{
    vl_model own;
    const vl_model *m = vl_model_as_built(m0, s->framework, &own);
    memset(out, 0, sizeof *out);
    if (!vl_settings_valid(s, &m->arch, out->why, sizeof out->why))
        return out->why;

    bool ovf = false;
    const char *why;
    if (!vl_count_params(&m->arch, &out->params))
        return "the model's parameter count does not fit in 64 bits";
    out->P = vl_model_params(m, &out->params);
    out->attention = vl_attention_for(s, &m->arch);
    if (s->mode == VL_MODE_INFER)
        return vl_estimate_infer(m, s, out);
    if (s->head == VL_HEAD_CLS)
        cls_params(&m->arch, s, &out->params, &out->P, &ovf);
    out->bpp = vl_bytes_per_param(s, &m->arch);
    parallel_split(m, s, out, &ovf);
    /* ZeRO (Megatron-Core's distributed optimizer) shards over the data-parallel GPUs and
     * the context-parallel ones with them: each holds the same weights */
    const uint64_t M = out->par.params, dp = out->par.dp * out->par.cp;

    uint64_t *b = out->bytes;
    if (s->lora_rank) {
        why = lora_split(m, s, out, &ovf);
        if (why)
            return why;
        if (vl_adapters_fp32(s))
            adapters_in_fp32(s, &m->arch, out);
        const vl_lora_split *l = &out->lora;
        /* ZeRO-3 (FSDP, DeepSpeed) shards parameters; QLoRA's block scales are the
         * quant_state bitsandbytes keeps beside each 4-bit parameter (Params4bit's
         * attribute, bitsandbytes/nn/modules.py), which every GPU holds whole */
        const uint64_t scales = l->nf4_scale_bytes;
        uint64_t frozen = s->zero >= 3
                              ? vl_add(vl_ceil_div(l->frozen_bytes - scales, s->gpus), scales, &ovf)
                              : l->frozen_bytes;
        b[VL_C_WEIGHTS] = vl_add(frozen,
                                 vl_state_bytes(l->trainable_params, out->bpp.weights,
                                                s->zero >= 3, s->gpus, &ovf),
                                 &ovf);
        b[VL_C_GRADIENTS] =
            vl_state_bytes(l->trainable_params, out->bpp.gradients, s->zero >= 2, s->gpus, &ovf);
        b[VL_C_OPTIMIZER] =
            vl_state_bytes(l->trainable_params, out->bpp.optimizer, s->zero >= 1, s->gpus, &ovf);
    } else { /* ZeRO shards over the data-parallel GPUs; an expert's state over the GPUs
              * that hold the same experts (dp / ep) */
        const uint64_t X = out->par.expert_params_per_gpu, edp = out->par.expert_dp;
        const unsigned bw = out->bpp.weights, bg = out->bpp.gradients, bo = out->bpp.optimizer;
        b[VL_C_WEIGHTS] = vl_add(vl_state_bytes(M - X, bw, s->zero >= 3, dp, &ovf),
                                 vl_state_bytes(X, bw, s->zero >= 3, edp, &ovf), &ovf);
        b[VL_C_GRADIENTS] = vl_add(vl_state_bytes(M - X, bg, s->zero >= 2, dp, &ovf),
                                   vl_state_bytes(X, bg, s->zero >= 2, edp, &ovf), &ovf);
        b[VL_C_OPTIMIZER] = vl_add(vl_add(vl_state_bytes(M - X, bo, s->zero >= 1, dp, &ovf),
                                          vl_state_bytes(X, bo, s->zero >= 1, edp, &ovf), &ovf),
                                   s->zero >= 1 ? vl_ceil_div(out->bpp.shaped_bytes, dp)
                                                : out->bpp.shaped_bytes,
                                   &ovf);
    }
    vl_activations_compute(&m->arch, s, &out->act, &ovf);
    out->par.in_flight = out->act.in_flight;
    b[VL_C_ACTIVATIONS] = out->act.total;
    b[VL_C_KV_CACHE] = 0;
    /* ZeRO-3 gathers the largest matrix whole; a frozen one has no gradient, and QLoRA's is
     * counted at 16 bits (the embeddings, often the largest, stay 16-bit) */
    b[VL_C_ZERO3_LIVE] =
        s->zero != 3     ? 0
        : s->lora_rank ? vl_mul(out->params.largest_matrix, s->qlora ? 2 : out->bpp.gathered, &ovf)
                         : vl_zero3_live_bytes(vl_ceil_div(out->params.largest_matrix, s->tp),
                                               &out->bpp, &ovf);
    b[VL_C_OVERHEAD] = s->overhead;
    offload(s, out, &ovf);
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        out->total = vl_add(out->total, b[c], &ovf);
    if (ovf)
        return "the result does not fit in 64 bits (over 16 EiB per GPU): reduce --batch or --seq";
    return NULL;
}
