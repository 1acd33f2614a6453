/* gguf.c: GGUF tensor types, file types and llama-quantize's per-tensor mix (see gguf.h). */
#include "gguf.h"

#include <string.h>
#include <strings.h>

#include "units.h"

/* Block layouts: the block_* structs of ggml/src/ggml-common.h (ggml-org/llama.cpp), a
 * ggml_half being 2 bytes and QK_K 256.  bytes = the struct's static_assert'ed size. */
static const vl_ggml_type_info ggml_types[VL_GGML_N] = {
    [VL_GGML_F32] = {"f32", 1, 4},
    [VL_GGML_F16] = {"f16", 1, 2},
    [VL_GGML_BF16] = {"bf16", 1, 2},
    [VL_GGML_Q4_0] = {"q4_0", 32, 2 + 16},           /* d; qs[QK4_0/2] */
    [VL_GGML_Q4_1] = {"q4_1", 32, 2 * 2 + 16},       /* d, m; qs[16] */
    [VL_GGML_Q5_0] = {"q5_0", 32, 2 + 4 + 16},       /* d; qh[4]; qs[16] */
    [VL_GGML_Q5_1] = {"q5_1", 32, 2 * 2 + 4 + 16},   /* d, m; qh[4]; qs[16] */
    [VL_GGML_Q8_0] = {"q8_0", 32, 2 + 32},           /* d; qs[QK8_0] */
    [VL_GGML_Q2_K] = {"q2_K", 256, 16 + 64 + 2 * 2}, /* scales[QK_K/16]; qs[QK_K/4]; d, dmin */
    [VL_GGML_Q3_K] = {"q3_K", 256, 32 + 64 + 12 + 2}, /* hmask[QK_K/8]; qs[QK_K/4]; scales[12]; d */
    [VL_GGML_Q4_K] = {"q4_K", 256, 2 * 2 + 12 + 128}, /* d, dmin; scales[K_SCALE_SIZE]; qs[QK_K/2] */
    [VL_GGML_Q5_K] = {"q5_K", 256, 2 * 2 + 12 + 32 + 128}, /* d, dmin; scales[12]; qh; qs */
    [VL_GGML_Q6_K] = {"q6_K", 256, 128 + 64 + 16 + 2}, /* ql[QK_K/2]; qh[QK_K/4]; scales[QK_K/16]; d */
    [VL_GGML_IQ1_S] = {"iq1_s", 256, 2 + 32 + 16},   /* d; qs[QK_K/8]; qh[QK_K/32] (uint16) */
    [VL_GGML_IQ1_M] = {"iq1_m", 256, 32 + 16 + 8},   /* qs[QK_K/8]; qh[QK_K/16]; scales[QK_K/32] */
    [VL_GGML_IQ2_XXS] = {"iq2_xxs", 256, 2 + 64},    /* d; qs[QK_K/8] (uint16) */
    [VL_GGML_IQ2_XS] = {"iq2_xs", 256, 2 + 64 + 8},  /* d; qs[QK_K/8] (uint16); scales[QK_K/32] */
    [VL_GGML_IQ2_S] = {"iq2_s", 256, 2 + 64 + 8 + 8}, /* d; qs[QK_K/4]; qh[QK_K/32]; scales[QK_K/32] */
    [VL_GGML_IQ3_XXS] = {"iq3_xxs", 256, 2 + 96},    /* d; qs[3*QK_K/8] */
    [VL_GGML_IQ3_S] = {"iq3_s", 256, 2 + 64 + 8 + 32 + 4}, /* d; qs; qh; signs[QK_K/8]; scales[QK_K/64] */
    [VL_GGML_IQ4_NL] = {"iq4_nl", 32, 2 + 16},       /* d; qs[QK4_NL/2] */
    [VL_GGML_IQ4_XS] = {"iq4_xs", 256, 2 + 2 + 4 + 128}, /* d; scales_h; scales_l[QK_K/64]; qs */
};

const vl_ggml_type_info *vl_ggml_info(vl_ggml_type t)
{
    return &ggml_types[t];
}

double vl_ggml_bits_per_weight(vl_ggml_type t)
{
    return 8.0 * ggml_types[t].bytes / ggml_types[t].block;
}

bool vl_ggml_bytes(vl_ggml_type t, uint64_t n, uint64_t *bytes)
{
    bool ovf = false;
    *bytes = vl_mul(n / ggml_types[t].block, ggml_types[t].bytes, &ovf);
    return !ovf;
}

#define VL_GGUF_NAME(id, name) name,
static const char *const ftype_names[VL_GGUF_N] = {VL_GGUF_FTYPES(VL_GGUF_NAME)};
#undef VL_GGUF_NAME

const char *vl_gguf_ftype_name(vl_gguf_ftype ft)
{
    return ftype_names[ft];
}

bool vl_gguf_ftype_parse(const char *name, vl_gguf_ftype *ft)
{
    for (int i = 0; i < VL_GGUF_N; i++)
        if (strcasecmp(name, ftype_names[i]) == 0) {
            *ft = (vl_gguf_ftype)i;
            return true;
        }
    return false;
}

/* llama_ftype_get_default_type (src/llama-quant.cpp). */
static const vl_ggml_type default_types[VL_GGUF_N] = {
    [VL_GGUF_F32] = VL_GGML_F32,     [VL_GGUF_F16] = VL_GGML_F16,
    [VL_GGUF_BF16] = VL_GGML_BF16,   [VL_GGUF_Q4_0] = VL_GGML_Q4_0,
    [VL_GGUF_Q4_1] = VL_GGML_Q4_1,   [VL_GGUF_Q5_0] = VL_GGML_Q5_0,
    [VL_GGUF_Q5_1] = VL_GGML_Q5_1,   [VL_GGUF_Q8_0] = VL_GGML_Q8_0,
    [VL_GGUF_Q2_K] = VL_GGML_Q2_K,   [VL_GGUF_Q2_K_S] = VL_GGML_Q2_K,
    [VL_GGUF_Q3_K_S] = VL_GGML_Q3_K, [VL_GGUF_Q3_K_M] = VL_GGML_Q3_K,
    [VL_GGUF_Q3_K_L] = VL_GGML_Q3_K, [VL_GGUF_Q4_K_S] = VL_GGML_Q4_K,
    [VL_GGUF_Q4_K_M] = VL_GGML_Q4_K, [VL_GGUF_Q5_K_S] = VL_GGML_Q5_K,
    [VL_GGUF_Q5_K_M] = VL_GGML_Q5_K, [VL_GGUF_Q6_K] = VL_GGML_Q6_K,
    [VL_GGUF_IQ4_NL] = VL_GGML_IQ4_NL, [VL_GGUF_IQ4_XS] = VL_GGML_IQ4_XS,
    [VL_GGUF_IQ3_XXS] = VL_GGML_IQ3_XXS, [VL_GGUF_IQ3_XS] = VL_GGML_IQ3_S,
    [VL_GGUF_IQ3_S] = VL_GGML_IQ3_S, [VL_GGUF_IQ3_M] = VL_GGML_IQ3_S,
    [VL_GGUF_IQ2_XXS] = VL_GGML_IQ2_XXS, [VL_GGUF_IQ2_XS] = VL_GGML_IQ2_XS,
    [VL_GGUF_IQ2_S] = VL_GGML_IQ2_XS, [VL_GGUF_IQ2_M] = VL_GGML_IQ2_S,
    [VL_GGUF_IQ1_S] = VL_GGML_IQ1_S, [VL_GGUF_IQ1_M] = VL_GGML_IQ1_M,
};

vl_ggml_type vl_gguf_default_type(vl_gguf_ftype ft)
{
    return default_types[ft];
}

static bool is_quantized(vl_ggml_type t)
{
    return t != VL_GGML_F32 && t != VL_GGML_F16 && t != VL_GGML_BF16;
}

vl_gguf_layout vl_gguf_default_layout(const vl_arch *a)
{
    /* convert_hf_to_gguf.py writes attn_qkv for GPT-NeoX and Falcon (parallel attention),
     * BLOOM (ALiBi) and GPT-2 (learned positions, no token types); BERT keeps q, k, v. */
    bool fused = a->parallel_attention || a->position == VL_POS_ALIBI ||
                 (a->position == VL_POS_LEARNED && a->token_types == 0);
    return (vl_gguf_layout){
        .fused_qkv = fused && a->kv_lora_rank == 0,
        .falcon = a->parallel_attention && !a->attention_bias && !a->mlp_bias,
    };
}

/* convert_hf_to_gguf.py's model classes that write fused tensors: Phi3MiniModel (attn_qkv,
 * and ffn_up holding gate and up), GPTNeoXModel, FalconModel, BloomModel, GPT2Model and
 * StarCoderModel (attn_qkv); FalconModel's files get LLM_ARCH_FALCON's rules. */
static const struct {
    const char *model_type;
    vl_gguf_layout layout;
} fused_types[] = {
    {"phi3", {.fused_qkv = true, .fused_gate_up = true}},
    {"gpt_neox", {.fused_qkv = true}},
    {"falcon", {.fused_qkv = true, .falcon = true}},
    {"bloom", {.fused_qkv = true}},
    {"gpt2", {.fused_qkv = true}},
    {"gpt_bigcode", {.fused_qkv = true}},
};

vl_gguf_layout vl_gguf_layout_for(const char *model_type, const vl_arch *a)
{
    for (size_t i = 0; i < sizeof fused_types / sizeof fused_types[0]; i++)
        if (strcmp(model_type, fused_types[i].model_type) == 0)
            return fused_types[i].layout;
    return vl_gguf_default_layout(a);
}

/* ---- llama_tensor_get_type_impl ----------------------------------------------------- */

/* tensor_category (src/llama-quant.cpp); ATTN_V stands for its attention-v-like ones:
 * attn_v, attn_qkv and attn_kv_b (category_is_attn_v). */
typedef enum {
    CAT_TOKEN_EMBD, CAT_OUTPUT, CAT_ATTN_Q, CAT_ATTN_K, CAT_ATTN_V, CAT_ATTN_OUTPUT,
    CAT_FFN_UP, CAT_FFN_GATE, CAT_FFN_DOWN, CAT_OTHER,
} category;

typedef struct {
    const vl_arch *a;
    const vl_gguf_layout *layout;
    vl_gguf_ftype ft;
    vl_ggml_type base;   /* the file type's default type */
    bool tied;           /* no output.weight: token_embd is typed as the output */
    uint64_t i_ffn_down; /* ffn_down tensors typed so far (qs.i_ffn_down) */
    vl_gguf_weights *w;
    bool ovf;
} quantizer;

static bool use_more_bits(uint64_t i, uint64_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i >= n / 8 && (i - n / 8) % 3 == 2);
}

static bool ft_in(vl_gguf_ftype ft, const vl_gguf_ftype *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ft == set[i])
            return true;
    return false;
}
#define FT_IN(ft, ...) \
    ft_in(ft, (const vl_gguf_ftype[]){__VA_ARGS__}, \
          sizeof((const vl_gguf_ftype[]){__VA_ARGS__}) / sizeof(vl_gguf_ftype))

/* The iq1 and iq2 file types, which llama_tensor_get_type_impl treats as one group. */
static bool very_low(vl_gguf_ftype ft)
{
    return FT_IN(ft, VL_GGUF_IQ2_XXS, VL_GGUF_IQ2_XS, VL_GGUF_IQ1_S, VL_GGUF_IQ2_S,
                 VL_GGUF_IQ2_M, VL_GGUF_IQ1_M);
}

static vl_ggml_type output_type(const quantizer *q, uint64_t ncols)
{
    if (q->layout->falcon || ncols % ggml_types[q->base].block != 0)
        return VL_GGML_Q8_0;
    if (very_low(q->ft) || q->ft == VL_GGUF_IQ3_XXS)
        return VL_GGML_Q5_K;
    return q->base != VL_GGML_Q8_0 ? VL_GGML_Q6_K : q->base;
}

static vl_ggml_type token_embd_type(const quantizer *q)
{
    if (FT_IN(q->ft, VL_GGUF_IQ2_XXS, VL_GGUF_IQ2_XS, VL_GGUF_IQ1_S, VL_GGUF_IQ1_M))
        return VL_GGML_Q2_K;
    if (FT_IN(q->ft, VL_GGUF_IQ2_S, VL_GGUF_IQ2_M, VL_GGUF_IQ3_XXS))
        return VL_GGML_IQ3_S;
    return q->base;
}

/* The iq1 and iq2 group's own branch. */
static vl_ggml_type very_low_type(quantizer *q, category c)
{
    const vl_arch *a = q->a;
    const bool s_or_m = FT_IN(q->ft, VL_GGUF_IQ2_S, VL_GGUF_IQ2_M);
    if (c == CAT_ATTN_V) {
        if (a->heads / a->kv_heads >= 4 || a->experts >= 4)
            return VL_GGML_Q4_K;
        return s_or_m ? VL_GGML_IQ3_S : VL_GGML_Q2_K;
    }
    if (c == CAT_ATTN_K && a->experts == 8)
        return VL_GGML_Q4_K;
    if (c == CAT_FFN_DOWN) /* the tensor counter, not the layer */
        return q->i_ffn_down++ < a->layers / 8 ? (s_or_m ? VL_GGML_IQ3_S : VL_GGML_Q2_K)
                                                : q->base;
    if (c == CAT_ATTN_OUTPUT) {
        if (a->experts == 8)
            return VL_GGML_Q5_K;
        if (FT_IN(q->ft, VL_GGUF_IQ1_S, VL_GGUF_IQ1_M))
            return VL_GGML_IQ2_XXS;
        if (s_or_m)
            return VL_GGML_IQ3_S;
    }
    return q->base;
}

static vl_ggml_type attn_v_type(const quantizer *q, uint64_t layer)
{
    const vl_arch *a = q->a;
    const vl_gguf_ftype ft = q->ft;
    const uint64_t gqa = a->heads / a->kv_heads;
    vl_ggml_type t = q->base;
    if (ft == VL_GGUF_Q2_K)
        t = gqa >= 4 ? VL_GGML_Q4_K : VL_GGML_Q3_K;
    else if (ft == VL_GGUF_Q2_K_S && gqa >= 4)
        t = VL_GGML_Q4_K;
    else if (ft == VL_GGUF_IQ3_XXS)
        t = gqa >= 4 ? VL_GGML_Q4_K : VL_GGML_IQ3_XXS; /* with an imatrix */
    else if (FT_IN(ft, VL_GGUF_IQ3_XS, VL_GGUF_IQ3_S) && gqa >= 4)
        t = VL_GGML_Q4_K;
    else if (ft == VL_GGUF_IQ3_M)
        t = VL_GGML_Q4_K;
    else if (ft == VL_GGUF_Q3_K_M)
        t = layer < 2 ? VL_GGML_Q5_K : VL_GGML_Q4_K;
    else if (ft == VL_GGUF_Q3_K_L)
        t = VL_GGML_Q5_K;
    else if (FT_IN(ft, VL_GGUF_IQ4_NL, VL_GGUF_IQ4_XS) && gqa >= 4)
        t = VL_GGML_Q5_K;
    else if (FT_IN(ft, VL_GGUF_Q4_K_M, VL_GGUF_Q5_K_M) && use_more_bits(layer, a->layers))
        t = VL_GGML_Q6_K;
    else if (ft == VL_GGUF_Q4_K_S && layer < 4)
        t = VL_GGML_Q5_K;
    /* LLM_TYPE_70B: 80 layers with grouped KV heads (llama-model.cpp, llama and qwen2) */
    if (a->layers == 80 && a->kv_heads < a->heads && (t == VL_GGML_Q3_K || t == VL_GGML_Q4_K))
        t = VL_GGML_Q5_K;
    if (a->experts == 8)
        t = VL_GGML_Q8_0;
    return t;
}

static vl_ggml_type attn_qk_type(const quantizer *q, category c)
{
    if (c == CAT_ATTN_K && q->a->experts == 8)
        return VL_GGML_Q8_0;
    if (q->ft == VL_GGUF_IQ3_XS)
        return VL_GGML_IQ3_XXS;
    if (q->ft == VL_GGUF_IQ3_XXS)
        return VL_GGML_IQ2_S;
    return q->base;
}

static vl_ggml_type ffn_down_type(quantizer *q, uint64_t layer)
{
    const vl_gguf_ftype ft = q->ft;
    const uint64_t n = q->a->layers;
    const bool falcon = q->layout->falcon, more = use_more_bits(layer, n);
    q->i_ffn_down++;
    switch (ft) {
    case VL_GGUF_Q2_K:
        return VL_GGML_Q3_K;
    case VL_GGUF_Q2_K_S:
        return layer < n / 8 ? VL_GGML_Q4_K : q->base;
    case VL_GGUF_Q3_K_M:
        return layer < n / 16 ? VL_GGML_Q5_K : !falcon || more ? VL_GGML_Q4_K : VL_GGML_Q3_K;
    case VL_GGUF_IQ3_M:
        return layer < n / 8 || (q->a->experts == 8 && more) ? VL_GGML_Q4_K : q->base;
    case VL_GGUF_Q3_K_L:
        return falcon ? VL_GGML_Q4_K : VL_GGML_Q5_K;
    case VL_GGUF_Q4_K_M:
        if (falcon)
            return layer < n / 16 ? VL_GGML_Q6_K : more ? VL_GGML_Q5_K : VL_GGML_Q4_K;
        return more ? VL_GGML_Q6_K : q->base;
    case VL_GGUF_IQ4_NL:
    case VL_GGUF_IQ4_XS:
        return layer < n / 8 ? VL_GGML_Q5_K : q->base; /* without an imatrix */
    case VL_GGUF_Q5_K_M:
        return more ? VL_GGML_Q6_K : q->base;
    case VL_GGUF_Q4_K_S:
        return !falcon && layer < n / 8 ? VL_GGML_Q5_K : q->base;
    default:
        return q->base;
    }
}

static vl_ggml_type attn_output_type(const quantizer *q)
{
    const vl_gguf_ftype ft = q->ft;
    if (q->layout->falcon)
        return ft == VL_GGUF_Q3_K_L ? VL_GGML_Q4_K : q->base;
    if (q->a->experts == 8)
        return FT_IN(ft, VL_GGUF_Q2_K, VL_GGUF_IQ3_XS, VL_GGUF_IQ3_XXS, VL_GGUF_Q3_K_S,
                     VL_GGUF_Q3_K_M, VL_GGUF_IQ4_NL, VL_GGUF_Q4_K_S, VL_GGUF_Q4_K_M,
                     VL_GGUF_IQ3_S, VL_GGUF_IQ3_M, VL_GGUF_IQ4_XS)
                   ? VL_GGML_Q5_K
                   : q->base;
    switch (ft) {
    case VL_GGUF_Q2_K:
        return VL_GGML_Q3_K;
    case VL_GGUF_IQ3_XXS:
        return VL_GGML_IQ3_S;
    case VL_GGUF_Q3_K_M:
    case VL_GGUF_IQ3_M:
        return VL_GGML_Q4_K;
    case VL_GGUF_Q3_K_L:
        return VL_GGML_Q5_K;
    default:
        return q->base;
    }
}

/* ffn_gate and ffn_up: iq3_xs keeps the middle three quarters of the layers at iq3_xxs. */
static vl_ggml_type ffn_gate_up_type(const quantizer *q, uint64_t layer)
{
    const uint64_t n = q->a->layers;
    if (q->ft == VL_GGUF_IQ3_XS && layer >= n / 8 && layer < 7 * n / 8)
        return VL_GGML_IQ3_XXS;
    return q->base;
}

/* tensor_type_fallback: a row length the block does not divide. */
static vl_ggml_type fallback(vl_ggml_type t, uint64_t ncols)
{
    if (ncols % ggml_types[t].block == 0)
        return t;
    switch (t) {
    case VL_GGML_IQ1_S: case VL_GGML_IQ1_M: case VL_GGML_IQ2_XXS: case VL_GGML_IQ2_XS:
    case VL_GGML_IQ2_S: case VL_GGML_IQ3_XXS: case VL_GGML_IQ3_S: case VL_GGML_IQ4_XS:
        t = VL_GGML_IQ4_NL;
        break;
    case VL_GGML_Q2_K: case VL_GGML_Q3_K:
        t = VL_GGML_Q4_0;
        break;
    case VL_GGML_Q4_K:
        t = VL_GGML_Q5_0;
        break;
    case VL_GGML_Q5_K:
        t = VL_GGML_Q5_1;
        break;
    case VL_GGML_Q6_K:
        t = VL_GGML_Q8_0;
        break;
    default: /* llama-quantize gives up on these; f16 is what a user would then keep */
        return VL_GGML_F16;
    }
    return ncols % ggml_types[t].block == 0 ? t : VL_GGML_F16;
}

static vl_ggml_type tensor_type(quantizer *q, category c, uint64_t layer, uint64_t ncols)
{
    if (!is_quantized(q->base))
        return q->base;
    vl_ggml_type t = q->base;
    if (c == CAT_OUTPUT || (q->tied && c == CAT_TOKEN_EMBD))
        t = output_type(q, ncols);
    else if (c == CAT_TOKEN_EMBD)
        t = token_embd_type(q);
    else if (very_low(q->ft))
        t = very_low_type(q, c);
    else if (c == CAT_ATTN_V)
        t = attn_v_type(q, layer);
    else if (c == CAT_ATTN_K || c == CAT_ATTN_Q)
        t = attn_qk_type(q, c);
    else if (c == CAT_FFN_DOWN)
        t = ffn_down_type(q, layer);
    else if (c == CAT_ATTN_OUTPUT)
        t = attn_output_type(q);
    else if (c == CAT_FFN_GATE || c == CAT_FFN_UP)
        t = ffn_gate_up_type(q, layer);
    return fallback(t, ncols);
}

static void store(quantizer *q, vl_ggml_type t, uint64_t n)
{
    uint64_t b;
    if (!vl_ggml_bytes(t, n, &b))
        q->ovf = true;
    vl_gguf_weights *w = q->w;
    w->type_elements[t] = vl_add(w->type_elements[t], n, &q->ovf);
    w->type_bytes[t] = vl_add(w->type_bytes[t], b, &q->ovf);
    w->elements = vl_add(w->elements, n, &q->ovf);
    w->bytes = vl_add(w->bytes, b, &q->ovf);
}

/* A quantizable matrix of `count` copies (experts) of ncols x nrows. */
static void matrix(quantizer *q, category c, uint64_t layer, uint64_t ncols, uint64_t nrows,
                   uint64_t count)
{
    uint64_t n = vl_mul(vl_mul(ncols, nrows, &q->ovf), count, &q->ovf);
    store(q, tensor_type(q, c, layer, ncols), n);
}

/* Kept at f32 whatever the file type: vectors (norms, biases) and the tensors
 * convert_hf_to_gguf.py and tensor_allows_quantization leave alone (position and
 * token-type embeddings, the MoE router ffn_gate_inp). */
static void kept(quantizer *q, uint64_t n)
{
    store(q, VL_GGML_F32, n);
}

static void attention(quantizer *q, uint64_t l)
{
    const vl_arch *a = q->a;
    const uint64_t h = a->hidden, d = a->head_dim, qw = a->heads * d, kvw = a->kv_heads * d;
    if (a->kv_lora_rank) { /* DeepSeek-V2/V3: attn_q or attn_q_a/_b, attn_kv_a_mqa, attn_kv_b */
        const uint64_t n = a->heads, qr = a->q_lora_rank, kr = a->kv_lora_rank;
        if (qr) {
            matrix(q, CAT_OTHER, l, h, qr, 1);
            kept(q, vl_norm_params(a, qr));
            matrix(q, CAT_OTHER, l, qr, n * d, 1);
        } else {
            matrix(q, CAT_ATTN_Q, l, h, n * d, 1);
        }
        matrix(q, CAT_OTHER, l, h, kr + a->qk_rope_head_dim, 1);
        kept(q, vl_norm_params(a, kr));
        matrix(q, CAT_ATTN_V, l, kr, n * (d - a->qk_rope_head_dim + a->v_head_dim), 1);
        matrix(q, CAT_ATTN_OUTPUT, l, n * a->v_head_dim, h, 1);
    } else if (q->layout->fused_qkv) {
        matrix(q, CAT_ATTN_V, l, h, qw + 2 * kvw, 1);
        matrix(q, CAT_ATTN_OUTPUT, l, qw, h, 1);
    } else {
        matrix(q, CAT_ATTN_Q, l, h, qw, 1);
        matrix(q, CAT_ATTN_K, l, h, kvw, 1);
        matrix(q, CAT_ATTN_V, l, h, kvw, 1);
        matrix(q, CAT_ATTN_OUTPUT, l, qw, h, 1);
    }
    if (a->attention_bias)
        kept(q, qw + 2 * kvw);
    if (vl_attention_out_bias(a))
        kept(q, h);
}

/* One MLP of width f, `count` of them side by side (experts in one 3-D tensor). */
static void mlp(quantizer *q, uint64_t l, uint64_t f, uint64_t count)
{
    const vl_arch *a = q->a;
    const uint64_t h = a->hidden;
    if (a->mlp == VL_MLP_GATED && q->layout->fused_gate_up) {
        matrix(q, CAT_FFN_UP, l, h, 2 * f, count);
    } else {
        if (a->mlp == VL_MLP_GATED)
            matrix(q, CAT_FFN_GATE, l, h, f, count);
        matrix(q, CAT_FFN_UP, l, h, f, count);
    }
    matrix(q, CAT_FFN_DOWN, l, f, h, count);
    if (a->mlp_bias)
        kept(q, count * ((a->mlp == VL_MLP_GATED ? 2 : 1) * f + h));
}

bool vl_gguf_weights_of(const vl_arch *a, const vl_gguf_layout *layout, vl_gguf_ftype ft,
                        vl_gguf_weights *out)
{
    *out = (vl_gguf_weights){0};
    quantizer q = {.a = a, .layout = layout, .ft = ft, .base = default_types[ft],
                   .tied = a->tie_embeddings, .w = out};
    const uint64_t h = a->hidden;

    /* the input layer first: its bytes are out->bytes once it is stored */
    matrix(&q, CAT_TOKEN_EMBD, 0, h, a->vocab, 1);
    if (a->tie_embeddings)
        out->output_copy_bytes = out->bytes;
    if (a->position == VL_POS_LEARNED)
        kept(&q, vl_mul(a->max_positions + a->position_offset, h, &q.ovf));
    if (a->token_types)
        kept(&q, a->token_types * h);
    out->input_bytes = out->bytes;
    if (a->embedding_norm)
        kept(&q, vl_norm_params(a, h));
    for (uint64_t l = 0; l < a->layers; l++) {
        kept(&q, a->norms_per_layer * vl_norm_params(a, h));
        attention(&q, l);
        kept(&q, vl_qk_norm_params(a));
        if (a->experts == 1 || l < a->dense_layers) {
            mlp(&q, l, a->ffn, 1);
            continue;
        }
        kept(&q, h * a->experts + (a->router_bias ? a->experts : 0)); /* ffn_gate_inp */
        if (a->shared_expert_gate)
            kept(&q, h); /* ffn_gate_inp_shexp */
        mlp(&q, l, a->moe_ffn, a->experts);
        if (a->shared_experts) /* the shared experts are one MLP of their summed width */
            mlp(&q, l, a->shared_ffn * a->shared_experts, 1);
    }
    if (a->norm_position == VL_NORM_PRE)
        kept(&q, vl_norm_params(a, h));
    if (!a->tie_embeddings)
        matrix(&q, CAT_OUTPUT, 0, h, a->vocab, 1);
    if (a->head_bias)
        kept(&q, a->vocab); /* output.bias */
    if (a->pooler) {
        matrix(&q, CAT_OTHER, 0, h, h, 1);
        kept(&q, h);
    }
    return !q.ovf;
}

uint64_t vl_gguf_gpu_bytes(const vl_gguf_weights *w)
{
    return w->bytes - w->input_bytes + w->output_copy_bytes;
}

double vl_gguf_bits_per_weight(const vl_gguf_weights *w)
{
    return w->elements ? 8.0 * (double)w->bytes / (double)w->elements : 0;
}
