/* solve.h: what fits: the largest batch or context, or the fewest GPUs, for a GPU's memory. */
#ifndef VL_SOLVE_H
#define VL_SOLVE_H

#include <stdint.h>

#include "memory.h"
#include "timeline.h"

typedef enum {
    VL_SOLVE_MAX_BATCH, VL_SOLVE_MAX_CONTEXT, VL_SOLVE_MIN_GPUS, VL_SOLVE_MAX_CONCURRENCY,
    VL_N_SOLVES
} vl_solve;
extern const char *const vl_solve_names[VL_N_SOLVES];

/* Whether a run fits its GPU, and by how much.  The step's peak on the device must fit what
 * the run may use (vl_usable_memory); under a serving engine that sizes its KV cache
 * (vl_sizes_kv) the engine must start, which it does not when its share leaves nothing for
 * the cache beside the weights and what it keeps (vLLM: "No available memory for the cache
 * blocks"; SGLang: "Not enough memory"), and its cache must hold the batch's sequences at
 * once (vLLM also refuses to start when it cannot hold one).  The first condition that fails
 * decides (the share, then the cache, then the peak); where all hold, the tighter. */
typedef enum { VL_FIT_PEAK, VL_FIT_SHARE, VL_FIT_KV_CACHE, VL_N_FIT_BY } vl_fit_by;
extern const char *const vl_fit_by_names[VL_N_FIT_BY]; /* "peak", "share", "kv_cache" */
typedef struct vl_fit {
    bool fits;
    uint64_t margin; /* to spare, or over by: the GPU's bytes (peak), the engine's share's
                      * (share: its shortfall and the batch's cache; kv cache: the batch's
                      * cache against the engine's) */
    vl_fit_by by;    /* the condition the margin is of */
    uint64_t held;   /* the sequences of seq + gen tokens the engine's cache holds at once
                      * (0 when it sizes none, has none, or the model caches nothing) */
    uint64_t device; /* the step's peak on the device it judged */
} vl_fit;

typedef struct vl_solution {
    uint64_t answer;     /* the batch, context or GPU count, set in the settings too */
    uint64_t next;       /* the next value past the answer (0 when there is none) */
    uint64_t next_total; /* what the next value needs on a GPU at its peak (0 when it is not
                          * computable) */
    vl_fit next_fit;     /* the verdict there: what does not fit, by how much */
} vl_solution;

/* Searches the exact integer (memory grows with batch and context and shrinks with GPUs)
 * with which the run fits capacity (vl_fit_for: the step's peak on the device, what
 * nvidia-smi would show, and a serving engine's KV cache), and leaves it in *s.  NULL, or
 * why nothing fits.  max-concurrency (inference) is a serving engine's count instead, left
 * out of *s: how many sequences of seq + gen tokens its KV cache holds: the cache the
 * engine sizes itself (vl_kv_budget_of), or, for a framework that does not profile, what
 * the weights, the workspace of the run as given and the overhead leave of capacity. */
const char *vl_solve_fit(const vl_model *m, vl_settings *s, vl_solve what, uint64_t capacity,
                         const vl_runtime *rt, vl_solution *out);

/* A serving engine's KV cache as the engine sizes it (a framework with profile_seqs): it
 * runs one forward of prefill_chunk tokens shared over profile_seqs sequences and samples
 * from them, then gives the cache what the weights, that run's peak in PyTorch's allocator
 * and the memory the run and the communicators added outside it leave of its share of the
 * GPU, less what its V2 runner keeps for the sampler and its estimate of the CUDA graphs
 * (vLLM V1's determine_available_memory); the cache holds whole blocks of kv_block tokens. */
typedef struct vl_kv_budget {
    vl_kv_sizing sizing;    /* how the engine sized it; none: it did not */
    uint64_t share;         /* gpu_util: of what CUDA reports (profile, extensible), of
                             * free_at_load (static), in millionths */
    uint64_t free_at_load;  /* static: what CUDA leaves free before the weights load, its
                             * context and the communicators made */
    uint64_t capacity;      /* the engine's share: gpu_util of what CUDA reports (profile), of
                             * free_at_load (static); extensible: that or, where less, what
                             * CUDA reports less the context, comm_made and the margin */
    uint64_t weights;       /* with what the model registers beside them (RoPE tables) */
    uint64_t profile_peak;  /* the profile run's peak over the weights (vLLM 0.3.1 to 0.6.3:
                             * with the allocator's reserved segments) */
    uint64_t non_torch;     /* what the run added outside PyTorch's allocator (vLLM 0.6.4:
                             * all there is outside it, the CUDA context too) */
    uint64_t communicators; /* what tensor parallelism's communicators add to it
                             * (vl_communicator_bytes) */
    uint64_t comm_made;     /* what they took as they were made, where the engine measures
                             * its memory after that (comm_nvlink_init): outside its share,
                             * on the device */
    uint64_t sampler_state; /* what vLLM's V2 runner keeps for its sampler (vl_sampler_state) */
    uint64_t graph_estimate; /* vLLM's estimate of its CUDA graphs (vl_graph_estimate) */
    uint64_t context;       /* extensible: the CUDA context, outside what it measures free */
    uint64_t margin;        /* extensible: what it keeps free beyond the transient peak */
    uint64_t available;     /* capacity less the six (static: less the weights): the KV cache */
    uint64_t shortfall;     /* what they take beyond capacity, where nothing is left
                             * (vLLM then stops: "No available memory for the cache
                             * blocks"); 0 otherwise */
    uint64_t tokens;        /* the tokens its whole blocks hold (vLLM's "GPU KV cache size") */
    uint64_t per_sequence;  /* bytes one sequence of seq + gen tokens takes of it */
    uint64_t profile_seqs, profile_tokens; /* the profile run: sequences, tokens each */
    uint64_t memory;        /* the GPU's as CUDA reports it (0: unknown), which the engine's
                             * process, its whole KV cache among it, must fit */
} vl_kv_budget;

/* The KV cache s's engine gives itself on runtime rt under framework f: out of capacity
 * (the engine's share of the GPU) after a profile run, or (static) out of its share of what
 * is free before the weights load: NULL, or why it has none (the framework does not size it,
 * vl_sizes_kv; or nothing is left: the figures and the shortfall are filled in). */
const char *vl_kv_budget_of(const vl_model *m, const vl_settings *s, const vl_framework *f,
                            const vl_runtime *rt, uint64_t capacity, vl_kv_budget *out);

/* The verdict for a step whose peak on the device is `device`, on a GPU of which the run may
 * use `capacity`, `batch` sequences at once, under an engine whose KV cache is k (NULL, or
 * k->sizing none: the peak alone decides).  Under an engine that sizes its cache, `device`
 * holds all of it (vl_timeline_for) and is judged against the GPU's whole memory; the share
 * bounds the cache, which must hold the batch. */
vl_fit vl_fit_of(uint64_t device, uint64_t capacity, const vl_kv_budget *k, uint64_t batch);
/* vl_timeline_for's timeline of s on runtime rt, the engine's KV cache sized out of
 * capacity (0: none sized) and left in *kv (sizing none where none is) for the caller's
 * verdict. */
bool vl_timeline_with_kv(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                         uint64_t capacity, vl_timeline *out, vl_kv_budget *kv, char *err,
                         size_t len);
/* The verdict for s on runtime rt: its timeline's peak and, under an engine that sizes its
 * KV cache, that cache (vl_kv_budget_of).  false, with the reason in err, when s has no
 * timeline (vl_timeline_for). */
bool vl_fit_for(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                uint64_t capacity, vl_fit *out, char *err, size_t len);
/* The margin signed (negative when it does not fit), saturated to int64_t (JSON's
 * "headroom"). */
int64_t vl_fit_headroom(const vl_fit *f);

/* What a serving engine's profile run measures in a timeline of it: the peak PyTorch's
 * allocator reached over the weights, less the KV cache and the runtime's pools (CUDA
 * graphs), which the engine makes after, and the sampler state it made before (counted on
 * their own), but the cuBLAS workspace, which the forward's first matmul allocates. */
uint64_t vl_profile_peak(const vl_timeline *t);

/* Told after each value a search tries: how many it has tried, of at most `most` (each try
 * builds the step's timeline, which on a deep model takes a while). */
typedef void (*vl_solve_watch)(void *ctx, unsigned tried, unsigned most);
/* vl_solve_fit, telling watch (when it is not NULL) of every try. */
const char *vl_solve_fit_watched(const vl_model *m, vl_settings *s, vl_solve what,
                                 uint64_t capacity, const vl_runtime *rt, vl_solution *out,
                                 vl_solve_watch watch, void *ctx);

#endif
