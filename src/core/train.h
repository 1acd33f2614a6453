/* train.h: `vramlab probe train`: one small network trained from the same seed in several
 * precision regimes, side by side, on the CPU emulation or the CUDA kernels, bit for bit
 * the same (HACKING §5).
 *
 * The task.  A teacher network (VL_TRAIN_IN -> 32 ReLU -> VL_TRAIN_CLASSES, random) labels
 * VL_TRAIN_ROWS points drawn uniformly from [-1, 1)^VL_TRAIN_IN (or the rows of --input),
 * and a student of the same shape (VL_TRAIN_IN -> VL_TRAIN_HIDDEN ReLU -> VL_TRAIN_CLASSES,
 * He-uniform weights, zero biases) learns them with Adam, one micro-batch of VL_TRAIN_BATCH
 * rows per step, the micro-batches in order.  The loss is the softmax cross-entropy.
 *
 * Why unscaled fp16 fails.  As LLM trainers do, the loss of a micro-batch is its share of
 * a global batch of VL_TRAIN_GLOBAL = 2^24 examples (the mean over the micro-batch times
 * VL_TRAIN_BATCH / VL_TRAIN_GLOBAL, PyTorch's loss / iters_to_accumulate), so the gradient
 * of logit j of a row is (p_j - [j = label]) / 2^24: below fp16's smallest subnormal
 * 2^-24 for every logit, and flushed to zero wherever |p_j - [j = label]| < 1/2.  At step
 * 1 (seed 1) 70% of the logits' gradients flush, and every one that survives is exactly
 * +-2^-24: one unit, the sign and nothing else.  96% of the hidden layer's gradients
 * flush too (one unit times weights of about 1/4), 75% of all the gradient values cast
 * (`probe train` prints the fraction per step; 78-89% of the logits' gradients from step
 * 50 on, as the fit improves and |p - y| shrinks).  So the fp16 weights move by Adam's
 * full step in the direction of the few rows the model gets badly wrong, and the run
 * stalls and drifts instead of converging.  Adam's step does not depend on the gradients'
 * scale (above its eps), so in fp32 the 2^-24 costs nothing, and a loss scale of 2^10 or
 * more lifts the fp16 gradients back into range: fp16-static and fp16-dynamic follow
 * fp32, and unscaled fp16 ends with a loss many times fp32's.
 *
 * Slices: vl_train_init, then vl_train_step(run, n) as often as wanted (a panel between
 * frames, the command in one go); the per-step arrays are filled up to run->done, and
 * final_loss and accuracy are set when done == steps. */
#ifndef VL_TRAIN_H
#define VL_TRAIN_H

#include <stddef.h>

#include "backend.h"

#define VL_TRAIN_IN 16
#define VL_TRAIN_HIDDEN 32
#define VL_TRAIN_CLASSES 4
#define VL_TRAIN_BATCH 64
#define VL_TRAIN_ROWS 512                  /* the default data set: 8 micro-batches */
#define VL_TRAIN_MAX_ROWS (1u << 20)       /* --input */
/* The global batch: 2^24 = 16M examples, as Llama 3 405B's 16M-token batches (Dubey et
 * al. 2024, "The Llama 3 Herd of Models", section 3.4.1). */
#define VL_TRAIN_GLOBAL (1u << 24)
#define VL_TRAIN_MAX_STEPS 100000

/* Defaults.  Adam's betas and eps are torch.optim.Adam's. */
#define VL_TRAIN_STEPS 300
#define VL_TRAIN_LR 0.02f
#define VL_TRAIN_STATIC_SCALE 1024.0f

typedef enum { VL_SCALING_NONE, VL_SCALING_STATIC, VL_SCALING_DYNAMIC } vl_scaling;
extern const char *const vl_scaling_names[3]; /* none, static, dynamic */

/* A regime: the formats of the matrix products' inputs forward and backward, of what the
 * products write (activations, gradients), and of the weights the optimizer updates.
 * Adam's moments are fp32 in every regime (as in torch.amp training). */
typedef struct vl_train_regime {
    const char *name;      /* "fp16-dynamic" */
    const char *precision; /* "fp16 compute, fp32 master weights" */
    vl_format fwd, bwd, store, weights;
    vl_scaling scaling;
    bool per_tensor; /* each product's inputs scaled by a power of two to fill the format */
} vl_train_regime;

enum {
    VL_REGIME_FP32, VL_REGIME_FP16, VL_REGIME_FP16_STATIC, VL_REGIME_FP16_DYNAMIC,
    VL_REGIME_BF16, VL_REGIME_BF16_PURE, VL_REGIME_FP8, VL_N_REGIMES
};
extern const vl_train_regime vl_train_regimes[VL_N_REGIMES];
extern const char *const vl_train_regime_names[VL_N_REGIMES];

typedef struct vl_train_opts {
    uint32_t steps;
    float lr;
    uint64_t seed;
    float static_scale;           /* the static regime's loss scale */
    vl_scaler_params scaler;      /* the dynamic regime's: GradScaler's defaults */
    bool accumulate_in_format;    /* sums in the format the products write, not fp32 */
    const float *features;        /* NULL, or rows x VL_TRAIN_IN values (--input) */
    size_t rows;                  /* with features: a multiple of VL_TRAIN_BATCH */
} vl_train_opts;

void vl_train_opts_default(vl_train_opts *o);

typedef struct vl_train_state vl_train_state; /* the tensors, on the backend */

typedef struct vl_train_run {
    const vl_train_regime *regime;
    uint32_t steps, done;
    /* per step, [0, done): the micro-batch's mean loss, the fractions of the gradient
     * values cast in the step that were flushed to zero and made subnormal, the loss
     * scale the step ran with, and whether the optimizer skipped it (inf or NaN) */
    float *loss, *flushed, *subnormal, *scale;
    uint8_t *skipped_at;
    uint32_t skipped;
    uint64_t grad_values; /* gradient values cast per step */
    double final_loss, accuracy; /* over all rows, when done == steps */
    uint32_t restarts;    /* times a CUDA error moved the run to the CPU (replayed) */
    vl_train_state *state;
} vl_train_run;

/* A run of regime on b (o->steps at least 1), nothing done yet; NULL when out of memory. */
vl_train_run *vl_train_init(vl_backend *b, const vl_train_opts *o, int regime);

/* Up to n more steps; the steps done so far.  The last one also evaluates the model. */
uint32_t vl_train_step(vl_train_run *r, uint32_t n);

void vl_train_free(vl_train_run *r);

#endif
