/* runtime.h: what the CUDA runtime and PyTorch's allocator add to the tensors a step
 * allocates (HACKING §6): the caching allocator's rounding and segments (reserved >=
 * allocated), and the CUDA context, which the allocator never sees (nvidia-smi does). */
#ifndef VL_RUNTIME_H
#define VL_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h" /* VL_ENUM_ID */

/* caching: PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp); exact:
 * every tensor its own bytes (reserved = allocated) */
#define VL_ALLOCATORS(X) X(VL_ALLOC_CACHING, "caching") X(VL_ALLOC_EXACT, "exact")
typedef enum { VL_ALLOCATORS(VL_ENUM_ID) VL_N_ALLOCATORS } vl_allocator;
extern const char *const vl_allocator_names[VL_N_ALLOCATORS];

/* The caching allocator, replayed (c10/cuda/CUDACachingAllocator.cpp, PyTorch 2.x, default
 * PYTORCH_CUDA_ALLOC_CONF): a request is rounded up to 512 B; one of at most 1 MiB is
 * served from the small pool, whose segments are 2 MiB; a larger one from the large pool,
 * whose segments are 20 MiB for requests under 10 MiB and the request rounded up to 2 MiB
 * otherwise.  A request takes the smallest free block of its pool that fits (best fit,
 * lowest address on ties), split when what remains is at least 512 B (small pool) or more
 * than 1 MiB (large pool); a freed block merges with free neighbours of its segment.
 * Segments are returned only under memory pressure (there is no empty_cache): where a new
 * segment would take the segments past a limit (what the GPU leaves the allocator, as
 * cudaMalloc fails past it), every segment with no block in use is freed first
 * (release_cached_blocks), and the new one is made whether or not it then fits: past the
 * limit still, the run fails at that request.
 * allocated counts blocks as PyTorch's allocated_bytes does: a block not split counts
 * whole.  With VL_ALLOC_EXACT every tensor takes exactly its bytes. */
#define VL_ALLOC_MIN_BLOCK   512ULL       /* kMinBlockSize */
#define VL_ALLOC_SMALL_SIZE  1048576ULL   /* kSmallSize: the largest small request */
#define VL_ALLOC_SMALL_SEG   2097152ULL   /* kSmallBuffer */
#define VL_ALLOC_LARGE_SEG   20971520ULL  /* kLargeBuffer */
#define VL_ALLOC_MIN_LARGE   10485760ULL  /* kMinLargeAlloc */
#define VL_ALLOC_ROUND_LARGE 2097152ULL   /* kRoundLarge */

typedef struct vl_alloc vl_alloc;
vl_alloc *vl_alloc_new(vl_allocator kind);
void vl_alloc_free_all(vl_alloc *a);
/* A tensor of bytes: its handle (0 for a zero-byte tensor, which takes nothing). */
uint32_t vl_alloc_tensor(vl_alloc *a, uint64_t bytes, bool *ovf);
void vl_alloc_release(vl_alloc *a, uint32_t handle);
/* The most bytes of segments the GPU leaves the allocator; 0 (the default): no limit. */
void vl_alloc_limit(vl_alloc *a, uint64_t bytes);
uint64_t vl_alloc_allocated(const vl_alloc *a);      /* now: blocks in use */
uint64_t vl_alloc_reserved(const vl_alloc *a);       /* now: segments */
uint64_t vl_alloc_peak_reserved(const vl_alloc *a);  /* the most segments at once */
uint64_t vl_alloc_released(const vl_alloc *a);       /* segments freed under pressure */
/* The size a request is rounded to, and the segment it would get if none is free. */
uint64_t vl_alloc_round(uint64_t bytes);
uint64_t vl_alloc_segment(uint64_t rounded);

/* GPU generations, by compute capability, for the CUDA context. */
#define VL_GPU_ARCHS(X) X(VL_ARCH_VOLTA, "volta") X(VL_ARCH_TURING, "turing") \
    X(VL_ARCH_AMPERE, "ampere") X(VL_ARCH_ADA, "ada") X(VL_ARCH_HOPPER, "hopper") \
    X(VL_ARCH_BLACKWELL, "blackwell") X(VL_ARCH_UNKNOWN, "unknown")
typedef enum { VL_GPU_ARCHS(VL_ENUM_ID) VL_N_GPU_ARCHS } vl_gpu_arch;
extern const char *const vl_gpu_arch_names[VL_N_GPU_ARCHS];

/* Bytes the CUDA context takes on the device (driver state, the threads' stacks, loaded
 * kernels) on rt's GPU (its generation, SMs and compute capability) under its CUDA
 * version (major * 100 + minor: 1201 for 12.1), and the source of the figure in *source. */
struct vl_runtime;
uint64_t vl_cuda_context_bytes(const struct vl_runtime *rt, const char **source);
/* Of that context, the threads' stacks the driver reserves under lazy loading: SMs x the
 * resident threads of an SM (*threads, 0 where the capability is unknown) x 1 KiB; 0 where
 * the context is a measured whole (the source then says whose). */
uint64_t vl_context_stacks(const struct vl_runtime *rt, uint64_t *threads);

/* Bytes the context gains during a training step as kernels load on first use: CUDA 11.7
 * and later load lazily (a context of that version holds no kernel before its first use);
 * 0 before, where every kernel loaded with the context. */
uint64_t vl_lazy_kernels_bytes(unsigned cuda);

/* The cuBLAS workspace PyTorch allocates through its caching allocator at the first matmul
 * and keeps for the handle's life (one handle and stream here), by default. */
uint64_t vl_cublas_workspace_bytes(vl_gpu_arch arch);

/* What NCCL's NVLink SHARP (NVLS) takes of each GPU for one communicator whose GPUs on a
 * node are `gpus`, under the NCCL release of PyTorch release torch's wheels, on rt's GPU
 * linked by link: 0 where NVLS is off (no NVSwitch multicast, CUDA before 12.1, too few
 * GPUs, an NCCL before 2.17). */
uint64_t vl_nvls_bytes(vl_torch torch, const struct vl_runtime *rt, vl_link link,
                       uint64_t gpus);

#endif
