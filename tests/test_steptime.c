/* test_steptime.c: training step time (steptime.h) against FLOPs counted by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/steptime.h"
#include "helpers.h"

static vl_model gpt2(void)
{
    return model_of((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .vocab = 50257,
                              .max_positions = 1024, .position = VL_POS_LEARNED,
                              .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                              .attention_bias = true, .mlp_bias = true,
                              .tie_embeddings = true});
}

/* GPT-2 small (124,439,808 params), s = 1024.  The weights a token multiplies: all but the
 * token table (50257 x 768 = 38,597,376) and the positions (1024 x 768 = 786,432), plus the
 * (tied) output layer 38,597,376: 123,653,376.  Attention, forward and backward:
 * 12 x 12 layers x 1024 keys x 12 heads x 64 = 113,246,208.  In all 6 x 123,653,376 +
 * 113,246,208 = 855,166,464 FLOPs a token (Kaplan et al.'s 6N plus PaLM's 12LHQT).  Full
 * recomputation runs the layers' forward again: 2 x (123,653,376 - 38,597,376) +
 * 2 x 12 x 1024 x 12 x 128 = 207,860,736 more. */
static void test_gpt2_flops(void **state)
{
    (void)state;
    vl_model m = gpt2();
    vl_settings s;
    vl_settings_default(&s);
    s.seq = 1024;
    s.batch = 8;
    s.gpus = 4;
    s.grad_accum = 2;
    s.mfu = 500000; /* 0.5 */
    s.tokens = 1000000000;
    vl_gpu g = {.bf16_flops = 1e15};
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    vl_train_speed v = vl_train_speed_of(&m, &b, &s, &g);
    assert_true(v.known);
    assert_int_equal(v.matmul_params, 123653376);
    assert_int_equal(v.context, 1024);
    assert_true(v.model_flops_per_token == 855166464.0);
    assert_true(v.hardware_flops_per_token == 855166464.0);
    assert_int_equal(v.tokens_per_step, 8 * 4 * 2 * 1024); /* micro-batch x data x accum x s */
    double tps = 4 * 0.5 * 1e15 / 855166464.0;
    assert_float_equal(v.tokens_per_s, tps, tps * 1e-12);
    assert_float_equal(v.tokens_per_s_per_gpu, tps / 4, tps * 1e-12);
    assert_float_equal(v.step_seconds, 65536 / tps, 1e-12);
    assert_float_equal(v.days, 1e9 / tps / 86400, 1e-9);
    assert_float_equal(v.gpu_hours, 1e9 / tps * 4 / 3600, 1e-9);

    s.recompute = VL_RECOMPUTE_FULL;
    assert_null(vl_estimate(&m, &s, &b));
    v = vl_train_speed_of(&m, &b, &s, &g);
    assert_true(v.hardware_flops_per_token == 855166464.0 + 207860736.0);
    assert_float_equal(v.tokens_per_s, tps, tps * 1e-12); /* MFU counts the model's FLOPs */
    s.recompute = VL_RECOMPUTE_SELECTIVE;
    assert_null(vl_estimate(&m, &s, &b));
    v = vl_train_speed_of(&m, &b, &s, &g);
    assert_true(v.hardware_flops_per_token == 855166464.0 + 2.0 * 12 * 1024 * 12 * 128);
}

/* Mixtral-like routing: a token multiplies the experts it is routed to, not all of them;
 * fp32 has no peak in the presets, so no time. */
static void test_moe_and_unknown(void **state)
{
    (void)state;
    vl_model m = mixtral_8x7b();
    vl_settings s;
    vl_settings_default(&s);
    vl_gpu g = {.bf16_flops = 1e15};
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    vl_train_speed v = vl_train_speed_of(&m, &b, &s, &g);
    /* Mixtral 8x7B's 12,879,925,248 active less the 32000 x 4096 token table */
    assert_int_equal(b.params.active, 12879925248ULL);
    assert_int_equal(v.matmul_params, 12879925248ULL - 131072000ULL);
    s.precision = VL_FP32;
    assert_null(vl_estimate(&m, &s, &b));
    v = vl_train_speed_of(&m, &b, &s, &g);
    assert_false(v.known);
    assert_true(v.step_seconds == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt2_flops),
        cmocka_unit_test(test_moe_and_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
