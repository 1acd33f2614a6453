/* test_lora.c: LoRA trainable counts against hand derivations (the figures PEFT prints for
 * these models), and NF4 bytes against Dettmers et al. 2023. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/lora.h"

static vl_arch arch(vl_arch a)
{
    vl_arch_defaults(&a);
    return a;
}

/* Llama 2 7B, r = 8 on q and v: 2 x 8 x (4096 + 4096) = 131,072 a layer, x 32 layers =
 * 4,194,304 (PEFT's "trainable params: 4,194,304"). */
static void test_llama_qv(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008,
                               .vocab = 32000});
    unsigned mask;
    uint64_t n;
    assert_null(vl_lora_parse_targets("q,v", &mask));
    assert_null(vl_lora_params(&a, mask, 8, &n));
    assert_int_equal(n, 4194304ULL);
}

/* Mistral 7B (GQA: k, v are 4096 -> 1024), r = 16, all linear layers, a layer:
 * q 16(4096+4096) + k, v 2 x 16(4096+1024) + o 16(4096+4096) + gate, up, down
 * 3 x 16(4096+14336) = 262,144 + 163,840 + 884,736 = 1,310,720; x 32 = 41,943,040. */
static void test_mistral_all_linear(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                               .ffn = 14336, .vocab = 32000});
    unsigned mask;
    uint64_t n;
    assert_null(vl_lora_parse_targets("all-linear", &mask));
    assert_null(vl_lora_params(&a, mask, 16, &n));
    assert_int_equal(n, 41943040ULL);
    assert_null(vl_lora_parse_targets("q,k,v,o,gate,up,down", &mask));
    assert_int_equal(mask, VL_LORA_ALL_LINEAR);
}

/* GPT-2 (standard MLP, no gate), r = 4 on all linear layers: a layer has q, k, v, o
 * 4 x 4(768+768) and fc1, fc2 2 x 4(768+3072): 24,576 + 30,720 = 55,296; x 12 = 663,552. */
static void test_gpt2_no_gate(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .vocab = 50257,
                               .mlp = VL_MLP_STANDARD});
    uint64_t n;
    assert_null(vl_lora_params(&a, VL_LORA_ALL_LINEAR, 4, &n));
    assert_int_equal(n, 663552ULL);
    assert_non_null(vl_lora_params(&a, 1u << VL_LORA_GATE, 4, &n));
}

/* Mixtral: adapters on every expert's MLP (8 experts of 14336) plus attention. */
static void test_moe(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                               .ffn = 14336, .vocab = 32000, .experts = 8,
                               .experts_per_token = 2});
    a.moe_ffn = 14336; /* as the preset loader fills it */
    uint64_t n;
    unsigned mask;
    assert_null(vl_lora_parse_targets("down", &mask));
    assert_null(vl_lora_params(&a, mask, 8, &n));
    assert_int_equal(n, 32ULL * 8 * 8 * (14336 + 4096));
}

static void test_parse_errors(void **state)
{
    (void)state;
    unsigned mask;
    const char *why = vl_lora_parse_targets("q,vv", &mask);
    assert_non_null(why);
    assert_non_null(strstr(why, "unknown target 'vv'"));
    assert_non_null(strstr(why, "did you mean 'v'?"));
    assert_non_null(vl_lora_parse_targets("", &mask));
    assert_non_null(vl_lora_parse_targets("q,,v", &mask));
    char buf[64];
    assert_string_equal(vl_lora_format_targets((1u << VL_LORA_Q) | (1u << VL_LORA_V), buf,
                                               sizeof buf),
                        "q,v");
    assert_string_equal(vl_lora_format_targets(VL_LORA_ALL_LINEAR, buf, sizeof buf), "all-linear");
}

/* NF4 with double quantization: 4 + 8/64 + 32/(64 x 256) = 4.127 bits a parameter
 * (Dettmers et al. 2023, section 3): for 64 x 256 x 1000 weights exactly
 * 8,192,000 + 256,000 + 4,000 bytes. */
static void test_nf4(void **state)
{
    (void)state;
    assert_int_equal(vl_nf4_bytes(64ULL * 256 * 1000), 8192000ULL + 256000 + 4000);
    assert_int_equal(vl_nf4_bytes(1), 1 + 1 + 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_qv),     cmocka_unit_test(test_mistral_all_linear),
        cmocka_unit_test(test_gpt2_no_gate), cmocka_unit_test(test_moe),
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_nf4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
