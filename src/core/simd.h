/* simd.h: loops the compiler should vectorise.  The probe's CPU kernels are branch-free
 * integer code over arrays; `omp simd` (configure adds -fopenmp-simd, which needs no OpenMP
 * runtime) asks for vector code, and an AVX2 clone of a function, picked at load time
 * (target_clones, an ifunc), brings the per-lane shifts that SSE2 lacks.  Both are
 * optional: without them the same loops run scalar, with the same results. */
#ifndef VL_SIMD_H
#define VL_SIMD_H

#include <config.h>

#ifdef HAVE_OPENMP_SIMD
#define VL_SIMD_LOOP _Pragma("omp simd")
#define VL_SIMD_SUM(v) _Pragma(VL_SIMD_STR(omp simd reduction(+ : v)))
#define VL_SIMD_STR(x) #x
#else
#define VL_SIMD_LOOP
#define VL_SIMD_SUM(v)
#endif

#ifdef HAVE_TARGET_CLONES
#define VL_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define VL_AVX2_CLONE
#endif

#endif
