/* test_report.c: the report model's policies (fit, headroom, shares, bar scale, the ZeRO
 * sweep, the inference phases) and the escaping of text from files, against hand-derived
 * values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "report/report.h"
#include "helpers.h"

/* s escaped for how, as a string (caller frees); *n the count text_write returned. */
static char *escaped(const char *s, text_escape how, size_t *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    *n = text_write(f, s, how);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(*n, len);
    return buf;
}

static void assert_escape(const char *s, text_escape how, const char *want)
{
    size_t n;
    char *got = escaped(s, how, &n);
    assert_string_equal(got, want);
    free(got);
}

static void test_terminal_escapes(void **state)
{
    (void)state;
    assert_escape("GPT-2 (124M)", TEXT_TERMINAL, "GPT-2 (124M)");
    assert_escape("\x1b[2Jclear", TEXT_TERMINAL, "\\x1b[2Jclear");
    assert_escape("a\tb\nc\r\x7f", TEXT_TERMINAL, "a\\x09b\\x0ac\\x0d\\x7f");
    /* U+009B (C1 CSI) is C2 9B in UTF-8: a control, escaped by its code point */
    assert_escape("x\xc2\x9by", TEXT_TERMINAL, "x\\u009by");
    /* valid UTF-8 kept: U+00E9, U+00D7, U+2248, U+1F600 */
    assert_escape("caf\xc3\xa9 \xc3\x97 \xe2\x89\x88 \xf0\x9f\x98\x80", TEXT_TERMINAL,
                  "caf\xc3\xa9 \xc3\x97 \xe2\x89\x88 \xf0\x9f\x98\x80");
    /* not UTF-8: a lone continuation, a truncated sequence, an overlong '/', a surrogate
     * (U+D800 as ED A0 80), above U+10FFFF (F4 90 80 80), 0xFF */
    assert_escape("\x80", TEXT_TERMINAL, "\\x80");
    assert_escape("\xe2\x89", TEXT_TERMINAL, "\\xe2\\x89");
    assert_escape("\xc0\xaf", TEXT_TERMINAL, "\\xc0\\xaf");
    assert_escape("\xed\xa0\x80", TEXT_TERMINAL, "\\xed\\xa0\\x80");
    assert_escape("\xf4\x90\x80\x80", TEXT_TERMINAL, "\\xf4\\x90\\x80\\x80");
    assert_escape("p\xffq", TEXT_TERMINAL, "p\\xffq");
    /* the largest code point, U+10FFFF, is valid */
    assert_escape("\xf4\x8f\xbf\xbf", TEXT_TERMINAL, "\xf4\x8f\xbf\xbf");
    /* the terminal leaves XML's and JSON's specials alone */
    assert_escape("<&>\"\\", TEXT_TERMINAL, "<&>\"\\");
}

static void test_xml_and_json_escapes(void **state)
{
    (void)state;
    assert_escape("a <b> & \"c\"", TEXT_XML, "a &lt;b&gt; &amp; &quot;c&quot;");
    assert_escape("\x1b[31m\xff\xc2\x85", TEXT_XML, "\\x1b[31m\\xff\\u0085");
    assert_escape("say \"hi\" \\ \x01\x1f\x7f\xc2\x9b", TEXT_JSON,
                  "say \\\"hi\\\" \\\\ \\u0001\\u001f\\u007f\\u009b");
    /* JSON strings are Unicode: a byte that is not UTF-8 becomes U+FFFD */
    assert_escape("/tmp/p\xff/x", TEXT_JSON, "/tmp/p\\ufffd/x");
    assert_escape("\xe2\x89\x88 <", TEXT_JSON, "\xe2\x89\x88 <");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_string(f, "a\"\n");
    fclose(f);
    assert_string_equal(buf, "\"a\\\"\\u000a\"");
    free(buf);
}

static void test_share_and_scale(void **state)
{
    (void)state;
    assert_true(report_share(1, 4) == 25.0);
    assert_true(report_share(3, 3) == 100.0);
    assert_true(report_share(5, 0) == 0.0);
    vl_breakdown b[3] = {{.total = 10}, {.total = 90}, {.total = 40}};
    assert_int_equal(report_bar_full(80, b, 3), 90); /* the largest bar */
    assert_int_equal(report_bar_full(100, b, 3), 100); /* the capacity */
    assert_int_equal(report_bar_full(80, b, 1), 80);
    assert_int_equal(report_bar_full(80, b, 0), 80);
}


/* The ZeRO paper (Rajbhandari et al. 2020, Fig. 1): stage 1 shards the optimizer states over
 * the data-parallel GPUs, stage 2 the gradients too, stage 3 the weights too. */
static void test_zero_sweep(void **state)
{
    (void)state;
    const vl_model *m = vl_catalog_model(&cat, "llama-2-7b");
    vl_settings s;
    vl_settings_default(&s);
    s.gpus = 8;
    s.zero = 2;
    vl_breakdown z[REPORT_ZERO_STAGES], own;
    char err[256] = "";
    assert_true(report_zero_sweep(m, &s, z, err, sizeof err));
    assert_string_equal(err, "");
    const uint64_t *b0 = z[0].bytes;
    /* each stage divides one more kind of state by 8, rounded up per GPU */
    assert_int_equal(z[1].bytes[VL_C_WEIGHTS], b0[VL_C_WEIGHTS]);
    assert_int_equal(z[1].bytes[VL_C_GRADIENTS], b0[VL_C_GRADIENTS]);
    assert_int_equal(z[1].bytes[VL_C_OPTIMIZER], (b0[VL_C_OPTIMIZER] + 7) / 8);
    assert_int_equal(z[2].bytes[VL_C_GRADIENTS], (b0[VL_C_GRADIENTS] + 7) / 8);
    assert_int_equal(z[2].bytes[VL_C_WEIGHTS], b0[VL_C_WEIGHTS]);
    assert_int_equal(z[3].bytes[VL_C_WEIGHTS], (b0[VL_C_WEIGHTS] + 7) / 8);
    for (int i = 1; i < REPORT_ZERO_STAGES; i++)
        assert_true(z[i].total < z[i - 1].total);
    /* the run's own stage is the plain estimate */
    assert_null(vl_estimate(m, &s, &own));
    assert_int_equal(z[2].total, own.total);

    /* a stage that cannot be estimated: the reason in the caller's buffer */
    s.gpus = 0;
    assert_false(report_zero_sweep(m, &s, z, err, sizeof err));
    assert_true(strlen(err) > 0);
}

static void test_phases(void **state)
{
    (void)state;
    const vl_model *m = vl_catalog_model(&cat, "llama-2-7b");
    const vl_gpu *g = vl_catalog_gpu(&cat, "h100-80gb");
    vl_settings s;
    vl_settings_default(&s);
    s.mode = VL_MODE_INFER;
    s.gen = 512;
    vl_breakdown b, ph[2];
    assert_null(vl_estimate(m, &s, &b));
    assert_int_equal(report_phases(&b, &s, ph), 2);
    for (int i = 0; i < 2; i++) { /* each phase's bars add up to its own total */
        uint64_t sum = 0;
        for (int c = 0; c < VL_N_COMPONENTS; c++)
            sum += ph[i].bytes[c];
        assert_int_equal(sum, ph[i].total);
    }
    assert_int_equal(ph[0].bytes[VL_C_KV_CACHE], b.inf.prefill.kv_cache);
    assert_int_equal(ph[1].bytes[VL_C_KV_CACHE], b.inf.decode.kv_cache);
    assert_int_equal(ph[0].bytes[VL_C_WEIGHTS], b.bytes[VL_C_WEIGHTS]);
    /* the peak phase is the breakdown's total */
    assert_int_equal(b.total, ph[0].total > ph[1].total ? ph[0].total : ph[1].total);
    s.gen = 0;
    assert_null(vl_estimate(m, &s, &b));
    assert_int_equal(report_phases(&b, &s, ph), 1);
    report r = {m, &s, &b, g, VL_UNITS_GIB, false, NULL, NULL, VL_SOLVE_MAX_BATCH};
    assert_string_equal(report_mode(&r), "inference");
}

/* The writer table and the names --format accepts come from one list, in its order. */
static void test_writers(void **state)
{
    (void)state;
    static const char *const want[] = {"table", "json", "csv", "markdown", "svg"};
    assert_int_equal(N_FORMATS, sizeof want / sizeof want[0]);
    for (int f = 0; f < N_FORMATS; f++) {
        assert_string_equal(report_writers[f].name, want[f]);
        assert_string_equal(report_format_names[f], want[f]);
        assert_non_null(report_writers[f].write);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terminal_escapes),
        cmocka_unit_test(test_xml_and_json_escapes),
        cmocka_unit_test(test_share_and_scale),
        cmocka_unit_test(test_zero_sweep),
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_writers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
