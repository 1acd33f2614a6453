/* test_npy.c: the gradient file reader against files built here byte by byte: good ones in
 * each version and dtype, and one malformed file per rule, each with its exact message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/npy.h"

#define MAX 1000

static unsigned char buf[16384];

/* A .npy file of the given version with header text dict (padded with spaces and ended
 * with a newline so that the data starts at a multiple of 64, as NumPy writes it), then
 * data_len bytes of data (the values 0.5, 1.5, ... as float32 or float64 by item). */
static size_t npy(int major, const char *dict, size_t item, size_t count)
{
    size_t pre = major == 1 ? 10 : 12, len = strlen(dict);
    size_t hlen = ((pre + len + 1 + 63) / 64) * 64 - pre;

    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        buf[8 + i] = (unsigned char)(hlen >> (8 * i));
    memset(buf + pre, ' ', hlen);
    memcpy(buf + pre, dict, len);
    buf[pre + hlen - 1] = '\n';
    for (size_t i = 0; i < count; i++) {
        double v = (double)i + 0.5;
        float f = (float)v;
        memcpy(buf + pre + hlen + i * item, item == 4 ? (void *)&f : (void *)&v, item);
    }
    return pre + hlen + count * item;
}

static void expect_values(size_t len, size_t count)
{
    char err[VL_NPY_ERR_LEN] = "";
    size_t n = 0;
    float *v = vl_npy_parse(buf, len, MAX, &n, err);
    if (!v) {
        print_error("%s\n", err);
        fail();
    }
    assert_int_equal(n, count);
    for (size_t i = 0; i < n; i++)
        assert_true(v[i] == (float)i + 0.5f);
    free(v);
}

static void expect_error(size_t len, const char *message)
{
    char err[VL_NPY_ERR_LEN] = "";
    size_t n = 0;
    assert_null(vl_npy_parse(buf, len, MAX, &n, err));
    assert_string_equal(err, message);
}

static void test_good_files(void **state)
{
    (void)state;
    expect_values(npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 4, 3), 3);
    expect_values(npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 8, 6), 6);
    expect_values(npy(3, "{\"shape\": (), \"fortran_order\": False, \"descr\": \"<f4\"}", 4, 1), 1);
    expect_values(npy(1, "{'descr':'<f4','fortran_order':False,'shape':(2,2,1)}", 4, 4), 4);
}

static void test_malformed_files(void **state)
{
    (void)state;
    const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }";
    size_t len = npy(1, good, 4, 10);

    expect_error(40, "truncated .npy header: the file has 40 bytes, the header needs 128");
    expect_error(9, "truncated .npy header: the file has 9 bytes");
    expect_error(3, "truncated .npy header: the file has 3 bytes");
    expect_error(len - 4, "shape (10,) of '<f4' needs 40 bytes of data, the file has 36");
    expect_error(len + 4, "shape (10,) of '<f4' needs 40 bytes of data, the file has 44");
    buf[5] = 'Z';
    expect_error(len, "not a .npy file (it does not start with \\x93NUMPY)");
    buf[0] = 'N';
    expect_error(2, "not a .npy file (it does not start with \\x93NUMPY)");

    len = npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 5), }", 4, 10);
    expect_error(len, "fortran_order is True: only C-order arrays are read "
                      "(save numpy.ascontiguousarray(a))");
    len = npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (10,), }", 4, 10);
    expect_error(len, "dtype '>f4' is big-endian: only little-endian float32 ('<f4') and "
                      "float64 ('<f8') are read");
    len = npy(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (10,), }", 8, 10);
    expect_error(len, "dtype '>f8' is big-endian: only little-endian float32 ('<f4') and "
                      "float64 ('<f8') are read");
    len = npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (10,), }", 4, 10);
    expect_error(len, "dtype '<i4' is not float32 ('<f4') or float64 ('<f8')");
    len = npy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (10,), }", 2, 10);
    expect_error(len, "dtype '<f2' is not float32 ('<f4') or float64 ('<f8')");
    len = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 8, 11);
    expect_error(len, "shape (3, 4) of '<f8' needs 96 bytes of data, the file has 88");
    len = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 4, 0);
    expect_error(len, "no values: shape (0,)");
    len = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1001,), }", 4, 1001);
    expect_error(len, "too many values: 1001 (at most 1000)");
    len = npy(1,
              "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, "
              "99999999999), }",
              4, 0);
    expect_error(len, "shape (99999999999, 99999999999, 99999999999) of '<f4' needs over "
                      "18446744073709551615 bytes of data, the file has 0");

    /* the element count fits in 64 bits, its bytes do not: not "needs 0 bytes" */
    len = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }",
              4, 0);
    expect_error(len, "shape (4611686018427387904,) of '<f4' needs over 18446744073709551615 "
                      "bytes of data, the file has 0");
    len = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3074457345618258603, 1), }",
              8, 0);
    expect_error(len, "shape (3074457345618258603, 1) of '<f8' needs over "
                      "18446744073709551615 bytes of data, the file has 0");
    /* a NUL byte ends no string: '<f4\0x' is not '<f4' */
    len = npy(1, "{'descr': '<f4#x', 'fortran_order': False, 'shape': (10,), }", 4, 10);
    buf[10 + 14] = '\0';
    expect_error(len, "malformed .npy header at character 15: expected a quoted dtype");

    len = npy(4, good, 4, 10);
    expect_error(len, "unsupported .npy format version 4.0 (1.0, 2.0 and 3.0 are read)");
    len = npy(1, "{'descr': '<f4', 'fortran_order': False}", 4, 10);
    expect_error(len, "the .npy header has no 'shape'");
    len = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), 'order': 'C'}", 4, 10);
    expect_error(len, "unexpected key 'order' in the .npy header");
    len = npy(1, "{'descr': '<f4', 'descr': '<f4', 'shape': (10,)}", 4, 10);
    expect_error(len, "key 'descr' twice in the .npy header");
    len = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10), }", 4, 10);
    expect_error(len, "malformed .npy header at character 55: expected a shape tuple of whole "
                      "numbers");
    len = npy(1, "{'descr': '<f4', 'fortran_order': Nope, 'shape': (10,), }", 4, 10);
    expect_error(len, "malformed .npy header at character 35: expected True or False");
    len = npy(1, "['descr', '<f4']", 4, 10);
    expect_error(len, "malformed .npy header at character 1: expected '{'");
    len = npy(1, good, 4, 10);
    buf[10 + 69] = '}'; /* inside the padding, before the newline */
    expect_error(len, "malformed .npy header at character 70: expected nothing but spaces "
                      "after '}'");
    len = npy(1, good, 4, 10);
    buf[127] = ' '; /* the header's last byte */
    expect_error(len, "the .npy header does not end with a newline");
}

/* The file level: names, raw files, missing files. */
static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/vramlab-npy-XXXXXX", path[64], err[VL_NPY_ERR_LEN];
    size_t n;
    float raw[3] = {1.0f, -2.0f, 0x1p-30f}, *v;
    FILE *f;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/g.bin", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(raw, sizeof raw, 1, f);
    fwrite("xy", 2, 1, f);
    fclose(f);
    assert_null(vl_values_read(path, MAX, &n, err));
    char want[256];
    snprintf(want, sizeof want,
             "%s: 14 bytes is not a whole number of float32 values (a name without .npy is "
             "read as raw little-endian float32)",
             path);
    assert_string_equal(err, want);
    assert_int_equal(truncate(path, 12), 0);
    v = vl_values_read(path, MAX, &n, err);
    assert_non_null(v);
    assert_int_equal(n, 3);
    assert_memory_equal(v, raw, sizeof raw);
    free(v);
    assert_null(vl_values_read(path, 2, &n, err));
    snprintf(want, sizeof want, "%s: too many values: 3 (at most 2)", path);
    assert_string_equal(err, want);
    unlink(path);

    snprintf(path, sizeof path, "%s/g.npy", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(raw, sizeof raw, 1, f); /* raw data under a .npy name */
    fclose(f);
    assert_null(vl_values_read(path, MAX, &n, err));
    snprintf(want, sizeof want, "%s: not a .npy file (it does not start with \\x93NUMPY)", path);
    assert_string_equal(err, want);
    unlink(path);

    /* the extension in capitals is still .npy, not raw float32 with the header as values */
    snprintf(path, sizeof path, "%s/grads.NPY", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(buf, npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 4, 3), 1, f);
    fclose(f);
    v = vl_values_read(path, MAX, &n, err);
    assert_non_null(v);
    assert_int_equal(n, 3);
    assert_true(v[0] == 0.5f && v[1] == 1.5f && v[2] == 2.5f);
    free(v);
    unlink(path);

    assert_null(vl_values_read(path, MAX, &n, err));
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    assert_string_equal(err, want);
    assert_null(vl_values_read(dir, MAX, &n, err));
    snprintf(want, sizeof want, "%s: not a regular file", dir);
    assert_string_equal(err, want);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_files),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
