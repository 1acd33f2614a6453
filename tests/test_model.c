/* test_model.c: exact parameter counts against published figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/model.h"

/* a's parameters, after its defaults and the check that a passes. */
static vl_params counted(vl_arch *a)
{
    vl_params p;
    const char *key;
    vl_arch_defaults(a);
    assert_null(vl_arch_check(a, &key));
    assert_true(vl_count_params(a, &p));
    return p;
}

/* The key vl_arch_check names for a, after its defaults; a must fail the check. */
static const char *refused(vl_arch a)
{
    const char *key;
    vl_arch_defaults(&a);
    assert_non_null(vl_arch_check(&a, &key));
    return key;
}

static uint64_t total(vl_arch a)
{
    return counted(&a).total;
}

/* The architectures are written here from the models' config.json files, independently of
 * the shipped presets; the expected counts are the published ones (HACKING §4.1). */
static void test_gpt2(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 768, .layers = 12, .heads = 12, .vocab = 50257, .max_positions = 1024,
                 .position = VL_POS_LEARNED, .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                 .attention_bias = true, .mlp_bias = true, .tie_embeddings = true};
    assert_int_equal(total(a), 124439808ULL);
}

static void test_llama2_7b(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008, .vocab = 32000,
                 .mlp = VL_MLP_GATED, .norm = VL_NORM_RMSNORM};
    assert_int_equal(total(a), 6738415616ULL);
}

static void test_mistral_7b_gqa(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8, .ffn = 14336,
                 .vocab = 32000, .mlp = VL_MLP_GATED, .norm = VL_NORM_RMSNORM};
    assert_int_equal(total(a), 7241732096ULL);
}

static void test_falcon_7b_parallel_mqa(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4544, .layers = 32, .heads = 71, .kv_heads = 1, .head_dim = 64,
                 .vocab = 65024, .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                 .tie_embeddings = true, .parallel_attention = true};
    assert_int_equal(total(a), 6921720704ULL);
}

/* GPT-J's layout, which Phi's follows: one LayerNorm feeding attention and the MLP side by
 * side, RoPE, MLP biases and a bias on the output layer, untied. */
static vl_arch gptj_layout(uint64_t hidden, uint64_t layers, uint64_t heads, uint64_t ffn,
                           uint64_t vocab)
{
    return (vl_arch){.hidden = hidden, .layers = layers, .heads = heads, .ffn = ffn,
                     .vocab = vocab, .position = VL_POS_ROPE, .mlp = VL_MLP_STANDARD,
                     .norm = VL_NORM_LAYERNORM, .mlp_bias = true, .head_bias = true,
                     .parallel_attention = true};
}

/* Phi-1.5 and Phi-2: one LayerNorm a layer, biases on every linear layer and on the output
 * layer, untied.  Phi-1.5 by hand (h 2048, f 8192, V 51200, 24 layers): a layer is the norm
 * 4,096 + q, k, v, dense 4 x (2048^2 + 2048) + fc1 2048 x 8192 + 8192 + fc2 8192 x 2048 +
 * 2048 = 50,354,176; x 24 = 1,208,500,224, + embeddings and output layer 2 x 104,857,600, +
 * its bias 51,200, + final norm 4,096: 1,418,270,720 (num_parameters() of microsoft/phi-1_5's
 * PhiForCausalLM).  Phi-2: 2,779,683,840 (microsoft/phi-2's safetensors total). */
static void test_phi(void **state)
{
    (void)state;
    vl_arch a = gptj_layout(2048, 24, 32, 8192, 51200);
    a.attention_bias = true;
    vl_params p = counted(&a);
    assert_int_equal(p.per_layer, 50354176ULL);
    assert_int_equal(p.lm_head, 104857600ULL);
    assert_int_equal(p.head_bias, 51200ULL);
    assert_int_equal(p.total, 1418270720ULL);
    vl_arch phi2 = gptj_layout(2560, 32, 32, 10240, 51200);
    phi2.attention_bias = true;
    assert_int_equal(total(phi2), 2779683840ULL);
}

/* GPT-J 6B: Phi's layout without attention biases (attention_out_bias off beside the MLP's).
 * By hand (h 4096, f 16384, V 50400, 28 layers): a layer is ln_1 8,192 + q, k, v, out
 * 4 x 4096^2 + fc_in 4096 x 16384 + 16384 + fc_out 16384 x 4096 + 4096 = 201,355,264;
 * x 28 = 5,637,947,392, + embeddings and output layer 2 x 206,438,400, + its bias 50,400, +
 * ln_f 8,192: 6,050,882,784, EleutherAI/gpt-j-6b's weight files summed. */
static void test_gptj(void **state)
{
    (void)state;
    vl_arch a = gptj_layout(4096, 28, 16, 0, 50400); /* f: 4h by default */
    a.attention_out_bias = VL_OUT_BIAS_OFF;
    vl_params p = counted(&a);
    assert_int_equal(p.per_layer, 201355264ULL);
    assert_int_equal(p.total, 6050882784ULL);
    /* the output projection's bias as mlp_bias has it (attention_out_bias at its default) */
    a.attention_out_bias = VL_OUT_BIAS_AS_MLP;
    assert_int_equal(total(a), 6050882784ULL + 28 * 4096);
}

/* Mixtral 8x7B: 46,702,792,704 total (the published figure).  Active, by hand: attention
 * 41,943,040 + 2 experts x 176,160,768 + router 32,768 + norms 8,192 = 394,305,536 per
 * layer; x 32 + embeddings 262,144,000 + final norm 4,096 = 12,879,925,248. */
static void test_mixtral_moe(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8, .ffn = 14336,
                 .vocab = 32000, .mlp = VL_MLP_GATED, .norm = VL_NORM_RMSNORM, .experts = 8,
                 .experts_per_token = 2};
    vl_params p;
    vl_arch_defaults(&a);
    assert_true(vl_count_params(&a, &p));
    assert_int_equal(p.total, 46702792704ULL);
    assert_int_equal(p.active, 12879925248ULL);
    assert_int_equal(p.largest_matrix, 131072000ULL); /* the embedding */
}

/* BERT base, post-norm encoder, by hand: embeddings 30522·768 + 512·768 positions +
 * 2·768 token types + 1536 embedding LayerNorm = 23,837,184; a layer 4·768² + 4·768
 * (attention) + 2·768·3072 + 3072 + 768 (MLP) + 2·1536 (norms) = 7,087,872, x 12; no final
 * norm; pooler 768² + 768.  Total 109,482,240 (bert-base-uncased, with its pooler). */
static void test_bert(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 768, .layers = 12, .heads = 12, .ffn = 3072, .vocab = 30522,
                 .max_positions = 512, .position = VL_POS_LEARNED, .token_types = 2,
                 .embedding_norm = true, .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                 .norm_position = VL_NORM_POST, .attention_bias = true, .mlp_bias = true,
                 .tie_embeddings = true, .pooler = true};
    vl_params p;
    vl_arch_defaults(&a);
    assert_true(vl_count_params(&a, &p));
    assert_int_equal(p.per_layer, 7087872ULL);
    assert_int_equal(p.final_norm, 0);
    assert_int_equal(p.total, 109482240ULL);
    vl_arch large = {.hidden = 1024, .layers = 24, .heads = 16, .ffn = 4096, .vocab = 30522,
                     .max_positions = 512, .position = VL_POS_LEARNED, .token_types = 2,
                     .embedding_norm = true, .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                     .norm_position = VL_NORM_POST, .attention_bias = true, .mlp_bias = true,
                     .tie_embeddings = true, .pooler = true};
    assert_int_equal(total(large), 335141888ULL); /* bert-large-uncased */
}

/* DistilBERT: BERT base's layers, 6 of them, no token types and no pooler: 30522·768 +
 * 512·768 + 1536 = 23,835,648 + 6 x 7,087,872 = 66,362,880 (keras-hub's
 * distil_bert_base_en_uncased).  RoBERTa: 514 position rows (2 before the padding index),
 * one token type and BERT's pooler, as RobertaModel builds it; keras-hub's backbones have
 * 512 rows, no token type and no pooler (roberta_base_en 124,052,736, roberta_large_en
 * 354,307,072).  Base: 50265·768 + 514·768 + 768 + 1536 = 39,000,576, + 12 x 7,087,872,
 * + 768² + 768 = 124,645,632; large: 52,000,768 + 24 x 12,596,224 + 1024² + 1024. */
static void test_distilbert_roberta(void **state)
{
    (void)state;
    vl_arch distil = {.hidden = 768, .layers = 6, .heads = 12, .ffn = 3072, .vocab = 30522,
                      .max_positions = 512, .position = VL_POS_LEARNED, .embedding_norm = true,
                      .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                      .norm_position = VL_NORM_POST, .attention_bias = true, .mlp_bias = true,
                      .tie_embeddings = true};
    vl_params p = counted(&distil);
    assert_int_equal(p.per_layer, 7087872ULL);
    assert_int_equal(p.pooler, 0);
    assert_int_equal(p.total, 66362880ULL);
    assert_true(vl_arch_encoder(&distil));
    static const struct {
        uint64_t hidden, layers, heads, total, keras;
    } roberta[] = {{768, 12, 12, 124645632ULL, 124052736ULL},
                   {1024, 24, 16, 355359744ULL, 354307072ULL}};
    for (size_t i = 0; i < sizeof roberta / sizeof *roberta; i++) {
        const uint64_t h = roberta[i].hidden;
        vl_arch a = {.hidden = h, .layers = roberta[i].layers, .heads = roberta[i].heads,
                     .ffn = 4 * h, .vocab = 50265, .max_positions = 514,
                     .position = VL_POS_LEARNED, .token_types = 1, .embedding_norm = true,
                     .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                     .norm_position = VL_NORM_POST, .attention_bias = true, .mlp_bias = true,
                     .tie_embeddings = true, .pooler = true};
        p = counted(&a);
        assert_int_equal(p.total, roberta[i].total);
        assert_int_equal(p.total - p.pooler - 3 * h, roberta[i].keras);
    }
}

/* OPT (Zhang et al. 2022, Table 1: 1.3B, 6.7B, 13B, 30B; f = 4h): 2048 + 2 learned
 * position rows, L·(12h² + 13h) + (50272 + 2050)·h + 2h; BLOOM-176B: ALiBi and an embedding
 * LayerNorm, 70·(12·14336² + 13·14336) + 250880·14336 + 2·(2·14336) = 176,247,271,424. */
static void test_opt_bloom(void **state)
{
    (void)state;
    static const struct {
        uint64_t h, layers, heads, exact;
    } opt[] = {
        {2048, 24, 32, 1315758080ULL},   /* 1.3B */
        {4096, 32, 32, 6658473984ULL},   /* 6.7B */
        {5120, 40, 40, 12853473280ULL},  /* 13B */
        {7168, 48, 56, 29974540288ULL},  /* 30B */
    };
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        const uint64_t h = opt[i].h;
        vl_arch o = {.hidden = h, .layers = opt[i].layers, .heads = opt[i].heads,
                     .ffn = 4 * h, .vocab = 50272, .max_positions = 2048, .position_offset = 2,
                     .position = VL_POS_LEARNED, .mlp = VL_MLP_STANDARD,
                     .norm = VL_NORM_LAYERNORM, .attention_bias = true, .mlp_bias = true,
                     .tie_embeddings = true};
        vl_params p = counted(&o);
        assert_int_equal(p.positions, 2050 * h);
        assert_int_equal(p.total, opt[i].exact);
        assert_int_equal(opt[i].exact,
                         opt[i].layers * (12 * h * h + 13 * h) + (50272 + 2050) * h + 2 * h);
    }
    vl_arch bloom = {.hidden = 14336, .layers = 70, .heads = 112, .vocab = 250880,
                     .position = VL_POS_ALIBI, .mlp = VL_MLP_STANDARD,
                     .norm = VL_NORM_LAYERNORM, .embedding_norm = true, .attention_bias = true,
                     .mlp_bias = true, .tie_embeddings = true};
    assert_int_equal(total(bloom), 176247271424ULL);
}

/* Falcon-40B: parallel attention and MLP with two LayerNorms per layer, 8 KV heads of 64:
 * a layer 8192·(128 + 16)·64 + 8192² + 2·8192·32768 + 2·16384 = 679,510,016; x 60 +
 * 2·65024·8192 (untied) + 16384 = 41,835,970,560, the safetensors total. */
static void test_falcon_40b(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 8192, .layers = 60, .heads = 128, .kv_heads = 8, .vocab = 65024,
                 .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM, .parallel_attention = true,
                 .norms_per_layer = 2};
    vl_params p;
    vl_arch_defaults(&a);
    assert_true(vl_count_params(&a, &p));
    assert_int_equal(p.per_layer, 679510016ULL);
    assert_int_equal(p.total, 41835970560ULL);
}

/* DeepSeek-V3 by hand.  Attention (MLA): q 7168·1536 + 1536 + 1536·128·192, kv 7168·576 +
 * 512 + 512·128·256, o 128·128·7168 = 187,107,328.  A dense layer adds 3·7168·18432 and
 * 2·7168 norms: 583,483,392 (3 of them).  An MoE layer: 257 experts of 3·7168·2048, router
 * 256·7168 + 256 biases, norms: 11,507,286,272 (58 of them).  Embeddings 2·129280·7168,
 * final norm 7168: 671,026,419,200.  Active: 9 experts a token, 585,318,656 per MoE layer,
 * 37,552,297,472 in all (the report's "37B activated"). */
static void test_deepseek_v3(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 7168, .layers = 61, .heads = 128, .head_dim = 192, .ffn = 18432,
                 .vocab = 129280, .q_lora_rank = 1536, .kv_lora_rank = 512,
                 .qk_rope_head_dim = 64, .v_head_dim = 128, .experts = 256,
                 .experts_per_token = 8, .shared_experts = 1, .moe_ffn = 2048,
                 .dense_layers = 3, .router_bias = true};
    vl_params p = counted(&a);
    assert_int_equal(p.attention, 187107328ULL);
    assert_int_equal(p.per_dense_layer, 583483392ULL);
    assert_int_equal(p.per_layer, 11507286272ULL);
    assert_int_equal(p.total, 671026419200ULL);
    assert_int_equal(p.active, 37552297472ULL);
    assert_int_equal(vl_active_mlp_width(&a), 9 * 2048);
}

/* Qwen3-0.6B by hand: q and o 1024·2048 each, k and v 1024·1024 each, q_norm and k_norm
 * 2·128, MLP 3·1024·3072, 2 norms of 1024: 15,730,944 a layer; x 28 + 151936·1024 tied
 * embeddings + 1024 = 596,049,920 (keras-hub qwen3_0.6b_en).  OLMo 2 7B: q_norm over
 * 32·128 and k_norm over 32·128 add 8,192 a layer: 4·4096² + 8192 + 3·4096·11008 + 8192 =
 * 202,391,552; x 32 + 2·100352·4096 + 4096 = 7,298,617,344 (Hugging Face safetensors). */
static void test_qk_norm(void **state)
{
    (void)state;
    vl_arch q = {.hidden = 1024, .layers = 28, .heads = 16, .kv_heads = 8, .head_dim = 128,
                 .ffn = 3072, .vocab = 151936, .tie_embeddings = true,
                 .qk_norm = VL_QK_NORM_HEAD};
    vl_params p;
    vl_arch_defaults(&q);
    assert_true(vl_count_params(&q, &p));
    assert_int_equal(p.norms, 2 * 1024 + 2 * 128);
    assert_int_equal(p.per_layer, 15730944ULL);
    assert_int_equal(p.total, 596049920ULL);
    vl_arch o = {.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008, .vocab = 100352,
                 .qk_norm = VL_QK_NORM_FULL};
    vl_arch_defaults(&o);
    assert_true(vl_count_params(&o, &p));
    assert_int_equal(p.per_layer, 202391552ULL);
    assert_int_equal(p.total, 7298617344ULL);
    /* with LayerNorm a norm has a bias too */
    o.norm = VL_NORM_LAYERNORM;
    assert_true(vl_count_params(&o, &p));
    assert_int_equal(p.norms, 2 * 2 * 4096 + 2 * (2 * 4096));
    assert_string_equal(refused((vl_arch){.hidden = 64, .layers = 2, .heads = 4, .vocab = 100,
                                          .kv_lora_rank = 16, .qk_norm = VL_QK_NORM_HEAD}),
                        "qk_norm");
}

/* The families added for issue 16, each written here from its config.json, against its
 * published count (the same sources as the presets: keras-hub presets, Hugging Face
 * safetensors totals, the Pythia model cards, Black et al. 2022). */
#define LLAMA(h, l, a, k, d, f, v, tie) \
    .hidden = h, .layers = l, .heads = a, .kv_heads = k, .head_dim = d, .ffn = f, .vocab = v, \
    .tie_embeddings = tie
#define NEOX(h, l, a, v)                                                                    \
    .hidden = h, .layers = l, .heads = a, .vocab = v, .mlp = VL_MLP_STANDARD,               \
    .norm = VL_NORM_LAYERNORM, .norms_per_layer = 2, .attention_bias = true, .mlp_bias = true, \
    .parallel_attention = true
static void test_current_families(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        vl_arch a;
        uint64_t published;
    } rows[] = {
        {"Llama 3.2 1B", {LLAMA(2048, 16, 32, 8, 64, 8192, 128256, true)}, 1235814400ULL},
        {"Llama 3.2 3B", {LLAMA(3072, 28, 24, 8, 128, 8192, 128256, true)}, 3212749824ULL},
        {"Llama 3.3 70B", {LLAMA(8192, 80, 64, 8, 128, 28672, 128256, false)}, 70553706496ULL},
        {"Qwen3 1.7B", {LLAMA(2048, 28, 16, 8, 128, 6144, 151936, true), .qk_norm = VL_QK_NORM_HEAD},
         1720574976ULL},
        {"Qwen3 4B", {LLAMA(2560, 36, 32, 8, 128, 9728, 151936, true), .qk_norm = VL_QK_NORM_HEAD},
         4022468096ULL},
        {"Qwen3 8B", {LLAMA(4096, 36, 32, 8, 128, 12288, 151936, false), .qk_norm = VL_QK_NORM_HEAD},
         8190735360ULL},
        {"Qwen3 14B", {LLAMA(5120, 40, 40, 8, 128, 17408, 151936, false), .qk_norm = VL_QK_NORM_HEAD},
         14768307200ULL},
        {"Qwen3 32B", {LLAMA(5120, 64, 64, 8, 128, 25600, 151936, false), .qk_norm = VL_QK_NORM_HEAD},
         32762123264ULL},
        {"Qwen3 30B-A3B", {LLAMA(2048, 48, 32, 4, 128, 6144, 151936, false),
                           .qk_norm = VL_QK_NORM_HEAD, .experts = 128, .experts_per_token = 8,
                           .moe_ffn = 768}, 30532122624ULL},
        {"Gemma 2 2B", {LLAMA(2304, 26, 8, 4, 256, 9216, 256000, true), .norms_per_layer = 4},
         2614341888ULL},
        {"Gemma 2 9B", {LLAMA(3584, 42, 16, 8, 256, 14336, 256000, true), .norms_per_layer = 4},
         9241705984ULL},
        {"Gemma 2 27B", {LLAMA(4608, 46, 32, 16, 128, 36864, 256000, true), .norms_per_layer = 4},
         27227128320ULL},
        {"Gemma 3 270M", {LLAMA(640, 18, 4, 1, 256, 2048, 262144, true), .norms_per_layer = 4,
                          .qk_norm = VL_QK_NORM_HEAD}, 268098176ULL},
        {"Gemma 3 1B", {LLAMA(1152, 26, 4, 1, 256, 6912, 262144, true), .norms_per_layer = 4,
                        .qk_norm = VL_QK_NORM_HEAD}, 999885952ULL},
        /* keras-hub's Gemma 3 text models have 262,144 embedding rows */
        {"Gemma 3 4B text", {LLAMA(2560, 34, 8, 4, 256, 10240, 262144, true),
                             .norms_per_layer = 4, .qk_norm = VL_QK_NORM_HEAD}, 3880099328ULL},
        {"Gemma 3 27B text", {LLAMA(5376, 62, 32, 16, 128, 21504, 262144, true),
                              .norms_per_layer = 4, .qk_norm = VL_QK_NORM_HEAD}, 27009002240ULL},
        {"Phi-4", {LLAMA(5120, 40, 40, 10, 128, 17920, 100352, false)}, 14659507200ULL},
        {"Phi-4 mini", {LLAMA(3072, 32, 24, 8, 128, 8192, 200064, true)}, 3836021760ULL},
        {"Mistral Nemo 12B", {LLAMA(5120, 40, 32, 8, 128, 14336, 131072, false)}, 12247782400ULL},
        {"Mistral Small 24B", {LLAMA(5120, 40, 32, 8, 128, 32768, 131072, false)}, 23572403200ULL},
        /* Code Llama 7B and 13B: Llama 2's with 16 infilling tokens, 32016 rows in the
         * embeddings and the output layer (together-python's counts); 34B by hand, a layer
         * 2·8192² + 2·8192·1024 + 3·8192·22016 + 2·8192 = 692,076,544, x 48, + 2·32000·8192
         * + 8192.  TinyLlama 1.1B: the Hugging Face safetensors total. */
        {"Code Llama 7B", {LLAMA(4096, 32, 32, 32, 128, 11008, 32016, false)}, 6738546688ULL},
        {"Code Llama 13B", {LLAMA(5120, 40, 40, 40, 128, 13824, 32016, false)}, 13016028160ULL},
        {"Code Llama 34B", {LLAMA(8192, 48, 64, 8, 128, 22016, 32000, false)}, 33743970304ULL},
        {"TinyLlama 1.1B", {LLAMA(2048, 22, 32, 4, 64, 5632, 32000, false)}, 1100048384ULL},
        {"OLMo 2 13B", {LLAMA(5120, 40, 40, 40, 128, 13824, 100352, false),
                        .qk_norm = VL_QK_NORM_FULL}, 13716198400ULL},
        {"Pythia 70M", {NEOX(512, 6, 8, 50304)}, 70426624ULL},
        {"Pythia 160M", {NEOX(768, 12, 12, 50304)}, 162322944ULL},
        {"Pythia 410M", {NEOX(1024, 24, 16, 50304)}, 405334016ULL},
        {"Pythia 1B", {NEOX(2048, 16, 8, 50304)}, 1011781632ULL},
        {"Pythia 1.4B", {NEOX(2048, 24, 16, 50304)}, 1414647808ULL},
        {"Pythia 2.8B", {NEOX(2560, 32, 32, 50304)}, 2775208960ULL},
        {"Pythia 6.9B", {NEOX(4096, 32, 32, 50432)}, 6857302016ULL},
        {"Pythia 12B", {NEOX(5120, 36, 40, 50688)}, 11846072320ULL},
        {"GPT-NeoX-20B", {NEOX(6144, 44, 64, 50432)}, 20554567680ULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t n = total(rows[i].a);
        if (n != rows[i].published)
            fail_msg("%s: counted %llu, published %llu", rows[i].name, (unsigned long long)n,
                     (unsigned long long)rows[i].published);
    }
}
#undef LLAMA
#undef NEOX

/* DeepSeek-V2-Lite by hand: MLA without a query bottleneck, q 2048·16·192, kv 2048·576 +
 * 512 + 512·16·256, o 16·128·2048 = 13,763,072.  The dense layer adds 3·2048·10944 and
 * 2·2048 norms; an MoE layer 66 experts of 3·2048·1408, router 2048·64, norms:
 * 584,847,872 (26 of them).  Embeddings 2·102400·2048 + final norm 2048:
 * 15,706,484,224, the Hugging Face safetensors total.  Active: 8 experts a token,
 * 13,763,072 + 8·8,650,752 + 131,072 + 4,096 a layer. */
static void test_deepseek_v2_lite(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 2048, .layers = 27, .heads = 16, .head_dim = 192, .ffn = 10944,
                 .vocab = 102400, .kv_lora_rank = 512, .qk_rope_head_dim = 64,
                 .v_head_dim = 128, .experts = 64, .experts_per_token = 6,
                 .shared_experts = 2, .moe_ffn = 1408, .dense_layers = 1};
    vl_params p = counted(&a);
    assert_int_equal(p.attention, 13763072ULL);
    assert_int_equal(p.per_layer, 584847872ULL);
    assert_int_equal(p.total, 15706484224ULL);
    assert_int_equal(p.active, 26ULL * (13763072 + 8 * 8650752 + 131072 + 4096) +
                                   (13763072 + 3ULL * 2048 * 10944 + 4096) +
                                   2ULL * 102400 * 2048 + 2048);
}

/* Qwen1.5-MoE-A2.7B (config.json: hidden 2048, 24 layers, 16 heads, q, k, v biases, 60
 * experts of 1408, 4 a token, a shared expert of 5632 behind a sigmoid gate, vocab 151936,
 * untied), by hand: attention 4 x 2048² + 3 x 2048 = 16,783,360; experts 60 x 3 x 2048 x
 * 1408 = 519,045,120; shared 3 x 2048 x 5632 = 34,603,008; router 2048 x 60 and the gate
 * 2048 x 1; two norms 4096: 570,560,512 a layer.  Embeddings and output 2 x 151936 x 2048,
 * the final norm 2048: 14,315,784,192, the Hub's safetensors total and keras-hub's count. */
static void test_shared_expert_gate(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 2048, .layers = 24, .heads = 16, .ffn = 5632, .vocab = 151936,
                 .attention_bias = true, .experts = 60, .experts_per_token = 4,
                 .moe_ffn = 1408, .shared_experts = 1, .shared_ffn = 5632,
                 .shared_expert_gate = true};
    vl_params p = counted(&a);
    vl_shapes sh;
    const char *key;
    assert_int_equal(p.router, 2048ULL * 60 + 2048);
    assert_int_equal(p.per_layer, 570560512ULL);
    assert_int_equal(p.total, 14315784192ULL);
    assert_true(vl_param_shapes(&a, &sh));
    assert_int_equal(sh.matrix + sh.vector, p.total);
    a.shared_experts = 0; /* a gate on nothing */
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "shared_experts");
}

static void test_largest_matrix(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008, .vocab = 32000};
    vl_params p;
    vl_arch_defaults(&a);
    vl_count_params(&a, &p);
    assert_int_equal(p.largest_matrix, 32000ULL * 4096); /* embedding > 4096 x 11008 */
    a.vocab = 1000;
    vl_count_params(&a, &p);
    assert_int_equal(p.largest_matrix, 4096ULL * 11008);
}

static void test_arch_check(void **state)
{
    (void)state;
    /* 71 does not divide 4545 */
    assert_string_equal(refused((vl_arch){.hidden = 4545, .layers = 32, .heads = 71,
                                          .vocab = 65024}),
                        "head_dim");
    assert_string_equal(refused((vl_arch){.hidden = 4096, .layers = 32, .heads = 32,
                                          .kv_heads = 5, .vocab = 32000}),
                        "num_kv_heads");
    assert_string_equal(refused((vl_arch){.hidden = 4096, .layers = 0, .heads = 32,
                                          .vocab = 32000}),
                        "num_layers");
    assert_string_equal(refused((vl_arch){.hidden = 4096, .layers = 2, .heads = 32,
                                          .vocab = 32000, .experts = 8,
                                          .experts_per_token = 9}),
                        "experts_per_token");
    assert_string_equal(refused((vl_arch){.hidden = 64, .layers = 2, .heads = 4, .vocab = 100,
                                          .experts = 4, .dense_layers = 2}),
                        "dense_layers");
    assert_string_equal(refused((vl_arch){.hidden = 64, .layers = 2, .heads = 4,
                                          .kv_heads = 2, .vocab = 100, .kv_lora_rank = 16}),
                        "num_kv_heads");
}

/* --params: a GPT-3-like shape; at the sizes of Brown et al. 2020 Table 2.1 it must give
 * the table's own d_model and n_layers. */
static void test_gpt3_shapes(void **state)
{
    (void)state;
    static const struct {
        uint64_t n, hidden, layers;
    } rows[] = {
        {125000000ULL, 768, 12},   {350000000ULL, 1024, 24}, {1300000000ULL, 2048, 24},
        {6700000000ULL, 4096, 32}, {13000000000ULL, 5120, 40}, {175000000000ULL, 12288, 96},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        vl_model m;
        vl_model_from_params(&m, rows[i].n);
        assert_int_equal(m.arch.hidden, rows[i].hidden);
        assert_int_equal(m.arch.layers, rows[i].layers);
        assert_int_equal(m.free_params, rows[i].n);
        const char *key;
        assert_null(vl_arch_check(&m.arch, &key));
    }
    vl_model m;
    vl_model_from_params(&m, 10000000000000ULL); /* 10T: extrapolated, still valid */
    const char *key;
    assert_null(vl_arch_check(&m.arch, &key));
    assert_true(m.arch.hidden > 12288);
    vl_model_from_params(&m, 1000000ULL); /* 1M: clamped to one layer */
    assert_int_equal(m.arch.layers, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt2),
        cmocka_unit_test(test_llama2_7b),
        cmocka_unit_test(test_mistral_7b_gqa),
        cmocka_unit_test(test_falcon_7b_parallel_mqa),
        cmocka_unit_test(test_phi),
        cmocka_unit_test(test_gptj),
        cmocka_unit_test(test_mixtral_moe),
        cmocka_unit_test(test_bert),
        cmocka_unit_test(test_distilbert_roberta),
        cmocka_unit_test(test_opt_bloom),
        cmocka_unit_test(test_falcon_40b),
        cmocka_unit_test(test_deepseek_v3),
        cmocka_unit_test(test_qk_norm),
        cmocka_unit_test(test_current_families),
        cmocka_unit_test(test_deepseek_v2_lite),
        cmocka_unit_test(test_shared_expert_gate),
        cmocka_unit_test(test_largest_matrix),
        cmocka_unit_test(test_arch_check),
        cmocka_unit_test(test_gpt3_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
