/* settings.h: what a run is (mode, precision, optimizer, parallelism, ...), one descriptor
 * per setting.
 *
 * Every front end reads the same table (HACKING §6): the command line's options and
 * --help, the YAML scenario reader and writer, the JSON settings, the explorer's sliders and
 * the man page's option list (checked by a test).  Enums and their names come from one
 * X-macro list each, so a value without a name cannot compile.  The validity rules live
 * here once (vl_settings_check, vl_settings_valid): both front ends refuse the same states. */
#ifndef VL_SETTINGS_H
#define VL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gguf.h"
#include "model.h"

/* ---- enums and their names, one list each -------------------------------------------- */

#define VL_ENUM_ID(id, name, ...) id,
#define VL_ENUM_NAME(id, name, ...) name,

#define VL_MODE_LIST(X) X(VL_MODE_TRAIN, "train") X(VL_MODE_INFER, "infer")
/* fp16, bf16: pure 16-bit.  *-mixed: 16-bit weights and an fp32 master copy in the optimizer
 * (Megatron-LM, DeepSpeed).  *-amp: PyTorch autocast, fp32 weights and 16-bit matmuls. */
#define VL_PRECISION_LIST(X)                                                                  \
    X(VL_FP32, "fp32") X(VL_FP16, "fp16") X(VL_BF16, "bf16") X(VL_FP16_MIXED, "fp16-mixed")   \
    X(VL_BF16_MIXED, "bf16-mixed") X(VL_FP16_AMP, "fp16-amp") X(VL_BF16_AMP, "bf16-amp")
/* An optimizer: its name, the label of its state in formulas, the rule in memory.c that
 * gives its state's bytes (HACKING §4.2), and whether that state follows each matrix's
 * shape (then it is modelled with data parallelism and full fine-tuning only).  Adding one
 * is a row here and its rule there. */
#define VL_OPTIMIZER_LIST(X)                                                                  \
    X(VL_ADAMW, "adamw", "AdamW m, v", adamw_state, false)                                    \
    X(VL_ADAM_8BIT, "adam-8bit", "8-bit Adam m, v", adam8bit_state, false)                    \
    X(VL_SGD_MOMENTUM, "sgd-momentum", "SGD momentum", momentum_state, false)                 \
    X(VL_SGD, "sgd", "SGD", sgd_state, false)                                                 \
    X(VL_LION, "lion", "Lion momentum", momentum_state, false)                                \
    X(VL_ADAFACTOR, "adafactor", "Adafactor", adafactor_state, true)                          \
    X(VL_ADAFACTOR_M, "adafactor-momentum", "Adafactor m", adafactor_m_state, true)           \
    X(VL_MUON, "muon", "Muon momentum", muon_state, true)
#define VL_RECOMPUTE_LIST(X)                                                                  \
    X(VL_RECOMPUTE_NONE, "none") X(VL_RECOMPUTE_SELECTIVE, "selective")                       \
    X(VL_RECOMPUTE_FULL, "full")
/* A framework's yes-or-no choice, set for a run or left to the framework (auto):
 * --use-reentrant, --fsdp-mixed-precision, --autocast. */
#define VL_CHOICE_LIST(X)                                                                     \
    X(VL_CHOICE_AUTO, "auto") X(VL_CHOICE_TRUE, "true") X(VL_CHOICE_FALSE, "false")
/* How long the training loop holds the logits the model returns: as its framework does
 * (auto); until the next forward returns, so the step before's (and its graph) live through
 * the forward (true); not the step before's (false: a run's first step, or a loop that reads
 * the loss alone, as the Trainer's compute_loss does; its framework's loop may still hold
 * the step's own through their backward); the step's own through their backward, dropped
 * before the next forward (backward: a step function whose local outputs go when it
 * returns). */
#define VL_KEEP_LOGITS_LIST(X)                                                                \
    X(VL_KEEP_LOGITS_AUTO, "auto") X(VL_KEEP_LOGITS_TRUE, "true")                            \
    X(VL_KEEP_LOGITS_FALSE, "false") X(VL_KEEP_LOGITS_BACKWARD, "backward")
/* Where the training loop calls optimizer.zero_grad(): beside the optimizer step or
 * before the forward (the Trainer's), or after the forward, before backward, so that the
 * step before's gradients live through the forward (--zero-grad). */
#define VL_ZERO_GRAD_LIST(X) X(VL_ZERO_GRAD_STEP, "step") X(VL_ZERO_GRAD_BACKWARD, "backward")
/* How an int4 or int8 checkpoint lays its weights out (--weight-format): symmetric, int4's
 * 16-bit scale a group (as compressed-tensors' W4A16 checkpoints) or int8's byte a weight;
 * gptq has a 16-bit scale and a zero point a group in either, awq (4 bits only) likewise;
 * under transformers both bring their kernels' buffers (inference.c's int4_dq_buffer and
 * quant_matmul). */
#define VL_WEIGHT_FORMAT_LIST(X)                                                              \
    X(VL_WFMT_SYMMETRIC, "symmetric") X(VL_WFMT_GPTQ, "gptq") X(VL_WFMT_AWQ, "awq")
/* ZeRO-Offload (Ren et al. 2021): the optimizer states, or with ZeRO-3 the weights too,
 * kept in CPU memory. */
#define VL_OFFLOAD_LIST(X)                                                                    \
    X(VL_OFFLOAD_NONE, "none") X(VL_OFFLOAD_OPTIMIZER, "optimizer") X(VL_OFFLOAD_PARAMS, "params")
/* The dtype QLoRA's packed 4-bit weights are stored in (bitsandbytes' Params4bit
 * quant_storage, a BitsAndBytesConfig's bnb_4bit_quant_storage): uint8 by default; a float,
 * which FSDP needs to shard them beside the model's other parameters, makes PEFT give the
 * layer's adapters that dtype (vl_adapters_fp32).  The bytes are the same in any. */
#define VL_QUANT_STORAGE_LIST(X)                                                              \
    X(VL_QS_UINT8, "uint8") X(VL_QS_BF16, "bf16") X(VL_QS_FP16, "fp16") X(VL_QS_FP32, "fp32")
/* The plain dtypes, each element `bits` wide (vl_dtype_bits): the KV cache takes the first
 * six; bnb4 and bnb4-dq are bitsandbytes' 4-bit weights (NF4 or FP4, the same bytes), with
 * an fp32 absmax a block of 64 or that absmax double-quantized (bnb_4bit_use_double_quant);
 * bnb8 its LLM.int8() weights (load_in_8bit), a byte each and an fp32 scale a row. */
#define VL_DTYPE_LIST(X)                                                                      \
    X(VL_DT_FP32, "fp32") X(VL_DT_FP16, "fp16") X(VL_DT_BF16, "bf16") X(VL_DT_FP8, "fp8")     \
    X(VL_DT_INT8, "int8") X(VL_DT_INT4, "int4") X(VL_DT_BNB4, "bnb4")                         \
    X(VL_DT_BNB4_DQ, "bnb4-dq") X(VL_DT_BNB8, "bnb8")
/* Inference weights take these and, after them, llama.cpp's quantized GGUF file types
 * (q4_k_m, q8_0, ...: gguf.h), whose bytes are not a width per element but blocks of a
 * tensor type, mixed per tensor, which gguf.c computes (vl_dtype_gguf tells them apart). */
#define VL_DT_GGUF_ID(id, name) VL_DT_GGUF_##id,
#define VL_DT_GGUF_NAME(id, name) name,

/* The attention kernel: eager keeps the s x s scores and probabilities for backward; sdpa
 * (PyTorch's scaled_dot_product_attention, flash or memory-efficient) and flash keep the
 * output and the row statistics only. */
#define VL_ATTENTIONS(X) X(VL_ATTN_EAGER, "eager") X(VL_ATTN_SDPA, "sdpa") X(VL_ATTN_FLASH, "flash")
/* lm: next-token logits over the vocabulary; cls: sequence classification (one row of
 * `labels` logits per sequence); mlm: BERT's masked-LM head (a transform, then the vocab) */
#define VL_HEADS(X) X(VL_HEAD_LM, "lm") X(VL_HEAD_CLS, "cls") X(VL_HEAD_MLM, "mlm")
/* the dtype cross-entropy reads: fp32 (the logits upcast first), the model's 16 bits, or
 * auto, the model class's own loss code at the transformers release (vl_framework_on_class):
 * fp32 where it upcasts, else the logits as the model returns them */
#define VL_LOSS_DTYPES(X)                                                                     \
    X(VL_LOSS_FP32, "fp32") X(VL_LOSS_BF16, "bf16") X(VL_LOSS_FP16, "fp16") X(VL_LOSS_AUTO, "auto")
/* A release list's third column: the day (yyyymmdd) its line's first release came out,
 * current's the day of its current_from release (releases.h, --as-of).  PyTorch's are its
 * release announcements' (pytorch.org/blog; RELEASE.md's cadence table gives the months);
 * transformers' the day conda-forge's transformers-feedstock bot took each release from
 * PyPI, hours after it came; bitsandbytes' and PEFT's their GitHub release tags'. */
/* PyTorch release lines (--torch): the ones before 2.2 differ from current ones in what
 * autograd keeps and how the optimizer steps (vl_framework_on_torch); 2.2 and later are as
 * current. */
#define VL_TORCH_LIST(X)                                                                      \
    X(VL_TORCH_CURRENT, "current", 20260121) X(VL_TORCH_1_8, "1.8", 20210304)                 \
    X(VL_TORCH_1_9, "1.9", 20210615) X(VL_TORCH_1_10, "1.10", 20211021)                       \
    X(VL_TORCH_1_11, "1.11", 20220310) X(VL_TORCH_1_12, "1.12", 20220628)                     \
    X(VL_TORCH_1_13, "1.13", 20221028) X(VL_TORCH_2_0, "2.0", 20230315)                       \
    X(VL_TORCH_2_1, "2.1", 20231004) X(VL_TORCH_2_2, "2.2", 20240130)                         \
    X(VL_TORCH_2_3, "2.3", 20240424) X(VL_TORCH_2_4, "2.4", 20240724)                         \
    X(VL_TORCH_2_5, "2.5", 20241017) X(VL_TORCH_2_6, "2.6", 20250129)                         \
    X(VL_TORCH_2_7, "2.7", 20250423) X(VL_TORCH_2_8, "2.8", 20250806)                         \
    X(VL_TORCH_2_9, "2.9", 20251015)
/* transformers release lines (--transformers), for the profiles whose models are
 * transformers' (hf, deepspeed): each before 5.0 differs from current ones in what its
 * modeling and Trainer code allocate (vl_framework_on_transformers).  4.31 (July 2023,
 * Llama 2) is the first whose allocations are modelled line by line, the ones before it
 * as 4.31 (vl_transformers_modelled) but for their days; current is 5.0 and later.
 * 4.25's day is 4.25.1's, the first of the line on PyPI. */
#define VL_TRANSFORMERS_LIST(X)                                                               \
    X(VL_TF_CURRENT, "current", 20260127) X(VL_TF_4_0, "4.0", 20201130)                       \
    X(VL_TF_4_1, "4.1", 20201217) X(VL_TF_4_2, "4.2", 20210113)                               \
    X(VL_TF_4_3, "4.3", 20210208) X(VL_TF_4_4, "4.4", 20210316)                               \
    X(VL_TF_4_5, "4.5", 20210406) X(VL_TF_4_6, "4.6", 20210512)                               \
    X(VL_TF_4_7, "4.7", 20210617) X(VL_TF_4_8, "4.8", 20210623)                               \
    X(VL_TF_4_9, "4.9", 20210722) X(VL_TF_4_10, "4.10", 20210831)                             \
    X(VL_TF_4_11, "4.11", 20210927) X(VL_TF_4_12, "4.12", 20211028)                           \
    X(VL_TF_4_13, "4.13", 20211209) X(VL_TF_4_14, "4.14", 20211215)                           \
    X(VL_TF_4_15, "4.15", 20211222) X(VL_TF_4_16, "4.16", 20220127)                           \
    X(VL_TF_4_17, "4.17", 20220303) X(VL_TF_4_18, "4.18", 20220406)                           \
    X(VL_TF_4_19, "4.19", 20220512) X(VL_TF_4_20, "4.20", 20220617)                           \
    X(VL_TF_4_21, "4.21", 20220727) X(VL_TF_4_22, "4.22", 20220915)                           \
    X(VL_TF_4_23, "4.23", 20221011) X(VL_TF_4_24, "4.24", 20221102)                           \
    X(VL_TF_4_25, "4.25", 20221202) X(VL_TF_4_26, "4.26", 20230125)                           \
    X(VL_TF_4_27, "4.27", 20230315) X(VL_TF_4_28, "4.28", 20230413)                           \
    X(VL_TF_4_29, "4.29", 20230510) X(VL_TF_4_30, "4.30", 20230608)                           \
    X(VL_TF_4_31, "4.31", 20230718) X(VL_TF_4_32, "4.32", 20230822)                           \
    X(VL_TF_4_33, "4.33", 20230905) X(VL_TF_4_34, "4.34", 20231003)                           \
    X(VL_TF_4_35, "4.35", 20231102) X(VL_TF_4_36, "4.36", 20231211)                           \
    X(VL_TF_4_37, "4.37", 20240122) X(VL_TF_4_38, "4.38", 20240221)                           \
    X(VL_TF_4_39, "4.39", 20240321) X(VL_TF_4_40, "4.40", 20240418)                           \
    X(VL_TF_4_41, "4.41", 20240517) X(VL_TF_4_42, "4.42", 20240627)                           \
    X(VL_TF_4_43, "4.43", 20240723) X(VL_TF_4_44, "4.44", 20240807)                           \
    X(VL_TF_4_45, "4.45", 20240926) X(VL_TF_4_46, "4.46", 20241024)                           \
    X(VL_TF_4_47, "4.47", 20241206) X(VL_TF_4_48, "4.48", 20250110)                           \
    X(VL_TF_4_49, "4.49", 20250217) X(VL_TF_4_50, "4.50", 20250321)                           \
    X(VL_TF_4_51, "4.51", 20250406) X(VL_TF_4_52, "4.52", 20250520)                           \
    X(VL_TF_4_53, "4.53", 20250626) X(VL_TF_4_54, "4.54", 20250725)                           \
    X(VL_TF_4_55, "4.55", 20250805) X(VL_TF_4_56, "4.56", 20250830)                           \
    X(VL_TF_4_57, "4.57", 20251003)
/* bitsandbytes release lines (--bitsandbytes), for QLoRA's 4-bit matmuls: 0.43.1 and earlier
 * keep a matmul's input for backward (vl_framework_on_bitsandbytes).  0.41 (July 2023, when
 * Linear4bit began to compute in its input's dtype) is the first modelled; current is
 * 0.43.2 and later. */
#define VL_BITSANDBYTES_LIST(X)                                                               \
    X(VL_BNB_CURRENT, "current", 20240723) X(VL_BNB_0_41, "0.41", 20230722)                   \
    X(VL_BNB_0_42, "0.42", 20240108) X(VL_BNB_0_43_0, "0.43.0", 20240308)                     \
    X(VL_BNB_0_43_1, "0.43.1", 20240411)
/* vLLM release lines (--vllm), in order, each up to the next.  Before 0.8, the V0 engine's
 * (the vllm-v0 profile): how its profile run counts what it takes (vl_framework_on_vllm),
 * 0.3.1 to 0.6.3, 0.6.4, and 0.6.5 on, its prefill budget (vl_framework_on_length),
 * 0.3.1 to 0.5.2, 0.5.3 to 0.6.4, and 0.6.5 on, and its MLA backend's absorbed matrices,
 * 0.7.1 to 0.7.3 (vl_mla_absorbed_bytes).  From 0.8 (V1 the default), the V1
 * engine's (the vllm profile): the sampler, the model runner, the profile run (0.9.1, a
 * patch line, is where its worker stopped counting the CUDA context) and the CUDA graph
 * estimate by release, the share of each GPU (vl_settings_on_vllm); current is the
 * newest, 0.34 (VL_VLLM_NEWEST), and carries 0.34's day.  Each line's day is its first
 * release's upload to PyPI (pypi.org/pypi/vllm/json). */
#define VL_VLLM_LIST(X)                                                                       \
    X(VL_VLLM_CURRENT, "current", 20261116) X(VL_VLLM_0_3_1, "0.3.1", 20240217)               \
    X(VL_VLLM_0_5_3, "0.5.3", 20240723) X(VL_VLLM_0_6_4, "0.6.4", 20241115)                   \
    X(VL_VLLM_0_6_5, "0.6.5", 20241218) X(VL_VLLM_0_7_1, "0.7.1", 20250201)                   \
    X(VL_VLLM_0_8, "0.8", 20250318)                                                           \
    X(VL_VLLM_0_9, "0.9", 20250528) X(VL_VLLM_0_9_1, "0.9.1", 20250610)                       \
    X(VL_VLLM_0_10, "0.10", 20250725)                                                         \
    X(VL_VLLM_0_11, "0.11", 20251004) X(VL_VLLM_0_12, "0.12", 20251203)                       \
    X(VL_VLLM_0_13, "0.13", 20251219) X(VL_VLLM_0_14, "0.14", 20260120)                       \
    X(VL_VLLM_0_15, "0.15", 20260129) X(VL_VLLM_0_16, "0.16", 20260226)                       \
    X(VL_VLLM_0_17, "0.17", 20260307) X(VL_VLLM_0_18, "0.18", 20260320)                       \
    X(VL_VLLM_0_19, "0.19", 20260403) X(VL_VLLM_0_20, "0.20", 20260427)                       \
    X(VL_VLLM_0_21, "0.21", 20260515) X(VL_VLLM_0_22, "0.22", 20260529)                       \
    X(VL_VLLM_0_23, "0.23", 20260613) X(VL_VLLM_0_24, "0.24", 20260630)                       \
    X(VL_VLLM_0_25, "0.25", 20260711) X(VL_VLLM_0_26, "0.26", 20260725)                       \
    X(VL_VLLM_0_27, "0.27", 20260810) X(VL_VLLM_0_28, "0.28", 20260826)                       \
    X(VL_VLLM_0_29, "0.29", 20260909) X(VL_VLLM_0_30, "0.30", 20260922)                       \
    X(VL_VLLM_0_31, "0.31", 20261005) X(VL_VLLM_0_32, "0.32", 20261018)                       \
    X(VL_VLLM_0_33, "0.33", 20261102) X(VL_VLLM_0_34, "0.34", 20261116)
/* SGLang release lines (--sglang), for the sglang profile, in order: its default
 * mem_fraction_static, chunked prefill and decode CUDA graphs (vl_framework_on_gpu,
 * vl_sglang_fraction).  A line stands for the releases from it to the next (0.4.8 for
 * 0.4.7.post1 on, and its day); 0.3 is the first modelled; current is 0.5.20 and later.
 * Each line's day is its first release's upload to PyPI (pypi.org/pypi/sglang/json). */
#define VL_SGLANG_LIST(X)                                                                     \
    X(VL_SGL_CURRENT, "current", 20260918) X(VL_SGL_0_3, "0.3", 20240903)                     \
    X(VL_SGL_0_3_6, "0.3.6", 20241122) X(VL_SGL_0_4, "0.4", 20241203)                         \
    X(VL_SGL_0_4_6, "0.4.6", 20250427) X(VL_SGL_0_4_7, "0.4.7", 20250610)                     \
    X(VL_SGL_0_4_8, "0.4.8", 20250616) X(VL_SGL_0_5_3, "0.5.3", 20251006)                     \
    X(VL_SGL_0_5_10, "0.5.10", 20260405)
/* The V1 engine's top-k/top-p (--sampler): auto is the release's (vl_framework_on_vllm);
 * sort, PyTorch's (apply_top_k_top_p: the vocabulary sorted); triton, the in-place kernels
 * of 0.17; flashinfer, FlashInfer's sampling kernels, which vLLM took whenever FlashInfer
 * was installed from 0.9.0 to 0.11.0 and takes when VLLM_USE_FLASHINFER_SAMPLER=1
 * (vl_framework_on_sampler). */
#define VL_SAMPLER_LIST(X)                                                                    \
    X(VL_SAMPLER_AUTO, "auto") X(VL_SAMPLER_SORT, "sort") X(VL_SAMPLER_TRITON, "triton")     \
    X(VL_SAMPLER_FLASHINFER, "flashinfer")
/* trl release lines (--trl), for its SFTTrainer over the profiles whose models are
 * transformers' (hf, deepspeed): from 0.7.5 to 0.21 it cast a 4-bit model's embeddings and
 * head back to bf16 under bf16 autocast (vl_framework_on_trl).  current is 0.22 and later,
 * and a run without trl. */
/* PEFT release lines (--peft), for LoRA under the profiles that train through it
 * (lora_adapters_fp32): from 0.12 its autocast_adapter_dtype makes a 16-bit layer's adapters
 * fp32 (pull request #1706).  0.11 stands for every release before; current is 0.12 and
 * later. */
#define VL_PEFT_LIST(X) X(VL_PEFT_CURRENT, "current", 20240724) X(VL_PEFT_0_11, "0.11", 20240516)
/* Megatron-Core release lines (--megatron), for a profile whose loss is Megatron's
 * vocab-parallel cross-entropy (loss_in_place): before 0.8 it subtracted the maximum out of
 * place, the softmax in a second fp32 tensor beside the copy of the logits it read
 * (vl_framework_on_megatron).  A line is a minor release, 0.1 the first on PyPI; current is
 * 0.8 and later.  Each line's day is its first upload to PyPI
 * (pypi.org/pypi/megatron-core/json). */
#define VL_MEGATRON_LIST(X)                                                                   \
    X(VL_MEG_CURRENT, "current", 20240813) X(VL_MEG_0_1, "0.1", 20230511)                     \
    X(VL_MEG_0_2, "0.2", 20230615) X(VL_MEG_0_3, "0.3", 20231018)                             \
    X(VL_MEG_0_4, "0.4", 20231213) X(VL_MEG_0_5, "0.5", 20240225)                             \
    X(VL_MEG_0_6, "0.6", 20240419) X(VL_MEG_0_7, "0.7", 20240605)
#define VL_TRL_LIST(X)                                                                        \
    X(VL_TRL_CURRENT, "current") X(VL_TRL_0_8, "0.8") X(VL_TRL_0_9, "0.9")                    \
    X(VL_TRL_0_10, "0.10") X(VL_TRL_0_11, "0.11") X(VL_TRL_0_12, "0.12")                      \
    X(VL_TRL_0_13, "0.13") X(VL_TRL_0_14, "0.14") X(VL_TRL_0_15, "0.15")                      \
    X(VL_TRL_0_16, "0.16") X(VL_TRL_0_17, "0.17") X(VL_TRL_0_18, "0.18")                      \
    X(VL_TRL_0_19, "0.19") X(VL_TRL_0_20, "0.20") X(VL_TRL_0_21, "0.21")
/* CUDA releases (--cuda): the one PyTorch was built with (torch.version.cuda), which decides
 * the context (vl_cuda_context_bytes: before 11.7 every kernel loads with it).  current is
 * 13.0 and later; auto, the default, is the CUDA of --torch's wheel on PyPI
 * (vl_settings_cuda). */
#define VL_CUDA_LIST(X)                                                                       \
    X(VL_CUDA_CURRENT, "current") X(VL_CUDA_10_2, "10.2") X(VL_CUDA_11_0, "11.0")             \
    X(VL_CUDA_11_1, "11.1") X(VL_CUDA_11_2, "11.2") X(VL_CUDA_11_3, "11.3")                   \
    X(VL_CUDA_11_4, "11.4") X(VL_CUDA_11_5, "11.5") X(VL_CUDA_11_6, "11.6")                   \
    X(VL_CUDA_11_7, "11.7") X(VL_CUDA_11_8, "11.8") X(VL_CUDA_12_0, "12.0")                   \
    X(VL_CUDA_12_1, "12.1") X(VL_CUDA_12_2, "12.2") X(VL_CUDA_12_3, "12.3")                   \
    X(VL_CUDA_12_4, "12.4") X(VL_CUDA_12_5, "12.5") X(VL_CUDA_12_6, "12.6")                   \
    X(VL_CUDA_12_8, "12.8") X(VL_CUDA_12_9, "12.9") X(VL_CUDA_AUTO, "auto")
/* How a run's GPUs reach each other (--interconnect): auto is the GPU preset's; pcie
 * through the host's PCIe switches; nvlink over NVLink or NVSwitch, where the frameworks'
 * communicators open more channels and a serving engine adds its own all-reduce buffers
 * (vl_communicator_bytes). */
#define VL_LINKS(X) X(VL_LINK_AUTO, "auto") X(VL_LINK_PCIE, "pcie") X(VL_LINK_NVLINK, "nvlink")
/* The built-in framework profiles (framework.c): what the framework chooses for the user. */
#define VL_FRAMEWORK_LIST(X)                                                                  \
    X(VL_FW_PYTORCH, "pytorch") X(VL_FW_HF, "hf") X(VL_FW_MEGATRON, "megatron")              \
    X(VL_FW_DEEPSPEED, "deepspeed") X(VL_FW_VLLM, "vllm") X(VL_FW_VLLM_V0, "vllm-v0")       \
    X(VL_FW_LITGPT, "litgpt") X(VL_FW_SGLANG, "sglang")

typedef enum { VL_MODE_LIST(VL_ENUM_ID) VL_N_MODES } vl_mode;
typedef enum { VL_ATTENTIONS(VL_ENUM_ID) VL_N_ATTENTIONS } vl_attention;
typedef enum { VL_HEADS(VL_ENUM_ID) VL_N_HEADS } vl_head;
typedef enum { VL_LOSS_DTYPES(VL_ENUM_ID) VL_N_LOSS_DTYPES } vl_loss_dtype;
typedef enum { VL_TORCH_LIST(VL_ENUM_ID) VL_N_TORCHES } vl_torch;
typedef enum { VL_TRANSFORMERS_LIST(VL_ENUM_ID) VL_N_TRANSFORMERS } vl_transformers;
typedef enum { VL_BITSANDBYTES_LIST(VL_ENUM_ID) VL_N_BITSANDBYTES } vl_bitsandbytes;
typedef enum { VL_FRAMEWORK_LIST(VL_ENUM_ID) VL_N_FRAMEWORKS } vl_framework_id;
typedef enum { VL_LINKS(VL_ENUM_ID) VL_N_LINKS } vl_link;
typedef enum { VL_VLLM_LIST(VL_ENUM_ID) VL_N_VLLMS } vl_vllm;
typedef enum { VL_SGLANG_LIST(VL_ENUM_ID) VL_N_SGLANGS } vl_sglang;
typedef enum { VL_SAMPLER_LIST(VL_ENUM_ID) VL_N_SAMPLERS } vl_sampler;
typedef enum { VL_TRL_LIST(VL_ENUM_ID) VL_N_TRLS } vl_trl;
typedef enum { VL_MEGATRON_LIST(VL_ENUM_ID) VL_N_MEGATRONS } vl_megatron;
typedef enum { VL_PEFT_LIST(VL_ENUM_ID) VL_N_PEFTS } vl_peft;
typedef enum { VL_CUDA_LIST(VL_ENUM_ID) VL_N_CUDAS } vl_cuda;
typedef enum { VL_PRECISION_LIST(VL_ENUM_ID) VL_N_PRECISIONS } vl_precision;
typedef enum { VL_OPTIMIZER_LIST(VL_ENUM_ID) VL_N_OPTIMIZERS } vl_optimizer;
typedef enum { VL_RECOMPUTE_LIST(VL_ENUM_ID) VL_N_RECOMPUTES } vl_recompute;
typedef enum { VL_CHOICE_LIST(VL_ENUM_ID) VL_N_CHOICES } vl_choice;
typedef enum { VL_KEEP_LOGITS_LIST(VL_ENUM_ID) VL_N_KEEP_LOGITS } vl_keep_logits;
typedef enum { VL_ZERO_GRAD_LIST(VL_ENUM_ID) VL_N_ZERO_GRADS } vl_zero_grad;
typedef enum { VL_OFFLOAD_LIST(VL_ENUM_ID) VL_N_OFFLOADS } vl_offload;
typedef enum { VL_QUANT_STORAGE_LIST(VL_ENUM_ID) VL_N_QUANT_STORAGES } vl_quant_storage;
typedef enum { VL_WEIGHT_FORMAT_LIST(VL_ENUM_ID) VL_N_WEIGHT_FORMATS } vl_weight_format;
typedef enum {
    VL_DTYPE_LIST(VL_ENUM_ID) VL_GGUF_QUANT_FTYPES(VL_DT_GGUF_ID) VL_N_DTYPES
} vl_dtype;
#define VL_N_PLAIN_DTYPES (VL_DT_BNB8 + 1)
#define VL_N_KV_DTYPES (VL_DT_INT4 + 1)
#define VL_N_COMPUTE_DTYPES (VL_DT_BF16 + 1) /* fp32, fp16, bf16 */
/* Whether d is a GGUF file type, and which (*ft may be NULL). */
bool vl_dtype_gguf(vl_dtype d, vl_gguf_ftype *ft);
/* Whether d is bitsandbytes' 4-bit (bnb4, bnb4-dq); whether d quantizes only the layers'
 * matrices, the embeddings and the rest staying 16-bit (fp8, int8, int4, bnb4, bnb4-dq). */
bool vl_dtype_bnb4(vl_dtype d);
bool vl_dtype_quantized(vl_dtype d);

/* Names as the command line, JSON and presets spell them, indexed by the enums above. */
extern const char *const vl_mode_names[VL_N_MODES];
extern const char *const vl_attention_names[VL_N_ATTENTIONS];
extern const char *const vl_head_names[VL_N_HEADS];
extern const char *const vl_loss_dtype_names[VL_N_LOSS_DTYPES];
extern const char *const vl_torch_names[VL_N_TORCHES];
extern const char *const vl_transformers_names[VL_N_TRANSFORMERS];
extern const char *const vl_bitsandbytes_names[VL_N_BITSANDBYTES];
extern const char *const vl_framework_names[VL_N_FRAMEWORKS];
extern const char *const vl_link_names[VL_N_LINKS];
extern const char *const vl_vllm_names[VL_N_VLLMS];
extern const char *const vl_sglang_names[VL_N_SGLANGS];
extern const char *const vl_sampler_names[VL_N_SAMPLERS];
extern const char *const vl_choice_names[VL_N_CHOICES];
extern const char *const vl_keep_logits_names[VL_N_KEEP_LOGITS];
extern const char *const vl_zero_grad_names[VL_N_ZERO_GRADS];
extern const char *const vl_weight_format_names[VL_N_WEIGHT_FORMATS];
extern const char *const vl_trl_names[VL_N_TRLS];
extern const char *const vl_megatron_names[VL_N_MEGATRONS];
extern const char *const vl_peft_names[VL_N_PEFTS];
extern const char *const vl_cuda_names[VL_N_CUDAS];
/* c as major * 100 + minor (12.4 is 1204; current is 1300), of a release, not auto */
unsigned vl_cuda_number(vl_cuda c);
/* The line whose allocations stand for v's: 4.31 for the lines before it. */
vl_transformers vl_transformers_modelled(vl_transformers v);
extern const char *const vl_precision_names[VL_N_PRECISIONS];
extern const char *const vl_optimizer_names[VL_N_OPTIMIZERS];
extern const char *const vl_optimizer_labels[VL_N_OPTIMIZERS];
extern const bool vl_optimizer_shaped[VL_N_OPTIMIZERS];
extern const char *const vl_recompute_names[VL_N_RECOMPUTES];
extern const char *const vl_dtype_names[VL_N_DTYPES];
extern const char *const vl_offload_names[VL_N_OFFLOADS];
extern const char *const vl_quant_storage_names[VL_N_QUANT_STORAGES];

/* ---- the settings -------------------------------------------------------------------- */

typedef struct vl_settings {
    vl_mode mode;
    /* the framework: its profile (framework.h), a built-in or a catalog's framework preset
     * (which outlives the settings), and the choices it makes that a flag may override */
    const struct vl_framework *framework;
    vl_attention attention;
    vl_head head;
    uint64_t labels;       /* head cls: classes */
    vl_loss_dtype loss_dtype;
    uint32_t as_of;        /* the day the releases were taken on (releases.h), or current */
    vl_torch torch;        /* the PyTorch release the framework runs on */
    vl_transformers transformers; /* the transformers release, for profiles that use it */
    vl_bitsandbytes bitsandbytes; /* the bitsandbytes release under QLoRA */
    vl_vllm vllm;          /* the vLLM release under the V1 engine's profile */
    vl_sampler sampler;    /* the V1 engine's top-k/top-p implementation (auto: the release's) */
    vl_sglang sglang;      /* the SGLang release under the sglang profile */
    vl_peft peft;          /* the PEFT release whose LoRA trains, for profiles that use it */
    vl_trl trl;            /* the trl release whose SFTTrainer trains, for profiles that
                            * use transformers */
    vl_megatron megatron;  /* the Megatron-Core release, for a profile with Megatron's loss */
    vl_cuda cuda;          /* the CUDA release PyTorch was built with */
    vl_precision precision;
    vl_optimizer optimizer;
    bool paged_optimizer;  /* bitsandbytes' paged variant: states in CUDA managed memory */
    bool fp32_grads;       /* gradients kept in fp32 (Megatron main grads) */
    bool fp32_grad_copy;   /* count an fp32 gradient copy in the optimizer states */
    unsigned zero;         /* 0..3 */
    uint64_t gpus, batch, seq, gen;
    vl_recompute recompute;
    /* full recompute's torch.utils.checkpoint (a Trainer's gradient_checkpointing_kwargs
     * use_reentrant): true reruns a layer's forward from a detached copy of its input, false
     * through saved-tensor hooks */
    vl_choice use_reentrant;
    /* FSDP under autocast gathers the parameters in the autocast dtype (MixedPrecision's
     * param_dtype) */
    vl_choice fsdp_mixed_precision;
    /* training: how long the loop holds the logits (VL_KEEP_LOGITS_LIST); auto is the
     * framework's loop_keeps_logits */
    vl_keep_logits loop_keeps_logits;
    /* training: an RMSNorm computes in fp32 and keeps its input upcast; auto is the
     * framework's norm_upcast */
    vl_choice norm_upcast;
    /* training: a transformers model runs with use_cache (its outputs hold every layer's K
     * and V until the loss is read); auto is the framework's use_cache */
    vl_choice use_cache;
    /* training under autocast: the model's forward returns its 16-bit outputs cast to fp32
     * (accelerate's convert_outputs_to_fp32, as the Trainer prepares the model); auto is
     * the framework's outputs_to_fp32 */
    vl_choice outputs_fp32;
    /* training: a 16-bit model's step runs under torch.autocast (a Trainer's bf16 or fp16
     * flag); auto is the framework's autocast (-amp precisions always do) */
    vl_choice autocast;
    /* training: the micro-batch is padded to its longest sequence, so that transformers
     * hands SDPA a padding mask; auto: when it has more than one sequence */
    vl_choice padded;
    vl_dtype weight_dtype, kv_dtype; /* inference */
    uint64_t group_size;   /* inference, int4 or GPTQ: weights per 16-bit scale */
    vl_weight_format weight_format; /* inference, int4 or int8: the checkpoint's layout */
    bool exllama;          /* inference, 4-bit GPTQ under transformers: exllama's kernel */
    uint64_t exllama_version; /* its exllama_config version, 1 or 2 */
    vl_dtype compute_dtype; /* inference, bnb4: bnb_4bit_compute_dtype (fp32, fp16, bf16) */
    uint64_t overhead;     /* bytes */
    /* training: LoRA adapters (Hu et al. 2021) of rank lora_rank (0 = full fine-tuning) on
     * the matrices in lora_targets (a vl_lora_target mask); qlora: the frozen base layers'
     * matrices in NF4 (Dettmers et al. 2023), their block scales double-quantized unless
     * double_quant is off, packed in quant_storage */
    uint64_t lora_rank;
    unsigned lora_targets;
    uint64_t lora_dropout; /* PEFT's lora_dropout on each adapter's input, in millionths */
    bool qlora, double_quant;
    vl_quant_storage quant_storage;
    vl_offload offload;       /* training */
    /* training: tensor parallel tp, pipeline parallel pp (1F1B), sequence parallel sp;
     * data parallel = gpus / (tp x pp); grad_accum micro-batches per step */
    uint64_t tp, pp, grad_accum;
    bool sp;
    vl_zero_grad zero_grad;   /* training: where the loop calls zero_grad */
    uint64_t gpus_per_node;   /* for CPU memory per node (at most gpus count); 0 = the
                               * default, VL_DEFAULT_GPUS_PER_NODE */
    /* training: step time (steptime.h): the model FLOPs utilisation in millionths of the
     * GPU's dense peak for the precision, and a token budget (0 = none) */
    uint64_t mfu, tokens;
    /* training: expert parallel: the routed experts split over ep of the data-parallel GPUs
     * (Megatron-Core's MoE layout) */
    uint64_t ep;
    /* training: context parallel: each sequence split over cp GPUs along its tokens, the
     * keys and values passed round them (Megatron-Core's context parallelism) */
    uint64_t cp;
    /* training: interleaved 1F1B: each pipeline stage's layers in vpp model chunks
     * (Megatron's virtual pipeline stages; 1 = plain 1F1B) */
    uint64_t vpp;
    /* inference: serving capacity: the fraction of each GPU's memory the engine may use, in
     * millionths, and the paged KV cache's block in tokens (0 = one contiguous cache) */
    uint64_t gpu_util, kv_block;
    /* inference: a serving engine's prompt tokens a step (vLLM's max_num_batched_tokens) and
     * the sequences its profile run shares them over (max_num_seqs); 0 = the framework's
     * defaults for the GPU (vl_framework_of) */
    uint64_t prefill_chunk, profile_seqs;
    /* bytes of memory each GPU has, in place of the GPU preset's (0 = the preset's): a MIG
     * slice, a card the catalog lacks, what another process leaves */
    uint64_t capacity;
    /* how the GPUs are linked, in place of the GPU preset's (auto = the preset's) */
    vl_link interconnect;
    /* inference: bytes of each GPU's weights kept in pinned CPU memory and read over the host
     * link at every forward (vLLM's --cpu-offload-gb, per GPU; 0 = none) */
    uint64_t cpu_offload;
} vl_settings;

/* The weights carry a 16-bit scale a group of group_size: int4's, or int8's in GPTQ's
 * format. */
bool vl_weight_groups(const vl_settings *s);
/* s's CUDA release: --cuda's, or under auto its --torch's wheel's */
vl_cuda vl_settings_cuda(const vl_settings *s);

/* Limits of what is accepted (on the command line, in presets and typed in the explorer). */
#define VL_MAX_GPUS  1048576ULL
#define VL_MAX_BATCH 1048576ULL
#define VL_MAX_SEQ   16777216ULL
#define VL_MAX_LORA_RANK 65536ULL
#define VL_MAX_GRAD_ACCUM 1048576ULL
#define VL_MAX_GROUP 65536ULL
#define VL_MAX_OVERHEAD (1ULL << 46) /* 64 TiB, as a GPU's memory */
#define VL_MIN_CAPACITY (1ULL << 30) /* 1 GiB */
#define VL_DEFAULT_GPUS_PER_NODE 8ULL /* a DGX or HGX node */
#define VL_MAX_LABELS 1048576ULL
#define VL_MAX_TOKENS 1000000000000000000ULL /* 10^18 tokens */
#define VL_MAX_KV_BLOCK 65536ULL

/* ---- one descriptor per setting ----------------------------------------------------- */

/* The settings in the order JSON, scenario files and the explorer list them.  X(id, key):
 * key is the YAML and JSON name; the descriptor in settings.c says the rest. */
#define VL_SETTING_LIST(X)                                                                    \
    X(VL_SET_MODE, "mode") X(VL_SET_PRECISION, "precision") X(VL_SET_OPTIMIZER, "optimizer")  \
    X(VL_SET_PAGED_OPTIMIZER, "paged_optimizer") X(VL_SET_ZERO, "zero")                        \
    X(VL_SET_GPUS, "gpus") X(VL_SET_BATCH, "batch")                                           \
    X(VL_SET_SEQ, "seq") X(VL_SET_GEN, "gen") X(VL_SET_RECOMPUTE, "recompute")                \
    X(VL_SET_USE_REENTRANT, "use_reentrant")                                                  \
    X(VL_SET_ATTENTION, "attention") X(VL_SET_FP32_GRADS, "fp32_grads")                       \
    X(VL_SET_FP32_GRAD_COPY, "fp32_grad_copy") X(VL_SET_WEIGHT_DTYPE, "weight_dtype")         \
    X(VL_SET_KV_DTYPE, "kv_dtype") X(VL_SET_GROUP_SIZE, "group_size")                         \
    X(VL_SET_WEIGHT_FORMAT, "weight_format") X(VL_SET_EXLLAMA, "exllama")                     \
    X(VL_SET_EXLLAMA_VERSION, "exllama_version") X(VL_SET_COMPUTE_DTYPE, "compute_dtype")     \
    X(VL_SET_OVERHEAD, "overhead") X(VL_SET_LORA_RANK, "lora_rank")                           \
    X(VL_SET_LORA_TARGETS, "lora_targets") X(VL_SET_LORA_DROPOUT, "lora_dropout")             \
    X(VL_SET_QLORA, "qlora") X(VL_SET_DOUBLE_QUANT, "double_quant")                          \
    X(VL_SET_QUANT_STORAGE, "quant_storage")                                                  \
    X(VL_SET_OFFLOAD, "offload") X(VL_SET_FSDP_MIXED_PRECISION, "fsdp_mixed_precision")      \
    X(VL_SET_LOOP_KEEPS_LOGITS, "loop_keeps_logits") X(VL_SET_NORM_UPCAST, "norm_upcast")     \
    X(VL_SET_USE_CACHE, "use_cache") X(VL_SET_OUTPUTS_FP32, "outputs_fp32")                 \
    X(VL_SET_AUTOCAST, "autocast") X(VL_SET_PADDED, "padded")                                \
    X(VL_SET_GPUS_PER_NODE, "gpus_per_node") X(VL_SET_TP, "tp")                               \
    X(VL_SET_PP, "pp") X(VL_SET_SP, "sp") X(VL_SET_GRAD_ACCUM, "grad_accum")                  \
    X(VL_SET_ZERO_GRAD, "zero_grad")                                                          \
    X(VL_SET_FRAMEWORK, "framework") X(VL_SET_AS_OF, "as_of") X(VL_SET_TORCH, "torch")        \
    X(VL_SET_TRANSFORMERS, "transformers") X(VL_SET_BITSANDBYTES, "bitsandbytes")             \
    X(VL_SET_PEFT, "peft") X(VL_SET_TRL, "trl") X(VL_SET_MEGATRON, "megatron")                \
    X(VL_SET_VLLM, "vllm")                                                                    \
    X(VL_SET_SAMPLER, "sampler")                                                              \
    X(VL_SET_SGLANG, "sglang")                                                                \
    X(VL_SET_HEAD, "head") X(VL_SET_LABELS, "labels") X(VL_SET_LOSS_DTYPE, "loss_dtype")      \
    X(VL_SET_MFU, "mfu") X(VL_SET_TOKENS, "tokens") X(VL_SET_EP, "ep") X(VL_SET_CP, "cp")     \
    X(VL_SET_VPP, "vpp")                                                                      \
    X(VL_SET_GPU_UTIL, "gpu_util") X(VL_SET_KV_BLOCK, "kv_block")                        \
    X(VL_SET_PREFILL_CHUNK, "prefill_chunk") X(VL_SET_PROFILE_SEQS, "profile_seqs")          \
    X(VL_SET_CAPACITY, "capacity") X(VL_SET_INTERCONNECT, "interconnect")                   \
    X(VL_SET_CUDA, "cuda")                                                                    \
    X(VL_SET_CPU_OFFLOAD, "cpu_offload")
typedef enum { VL_SETTING_LIST(VL_ENUM_ID) VL_N_SETTINGS } vl_setting;

typedef enum {
    VL_ST_COUNT,  /* a whole number ("7B" too) */
    VL_ST_SIZE,   /* bytes ("1GiB", "800MB" too) */
    VL_ST_ENUM,   /* one of names[] */
    VL_ST_BOOL,   /* a switch: --flag sets it, --no-flag (when named) clears it */
    VL_ST_LORA,   /* LoRA targets: "q,v", "all-linear" */
    VL_ST_FRAMEWORK, /* a framework profile by name: a built-in here (names[]), any of the
                      * catalog's where the front end resolves it (options_resolve) */
    VL_ST_FRACTION, /* a fraction from 0 to 1 ("0.4", "40%"), kept in millionths (VL_PPM) */
    VL_ST_DAY,      /* a calendar day ("2022-01-11"), kept as yyyymmdd, or current (0) */
} vl_setting_type;

/* The modes a setting applies to. */
#define VL_IN_TRAIN (1u << VL_MODE_TRAIN)
#define VL_IN_INFER (1u << VL_MODE_INFER)
#define VL_IN_BOTH (VL_IN_TRAIN | VL_IN_INFER)

/* How an explorer slider steps through a numeric setting. */
typedef enum {
    VL_STEP_NONE,   /* not a numeric slider (a choice, a switch, or no slider) */
    VL_STEP_ONE,    /* +-1, coarse: powers of two */
    VL_STEP_POW2,   /* powers of two, coarse: powers of eight */
    VL_STEP_RANK,   /* off (0), 1, 2, 4, ... */
    VL_STEP_PERCENT,/* a fraction (VL_ST_FRACTION) by whole percents, coarse: tens */
    VL_STEP_E12,    /* the E12 series (1, 1.2, 1.5 ... 8.2 a decade), coarse: decades */
    VL_STEP_GIB,    /* bytes: whole GiB, coarse: 8 GiB */
    VL_STEP_RELEASE,/* a day (VL_ST_DAY): the days release lines came out, then current;
                     * coarse: a year */
} vl_step;

extern const char *const vl_setting_keys[VL_N_SETTINGS]; /* YAML and JSON */

typedef struct vl_setting_desc {
    const char *flag;        /* the command line's --flag */
    /* the names an earlier release gave it (--old-flag, old_key), still read; NULL: none */
    const char *old_flag, *old_key;
    const char *no_flag;     /* a switch's --no-flag, or NULL */
    vl_setting_type type;
    size_t offset, size;     /* the field in vl_settings */
    const char *const *names;/* VL_ST_ENUM: the choices */
    int n_names;
    /* a release list (--torch, --transformers, --bitsandbytes), whose first choice is
     * "current": the release from which current applies, so that a later one reads as
     * current and a patch release ("4.40.2") as its line's choice; NULL elsewhere */
    const char *current_from;
    /* a release list's choice for a release older than its first line, where those behave
     * as it in every modelled respect ("4.31", "current"); NULL: refused */
    const char *older_as;
    /* a release list whose lines each stand for the releases up to the next listed one
     * ("0.4.9" is 0.4.8's), not only for their own patch releases */
    bool lines_span;
    uint64_t min, max;       /* VL_ST_COUNT, VL_ST_SIZE: the accepted range */
    bool zero_ok;            /* 0 is also valid, though not typed (off, or the default) */
    unsigned modes;          /* VL_IN_TRAIN, VL_IN_INFER */
    const char *arg;         /* the value's name in --help ("N"), NULL for a switch */
    const char *help;        /* one line for --help and the man page */
    /* the explorer: its label (NULL: no slider), another in inference (both N_(), which the
     * explorer translates: i18n.h), the slider's range and steps (numeric settings; a zero_ok
     * setting's off, 0, lies below the range) */
    const char *label, *infer_label;
    uint64_t slider_min, slider_max;
    vl_step step;
    /* NULL, or why the setting has no effect in s (the explorer draws it disabled; N_()) */
    const char *(*inert)(const vl_settings *s);
    bool json_break;         /* the JSON settings object goes on on a new line after it */
} vl_setting_desc;

extern const vl_setting_desc vl_setting_table[VL_N_SETTINGS];

/* The setting whose key (or, with flag, whose --flag or --no-flag) is name, or -1.  *negated
 * (may be NULL) is set for a --no-flag. */
int vl_setting_by_key(const char *name);
int vl_setting_by_flag(const char *name, bool *negated);

/* Reads text as setting k's value into s.  False, with one line in why (naming nothing: the
 * caller says which flag or key), when it is not a valid value of the setting. */
bool vl_setting_parse(vl_setting k, const char *text, vl_settings *s, char *why, size_t len);
/* Setting k of s as the command line and YAML spell it ("bf16-mixed", "true", "1073741824"). */
const char *vl_setting_format(vl_setting k, const vl_settings *s, char *buf, size_t len);
/* An old name of a setting's value: --flash-attn is --attention flash, --no-flash-attn
 * --attention eager, and so is a scenario's "flash_attn: true" (or false).  name is a flag
 * (negated: its --no- form) or, with a value, a YAML key.  The setting and the value's text
 * in *k and *value, or false when name is no alias. */
bool vl_setting_alias(const char *name, const char *yaml_value, vl_setting *k,
                      const char **value);

/* Reading and writing a setting's value as a whole number (enums: the index; switches 0/1). */
uint64_t vl_setting_get(vl_setting k, const vl_settings *s);
void vl_setting_put(vl_setting k, vl_settings *s, uint64_t v);
/* Whether k is used in s's mode. */
bool vl_setting_applies(vl_setting k, const vl_settings *s);

/* The defaults. */
void vl_settings_default(vl_settings *s);
/* The defaults with s's framework's choices (its attention, loss and compute dtypes): what
 * the settings of the mode s is not in keep. */
void vl_settings_default_with(vl_settings *def, const vl_settings *s);
/* The rules that need no model: NULL, or a one-line reason naming the flag. */
const char *vl_settings_check(const vl_settings *s);
/* An fp32 master copy in the optimizer (fp16-mixed, bf16-mixed). */
bool vl_precision_is_mixed(vl_precision p);
/* PyTorch autocast over fp32 weights (fp16-amp, bf16-amp). */
bool vl_precision_is_amp(vl_precision p);
/* Weights held in 16 bits: the pure and -mixed precisions. */
bool vl_precision_holds_16bit(vl_precision p);
/* Whether s trains on micro-batches padded to their longest sequence (--padded; auto: more
 * than one sequence, as a collator that pads to the longest makes them). */
bool vl_settings_padded(const vl_settings *s);
/* All the rules, those of the model a too when it is not NULL (tensor parallelism splits
 * whole heads, a pipeline stage holds whole layers): true, or false with one line in why. */
bool vl_settings_valid(const vl_settings *s, const vl_arch *a, char *why, size_t len);

/* ---- settings given in part (a scenario, the command line) -------------------------- */

/* A set of settings, a bit each. */
typedef struct vl_setting_set {
    uint64_t w[(VL_N_SETTINGS + 63) / 64];
} vl_setting_set;
static inline bool vl_set_has(vl_setting_set s, int k)
{
    return s.w[k / 64] >> (k % 64) & 1;
}
static inline void vl_set_add(vl_setting_set *s, int k)
{
    s->w[k / 64] |= (uint64_t)1 << (k % 64);
}
static inline vl_setting_set vl_set_union(vl_setting_set a, vl_setting_set b)
{
    for (size_t i = 0; i < sizeof a.w / sizeof a.w[0]; i++)
        a.w[i] |= b.w[i];
    return a;
}

/* Values for the settings in given; the rest are unused. */
typedef struct vl_settings_patch {
    vl_settings values;
    vl_setting_set given;
} vl_settings_patch;

/* Marks k as given (its value is in p->values). */
void vl_patch_mark(vl_settings_patch *p, vl_setting k);
/* s's attention as its transformers release chose it: eager before 4.36, under a profile
 * whose models are transformers' (vl_settings_apply, the explorer's transformers slider). */
void vl_settings_on_transformers(vl_settings *s);
/* Whether --autocast contradicts the precision: false under an -amp precision (autocast
 * over fp32 weights), true under fp32. */
bool vl_autocast_refused(const vl_settings *s);
/* Whether s's PyTorch has scaled_dot_product_attention (2.0 on) or, for transformers,
 * runs it (2.1.1 on). */
bool vl_torch_runs_sdpa(const vl_settings *s, bool transformers);
/* The attention a run of a's model under s has: eager where s asks for SDPA of a profile
 * whose models are transformers' at a release before a's class ran SDPA (sdpa_from), or
 * on a PyTorch before 2.1.1. */
vl_attention vl_attention_for(const vl_settings *s, const vl_arch *a);
/* s's share of each GPU as its vLLM release sizes the cache unless told: 0.9 before 0.20,
 * the framework's from it (under the V1 engine's profile). */
void vl_settings_on_vllm(vl_settings *s);
/* Copies the given settings of p into s; a framework given first brings its choices
 * (vl_settings_take_framework), which the other given settings override.  The release
 * lists p does not give take their lines on p's day (--as-of, else the day its given
 * releases came out: vl_patch_day). */
void vl_settings_apply(vl_settings *s, const vl_settings_patch *p);
/* Gives to what from gives, from's values winning: a scenario's settings, then the
 * command line's, applied as one patch so that a day dates only the releases neither
 * gives. */
void vl_patch_merge(vl_settings_patch *to, const vl_settings_patch *from);

/* The settings of s that apply in its mode and differ from the defaults, as a YAML flow
 * mapping's entries ("mode: infer, gpus: 2, ...", wrapped after indent at width 92). */
void vl_settings_write_yaml(FILE *out, const vl_settings *s, int indent);

#endif
