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
 * the shipped presets; the expected counts are the published ones (DESIGN §4.1). */
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
        cmocka_unit_test(test_largest_matrix),
        cmocka_unit_test(test_arch_check),
        cmocka_unit_test(test_gpt3_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
