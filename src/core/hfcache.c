/* hfcache.c: the local Hugging Face cache and safetensors headers (see hfcache.h). */
#include "hfcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "hfconfig.h"
#include "names.h"
#include "units.h"
#include "utf8.h"

/* safetensors refuses headers over 100,000,000 bytes (MAX_HEADER_SIZE, safetensors/src/
 * tensor.rs); an index file is a few hundred kB. */
#define SF_MAX_HEADER 100000000ULL
#define INDEX_MAX (64ULL << 20)

#define VL_SF_NAME(id, size) #id,
static const char *const dtype_names[VL_SF_N] = {VL_SF_DTYPES(VL_SF_NAME)};
#undef VL_SF_NAME
#define VL_SF_SIZE(id, size) size,
static const unsigned dtype_sizes[VL_SF_N] = {VL_SF_DTYPES(VL_SF_SIZE)};
#undef VL_SF_SIZE

static bool fail(char err[VL_ERR_LEN], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, VL_ERR_LEN, fmt, ap);
    va_end(ap);
    return false;
}

/* Opens a regular file for reading without blocking on a FIFO or a device. */
static int open_regular(const char *path, uint64_t *size, char err[VL_ERR_LEN])
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fail(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(err, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

/* The whole of a small regular file, NUL-terminated (fileio.h); free() it. */
static char *slurp(const char *path, uint64_t max, size_t *len, char err[VL_ERR_LEN])
{
    char *buf;
    return vl_read_file(path, (size_t)max, &buf, len, err, VL_ERR_LEN) ? buf : NULL;
}

/* RFC 3629 UTF-8 (utf8.h), all n bytes of it. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = vl_utf8_sequence(s + i, n - i, &cp)))
            return false;
    return true;
}

static bool dtype_of(const char *name, vl_sf_dtype *d)
{
    for (int i = 0; i < VL_SF_N; i++)
        if (strcmp(name, dtype_names[i]) == 0) {
            *d = (vl_sf_dtype)i;
            return true;
        }
    return false;
}

/* One tensor entry: its dtype, element count and byte range, checked against the data. */
static bool add_tensor(const char *path, const char *name, json_t *t, uint64_t data_len,
                       vl_sf_summary *sum, char err[VL_ERR_LEN])
{
    if (!json_is_object(t))
        return fail(err, "%s: tensor %s: not an object", path, name);
    json_t *dt = json_object_get(t, "dtype"), *shape = json_object_get(t, "shape"),
           *offs = json_object_get(t, "data_offsets");
    vl_sf_dtype d;
    if (!json_is_string(dt))
        return fail(err, "%s: tensor %s: dtype is not a string", path, name);
    if (!dtype_of(json_string_value(dt), &d))
        return fail(err, "%s: tensor %s: unknown dtype '%s'", path, name, json_string_value(dt));
    if (!json_is_array(shape))
        return fail(err, "%s: tensor %s: shape is not an array", path, name);
    bool ovf = false;
    uint64_t n = 1;
    for (size_t i = 0; i < json_array_size(shape); i++) {
        json_t *dim = json_array_get(shape, i);
        if (!json_is_integer(dim) || json_integer_value(dim) < 0)
            return fail(err, "%s: tensor %s: shape[%zu] is not a non-negative integer", path,
                        name, i);
        n = vl_mul(n, (uint64_t)json_integer_value(dim), &ovf);
    }
    uint64_t bytes = vl_mul(n, dtype_sizes[d], &ovf);
    if (ovf)
        return fail(err, "%s: tensor %s: the shape's size overflows 64 bits", path, name);
    if (!json_is_array(offs) || json_array_size(offs) != 2 ||
        !json_is_integer(json_array_get(offs, 0)) || !json_is_integer(json_array_get(offs, 1)))
        return fail(err, "%s: tensor %s: data_offsets is not [begin, end]", path, name);
    json_int_t b = json_integer_value(json_array_get(offs, 0)),
               e = json_integer_value(json_array_get(offs, 1));
    if (b < 0 || e < b || (uint64_t)e > data_len)
        return fail(err, "%s: tensor %s: data_offsets [%lld, %lld] outside the %llu data bytes",
                    path, name, (long long)b, (long long)e, (unsigned long long)data_len);
    if ((uint64_t)(e - b) != bytes)
        return fail(err, "%s: tensor %s: data_offsets hold %lld bytes, the shape %llu",
                    path, name, (long long)(e - b), (unsigned long long)bytes);
    sum->params = vl_add(sum->params, n, &ovf);
    sum->bytes = vl_add(sum->bytes, bytes, &ovf);
    sum->dtype_params[d] = vl_add(sum->dtype_params[d], n, &ovf);
    sum->tensors++;
    if (ovf)
        return fail(err, "%s: the totals overflow 64 bits", path);
    return true;
}

/* The parsed header of one file (a JSON object), or NULL with err set. */
static json_t *read_header(const char *path, uint64_t *data_len, char err[VL_ERR_LEN])
{
    uint64_t size;
    int fd = open_regular(path, &size, err);
    if (fd < 0)
        return NULL;
    json_t *root = NULL;
    unsigned char le[8];
    char *buf = NULL;
    uint64_t n = 0;
    if (size < 8 || !read_at(fd, le, 8, 0)) {
        fail(err, "%s: truncated: no 8-byte header length", path);
        goto out;
    }
    for (int i = 7; i >= 0; i--)
        n = n << 8 | le[i];
    if (n > SF_MAX_HEADER) {
        fail(err, "%s: header length %llu is over safetensors' limit of %llu", path,
             (unsigned long long)n, SF_MAX_HEADER);
        goto out;
    }
    if (n < 2) {
        fail(err, "%s: header length %llu is too short for a JSON object", path,
             (unsigned long long)n);
        goto out;
    }
    if (n > size - 8) {
        fail(err, "%s: header length %llu does not fit the file's %llu bytes", path,
             (unsigned long long)n, (unsigned long long)size);
        goto out;
    }
    if (!(buf = malloc(n)) || !read_at(fd, buf, n, 8)) {
        fail(err, "%s: cannot read the %llu-byte header", path, (unsigned long long)n);
        goto out;
    }
    if (!valid_utf8((unsigned char *)buf, n)) {
        fail(err, "%s: the header is not UTF-8", path);
        goto out;
    }
    json_error_t je;
    root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        fail(err, "%s: header byte %d: %s", path, je.position, je.text);
    else if (!json_is_object(root)) {
        fail(err, "%s: the header is not a JSON object", path);
        json_decref(root);
        root = NULL;
    }
    *data_len = size - 8 - n;
out:
    free(buf);
    close(fd);
    return root;
}

/* Adds a file's tensors; with `want` (a weight_map), checks that each tensor it assigns to
 * this file is present. */
static bool add_file(const char *path, const char *base, json_t *want, vl_sf_summary *sum,
                     char err[VL_ERR_LEN])
{
    uint64_t data_len = 0;
    json_t *root = read_header(path, &data_len, err);
    if (!root)
        return false;
    bool ok = true;
    const char *name;
    json_t *t;
    json_object_foreach(root, name, t) {
        if (strcmp(name, "__metadata__") == 0)
            continue;
        if (!(ok = add_tensor(path, name, t, data_len, sum, err)))
            break;
    }
    if (ok && want) {
        json_t *file;
        json_object_foreach(want, name, file) {
            if (json_is_string(file) && strcmp(json_string_value(file), base) == 0 &&
                !json_object_get(root, name)) {
                ok = fail(err, "%s: tensor %s, which the index places here, is missing", path,
                          name);
                break;
            }
        }
    }
    json_decref(root);
    if (ok)
        sum->files++;
    return ok;
}

bool vl_sf_add_file(const char *path, vl_sf_summary *sum, char err[VL_ERR_LEN])
{
    return add_file(path, NULL, NULL, sum, err);
}

/* ---- the cache ---------------------------------------------------------------------- */

static bool join(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    return n > 0 && (size_t)n < len;
}

bool vl_hf_cache_dir(char *out, size_t len)
{
    static const struct {
        const char *var, *sub;
    } order[] = {
        {"HF_HUB_CACHE", NULL},
        {"HUGGINGFACE_HUB_CACHE", NULL},
        {"HF_HOME", "hub"},
        {"XDG_CACHE_HOME", "huggingface/hub"},
        {"HOME", ".cache/huggingface/hub"},
    };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *v = getenv(order[i].var);
        if (!v || !*v)
            continue;
        if (!order[i].sub) {
            int n = snprintf(out, len, "%s", v);
            return n > 0 && (size_t)n < len;
        }
        return join(out, len, v, order[i].sub);
    }
    return false;
}

/* huggingface_hub's validate_repo_id: NAME or ORG/NAME, each [A-Za-z0-9._-]{1,96}, no "--"
 * or "..", not starting or ending with '-' or '.'. */
static bool valid_part(const char *s, size_t n)
{
    if (n == 0 || n > 96 || s[0] == '-' || s[0] == '.' || s[n - 1] == '-' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok || (i > 0 && (c == '-' || c == '.') && s[i - 1] == c))
            return false;
    }
    return true;
}

static bool valid_repo(const char *repo)
{
    const char *slash = strchr(repo, '/');
    if (!slash)
        return valid_part(repo, strlen(repo));
    return !strchr(slash + 1, '/') && valid_part(repo, (size_t)(slash - repo)) &&
           valid_part(slash + 1, strlen(slash + 1));
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* refs/main's commit: 40 hex digits.  "" when there is no refs/main. */
static bool read_ref(const vl_hf_snapshot *s, char *commit, size_t len, char err[VL_ERR_LEN])
{
    char path[VL_HF_PATH_LEN];
    commit[0] = '\0';
    if (!join(path, sizeof path, s->dir, "refs/main"))
        return fail(err, "%s: path too long", s->dir);
    if (!is_file(path))
        return true;
    size_t n;
    char *text = slurp(path, 4096, &n, err);
    if (!text)
        return false;
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = '\0';
    bool ok = n == 40 && n < len && strspn(text, "0123456789abcdef") == n;
    if (ok)
        memcpy(commit, text, n + 1);
    else
        fail(err, "%s: not a commit hash", path);
    free(text);
    return ok;
}

/* Without refs/main: the only snapshot, else the most recently modified (then by name). */
static bool pick_snapshot(const char *snapdir, char *commit, size_t len, char err[VL_ERR_LEN])
{
    DIR *d = opendir(snapdir);
    if (!d)
        return fail(err, "%s: %s", snapdir, strerror(errno));
    struct dirent *e;
    struct timespec best = {0, 0};
    commit[0] = '\0';
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= len)
            continue;
        char path[VL_HF_PATH_LEN];
        struct stat st;
        if (!join(path, sizeof path, snapdir, e->d_name) || stat(path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        bool newer = st.st_mtim.tv_sec > best.tv_sec ||
                     (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec);
        bool same = st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec == best.tv_nsec;
        if (!commit[0] || newer || (same && strcmp(e->d_name, commit) > 0)) {
            best = st.st_mtim;
            memcpy(commit, e->d_name, strlen(e->d_name) + 1); /* shorter than len: above */
        }
    }
    closedir(d);
    return commit[0] ? true : fail(err, "%s: no snapshot", snapdir);
}

bool vl_hf_resolve(const char *repo, vl_hf_snapshot *s, char err[VL_ERR_LEN])
{
    char cache[VL_HF_PATH_LEN], folder[300], snapdir[VL_HF_PATH_LEN];
    memset(s, 0, sizeof *s);
    if (!valid_repo(repo))
        return fail(err, "'%s' is not a Hugging Face model name (ORG/NAME)", repo);
    if (!vl_hf_cache_dir(cache, sizeof cache))
        return fail(err, "no Hugging Face cache: set HF_HUB_CACHE or HF_HOME");
    snprintf(s->repo, sizeof s->repo, "%s", repo);
    snprintf(folder, sizeof folder, "models--%s", repo);
    char *slash = strchr(folder, '/');
    if (slash) {
        memmove(slash + 2, slash + 1, strlen(slash + 1) + 1);
        slash[0] = slash[1] = '-';
    }
    if (!join(s->dir, sizeof s->dir, cache, folder) ||
        !join(snapdir, sizeof snapdir, s->dir, "snapshots"))
        return fail(err, "%s: path too long", cache);
    if (!is_dir(snapdir))
        return fail(err, "%s is not in the local Hugging Face cache (no %s)", repo, snapdir);
    if (!read_ref(s, s->revision, sizeof s->revision, err))
        return false;
    if (s->revision[0]) {
        if (!join(s->snapshot, sizeof s->snapshot, snapdir, s->revision))
            return fail(err, "%s: path too long", snapdir);
        if (!is_dir(s->snapshot))
            return fail(err, "%s/refs/main names snapshot %s, which is missing", s->dir,
                        s->revision);
    } else {
        if (!pick_snapshot(snapdir, s->revision, sizeof s->revision, err) ||
            !join(s->snapshot, sizeof s->snapshot, snapdir, s->revision))
            return false;
    }
    char config[VL_HF_PATH_LEN];
    if (join(config, sizeof config, s->snapshot, "config.json") && is_file(config))
        memcpy(s->config, config, sizeof config);
    return true;
}

/* Every *.safetensors file of the snapshot, in name order. */
static bool add_all(const vl_hf_snapshot *s, vl_sf_summary *sum, bool *found,
                    char err[VL_ERR_LEN])
{
    DIR *d = opendir(s->snapshot);
    if (!d)
        return fail(err, "%s: %s", s->snapshot, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 12 || strcmp(e->d_name + l - 12, ".safetensors") != 0)
            continue;
        if (n == cap) {
            char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            ok = grown != NULL;
            names = grown ? grown : names;
        }
        if (ok && !(names[n] = strdup(e->d_name)))
            ok = false;
        n += ok;
    }
    closedir(d);
    if (!ok)
        fail(err, "%s: out of memory", s->snapshot);
    if (n) /* qsort's array may not be NULL, even for no elements (C11 7.22.5) */
        qsort(names, n, sizeof *names, vl_strcmp_ptrs);
    for (size_t i = 0; ok && i < n; i++) {
        char path[VL_HF_PATH_LEN];
        ok = join(path, sizeof path, s->snapshot, names[i]) ? add_file(path, NULL, NULL, sum, err)
                                                            : fail(err, "%s: path too long", s->snapshot);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    *found = ok && n > 0;
    return ok;
}

bool vl_hf_weights(const vl_hf_snapshot *s, vl_sf_summary *sum, bool *found,
                   char err[VL_ERR_LEN])
{
    char index[VL_HF_PATH_LEN];
    *sum = (vl_sf_summary){0};
    *found = false;
    if (!join(index, sizeof index, s->snapshot, "model.safetensors.index.json"))
        return fail(err, "%s: path too long", s->snapshot);
    if (!is_file(index))
        return add_all(s, sum, found, err);

    size_t len;
    char *text = slurp(index, INDEX_MAX, &len, err);
    if (!text)
        return false;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!root)
        return fail(err, "%s:%d:%d: %s", index, je.line, je.column, je.text);
    json_t *map = json_object_get(root, "weight_map");
    bool ok = json_is_object(map) && json_object_size(map) > 0;
    if (!ok) {
        json_decref(root);
        return fail(err, "%s: weight_map is not a non-empty object", index);
    }
    /* each file once, in the order the map first names it */
    json_t *done = json_object();
    const char *name;
    json_t *file;
    json_object_foreach(map, name, file) {
        const char *f = json_string_value(file);
        if (!f || !*f || strchr(f, '/') || strcmp(f, "..") == 0) {
            ok = fail(err, "%s: weight_map[\"%s\"] is not a file name", index, name);
            break;
        }
        if (json_object_get(done, f))
            continue;
        json_object_set_new(done, f, json_true());
        char path[VL_HF_PATH_LEN];
        if (!join(path, sizeof path, s->snapshot, f)) {
            ok = fail(err, "%s: path too long", s->snapshot);
            break;
        }
        if (!(ok = add_file(path, f, map, sum, err)))
            break;
    }
    json_decref(done);
    if (ok && sum->tensors != json_object_size(map))
        ok = fail(err, "%s: the files hold %llu tensors, weight_map lists %zu", index,
                  (unsigned long long)sum->tensors, json_object_size(map));
    json_decref(root);
    sum->from_index = true;
    *found = ok;
    return ok;
}

bool vl_model_from_hf_cache(const char *repo, vl_model *m, vl_hf_warnings *warnings,
                            char err[VL_ERR_LEN])
{
    vl_hf_snapshot snap;
    if (!vl_hf_resolve(repo, &snap, err))
        return false;
    if (!snap.config[0])
        return fail(err, "%s: the snapshot %s has no config.json", repo, snap.snapshot);
    if (!vl_model_from_hf_file(snap.config, m, warnings, err))
        return false;
    vl_sf_summary sum;
    bool found;
    if (!vl_hf_weights(&snap, &sum, &found, err))
        return false;
    const char *type = strstr(m->source, "(model_type ");
    char kind[64] = "";
    if (type)
        snprintf(kind, sizeof kind, ", %.*s", (int)(strcspn(type + 1, ")")), type + 1);
    vl_hf_model_name(snap.repo, m->name, sizeof m->name);
    snprintf(m->display, sizeof m->display, "%.127s", snap.repo);
    m->hf_cache = true;
    char text[1024];
    if (found) {
        m->checkpoint_params = sum.params;
        m->checkpoint_bytes = sum.bytes;
        snprintf(text, sizeof text,
                 "%s (revision %.12s): config.json%s; parameters and weight bytes from the "
                 "headers of %u safetensors file%s%s", snap.repo, snap.revision, kind, sum.files,
                 sum.files == 1 ? "" : "s",
                 sum.from_index ? " (model.safetensors.index.json)" : "");
    } else {
        snprintf(text, sizeof text,
                 "%s (revision %.12s): config.json%s; no safetensors weights in the snapshot, "
                 "so the parameters are the architecture's count", snap.repo, snap.revision, kind);
    }
    snprintf(m->source, sizeof m->source, "%.255s", text);
    return true;
}
