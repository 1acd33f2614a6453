/* inference.c: per-GPU inference memory (HACKING §4.5): weights by dtype and tensor-parallel
 * split, the KV cache, and the prefill and decode phases with their own peaks. */
#include <string.h>

#include "framework.h"
#include "lora.h"
#include "memory.h"
#include "units.h"

unsigned vl_dtype_bits(vl_dtype d)
{
    static const unsigned bits[VL_N_PLAIN_DTYPES] = {32, 16, 16, 8, 8, 4, 4, 4, 8};
    return d < VL_N_PLAIN_DTYPES ? bits[d] : 0;
}

uint64_t vl_usable_memory(const vl_settings *s, uint64_t memory)
{
    /* SGLang's mem_fraction_static bounds its weights and KV pool, not the process */
    const uint64_t share = vl_settings_share(s);
    if (s->mode != VL_MODE_INFER || s->framework->kv_sizing == VL_KV_STATIC || !share)
        return memory;
    return vl_ppm_of(memory, share);
}

/* Tokens rounded up to whole blocks of a paged cache (vLLM's PagedAttention, Kwon et al.
 * 2023: a sequence holds ceil(tokens / block) blocks); a contiguous cache holds them all. */
static uint64_t slots(uint64_t tokens, uint64_t block)
{
    return block ? vl_ceil_div(tokens, block) * block : tokens;
}

/* An int4 KV cache keeps, per token, head and K or V, a 16-bit scale and a 16-bit zero
 * point beside the packed values: online per-head, per-token asymmetric quantization, as
 * LMDeploy's int4 KV cache does it (LMDeploy docs, "INT4/INT8 KV Cache"). */
#define KV_INT4_PARAM_BYTES 4

uint64_t vl_kv_vector_bytes(uint64_t n, vl_dtype kv)
{
    uint64_t bytes = (n * vl_dtype_bits(kv) + 7) / 8;
    return kv == VL_DT_INT4 ? bytes + KV_INT4_PARAM_BYTES : bytes;
}

/* Bytes of n elements of `bits` bits, rounded up to a whole byte. */
static uint64_t packed(uint64_t n, unsigned bits, bool *ovf)
{
    return vl_ceil_div(vl_mul(n, bits, ovf), 8);
}

/* The largest transient tensors of one forward pass over `tokens` new tokens per sequence
 * attending to `context` keys, on one GPU: the residual stream in and out, plus the
 * largest of attention (Q, K, V and, without flash attention, the scores and their
 * softmax), the MLP's intermediate tensors, and the fp32 logits of the last position (a
 * generating server, like vLLM or Hugging Face's generate, projects only that one). */
typedef struct shard {
    uint64_t heads, kv_heads, ffn, vocab, beta;
} shard;

/* What a bitsandbytes 4-bit matmul adds over rows tokens, for one matrix of in x out on this
 * GPU (bitsandbytes/autograd/_functions.py): matmul_4bit runs gemv_4bit on a single token,
 * and for more dequantize_4bit()s the whole matrix into the dtype it was quantized from,
 * then .to(A.dtype) for F.linear (two 16-bit copies at once when those differ:
 * vl_bnb4_dequant_copies).  Linear4bit.forward (bitsandbytes/nn/modules.py) first casts its
 * input to bnb_4bit_compute_dtype and its output back: in fp32 the input and output are
 * copies, and the matrix exists in 16 and 32 bits at once while it is cast; F.linear then
 * writes the fp32 output beside the fp32 matrix. */
bool vl_bnb4_fp32(const vl_settings *s)
{
    return vl_dtype_bnb4(s->weight_dtype) && s->compute_dtype == VL_DT_FP32 &&
           s->framework->bnb_compute_cast;
}

bool vl_bnb4_head(const vl_settings *s)
{
    return vl_dtype_bnb4(s->weight_dtype) && s->framework->bnb_quantize_head;
}

unsigned vl_bnb4_dequant_copies(const vl_framework *f, bool bf16)
{
    return f->bnb_quant_fp16 && bf16 ? 2 : 1;
}

unsigned vl_bnb4_infer_copies(const vl_settings *s)
{
    return vl_bnb4_dequant_copies(s->framework, s->compute_dtype == VL_DT_BF16);
}

static uint64_t bnb4_one(const vl_settings *s, uint64_t in, uint64_t out, uint64_t rows, bool *ovf)
{
    const uint64_t m = rows > 1 ? vl_mul(in, out, ovf) : 0;
    if (!vl_bnb4_fp32(s))
        return vl_mul(2 * vl_bnb4_infer_copies(s), m, ovf);
    const uint64_t x = vl_mul(4 * rows, in, ovf), y = vl_mul(4 * rows, out, ovf);
    const uint64_t cast = vl_mul(6, m, ovf);                /* the 16- and 32-bit matrix */
    const uint64_t run = vl_add(vl_mul(4, m, ovf), y, ovf); /* the 32-bit one, the output */
    return vl_add(x, cast > run ? cast : run, ovf);
}

/* transformers runs a GPTQ checkpoint in auto-gptq's cuda-old QuantLinear where exllama's
 * kernels do not (they are 4-bit only, and --no-exllama turns them off:
 * dynamically_import_QuantLinear, auto_gptq/utils/import_utils.py, 0.4.2 to 0.7.1).  Its
 * forward (nn_modules/qlinear/qlinear_cuda_old.py) runs the CUDA kernel on fewer than
 * kernel_switch_threshold rows (GPTQ_KERNEL_ROWS), and on more dequantizes the whole matrix
 * for torch.matmul: the packed int32 words shifted into an int32 tensor of in x out elements
 * and cast beside it to int16 for 8 bits, int8 for fewer (6 or 5 B a weight), then masked,
 * less the zero points and times the scales into fp16 (at most as much again).  While the
 * up or down projection does so, a gated MLP holds one tensor of bt x ffn (the activation,
 * or the product it projects down) of its three, a plain one one of its two, so its peak is
 * the larger of its own tensors and that one beside the dequantizing matrix: what this
 * returns is the excess.  A mixture's experts: not modelled. */
#define GPTQ_KERNEL_ROWS 128 /* QuantLinear's kernel_switch_threshold, by default */
bool vl_gptq_cuda_old(const vl_settings *s)
{
    return s->weight_format == VL_WFMT_GPTQ && s->framework->transformers &&
           (s->weight_dtype == VL_DT_INT8 || (s->weight_dtype == VL_DT_INT4 && !s->exllama));
}

static uint64_t gptq_cuda_old(const vl_arch *a, const vl_settings *s, const shard *g,
                              uint64_t bt, bool *ovf)
{
    if (!vl_gptq_cuda_old(s) || a->experts > 1 || bt < GPTQ_KERNEL_ROWS)
        return 0;
    const uint64_t dq = vl_mul((s->weight_dtype == VL_DT_INT8 ? 6 : 5) * a->hidden, g->ffn, ovf);
    const uint64_t others = vl_mul(vl_mul((a->mlp == VL_MLP_GATED ? 2 : 1) * bt, g->ffn, ovf),
                                   g->beta, ovf);
    return dq > others ? dq - others : 0;
}

/* What bitsandbytes' LLM.int8() matmul adds over rows tokens, for one matrix of in x out
 * (MatMul8bitLt.forward, bitsandbytes/autograd/_functions.py, 0.37 to 0.41, with igemmlt):
 * the input quantized by rows and by columns (double_quant: two int8 copies), the first laid
 * out again for igemmlt (col32), the int32 product, its fp16 dequantization and, for a 3-D
 * input, the clone it returns, all alive at the return: 3 B an input element and 6 B an
 * output element beyond the output.  Outlier columns (above llm_int8_threshold, 6 by
 * default) add their fp16 product at the same moment, one output's worth. */
static uint64_t bnb8_one(uint64_t in, uint64_t out, uint64_t rows, bool *ovf)
{
    return vl_add(vl_mul(3 * rows, in, ovf), vl_mul(6 * rows, out, ovf), ovf);
}

/* What a quantized matmul adds for the MLP's matrices over bt tokens, whose own tensors
 * (the activation, the up projection and their product, bt x ffn each) it is added to:
 * bitsandbytes' (4-bit or LLM.int8()) for the larger of the up (h in, ffn out) and down (ffn in, h out)
 * projections; AWQ's under transformers, whose WQLinear_GEMM dequantizes its whole matrix to
 * fp16 for torch.matmul when a forward has 1,024 tokens or more (FP16_MATMUL_HEURISTIC_
 * CONDITION, AutoAWQ awq/modules/linear/gemm.py) and otherwise reads the 4-bit weights in its
 * GEMM kernel; and GPTQ's cuda-old kernel under transformers (gptq_cuda_old). */
static uint64_t quant_matmul(const vl_arch *a, const vl_settings *s, const shard *g, uint64_t bt,
                             bool *ovf)
{
    if (s->weight_dtype == VL_DT_INT4 && s->weight_format == VL_WFMT_AWQ &&
        s->framework->transformers)
        return bt >= 1024 ? vl_mul(2 * a->hidden, g->ffn, ovf) : 0;
    const bool bnb8 = s->weight_dtype == VL_DT_BNB8;
    if (!bnb8 && !vl_dtype_bnb4(s->weight_dtype))
        return gptq_cuda_old(a, s, g, bt, ovf);
    const uint64_t up = bnb8 ? bnb8_one(a->hidden, g->ffn, bt, ovf)
                             : bnb4_one(s, a->hidden, g->ffn, bt, ovf);
    const uint64_t down = bnb8 ? bnb8_one(g->ffn, a->hidden, bt, ovf)
                               : bnb4_one(s, g->ffn, a->hidden, bt, ovf);
    return up > down ? up : down;
}

/* The framework runs a mixture of experts' routed experts in workspaces it keeps
 * (moe_workspace_kept). */
static bool moe_kept(const vl_arch *a, const vl_settings *s)
{
    return s->framework->moe_workspace_kept && a->experts > 1;
}

/* vLLM's FusedMoEModularKernel runs the routed experts in two workspaces of class-level
 * buffers that every layer shares and none frees (model_executor/layers/fused_moe,
 * shared_buffers; TritonExperts' workspace_shapes): M x k x max(N/2, h) and M x k x max(N,
 * h) for M tokens, k experts a token and N the gate and up projections' width on this GPU
 * (2I gated), in the activations' dtype; the block's output lands in the first. */
static uint64_t moe_kept_workspace(const vl_arch *a, const vl_settings *s, uint64_t tokens,
                                   bool *ovf)
{
    if (!moe_kept(a, s))
        return 0;
    const uint64_t w = (a->mlp == VL_MLP_GATED ? 2 : 1) * vl_ceil_div(a->moe_ffn, vl_infer_tp(s));
    const uint64_t one = w / 2 > a->hidden ? w / 2 : a->hidden;
    const uint64_t two = w > a->hidden ? w : a->hidden;
    return vl_mul(vl_mul(vl_mul(tokens, a->experts_per_token, ovf), one + two, ovf),
                  vl_infer_act_bytes(s), ovf);
}

/* The bytes eager attention's forward holds at once for each score: q·kᵀ and its scaled,
 * masked copy, or that copy and the softmax's output in the scores' dtype.  Where the
 * softmax runs in fp32 over 16-bit scores and casts its output back (softmax(...,
 * dtype=torch.float32).to(dtype), vl_softmax_upcasts), the scaled scores, the fp32 output,
 * and the cast, or before it the fp32 copy of bf16 scores the softmax reads (aten's softmax
 * given a dtype: only fp16 scores have CUDA's half-to-float kernel).  A fused softmax
 * (eager_softmax) makes neither fp32 tensor without a gradient to keep. */
static uint64_t score_bytes(const vl_arch *a, const vl_settings *s, const shard *g)
{
    if (g->beta != 2 || !vl_softmax_upcasts(s->framework, a) || vl_softmax_fused(s->framework, a))
        return 2 * g->beta;
    const bool bf16 = s->weight_dtype == VL_DT_BF16 ||
                      (vl_dtype_bnb4(s->weight_dtype) && s->compute_dtype == VL_DT_BF16);
    return g->beta + 4 + (bf16 ? 4 : g->beta);
}

static uint64_t workspace(const vl_arch *a, const vl_settings *s, const shard *g, uint64_t tokens,
                          uint64_t context, bool *ovf)
{
    const uint64_t bt = vl_mul(s->batch, tokens, ovf);
    uint64_t residual = vl_mul(vl_mul(2 * g->beta, bt, ovf), a->hidden, ovf);
    uint64_t attn = vl_mul(vl_mul(bt, (g->heads + 2 * g->kv_heads) * a->head_dim, ovf), g->beta,
                           ovf);
    if (vl_attention_for(s, a) == VL_ATTN_EAGER)
        attn = vl_add(attn, vl_mul(vl_mul(bt, context, ovf), g->heads * score_bytes(a, s, g), ovf),
                      ovf);
    const uint64_t gated = a->mlp == VL_MLP_GATED ? 3 : 2;
    uint64_t per_token_mlp = gated * g->ffn * g->beta;
    if (moe_kept(a, s)) {
        /* the routed experts run in the kept workspaces: an MoE block's own is its output
         * (torch.zeros_like of its input) and its shared experts' MLP; a dense layer's its
         * MLP */
        const uint64_t N = vl_infer_tp(s);
        const uint64_t moe =
            g->beta * (a->hidden + gated * vl_ceil_div(a->shared_experts * a->shared_ffn, N));
        const uint64_t dense = a->dense_layers ? gated * vl_ceil_div(a->ffn, N) * g->beta : 0;
        per_token_mlp = moe > dense ? moe : dense;
    }
    uint64_t mlp = vl_mul(bt, per_token_mlp, ovf);
    /* the last positions' logits in fp32, or, where the framework projects every position
     * it was given (prefill_logits_all), all of them in the model's dtype, and their fp32
     * copy beside them where the model casts its logits (logits_cast_in_model); a 4-bit
     * output layer's matmul beside them */
    const uint64_t rows = s->framework->prefill_logits_all ? bt : s->batch;
    uint64_t logits = vl_mul(s->batch, 4 * g->vocab, ovf);
    const uint64_t every = vl_mul(vl_mul(rows, g->vocab, ovf),
                                  g->beta + (s->framework->logits_cast_in_model ? 4 : 0), ovf);
    logits = every > logits ? every : logits;
    if (vl_bnb4_head(s) && g->vocab)
        logits = vl_add(logits, bnb4_one(s, a->hidden, g->vocab, rows, ovf), ovf);
    uint64_t big = attn > mlp ? attn : mlp;
    mlp = vl_add(mlp, quant_matmul(a, s, g, bt, ovf), ovf);
    big = big > mlp ? big : mlp;
    /* the layer's input, held by its caller, and the block's output beside the rest */
    if (s->framework->layer_input_held)
        big = vl_add(big, vl_mul(vl_mul(2 * g->beta, bt, ovf), a->hidden, ovf), ovf);
    return vl_add(residual, big > logits ? big : logits, ovf);
}

void vl_prefill_step(const vl_settings *s, uint64_t *seqs, uint64_t *tokens)
{
    const uint64_t budget = s->prefill_chunk ? s->prefill_chunk : s->framework->prefill_chunk;
    *seqs = !budget || budget / s->batch >= s->seq ? s->batch
            : budget >= s->seq                     ? budget / s->seq
                                                   : 1;
    *tokens = budget && budget < s->seq ? budget : s->seq;
}

uint64_t vl_infer_tp(const vl_settings *s)
{
    return s->gpus / (s->pp ? s->pp : 1);
}

/* What one of the tensor-parallel GPUs of a pipeline stage holds of the model's heads and
 * widths; the logits only on the stage that computes them (the last, or the only one). */
static shard shard_of(const vl_arch *a, const vl_settings *s, bool logits)
{
    const uint64_t N = vl_infer_tp(s);
    return (shard){a->heads / N, vl_ceil_div(a->kv_heads, N),
                   vl_ceil_div(vl_active_mlp_width(a), N), logits ? vl_ceil_div(a->vocab, N) : 0,
                   vl_infer_act_bytes(s)};
}

/* The bytes past a tensor of `bytes` that loading it leaves in PyTorch's caching allocator:
 * from 10 MiB (kMinLargeAlloc) a segment of its own, rounded up to 2 MiB (kRoundLarge);
 * smaller ones share segments, counted as none. */
static uint64_t segment_tail(uint64_t bytes)
{
    return bytes < VL_ALLOC_MIN_LARGE ? 0 : vl_alloc_segment(vl_alloc_round(bytes)) - bytes;
}

uint64_t vl_weight_segment_tails(const vl_arch *a, const vl_settings *s, uint64_t layers,
                                 bool logits)
{
    const unsigned bits = vl_dtype_bits(s->weight_dtype);
    if (bits < 8 || a->kv_lora_rank) /* packed or multi-latent: not modelled */
        return 0;
    const uint64_t B = bits / 8, h = a->hidden, d = a->head_dim;
    const shard g = shard_of(a, s, logits);
    /* vLLM's and SGLang's layers: QKVParallelLinear, RowParallelLinear, and for a dense MLP
     * MergedColumnParallelLinear (gate and up in one) and the down projection; the experts
     * of a mixture are a few stacked tensors, their tails a rounding error */
    uint64_t layer = segment_tail((g.heads + 2 * g.kv_heads) * d * h * B) +
                     segment_tail(h * g.heads * d * B);
    if (a->experts <= 1)
        layer += segment_tail((a->mlp == VL_MLP_GATED ? 2 : 1) * g.ffn * h * B) +
                 segment_tail(h * g.ffn * B);
    /* the embeddings and the output layer, rows of the vocabulary split over the GPUs, in
     * 16 bits (32 with fp32 weights) */
    const uint64_t rows = vl_ceil_div(a->vocab, vl_infer_tp(s)) * h * (bits == 32 ? 4 : 2);
    const uint64_t head = logits && !a->tie_embeddings ? segment_tail(rows) : 0;
    return layer * layers + segment_tail(rows) + head;
}

/* The largest matrix this GPU quantizes, in elements: the MLP's, the attention's query or
 * output, or a 4-bit output layer on the stage that computes the logits. */
static uint64_t largest_quantized(const vl_arch *a, const vl_settings *s, bool logits, bool *ovf)
{
    const shard g = shard_of(a, s, logits);
    uint64_t wide = g.ffn > g.heads * a->head_dim ? g.ffn : g.heads * a->head_dim;
    if (vl_bnb4_head(s) && g.vocab > wide)
        wide = g.vocab;
    return vl_mul(a->hidden, wide, ovf);
}

/* bitsandbytes quantizes on the GPU as the weights load (bitsandbytes/nn/modules.py).  4 bits:
 * Params4bit._quantize (transformers' loader, Params4bit(...).to(device)) and Lightning's
 * _Linear4bit._quantize_weight move each matrix there in 16 bits, w.contiguous().to(device),
 * and quantize_4bit(w) writes the 4-bit data beside it: 2 B an element.  LLM.int8():
 * Int8Params.cuda moves it in fp16 and double_quant writes two int8 copies, the row-major one
 * it keeps and the transposed one it drops (bitsandbytes/functional.py, out_row and out_col):
 * 3 B an element beyond the weights.  The 16-bit copy goes when the next matrix arrives. */
uint64_t vl_bnb_load_copy(const vl_arch *a, const vl_settings *s, bool logits, bool *ovf)
{
    const unsigned beside = vl_dtype_bnb4(s->weight_dtype) ? 2
                            : s->weight_dtype == VL_DT_BNB8 ? 3
                                                             : 0;
    return beside ? vl_mul(beside, largest_quantized(a, s, logits, ovf), ovf) : 0;
}

/* LLM.int8()'s matmul runs in igemmlt on the tensor cores' layout (col_turing or
 * col_ampere), which MatMul8bitLt.forward makes from the row-major bytes the first time a
 * matrix is used (F.transform(state.CB), 0.37 to 0.41); Linear8bitLt.forward then drops the
 * row-major copy.  Rows and columns are padded to 32 (8 rows on Turing): none in the models
 * here.  On GPUs before Turing (compute capability 7.5) bitsandbytes multiplies an fp16 copy
 * of the matrix instead: not modelled. */
uint64_t vl_bnb8_first_layout(const vl_arch *a, const vl_settings *s, bool *ovf)
{
    return s->weight_dtype == VL_DT_BNB8 ? largest_quantized(a, s, false, ovf) : 0;
}

/* vLLM's MLA backend from 0.7.1 (the first with it) to 0.7.3 absorbed matrices for decode
 * once the weights had loaded (vllm/attention/backends/mla/utils.py,
 * process_weights_after_loading, VLLM_MLA_PERFORM_MATRIX_ABSORPTION on by default), keeping
 * the checkpoint's for prefill ("we end up with absorbed weights for decode and another copy
 * of raw weights for prefill"), each attention layer, its heads on this GPU:
 *   W_QR, the rotary part of q_proj (q_b_proj where queries have a LoRA rank) made
 *     contiguous in the activations' dtype: q_in x heads x qk_rope_head_dim;
 *   W_Q_UK, the rest of it absorbed with kv_b_proj's W_UK: q_in x heads x kv_lora_rank;
 *   W_UV_O, kv_b_proj's W_UV absorbed with o_proj: heads x kv_lora_rank x hidden;
 *   both in the activations' dtype, or requantized to fp8 in 128 x 128 blocks with an fp32
 *   scale each where the weights are fp8 (scaled_quantize);
 *   and, where kv_b_proj is quantized, its dequantized copy, kv_lora_rank x heads x (nope +
 *   v) in the activations' dtype, which W_UK and W_UV stay views of.
 * 0.7.1 and 0.7.2 refuse a quantization but fp8's, 0.7.3 dequantizes any (get_and_maybe_
 * dequant_weights).  0.8 absorbs nothing (W_UK_T and W_UV, views). */
static uint64_t fp8_blocks(uint64_t rows, uint64_t cols, bool *ovf)
{
    return vl_add(vl_mul(rows, cols, ovf),
                  vl_mul(vl_mul(vl_ceil_div(rows, 128), vl_ceil_div(cols, 128), ovf), 4, ovf),
                  ovf);
}

uint64_t vl_mla_absorbed_bytes(const vl_arch *a, const vl_settings *s, uint64_t layers,
                               bool *ovf)
{
    if (!a->kv_lora_rank || !vl_is_vllm_v0(s->framework) || s->vllm != VL_VLLM_0_7_1)
        return 0;
    const uint64_t h = vl_ceil_div(a->heads, vl_infer_tp(s)), act = vl_infer_act_bytes(s);
    const uint64_t q_in = a->q_lora_rank ? a->q_lora_rank : a->hidden;
    const uint64_t rope = a->qk_rope_head_dim, nope = a->head_dim - rope;
    const uint64_t v = a->v_head_dim ? a->v_head_dim : a->head_dim;
    const uint64_t latent = vl_mul(h, a->kv_lora_rank, ovf); /* this GPU's heads' latents */
    const bool fp8 = s->weight_dtype == VL_DT_FP8;
    uint64_t layer = vl_mul(vl_mul(q_in, vl_mul(h, rope, ovf), ovf), act, ovf);
    layer = vl_add(layer,
                   fp8 ? vl_add(fp8_blocks(q_in, latent, ovf), fp8_blocks(latent, a->hidden, ovf),
                                ovf)
                       : vl_mul(vl_add(vl_mul(q_in, latent, ovf), vl_mul(latent, a->hidden, ovf),
                                       ovf),
                                act, ovf),
                   ovf);
    if (vl_dtype_bits(s->weight_dtype) < 16)
        layer = vl_add(layer, vl_mul(vl_mul(latent, nope + v, ovf), act, ovf), ovf);
    return vl_mul(layer, layers, ovf);
}

/* AutoAWQ's save_quantized writes the model's whole state_dict, each tensor cloned
 * (awq/models/base.py, from v0.1.8 to v0.2.9), so the checkpoint of a model with tied
 * embeddings holds lm_head.weight beside model.embed_tokens.weight; Qwen's AWQ guide saves
 * its checkpoints so.  transformers' from_pretrained ties the weights before it loads and
 * again after (modeling_utils.py): the checkpoint's copy loads, in 16 bits, into an output
 * layer of its own, and goes when the second tie points that layer at the embeddings.
 * Only transformers' loader: vLLM's skips the key for a tied model (model_executor/models/
 * qwen2.py, AutoWeightsLoader's skip_prefixes). */
uint64_t vl_awq_tied_head_copy(const vl_arch *a, const vl_settings *s, bool logits, bool *ovf)
{
    if (s->weight_dtype != VL_DT_INT4 || s->weight_format != VL_WFMT_AWQ ||
        !s->framework->transformers || !a->tie_embeddings || !logits)
        return 0;
    return vl_mul(2, vl_mul(a->vocab, a->hidden, ovf), ovf);
}

/* exllama v2's scratch (auto-gptq 0.5.0 to 0.7.1): exllamav2_post_init
 * (auto_gptq/modeling/_utils.py) gives each GPU one fp16 buffer, the largest
 * scratch_space_fixed of its quantized linears, and keeps it (model.device_tensors):
 * temp_dq_size, in x out x 2 + 128, and temp_fwd_size at its defaults (max_input_len 2048,
 * max_batch_size 8), out x 2048 x 8 x 4 + 128, out padded to a multiple of 32
 * (nn_modules/qlinear/qlinear_exllamav2.py).  The linears: attention's q, k and v (from h)
 * and o (to h), each MLP width's up and gate (from h) and down (to h), with this GPU's share
 * of a column-parallel output or a row-parallel input; latent attention's projections are
 * counted as plain attention's. */
#define EXLLAMAV2_ROWS (2048 * 8)
static uint64_t exllamav2_linear(uint64_t in, uint64_t out, bool *ovf)
{
    out += (32 - out % 32) % 32;
    return vl_add(vl_add(vl_mul(vl_mul(in, out, ovf), 2, ovf),
                         vl_mul(vl_mul(out, EXLLAMAV2_ROWS, ovf), 4, ovf), ovf),
                  256, ovf);
}

static uint64_t exllamav2_scratch(const vl_arch *a, const vl_settings *s, bool *ovf)
{
    const uint64_t N = vl_infer_tp(s), h = a->hidden;
    const uint64_t q = vl_ceil_div(a->heads * a->head_dim, N),
                   kv = vl_ceil_div(a->kv_heads * a->head_dim, N);
    const uint64_t f[] = {vl_ceil_div(a->ffn, N), vl_ceil_div(a->moe_ffn, N),
                          vl_ceil_div(a->shared_ffn, N)};
    /* each linear's input and output sides: q, k, v; o; each MLP width's up and gate, down */
    const uint64_t sides[][2] = {{h, q > kv ? q : kv}, {q, h},   {h, f[0]}, {f[0], h},
                                 {h, f[1]},            {f[1], h}, {h, f[2]}, {f[2], h}};
    uint64_t most = 0;
    for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
        const uint64_t bytes = exllamav2_linear(sides[i][0], sides[i][1], ovf);
        most = bytes > most ? bytes : most;
    }
    return most / 2 * 2; /* torch.empty of scratch_bytes // 2 halves */
}

/* Inference, int4 GPTQ under a framework whose models are transformers' and exllama's
 * kernel (--exllama, the default): the buffer it dequantizes a matrix into (0 otherwise).
 * transformers' GPTQ layers run that kernel by default (GPTQConfig's use_exllama; its
 * exllama_config, from 4.35, picks version 1 unless told 2: --exllama-version), and optimum's
 * post_init_model calls autogptq_post_init, which for version 1 makes each GPU one temp_dq of
 * qweight.numel() x 8 halves for the largest quantized matrix, zeroed and kept, the kernel's
 * cuBLAS path dequantizing into it (auto_gptq/modeling/_utils.py), and for version 2 the
 * scratch above.  Version 1's act-order buffer (temp_state, max_input_len x the widest
 * dimension) is made only for desc_act checkpoints, not counted. */
static uint64_t int4_dq_buffer(const vl_arch *a, const vl_params *p, const vl_settings *s,
                               bool *ovf)
{
    if (s->weight_dtype != VL_DT_INT4 || s->weight_format != VL_WFMT_GPTQ ||
        !s->framework->transformers || !s->exllama)
        return 0;
    if (s->exllama_version == 2)
        return exllamav2_scratch(a, s, ovf);
    return vl_mul(2, vl_ceil_div(p->largest_layer_matrix, vl_infer_tp(s)), ovf);
}

uint64_t vl_infer_act_bytes(const vl_settings *s)
{
    return s->weight_dtype == VL_DT_FP32 ? 4 : 2;
}

uint64_t vl_infer_workspace(const vl_arch *a, const vl_settings *s, bool logits, uint64_t tokens,
                            uint64_t context, bool *ovf)
{
    const shard g = shard_of(a, s, logits);
    return workspace(a, s, &g, tokens, context, ovf);
}

/* KV cache bytes per token on one GPU: K and V of its KV heads in each of its layers, or,
 * with multi-head latent attention, the latent and the rotary key, which every GPU keeps
 * whole. */
static uint64_t kv_per_token(const vl_arch *a, uint64_t layers, uint64_t heads, vl_dtype kv)
{
    if (a->kv_lora_rank)
        return layers * vl_kv_vector_bytes(a->kv_lora_rank + a->qk_rope_head_dim, kv);
    return 2 * layers * heads * vl_kv_vector_bytes(a->head_dim, kv);
}

static uint64_t phase_total(const vl_breakdown *b, const vl_settings *s, vl_phase *p, bool *ovf)
{
    p->total = vl_add(vl_add(vl_add(b->bytes[VL_C_WEIGHTS], p->kv_cache, ovf), p->workspace, ovf),
                      s->overhead, ovf);
    return p->total;
}

/* What one pipeline stage holds (all of the model without --pp): its layers' matrices, its
 * embedding or output-layer rows, and the rest (norms, biases, positions, routers). */
typedef struct stage {
    uint64_t linear, emb, other;
    uint64_t qhead; /* of emb: an output layer the framework quantizes with the matrices */
    bool logits;    /* it computes the logits: the last stage, or the only one */
} stage;

/* A stage on one of its tensor-parallel GPUs: the weights, and the prefill and decode phases
 * (HACKING §4.5); the larger phase's bytes in out->bytes. */
static void run_stage(const vl_arch *a, const vl_settings *s, const stage *st, uint64_t kv_gpu,
                      vl_breakdown *out, bool *ovf)
{
    vl_inference *inf = &out->inf;
    const uint64_t N = vl_infer_tp(s);
    if (!inf->gguf_on) {
        const unsigned wbits = vl_dtype_bits(s->weight_dtype);
        const unsigned ebits = vl_dtype_quantized(s->weight_dtype) ? 16 : wbits;
        /* int4, and int8 in GPTQ's format: one 16-bit scale per group of weights along a
         * row, and in GPTQ's and AWQ's checkpoints a zero point of the weights' bits (qzeros,
         * packed in int32 words; GPTQ's g_idx, 4 B an input feature of a matrix, under 0.1%,
         * not counted); bnb4: the block absmax */
        const vl_dtype wd = s->weight_dtype;
        const uint64_t q = vl_add(st->linear, st->qhead, ovf);
        const uint64_t groups = vl_ceil_div(st->linear, s->group_size);
        const uint64_t zeros =
            s->weight_format == VL_WFMT_SYMMETRIC ? 0 : packed(groups, wbits, ovf);
        inf->scale_bytes = vl_weight_groups(s) ? 2 * groups + zeros
                           : vl_dtype_bnb4(wd) ? vl_nf4_scale_bytes(q, wd == VL_DT_BNB4_DQ)
                                               : 0;
        inf->replicated_bytes = packed(st->other, ebits, ovf);
        uint64_t weights = packed(vl_ceil_div(st->linear, N), wbits, ovf);
        weights = vl_add(weights, packed(vl_ceil_div(st->qhead, N), wbits, ovf), ovf);
        weights = vl_add(weights, packed(vl_ceil_div(st->emb - st->qhead, N), ebits, ovf), ovf);
        weights = vl_add(weights, vl_ceil_div(inf->scale_bytes, N), ovf);
        out->bytes[VL_C_WEIGHTS] = vl_add(weights, inf->replicated_bytes, ovf);
    }
    /* --cpu-offload (vLLM's --cpu-offload-gb, per GPU: maybe_offload_to_cpu in
     * vllm/model_executor/models/utils.py moves each GPU's own parameters to pinned CPU
     * memory, layer by layer, until the budget is used): a budget past this GPU's weights
     * offloads them all, as vLLM's loop runs out of parameters */
    inf->offloaded_bytes =
        s->cpu_offload < out->bytes[VL_C_WEIGHTS] ? s->cpu_offload : out->bytes[VL_C_WEIGHTS];
    out->bytes[VL_C_WEIGHTS] -= inf->offloaded_bytes;
    /* an engine's RoPE table (vLLM's cos_sin_cache): max_position_embeddings x head dim in
     * the activations' dtype, on every GPU, beside the weights (a buffer, which
     * --cpu-offload's loop over parameters leaves on the GPU) */
    inf->rope_cache_bytes = s->framework->rope_cache && a->position == VL_POS_ROPE
                                ? vl_mul(vl_mul(a->max_positions, a->head_dim, ovf),
                                         vl_infer_act_bytes(s), ovf)
                                : 0;
    out->bytes[VL_C_WEIGHTS] = vl_add(out->bytes[VL_C_WEIGHTS], inf->rope_cache_bytes, ovf);
    inf->mla_absorbed_bytes = vl_mla_absorbed_bytes(a, s, inf->stage_layers, ovf);
    out->bytes[VL_C_WEIGHTS] = vl_add(out->bytes[VL_C_WEIGHTS], inf->mla_absorbed_bytes, ovf);
    inf->dq_buffer_bytes = int4_dq_buffer(a, &out->params, s, ovf);
    out->bytes[VL_C_WEIGHTS] = vl_add(out->bytes[VL_C_WEIGHTS], inf->dq_buffer_bytes, ovf);
    /* an offloaded layer runs from a copy of its state on the GPU (maybe_offload_to_cpu's
     * forward: v.to(device) of the module's state_dict, dropped when the forward returns):
     * one layer's matrices at a time, this GPU's share */
    const uint64_t layer = inf->stage_layers && !inf->gguf_on
                               ? packed(vl_ceil_div(st->linear, N), vl_dtype_bits(s->weight_dtype),
                                        ovf) / inf->stage_layers
                               : 0;
    inf->offload_copy = inf->offloaded_bytes < layer ? inf->offloaded_bytes : layer;
    const shard g = shard_of(a, s, st->logits);
    inf->logits = st->logits;
    inf->stage_linear = st->linear;
    inf->stage_embedding = st->emb;
    inf->stage_qhead = st->qhead;
    inf->stage_other = st->other;
    inf->prefill.kv_cache = vl_mul(vl_mul(kv_gpu, inf->prompt_slots, ovf), s->batch, ovf);
    /* the prefill's workspace is a step's: the framework's prompts of its tokens */
    vl_prefill_step(s, &inf->prefill_seqs, &inf->prefill_tokens);
    vl_settings step = *s;
    step.batch = inf->prefill_seqs;
    inf->moe_kept_bytes =
        moe_kept_workspace(a, s, vl_mul(inf->prefill_seqs, inf->prefill_tokens, ovf), ovf);
    const uint64_t step_ws = workspace(a, &step, &g, inf->prefill_tokens, s->seq, ovf);
    inf->prefill.workspace =
        vl_add(vl_add(step_ws, inf->offload_copy, ovf), inf->moe_kept_bytes, ovf);
    phase_total(out, s, &inf->prefill, ovf);
    memset(&inf->decode, 0, sizeof inf->decode);
    if (s->gen > 0) {
        inf->decode.kv_cache = vl_mul(vl_mul(kv_gpu, inf->cached_slots, ovf), s->batch, ovf);
        inf->decode.workspace =
            vl_add(vl_add(workspace(a, s, &g, 1, inf->cached_tokens, ovf), inf->offload_copy, ovf),
                   inf->moe_kept_bytes, ovf);
        phase_total(out, s, &inf->decode, ovf);
    }
    inf->decode_peak = inf->decode.total > inf->prefill.total;
    const vl_phase *peak = inf->decode_peak ? &inf->decode : &inf->prefill;
    out->bytes[VL_C_KV_CACHE] = peak->kv_cache;
    out->bytes[VL_C_ACTIVATIONS] = peak->workspace;
    out->bytes[VL_C_OVERHEAD] = s->overhead;
    out->total = peak->total;
}

const char *vl_estimate_infer(const vl_model *m, const vl_settings *s, vl_breakdown *out)
{
    const vl_arch *a = &m->arch;
    const uint64_t N = vl_infer_tp(s), pp = s->pp ? s->pp : 1;
    vl_inference *inf = &out->inf;
    bool ovf = false;

    /* What the weights are made of: the layers' parameters but their norms and routers
     * take the weight dtype (their few biases with them); the embeddings, norms, routers,
     * positions and the rest stay 16-bit when the matrices are quantized. */
    const vl_params *p = &out->params;
    uint64_t moe_layers = a->experts > 1 ? a->layers - a->dense_layers : 0;
    uint64_t linear = p->total - p->outside - p->norms * a->layers - p->router * moe_layers;
    uint64_t emb = p->embedding + p->lm_head;
    uint64_t other = p->total - linear - emb;
    if (out->P != p->total) { /* a free count, or a checkpoint's: the shape's proportions,
                                * the given total */
        other = other < out->P ? other : out->P;
        emb = emb < out->P - other ? emb : out->P - other;
        linear = out->P - other - emb;
    }
    inf->linear_params = linear;
    inf->embedding_params = emb;
    inf->other_params = other;

    vl_gguf_ftype ft;
    inf->gguf_on = vl_dtype_gguf(s->weight_dtype, &ft);
    if (inf->gguf_on) {
        /* a GGUF file type: every tensor as llama-quantize types it (gguf.c), the norms in
         * f32; llama.cpp splits a model over GPUs by whole layers (--split-mode layer, its
         * default), which this takes as an even share of the bytes (--pp is refused) */
        const vl_gguf_layout layout = vl_gguf_default_layout(a);
        if (!vl_gguf_weights_of(a, &layout, ft, &inf->gguf))
            return "the GGUF tensor bytes do not fit in 64 bits";
        inf->scale_bytes = inf->replicated_bytes = 0;
        out->bytes[VL_C_WEIGHTS] = vl_ceil_div(vl_gguf_gpu_bytes(&inf->gguf), N);
    }

    /* KV cache: split by KV heads, one head each (replicated) past their number, over the
     * stage's layers */
    const uint64_t cap = a->sliding_window ? a->sliding_window : UINT64_MAX;
    inf->layers = a->layers;
    inf->pp = pp;
    inf->stage_layers = vl_ceil_div(a->layers, pp);
    inf->kv_heads = a->kv_heads;
    inf->head_dim = a->head_dim;
    inf->kv_heads_per_gpu = vl_ceil_div(a->kv_heads, N);
    inf->latent_width = a->kv_lora_rank ? a->kv_lora_rank + a->qk_rope_head_dim : 0;
    /* an encoder attends over its whole input in one pass and caches nothing */
    const bool encoder = vl_arch_encoder(a);
    inf->kv_bytes_per_token = encoder ? 0 : kv_per_token(a, a->layers, a->kv_heads, s->kv_dtype);
    const uint64_t kv_gpu =
        encoder ? 0 : kv_per_token(a, inf->stage_layers, inf->kv_heads_per_gpu, s->kv_dtype);
    inf->prompt_tokens = s->seq < cap ? s->seq : cap;
    inf->cached_tokens = s->seq + s->gen < cap ? s->seq + s->gen : cap;
    inf->prompt_slots = slots(inf->prompt_tokens, s->kv_block);
    inf->cached_slots = slots(inf->cached_tokens, s->kv_block);
    inf->kv_gpu_per_token = kv_gpu;

    /* an untied output layer in 4 bits with the matrices (bnb_quantize_head) */
    uint64_t qhead = vl_bnb4_head(s) ? p->lm_head : 0;
    qhead = qhead < emb ? qhead : emb;
    if (pp == 1) {
        run_stage(a, s, &(stage){linear, emb, other, qhead, true}, kv_gpu, out, &ovf);
    } else {
        /* Pipeline-parallel serving (vLLM's pipeline_parallel_size; get_pp_indices gives
         * each stage num_layers / pp layers and the remainder one each to the stages before
         * the last, as Megatron-LM lays out a pipeline): the fullest GPU is on a stage of
         * ceil(L/p) layers, with the first stage's embeddings or the last's output layer
         * and final norm.  A stage's layers are the model's largest (an MoE layer, where
         * leading dense layers are lighter); a free or checkpoint count takes the average.
         * With tied embeddings the last stage keeps its own copy as the output layer (vLLM:
         * embed_tokens on the last rank too when tie_word_embeddings).  Both end stages are
         * computed and the larger shown. */
        const uint64_t S = inf->stage_layers, L = a->layers;
        uint64_t per_layer = vl_ceil_div(linear, L);
        if (out->P == p->total) {
            per_layer = p->per_layer - p->norms - (moe_layers ? p->router : 0);
            uint64_t dense = p->per_dense_layer - p->norms;
            if (a->dense_layers && dense > per_layer)
                per_layer = dense;
        }
        uint64_t st_linear = vl_mul(per_layer, S, &ovf);
        st_linear = st_linear < linear ? st_linear : linear;
        uint64_t st_other = vl_mul(p->norms + (moe_layers ? p->router : 0), S, &ovf);
        const uint64_t head = p->lm_head ? p->lm_head : p->embedding;
        const stage first = {st_linear, p->embedding,
                             st_other + p->positions + p->token_types + p->embedding_norm, 0,
                             false};
        const stage last = {st_linear, head, st_other + p->final_norm + p->pooler, qhead, true};
        run_stage(a, s, &first, kv_gpu, out, &ovf);
        vl_breakdown other_end = *out;
        run_stage(a, s, &last, kv_gpu, &other_end, &ovf);
        if (other_end.total >= out->total)
            *out = other_end;
    }
    /* what each GPU offloaded, in its node's CPU memory (the report's cpu_per_node, as for
     * training's ZeRO-Offload) */
    vl_cpu *c = &out->cpu;
    memset(c, 0, sizeof *c);
    c->gpus_per_node = vl_gpus_per_node(s);
    c->nodes = vl_ceil_div(s->gpus, c->gpus_per_node);
    c->moved[VL_C_WEIGHTS] = c->moved_total = inf->offloaded_bytes;
    c->per_node[VL_C_WEIGHTS] = c->node_total =
        vl_mul(inf->offloaded_bytes, c->gpus_per_node, &ovf);
    if (ovf)
        return "the result does not fit in 64 bits (over 16 EiB per GPU): reduce --batch or --seq";
    return NULL;
}

vl_speed vl_speed_bounds(const vl_breakdown *b, const vl_settings *s, double bandwidth,
                         double flops, double host_bandwidth)
{
    vl_speed v = {0};
    const vl_inference *inf = &b->inf;
    if (s->mode != VL_MODE_INFER || (inf->offloaded_bytes && host_bandwidth <= 0))
        return v;
    /* Offloaded weights cross the host link at every forward, decode step and prefill
     * alike: vLLM's offloaded module copies its state to the GPU (v.to(device,
     * non_blocking=True)) on the stream its functional_call then computes on, so the copy
     * and the layer's work run one after the other and their times add. */
    if (inf->offloaded_bytes)
        v.host_seconds = (double)inf->offloaded_bytes / host_bandwidth;
    uint64_t kv = inf->decode.kv_cache > inf->prefill.kv_cache ? inf->decode.kv_cache
                                                                : inf->prefill.kv_cache;
    v.step_bytes = b->bytes[VL_C_WEIGHTS] + kv;
    if (bandwidth > 0) {
        /* every decode step reads this GPU's weights and KV cache once */
        v.decode_step_seconds = (double)v.step_bytes / bandwidth + v.host_seconds;
        v.decode_tokens_per_s = (double)s->batch / v.decode_step_seconds;
    }
    if (flops > 0) {
        uint64_t active = b->P == b->params.total ? b->params.active : b->P;
        v.prefill_seconds = 2.0 * (double)active * (double)s->batch * (double)s->seq /
                                ((double)s->gpus * flops) +
                            v.host_seconds;
    }
    v.known = bandwidth > 0 && flops > 0;
    return v;
}
