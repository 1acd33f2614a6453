/* export.c: Markdown/SVG export and scenario files, written atomically. */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "core/i18n.h"
#include "core/lora.h"

/* Writes a's content to a new temporary file next to a->path, its name in tmp.  false, with
 * nothing left behind, on any failure. */
static bool write_temp(const atomic_file *a, char *tmp, size_t tmplen, char *err, size_t errlen)
{
    if (snprintf(tmp, tmplen, "%s.XXXXXX", a->path) >= (int)tmplen) {
        snprintf(err, errlen, _("%s: path too long"), a->path);
        return false;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, _("%s: cannot create a file there: %s"), a->path, strerror(errno));
        return false;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", a->path, strerror(errno));
        close(fd);
        unlink(tmp);
        return false;
    }
    errno = 0;
    a->fill(f, a->arg);
    /* the default mode of a new file, not mkstemp's 0600 */
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && fflush(f) == 0 && !ferror(f) && fsync(fd) == 0;
    int saved = errno ? errno : EIO; /* a write error that set no errno */
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, errlen, _("%s: cannot write: %s"), a->path, strerror(saved));
        unlink(tmp);
    }
    return ok;
}

bool write_atomic_all(const atomic_file *files, size_t n, char *err, size_t errlen)
{
    char tmp[ATOMIC_MAX_FILES][4096];
    size_t written = 0, renamed = 0;
    if (n > ATOMIC_MAX_FILES) {
        snprintf(err, errlen, _("%zu files at once (at most %d)"), n, ATOMIC_MAX_FILES);
        return false;
    }
    while (written < n && write_temp(&files[written], tmp[written], sizeof tmp[0], err, errlen))
        written++;
    while (written == n && renamed < n && rename(tmp[renamed], files[renamed].path) == 0)
        renamed++;
    if (renamed == n)
        return true;
    if (written == n) /* a rename failed: the ones before it go again */
        snprintf(err, errlen, _("%s: cannot write: %s"), files[renamed].path, strerror(errno));
    for (size_t i = 0; i < renamed; i++)
        unlink(files[i].path);
    for (size_t i = renamed; i < written; i++)
        unlink(tmp[i]);
    return false;
}

bool write_atomic(const char *path, void (*fill)(FILE *, const void *), const void *arg,
                  char *err, size_t errlen)
{
    const atomic_file one = {path, fill, arg};
    return write_atomic_all(&one, 1, err, errlen);
}

bool user_preset_dir(char *buf, size_t len)
{
    return vl_user_preset_dir(buf, len);
}

/* mkdir -p */
static bool make_dirs(const char *dir, char *err, size_t errlen)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                snprintf(err, errlen, _("%s: cannot create folder: %s"), p, strerror(errno));
                return false;
            }
            *s = c;
            if (!c)
                return true;
        }
    }
}

static report explorer_report(const explorer *e)
{
    return (report){&e->model, &e->s, &e->b, explorer_gpu(e), VL_UNITS_GIB, true,
                    e->s.mode == VL_MODE_TRAIN ? e->zero : NULL, NULL, VL_SOLVE_MAX_BATCH};
}

/* The report in format fmt, with the step's timeline, whose peak is what must fit. */
static void fill_report(FILE *f, const explorer *e, report_format fmt)
{
    vl_settings s = explorer_settings(e);
    vl_timeline t;
    char why[VL_ERR_LEN];
    report r = explorer_report(e);
    const vl_runtime rt = explorer_runtime(e);
    r.runtime = &rt;
    if (vl_timeline_for(&e->model, &s, &rt, &t, why, sizeof why))
        r.timeline = &t;
    report_write(f, fmt, &r);
    vl_timeline_free(&t);
}

static void fill_markdown(FILE *f, const void *arg)
{
    fill_report(f, arg, FMT_MARKDOWN);
}

static void fill_svg(FILE *f, const void *arg)
{
    fill_report(f, arg, FMT_SVG);
}

bool export_whatif(const explorer *e, const char *dir, char *md, char *svg, size_t len, char *err,
                   size_t errlen)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    snprintf(md, len, "%s/vramlab-%s-%s.md", dir, e->model.name, stamp);
    snprintf(svg, len, "%s/vramlab-%s-%s.svg", dir, e->model.name, stamp);
    if (e->error) {
        snprintf(err, errlen, _("nothing to export: %s"), e->error);
        return false;
    }
    const atomic_file both[] = {{md, fill_markdown, e}, {svg, fill_svg, e}};
    return write_atomic_all(both, 2, err, errlen);
}

void scenario_default_name(const explorer *e, char *buf, size_t len)
{
    if (e->s.mode == VL_MODE_INFER)
        snprintf(buf, len, "%s-infer-%s-%" PRIu64 "gpu", e->model.name,
                 vl_dtype_names[e->s.weight_dtype], e->s.gpus);
    else
        snprintf(buf, len, "%s-%s-zero%u-%" PRIu64 "gpu", e->model.name,
                 vl_precision_names[e->s.precision], e->s.zero, e->s.gpus);
}

typedef struct scenario_arg {
    const explorer *e;
    const char *name;
} scenario_arg;

static void fill_scenario(FILE *f, const void *arg)
{
    const scenario_arg *a = arg;
    const explorer *e = a->e;
    const vl_settings s = explorer_settings(e);
    fprintf(f, "# saved by the vramlab explorer\nkind: scenario\nname: %s\n", a->name);
    if (e->detached) {
        fprintf(f, "params: %" PRIu64 "                # GPT-3-like shape derived\n",
                e->model.free_params);
    } else if (strncmp(e->model.origin, "(built-in)/", 11) == 0) {
        fprintf(f, "model: %s\n", e->model.name);
    } else { /* from a file (--preset-file, --hf-config, a folder): the model itself, so that
              * the scenario loads this model and not another of its name */
        fprintf(f, "model_definition:\n");
        vl_model_write_yaml(f, &e->model, "  ");
    }
    fprintf(f, "settings: {");
    vl_settings_write_yaml(f, &s, 11);
    fprintf(f, " gpu: %s}\n", explorer_gpu(e)->name);
}

save_result scenario_save(const explorer *e, const char *dir, const char *name, bool overwrite,
                          char *path, size_t len, char *err, size_t errlen)
{
    if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(name)) {
        snprintf(err, errlen,
                 _("'%s' is not a valid name (lower-case letters, digits, '.', '_', '-')"), name);
        return SAVE_FAILED;
    }
    if (snprintf(path, len, "%s/%s.yaml", dir, name) >= (int)len) {
        snprintf(err, errlen, _("%s: path too long"), dir);
        return SAVE_FAILED;
    }
    if (!make_dirs(dir, err, errlen))
        return SAVE_FAILED;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, _("%s: not a file (a folder?): choose another name"), path);
        return SAVE_FAILED;
    }
    if (!overwrite && access(path, F_OK) == 0)
        return SAVE_EXISTS;
    scenario_arg a = {e, name};
    return write_atomic(path, fill_scenario, &a, err, errlen) ? SAVE_OK : SAVE_FAILED;
}
