/* test_preset.c: the YAML loader: shipped presets, and errors with file:line:column. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/builtin.h"
#include "core/catalog.h"
#include "core/memory.h"
#include "core/scenario.h"
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "helpers.h"


/* Every shipped model, with its published parameter count, written here independently of
 * the YAML files (sources: Hugging Face safetensors totals, keras-hub presets, the papers).
 * A rounded figure (GPT-3, Brown et al. 2020 Table 2.1; OPT, Zhang et al. 2022) comes with
 * the exact count of the stated shape, derived by hand: a GPT-2-style layer has
 * 12·h² + 13·h parameters when the attention is h wide, and the model adds (V + 2048)·h
 * embeddings and a 2·h final norm; e.g. 175B: 96·(12·12288² + 13·12288) +
 * (50257 + 2048)·12288 + 2·12288 = 174,604,259,328.  OPT's positions start at row 2:
 * (V + 2050)·h, e.g. OPT-1.3B 24·(12·2048² + 13·2048) + (50272 + 2050)·2048 + 2·2048 =
 * 1,315,758,080.  Active counts of MoE models are derived in test_model.c. */
static const struct {
    const char *name;
    uint64_t params, rounded;
    bool rounded_only; /* the preset gives params_rounded alone; params is the exact count */
} published[] = {
    {"gpt2", 124439808ULL, 0},
    {"gpt2-medium", 354823168ULL, 0},
    {"gpt2-large", 774030080ULL, 0},
    {"gpt2-xl", 1557611200ULL, 0},
    {"gpt3-125m", 125226240ULL, 125000000ULL},
    {"gpt3-350m", 355871744ULL, 350000000ULL},
    {"gpt3-760m", 760300032ULL, 760000000ULL},
    {"gpt3-1.3b", 1315723264ULL, 1300000000ULL},
    {"gpt3-2.7b", 2651553280ULL, 2700000000ULL},
    {"gpt3-6.7b", 6658404352ULL, 6700000000ULL},
    {"gpt3-13b", 12936488380ULL, 13000000000ULL},
    {"gpt3-175b", 174604259328ULL, 175000000000ULL},
    {"bert-base-uncased", 109482240ULL, 0},
    {"bert-large-uncased", 335141888ULL, 0},
    {"distilbert-base-uncased", 66362880ULL, 0},
    /* keras-hub's 124,052,736 and 354,307,072, plus 2 position rows, 1 token type, pooler */
    {"roberta-base", 124052736ULL + 3 * 768 + 768 * 768 + 768, 0},
    {"roberta-large", 354307072ULL + 3 * 1024 + 1024 * 1024 + 1024, 0},
    {"llama-2-7b", 6738415616ULL, 0},
    {"llama-2-13b", 13015864320ULL, 0},
    {"llama-2-70b", 68976648192ULL, 0},
    {"codellama-7b", 6738546688ULL, 0},
    {"codellama-13b", 13016028160ULL, 0},
    {"codellama-34b", 33743970304ULL, 0},
    {"tinyllama-1.1b", 1100048384ULL, 0},
    {"llama-3-8b", 8030261248ULL, 0},
    {"llama-3-70b", 70553706496ULL, 0},
    {"llama-3.1-8b", 8030261248ULL, 0},
    {"llama-3.1-70b", 70553706496ULL, 0},
    {"llama-3.1-405b", 405853388800ULL, 0},
    {"mistral-7b", 7241732096ULL, 0},
    {"mixtral-8x7b", 46702792704ULL, 0},
    {"qwen2.5-0.5b", 494032768ULL, 0},
    {"qwen2.5-1.5b", 1543714304ULL, 0},
    {"qwen2.5-3b", 3085938688ULL, 0},
    {"qwen2.5-7b", 7615616512ULL, 0},
    {"qwen2.5-14b", 14770033664ULL, 0},
    {"qwen2.5-32b", 32763876352ULL, 0},
    {"qwen2.5-72b", 72706203648ULL, 0},
    {"gemma-2b", 2506172416ULL, 0},
    {"gemma-7b", 8537680896ULL, 0},
    {"phi-3-mini", 3821079552ULL, 0},
    {"phi-2", 2779683840ULL, 0},
    {"gpt-j-6b", 6050882784ULL, 0},
    {"falcon-7b", 6921720704ULL, 0},
    {"falcon-40b", 41835970560ULL, 0},
    {"opt-1.3b", 1315758080ULL, 1300000000ULL},
    {"opt-6.7b", 6658473984ULL, 6700000000ULL},
    {"opt-13b", 12853473280ULL, 13000000000ULL},
    {"opt-30b", 29974540288ULL, 30000000000ULL},
    {"bloom-176b", 176247271424ULL, 0},
    {"deepseek-v3", 671026419200ULL, 0},
    {"llama-3.2-1b", 1235814400ULL, 1230000000ULL, true},
    {"llama-3.2-3b", 3212749824ULL, 3210000000ULL, true},
    {"llama-3.3-70b", 70553706496ULL, 0},
    {"qwen3-0.6b", 596049920ULL, 0},
    {"qwen3-1.7b", 1720574976ULL, 0},
    {"qwen3-4b", 4022468096ULL, 0},
    {"qwen3-8b", 8190735360ULL, 0},
    {"qwen3-14b", 14768307200ULL, 0},
    {"qwen3-32b", 32762123264ULL, 0},
    {"qwen3-30b-a3b", 30532122624ULL, 0},
    {"gemma-2-2b", 2614341888ULL, 0},
    {"gemma-2-9b", 9241705984ULL, 0},
    {"gemma-2-27b", 27227128320ULL, 0},
    {"gemma-3-270m", 268098176ULL, 0},
    {"gemma-3-1b", 999885952ULL, 0},
    /* keras-hub's 3,880,099,328 etc. plus config.json's 64 extra embedding rows x h */
    {"gemma-3-4b", 3880099328ULL + 64 * 2560, 3880000000ULL, true},
    {"gemma-3-12b", 11765788416ULL + 64 * 3840, 11770000000ULL, true},
    {"gemma-3-27b", 27009002240ULL + 64 * 5376, 27010000000ULL, true},
    {"phi-3.5-mini", 3821079552ULL, 0},
    {"phi-4-mini", 3836021760ULL, 0},
    {"phi-4", 14659507200ULL, 0},
    {"mistral-nemo-12b", 12247782400ULL, 0},
    {"mistral-small-24b", 23572403200ULL, 0},
    {"deepseek-v2-lite", 15706484224ULL, 0},
    {"olmo-2-7b", 7298617344ULL, 0},
    {"olmo-2-13b", 13716198400ULL, 0},
    {"pythia-70m", 70426624ULL, 0},
    {"pythia-160m", 162322944ULL, 0},
    {"pythia-410m", 405334016ULL, 0},
    {"pythia-1b", 1011781632ULL, 0},
    {"pythia-1.4b", 1414647808ULL, 0},
    {"pythia-2.8b", 2775208960ULL, 0},
    {"pythia-6.9b", 6857302016ULL, 0},
    {"pythia-12b", 11846072320ULL, 0},
    {"gpt-neox-20b", 20554567680ULL, 0},
};
#define N_PUBLISHED (sizeof published / sizeof published[0])

static void load_builtin(vl_catalog *c)
{
    char err[VL_ERR_LEN] = "";
    vl_catalog_init(c);
    if (!vl_catalog_add_builtin(c, err))
        fail_msg("%s", err);
}

static void test_builtin_models(void **state)
{
    (void)state;
    vl_catalog c;
    load_builtin(&c);
    assert_int_equal(c.n_models, N_PUBLISHED); /* every shipped model is in the table */
    assert_true(c.n_models >= 60);
    for (size_t i = 0; i < N_PUBLISHED; i++) {
        const vl_model *m = vl_catalog_model(&c, published[i].name);
        if (!m)
            fail_msg("no built-in model %s", published[i].name);
        vl_params p;
        assert_true(vl_count_params(&m->arch, &p));
        if (p.total != published[i].params)
            fail_msg("%s: computed %llu, published %llu", m->name, (unsigned long long)p.total,
                     (unsigned long long)published[i].params);
        assert_int_equal(m->published_params, published[i].rounded_only ? 0 : published[i].params);
        assert_int_equal(m->rounded_params, published[i].rounded);
        assert_true(m->source[0] != '\0');
    }
    char hint[96];
    assert_string_equal(vl_catalog_hint(&c, VL_KIND_MODEL, "lama-2-7b", hint, sizeof hint),
                        "; did you mean 'llama-2-7b'?");
    vl_catalog_free(&c);
}

/* The GPU catalog: the total memory nvidia-smi reports, in MiB (its Memory-Usage column, as
 * posted in the threads each preset cites; the L40 the L40S's, its board), or the datasheet's
 * GB read as GiB where no such output was found (the AMD parts); and a dense 16-bit rate for
 * each. */
static void test_builtin_gpus(void **state)
{
    (void)state;
    /* generations by compute capability (NVIDIA, "CUDA GPUs"); AMD's are not modelled */
    enum { V = VL_ARCH_VOLTA, T = VL_ARCH_TURING, A = VL_ARCH_AMPERE, D = VL_ARCH_ADA,
           H = VL_ARCH_HOPPER, B = VL_ARCH_BLACKWELL, U = VL_ARCH_UNKNOWN };
    /* the link of a server's GPUs: NVLink for the SXM parts (NVSwitch boards, V100's mesh;
     * the H20's HGX board), PCIe for cards, bridged pairs too (datasheets); AMD's Infinity
     * Fabric is not modelled */
    enum { N = VL_LINK_NVLINK, P = VL_LINK_PCIE };
    static const struct {
        const char *name;
        uint64_t mib;
        double fp16;
        int generation, link;
    } gpus[] = {
        {"v100-16gb", 16160, 125e12, V, N},      {"v100-32gb", 32480, 125e12, V, N},
        {"t4", 15360, 65e12, T, P},              {"a10", 23028, 125e12, A, P},
        {"a10g", 23028, 70e12, A, P},            {"a40", 46068, 149.7e12, A, P},
        {"rtx-a6000", 49140, 154.8e12, A, P},    {"l4", 23034, 121e12, D, P},
        {"l40", 46068, 181.05e12, D, P},         {"l40s", 46068, 362.05e12, D, P},
        {"a100-40gb", 40960, 312e12, A, N},      {"a100-80gb", 81920, 312e12, A, N},
        {"a800-80gb", 81920, 312e12, A, N},      {"h100-pcie", 81559, 756.5e12, H, P},
        {"h100-80gb", 81559, 989.4e12, H, N},    {"h800", 81559, 989.4e12, H, N},
        {"h20", 97871, 148e12, H, N},            {"h200", 143771, 989.4e12, H, N},
        {"b200", 183359, 2.25e15, B, N},         {"rtx-3090", 24576, 71e12, A, P},
        {"rtx-4090", 24564, 165.2e12, D, P},     {"rtx-5090", 32607, 209.5e12, B, P},
        {"rtx-3060", 12288, 25.5e12, A, P},      {"rtx-4060-ti", 16380, 44.1e12, D, P},
        {"rtx-6000-ada", 49140, 364.2e12, D, P}, {"mi250x", 128 * 1024, 383e12, U, P},
        {"mi300x", 192 * 1024, 1307.4e12, U, P},
    };
    vl_catalog c;
    load_builtin(&c);
    assert_int_equal(c.n_gpus, sizeof gpus / sizeof gpus[0]);
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        const vl_gpu *g = vl_catalog_gpu(&c, gpus[i].name);
        if (!g)
            fail_msg("no built-in GPU %s", gpus[i].name);
        assert_int_equal(g->memory, gpus[i].mib << 20);
        assert_true(g->fp16_flops == gpus[i].fp16);
        assert_int_equal(g->generation, gpus[i].generation);
        assert_int_equal(g->interconnect, gpus[i].link);
        assert_true(g->bandwidth > 0 && g->source[0] != '\0');
        /* the compute capability within its generation's (NVIDIA, "CUDA GPUs"), none for
         * AMD's; NVLink's links on the NVLink boards only */
        const double cc = g->compute_capability;
        switch (gpus[i].generation) {
        case V: assert_true(cc == 7.0); break;
        case T: assert_true(cc == 7.5); break;
        case A: assert_true(cc == 8.0 || cc == 8.6); break;
        case D: assert_true(cc == 8.9); break;
        case H: assert_true(cc == 9.0); break;
        case B: assert_true(cc == 10.0 || cc == 12.0); break;
        default: assert_true(cc == 0); break;
        }
        assert_true((g->nvlinks > 0) == (gpus[i].link == N));
    }
    /* what a run can use: the total CUDA reports where the preset knows it (an H100 80GB:
     * 79.19 GiB as PyTorch and vLLM print it, 469 MiB under nvidia-smi's), nvidia-smi's
     * total otherwise */
    const vl_gpu *h100 = vl_catalog_gpu(&c, "h100-80gb");
    assert_int_equal(vl_gpu_capacity(h100), 81090ULL << 20);
    assert_int_equal(llround(100.0 * (double)vl_gpu_capacity(h100) / 1073741824.0), 7919);
    assert_int_equal(vl_gpu_capacity(vl_catalog_gpu(&c, "l4")), 23570219008ULL);
    assert_int_equal(vl_gpu_capacity(vl_catalog_gpu(&c, "v100-16gb")), 16160ULL << 20);
    char hint[96];
    assert_null(vl_catalog_gpu(&c, "h100-80"));
    assert_string_equal(vl_catalog_hint(&c, VL_KIND_GPU, "h100-80", hint, sizeof hint),
                        "; did you mean 'h100-80gb'?");
    vl_catalog_free(&c);
}

/* Every scenario names a model and a GPU of the catalog and valid settings; the ZeRO
 * paper's one reproduces its Figure 1: 7.5B parameters, K = 12, 64 GPUs, ZeRO-3 model
 * states (2 + 2 + 12)·7.5e9 / 64 = 1.875e9 bytes per GPU. */
static void test_builtin_scenarios(void **state)
{
    (void)state;
    vl_catalog c;
    load_builtin(&c);
    assert_true(c.n_scenarios >= 6);
    for (size_t i = 0; i < c.n_scenarios; i++) {
        const vl_scenario *sc = &c.scenarios[i];
        assert_true(sc->params || vl_catalog_model(&c, sc->model));
        assert_non_null(vl_catalog_gpu(&c, sc->gpu));
        vl_settings s;
        vl_settings_default(&s);
        vl_settings_apply(&s, &sc->settings);
        assert_null(settings_why(&s));
    }
    const vl_scenario *z = vl_catalog_scenario(&c, "zero-paper-7.5b-64gpus");
    assert_non_null(z);
    assert_int_equal(z->params, 7500000000ULL);
    vl_model m;
    vl_settings s;
    vl_breakdown b;
    vl_model_from_params(&m, z->params);
    vl_settings_default(&s);
    vl_settings_apply(&s, &z->settings);
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS] + b.bytes[VL_C_GRADIENTS] + b.bytes[VL_C_OPTIMIZER],
                     1875000000ULL);
    vl_catalog_free(&c);
}

/* Every step of every shipped lesson loads (the catalog parsed it), names a model, a GPU and
 * a scenario the catalog has, and its settings (defaults, the scenario's, the step's) are
 * valid for its model: the explorer can show each step.  The shipped lessons give every
 * text in both languages, the Chinese differing from the English. */
static void test_builtin_lessons(void **state)
{
    (void)state;
    vl_catalog c;
    load_builtin(&c);
    assert_true(c.n_lessons >= 1);
    const vl_lesson *mp = vl_catalog_lesson(&c, "mixed-precision");
    assert_non_null(mp);
    assert_true(mp->n_steps >= 9); /* the article's story: formats .. a deployment */
    for (size_t i = 0; i < c.n_lessons; i++) {
        const vl_lesson *l = &c.lessons[i];
        assert_true(l->n_steps >= 1 && l->n_steps <= VL_LESSON_STEPS);
        for (size_t k = 0; k < l->n_steps; k++) {
            const vl_lesson_step *st = &l->steps[k];
            vl_settings s;
            vl_settings_default(&s);
            vl_model m;
            const char *model = st->state.model, *gpu = st->state.gpu;
            uint64_t params = st->state.params;
            if (st->scenario[0]) {
                const vl_scenario *sc = vl_catalog_scenario(&c, st->scenario);
                if (!sc)
                    fail_msg("%s step %zu: no scenario '%s'", l->name, k + 1, st->scenario);
                vl_settings_apply(&s, &sc->settings);
                model = sc->model;
                params = sc->params;
                if (!gpu[0])
                    gpu = sc->gpu;
            }
            vl_settings_apply(&s, &st->state.settings);
            if (params) {
                vl_model_from_params(&m, params);
            } else {
                const vl_model *found = vl_catalog_model(&c, model);
                if (!found)
                    fail_msg("%s step %zu: no model '%s'", l->name, k + 1, model);
                m = *found;
            }
            if (!vl_catalog_gpu(&c, gpu))
                fail_msg("%s step %zu: no GPU '%s'", l->name, k + 1, gpu);
            char why[256];
            if (!vl_settings_valid(&s, &m.arch, why, sizeof why))
                fail_msg("%s step %zu: %s", l->name, k + 1, why);
            for (int t = 0; t < 3; t++) {
                const char(*text)[sizeof st->text[0]] = st->text;
                const char *en = t == 0 ? st->title[VL_LANG_EN] : t == 1 ? text[VL_LANG_EN]
                                                                        : st->question[VL_LANG_EN];
                const char *zh = t == 0 ? st->title[VL_LANG_ZH] : t == 1 ? text[VL_LANG_ZH]
                                                                        : st->question[VL_LANG_ZH];
                if (!en[0] || !zh[0] || strcmp(en, zh) == 0)
                    fail_msg("%s step %zu: text %d not in both languages", l->name, k + 1, t);
            }
        }
    }
    vl_catalog_free(&c);
}

/* Whether framework a and b make the same choices, field by field (vl_framework_fields),
 * with the same name and display; the first field that differs in *key. */
static bool same_profile(const vl_framework *a, const vl_framework *b, const char **key)
{
    *key = "name";
    if (strcmp(a->name, b->name) != 0)
        return false;
    *key = "display";
    if (strcmp(a->display, b->display) != 0)
        return false;
    for (size_t i = 0; i < vl_n_framework_fields; i++) {
        const vl_framework_field *d = &vl_framework_fields[i];
        *key = d->key;
        if (memcmp((const char *)a + d->offset, (const char *)b + d->offset, d->size))
            return false;
    }
    return true;
}

/* The shipped framework presets are the C table's profiles (framework.c, where each choice
 * names its source): one file for each built-in, equal field by field, and every file a
 * built-in.  The table is the source; the files are what a user copies and what --framework
 * finds in the catalog. */
static void test_builtin_frameworks(void **state)
{
    (void)state;
    vl_catalog c;
    load_builtin(&c);
    assert_int_equal(c.n_frameworks, vl_n_frameworks);
    for (size_t i = 0; i < vl_n_frameworks; i++) {
        const vl_framework *f = vl_catalog_framework(&c, vl_frameworks[i].name);
        const char *key;
        if (!f)
            fail_msg("no presets/frameworks/%s.yaml", vl_frameworks[i].name);
        if (!same_profile(f, &vl_frameworks[i], &key))
            fail_msg("presets/frameworks/%s.yaml: %s differs from src/core/framework.c",
                     f->name, key);
        assert_true(f->source[0] && f->notes[0]);
        assert_non_null(strstr(f->origin, "frameworks/"));
    }
    /* every field is in the files, none left to the base */
    size_t n_fields = 0;
    for (size_t i = 0; i < vl_n_builtin_presets; i++) {
        const vl_builtin_preset *b = &vl_builtin_presets[i];
        if (b->kind != VL_KIND_FRAMEWORK)
            continue;
        for (size_t k = 0; k < vl_n_framework_fields; k++) {
            char line[64];
            snprintf(line, sizeof line, "\n%s: ", vl_framework_fields[k].key);
            if (!strstr(b->text, line))
                fail_msg("%s: no %s", b->file, vl_framework_fields[k].key);
            n_fields++;
        }
    }
    assert_int_equal(n_fields, vl_n_frameworks * vl_n_framework_fields);
    vl_catalog_free(&c);
}

/* A framework preset gives what it changes: the rest is its base's (pytorch unless base:
 * names another built-in), each field by its key. */
static void test_framework_base(void **state)
{
    (void)state;
    static const char mine[] = "kind: framework\nname: mine\nbase: vllm\n"
                               "attention: sdpa\nprefill_chunk: 512\ncuda_graphs: false\n";
    static const char bare[] = "kind: framework\nname: bare\ndisplay: Bare\n";
    vl_catalog c;
    char err[VL_ERR_LEN] = "";
    vl_kind k;
    size_t i;
    vl_catalog_init(&c);
    if (!vl_catalog_add_text(&c, "mine.yaml", mine, strlen(mine), &k, &i, err))
        fail_msg("%s", err);
    assert_int_equal(k, VL_KIND_FRAMEWORK);
    vl_framework want = vl_frameworks[VL_FW_VLLM];
    snprintf(want.name, sizeof want.name, "mine");
    snprintf(want.display, sizeof want.display, "mine"); /* display: the name by default */
    want.attention = VL_ATTN_SDPA;
    want.prefill_chunk = 512;
    want.cuda_graphs = false;
    const char *key;
    if (!same_profile(&c.frameworks[i], &want, &key))
        fail_msg("mine: %s", key);
    assert_string_equal(c.frameworks[i].origin, "mine.yaml");
    if (!vl_catalog_add_text(&c, "bare.yaml", bare, strlen(bare), &k, &i, err))
        fail_msg("%s", err);
    want = vl_frameworks[VL_FW_PYTORCH];
    snprintf(want.name, sizeof want.name, "bare");
    snprintf(want.display, sizeof want.display, "Bare");
    if (!same_profile(&c.frameworks[i], &want, &key))
        fail_msg("bare: %s", key);
    /* every field's key is read, into its own field */
    for (size_t f = 0; f < vl_n_framework_fields; f++) {
        const vl_framework_field *d = &vl_framework_fields[f];
        char yaml[256];
        const char *value = d->kind == VL_FIELD_ENUM ? d->names[d->n_names - 1]
                            : d->kind == VL_FIELD_BOOL ? "true"
                                                       : "1";
        snprintf(yaml, sizeof yaml, "kind: framework\nname: one\n%s: %s\n", d->key, value);
        if (!vl_catalog_add_text(&c, "one.yaml", yaml, strlen(yaml), &k, &i, err))
            fail_msg("%s: %s", d->key, err);
        want = vl_frameworks[VL_FW_PYTORCH];
        snprintf(want.name, sizeof want.name, "one");
        snprintf(want.display, sizeof want.display, "one");
        assert_true(vl_framework_set(&want, d->key, value, err, sizeof err));
        if (!same_profile(&c.frameworks[i], &want, &key))
            fail_msg("%s: %s", d->key, key);
    }
    vl_catalog_free(&c);
}

/* Settings given in part: only the given ones change, in order. */
static void test_settings_patch(void **state)
{
    (void)state;
    vl_settings s;
    vl_settings_patch scenario = {0}, flags = {0};
    vl_settings_default(&s);
    scenario.values.zero = 3;
    scenario.values.gpus = 8;
    scenario.values.seq = 4096; /* not marked: ignored */
    vl_patch_mark(&scenario, VL_SET_ZERO);
    vl_patch_mark(&scenario, VL_SET_GPUS);
    flags.values.gpus = 16;
    vl_patch_mark(&flags, VL_SET_GPUS);
    vl_settings_apply(&s, &scenario);
    vl_settings_apply(&s, &flags);
    assert_int_equal(s.zero, 3);
    assert_int_equal(s.gpus, 16);
    assert_int_equal(s.seq, 2048);
}

static const char good_model[] = "kind: model\n"
                                 "name: tiny\n"
                                 "params: 1056\n"
                                 "architecture:\n"
                                 "  hidden_size: 8\n"
                                 "  num_layers: 1\n"
                                 "  num_heads: 2\n"
                                 "  intermediate_size: 16\n"
                                 "  vocab_size: 10\n";

/* By hand: embedding 80 + untied head 80 + attention 4·64 = 256 + MLP 3·8·16 = 384 +
 * norms 16 + final norm 8 = 824... with params 1056 it must fail; with 824 it loads. */
static void test_counts_checked(void **state)
{
    (void)state;
    vl_catalog c;
    char err[VL_ERR_LEN];
    vl_kind k;
    size_t i;
    vl_catalog_init(&c);
    assert_false(vl_catalog_add_text(&c, "t.yaml", good_model, strlen(good_model), &k, &i, err));
    assert_string_equal(err, "t.yaml:3:1: params: 1,056 does not match the architecture's count "
                             "(embedding 80 + output layer 80 + 1 layers x 656 + final norm "
                             "8 = 824)");
    char fixed[sizeof good_model];
    strcpy(fixed, good_model);
    memcpy(strstr(fixed, "1056"), "824 ", 4);
    if (!vl_catalog_add_text(&c, "t.yaml", fixed, strlen(fixed), &k, &i, err))
        fail_msg("%s", err);
    assert_int_equal(k, VL_KIND_MODEL);
    assert_string_equal(c.models[i].name, "tiny");
    /* later wins: the same name again replaces the entry */
    size_t j;
    assert_true(vl_catalog_add_text(&c, "u.yaml", fixed, strlen(fixed), &k, &j, err));
    assert_int_equal(i, j);
    assert_int_equal(c.n_models, 1);
    vl_catalog_free(&c);
}

/* Each malformed preset and the exact message it must produce. */
static const struct {
    const char *yaml, *message;
} bad[] = {
    {"", "x.yaml:1:1: empty file: expected a preset (kind: model, gpu, scenario, framework or lesson)"},
    {"kind: model\nname: [1\n", "x.yaml:3:1: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence"},
    {"- 1\n- 2\n", "x.yaml:1:1: expected a preset (a mapping with 'kind:'), got a list"},
    {"name: x\n", "x.yaml:1:1: missing key 'kind' (model, gpu, scenario, framework or lesson)"},
    {"kind: modle\n", "x.yaml:1:7: kind: unknown kind 'modle' (expected model, gpu, scenario, framework or lesson; did you mean 'model'?)"},
    {"kind: model\nname: x\narchitecture: {hiden_size: 8}\n",
     "x.yaml:3:16: unknown key 'architecture.hiden_size'; did you mean 'hidden_size'?"},
    {"kind: model\nname: x\narchitecture:\n  hidden_size: 8\n",
     "x.yaml:4:3: missing key 'architecture.num_layers'"},
    {"kind: model\nname: Bad Name\n", "x.yaml:2:7: name: 'Bad Name' is not a valid name (lower-case letters, digits, '.', '_', '-')"},
    {"kind: model\nname: x\nname: y\n", "x.yaml:3:1: name: duplicate key"},
    {"kind: model\nname: x\narchitecture: {hidden_size: -8}\n",
     "x.yaml:3:29: architecture.hidden_size: '-8' is not a whole number: must not be negative"},
    {"kind: model\nname: x\narchitecture: {hidden_size: \"8\"}\n",
     "x.yaml:3:29: architecture.hidden_size: '8' is not a whole number (remove the quotes)"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 8, num_layers: 1, num_heads: 3, vocab_size: 4}\n",
     "x.yaml:3:15: architecture.head_dim: num_heads does not divide hidden_size: give head_dim"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 0, num_layers: 1, num_heads: 1, vocab_size: 4}\n",
     "x.yaml:3:16: architecture.hidden_size: hidden_size must be between 1 and 1048576"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 8, num_layers: 1, num_heads: 2, vocab_size: 4, mlp: swiglu}\n",
     "x.yaml:3:81: architecture.mlp: unknown value 'swiglu' (expected gated or standard)"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 8, num_layers: 1, num_heads: 2, vocab_size: 4, eager_softmax: fp16}\n",
     "x.yaml:3:91: architecture.eager_softmax: unknown value 'fp16' (expected fp32, input or fused)"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 8, num_layers: 1, num_heads: 2, vocab_size: 4, dropout: yes}\n",
     "x.yaml:3:85: architecture.dropout: expected true or false, got 'yes'"},
    {"kind: model\nname: x\narchitecture: [1, 2]\n",
     "x.yaml:3:15: architecture: expected a mapping of keys, got a list"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 99999999999999999999}\n",
     "x.yaml:3:29: architecture.hidden_size: '99999999999999999999' is not a whole number: number too large (over 2^64)"},
    {"kind: gpu\nname: g\nmemory: 0\n", "x.yaml:3:9: memory: must be between 1 and 70,368,744,177,664"},
    {"kind: gpu\nname: g\nmemory: 80GiB\nsms: 5000\n", "x.yaml:4:6: sms: must be between 0 and 4,096"},
    {"kind: gpu\nname: g\nmemory: 80GiB\nnvlinks: 72\n",
     "x.yaml:4:10: nvlinks: must be between 0 and 64"},
    {"kind: gpu\nname: g\nmemory: 80GiB\ncompute_capability: 8.65\n",
     "x.yaml:4:1: compute_capability: 8.65 is no CUDA compute capability (major.minor, as 8.6; "
     "or 0 when unknown)"},
    {"kind: gpu\nname: g\nmemory: 80GiB\ncompute_capability: 86\n",
     "x.yaml:4:1: compute_capability: 86 is no CUDA compute capability (major.minor, as 8.6; "
     "or 0 when unknown)"},
    {"kind: gpu\nname: g\nmemory: 80GiB\ninterconnect: auto\n",
     "x.yaml:4:15: interconnect: unknown value 'auto' (expected pcie or nvlink)"},
    {"kind: gpu\nname: g\nmemory: 80GiB\ncuda_memory: 81GiB\n",
     "x.yaml:4:1: cuda_memory: more than the GPU's memory (what CUDA reports is nvidia-smi's "
     "total less what the driver keeps)"},
    {"kind: gpu\nname: g\nmemory: 80 parsecs\n",
     "x.yaml:3:9: memory: '80 parsecs' is not a size in bytes: unknown unit suffix"},
    {"kind: gpu\nname: g\nmemory: 80GiB\nbandwidth: fast\n",
     "x.yaml:4:12: bandwidth: 'fast' is not a non-negative number"},
    {"kind: gpu\nname: g\nmemory: 1\n---\nkind: gpu\n",
     "x.yaml:4:1: a second YAML document: one per file"},
    {"kind: model\nname: &a x\ndisplay: *a\nsource: {a: 1}\n",
     "x.yaml:4:9: source: expected text, got a mapping"},
    {"kind: framework\nname: f\natention: eager\n",
     "x.yaml:3:1: unknown key 'atention'; did you mean 'attention'?"},
    /* the part the communicators take as they are made, above their whole: the key that
     * says so; or, where the base's comm_nvlink falls under it, the key that lowers it */
    {"kind: framework\nname: f\ncomm_nvlink: 1000\ncomm_nvlink_init: 1001\n",
     "x.yaml:4:1: comm_nvlink_init: more than comm_nvlink (it is the part of comm_nvlink the "
     "communicators take as they are made)"},
    {"kind: framework\nname: f\nbase: vllm\ncomm_nvlink: 1000\n",
     "x.yaml:4:1: comm_nvlink_init: more than comm_nvlink (it is the part of comm_nvlink the "
     "communicators take as they are made)"},
    {"kind: framework\nname: f\nattention: flash2\n",
     "x.yaml:3:12: attention: unknown value 'flash2' (expected eager, sdpa or flash; did you mean 'flash'?)"},
    {"kind: framework\nname: f\nbase: torch\n",
     "x.yaml:3:7: base: unknown value 'torch' (expected pytorch, hf, megatron, deepspeed, vllm, vllm-v0, litgpt or sglang; did you mean 'pytorch'?)"},
    {"kind: framework\nname: f\ncuda_graphs: yes\n",
     "x.yaml:3:14: cuda_graphs: expected true or false, got 'yes'"},
    {"kind: framework\nname: f\nsampler_fp32: 17\n",
     "x.yaml:3:15: sampler_fp32: must be between 0 and 16"},
    {"kind: framework\nattention: sdpa\n", "x.yaml:1:1: missing key 'name'"},
};

static void test_bad_presets(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vl_catalog c;
        char err[VL_ERR_LEN] = "";
        vl_kind k;
        size_t idx;
        vl_catalog_init(&c);
        bool ok = vl_catalog_add_text(&c, "x.yaml", bad[i].yaml, strlen(bad[i].yaml), &k, &idx, err);
        if (ok || strcmp(err, bad[i].message) != 0)
            fail_msg("case %zu: expected\n  %s\ngot\n  %s", i, bad[i].message, ok ? "(loaded)" : err);
        assert_int_equal(c.n_models + c.n_gpus + c.n_frameworks, 0);
        vl_catalog_free(&c);
    }
}

/* Anchors and aliases are shared nodes in libyaml's document, not copies: a "billion
 * laughs" file loads in bounded memory and is rejected by the schema. */
static void test_alias_bomb(void **state)
{
    (void)state;
    char yaml[4096];
    int o = snprintf(yaml, sizeof yaml, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 20; i++)
        o += snprintf(yaml + o, sizeof yaml - (size_t)o,
                      "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i,
                      i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    snprintf(yaml + o, sizeof yaml - (size_t)o, "kind: model\n");
    vl_catalog c;
    char err[VL_ERR_LEN];
    vl_kind k;
    size_t idx;
    vl_catalog_init(&c);
    assert_false(vl_catalog_add_text(&c, "bomb.yaml", yaml, strlen(yaml), &k, &idx, err));
    assert_non_null(strstr(err, "unknown key 'a0'"));
    vl_catalog_free(&c);
}

static void test_missing_file(void **state)
{
    (void)state;
    vl_catalog c;
    char err[VL_ERR_LEN];
    vl_kind k;
    size_t idx;
    vl_catalog_init(&c);
    assert_false(vl_catalog_add_file(&c, "/nonexistent/m.yaml", &k, &idx, err));
    assert_string_equal(err, "/nonexistent/m.yaml: cannot open: No such file or directory");
    vl_catalog_free(&c);
}

static bool add(vl_catalog *c, const char *yaml, char err[VL_ERR_LEN])
{
    vl_kind k;
    size_t i;
    return vl_catalog_add_text(c, "r.yaml", yaml, strlen(yaml), &k, &i, err);
}

/* params_rounded: within half a unit of its last digit, or within a stated tolerance.  The
 * tiny model of test_counts_checked has 824 parameters. */
static void test_rounded(void **state)
{
    (void)state;
    static const char head[] = "kind: model\nname: tiny\n";
    static const char arch[] = "architecture: {hidden_size: 8, num_layers: 1, num_heads: 2, "
                               "intermediate_size: 16, vocab_size: 10}\n";
    static const struct {
        const char *keys, *error;
    } cases[] = {
        {"params_rounded: 820\n", NULL},   /* 824 is within 5 of 820 (unit 10) */
        {"params_rounded: 8.2e2\n", NULL},
        {"params_rounded: 800\n", NULL},  /* one significant digit: within 50 */
        {"params_rounded: 810\n", "r.yaml:3:1: params_rounded: 810 is not within 5 (half its "
                                  "last digit) of the architecture's count (embedding 80 + "
                                  "output layer 80 + 1 layers x 656 + final norm 8 = 824); a "
                                  "looser figure needs params_rounded_tolerance"},
        {"params_rounded: 810\nparams_rounded_tolerance: 2%\n", NULL},
        {"params_rounded: 810\nparams_rounded_tolerance: 1%\n",
         "r.yaml:3:1: params_rounded: 810 is not within 1% of the architecture's count "
         "(embedding 80 + output layer 80 + 1 layers x 656 + final norm 8 = 824)"},
        {"params_rounded_tolerance: 2%\n",
         "r.yaml:3:1: params_rounded_tolerance: needs params_rounded"},
        {"params_rounded: 800\nparams_rounded_tolerance: 20%\n",
         "r.yaml:4:27: params_rounded_tolerance: '20%' is not a percentage from 0% to 10%"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[512], err[VL_ERR_LEN] = "";
        vl_catalog c;
        snprintf(yaml, sizeof yaml, "%s%s%s", head, cases[i].keys, arch);
        vl_catalog_init(&c);
        bool ok = add(&c, yaml, err);
        if (cases[i].error ? ok || strcmp(err, cases[i].error) != 0 : !ok)
            fail_msg("case %zu: expected %s, got %s", i, cases[i].error ? cases[i].error : "ok",
                     ok ? "ok" : err);
        vl_catalog_free(&c);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The search path: later folders win, bad files and duplicate names are warnings. */
static void test_search_path(void **state)
{
    (void)state;
    char a[] = "/tmp/vl-test-XXXXXX", b[] = "/tmp/vl-test-XXXXXX", path[512], env[1100];
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    static const char gpu[] = "kind: gpu\nname: %s\nmemory: %s\n";
    char text[128];
    snprintf(path, sizeof path, "%s/gpus", a);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(text, sizeof text, gpu, "h100-80gb", "1GiB");
    snprintf(path, sizeof path, "%s/gpus/one.yaml", a);
    write_file(path, text);
    snprintf(text, sizeof text, gpu, "mine", "2GiB");
    snprintf(path, sizeof path, "%s/gpus/two.yml", a);
    write_file(path, text);
    snprintf(path, sizeof path, "%s/gpus/three.yaml", a); /* the same name again */
    write_file(path, text);
    snprintf(path, sizeof path, "%s/bad.yaml", a);
    write_file(path, "kind: gpu\nname: broken\nmemory: lots\n");
    snprintf(path, sizeof path, "%s/notes.txt", a); /* not a preset file: skipped */
    write_file(path, "hello");
    snprintf(text, sizeof text, gpu, "mine", "3GiB");
    snprintf(path, sizeof path, "%s/mine.yaml", b);
    write_file(path, text);

    snprintf(env, sizeof env, "%s:%s:/nonexistent/vl", a, b);
    setenv("VRAMLAB_PRESETS", env, 1);
    setenv("XDG_CONFIG_HOME", "/nonexistent/vl-xdg", 1);
    vl_catalog c;
    char err[VL_ERR_LEN];
    vl_catalog_init(&c);
    assert_true(vl_catalog_load(&c, err));
    unsetenv("VRAMLAB_PRESETS");
    const vl_gpu *h = vl_catalog_gpu(&c, "h100-80gb"), *mine = vl_catalog_gpu(&c, "mine");
    assert_int_equal(h->memory, 1ULL << 30); /* the folder's replaces the built-in */
    snprintf(path, sizeof path, "%s/gpus/one.yaml", a);
    assert_string_equal(h->origin, path);
    assert_int_equal(mine->memory, 3ULL << 30); /* the later folder wins */
    assert_int_equal(c.n_warnings, 2);
    snprintf(text, sizeof text, "%s/bad.yaml:3:9: memory: 'lots' is not a size in bytes: "
                                "expected a number", a);
    assert_string_equal(c.warnings[0], text);
    char want[VL_ERR_LEN];
    snprintf(want, sizeof want, "%s/gpus/two.yml: duplicate gpu name 'mine' (also in "
                                "%s/gpus/three.yaml); this one is ignored", a, a);
    assert_string_equal(c.warnings[1], want);
    vl_catalog_free(&c);

    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", a, b);
    assert_int_equal(system(cmd), 0);
}

/* The parameters by tensor rank add up to the exact count, for every built-in model. */
static void test_param_shapes(void **state)
{
    (void)state;
    vl_catalog c;
    char err[VL_ERR_LEN];
    vl_catalog_init(&c);
    assert_true(vl_catalog_add_builtin(&c, err));
    for (size_t i = 0; i < c.n_models; i++) {
        vl_params p;
        vl_shapes sh;
        assert_true(vl_count_params(&c.models[i].arch, &p));
        assert_true(vl_param_shapes(&c.models[i].arch, &sh));
        if (sh.matrix + sh.vector != p.total)
            fail_msg("%s: matrices %llu + vectors %llu != %llu", c.models[i].name,
                     (unsigned long long)sh.matrix, (unsigned long long)sh.vector,
                     (unsigned long long)p.total);
        assert_true(sh.hidden_matrix < sh.matrix && sh.matrix_dims < sh.matrix);
    }
    assert_true(c.n_models >= 30);
    vl_catalog_free(&c);
}

/* A look-up parses only what it finds, and finds what a full load reads: opening parses no
 * built-in preset; a folder file with a built-in's bytes waits as well, under its own
 * origin, while another folder file is parsed (and warned about) when the folder is read. */
static void test_lazy(void **state)
{
    (void)state;
    char dir[] = "/tmp/vl-test-XXXXXX", path[512], cmd[600], err[VL_ERR_LEN], hint[96], cwd[512];
    assert_non_null(mkdtemp(dir));
    assert_non_null(getcwd(cwd, sizeof cwd)); /* away from a source tree's ./presets */
    assert_int_equal(chdir(dir), 0);
    size_t gpt2 = 0;
    while (gpt2 < vl_n_builtin_presets && strcmp(vl_builtin_presets[gpt2].name, "gpt2") != 0)
        gpt2++;
    assert_true(gpt2 < vl_n_builtin_presets);
    snprintf(path, sizeof path, "%s/copy.yaml", dir);
    write_file(path, vl_builtin_presets[gpt2].text);
    snprintf(path, sizeof path, "%s/mine.yaml", dir);
    write_file(path, "kind: gpu\nname: mine\nmemory: 3GiB\n");
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    write_file(path, "kind: gpu\nname: broken\nmemory: lots\n");
    setenv("VRAMLAB_PRESETS", dir, 1);
    setenv("XDG_CONFIG_HOME", "/nonexistent/vl-xdg", 1);

    vl_catalog lazy, full;
    vl_catalog_init(&lazy);
    vl_catalog_init(&full);
    assert_true(vl_catalog_open(&lazy, err));
    unsetenv("VRAMLAB_PRESETS");
    assert_int_equal(chdir(cwd), 0);
    assert_true(vl_catalog_add_builtin(&full, err));
    assert_int_equal(lazy.n_pending, vl_n_builtin_presets); /* the copy replaced gpt2's */
    assert_int_equal(lazy.n_warnings, 1);
    assert_int_equal(lazy.n_gpus, full.n_gpus + 1); /* mine, parsed */
    assert_string_equal(vl_catalog_hint(&lazy, VL_KIND_GPU, "h100-80", hint, sizeof hint),
                        "; did you mean 'h100-80gb'?"); /* names alone, nothing parsed */
    assert_int_equal(lazy.n_pending, vl_n_builtin_presets);

    for (size_t i = 0; i < full.n_models; i++) {
        const vl_model *f = &full.models[i], *m = vl_catalog_model(&lazy, f->name);
        vl_params pf, pm;
        assert_non_null(m);
        assert_true(vl_count_params(&f->arch, &pf) && vl_count_params(&m->arch, &pm));
        assert_int_equal(pm.total, pf.total);
        assert_string_equal(m->display, f->display);
        assert_string_equal(m->source, f->source);
        if (strcmp(f->name, "gpt2") == 0) {
            snprintf(path, sizeof path, "%s/copy.yaml", dir);
            assert_string_equal(m->origin, path);
        } else {
            assert_string_equal(m->origin, f->origin);
        }
        if (i == 0) /* one look-up, one parse */
            assert_int_equal(lazy.n_pending, vl_n_builtin_presets - 1);
    }
    assert_int_equal(lazy.n_pending, vl_n_builtin_presets - full.n_models);
    const vl_gpu *h = vl_catalog_gpu(&lazy, "h100-80gb");
    assert_non_null(h);
    assert_int_equal(h->memory, 81559ULL << 20);
    assert_null(vl_catalog_gpu(&lazy, "broken"));
    assert_true(vl_catalog_load(&lazy, err));
    assert_int_equal(lazy.n_pending, 0);
    assert_int_equal(lazy.n_scenarios, full.n_scenarios);
    assert_int_equal(lazy.n_warnings, 1);
    for (size_t i = 0; i < vl_n_builtin_presets; i++) /* what the parser is given */
        assert_int_equal(strlen(vl_builtin_presets[i].text), vl_builtin_presets[i].len);
    vl_catalog_free(&lazy);
    vl_catalog_free(&full);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The user's folder: $XDG_CONFIG_HOME/vramlab/presets when XDG_CONFIG_HOME is absolute, else
 * ~/.config/vramlab/presets (the XDG Base Directory specification: a relative
 * XDG_CONFIG_HOME is invalid and must be ignored); none without HOME. */
static void test_user_preset_dir(void **state)
{
    (void)state;
    char buf[64], *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/home/u", 1);
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    assert_true(vl_user_preset_dir(buf, sizeof buf));
    assert_string_equal(buf, "/cfg/vramlab/presets");
    setenv("XDG_CONFIG_HOME", "cfg", 1);
    assert_true(vl_user_preset_dir(buf, sizeof buf));
    assert_string_equal(buf, "/home/u/.config/vramlab/presets");
    setenv("XDG_CONFIG_HOME", "", 1);
    assert_true(vl_user_preset_dir(buf, sizeof buf));
    assert_string_equal(buf, "/home/u/.config/vramlab/presets");
    assert_false(vl_user_preset_dir(buf, 10)); /* does not fit */
    unsetenv("HOME");
    assert_false(vl_user_preset_dir(buf, sizeof buf));
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    assert_true(vl_user_preset_dir(buf, sizeof buf));
    assert_string_equal(buf, "/cfg/vramlab/presets");
    unsetenv("XDG_CONFIG_HOME");
    if (home)
        setenv("HOME", home, 1);
    free(home);
}

/* A lesson's own rules, with file:line:column: one state a step, a slider that exists, the
 * texts' languages, English required, a language left out showing the English. */
static void test_lesson_errors(void **state)
{
    (void)state;
    static const char head[] = "kind: lesson\nname: l\nsteps:\n  - title: {en: T}\n"
                               "    text: {en: X, zh: Y}\n";
    static const struct {
        const char *keys, *error;
    } cases[] = {
        {"    model: gpt2\n", NULL},
        {"    scenario: gpt2-on-24gb\n    settings: {batch: 2}\n", NULL},
        {"    panel: probe\n", "r.yaml:4:5: steps[1].missing key 'scenario' (or 'model', "
                                 "'params')"},
        {"    model: gpt2\n    params: 7B\n", "r.yaml:7:5: steps[1].give one of scenario, "
                                               "model and params"},
        {"    model: gpt2\n    slider: bach\n", "r.yaml:7:5: steps[1].slider: unknown slider "
                                                "'bach' (a setting's key, params or gpu); did "
                                                "you mean 'batch'?"},
        {"    model: gpt2\n    panle: probe\n", "r.yaml:7:5: unknown key 'steps[1].panle'; did "
                                                "you mean 'panel'?"},
        {"    model: gpt2\n    panel: chart\n", "r.yaml:7:12: steps[1].panel: unknown value "
                                                "'chart' (expected memory, probe, formats, "
                                                "train or timeline)"},
        {"    model: gpt2\n    question: {zh: Q}\n", "r.yaml:7:15: missing key "
                                                      "'steps[1].question.en'"},
        {"    model: gpt2\n    settings: {tp: 2}\n",
         "r.yaml:7:15: steps[1].settings: --gpus must be a multiple of --tp x --pp (GPUs = "
         "tensor x pipeline x data parallel)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[512], err[VL_ERR_LEN] = "";
        snprintf(yaml, sizeof yaml, "%s%s", head, cases[i].keys);
        vl_catalog c;
        vl_catalog_init(&c);
        bool ok = add(&c, yaml, err);
        if (cases[i].error) {
            if (ok)
                fail_msg("case %zu loaded", i);
            assert_string_equal(err, cases[i].error);
        } else {
            if (!ok)
                fail_msg("%s", err);
            assert_string_equal(c.lessons[0].steps[0].title[VL_LANG_ZH], "T");
            assert_string_equal(c.lessons[0].steps[0].text[VL_LANG_ZH], "Y");
        }
        vl_catalog_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_models),
        cmocka_unit_test(test_builtin_gpus),
        cmocka_unit_test(test_builtin_scenarios),
        cmocka_unit_test(test_builtin_frameworks),
        cmocka_unit_test(test_builtin_lessons),
        cmocka_unit_test(test_lesson_errors),
        cmocka_unit_test(test_framework_base),
        cmocka_unit_test(test_settings_patch),
        cmocka_unit_test(test_param_shapes),
        cmocka_unit_test(test_rounded),
        cmocka_unit_test(test_search_path),
        cmocka_unit_test(test_lazy),
        cmocka_unit_test(test_user_preset_dir),
        cmocka_unit_test(test_counts_checked),
        cmocka_unit_test(test_bad_presets),
        cmocka_unit_test(test_alias_bomb),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
