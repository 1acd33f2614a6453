/* test_memory.c: the memory model against the article, the ZeRO paper and Korthikanti et
 * al., and exact at extreme sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/memory.h"
#include "helpers.h"


typedef unsigned __int128 u128;

static vl_settings settings(vl_precision p, vl_optimizer o, bool copy, bool fp32_grads)
{
    vl_settings s;
    eager_defaults(&s);
    s.precision = p;
    s.optimizer = o;
    s.fp32_grad_copy = copy;
    s.fp32_grads = fp32_grads;
    return s;
}

/* The bytes of the layer's activation term named name, or 0 where there is none. */
static uint64_t layer_term(const vl_breakdown *b, const char *name)
{
    for (int i = 0; i < b->act.n_layer; i++)
        if (strcmp(b->act.layer[i].name, name) == 0)
            return b->act.layer[i].bytes;
    return 0;
}

/* The bytes of the output side's term named name, or 0 where there is none. */
static uint64_t outside_term(const vl_breakdown *b, const char *name)
{
    for (int i = 0; i < b->act.n_outside; i++)
        if (strcmp(b->act.outside[i].name, name) == 0)
            return b->act.outside[i].bytes;
    return 0;
}

/* A model whose V is a slice of its fused QKV output (qkv_views v: GPT-NeoX, Phi-3), under
 * a profile that runs transformers' modeling code: attention keeps V as the view it is,
 * and with it the whole output, q + 2 kv wide (Llama 2 7B's shape: 3 x 4,096), 2 x 4,096
 * more a token than the same model with separate projections keeps; the pytorch profile's
 * own modules keep V alone; eager attention's repeat_kv copies a GQA model's V to the
 * query heads, and the copy keeps nothing else. */
static void test_v_view(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = settings(VL_BF16, VL_ADAMW, true, false);
    s.attention = VL_ATTN_SDPA;
    s.seq = 512;
    s.batch = 2;
    const uint64_t sbh = 512ULL * 2 * 4096;
    const char *view = "V, a view that keeps the fused QKV output whole";
    vl_breakdown hf, separate;
    assert_null(vl_estimate(&m, &s, &separate));
    assert_int_equal(layer_term(&separate, "V"), 2 * sbh);
    m.arch.qkv_views = VL_QKV_VIEWS_V;
    assert_null(vl_estimate(&m, &s, &hf));
    assert_int_equal(layer_term(&hf, view), 2 * 3 * sbh);
    assert_int_equal(layer_term(&hf, "V"), 0);
    assert_int_equal(hf.act.layer_bytes - separate.act.layer_bytes, 2 * 2 * sbh);
    vl_settings_take_framework(&s, vl_framework_find("pytorch"));
    assert_null(vl_estimate(&m, &s, &separate));
    assert_int_equal(layer_term(&separate, view), 0);
    assert_int_equal(layer_term(&separate, "V"), 2 * sbh);
    vl_settings_take_framework(&s, vl_framework_find("hf"));
    m.arch.kv_heads = 8;
    s.attention = VL_ATTN_EAGER;
    assert_null(vl_estimate(&m, &s, &hf));
    assert_int_equal(layer_term(&hf, view), 0);
    assert_int_equal(layer_term(&hf, "V, repeated to the query heads"), 2 * sbh);
}

/* Parallel attention, full bf16 training of Llama 2 7B's shape at 512 x 2 tokens: with one
 * norm a layer (Falcon-7B, Phi) q, k, v and the MLP read the same normalized tensor, kept
 * once; GPT-NeoX's parallel residual normalizes for each (norms_per_layer 2), and the MLP's
 * input is a tensor of its own, 2 x 512 x 2 x 4,096 B more a layer. */
static void test_parallel_norms(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    m.arch.parallel_attention = true;
    vl_settings s = settings(VL_BF16, VL_ADAMW, true, false);
    s.seq = 512;
    s.batch = 2;
    const uint64_t sbh = 512ULL * 2 * 4096;
    vl_breakdown one, two;
    m.arch.norms_per_layer = 1;
    assert_null(vl_estimate(&m, &s, &one));
    assert_int_equal(layer_term(&one, "QKV projection input"), 2 * sbh);
    assert_int_equal(layer_term(&one, "MLP input"), 0);
    m.arch.norms_per_layer = 2;
    assert_null(vl_estimate(&m, &s, &two));
    assert_int_equal(layer_term(&two, "MLP input"), 2 * sbh);
    assert_int_equal(two.act.layer_bytes - one.act.layer_bytes, 2 * sbh);
}

/* The article's table (optimizer states, mixed precision, with the fp32 gradient copy):
 * AdamW 16, 8-bit Adam 10, SGD with momentum 12; weights and gradients 2 each. */
static void test_article_bytes_per_param(void **state)
{
    (void)state;
    static const struct {
        vl_optimizer o;
        unsigned with_copy, without_copy;
    } rows[] = {{VL_ADAMW, 16, 12}, {VL_ADAM_8BIT, 10, 6}, {VL_SGD_MOMENTUM, 12, 8}, {VL_SGD, 8, 4}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        for (vl_precision p = VL_FP16_MIXED; p <= VL_BF16_MIXED; p++) {
            vl_settings s = settings(p, rows[i].o, true, false);
            vl_bpp b = vl_bytes_per_param(&s, NULL);
            assert_int_equal(b.weights, 2);
            assert_int_equal(b.gradients, 2);
            assert_int_equal(b.optimizer, rows[i].with_copy);
            s.fp32_grad_copy = false;
            b = vl_bytes_per_param(&s, NULL);
            assert_int_equal(b.optimizer, rows[i].without_copy);
        }
    }
}

static void test_conventions(void **state)
{
    (void)state;
    /* the ZeRO paper: 2 + 2 + K, K = 12 */
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, false, false);
    vl_bpp b = vl_bytes_per_param(&s, NULL);
    assert_int_equal(b.weights + b.gradients + b.optimizer, 16);
    /* Megatron-LM: fp32 main grads, 2 + 4 + 12 = 18; the copy is never counted twice */
    for (int copy = 0; copy <= 1; copy++) {
        s = settings(VL_BF16_MIXED, VL_ADAMW, copy, true);
        b = vl_bytes_per_param(&s, NULL);
        assert_int_equal(b.gradients, 4);
        assert_int_equal(b.grad_copy, 0);
        assert_int_equal(b.weights + b.gradients + b.optimizer, 18);
    }
    /* fp32: 4 + 4 + 8 (Adam moments), nothing else */
    s = settings(VL_FP32, VL_ADAMW, true, false);
    b = vl_bytes_per_param(&s, NULL);
    assert_int_equal(b.weights, 4);
    assert_int_equal(b.gradients, 4);
    assert_int_equal(b.optimizer, 8);
    /* pure bf16: states in bf16, no master copy */
    s = settings(VL_BF16, VL_ADAMW, true, false);
    b = vl_bytes_per_param(&s, NULL);
    assert_int_equal(b.weights + b.gradients + b.optimizer, 2 + 2 + 4);
    s.optimizer = VL_ADAM_8BIT;
    assert_int_equal(vl_bytes_per_param(&s, NULL).optimizer, 2);
}

/* ZeRO paper, Fig. 1: 7.5B parameters, 64 GPUs, K = 12: 120, 31.4, 16.6, 1.875 GB of model
 * states per GPU.  Exactly: 2+2+12 = 16 B x 7.5e9; 4 B x 7.5e9 + 12 B x 7.5e9/64; ... */
static void test_zero_paper_figure_1(void **state)
{
    (void)state;
    static const uint64_t expect[4] = {120000000000ULL, 31406250000ULL, 16640625000ULL,
                                       1875000000ULL};
    vl_model m;
    vl_model_from_params(&m, 7500000000ULL);
    for (unsigned z = 0; z <= 3; z++) {
        vl_settings s = settings(VL_FP16_MIXED, VL_ADAMW, false, false);
        s.zero = z;
        s.gpus = 64;
        vl_breakdown b;
        assert_null(vl_estimate(&m, &s, &b));
        assert_int_equal(b.bytes[VL_C_WEIGHTS] + b.bytes[VL_C_GRADIENTS] + b.bytes[VL_C_OPTIMIZER],
                         expect[z]);
        /* the live parameters only at ZeRO-3: largest matrix x (2 + 2) bytes */
        assert_int_equal(b.bytes[VL_C_ZERO3_LIVE], z == 3 ? 4 * b.params.largest_matrix : 0);
    }
}

/* Korthikanti et al. 2022, §4.1: a GPT layer with 16-bit activations and dropout keeps
 * s·b·h·(34 + 5·a·s/h) bytes.  GPT-3 175B: s = 2048, b = 1, h = 12288, a = 96:
 * 2048·12288·34 + 5·96·2048² = 855,638,016 + 2,013,265,920 = 2,868,903,936. */
static vl_arch gpt3_175b(void)
{
    vl_arch a = {.hidden = 12288, .layers = 96, .heads = 96, .vocab = 50257,
                 .max_positions = 2048, .position = VL_POS_LEARNED, .mlp = VL_MLP_STANDARD,
                 .norm = VL_NORM_LAYERNORM, .attention_bias = true, .mlp_bias = true,
                 .tie_embeddings = true, .dropout = true};
    vl_arch_defaults(&a);
    return a;
}

static void test_korthikanti_gpt3_layer(void **state)
{
    (void)state;
    vl_arch a = gpt3_175b();
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    vl_activations act;
    bool ovf = false;
    const uint64_t sbh = 2048ULL * 12288;

    vl_activations_compute(&a, &s, &act, &ovf);
    assert_false(ovf);
    assert_int_equal(act.layer_bytes, 2868903936ULL);
    /* outside the layers: token ids 8sb, position ids 8s, embedding dropout mask sbh (the
     * embedding side); final norm and output-projection inputs 2sbh each, fp32 logits
     * 4sbV, loss targets 8sb */
    const uint64_t embedding = 8 * 2048 + 8 * 2048 + sbh;
    assert_int_equal(act.embedding_bytes, embedding);
    assert_int_equal(act.outside_bytes, embedding + 4 * sbh + 4ULL * 2048 * 50257 + 8 * 2048);
    assert_int_equal(act.total, 96 * 2868903936ULL + act.outside_bytes);

    /* no dropout on the attention probabilities (attention_dropout: false, as OPT's): its
     * 1-byte mask and 2-byte output go, 5as/h becomes 2as/h (the softmax output, which the
     * matmul with V reads); the residual stream's masks stay in the 34 */
    a.attention_dropout = VL_ATTN_DROPOUT_OFF;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layer_bytes, 34 * sbh + 2 * 96ULL * 2048 * 2048);
    a.attention_dropout = VL_ATTN_DROPOUT_AS_DROPOUT;

    /* selective recompute: the 5as²b term goes, 34sbh stays (Korthikanti Table 2) */
    s.recompute = VL_RECOMPUTE_SELECTIVE;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layer_bytes, 34 * sbh);

    /* full recompute: 2sbh per layer (Korthikanti Table 2), plus the larger of what the
     * end of the forward keeps besides (the outside tensors, 537,583,616 B) and what
     * recomputing one layer in backward keeps (the layer less its input, which the
     * LayerNorm shares with the kept input, plus the embedding side: 2,843,770,880 B) */
    s.recompute = VL_RECOMPUTE_FULL;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.checkpoint_bytes, 2 * sbh);
    assert_int_equal(act.forward_end_bytes, 537583616ULL);
    assert_int_equal(act.recompute_bytes, 2868903936ULL - 2 * sbh + embedding);
    assert_int_equal(act.total, 96 * 2 * sbh + 2843770880ULL);

    /* flash attention: no s² tensors (and no mask), fp32 row statistics 4·a·s·b */
    s.recompute = VL_RECOMPUTE_NONE;
    s.attention = VL_ATTN_FLASH;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layer_bytes, 34 * sbh + 4ULL * 96 * 2048);

    /* fp32 doubles every tensor but the 1-byte dropout masks: of the 34sbh, 32sbh are
     * 16-bit tensors and 2sbh masks; of the 5as²b, 4as²b are 16-bit and as²b the mask */
    s.attention = VL_ATTN_EAGER;
    s.precision = VL_FP32;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layer_bytes, 2 * (32 * sbh + 4 * 96 * 2048ULL * 2048) + 2 * sbh +
                                          96ULL * 2048 * 2048);
    assert_false(ovf);
}

/* GQA, RMSNorm and a gated MLP, no dropout (Mistral 7B), 16-bit, by hand.  Each RMSNorm
 * keeps its input upcast to fp32 (4sbh) and the normalized tensor (2sbh); the explicit
 * attention keeps K and V repeated to the 32 query heads (2sbh each, not 2·s·b·8·128):
 *   norms 2 x 6sbh; QKV in, Q, K, V, out-proj in, MLP in: 6 x 2sbh; softmax 2·a·s²·b;
 *   gate out, up out, activation out, down in: 4 x 2·s·b·f. */
static void test_gqa_gated_no_dropout(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8, .ffn = 14336,
                 .vocab = 32000};
    vl_arch_defaults(&a);
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    s.seq = 4096;
    s.batch = 2;
    vl_activations act;
    bool ovf = false;
    vl_activations_compute(&a, &s, &act, &ovf);
    const uint64_t sb = 4096 * 2, sbh = sb * 4096;
    assert_int_equal(act.layer_bytes, 2 * 6 * sbh + 6 * 2 * sbh + 2ULL * 32 * 4096 * 4096 * 2 +
                                          4 * 2 * sb * 14336);

    /* flash attention takes the 8 KV heads as they are: K, V 2·s·b·(8·128) each, and fp32
     * row statistics 4·a·s·b instead of the s² tensor */
    s.attention = VL_ATTN_FLASH;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layer_bytes, 2 * 6 * sbh + 4 * 2 * sbh + 2 * 2 * sb * 1024 +
                                          4ULL * 32 * sb + 4 * 2 * sb * 14336);

    /* full recompute in 16 bits: the fp32 upcast is a copy, so the recomputed layer's first
     * norm shares nothing with the kept input; in fp32 the upcast is the input itself.
     * The embedding side: token ids 8sb and the RoPE tables, 2 x s·d in the residual dtype */
    s.attention = VL_ATTN_EAGER;
    s.recompute = VL_RECOMPUTE_FULL;
    vl_activations_compute(&a, &s, &act, &ovf);
    uint64_t layer16 = 2 * 6 * sbh + 6 * 2 * sbh + 2ULL * 32 * 4096 * 4096 * 2 + 4 * 2 * sb * 14336;
    assert_int_equal(act.embedding_bytes, 8 * sb + 2 * 2 * 4096 * 128);
    assert_int_equal(act.recompute_bytes, layer16 + act.embedding_bytes);
    assert_int_equal(act.total, 32 * 2 * sbh + layer16 + act.embedding_bytes);
    s.precision = VL_FP32;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.checkpoint_bytes, 4 * sbh);
    /* fp32 doubles every tensor but the fp32 upcasts (2 x 4sbh, unchanged); the first of
     * them is the kept input */
    assert_int_equal(act.recompute_bytes,
                     2 * layer16 - 2 * 4 * sbh - 4 * sbh + 8 * sb + 2 * 4 * 4096 * 128);
    assert_false(ovf);
}

/* Mixtral 8x7B's layer, by hand: test_gqa_gated_no_dropout's with flash attention, where
 * the MLP is 8 experts of 14336, 2 a token.  Beside attention's tensors, the router's
 * fp32 probabilities 4·8·sb; the gate, up, activation and down-input tensors of each
 * token's 2 experts, 4 x 2·sb·(2 x 14336); and the 2 experts' outputs that each token's
 * routing weights multiply, kept for the weights' gradient, 2·(2·sbh). */
static void test_moe_layer(void **state)
{
    (void)state;
    vl_model m = mixtral_8x7b();
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    s.seq = 4096;
    s.batch = 2;
    s.attention = VL_ATTN_FLASH;
    vl_activations act;
    bool ovf = false;
    vl_activations_compute(&m.arch, &s, &act, &ovf);
    const uint64_t sb = 4096 * 2, sbh = sb * 4096;
    assert_int_equal(act.layer_bytes, 2 * 6 * sbh + 4 * 2 * sbh + 2 * 2 * sb * 1024 +
                                          4ULL * 32 * sb + 4ULL * 8 * sb +
                                          4 * 2 * sb * 2 * 14336 + 2 * 2 * sbh);
    /* QLoRA under autocast: the 4-bit matrices are no weights autocast copies; the router,
     * h x 8, is (Mistral 7B has nothing but 4-bit matrices and norms) */
    s.precision = VL_BF16_AMP;
    s.lora_rank = 8;
    s.qlora = true;
    vl_activations_compute(&m.arch, &s, &act, &ovf);
    assert_int_equal(act.layer_weight_copies, 2 * 4096 * 8);
    vl_model dense = mistral_7b();
    vl_activations_compute(&dense.arch, &s, &act, &ovf);
    assert_int_equal(act.layer_weight_copies, 0);
    s.qlora = false; /* LoRA: every frozen matrix's cast, saved by its matmul */
    vl_activations_compute(&dense.arch, &s, &act, &ovf);
    assert_int_equal(act.layer_weight_copies,
                     2 * (2 * 4096ULL * 4096 + 2 * 4096ULL * 1024 + 3 * 4096ULL * 14336));
    assert_false(ovf);
}

/* PyTorch autocast (bf16-amp) on the GPT-3 layer, by hand: the residual stream, the
 * LayerNorms and the softmax run in fp32, the matmuls in bf16, and every nn.Linear casts
 * its input and weights for itself:
 *   LayerNorm inputs 2 x 4sbh; q, k, v inputs 3 x 2sbh; Q, K, V 3 x 2sbh; out-proj in
 *   2sbh; MLP input 2sbh; GELU in, down in 2 x 8sbh; dropout masks 2 x sbh = 42sbh;
 *   softmax out 4as²b (fp32), dropout mask as²b, its bf16 cast 2as²b = 7as²b;
 *   the weights' bf16 copies 2·(12h² + 9h) (q, k, v, o, up, down and their biases). */
static void test_autocast(void **state)
{
    (void)state;
    vl_arch a = gpt3_175b();
    vl_settings s = settings(VL_BF16_AMP, VL_ADAMW, true, false);
    const uint64_t h = 12288, sb = 2048, sbh = sb * h, as2 = 96ULL * 2048 * 2048;
    const uint64_t copies = 2 * (12 * h * h + 9 * h);

    /* fp32 weights, gradients and moments; no master copy, whatever the flags say */
    for (int flags = 0; flags < 4; flags++) {
        s.fp32_grad_copy = flags & 1;
        s.fp32_grads = flags & 2;
        assert_null(settings_why(&s));
        vl_bpp b = vl_bytes_per_param(&s, NULL);
        assert_int_equal(b.weights, 4);
        assert_int_equal(b.gradients, 4);
        assert_int_equal(b.master + b.grad_copy, 0);
        assert_int_equal(b.optimizer, 8);
    }
    /* DeepSpeed's ZeRO-1 and 2 clone the fp32 weights' partition for their optimizer
     * (zero_fp32_master): 4 B of master a parameter beside them, under autocast or in fp32;
     * its ZeRO-3 and FSDP do not, and mixed precision had one anyway */
    s.fp32_grad_copy = true;
    s.fp32_grads = false;
    s.framework = vl_framework_find("deepspeed");
    const vl_precision precisions[] = {VL_BF16_AMP, VL_FP32, VL_BF16_MIXED};
    for (size_t i = 0; i < sizeof precisions / sizeof *precisions; i++)
        for (uint64_t zero = 0; zero <= 3; zero++) {
            s.precision = precisions[i];
            s.zero = zero;
            const bool mixed = precisions[i] == VL_BF16_MIXED;
            assert_int_equal(vl_bytes_per_param(&s, NULL).master,
                             mixed || zero == 1 || zero == 2 ? 4 : 0);
        }
    s.framework = vl_framework_find("hf");
    s.precision = VL_FP32;
    s.zero = 2;
    assert_int_equal(vl_bytes_per_param(&s, NULL).master, 0);
    s = settings(VL_BF16_AMP, VL_ADAMW, true, false);

    vl_activations act;
    bool ovf = false;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layer_weight_copies, copies);
    assert_int_equal(act.layer_bytes, 42 * sbh + 7 * as2 + copies);
    /* outside: token ids 8sb and position ids 8s (b = 1), embedding mask sbh; final norm in
     * 4sbh (fp32), output-projection in 2sbh and its weight's bf16 copy 2Vh, fp32 logits
     * 4sbV, targets 8sb */
    const uint64_t outside = 2 * 8 * sb + sbh + 4 * sbh + 2 * sbh + 2 * 50257 * h +
                             4 * sb * 50257 + 8 * sb;
    assert_int_equal(act.outside_bytes, outside);

    /* full recompute: each layer keeps its fp32 input; the end of the forward holds the
     * outside tensors and autocast's copies of all 96 layers' weights, the larger part */
    s.recompute = VL_RECOMPUTE_FULL;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.checkpoint_bytes, 4 * sbh);
    assert_int_equal(act.forward_end_bytes, outside + 96 * copies);
    assert_int_equal(act.recompute_bytes, 42 * sbh + 7 * as2 + copies - 4 * sbh + 2 * 8 * sb + sbh);
    assert_int_equal(act.total, 96 * 4 * sbh + outside + 96 * copies);
    assert_false(ovf);
}

/* 10T parameters, 1M context, 4096 GPUs, ZeRO-3: every component exact, checked against
 * the closed forms computed in 128-bit integers. */
static void test_extreme_sizes_exact(void **state)
{
    (void)state;
    vl_model m;
    vl_model_from_params(&m, 10000000000000ULL);
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    s.seq = 1048576;
    s.gpus = 4096;
    s.zero = 3;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));

    const u128 P = 10000000000000ULL, N = 4096, shard = (P + N - 1) / N;
    const u128 S = s.seq, h = m.arch.hidden, a = m.arch.heads, L = m.arch.layers,
               V = m.arch.vocab;
    assert_true(b.bytes[VL_C_WEIGHTS] == (uint64_t)(shard * 2));
    assert_true(b.bytes[VL_C_GRADIENTS] == (uint64_t)(shard * 2));
    assert_true(b.bytes[VL_C_OPTIMIZER] == (uint64_t)(shard * 16));
    u128 layer = S * h * 34 + 5 * a * S * S;
    u128 outside = 8 * S + 8 * S + S * h + 4 * S * h + 4 * S * V + 8 * S;
    u128 act = L * layer + outside;
    assert_true(act < ((u128)1 << 64));
    assert_true(b.bytes[VL_C_ACTIVATIONS] == (uint64_t)act);
    u128 largest = 4 * h * h > V * h ? 4 * h * h : V * h;
    assert_true(b.bytes[VL_C_ZERO3_LIVE] == (uint64_t)(largest * 4));
    u128 sum = 0;
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        sum += b.bytes[c];
    assert_true(b.total == (uint64_t)sum);
}

static void test_overflow_is_reported(void **state)
{
    (void)state;
    vl_model m;
    vl_model_from_params(&m, 10000000000000ULL);
    vl_settings s = settings(VL_FP32, VL_ADAMW, true, false);
    s.seq = VL_MAX_SEQ;
    s.batch = VL_MAX_BATCH;
    vl_breakdown b;
    const char *why = vl_estimate(&m, &s, &b);
    assert_non_null(why);
    assert_non_null(strstr(why, "64 bits"));
}

static void test_settings_check(void **state)
{
    (void)state;
    vl_settings s;
    eager_defaults(&s);
    assert_null(settings_why(&s));
    s.gpus = 0;
    assert_non_null(strstr(settings_why(&s), "--gpus"));
    eager_defaults(&s);
    s.zero = 4;
    assert_non_null(strstr(settings_why(&s), "--zero"));
    eager_defaults(&s);
    s.seq = VL_MAX_SEQ + 1;
    assert_non_null(strstr(settings_why(&s), "--seq"));
    eager_defaults(&s);
    s.precision = VL_BF16;
    s.fp32_grads = true;
    assert_non_null(strstr(settings_why(&s), "--fp32-grads"));
    eager_defaults(&s);
    s.gen = 10;
    assert_non_null(strstr(settings_why(&s), "--gen"));
}

/* The default what-if (Llama 2 7B, bf16-mixed AdamW, ZeRO-0, 1 GPU, b = 1, s = 2048), by
 * hand: 20 B/param x 6,738,415,616; activations per layer (sbh = 8,388,608):
 * RMSNorms 2 x 6sbh, QKV in, Q, K, V, out-proj in, MLP in 6 x 2sbh = 24sbh = 201,326,592;
 * softmax 2·32·2048² = 268,435,456; 4 x 2·2048·11008 = 180,355,072; 650,117,120 in all.
 * Outside: ids 16,384; RoPE tables 2·2·2048·128 = 1,048,576; final norm 6sbh = 50,331,648;
 * out-proj in 16,777,216; logits 4·2048·32000 = 262,144,000; targets 16,384: 330,334,208. */
static void test_default_llama(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s;
    eager_defaults(&s);
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * 6738415616ULL);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 16 * 6738415616ULL);
    assert_int_equal(b.act.layer_bytes, 650117120ULL);
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], 32 * 650117120ULL + 330334208ULL);
    assert_int_equal(b.bytes[VL_C_OVERHEAD], 1ULL << 30);
    assert_int_equal(b.total, 20 * 6738415616ULL + 32 * 650117120ULL + 330334208ULL +
                                  (1ULL << 30));
}

/* ZeRO-Offload moves bytes without losing any: for each stage and offload it allows, the GPU
 * keeps what it kept without offload less what moved, and a node's CPU memory is what moved
 * times its GPUs.  Llama 2 7B, ZeRO-3 over 16 GPUs, --offload params: each GPU moves
 * 6,738,415,616 / 16 x 2 = 842,301,952 B of weights and x 16 = 6,738,415,616 B of optimizer
 * states; 8 GPUs a node hold 8 x 7,580,717,568 = 60,645,740,544 B of CPU memory. */
static void test_offload(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    for (int lora = 0; lora <= 1; lora++)
        for (unsigned z = 1; z <= 3; z++)
            for (vl_offload o = VL_OFFLOAD_OPTIMIZER; o <= VL_OFFLOAD_PARAMS; o++) {
                if (o == VL_OFFLOAD_PARAMS && z != 3)
                    continue;
                vl_settings s;
                eager_defaults(&s);
                s.zero = z;
                s.gpus = 16;
                s.lora_rank = lora ? 8 : 0;
                vl_breakdown on, off;
                assert_null(vl_estimate(&m, &s, &off));
                s.offload = o;
                assert_null(vl_estimate(&m, &s, &on));
                uint64_t moved = 0;
                for (int c = 0; c < VL_N_COMPONENTS; c++) {
                    assert_int_equal(on.bytes[c] + on.cpu.moved[c], off.bytes[c]);
                    assert_int_equal(on.cpu.per_node[c], 8 * on.cpu.moved[c]);
                    moved += on.cpu.moved[c];
                }
                assert_int_equal(on.cpu.moved_total, moved);
                assert_int_equal(on.total + moved, off.total);
                assert_int_equal(on.cpu.node_total, 8 * moved);
                assert_int_equal(on.cpu.nodes, 2);
                assert_int_equal(on.bytes[VL_C_OPTIMIZER], 0);
                assert_int_equal(on.bytes[VL_C_GRADIENTS], off.bytes[VL_C_GRADIENTS]);
                assert_int_equal(on.bytes[VL_C_ZERO3_LIVE], off.bytes[VL_C_ZERO3_LIVE]);
                if (o == VL_OFFLOAD_PARAMS)
                    assert_int_equal(on.bytes[VL_C_WEIGHTS], 0);
                else
                    assert_int_equal(on.cpu.moved[VL_C_WEIGHTS], 0);
                if (!lora && o == VL_OFFLOAD_PARAMS) {
                    assert_int_equal(on.cpu.moved[VL_C_WEIGHTS], 842301952ULL);
                    assert_int_equal(on.cpu.moved[VL_C_OPTIMIZER], 6738415616ULL);
                    assert_int_equal(on.cpu.node_total, 60645740544ULL);
                }
            }

    /* GPUs a node: 8 by default, never more than the run's; --gpus-per-node 4 over 16 */
    vl_settings s;
    eager_defaults(&s);
    s.zero = 2;
    s.offload = VL_OFFLOAD_OPTIMIZER;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.cpu.gpus_per_node, 1);
    assert_int_equal(b.cpu.nodes, 1);
    assert_int_equal(b.cpu.node_total, 16 * 6738415616ULL);
    s.gpus = 16;
    s.gpus_per_node = 4;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.cpu.gpus_per_node, 4);
    assert_int_equal(b.cpu.nodes, 4);
    assert_int_equal(b.cpu.node_total, 4 * 16 * 6738415616ULL / 16);

    /* where offload does not apply */
    eager_defaults(&s);
    s.offload = VL_OFFLOAD_OPTIMIZER;
    assert_non_null(strstr(settings_why(&s), "--offload optimizer needs --zero"));
    s.zero = 2;
    s.offload = VL_OFFLOAD_PARAMS;
    assert_non_null(strstr(settings_why(&s), "--offload params needs --zero 3"));
    s.zero = 0;
    s.mode = VL_MODE_INFER;
    assert_non_null(strstr(settings_why(&s), "--offload applies to --mode train only"));
    /* the ZeRO 0-3 comparison steps an offload down where the stage does not allow it */
    eager_defaults(&s);
    s.zero = 3;
    s.offload = VL_OFFLOAD_PARAMS;
    for (unsigned z = 0; z < 4; z++) {
        vl_settings at = s;
        vl_settings_at_zero(&at, z);
        assert_null(settings_why(&at));
        assert_int_equal(at.offload, z == 3 ? VL_OFFLOAD_PARAMS
                                     : z   ? VL_OFFLOAD_OPTIMIZER
                                           : VL_OFFLOAD_NONE);
    }
}

/* Korthikanti et al. 2022, Table 2, every row, to the byte, for GPT-3 175B (s = 2048, b = 1,
 * h = 12288, a = 96) at t = 8, where 5as/(ht) = 10: activations per layer per GPU
 *   tensor parallel                    sbh(10 + 24/t + 5as/(ht)) = 23 sbh
 *   tensor + sequence parallel         sbh(34/t + 5as/(ht))      = 14.25 sbh
 *   tensor parallel, selective         sbh(10 + 24/t)            = 13 sbh
 *   tensor + sequence, selective       sbh(34/t)                 = 4.25 sbh
 *   full recompute                     2 sbh (each layer's input) */
static void test_korthikanti_table_2(void **state)
{
    (void)state;
    vl_arch a = gpt3_175b();
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    vl_activations act;
    bool ovf = false;
    const uint64_t sbh = 2048ULL * 12288;
    static const struct {
        bool sp;
        vl_recompute r;
        uint64_t quarter_sbh; /* bytes x 4 / sbh */
    } rows[] = {{false, VL_RECOMPUTE_NONE, 92},      {true, VL_RECOMPUTE_NONE, 57},
                {false, VL_RECOMPUTE_SELECTIVE, 52}, {true, VL_RECOMPUTE_SELECTIVE, 17}};
    s.tp = 8;
    s.gpus = 8;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        s.sp = rows[i].sp;
        s.recompute = rows[i].r;
        vl_activations_compute(&a, &s, &act, &ovf);
        assert_int_equal(act.layer_bytes * 4, rows[i].quarter_sbh * sbh);
        assert_int_equal(act.layers, 96);
    }
    assert_int_equal(578813952ULL, 23 * sbh); /* the first row in bytes */
    s.sp = false;
    s.recompute = VL_RECOMPUTE_FULL;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.checkpoint_bytes, 2 * sbh);
    /* sequence parallel shards the kept input too */
    s.sp = true;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.checkpoint_bytes, 2 * sbh / 8);
    assert_false(ovf);
}

/* Pipeline parallel p = 8, 1F1B: the first stage holds 96/8 = 12 layers and keeps the
 * activations of p micro-batches (with at least p to accumulate): L layers' worth, plus
 * the embedding side p times; the output layer is the last stage's. */
static void test_pipeline_1f1b(void **state)
{
    (void)state;
    vl_arch a = gpt3_175b();
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    vl_activations act, one;
    bool ovf = false;
    const uint64_t sbh = 2048ULL * 12288;
    vl_activations_compute(&a, &s, &one, &ovf);
    s.pp = 8;
    s.gpus = 8;
    s.grad_accum = 16;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.layers, 12);
    assert_int_equal(act.in_flight, 8);
    assert_int_equal(act.layer_bytes, one.layer_bytes);
    assert_int_equal(act.outside_bytes, 8 * 2048 + 8 * 2048 + sbh);
    assert_int_equal(act.total, 96 * one.layer_bytes + 8 * act.outside_bytes);
    /* fewer micro-batches than stages: only those are in flight */
    s.grad_accum = 2;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.in_flight, 2);
    assert_int_equal(act.total, 2 * (12 * one.layer_bytes + act.outside_bytes));
    /* TP 8 x PP 8 with sequence parallel and selective recompute: 12 x 8 x sbh(34/8) */
    s.grad_accum = 8;
    s.tp = 8;
    s.gpus = 64;
    s.sp = true;
    s.recompute = VL_RECOMPUTE_SELECTIVE;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.total, 96 * (34 * sbh / 8) + 8 * (8 * 2048 + 8 * 2048 + sbh / 8));
    assert_false(ovf);
}

/* Model states under tensor and pipeline parallelism, by hand.  GPT-3 175B at t = 8, p = 8
 * over 1024 GPUs (data parallel 16): a layer has 12h² + 13h = 1,812,099,072 params, 4h of
 * them in its two LayerNorms (whole on every GPU); a first-stage GPU holds 12 layers:
 * 12 x 1,812,049,920 / 8 + 12 x 49,152 = 2,718,664,704, and the input side: the word
 * embeddings split by vocabulary 50257 x 12288 / 8 = 77,194,752 and the 2048 x 12288
 * positions whole: 2,821,025,280 params.  ZeRO-1 shards the optimizer over the 16. */
static void test_parallel_states(void **state)
{
    (void)state;
    vl_model m = {.arch = gpt3_175b()};
    vl_settings s;
    eager_defaults(&s);
    s.tp = 8;
    s.pp = 8;
    s.gpus = 1024;
    s.zero = 1;
    s.grad_accum = 16;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.par.dp, 16);
    assert_int_equal(b.par.layer_params, 2718664704ULL);
    assert_int_equal(b.par.outside_params, 77194752ULL + 25165824ULL);
    assert_int_equal(b.par.params, 2821025280ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * 2821025280ULL);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 2 * 2821025280ULL);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 16 * 2821025280ULL / 16);
    assert_int_equal(b.par.global_batch, 1 * 16 * 16);

    /* Llama 2 7B at t = 2 alone (one stage: the output layer too, split by vocabulary): a
     * layer's matrices 202,375,168 split, its two RMSNorms 8,192 whole; embeddings and the
     * untied output layer 2 x 131,072,000 / 2, the final norm 4,096 whole. */
    vl_model l = llama2_7b();
    eager_defaults(&s);
    s.tp = 2;
    s.gpus = 8;
    s.zero = 3;
    assert_null(vl_estimate(&l, &s, &b));
    uint64_t M = 32 * 202375168ULL / 2 + 32 * 8192ULL + 131072000ULL + 4096;
    assert_int_equal(b.par.params, M);
    assert_int_equal(M, 3369340928ULL);
    assert_int_equal(b.par.dp, 4);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * M / 4);
    assert_int_equal(b.bytes[VL_C_ZERO3_LIVE], 131072000ULL / 2 * 4);
}

/* Layouts that do not work, each with a message naming the flag. */
static void test_parallel_invalid(void **state)
{
    (void)state;
    vl_model l = mistral_7b();
    vl_settings s;
    vl_breakdown b;
    eager_defaults(&s);
    s.tp = 3;
    s.gpus = 8;
    assert_non_null(strstr(settings_why(&s), "--gpus must be a multiple of --tp x --pp"));
    s.gpus = 3;
    assert_non_null(strstr(vl_estimate(&l, &s, &b), "--tp 3 must divide the model's 32 attention heads"));
    s.tp = 16;
    s.gpus = 16;
    assert_non_null(strstr(vl_estimate(&l, &s, &b), "--tp 16 must divide the model's 8 KV heads"));
    eager_defaults(&s);
    s.pp = 64;
    s.gpus = 64;
    assert_non_null(strstr(vl_estimate(&l, &s, &b), "--pp 64 must be at most the model's 32 layers"));
    eager_defaults(&s);
    s.sp = true;
    assert_non_null(strstr(settings_why(&s), "--sp"));
    eager_defaults(&s);
    s.tp = 2;
    s.gpus = 2;
    s.lora_rank = 8;
    assert_non_null(strstr(settings_why(&s), "--lora-rank with --tp or --pp"));
    eager_defaults(&s);
    s.mode = VL_MODE_INFER; /* serving takes --pp (test_inference.c), its --gpus is tp x pp */
    s.tp = 2;
    s.gpus = 2;
    assert_non_null(strstr(settings_why(&s), "--tp applies to --mode train only"));
}

/* Adafactor, whose state follows the shapes, on Llama 2 7B in bf16-mixed (hand-derived):
 * the matrices' rows + columns are 32 layers x (4 x (4096 + 4096) + 3 x (4096 + 11008)) +
 * 2 x (32000 + 4096) = 2,570,752 and the 1-D parameters (norms) 32 x 8,192 + 4,096 =
 * 266,240, so Adafactor keeps 4 x 2,836,992 = 11,347,968 B of factored second moment
 * besides the 4 + 4 B/param of master and gradient copy (Shazeer and Stern 2018); with a
 * first moment 4 B/param more. */
static void test_adafactor(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    const uint64_t P = 6738415616ULL;
    vl_settings s;
    eager_defaults(&s);
    vl_breakdown b;
    s.optimizer = VL_ADAFACTOR;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bpp.optimizer, 8);
    assert_int_equal(b.bpp.shaped_bytes, 11347968ULL);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 8 * P + 11347968ULL);
    s.optimizer = VL_ADAFACTOR_M;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 12 * P + 11347968ULL);
    /* ZeRO-1 over 8 GPUs shards the shaped part too */
    s.zero = 1;
    s.gpus = 8;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 12 * P / 8 + 11347968ULL / 8);
    /* with adapters or model parallelism the shapes change: refused, not guessed */
    s.lora_rank = 8;
    assert_non_null(vl_estimate(&m, &s, &b));
    s.lora_rank = 0;
    s.tp = 2;
    assert_non_null(strstr(vl_estimate(&m, &s, &b), "no --lora-rank, --tp or --pp"));
}

/* Muon on Llama 2 7B in bf16-mixed (hand-derived): one fp32 momentum for every parameter
 * (Jordan et al. 2024) and AdamW's second moment for the 262,410,240 parameters that are not
 * the layers' matrices (6,738,415,616 - 32 x (4 x 4096 x 4096 + 3 x 4096 x 11008)), which
 * its reference implementation leaves to AdamW. */
static void test_muon(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    const uint64_t P = 6738415616ULL, rest = 262410240ULL;
    vl_settings s;
    eager_defaults(&s);
    s.optimizer = VL_MUON;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bpp.optimizer, 12);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 12 * P + 4 * rest);
    s.precision = VL_BF16; /* pure 16-bit: the states in the parameters' dtype */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 2 * P + 2 * rest);
    s.precision = VL_BF16_MIXED;
    s.zero = 2;
    s.gpus = 8;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 12 * P / 8 + 4 * rest / 8);
}

/* Expert parallelism, Mixtral 8x7B (46,702,792,704 params): an expert is a gated MLP of
 * 3 x 4096 x 14336 = 176,160,768, so the 8 x 32 routed experts hold 45,097,156,608 and the
 * rest 1,605,636,096.  --ep 8 over 8 GPUs: each holds one expert a layer, 1,605,636,096 +
 * 5,637,144,576 = 7,242,780,672 params, 2 B each.  ZeRO-1 shards the AdamW states (16 B)
 * of the rest over the 8 GPUs and the experts' over the 8 / 8 = 1 GPU holding the same
 * ones: 1,605,636,096 / 8 x 16 + 5,637,144,576 x 16.  DeepSeek-V2-Lite-like: shared experts
 * and a dense first layer stay whole. */
static void test_expert_parallel(void **state)
{
    (void)state;
    vl_model m = mixtral_8x7b();
    vl_settings s;
    vl_settings_default(&s);
    s.gpus = 8;
    s.ep = 8;
    s.zero = 1;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.P, 46702792704ULL);
    assert_int_equal(b.par.expert_params, 8ULL * 32 * 176160768);
    assert_int_equal(b.par.expert_params_per_gpu, 32ULL * 176160768);
    assert_int_equal(b.par.params, 1605636096ULL + 5637144576ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * 7242780672ULL);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 2 * 7242780672ULL);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 1605636096ULL / 8 * 16 + 5637144576ULL * 16);
    s.ep = 4; /* two experts a GPU, their states over 2 GPUs at ZeRO-3 too */
    s.zero = 3;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 1605636096ULL / 8 * 2 + 11274289152ULL / 2 * 2);
    s.ep = 1; /* the run without expert parallelism is unchanged */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 46702792704ULL / 8 * 2);
    assert_int_equal(b.act.a2a_bytes, 0);

    /* The token dispatcher's all-to-all buffers (Megatron-Core's MoEAlltoAllTokenDispatcher):
     * one MoE layer's b·s = 2048 tokens, each copied to its k = 2 experts, 4096 wide, in
     * bf16, for dispatch and again for combine: 2 x 2048 x 2 x 4096 x 2 = 67,108,864 bytes,
     * whatever ep (balanced routing: a GPU receives what it sends), added once to the
     * activations of the run without --ep. */
    const uint64_t a2a = 2ULL * 2048 * 2 * 4096 * 2;
    assert_int_equal(a2a, 67108864);
    static const uint64_t eps[] = {2, 8};
    for (size_t i = 0; i < 2; i++) {
        vl_breakdown one;
        s.zero = 0;
        s.gpus = eps[i];
        s.ep = 1;
        assert_null(vl_estimate(&m, &s, &one));
        s.ep = eps[i];
        assert_null(vl_estimate(&m, &s, &b));
        assert_int_equal(b.act.a2a_bytes, a2a);
        assert_int_equal(b.bytes[VL_C_ACTIVATIONS], one.bytes[VL_C_ACTIVATIONS] + a2a);
    }
    s.gpus = 8;

    vl_model ds = model_of((vl_arch){.hidden = 2048, .layers = 4, .heads = 16, .ffn = 10944,
                                     .vocab = 1000, .experts = 64, .experts_per_token = 6,
                                     .moe_ffn = 1408, .shared_experts = 2,
                                     .dense_layers = 1});
    s.zero = 0;
    s.ep = 8;
    assert_null(vl_estimate(&ds, &s, &b));
    /* 3 MoE layers x 64 routed experts x 3 x 2048 x 1408 */
    assert_int_equal(b.par.expert_params, 3ULL * 64 * 3 * 2048 * 1408);
    assert_int_equal(b.par.params, b.P - b.par.expert_params + b.par.expert_params / 8);
    char why[256];
    s.ep = 3;
    s.gpus = 24;
    assert_false(vl_settings_valid(&s, &ds.arch, why, sizeof why));
    assert_non_null(strstr(why, "--ep 3 must divide the model's 64 routed experts"));
    s.ep = 16;
    s.gpus = 8; /* 8 data-parallel GPUs */
    assert_non_null(strstr(settings_why(&s), "--ep must divide the data-parallel GPUs"));
}

/* Context parallelism, by hand, on the Llama-3-8B-like layer of test_gqa_gated_no_dropout
 * with flash attention: --cp 4 at 16384 tokens gives each GPU 4096 of them, so its layer
 * keeps what that test derives for s = 4096, b = 2 (sb = 8192); the embedding side holds
 * the GPU's 8192 token ids and RoPE tables of 4096 positions; the ring's buffers are a K, V
 * block received and a dK, dV block sent, 4 x 2 B x sb x (8 x 128).  Over 8 GPUs: 2 data
 * parallel, ZeRO over all 8 (data x context), a global batch of 2 x 2 sequences. */
static void test_context_parallel(void **state)
{
    (void)state;
    vl_model m = mistral_7b();
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    s.attention = VL_ATTN_FLASH;
    s.seq = 16384;
    s.batch = 2;
    s.cp = 4;
    vl_activations act;
    bool ovf = false;
    vl_activations_compute(&m.arch, &s, &act, &ovf);
    const uint64_t sb = 4096 * 2, sbh = sb * 4096;
    assert_int_equal(act.local_seq, 4096);
    assert_int_equal(act.layer_bytes, 2 * 6 * sbh + 4 * 2 * sbh + 2 * 2 * sb * 1024 +
                                          4ULL * 32 * sb + 4 * 2 * sb * 14336);
    assert_int_equal(act.embedding_bytes, 8 * sb + 2 * 2 * 4096 * 128);
    assert_int_equal(act.ring_bytes, 4 * 2 * sb * 1024);
    assert_int_equal(act.total, 32 * act.layer_bytes + act.outside_bytes + 4 * 2 * sb * 1024);
    assert_false(ovf);

    s.gpus = 8;
    s.zero = 1;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.par.dp, 2);
    assert_int_equal(b.par.global_batch, 4);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * b.P);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], (16 * b.P + 7) / 8);
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], act.total);

    s.seq = 16388; /* not two equal chunks a GPU */
    assert_non_null(strstr(settings_why(&s), "--seq must be a multiple of 2 x --cp"));
    s.seq = 16384;
    s.gpus = 6;
    assert_non_null(strstr(settings_why(&s), "--gpus must be a multiple of --tp x --pp x --cp"));
    s.gpus = 8;
    s.attention = VL_ATTN_EAGER;
    assert_non_null(strstr(settings_why(&s), "--cp needs --attention sdpa or flash"));
}

/* Interleaved 1F1B against Megatron-LM's theoretical memory report: 80 layers over p = 4
 * stages in v chunks keep L·(1 + (p - 1)/(p·v)) layers' worth on the first stage, 80 x
 * 11/8 = 110 at v = 2 (11 chunks of 10) and 80 x 19/16 = 95 at v = 4 (19 of 5), and the
 * embedding side for ceil(p·(1 + (p - 1)/(p·v))) micro-batches, ceil(5.5) = 6 and
 * ceil(4.75) = 5; with only p micro-batches, all m·v = 8 chunks and the 4 micro-batches. */
static void test_interleaved_1f1b(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 8192, .layers = 80, .heads = 64, .kv_heads = 8, .ffn = 28672,
                 .vocab = 32000};
    vl_arch_defaults(&a);
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    s.attention = VL_ATTN_FLASH;
    s.pp = 4;
    s.grad_accum = 8;
    vl_activations plain, act;
    bool ovf = false;
    vl_activations_compute(&a, &s, &plain, &ovf);
    assert_int_equal(plain.total, (20 * plain.layer_bytes + plain.outside_bytes) * 4);
    s.vpp = 2;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.chunk_layers * act.chunks_in_flight, 80 * 11 / 8);
    assert_int_equal(act.chunk_layers, 10);
    assert_int_equal(act.in_flight, 6);
    assert_int_equal(act.layer_bytes, plain.layer_bytes);
    assert_int_equal(act.total, 110 * act.layer_bytes + 6 * act.outside_bytes);
    s.vpp = 4;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.chunk_layers * act.chunks_in_flight, 80 * 19 / 16);
    assert_int_equal(act.in_flight, 5);
    s.grad_accum = 4;
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.chunks_in_flight, 4 * 4);
    assert_int_equal(act.in_flight, 4);
    s.recompute = VL_RECOMPUTE_FULL; /* each kept chunk keeps its layers' inputs */
    vl_activations_compute(&a, &s, &act, &ovf);
    assert_int_equal(act.total - (act.forward_end_bytes > act.recompute_bytes
                                      ? act.forward_end_bytes : act.recompute_bytes),
                     act.checkpoint_bytes * 5 * 16);
    assert_false(ovf);

    char why[256];
    s.gpus = 4;
    s.recompute = VL_RECOMPUTE_NONE;
    s.grad_accum = 6;
    assert_non_null(strstr(settings_why(&s), "--vpp needs --grad-accum a multiple of --pp"));
    s.grad_accum = 8;
    s.vpp = 3; /* 12 chunks of 80 / 12 layers */
    assert_false(vl_settings_valid(&s, &a, why, sizeof why));
    assert_non_null(strstr(why, "--pp x --vpp (12) must divide the model's 80 layers"));
    s.vpp = 2;
    s.pp = 1;
    assert_non_null(strstr(settings_why(&s), "--vpp needs --pp 2 or more"));
}

/* A sequence-classification head (--head cls): Llama 2 7B (6,738,415,616 params, its
 * output layer untied) loses the 32,000 x 4,096 output layer for a score of 4,096 x 3, so
 * weights, gradients and states count 6,607,355,904 parameters; the output side keeps the
 * final RMSNorm's tensors (4 + 2 B a hidden value), the last hidden state the classifier
 * reads (2 B), b x 3 fp32 log-probabilities and b int64 labels, and no logits.  BERT-like
 * (tied, pooled) keeps its embeddings and adds a classifier of 4,096 x 3 with 3 biases; its
 * layers end with their norms (post-norm), so its output side has no final norm: the last
 * hidden state, the pooler's b x 4,096 output, the log-probabilities and the labels.
 * DistilBERT-like (no pooler) has a dense layer of its own before the classifier, and a
 * norm over its embeddings. */
static void test_cls_head(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = settings(VL_BF16_MIXED, VL_ADAMW, true, false);
    s.seq = 512;
    s.batch = 4;
    s.head = VL_HEAD_CLS;
    s.labels = 3;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    const uint64_t P = 6738415616ULL - 32000ULL * 4096 + 4096 * 3;
    assert_int_equal(b.P, P);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * P);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 16 * P);
    const uint64_t sbh = 512ULL * 4 * 4096;
    assert_int_equal(b.act.outside_bytes - b.act.embedding_bytes,
                     (4 + 2) * sbh + 2 * sbh + 4 * 4 * 3 + 8 * 4);
    for (int i = 0; i < b.act.n_outside; i++)
        assert_null(strstr(b.act.outside[i].name, "logits"));

    vl_model enc = llama2_7b();
    enc.arch.tie_embeddings = true;
    enc.arch.pooler = true;
    enc.arch.norm_position = VL_NORM_POST;
    assert_true(vl_arch_encoder(&enc.arch));
    vl_params p;
    assert_true(vl_count_params(&enc.arch, &p));
    assert_null(vl_estimate(&enc, &s, &b));
    assert_int_equal(b.P, p.total + 4096 * 3 + 3);
    assert_int_equal(b.act.outside_bytes - b.act.embedding_bytes,
                     2 * sbh + 2 * 4 * 4096 + 4 * 4 * 3 + 8 * 4);
    /* DistilBERT-like, no pooler: its head has a dense layer of its own before the
     * classifier (pre_classifier, 4,096 x 4,096 + 4,096), whose ReLU keeps b x 4,096 */
    enc.arch.pooler = false;
    enc.arch.embedding_norm = true;
    enc.arch.norm = VL_NORM_LAYERNORM;
    assert_true(vl_arch_encoder(&enc.arch));
    assert_true(vl_count_params(&enc.arch, &p));
    assert_null(vl_estimate(&enc, &s, &b));
    assert_int_equal(b.P, p.total + 4096 * 4096 + 4096 + 4096 * 3 + 3);
    assert_int_equal(b.act.outside_bytes - b.act.embedding_bytes,
                     2 * sbh + 2 * 4 * 4096 + 4 * 4 * 3 + 8 * 4);
    /* the norm over its embeddings keeps its input, the embeddings' sum (2 B) */
    assert_int_equal(outside_term(&b, "embedding norm input"), 2 * sbh);
    assert_int_equal(b.act.head_input_live, 0);
    /* under autocast the pre-classifier reads the first position, which it casts to 16
     * bits: it saves that b x 4,096 copy and its weight's (4,096 x 4,096), not the last
     * hidden state (fp32, 4 B), which lives through the loss unsaved; the embeddings' sum
     * is fp32 */
    s.precision = VL_BF16_AMP;
    assert_null(vl_estimate(&enc, &s, &b));
    assert_int_equal(outside_term(&b, "classifier input (the last hidden state)"), 0);
    assert_int_equal(outside_term(&b, "classifier input (the first position, a 16-bit cast)"),
                     2 * 4 * 4096);
    assert_int_equal(outside_term(&b, "the head's dense weight, 16-bit copy (autocast)"),
                     2 * 4096 * 4096);
    assert_int_equal(b.act.head_input_live, 4 * sbh);
    assert_int_equal(outside_term(&b, "embedding norm input"), 4 * sbh);
    /* LoRA over frozen embeddings whose output asks for no gradient (litgpt): the norm
     * keeps nothing; transformers' PEFT makes it ask (hf) */
    s.lora_rank = 8;
    vl_settings_take_framework(&s, vl_framework_find("litgpt"));
    assert_null(vl_estimate(&enc, &s, &b));
    assert_int_equal(outside_term(&b, "embedding norm input"), 0);
    vl_settings_take_framework(&s, vl_framework_find("hf"));
    assert_null(vl_estimate(&enc, &s, &b));
    assert_int_equal(outside_term(&b, "embedding norm input"), 4 * sbh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleaved_1f1b),
        cmocka_unit_test(test_context_parallel),
        cmocka_unit_test(test_moe_layer),
        cmocka_unit_test(test_expert_parallel),
        cmocka_unit_test(test_article_bytes_per_param),
        cmocka_unit_test(test_conventions),
        cmocka_unit_test(test_zero_paper_figure_1),
        cmocka_unit_test(test_korthikanti_gpt3_layer),
        cmocka_unit_test(test_gqa_gated_no_dropout),
        cmocka_unit_test(test_autocast),
        cmocka_unit_test(test_extreme_sizes_exact),
        cmocka_unit_test(test_overflow_is_reported),
        cmocka_unit_test(test_settings_check),
        cmocka_unit_test(test_default_llama),
        cmocka_unit_test(test_offload),
        cmocka_unit_test(test_korthikanti_table_2),
        cmocka_unit_test(test_pipeline_1f1b),
        cmocka_unit_test(test_parallel_states),
        cmocka_unit_test(test_parallel_invalid),
        cmocka_unit_test(test_adafactor),
        cmocka_unit_test(test_muon),
        cmocka_unit_test(test_cls_head),
        cmocka_unit_test(test_v_view),
        cmocka_unit_test(test_parallel_norms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
