/* lora.h: LoRA adapters (Hu et al. 2021): which matrices get one, and how many parameters
 * they train; QLoRA's NF4 base weights (Dettmers et al. 2023). */
#ifndef VL_LORA_H
#define VL_LORA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The matrices an adapter can sit on: a layer's, and the output layer (head: LitGPT's
 * lora_head, PEFT's "lm_head" among target_modules). */
typedef enum {
    VL_LORA_Q, VL_LORA_K, VL_LORA_V, VL_LORA_O, VL_LORA_GATE, VL_LORA_UP, VL_LORA_DOWN,
    VL_LORA_HEAD, VL_N_LORA_TARGETS
} vl_lora_target;
extern const char *const vl_lora_target_names[VL_N_LORA_TARGETS];
/* every linear layer of the transformer layers, as PEFT's "all-linear" (which leaves the
 * output layer out) */
#define VL_LORA_ALL_LINEAR ((1u << VL_LORA_HEAD) - 1)
#define VL_LORA_ALL_TARGETS ((1u << VL_N_LORA_TARGETS) - 1)

/* "q,v", "q,k,v,o,gate,up,down", "all-linear" or "all-linear,head" ("lm_head" for head)
 * into a mask of targets.  False, with the reason in why, when it is not a list of
 * targets. */
bool vl_lora_parse_targets(const char *s, unsigned *mask, char *why, size_t len);
/* The mask as "q,v", "all-linear" or "all-linear,head" (in buf). */
const char *vl_lora_format_targets(unsigned mask, char *buf, size_t len);

/* Trainable parameters of rank-r adapters on the masked matrices of every layer (and every
 * expert) and on the output layer: r x (in + out) a matrix, A and B, counting only the
 * tensors of at least min elements (0: all of them).  NULL, or why the model takes no such
 * adapters. */
const char *vl_lora_params(const vl_arch *a, unsigned mask, uint64_t rank, uint64_t min,
                           uint64_t *out);
/* Of those, the output layer's adapter: r x (hidden + vocab), or 0 where mask has no head. */
uint64_t vl_lora_head_params(const vl_arch *a, unsigned mask, uint64_t rank);

/* QLoRA: bytes of n weights in NF4: 4 bits a weight and the block scales, double-quantized
 * (one 8-bit scale per block of 64, one fp32 scale per 256 of those: about 4.127 bits) or
 * not (an fp32 scale a block: 4.5 bits). */
uint64_t vl_nf4_bytes(uint64_t n, bool double_quant);
/* The block scales alone of n bitsandbytes 4-bit weights (bitsandbytes/functional.py,
 * quantize_4bit): one fp32 absmax a block of 64, or with double quantization
 * (compress_statistics) that absmax in 8 bits with an fp32 absmax per 256 blocks. */
uint64_t vl_nf4_scale_bytes(uint64_t n, bool double_quant);

/* QLoRA's quantized base: every weight matrix of the transformer layers (attention q, k, v,
 * o and each MLP's, every expert's; not their biases, norms, routers or the embeddings),
 * each in NF4 on its own (vl_nf4_bytes per matrix).  params, bytes: all of them (scales:
 * of bytes, their block scales); largest: the largest one's parameter count.  NULL, or why
 * not (latent attention). */
const char *vl_nf4_base(const vl_arch *a, bool double_quant, uint64_t *params, uint64_t *bytes,
                        uint64_t *scales, uint64_t *largest);

#endif
