/* selftest.h: the CUDA kernels against the CPU emulation, bit for bit, on fixed seeds and
 * boundary inputs (`vramlab probe selftest`, HACKING §5). */
#ifndef VL_SELFTEST_H
#define VL_SELFTEST_H

#include "backend.h"

#ifdef __cplusplus /* tests/test_cuda_casts.cu includes this */
extern "C" {
#endif

#define VL_SELFTEST_MAX 64

typedef struct vl_selftest_check {
    char name[48];     /* "encode fp16", "underflow", "scaler at the top" */
    uint64_t compared; /* values or counters compared */
    uint64_t differ;   /* how many of them differ (any NaN equals any NaN) */
    char first[200];   /* the first difference, for people */
} vl_selftest_check;

typedef struct vl_selftest {
    int n;
    vl_selftest_check checks[VL_SELFTEST_MAX];
} vl_selftest;

/* The boundary inputs the casts are compared on (about 1.6 million), in an array the caller
 * frees, their count in *n; NULL when out of memory. */
float *vl_selftest_inputs(size_t *n);

/* Runs every kernel on cuda (a backend with cuda true) and on the CPU and compares them.
 * NULL, or why it could not: "out of memory", or the CUDA error that moved cuda to the
 * CPU (then the checks so far are in out). */
const char *vl_selftest_run(vl_backend *cuda, vl_selftest *out);

/* The number of checks with a difference. */
int vl_selftest_failures(const vl_selftest *t);

#ifdef __cplusplus
}
#endif

#endif
