/* test_hfcache.c: a synthetic Hugging Face cache, made here, and safetensors headers good
 * and bad. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/hfcache.h"

static char root[64];

static void path_of(char *out, size_t len, const char *rel)
{
    snprintf(out, len, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
    char p[512], *s;
    path_of(p, sizeof p, rel);
    for (s = p + strlen(root) + 1; (s = strchr(s, '/')); *s++ = '/') {
        *s = '\0';
        mkdir(p, 0755);
    }
    mkdir(p, 0755);
}

static void write_raw(const char *rel, const void *data, size_t n)
{
    char p[512];
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* A safetensors file: the 8-byte little-endian length, the header, then `data` bytes of
 * data (a sparse file: GPT-2's half gigabyte costs no disk). */
static void write_st_len(const char *rel, const char *header, uint64_t declared, uint64_t data)
{
    char p[512];
    path_of(p, sizeof p, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(declared >> (8 * i));
    assert_int_equal(write(fd, le, 8), 8);
    size_t n = strlen(header);
    assert_int_equal(write(fd, header, n), (ssize_t)n);
    assert_int_equal(ftruncate(fd, (off_t)(8 + n + data)), 0);
    close(fd);
}

static void write_st(const char *rel, const char *header, uint64_t data)
{
    write_st_len(rel, header, strlen(header), data);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/vl-hfcache-XXXXXX");
    assert_non_null(mkdtemp(root));
    setenv("HF_HUB_CACHE", root, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd);
}

#define SNAP "models--acme--tiny/snapshots/"
#define OLD "1111111111111111111111111111111111111111"
#define MAIN "2222222222222222222222222222222222222222"

/* Two snapshots; refs/main picks the second.  Tensors by hand: a f32 [3, 4] (12 elements,
 * 48 bytes), b bf16 [5] (5, 10), c i8 [2, 0] (none), d f8_e4m3 [7] (7, 7): 24 elements in
 * 65 bytes. */
static void test_resolve_and_count(void **state)
{
    (void)state;
    mkdirs(SNAP OLD);
    mkdirs(SNAP MAIN);
    mkdirs("models--acme--tiny/refs");
    write_raw("models--acme--tiny/refs/main", MAIN "\n", 41);
    write_raw(SNAP MAIN "/config.json", "{}", 2);
    write_st(SNAP MAIN "/model.safetensors",
             "{\"__metadata__\":{\"format\":\"pt\"},"
             "\"a\":{\"dtype\":\"F32\",\"shape\":[3,4],\"data_offsets\":[0,48]},"
             "\"b\":{\"dtype\":\"BF16\",\"shape\":[5],\"data_offsets\":[48,58]},"
             "\"c\":{\"dtype\":\"I8\",\"shape\":[2,0],\"data_offsets\":[58,58]},"
             "\"d\":{\"dtype\":\"F8_E4M3\",\"shape\":[7],\"data_offsets\":[58,65]}}   ",
             65);
    vl_hf_snapshot s;
    char err[VL_ERR_LEN] = "";
    if (!vl_hf_resolve("acme/tiny", &s, err))
        fail_msg("%s", err);
    assert_string_equal(s.revision, MAIN);
    assert_non_null(strstr(s.config, MAIN "/config.json"));
    vl_sf_summary sum;
    bool found;
    if (!vl_hf_weights(&s, &sum, &found, err))
        fail_msg("%s", err);
    assert_true(found);
    assert_false(sum.from_index);
    assert_int_equal(sum.params, 24);
    assert_int_equal(sum.bytes, 65);
    assert_int_equal(sum.tensors, 4);
    assert_int_equal(sum.dtype_params[VL_SF_F32], 12);
    assert_int_equal(sum.dtype_params[VL_SF_BF16], 5);
    assert_int_equal(sum.dtype_params[VL_SF_F8_E4M3], 7);
    assert_int_equal(sum.files, 1);

    /* refs/main naming a snapshot that is gone */
    write_raw("models--acme--tiny/refs/main", "3333333333333333333333333333333333333333", 40);
    assert_false(vl_hf_resolve("acme/tiny", &s, err));
    assert_non_null(strstr(err, "which is missing"));
    /* no refs/main: the most recently modified snapshot */
    char p[512];
    path_of(p, sizeof p, "models--acme--tiny/refs/main");
    unlink(p);
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    path_of(p, sizeof p, SNAP OLD);
    utimensat(AT_FDCWD, p, old, 0);
    assert_true(vl_hf_resolve("acme/tiny", &s, err));
    assert_string_equal(s.revision, MAIN);
}

/* HF_HOME/hub, then ~/.cache/huggingface/hub, when HF_HUB_CACHE is unset. */
static void test_cache_dir(void **state)
{
    (void)state;
    char d[VL_HF_PATH_LEN];
    unsetenv("HF_HUB_CACHE");
    unsetenv("HUGGINGFACE_HUB_CACHE");
    unsetenv("XDG_CACHE_HOME");
    setenv("HF_HOME", "/srv/hf", 1);
    assert_true(vl_hf_cache_dir(d, sizeof d));
    assert_string_equal(d, "/srv/hf/hub");
    unsetenv("HF_HOME");
    setenv("HOME", "/home/u", 1);
    assert_true(vl_hf_cache_dir(d, sizeof d));
    assert_string_equal(d, "/home/u/.cache/huggingface/hub");
    setenv("HF_HUB_CACHE", root, 1);
    assert_true(vl_hf_cache_dir(d, sizeof d));
    assert_string_equal(d, root);
}

static void test_names(void **state)
{
    (void)state;
    vl_hf_snapshot s;
    char err[VL_ERR_LEN];
    static const char *const bad[] = {"", "../etc", "a/b/c", "a//b", "-a/b", "a/b.",
                                      "a--b/c", "a/b c", "/abs"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(vl_hf_resolve(bad[i], &s, err));
        assert_non_null(strstr(err, "is not a Hugging Face model name"));
    }
    assert_false(vl_hf_resolve("acme/absent", &s, err));
    assert_non_null(strstr(err, "acme/absent is not in the local Hugging Face cache"));
    assert_non_null(strstr(err, "models--acme--absent/snapshots"));
}

/* One shard being written: its header text and the data offset so far. */
typedef struct {
    char header[8192];
    size_t len;
    uint64_t off;
    const char *file;
} shard;

static void add(shard *sh, char *idx, size_t idx_size, const char *name, uint64_t rows,
                uint64_t cols)
{
    char shape[64];
    uint64_t n = rows * (cols ? cols : 1);
    if (cols)
        snprintf(shape, sizeof shape, "%llu,%llu", (unsigned long long)rows,
                 (unsigned long long)cols);
    else
        snprintf(shape, sizeof shape, "%llu", (unsigned long long)rows);
    sh->len += (size_t)snprintf(sh->header + sh->len, sizeof sh->header - sh->len,
                                "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%s],"
                                "\"data_offsets\":[%llu,%llu]}",
                                sh->len > 1 ? "," : "", name, shape,
                                (unsigned long long)sh->off,
                                (unsigned long long)(sh->off + 4 * n));
    sh->off += 4 * n;
    size_t il = strlen(idx);
    snprintf(idx + il, idx_size - il, "%s\"%s\":\"%s\"", idx[il - 1] == '{' ? "" : ",", name,
             sh->file);
}

/* GPT-2's tensors as its model.safetensors lists them (wte, wpe, 12 blocks of ln_1,
 * c_attn, c_proj, ln_2, c_fc, c_proj, ln_f), split over two shards with an index: their
 * elements are GPT-2's published 124,439,808 parameters, in f32. */
static void test_sharded_gpt2(void **state)
{
    (void)state;
    static shard sh[2] = {{.header = "{", .len = 1, .file = "model-00001-of-00002.safetensors"},
                          {.header = "{", .len = 1, .file = "model-00002-of-00002.safetensors"}};
    static char idx[16384] = "{\"metadata\":{\"total_size\":497759232},\"weight_map\":{";
    static const struct {
        const char *name;
        uint64_t rows, cols;
    } block[] = {
        {"ln_1.weight", 768, 0},         {"ln_1.bias", 768, 0},
        {"attn.c_attn.weight", 768, 2304}, {"attn.c_attn.bias", 2304, 0},
        {"attn.c_proj.weight", 768, 768}, {"attn.c_proj.bias", 768, 0},
        {"ln_2.weight", 768, 0},         {"ln_2.bias", 768, 0},
        {"mlp.c_fc.weight", 768, 3072},  {"mlp.c_fc.bias", 3072, 0},
        {"mlp.c_proj.weight", 3072, 768}, {"mlp.c_proj.bias", 768, 0},
    };
    add(&sh[0], idx, sizeof idx, "wte.weight", 50257, 768);
    add(&sh[0], idx, sizeof idx, "wpe.weight", 1024, 768);
    for (int l = 0; l < 12; l++)
        for (size_t i = 0; i < sizeof block / sizeof block[0]; i++) {
            char name[64];
            snprintf(name, sizeof name, "h.%d.%s", l, block[i].name);
            add(&sh[l >= 6], idx, sizeof idx, name, block[i].rows, block[i].cols);
        }
    add(&sh[1], idx, sizeof idx, "ln_f.weight", 768, 0);
    add(&sh[1], idx, sizeof idx, "ln_f.bias", 768, 0);
    strcat(sh[0].header, "}");
    strcat(sh[1].header, "}");
    strcat(idx, "}}");
    assert_int_equal(sh[0].off + sh[1].off, 4 * 124439808ULL);

    mkdirs("models--openai-community--gpt2/snapshots/" MAIN);
    write_st("models--openai-community--gpt2/snapshots/" MAIN
             "/model-00001-of-00002.safetensors", sh[0].header, sh[0].off);
    write_st("models--openai-community--gpt2/snapshots/" MAIN
             "/model-00002-of-00002.safetensors", sh[1].header, sh[1].off);
    write_raw("models--openai-community--gpt2/snapshots/" MAIN "/model.safetensors.index.json",
              idx, strlen(idx));
    vl_hf_snapshot s;
    vl_sf_summary sum;
    bool found;
    char err[VL_ERR_LEN] = "";
    assert_true(vl_hf_resolve("openai-community/gpt2", &s, err));
    assert_string_equal(s.config, "");
    if (!vl_hf_weights(&s, &sum, &found, err))
        fail_msg("%s", err);
    assert_true(found && sum.from_index);
    assert_int_equal(sum.files, 2);
    assert_int_equal(sum.params, 124439808ULL);
    assert_int_equal(sum.bytes, 4 * 124439808ULL);
    assert_int_equal(sum.dtype_params[VL_SF_F32], 124439808ULL);
    assert_int_equal(sum.tensors, 2 + 12 * 12 + 2);

    /* an index naming a shard that is not there */
    char *second = strstr(idx, "model-00002-of-00002");
    memcpy(second, "model-00002-of-00003", 20);
    write_raw("models--openai-community--gpt2/snapshots/" MAIN "/model.safetensors.index.json",
              idx, strlen(idx));
    assert_false(vl_hf_weights(&s, &sum, &found, err));
    assert_non_null(strstr(err, "model-00002-of-00003.safetensors"));
}

/* Bad files: each an error naming the file, none a crash or a hang. */
static void test_bad_headers(void **state)
{
    (void)state;
    static const struct {
        const char *header;
        int64_t declared;    /* -1: the header's own length */
        uint64_t data;
        const char *why;
    } rows[] = {
        {"{}", 1, 0, "too short"},
        {"{}", 1000, 0, "does not fit the file"},
        {"{}", 200000000, 0, "over safetensors' limit"},
        {"{\"a\":", -1, 0, "header byte"},
        {"[1,2]", -1, 0, "not a JSON object"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", -1, 8, "header byte"},
        {"{\"a\":{\"dtype\":7,\"shape\":[2],\"data_offsets\":[0,8]}}", -1, 8, "dtype is not a string"},
        {"{\"a\":{\"dtype\":\"F33\",\"shape\":[2],\"data_offsets\":[0,8]}}", -1, 8, "unknown dtype 'F33'"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":\"2\",\"data_offsets\":[0,8]}}", -1, 8, "shape is not an array"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", -1, 8, "shape[0]"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2.5],\"data_offsets\":[0,8]}}", -1, 8, "shape[0]"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}",
         -1, 8, "overflows 64 bits"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", -1, 8, "not [begin, end]"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,16]}}", -1, 8, "outside the 8 data bytes"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", -1, 8, "hold 8 bytes, the shape 12"},
        {"{\"a\":[]}", -1, 0, "not an object"},
        {"{\"\xc3\x28\":1}", -1, 0, "not UTF-8"},
        {"{\"\xed\xa0\x80\":1}", -1, 0, "not UTF-8"}, /* a UTF-16 surrogate */
    };
    mkdirs("bad");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t declared = rows[i].declared < 0 ? strlen(rows[i].header)
                                                 : (uint64_t)rows[i].declared;
        write_st_len("bad/x.safetensors", rows[i].header, declared, rows[i].data);
        vl_sf_summary sum = {0};
        char err[VL_ERR_LEN] = "", p[512];
        path_of(p, sizeof p, "bad/x.safetensors");
        if (vl_sf_add_file(p, &sum, err))
            fail_msg("row %zu accepted", i);
        if (!strstr(err, rows[i].why) || strncmp(err, p, strlen(p)) != 0)
            fail_msg("row %zu: '%s' lacks '%s' or the file name", i, err, rows[i].why);
    }
    /* shorter than the length field */
    write_raw("bad/short.safetensors", "\x02\x00\x00", 3);
    char err[VL_ERR_LEN], p[512];
    vl_sf_summary sum = {0};
    path_of(p, sizeof p, "bad/short.safetensors");
    assert_false(vl_sf_add_file(p, &sum, err));
    assert_non_null(strstr(err, "truncated"));
    /* a FIFO: refused at once, never read */
    path_of(p, sizeof p, "bad/fifo.safetensors");
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_false(vl_sf_add_file(p, &sum, err));
    assert_non_null(strstr(err, "not a regular file"));
    path_of(p, sizeof p, "bad/absent.safetensors");
    assert_false(vl_sf_add_file(p, &sum, err));
    assert_non_null(strstr(err, "absent.safetensors"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve_and_count),
        cmocka_unit_test(test_cache_dir),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_sharded_gpt2),
        cmocka_unit_test(test_bad_headers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
