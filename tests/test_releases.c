/* test_releases.c: the releases of a day (--as-of), and the day a release given names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/framework.h"
#include "core/releases.h"
#include "core/runtime.h"
#include "core/settings.h"
#include "core/timeline.h"
#include "helpers.h"

static const vl_setting dated[] = {VL_SET_TORCH, VL_SET_TRANSFORMERS, VL_SET_BITSANDBYTES,
                                   VL_SET_PEFT,  VL_SET_MEGATRON,     VL_SET_VLLM,
                                   VL_SET_SGLANG};
#define N_DATED (sizeof dated / sizeof dated[0])

/* Each list's lines came out in the order they are listed, current last, each on a day of
 * the calendar; no other setting is dated.  vLLM's current is its newest line's behaviour
 * (0.35 is not out) and carries that line's day, on which current is the answer. */
static void test_days_in_order(void **state)
{
    (void)state;
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        bool want = false;
        for (size_t i = 0; i < N_DATED; i++)
            want |= dated[i] == (vl_setting)k;
        assert_int_equal(vl_release_dated((vl_setting)k), want);
    }
    for (size_t i = 0; i < N_DATED; i++) {
        const vl_setting_desc *d = &vl_setting_table[dated[i]];
        for (int c = 1; c < d->n_names; c++) {
            uint32_t day = vl_release_day(dated[i], c), back;
            const char *why;
            char text[16];
            assert_true(vl_day_parse(vl_day_format(day, text, sizeof text), &back, &why));
            assert_int_equal(back, day);
            if (c > 1)
                assert_true(day > vl_release_day(dated[i], c - 1));
            const uint32_t current = vl_release_day(dated[i], 0);
            assert_true(day < current || (dated[i] == VL_SET_VLLM && c == d->n_names - 1 &&
                                          day == current));
            /* a line is the one out on its own day and the day before it is its
             * predecessor's (or, for the first, still the first) */
            assert_int_equal(vl_release_on(dated[i], day), day < current ? c : 0);
            assert_int_equal(vl_release_on(dated[i], day - 1), c > 1 ? c - 1 : 1);
        }
        assert_int_equal(vl_release_on(dated[i], vl_release_day(dated[i], 0)), 0);
        assert_int_equal(vl_release_on(dated[i], VL_DAY_CURRENT), 0);
    }
}

/* Days by hand from the release notes: transformers 4.15 came on 2021-12-22 and 4.16 on
 * 2022-01-27, PyTorch 1.10 on 2021-10-21 and 1.11 on 2022-03-10, bitsandbytes 0.41 on
 * 2023-07-22, 0.43.2 (current) on 2024-07-23, PEFT 0.12 (current) on 2024-07-24. */
static void test_lines_of_a_day(void **state)
{
    (void)state;
    static const struct {
        vl_setting k;
        uint32_t day;
        int want;
    } cases[] = {
        {VL_SET_TRANSFORMERS, 20220111, VL_TF_4_15}, {VL_SET_TRANSFORMERS, 20220127, VL_TF_4_16},
        {VL_SET_TRANSFORMERS, 20200101, VL_TF_4_0},  {VL_SET_TRANSFORMERS, 20230718, VL_TF_4_31},
        {VL_SET_TRANSFORMERS, 20991231, VL_TF_CURRENT},
        {VL_SET_TORCH, 20220111, VL_TORCH_1_10},     {VL_SET_TORCH, 20220310, VL_TORCH_1_11},
        {VL_SET_TORCH, 20200101, VL_TORCH_1_8},      {VL_SET_TORCH, 20251231, VL_TORCH_2_9},
        {VL_SET_TORCH, 20260121, VL_TORCH_CURRENT},
        {VL_SET_BITSANDBYTES, 20220111, VL_BNB_0_41}, {VL_SET_BITSANDBYTES, 20240722, VL_BNB_0_43_1},
        {VL_SET_BITSANDBYTES, 20240723, VL_BNB_CURRENT},
        {VL_SET_PEFT, 20240723, VL_PEFT_0_11},       {VL_SET_PEFT, 20240724, VL_PEFT_CURRENT},
        /* PyPI's upload days: vLLM 0.6.4 on 2024-11-15, 0.6.5 on 2024-12-18, 0.8.0 on
         * 2025-03-18, 0.34.0 (current's behaviour) on 2026-11-16; SGLang 0.4.7.post1 (the
         * 0.4.8 line) on 2025-06-16, 0.5.20 (current) on 2026-09-18 */
        {VL_SET_VLLM, 20241217, VL_VLLM_0_6_4},      {VL_SET_VLLM, 20241218, VL_VLLM_0_6_5},
        {VL_SET_VLLM, 20250318, VL_VLLM_0_8},        {VL_SET_VLLM, 20261115, VL_VLLM_0_33},
        {VL_SET_VLLM, 20261116, VL_VLLM_CURRENT},    {VL_SET_SGLANG, 20250615, VL_SGL_0_4_7},
        {VL_SET_SGLANG, 20250616, VL_SGL_0_4_8},     {VL_SET_SGLANG, 20260918, VL_SGL_CURRENT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_int_equal(vl_release_on(cases[i].k, cases[i].day), cases[i].want);
}

static void test_day_parse(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint32_t want; /* 1: refused */
    } cases[] = {
        {"2022-01-11", 20220111}, {"2022-01", 20220101}, {"2022", 20220101},
        {"current", VL_DAY_CURRENT}, {"2024-02-29", 20240229}, {"2000-02-29", 20000229},
        {"2023-02-29", 1}, {"2100-02-29", 1}, {"2022-13", 1}, {"2022-00-10", 1},
        {"2022-04-31", 1}, {"1999-12-31", 1}, {"2022-1-11", 1}, {"22-01-11", 1},
        {"2022-01-11-", 1}, {"2022/01/11", 1}, {"20220111", 1}, {"", 1}, {"-2022", 1},
        {"2022-01-1x", 1}, {"now", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t day = 7;
        const char *why = NULL;
        bool ok = vl_day_parse(cases[i].text, &day, &why);
        assert_int_equal(ok, cases[i].want != 1);
        if (ok)
            assert_int_equal(day, cases[i].want);
        else
            assert_non_null(why);
    }
    char buf[16];
    assert_string_equal(vl_day_format(20220111, buf, sizeof buf), "2022-01-11");
    assert_string_equal(vl_day_format(VL_DAY_CURRENT, buf, sizeof buf), "current");
}

/* The slider's days: every line's day once, in order, then current. */
static void test_days_step(void **state)
{
    (void)state;
    uint32_t newest = 0;
    int lines = 0;
    for (size_t i = 0; i < N_DATED; i++)
        for (int c = 0; c < vl_setting_table[dated[i]].n_names; c++, lines++)
            newest = vl_release_day(dated[i], c) > newest ? vl_release_day(dated[i], c) : newest;
    assert_int_equal(vl_release_next_day(VL_DAY_CURRENT, -1, NULL), newest);
    assert_int_equal(vl_release_next_day(newest, 1, NULL), VL_DAY_CURRENT);
    assert_int_equal(vl_release_next_day(VL_DAY_CURRENT, 1, NULL), VL_DAY_CURRENT);
    uint32_t first = vl_release_day(VL_SET_TRANSFORMERS, VL_TF_4_0); /* the oldest of all */
    assert_int_equal(vl_release_next_day(first, -1, NULL), first);
    int n = 0, total;
    for (uint32_t d = first; d != VL_DAY_CURRENT; d = vl_release_next_day(d, 1, NULL), n++) {
        assert_int_equal(vl_release_days_before(d, &total, NULL), n);
        bool a_line = false;
        for (size_t i = 0; i < N_DATED; i++)
            for (int c = 0; c < vl_setting_table[dated[i]].n_names; c++)
                a_line |= vl_release_day(dated[i], c) == d;
        assert_true(a_line);
    }
    assert_int_equal(total, n);
    assert_int_equal(vl_release_days_before(VL_DAY_CURRENT, &total, NULL), total);
    assert_true(n <= lines); /* days two lines share count once */
}

static vl_settings_patch patch_of(const char *const *flags, size_t n)
{
    vl_settings_patch p = {0};
    vl_settings_default(&p.values);
    for (size_t i = 0; i < n; i += 2) {
        int k = vl_setting_by_flag(flags[i], NULL);
        char why[256];
        assert_true(k >= 0);
        assert_true(vl_setting_parse((vl_setting)k, flags[i + 1], &p.values, why, sizeof why));
        vl_patch_mark(&p, (vl_setting)k);
    }
    return p;
}

/* Whether a line of list k came out on day. */
static bool a_line_of(vl_setting k, uint32_t day)
{
    for (int c = 0; c < vl_setting_table[k].n_names; c++)
        if (vl_release_day(k, c) == day)
            return true;
    return false;
}

/* The slider steps through the days of the lists that change something for the settings
 * alone: training under transformers without adapters or 4-bit layers, PyTorch's and
 * transformers' days; under Megatron, PyTorch's and Megatron-Core's; inference, where the
 * PyTorch release is not modelled, under transformers its days alone, under vLLM (whose
 * models are its own) vLLM's alone, never SGLang's.  Each such line's day is a step, and
 * no other day. */
static void test_days_that_matter(void **state)
{
    (void)state;
    static const struct {
        const char *const flags[4];
        bool counts[N_DATED]; /* torch, transformers, bitsandbytes, peft, megatron, vllm,
                               * sglang */
    } cases[] = {
        {{"mode", "train", "framework", "hf"}, {true, true, false, false, false, false, false}},
        {{"mode", "train", "framework", "megatron"},
         {true, false, false, false, true, false, false}},
        {{"mode", "infer", "framework", "hf"}, {false, true, false, false, false, false, false}},
        {{"mode", "infer", "framework", "vllm"},
         {false, false, false, false, false, true, false}},
        {{"mode", "infer", "framework", "sglang"},
         {false, false, false, false, false, false, true}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_settings s;
        vl_settings_default(&s);
        vl_settings_patch p = patch_of(cases[i].flags, 4);
        vl_settings_apply(&s, &p);
        int want = 0, n = 0, total;
        for (uint32_t d = vl_release_next_day(1, 1, NULL); d != VL_DAY_CURRENT;
             d = vl_release_next_day(d, 1, NULL)) {
            bool counts = false;
            for (size_t k = 0; k < N_DATED; k++)
                counts |= cases[i].counts[k] && a_line_of(dated[k], d);
            want += counts;
        }
        for (uint32_t d = vl_release_next_day(1, 1, &s); d != VL_DAY_CURRENT;
             d = vl_release_next_day(d, 1, &s), n++) {
            bool counts = false;
            for (size_t k = 0; k < N_DATED; k++)
                counts |= cases[i].counts[k] && a_line_of(dated[k], d);
            assert_true(counts);
            assert_int_equal(vl_release_days_before(d, &total, &s), n);
        }
        assert_int_equal(n, want);
        assert_int_equal(total, want);
    }
}

/* A day sets the releases not given; a release given names a day (its own, the newest of
 * several), which --as-of overrides; current names none; the other mode's releases keep
 * their defaults. */
static void test_apply_day(void **state)
{
    (void)state;
    static const struct {
        const char *flags[6];
        vl_torch torch;
        vl_transformers tf;
        vl_bitsandbytes bnb;
    } cases[] = {
        {{"as-of", "2022-01-11"}, VL_TORCH_1_10, VL_TF_4_15, VL_BNB_0_41},
        {{"transformers", "4.15.2"}, VL_TORCH_1_10, VL_TF_4_15, VL_BNB_0_41},
        {{"as-of", "2022-01-11", "torch", "2.1"}, VL_TORCH_2_1, VL_TF_4_15, VL_BNB_0_41},
        {{"transformers", "4.31", "bitsandbytes", "0.43.1"}, VL_TORCH_2_2, VL_TF_4_31,
         VL_BNB_0_43_1},
        {{"bitsandbytes", "0.43.1", "as-of", "current"}, VL_TORCH_CURRENT, VL_TF_CURRENT,
         VL_BNB_0_43_1},
        {{"transformers", "current"}, VL_TORCH_CURRENT, VL_TF_CURRENT, VL_BNB_CURRENT},
        {{"torch", "1.13"}, VL_TORCH_1_13, VL_TF_4_23, VL_BNB_0_41},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = 0;
        while (n < 6 && cases[i].flags[n])
            n++;
        vl_settings_patch p = patch_of(cases[i].flags, n);
        vl_settings s;
        vl_settings_default(&s);
        vl_settings_apply(&s, &p);
        assert_int_equal(s.torch, cases[i].torch);
        assert_int_equal(s.transformers, cases[i].tf);
        assert_int_equal(s.bitsandbytes, cases[i].bnb);
        char why[256];
        assert_true(vl_settings_valid(&s, NULL, why, sizeof why));
    }
    /* serving: transformers dated, PyTorch and bitsandbytes (training's) left alone */
    static const char *const infer[] = {"mode", "infer", "as-of", "2022-01-11"};
    vl_settings_patch p = patch_of(infer, 4);
    vl_settings s;
    vl_settings_default(&s);
    vl_settings_apply(&s, &p);
    assert_int_equal(s.transformers, VL_TF_4_15);
    assert_int_equal(s.torch, VL_TORCH_CURRENT);
    assert_int_equal(s.bitsandbytes, VL_BNB_CURRENT);
    char why[256];
    assert_true(vl_settings_valid(&s, NULL, why, sizeof why));
    /* a serving engine's release is dated within the lines of its engine: vLLM's V1 from 0.8
     * (a day before it takes 0.8), its V0 through 0.10; SGLang's own */
    static const struct {
        const char *framework, *day;
        vl_setting k;
        int want;
    } engines[] = {
        {"vllm", "2024-08-01", VL_SET_VLLM, VL_VLLM_0_8},
        {"vllm-v0", "2024-08-01", VL_SET_VLLM, VL_VLLM_0_5_3},
        {"vllm-v0", "2026-05-01", VL_SET_VLLM, VL_VLLM_0_10},
        {"vllm", "2026-05-01", VL_SET_VLLM, VL_VLLM_0_20},
        {"sglang", "2025-06-20", VL_SET_SGLANG, VL_SGL_0_4_8},
    };
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++) {
        const char *flags[] = {"mode", "infer", "framework", engines[i].framework, "as-of",
                               engines[i].day};
        vl_settings_patch e = patch_of(flags, 6);
        vl_settings_default(&s);
        vl_settings_apply(&s, &e);
        assert_int_equal(vl_setting_get(engines[i].k, &s), engines[i].want);
        assert_true(vl_settings_valid(&s, NULL, why, sizeof why));
    }
    /* a scenario's release, merged under the command line's, is not dated by it, and the
     * day is the newest given's: PyTorch 2.5's, 2024-10-17, after bitsandbytes 0.43.2 */
    static const char *const scenario[] = {"torch", "2.5"}, *const flags[] = {"transformers",
                                                                            "4.31"};
    vl_settings_patch sc = patch_of(scenario, 2), fl = patch_of(flags, 2);
    vl_patch_merge(&sc, &fl);
    vl_settings_default(&s);
    vl_settings_apply(&s, &sc);
    assert_int_equal(s.torch, VL_TORCH_2_5);
    assert_int_equal(s.transformers, VL_TF_4_31);
    assert_int_equal(s.bitsandbytes, VL_BNB_CURRENT);
    /* transformers before 4.31 allocates as 4.31, whatever day it names: a GPT-2 whose
     * rules begin at 4.31 (its logits cast in the loss, not the model) */
    vl_model m = model_of((vl_arch){.hidden = 64, .layers = 2, .heads = 4, .vocab = 1000,
                                    .max_positions = 128, .position = VL_POS_LEARNED,
                                    .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                                    .attention_bias = true, .mlp_bias = true,
                                    .tie_embeddings = true, .model_type = VL_MT_GPT2});
    static const char *const older[] = {"transformers", "4.15", "torch", "2.0"},
                             *const first[] = {"transformers", "4.31", "torch", "2.0"};
    static const vl_runtime hopper = {VL_ARCH_HOPPER, 1204, false};
    vl_settings a, b;
    vl_timeline ta, tb;
    vl_settings_default(&a);
    vl_settings_default(&b);
    p = patch_of(older, 4);
    vl_settings_apply(&a, &p);
    p = patch_of(first, 4);
    vl_settings_apply(&b, &p);
    assert_int_not_equal(a.transformers, b.transformers);
    assert_true(vl_timeline_for(&m, &a, &hopper, &ta, why, sizeof why));
    assert_true(vl_timeline_for(&m, &b, &hopper, &tb, why, sizeof why));
    assert_int_equal(ta.peak.allocated, tb.peak.allocated);
    assert_int_equal(ta.n_events, tb.n_events);
    vl_timeline_free(&ta);
    vl_timeline_free(&tb);
    /* and the rules of every class alike, in training and serving */
    for (int t = 0; t < VL_N_MODEL_TYPES; t++)
        for (int training = 0; training < 2; training++) {
            vl_framework fa = *a.framework, fb = *a.framework;
            m.arch.model_type = (vl_model_type)t;
            vl_framework_on_transformers(&fa, VL_TF_4_15);
            vl_framework_on_transformers(&fb, VL_TF_4_31);
            vl_framework_on_class(&fa, &m.arch, VL_TF_4_15, training);
            vl_framework_on_class(&fb, &m.arch, VL_TF_4_31, training);
            assert_memory_equal(&fa, &fb, sizeof fa);
            assert_int_equal(vl_kv_outputs(&fa, &m.arch, VL_TF_4_15),
                             vl_kv_outputs(&fb, &m.arch, VL_TF_4_31));
            bool ovf = false;
            assert_int_equal(vl_mask_buffers_bytes(&fa, &m.arch, VL_TF_4_15, 2, &ovf),
                             vl_mask_buffers_bytes(&fb, &m.arch, VL_TF_4_31, 2, &ovf));
        }
}

/* A release chosen alone (the explorer's slider) dates the releases still at current, not
 * those chosen before it; current dates nothing. */
static void test_release_alone(void **state)
{
    (void)state;
    vl_settings s;
    vl_settings_default(&s);
    s.transformers = VL_TF_4_31; /* 2023-07-18: PyTorch 2.0, before bitsandbytes 0.41 */
    vl_setting_set set = vl_settings_on_release(&s, VL_SET_TRANSFORMERS);
    for (int k = 0; k < VL_N_SETTINGS; k++)
        assert_int_equal(vl_set_has(set, k), k == VL_SET_TORCH || k == VL_SET_BITSANDBYTES ||
                                                 k == VL_SET_PEFT || k == VL_SET_MEGATRON);
    assert_int_equal(s.torch, VL_TORCH_2_0);
    assert_int_equal(s.bitsandbytes, VL_BNB_0_41);
    assert_int_equal(s.peft, VL_PEFT_0_11);
    assert_int_equal(s.megatron, VL_MEG_0_2); /* megatron-core 0.2.0, 2023-06-15 */
    vl_settings_default(&s);
    s.torch = VL_TORCH_2_5;
    s.transformers = VL_TF_4_36; /* 2023-12-11 */
    set = vl_settings_on_release(&s, VL_SET_TRANSFORMERS);
    for (int k = 0; k < VL_N_SETTINGS; k++)
        assert_int_equal(vl_set_has(set, k), k == VL_SET_BITSANDBYTES || k == VL_SET_PEFT ||
                                                 k == VL_SET_MEGATRON);
    assert_int_equal(s.torch, VL_TORCH_2_5);
    assert_int_equal(s.bitsandbytes, VL_BNB_0_41);
    vl_settings_default(&s);
    static const vl_setting_set none;
    set = vl_settings_on_release(&s, VL_SET_TORCH);
    assert_memory_equal(&set, &none, sizeof set);
    set = vl_settings_on_release(&s, VL_SET_ATTENTION);
    assert_memory_equal(&set, &none, sizeof set);
    assert_int_equal(s.transformers, VL_TF_CURRENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_days_in_order),  cmocka_unit_test(test_lines_of_a_day),
        cmocka_unit_test(test_day_parse),      cmocka_unit_test(test_days_step),
        cmocka_unit_test(test_days_that_matter),
        cmocka_unit_test(test_apply_day),      cmocka_unit_test(test_release_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
