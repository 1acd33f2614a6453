/* catalog.c: the presets that were found, and the search path (HACKING §3). */
#include "catalog.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "names.h"
#include "fileio.h"

#define MAX_PRESET_BYTES (1 << 20)
#define MAX_WARNINGS 1000
#define MAX_DIR_FILES 10000

void vl_catalog_init(vl_catalog *c)
{
    memset(c, 0, sizeof *c);
}

/* An entry known by kind and name only: the text to parse is a built-in preset's. */
struct vl_pending {
    vl_kind kind;
    size_t index;   /* in the kind's array */
    size_t builtin; /* vl_builtin_presets[builtin] */
    char *file;     /* a file with the built-in's bytes, or NULL: the built-in itself */
    bool failed;    /* it did not parse (the look-up said why in the warnings) */
};

void vl_catalog_free(vl_catalog *c)
{
    for (size_t i = 0; i < c->n_pending; i++)
        free(c->pending[i].file);
    free(c->pending);
    free(c->models);
    free(c->gpus);
    free(c->scenarios);
    free(c->frameworks);
    free(c->lessons);
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
                   offsetof(vl_scenario, name) == 0 && offsetof(vl_framework, name) == 0 &&
                   offsetof(vl_lesson, name) == 0,
               "entries are found by their leading name");
_Static_assert(sizeof ((vl_model *)0)->name == sizeof ((vl_gpu *)0)->name &&
                   sizeof ((vl_model *)0)->name == sizeof ((vl_scenario *)0)->name &&
                   sizeof ((vl_model *)0)->name == sizeof ((vl_framework *)0)->name &&
                   sizeof ((vl_model *)0)->name == sizeof ((vl_lesson *)0)->name,
               "names are alike (insert_pending)");

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
    case VL_KIND_FRAMEWORK:
        return (shelf){(void **)&m->frameworks, &m->n_frameworks, &m->cap_frameworks,
                       sizeof(vl_framework)};
    case VL_KIND_LESSON:
        return (shelf){(void **)&m->lessons, &m->n_lessons, &m->cap_lessons, sizeof(vl_lesson)};
    default:
        return (shelf){(void **)&m->scenarios, &m->n_scenarios, &m->cap_scenarios,
                       sizeof(vl_scenario)};
    }
}

static const char *entry_name(shelf s, size_t i)
{
    return (const char *)*s.arr + i * s.elem;
}

/* The index of the entry of that kind and name, or the number of entries: none. */
static size_t index_of(const vl_catalog *c, vl_kind kind, const char *name)
{
    shelf s = shelf_of(c, kind);
    size_t i = 0;
    while (i < *s.n && strcmp(entry_name(s, i), name) != 0)
        i++;
    return i;
}

/* The pending record of entry i of kind, or c->n_pending: it is parsed. */
static size_t pending_of(const vl_catalog *c, vl_kind kind, size_t i)
{
    size_t k = 0;
    while (k < c->n_pending && (c->pending[k].kind != kind || c->pending[k].index != i))
        k++;
    return k;
}

static void drop_pending(vl_catalog *c, size_t k)
{
    free(c->pending[k].file);
    c->pending[k] = c->pending[--c->n_pending];
}

/* The slot for that kind and name: the entry's, or a new one at the end (later wins). */
static bool slot(vl_catalog *c, vl_kind kind, const char *name, size_t *index)
{
    shelf s = shelf_of(c, kind);
    size_t i = index_of(c, kind, name);
    if (i == *s.cap) {
        size_t ncap = *s.cap ? 2 * *s.cap : 16;
        void *a = realloc(*s.arr, ncap * s.elem);
        if (!a)
            return false;
        *s.arr = a;
        *s.cap = ncap;
    }
    if (i == *s.n)
        (*s.n)++;
    *index = i;
    return true;
}

/* Adds p, replacing an entry of the same kind and name (later wins). */
static bool insert(vl_catalog *c, const vl_preset *p, size_t *index)
{
    if (!slot(c, p->kind, (const char *)&p->u, index))
        return false;
    shelf s = shelf_of(c, p->kind);
    memcpy((char *)*s.arr + *index * s.elem, &p->u, s.elem);
    size_t k = pending_of(c, p->kind, *index);
    if (k < c->n_pending)
        drop_pending(c, k);
    return true;
}

/* Records built-in b as defined by file (NULL: the built-in itself), to be parsed when
 * looked up.  fresh: nothing of its kind and name is in the catalog yet (the built-ins'
 * names are unique, which build-aux/embed-presets checks), so no search is needed. */
static bool insert_pending(vl_catalog *c, size_t b, const char *file, bool fresh, size_t *index)
{
    const vl_builtin_preset *bp = &vl_builtin_presets[b];
    if (c->n_pending == c->cap_pending) {
        size_t ncap = c->cap_pending ? 2 * c->cap_pending : 64;
        void *a = realloc(c->pending, ncap * sizeof *c->pending);
        if (!a)
            return false;
        c->pending = a;
        c->cap_pending = ncap;
    }
    char *copy = file ? strdup(file) : NULL;
    shelf s = shelf_of(c, bp->kind);
    bool room = fresh ? *s.n < *s.cap : slot(c, bp->kind, bp->name, index);
    if ((file && !copy) || !room) {
        free(copy);
        return false;
    }
    if (fresh)
        *index = (*s.n)++;
    char *entry = (char *)*s.arr + *index * s.elem;
    /* only the name until it is parsed, which fills the whole entry: every kind's entry
     * starts with its name */
    memset(entry, 0, sizeof ((vl_model *)0)->name);
    memcpy(entry, bp->name, strnlen(bp->name, sizeof ((vl_model *)0)->name - 1));
    size_t k = fresh ? c->n_pending : pending_of(c, bp->kind, *index);
    if (k == c->n_pending)
        c->n_pending++;
    else
        free(c->pending[k].file);
    c->pending[k] = (struct vl_pending){bp->kind, *index, b, copy, false};
    return true;
}

/* Parses pending record k into its entry, checking that it defines what the index says. */
static bool parse_pending(vl_catalog *c, size_t k, char err[VL_ERR_LEN])
{
    struct vl_pending *q = &c->pending[k];
    const vl_builtin_preset *b = &vl_builtin_presets[q->builtin];
    char file[sizeof ((vl_model *)0)->origin]; /* what the parser keeps of it */
    if (q->file)
        snprintf(file, sizeof file, "%s", q->file);
    else
        snprintf(file, sizeof file, "(built-in)/%s", b->file);
    vl_preset *p = malloc(sizeof *p);
    err[0] = '\0';
    bool ok = p && vl_preset_parse_builtin(file, b->text, b->len, p, err);
    if (ok && (p->kind != b->kind || strcmp((const char *)&p->u, b->name) != 0)) {
        snprintf(err, VL_ERR_LEN, "%s: defines %s '%s', not the %s '%s' that "
                 "build-aux/embed-presets read", file, vl_kind_names[p->kind],
                 (const char *)&p->u, vl_kind_names[b->kind], b->name);
        ok = false;
    }
    if (ok) {
        shelf s = shelf_of(c, q->kind);
        memcpy((char *)*s.arr + q->index * s.elem, &p->u, s.elem);
        drop_pending(c, k);
    } else {
        q->failed = true;
        if (err[0] == '\0')
            snprintf(err, VL_ERR_LEN, "%s: out of memory", file);
    }
    free(p);
    return ok;
}

/* Every pending entry parsed. */
static bool parse_all(vl_catalog *c, char err[VL_ERR_LEN])
{
    while (c->n_pending)
        if (!parse_pending(c, c->n_pending - 1, err))
            return false;
    return true;
}

/* A folded name's room: a preset's name fits. */
#define FOLDED_LEN sizeof(((vl_gpu *)0)->name)

/* name as people write it folded to a preset's spelling: lower case, letters, digits and
 * the decimal point only ("RTX 3090", "rtx3090" and "rtx-3090" are one; "OPT 1.3B" and
 * "OPT-13B" are two); false when it does not fit. */
static bool fold(const char *name, char *out, size_t len)
{
    size_t n = 0;
    for (; *name; name++)
        if (isalnum((unsigned char)*name) || *name == '.') {
            if (n + 1 >= len)
                return false;
            out[n++] = (char)tolower((unsigned char)*name);
        }
    out[n] = '\0';
    return n > 0;
}

/* The entry of kind that name spells: exactly, else in another case, else folded (fold)
 * when one alone does. */
static size_t loose_index_of(const vl_catalog *c, vl_kind kind, const char *name)
{
    shelf s = shelf_of(c, kind);
    size_t i = index_of(c, kind, name), found = *s.n;
    char want[FOLDED_LEN], have[FOLDED_LEN];
    if (i < *s.n)
        return i;
    for (i = 0; i < *s.n; i++)
        if (strcasecmp(entry_name(s, i), name) == 0)
            return i;
    if (!fold(name, want, sizeof want))
        return *s.n;
    for (i = 0; i < *s.n; i++)
        if (fold(entry_name(s, i), have, sizeof have) && strcmp(have, want) == 0) {
            if (found < *s.n)
                return *s.n; /* two spell it: neither */
            found = i;
        }
    return found;
}

static const void *find(const vl_catalog *c, vl_kind kind, const char *name)
{
    vl_catalog *m = (vl_catalog *)c; /* a look-up fills in its entry (catalog.h) */
    size_t i = loose_index_of(c, kind, name), k = pending_of(c, kind, i);
    if (i == *shelf_of(c, kind).n)
        return NULL;
    if (k < c->n_pending) {
        char err[VL_ERR_LEN];
        if (c->pending[k].failed)
            return NULL;
        if (!parse_pending(m, k, err)) {
            warn(m, "%s", err);
            return NULL;
        }
    }
    return entry_name(shelf_of(c, kind), i);
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
    if (!vl_read_file(path, MAX_PRESET_BYTES, &buf, &len, err, VL_ERR_LEN))
        return false;
    bool ok = vl_catalog_add_text(c, path, buf, len, kind, index, err);
    free(buf);
    return ok;
}

/* Room for want entries of kind at least, so that adding them moves no entry. */
static bool reserve(vl_catalog *c, vl_kind kind, size_t want)
{
    shelf s = shelf_of(c, kind);
    if (*s.cap >= want)
        return true;
    void *a = realloc(*s.arr, want * s.elem);
    if (!a)
        return false;
    *s.arr = a;
    *s.cap = want;
    return true;
}

static bool index_builtin(vl_catalog *c, char err[VL_ERR_LEN])
{
    size_t index, per_kind[VL_N_KINDS] = {0};
    for (size_t i = 0; i < vl_n_builtin_presets; i++)
        per_kind[vl_builtin_presets[i].kind]++;
    for (int k = 0; k < VL_N_KINDS; k++) /* the built-ins, and a few a folder adds */
        if (!reserve(c, (vl_kind)k, per_kind[k] + 16)) {
            snprintf(err, VL_ERR_LEN, "out of memory");
            return false;
        }
    bool empty = true; /* then every built-in is new to it */
    for (int k = 0; k < VL_N_KINDS; k++)
        empty = empty && *shelf_of(c, (vl_kind)k).n == 0;
    for (size_t i = 0; i < vl_n_builtin_presets; i++)
        if (!insert_pending(c, i, NULL, empty, &index)) {
            snprintf(err, VL_ERR_LEN, "out of memory");
            return false;
        }
    return true;
}

bool vl_catalog_add_builtin(vl_catalog *c, char err[VL_ERR_LEN])
{
    return index_builtin(c, err) && parse_all(c, err);
}

/* The built-in preset whose text is text, or vl_n_builtin_presets: none. */
static size_t same_as_builtin(const char *text, size_t len)
{
    size_t i = 0;
    while (i < vl_n_builtin_presets && (vl_builtin_presets[i].len != len ||
                                        memcmp(vl_builtin_presets[i].text, text, len) != 0))
        i++;
    return i;
}

/* ---- folders ------------------------------------------------------------------------- */

static bool is_preset_file(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && ((n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
                              (n > 4 && strcmp(name + n - 4, ".yml") == 0));
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

/* A folder is searched file by file in name order: each file is read, and parsed unless it
 * has a built-in preset's bytes (then it defines what that built-in defines, parsed when
 * looked up).  A bad file is a warning, and so is a name defined twice in the folder. */
void vl_catalog_add_dir(vl_catalog *c, const char *dir)
{
    char **files = NULL;
    size_t cap = 0, n = list_files(c, dir, 0, &files, &cap, 0);
    if (n)
        qsort(files, n, sizeof *files, vl_strcmp_ptrs);

    /* the entries this folder defined so far, and the files they came from */
    struct seen {
        vl_kind kind;
        size_t index;
        const char *file;
    } *seen = calloc(n ? n : 1, sizeof *seen);
    vl_preset *p = malloc(sizeof *p);
    size_t n_seen = 0;
    char err[VL_ERR_LEN];
    for (size_t i = 0; seen && p && i < n; i++) {
        const char *path = files[i];
        char *buf = NULL;
        size_t len, b = vl_n_builtin_presets, j, index;
        bool ok = vl_read_file(path, MAX_PRESET_BYTES, &buf, &len, err, VL_ERR_LEN) &&
                  ((b = same_as_builtin(buf, len)) < vl_n_builtin_presets ||
                   vl_preset_parse(path, buf, len, p, err));
        free(buf);
        if (!ok) {
            warn(c, "%s", err);
            continue;
        }
        vl_kind kind = b < vl_n_builtin_presets ? vl_builtin_presets[b].kind : p->kind;
        const char *name = b < vl_n_builtin_presets ? vl_builtin_presets[b].name
                                                    : (const char *)&p->u;
        index = index_of(c, kind, name);
        for (j = 0; j < n_seen; j++)
            if (seen[j].kind == kind && seen[j].index == index)
                break;
        if (j < n_seen) {
            warn(c, "%s: duplicate %s name '%s' (also in %s); this one is ignored", path,
                 vl_kind_names[kind], name, seen[j].file);
            continue;
        }
        if (!(b < vl_n_builtin_presets ? insert_pending(c, b, path, false, &index)
                                       : insert(c, p, &index))) {
            warn(c, "%s: out of memory", path);
            continue;
        }
        seen[n_seen++] = (struct seen){kind, index, path};
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    free(seen);
    free(p);
}

/* ---- the search path ----------------------------------------------------------------- */

static void add_path(char (*dirs)[VL_PATH_LEN], size_t max, size_t *n, const char *dir)
{
    if (*n < max && (size_t)snprintf(dirs[*n], VL_PATH_LEN, "%s", dir) < VL_PATH_LEN)
        (*n)++;
}

bool vl_user_preset_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/vramlab/presets", xdg);
    else if (home && home[0])
        n = snprintf(buf, len, "%s/.config/vramlab/presets", home);
    return n >= 0 && (size_t)n < len;
}

size_t vl_preset_dirs(char (*dirs)[VL_PATH_LEN], size_t max, size_t *dropped)
{
    size_t n = 0;
    *dropped = 0;
#ifdef VL_PRESETDIR
    add_path(dirs, max, &n, VL_PRESETDIR);
#endif
    /* the source tree: ./presets beside the sources */
    if (access("presets", F_OK) == 0 && access("src/core/preset.c", F_OK) == 0)
        add_path(dirs, max, &n, "presets");
    if (n < max && vl_user_preset_dir(dirs[n], VL_PATH_LEN))
        n++;
    const char *env = getenv("VRAMLAB_PRESETS");
    while (env && *env) {
        size_t len = strcspn(env, ":");
        if (len > 0 && len < VL_PATH_LEN && n < max) {
            memcpy(dirs[n], env, len);
            dirs[n++][len] = '\0';
        } else if (len > 0) {
            (*dropped)++;
        }
        env += len + (env[len] == ':');
    }
    return n;
}

bool vl_catalog_open(vl_catalog *c, char err[VL_ERR_LEN])
{
    if (c->opened)
        return true;
    if (!index_builtin(c, err))
        return false;
    char(*dirs)[VL_PATH_LEN] = malloc(VL_MAX_PRESET_DIRS * sizeof *dirs);
    if (!dirs) {
        snprintf(err, VL_ERR_LEN, "out of memory");
        return false;
    }
    size_t dropped, n = vl_preset_dirs(dirs, VL_MAX_PRESET_DIRS, &dropped);
    if (dropped)
        warn(c, "VRAMLAB_PRESETS: %zu folder%s not searched (at most %d folders, each under %d "
                "characters)", dropped, dropped == 1 ? "" : "s", VL_MAX_PRESET_DIRS, VL_PATH_LEN);
    for (size_t i = 0; i < n; i++)
        vl_catalog_add_dir(c, dirs[i]);
    free(dirs);
    c->opened = true;
    return true;
}

bool vl_catalog_load(vl_catalog *c, char err[VL_ERR_LEN])
{
    return vl_catalog_open(c, err) && parse_all(c, err);
}

/* ---- look-ups ------------------------------------------------------------------------ */

const vl_model *vl_catalog_model(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_MODEL, name);
}

/* The length of the repository id m's source begins with ("ORG/NAME config.json": of
 * ORG/NAME); 0 when its source names none. */
static size_t source_repo_len(const vl_model *m)
{
    const size_t n = strcspn(m->source, " ");
    return strncmp(m->source + n, " config.json", 12) == 0 && memchr(m->source, '/', n) ? n : 0;
}

const vl_model *vl_catalog_model_of_repo(const vl_catalog *c, const char *repo)
{
    const size_t n = strlen(repo);
    shelf s = shelf_of(c, VL_KIND_MODEL);
    for (size_t i = 0; i < *s.n; i++) {
        const vl_model *m = find(c, VL_KIND_MODEL, entry_name(s, i));
        if (m && n && source_repo_len(m) == n && strncasecmp(m->source, repo, n) == 0)
            return m;
    }
    return NULL;
}

/* The name of the repository m is read from (source_repo_len), folded into out; false when
 * its source names none. */
static bool fold_source_repo(const vl_model *m, char *out, size_t len)
{
    const size_t n = source_repo_len(m);
    const char *slash = n ? memchr(m->source, '/', n) : NULL;
    char name[sizeof m->source];
    if (!slash)
        return false;
    snprintf(name, sizeof name, "%.*s", (int)(m->source + n - slash - 1), slash + 1);
    return fold(name, out, len);
}

const char *vl_catalog_model_like_repo(const vl_catalog *c, const char *repo)
{
    shelf s = shelf_of(c, VL_KIND_MODEL);
    const char *slash = strrchr(repo, '/'), *base = NULL;
    char want[FOLDED_LEN], have[FOLDED_LEN];
    size_t base_len = 0;
    if (!slash || !fold(slash + 1, want, sizeof want))
        return NULL;
    for (size_t i = 0; i < *s.n; i++) {
        /* the preset's name, then its repository's ("Meta-Llama-3-8B-Instruct": llama-3-8b,
         * read from meta-llama/Meta-Llama-3-8B) */
        const vl_model *m = find(c, VL_KIND_MODEL, entry_name(s, i));
        for (int by_repo = 0; by_repo < 2; by_repo++) {
            const bool folded = by_repo ? m && fold_source_repo(m, have, sizeof have)
                                        : fold(entry_name(s, i), have, sizeof have);
            if (folded && strncmp(want, have, strlen(have)) == 0 && strlen(have) > base_len) {
                base = entry_name(s, i);
                base_len = strlen(have);
            }
        }
    }
    return base;
}

const vl_gpu *vl_catalog_gpu(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_GPU, name);
}

const vl_scenario *vl_catalog_scenario(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_SCENARIO, name);
}

const vl_framework *vl_catalog_framework(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_FRAMEWORK, name);
}

const vl_lesson *vl_catalog_lesson(const vl_catalog *c, const char *name)
{
    return find(c, VL_KIND_LESSON, name);
}

const char *vl_catalog_hint(const vl_catalog *c, vl_kind kind, const char *name, char *buf,
                            size_t len)
{
    const char *base = kind == VL_KIND_MODEL ? vl_catalog_model_like_repo(c, name) : NULL;
    if (base) { /* a repository's id: the preset its name begins with */
        snprintf(buf, len, "; did you mean '%s'?", base);
        return buf;
    }
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
    /* the names that begin as it does, folded ("H100": h100-80gb, h100-pcie), when a few do;
     * else the nearest by spelling; else those that hold it ("4090": rtx-4090), when a few
     * do */
    char want[FOLDED_LEN], have[FOLDED_LEN];
    const char *found[3];
    size_t n = 0, more = 0;
    const bool folded = fold(name, want, sizeof want);
    const char *near = NULL;
    for (int pass = 0; folded && pass < 2 && !near && n == 0 && more == 0; pass++) {
        if (pass == 1 && (near = vl_did_you_mean(name, names, na + nb)) != NULL)
            break;
        for (size_t i = 0; i < na + nb; i++) {
            const char *at = fold(names[i], have, sizeof have) ? strstr(have, want) : NULL;
            if (!at || (pass == 0 && at != have))
                continue;
            if (n < sizeof found / sizeof *found)
                found[n++] = names[i];
            else
                more++;
        }
    }
    if (n && !more) {
        size_t o = (size_t)snprintf(buf, len, "; did you mean");
        for (size_t i = 0; i < n && o < len; i++)
            o += (size_t)snprintf(buf + o, len - o, "%s'%s'",
                                  i == 0 ? " " : i + 1 < n ? ", " : " or ", found[i]);
        if (o < len)
            snprintf(buf + o, len - o, "?");
    } else {
        vl_hint(name, names, na + nb, buf, len);
    }
    free(names);
    return buf;
}
