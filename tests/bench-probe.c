/* bench-probe.c: the CPU emulation's fp16 cast + classify + log2 histogram of 2^24 values
 * against NumPy's astype(float16) plus a histogram, on the same values in the same run
 * (`make bench-probe`).  A benchmark, not a test: it prints times and their ratio, and
 * checks that NumPy's casts put the values in the same classes.  Without NumPy it says so
 * and times the emulation alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cpu-kernels.h"
#include "core/probe.h"
#include "bench.h"

#define N (1u << 24)
#define SCALE 65536.0f
#define RUNS 3

/* The best of RUNS runs of `vramlab probe underflow`'s CPU kernel for the formats given. */
static double time_underflow(const float *x, unsigned formats, vl_cast_counts *c)
{
    double best = 1e9;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        vl_cpu_underflow(x, N, SCALE, false, formats, c);
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}

static const char *numpy_script =
    "import sys, time, warnings, numpy as np\n"
    "warnings.simplefilter('ignore')  # the casts that overflow to inf, on purpose\n"
    "x = np.fromfile(sys.argv[1], dtype='<f4'); s = np.float32(sys.argv[2]); best = 1e9\n"
    "for _ in range(int(sys.argv[3])):\n"
    "    t = time.perf_counter()\n"
    "    y = x * s\n"
    "    b = y.astype(np.float16).view(np.uint16) & 0x7fff\n"
    "    zero = np.count_nonzero(y == 0)\n"
    "    flushed = np.count_nonzero(b == 0) - zero\n"
    "    sub = np.count_nonzero(b < 0x400) - zero - flushed\n"
    "    inf = np.count_nonzero(b == 0x7c00)\n"
    "    nan = np.count_nonzero(b > 0x7c00)\n"
    "    hist = np.bincount((y.view(np.uint32) >> 23) & 0xff, minlength=256)\n"
    "    best = min(best, time.perf_counter() - t)\n"
    "normal = len(x) - zero - flushed - sub - inf - nan\n"
    "print(np.__version__, best, zero, flushed, sub, normal, inf, nan)\n";

/* Runs the script with the first Python that has NumPy; false when none has. */
static bool run_numpy(const char *data, char *version, double *seconds, uint64_t *cls)
{
    const char *candidates[] = {getenv("PYTHON"), "python3", "/usr/bin/python3"};
    char cmd[1024];
    unsigned long long v[6];

    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i])
            continue;
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' 2>/dev/null", candidates[i]);
        if (system(cmd) != 0)
            continue;
        char path[256];
        snprintf(path, sizeof path, "%s.py", data);
        FILE *script = fopen(path, "w");
        if (!script)
            return false;
        fputs(numpy_script, script);
        fclose(script);
        snprintf(cmd, sizeof cmd, "%s %s %s %.9g %d", candidates[i], path, data, (double)SCALE,
                 RUNS);
        FILE *p = popen(cmd, "r");
        int got = p ? fscanf(p, "%31s %lf %llu %llu %llu %llu %llu %llu", version, seconds, &v[0],
                             &v[1], &v[2], &v[3], &v[4], &v[5])
                    : 0;
        if (p)
            pclose(p);
        remove(path);
        if (got != 8)
            return false;
        vl_class order[6] = {VL_CLS_ZERO,   VL_CLS_FLUSHED, VL_CLS_SUBNORMAL,
                             VL_CLS_NORMAL, VL_CLS_INF,     VL_CLS_NAN};
        for (int k = 0; k < 6; k++)
            cls[order[k]] = v[k];
        return true;
    }
    return false;
}

int main(void)
{
    float *x = malloc(N * sizeof *x);
    vl_cast_counts *c = malloc(sizeof *c), *all = malloc(sizeof *all);
    char data[] = "/tmp/bench-probe-XXXXXX", version[32];
    double np_seconds;
    uint64_t np_cls[VL_N_CLASSES] = {0};

    if (!x || !c || !all) {
        fprintf(stderr, "bench-probe: out of memory\n");
        return 1;
    }
    vl_sample_fill(x, N, VL_PROBE_SEED);
    double best = time_underflow(x, 1u << VL_FMT_F16, c);
    double best_all = time_underflow(x, VL_ALL_FORMATS, all);
    printf("bench-probe: %u values (the gradient sample times %.0f), fp16 cast + classify + "
           "log2 histogram, best of %d\n",
           N, (double)SCALE, RUNS);
    printf("  %-48s %8.1f ms  %5.2f ns/value\n", "vramlab CPU emulation (probe underflow, fp16)",
           1e3 * best, 1e9 * best / N);

    int fd = mkstemp(data);
    bool wrote = fd >= 0 && write(fd, x, N * sizeof *x) == (ssize_t)(N * sizeof *x);
    if (fd >= 0)
        close(fd);
    if (wrote && run_numpy(data, version, &np_seconds, np_cls)) {
        char name[96];
        snprintf(name, sizeof name, "numpy %s astype(float16) + counts + bincount", version);
        printf("  %-48s %8.1f ms  %5.2f ns/value\n", name, 1e3 * np_seconds, 1e9 * np_seconds / N);
        printf("  ratio: vramlab is %.1fx %s than numpy; ",
               best < np_seconds ? np_seconds / best : best / np_seconds,
               best < np_seconds ? "faster" : "slower");
        printf("%s\n", memcmp(np_cls, c->cls[VL_FMT_F16], sizeof np_cls) == 0
                           ? "both put every value in the same class"
                           : "BUT THE CLASS COUNTS DIFFER");
    } else {
        printf("  numpy: not found (Debian: apt-get install python3-numpy), comparison skipped\n");
    }
    printf("  (all five formats, as vramlab probe underflow counts them: %.1f ms)\n",
           1e3 * best_all);
    if (fd >= 0)
        remove(data);
    free(x);
    free(c);
    free(all);
    return 0;
}
