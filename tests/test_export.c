/* test_export.c: the explorer's files are written whole or not at all: a failed export
 * leaves neither the Markdown nor the SVG (nor a temporary file) behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/export.h"
#include "helpers.h"

/* The catalog fixture (helpers.h), and a write past RLIMIT_FSIZE fails with EFBIG instead
 * of killing the test. */
static int setup_export(void **state)
{
    signal(SIGXFSZ, SIG_IGN);
    return setup(state);
}

/* A new empty folder. */
static void new_dir(char *dir, size_t len)
{
    snprintf(dir, len, "%s/vramlab-export-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static off_t size_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

/* Files may grow to `bytes` (RLIMIT_FSIZE), or without limit again for 0. */
static void limit_file_size(rlim_t bytes)
{
    struct rlimit r;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &r), 0);
    r.rlim_cur = bytes ? bytes : r.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &r), 0);
}

static void remove_all(const char *dir, const char *a, const char *b)
{
    unlink(a);
    unlink(b);
    assert_int_equal(rmdir(dir), 0);
}

/* The SVG fails for want of room (EFBIG, as ENOSPC would) after the Markdown was written:
 * neither is left. */
static void test_export_all_or_nothing(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    char dir[256], md[512], svg[512], err[512];
    new_dir(dir, sizeof dir);
    assert_true(export_whatif(&e, dir, md, svg, sizeof md, err, sizeof err));
    off_t md_size = size_of(md), svg_size = size_of(svg);
    assert_true(md_size > 0 && md_size < svg_size); /* room for the first only, below */
    assert_int_equal(entries(dir), 2);
    remove_all(dir, md, svg);

    new_dir(dir, sizeof dir);
    limit_file_size((rlim_t)(md_size + svg_size) / 2);
    bool ok = export_whatif(&e, dir, md, svg, sizeof md, err, sizeof err);
    limit_file_size(0);
    assert_false(ok);
    assert_non_null(strstr(err, svg));
    assert_non_null(strstr(err, strerror(EFBIG)));
    assert_int_equal(entries(dir), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void fill_text(FILE *f, const void *arg)
{
    fputs(arg, f);
}

/* A rename that fails (the name is a folder's) after the first file was renamed into
 * place: the first goes again. */
static void test_rename_fails(void **state)
{
    (void)state;
    char dir[256], a[512], b[512], err[512];
    new_dir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.md", dir);
    snprintf(b, sizeof b, "%s/b.svg", dir);
    assert_int_equal(mkdir(b, 0777), 0);
    char inside[600];
    snprintf(inside, sizeof inside, "%s/keep", b); /* a folder that is not empty */
    FILE *f = fopen(inside, "w");
    assert_non_null(f);
    fclose(f);
    const atomic_file files[] = {{a, fill_text, "first"}, {b, fill_text, "second"}};
    assert_false(write_atomic_all(files, 2, err, sizeof err));
    assert_non_null(strstr(err, b));
    assert_int_equal(access(a, F_OK), -1);
    assert_int_equal(entries(dir), 1); /* the folder, nothing else */
    unlink(inside);
    rmdir(b);
    remove_all(dir, a, b);
}

/* The second file's folder does not exist: the first's temporary file goes. */
static void test_create_fails(void **state)
{
    (void)state;
    char dir[256], a[512], b[512], err[512];
    new_dir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.md", dir);
    snprintf(b, sizeof b, "%s/missing/b.svg", dir);
    const atomic_file files[] = {{a, fill_text, "first"}, {b, fill_text, "second"}};
    assert_false(write_atomic_all(files, 2, err, sizeof err));
    assert_non_null(strstr(err, b));
    assert_int_equal(entries(dir), 0);

    /* both folders there: both written, each with its content */
    snprintf(b, sizeof b, "%s/b.svg", dir);
    assert_true(write_atomic_all(files, 2, err, sizeof err));
    char buf[16] = "";
    FILE *f = fopen(b, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "second");
    assert_int_equal(size_of(a), 5);
    remove_all(dir, a, b);
}

/* A scenario saved from a model that came from a file embeds the model itself: GPT-2 cut to
 * 2 layers, named gpt2, loads back as those 2 layers, not as the built-in 12-layer gpt2,
 * with the keys that differ from their defaults (a bias on the output layer, no attention
 * dropout beside the residual stream's). */
static void test_scenario_embeds_file_model(void **state)
{
    (void)state;
    vl_model m = *vl_catalog_model(&cat, "gpt2");
    m.arch.layers = 2;
    m.arch.head_bias = true;
    m.arch.attention_dropout = VL_ATTN_DROPOUT_OFF;
    m.arch.attention_out_bias = VL_OUT_BIAS_OFF;
    snprintf(m.display, sizeof m.display, "GPT-2, \"2 layers\"\x1b");
    snprintf(m.origin, sizeof m.origin, "/somewhere/gpt2.yaml");
    m.published_params = 0;
    vl_settings s;
    vl_settings_default(&s);
    static explorer e;
    explorer_init(&e, &cat, &m, 0, &s);
    char dir[256], path[512], err[VL_ERR_LEN];
    new_dir(dir, sizeof dir);
    assert_int_equal(scenario_save(&e, dir, "two-layers", false, path, sizeof path, err,
                                   sizeof err), SAVE_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    static vl_preset p;
    assert_true(vl_preset_parse(path, text, n, &p, err));
    assert_int_equal(p.kind, VL_KIND_SCENARIO);
    const vl_scenario *sc = &p.u.scenario;
    assert_true(sc->has_model);
    assert_memory_equal(&sc->model_def.arch, &e.model.arch, sizeof e.model.arch);
    assert_string_equal(sc->model_def.display, m.display);
    vl_params a, b;
    vl_count_params(&sc->model_def.arch, &a);
    vl_count_params(&vl_catalog_model(&cat, "gpt2")->arch, &b);
    assert_true(a.total < b.total); /* not the built-in's 124,439,808 */
    static explorer back;
    explorer_init(&back, &cat, vl_catalog_model(&cat, "llama-2-7b"), 0, &s);
    assert_null(explorer_load_scenario(&back, sc));
    assert_int_equal(back.model.arch.layers, 2);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_all_or_nothing),
        cmocka_unit_test(test_rename_fails),
        cmocka_unit_test(test_create_fails),
        cmocka_unit_test(test_scenario_embeds_file_model),
    };
    return cmocka_run_group_tests(tests, setup_export, teardown);
}
