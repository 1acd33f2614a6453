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

typedef struct vl_solution {
    uint64_t answer;     /* the batch, context or GPU count, set in the settings too */
    uint64_t next;       /* the next value past the answer (0 when there is none) */
    uint64_t next_total; /* what the next value needs on a GPU at its peak (0 when it is not
                          * computable) */
} vl_solution;

/* Searches the exact integer (memory grows with batch and context and shrinks with GPUs)
 * with which the step's peak on the device (vl_timeline_for: what nvidia-smi would show)
 * fits capacity, and leaves it in *s.  NULL, or why nothing fits.  max-concurrency
 * (inference) is a serving engine's count instead, left out of *s: how many sequences of
 * seq + gen tokens the KV cache holds in what the weights, the workspace of the run as
 * given (the engine's profiled peak) and the overhead leave of capacity, as vLLM sizes its
 * cache. */
const char *vl_solve_fit(const vl_model *m, vl_settings *s, vl_solve what, uint64_t capacity,
                         const vl_runtime *rt, vl_solution *out);

/* Told after each value a search tries: how many it has tried, of at most `most` (each try
 * builds the step's timeline, which on a deep model takes a while). */
typedef void (*vl_solve_watch)(void *ctx, unsigned tried, unsigned most);
/* vl_solve_fit, telling watch (when it is not NULL) of every try. */
const char *vl_solve_fit_watched(const vl_model *m, vl_settings *s, vl_solve what,
                                 uint64_t capacity, const vl_runtime *rt, vl_solution *out,
                                 vl_solve_watch watch, void *ctx);

#endif
