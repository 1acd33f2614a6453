/* test_units.c: exact parsing and printing of counts and sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/units.h"

static uint64_t count(const char *s)
{
    uint64_t v = 0;
    const char *why = NULL;
    assert_true(vl_parse_count(s, &v, &why));
    return v;
}

static void count_fails(const char *s, const char *expect_why)
{
    uint64_t v;
    const char *why = NULL;
    assert_false(vl_parse_count(s, &v, &why));
    assert_non_null(why);
    assert_non_null(strstr(why, expect_why));
}

static void test_counts(void **state)
{
    (void)state;
    assert_int_equal(count("7B"), 7000000000ULL);
    assert_int_equal(count("7b"), 7000000000ULL);
    assert_int_equal(count("7e9"), 7000000000ULL);
    assert_int_equal(count("350M"), 350000000ULL);
    assert_int_equal(count("1.5T"), 1500000000000ULL);
    assert_int_equal(count("124439808"), 124439808ULL);
    assert_int_equal(count("10k"), 10000ULL);
    assert_int_equal(count("1.25e3"), 1250ULL);
    assert_int_equal(count("18446744073709551615"), UINT64_MAX);
    count_fails("1.5", "whole");
    count_fails("-1", "negative");
    count_fails("7X", "unit");
    count_fails("", "number");
    count_fails("abc", "number");
    count_fails("18446744073709551616", "large");
    count_fails("2e19", "large");
    count_fails("1e999", "large");
}

/* An exponent needs digits; digits past what 64 bits hold are judged by the value: a
 * fraction is "not a whole number", a huge value "too large"; zeros cost nothing. */
static void test_lenient_numbers(void **state)
{
    (void)state;
    count_fails("4e+", "the exponent has no digits");
    count_fails("7e+B", "the exponent has no digits");
    assert_int_equal(count("4e+2"), 400);
    count_fails("1.0000000000000000000001", "not a whole number");
    count_fails("1.0000000000000000000001e22", "number too large (over 2^64)");
    count_fails("123456789012345678901234567890", "number too large (over 2^64)");
    assert_int_equal(count("1.000000000000000000000000000"), 1);
    assert_int_equal(count("0.000000000000000000000000000"), 0);
    assert_int_equal(count("0000000000000000000000000000012"), 12);
    assert_int_equal(count("1.8446744073709551615e19"), UINT64_MAX);
    uint64_t v;
    const char *why = NULL;
    assert_false(vl_parse_size("1.0000000000000000000001 KiB", &v, &why));
    assert_string_equal(why, "not a whole number");
}

/* Reals: strtod's syntax and 2^N, within fp64's range (a value it cannot hold is refused,
 * not rounded to 0 or inf). */
static void test_reals(void **state)
{
    (void)state;
    double v;
    const char *why = NULL;
    assert_true(vl_parse_real("2^-1074", &v, &why));
    assert_true(v == 0x1p-1074);
    assert_true(vl_parse_real("-2**1023", &v, &why));
    assert_true(v == -0x1p1023);
    assert_true(vl_parse_real("4e-324", &v, &why)); /* rounds to the smallest subnormal */
    assert_true(v == 0x1p-1074);
    assert_true(vl_parse_real("0e-999", &v, &why) && v == 0);
    assert_true(vl_parse_real("-inf", &v, &why) && v < 0 && v * 0 != 0);
    assert_false(vl_parse_real("1e-400", &v, &why));
    assert_non_null(strstr(why, "underflows fp64"));
    assert_false(vl_parse_real("2e-324", &v, &why)); /* below half the smallest subnormal */
    assert_non_null(strstr(why, "underflows fp64"));
    assert_false(vl_parse_real("1e400", &v, &why));
    assert_non_null(strstr(why, "overflows fp64"));
    assert_false(vl_parse_real("0x1p1024", &v, &why));
    assert_non_null(strstr(why, "overflows fp64"));
    assert_false(vl_parse_real("2^-1075", &v, &why));
    assert_false(vl_parse_real("2^1024", &v, &why));
    assert_false(vl_parse_real(" 1", &v, &why));
}

static void test_sizes(void **state)
{
    (void)state;
    uint64_t v;
    const char *why;
    assert_true(vl_parse_size("1GiB", &v, &why));
    assert_int_equal(v, 1073741824ULL);
    assert_true(vl_parse_size("800MB", &v, &why));
    assert_int_equal(v, 800000000ULL);
    assert_true(vl_parse_size("1.5 GiB", &v, &why));
    assert_int_equal(v, 1610612736ULL);
    assert_true(vl_parse_size("0", &v, &why));
    assert_int_equal(v, 0);
    assert_true(vl_parse_size("80gib", &v, &why));
    assert_int_equal(v, 85899345920ULL);
    assert_false(vl_parse_size("1.5B", &v, &why));
    assert_string_equal(why, "not a whole number");
    assert_false(vl_parse_size("12 parsecs", &v, &why));
    /* a size rounded in larger units, as a log prints it, is the nearest byte, halves up:
     * 23.58 x 2^30 = 25,318,832,209.92; 1.0005 x 1024 = 1,024.512; 0.0025 x 1000 = 2.5 */
    static const struct {
        const char *text;
        uint64_t want;
    } rounded[] = {
        {"23.58GiB", 25318832210ULL}, {"1.0005 KiB", 1025}, {"0.0025kB", 3},
        {"0.0000001kB", 0},            {"0.1KiB", 102},      {"1.2345678MB", 1234568},
        {"16777215.9999999999TiB", 18446744073709551506ULL},
    };
    for (size_t i = 0; i < sizeof rounded / sizeof *rounded; i++) {
        assert_true(vl_parse_size(rounded[i].text, &v, &why));
        assert_int_equal(v, rounded[i].want);
    }
    assert_false(vl_parse_size("16777216TiB", &v, &why)); /* 2^64 */
    assert_string_equal(why, "number too large (over 2^64)");
    assert_false(vl_parse_size("16777215.99999999999999TiB", &v, &why)); /* rounds to it */
}

static void test_checked_arithmetic(void **state)
{
    (void)state;
    bool ovf = false;
    assert_int_equal(vl_mul(1ULL << 32, 1ULL << 31, &ovf), 1ULL << 63);
    assert_false(ovf);
    vl_mul(1ULL << 32, 1ULL << 32, &ovf);
    assert_true(ovf);
    ovf = false;
    vl_add(UINT64_MAX, 1, &ovf);
    assert_true(ovf);
    assert_int_equal(vl_ceil_div(7500000001ULL, 64), 117187501ULL);
    assert_int_equal(vl_ceil_div(7500000000ULL, 64), 117187500ULL);
}

static void test_formatting(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(vl_fmt_int(6738415616ULL, b, sizeof b), "6,738,415,616");
    assert_string_equal(vl_fmt_int(999, b, sizeof b), "999");
    assert_string_equal(vl_fmt_int(1000, b, sizeof b), "1,000");
    assert_string_equal(vl_fmt_count(6738415616ULL, b, sizeof b), "6.74e9");
    assert_string_equal(vl_fmt_count(124439808ULL, b, sizeof b), "1.24e8");
    assert_string_equal(vl_fmt_count(4096, b, sizeof b), "4096");
    assert_string_equal(vl_fmt_bytes(13476831232ULL, VL_UNITS_GIB, b, sizeof b), "12.55 GiB");
    assert_string_equal(vl_fmt_bytes(13476831232ULL, VL_UNITS_GB, b, sizeof b), "13.48 GB");
}

/* A rounded figure and the place value of its last significant digit. */
static void test_parse_rounded(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint64_t value, unit;
    } ok[] = {
        {"175B", 175000000000ULL, 1000000000ULL}, {"350M", 350000000ULL, 10000000ULL},
        {"1.3B", 1300000000ULL, 100000000ULL},    {"125M", 125000000ULL, 1000000ULL},
        {"175e9", 175000000000ULL, 1000000000ULL}, {"13B", 13000000000ULL, 1000000000ULL},
        {"7", 7, 1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v, u;
        const char *why;
        assert_true(vl_parse_rounded(ok[i].s, &v, &u, &why));
        assert_int_equal(v, ok[i].value);
        assert_int_equal(u, ok[i].unit);
    }
    uint64_t v, u;
    const char *why;
    assert_false(vl_parse_rounded("0", &v, &u, &why));
    assert_string_equal(why, "must be more than 0");
    assert_false(vl_parse_rounded("1.5", &v, &u, &why));
    assert_false(vl_parse_rounded("7Q", &v, &u, &why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_rounded),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_lenient_numbers),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_checked_arithmetic),
        cmocka_unit_test(test_formatting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
