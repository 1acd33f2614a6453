/* runtime.c: PyTorch's caching allocator replayed, the CUDA context, and NCCL's NVLS buffers. */
#include "runtime.h"

#include <stdlib.h>

#include "timeline.h" /* vl_runtime */
#include "units.h"

const char *const vl_gpu_arch_names[VL_N_GPU_ARCHS] = {VL_GPU_ARCHS(VL_ENUM_NAME)};
_Static_assert(sizeof vl_gpu_arch_names / sizeof *vl_gpu_arch_names == VL_N_GPU_ARCHS, "");

/* One block of a segment: blocks of a segment are a doubly linked list by address. */
typedef struct block {
    uint64_t size, offset;
    uint32_t segment, prev, next;  /* prev, next: block indices + 1, 0 = none */
    uint32_t left, right;          /* the free tree's children (handles, 0 = none) */
    bool listed;                   /* in the free tree */
    bool small, used, live;        /* live: the slot holds a block */
} block;

/* The blocks, and the free ones in a search tree ordered as best fit ranks them (pool,
 * size, segment, offset: CUDACachingAllocator's BlockComparatorSize, a std::set there), so
 * that best fit, freeing and splitting take logarithmic time, not a pass over every free
 * block.  The tree is a treap whose priorities hash the handles. */
struct vl_alloc {
    vl_allocator kind;
    block *b;
    uint32_t n, cap;
    uint32_t root;                 /* of the free tree */
    uint32_t *dead;                /* slots of merged-away blocks, for new blocks to reuse */
    uint32_t n_dead, cap_dead;
    uint32_t segments;
    uint64_t allocated, reserved;
    uint64_t limit;                /* the most segments may take; 0 = no limit */
    uint64_t peak, released;       /* the most reserved at once; freed under pressure */
};

vl_alloc *vl_alloc_new(vl_allocator kind)
{
    vl_alloc *a = calloc(1, sizeof *a);
    if (a)
        a->kind = kind;
    return a;
}

void vl_alloc_free_all(vl_alloc *a)
{
    if (a) {
        free(a->b);
        free(a->dead);
    }
    free(a);
}

/* Block x before block y in the free tree. */
static bool ranks_before(const block *x, const block *y)
{
    if (x->small != y->small)
        return !x->small;
    if (x->size != y->size)
        return x->size < y->size;
    if (x->segment != y->segment)
        return x->segment < y->segment;
    return x->offset < y->offset;
}

/* A handle's treap priority: the handle mixed (the lowbias32 integer hash) so that the
 * priorities look random whatever order the blocks rank in, which keeps the tree's
 * expected depth logarithmic. */
static uint32_t priority(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* The treap of l's blocks and then r's (every block of l ranks before every one of r). */
static uint32_t tree_join(vl_alloc *a, uint32_t l, uint32_t r)
{
    if (!l || !r)
        return l ? l : r;
    if (priority(l) > priority(r)) {
        a->b[l - 1].right = tree_join(a, a->b[l - 1].right, r);
        return l;
    }
    a->b[r - 1].left = tree_join(a, l, a->b[r - 1].left);
    return r;
}

/* Splits treap t into the blocks that rank before *key (*l) and the others (*r). */
static void tree_split(vl_alloc *a, uint32_t t, const block *key, uint32_t *l, uint32_t *r)
{
    if (!t) {
        *l = *r = 0;
    } else if (ranks_before(&a->b[t - 1], key)) {
        tree_split(a, a->b[t - 1].right, key, &a->b[t - 1].right, r);
        *l = t;
    } else {
        tree_split(a, a->b[t - 1].left, key, l, &a->b[t - 1].left);
        *r = t;
    }
}

static void free_add(vl_alloc *a, uint32_t h)
{
    uint32_t l, r;
    tree_split(a, a->root, &a->b[h - 1], &l, &r);
    a->b[h - 1].left = a->b[h - 1].right = 0;
    a->root = tree_join(a, tree_join(a, l, h), r);
    a->b[h - 1].listed = true;
}

/* Treap t without block h, which it holds (its key unchanged since it went in). */
static uint32_t tree_remove(vl_alloc *a, uint32_t t, uint32_t h)
{
    if (!t)
        return 0;
    block *c = &a->b[t - 1];
    if (t == h)
        return tree_join(a, c->left, c->right);
    if (ranks_before(&a->b[h - 1], c))
        c->left = tree_remove(a, c->left, h);
    else
        c->right = tree_remove(a, c->right, h);
    return t;
}

static void free_del(vl_alloc *a, uint32_t h)
{
    if (!a->b[h - 1].listed)
        return;
    a->root = tree_remove(a, a->root, h);
    a->b[h - 1].listed = false;
}

/* The first free block that does not rank before *key, or 0. */
static uint32_t free_lower_bound(const vl_alloc *a, const block *key)
{
    uint32_t t = a->root, found = 0;
    while (t) {
        if (ranks_before(&a->b[t - 1], key)) {
            t = a->b[t - 1].right;
        } else {
            found = t;
            t = a->b[t - 1].left;
        }
    }
    return found;
}

uint64_t vl_alloc_round(uint64_t bytes)
{
    if (bytes < VL_ALLOC_MIN_BLOCK)
        return VL_ALLOC_MIN_BLOCK;
    return vl_ceil_div(bytes, VL_ALLOC_MIN_BLOCK) * VL_ALLOC_MIN_BLOCK;
}

uint64_t vl_alloc_segment(uint64_t rounded)
{
    if (rounded <= VL_ALLOC_SMALL_SIZE)
        return VL_ALLOC_SMALL_SEG;
    if (rounded < VL_ALLOC_MIN_LARGE)
        return VL_ALLOC_LARGE_SEG;
    return vl_ceil_div(rounded, VL_ALLOC_ROUND_LARGE) * VL_ALLOC_ROUND_LARGE;
}

static uint32_t new_block(vl_alloc *a, bool *ovf)
{
    if (a->n_dead) { /* a merged-away block's slot */
        uint32_t h = a->dead[--a->n_dead];
        a->b[h - 1] = (block){0};
        return h;
    }
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? 2 * a->cap : 256;
        block *nb = realloc(a->b, (size_t)cap * sizeof *nb);
        if (!nb) {
            *ovf = true;
            return 0;
        }
        a->b = nb;
        a->cap = cap;
    }
    a->b[a->n] = (block){0};
    return ++a->n; /* handles are indices + 1 */
}

/* Block h's slot, out of the free tree, for a new block to reuse. */
static void retire(vl_alloc *a, uint32_t h)
{
    free_del(a, h);
    a->b[h - 1].live = false;
    if (a->n_dead == a->cap_dead) { /* out of memory: the slot is not reused */
        uint32_t cap = a->cap_dead ? 2 * a->cap_dead : 256;
        uint32_t *nd = realloc(a->dead, (size_t)cap * sizeof *nd);
        if (!nd)
            return;
        a->dead = nd;
        a->cap_dead = cap;
    }
    a->dead[a->n_dead++] = h;
}

/* Folds block j (free, the right neighbour of i) into block i. */
static void merge(vl_alloc *a, uint32_t i, uint32_t j)
{
    block *l = &a->b[i - 1], *r = &a->b[j - 1];
    l->size += r->size;
    l->next = r->next;
    if (r->next)
        a->b[r->next - 1].prev = i;
    retire(a, j);
}

/* cudaFree of every segment no block of which is in use (release_cached_blocks, which
 * the allocator runs when cudaMalloc fails, before it tries once more). */
static void release_cached(vl_alloc *a)
{
    for (uint32_t h = 1; h <= a->n; h++) {
        const block *c = &a->b[h - 1];
        if (c->live && !c->used && !c->prev && !c->next) {
            a->reserved -= c->size;
            a->released += c->size;
            retire(a, h);
        }
    }
}

uint32_t vl_alloc_tensor(vl_alloc *a, uint64_t bytes, bool *ovf)
{
    if (bytes == 0)
        return 0;
    if (a->kind == VL_ALLOC_EXACT) {
        uint32_t h = new_block(a, ovf);
        if (!h)
            return 0;
        a->b[h - 1] = (block){.size = bytes, .used = true, .live = true};
        a->allocated = vl_add(a->allocated, bytes, ovf);
        a->reserved = a->peak = a->allocated > a->peak ? a->allocated : a->peak;
        return h;
    }
    const uint64_t size = vl_alloc_round(bytes);
    const bool small = size <= VL_ALLOC_SMALL_SIZE;
    /* the smallest free block of the pool that holds size, the lowest address among equals */
    const block key = {.size = size, .small = small};
    uint32_t best = free_lower_bound(a, &key);
    if (best && a->b[best - 1].small != small)
        best = 0;
    if (best)
        free_del(a, best);
    if (!best) { /* cudaMalloc a new segment: one free block spanning it */
        uint64_t seg = vl_alloc_segment(size);
        if (a->limit && vl_add(a->reserved, seg, ovf) > a->limit)
            release_cached(a); /* and past the limit still, the run fails here */
        if (!(best = new_block(a, ovf)))
            return 0;
        a->b[best - 1] = (block){.size = seg, .segment = a->segments++, .small = small,
                                 .live = true};
        a->reserved = vl_add(a->reserved, seg, ovf);
        if (a->reserved > a->peak)
            a->peak = a->reserved;
    }
    block *c = &a->b[best - 1];
    const uint64_t rest = c->size - size;
    if (small ? rest >= VL_ALLOC_MIN_BLOCK : rest > VL_ALLOC_SMALL_SIZE) {
        uint32_t r = new_block(a, ovf);
        if (!r)
            return 0;
        c = &a->b[best - 1]; /* new_block may have moved the array */
        a->b[r - 1] = (block){.size = rest, .offset = c->offset + size, .segment = c->segment,
                              .prev = best, .next = c->next, .small = small, .live = true};
        if (c->next)
            a->b[c->next - 1].prev = r;
        c->next = r;
        c->size = size;
        free_add(a, r);
    }
    c->used = true;
    a->allocated = vl_add(a->allocated, c->size, ovf);
    return best;
}

void vl_alloc_release(vl_alloc *a, uint32_t h)
{
    if (!h || h > a->n || !a->b[h - 1].used)
        return;
    block *c = &a->b[h - 1];
    c->used = false;
    a->allocated -= c->size;
    if (a->kind == VL_ALLOC_EXACT) {
        c->live = false;
        return;
    }
    if (c->next && !a->b[c->next - 1].used)
        merge(a, h, c->next);
    if (c->prev && !a->b[c->prev - 1].used) {
        const uint32_t p = c->prev;
        free_del(a, p); /* its size changes: out of the tree, then back in its new place */
        merge(a, p, h);
        free_add(a, p);
        return;
    }
    free_add(a, h);
}

uint64_t vl_alloc_allocated(const vl_alloc *a)
{
    return a->allocated;
}

void vl_alloc_limit(vl_alloc *a, uint64_t bytes)
{
    a->limit = bytes;
}

uint64_t vl_alloc_reserved(const vl_alloc *a)
{
    return a->reserved;
}

uint64_t vl_alloc_peak_reserved(const vl_alloc *a)
{
    return a->peak;
}

uint64_t vl_alloc_released(const vl_alloc *a)
{
    return a->released;
}

/* The context after CUDA initialisation and a first kernel, as measured with
 * cudaMemGetInfo or nvidia-smi and published.  Before CUDA 11.7 every kernel of every
 * library loads with the context; from 11.7 PyTorch sets CUDA_MODULE_LOADING=LAZY
 * (pytorch/pytorch#86509) and kernels load on first use. */
typedef struct context_row {
    int arch;            /* a vl_gpu_arch, or -1 for any */
    unsigned cuda_from;  /* this CUDA version or later (until the next row's) */
    uint64_t bytes;
    const char *source;
} context_row;

/* pytorch/pytorch#86509: cudaMemGetInfo's used bytes after torch.randn(20, 16, 50, 100)
 * on one GPU with CUDA 11.7, every kernel loaded at initialisation and with lazy loading,
 * less the tensor's segment: 6.4 MB is a large-pool request under 10 MiB, a 20 MiB
 * segment (VL_ALLOC_LARGE_SEG) */
#define CONTEXT_SEGMENT 20971520ULL
#define CONTEXT_EAGER (666632192ULL - CONTEXT_SEGMENT)
#define CONTEXT_LAZY (287047680ULL - CONTEXT_SEGMENT)
#define LAZY_CUDA 1107 /* CUDA 11.7 */

static const context_row context_rows[] = {
    {-1, 0, CONTEXT_EAGER,
     "pytorch/pytorch#86509: 666,632,192 B with CUDA_MODULE_LOADING=DEFAULT (all kernels "
     "loaded, as before CUDA 11.7), less its tensor's 20 MiB segment"},
    {-1, LAZY_CUDA, CONTEXT_LAZY,
     "pytorch/pytorch#86509: 287,047,680 B with lazy module loading (CUDA >= 11.7), less its "
     "tensor's 20 MiB segment (a GPU of unknown SMs)"},
    {VL_ARCH_VOLTA, 0, (1343ULL - 2) * 1048576,
     "transformers docs, model training anatomy (v4.27): 1343 MiB in nvidia-smi after "
     "torch.ones((1, 1)).to('cuda') on the V100 with CUDA 11.2 it trains BERT-large on (every "
     "kernel loaded), less the tensor's 2 MiB segment"},
    {VL_ARCH_ADA, 1300, 426ULL * 1048576,
     "unslothai/unsloth-zoo#1053: 426 MiB in nvidia-smi on an RTX 6000 Ada, PyTorch 2.10 "
     "with CUDA 13.0, context only"},
};

/* The resident threads an SM holds, by compute capability (CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability": maximum number of resident threads
 * per SM); 0 for one not listed here. */
static uint64_t threads_per_sm(unsigned cc)
{
    switch (cc) {
    case 70: case 80: case 90: case 100: return 2048;
    case 86: case 89: case 120: return 1536;
    case 75: return 1024;
    default: return 0;
    }
}

/* The driver reserves the context's local memory (the threads' stacks) for every thread
 * the GPU can hold: max threads per SM x SMs x the per-thread stack, cudaLimitStackSize's
 * default of 1 KiB (NVIDIA developer forums, "Local memory management": "context wide and
 * is calculated as MAX_THREADS_PER_SM x SMs x LOCAL_MEM_PER_THREAD"; 216 MB on an A100's
 * 108 SMs).  The rest, the lazy context's base, is a measurement less its GPU's stacks:
 *   CUDA 11.7 and 11.8: 656 MiB in NVML's used memory after torch.ones((1, 1)).to("cuda:0"),
 *     torch 2.0.1+cu117 on an RTX 3090 (anmechkoe/GPTlearning, exp13-accelerate, notebooks
 *     install and 1.baseline), less the tensor's 2 MiB small-pool segment and 82 SMs x 1536
 *     x 1 KiB;
 *   CUDA 12: 256 MiB in nvidia-smi for a process that only initialised CUDA, torch
 *     2.7.1+cu128 on an RTX 3090 (invoke-ai/InvokeAI#9413), less 82 SMs x 1536 x 1 KiB;
 *   CUDA 13: 426 MiB on an RTX 6000 Ada, PyTorch 2.10 with CUDA 13.0
 *     (unslothai/unsloth-zoo#1053), less 142 SMs x 1536 x 1 KiB.
 * On an H100 SXM with CUDA 12 that gives 397 MiB, where SGLang's log of one (sgl-project/
 * sglang pull request #2907, CI) shows 78.81 of its 79.19 GiB free before the weights. */
#define STACK_PER_THREAD 1024ULL
static const struct {
    unsigned cuda_from; /* this CUDA version or later (until the next row's) */
    uint64_t base;
    const char *source;
} lazy_bases[] = {
    {LAZY_CUDA, (656ULL - 2) * 1048576 - 82 * 1536 * STACK_PER_THREAD,
     "CUDA 11.7 and 11.8's lazy context, 656 MiB on an RTX 3090 with torch 2.0.1+cu117 less "
     "its tensor's 2 MiB segment and its stacks (anmechkoe/GPTlearning, exp13-accelerate)"},
    {1200, 268435456ULL - 82 * 1536 * STACK_PER_THREAD,
     "CUDA 12's lazy context, 256 MiB on an RTX 3090 less its stacks (invoke-ai/InvokeAI#9413)"},
    {1300, 446693376ULL - 142 * 1536 * STACK_PER_THREAD,
     "CUDA 13's lazy context, 426 MiB on an RTX 6000 Ada less its stacks "
     "(unslothai/unsloth-zoo#1053)"},
};

uint64_t vl_context_stacks(const vl_runtime *rt, uint64_t *threads)
{
    const uint64_t per_sm = rt->cuda >= LAZY_CUDA ? threads_per_sm(rt->cc) : 0;
    if (threads)
        *threads = per_sm;
    return rt->sms * per_sm * STACK_PER_THREAD;
}

uint64_t vl_cuda_context_bytes(const vl_runtime *rt, const char **source)
{
    const uint64_t stacks = vl_context_stacks(rt, NULL);
    if (stacks) { /* lazy loading, so a CUDA of at least the first row's */
        size_t i = 0;
        while (i + 1 < sizeof lazy_bases / sizeof *lazy_bases &&
               rt->cuda >= lazy_bases[i + 1].cuda_from)
            i++;
        if (source)
            *source = lazy_bases[i].source;
        return lazy_bases[i].base + stacks;
    }
    const context_row *best = &context_rows[0];
    for (size_t i = 0; i < sizeof context_rows / sizeof *context_rows; i++) {
        const context_row *r = &context_rows[i];
        if ((r->arch == -1 || r->arch == (int)rt->arch) && rt->cuda >= r->cuda_from &&
            (r->cuda_from > best->cuda_from || (r->cuda_from == best->cuda_from && r->arch != -1)))
            best = r;
    }
    if (source)
        *source = best->source;
    return best->bytes;
}

/* Lazy loading loads a kernel's whole module (its .cu file's compiled image) at the
 * kernel's first launch, and the module stays.  A training step's forward, backward, loss
 * and optimizer, or a generate loop's prefill, decode steps and sampling, launch kernels
 * from most of PyTorch's modules (elementwise, reductions, softmax, embedding, indexing,
 * copies, the foreach and fused optimizers): counted as all of them, what eager loading's
 * context holds beyond lazy loading's in pytorch/pytorch#86509 (379,584,512 B).  Not
 * counted: cuBLAS's and NCCL's own modules, which also load as used. */
uint64_t vl_lazy_kernels_bytes(unsigned cuda)
{
    return cuda >= LAZY_CUDA ? CONTEXT_EAGER - CONTEXT_LAZY : 0;
}

/* aten/src/ATen/cuda/CublasHandlePool.cpp, parseChosenWorkspaceSize: CUBLAS_WORKSPACE_CONFIG
 * ":4096:2:16:8" by default (2 x 4096 KiB + 8 x 16 KiB = 8,519,680 B), 32 MiB (4096 KiB x 8)
 * on Hopper and Blackwell; a GPU of unknown generation gets the larger. */
uint64_t vl_cublas_workspace_bytes(vl_gpu_arch arch)
{
    switch (arch) {
    case VL_ARCH_VOLTA: case VL_ARCH_TURING: case VL_ARCH_AMPERE: case VL_ARCH_ADA:
        return 4096 * 1024 * 2 + 16 * 1024 * 8;
    case VL_ARCH_HOPPER: case VL_ARCH_BLACKWELL: case VL_ARCH_UNKNOWN: case VL_N_GPU_ARCHS:
        break;
    }
    return 4096 * 1024 * 8;
}

/* The NCCL release in PyTorch's CUDA 12 wheels on PyPI (each wheel's Requires-Dist pins
 * nvidia-nccl-cu12), as major * 10000 + minor * 100 + patch: 2.1 2.18.1, 2.2 2.19.3, 2.3 and
 * 2.4 2.20.5, 2.5 and 2.6 2.21.5, 2.7 2.26.2, 2.8 2.27.3, 2.9 2.27.5; current as 2.11's
 * 2.30.4 (pytorch/pytorch issue #182941).  0: an NCCL before NVLS came in 2.17. */
static unsigned nccl_release(vl_torch t)
{
    switch (t) {
    case VL_TORCH_2_1: return 21801;
    case VL_TORCH_2_2: return 21903;
    case VL_TORCH_2_3: case VL_TORCH_2_4: return 22005;
    case VL_TORCH_2_5: case VL_TORCH_2_6: return 22105;
    case VL_TORCH_2_7: return 22602;
    case VL_TORCH_2_8: return 22703;
    case VL_TORCH_2_9: return 22705;
    case VL_TORCH_CURRENT: return 23004;
    default: return 0;
    }
}

/* src/transport/nvls.cc of each NCCL release (NVIDIA/nccl tags).  NVLS needs an NCCL built
 * with CUDA 12.1 or later (CUDART_VERSION >= 12010), an NVSwitch and compute capability 9.0
 * or later (graph/search.cc), and more than two GPUs of the communicator on the node
 * (gpuCount <= 2 turns it off) until 2.28.7, which takes two.  On one node the heads are
 * the communicator's GPUs there (the search's channels: one a GPU).  Each GPU's buffer is
 * physical memory (cuMemCreate), bound to a multicast object that maps it and takes none:
 *   2.17 to 2.20: nChannels x 2 x (NCCL_BUFFSIZE 4 MiB + NVLS_MEM_ALIGN_SIZE 2 MiB) x heads,
 *     at communicator init (1.5 GiB on 8 GPUs: "nvlsTotalSize 1610612736" in an NCCL 2.18
 *     log of 8 H800s);
 *   2.21: the buffer a step of 128 KiB x NCCL_STEPS 8 = 1 MiB ("Reduce NVLS memory usage");
 *   2.22 and later: 1 MiB a buffer and no 2 MiB slot, made when a collective first takes
 *     NVLS (runtime connect), with a credit buffer of one allocation granule at init (2 MiB
 *     in NCCL's logging example).
 * nChannels: NCCL_NVLS_NCHANNELS, 16 (sm90); on Blackwell 32 from 2.25 and 24 within one
 * NVLink domain from 2.27.  2.20 and 2.21 multiply the communicator's channel count
 * instead (comm->nChannels), at least the 16 NVLS ones (graph/connect.cc): 24 on an 8-GPU
 * board of GPUs with 18 NVLink 4 links ("nvlsPerRankSize 301989888", 24 x 2 x 6 MiB, in
 * NCCL 2.20.5's log of 8 H200s, vllm-project/vllm issue #9699), 16 with 8 (the H800's
 * NCCL 2.18 log above: 16 channels) or unknown.  Before 2.26 the buffers are rounded up
 * to the multicast granularity, not counted. */
uint64_t vl_nvls_bytes(vl_torch torch, const vl_runtime *rt, vl_link link, uint64_t gpus)
{
    const unsigned nccl = nccl_release(torch);
    if (nccl < 21701 || rt->cuda < 1201 || link != VL_LINK_NVLINK ||
        (rt->arch != VL_ARCH_HOPPER && rt->arch != VL_ARCH_BLACKWELL) ||
        gpus < (nccl >= 22807 ? 2u : 3u))
        return 0;
    const uint64_t mib = 1048576, heads = gpus;
    if (nccl < 22203) { /* a buffer and a 2 MiB slot a channel, twice */
        const uint64_t channels =
            nccl >= 22005 && rt->arch == VL_ARCH_HOPPER && rt->nvlinks >= 18 ? 24 : 16;
        const uint64_t buffer = nccl < 22105 ? 4 * mib : 1 * mib;
        return channels * 2 * (buffer + 2 * mib) * heads;
    }
    const uint64_t channels =
        rt->arch == VL_ARCH_BLACKWELL ? (nccl >= 22703 ? 24 : 32) : 16;
    return channels * 2 * mib * heads + 2 * mib;
}
