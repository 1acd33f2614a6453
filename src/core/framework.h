/* framework.h: what a training or serving framework chooses for the user (HACKING §6):
 * which attention kernel, in which dtype the softmax and the loss run, the head on top of
 * the model, how the optimizer steps, how gradients are bucketed, how a server prefills.
 *
 * A profile is a flat struct of enums, booleans and counts, so that a table-driven loader
 * (the `framework` preset kind) fills it field by field: vl_framework_fields[] describes
 * every field (key, kind, offset, choice names), and vl_framework_set() sets one from text.
 * The built-in profiles are a const table (framework.c), each choice with its source; the
 * catalog's `framework` presets (presets/frameworks/, vramlab-presets(5)) are profiles too,
 * the six built-ins among them as YAML that a unit test holds equal to the table. */
#ifndef VL_FRAMEWORK_H
#define VL_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"  /* vl_allocator, vl_gpu_arch */
#include "settings.h" /* VL_ENUM_ID, VL_ENUM_NAME */

/* X-macro lists: (enum constant, name as YAML, JSON and the CLI spell it); the attention,
 * head and loss dtype lists are settings (settings.h). */
#define VL_GELUS(X) X(VL_GELU_EXACT, "exact") X(VL_GELU_TANH, "tanh") \
    X(VL_GELU_TANH_COMPOSITE, "tanh-composite")
/* torch.optim's three implementations (torch/optim/adamw.py): foreach (_multi_tensor_*),
 * fused (one CUDA kernel per group), single-tensor (a Python loop over parameters) */
#define VL_OPTIM_IMPLS(X) X(VL_OPTIM_FOREACH, "foreach") X(VL_OPTIM_FUSED, "fused") \
    X(VL_OPTIM_SINGLE_TENSOR, "single-tensor")
/* how --zero 2 and 3 shard: deepspeed keeps flat gradient partitions allocated once and
 * reduces through a bucket (ZeRO, and Megatron's distributed optimizer); fsdp reduce-
 * scatters each module's gradients into shards as its backward ends */
#define VL_ZERO_IMPLS(X) X(VL_ZERO_DEEPSPEED, "deepspeed") X(VL_ZERO_FSDP, "fsdp")
/* vLLM's model runners: v1 (vllm/v1/worker/gpu_model_runner.py); v2-dense, the V2 runner
 * (vllm/v1/worker/gpu/) for dense models and V1 for mixtures of experts (0.25 to 0.28); v2,
 * the V2 runner for every model (0.29 and later); v0, the V0 engine's
 * (vllm/worker/model_runner.py), which names that engine's profile (vl_is_vllm_v0) */
#define VL_MODEL_RUNNERS(X)                                                       \
    X(VL_RUNNER_V1, "v1") X(VL_RUNNER_V2_DENSE, "v2-dense") X(VL_RUNNER_V2, "v2") \
    X(VL_RUNNER_V0, "v0")
/* How a serving engine sizes its KV cache (vl_kv_budget_of): none, it holds the run's own
 * tokens; profile, vLLM's to 0.33: its share of the GPU (gpu_util of CUDA's total) less the
 * weights and what a profile run takes; extensible, vLLM's from 0.34: what is free after
 * warmup and CUDA graph capture, within its share, less a margin and the transient peak;
 * static, SGLang's: mem_fraction_static (gpu_util) of the memory free before the weights
 * load, less what they take */
#define VL_KV_SIZINGS(X)                                                            \
    X(VL_KV_NONE, "none") X(VL_KV_PROFILE, "profile") X(VL_KV_EXTENSIBLE, "extensible") \
    X(VL_KV_STATIC, "static")
/* What a profile-sized engine takes off its share for what the profile run used
 * (vl_kv_budget_of): increase, vLLM from 0.6.5: the weights, the allocator's peak and what
 * grew outside it since the engine started; reserved, vLLM 0.3.1 to 0.6.3: the memory free
 * at the start less the memory free after the run, the allocator's reserved segments with
 * it; context, vLLM 0.6.4: the allocator's peak and everything outside it, the CUDA
 * context too */
typedef enum { VL_COUNTS_INCREASE, VL_COUNTS_RESERVED, VL_COUNTS_CONTEXT } vl_profile_counts;
/* Where the model repeats K and V to the query heads (GQA, MQA) for an attention kernel
 * that keeps them: none, the kernel takes the KV heads as they are (flash, SDPA with
 * enable_gqa); after-rope, transformers' repeat_kv before SDPA (copies, but one KV head's
 * repeat is a view of it); before-rope, LitGPT's expand in training, whose RoPE then makes
 * K a query-wide tensor of its own */
#define VL_KV_REPEATS(X) X(VL_KV_REPEAT_NONE, "none") X(VL_KV_REPEAT_AFTER_ROPE, "after-rope") \
    X(VL_KV_REPEAT_BEFORE_ROPE, "before-rope")

/* What the loss computes in place (loss_in_place): nothing; its gradient, in the softmax it
 * made in a tensor of its own from the fp32 copy of the logits it read; or all of it, the
 * softmax in that copy too (Megatron-Core's vocab-parallel cross-entropy from 0.8) */
#define VL_LOSS_IN_PLACES(X) X(VL_LIP_NONE, "false") X(VL_LIP_BACKWARD, "backward") \
    X(VL_LIP_ALL, "true")

typedef enum { VL_GELUS(VL_ENUM_ID) VL_N_GELUS } vl_gelu;
typedef enum { VL_LOSS_IN_PLACES(VL_ENUM_ID) VL_N_LOSS_IN_PLACES } vl_loss_in_place;
typedef enum { VL_OPTIM_IMPLS(VL_ENUM_ID) VL_N_OPTIM_IMPLS } vl_optim_impl;
typedef enum { VL_ZERO_IMPLS(VL_ENUM_ID) VL_N_ZERO_IMPLS } vl_zero_impl;
typedef enum { VL_MODEL_RUNNERS(VL_ENUM_ID) VL_N_MODEL_RUNNERS } vl_model_runner;
typedef enum { VL_KV_SIZINGS(VL_ENUM_ID) VL_N_KV_SIZINGS } vl_kv_sizing;
typedef enum { VL_KV_REPEATS(VL_ENUM_ID) VL_N_KV_REPEATS } vl_kv_repeat;

extern const char *const vl_gelu_names[VL_N_GELUS];
extern const char *const vl_loss_in_place_names[VL_N_LOSS_IN_PLACES];
extern const char *const vl_optim_impl_names[VL_N_OPTIM_IMPLS];
extern const char *const vl_zero_impl_names[VL_N_ZERO_IMPLS];
extern const char *const vl_model_runner_names[VL_N_MODEL_RUNNERS];
extern const char *const vl_kv_sizing_names[VL_N_KV_SIZINGS];
extern const char *const vl_kv_repeat_names[VL_N_KV_REPEATS];

typedef struct vl_framework {
    char name[64];              /* "hf"; first: the catalog finds entries by it */
    char display[128];          /* for people */
    char source[256];           /* a preset's: where its choices come from */
    char notes[512];
    char origin[256];           /* the file it was read from; "" for the table's */
    bool transformers;          /* its models are transformers' modeling code, trained by
                                 * its Trainer: --transformers applies */
    /* the model's forward */
    vl_attention attention;
    bool softmax_fp32;          /* 16-bit eager attention runs the softmax in fp32 */
    bool softmax_saves_input;   /* softmax and log_softmax keep their input for backward
                                 * beside their output (PyTorch before 1.11) */
    bool mean_saves_input;      /* mean keeps its input for backward: an RMSNorm's squares
                                 * (PyTorch before 2.2) */
    bool norm_upcast;           /* an RMSNorm computes in fp32, keeping its input upcast;
                                 * false: in the input's dtype */
    bool materialized_mask;     /* a b x 1 x s x s additive causal mask in the model dtype
                                 * (a decoder's; an encoder's is b x 1 x 1 x s) */
    bool fused_qkv;             /* one QKV nn.Linear: autocast casts its input once, and
                                 * the q, k, v adapters on it share one lora_dropout */
    vl_kv_repeat kv_repeat;     /* K and V repeated to the query heads for the kernel */
    bool v_views_qkv;           /* V is a view of the fused QKV output: where the attention
                                 * keeps V as it is, it keeps the whole output */
    bool lora_qkv_pad;          /* LoRA on a fused QKV pads its adapters' output with
                                 * index_copy, which keeps it unless q, k, v all train */
    vl_gelu gelu;
    vl_head head;
    uint64_t labels;            /* cls: classes */
    vl_loss_dtype loss_dtype;
    bool loss_shift_copy;       /* the loss shifts the logits by a contiguous copy */
    bool logits_cast_in_model;  /* the model returns the logits cast for the loss, the 16-bit
                                 * ones gone as the cast is made (transformers 4.31-4.45) */
    bool shift_before_cast;     /* the loss's shifted copy is of the logits as the model
                                 * returned them, cast for the loss after it (a class's own
                                 * loss code that does not cast: GPT-2's before 4.49) */
    vl_loss_in_place loss_in_place; /* what the loss computes in place (Megatron's
                                 * vocab-parallel cross-entropy): no second gradient of the
                                 * logits' size, and from 0.8 no log-probabilities beside the
                                 * fp32 copy it reads */
    uint64_t loss_chunk;        /* the loss in chunks of this many positions, each chunk's
                                 * log-probabilities' gradient made and dropped on its own
                                 * (0: the whole sequence at once) */
    /* frozen weights (LoRA) save nothing for themselves: autograd saves a tensor only for
     * a gradient it computes (no normalized tensor for a frozen norm weight), autocast
     * caches no 16-bit copy of a frozen weight; and flash/SDPA backward needs its output
     * even when o_proj is frozen.  false: vl_activations_compute's terms as they are */
    bool prune_frozen_saves;
    bool frozen_embeddings_grad; /* under LoRA the frozen embeddings' output asks for a
                                 * gradient (transformers' enable_input_require_grads), so the
                                 * first layer keeps what the others keep; false: its ops
                                 * before the first trainable one keep nothing */
    bool nf4_keeps_input;       /* a 4-bit matmul saves its input, frozen or not
                                 * (bitsandbytes' MatMul4Bit before 0.43.2) */
    bool nf4_returns_input_dtype; /* a 4-bit layer computes in an fp32 input's dtype and
                                 * returns its output in its input's dtype (bitsandbytes'
                                 * Linear4bit since 0.41) */
    bool qlora_adapters_fp32;   /* a 4-bit layer's LoRA adapters stay fp32 over a 16-bit
                                 * model, and without autocast each casts its input to fp32
                                 * and keeps that copy (vl_adapters_fp32) */
    bool lora_adapters_fp32;    /* LoRA's adapters on 16-bit layers are fp32 from PEFT 0.12
                                 * (--peft), each casting its input (vl_adapters_fp32) */
    bool qlora_bf16_embeddings; /* under bf16 autocast a 4-bit model's embeddings and head are
                                 * cast back to bf16 after PEFT upcast them to fp32 (trl) */
    bool moe_expert_loop;       /* an MoE block runs its experts one at a time */
    bool moe_workspace_kept;    /* fused MoE's workspaces are shared by the layers and kept */
    bool bnb_compute_cast;      /* a bnb4 layer casts its input to bnb_4bit_compute_dtype */
    vl_dtype compute_dtype;     /* that dtype (fp32, fp16, bf16) unless --compute-dtype says */
    bool bnb_quantize_head;     /* bitsandbytes makes the output layer a 4-bit layer too */
    bool bnb_quant_fp16;        /* 4-bit weights are quantized from an fp16 copy: they
                                 * dequantize to fp16, which a bf16 model then casts */
    /* the optimizer and gradients */
    vl_optim_impl optim_impl;
    bool foreach_denom_copy;    /* foreach Adam adds eps out of place: a second list of
                                 * temporaries, denom, beside the square roots (PyTorch
                                 * before 2.1) */
    bool trainer_optim;         /* AdamW is the Trainer's default optim: fused on PyTorch 2.8
                                 * and later, foreach before (vl_framework_on_torch) */
    bool optimizer_state_lazy;  /* the optimizer makes each parameter's moments at its first
                                 * step, in the blocks the first backward left free */
    bool grads_persistent;      /* one gradient buffer for the whole run (Megatron, DeepSpeed) */
    bool zero_grad_in_place;    /* zero_grad zeroes the gradients in place (PyTorch before 2.0):
                                 * the first step's backward makes them, and they stay */
    bool grad_copy_at_step;     /* the fp32 gradient copy (--fp32-grad-copy) is made for the
                                 * optimizer step and freed after it (DeepSpeed's ZeRO and
                                 * FP16_Optimizer, Megatron's optimizers) */
    bool grad_copy_per_tensor;  /* that copy is a tensor a parameter (Megatron's
                                 * main_grad.float()), not one flat buffer (DeepSpeed's) */
    bool zero_fp32_master;      /* ZeRO-1 and 2 keep a copy of the weights' fp32 partition
                                 * as master weights where the weights are fp32 already
                                 * (DeepSpeed's stage_1_and_2.py clones it) */
    bool ddp_bucket_view;       /* DDP gradient_as_bucket_view: grads are views of buckets */
    uint64_t ddp_bucket_bytes;  /* DDP bucket_cap_mb */
    uint64_t reduce_bucket;     /* DeepSpeed ZeRO-1/2 reduce_bucket_size, elements */
    uint64_t prefetch_bucket;   /* ZeRO-3 stage3_prefetch_bucket_size, elements */
    vl_zero_impl zero_impl;     /* --zero 2 and 3 as DeepSpeed or FSDP shard */
    bool adapter_units;         /* FSDP wraps each LoRA adapter in a unit of its own (PEFT's
                                 * policy), so the layers' units hold frozen weights only */
    bool checkpoint_reentrant;  /* full recompute reruns a layer's forward inside backward
                                 * from a detached copy of its input (use_reentrant=True) */
    bool loop_keeps_logits;     /* the training loop binds each micro-batch's logits, and
                                 * with them its graph, until the next forward returns: they
                                 * live through their own backward, and the step before's
                                 * through the forward (vl_loop_keeps_logits: that one) */
    bool use_cache;             /* a transformers model runs with use_cache on in training (its
                                 * config's default) unless gradient checkpointing turns it
                                 * off: its outputs hold every layer's K and V (vl_kv_outputs)
                                 * until the loop has read the loss from them */
    bool autocast;              /* the loop runs a 16-bit model's step under torch.autocast
                                 * (--autocast auto) */
    bool outputs_to_fp32;       /* under autocast the loop's wrapper casts every 16-bit tensor
                                 * the model returns to fp32 (accelerate's prepare_model:
                                 * convert_outputs_to_fp32) */
    bool unties_embeddings;     /* the output layer is a matrix of its own even where the
                                 * checkpoint ties it to the embeddings */
    bool fsdp_mixed_precision;  /* FSDP under autocast gathers the parameters in the
                                 * autocast dtype (MixedPrecision's param_dtype), so the
                                 * layers compute from 16-bit weights (vl_compute_precision) */
    /* the runtime */
    vl_allocator allocator;
    bool cublas_workspace_cached; /* each cuBLAS handle's workspace comes from the caching
                                   * allocator (PyTorch 2.0 and later); false: cuBLAS
                                   * allocates its own, outside it */
    /* bytes of each GPU a communicator of the framework takes outside PyTorch's allocator
     * (NCCL's channel buffers; a serving engine's tensor-parallel group, its own all-reduce
     * buffers with them), by how the GPUs are linked (vl_communicator_bytes); 0: not
     * modelled */
    uint64_t comm_nvlink, comm_pcie;
    uint64_t comm_nvlink_init;  /* of comm_nvlink, what the communicators take as they are
                                 * made, before the first collective: a serving engine that
                                 * measures its memory after making them (vLLM from 0.11)
                                 * leaves it out of the KV cache's budget
                                 * (vl_communicator_bytes) */
    uint64_t dp_communicators;  /* communicators of the data-parallel GPUs: PyTorch's DDP and
                                 * FSDP use the default process group; DeepSpeed gathers
                                 * parameters on the world group and reduces gradients on a
                                 * clone of it */
    bool nvls;                  /* NCCL's NVLink SHARP buffers come on top of comm_nvlink
                                 * (NCCL_NVLS_ENABLE left at NCCL's default; vl_nvls_bytes);
                                 * false where the engine turns NVLS off or comm_nvlink was
                                 * measured with them */
    /* serving */
    uint64_t prefill_chunk;     /* tokens per prefill step; 0 = the whole prompt at once */
    bool kv_preallocated;       /* the KV cache is allocated once (paged), not grown */
    bool prefill_logits_all;    /* the prefill projects every prompt position to logits */
    bool kv_step_copy;          /* generate holds the step before's KV cache while a decode
                                 * step makes the new one (past_key_values tuples) */
    bool step_outputs_held;     /* generate holds the step before's outputs, the prefill's
                                 * logits among them, until the next forward returns */
    bool logits_clone_all;      /* generate clones a forward's logits, every position's,
                                 * before it takes the last one's (transformers 4.45-4.46) */
    bool kv_cache_views;        /* the cache keeps the prefill's K and V as the attention hands
                                 * them over: views of a fused QKV output keep it whole until
                                 * the first decode step concatenates (vl_arch qkv_views) */
    bool cuda_graphs;           /* decode runs captured graphs from a private pool */
    uint64_t graph_batch;       /* the largest batch captured */
    bool sampler_sort;          /* top-k/top-p sorts the whole vocabulary */
    uint64_t sampler_fp32;      /* fp32 b x V tensors the sampler keeps besides the logits */
    bool sampler_hidden;        /* the forward's last hidden states stay alive while it samples */
    bool sampler_triton;        /* top-k/top-p in place, with a per-program vocabulary row */
    vl_model_runner model_runner; /* the engine's model runner (vl_runs_v2) */
    bool profile_sampler_params; /* the V2 runner's profile run samples with its warmup's
                                  * parameters, not with none (vl_kv_budget_of) */
    bool graph_estimate;        /* the engine takes its estimate of the CUDA graphs' memory
                                 * off the KV cache (vl_graph_estimate) */
    bool profile_run;           /* not a preset's: set while the engine's profile run is
                                 * built (vl_kv_budget_of) */
    uint64_t kv_pool;           /* not a preset's: the KV cache the engine sized for itself
                                 * (vl_kv_budget_of), which vl_timeline_for allocates whole
                                 * where the engine allocates it once; 0: none */
    vl_profile_counts profile_counts; /* not a preset's: the vLLM release's, from
                                       * vl_framework_on_vllm */
    bool rope_cache;            /* a RoPE cos/sin table of every position beside the weights */
    bool rope_tables;           /* every attention layer keeps cos and sin tables of every
                                 * position, in the model's load dtype (vl_rope_tables_bytes) */
    bool class_softmax_fp32;    /* not a preset's: the model's class runs its eager softmax
                                 * in fp32 at this release, whatever its eager_softmax
                                 * (vl_framework_on_class) */
    bool layer_input_held;      /* a forward's decoder layer keeps its input alive to its end
                                 * and the MLP's output lands beside its intermediates: two
                                 * hidden-size tensors more at the attention and the MLP */
    /* a serving engine's own sizing of its KV cache */
    vl_kv_sizing kv_sizing;
    uint64_t gpu_util;          /* the share it takes unless told (--gpu-util), in
                                 * millionths: of each GPU (profile), of the memory free
                                 * before the weights (static); 0: the engine's rule for the
                                 * GPU (vl_framework_on_sglang), the whole GPU where it has
                                 * none */
    uint64_t kv_block;          /* tokens a block of its paged cache holds unless told
                                 * (--kv-block); 0: one contiguous cache */
    uint64_t profile_seqs;      /* sequences its profile run shares prefill_chunk tokens over
                                 * (max_num_seqs) before it gives the KV cache what is left
                                 * of its share (vl_kv_budget_of); 0: it does not profile,
                                 * and under profile sizing sizes nothing */
    uint64_t profile_non_torch; /* bytes outside PyTorch's allocator the profile run adds */
    /* smaller defaults on smaller GPUs: a GPU with less memory than small_gpu_below (CUDA's
     * total), or of generation small_gpu_arch, takes small_prefill_chunk and
     * small_profile_seqs in place of prefill_chunk and profile_seqs (vl_framework_on_gpu);
     * small_gpu_below 0: one default for every GPU */
    uint64_t small_gpu_below;
    vl_gpu_arch small_gpu_arch;
    uint64_t small_prefill_chunk, small_profile_seqs;
    /* an engine that chunks its prefill only for long sequences: a run whose sequence (seq
     * + gen, the engine's max_model_len) has at most this many tokens takes the whole
     * sequence a step, prefill_chunk at least (vl_framework_on_length); 0: always chunks */
    uint64_t whole_prompt_upto;
} vl_framework;

/* The built-in profiles, by VL_FRAMEWORK_LIST (settings.h). */
extern const vl_framework vl_frameworks[VL_N_FRAMEWORKS];
extern const size_t vl_n_frameworks;
/* The default: what a user of current PyTorch and transformers gets (hf). */
#define VL_FRAMEWORK_DEFAULT "hf"

/* The profile of s's framework on the GPU of rt (vl_framework_on_gpu) with the choices s
 * makes itself (attention, head, labels, loss and compute dtype, the engine's share of the
 * GPU, KV block, prefill chunk and profile sequences, the transformers, bitsandbytes and
 * PyTorch releases) over it. */
struct vl_runtime;
void vl_framework_of(const vl_settings *s, const struct vl_runtime *rt, vl_framework *f);
/* f's defaults for the GPU of rt under s: its small_* ones on a small GPU (an unknown GPU
 * keeps the others); under static sizing, SGLang's chunked prefill and CUDA graphs for the
 * GPU's memory and s's tensor parallelism; under vLLM's V1 engine before 0.19, what its
 * profile run added outside PyTorch on the GPU's generation. */
void vl_framework_on_gpu(vl_framework *f, const vl_settings *s, const struct vl_runtime *rt);
/* SGLang's mem_fraction_static for f (its chunked prefill and CUDA graphs) under s on the GPU
 * of rt, in millionths (whole thousandths, as SGLang rounds it). */
uint64_t vl_sglang_fraction(const vl_framework *f, const vl_settings *s,
                            const struct vl_runtime *rt);
/* The share s gives its engine (--gpu-util), else its framework's; 0: the engine's rule
 * (vl_framework_of resolves it). */
uint64_t vl_settings_share(const vl_settings *s);
/* The RoPE tables a framework with rope_tables keeps: `layers` attention layers' cos and
 * sin, max_positions x head_dim each, of `bytes` an element (the dtype the model loaded
 * in); 0 without them, or without RoPE. */
uint64_t vl_rope_tables_bytes(const vl_framework *f, const vl_arch *a, uint64_t layers,
                              unsigned bytes, bool *ovf);
/* What a transformers model class's training forward returns of its K and V at release v
 * under f with use_cache on (vl_use_cache, and no gradient checkpointing: the caller's to
 * ask): every layer's as tuples
 * (a legacy cache, which accelerate's convert_outputs_to_fp32 casts), in a Cache object,
 * or none (the class's kv_tuples_until and kv_kind, model.h). */
typedef enum { VL_KV_OUT_NONE, VL_KV_OUT_TUPLES, VL_KV_OUT_CACHE } vl_kv_out;
vl_kv_out vl_kv_outputs(const vl_framework *f, const vl_arch *a, vl_transformers v);
/* The causal-mask buffers a's transformers class registers at release v under a profile
 * whose models are transformers' (model.h, VL_MODEL_TYPES): max_positions squared bools in
 * each of `layers` attention layers, or one in the model; 0 for a class without them. */
uint64_t vl_mask_buffers_bytes(const vl_framework *f, const vl_arch *a, vl_transformers v,
                               uint64_t layers, bool *ovf);
/* A padded micro-batch's attention mask under transformers' SDPA (vl_settings_padded), for
 * model a: `shared`, the model's b x 1 x s x s mask, alive from its forward to the
 * end of its backward; `per_layer`, the copy each layer's SDPA makes of it and its
 * memory-efficient kernel keeps for backward.  rho and beta: the residual stream's and the
 * matmuls' bytes an element.  Both 0 where the run hands SDPA no mask. */
void vl_sdpa_padding_mask(const vl_settings *s, const vl_arch *a, uint64_t rho, uint64_t beta,
                          uint64_t *shared, uint64_t *per_layer, bool *ovf);
/* Whether f's eager attention runs a's softmax in fp32 over 16-bit scores and casts its
 * output back (softmax_fp32; under a profile whose models are transformers', where the
 * model preset's eager_softmax is fp32 or fused, or its class upcasts at the release). */
bool vl_softmax_upcasts(const vl_framework *f, const vl_arch *a);
/* ... in one fused kernel that reads the 16-bit scores as they are (eager_softmax fused). */
bool vl_softmax_fused(const vl_framework *f, const vl_arch *a);
/* Whether f's engine sizes its KV cache itself (vl_kv_budget_of). */
bool vl_sizes_kv(const vl_framework *f);
/* Whether f at ZeRO stage `zero` leaves the gradients to autograd and frees them in the
 * optimizer step: DeepSpeed's ZeRO-1, whose hooks only make the reduce bucket; it reduces
 * them as backward ends and frees them once this GPU's partition is copied to fp32
 * (stage_1_and_2.py: setup_buckets, reduce_gradients, step's free_grad_in_param_list).
 * Megatron's distributed optimizer keeps its gradient buffer (ddp_bucket_view). */
bool vl_grads_freed_in_step(const vl_framework *f, unsigned zero);
/* How s's GPUs are linked on rt: s's --interconnect, or rt's GPU's where s leaves it to auto. */
vl_link vl_link_of(const vl_settings *s, const struct vl_runtime *rt);
/* What f's communicators take of each GPU outside PyTorch's allocator under s on rt: its
 * comm_nvlink or comm_pcie (by vl_link_of) for each communicator of a parallel group of two
 * or more GPUs that runs collectives (in inference the tensor-parallel group, pipeline
 * stages alone adding none; in training the tensor, data (f's dp_communicators), context
 * and expert groups), and where f counts them, NCCL's NVLink SHARP buffers for the group's
 * GPUs on a node (vl_nvls_bytes), which *nvls (when not NULL) gets; nothing where
 * --overhead stands for the runtime.  *init (when not NULL) gets the part the
 * communicators take as they are made (comm_nvlink_init over NVLink). */
uint64_t vl_communicator_bytes(const vl_framework *f, const vl_settings *s,
                               const struct vl_runtime *rt, uint64_t *nvls, uint64_t *init);
/* The communicators of s's parallel groups of two or more GPUs that run collectives. */
unsigned vl_communicator_groups(const vl_settings *s);
/* f's token budget for a run of s's sequence: the whole sequence, prefill_chunk at least,
 * where it has whole_prompt_upto tokens or fewer; the V0 engine's as its release chunked. */
void vl_framework_on_length(vl_framework *f, const vl_settings *s);
/* f with the prefill chunk and profile sequences s gives (--prefill-chunk, --profile-seqs;
 * 0 leaves f's). */
void vl_framework_serve_as(vl_framework *f, const vl_settings *s);
/* f as it runs on PyTorch release t: what older releases kept, and their defaults. */
void vl_framework_on_torch(vl_framework *f, vl_torch t);
/* f as it runs on transformers release v, when its models are transformers' (the
 * profile's `transformers`); apply before vl_framework_on_torch, which may change the
 * optimizer implementation this sets. */
void vl_framework_on_transformers(vl_framework *f, vl_transformers v);
/* f with a's model class at transformers release v (a profile whose `transformers` is set),
 * by the class's rules (model.h, VL_MODEL_TYPES): whether its forward returns the logits
 * cast to fp32 (logits_cast_in_model), in training or in serving; whether its own loss
 * copies the shifted logits before their cast (shift_before_cast); whether it projects
 * every position in generate's prefill (prefill_logits_all); whether generate passes it
 * tuples of past_key_values (kv_step_copy).  The step's own; vl_timeline_build applies it. */
void vl_framework_on_class(vl_framework *f, const vl_arch *a, vl_transformers v, bool training);
/* f as it runs on bitsandbytes release v: what its 4-bit matmuls keep. */
void vl_framework_on_bitsandbytes(vl_framework *f, vl_bitsandbytes v);
/* f under trl release v's SFTTrainer, when f's models are transformers'. */
void vl_framework_on_trl(vl_framework *f, vl_trl v);
/* f under Megatron-Core release v, when its loss is Megatron's (loss_in_place): before 0.8
 * its softmax is a tensor of its own beside the copy it read. */
void vl_framework_on_megatron(vl_framework *f, vl_megatron v);
/* The minor number of vLLM release line v (0.x); current is the newest modelled. */
#define VL_VLLM_NEWEST 34
unsigned vl_vllm_line(vl_vllm v);
/* f as vLLM release v runs it: the V1 engine's (the profile's sampler_triton) sampler,
 * model runner, profile run and CUDA graph estimate; what the V0 engine's profile run
 * counts. */
void vl_framework_on_vllm(vl_framework *f, vl_vllm v);
/* Whether f is a vLLM engine's profile (it sizes its KV cache by a profile run, or after
 * warmup), and whether the V0 engine's (its model runner); each holds for f whichever
 * release it is taken at (vl_framework_on_vllm). */
bool vl_is_vllm(const vl_framework *f);
bool vl_is_vllm_v0(const vl_framework *f);
/* Whether f's engine runs a model, a mixture of experts or not, on vLLM's V2 runner. */
bool vl_runs_v2(const vl_framework *f, bool moe);
/* f with the V1 engine's top-k/top-p as s->sampler names it (after the release's rule);
 * auto, or a profile that is not the V1 engine's, leaves f as it is. */
void vl_framework_on_sampler(vl_framework *f, const vl_settings *s);
/* All five, for s's releases. */
void vl_framework_on_releases(vl_framework *f, const vl_settings *s);
/* s runs on framework f (a built-in or a catalog entry, which must outlive s): its
 * attention, loss and compute dtype, and a serving engine's share of the GPU and KV block,
 * become the profile's (a flag or a scenario may override them after). */
void vl_settings_take_framework(vl_settings *s, const vl_framework *f);

/* The built-in named name, or NULL. */
const vl_framework *vl_framework_find(const char *name);

/* One field of vl_framework for a table-driven loader (YAML, the CLI's overrides). */
typedef enum {
    VL_FIELD_ENUM, VL_FIELD_BOOL, VL_FIELD_COUNT,
    VL_FIELD_FRACTION /* "0.9" or "90%", kept in millionths (VL_PPM) like VL_FIELD_COUNT */
} vl_field_kind;
typedef struct vl_framework_field {
    const char *key;            /* YAML key: "attention", "softmax_fp32", ... */
    vl_field_kind kind;
    size_t offset;
    size_t size;                /* the field's bytes */
    const char *const *names;   /* VL_FIELD_ENUM: the choices */
    int n_names;
    uint64_t min, max;          /* VL_FIELD_COUNT and VL_FIELD_FRACTION */
} vl_framework_field;
/* the fields' number, for tables sized at compile time (a preset's keys) */
#define VL_N_FRAMEWORK_FIELDS 91
extern const vl_framework_field vl_framework_fields[];
extern const size_t vl_n_framework_fields;

/* Sets field key of f from text ("sdpa", "true", "2048").  true, or false with one line in
 * err naming the key and the values it takes. */
bool vl_framework_set(vl_framework *f, const char *key, const char *value, char *err,
                      size_t len);

#endif
