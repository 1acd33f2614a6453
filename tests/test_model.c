/* test_model.c: exact parameter counts against published figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/model.h"

static uint64_t total(vl_arch a)
{
    vl_params p;
    const char *key;
    vl_arch_defaults(&a);
    assert_null(vl_arch_check(&a, &key));
    assert_true(vl_count_params(&a, &p));
    return p.total;
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

/* OPT-13B: 2048 + 2 learned position rows; BLOOM-176B: ALiBi and an embedding LayerNorm,
 * 70·(12·14336² + 13·14336) + 250880·14336 + 2·(2·14336) = 176,247,271,424. */
static void test_opt_bloom(void **state)
{
    (void)state;
    vl_arch opt = {.hidden = 5120, .layers = 40, .heads = 40, .ffn = 20480, .vocab = 50272,
                   .max_positions = 2048, .position_offset = 2, .position = VL_POS_LEARNED,
                   .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM, .attention_bias = true,
                   .mlp_bias = true, .tie_embeddings = true};
    vl_params p;
    vl_arch_defaults(&opt);
    assert_true(vl_count_params(&opt, &p));
    assert_int_equal(p.positions, 2050ULL * 5120);
    assert_int_equal(p.total, 12853473280ULL);
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
    vl_params p;
    const char *key;
    vl_arch_defaults(&a);
    assert_null(vl_arch_check(&a, &key));
    assert_true(vl_count_params(&a, &p));
    assert_int_equal(p.attention, 187107328ULL);
    assert_int_equal(p.per_dense_layer, 583483392ULL);
    assert_int_equal(p.per_layer, 11507286272ULL);
    assert_int_equal(p.total, 671026419200ULL);
    assert_int_equal(p.active, 37552297472ULL);
    assert_int_equal(vl_active_mlp_width(&a), 9 * 2048);
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
    const char *key;
    vl_arch a = {.hidden = 4545, .layers = 32, .heads = 71, .vocab = 65024};
    vl_arch_defaults(&a); /* 71 does not divide 4545 */
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "head_dim");
    a = (vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 5, .vocab = 32000};
    vl_arch_defaults(&a);
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "num_kv_heads");
    a = (vl_arch){.hidden = 4096, .layers = 0, .heads = 32, .vocab = 32000};
    vl_arch_defaults(&a);
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "num_layers");
    a = (vl_arch){.hidden = 4096, .layers = 2, .heads = 32, .vocab = 32000, .experts = 8,
                  .experts_per_token = 9};
    vl_arch_defaults(&a);
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "experts_per_token");
    a = (vl_arch){.hidden = 64, .layers = 2, .heads = 4, .vocab = 100, .experts = 4,
                  .dense_layers = 2};
    vl_arch_defaults(&a);
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "dense_layers");
    a = (vl_arch){.hidden = 64, .layers = 2, .heads = 4, .kv_heads = 2, .vocab = 100,
                  .kv_lora_rank = 16};
    vl_arch_defaults(&a);
    assert_non_null(vl_arch_check(&a, &key));
    assert_string_equal(key, "num_kv_heads");
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
        cmocka_unit_test(test_mixtral_moe),
        cmocka_unit_test(test_bert),
        cmocka_unit_test(test_opt_bloom),
        cmocka_unit_test(test_falcon_40b),
        cmocka_unit_test(test_deepseek_v3),
        cmocka_unit_test(test_largest_matrix),
        cmocka_unit_test(test_arch_check),
        cmocka_unit_test(test_gpt3_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
