/* formats.c: `vramlab formats` (the five floating-point formats side by side) and `vramlab
 * inspect VALUE...` (a value in each of them, bit by bit). */
#include <config.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/numerics.h"
#include "core/units.h"
#include "app/options.h"
#include "probe-report.h"
#include "report/report.h"

/* ---- formats ------------------------------------------------------------------------------ */

/* "6.1035156e-05 (2^-14)": the value and, for a power of two, its exponent. */
static const char *with_power(double v, char *buf, size_t len)
{
    int e;
    double m = frexp(v, &e);
    if (m == 0.5)
        snprintf(buf, len, "%.8g (2^%d)", v, e - 1);
    else
        snprintf(buf, len, "%.8g", v);
    return buf;
}

static void formats_table(void)
{
    char a[48], b[48], c[48];

    printf("%-9s %4s %4s %4s %4s  %-16s %-24s %-24s %-22s %6s  %s\n", "format", "bits", "exp",
           "man", "bias", "max", "min normal", "min subnormal", "epsilon", "digits", "inf");
    for (int f = 0; f < VL_N_FORMATS; f++) {
        const vl_format_info *t = &vl_formats[f];
        printf("%-9s %4u %4u %4u %4d  %-16.9g %-24s %-24s %-22s %6.2f  %s\n", vl_format_names[f],
               t->bits, t->exp_bits, t->man_bits, t->bias, t->max,
               with_power(t->min_normal, a, sizeof a), with_power(t->min_subnormal, b, sizeof b),
               with_power(t->epsilon, c, sizeof c), t->digits, t->has_inf ? "yes" : "no");
    }
    printf("\nbits = 1 sign + exp exponent + man mantissa bits; a normal value is "
           "(-1)^sign x 1.mantissa x 2^(exponent-bias).\n"
           "epsilon: the gap between 1 and the next value, 2^-man; digits: (man+1) x log10(2), "
           "the significant decimal digits.\n"
           "min subnormal: the smallest value above 0 (min normal x epsilon); below half of it "
           "a value rounds to 0.\n"
           "fp8-e4m3 has no infinities: S.1111.111 is NaN, and overflow gives NaN (or +-448 when "
           "saturating).\n");
}

static void formats_json(void)
{
    printf("{\"vramlab\": \"%s\",\n \"formats\": [", PACKAGE_VERSION);
    for (int f = 0; f < VL_N_FORMATS; f++) {
        const vl_format_info *t = &vl_formats[f];
        printf("%s\n  {\"name\": \"%s\", \"bits\": %u, \"exponent_bits\": %u, "
               "\"mantissa_bits\": %u, \"bias\": %d, \"max\": ",
               f ? "," : "", vl_format_names[f], t->bits, t->exp_bits, t->man_bits, t->bias);
        json_real(stdout, t->max);
        printf(", \"min_normal\": ");
        json_real(stdout, t->min_normal);
        printf(", \"min_subnormal\": ");
        json_real(stdout, t->min_subnormal);
        printf(", \"epsilon\": ");
        json_real(stdout, t->epsilon);
        printf(",\n   \"min_normal_log2\": %d, \"min_subnormal_log2\": %d, \"epsilon_log2\": %d, "
               "\"decimal_digits\": %.4f, \"has_inf\": %s, \"max_code\": %u, \"nan_code\": %u}",
               1 - t->bias, 1 - t->bias - (int)t->man_bits, -(int)t->man_bits, t->digits,
               t->has_inf ? "true" : "false", (unsigned)t->max_code, (unsigned)t->nan_code);
    }
    printf("]}\n");
}

static const struct option format_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int cmd_formats(int argc, char **argv)
{
    int code, rc, out = OUT_TABLE;

    options_start();
    while ((rc = options_next(argc, argv, format_options, "formats", &code)) == EXIT_OK &&
           code != -1) {
        if (code == 'h') {
            printf("usage: vramlab formats [--format table|json]\n"
                   "The floating-point formats of mixed precision side by side: fp32, fp16, "
                   "bf16,\nfp8-e4m3 and fp8-e5m2, with their bits, range and precision.\n");
            return EXIT_OK;
        }
        if (option_choice("format", optarg, out_format_names, N_OUTS, &out) != EXIT_OK)
            return EXIT_USAGE;
    }
    if (rc != EXIT_OK)
        return rc;
    if (optind < argc)
        return usage_error("formats: unexpected argument '%s'", argv[optind]);
    if (out == OUT_JSON)
        formats_json();
    else
        formats_table();
    return EXIT_OK;
}

/* ---- inspect ------------------------------------------------------------------------------ */

/* The code in hex, and in bits with the sign, exponent and mantissa apart. */
static void code_text(vl_format f, uint32_t code, char *hex, size_t hex_len, char *bits)
{
    const vl_format_info *t = &vl_formats[f];
    size_t k = 0;

    snprintf(hex, hex_len, "0x%0*x", (int)t->bits / 4, (unsigned)code);
    for (int i = (int)t->bits - 1; i >= 0; i--) {
        bits[k++] = (char)('0' + (code >> i & 1));
        if (i == (int)t->bits - 1 || i == (int)t->man_bits)
            bits[k++] = ' ';
    }
    bits[k] = 0;
}

static void error_cell(double e, char *buf, size_t len)
{
    if (isnan(e))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3g", e);
}

static void inspect_table(const char *text, double typed, bool saturate)
{
    printf("%s%s\n", text, saturate ? " (saturating casts)" : "");
    printf("  %-9s %-11s %-34s %-25s %-10s %-10s %s\n", "format", "hex", "sign exponent mantissa",
           "value", "abs error", "rel error", "class");
    for (int f = 0; f < VL_N_FORMATS; f++) {
        vl_inspection r;
        char v[40], ae[16], re[16], hex[16], bits[40];
        vl_inspect((vl_format)f, typed, saturate, &r);
        code_text((vl_format)f, r.code, hex, sizeof hex, bits);
        snprintf(v, sizeof v, "%.17g", (double)r.value);
        error_cell(r.abs_error, ae, sizeof ae);
        error_cell(r.rel_error, re, sizeof re);
        printf("  %-9s %-11s %-34s %-25s %-10s %-10s %s\n", vl_format_names[f], hex, bits, v, ae,
               re, vl_class_names[r.cls]);
    }
}

static void inspect_json(const char *text, double typed, bool saturate, bool first)
{
    printf("%s\n  {\"input\": ", first ? "" : ",");
    json_string(stdout, text);
    printf(", \"value\": ");
    json_real(stdout, typed);
    printf(", \"formats\": {");
    for (int f = 0; f < VL_N_FORMATS; f++) {
        vl_inspection r;
        char hex[16], bits[40];
        vl_inspect((vl_format)f, typed, saturate, &r);
        code_text((vl_format)f, r.code, hex, sizeof hex, bits);
        printf("%s\n    \"%s\": {\"code\": %u, \"hex\": \"%s\", \"bits\": \"%s\", \"sign\": %u, "
               "\"exponent\": %u, \"mantissa\": %u,\n      \"value\": ",
               f ? "," : "", vl_format_names[f], (unsigned)r.code, hex, bits,
               (unsigned)r.sign, (unsigned)r.exponent, (unsigned)r.mantissa);
        json_real(stdout, r.value);
        printf(", \"abs_error\": ");
        json_real(stdout, r.abs_error);
        printf(", \"rel_error\": ");
        json_real(stdout, r.rel_error);
        printf(", \"class\": \"%s\"}", vl_class_names[r.cls]);
    }
    printf("}}");
}

static void inspect_help(void)
{
    printf("usage: vramlab inspect VALUE... [--saturate] [--format table|json]\n"
           "Each VALUE cast to fp32, and from there to fp16, bf16, fp8-e4m3 and fp8-e5m2, "
           "as GPUs\nconvert: the code in hex and in bits (sign, exponent, mantissa), the "
           "value it keeps,\nthe error against VALUE, and what the cast did: zero, flushed "
           "(to 0), subnormal,\nnormal, inf (overflow), saturated or nan.\n"
           "  VALUE          0.1, -1e-8, 65520, 0x1p-24, 2^-24, inf, nan\n"
           "  --saturate     overflow gives +-max instead of inf (NaN in fp8-e4m3)\n"
           "  --format F     table or json (default table)\n");
}

/* Options are read by hand: a VALUE may start with '-'. */
int cmd_inspect(int argc, char **argv)
{
    int out = OUT_TABLE, n = 0;
    bool saturate = false, options_done = false; /* after "--", all are values */
    const char *why;
    double v;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (options_done || strncmp(a, "--", 2) != 0) {
            if (!vl_parse_real(a, &v, &why))
                return usage_error("inspect: '%s': %s (values are e.g. 0.1, -1e-8, 0x1p-24, "
                                   "2^-24, inf)",
                                   a, why);
            argv[++n] = argv[i]; /* the values, in order, from argv[1] */
        } else if (strcmp(a, "--help") == 0) {
            inspect_help();
            return EXIT_OK;
        } else if (strcmp(a, "--saturate") == 0) {
            saturate = true;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *val = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (!val)
                return usage_error("--format needs a value");
            if (option_choice("format", val, out_format_names, N_OUTS, &out) != EXIT_OK)
                return EXIT_USAGE;
        } else {
            return usage_error("unknown option '%s' (see vramlab inspect --help)", a);
        }
    }
    if (n == 0)
        return usage_error("inspect: give at least one VALUE (e.g. vramlab inspect 0.1)");
    if (out == OUT_JSON)
        printf("{\"vramlab\": \"%s\", \"saturate\": %s,\n \"values\": [", PACKAGE_VERSION,
               saturate ? "true" : "false");
    for (int i = 1; i <= n; i++) {
        vl_parse_real(argv[i], &v, &why);
        if (out == OUT_JSON) {
            inspect_json(argv[i], v, saturate, i == 1);
        } else {
            if (i > 1)
                putchar('\n');
            inspect_table(argv[i], v, saturate);
        }
    }
    if (out == OUT_JSON)
        printf("]}\n");
    return EXIT_OK;
}
