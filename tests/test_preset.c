/* test_preset.c: the YAML loader: shipped presets, and errors with file:line:column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/preset.h"

/* Every shipped model loads, and its `params` (the published figure, which the loader
 * checked against the architecture) is the one we expect. */
static void test_builtin(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint64_t params;
    } published[] = {
        {"gpt2", 124439808ULL},
        {"llama-2-7b", 6738415616ULL},
        {"mistral-7b", 7241732096ULL},
        {"falcon-7b", 6921720704ULL},
    };
    vl_catalog c;
    char err[VL_ERR_LEN] = "";
    vl_catalog_init(&c);
    if (!vl_catalog_add_builtin(&c, err))
        fail_msg("%s", err);
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        const vl_model *m = vl_catalog_model(&c, published[i].name);
        assert_non_null(m);
        vl_params p;
        assert_true(vl_count_params(&m->arch, &p));
        assert_int_equal(p.total, published[i].params);
        assert_int_equal(m->published_params, published[i].params);
    }
    const vl_gpu *g = vl_catalog_gpu(&c, "h100-80gb");
    assert_non_null(g);
    assert_int_equal(g->memory, 85899345920ULL);
    assert_null(vl_catalog_gpu(&c, "h100-80"));
    char hint[96];
    assert_string_equal(vl_catalog_hint(&c, VL_KIND_GPU, "h100-80", hint, sizeof hint),
                        "; did you mean 'h100-80gb'?");
    vl_catalog_free(&c);
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
    {"", "x.yaml:1:1: empty file: expected a preset (kind: model, gpu or scenario)"},
    {"kind: model\nname: [1\n", "x.yaml:3:1: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence"},
    {"- 1\n- 2\n", "x.yaml:1:1: expected a preset (a mapping with 'kind:'), got a list"},
    {"name: x\n", "x.yaml:1:1: missing key 'kind' (model, gpu or scenario)"},
    {"kind: modle\n", "x.yaml:1:7: kind: unknown kind 'modle' (expected model, gpu or scenario; did you mean 'model'?)"},
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
    {"kind: model\nname: x\narchitecture: {hidden_size: 8, num_layers: 1, num_heads: 2, vocab_size: 4, dropout: yes}\n",
     "x.yaml:3:85: architecture.dropout: expected true or false, got 'yes'"},
    {"kind: model\nname: x\narchitecture: [1, 2]\n",
     "x.yaml:3:15: architecture: expected a mapping of keys, got a list"},
    {"kind: model\nname: x\narchitecture: {hidden_size: 99999999999999999999}\n",
     "x.yaml:3:29: architecture.hidden_size: '99999999999999999999' is not a whole number: number too large"},
    {"kind: gpu\nname: g\nmemory: 0\n", "x.yaml:3:9: memory: must be between 1 and 70,368,744,177,664"},
    {"kind: gpu\nname: g\nmemory: 80 parsecs\n",
     "x.yaml:3:9: memory: '80 parsecs' is not a size in bytes: unknown unit suffix"},
    {"kind: gpu\nname: g\nmemory: 80GiB\nbandwidth: fast\n",
     "x.yaml:4:12: bandwidth: 'fast' is not a non-negative number"},
    {"kind: gpu\nname: g\nmemory: 1\n---\nkind: gpu\n",
     "x.yaml:4:1: a second YAML document: one per file"},
    {"kind: model\nname: &a x\ndisplay: *a\nsource: {a: 1}\n",
     "x.yaml:4:9: source: expected text, got a mapping"},
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
        assert_int_equal(c.n_models + c.n_gpus, 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_counts_checked),
        cmocka_unit_test(test_bad_presets),
        cmocka_unit_test(test_alias_bomb),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
