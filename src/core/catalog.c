/* catalog.c: the presets that were found, and the search path (HACKING §3). */
#include "catalog.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "names.h"
#include "yamldoc.h"

#define MAX_PRESET_BYTES (1 << 20)
#define MAX_WARNINGS 1000
#define MAX_DIR_FILES 10000

void vl_catalog_init(vl_catalog *c)
{
    memset(c, 0, sizeof *c);
}

void vl_catalog_free(vl_catalog *c)
{
    free(c->models);
    free(c->gpus);
    free(c->scenarios);
    free(c->warnings);
    memset(c, 0, sizeof *c);
}

static void warn(vl_catalog *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(vl_catalog *c, const char *fmt, ...)
{
    if (c->n_warnings == MAX_WARNINGS)
        return;
    if (c->n_warnings == c->cap_warnings) {
        size_t ncap = c->cap_warnings ? 2 * c->cap_warnings : 8;
        void *p = realloc(c->warnings, ncap * sizeof *c->warnings);
        if (!p)
            return;
        c->warnings = p;
        c->cap_warnings = ncap;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->warnings[c->n_warnings++], VL_ERR_LEN, fmt, ap);
    va_end(ap);
}

_Static_assert(offsetof(vl_model, name) == 0 && offsetof(vl_gpu, name) == 0 &&
                   offsetof(vl_scenario, name) == 0,
               "entries are found by their leading name");

/* The entries of one kind, as an array of elem-sized structs that start with their name. */
typedef struct shelf {
    void **arr;
    size_t *n, *cap, elem;
} shelf;

static shelf shelf_of(const vl_catalog *c, vl_kind kind)
{
    vl_catalog *m = (vl_catalog *)c; /* the shelf is only written through non-const callers */
    switch (kind) {
    case VL_KIND_MODEL:
        return (shelf){(void **)&m->models, &m->n_models, &m->cap_models, sizeof(vl_model)};
    case VL_KIND_GPU:
        return (shelf){(void **)&m->gpus, &m->n_gpus, &m->cap_gpus, sizeof(vl_gpu)};
    default:
        return (shelf){(void **)&m->scenarios, &m->n_scenarios, &m->cap_scenarios,
                       sizeof(vl_scenario)};
    }
}

static const char *entry_name(shelf s, size_t i)
{
    return (const char *)*s.arr + i * s.elem;
}

static const void *find(const vl_catalog *c, vl_kind kind, const char *name)
{
    shelf s = shelf_of(c, kind);
    for (size_t i = 0; i < *s.n; i++)
        if (strcmp(entry_name(s, i), name) == 0)
            return entry_name(s, i);
    return NULL;
}

/* Adds p, replacing an entry of the same kind and name (later wins). */
static bool insert(vl_catalog *c, const vl_preset *p, size_t *index)
{
    shelf s = shelf_of(c, p->kind);
    const char *name = (const char *)&p->u;
    size_t i = 0;
    while (i < *s.n && strcmp(entry_name(s, i), name) != 0)
        i++;
    if (i == *s.cap) {
        size_t ncap = *s.cap ? 2 * *s.cap : 16;
        void *a = realloc(*s.arr, ncap * s.elem);
        if (!a)
            return false;
        *s.arr = a;
        *s.cap = ncap;
    }
    memcpy((char *)*s.arr + i * s.elem, &p->u, s.elem);
    if (i == *s.n)
        (*s.n)++;
    *index = i;
    return true;
}

bool vl_catalog_add_text(vl_catalog *c, const char *file, const char *text, size_t len,
                         vl_kind *kind, size_t *index, char err[VL_ERR_LEN])
{
    vl_preset *p = malloc(sizeof *p);
    bool ok = p && vl_preset_parse(file, text, len, p, err);
    if (ok) {
        *kind = p->kind;
        ok = insert(c, p, index);
    }
    if (!p || (!ok && err[0] == '\0'))
        snprintf(err, VL_ERR_LEN, "%s: out of memory", file);
    free(p);
    return ok;
}

bool vl_catalog_add_file(vl_catalog *c, const char *path, vl_kind *kind, size_t *index,
                         char err[VL_ERR_LEN])
{
    char *buf;
    size_t len;
    err[0] = '\0';
    if (!vl_read_text_file(path, MAX_PRESET_BYTES, &buf, &len, err))
        return false;
    bool ok = vl_catalog_add_text(c, path, buf, len, kind, index, err);
    free(buf);
    return ok;
}

bool vl_catalog_add_builtin(vl_catalog *c, char err[VL_ERR_LEN])
{
    for (size_t i = 0; i < vl_n_builtin_presets; i++) {
        const vl_builtin_preset *b = &vl_builtin_presets[i];
        char file[128];
        vl_kind kind;
        size_t index;
        snprintf(file, sizeof file, "(built-in)/%s", b->file);
        err[0] = '\0';
        if (!vl_catalog_add_text(c, file, b->text, strlen(b->text), &kind, &index, err))
            return false;
    }
    return true;
}

/* ---- folders ------------------------------------------------------------------------- */

static bool is_preset_file(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && ((n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
                              (n > 4 && strcmp(name + n - 4, ".yml") == 0));
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the preset files under dir (and its subfolders, one level down) to *out. */
static size_t list_files(vl_catalog *c, const char *dir, int depth, char ***out, size_t *cap,
                         size_t n)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        if (errno != ENOENT && errno != ENOTDIR)
            warn(c, "%s: cannot read the folder: %s", dir, strerror(errno));
        return n;
    }
    struct dirent *e;
    while ((e = readdir(dp)) != NULL && n < MAX_DIR_FILES) {
        char path[VL_PATH_LEN];
        struct stat st;
        if (e->d_name[0] == '.' ||
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
            stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth == 0) {
            n = list_files(c, path, depth + 1, out, cap, n);
            continue;
        }
        if (!S_ISREG(st.st_mode) || !is_preset_file(e->d_name))
            continue;
        if (n == *cap) {
            size_t ncap = *cap ? 2 * *cap : 32;
            char **p = realloc(*out, ncap * sizeof *p);
            if (!p)
                break;
            *out = p;
            *cap = ncap;
        }
        if (((*out)[n] = strdup(path)) != NULL)
            n++;
    }
    closedir(dp);
    return n;
}

void vl_catalog_add_dir(vl_catalog *c, const char *dir)
{
    char **files = NULL;
    size_t cap = 0, n = list_files(c, dir, 0, &files, &cap, 0);
    if (n)
        qsort(files, n, sizeof *files, by_path);

    /* what this folder defined so far: a name twice in one folder is a mistake */
    const char **seen_file = calloc(n ? n : 1, sizeof *seen_file);
    vl_preset *seen = calloc(n ? n : 1, sizeof *seen);
    size_t n_seen = 0;
    char err[VL_ERR_LEN];
    for (size_t i = 0; seen && seen_file && i < n; i++) {
        const char *path = files[i];
        char *buf = NULL;
        size_t len, j, index;
        bool ok = vl_read_text_file(path, MAX_PRESET_BYTES, &buf, &len, err) &&
                  vl_preset_parse(path, buf, len, &seen[n_seen], err);
        free(buf);
        if (!ok) {
            warn(c, "%s", err);
            continue;
        }
        const vl_preset *p = &seen[n_seen];
        for (j = 0; j < n_seen; j++)
            if (seen[j].kind == p->kind &&
                strcmp((const char *)&seen[j].u, (const char *)&p->u) == 0)
                break;
        if (j < n_seen) {
            warn(c, "%s: duplicate %s name '%s' (also in %s); this one is ignored", path,
                 vl_kind_names[p->kind], (const char *)&p->u, seen_file[j]);
            continue;
        }
        if (!insert(c, p, &index)) {
            warn(c, "%s: out of memory", path);
            continue;
        }
        seen_file[n_seen++] = path;
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    free(seen_file);
    free(seen);
}

/* ---- the search path ----------------------------------------------------------------- */

static bool add_path(char (*dirs)[VL_PATH_LEN], size_t max, size_t *n, const char *a,
                     const char *b)
{
    if (*n == max || (size_t)snprintf(dirs[*n], VL_PATH_LEN, "%s%s", a, b) >= VL_PATH_LEN)
        return false;
    (*n)++;
    return true;
}

size_t vl_preset_dirs(char (*dirs)[VL_PATH_LEN], size_t max)
{
    size_t n = 0;
#ifdef VL_PRESETDIR
    add_path(dirs, max, &n, VL_PRESETDIR, "");
#endif
    /* the source tree: ./presets beside the sources */
    if (access("presets", F_OK) == 0 && access("src/core/preset.c", F_OK) == 0)
        add_path(dirs, max, &n, "presets", "");
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        add_path(dirs, max, &n, xdg, "/vramlab/presets");
    else if (home && home[0])
        add_path(dirs, max, &n, home, "/.config/vramlab/presets");
    const char *env = getenv("VRAMLAB_PRESETS");
    while (env && *env) {
        size_t len = strcspn(env, ":");
        if (len > 0 && len < VL_PATH_LEN && n < max) {
            memcpy(dirs[n], env, len);
            dirs[n++][len] = '\0';
        }
        env += len + (env[len] == ':');
    }
    return n;
}

#define MAX_DIRS 64

bool vl_catalog_load(vl_catalog *c, char err[VL_ERR_LEN])
{
    if (!vl_catalog_add_builtin(c, err))
        return false;
    char(*dirs)[VL_PATH_LEN] = malloc(MAX_DIRS * sizeof *dirs);
    if (!dirs) {
        snprintf(err, VL_ERR_LEN, "out of memory");
        return false;
    }
    size_t n = vl_preset_dirs(dirs, MAX_DIRS);
    for (size_t i = 0; i < n; i++)
        vl_catalog_add_dir(c, dirs[i]);
    free(dirs);
    return true;
}

/* ---- look-ups ------------------------------------------------------------------------ */

const vl_model *vl_catalog_model(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_MODEL, name);
}

const vl_gpu *vl_catalog_gpu(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_GPU, name);
}

const vl_scenario *vl_catalog_scenario(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_SCENARIO, name);
}

const char *vl_catalog_hint(const vl_catalog *c, vl_kind kind, const char *name, char *buf,
                            size_t len)
{
    shelf a = shelf_of(c, kind), b = shelf_of(c, VL_KIND_SCENARIO);
    size_t na = *a.n, nb = kind == VL_KIND_MODEL ? *b.n : 0;
    const char **names = malloc((na + nb + 1) * sizeof *names);
    buf[0] = '\0';
    if (!names)
        return buf;
    for (size_t i = 0; i < na; i++)
        names[i] = entry_name(a, i);
    for (size_t i = 0; i < nb; i++)
        names[na + i] = entry_name(b, i);
    vl_hint(name, names, na + nb, buf, len);
    free(names);
    return buf;
}
