/* bench-train.c: steps per second of `probe train`, each regime on the CPU emulation and,
 * when a GPU answers, on CUDA, and the ratio to the NumPy implementation of the same fp32
 * run (tests/validate/train_numpy.py), timed in the same run (`make bench-probe`).  A
 * benchmark: figures, not pass or fail. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/train.h"
#include "bench.h"

#define STEPS 300

/* The best of RUNS runs: the machine is shared. */
#define RUNS 3

static double steps_per_s(vl_backend *b, int regime)
{
    vl_train_opts o;
    vl_train_opts_default(&o);
    o.steps = STEPS;
    double best = 0;
    for (int i = 0; i < RUNS; i++) {
        vl_train_run *r = vl_train_init(b, &o, regime);
        if (!r)
            return 0;
        double t = now();
        vl_train_step(r, STEPS);
        t = now() - t;
        vl_train_free(r);
        best = STEPS / t > best ? STEPS / t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    const char *script = argc > 1 ? argv[1] : "tests/validate/train_numpy.py";
    vl_backend cpu, cuda;
    vl_backend_open(&cpu, VL_BACKEND_CPU);
    bool gpu = vl_backend_open(&cuda, VL_BACKEND_CUDA);
    double fp32 = 0;

    printf("probe train, %d steps of a %d-%d-%d network, micro-batches of %d\n", STEPS,
           VL_TRAIN_IN, VL_TRAIN_HIDDEN, VL_TRAIN_CLASSES, VL_TRAIN_BATCH);
    printf("  %-13s %12s %12s\n", "regime", "CPU steps/s", gpu ? "CUDA steps/s" : "");
    for (int g = 0; g < VL_N_REGIMES; g++) {
        double c = steps_per_s(&cpu, g);
        if (g == VL_REGIME_FP32)
            fp32 = c;
        printf("  %-13s %12.0f", vl_train_regimes[g].name, c);
        if (gpu)
            printf(" %12.0f", steps_per_s(&cuda, g));
        putchar('\n');
    }
    if (!gpu)
        printf("  (no GPU: %s)\n", cuda.why_cpu);

    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -B -c 'import sys, time; sys.path.insert(0, sys.argv[1]); "
             "import train_numpy as t; s = time.perf_counter(); t.data(1); "
             "d = time.perf_counter() - s; r = []\n"
             "for i in range(%d):\n"
             "    s = time.perf_counter(); t.train(\"fp32\", 1, %d, 0.02); "
             "r.append(time.perf_counter() - s - d)\n"
             "print(%d / min(r))' \"$(dirname '%s')\" 2>/dev/null",
             RUNS, STEPS, STEPS, script);
    FILE *p = popen(cmd, "r");
    double np = 0;
    if (p && fscanf(p, "%lf", &np) == 1 && np > 0)
        printf("NumPy, the same fp32 run (its data set-up not counted): %.0f steps/s; the CPU "
               "emulation is %.1fx that\n", np,
               fp32 / np);
    else
        printf("NumPy: /usr/bin/python3 cannot run %s (apt-get install python3-numpy)\n",
               script);
    if (p)
        pclose(p);
    return 0;
}
