/* train_kernels.h: the training operations of `vramlab probe train` on the GPU, callable
 * from C (core/backend.c).  The arenas of a run (core/backend.h, vl_train_mem) live on
 * device 0; vl_cuda_train_op runs one operation (core/train-work.h) there and waits for
 * it, so that a fault in a kernel is reported as that kernel's.  Each returns 0, or -1
 * with the reason in vl_cuda_error(). */
#ifndef VL_TRAIN_KERNELS_H
#define VL_TRAIN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/train-work.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Arenas of n_mem floats and n_cnt counters, zeroed, in *dev. */
int vl_cuda_train_alloc(size_t n_mem, size_t n_cnt, void **dev);
void vl_cuda_train_free(void *dev);
int vl_cuda_train_write(void *dev, size_t off, const float *src, size_t n);
int vl_cuda_train_read(void *dev, size_t off, float *dst, size_t n);
/* Counters [first, first + n) into dst, then zeroed. */
int vl_cuda_train_counts(void *dev, size_t first, size_t n, uint32_t *dst);
int vl_cuda_train_op(void *dev, const vl_top *op);

#ifdef __cplusplus
}
#endif

#endif
