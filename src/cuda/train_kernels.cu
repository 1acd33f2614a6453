// train_kernels.cu: the training operations on the GPU (train_kernels.h).
//
// Every item is computed by the functions of core/train-work.h, as on the CPU; here are
// the kernels that give items threads.  The matrix product is tiled (16 x 16 tiles of both
// inputs in shared memory), and each thread still sums its element's products from k = 0
// up, one IEEE operation at a time (--fmad=false), so the result is the CPU's bit for bit.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/cuda_common.cuh"
#include "cuda/train_kernels.h"
#include "cuda/train_work.cuh"

#define TILE 16

struct train_dev {
    float *mem;
    uint32_t *cnt;
};

__global__ static void item_kernel(vl_top op, float *mem, uint32_t *cnt)
{
    uint32_t n = vl_tw_items(&op);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        vl_tw_item(&op, mem, cnt, (uint32_t)i);
}

__global__ static void matmul_kernel(vl_top op, float *mem, uint32_t *cnt)
{
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    uint32_t tx = threadIdx.x, ty = threadIdx.y;
    uint32_t i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float s = 0.0f;
    for (uint32_t k0 = 0; k0 < op.k; k0 += TILE) {
        ta[ty][tx] = i < op.m && k0 + tx < op.k ? vl_tw_mm_a(&op, mem, i, k0 + tx) : 0.0f;
        tb[ty][tx] = k0 + ty < op.k && j < op.n ? vl_tw_mm_b(&op, mem, k0 + ty, j) : 0.0f;
        __syncthreads();
        for (uint32_t kk = 0; kk < TILE && k0 + kk < op.k; kk++)
            s = vl_tw_mm_step(op.acc, s, ta[ty][kk], tb[kk][tx]);
        __syncthreads();
    }
    if (i < op.m && j < op.n)
        vl_tw_mm_store(&op, mem, cnt, i, j, s);
}

void vl_cuda_train_free(void *d)
{
    train_dev *t = (train_dev *)d;
    if (t->mem)
        cudaFree(t->mem);
    if (t->cnt)
        cudaFree(t->cnt);
    free(t);
}

int vl_cuda_train_alloc(size_t n_mem, size_t n_cnt, void **out)
{
    train_dev *t = (train_dev *)calloc(1, sizeof *t);
    if (!t) {
        snprintf(vl_cuda_last_error, sizeof vl_cuda_last_error, "out of host memory");
        return -1;
    }
    if (failed(cudaMalloc((void **)&t->mem, (n_mem ? n_mem : 1) * sizeof(float)), "cudaMalloc") ||
        failed(cudaMalloc((void **)&t->cnt, (n_cnt ? n_cnt : 1) * sizeof(uint32_t)), "cudaMalloc") ||
        failed(cudaMemset(t->mem, 0, n_mem * sizeof(float)), "cudaMemset") ||
        failed(cudaMemset(t->cnt, 0, n_cnt * sizeof(uint32_t)), "cudaMemset")) {
        vl_cuda_train_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

int vl_cuda_train_write(void *d, size_t off, const float *src, size_t n)
{
    train_dev *t = (train_dev *)d;
    return failed(cudaMemcpy(t->mem + off, src, n * sizeof(float), cudaMemcpyHostToDevice),
                  "cudaMemcpy (upload)")
               ? -1
               : 0;
}

int vl_cuda_train_read(void *d, size_t off, float *dst, size_t n)
{
    train_dev *t = (train_dev *)d;
    return failed(cudaMemcpy(dst, t->mem + off, n * sizeof(float), cudaMemcpyDeviceToHost),
                  "cudaMemcpy (download)")
               ? -1
               : 0;
}

int vl_cuda_train_counts(void *d, size_t first, size_t n, uint32_t *dst)
{
    train_dev *t = (train_dev *)d;
    return failed(cudaMemcpy(dst, t->cnt + first, n * sizeof(uint32_t), cudaMemcpyDeviceToHost),
                  "cudaMemcpy (counters)") ||
                   failed(cudaMemset(t->cnt + first, 0, n * sizeof(uint32_t)), "cudaMemset")
               ? -1
               : 0;
}

int vl_cuda_train_op(void *d, const vl_top *op)
{
    static const char *const names[VL_N_TOPS] = {"cast", "matmul", "relu backward", "column sum",
                                                 "loss", "Adam", "amax"};
    train_dev *t = (train_dev *)d;
    if (op->kind == VL_TOP_MATMUL) {
        dim3 grid((op->n + TILE - 1) / TILE, (op->m + TILE - 1) / TILE), block(TILE, TILE);
        matmul_kernel<<<grid, block>>>(*op, t->mem, t->cnt);
    } else {
        item_kernel<<<blocks_for(vl_tw_items(op)), 256>>>(*op, t->mem, t->cnt);
    }
    return launched(names[op->kind]) ? 0 : -1;
}
