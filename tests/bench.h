/* bench.h: what the benchmarks (tests/bench-*.c) share.  Included by them only. */
#ifndef VL_TEST_BENCH_H
#define VL_TEST_BENCH_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
