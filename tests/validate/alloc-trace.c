/* alloc-trace.c: a preload library that writes down PyTorch's CPU tensor allocations, so
 * that make validate can replay a real step's storages through vramlab's model of the
 * caching allocator (peak.py; predict --replay).
 *
 * PyTorch's CPU allocator takes every storage from posix_memalign and gives it back with
 * free (c10/core/impl/alloc_cpu.cpp).  With ALLOC_TRACE naming a file, each such
 * allocation appends "a ADDRESS BYTES" to it and its free "f ADDRESS"; every other free is
 * passed on unrecorded.  Such an allocation is a call from libc10: other libraries take
 * posix_memalign memory of their own (oneDNN a reordered input for a 16-bit matmul on a
 * CPU with AVX-512, where a GPU's cuBLAS takes none; the fp32 product it asks of
 * PyTorch's allocator, which predict --replay leaves out as a kernel's scratch).  The
 * traced process writes its own lines ("m PHASE") to the same file, opened for appending,
 * so that the phases fall between the allocations.  One line, one write(2): a line is
 * never split.  Where the trace must end early (65,536 storages alive at once) it says so
 * ("x"), and the replay refuses it.  Not thread-safe: the traced process runs one thread
 * (peak.py sets OMP_NUM_THREADS=1). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the live traced addresses: open addressing, linear probing, 0 = empty */
#define SLOTS (1u << 16) /* half a MiB: the traced process's resident set is measured too */
static uintptr_t live[SLOTS];
static int fd = -2; /* -2: not opened yet; -1: no ALLOC_TRACE */

static int (*next_memalign)(void **, size_t, size_t);
static void (*next_free)(void *);

static size_t home(uintptr_t p)
{
    return (size_t)((p >> 6) * 2654435761u) % SLOTS;
}

/* Whether this process traces: ALLOC_TRACE names a file, opened at the first call. */
static bool tracing(void)
{
    if (fd == -2) {
        const char *path = getenv("ALLOC_TRACE");
        fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    }
    return fd >= 0;
}

static void line(const char *fmt, uintptr_t p, size_t n)
{
    char buf[64];
    const int k = snprintf(buf, sizeof buf, fmt, (unsigned long)p, n);
    if (write(fd, buf, (size_t)k) != k)
        fd = -1; /* what follows goes unrecorded (the file system is full) */
}

/* Whether code at `caller` is libc10's, where c10::alloc_cpu is (its load address kept once
 * a call from it is seen). */
static bool in_c10(const void *caller)
{
    static void *base;
    Dl_info info;
    if (!dladdr(caller, &info))
        return false;
    if (!base && info.dli_fname && strstr(info.dli_fname, "/libc10.so"))
        base = info.dli_fbase;
    return base && info.dli_fbase == base;
}

int posix_memalign(void **out, size_t align, size_t bytes)
{
    if (!next_memalign)
        next_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    const int err = next_memalign(out, align, bytes);
    if (err || !tracing() || !in_c10(__builtin_return_address(0)))
        return err;
    size_t i = home((uintptr_t)*out);
    for (size_t probes = 0; live[i] && probes < SLOTS; probes++)
        i = (i + 1) % SLOTS;
    if (live[i]) { /* 65,536 storages alive at once: end the trace here */
        line("x\n", 0, 0);
        fd = -1;
        return err;
    }
    live[i] = (uintptr_t)*out;
    line("a %lx %zu\n", (uintptr_t)*out, bytes);
    return err;
}

/* Knuth's deletion for linear probing (TAOCP 6.4, algorithm R): the entries after the hole
 * move back where their probe would still find them. */
static void forget(size_t i)
{
    size_t j = i;
    for (;;) {
        j = (j + 1) % SLOTS;
        if (!live[j])
            break;
        const size_t k = home(live[j]);
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        live[i] = live[j];
        i = j;
    }
    live[i] = 0;
}

void free(void *p)
{
    if (!next_free)
        next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    if (p && tracing())
        for (size_t i = home((uintptr_t)p); live[i]; i = (i + 1) % SLOTS)
            if (live[i] == (uintptr_t)p) {
                forget(i);
                line("f %lx\n", (uintptr_t)p, 0);
                break;
            }
    next_free(p);
}
