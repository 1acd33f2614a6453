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
#include "core/lora.h"

bool write_atomic(const char *path, void (*fill)(FILE *, const void *), const void *arg,
                  char *err, size_t errlen)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return false;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a file there: %s", path, strerror(errno));
        return false;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        return false;
    }
    fill(f, arg);
    /* the default mode of a new file, not mkstemp's 0600 */
    mode_t mask = umask(0);
    umask(mask);
    bool ok = fchmod(fd, 0666 & ~mask) == 0 && fflush(f) == 0 && !ferror(f) && fsync(fd) == 0;
    int saved = errno;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(ok ? errno : saved));
        unlink(tmp);
        return false;
    }
    return true;
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
                snprintf(err, errlen, "%s: cannot create folder: %s", p, strerror(errno));
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

static void fill_markdown(FILE *f, const void *arg)
{
    report r = explorer_report(arg);
    report_write(f, FMT_MARKDOWN, &r);
}

static void fill_svg(FILE *f, const void *arg)
{
    report r = explorer_report(arg);
    svg_write(f, &r);
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
        snprintf(err, errlen, "nothing to export: %s", e->error);
        return false;
    }
    return write_atomic(md, fill_markdown, e, err, errlen) &&
           write_atomic(svg, fill_svg, e, err, errlen);
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
    if (e->detached)
        fprintf(f, "params: %" PRIu64 "                # GPT-3-like shape derived\n",
                e->model.free_params);
    else
        fprintf(f, "model: %s\n", e->model.name);
    fprintf(f, "settings: {");
    vl_settings_write_yaml(f, &s, 11);
    fprintf(f, " gpu: %s}\n", explorer_gpu(e)->name);
}

save_result scenario_save(const explorer *e, const char *dir, const char *name, bool overwrite,
                          char *path, size_t len, char *err, size_t errlen)
{
    if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(name)) {
        snprintf(err, errlen, "'%s' is not a valid name (lower-case letters, digits, '.', '_', '-')",
                 name);
        return SAVE_FAILED;
    }
    if (snprintf(path, len, "%s/%s.yaml", dir, name) >= (int)len) {
        snprintf(err, errlen, "%s: path too long", dir);
        return SAVE_FAILED;
    }
    if (!make_dirs(dir, err, errlen))
        return SAVE_FAILED;
    if (!overwrite && access(path, F_OK) == 0)
        return SAVE_EXISTS;
    scenario_arg a = {e, name};
    return write_atomic(path, fill_scenario, &a, err, errlen) ? SAVE_OK : SAVE_FAILED;
}
