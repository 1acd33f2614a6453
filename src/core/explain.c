/* explain.c: formulas with the current values substituted. */
#include "explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "framework.h"

/* printf onto the end of the text in buf (len bytes in all). */
static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* " / 8 GPUs (ZeRO-1 and up)" when the state is sharded, else "". */
static void shard_note(const vl_settings *s, unsigned from_stage, char *buf, size_t len)
{
    uint64_t mp = s->tp * s->pp, dp = s->gpus / (mp ? mp : 1);
    char experts[64] = "";
    if (s->ep > 1) /* expert data parallel: the GPUs holding the same experts */
        snprintf(experts, sizeof experts, "; the experts' over %llu",
                 (unsigned long long)(dp / s->ep));
    if (s->zero >= from_stage && dp > 1)
        snprintf(buf, len, " / %llu %sGPUs (ZeRO-%u shards it%s)", (unsigned long long)dp,
                 mp > 1 ? "data-parallel " : "", from_stage, experts);
    else
        buf[0] = '\0';
}

/* "6.74e9 params" or, split by tensor and pipeline parallelism, "2.2e9 params on the GPU
 * (12 of 96 layers / 8 (tensor parallel), input embeddings / 8)". */
static const char *state_params(const vl_breakdown *b, char *buf, size_t len)
{
    const vl_parallel *par = &b->par;
    char p[32], tp[32];
    vl_fmt_count(par->params, p, sizeof p);
    snprintf(tp, sizeof tp, "%llu (tensor parallel)", (unsigned long long)par->tp);
    if (par->ep > 1) {
        char x[32];
        snprintf(buf, len, "%s params on the GPU (the routed experts' %s / %llu, expert parallel)",
                 p, vl_fmt_count(par->expert_params, x, sizeof x), (unsigned long long)par->ep);
    } else if (par->tp * par->pp <= 1)
        snprintf(buf, len, "%s params", p);
    else
        snprintf(buf, len, "%s params on the GPU (%llu of %llu layers%s%s, %s embeddings%s%s)", p,
                 (unsigned long long)par->stage_layers, (unsigned long long)par->model_layers,
                 par->tp > 1 ? " / " : "", par->tp > 1 ? tp : "",
                 par->pp > 1 ? "the input" : "input and output", par->tp > 1 ? " / " : "",
                 par->tp > 1 ? tp : "");
    return buf;
}

void vl_explain_gguf_mix(const vl_gguf_weights *g, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int t = 0; t < VL_GGML_N && n < len; t++) {
        if (!g->type_elements[t])
            continue;
        char c[32];
        int k = snprintf(buf + n, len - n, "%s%s %s x %g bits", n ? " + " : "",
                         vl_ggml_info((vl_ggml_type)t)->name,
                         vl_fmt_count(g->type_elements[t], c, sizeof c),
                         vl_ggml_bits_per_weight((vl_ggml_type)t));
        n += k > 0 ? (size_t)k : 0;
    }
}

/* A GGUF file type's weights: every tensor in its type, from the block layouts. */
static void explain_gguf(const vl_settings *s, const vl_inference *inf, vl_units u, const char *v,
                         char *buf, size_t len)
{
    char mix[512], tp[96] = "";
    vl_explain_gguf_mix(&inf->gguf, mix, sizeof mix);
    if (s->gpus > 1)
        snprintf(tp, sizeof tp, " / %llu GPUs (llama.cpp splits by layers)",
                 (unsigned long long)s->gpus);
    char in[32], cp[64] = "";
    if (inf->gguf.output_copy_bytes) {
        char c[32];
        snprintf(cp, sizeof cp, " + the tied output layer's copy %s",
                 vl_fmt_bytes(inf->gguf.output_copy_bytes, u, c, sizeof c));
    }
    snprintf(buf, len, "%s (llama.cpp GGUF, llama-quantize's tensor mix): %s = %.3f bits a "
             "weight, less the input layer kept in CPU memory (%s)%s%s = %s",
             vl_dtype_names[s->weight_dtype], mix, vl_gguf_bits_per_weight(&inf->gguf),
             vl_fmt_bytes(inf->gguf.input_bytes, u, in, sizeof in), cp, tp, v);
}

/* §4.5: the inference formulas. */
static void explain_infer(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                          char *buf, size_t len)
{
    const vl_inference *inf = &b->inf;
    char v[32], x[64], y[32], z[32], w[64], tp[96] = "";
    const char *wd = vl_dtype_names[s->weight_dtype];
    const bool quant = vl_dtype_quantized(s->weight_dtype);

    const uint64_t tpn = vl_infer_tp(s);
    /* pipeline-parallel serving: the stage shown, the fullest of the end stages */
    char stage[192] = "", of[64] = "";
    if (inf->pp > 1) {
        snprintf(stage, sizeof stage, "the fullest of %llu pipeline stages, the %s (%llu of %llu "
                 "layers, %s): ", (unsigned long long)inf->pp, inf->logits ? "last" : "first",
                 (unsigned long long)inf->stage_layers, (unsigned long long)inf->layers,
                 inf->logits ? "the output layer and the final norm" : "the embeddings");
        snprintf(of, sizeof of, " (this GPU's stage of %llu)", (unsigned long long)inf->pp);
    }

    vl_fmt_bytes(b->bytes[c], u, v, sizeof v);
    if (tpn > 1)
        snprintf(tp, sizeof tp, " / %llu GPUs (tensor parallel)", (unsigned long long)tpn);
    /* the weights this GPU holds: less what --cpu-offload keeps in CPU memory, and an
     * engine's RoPE table, its absorbed MLA matrices and GPTQ's exllama buffer beside them */
    char held[320] = "";
    const uint64_t rope = c == VL_C_WEIGHTS ? inf->rope_cache_bytes : 0;
    const uint64_t mla = c == VL_C_WEIGHTS ? inf->mla_absorbed_bytes : 0;
    const uint64_t dq = c == VL_C_WEIGHTS ? inf->dq_buffer_bytes : 0;
    const uint64_t beside = rope + mla + dq;
    if (c == VL_C_WEIGHTS && inf->offloaded_bytes) {
        char all[32], off[32];
        snprintf(held, sizeof held, "%s - %s in CPU memory (--cpu-offload)",
                 vl_fmt_bytes(b->bytes[c] - beside + inf->offloaded_bytes, u, all, sizeof all),
                 vl_fmt_bytes(inf->offloaded_bytes, u, off, sizeof off));
    } else if (beside) {
        vl_fmt_bytes(b->bytes[c] - beside, u, held, sizeof held);
    }
    if (rope) {
        char r[32];
        append(held, sizeof held, " + %s RoPE cos/sin cache (the engine's, every position)",
               vl_fmt_bytes(rope, u, r, sizeof r));
    }
    if (mla) {
        char r[32];
        append(held, sizeof held,
               " + %s absorbed MLA matrices (vLLM 0.7's W_Q_UK, W_UV_O and W_QR, beside the "
               "checkpoint's)",
               vl_fmt_bytes(mla, u, r, sizeof r));
    }
    if (dq) {
        char r[32];
        if (s->exllama_version == 2)
            append(held, sizeof held,
                   " + %s exllama v2's scratch (GPTQ: a matrix in fp16 and its fp32 output for "
                   "8 x 2048 tokens)",
                   vl_fmt_bytes(dq, u, r, sizeof r));
        else
            append(held, sizeof held, " + %s exllama's buffer (GPTQ: the largest matrix in fp16)",
                   vl_fmt_bytes(dq, u, r, sizeof r));
    }
    append(held, sizeof held, "%s%s", held[0] ? " = " : "", v);
    switch (c) {
    case VL_C_WEIGHTS:
        if (inf->gguf_on) {
            explain_gguf(s, inf, u, held, buf, len);
            break;
        }
        vl_fmt_count(inf->stage_linear, x, sizeof x);
        append(x, sizeof x, " layer-matrix");
        if (inf->stage_qhead) { /* a 4-bit output layer: with the matrices */
            char h[32];
            vl_fmt_count(inf->stage_qhead, h, sizeof h);
            append(x, sizeof x, " + %s output-layer", h);
        }
        vl_fmt_count(inf->stage_embedding - inf->stage_qhead, y, sizeof y);
        vl_fmt_count(inf->stage_other, z, sizeof z);
        if (vl_weight_groups(s) && s->weight_format == VL_WFMT_SYMMETRIC)
            snprintf(w, sizeof w, " + %llu-weight group scales",
                     (unsigned long long)s->group_size);
        else if (vl_weight_groups(s))
            snprintf(w, sizeof w, " + %llu-weight group scales and %u-bit zero points",
                     (unsigned long long)s->group_size, vl_dtype_bits(s->weight_dtype));
        else if (vl_dtype_bnb4(s->weight_dtype))
            snprintf(w, sizeof w, " + %s", s->weight_dtype == VL_DT_BNB4_DQ
                                               ? "8-bit absmax a 64 + fp32 a 16384"
                                               : "fp32 absmax a 64");
        else
            w[0] = '\0';
        snprintf(buf, len,
                 "%s(%s params x %g B (%s)%s + %s embedding params x %g B)%s + %s "
                 "norm/bias params x %g B on every GPU = %s",
                 stage, x, vl_dtype_bits(s->weight_dtype) / 8.0, wd, w, y,
                 (quant ? 16 : vl_dtype_bits(s->weight_dtype)) / 8.0, tp, z,
                 (quant ? 16 : vl_dtype_bits(s->weight_dtype)) / 8.0, held);
        break;
    case VL_C_KV_CACHE:
        if (inf->latent_width) {
            snprintf(buf, len,
                     "latent cache (multi-head latent attention): %llu layers%s x %llu (latent + "
                     "rotary key) x %g B (%s)%s x %llu tokens x %llu sequences, whole on every "
                     "GPU = %s",
                     (unsigned long long)inf->stage_layers, of,
                     (unsigned long long)inf->latent_width,
                     vl_dtype_bits(s->kv_dtype) / 8.0, vl_dtype_names[s->kv_dtype],
                     s->kv_dtype == VL_DT_INT4 ? " + 4 B (its 16-bit scale and zero point)" : "",
                     (unsigned long long)(inf->decode_peak ? inf->cached_slots
                                                           : inf->prompt_slots),
                     (unsigned long long)s->batch, v);
            break;
        }
        if (s->kv_dtype == VL_DT_INT4) {
            snprintf(buf, len,
                     "2 (K, V) x %llu layers%s x %llu of %llu KV heads x (%llu head dim x 0.5 B "
                     "(int4) + 4 B (a 16-bit scale and zero point per head and token)) x %llu "
                     "tokens x %llu sequences = %s%s",
                     (unsigned long long)inf->stage_layers, of,
                     (unsigned long long)inf->kv_heads_per_gpu,
                     (unsigned long long)inf->kv_heads, (unsigned long long)inf->head_dim,
                     (unsigned long long)(inf->decode_peak ? inf->cached_slots
                                                           : inf->prompt_slots),
                     (unsigned long long)s->batch, v,
                     inf->cached_tokens < s->seq + s->gen ? " (capped by the sliding window)" : "");
            break;
        }
        snprintf(buf, len,
                 "2 (K, V) x %llu layers%s x %llu of %llu KV heads x %llu head dim x %g B (%s) x "
                 "%llu tokens x %llu sequences = %s%s",
                 (unsigned long long)inf->stage_layers, of,
                 (unsigned long long)inf->kv_heads_per_gpu,
                 (unsigned long long)inf->kv_heads, (unsigned long long)inf->head_dim,
                 vl_dtype_bits(s->kv_dtype) / 8.0, vl_dtype_names[s->kv_dtype],
                 (unsigned long long)(inf->decode_peak ? inf->cached_slots : inf->prompt_slots),
                 (unsigned long long)s->batch, v,
                 inf->cached_tokens < s->seq + s->gen ? " (capped by the sliding window)" : "");
        break;
    case VL_C_ACTIVATIONS: {
        const bool cast = !vl_bnb4_fp32(s) && vl_bnb4_infer_copies(s) > 1;
        char step[96];
        snprintf(step, sizeof step,
                 "a prefill step of %llu prompt%s x %llu tokens (the framework's budget)",
                 (unsigned long long)inf->prefill_seqs, inf->prefill_seqs == 1 ? "" : "s",
                 (unsigned long long)inf->prefill_tokens);
        snprintf(buf, len,
                 "workspace of the %s phase: residual stream + the largest of attention%s, MLP%s "
                 "and %s%s%s%s%s%s, for %s (prefill %s, decode %s) = %s",
                 inf->decode_peak ? "decode" : "prefill",
                 b->attention == VL_ATTN_FLASH  ? " (flash)"
                 : b->attention == VL_ATTN_SDPA ? " (sdpa)"
                                                : " (with s x s scores)",
                 s->weight_dtype == VL_DT_INT4 && s->weight_format == VL_WFMT_AWQ &&
                         s->framework->transformers
                     ? " (with AWQ's matrix dequantized to fp16, for 1,024 tokens or more)"
                 : vl_gptq_cuda_old(s) && b->params.mlp == b->params.mlp_active
                     ? (s->weight_dtype == VL_DT_INT8
                            ? " (with GPTQ's cuda-old kernel's matrix dequantized through int32 "
                              "and int16, 6 B a weight, for 128 tokens or more)"
                            : " (with GPTQ's cuda-old kernel's matrix dequantized through int32 "
                              "and int8, 5 B a weight, for 128 tokens or more)")
                 : s->weight_dtype == VL_DT_BNB8
                     ? " (with LLM.int8()'s input quantized twice and laid out for igemmlt, its "
                       "int32 product and fp16 result beside the output)"
                 : !vl_dtype_bnb4(s->weight_dtype) ? ""
                 : vl_bnb4_fp32(s)
                     ? " (with a 4-bit matmul's fp32 input, output and matrix, dequantized "
                       "through 16 bits, for more than one token)"
                 : cast ? " (with a 4-bit matmul's matrix dequantized to fp16 and cast to bf16, "
                          "two copies, for more than one token)"
                        : " (with a 4-bit matmul's matrix dequantized to 16 bits, for more than "
                          "one token)",
                 s->framework->prefill_logits_all
                     ? "the logits of every position (the last one's in fp32 at the least)"
                     : "the last position's fp32 logits",
                 vl_bnb4_head(s) ? " with the 4-bit output layer's matmul" : "",
                 inf->pp > 1 ? (inf->logits ? " (on the last pipeline stage)"
                                            : " (none on the first pipeline stage)")
                             : "",
                 inf->offload_copy ? " + an offloaded layer copied in for its forward" : "",
                 inf->moe_kept_bytes ? " + fused MoE's two workspaces, kept from the prefill on"
                                     : "",
                 s->framework->layer_input_held
                     ? " (attention and MLP each beside 2 hidden-size tensors the forward keeps)"
                     : "",
                 inf->decode_peak ? "one new token per sequence"
                 : inf->prefill_seqs == s->batch && inf->prefill_tokens == s->seq
                     ? "the whole prompt"
                     : step,
                 vl_fmt_bytes(inf->prefill.workspace, u, x, sizeof x),
                 vl_fmt_bytes(inf->decode.workspace, u, y, sizeof y), v);
        break;
    }
    case VL_C_OVERHEAD:
        snprintf(buf, len, "--overhead (CUDA context, allocator, workspace) = %s", v);
        break;
    default:
        snprintf(buf, len, "none in inference = %s", v);
        break;
    }
}

/* LoRA: the frozen base holds weights only; the adapters train under the precision. */
static void explain_lora(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                         char *buf, size_t len)
{
    const vl_lora_split *l = &b->lora;
    const vl_bpp *bpp = &b->bpp;
    char v[32], t[32], f[32], n[32], nb[32], sh[64], base[256];

    vl_fmt_bytes(b->bytes[c], u, v, sizeof v);
    vl_fmt_count(l->trainable_params, t, sizeof t);
    vl_fmt_count(l->frozen_params, f, sizeof f);
    switch (c) {
    case VL_C_WEIGHTS:
        shard_note(s, 3, sh, sizeof sh);
        if (s->qlora) {
            char e[32], es[64] = "";
            if (l->bf16_params)
                snprintf(es, sizeof es, " + embeddings and head %s x 2 B (bf16)",
                         vl_fmt_count(l->bf16_params, e, sizeof e));
            snprintf(base, sizeof base, "%s %s params in NF4 (%s, 4-bit + %s block scales) + "
                     "%s others x %u B%s",
                     vl_fmt_count(l->nf4_params, n, sizeof n),
                     vl_qlora_head(s, &b->params) ? "layer-matrix and output-layer"
                                                  : "layer-matrix",
                     vl_fmt_bytes(l->nf4_bytes, u, nb, sizeof nb),
                     s->double_quant ? "double-quantized" : "fp32",
                     vl_fmt_count(l->frozen_params - l->nf4_params - l->bf16_params, f, sizeof f),
                     bpp->weights, es);
        } else /* the base in the model's dtype, whatever the adapters' (fp32 under PEFT 0.12) */
            snprintf(base, sizeof base, "%s params x %u B", f,
                     l->frozen_params ? (unsigned)(l->frozen_bytes / l->frozen_params)
                                      : bpp->weights);
        if (s->qlora && sh[0]) { /* ZeRO-3 leaves the block scales whole on every GPU */
            char sc[32];
            vl_fmt_bytes(l->nf4_scale_bytes, u, sc, sizeof sc);
            snprintf(buf, len, "(frozen base: %s + adapters: %s params x %u B - the block "
                     "scales)%s + the block scales, %s, whole on every GPU (bitsandbytes' "
                     "quant_state) = %s", base, t, bpp->weights, sh, sc, v);
        } else {
            snprintf(buf, len, "(frozen base: %s + adapters: %s params x %u B)%s = %s", base, t,
                     bpp->weights, sh, v);
        }
        break;
    case VL_C_GRADIENTS:
        shard_note(s, 2, sh, sizeof sh);
        snprintf(buf, len, "adapters only: %u B/param x %s trainable params (the %s frozen "
                 "base params have none)%s = %s", bpp->gradients, t, f, sh, v);
        break;
    default:
        shard_note(s, 1, sh, sizeof sh);
        snprintf(buf, len, "adapters only: (%u master + %u grad copy + %u %s) = %u B/param x %s "
                 "trainable params (none for the frozen base)%s = %s", bpp->master,
                 bpp->grad_copy, bpp->moments, vl_optimizer_labels[s->optimizer], bpp->optimizer, t,
                 sh, v);
        break;
    }
}

static void explain_gpu(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                        char *buf, size_t len);

void vl_explain(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                char *buf, size_t len)
{
    if (s->mode == VL_MODE_TRAIN && c < VL_N_COMPONENTS && b->cpu.moved[c]) {
        /* the formula gives what moved; the GPU keeps none of it */
        static _Thread_local vl_breakdown moved;
        char v[32];
        moved = *b;
        moved.bytes[c] = b->cpu.moved[c];
        explain_gpu(s, &moved, c, u, buf, len);
        char node[32];
        append(buf, len,
               ", in CPU memory (--offload %s): %s on the GPU; %llu GPU%s a node: %s of CPU "
               "memory per node",
               vl_offload_names[s->offload], vl_fmt_bytes(b->bytes[c], u, v, sizeof v),
               (unsigned long long)b->cpu.gpus_per_node, b->cpu.gpus_per_node == 1 ? "" : "s",
               vl_fmt_bytes(b->cpu.per_node[c], u, node, sizeof node));
        return;
    }
    explain_gpu(s, b, c, u, buf, len);
}

static void explain_gpu(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                        char *buf, size_t len)
{
    if (s->mode == VL_MODE_INFER) {
        explain_infer(s, b, c, u, buf, len);
        return;
    }
    char p[32], v[32], x[32], y[32], z[32], sh[64], sp[256];
    const vl_bpp *bpp = &b->bpp;
    const vl_activations *a = &b->act;

    vl_fmt_count(b->P, p, sizeof p);
    state_params(b, sp, sizeof sp);
    vl_fmt_bytes(b->bytes[c], u, v, sizeof v);
    if (b->lora.on && (c == VL_C_WEIGHTS || c == VL_C_GRADIENTS || c == VL_C_OPTIMIZER)) {
        explain_lora(s, b, c, u, buf, len);
        return;
    }
    switch (c) {
    case VL_C_WEIGHTS:
        shard_note(s, 3, sh, sizeof sh);
        snprintf(buf, len, "%u B/param x %s%s = %s", bpp->weights, sp, sh, v);
        break;
    case VL_C_GRADIENTS:
        shard_note(s, 2, sh, sizeof sh);
        snprintf(buf, len, "%u B/param x %s%s = %s", bpp->gradients, sp, sh, v);
        break;
    case VL_C_OPTIMIZER:
        shard_note(s, 1, sh, sizeof sh);
        if (bpp->shaped) {
            vl_fmt_bytes(bpp->shaped_bytes, u, x, sizeof x);
            snprintf(buf, len, "((%u master + %u grad copy + %u %s) = %u B/param x %s + %s "
                     "(%s))%s = %s", bpp->master, bpp->grad_copy, bpp->moments,
                     vl_optimizer_labels[s->optimizer], bpp->optimizer, sp, x, bpp->shaped, sh,
                     v);
            break;
        }
        snprintf(buf, len, "(%u master + %u grad copy + %u %s) = %u B/param x %s%s = %s",
                 bpp->master, bpp->grad_copy, bpp->moments, vl_optimizer_labels[s->optimizer],
                 bpp->optimizer, sp, sh, v);
        break;
    case VL_C_ACTIVATIONS:
        vl_fmt_bytes(a->layer_bytes, u, x, sizeof x);
        vl_fmt_bytes(a->outside_bytes, u, z, sizeof z);
        char mp[512] = "", pl[256] = "";
        if (s->pp > 1 && s->vpp > 1) /* the layers count in chunks: chunk layers x chunks */
            snprintf(pl, sizeof pl, "; interleaved 1F1B on the first of %llu stages: its "
                     "layers in %llu chunks of %llu, %llu chunk micro-batches in flight (%llu "
                     "x the per-layer bytes), the embedding side of %llu",
                     (unsigned long long)s->pp, (unsigned long long)s->vpp,
                     (unsigned long long)a->chunk_layers, (unsigned long long)a->chunks_in_flight,
                     (unsigned long long)(a->chunk_layers * a->chunks_in_flight),
                     (unsigned long long)a->in_flight);
        else if (s->pp > 1)
            snprintf(pl, sizeof pl, "; x %llu micro-batch%s in flight on the first of %llu "
                     "pipeline stages (1F1B)", (unsigned long long)a->in_flight,
                     a->in_flight == 1 ? "" : "es", (unsigned long long)s->pp);
        if (s->tp > 1 || s->pp > 1)
            snprintf(mp, sizeof mp, "%s%llu-way tensor parallel%s%s", s->tp > 1 ? "; " : "",
                     (unsigned long long)s->tp, s->sp ? " with sequence parallel" : "", pl);
        if (s->tp == 1) /* the pipeline alone */
            snprintf(mp, sizeof mp, "%s", pl);
        if (s->cp > 1) { /* context parallel: this GPU's tokens, and the ring's buffers */
            char r[32];
            append(mp, sizeof mp,
                   "; %llu of each sequence's %llu tokens on each GPU (%llu-way context "
                   "parallel), + %s ring buffers (one layer's: a K, V block received and a "
                   "dK, dV block sent)",
                   (unsigned long long)a->local_seq, (unsigned long long)s->seq,
                   (unsigned long long)s->cp, vl_fmt_bytes(a->ring_bytes, u, r, sizeof r));
        }
        if (a->a2a_bytes) { /* expert parallel: the token dispatcher's all-to-all buffers */
            char r[32];
            append(mp, sizeof mp,
                   "; + %s all-to-all buffers (one MoE layer's: the b x s tokens' top-k "
                   "routed copies, h wide, for dispatch and as many for combine; Megatron-Core's "
                   "token dispatcher)",
                   vl_fmt_bytes(a->a2a_bytes, u, r, sizeof r));
        }
        /* the output side: a classifier's b x labels, or the vocabulary's logits */
        const char *out = s->head == VL_HEAD_CLS ? "final norm, classifier"
                          : b->lora.head_params
                              ? "final norm, the output layer's adapter, fp32 logits"
                              : "final norm, fp32 logits";
        if (s->recompute == VL_RECOMPUTE_FULL) {
            char w[32];
            snprintf(buf, len,
                     "full recompute: %llu layers x %s (each layer's input) + the larger of %s "
                     "(end of the forward: embedding, %s%s) and %s (in "
                     "backward: one layer recomputed, its input counted once, and the "
                     "embedding side%s)%s = %s",
                     (unsigned long long)a->layers, vl_fmt_bytes(a->checkpoint_bytes, u, y, sizeof y),
                     vl_fmt_bytes(a->forward_end_bytes, u, z, sizeof z), out,
                     a->layer_weight_copies ? ", every layer's 16-bit weight copies" : "",
                     vl_fmt_bytes(a->recompute_bytes, u, w, sizeof w),
                     a->dequant_bytes ? ", QLoRA's dequantized matrix" : "", mp, v);
        } else {
            snprintf(buf, len,
                     "%llu layers x %s per layer (%d tensors PyTorch eager modules save%s%s%s) "
                     "+ %s (embedding%s%s%s)%s = %s",
                     (unsigned long long)a->layers, x, a->n_layer,
                     vl_precision_is_amp(vl_compute_precision(s)) ? ", under autocast"
                     : vl_fsdp_casts_params(s) ? ", on the 16-bit weights FSDP gathers"
                                               : "",
                     s->recompute == VL_RECOMPUTE_SELECTIVE ? ", attention core recomputed"
                     : b->attention == VL_ATTN_FLASH          ? ", flash attention"
                     : b->attention == VL_ATTN_SDPA           ? ", sdpa attention"
                                                             : "",
                     b->lora.on ? "; frozen linear layers keep no input, adapters their x.A"
                                : "",
                     z, s->pp > 1 ? " side; the output layer is the last stage's" : ", ",
                     s->pp > 1 ? "" : out,
                     a->dequant_bytes ? ", QLoRA's dequantized matrix" : "", mp, v);
        }
        break;
    case VL_C_KV_CACHE:
        snprintf(buf, len, "none in training = %s", v);
        break;
    case VL_C_ZERO3_LIVE:
        if (s->zero == 3 && b->lora.on)
            snprintf(buf, len,
                     "largest matrix %s params x %u B (frozen: no gradient%s) = %s",
                     vl_fmt_count(b->params.largest_matrix, x, sizeof x),
                     s->qlora ? 2 : bpp->gathered,
                     s->qlora ? "; counted at 16 bits, as the embeddings are kept" : "", v);
        else if (s->zero == 3)
            snprintf(buf, len,
                     "largest matrix %s params x (%u + %u) B (weights + gradients, DeepSpeed's "
                     "estimate) = %s",
                     vl_fmt_count(b->params.largest_matrix, x, sizeof x), bpp->gathered,
                     bpp->unsharded_grad, v);
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

void vl_explain_step_time(const vl_settings *s, const vl_arch *a, const vl_train_speed *v,
                          char *buf, size_t len)
{
    char mm[32], rec[96] = "", budget[160] = "", tps[32], tpg[32];
    vl_fmt_count(v->matmul_params, mm, sizeof mm);
    if (v->hardware_flops_per_token > v->model_flops_per_token)
        snprintf(rec, sizeof rec, " (%.3g with the %s recomputation the GPUs also run)",
                 v->hardware_flops_per_token,
                 s->recompute == VL_RECOMPUTE_FULL ? "forward's" : "attention core's");
    int n = snprintf(buf, len,
                     "%u x %s weights a token multiplies + 12 x %llu layers x %llu keys x %llu "
                     "heads x %llu head dim (attention) = %.3g FLOPs a token%s",
                     s->lora_rank ? 4u : 6u, mm, (unsigned long long)a->layers,
                     (unsigned long long)v->context, (unsigned long long)a->heads,
                     (unsigned long long)a->head_dim, v->model_flops_per_token, rec);
    if (n < 0 || (size_t)n >= len)
        return;
    if (!v->known) {
        snprintf(buf + n, len - n, "; no step time: the GPU has no dense peak for %s",
                 vl_precision_names[s->precision]);
        return;
    }
    if (s->tokens) {
        char gh[32];
        snprintf(budget, sizeof budget, "; %s tokens: %.1f days, %s GPU-hours",
                 vl_fmt_count(s->tokens, tps, sizeof tps), v->days,
                 vl_fmt_int((uint64_t)(v->gpu_hours + 0.5), gh, sizeof gh));
    }
    snprintf(buf + n, len - n,
             "; at %g%% MFU of %.0f TFLOP/s: %.3g s a step of %llu tokens, %s tokens/s a GPU, "
             "%s in all%s",
             100.0 * (double)s->mfu / 1e6, v->peak_flops / 1e12, v->step_seconds,
             (unsigned long long)v->tokens_per_step,
             vl_fmt_int((uint64_t)(v->tokens_per_s_per_gpu + 0.5), tpg, sizeof tpg),
             vl_fmt_int((uint64_t)(v->tokens_per_s + 0.5), tps, sizeof tps), budget);
}

const char *vl_convention(const vl_settings *s)
{
    bool mixed = vl_precision_is_mixed(s->precision);
    if (s->mode == VL_MODE_INFER && vl_dtype_gguf(s->weight_dtype, NULL))
        return "inference: a llama.cpp GGUF file type, every tensor in the type llama-quantize "
               "gives it (without an importance matrix; iq1-iq3 with one), its bytes from the "
               "ggml block layouts; computation in 16-bit";
    if (s->mode == VL_MODE_INFER)
        return s->weight_dtype == VL_DT_INT4 && s->weight_format != VL_WFMT_SYMMETRIC
                   ? "inference: the layers' matrices in int4 with one 16-bit scale and a 4-bit "
                     "zero point per group (--weight-format); embeddings, norms and routers in "
                     "16-bit; computation in 16-bit"
               : s->weight_dtype == VL_DT_INT8 && s->weight_format == VL_WFMT_GPTQ
                   ? "inference: the layers' matrices in int8 with one 16-bit scale and an 8-bit "
                     "zero point per group (GPTQ); embeddings, norms and routers in 16-bit; "
                     "computation in 16-bit"
               : s->weight_dtype == VL_DT_INT4
                   ? "inference: the layers' matrices in int4 with one 16-bit scale per group "
                     "(symmetric); embeddings, norms and routers in 16-bit; computation in 16-bit"
               : s->weight_dtype == VL_DT_BNB8
                   ? "inference: the layers' matrices in bitsandbytes' LLM.int8() (an fp32 "
                     "scale a row, 4 / hidden of their bytes or less, not counted); embeddings, "
                     "norms and biases in 16-bit; computation in 16-bit, the matmuls in int8 "
                     "with outliers in fp16"
               : vl_dtype_bnb4(s->weight_dtype)
                   ? "inference: the layers' matrices in bitsandbytes' 4 bits with block absmax; "
                     "embeddings, norms and routers in 16-bit; computation in 16-bit, a 4-bit "
                     "matmul's in --compute-dtype"
               : s->weight_dtype == VL_DT_FP8 || s->weight_dtype == VL_DT_INT8
                   ? "inference: the layers' matrices in 8 bits (per-tensor scales, not counted); "
                     "embeddings, norms and routers in 16-bit; computation in 16-bit"
                   : "inference: every weight in the chosen dtype; computation in 16-bit (fp32 "
                     "with fp32 weights)";
    if (s->precision == VL_FP32)
        return vl_zero_fp32_master(s)
                   ? "fp32 training: weights, gradients and optimizer moments in fp32, and "
                     "the ZeRO optimizer keeps its own fp32 copy of the weights' "
                     "partition as master weights"
                   : "fp32 training: weights, gradients and optimizer moments in fp32";
    if (vl_fsdp_casts_params(s))
        return "PyTorch autocast over FSDP's MixedPrecision: weight, gradient and optimizer "
               "moment shards in fp32, no master copy; each unit is gathered in 16 bits, so "
               "the layers keep 16-bit activations and autocast copies no weight";
    if (vl_precision_is_amp(s->precision))
        return vl_zero_fp32_master(s)
                   ? "PyTorch autocast: weights, gradients and optimizer moments in fp32, and "
                     "the ZeRO optimizer keeps its own fp32 copy of the weights' "
                     "partition as master weights; the 16-bit weight copies autocast makes "
                     "count as activations"
                   : "PyTorch autocast: weights, gradients and optimizer moments in fp32, no "
                     "master copy; the 16-bit weight copies autocast makes count as "
                     "activations";
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

/* What the model's class does differently from Llama's at the run's transformers release
 * (vl_framework_on_class), as a list in buf; false where nothing. */
static bool class_differs(const vl_settings *s, const vl_arch *a, char *buf, size_t len)
{
    const bool training = s->mode == VL_MODE_TRAIN;
    vl_framework own = *s->framework;
    vl_framework_on_transformers(&own, s->transformers);
    vl_framework llama = own;
    vl_arch la = *a;
    la.model_type = VL_MT_LLAMA;
    vl_framework_on_class(&own, a, s->transformers, training);
    vl_framework_on_class(&llama, &la, s->transformers, training);
    const char *items[3]; /* training's two at most, serving's three */
    size_t n = 0;
    if (own.logits_cast_in_model != llama.logits_cast_in_model)
        items[n++] = own.logits_cast_in_model ? "fp32 logits" : "16-bit logits";
    if (own.shift_before_cast)
        items[n++] = "the shifted 16-bit logits copied before their cast";
    if (!training && own.prefill_logits_all != llama.prefill_logits_all)
        items[n++] = own.prefill_logits_all ? "every prompt position projected"
                                            : "the last position projected";
    if (!training && own.kv_step_copy != llama.kv_step_copy)
        items[n++] = "the cache as tuples, the step before's held through a decode step";
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        append(buf, len, "%s%s", i ? "; " : "", items[i]);
    return n > 0;
}

/* What a padded micro-batch costs under transformers' SDPA, in words: each layer's copy of
 * its mask (vl_sdpa_padding_mask), and a GQA model's K and V repeated to the query heads
 * where the releases would pass enable_gqa.  False where it costs nothing. */
static bool padding_costs(const vl_settings *s, const vl_arch *a, const vl_breakdown *b,
                          char *buf, size_t len)
{
    if (!s->framework->transformers || !vl_settings_padded(s) || b->attention != VL_ATTN_SDPA)
        return false;
    const vl_precision compute = vl_compute_precision(s);
    const uint64_t beta = vl_activation_bytes(compute);
    uint64_t mask, copy;
    bool ovf = false;
    vl_sdpa_padding_mask(s, a, vl_precision_is_amp(compute) ? 4 : beta, beta, &mask, &copy,
                         &ovf);
    vl_settings unpadded = *s;
    unpadded.padded = VL_CHOICE_FALSE;
    vl_framework f = *s->framework;
    vl_framework_on_releases(&f, &unpadded);
    const bool repeats = a->kv_heads < a->heads && f.kv_repeat == VL_KV_REPEAT_NONE;
    char heads[64] = "";
    if (repeats)
        snprintf(heads, sizeof heads, "%sK and V are repeated to the %llu query heads",
                 copy ? "; " : "", (unsigned long long)a->heads);
    snprintf(buf, len, "%s%s", copy ? "each layer keeps SDPA's copy of it in the query's dtype"
                                    : "", heads);
    return copy || repeats;
}

int vl_notes(const vl_settings *s, const vl_model *m, const vl_breakdown *b,
             char notes[][VL_NOTE_LEN], int max)
{
    int n = 0;
    char x[32];
    uint64_t context = s->mode == VL_MODE_INFER ? s->seq + s->gen : s->seq;
    if (m->arch.max_positions && context > m->arch.max_positions && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "a context of %llu tokens is beyond the %llu positions %s was trained for: "
                 "the memory is computed all the same",
                 (unsigned long long)context, (unsigned long long)m->arch.max_positions, m->name);
    if (b->attention != s->attention && !vl_torch_runs_sdpa(s, true) && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "transformers runs SDPA on PyTorch 2.1.1 and later: under %s, attention is "
                 "eager (its s x s scores kept)",
                 vl_torch_names[s->torch]);
    else if (b->attention != s->attention && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "%s's class runs SDPA from transformers %s on: under %s, attention is eager "
                 "(its s x s scores kept)",
                 m->name, vl_transformers_names[m->arch.sdpa_from],
                 vl_transformers_names[s->transformers]);
    char differs[128]; /* serving's three items take 112 at most */
    if (class_differs(s, &m->arch, differs, sizeof differs) && n < max)
        snprintf(notes[n++], VL_NOTE_LEN, "transformers %s's %s class, unlike Llama's: %s",
                 vl_transformers_names[s->transformers],
                 vl_model_type_names[m->arch.model_type], differs);
    char padding[120];
    if (padding_costs(s, &m->arch, b, padding, sizeof padding) && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "a micro-batch of %llu sequences is padded to its longest (--padded %s), "
                 "handing SDPA a mask: %s (--padded false: packed rows, or of one length)",
                 (unsigned long long)s->batch, vl_choice_names[s->padded], padding);
    if (s->framework->unties_embeddings && m->arch.tie_embeddings && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "%s gives the output layer a matrix of its own (unties_embeddings): the "
                 "tied embeddings are held twice, %s params more",
                 s->framework->display, vl_fmt_int(b->params.lm_head, x, sizeof x));
    if (s->mode != VL_MODE_INFER && s->head == VL_HEAD_CLS && n < max) {
        vl_params p;
        bool ovf = false;
        char c[32];
        const uint64_t classifier = vl_cls_classifier(&m->arch, s, &ovf);
        if (vl_count_params(&m->arch, &p) && p.lm_head)
            snprintf(notes[n++], VL_NOTE_LEN,
                     "a sequence-classification head (--head cls): its classifier, %s params, "
                     "stands in for the %s-param output layer",
                     vl_fmt_int(classifier, c, sizeof c),
                     vl_fmt_int(p.lm_head + p.head_bias, x, sizeof x));
        else
            snprintf(notes[n++], VL_NOTE_LEN,
                     "a sequence-classification head (--head cls): its classifier, %s params, "
                     "is counted beside the embeddings its output layer was tied to",
                     vl_fmt_int(classifier, c, sizeof c));
    }
    if (s->mode != VL_MODE_INFER)
        return n;
    if (s->gpus > 8 && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "tensor parallel over %llu GPUs spans more than one 8-GPU machine: the "
                 "article's advice is one card if possible, then one machine, since bandwidth "
                 "falls from within a card to between cards to between machines",
                 (unsigned long long)s->gpus);
    if (s->gpus > 1 && b->inf.kv_heads < s->gpus && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "%llu KV heads over %llu GPUs: each GPU keeps one, so the KV cache is "
                 "replicated %llu times",
                 (unsigned long long)b->inf.kv_heads, (unsigned long long)s->gpus,
                 (unsigned long long)(s->gpus / b->inf.kv_heads));
    if (s->gpus > 1 && n < max)
        snprintf(notes[n++], VL_NOTE_LEN,
                 "the norms, biases and positions (%s) are replicated on every GPU; the "
                 "matrices and embeddings are split",
                 vl_fmt_bytes(b->inf.replicated_bytes, VL_UNITS_GIB, x, sizeof x));
    return n;
}

void vl_explain_host_link(const vl_breakdown *b, const vl_speed *v, double bandwidth,
                          double host_bandwidth, vl_units u, char *buf, size_t len)
{
    char w[32], kv[32], off[32];
    const uint64_t kv_bytes = v->step_bytes - b->bytes[VL_C_WEIGHTS];
    snprintf(buf, len,
             "with --cpu-offload each forward also reads %s over the host link: a decode step "
             ">= (%s weights + %s KV cache) / %.0f GB/s + %s / %.2f GB/s = %.2f ms + %.2f ms = "
             "%.2f ms, the prefill %.2f ms more",
             vl_fmt_bytes(b->inf.offloaded_bytes, u, off, sizeof off),
             vl_fmt_bytes(b->bytes[VL_C_WEIGHTS], u, w, sizeof w),
             vl_fmt_bytes(kv_bytes, u, kv, sizeof kv), bandwidth / 1e9, off, host_bandwidth / 1e9,
             (v->decode_step_seconds - v->host_seconds) * 1e3, v->host_seconds * 1e3,
             v->decode_step_seconds * 1e3, v->host_seconds * 1e3);
}
