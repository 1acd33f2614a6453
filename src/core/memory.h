/* memory.h: per-GPU training memory (DESIGN §4.2-§4.4), one function per formula.
 *
 * Every caller (CLI, TUI, tests) goes through vl_estimate() or the per-formula
 * functions it is built from, so a number on screen, in JSON and in a test is the same. */
#ifndef VL_MEMORY_H
#define VL_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "names.h"

typedef enum { VL_MODE_TRAIN, VL_MODE_INFER, VL_N_MODES } vl_mode;
/* fp16, bf16: pure 16-bit.  *-mixed: 16-bit weights and an fp32 master copy in the optimizer
 * (Megatron-LM, DeepSpeed).  *-amp: PyTorch autocast, fp32 weights and 16-bit matmuls. */
typedef enum {
    VL_FP32, VL_FP16, VL_BF16, VL_FP16_MIXED, VL_BF16_MIXED, VL_FP16_AMP, VL_BF16_AMP,
    VL_N_PRECISIONS
} vl_precision;
typedef enum { VL_ADAMW, VL_ADAM_8BIT, VL_SGD_MOMENTUM, VL_SGD, VL_LION, VL_N_OPTIMIZERS } vl_optimizer;
typedef enum { VL_RECOMPUTE_NONE, VL_RECOMPUTE_SELECTIVE, VL_RECOMPUTE_FULL, VL_N_RECOMPUTES } vl_recompute;
typedef enum { VL_DT_FP32, VL_DT_FP16, VL_DT_BF16, VL_DT_FP8, VL_DT_INT8, VL_DT_INT4, VL_N_DTYPES } vl_dtype;

/* Names as the CLI, JSON and presets spell them, indexed by the enums above. */
extern const char *const vl_mode_names[VL_N_MODES];
extern const char *const vl_precision_names[VL_N_PRECISIONS];
extern const char *const vl_optimizer_names[VL_N_OPTIMIZERS];
extern const char *const vl_recompute_names[VL_N_RECOMPUTES];
extern const char *const vl_dtype_names[VL_N_DTYPES];

typedef struct vl_settings {
    vl_mode mode;
    vl_precision precision;
    vl_optimizer optimizer;
    bool fp32_grads;       /* gradients kept in fp32 (Megatron main grads) */
    bool fp32_grad_copy;   /* count an fp32 gradient copy in the optimizer states */
    unsigned zero;         /* 0..3 */
    uint64_t gpus, batch, seq, gen;
    vl_recompute recompute;
    bool flash_attn;
    vl_dtype weight_dtype, kv_dtype;
    uint64_t overhead;     /* bytes */
} vl_settings;

#define VL_MAX_GPUS  1048576ULL
#define VL_MAX_BATCH 1048576ULL
#define VL_MAX_SEQ   16777216ULL

/* DESIGN §2 defaults. */
void vl_settings_default(vl_settings *s);
/* NULL, or a one-line reason naming the flag (e.g. "--zero must be 0, 1, 2 or 3"). */
const char *vl_settings_check(const vl_settings *s);

/* §4.2: bytes per parameter; optimizer = master + grad_copy + moments. */
typedef struct vl_bpp {
    unsigned weights, gradients, optimizer;
    unsigned master, grad_copy, moments;
} vl_bpp;
vl_bpp vl_bytes_per_param(const vl_settings *s);
/* An fp32 master copy in the optimizer (fp16-mixed, bf16-mixed). */
bool vl_precision_is_mixed(vl_precision p);
/* PyTorch autocast (fp16-amp, bf16-amp). */
bool vl_precision_is_amp(vl_precision p);
/* Bytes of one element the matmuls read and write: 4 in fp32, else 2. */
unsigned vl_activation_bytes(vl_precision p);

/* §4.3: what one GPU holds of a P-parameter model state at bytes_per_param, when the
 * state is sharded over gpus (ceil(P / gpus) parameters) or not. */
uint64_t vl_state_bytes(uint64_t params, unsigned bytes_per_param, bool sharded, uint64_t gpus,
                        bool *ovf);
/* §4.3: ZeRO-3 live parameters: largest matrix x (weight + gradient bytes) (DeepSpeed). */
uint64_t vl_zero3_live_bytes(uint64_t largest_matrix, const vl_bpp *b, bool *ovf);

/* §4.4: activations saved for backward, tensor by tensor, as PyTorch eager modules keep
 * them (the FORMULAS section of vramlab(1) lists the modules), at their peak. */
#define VL_MAX_TERMS 24
typedef struct vl_term {
    const char *name;
    uint64_t bytes;
} vl_term;

typedef struct vl_activations {
    vl_term layer[VL_MAX_TERMS];   /* what one layer keeps for backward */
    int n_layer;
    uint64_t layer_bytes;
    uint64_t layer_weight_copies;  /* of layer_bytes: autocast's 16-bit weight copies */
    vl_term outside[VL_MAX_TERMS]; /* the embedding side, then the output layer and the loss */
    int n_outside;
    uint64_t outside_bytes;
    uint64_t embedding_bytes;      /* of outside_bytes: the embedding side, kept to the end */
    /* full recompute only: each layer's kept input, and what is kept besides the inputs at
     * the end of the forward (outside + all layers' weight copies) and while the last
     * layer is recomputed in backward (that layer, its input counted once, + embedding) */
    uint64_t checkpoint_bytes;
    uint64_t forward_end_bytes;
    uint64_t recompute_bytes;
    uint64_t layers;
    uint64_t total;
} vl_activations;
void vl_activations_compute(const vl_arch *a, const vl_settings *s, vl_activations *out,
                            bool *ovf);

typedef enum {
    VL_C_WEIGHTS, VL_C_GRADIENTS, VL_C_OPTIMIZER, VL_C_ACTIVATIONS, VL_C_KV_CACHE,
    VL_C_ZERO3_LIVE, VL_C_OVERHEAD, VL_N_COMPONENTS
} vl_component;
extern const char *const vl_component_keys[VL_N_COMPONENTS];   /* JSON keys */
extern const char *const vl_component_labels[VL_N_COMPONENTS]; /* for people */

typedef struct vl_breakdown {
    vl_params params;      /* the architecture's count, term by term */
    uint64_t P;            /* parameters the memory model uses */
    vl_bpp bpp;
    vl_activations act;
    uint64_t bytes[VL_N_COMPONENTS]; /* per GPU */
    uint64_t total;
} vl_breakdown;

/* The per-GPU breakdown.  Returns NULL, or a reason when a setting is invalid or a result
 * would not fit in 64 bits. */
const char *vl_estimate(const vl_model *m, const vl_settings *s, vl_breakdown *out);

#endif
