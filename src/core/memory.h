/* memory.h: per-GPU training memory (HACKING §4.2-§4.4), one function per formula.
 *
 * Every caller (CLI, TUI, tests) goes through vl_estimate() or the per-formula
 * functions it is built from, so a number on screen, in JSON and in a test is the same. */
#ifndef VL_MEMORY_H
#define VL_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "names.h"
#include "settings.h"

/* §4.2: bytes per parameter; optimizer = master + grad_copy + moments.  Optimizers whose
 * state follows the matrices' shapes (Adafactor's factored second moment, Muon's AdamW for
 * what is not a hidden matrix) keep shaped_bytes more for the whole model. */
typedef struct vl_bpp {
    unsigned weights, gradients, optimizer;
    unsigned master, grad_copy, moments;
    unsigned moment_tensors;  /* the tensors moments is for each parameter tensor */
    /* a parameter as ZeRO-3 gathers it, and its gradient as backward makes it, before
     * ZeRO 2 and 3 reduce it into the shard: 16-bit under FSDP's MixedPrecision
     * (vl_fsdp_casts_params), else weights and gradients */
    unsigned gathered, unsharded_grad;
    uint64_t shaped_bytes;
    const char *shaped;       /* what shaped_bytes is, for the formulas; NULL when 0 */
} vl_bpp;
vl_bpp vl_bytes_per_param(const vl_settings *s, const vl_arch *a);
/* Bytes of one element the matmuls read and write: 4 in fp32, else 2. */
unsigned vl_activation_bytes(vl_precision p);
/* FSDP (--zero 2, 3 where the framework shards as FSDP) under autocast with a MixedPrecision
 * whose param_dtype is the autocast dtype: --fsdp-mixed-precision, else the framework's. */
bool vl_fsdp_casts_params(const vl_settings *s);
/* Training: the loop keeps the step before's logits and graph (--loop-keeps-logits true,
 * or auto and the framework's loop_keeps_logits); inference: a forward alone's loop keeps
 * the forward before's outputs (--loop-keeps-logits true, --gen 0, not an engine's). */
bool vl_loop_keeps_logits(const vl_settings *s);
/* Training: the loop holds the step's own logits through their backward
 * (--loop-keeps-logits backward, or the framework's loop, which binds them). */
bool vl_loop_binds_logits(const vl_settings *s);
/* Whether the model's forward, a transformers model's under autocast, returns its 16-bit
 * outputs cast to fp32 (--outputs-fp32, or the framework's outputs_to_fp32). */
bool vl_outputs_fp32(const vl_settings *s);
/* Whether a transformers model runs with use_cache on in training (--use-cache, or the
 * framework's use_cache). */
bool vl_use_cache(const vl_settings *s);
/* Training: an RMSNorm keeps its input upcast to fp32 (--norm-upcast, or the framework's
 * norm_upcast). */
bool vl_norm_upcast(const vl_settings *s);
/* Training: the step runs under torch.autocast: the -amp precisions, or a 16-bit model's
 * step where --autocast (or the framework's autocast) says so. */
bool vl_autocast(const vl_settings *s);
/* Training: ZeRO-1 or 2 keeps an fp32 master copy of fp32 weights (the framework's
 * zero_fp32_master: DeepSpeed's). */
bool vl_zero_fp32_master(const vl_settings *s);
/* Training: QLoRA's 4-bit weights are stored in a 16-bit float (--quant-storage). */
bool vl_quant_storage_16bit(const vl_settings *s);
/* Training: LoRA's adapters are fp32 over a model held in 16 bits (QLoRA's where the
 * framework's qlora_adapters_fp32 says so, a 16-bit layer's, and a 4-bit layer's stored in
 * a 16-bit float, where its lora_adapters_fp32 and PEFT 0.12 or later do), with fp32
 * weights, gradients and optimizer state. */
bool vl_adapters_fp32(const vl_settings *s);
/* ... and, without autocast, each casts its input to fp32 for itself and keeps that copy
 * for its gradient: the adapters share no input. */
bool vl_adapters_cast_input(const vl_settings *s);
/* ... and, under autocast, a 16-bit layer's cast their input to fp32 all the same, which
 * autocast casts back: each keeps a 16-bit copy of its own. */
bool vl_adapters_cast16(const vl_settings *s);
/* Whether a term vl_activations_compute names is an RMSNorm's input (upcast or not), whose
 * squares mean kept before PyTorch 2.2. */
bool vl_rmsnorm_input(const char *term_name);
/* The model as the framework builds it: m, or in own m with an output layer of its own
 * where the framework unties the embeddings (unties_embeddings). */
const vl_model *vl_model_as_built(const vl_model *m, const struct vl_framework *f,
                                  vl_model *own);
/* The precision the layers compute in: a pure 16-bit one where FSDP gathers 16-bit
 * parameters (vl_fsdp_casts_params), else the settings' own. */
vl_precision vl_compute_precision(const vl_settings *s);

/* The name of the cls head's saved log-probabilities among vl_activations.outside. */
#define VL_CLASS_LOGPROBS "class log-probabilities (fp32)"
/* the layer term of LoRA's dropout masks */
#define VL_LORA_MASKS "LoRA dropout masks (bool)"
/* --head cls: the classifier's parameters, labels x h, with a bias of labels in an encoder
 * (BertForSequenceClassification's classifier; the decoders' score has none), and an
 * encoder without a pooler's dense layer before it (DistilBERT's pre_classifier). */
uint64_t vl_cls_classifier(const vl_arch *a, const vl_settings *s, bool *ovf);

/* §4.3: what one GPU holds of a P-parameter model state at bytes_per_param, when the
 * state is sharded over gpus (ceil(P / gpus) parameters) or not. */
uint64_t vl_state_bytes(uint64_t params, unsigned bytes_per_param, bool sharded, uint64_t gpus,
                        bool *ovf);
/* §4.3: ZeRO-3 live parameters: largest matrix x (gathered weight + unsharded gradient
 * bytes) (DeepSpeed). */
uint64_t vl_zero3_live_bytes(uint64_t largest_matrix, const vl_bpp *b, bool *ovf);

/* §4.4: activations saved for backward, tensor by tensor, as PyTorch eager modules keep
 * them (the FORMULAS section of vramlab(1) lists the modules), at their peak. */
#define VL_MAX_TERMS 32
typedef struct vl_term {
    const char *name;
    uint64_t bytes;
} vl_term;

typedef struct vl_activations {
    vl_term layer[VL_MAX_TERMS];   /* what one layer keeps for backward */
    int n_layer;
    uint64_t layer_bytes;
    uint64_t layer_weight_copies;  /* of layer_bytes: autocast's 16-bit weight copies */
    uint64_t lora_input_masks;     /* of its LoRA dropout masks: the adapters' that read the
                                    * normalized layer input (q, k, v; gate, up under parallel
                                    * attention) */
    vl_term outside[VL_MAX_TERMS]; /* the embedding side, then the output layer and the loss */
    int n_outside;
    uint64_t outside_bytes;
    uint64_t embedding_bytes;      /* of outside_bytes: the embedding side, kept to the end */
    uint64_t head_input_live;      /* not saved, alive through the loss: the last hidden state
                                    * where the head saves only a cast of its first position */
    /* full recompute only: each layer's kept input, and what is kept besides the inputs at
     * the end of the forward (outside + all layers' weight copies) and while the last
     * layer is recomputed in backward (that layer, its input counted once, + embedding) */
    uint64_t dequant_bytes;        /* of outside_bytes: QLoRA's 16-bit copy of one base matrix,
                                    * the larger of: */
    uint64_t layer_dequant_bytes;  /* a layer's largest, in its forward and backward */
    uint64_t largest_base;         /* QLoRA: that matrix's weights */
    uint64_t head_dequant_bytes;   /* a 4-bit output layer's, at the loss (vl_qlora_head) */
    uint64_t checkpoint_bytes;
    uint64_t forward_end_bytes;
    uint64_t kv_elements;          /* a layer's K (or V) as its projection makes it, on this
                                    * GPU: elements */
    uint64_t kv_narrow_bytes;      /* a layer's K and V as made, where attention keeps them
                                    * repeated to the query heads (0 where as made) */
    uint64_t recompute_bytes;
    uint64_t layers;               /* the layers this GPU holds (a pipeline stage's) */
    uint64_t in_flight;            /* micro-batches whose activations it keeps (1F1B) */
    /* interleaved 1F1B (--vpp): the layers of one model chunk and the chunks' micro-batches
     * the first stage keeps; layers and in_flight without --vpp */
    uint64_t chunk_layers, chunks_in_flight;
    /* context parallel (--cp): the tokens of a sequence on this GPU (seq / cp), and the ring
     * exchange's buffers, one layer's at a time (0 without --cp) */
    uint64_t local_seq;
    uint64_t ring_bytes;
    /* expert parallel (--ep): the token dispatcher's all-to-all buffers, one MoE layer's at a
     * time: the routed tokens' permuted copy for dispatch and the experts' outputs for
     * combine, b·s·k·h·β each (0 without --ep) */
    uint64_t a2a_bytes;
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

/* §4.5: one phase of inference on one GPU. */
typedef struct vl_phase {
    uint64_t kv_cache;     /* the cache at the end of the phase */
    uint64_t workspace;    /* the largest transient tensors of one forward pass */
    uint64_t total;        /* weights + kv_cache + workspace + overhead */
} vl_phase;

typedef struct vl_inference {
    uint64_t linear_params;    /* in the transformer layers' matrices: stored in weight_dtype */
    uint64_t embedding_params; /* token embeddings and an untied output layer */
    uint64_t other_params;     /* norms, biases, positions, routers */
    uint64_t scale_bytes;      /* int4: one 16-bit scale per group (and GPTQ's and AWQ's
                                * 4-bit zero point); bnb4: the block absmax; over all GPUs */
    uint64_t replicated_bytes; /* weight bytes every GPU holds in full (other_params) */
    uint64_t rope_cache_bytes; /* the engine's RoPE cos/sin table (rope_cache), every GPU's */
    uint64_t mla_absorbed_bytes; /* vLLM 0.7's absorbed MLA matrices (vl_mla_absorbed_bytes) */
    uint64_t dq_buffer_bytes;  /* GPTQ's exllama buffer under transformers (inference.c) */
    uint64_t layers, kv_heads, head_dim; /* the model's, for the formulas */
    /* pipeline-parallel serving (--pp): the stages, and the layers of the fullest one
     * (ceil(layers / pp)), whose weights, cache and workspace the breakdown shows */
    uint64_t pp, stage_layers;
    bool logits;               /* the stage shown computes the logits (the last, or the only) */
    /* what that stage holds of linear, embedding and other params (all of them without --pp) */
    uint64_t stage_linear, stage_embedding, stage_other;
    uint64_t stage_qhead;      /* of stage_embedding: a 4-bit output layer (bnb_quantize_head) */
    uint64_t kv_heads_per_gpu; /* ceil(kv_heads / gpus): replicated when gpus > kv_heads */
    uint64_t kv_bytes_per_token;  /* the whole model's, per sequence */
    uint64_t latent_width;        /* multi-head latent attention: latent + rotary key; else 0 */
    uint64_t prompt_tokens, cached_tokens; /* per sequence, capped by a sliding window */
    uint64_t prompt_slots, cached_slots;   /* the tokens the cache holds: in whole blocks of
                                            * kv_block tokens (paged), else the tokens */
    uint64_t kv_gpu_per_token;             /* this GPU's cache bytes a token and sequence */
    bool gguf_on;              /* weight_dtype is a GGUF file type: its tensors are in gguf */
    vl_gguf_weights gguf;
    /* --cpu-offload: of this GPU's weights, the bytes kept in CPU memory instead (at most
     * all of them), taken out of the weights component and read over the host link */
    uint64_t offloaded_bytes;
    /* ... and while an offloaded layer runs, the copy of it on the GPU (at most one layer's
     * matrices), in each phase's workspace */
    uint64_t offload_copy;
    uint64_t moe_kept_bytes;       /* fused MoE's workspaces, kept from the prefill on
                                    * (moe_workspace_kept) */
    uint64_t prefill_seqs, prefill_tokens; /* a prefill step (vl_prefill_step) */
    vl_phase prefill, decode;  /* decode is all zero when gen = 0 */
    bool decode_peak;          /* the decode phase sets the total */
} vl_inference;

/* LoRA and QLoRA in training: the base is frozen (weights only), the adapters train. */
typedef struct vl_lora_split {
    bool on;
    uint64_t trainable_params;  /* the adapters' */
    uint64_t head_params;       /* of them, the output layer's adapter's (vl_lora_head_params) */
    uint64_t frozen_params;     /* the base model's, all of it */
    uint64_t nf4_params;        /* QLoRA: of frozen_params, the layers' matrices in NF4 */
    uint64_t nf4_bytes;         /* QLoRA: their bytes, block scales included */
    uint64_t nf4_scale_bytes;   /* QLoRA: of nf4_bytes, the block scales, which ZeRO-3 does
                                 * not shard (bitsandbytes' quant_state is no parameter) */
    uint64_t frozen_bytes;      /* the whole frozen base, before any ZeRO-3 sharding */
    uint64_t largest_nf4_matrix;/* QLoRA: params of the largest quantized matrix */
    uint64_t bf16_params;       /* QLoRA: of the others, those a framework casts back to bf16
                                 * (qlora_bf16_embeddings: the embeddings and the head) */
    bool fp32;                  /* the adapters are fp32 over a 16-bit model
                                 * (vl_adapters_fp32): the breakdown's bpp is theirs */
} vl_lora_split;

/* Offload: what each GPU keeps in CPU memory instead, and a node's CPU memory for it. */
typedef struct vl_cpu {
    uint64_t moved[VL_N_COMPONENTS]; /* per GPU, taken out of the breakdown's bytes */
    uint64_t moved_total;            /* per GPU */
    uint64_t gpus_per_node, nodes;
    uint64_t per_node[VL_N_COMPONENTS]; /* moved x GPUs on the node */
    uint64_t node_total;
} vl_cpu;

/* The same run at ZeRO stage z (for the ZeRO 0-3 comparison): an offload the stage does not
 * allow steps down (params to optimizer below ZeRO-3, optimizer to none at ZeRO-0). */
void vl_settings_at_zero(vl_settings *s, unsigned z);

/* Model parallelism in training: what one GPU of the first pipeline stage holds. */
typedef struct vl_parallel {
    uint64_t tp, pp, dp;          /* tensor, pipeline, data parallel: gpus = tp x pp x cp x dp */
    uint64_t cp;                  /* context parallel; ZeRO shards over dp x cp */
    uint64_t vpp;                 /* model chunks a stage (interleaved 1F1B; 1 = plain) */
    uint64_t model_layers;        /* L */
    uint64_t stage_layers;        /* ceil(L / pp) */
    uint64_t in_flight;           /* micro-batches the first stage keeps: min(pp, grad_accum);
                                   * with --vpp, min(ceil(pp + (pp - 1) / vpp), grad_accum) */
    uint64_t params;              /* parameters per GPU before ZeRO (P when tp = pp = 1) */
    uint64_t layer_params;        /* of params: the stage's layers' share */
    uint64_t outside_params;      /* of params: embeddings (split by tp) and the rest */
    uint64_t global_batch;        /* micro-batch x dp x grad_accum, in sequences (of seq tokens,
                                   * split over cp GPUs) */
    /* expert parallel (--ep): the routed experts' params, all of them and on one GPU (of
     * params), and the GPUs that hold the same experts (expert data parallel, dp / ep) */
    uint64_t ep, expert_params, expert_params_per_gpu, expert_dp;
} vl_parallel;

/* GPUs on the fullest node: min(gpus_per_node (default 8), gpus). */
uint64_t vl_gpus_per_node(const vl_settings *s);

typedef struct vl_breakdown {
    vl_params params;      /* the architecture's count, term by term */
    uint64_t P;            /* parameters the memory model uses */
    vl_bpp bpp;            /* training */
    vl_activations act;    /* training */
    vl_inference inf;      /* inference */
    vl_lora_split lora;    /* training with --lora-rank */
    vl_cpu cpu;            /* training with --offload */
    vl_parallel par;       /* training */
    uint64_t bytes[VL_N_COMPONENTS]; /* per GPU; in inference, at the peak phase */
    uint64_t total;
    vl_attention attention; /* the attention the run has (vl_attention_for) */
    char why[256];         /* vl_estimate's reason, when it has one */
} vl_breakdown;

/* §4.5 the memory the run may use of a GPU's: all of it in training, the engine's share of
 * it in inference (floor(memory x share), exactly; vl_settings_share), all of it where the
 * share is the engine's rule or bounds the engine's static memory only (SGLang's). */
uint64_t vl_usable_memory(const vl_settings *s, uint64_t memory);

/* §4.5 bits of one stored element of a plain dtype (int4: 4); 0 for a GGUF file type. */
unsigned vl_dtype_bits(vl_dtype d);
/* §4.5 bytes of one cached vector of n elements (a head's K or V, or a latent) in kv: n
 * elements packed, and for int4 a 16-bit scale and zero point. */
uint64_t vl_kv_vector_bytes(uint64_t n, vl_dtype kv);

/* Roofline bounds on speed from the GPU's bandwidth and peak FLOP/s (0 = unknown). */
typedef struct vl_speed {
    bool known;
    double decode_tokens_per_s;     /* all sequences together: b / step time */
    double decode_step_seconds;     /* >= bytes read per step / bandwidth */
    double prefill_seconds;         /* >= 2 x active params x prompt tokens / FLOP/s */
    /* of each, the offloaded weights' transfer: offloaded bytes / host bandwidth (0 without
     * --cpu-offload) */
    double host_seconds;
    uint64_t step_bytes;            /* what a decode step reads from the GPU's memory: its
                                     * weights and KV cache */
} vl_speed;
/* host_bandwidth: the GPU's link to CPU memory, bytes/s (0 = unknown: with --cpu-offload
 * there are then no bounds). */
vl_speed vl_speed_bounds(const vl_breakdown *b, const vl_settings *s, double bandwidth,
                         double flops, double host_bandwidth);

/* The per-GPU breakdown.  Returns NULL, or a reason (in out->why, or a constant) when a
 * setting is invalid or a result would not fit in 64 bits. */
const char *vl_estimate(const vl_model *m, const vl_settings *s, vl_breakdown *out);
/* The inference half of vl_estimate (inference.c); settings already checked. */
const char *vl_estimate_infer(const vl_model *m, const vl_settings *s, vl_breakdown *out);
/* Inference: the largest transient tensors of one forward over `tokens` new tokens per
 * sequence attending to `context` keys, on one GPU (inference.c; the timeline's chunks), of
 * a stage that computes the logits or not (vl_inference.logits). */
uint64_t vl_infer_workspace(const vl_arch *a, const vl_settings *s, bool logits, uint64_t tokens,
                            uint64_t context, bool *ovf);
/* Inference: a prefill step as the framework schedules it, `seqs` prompts of `tokens` tokens
 * each: a serving engine's budget of prompt tokens a step (prefill_chunk, vLLM's
 * max_num_batched_tokens) takes whole prompts while they fit and one prompt's chunks when
 * one does not; no budget, the whole batch at once. */
void vl_prefill_step(const vl_settings *s, uint64_t *seqs, uint64_t *tokens);
/* Inference: the tensor-parallel degree within a pipeline stage, --gpus / --pp. */
uint64_t vl_infer_tp(const vl_settings *s);
/* Training: the data-parallel degree, --gpus / (--tp x --pp x --cp). */
uint64_t vl_train_dp(const vl_settings *s);
/* Inference: the bytes of an activation element (fp32 weights compute in fp32, the rest in
 * 16 bits). */
uint64_t vl_infer_act_bytes(const vl_settings *s);
/* Inference, bnb4 and bnb8: what quantizing the largest matrix this GPU loads keeps beside
 * it (0 for other weight dtypes). */
uint64_t vl_bnb_load_copy(const vl_arch *a, const vl_settings *s, bool logits, bool *ovf);
/* The matrices vLLM's V0 MLA backend of 0.7.1 to 0.7.3 makes beside a latent-attention
 * model's weights after loading, on a GPU that holds `layers` of them (inference.c). */
uint64_t vl_mla_absorbed_bytes(const vl_arch *a, const vl_settings *s, uint64_t layers,
                               bool *ovf);
/* Inference, bnb8: the largest matrix in the tensor cores' layout, made beside its row-major
 * bytes in the first forward (0 for other weight dtypes). */
uint64_t vl_bnb8_first_layout(const vl_arch *a, const vl_settings *s, bool *ovf);
/* Inference, AWQ under transformers, a model with tied embeddings, on the GPU that computes
 * the logits: the checkpoint's own 16-bit copy of the output layer, alive until the loader
 * ties the weights again (0 otherwise). */
uint64_t vl_awq_tied_head_copy(const vl_arch *a, const vl_settings *s, bool logits, bool *ovf);
/* Inference: transformers runs the GPTQ weights in auto-gptq's cuda-old kernel (8 bits, or
 * 4 with --no-exllama), which dequantizes a whole matrix for a forward of 128 rows or more. */
bool vl_gptq_cuda_old(const vl_settings *s);
/* What PyTorch's caching allocator holds past a GPU's weights once they are loaded tensor by
 * tensor in a serving engine's layout, for `layers` layers, the embeddings and, with logits,
 * the output layer: each tensor of 10 MiB or more in a segment of its own rounded up to
 * 2 MiB; 0 for packed weights (under 8 bits) and multi-latent attention, not modelled. */
uint64_t vl_weight_segment_tails(const vl_arch *a, const vl_settings *s, uint64_t layers,
                                 bool logits);
/* bnb4 weights computing in fp32: the framework's Linear4bit casts its input to
 * bnb_4bit_compute_dtype (bnb_compute_cast) and that dtype is fp32. */
bool vl_bnb4_fp32(const vl_settings *s);
/* QLoRA whose untied output layer is 4-bit too (the framework's bnb_quantize_head). */
bool vl_qlora_head(const vl_settings *s, const vl_params *p);
/* bnb4 weights whose output layer is 4-bit too (the framework's bnb_quantize_head). */
bool vl_bnb4_head(const vl_settings *s);
/* The 16-bit copies of a matrix bitsandbytes dequantizes for a matmul: two when its 4-bit
 * weights were quantized from fp16 (bnb_quant_fp16) and the model computes in bf16. */
unsigned vl_bnb4_dequant_copies(const struct vl_framework *f, bool bf16);
/* ... in serving, where the layer computes in --compute-dtype. */
unsigned vl_bnb4_infer_copies(const vl_settings *s);

#endif
