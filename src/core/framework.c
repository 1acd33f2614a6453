/* framework.c: the built-in framework profiles and the field table a loader fills them by. */
#include "framework.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "timeline.h" /* vl_runtime */
#include "units.h"

const char *const vl_gelu_names[VL_N_GELUS] = {VL_GELUS(VL_ENUM_NAME)};
const char *const vl_loss_in_place_names[VL_N_LOSS_IN_PLACES] = {
    VL_LOSS_IN_PLACES(VL_ENUM_NAME)};
const char *const vl_optim_impl_names[VL_N_OPTIM_IMPLS] = {VL_OPTIM_IMPLS(VL_ENUM_NAME)};
const char *const vl_zero_impl_names[VL_N_ZERO_IMPLS] = {VL_ZERO_IMPLS(VL_ENUM_NAME)};
const char *const vl_model_runner_names[VL_N_MODEL_RUNNERS] = {VL_MODEL_RUNNERS(VL_ENUM_NAME)};
const char *const vl_kv_sizing_names[VL_N_KV_SIZINGS] = {VL_KV_SIZINGS(VL_ENUM_NAME)};
const char *const vl_kv_repeat_names[VL_N_KV_REPEATS] = {VL_KV_REPEATS(VL_ENUM_NAME)};
const char *const vl_allocator_names[VL_N_ALLOCATORS] = {VL_ALLOCATORS(VL_ENUM_NAME)};

#define VL_COUNT_ITEM(id, name) +1
_Static_assert(0 VL_ATTENTIONS(VL_COUNT_ITEM) == VL_N_ATTENTIONS, "attention names");
_Static_assert(0 VL_HEADS(VL_COUNT_ITEM) == VL_N_HEADS, "head names");
_Static_assert(0 VL_LOSS_DTYPES(VL_COUNT_ITEM) == VL_N_LOSS_DTYPES, "loss dtype names");
_Static_assert(0 VL_GELUS(VL_COUNT_ITEM) == VL_N_GELUS, "GELU names");
_Static_assert(0 VL_LOSS_IN_PLACES(VL_COUNT_ITEM) == VL_N_LOSS_IN_PLACES, "loss in place");
_Static_assert(0 VL_OPTIM_IMPLS(VL_COUNT_ITEM) == VL_N_OPTIM_IMPLS, "optimizer implementations");
_Static_assert(0 VL_ZERO_IMPLS(VL_COUNT_ITEM) == VL_N_ZERO_IMPLS, "ZeRO implementations");
_Static_assert(0 VL_MODEL_RUNNERS(VL_COUNT_ITEM) == VL_N_MODEL_RUNNERS, "model runners");
_Static_assert(0 VL_KV_SIZINGS(VL_COUNT_ITEM) == VL_N_KV_SIZINGS, "KV cache sizings");
_Static_assert(0 VL_KV_REPEATS(VL_COUNT_ITEM) == VL_N_KV_REPEATS, "KV repeats");
_Static_assert(0 VL_ALLOCATORS(VL_COUNT_ITEM) == VL_N_ALLOCATORS, "allocator names");
_Static_assert(sizeof vl_attention_names / sizeof *vl_attention_names == VL_N_ATTENTIONS, "");
_Static_assert(sizeof vl_allocator_names / sizeof *vl_allocator_names == VL_N_ALLOCATORS, "");

#define MIB (1024ULL * 1024)

/* What torch.optim and DistributedDataParallel do unless told otherwise. */
#define TORCH_OPTIMIZER                                                                      \
    /* torch/optim/optimizer.py, _default_to_fused_or_foreach: foreach when every           \
     * parameter is a CUDA tensor (torch >= 2.0) */                                         \
    .optim_impl = VL_OPTIM_FOREACH,                                                          \
    /* torch/optim/adamw.py, _multi_tensor_adamw: eps added in place to the square roots     \
     * (torch >= 2.1; vl_framework_on_torch) */                                              \
    .foreach_denom_copy = false,                                                             \
    /* torch/optim/adamw.py, _init_group: a parameter's exp_avg and exp_avg_sq are made     \
     * (torch.zeros_like) when its state is empty, as step() first runs; bitsandbytes'      \
     * optimizers (init_state) and transformers' Adafactor do the same */                   \
    .optimizer_state_lazy = true, TORCH_GRADIENTS
/* The same gradients, whichever optimizer steps them. */
#define TORCH_GRADIENTS                                                                      \
    /* Optimizer.zero_grad(set_to_none=True) is the default since torch 2.0: gradients are  \
     * born in backward and freed before the next forward */                                \
    .grads_persistent = false,                                                               \
    /* DistributedDataParallel(gradient_as_bucket_view=False): the buckets are a second     \
     * copy of the gradients */                                                             \
    .ddp_bucket_view = false,                                                                \
    /* FullyShardedDataParallel: a unit's gradients are reduce-scattered as its backward     \
     * ends and the shard becomes the flat parameter's .grad (torch/distributed/fsdp/        \
     * _runtime_utils.py, _post_backward_hook); the next unit's parameters are gathered     \
     * ahead (backward_prefetch=BACKWARD_PRE, limit_all_gathers) */                         \
    .zero_impl = VL_ZERO_FSDP
/* Sizes every profile shares. */
#define RUNTIME_DEFAULTS                                                                     \
    /* torch/nn/parallel/distributed.py: bucket_cap_mb=25 */                                 \
    .ddp_bucket_bytes = 25 * MIB,                                                            \
    /* DeepSpeed's defaults (deepspeed/runtime/zero/config.py): reduce_bucket_size 5e8,      \
     * stage3_prefetch_bucket_size 5e7 elements */                                           \
    .reduce_bucket = 500000000, .prefetch_bucket = 50000000,                                 \
    .allocator = VL_ALLOC_CACHING, .labels = 2,                                              \
    /* aten/src/ATen/cuda/CublasHandlePool.cpp: a workspace for each (handle, stream) from   \
     * the caching allocator, cublasSetWorkspace'd (pull request #83461; torch >= 2.0,       \
     * vl_framework_on_torch) */                                                             \
    .cublas_workspace_cached = true

/* A framework that takes of each GPU what the run asks for: no share of its own, one
 * contiguous KV cache of the run's tokens, no profile run. */
#define NO_KV_SIZING .kv_sizing = VL_KV_NONE, .gpu_util = VL_PPM, .kv_block = 0, \
    .profile_seqs = 0, .profile_non_torch = 0, ONE_SIZE_FOR_ALL
/* The same serving defaults on every GPU. */
#define ONE_SIZE_FOR_ALL .small_gpu_below = 0, .small_gpu_arch = VL_ARCH_UNKNOWN, \
    .small_prefill_chunk = 0, .small_profile_seqs = 0
/* vLLM's cache before 0.20: 90% of each GPU unless --gpu-memory-utilization says, in blocks
 * of 16 tokens (vllm/config/cache.py, CacheConfig: gpu_memory_utilization 0.9, block_size 16
 * on CUDA). */
#define VLLM_CACHE .kv_sizing = VL_KV_PROFILE, .gpu_util = 900000, .kv_block = 16

/* A training framework's process groups: each one that runs collectives is its own NCCL
 * communicator with its own channel buffers (NVIDIA/nccl issue #986: "More communicators =
 * more memory used").  One PyTorch NCCL process group over NVLink took 688 MB of each of four
 * A100s after its first all-reduce, 544 MB in groups of two (NVIDIA/nccl issue #964,
 * August 2023): 688 MiB.  Over PCIe not measured: 0. */
#define TORCH_COMM .comm_nvlink = 721420288, .comm_pcie = 0, .nvls = true
/* PyTorch's DDP and FSDP, and the Trainer and accelerate around them, run every collective
 * on the default process group: one communicator */
#define TORCH_DP .dp_communicators = 1

/* What vLLM's tensor parallelism adds outside PyTorch on each GPU: the NCCL communicator
 * (PyNcclCommunicator) and, where every GPU reaches every other over NVLink, vLLM's custom
 * all-reduce and its buffers.  Measured as what a log's memory outside PyTorch grows by from
 * one GPU to several.  V0 measured its memory before making them, so its KV cache's budget
 * counts them all: over NVLink 3.58 - 1.79 = 1.79 GiB, vLLM 0.6.5 on two H100 80GB
 * (vllm-project/vllm pull request #10511, "non_torch_memory" of -tp 1 and -tp 2).  PCIe:
 * 0.20 - 0.04 = 0.16 GiB, vLLM 0.8.5 on four RTX 2080 Ti 22GB ("non_torch_memory takes
 * 0.20GiB" in three of one author's TP 4 logs, June 2025 blog posts on DeepSeek-R1-0528-Qwen3-8B
 * and Qwen3-30B-A3B; 0.04 GiB on one GPU, the V0 figure below), counted whole in every
 * release: no log splits it between their making and their first collectives.  The V1
 * engine's NVLink figures: VLLM_V1_COMM. */
#define VLLM_COMM .comm_pcie = 171798692, .dp_communicators = 1, \
    .nvls = false /* measured on H100s, with what NCCL took for NVLS */
#define VLLM_COMM_0_6_5 1921997865 /* 1.79 GiB */
#define VLLM_V0_COMM .comm_nvlink = VLLM_COMM_0_6_5, .comm_nvlink_init = 0, VLLM_COMM
/* From 0.11.0 the V1 worker makes its communicators before it measures the memory the KV
 * cache may have ("Initialize the distributed environment BEFORE taking memory snapshot",
 * vllm/v1/worker/gpu_worker.py, init_device; pull request #25359): what they take as they
 * are made is outside the budget, what they add once the profile run's collectives start
 * is in its "non-torch forward increase memory".  vLLM 0.19.0's logs of Llama 3.1 8B on
 * one and two H100s (jgchn/llm-d-planner, v0.19.0 logs): the worker's init snapshot has
 * 1.51 GiB outside PyTorch at -tp 2, 0.51 at -tp 1, 1.00 GiB made with the communicators;
 * the profile run added 2.07 GiB at -tp 2, 0.25 at -tp 1, 1.82 GiB more (FlashInfer's
 * all-reduce workspace, which 0.19 sets up for its fused all-reduce and RMSNorm on Hopper,
 * among it; the same logs' other runs at -tp 2 and 4: 1.81 to 1.96): 2.82 GiB in all
 * (vl_framework_on_vllm has the earlier releases'). */
#define VLLM_V1_COMM .comm_nvlink = 3027951944, .comm_nvlink_init = 1073741824, VLLM_COMM

/* vLLM's model code and what both engines serve it with. */
#define VLLM_MODEL                                                                           \
    /* the FlashAttention backend, QKVParallelLinear (one fused projection) */              \
    .attention = VL_ATTN_FLASH, .softmax_fp32 = true, .materialized_mask = false,            \
    .norm_upcast = true,                                                                     \
    .fused_qkv = true, .gelu = VL_GELU_EXACT, .head = VL_HEAD_LM,                            \
    .loss_dtype = VL_LOSS_FP32, .prune_frozen_saves = true, .nf4_keeps_input = false,        \
    .nf4_returns_input_dtype = false, .frozen_embeddings_grad = true,                        \
    /* fused_moe: one kernel over every routed token (model_executor/layers/fused_moe) */   \
    .moe_expert_loop = false,                                                                \
    /* BitsAndBytesLinearMethod's apply_bnb_4bit hands matmul_4bit the input as it is       \
     * (model_executor/layers/quantization/bitsandbytes.py); the output layer is a          \
     * ParallelLMHead, which the loader does not quantize */                                \
    .bnb_compute_cast = false, .compute_dtype = VL_DT_FP32, .bnb_quantize_head = false,      \
    .bnb_quant_fp16 = false,                                                                 \
    /* RotaryEmbedding registers cos_sin_cache, max_position_embeddings x rotary_dim in     \
     * the model dtype, once for the model (model_executor/layers/rotary_embedding.py,      \
     * get_rope's cache of instances); transformers keeps inv_freq only */                  \
    .rope_cache = true,                                                                      \
    /* LlamaModel.forward calls each layer as hidden_states, residual = layer(positions,      \
     * hidden_states, residual): the caller's name holds the layer's input to its end; the  \
     * fused add-RMSNorm works in place; the MLP's gate_up and act outputs are its locals,  \
     * alive when down_proj writes its output (model_executor/models/llama.py, LlamaMLP)    \
     * so at down_proj: the input, the residual, the MLP's input, gate_up, act and output */ \
    .layer_input_held = true,                                                                \
    /* the paged KV cache allocated once; decode in captured CUDA graphs; the sampler's two  \
     * fp32 tensors beside the upcast logits, and the forward's hidden states held until it \
     * returns (V0: execute_model's hidden_or_intermediate_states; V1: profile_run around   \
     * _dummy_sampler_run) */                                                               \
    .kv_preallocated = true, .prefill_logits_all = false, .kv_step_copy = false,             \
    .cuda_graphs = true, .sampler_fp32 = 2, .sampler_hidden = true
/* vLLM's CUDA graphs: batch sizes up to 512 captured (V0: vllm/config.py, batch sizes to  \
 * capture; V1: max_cudagraph_capture_size) */
#define VLLM_GRAPHS .graph_batch = 512

const vl_framework vl_frameworks[VL_N_FRAMEWORKS] = {
    [VL_FW_PYTORCH] = {
        .name = "pytorch",
        .display = "PyTorch, plain eager modules",
        RUNTIME_DEFAULTS,
        TORCH_COMM, TORCH_DP,
        TORCH_OPTIMIZER,
        /* softmax(q·kᵀ)·v written out, in the activations' dtype: nothing upcast, no mask
         * tensor (the causal mask is applied in place), separate q, k, v nn.Linear, nn.GELU
         * (approximate='none'), F.cross_entropy(logits.float(), y): what vramlab's per-tensor
         * activations (FORMULAS in vramlab(1)) count */
        .attention = VL_ATTN_EAGER, .softmax_fp32 = false, .materialized_mask = false,
        .norm_upcast = true,
        .fused_qkv = false, .gelu = VL_GELU_EXACT, .head = VL_HEAD_LM,
        .loss_dtype = VL_LOSS_FP32, .prune_frozen_saves = false, .nf4_keeps_input = false,
        .nf4_returns_input_dtype = false,
        /* a plain loop: adapters in the model's dtype, no autocast but the -amp
         * precisions' */
        .qlora_adapters_fp32 = false, .autocast = false,
        /* every layer alike, as the steady-state sum counts them (a loop that freezes the
         * embeddings and asks their output for no gradient: false) */
        .frozen_embeddings_grad = true,
        /* softmax and log_softmax save their output alone since PyTorch 1.11 (before, the
         * backward formula named the input too, for double backward only: pytorch/pytorch
         * issue #64000, fixed by pull request #66018); false in every built-in profile */
        .softmax_saves_input = false,
        /* mean saves its sizes alone since PyTorch 2.2 (before, its input too: issue
         * #109876, fixed by pull request #109935) */
        .mean_saves_input = false,
        /* an nn.ModuleList of experts, each run on the tokens routed to it */
        .moe_expert_loop = true,
        /* bitsandbytes' Linear4bit.forward casts x to its compute_dtype (nn/modules.py),
         * here fp32, BitsAndBytesConfig's default; the output layer stays 16-bit, and the
         * matrices dequantize to the dtype they were quantized from */
        .bnb_compute_cast = true, .compute_dtype = VL_DT_FP32, .bnb_quantize_head = false,
        .bnb_quant_fp16 = false,
        /* torch.utils.checkpoint reenters autograd unless told otherwise ("To maintain
         * current behavior, pass use_reentrant=True", its warning); FSDP's units as the
         * user's policy makes them, with no MixedPrecision unless given one: the parameters
         * gathered as they are stored */
        .checkpoint_reentrant = true, .adapter_units = false, .fsdp_mixed_precision = false,
        /* a plain generate loop: torch.cat grows the cache, nothing captured */
        .prefill_chunk = 0, .kv_preallocated = false, .prefill_logits_all = false,
        .kv_step_copy = false, .cuda_graphs = false, .sampler_fp32 = 0, NO_KV_SIZING,
    },
    [VL_FW_HF] = {
        .name = "hf",
        .display = "Hugging Face transformers Trainer + PEFT",
        .transformers = true,
        RUNTIME_DEFAULTS,
        TORCH_COMM, TORCH_DP,
        TORCH_GRADIENTS,
        /* transformers >= 4.36: attn_implementation defaults to "sdpa" with torch >= 2.1.1
         * (modeling_utils.py, _autoset_attn_implementation); "eager" is
         * eager_attention_forward: softmax(..., dtype=torch.float32).to(query.dtype), with
         * the 4-D additive mask of modeling_attn_mask_utils.py (b x 1 x s x s, model dtype) */
        .attention = VL_ATTN_SDPA, .softmax_fp32 = true, .materialized_mask = true,
        .norm_upcast = true,
        .fused_qkv = false, .gelu = VL_GELU_EXACT, .head = VL_HEAD_LM,
        /* loss_utils.py, ForCausalLMLoss: logits = logits.float() before cross_entropy, the
         * labels shifted by padding them (earlier releases, 4.48 among them, copied
         * logits[..., :-1, :].contiguous(): loss_shift_copy); the model returns its logits
         * in its own dtype, kept while the loss upcasts them (before 4.46 the forward
         * returned lm_head(h).float(), the 16-bit logits gone: logits_cast_in_model) */
        .loss_dtype = VL_LOSS_AUTO, .loss_shift_copy = false, .logits_cast_in_model = false,
        /* autograd saves an input only for a gradient it computes (SavedVariable under
         * should_compute_output in the generated code).  bitsandbytes' MatMul4Bit.forward
         * saves (None, B) since 0.43.2, pull request #1270: not its input, which 0.43.1 and
         * earlier kept (A, B) (bitsandbytes/autograd/_functions.py); Linear4bit switches
         * its compute dtype to an fp32 or bf16 input's and casts its output back to the
         * input's dtype (set_compute_type and forward, bitsandbytes/nn/modules.py, 0.41) */
        .prune_frozen_saves = true, .nf4_keeps_input = false, .nf4_returns_input_dtype = true,
        /* PEFT makes an adapter in fp32 and moves it to its base layer's dtype only where
         * that is a float (LoraLayer._move_adapter_to_device_of_base_layer): a 4-bit
         * layer's adapters stay fp32, and without autocast its forward casts the input to
         * theirs for each adapter (peft/tuners/lora/bnb.py, Linear4bit.forward:
         * requires_conversion = not torch.is_autocast_enabled(), x =
         * self._cast_input_dtype(x, lora_A.weight.dtype)) */
        .qlora_adapters_fp32 = true,
        /* from PEFT 0.12 LoraModel's autocast_adapter_dtype (default True) makes a 16-bit
         * layer's adapters fp32 too (tuners_utils.py, _cast_adapter_dtype; pull request
         * #1706), and lora.Linear.forward casts the input to theirs for each adapter
         * whether or not autocast runs (x = x.to(lora_A.weight.dtype)) */
        .lora_adapters_fp32 = true,
        /* PEFT makes the frozen embeddings' output ask for a gradient
         * (enable_input_require_grads: prepare_model_for_kbit_training, and PeftModel under
         * gradient checkpointing); without it a reentrant checkpoint's adapters get none */
        .frozen_embeddings_grad = true,
        /* PEFT's prepare_model_for_kbit_training upcasts every parameter that is not 4-bit
         * to fp32 (peft/utils/other.py), and Trainer leaves them there; trl's SFTTrainer
         * 0.7.5 to 0.21 casts the embeddings and head back (qlora_bf16_embeddings) */
        .qlora_bf16_embeddings = false,
        /* MixtralSparseMoeBlock.forward loops over the experts, each on the tokens routed
         * to it (models/mixtral/modeling_mixtral.py) */
        .moe_expert_loop = true,
        /* load_in_4bit installs bitsandbytes' Linear4bit, which casts its input to
         * bnb_4bit_compute_dtype, fp32 unless the BitsAndBytesConfig says otherwise;
         * the output layer is left 16-bit (integrations/bitsandbytes.py,
         * get_keys_to_not_convert), and each matrix is quantized from the checkpoint's
         * dtype (Params4bit._quantize) */
        .bnb_compute_cast = true, .compute_dtype = VL_DT_FP32, .bnb_quantize_head = false,
        .bnb_quant_fp16 = false,
        /* Trainer's default optim: adamw_torch_fused, torch.optim.AdamW(fused=True), when
         * PyTorch is 2.8 or later (training_args.py, default_optim); adamw_torch before */
        .optim_impl = VL_OPTIM_FUSED, .trainer_optim = true, .optimizer_state_lazy = true,
        /* gradient_checkpointing_enable passes use_reentrant=False since transformers
         * pull request #43203 (January 2026; True from 4.37, #28538); under FSDP the Trainer
         * wraps a PEFT model with peft's fsdp_auto_wrap_policy, each adapter a unit of its
         * own (trainer.py, _fsdp_qlora_plugin_updates); with bf16 or fp16 accelerate gives
         * FSDP MixedPrecision(param_dtype=dtype, reduce_dtype=dtype, buffer_dtype=dtype)
         * (accelerate/utils/dataclasses.py, FullyShardedDataParallelPlugin.
         * set_mixed_precision), and autocast runs on top */
        .checkpoint_reentrant = false, .adapter_units = true, .fsdp_mixed_precision = true,
        /* generate(): DynamicCache grows each layer by torch.cat; the logits of the last
         * position are copied to fp32 and sampling keeps their softmax (utils.py, _sample) */
        .prefill_chunk = 0, .kv_preallocated = false, .prefill_logits_all = false,
        .kv_step_copy = false, .cuda_graphs = false, .sampler_fp32 = 1, NO_KV_SIZING,
        /* LlamaModel.forward (and its kind) keeps inputs_embeds by name through the layer
         * loop, and the loop's hidden_states holds a layer's input while it runs, beside the
         * layer's residual and normalized input */
        .layer_input_held = true,
        /* a decoder's config turns use_cache on, which its forward keeps in training unless
         * gradient checkpointing is on ("use_cache=True is incompatible with gradient
         * checkpointing"): the outputs hold every layer's K and V, the legacy tuples of
         * DynamicCache.to_legacy_cache() or the Cache object (vl_kv_outputs), until
         * compute_loss returns them before backward; the Trainer prepares the model with
         * accelerate from 4.31, whose prepare_model under fp16 or bf16 wraps its forward
         * in convert_outputs_to_fp32 (accelerator.py; utils/operations.py: .float() of
         * every fp16 or bf16 tensor in nested tuples, lists and dicts) */
        .use_cache = true, .outputs_to_fp32 = true,
        /* TrainingArguments' bf16 or fp16 runs the step under autocast over whatever dtype
         * the model was loaded in (accelerate's native_amp, Accelerator.autocast) */
        .autocast = true,
    },
    [VL_FW_MEGATRON] = {
        .name = "megatron",
        .display = "Megatron-LM (Megatron-Core, Transformer Engine)",
        RUNTIME_DEFAULTS,
        TORCH_COMM, TORCH_DP,
        /* TE's fused attention (flash), linear_qkv one fused projection, a fused bias-GELU
         * (tanh approximation, one saved input), vocab-parallel cross-entropy in fp32
         * (megatron/core/tensor_parallel/cross_entropy.py); its own unfused attention
         * (--attention eager) scales, masks and softmaxes the 16-bit scores in one fused
         * kernel that computes in fp32 and stores 16 bits (FusedScaleMaskSoftmax, wherever
         * is_kernel_available: keys 17 to 4,096, from 2023-07 16,384) */
        .attention = VL_ATTN_FLASH, .softmax_fp32 = false, .materialized_mask = false,
        /* _VocabParallelCrossEntropy (megatron/core/tensor_parallel/cross_entropy.py, the
         * fused one alike): the logits' .float() copy becomes exp and then the softmax in
         * place (from 0.8: vl_framework_on_megatron), saved for backward, which makes the
         * gradient in it */
        .loss_in_place = VL_LIP_ALL,
        .norm_upcast = true,
        .fused_qkv = true, .gelu = VL_GELU_TANH, .head = VL_HEAD_LM,
        .loss_dtype = VL_LOSS_FP32, .prune_frozen_saves = true, .nf4_keeps_input = false,
        .nf4_returns_input_dtype = false, /* no bitsandbytes layers */
        .frozen_embeddings_grad = true, /* as before the key: not read for Megatron-Core */
        /* the routed tokens permuted into one buffer for a grouped GEMM over the experts
         * (megatron/core/transformer/moe/experts.py, GroupedMLP) */
        .moe_expert_loop = false,
        .bnb_compute_cast = false, /* no bitsandbytes layers */
        .compute_dtype = VL_DT_FP32, .bnb_quantize_head = false, .bnb_quant_fp16 = false,
        /* apex/TE FusedAdam; the DDP wrapper's contiguous main-grad buffer lives for the
         * whole run (megatron/core/distributed/param_and_grad_buffer.py) and is bucketed in
         * place: no second copy; the distributed optimizer gives each fp32 main-parameter
         * shard its gradient as the step begins (shard_model_grad.float(),
         * _copy_model_grads_to_main_grads in megatron/core/optimizer/distrib_optimizer.py),
         * and the other one each fp32 main parameter (main_grad.float(), in
         * Float16OptimizerWithFloat16Params since 2021-03), a copy unless the main grads
         * are fp32, dropped by the next zero_grad: a tensor a parameter */
        .optim_impl = VL_OPTIM_FUSED, .grads_persistent = true, .ddp_bucket_view = true,
        .grad_copy_at_step = true, .grad_copy_per_tensor = true,
        /* the moments of flat main-parameter shards: counted beside the weights from the
         * start, where the first step puts them not replayed */
        .optimizer_state_lazy = false,
        .zero_impl = VL_ZERO_DEEPSPEED,
        /* tensor_parallel/random.py, CheckpointFunction: an autograd Function that reruns
         * the forward in its backward */
        .checkpoint_reentrant = true, .adapter_units = false,
        .prefill_chunk = 0, .kv_preallocated = true, .prefill_logits_all = false,
        .kv_step_copy = false, .cuda_graphs = false, .sampler_fp32 = 0, NO_KV_SIZING,
    },
    [VL_FW_DEEPSPEED] = {
        .name = "deepspeed",
        .display = "DeepSpeed ZeRO with a transformers model",
        .transformers = true,
        RUNTIME_DEFAULTS,
        TORCH_COMM,
        /* the world group gathers the parameters (zero.Init's ds_process_group) and runs the
         * barriers; the gradients are reduced on its clone (utils/groups.py,
         * _clone_world_group: dist.new_group of every rank), a communicator of its own */
        .dp_communicators = 2,
        .attention = VL_ATTN_SDPA, .softmax_fp32 = true, .materialized_mask = true,
        .norm_upcast = true,
        .fused_qkv = false, .gelu = VL_GELU_EXACT, .head = VL_HEAD_LM,
        .loss_dtype = VL_LOSS_AUTO, .prune_frozen_saves = true, .nf4_keeps_input = false,
        .nf4_returns_input_dtype = true, /* bitsandbytes as hf runs it */
        /* the engine casts the whole module, adapters too, to its 16-bit dtype
         * (deepspeed/runtime/engine.py, _configure_distributed_model: self.module.bfloat16(),
         * through 0.19.1), and runs no autocast (accelerate leaves native_amp off) */
        .qlora_adapters_fp32 = false, .autocast = false,
        .frozen_embeddings_grad = true, /* and PEFT as hf runs it */
        .moe_expert_loop = true, /* the transformers model's own MoE block */
        .bnb_compute_cast = true, /* and its Linear4bit layers, as transformers makes them */
        .compute_dtype = VL_DT_FP32, .bnb_quantize_head = false, .bnb_quant_fp16 = false,
        /* DeepSpeed's FusedAdam unless torch_adam (deepspeed/runtime/engine.py); ZeRO keeps
         * its gradient partitions in flat buffers allocated once
         * (deepspeed/runtime/zero/stage_1_and_2.py), and converts them to fp32 for the step
         * only: a parameter group's at a time (step: single_grad_partition, set to None
         * after the group's step), under ZeRO-3 a sub-group's
         * (stage3.py, _prepare_fp32_grad_for_sub_group and _release_sub_group) */
        .optim_impl = VL_OPTIM_FUSED, .grads_persistent = true, .ddp_bucket_view = false,
        .grad_copy_at_step = true, /* ZeRO-1's gradients: vl_grads_freed_in_step */
        /* ZeRO-1 and 2 make the optimizer's fp32 partition as a copy of the weights' flat
         * partition, .clone().float() (stage_1_and_2.py, single_partition_of_fp32_groups),
         * which fp32 weights do not spare; ZeRO-3 uses the weights' own partition where it is
         * fp32 on the GPU (stage3.py, _create_fp32_partitions, from pull request #7651,
         * 2025-10; a copy before) */
        .zero_fp32_master = true,
        /* the moments of the flat fp32 partitions the engine makes as it starts: made
         * there too by an optimizer step it took until 0.13.2 (pull request #5104 removed
         * it from initialize_optimizer_states), since then by the first step, which is not
         * replayed for flat partitions: counted beside the weights from the start */
        .optimizer_state_lazy = false,
        .zero_impl = VL_ZERO_DEEPSPEED,
        /* the transformers model's checkpointing and forward, as the hf profile's */
        .checkpoint_reentrant = false, .adapter_units = false, .layer_input_held = true,
        /* and its use_cache; DeepSpeed keeps its own precision, so accelerate leaves the
         * outputs as they are (native_amp is off under DeepSpeed) */
        .use_cache = true, .outputs_to_fp32 = false,
        .prefill_chunk = 0, .kv_preallocated = false, .prefill_logits_all = false,
        .kv_step_copy = false, .cuda_graphs = false, .sampler_fp32 = 0, NO_KV_SIZING,
    },
    [VL_FW_VLLM] = {
        .name = "vllm",
        .display = "vLLM serving engine (V1)",
        RUNTIME_DEFAULTS,
        TORCH_OPTIMIZER,
        VLLM_MODEL,
        VLLM_GRAPHS,
        VLLM_V1_COMM,
        /* the V1 engine's defaults for the OpenAI server on GPUs of 70 GiB and more but
         * the A100 (vllm/engine/arg_utils.py, _set_default_args: "Defaulting
         * max_num_batched_tokens to 8192 for OPENAI_API_SERVER usage context"; 2048 on
         * the others, where prefill_chunk: 2048 says so).  The sampler
         * (vllm/v1/sample/sampler.py) upcasts the logits, filters top-k/top-p in place with
         * Triton kernels, no sort (v1/sample/ops/topk_topp_triton.py, vllm#33538), which
         * keep an fp32 buffer of one vocabulary row per program, min(batch, SMs) programs,
         * cached from the first step (apply_top_k_top_p_triton, _TRITON_BUFFER_CACHE), and
         * samples from fp32 probs with an exponential noise of their shape
         * (topk_topp_sampler.py, random_sample). */
        .prefill_chunk = 8192, .sampler_sort = false, .sampler_triton = true,
        /* FusedMoEModularKernel runs the experts in two workspaces, class-level buffers the
         * layers share and keep, M x k x max(I, h) and M x k x max(2I, h) (TritonExperts'
         * workspace_shapes; shared_buffers, "persistent buffers that are shared across
         * FusedMoEModularKernel instances"; model_executor/layers/fused_moe) */
        .moe_workspace_kept = true,
        /* 0.34's runner and sizing: the V2 runner for every model (vllm/config/vllm.py,
         * use_v2_model_runner, vllm pull request #53183; the only one from 0.34); its
         * profile run samples once more with the warmup's parameters (v1/worker/gpu/
         * model_runner.py, _dummy_sampler_run: "the profiled peak must too"); the CUDA
         * graphs' memory off the KV cache (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS from
         * 0.20.0; measured after capture from 0.34.0); the extensible KV cache, sized from
         * the memory free after warmup and capture within all of each GPU unless told
         * (v1/worker/extensible_kv_cache.py, measure_kv_cache_bytes; vllm/config/cache.py,
         * resolved_gpu_memory_utilization: 1.0 with it) */
        .model_runner = VL_RUNNER_V2, .profile_sampler_params = true, .graph_estimate = true,
        .kv_sizing = VL_KV_EXTENSIBLE, .gpu_util = VL_PPM, .kv_block = 16,
        /* the V1 worker profiles one forward of max_num_batched_tokens shared over
         * max_num_seqs requests (1024 with the 8192 above; 256 with 2048) and the sampler
         * over them, then gives the KV cache what is left of its share of cudaMemGetInfo's
         * total after the weights, that run's PyTorch peak and the memory outside PyTorch
         * the run added (v1/worker/gpu_model_runner.py, profile_run and _dummy_run;
         * gpu_worker.py, determine_available_memory).  That last, "non-torch forward
         * increase memory", was 0.24 to 0.26 GiB in vLLM 0.19.0's logs of ten models on one
         * H100 (jgchn/llm-d-planner, accuracy/results/v0.19.0/logs, 2026-04): 0.25 GiB;
         * earlier releases' by GPU generation (vl_framework_on_gpu).  With tensor
         * parallelism the communicators add to it (VLLM_V1_COMM). */
        .profile_seqs = 1024, .profile_non_torch = 268435456,
        /* the 8192 and 1024 above are the defaults "for GPUs like H100 and MI300x": 70 GiB
         * and more of torch.cuda's total memory and no "a100" in the device's name; the
         * others get 2048 and 256 (vllm/engine/arg_utils.py, get_batch_defaults; vLLM's
         * tests/engine/test_arg_utils.py, test_defaults_with_usage_context).  The name is
         * matched here by generation: the A100 is the only Ampere GPU of 70 GiB. */
        .small_gpu_below = 70 * VL_GIB, .small_gpu_arch = VL_ARCH_AMPERE,
        .small_prefill_chunk = 2048, .small_profile_seqs = 256,
    },
    [VL_FW_VLLM_V0] = {
        .name = "vllm-v0",
        .display = "vLLM serving engine (V0, before 0.8)",
        RUNTIME_DEFAULTS,
        TORCH_OPTIMIZER,
        VLLM_MODEL,
        VLLM_GRAPHS,
        VLLM_V0_COMM,
        /* chunked prefill with max_num_batched_tokens 2048 (vllm/engine/arg_utils.py, the
         * OpenAI server's default with chunked prefill; earlier releases' budgets:
         * vl_framework_on_length), on by default only where
         * max_model_len is over 32768 ("use_long_context = max_model_len > 32768",
         * _set_default_args_v0); off, the budget is max(max_model_len, 2048)
         * (config.py, SchedulerConfig): whole_prompt_upto says so, the run's seq + gen
         * standing for max_model_len;
         * the sampler upcasts the logits and keeps probs and logprobs in fp32
         * (vllm/model_executor/layers/sampler.py); top-p sorts the vocabulary, and the
         * memory profile samples with top_p 0.99 and top_k V - 1 "to reflect the accurate
         * memory usage" (vllm/worker/model_runner.py, profile_run) */
        .prefill_chunk = 2048, .whole_prompt_upto = 32768, .sampler_sort = true,
        .model_runner = VL_RUNNER_V0,
        /* V0's worker, from vLLM 0.6.5 on (vllm pull request #10511, polished in #11809
         * and #12126, January 2025), sizes its cache as V1 does: one forward of
         * max_num_batched_tokens over max_num_seqs sequences (256 by default) and the
         * sampler, then gpu_util x CUDA's total - the weights - that run's PyTorch peak -
         * what it added outside PyTorch (vllm/worker/worker.py,
         * determine_num_available_blocks; its log's "non_torch_memory takes", 0.03 and 0.04
         * GiB for text models on one GPU: vllm#13882 on an RTX 4060,
         * Q07K/langgraph-mcp-example's README on an RTX 2060 with vLLM 0.8.4; 0.04 GiB).
         * Releases before 0.6.5 counted the run otherwise: --vllm replays them
         * (vl_framework_on_vllm). */
        VLLM_CACHE, .profile_seqs = 256, .profile_non_torch = 42949673, ONE_SIZE_FOR_ALL,
    },
    [VL_FW_LITGPT] = {
        .name = "litgpt",
        .display = "LitGPT (Lightning AI)",
        RUNTIME_DEFAULTS,
        TORCH_COMM, TORCH_DP,
        TORCH_OPTIMIZER,
        /* litgpt/model.py: CausalSelfAttention's one qkv nn.Linear and
         * F.scaled_dot_product_attention(..., is_causal=mask is None), no mask tensor in
         * training; RMSNorm upcasts to fp32; the MoE block loops over its experts */
        .attention = VL_ATTN_SDPA, .softmax_fp32 = true, .materialized_mask = false,
        .norm_upcast = true,
        .fused_qkv = true, .gelu = VL_GELU_EXACT, .head = VL_HEAD_LM,
        /* CausalSelfAttention.forward views the qkv output as (B, T, groups, q per kv + 2,
         * head size), permutes and splits it: in training it expands K and V to the query
         * heads when there are fewer groups than heads ("flash attention requires it"), and
         * reshape copies them; with as many groups as heads V stays a view of the qkv
         * output, which SDPA keeps (q and k are new tensors, RoPE's) */
        .kv_repeat = VL_KV_REPEAT_BEFORE_ROPE, .v_views_qkv = true,
        /* litgpt/lora.py, LoRAQKVLinear: one lora_A over the enabled q, k, v (one
         * lora_dropout), and zero_pad's index_copy, whose backward keeps its source (the
         * adapters' output, reshaped: a copy) when not all of q, k, v are enabled */
        .lora_qkv_pad = true,
        /* fit() calls the model through Fabric's _FabricModule, whose forward returns
         * precision.convert_output(output): every floating tensor cast to the default
         * dtype, fp32, under bf16-true and the bitsandbytes plugin alike (lightning/fabric/
         * wrappers.py; plugins/precision/half.py and bitsandbytes.py), the 16-bit list
         * dropped; litgpt/utils.py's chunked_cross_entropy runs cross_entropy on each of
         * the 128-position chunks lm_head_chunk_size=128 made, so the loss is in fp32, and
         * backward makes each chunk's log-probabilities' gradient in turn while the logits'
         * gradients wait for the output layer's backward, which autograd runs after every
         * chunk's loss (a lower sequence number) */
        .loss_dtype = VL_LOSS_FP32, .loss_shift_copy = false, .logits_cast_in_model = true,
        .loss_chunk = 128,
        /* the 4-bit layers are bitsandbytes' Linear4bit, as in hf; the adapters are
         * LitGPT's own, in the dtype Fabric's bf16-true or 16-true makes every parameter,
         * and no autocast runs under them */
        .prune_frozen_saves = true, .nf4_keeps_input = false, .nf4_returns_input_dtype = true,
        .qlora_adapters_fp32 = false, .autocast = false,
        /* mark_only_lora_as_trainable freezes the embeddings and nothing asks their output
         * for a gradient (litgpt/lora.py): the first layer's norm, and under parallel
         * attention its MLP unless an adapter is there, keep nothing */
        .frozen_embeddings_grad = false,
        .moe_expert_loop = true,
        /* Lightning's BitsandbytesPrecision (lightning/fabric/plugins/precision/
         * bitsandbytes.py): every nn.Linear becomes a 4-bit layer (_convert_layers, the
         * output layer's too), convert_module sets each one's compute_dtype to the
         * plugin's dtype (bf16 where the GPU has it, else fp16), and _quantize_weight
         * quantizes w.to(dtype=torch.half) */
        .bnb_compute_cast = true, .compute_dtype = VL_DT_BF16, .bnb_quantize_head = true,
        .bnb_quant_fp16 = true,
        /* Fabric's activation checkpointing wraps each Block in torch's checkpoint_wrapper,
         * non-reentrant by default; its FSDPStrategy wraps whole Blocks (use_orig_params),
         * adapters and frozen weights in one unit; its bf16-mixed and 16-mixed keep
         * MixedPrecision's param_dtype fp32 and leave the casts to autocast (lightning/
         * fabric/plugins/precision/fsdp.py, mixed_precision_config, since Lightning 2.0.3) */
        .checkpoint_reentrant = false, .adapter_units = false, .fsdp_mixed_precision = false,
        /* fit() (litgpt/finetune/lora.py, full.py and adapter.py, as lit-gpt's train() before
         * them) binds `logits = model(input_ids, lm_head_chunk_size=128)` and keeps the list
         * through its backward until the next iteration's forward returns: the step
         * before's logits and its autograd graph live through the next forward */
        .loop_keeps_logits = true,
        /* GPT.__init__ (litgpt/model.py) makes lm_head an nn.Linear of its own and never
         * ties it; convert_hf_checkpoint.py copies a tied checkpoint's embeddings into
         * lm_head.weight, and finetune/lora.py refuses train.tie_embeddings */
        .unties_embeddings = true,
        /* GPT.set_kv_cache: a KVCache of zeros for max_seq_length, allocated once; GPT.forward
         * applies lm_head to every position it is given, and generate samples from the
         * last (generate/base.py) */
        .prefill_chunk = 0, .kv_preallocated = true, .prefill_logits_all = true,
        .kv_step_copy = false, .cuda_graphs = false, .sampler_fp32 = 0, NO_KV_SIZING,
    },
    [VL_FW_SGLANG] = {
        .name = "sglang",
        .display = "SGLang serving engine",
        RUNTIME_DEFAULTS,
        TORCH_OPTIMIZER,
        /* SGLang's models are built from the same layers as vLLM's (QKVParallelLinear, the
         * fused add-RMSNorm, get_rope's cos_sin_cache; python/sglang/srt/layers), served
         * from a KV pool allocated once with decode in CUDA graphs; its sampler upcasts the
         * logits and samples from their fp32 softmax (layers/logits_processor.py,
         * layers/sampler.py) */
        VLLM_MODEL,
        /* init_torch_distributed's "mem usage", the free memory its communicators took
         * (NCCL, and the custom all-reduce where the GPUs share NVLink): 1.96 GiB on each of
         * eight H200s (sgl-project/sglang pull request #11716's log); 0.13 GiB on four L4s
         * over PCIe, custom all-reduce off (didier-durand/llms-in-clouds, docs/sglang.md,
         * QwQ-32B at -tp 4) */
        .comm_nvlink = 2104533893, .comm_pcie = 139586437, .dp_communicators = 1,
        /* NCCL_NVLS_ENABLE=0 unless --enable-nccl-nvls (sgl-project/sglang pull request
         * #631, "Disable NCCL_NVLS by default"; _set_envs_and_config) */
        .nvls = false,
        /* an H100's chunked_prefill_size and decode graphs' max_bs; vl_framework_on_gpu
         * takes the GPU's, by release (sglang_defaults) */
        .prefill_chunk = 8192, .graph_batch = 256, .sampler_sort = false,
        .sampler_triton = false, .model_runner = VL_RUNNER_V1,
        /* the token pool holds what mem_fraction_static of the memory free before the
         * weights leaves beside them (python/sglang/srt/mem_cache/kv_cache_configurator.py,
         * _profile_available_bytes: "KV pool budget = currently-free GPU memory minus the
         * non-static runtime slack (pre_model_load_memory * (1 - mem_fraction_static))"),
         * one token a page (server_args page_size 1); mem_fraction_static by its rule for
         * the GPU unless told (vl_framework_on_gpu); no profile run */
        .kv_sizing = VL_KV_STATIC, .gpu_util = 0, .kv_block = 1, .profile_seqs = 0,
        .profile_non_torch = 0, ONE_SIZE_FOR_ALL,
    },
};
const size_t vl_n_frameworks = VL_N_FRAMEWORKS;

void vl_framework_on_torch(vl_framework *f, vl_torch t)
{
    /* Before 1.11 the softmax kept its input (issue #64000); before 2.0 Optimizer.zero_grad
     * and Module.zero_grad defaulted to set_to_none=False, zeroing the gradients in place,
     * and torch.optim stepped a tensor at a time unless asked for foreach (2.0's
     * _default_to_fused_or_foreach made foreach the CUDA default); before 2.1 foreach Adam
     * and AdamW made denom = torch._foreach_add(exp_avg_sq_sqrt, eps), a second list beside
     * the square roots (issue #97712, closed by pull request #104898 and its stack, July
     * 2023); before 2.2 mean kept its input (issue #109876). */
    if (t == VL_TORCH_CURRENT)
        return;
    /* transformers' TrainingArguments.optim defaults to adamw_torch_fused with PyTorch 2.8
     * and later, to adamw_torch (torch.optim.AdamW as torch defaults it) before */
    if (t < VL_TORCH_2_8 && f->trainer_optim && f->optim_impl == VL_OPTIM_FUSED)
        f->optim_impl = VL_OPTIM_FOREACH;
    if (t < VL_TORCH_1_11)
        f->softmax_saves_input = true;
    if (t < VL_TORCH_2_0) {
        f->zero_grad_in_place = true;
        /* 1.13 kept nothing allocated after a Linear where 2.0's nightly kept its 8,519,680 B
         * workspace (issue #95668); 1.10's snapshot shows none (discuss.pytorch.org, topic
         * 178671): cuBLAS made its own */
        f->cublas_workspace_cached = false;
        if (f->optim_impl == VL_OPTIM_FOREACH)
            f->optim_impl = VL_OPTIM_SINGLE_TENSOR;
    }
    if (t < VL_TORCH_2_1)
        f->foreach_denom_copy = true;
    if (t < VL_TORCH_2_2)
        f->mean_saves_input = true;
    /* SDPA takes enable_gqa from 2.5 (transformers' use_gqa_in_sdpa); before, transformers
     * repeats K and V for it (vl_framework_on_transformers) */
    if (t < VL_TORCH_2_5 && f->transformers)
        f->kv_repeat = VL_KV_REPEAT_AFTER_ROPE;
}

void vl_framework_on_transformers(vl_framework *f, vl_transformers v)
{
    v = vl_transformers_modelled(v);
    if (v == VL_TF_CURRENT || !f->transformers)
        return;
    /* the SDPA path repeats K and V to the query heads (repeat_kv) before calling
     * scaled_dot_product_attention: LlamaSdpaAttention and its copies from 4.36,
     * integrations/sdpa_attention.py from 4.48; from 4.54 it passes enable_gqa instead
     * where PyTorch has it and there is no attention mask (use_gqa_in_sdpa) */
    if (v < VL_TF_4_54)
        f->kv_repeat = VL_KV_REPEAT_AFTER_ROPE;
    /* gradient_checkpointing_enable passes use_reentrant=False from 5.0 (pull request
     * #43203); True from 4.37 (#28538), and before, torch's own default, reentrant */
    f->checkpoint_reentrant = true;
    /* the loss copied logits[..., :-1, :].contiguous() until 4.49 (#35646) */
    if (v < VL_TF_4_49)
        f->loss_shift_copy = true;
    /* generate passed the cache as tuples of past_key_values until 4.42 (pull request
     * #30536, "Reduce by 2 the memory requirement in generate()"): the step before's cache
     * and outputs, the prefill's logits among them, stayed referenced while a decode step
     * concatenated the new cache; 4.42 gave a class that takes a Cache object a
     * DynamicCache (vl_framework_on_class for the others) and deleted each step's outputs
     * (generation/utils.py, _sample: del outputs) */
    if (v < VL_TF_4_42)
        f->kv_step_copy = f->step_outputs_held = true;
    /* 4.45's generate cloned a forward's whole logits before taking the last position's
     * (_sample: outputs.logits.clone()[:, -1, :].float()), until pull request #34813 (4.47)
     * sliced first: a copy of every position's logits where the class projects them all */
    if (v == VL_TF_4_45 || v == VL_TF_4_46)
        f->logits_clone_all = true;
    /* DynamicCache.update kept the first K and V it was given, and the tuple caches before
     * it the attention's own tensors, until 4.56's DynamicLayer concatenated them onto an
     * empty tensor (a copy) from the first update on (cache_utils.py, DynamicLayer.update
     * and lazy_initialization) */
    if (v < VL_TF_4_56)
        f->kv_cache_views = true;
    /* TrainingArguments.optim: adamw_torch_fused with PyTorch 2.8 only from 4.54 (#37358);
     * adamw_torch from 4.32 (#25109), adamw_hf before: transformers' own AdamW, a Python
     * loop over the parameters with a temporary of each one's size (optimization.py) */
    if (f->trainer_optim && f->optim_impl == VL_OPTIM_FUSED && v < VL_TF_4_54)
        f->optim_impl = VL_OPTIM_FOREACH;
    if (f->trainer_optim && v < VL_TF_4_32)
        f->optim_impl = VL_OPTIM_SINGLE_TENSOR;
}

/* The model classes' rules for their logits, loss, cache and mask buffers (model.h,
 * VL_MODEL_TYPES); ALWAYS is past every release, current included (a buffer no release has
 * dropped yet) */
#define VL_TF_ALWAYS ((vl_transformers)VL_N_TRANSFORMERS)
#define VL_MODEL_TYPE_RULE(id, name, train, serve, keep, uncast, cache, mask, mask_until,      \
                           kv_tuples, kv_kind, rope_from, rope_until, bools, softmax_fp32)     \
    {VL_TF_##train, VL_TF_##serve, VL_TF_##keep, VL_TF_##uncast, VL_TF_##cache,                \
     VL_MASK_BUFFER_##mask, VL_TF_##mask_until, VL_TF_##kv_tuples, VL_KV_KIND_##kv_kind,       \
     VL_TF_##rope_from, VL_TF_##rope_until, VL_TF_##bools, VL_TF_##softmax_fp32},
static const struct {
    vl_transformers train_cast_until, serve_cast_until, keep_from, shift_uncast_until,
        cache_from;
    vl_mask_buffer mask;
    vl_transformers mask_until, kv_tuples_until;
    vl_kv_kind kv_kind;
    vl_transformers rope_from, rope_until, bool_mask_from, softmax_fp32_from;
} class_rules[VL_N_MODEL_TYPES] = {VL_MODEL_TYPES(VL_MODEL_TYPE_RULE)};

/* v is before release: current (5.0) comes after every numbered one, ALWAYS after all */
static bool before(vl_transformers v, vl_transformers release)
{
    if (release == VL_TF_ALWAYS)
        return true;
    if (v == VL_TF_CURRENT)
        return false;
    return release == VL_TF_CURRENT || v < release;
}

void vl_framework_on_class(vl_framework *f, const vl_arch *a, vl_transformers v, bool training)
{
    v = vl_transformers_modelled(v);
    if (!f->transformers)
        return;
    const vl_model_type t = a->model_type; /* every reader gives one of the table's */
    /* LlamaForCausalLM returned logits.float() from 4.31 until 4.46 moved the upcast into
     * the loss; other classes cast only given labels, longer, or never */
    if (before(v, training ? class_rules[t].train_cast_until : class_rules[t].serve_cast_until))
        f->logits_cast_in_model = true;
    /* a class that casts nothing and computes its own loss (GPT-2's until ForCausalLMLoss
     * took over in 4.49) copies the shifted logits in their own dtype, then cross_entropy
     * casts that copy (autocast) */
    const bool own_loss =
        !f->logits_cast_in_model && before(v, class_rules[t].shift_uncast_until);
    if (training && f->loss_shift_copy && own_loss)
        f->shift_before_cast = true;
    /* the class's own loss code decides what cross-entropy reads (loss_dtype auto): an
     * encoder's heads take CrossEntropyLoss on the logits as they are at every release
     * (BertForMaskedLM's prediction_scores, 4.31 to 5.0), a causal LM's own loss did
     * before ForCausalLMLoss's upcast took over, where its forward did not cast them; the
     * others read fp32.  Autocast casts for cross_entropy whichever it is. */
    if (f->loss_dtype == VL_LOSS_AUTO && !vl_arch_encoder(a) && !own_loss)
        f->loss_dtype = VL_LOSS_FP32;
    /* each attention layer made its own rotary embedding, which registered cos and sin of
     * every position as buffers, over the class's releases (model.h):
     * LlamaRotaryEmbedding's _set_cos_sin_cache, then its _cos_cached and _sin_cached "for
     * BC" (4.38.2 to 4.40), MistralRotaryEmbedding's and its copies' until the model-wide
     * rotary embedding */
    if (!before(v, class_rules[t].rope_from) && before(v, class_rules[t].rope_until))
        f->rope_tables = true;
    /* a class whose eager attention came to upcast its softmax whatever the model's
     * eager_softmax (GPT-NeoX's from 4.49, GPTBigCode's from 4.54) */
    if (!before(v, class_rules[t].softmax_fp32_from))
        f->class_softmax_fp32 = true;
    /* generate's prefill asks for the last position's logits only where the forward takes
     * num_logits_to_keep (Llama's from 4.45); before, the forward projected every position */
    if (before(v, class_rules[t].keep_from))
        f->prefill_logits_all = true;
    /* a class that took no Cache object still got tuples of past_key_values from 4.42's
     * generate, each decode step concatenating new ones beside the old */
    if (!training && before(v, class_rules[t].cache_from))
        f->kv_step_copy = true;
}

vl_kv_out vl_kv_outputs(const vl_framework *f, const vl_arch *a, vl_transformers v)
{
    v = vl_transformers_modelled(v);
    const vl_kv_kind kind = class_rules[a->model_type].kv_kind;
    if (!f->transformers || kind == VL_KV_KIND_NONE ||
        (kind == VL_KV_KIND_GUARD && v == VL_TF_4_44))
        return VL_KV_OUT_NONE;
    return before(v, class_rules[a->model_type].kv_tuples_until) ? VL_KV_OUT_TUPLES
                                                                 : VL_KV_OUT_CACHE;
}

uint64_t vl_mask_buffers_bytes(const vl_framework *f, const vl_arch *a, vl_transformers v,
                               uint64_t layers, bool *ovf)
{
    v = vl_transformers_modelled(v);
    const vl_mask_buffer kind = class_rules[a->model_type].mask;
    const vl_transformers until = class_rules[a->model_type].mask_until;
    if (!f->transformers || kind == VL_MASK_BUFFER_NONE || !before(v, until))
        return 0;
    const uint64_t one = vl_mul(a->max_positions, a->max_positions, ovf); /* bools */
    return kind == VL_MASK_BUFFER_LAYER ? vl_mul(layers, one, ovf) : one;
}

void vl_sdpa_padding_mask(const vl_settings *s, const vl_arch *a, uint64_t rho, uint64_t beta,
                          uint64_t *shared, uint64_t *per_layer, bool *ovf)
{
    *shared = *per_layer = 0;
    if (!s->framework->transformers || !vl_settings_padded(s) ||
        vl_attention_for(s, a) != VL_ATTN_SDPA)
        return;
    /* The model's mask, b x 1 x s x s: masking_utils' sdpa_mask, bools, from the class's
     * release (model.h); before, floats in the input embeddings' dtype, the residual
     * stream's: a decoder's _update_causal_mask, an encoder's
     * _prepare_4d_attention_mask_for_sdpa, its b x s padding mask expanded to every query */
    const bool bools = !before(s->transformers, class_rules[a->model_type].bool_mask_from);
    const uint64_t bss = vl_mul(vl_mul(s->seq, s->seq, ovf), s->batch, ovf);
    *shared = vl_mul(bss, bools ? 1 : rho, ovf);
    /* What scaled_dot_product_attention hands the memory-efficient kernel, which keeps it
     * as attn_bias for backward (aten/src/ATen/native/transformers/attention.cpp): a bool
     * mask converted to the query's dtype (convert_boolean_attn_mask), at each call; a
     * float one as it is, save autocast's cast of an fp32 mask to the 16-bit query; and a
     * mask whose rows are not 8-element aligned padded to them (preprocess_mask, pad_bias;
     * pytorch pull request #114173, from 2.2) */
    const uint64_t width = vl_ceil_div(s->seq, 8) * 8;
    if (bools || rho != beta || width != s->seq)
        *per_layer = vl_mul(vl_mul(vl_mul(s->seq, width, ovf), s->batch, ovf), beta, ovf);
}

void vl_framework_on_bitsandbytes(vl_framework *f, vl_bitsandbytes v)
{
    /* MatMul4Bit.forward saved (A, B) until 0.43.2 saved (None, B): pull request #1270
     * (bitsandbytes/autograd/_functions.py) */
    if (v != VL_BNB_CURRENT)
        f->nf4_keeps_input = true;
}

void vl_framework_on_trl(vl_framework *f, vl_trl v)
{
    /* SFTTrainer from 0.7.5 to 0.21, training a 4-bit model under bf16 autocast, cast its
     * embeddings and output layer back to bf16 once PEFT had upcast them
     * (peft_module_casting_to_bf16, trl/trainer/utils.py) */
    if (v != VL_TRL_CURRENT && f->transformers)
        f->qlora_bf16_embeddings = true;
}

void vl_framework_on_megatron(vl_framework *f, vl_megatron v)
{
    /* before 0.8 _VocabParallelCrossEntropy subtracted the maximum out of place
     * (vocab_parallel_logits - logits_max), the softmax made in that new tensor; in place
     * from pull request "Reduce logit memory pressure by using in-place operation"
     * (9634c0e4, 2024-06-13) */
    if (v != VL_MEG_CURRENT && f->loss_in_place == VL_LIP_ALL)
        f->loss_in_place = VL_LIP_BACKWARD;
}

unsigned vl_vllm_line(vl_vllm v)
{
    switch (v) {
    case VL_VLLM_CURRENT: return VL_VLLM_NEWEST;
    case VL_VLLM_0_3_1: return 3;
    case VL_VLLM_0_5_3: return 5;
    case VL_VLLM_0_6_4: case VL_VLLM_0_6_5: return 6;
    case VL_VLLM_0_7_1: return 7;
    case VL_VLLM_0_8: return 8;
    case VL_VLLM_0_9: case VL_VLLM_0_9_1: return 9;
    default: return 10 + (unsigned)(v - VL_VLLM_0_10);
    }
}

void vl_framework_on_vllm(vl_framework *f, vl_vllm v)
{
    /* The V0 engine's profile run (vllm/worker/worker.py, determine_num_available_blocks):
     * from 0.3.1 the memory free when the worker started less the memory free after the run
     * (pull request #2863), which counts the allocator's reserved segments; 0.6.4 the
     * allocator's peak and all that CUDA reports used outside it (#9352), the context
     * with it; from 0.6.5 the peak and what grew outside it (#10511) */
    if (vl_is_vllm_v0(f)) {
        f->profile_counts = v == VL_VLLM_0_3_1 || v == VL_VLLM_0_5_3 ? VL_COUNTS_RESERVED
                            : v == VL_VLLM_0_6_4                    ? VL_COUNTS_CONTEXT
                                                                    : VL_COUNTS_INCREASE;
        return;
    }
    if (!f->sampler_triton) /* not the V1 engine's profile */
        return;
    const unsigned line = vl_vllm_line(v);
    /* V1's worker (vllm/v1/worker/gpu_worker.py, determine_available_memory) took off its
     * share the allocator's peak and, after empty_cache, all CUDA reported used beyond the
     * bytes PyTorch held, the context with it, until 0.9.1's memory snapshot counted what grew
     * outside PyTorch since the worker started (MemorySnapshot, memory_profiling) */
    if (line < 9 || v == VL_VLLM_0_9)
        f->profile_counts = VL_COUNTS_CONTEXT;
    /* The communicators (VLLM_V1_COMM): before 0.11 the worker measured its memory before it
     * made them, so the budget counts them whole, V0's figure; from 0.11.0 to 0.18 the
     * figures of vLLM 0.11.0's table of H100s (llm-d/llm-d-benchmark, config_explorer/
     * empirical-vllm-memory-results.md): Llama 3.3 70B in FP8 at -tp 2 started with 77.64 GiB
     * free where one GPU's runs had 78.57, 0.93 GiB made with them, and its memory outside
     * PyTorch ended 0.55 GiB where one GPU's ended 0.13, 0.42 more (0.40 for Qwen3 32B at -tp
     * 2): 1.35 GiB in all */
    if (line < 11) {
        f->comm_nvlink = VLLM_COMM_0_6_5;
        f->comm_nvlink_init = 0;
    } else if (line < 19) {
        f->comm_nvlink = 1449551462;      /* 1.35 GiB */
        f->comm_nvlink_init = 998579896;  /* 0.93 GiB */
    }
    /* V1's top-k/top-p sorted the vocabulary (apply_top_k_top_p_pytorch: logits.sort, then
     * softmax, cumsum and scatter back, vllm/v1/sample/ops/topk_topp_sampler.py) until the
     * Triton kernels of vllm pull request #33538 (February 2026): the 0.16.0 wheel has no
     * topk_topp_triton module, 0.17.0's has */
    if (line < 17) {
        f->sampler_triton = false;
        f->sampler_sort = true;
    }
    /* the V2 runner, the default for dense models from 0.25.0 ("Model Runner V2 is now the
     * default for all dense models", vllm pull request #44443) and for every model from
     * 0.29.0 (#53183); its profile run sampled with no parameters before 0.33.0 */
    if (line < 29 && f->model_runner == VL_RUNNER_V2)
        f->model_runner = line >= 25 ? VL_RUNNER_V2_DENSE : VL_RUNNER_V1;
    if (line < 33)
        f->profile_sampler_params = false;
    /* the CUDA graphs' estimate, logged but not taken off before 0.20.0 (envs.py,
     * VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS "0" in 0.19) */
    if (line < 20)
        f->graph_estimate = false;
    /* the extensible KV cache, the default on CUDA from 0.34.0 (vllm/config/cache.py,
     * enable_extensible_kv_cache): sized after warmup and capture, not from the profile
     * run's estimate */
    if (line < 34 && f->kv_sizing == VL_KV_EXTENSIBLE)
        f->kv_sizing = VL_KV_PROFILE;
}

bool vl_is_vllm(const vl_framework *f)
{
    return f->kv_sizing == VL_KV_PROFILE || f->kv_sizing == VL_KV_EXTENSIBLE;
}

bool vl_is_vllm_v0(const vl_framework *f)
{
    return vl_is_vllm(f) && f->model_runner == VL_RUNNER_V0;
}

bool vl_runs_v2(const vl_framework *f, bool moe)
{
    return f->model_runner == VL_RUNNER_V2 || (f->model_runner == VL_RUNNER_V2_DENSE && !moe);
}

void vl_framework_on_sampler(vl_framework *f, const vl_settings *s)
{
    /* the V1 engine's TopKTopPSampler as --sampler names it, over its release's: with
     * FlashInfer (forward_cuda, flashinfer_sample) no sort and no Triton buffer; FlashInfer's
     * top_k_top_p_sampling_from_logits masks the top-k logits into a new fp32 tensor and
     * softmaxes it (flashinfer/sampling.py): the two fp32 copies the profile's sampler_fp32
     * counts, where the other paths make the probabilities and the exponential noise
     * (vllm/v1/sample/ops/topk_topp_sampler.py, random_sample) */
    if (s->sampler == VL_SAMPLER_AUTO || !s->framework->sampler_triton)
        return;
    f->sampler_sort = s->sampler == VL_SAMPLER_SORT;
    f->sampler_triton = s->sampler == VL_SAMPLER_TRITON;
}

/* SGLang's chunked prefill and decode CUDA graphs' largest batch from 0.5.3: by the GPU's
 * memory, nvidia-smi's total in MiB, under four tensor-parallel GPUs and from four
 * (server_args.py, _handle_gpu_memory_settings; arg_groups/memory_hook.py,
 * handle_gpu_memory_settings from 0.5.19; 4096 and 160 where the memory is unknown); 0.5.20
 * raised the second row's from 2048 and 24 (80 from four GPUs) */
static const struct sglang_bucket {
    uint64_t below_mib, chunk, max_bs, max_bs_tp4;
} sglang_buckets[] = {
    {20 * 1024, 2048, 8, 8},       /* "T4, 4080" */
    {35 * 1024, 4096, 48, 160},    /* "A10, 4090, 5090" */
    {60 * 1024, 4096, 32, 160},    /* "A100 (40GB), L40" */
    {160 * 1024, 8192, 256, 512},  /* "H100, A100", "H20, H200" */
    {UINT64_MAX, 16384, 512, 512}, /* "B200, MI300" */
};

/* SGLang release line's chunked prefill and decode graphs' largest batch on a GPU of `mib`
 * MiB (0: unknown) at tensor parallelism tp.  Before 0.5.3 (server_args.py, __post_init__):
 * 8192 and 160 (0.3); under 25,000 MiB 2048 and 4 (0.3.6), 8 (80 from four GPUs; 0.4);
 * over 96 GiB a largest batch of 256 (0.4.6), over 180,000 MiB 16384 and 512 (0.4.7);
 * buckets from 0.4.7.post1 (sgl-project/sglang pull request #7054): under 35 GiB 2048 and 8
 * (80), under 160 GiB 8192, else 16384 (4096 unknown), and batches of 256 over 90 GiB, 512
 * over 160,000 MiB, else 160. */
static void sglang_defaults(vl_sglang line, uint64_t mib, uint64_t tp, uint64_t *chunk,
                            uint64_t *max_bs)
{
    const bool small = mib && mib < 25000, tp4 = tp >= 4;
    switch (line) {
    case VL_SGL_0_3:
        *chunk = 8192, *max_bs = 160;
        return;
    case VL_SGL_0_3_6:
        *chunk = small ? 2048 : 8192, *max_bs = small ? 4 : 160;
        return;
    case VL_SGL_0_4: case VL_SGL_0_4_6: case VL_SGL_0_4_7:
        if (line == VL_SGL_0_4_7 && mib > 180000) {
            *chunk = 16384, *max_bs = 512;
            return;
        }
        *chunk = small ? 2048 : 8192;
        *max_bs = small ? (tp4 ? 80 : 8) : line != VL_SGL_0_4 && mib > 96 * 1024 ? 256 : 160;
        return;
    case VL_SGL_0_4_8:
        *chunk = !mib ? 4096 : mib < 35 * 1024 ? 2048 : mib < 160 * 1024 ? 8192 : 16384;
        *max_bs = mib && mib < 35 * 1024 ? (tp4 ? 80 : 8)
                  : mib > 160000         ? 512
                  : mib > 90 * 1024      ? 256
                                         : 160;
        return;
    case VL_SGL_0_5_3: case VL_SGL_0_5_10: case VL_SGL_CURRENT: case VL_N_SGLANGS:
        break;
    }
    if (!mib) {
        *chunk = 4096, *max_bs = 160;
        return;
    }
    size_t i = 0;
    while (mib >= sglang_buckets[i].below_mib)
        i++;
    *chunk = sglang_buckets[i].chunk;
    *max_bs = tp4 ? sglang_buckets[i].max_bs_tp4 : sglang_buckets[i].max_bs;
    if (line != VL_SGL_CURRENT && i == 1) /* 20 to 35 GiB before 0.5.20 */
        *chunk = 2048, *max_bs = tp4 ? 80 : 24;
}

void vl_framework_on_gpu(vl_framework *f, const vl_settings *s, const vl_runtime *rt)
{
    if (f->kv_sizing == VL_KV_STATIC)
        sglang_defaults(s->sglang, rt->smi_memory >> 20, vl_infer_tp(s), &f->prefill_chunk,
                        &f->graph_batch);
    if (f->small_gpu_below && rt->memory &&
        (rt->memory < f->small_gpu_below || rt->arch == f->small_gpu_arch)) {
        f->prefill_chunk = f->small_prefill_chunk;
        f->profile_seqs = f->small_profile_seqs;
    }
    /* What the V1 engine's profile run added outside PyTorch before 0.19, whose figure the
     * profile holds (its "non-torch forward increase memory", measured from the worker's
     * start): 0.13 GiB on an H100 in vLLM 0.11.0, five runs at 0.13 and two at 0.14 GiB
     * (llm-d/llm-d-benchmark, config_explorer/empirical-vllm-memory-results.md); 0.02 GiB on
     * Ada and Ampere, a vLLM 0.10/0.11 log on an RTX 4090 (Qwen3-8B-FP8, September 2025,
     * quoted in a public notes file, "LLM inference_review") and the DEBUG log of a build
     * between 0.10.0 and 0.10.1 (0.1.dev8168) on a 48 GB GPU (Llama 3.2 1B, August 2025, in
     * a public notes file on lazy CUDA graphs).  The generations not measured take the
     * H100's, the larger. */
    if (vl_is_vllm(f) && !vl_is_vllm_v0(f) && vl_vllm_line(s->vllm) < 19)
        f->profile_non_torch = rt->arch == VL_ARCH_AMPERE || rt->arch == VL_ARCH_ADA
                                   ? 21474836   /* 0.02 GiB */
                                   : 139586437; /* 0.13 GiB */
}

/* How many prefill CUDA graphs SGLang captures for up to `most` tokens (arg_groups/
 * cuda_graph_hook.py, generate_prefill_cuda_graph_batch_sizes: every 4 tokens from 4 to 32,
 * 16 from 48 to 256, 32 from 288 to 512, 64 from 576 to 1024, 256 from 1280 to 4096, 512
 * from 4608). */
static uint64_t sglang_prefill_graphs(uint64_t most)
{
    static const struct { uint64_t from, to, step; } runs[] = {
        {4, 32, 4}, {48, 256, 16}, {288, 512, 32}, {576, 1024, 64}, {1280, 4096, 256},
        {4608, UINT64_MAX, 512},
    };
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++)
        if (most >= runs[i].from)
            n += ((most < runs[i].to ? most : runs[i].to) - runs[i].from) / runs[i].step + 1;
    return n;
}

/* SGLang's mem_fraction_static before mid-2025 by tensor (0.4.6 on: x pipeline) parallel
 * GPUs (server_args.py, __post_init__): 0.88 on one, 0.87 from two, 0.85 from four, from
 * eight 0.83 (0.3), 0.82 (0.3.6), 0.81 (0.4 on), 0.79 from sixteen. */
static uint64_t sglang_by_gpus(vl_sglang line, uint64_t n)
{
    if (n >= 16)
        return 790000;
    if (n >= 8)
        return line == VL_SGL_0_3 ? 830000 : line == VL_SGL_0_3_6 ? 820000 : 810000;
    return n >= 4 ? 850000 : n >= 2 ? 870000 : 880000;
}

/* Python's round(num / den, 3) in millionths, 0.001 at least, for num < den: half up (an
 * exact half, which a double may round either way, needs a rare memory size) */
static uint64_t sglang_round(uint64_t num, uint64_t den)
{
    const uint64_t thousandths = (num * 2000 + den) / (2 * den);
    return thousandths ? thousandths * 1000 : 1000;
}

uint64_t vl_sglang_fraction(const vl_framework *f, const vl_settings *s, const vl_runtime *rt)
{
    const uint64_t mib = rt->smi_memory >> 20, n = vl_infer_tp(s) * s->pp;
    const vl_sglang line = s->sglang;
    switch (line) {
    case VL_SGL_0_3: case VL_SGL_0_3_6: case VL_SGL_0_4:
        return sglang_by_gpus(line, vl_infer_tp(s));
    case VL_SGL_0_4_6: case VL_SGL_0_4_7: {
        /* 0.4.6.post2 to 0.4.7: the table up to 81,920 MiB, else 0.88; over 96 GiB
         * min(m + 48 GiB x (1 - m) / gpu_mem, (gpu_mem - 18 GiB) / gpu_mem), unrounded;
         * 0.79 over 180,000 MiB from 0.4.7 */
        if (line == VL_SGL_0_4_7 && mib > 180000)
            return 790000;
        double m = mib && mib <= 81920 ? (double)sglang_by_gpus(line, n) / VL_PPM : 0.88;
        if (mib > 96 * 1024) {
            const double grown = m + 48.0 * 1024 * (1 - m) / (double)mib,
                         kept = (double)(mib - 18 * 1024) / (double)mib;
            m = grown < kept ? grown : kept;
        }
        return (uint64_t)(m * VL_PPM + 0.5);
    }
    case VL_SGL_0_4_8: {
        /* reserved_mem by bucket (pull request #7054), in tenths of a MiB: (2.8 + n / 10)
         * GiB under 35 GiB, (9.5 + n / 2) under 90 GiB, (12 + n / 2) under 160 GiB, else 32
         * GiB; 0.88 where the memory is unknown */
        if (!mib)
            return 880000;
        const uint64_t tenths = mib < 35 * 1024    ? (28 + n) * 1024
                                : mib < 90 * 1024  ? (95 + 5 * n) * 1024
                                : mib < 160 * 1024 ? (120 + 5 * n) * 1024
                                                   : 320 * 1024;
        return tenths >= 10 * mib ? 1000 : sglang_round(10 * mib - tenths, 10 * mib);
    }
    case VL_SGL_0_5_3: case VL_SGL_0_5_10: case VL_SGL_CURRENT: case VL_N_SGLANGS:
        break;
    }
    /* from 0.5.3 (pull request #10975; handle_gpu_memory_settings in memory_hook.py from
     * 0.5.19): reserved_mem, in MiB, is 512 ("constant meta data ... + activation slack")
     * + 1.5 a token of the chunked prefill (2048 at least; max_prefill_tokens, 16384,
     * without chunking) + 1024 x tp x pp / 8 + the CUDA graphs' (2 a decode batch up to
     * max_bs; from 0.5.10, when prefill graphs came on by default, 8 a prefill graph size),
     * 10 GiB at least on GPUs over 60 GiB; mem_fraction_static = round((gpu_mem -
     * reserved_mem) / gpu_mem, 3); where the memory is unknown 0.88, 0.95 from 0.5.20.
     * Counted in half MiB, exactly. */
    if (!mib)
        return line == VL_SGL_CURRENT ? 950000 : 880000;
    const uint64_t tokens = f->prefill_chunk ? f->prefill_chunk : 16384;
    uint64_t half = 2 * 512 + 3 * (tokens > 2048 ? tokens : 2048) + 2 * 128 * n;
    if (f->cuda_graphs) {
        half += 2 * 2 * f->graph_batch;
        if (line != VL_SGL_0_5_3)
            half += 2 * 8 * sglang_prefill_graphs(f->prefill_chunk);
    }
    if (mib > 60 * 1024 && half < 2 * 10 * 1024)
        half = 2 * 10 * 1024;
    return half >= 2 * mib ? 1000 : sglang_round(2 * mib - half, 2 * mib);
}

void vl_framework_on_length(vl_framework *f, const vl_settings *s)
{
    /* the V0 engine's budget by release (vllm/engine/arg_utils.py, use_long_context;
     * vllm/config.py, SchedulerConfig): before 0.5.3 it chunked no prefill unless told, the
     * budget max(max_model_len, 2048) whatever the length; from 0.5.3 it chunked those of a
     * max_model_len over 32768, by 512 tokens until 0.6.4 ("the values that have the best
     * balance between ITL and TTFT on A100"), by 2048 from 0.6.5 (the profile's) */
    const bool v0 = vl_is_vllm_v0(f) && s->vllm != VL_VLLM_CURRENT;
    if (v0 && s->vllm == VL_VLLM_0_3_1)
        f->whole_prompt_upto = UINT64_MAX;
    const uint64_t len = s->seq + s->gen;
    if (s->mode != VL_MODE_INFER)
        return;
    if (f->whole_prompt_upto && len <= f->whole_prompt_upto) {
        if (len > f->prefill_chunk)
            f->prefill_chunk = len;
    } else if (v0 && s->vllm < VL_VLLM_0_6_5) {
        f->prefill_chunk = 512;
    }
}

uint64_t vl_settings_share(const vl_settings *s)
{
    return s->gpu_util ? s->gpu_util : s->framework->gpu_util;
}

bool vl_softmax_upcasts(const vl_framework *f, const vl_arch *a)
{
    return f->softmax_fp32 && !(f->transformers && !f->class_softmax_fp32 &&
                                a->eager_softmax == VL_SOFTMAX_INPUT);
}

bool vl_softmax_fused(const vl_framework *f, const vl_arch *a)
{
    return vl_softmax_upcasts(f, a) && f->transformers && !f->class_softmax_fp32 &&
           a->eager_softmax == VL_SOFTMAX_FUSED;
}

bool vl_sizes_kv(const vl_framework *f)
{
    return f->kv_sizing == VL_KV_STATIC ||
           (f->kv_sizing != VL_KV_NONE && f->profile_seqs); /* profile, extensible */
}

uint64_t vl_rope_tables_bytes(const vl_framework *f, const vl_arch *a, uint64_t layers,
                              unsigned bytes, bool *ovf)
{
    if (!f->rope_tables || a->position != VL_POS_ROPE)
        return 0;
    return vl_mul(vl_mul(vl_mul(layers, a->max_positions, ovf), a->head_dim, ovf), 2 * bytes,
                  ovf);
}

bool vl_grads_freed_in_step(const vl_framework *f, unsigned zero)
{
    return zero == 1 && f->zero_impl == VL_ZERO_DEEPSPEED && !f->ddp_bucket_view;
}

/* A parallel group that runs collectives: its GPUs, the stride between its ranks (the
 * groups nested inside it: tensor, then context, then data and expert parallel, as
 * Megatron-Core orders them) and the communicators it opens. */
typedef struct {
    uint64_t gpus, stride, communicators;
} comm_group;

static size_t comm_groups(const vl_settings *s, comm_group g[4])
{
    size_t n = 0;
    /* a serving engine's are its tensor-parallel group's: vLLM's logs of Llama 3.1 8B on 2
     * and 4 H100s in pipeline stages show no more outside PyTorch than on one GPU (0.07 GiB
     * against 0.25; jgchn/llm-d-planner, v0.19.0 logs); in training every parallel group
     * of two or more that runs collectives (tensor, data, context, expert) has its own
     * communicator, and pipeline stages only send to their neighbours */
    if (s->mode == VL_MODE_INFER) {
        if (vl_infer_tp(s) >= 2)
            g[n++] = (comm_group){vl_infer_tp(s), 1, 1};
        return n;
    }
    const uint64_t dp = vl_train_dp(s);
    if (s->tp >= 2)
        g[n++] = (comm_group){s->tp, 1, 1};
    if (s->cp >= 2)
        g[n++] = (comm_group){s->cp, s->tp, 1};
    if (dp >= 2)
        g[n++] = (comm_group){dp, s->tp * s->cp, s->framework->dp_communicators};
    if (s->ep >= 2)
        g[n++] = (comm_group){s->ep, s->tp * s->cp, 1};
    return n;
}

uint64_t vl_communicator_bytes(const vl_framework *f, const vl_settings *s,
                               const vl_runtime *rt, uint64_t *nvls, uint64_t *init)
{
    if (nvls)
        *nvls = 0;
    if (init)
        *init = 0;
    if (rt->overhead_given)
        return 0;
    const vl_link link = vl_link_of(s, rt);
    const uint64_t buffers = link == VL_LINK_NVLINK ? f->comm_nvlink : f->comm_pcie;
    const uint64_t made = link == VL_LINK_NVLINK ? f->comm_nvlink_init : 0;
    const uint64_t per_node = vl_gpus_per_node(s);
    comm_group g[4];
    uint64_t total = 0, sharp = 0, first = 0;
    for (size_t i = 0, n = comm_groups(s, g); i < n; i++) {
        /* the group's GPUs on one node: its ranks are stride apart */
        const uint64_t room = per_node / g[i].stride ? per_node / g[i].stride : 1;
        const uint64_t local = g[i].gpus < room ? g[i].gpus : room;
        const uint64_t each = f->nvls ? vl_nvls_bytes(s->torch, rt, link, local) : 0;
        total += g[i].communicators * (buffers + each);
        sharp += g[i].communicators * each;
        first += g[i].communicators * made;
    }
    if (nvls)
        *nvls = sharp;
    if (init)
        *init = first;
    return total;
}

unsigned vl_communicator_groups(const vl_settings *s)
{
    comm_group g[4];
    unsigned count = 0;
    for (size_t i = 0, n = comm_groups(s, g); i < n; i++)
        count += (unsigned)g[i].communicators;
    return count;
}

vl_link vl_link_of(const vl_settings *s, const vl_runtime *rt)
{
    if (s->interconnect != VL_LINK_AUTO)
        return s->interconnect;
    return rt->interconnect == VL_LINK_NVLINK ? VL_LINK_NVLINK : VL_LINK_PCIE;
}

void vl_framework_of(const vl_settings *s, const vl_runtime *rt, vl_framework *f)
{
    *f = *s->framework;
    vl_framework_on_gpu(f, s, rt);
    vl_framework_on_length(f, s);
    f->attention = s->attention;
    f->head = s->head;
    f->labels = s->labels;
    f->loss_dtype = s->loss_dtype;
    f->compute_dtype = s->compute_dtype;
    f->kv_block = s->kv_block;
    vl_framework_serve_as(f, s);
    /* the share: s's, else the profile's, else SGLang's rule for the run's chunk and
     * graphs, else all of it */
    f->gpu_util = vl_settings_share(s);
    if (!f->gpu_util)
        f->gpu_util = f->kv_sizing == VL_KV_STATIC ? vl_sglang_fraction(f, s, rt) : VL_PPM;
    vl_framework_on_releases(f, s);
    /* the flags that name a release's choice outright, over it */
    vl_framework_on_sampler(f, s);
    if (s->use_reentrant != VL_CHOICE_AUTO)
        f->checkpoint_reentrant = s->use_reentrant == VL_CHOICE_TRUE;
}

void vl_framework_serve_as(vl_framework *f, const vl_settings *s)
{
    if (s->prefill_chunk)
        f->prefill_chunk = s->prefill_chunk;
    if (s->profile_seqs)
        f->profile_seqs = s->profile_seqs;
}

void vl_framework_on_releases(vl_framework *f, const vl_settings *s)
{
    vl_framework_on_transformers(f, s->transformers);
    vl_framework_on_bitsandbytes(f, s->bitsandbytes);
    vl_framework_on_trl(f, s->trl);
    vl_framework_on_megatron(f, s->megatron);
    vl_framework_on_torch(f, s->torch);
    vl_framework_on_vllm(f, s->vllm);
    /* a padded micro-batch hands SDPA its padding mask, under which transformers repeats
     * K and V to the query heads at every release (integrations/sdpa_attention.py,
     * use_gqa_in_sdpa: enable_gqa only where attention_mask is None) */
    if (f->transformers && vl_settings_padded(s))
        f->kv_repeat = VL_KV_REPEAT_AFTER_ROPE;
}

void vl_settings_take_framework(vl_settings *s, const vl_framework *f)
{
    s->framework = f;
    s->attention = f->attention;
    s->loss_dtype = f->loss_dtype;
    s->compute_dtype = f->compute_dtype;
    s->gpu_util = f->gpu_util;
    s->kv_block = f->kv_block;
}

const vl_framework *vl_framework_find(const char *name)
{
    for (size_t i = 0; i < vl_n_frameworks; i++)
        if (strcmp(vl_frameworks[i].name, name) == 0)
            return &vl_frameworks[i];
    return NULL;
}

#define AT(field) offsetof(vl_framework, field), sizeof(((vl_framework *)0)->field)
#define ENUM(key, field, names, n) {key, VL_FIELD_ENUM, AT(field), names, n, 0, 0}
#define BOOL(key, field) {key, VL_FIELD_BOOL, AT(field), NULL, 0, 0, 1}
#define COUNT(key, field, lo, hi) {key, VL_FIELD_COUNT, AT(field), NULL, 0, lo, hi}
#define FRACTION(key, field, lo) {key, VL_FIELD_FRACTION, AT(field), NULL, 0, lo, VL_PPM}
const vl_framework_field vl_framework_fields[] = {
    BOOL("transformers", transformers),
    ENUM("attention", attention, vl_attention_names, VL_N_ATTENTIONS),
    BOOL("softmax_fp32", softmax_fp32),
    BOOL("softmax_saves_input", softmax_saves_input),
    BOOL("mean_saves_input", mean_saves_input),
    BOOL("norm_upcast", norm_upcast),
    BOOL("materialized_mask", materialized_mask),
    BOOL("fused_qkv", fused_qkv),
    ENUM("kv_repeat", kv_repeat, vl_kv_repeat_names, VL_N_KV_REPEATS),
    BOOL("v_views_qkv", v_views_qkv),
    BOOL("lora_qkv_pad", lora_qkv_pad),
    ENUM("gelu", gelu, vl_gelu_names, VL_N_GELUS),
    ENUM("head", head, vl_head_names, VL_N_HEADS),
    COUNT("labels", labels, 1, 1048576),
    ENUM("loss_dtype", loss_dtype, vl_loss_dtype_names, VL_N_LOSS_DTYPES),
    BOOL("loss_shift_copy", loss_shift_copy),
    BOOL("logits_cast_in_model", logits_cast_in_model),
    BOOL("shift_before_cast", shift_before_cast),
    ENUM("loss_in_place", loss_in_place, vl_loss_in_place_names, VL_N_LOSS_IN_PLACES),
    COUNT("loss_chunk", loss_chunk, 0, VL_MAX_SEQ),
    BOOL("prune_frozen_saves", prune_frozen_saves),
    BOOL("frozen_embeddings_grad", frozen_embeddings_grad),
    BOOL("nf4_keeps_input", nf4_keeps_input),
    BOOL("nf4_returns_input_dtype", nf4_returns_input_dtype),
    BOOL("qlora_adapters_fp32", qlora_adapters_fp32),
    BOOL("lora_adapters_fp32", lora_adapters_fp32),
    BOOL("qlora_bf16_embeddings", qlora_bf16_embeddings),
    BOOL("moe_expert_loop", moe_expert_loop),
    BOOL("moe_workspace_kept", moe_workspace_kept),
    BOOL("bnb_compute_cast", bnb_compute_cast),
    ENUM("compute_dtype", compute_dtype, vl_dtype_names, VL_N_COMPUTE_DTYPES),
    BOOL("bnb_quantize_head", bnb_quantize_head),
    BOOL("bnb_quant_fp16", bnb_quant_fp16),
    ENUM("optimizer_impl", optim_impl, vl_optim_impl_names, VL_N_OPTIM_IMPLS),
    BOOL("foreach_denom_copy", foreach_denom_copy),
    BOOL("trainer_optim", trainer_optim),
    BOOL("optimizer_state_lazy", optimizer_state_lazy),
    BOOL("grads_persistent", grads_persistent),
    BOOL("zero_grad_in_place", zero_grad_in_place),
    BOOL("grad_copy_at_step", grad_copy_at_step),
    BOOL("grad_copy_per_tensor", grad_copy_per_tensor),
    BOOL("zero_fp32_master", zero_fp32_master),
    BOOL("ddp_bucket_view", ddp_bucket_view),
    COUNT("ddp_bucket_bytes", ddp_bucket_bytes, 1, 1ULL << 40),
    COUNT("reduce_bucket", reduce_bucket, 1, 1ULL << 40),
    COUNT("prefetch_bucket", prefetch_bucket, 0, 1ULL << 40),
    ENUM("zero_impl", zero_impl, vl_zero_impl_names, VL_N_ZERO_IMPLS),
    BOOL("adapter_units", adapter_units),
    BOOL("checkpoint_reentrant", checkpoint_reentrant),
    BOOL("loop_keeps_logits", loop_keeps_logits),
    BOOL("use_cache", use_cache),
    BOOL("autocast", autocast),
    BOOL("outputs_to_fp32", outputs_to_fp32),
    BOOL("unties_embeddings", unties_embeddings),
    BOOL("fsdp_mixed_precision", fsdp_mixed_precision),
    ENUM("allocator", allocator, vl_allocator_names, VL_N_ALLOCATORS),
    BOOL("cublas_workspace_cached", cublas_workspace_cached),
    COUNT("comm_nvlink", comm_nvlink, 0, VL_MAX_OVERHEAD),
    COUNT("comm_pcie", comm_pcie, 0, VL_MAX_OVERHEAD),
    COUNT("comm_nvlink_init", comm_nvlink_init, 0, VL_MAX_OVERHEAD),
    COUNT("dp_communicators", dp_communicators, 1, 8),
    BOOL("nvls", nvls),
    COUNT("prefill_chunk", prefill_chunk, 0, VL_MAX_SEQ),
    BOOL("kv_preallocated", kv_preallocated),
    BOOL("prefill_logits_all", prefill_logits_all),
    BOOL("kv_step_copy", kv_step_copy),
    BOOL("step_outputs_held", step_outputs_held),
    BOOL("logits_clone_all", logits_clone_all),
    BOOL("kv_cache_views", kv_cache_views),
    BOOL("cuda_graphs", cuda_graphs),
    COUNT("graph_batch", graph_batch, 0, 1048576),
    BOOL("sampler_sort", sampler_sort),
    COUNT("sampler_fp32", sampler_fp32, 0, 16),
    BOOL("sampler_hidden", sampler_hidden),
    BOOL("sampler_triton", sampler_triton),
    ENUM("model_runner", model_runner, vl_model_runner_names, VL_N_MODEL_RUNNERS),
    BOOL("profile_sampler_params", profile_sampler_params),
    BOOL("graph_estimate", graph_estimate),
    BOOL("rope_cache", rope_cache),
    BOOL("rope_tables", rope_tables),
    BOOL("layer_input_held", layer_input_held),
    ENUM("kv_sizing", kv_sizing, vl_kv_sizing_names, VL_N_KV_SIZINGS),
    FRACTION("gpu_util", gpu_util, 0), /* 0: the engine's rule */
    COUNT("kv_block", kv_block, 0, VL_MAX_KV_BLOCK),
    COUNT("profile_seqs", profile_seqs, 0, VL_MAX_BATCH),
    COUNT("profile_non_torch", profile_non_torch, 0, VL_MAX_OVERHEAD),
    COUNT("small_gpu_below", small_gpu_below, 0, VL_MAX_OVERHEAD),
    ENUM("small_gpu_arch", small_gpu_arch, vl_gpu_arch_names, VL_N_GPU_ARCHS),
    COUNT("small_prefill_chunk", small_prefill_chunk, 0, VL_MAX_SEQ),
    COUNT("small_profile_seqs", small_profile_seqs, 0, VL_MAX_BATCH),
    COUNT("whole_prompt_upto", whole_prompt_upto, 0, VL_MAX_SEQ),
};
_Static_assert(sizeof vl_framework_fields / sizeof *vl_framework_fields == VL_N_FRAMEWORK_FIELDS,
               "VL_N_FRAMEWORK_FIELDS counts vl_framework_fields");
const size_t vl_n_framework_fields = VL_N_FRAMEWORK_FIELDS;
#undef AT
#undef ENUM
#undef BOOL
#undef COUNT
#undef FRACTION

static const char *const bool_names[2] = {"false", "true"};

bool vl_framework_set(vl_framework *f, const char *key, const char *value, char *err,
                      size_t len)
{
    const vl_framework_field *d = NULL;
    for (size_t i = 0; i < vl_n_framework_fields && !d; i++)
        if (strcmp(vl_framework_fields[i].key, key) == 0)
            d = &vl_framework_fields[i];
    if (!d) {
        snprintf(err, len, "unknown framework setting '%s'", key);
        return false;
    }
    char *field = (char *)f + d->offset;
    char list[256];
    int k;
    switch (d->kind) {
    case VL_FIELD_ENUM:
        if ((k = vl_lookup(d->names, d->n_names, value)) < 0) {
            snprintf(err, len, "%s: unknown value '%s' (expected %s)", key, value,
                     vl_join(d->names, (size_t)d->n_names, list, sizeof list));
            return false;
        }
        memcpy(field, &k, sizeof k); /* every vl_framework enum is an int-sized enum */
        return true;
    case VL_FIELD_BOOL:
        if ((k = vl_lookup(bool_names, 2, value)) < 0) {
            snprintf(err, len, "%s: unknown value '%s' (expected true or false)", key, value);
            return false;
        }
        *(bool *)field = k == 1;
        return true;
    case VL_FIELD_FRACTION: {
        const char *why;
        uint64_t v;
        if (!vl_parse_fraction(value, &v, &why) || v < d->min || v > d->max) {
            snprintf(err, len, "%s must be a fraction %s (0.9, 90%%)", key,
                     d->min ? "above 0 and at most 1" : "from 0 to 1");
            return false;
        }
        *(uint64_t *)field = v;
        return true;
    }
    case VL_FIELD_COUNT: {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (!*value || *end || errno || value[0] == '-' || v < d->min || v > d->max) {
            snprintf(err, len, "%s must be an integer between %llu and %llu", key,
                     (unsigned long long)d->min, (unsigned long long)d->max);
            return false;
        }
        *(uint64_t *)field = v;
        return true;
    }
    }
    return false;
}
