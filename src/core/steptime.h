/* steptime.h: training step time from the FLOPs a token costs and a utilisation of the GPU's
 * peak (HACKING §4.6).
 *
 * The FLOPs of one token, forward and backward, are 6 per weight it multiplies (Kaplan et
 * al. 2020, "Scaling Laws for Neural Language Models", section 2.1, C = 6N; Hoffmann et al.
 * 2022, Chinchilla, appendix F) plus attention's 12 x L x context x (heads x head dim)
 * (Chowdhery et al. 2022, PaLM, appendix B; Narayanan et al. 2021, Megatron-LM, section
 * 5.1, whose 96·B·s·l·h²·(1 + s/6h + V/16lh) is this with a recomputed forward).  The
 * weights a token multiplies are the active ones (the experts it is routed to) and the
 * output layer, and not the embedding tables, which are looked up.  Recomputation runs the
 * forward again (full) or the attention core (selective): the hardware does more FLOPs
 * than the model needs.  The utilisation (--mfu) is of the model's FLOPs, PaLM's MFU, so
 * the step time is model FLOPs / (GPUs x MFU x peak). */
#ifndef VL_STEPTIME_H
#define VL_STEPTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "memory.h"
#include "preset.h"

typedef struct vl_train_speed {
    bool known;                    /* the GPU has a dense peak for the precision */
    double peak_flops;             /* per GPU, dense, FLOP/s */
    uint64_t matmul_params;        /* weights a token multiplies (active, output layer) */
    uint64_t context;              /* keys a token attends to: s, or the sliding window */
    double model_flops_per_token;  /* 6 x matmul_params (4 x with a frozen LoRA base, + 6 x
                                    * the adapters) + 12 x L x context x a x d */
    double hardware_flops_per_token; /* + the recomputed forward */
    uint64_t tokens_per_step;      /* global batch x s */
    double step_seconds;
    double tokens_per_s, tokens_per_s_per_gpu;
    double days, gpu_hours;        /* for s->tokens; 0 when none */
} vl_train_speed;

/* The step time of a training run s of m on gpu, from b (vl_estimate's). */
vl_train_speed vl_train_speed_of(const vl_model *m, const vl_breakdown *b, const vl_settings *s,
                                 const vl_gpu *gpu);

#endif
