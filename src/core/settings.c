/* settings.c: the settings table, their defaults and their validity rules. */
#include "settings.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "framework.h"
#include "i18n.h"
#include "lora.h"
#include "memory.h"
#include "names.h"
#include "releases.h"
#include "units.h"

const char *const vl_mode_names[VL_N_MODES] = {VL_MODE_LIST(VL_ENUM_NAME)};
const char *const vl_attention_names[VL_N_ATTENTIONS] = {VL_ATTENTIONS(VL_ENUM_NAME)};
const char *const vl_head_names[VL_N_HEADS] = {VL_HEADS(VL_ENUM_NAME)};
const char *const vl_loss_dtype_names[VL_N_LOSS_DTYPES] = {VL_LOSS_DTYPES(VL_ENUM_NAME)};
const char *const vl_torch_names[VL_N_TORCHES] = {VL_TORCH_LIST(VL_ENUM_NAME)};
const char *const vl_transformers_names[VL_N_TRANSFORMERS] = {VL_TRANSFORMERS_LIST(VL_ENUM_NAME)};
const char *const vl_bitsandbytes_names[VL_N_BITSANDBYTES] = {VL_BITSANDBYTES_LIST(VL_ENUM_NAME)};
const char *const vl_framework_names[VL_N_FRAMEWORKS] = {VL_FRAMEWORK_LIST(VL_ENUM_NAME)};
const char *const vl_link_names[VL_N_LINKS] = {VL_LINKS(VL_ENUM_NAME)};
const char *const vl_vllm_names[VL_N_VLLMS] = {VL_VLLM_LIST(VL_ENUM_NAME)};
const char *const vl_sglang_names[VL_N_SGLANGS] = {VL_SGLANG_LIST(VL_ENUM_NAME)};
const char *const vl_sampler_names[VL_N_SAMPLERS] = {VL_SAMPLER_LIST(VL_ENUM_NAME)};
const char *const vl_trl_names[VL_N_TRLS] = {VL_TRL_LIST(VL_ENUM_NAME)};
const char *const vl_megatron_names[VL_N_MEGATRONS] = {VL_MEGATRON_LIST(VL_ENUM_NAME)};
const char *const vl_peft_names[VL_N_PEFTS] = {VL_PEFT_LIST(VL_ENUM_NAME)};
const char *const vl_cuda_names[VL_N_CUDAS] = {VL_CUDA_LIST(VL_ENUM_NAME)};
const char *const vl_precision_names[VL_N_PRECISIONS] = {VL_PRECISION_LIST(VL_ENUM_NAME)};
const char *const vl_optimizer_names[VL_N_OPTIMIZERS] = {VL_OPTIMIZER_LIST(VL_ENUM_NAME)};
#define OPTIMIZER_LABEL(id, name, label, rule, shaped) label,
#define OPTIMIZER_SHAPED(id, name, label, rule, shaped) shaped,
const char *const vl_optimizer_labels[VL_N_OPTIMIZERS] = {VL_OPTIMIZER_LIST(OPTIMIZER_LABEL)};
const bool vl_optimizer_shaped[VL_N_OPTIMIZERS] = {VL_OPTIMIZER_LIST(OPTIMIZER_SHAPED)};
#undef OPTIMIZER_SHAPED
#undef OPTIMIZER_LABEL
const char *const vl_recompute_names[VL_N_RECOMPUTES] = {VL_RECOMPUTE_LIST(VL_ENUM_NAME)};
const char *const vl_choice_names[VL_N_CHOICES] = {VL_CHOICE_LIST(VL_ENUM_NAME)};
const char *const vl_keep_logits_names[VL_N_KEEP_LOGITS] = {VL_KEEP_LOGITS_LIST(VL_ENUM_NAME)};
const char *const vl_zero_grad_names[VL_N_ZERO_GRADS] = {VL_ZERO_GRAD_LIST(VL_ENUM_NAME)};
const char *const vl_weight_format_names[VL_N_WEIGHT_FORMATS] = {
    VL_WEIGHT_FORMAT_LIST(VL_ENUM_NAME)};
const char *const vl_dtype_names[VL_N_DTYPES] = {
    VL_DTYPE_LIST(VL_ENUM_NAME) VL_GGUF_QUANT_FTYPES(VL_DT_GGUF_NAME)};
const char *const vl_offload_names[VL_N_OFFLOADS] = {VL_OFFLOAD_LIST(VL_ENUM_NAME)};
const char *const vl_quant_storage_names[VL_N_QUANT_STORAGES] = {
    VL_QUANT_STORAGE_LIST(VL_ENUM_NAME)};

const char *const vl_setting_keys[VL_N_SETTINGS] = {VL_SETTING_LIST(VL_ENUM_NAME)};

_Static_assert(sizeof(vl_mode) == sizeof(int) && sizeof(vl_precision) == sizeof(int) &&
                   sizeof(vl_optimizer) == sizeof(int) && sizeof(vl_recompute) == sizeof(int) &&
                   sizeof(vl_offload) == sizeof(int) && sizeof(vl_dtype) == sizeof(int) &&
                   sizeof(vl_attention) == sizeof(int) && sizeof(vl_head) == sizeof(int) &&
                   sizeof(vl_loss_dtype) == sizeof(int),
               "enum settings are read and written as int");
_Static_assert(sizeof(const vl_framework *) == sizeof(uint64_t) ||
                   sizeof(const vl_framework *) == sizeof(unsigned),
               "the framework's profile is read and written as a whole number, its address");
_Static_assert(VL_DT_GGUF_Q4_0 == VL_N_PLAIN_DTYPES && VL_GGUF_Q4_0 == VL_GGUF_BF16 + 1 &&
                   VL_N_DTYPES - VL_N_PLAIN_DTYPES == VL_GGUF_N - VL_GGUF_Q4_0,
               "the GGUF dtypes follow the plain ones, in gguf.h's order of the quantized types");

bool vl_dtype_bnb4(vl_dtype d)
{
    return d == VL_DT_BNB4 || d == VL_DT_BNB4_DQ;
}

bool vl_dtype_quantized(vl_dtype d)
{
    return d == VL_DT_FP8 || d == VL_DT_INT8 || d == VL_DT_INT4 || vl_dtype_bnb4(d) ||
           d == VL_DT_BNB8;
}

bool vl_weight_groups(const vl_settings *s)
{
    return s->weight_dtype == VL_DT_INT4 ||
           (s->weight_dtype == VL_DT_INT8 && s->weight_format == VL_WFMT_GPTQ);
}

bool vl_dtype_gguf(vl_dtype d, vl_gguf_ftype *ft)
{
    if (d < VL_N_PLAIN_DTYPES || d >= VL_N_DTYPES)
        return false;
    if (ft)
        *ft = (vl_gguf_ftype)(VL_GGUF_Q4_0 + (d - VL_N_PLAIN_DTYPES));
    return true;
}

/* ---- when a setting has no effect (the explorer draws it disabled, with this reason) -- */

static bool pure16(const vl_settings *s)
{
    return s->precision == VL_FP16 || s->precision == VL_BF16;
}

static const char *double_quant_inert(const vl_settings *s)
{
    return s->qlora ? NULL : N_("double quantization applies to QLoRA's base");
}

static const char *quant_storage_inert(const vl_settings *s)
{
    if (!s->qlora || !s->lora_rank)
        return N_("the storage dtype applies to QLoRA's 4-bit base");
    if (!vl_precision_holds_16bit(s->precision))
        return N_("the model's weights are fp32, and so are its adapters");
    /* the storage matters where it changes the adapters' dtype (vl_adapters_fp32) */
    vl_settings packed = *s, float16 = *s;
    packed.quant_storage = VL_QS_UINT8;
    float16.quant_storage = VL_QS_BF16;
    if (vl_adapters_fp32(&packed) != vl_adapters_fp32(&float16))
        return NULL;
    return vl_adapters_fp32(s)
               ? N_("PEFT 0.12 and later make the adapters fp32 whatever the storage")
               : N_("the framework's adapters take the model's dtype whatever the storage");
}

static const char *grad_copy_inert(const vl_settings *s)
{
    if (s->precision != VL_FP16_MIXED && s->precision != VL_BF16_MIXED)
        return N_("only fp16-mixed and bf16-mixed keep an fp32 gradient copy");
    return s->fp32_grads ? N_("the gradients are fp32 already (fp32 grads on)") : NULL;
}

static const char *paged_inert(const vl_settings *s)
{
    return s->optimizer == VL_ADAMW || s->optimizer == VL_ADAM_8BIT || s->optimizer == VL_LION
               ? NULL
               : N_("bitsandbytes pages AdamW, 8-bit Adam and Lion only");
}

static const char *fp32_grads_inert(const vl_settings *s)
{
    if (pure16(s))
        return N_("pure 16-bit training keeps 16-bit gradients");
    if (s->precision != VL_FP16_MIXED && s->precision != VL_BF16_MIXED)
        return N_("the gradients are fp32 already at this precision");
    return NULL;
}

static const char *lora_targets_inert(const vl_settings *s)
{
    return s->lora_rank ? NULL : N_("no LoRA rank: full fine-tuning");
}

static const char *sp_inert(const vl_settings *s)
{
    return s->tp >= 2 ? NULL : N_("sequence parallel needs tensor par. 2 or more");
}

static const char *group_inert(const vl_settings *s)
{
    return vl_weight_groups(s) ? NULL : N_("groups apply to int4 and GPTQ weights");
}

static const char *weight_format_inert(const vl_settings *s)
{
    return s->weight_dtype == VL_DT_INT4 || s->weight_dtype == VL_DT_INT8
               ? NULL
               : N_("the format applies to int4 and int8 weights");
}

static const char *exllama_inert(const vl_settings *s)
{
    return s->weight_dtype == VL_DT_INT4 && s->weight_format == VL_WFMT_GPTQ &&
                   s->framework->transformers
               ? NULL
               : N_("exllama runs int4 GPTQ weights under transformers");
}

static const char *exllama_version_inert(const vl_settings *s)
{
    const char *why = exllama_inert(s);
    return why ? why : s->exllama ? NULL : N_("--no-exllama runs auto-gptq's cuda-old kernel");
}

static const char *compute_inert(const vl_settings *s)
{
    return vl_dtype_bnb4(s->weight_dtype) ? NULL : N_("the compute dtype applies to bnb4 weights");
}

static const char *labels_inert(const vl_settings *s)
{
    return s->head == VL_HEAD_CLS ? NULL : N_("classes apply to the cls head");
}

static const char *per_node_inert(const vl_settings *s)
{
    /* a node's CPU memory holds what its GPUs offload (ZeRO-Offload in training,
     * --cpu-offload in serving), and a communicator's GPUs on a node size NCCL's NVLink
     * SHARP buffers (vl_nvls_bytes) */
    const bool offloads = s->mode == VL_MODE_INFER ? s->cpu_offload > 0
                                                   : s->offload != VL_OFFLOAD_NONE;
    return offloads || (s->framework->nvls && vl_communicator_groups(s))
               ? NULL
               : N_("only offload and NVLink SHARP use it");
}

static const char *mfu_inert(const vl_settings *s)
{
    return s->precision == VL_FP32 ? N_("no dense fp32 peak in the GPU presets") : NULL;
}

static const char *reentrant_inert(const vl_settings *s)
{
    return s->recompute == VL_RECOMPUTE_FULL ? NULL
                                              : N_("only full recompute reruns a layer's forward");
}

static const char *fsdp_mp_inert(const vl_settings *s)
{
    if (s->zero < 2 || s->framework->zero_impl != VL_ZERO_FSDP)
        return N_("only FSDP (ZeRO 2 or 3 under an FSDP framework) gathers parameters");
    return vl_precision_is_amp(s->precision)
               ? NULL
               : N_("MixedPrecision casts autocast's fp32 weights");
}

static const char *zero_grad_inert(const vl_settings *s)
{
    if (s->zero >= 2)
        return N_("ZeRO 2 and 3 partition the gradients as backward makes them");
    if (vl_grads_freed_in_step(s->framework, s->zero))
        return N_("DeepSpeed's ZeRO-1 frees the gradients in its optimizer step");
    if (s->framework->grads_persistent)
        return N_("the gradients are one buffer kept from step to step");
    vl_framework f = *s->framework; /* as the run's PyTorch release has it */
    vl_framework_on_torch(&f, s->torch);
    if (f.zero_grad_in_place)
        return N_("zero_grad zeroes the gradients in place before PyTorch 2.0: they stay from "
                  "step to step");
    return NULL;
}

static const char *cp_inert(const vl_settings *s)
{
    return s->attention == VL_ATTN_EAGER ? N_("context parallel needs sdpa or flash attention")
                                          : NULL;
}

static const char *transformers_inert(const vl_settings *s)
{
    return s->framework->transformers ? NULL : N_("the framework's models are not transformers'");
}

static const char *use_cache_inert(const vl_settings *s)
{
    const char *why = transformers_inert(s);
    if (!why && s->recompute == VL_RECOMPUTE_FULL)
        why = N_("gradient checkpointing turns use_cache off");
    return why;
}

static const char *outputs_fp32_inert(const vl_settings *s)
{
    const char *why = transformers_inert(s);
    if (!why && !vl_precision_is_amp(vl_compute_precision(s)))
        why = N_("only autocast's 16-bit outputs are cast (an -amp precision)");
    return why;
}

static const char *autocast_inert(const vl_settings *s)
{
    if (!vl_precision_holds_16bit(s->precision))
        return N_("-amp precisions run under autocast, fp32 has nothing to cast");
    return s->qlora && s->lora_rank && s->framework->qlora_adapters_fp32
               ? NULL
               : N_("only the fp32 adapters of QLoRA's 4-bit layers run otherwise");
}

static const char *bitsandbytes_inert(const vl_settings *s)
{
    return s->qlora ? NULL : N_("the bitsandbytes release applies to QLoRA's 4-bit matmuls");
}

static const char *peft_inert(const vl_settings *s)
{
    if (!s->framework->lora_adapters_fp32)
        return N_("the framework's adapters take their layer's dtype in every release");
    if (!s->lora_rank || (s->qlora && !vl_quant_storage_16bit(s)))
        return N_("the PEFT release applies to LoRA on 16-bit layers (QLoRA's adapters are "
                  "fp32 in every release, unless its 4-bit storage is 16-bit)");
    return vl_precision_holds_16bit(s->precision) ? NULL
                                                  : N_("the model's weights are fp32, and so "
                                                       "are its adapters");
}

static const char *trl_inert(const vl_settings *s)
{
    const char *why = transformers_inert(s);
    if (why)
        return why;
    return s->qlora && s->precision == VL_BF16_AMP
               ? NULL
               : N_("the trl release applies to QLoRA under bf16 autocast");
}

static const char *loop_logits_inert(const vl_settings *s)
{
    if (s->mode == VL_MODE_TRAIN)
        return NULL;
    if (s->framework->kv_sizing != VL_KV_NONE)
        return N_("a serving engine returns no outputs to a loop");
    return s->gen ? N_("generate drops each forward's outputs itself: in inference it applies to "
                       "a forward alone (--gen 0)")
                  : NULL;
}

static const char *vllm_inert(const vl_settings *s)
{
    return vl_is_vllm(s->framework) ? NULL : N_("the framework is not vLLM's");
}

static const char *sampler_inert(const vl_settings *s)
{
    return vl_is_vllm(s->framework) && !vl_is_vllm_v0(s->framework)
               ? NULL
               : N_("the framework is not vLLM's V1 engine");
}

static const char *megatron_inert(const vl_settings *s)
{
    return s->framework->loss_in_place == VL_LIP_NONE
               ? N_("the framework's loss is not Megatron's")
               : NULL;
}

static const char *sglang_inert(const vl_settings *s)
{
    return s->framework->kv_sizing == VL_KV_STATIC ? NULL : N_("the framework is not SGLang's");
}

static const char *interconnect_inert(const vl_settings *s)
{
    if (s->gpus < 2)
        return N_("one GPU: no link between GPUs");
    if (!vl_communicator_groups(s))
        return N_("pipeline stages alone: no group runs collectives");
    return s->framework->comm_nvlink || s->framework->comm_pcie
               ? NULL
               : N_("the framework's communicators are not modelled");
}

static const char *vpp_inert(const vl_settings *s)
{
    return s->pp >= 2 ? NULL : N_("interleaving needs pipeline par. 2 or more");
}

/* ---- the table ------------------------------------------------------------------------ */

#define FIELD(f) .offset = offsetof(vl_settings, f), .size = sizeof(((vl_settings *)0)->f)
#define ENUM(list, n) .type = VL_ST_ENUM, .names = list, .n_names = n
/* a training choice of auto, true or false, auto being the framework's */
#define TRAIN_CHOICE ENUM(vl_choice_names, VL_N_CHOICES), .modes = VL_IN_TRAIN, .arg = "B"
#define RANGE(lo, hi) .min = lo, .max = hi
#define SLIDER(lo, hi, st) .slider_min = lo, .slider_max = hi, .step = st
#define ROW(id) [id] = {

const vl_setting_desc vl_setting_table[VL_N_SETTINGS] = {
    ROW(VL_SET_MODE) .flag = "mode", FIELD(mode), ENUM(vl_mode_names, VL_N_MODES),
        .modes = VL_IN_BOTH, .arg = "M", .help = "what the run is (default train)",
        .label = N_("mode")},
    ROW(VL_SET_PRECISION) .flag = "precision", FIELD(precision),
        ENUM(vl_precision_names, VL_N_PRECISIONS), .modes = VL_IN_TRAIN, .arg = "P",
        .help = "number formats of weights, gradients and the optimizer (default bf16-mixed)",
        .label = N_("precision")},
    ROW(VL_SET_OPTIMIZER) .flag = "optimizer", FIELD(optimizer),
        ENUM(vl_optimizer_names, VL_N_OPTIMIZERS), .modes = VL_IN_TRAIN, .arg = "O",
        .help = "the optimizer, whose states are counted (default adamw)",
        .label = N_("optimizer"), .json_break = true},
    ROW(VL_SET_PAGED_OPTIMIZER) .flag = "paged-optimizer", FIELD(paged_optimizer),
        .type = VL_ST_BOOL, .modes = VL_IN_TRAIN,
        .help = "bitsandbytes' paged optimizer (Trainer's paged_adamw_32bit, paged_adamw_8bit, "
                "paged_lion_32bit): states of tensors of 100,000 elements or more in CUDA "
                "managed memory, outside PyTorch's allocator",
        .label = N_("paged optim."), .inert = paged_inert},
    ROW(VL_SET_ZERO) .flag = "zero", FIELD(zero), .type = VL_ST_COUNT, RANGE(0, 3),
        .modes = VL_IN_TRAIN, .arg = "S", .help = "ZeRO stage 0, 1, 2 or 3 (default 0)",
        .label = N_("ZeRO stage"), .json_break = true},
    ROW(VL_SET_GPUS) .flag = "gpus", FIELD(gpus), .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS),
        .modes = VL_IN_BOTH, .arg = "N",
        .help = "GPUs: training tensor x pipeline x data parallel; inference tensor parallel "
                "(default 1)",
        .label = N_("GPUs"), SLIDER(1, 4096, VL_STEP_ONE)},
    ROW(VL_SET_BATCH) .flag = "batch", FIELD(batch), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_BATCH), .modes = VL_IN_BOTH, .arg = "N",
        .help = "micro-batch per GPU; in inference, sequences at once (default 1)",
        .label = N_("micro-batch"), .infer_label = N_("batch"), SLIDER(1, 1024, VL_STEP_ONE)},
    ROW(VL_SET_SEQ) .flag = "seq", FIELD(seq), .type = VL_ST_COUNT, RANGE(1, VL_MAX_SEQ),
        .modes = VL_IN_BOTH, .arg = "N",
        .help = "tokens a sequence: training's length, inference's prompt (default 2048)",
        .label = N_("context"), .infer_label = N_("prompt"), SLIDER(128, 1048576, VL_STEP_POW2)},
    ROW(VL_SET_GEN) .flag = "gen", FIELD(gen), .type = VL_ST_COUNT, RANGE(0, VL_MAX_SEQ),
        .modes = VL_IN_INFER, .arg = "N",
        .help = "tokens generated after the prompt (default 0)", .label = N_("generated"),
        SLIDER(0, 1048576, VL_STEP_POW2)},
    ROW(VL_SET_RECOMPUTE) .flag = "recompute", FIELD(recompute),
        ENUM(vl_recompute_names, VL_N_RECOMPUTES), .modes = VL_IN_TRAIN, .arg = "R",
        .help = "activations recomputed in backward (default none)",
        .label = N_("recompute")},
    ROW(VL_SET_USE_REENTRANT) .flag = "use-reentrant", FIELD(use_reentrant),
        TRAIN_CHOICE,
        .help = "full recompute's torch.utils.checkpoint, a Trainer's "
                "gradient_checkpointing_kwargs use_reentrant: true reruns a layer from a "
                "detached copy of its input, which under FSDP with LoRA keeps every layer's "
                "input and its gradient to the end of backward; false does not (default "
                "auto, the framework's: transformers before 5.0 true)",
        .label = N_("use_reentrant"), .inert = reentrant_inert, .json_break = true},
    ROW(VL_SET_ATTENTION) .flag = "attention", FIELD(attention),
        ENUM(vl_attention_names, VL_N_ATTENTIONS), .modes = VL_IN_BOTH, .arg = "A",
        .help = "the attention kernel: eager keeps the s^2 scores, sdpa and flash do not "
                "(default: the framework's; --flash-attn is --attention flash, "
                "--no-flash-attn --attention eager)",
        .label = N_("attention")},
    ROW(VL_SET_FP32_GRADS) .flag = "fp32-grads", FIELD(fp32_grads), .type = VL_ST_BOOL,
        .modes = VL_IN_TRAIN, .help = "gradients in fp32 (Megatron-LM main grads)",
        .label = N_("fp32 grads"), .inert = fp32_grads_inert},
    ROW(VL_SET_FP32_GRAD_COPY) .flag = "fp32-grad-copy", .no_flag = "no-fp32-grad-copy",
        FIELD(fp32_grad_copy), .type = VL_ST_BOOL, .modes = VL_IN_TRAIN,
        .help = "count an fp32 gradient copy in the optimizer states (default on; off is "
                "the ZeRO paper's K = 12)",
        .label = N_("fp32 grad copy"), .inert = grad_copy_inert, .json_break = true},
    ROW(VL_SET_WEIGHT_DTYPE) .flag = "weight-dtype", FIELD(weight_dtype),
        ENUM(vl_dtype_names, VL_N_DTYPES), .modes = VL_IN_INFER, .arg = "D",
        .help = "inference weights: a dtype, or a llama.cpp GGUF file type (default bf16)",
        .label = N_("weight dtype")},
    ROW(VL_SET_KV_DTYPE) .flag = "kv-dtype", FIELD(kv_dtype),
        ENUM(vl_dtype_names, VL_N_KV_DTYPES), .modes = VL_IN_INFER, .arg = "D",
        .help = "the KV cache (default bf16)", .label = N_("KV cache dtype")},
    ROW(VL_SET_GROUP_SIZE) .flag = "group-size", FIELD(group_size), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_GROUP), .modes = VL_IN_INFER, .arg = "N",
        .help = "int4 and GPTQ weights: weights per 16-bit scale (default 128)",
        .label = N_("weight group"),
        SLIDER(16, 1024, VL_STEP_POW2), .inert = group_inert, .json_break = true},
    ROW(VL_SET_WEIGHT_FORMAT) .flag = "weight-format", .old_flag = "int4-format",
        .old_key = "int4_format", FIELD(weight_format),
        ENUM(vl_weight_format_names, VL_N_WEIGHT_FORMATS), .modes = VL_IN_INFER, .arg = "F",
        .help = "int4 or int8 weights' layout: symmetric (int4: a 16-bit scale a group, as "
                "compressed-tensors' W4A16; int8: a byte a weight), gptq (a 16-bit scale and a "
                "zero point a group, int4 or int8) or awq (int4, likewise); under transformers "
                "GPTQ's kernels keep or make a dequantized fp16 matrix, AWQ's GEMM dequantizes a "
                "whole matrix for a forward of 1,024 tokens or more (default symmetric; "
                "--int4-format is its old name)",
        .label = N_("weight format"), .inert = weight_format_inert},
    ROW(VL_SET_EXLLAMA) .flag = "exllama", .no_flag = "no-exllama", FIELD(exllama),
        .type = VL_ST_BOOL, .modes = VL_IN_INFER,
        .help = "int4 GPTQ under transformers: auto-gptq's exllama kernel and its kept fp16 "
                "buffer (default on, as transformers has it); --no-exllama is GPTQConfig's "
                "use_exllama=False, auto-gptq's cuda-old kernel, which dequantizes a whole "
                "matrix for 128 tokens or more",
        .label = N_("exllama"), .inert = exllama_inert},
    ROW(VL_SET_EXLLAMA_VERSION) .flag = "exllama-version", FIELD(exllama_version),
        .type = VL_ST_COUNT, RANGE(1, 2), .modes = VL_IN_INFER, .arg = "N",
        .help = "exllama's kernel as GPTQConfig's exllama_config picks it: 1 (transformers' "
                "default) keeps the largest matrix dequantized in fp16, 2 a scratch of that "
                "matrix and its output for 8 sequences of 2,048 tokens in fp32",
        .label = N_("exllama kernel"), SLIDER(1, 2, VL_STEP_ONE),
        .inert = exllama_version_inert},
    ROW(VL_SET_COMPUTE_DTYPE) .flag = "compute-dtype", FIELD(compute_dtype),
        ENUM(vl_dtype_names, VL_N_COMPUTE_DTYPES), .modes = VL_IN_INFER, .arg = "D",
        .help = "bnb4 weights: the dtype bitsandbytes computes in, its bnb_4bit_compute_dtype "
                "(default: the framework's; fp32, transformers' default)",
        .label = N_("compute dtype"), .inert = compute_inert},
    ROW(VL_SET_OVERHEAD) .flag = "overhead", FIELD(overhead), .type = VL_ST_SIZE,
        RANGE(0, VL_MAX_OVERHEAD), .modes = VL_IN_BOTH, .arg = "SIZE",
        .help = "CUDA context and workspace: 0, 1GiB, 800MB (default 1GiB)", .label = N_("overhead"),
        SLIDER(0, 64 * VL_GIB, VL_STEP_GIB), .json_break = true},
    ROW(VL_SET_LORA_RANK) .flag = "lora-rank", FIELD(lora_rank), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_LORA_RANK), .zero_ok = true, .modes = VL_IN_TRAIN, .arg = "R",
        .help = "LoRA adapters of rank R over a frozen base (default: full fine-tuning)",
        .label = N_("LoRA rank"), SLIDER(0, 1024, VL_STEP_RANK)},
    ROW(VL_SET_LORA_TARGETS) .flag = "lora-targets", FIELD(lora_targets), .type = VL_ST_LORA,
        .modes = VL_IN_TRAIN, .arg = "T",
        .help = "q,k,v,o,gate,up,down,head (a list; head: the output layer) or all-linear, "
                "which head may follow (default q,v)",
        .label = N_("LoRA targets"), .inert = lora_targets_inert},
    ROW(VL_SET_LORA_DROPOUT) .flag = "lora-dropout", FIELD(lora_dropout),
        .type = VL_ST_FRACTION, RANGE(0, VL_PPM - 1), .modes = VL_IN_TRAIN, .arg = "P",
        .help = "dropout on each adapter's input, PEFT's lora_dropout: a dropped copy and "
                "its mask kept for backward (default 0)",
        .label = N_("LoRA dropout"), SLIDER(0, VL_PPM / 2, VL_STEP_PERCENT),
        .inert = lora_targets_inert},
    ROW(VL_SET_QLORA) .flag = "qlora", FIELD(qlora), .type = VL_ST_BOOL, .modes = VL_IN_TRAIN,
        .help = "the frozen base's layer matrices in 4-bit NF4 (QLoRA)",
        .label = N_("QLoRA (NF4)")},
    ROW(VL_SET_DOUBLE_QUANT) .flag = "double-quant", .no_flag = "no-double-quant",
        FIELD(double_quant), .type = VL_ST_BOOL, .modes = VL_IN_TRAIN,
        .help = "--qlora: each block's absmax in 8 bits with an fp32 scale a 256 blocks, "
                "bnb_4bit_use_double_quant (default on, as QLoRA stores its base; "
                "transformers' BitsAndBytesConfig defaults to off)",
        .label = N_("double quant"), .inert = double_quant_inert, .json_break = true},
    ROW(VL_SET_QUANT_STORAGE) .flag = "quant-storage", FIELD(quant_storage),
        ENUM(vl_quant_storage_names, VL_N_QUANT_STORAGES), .modes = VL_IN_TRAIN, .arg = "D",
        .help = "--qlora: the dtype its packed 4-bit weights are stored in, "
                "bnb_4bit_quant_storage (FSDP's QLoRA takes the model's): PEFT before 0.12 "
                "gives a 4-bit layer's adapters a float storage's dtype, as a 16-bit layer's "
                "(default uint8: fp32 adapters)",
        .label = N_("4-bit storage"), .inert = quant_storage_inert},
    ROW(VL_SET_OFFLOAD) .flag = "offload", FIELD(offload),
        ENUM(vl_offload_names, VL_N_OFFLOADS), .modes = VL_IN_TRAIN, .arg = "O",
        .help = "ZeRO-Offload to CPU memory; params needs --zero 3 (default none)",
        .label = N_("offload")},
    ROW(VL_SET_FSDP_MIXED_PRECISION) .flag = "fsdp-mixed-precision", FIELD(fsdp_mixed_precision),
        TRAIN_CHOICE,
        .help = "FSDP's MixedPrecision under fp16-amp or bf16-amp: true gathers each unit's "
                "parameters cast to 16 bits (param_dtype), so the layers run on 16-bit "
                "weights and keep 16-bit activations; false gathers them in fp32 for "
                "autocast to cast (default auto, the framework's: hf true, as accelerate "
                "sets it)",
        .label = N_("FSDP MixedPrec"), .inert = fsdp_mp_inert},
    ROW(VL_SET_LOOP_KEEPS_LOGITS) .flag = "loop-keeps-logits", FIELD(loop_keeps_logits),
        ENUM(vl_keep_logits_names, VL_N_KEEP_LOGITS), .modes = VL_IN_BOTH, .arg = "K",
        .help = "true: the training loop keeps each micro-batch's logits until the next "
                "forward returns: the step before's, and with them its graph, whose "
                "bitsandbytes 4-bit layers before 0.43.2 keep their inputs; false: not the "
                "step before's (a run's first step, or a loop that reads the loss alone, as "
                "the Trainer's); backward: the step's own through their backward, dropped "
                "before the next forward (a step function's local outputs) (default auto, "
                "the framework's: litgpt true).  In inference, for a forward alone (--gen "
                "0): true, the loop keeps the forward before's outputs, its logits and the K "
                "and V it returned, until this one returns (default false)",
        .label = N_("loop's logits"), .inert = loop_logits_inert},
    ROW(VL_SET_NORM_UPCAST) .flag = "norm-upcast", FIELD(norm_upcast),
        TRAIN_CHOICE,
        .help = "an RMSNorm computes in fp32 and keeps its input upcast for backward; false "
                "computes in the input's dtype, as lit-gpt did before 2023-10-24 (default "
                "auto, the framework's: true in every built-in one)",
        .label = N_("RMSNorm fp32")},
    ROW(VL_SET_USE_CACHE) .flag = "use-cache", FIELD(use_cache), TRAIN_CHOICE,
        .help = "a transformers model runs with use_cache on in training, as a decoder's "
                "config has it: its outputs hold every layer's K and V until the loss is "
                "read, cast to fp32 under autocast where they are tuples; false for a "
                "script that sets model.config.use_cache = False (default auto, the "
                "framework's: hf and deepspeed true)",
        .label = N_("use_cache"), .inert = use_cache_inert},
    ROW(VL_SET_OUTPUTS_FP32) .flag = "outputs-fp32", FIELD(outputs_fp32), TRAIN_CHOICE,
        .help = "under fp16-amp or bf16-amp the model's forward returns its 16-bit outputs "
                "cast to fp32, the logits and a use_cache's K and V, as accelerate's "
                "convert_outputs_to_fp32 wraps a model the Trainer prepares; false for a "
                "loop that runs torch.autocast itself (default auto, the framework's: hf "
                "true)",
        .label = N_("outputs fp32"), .inert = outputs_fp32_inert},
    ROW(VL_SET_AUTOCAST) .flag = "autocast", FIELD(autocast), TRAIN_CHOICE,
        .help = "a 16-bit model's step runs under torch.autocast, as a Trainer's bf16 or "
                "fp16 flag runs it: PEFT's fp32 adapters on QLoRA's 4-bit layers then "
                "compute in 16 bits; false, as a loop without it, casts each adapter's input "
                "to fp32 and keeps that copy (the -amp precisions always run under it; "
                "default auto, the framework's: hf true)",
        .label = N_("autocast"), .inert = autocast_inert},
    ROW(VL_SET_PADDED) .flag = "padded", FIELD(padded), TRAIN_CHOICE,
        .help = "the micro-batch is padded to its longest sequence, as a collator that pads "
                "makes it: transformers then hands SDPA a padding mask, which each layer "
                "keeps a copy of, and under which it repeats a GQA model's K and V to the "
                "query heads (from 4.54 on PyTorch 2.5 it does so only under a mask); false "
                "for packed rows or rows of one length "
                "(default auto: padded when the micro-batch has more than one sequence)",
        .label = N_("padded batch"), .inert = transformers_inert},
    ROW(VL_SET_GPUS_PER_NODE) .flag = "gpus-per-node", FIELD(gpus_per_node),
        .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS), .zero_ok = true, .modes = VL_IN_TRAIN,
        .arg = "N", .help = "GPUs a node, for offload's CPU memory per node and the "
                            "NVLink SHARP buffers of a communicator's GPUs on a node "
                            "(default 8)",
        .label = N_("GPUs per node"), SLIDER(1, 64, VL_STEP_POW2), .inert = per_node_inert,
        .json_break = true},
    ROW(VL_SET_TP) .flag = "tp", FIELD(tp), .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS),
        .modes = VL_IN_TRAIN, .arg = "T", .help = "tensor parallel degree (default 1)",
        .label = N_("tensor par."), SLIDER(1, 64, VL_STEP_POW2)},
    ROW(VL_SET_PP) .flag = "pp", FIELD(pp), .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS),
        .modes = VL_IN_BOTH, .arg = "P",
        .help = "pipeline parallel degree: training's 1F1B, data parallel = --gpus / (tp x pp); "
                "serving's stages of whole layers, --gpus / pp tensor parallel in each "
                "(default 1)",
        .label = N_("pipeline par."), SLIDER(1, 64, VL_STEP_POW2)},
    ROW(VL_SET_SP) .flag = "sp", FIELD(sp), .type = VL_ST_BOOL, .modes = VL_IN_TRAIN,
        .help = "sequence parallel (with --tp)", .label = N_("sequence par."), .inert = sp_inert},
    ROW(VL_SET_GRAD_ACCUM) .flag = "grad-accum", FIELD(grad_accum), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_GRAD_ACCUM), .modes = VL_IN_TRAIN, .arg = "N",
        .help = "micro-batches per optimizer step (default 1)", .label = N_("grad accum"),
        SLIDER(1, 1024, VL_STEP_POW2)},
    ROW(VL_SET_ZERO_GRAD) .flag = "zero-grad", FIELD(zero_grad),
        ENUM(vl_zero_grad_names, VL_N_ZERO_GRADS), .modes = VL_IN_TRAIN, .arg = "Z",
        .help = "where the training loop calls optimizer.zero_grad(): step (beside the "
                "optimizer step or before the forward, as the Trainer and most loops do) or "
                "backward (after the forward, before backward: the step before's gradients "
                "live through the forward) (default step)",
        .label = N_("zero_grad"), .inert = zero_grad_inert, .json_break = true},
    ROW(VL_SET_FRAMEWORK) .flag = "framework", FIELD(framework), .type = VL_ST_FRAMEWORK,
        .names = vl_framework_names, .n_names = VL_N_FRAMEWORKS, .modes = VL_IN_BOTH, .arg = "F",
        .help = "what the framework allocates besides the model: its attention kernel, loss, "
                "optimizer implementation, allocator, buckets, a server's chunks and sampler; "
                "a built-in or any framework preset (default hf: current PyTorch and "
                "transformers)",
        .label = N_("framework")},
    ROW(VL_SET_AS_OF) .flag = "as-of", FIELD(as_of), .type = VL_ST_DAY, .modes = VL_IN_BOTH,
        .arg = "DAY",
        .help = "the releases out on DAY (YYYY-MM-DD; YYYY-MM and YYYY are their first day), "
                "as a published measurement's date sets them: each of --torch, "
                "--transformers, --bitsandbytes, --peft, --megatron, --vllm and --sglang not "
                "given takes its newest line from on or before DAY (the oldest modelled before "
                "them all; vLLM's within its profile's engine); without --as-of, one of them "
                "given dates the others by the day it came out; current (the default, with "
                "none given) leaves them current",
        .label = N_("releases as of"), SLIDER(20000101, 20991231, VL_STEP_RELEASE)},
    ROW(VL_SET_TORCH) .flag = "torch", FIELD(torch), ENUM(vl_torch_names, VL_N_TORCHES),
        .current_from = "2.10", .older_as = "1.8",
        .modes = VL_IN_TRAIN, .arg = "V",
        .help = "the PyTorch release under the framework: before 1.11 a softmax keeps its "
                "input, before 2.0 there is no SDPA (and transformers runs eager attention "
                "before 2.1.1), zero_grad keeps the gradients, AdamW steps a tensor at a "
                "time and cuBLAS makes its own workspaces, before 2.1 foreach AdamW keeps two "
                "lists of temporaries, before 2.2 mean keeps its input, before 2.8 the "
                "Trainer's AdamW is "
                "foreach, not fused; its wheels' NCCL sizes the NVLink SHARP buffers, 1.5 GiB "
                "a GPU of eight from 2.1 to 2.4 (default current)",
        .label = N_("PyTorch")},
    ROW(VL_SET_TRANSFORMERS) .flag = "transformers", FIELD(transformers),
        ENUM(vl_transformers_names, VL_N_TRANSFORMERS), .current_from = "5.0", .older_as = "4.0",
        .modes = VL_IN_BOTH, .arg = "V",
        .help = "the transformers release under hf or deepspeed, 4.0 to 4.57 (those before "
                "4.31 as 4.31 but for the day they date the other releases by, --as-of): "
                "before 5.0 gradient checkpointing is reentrant, before 4.49 the loss copies the "
                "shifted logits, before 4.56 the cache keeps the prefill's K and V as given "
                "(views that keep a fused QKV output whole: GPT-2, GPT-NeoX, Phi-3), "
                "from 4.31 to 4.45 a Llama-family model returns fp32 logits, "
                "before 4.45 generate's prefill projects every prompt position (each model "
                "class by its own releases: its model_type), before 4.42 "
                "it holds the step before's KV cache through a decode step, before 4.39 "
                "each attention layer keeps RoPE cos and sin tables of every position, "
                "before 4.36 attention is eager (and before the release a model's class first "
                "ran SDPA, its sdpa_from), the Trainer's AdamW is fused only from 4.54 "
                "and is "
                "transformers' own before 4.32 (default current: 5.0 and later)",
        .label = N_("transformers"), .inert = transformers_inert},
    ROW(VL_SET_BITSANDBYTES) .flag = "bitsandbytes", FIELD(bitsandbytes),
        ENUM(vl_bitsandbytes_names, VL_N_BITSANDBYTES), .current_from = "0.43.2",
        .modes = VL_IN_TRAIN, .arg = "V",
        .help = "the bitsandbytes release under --qlora, 0.41 to 0.43.1: before 0.43.2 a "
                "4-bit matmul keeps its input for backward (default current: 0.43.2 and "
                "later)",
        .label = N_("bitsandbytes"), .inert = bitsandbytes_inert, .json_break = true},
    ROW(VL_SET_PEFT) .flag = "peft", FIELD(peft), ENUM(vl_peft_names, VL_N_PEFTS),
        .current_from = "0.12", .older_as = "0.11", .modes = VL_IN_TRAIN, .arg = "V",
        .help = "the PEFT release whose LoRA trains under hf: from 0.12 (its "
                "autocast_adapter_dtype) a 16-bit layer's adapters are fp32, and each casts "
                "its input to fp32 for itself, which autocast casts back to 16 bits: a copy "
                "an adapter where they had shared the input; 0.11 for every release before, "
                "or for autocast_adapter_dtype=False (default current: 0.12 and later)",
        .label = N_("PEFT"), .inert = peft_inert},
    ROW(VL_SET_TRL) .flag = "trl", FIELD(trl), ENUM(vl_trl_names, VL_N_TRLS),
        .current_from = "0.22", .modes = VL_IN_TRAIN, .arg = "V",
        .help = "the trl release whose SFTTrainer trains under hf or deepspeed, 0.8 to 0.21: "
                "they cast a 4-bit model's embeddings and head back to bf16 under bf16 "
                "autocast (default current: 0.22 and later, or no trl)",
        .label = N_("trl"), .inert = trl_inert},
    ROW(VL_SET_MEGATRON) .flag = "megatron", FIELD(megatron),
        ENUM(vl_megatron_names, VL_N_MEGATRONS), .current_from = "0.8", .older_as = "0.1",
        .modes = VL_IN_TRAIN, .arg = "V",
        .help = "the Megatron-Core release under the megatron profile, 0.1 to 0.7: its "
                "vocab-parallel cross-entropy keeps the softmax in an fp32 tensor beside the "
                "copy of the logits it reads, where from 0.8 it computes in that copy (default "
                "current: 0.8 and later)",
        .label = N_("Megatron-Core"), .inert = megatron_inert},
    ROW(VL_SET_VLLM) .flag = "vllm", FIELD(vllm), ENUM(vl_vllm_names, VL_N_VLLMS),
        .current_from = "0.35", .lines_span = true, .modes = VL_IN_INFER, .arg = "V",
        .help = "the vLLM release: under the vllm profile 0.8 to 0.34, its sampler, model "
                "runner, profile run, KV cache sizing and share of the GPU (default current: "
                "0.34's, and later releases'); under vllm-v0 0.3.1 (to 0.5.2), 0.5.3 (to 0.6.3), "
                "0.6.4 and 0.6.5 (to 0.10), what its profile run counts and how it chunks a "
                "long prefill",
        .label = N_("vLLM release"), .inert = vllm_inert},
    ROW(VL_SET_SAMPLER) .flag = "sampler", FIELD(sampler), ENUM(vl_sampler_names, VL_N_SAMPLERS),
        .modes = VL_IN_INFER, .arg = "S",
        .help = "the vllm profile's top-k/top-p: sort (PyTorch's, the vocabulary sorted), "
                "triton (in place) or flashinfer (FlashInfer's kernels, which vLLM 0.9 to "
                "0.11.0 used wherever FlashInfer was installed; its log says \"Using "
                "FlashInfer for top-p & top-k sampling\"); default auto, the release's: "
                "sort before 0.17, triton from 0.17",
        .label = N_("sampler"), .inert = sampler_inert, .json_break = true},
    ROW(VL_SET_SGLANG) .flag = "sglang", FIELD(sglang), ENUM(vl_sglang_names, VL_N_SGLANGS),
        .current_from = "0.5.20", .lines_span = true, .modes = VL_IN_INFER, .arg = "V",
        .help = "the SGLang release under the sglang profile, 0.3 to 0.5.10: its default "
                "mem_fraction_static, chunked prefill and CUDA graphs (default current: 0.5.20 "
                "and later)",
        .label = N_("SGLang release"), .inert = sglang_inert},
    ROW(VL_SET_HEAD) .flag = "head", FIELD(head), ENUM(vl_head_names, VL_N_HEADS),
        .modes = VL_IN_TRAIN, .arg = "H",
        .help = "what the model ends in: lm (next-token logits over the vocabulary), cls "
                "(sequence classification, --labels classes) or mlm (default lm)",
        .label = N_("head")},
    ROW(VL_SET_LABELS) .flag = "labels", FIELD(labels), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_LABELS), .modes = VL_IN_TRAIN, .arg = "N",
        .help = "classes of the cls head (default 2)", .label = N_("classes"),
        SLIDER(1, 1024, VL_STEP_ONE), .inert = labels_inert},
    ROW(VL_SET_LOSS_DTYPE) .flag = "loss-dtype", FIELD(loss_dtype),
        ENUM(vl_loss_dtype_names, VL_N_LOSS_DTYPES), .modes = VL_IN_TRAIN, .arg = "D",
        .help = "the dtype cross-entropy reads the logits in: fp32, bf16, fp16 or auto, the "
                "model class's own loss code (fp32 where it upcasts them, as Llama's "
                "and ForCausalLMLoss do; as the model returns them where it does not, as "
                "BERT's heads at every release and GPT-2's before 4.49 do) (default: the "
                "framework's: hf and deepspeed auto)",
        .label = N_("loss dtype"), .json_break = true},
    /* training: step time (steptime.h) */
    ROW(VL_SET_MFU) .flag = "mfu", FIELD(mfu), .type = VL_ST_FRACTION, RANGE(1, VL_PPM),
        .modes = VL_IN_TRAIN, .arg = "F",
        .help = "model FLOPs utilisation, for the step time (default 0.4: Llama 3 405B's 38-43%)",
        .label = N_("MFU"), SLIDER(VL_PPM / 100, VL_PPM, VL_STEP_PERCENT), .inert = mfu_inert},
    ROW(VL_SET_TOKENS) .flag = "tokens", FIELD(tokens), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_TOKENS), .zero_ok = true, .modes = VL_IN_TRAIN, .arg = "N",
        .help = "tokens to train on (15.6T): wall days and GPU-hours (default none)",
        .label = N_("token budget"), SLIDER(1000000000, VL_MAX_TOKENS, VL_STEP_E12),
        .inert = mfu_inert},
    /* training: expert parallelism (memory.c) */
    ROW(VL_SET_EP) .flag = "ep", FIELD(ep), .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS),
        .modes = VL_IN_TRAIN, .arg = "E",
        .help = "expert parallel: the routed experts over E of the data-parallel GPUs (default 1)",
        .label = N_("expert par."), SLIDER(1, 256, VL_STEP_POW2)},
    /* training: context parallelism (memory.c) */
    ROW(VL_SET_CP) .flag = "cp", FIELD(cp), .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS),
        .modes = VL_IN_TRAIN, .arg = "C",
        .help = "context parallel: each sequence split over C GPUs, the keys and values passed "
                "round them (default 1)",
        .label = N_("context par."), SLIDER(1, 64, VL_STEP_POW2), .inert = cp_inert},
    ROW(VL_SET_VPP) .flag = "vpp", FIELD(vpp), .type = VL_ST_COUNT, RANGE(1, VL_MAX_GPUS),
        .modes = VL_IN_TRAIN, .arg = "V",
        .help = "interleaved 1F1B: each pipeline stage's layers in V model chunks (default 1)",
        .label = N_("virtual stages"), SLIDER(1, 32, VL_STEP_ONE), .inert = vpp_inert,
        .json_break = true},
    /* inference: serving capacity (inference.c, solve.c) */
    ROW(VL_SET_GPU_UTIL) .flag = "gpu-util", FIELD(gpu_util), .type = VL_ST_FRACTION,
        RANGE(1, VL_PPM), .zero_ok = true, .modes = VL_IN_INFER, .arg = "F",
        .help = "fraction of each GPU's memory the engine may use; sglang: its "
                "mem_fraction_static, of the memory free before the weights (default or 0 the "
                "framework's: vllm 1, 0.92 from 0.20 to 0.33, 0.9 before; sglang its rule for "
                "the GPU; the others 1)",
        .label = N_("GPU mem. util."), SLIDER(VL_PPM / 100, VL_PPM, VL_STEP_PERCENT)},
    ROW(VL_SET_KV_BLOCK) .flag = "kv-block", FIELD(kv_block), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_KV_BLOCK), .zero_ok = true, .modes = VL_IN_INFER, .arg = "N",
        .help = "paged KV cache, tokens a block (default the framework's: vllm 16, the others "
                "none: one contiguous cache)",
        .label = N_("KV block"), SLIDER(0, 1024, VL_STEP_RANK)},
    ROW(VL_SET_PREFILL_CHUNK) .flag = "prefill-chunk", FIELD(prefill_chunk),
        .type = VL_ST_COUNT, RANGE(1, VL_MAX_SEQ), .zero_ok = true, .modes = VL_IN_INFER,
        .arg = "N",
        .help = "prompt tokens a prefill step takes, vLLM's --max-num-batched-tokens (default "
                "the framework's for the GPU and length: vllm 8192, 2048 under 70 GiB and on "
                "A100s; vllm-v0 2048, the whole sequence up to 32768 tokens)",
        .label = N_("prefill chunk"), SLIDER(256, 65536, VL_STEP_POW2)},
    ROW(VL_SET_PROFILE_SEQS) .flag = "profile-seqs", FIELD(profile_seqs), .type = VL_ST_COUNT,
        RANGE(1, VL_MAX_BATCH), .zero_ok = true, .modes = VL_IN_INFER, .arg = "N",
        .help = "sequences the engine's profile run shares the prefill chunk over, vLLM's "
                "--max-num-seqs (default the framework's for the GPU: vllm 1024 or 256)",
        .label = N_("profile seqs"), SLIDER(1, 4096, VL_STEP_POW2), .json_break = true},
    /* the GPU's memory (report_gpu) */
    ROW(VL_SET_CAPACITY) .flag = "capacity", FIELD(capacity), .type = VL_ST_SIZE,
        RANGE(VL_MIN_CAPACITY, VL_MAX_OVERHEAD), .zero_ok = true, .modes = VL_IN_BOTH,
        .arg = "SIZE",
        .help = "each GPU's memory, in place of the --gpu preset's: 40GiB, 24GB (a MIG slice, "
                "a card not in the catalog)",
        .label = N_("capacity"), SLIDER(VL_MIN_CAPACITY, 1024 * VL_GIB, VL_STEP_GIB)},
    ROW(VL_SET_INTERCONNECT) .flag = "interconnect", FIELD(interconnect),
        ENUM(vl_link_names, VL_N_LINKS), .modes = VL_IN_BOTH, .arg = "L",
        .help = "how the GPUs reach each other, for the communicators' buffers: pcie, nvlink "
                "(NVLink or NVSwitch) or auto, the --gpu preset's (default auto)",
        .label = N_("interconnect"), .inert = interconnect_inert},
    /* the runtime's CUDA (vl_runtime_on) */
    ROW(VL_SET_CUDA) .flag = "cuda", FIELD(cuda), ENUM(vl_cuda_names, VL_N_CUDAS),
        .current_from = "13.0", .older_as = "10.2", .modes = VL_IN_BOTH, .arg = "V",
        .help = "the CUDA release PyTorch was built with (torch.version.cuda), 10.2 (and "
                "earlier) to 12.9, current (13.0 and later) or auto, the CUDA of --torch's "
                "wheel on PyPI (10.2 before 1.13, 11.7 for 1.13 and 2.0, 12.1 to 2.4, 12.4 to "
                "2.6, 12.6 for 2.7, 12.8 from 2.8): before 11.7 every kernel loads with the "
                "context (default auto)",
        .label = N_("CUDA")},
    /* inference: weights offloaded to CPU memory (inference.c) */
    ROW(VL_SET_CPU_OFFLOAD) .flag = "cpu-offload", FIELD(cpu_offload), .type = VL_ST_SIZE,
        RANGE(0, VL_MAX_OVERHEAD), .modes = VL_IN_INFER, .arg = "SIZE",
        .help = "weights per GPU kept in CPU memory, read over the host link at each forward "
                "(vLLM's cpu_offload_gb; default 0: none)",
        .label = N_("CPU offload"), SLIDER(0, 1024 * VL_GIB, VL_STEP_GIB)},
};
#undef ROW
#undef SLIDER
#undef RANGE
#undef TRAIN_CHOICE
#undef ENUM
#undef FIELD

/* ---- lookup, reading and writing one setting ----------------------------------------- */

int vl_setting_by_key(const char *name)
{
    int k = vl_lookup(vl_setting_keys, VL_N_SETTINGS, name);
    for (int i = 0; k < 0 && i < VL_N_SETTINGS; i++)
        if (vl_setting_table[i].old_key && strcmp(vl_setting_table[i].old_key, name) == 0)
            k = i;
    return k;
}

int vl_setting_by_flag(const char *name, bool *negated)
{
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        bool no = d->no_flag && strcmp(d->no_flag, name) == 0;
        if (strcmp(d->flag, name) == 0 || no || (d->old_flag && strcmp(d->old_flag, name) == 0)) {
            if (negated)
                *negated = no;
            return k;
        }
    }
    return -1;
}

bool vl_setting_alias(const char *name, const char *yaml_value, vl_setting *k,
                      const char **value)
{
    bool on;
    if (yaml_value ? strcmp(name, "flash_attn") == 0 : strcmp(name, "flash-attn") == 0)
        on = yaml_value ? strcmp(yaml_value, "true") == 0 : true;
    else if (!yaml_value && strcmp(name, "no-flash-attn") == 0)
        on = false;
    else
        return false;
    if (yaml_value && !on && strcmp(yaml_value, "false") != 0)
        return false; /* not a switch's value: the key's own message */
    *k = VL_SET_ATTENTION;
    *value = on ? "flash" : "eager";
    return true;
}

uint64_t vl_setting_get(vl_setting k, const vl_settings *s)
{
    const vl_setting_desc *d = &vl_setting_table[k];
    const char *field = (const char *)s + d->offset;
    if (d->size == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    if (d->size == sizeof(bool)) {
        bool v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    unsigned v; /* unsigned fields and int-sized enums */
    memcpy(&v, field, sizeof v);
    return v;
}

void vl_setting_put(vl_setting k, vl_settings *s, uint64_t v)
{
    const vl_setting_desc *d = &vl_setting_table[k];
    char *field = (char *)s + d->offset;
    if (d->size == sizeof(uint64_t)) {
        memcpy(field, &v, sizeof v);
    } else if (d->size == sizeof(bool)) {
        bool b = v != 0;
        memcpy(field, &b, sizeof b);
    } else {
        unsigned u = (unsigned)v;
        memcpy(field, &u, sizeof u);
    }
}
_Static_assert(sizeof(unsigned) != sizeof(uint64_t) && sizeof(bool) != sizeof(unsigned),
               "vl_setting_get tells the fields apart by size");

/* bytes in the largest binary unit they are a whole number of: "0 B", "1 GiB", "64 TiB" */
static const char *size_text(uint64_t v, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && v && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 " %s", v, unit[u]);
    return buf;
}

/* A fraction's range in words: (0, 1], or [0, 1) where 0 is allowed (lora_dropout). */
static const char *fraction_range(const vl_setting_desc *d)
{
    return d->min ? _("above 0 and at most 1") : _("at least 0 and below 1");
}

/* A release number's first three parts ("2.10" is 2, 10, 0; "0.6.4.post1" 0, 6, 4); false
 * unless text is numbers joined by dots, with at most a local version or a post or dev
 * release after major.minor. */
static bool release_parts(const char *text, unsigned long part[3])
{
    part[0] = part[1] = part[2] = 0;
    for (int i = 0;; i++) {
        char *end;
        if (!isdigit((unsigned char)*text))
            return false;
        unsigned long n = strtoul(text, &end, 10);
        if (i < 3)
            part[i] = n;
        /* the end, or after major.minor a local version (+cu124) or a post or dev release
         * (.post1, .dev0), which name no other line */
        if (*end == '\0' || (i >= 1 && (*end == '+' || strncmp(end, ".post", 5) == 0 ||
                                         strncmp(end, ".dev", 4) == 0)))
            return true;
        if (*end != '.')
            return false;
        text = end + 1;
    }
}

vl_transformers vl_transformers_modelled(vl_transformers v)
{
    return v != VL_TF_CURRENT && v < VL_TF_4_31 ? VL_TF_4_31 : v;
}

unsigned vl_cuda_number(vl_cuda c)
{
    unsigned long part[3];
    const char *name = c == VL_CUDA_CURRENT ? vl_setting_table[VL_SET_CUDA].current_from
                                            : vl_cuda_names[c];
    return release_parts(name, part) ? (unsigned)(part[0] * 100 + part[1]) : 0;
}

/* The CUDA a PyTorch release's wheel on PyPI runs, as pip resolves its Requires-Dist
 * (nvidia-cuda-runtime-cu11 11.7.99 for 1.13 and 2.0, -cu12 12.1.105 for 2.1 to 2.4,
 * 12.4.127 for 2.5 and 2.6, 12.6.77 for 2.7, 12.8.90 for 2.8 to 2.10: current is 2.10's);
 * the wheels before 1.13 carry CUDA 10.2 inside. */
vl_cuda vl_settings_cuda(const vl_settings *s)
{
    if (s->cuda != VL_CUDA_AUTO)
        return s->cuda;
    switch (s->mode == VL_MODE_TRAIN ? s->torch : VL_TORCH_CURRENT) { /* --torch: training */
    case VL_TORCH_1_8: case VL_TORCH_1_9: case VL_TORCH_1_10: case VL_TORCH_1_11:
    case VL_TORCH_1_12: return VL_CUDA_10_2;
    case VL_TORCH_1_13: case VL_TORCH_2_0: return VL_CUDA_11_7;
    case VL_TORCH_2_1: case VL_TORCH_2_2: case VL_TORCH_2_3: case VL_TORCH_2_4: return VL_CUDA_12_1;
    case VL_TORCH_2_5: case VL_TORCH_2_6: return VL_CUDA_12_4;
    case VL_TORCH_2_7: return VL_CUDA_12_6;
    case VL_TORCH_2_8: case VL_TORCH_2_9: case VL_TORCH_CURRENT: case VL_N_TORCHES: break;
    }
    return VL_CUDA_12_8;
}

/* -1, 0 or 1 as release a is before, the same as or after b, by their first three parts. */
static int release_cmp(const unsigned long a[3], const unsigned long b[3])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Which choice of a release list text names, when it is none of d's names: current (0)
 * for a release from d->current_from on, a listed line's for a patch release of it
 * ("4.40.2" is 4.40, "0.41.1" is 0.41) or, where lines span, for any release up to the next
 * line ("0.4.9" is 0.4.8), d->older_as for one before the first line, or -1. */
static int release_choice(const vl_setting_desc *d, const char *text)
{
    unsigned long want[3], from[3], first[3];
    if (!release_parts(text, want) || !release_parts(d->current_from, from))
        return -1;
    if (release_cmp(want, from) >= 0)
        return 0;
    if (d->older_as && release_parts(d->names[1], first) && release_cmp(want, first) < 0)
        return vl_lookup(d->names, d->n_names, d->older_as);
    int best = -1; /* lines_span: the newest line at or before it */
    unsigned long line[3], at[3];
    for (int c = 1; c < d->n_names; c++) {
        size_t n = strlen(d->names[c]);
        if (!d->lines_span && strncmp(text, d->names[c], n) == 0 && text[n] == '.')
            return c;
        if (d->lines_span && release_parts(d->names[c], line) && release_cmp(line, want) <= 0 &&
            (best < 0 || (release_parts(d->names[best], at) && release_cmp(line, at) > 0)))
            best = c;
    }
    return best;
}

/* For a release that no line of d's list covers, the first listed line after it (0.7.5:
 * 0.8), the hint to give; NULL when text is no release or none comes after it. */
static const char *release_after(const vl_setting_desc *d, const char *text)
{
    unsigned long want[3], line[3];
    if (!release_parts(text, want))
        return NULL;
    for (int c = 1; c < d->n_names; c++)
        if (release_parts(d->names[c], line) && release_cmp(line, want) > 0)
            return d->names[c];
    return NULL;
}

bool vl_setting_parse(vl_setting k, const char *text, vl_settings *s, char *why, size_t len)
{
    const vl_setting_desc *d = &vl_setting_table[k];
    const char *reason = NULL;
    uint64_t v = 0;
    char shown[72]; /* the text, cut: a 128 KiB bad value would push the reason out */
    snprintf(shown, sizeof shown, "%.64s%s", text, strlen(text) > 64 ? "..." : "");
    switch (d->type) {
    case VL_ST_COUNT:
        if (!vl_parse_count(text, &v, &reason)) {
            snprintf(why, len, _("'%s' is not a whole number: %s"), shown, reason);
            return false;
        }
        break;
    case VL_ST_SIZE:
        if (!vl_parse_size(text, &v, &reason)) {
            snprintf(why, len, _("'%s' is not a size: %s (e.g. 0, 1GiB, 800MB)"), shown, reason);
            return false;
        }
        break;
    case VL_ST_ENUM: {
        int i = vl_lookup(d->names, d->n_names, text);
        if (i < 0 && d->current_from)
            i = release_choice(d, text);
        vl_gguf_ftype ft; /* llama-quantize takes its file types in either case (Q4_K_M) */
        if (i < 0 && d->names == vl_dtype_names && vl_gguf_ftype_parse(text, &ft) &&
            ft >= VL_GGUF_Q4_0 && VL_N_PLAIN_DTYPES + (int)(ft - VL_GGUF_Q4_0) < d->n_names)
            i = VL_N_PLAIN_DTYPES + (int)(ft - VL_GGUF_Q4_0);
        if (i < 0) {
            char list[256], hint[96];
            unsigned long last[3];
            const char *after = d->current_from ? release_after(d, text) : NULL;
            if (after)
                snprintf(hint, sizeof hint, _("; the first modelled after it is %s"), after);
            if (d->current_from && d->n_names > 2 &&
                release_parts(d->names[d->n_names - 1], last))
                snprintf(list, sizeof list, _("current or a release from %s to %s"), d->names[1],
                         d->names[d->n_names - 1]); /* the lines, oldest first */
            else
                vl_join(d->names, (size_t)d->n_names, list, sizeof list);
            snprintf(why, len, _("unknown value '%s' (expected %s)%s"), shown, list,
                     after ? hint : vl_hint(text, d->names, (size_t)d->n_names, hint, sizeof hint));
            return false;
        }
        v = (uint64_t)i;
        break;
    }
    case VL_ST_BOOL:
        if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0) {
            snprintf(why, len, _("expected true or false, got '%s'"), shown);
            return false;
        }
        v = strcmp(text, "true") == 0;
        break;
    case VL_ST_LORA: {
        unsigned mask;
        if (!vl_lora_parse_targets(text, &mask, why, len))
            return false;
        v = mask;
        break;
    }
    case VL_ST_FRAMEWORK: { /* the built-ins; a catalog's name is its front end's to resolve */
        const vl_framework *f = vl_framework_find(text);
        if (!f) {
            char list[256], hint[96];
            snprintf(why, len, _("unknown framework '%s' (built-in: %s)%s"), text,
                     vl_join(d->names, (size_t)d->n_names, list, sizeof list),
                     vl_hint(text, d->names, (size_t)d->n_names, hint, sizeof hint));
            return false;
        }
        v = (uint64_t)(uintptr_t)f;
        break;
    }
    case VL_ST_DAY: {
        uint32_t day;
        if (!vl_day_parse(text, &day, &reason)) {
            snprintf(why, len, _("'%s' is not a day: %s"), shown, reason);
            return false;
        }
        v = day;
        break;
    }
    case VL_ST_FRACTION:
        if (!vl_parse_fraction(text, &v, &reason)) {
            snprintf(why, len, _("'%s' is not a fraction: %s"), text, reason);
            return false;
        }
        if (v > d->max || (v < d->min && !(v == 0 && d->zero_ok))) {
            snprintf(why, len, _("must be %s, got '%s'"), fraction_range(d), text);
            return false;
        }
        break;
    }
    if (d->type == VL_ST_SIZE && (v < d->min || v > d->max)) {
        char lo[32], hi[32];
        snprintf(why, len, _("'%s' is outside %s .. %s"), shown, size_text(d->min, lo, sizeof lo),
                 size_text(d->max, hi, sizeof hi));
        return false;
    }
    if (d->type == VL_ST_COUNT && (v < d->min || v > d->max)) {
        snprintf(why, len, _("must be between %" PRIu64 " and %" PRIu64), d->min, d->max);
        return false;
    }
    vl_setting_put(k, s, v);
    return true;
}

const char *vl_setting_format(vl_setting k, const vl_settings *s, char *buf, size_t len)
{
    const vl_setting_desc *d = &vl_setting_table[k];
    uint64_t v = vl_setting_get(k, s);
    switch (d->type) {
    case VL_ST_ENUM:
        snprintf(buf, len, "%s", v < (uint64_t)d->n_names ? d->names[v] : "?");
        break;
    case VL_ST_BOOL:
        snprintf(buf, len, "%s", v ? "true" : "false");
        break;
    case VL_ST_LORA:
        vl_lora_format_targets((unsigned)v, buf, len);
        break;
    case VL_ST_FRAMEWORK:
        snprintf(buf, len, "%s", s->framework ? s->framework->name : "?");
        break;
    case VL_ST_COUNT:
    case VL_ST_SIZE:
        snprintf(buf, len, "%" PRIu64, v);
        break;
    case VL_ST_FRACTION:
        snprintf(buf, len, "%g", (double)v / (double)VL_PPM);
        break;
    case VL_ST_DAY:
        vl_day_format((uint32_t)v, buf, len);
        break;
    }
    return buf;
}

bool vl_setting_applies(vl_setting k, const vl_settings *s)
{
    return (vl_setting_table[k].modes & (1u << s->mode)) != 0;
}

/* ---- defaults and validity ------------------------------------------------------------ */

void vl_settings_default(vl_settings *s)
{
    *s = (vl_settings){
        .mode = VL_MODE_TRAIN, .precision = VL_BF16_MIXED, .optimizer = VL_ADAMW,
        .fp32_grads = false, .fp32_grad_copy = true, .zero = 0, .gpus = 1, .batch = 1,
        .seq = 2048, .gen = 0, .recompute = VL_RECOMPUTE_NONE, .head = VL_HEAD_LM, .labels = 2,
        .weight_dtype = VL_DT_BF16, .kv_dtype = VL_DT_BF16, .group_size = 128,
        .weight_format = VL_WFMT_SYMMETRIC, .exllama = true, .exllama_version = 1,
        .overhead = VL_GIB, .lora_rank = 0,
        .lora_targets = (1u << VL_LORA_Q) | (1u << VL_LORA_V), /* PEFT's default for Llama */
        .qlora = false, .double_quant = true, .quant_storage = VL_QS_UINT8,
        .loop_keeps_logits = VL_KEEP_LOGITS_AUTO,
        .use_cache = VL_CHOICE_AUTO, .outputs_fp32 = VL_CHOICE_AUTO, .autocast = VL_CHOICE_AUTO,
        .norm_upcast = VL_CHOICE_AUTO,
        .offload = VL_OFFLOAD_NONE, .gpus_per_node = 0,
        .tp = 1, .pp = 1, .grad_accum = 1, .sp = false,
        /* Llama 3 405B trained at 38-43% BF16 MFU on 8K-16K H100s (Dubey et al. 2024,
         * "The Llama 3 Herd of Models", Table 4): 0.4 */
        .mfu = 400000, .tokens = 0, .ep = 1, .cp = 1, .vpp = 1,
        .gpu_util = VL_PPM, .kv_block = 0, /* the whole GPU, one contiguous cache */
        .cuda = VL_CUDA_AUTO,
    };
    /* what current PyTorch and transformers do */
    vl_settings_take_framework(s, &vl_frameworks[VL_FW_HF]);
}

void vl_settings_default_with(vl_settings *def, const vl_settings *s)
{
    vl_settings_default(def);
    if (s->framework)
        vl_settings_take_framework(def, s->framework);
}

/* The table's ranges and choices, for settings made in code rather than parsed, and the
 * settings of the other mode, which must keep their defaults. */
static bool table_check(const vl_settings *s, char *why, size_t len)
{
    vl_settings def;
    vl_settings_default_with(&def, s);
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        uint64_t v = vl_setting_get((vl_setting)k, s);
        if (!vl_setting_applies((vl_setting)k, s)) {
            if (v != vl_setting_get((vl_setting)k, &def)) {
                snprintf(why, len, _("--%s applies to --mode %s only"), d->flag,
                         vl_mode_names[s->mode == VL_MODE_TRAIN ? VL_MODE_INFER : VL_MODE_TRAIN]);
                return false;
            }
            continue;
        }
        char list[256];
        switch (d->type) {
        case VL_ST_ENUM:
            if (v >= (uint64_t)d->n_names) {
                snprintf(why, len, _("--%s must be %s"), d->flag,
                         vl_join(d->names, (size_t)d->n_names, list, sizeof list));
                return false;
            }
            break;
        case VL_ST_LORA:
            if (v == 0 || (v & ~(uint64_t)VL_LORA_ALL_TARGETS)) {
                snprintf(why, len, _("--%s: no LoRA targets"), d->flag);
                return false;
            }
            break;
        case VL_ST_FRAMEWORK:
            if (!s->framework) {
                snprintf(why, len, _("--%s: no framework"), d->flag);
                return false;
            }
            break;
        case VL_ST_BOOL:
            break;
        case VL_ST_DAY: {
            char text[24];
            uint32_t day;
            const char *reason;
            if (!vl_day_parse(vl_day_format((uint32_t)v, text, sizeof text), &day, &reason) ||
                day != v) {
                snprintf(why, len, _("--%s must be a day from 2000 to 2099, or current"),
                         d->flag);
                return false;
            }
            break;
        }
        case VL_ST_FRACTION:
            if (v > d->max || (v < d->min && !(v == 0 && d->zero_ok))) {
                snprintf(why, len, _("--%s must be %s"), d->flag, fraction_range(d));
                return false;
            }
            break;
        case VL_ST_COUNT:
        case VL_ST_SIZE:
            if (v > d->max || (v < d->min && !(v == 0 && d->zero_ok))) {
                snprintf(why, len, _("--%s must be between %" PRIu64 " and %" PRIu64), d->flag,
                         d->min, d->max);
                return false;
            }
            break;
        }
    }
    return true;
}

const char *vl_settings_check(const vl_settings *s)
{
    if (s->mode == VL_MODE_INFER && s->gpus % s->pp != 0)
        return _("--gpus must be a multiple of --pp (serving: GPUs = tensor x pipeline parallel)");
    if (s->mode == VL_MODE_INFER && s->pp > 1 && vl_dtype_gguf(s->weight_dtype, NULL))
        return _("--pp with a GGUF --weight-dtype is not modelled (llama.cpp splits the layers "
                 "over --gpus itself)");
    if (s->mode == VL_MODE_INFER && s->cpu_offload && vl_dtype_gguf(s->weight_dtype, NULL))
        return _("--cpu-offload with a GGUF --weight-dtype is not modelled (llama.cpp runs the "
                 "layers it keeps in CPU memory on the CPU: --n-gpu-layers)");
    /* the V1 engine became the default in 0.8; 0.11 removed the V0 engine */
    const bool v0 = vl_is_vllm_v0(s->framework);
    if (s->mode == VL_MODE_INFER && vl_is_vllm(s->framework) && !v0 &&
        vl_vllm_line(s->vllm) < 8)
        return _("--vllm before 0.8 is a release of vLLM's V0 engine: --framework vllm-v0 (the "
                 "vllm profile is the V1 engine's, from 0.8)");
    if (s->mode == VL_MODE_INFER && v0 && s->vllm != VL_VLLM_CURRENT && vl_vllm_line(s->vllm) > 10)
        return _("--vllm under vllm-v0 must be 0.10 or earlier (0.11 removed the V0 engine)");
    /* bnb8 is LLM.int8() as transformers' load_in_8bit and Lightning's bnb.int8 load and run
     * it; a serving engine's loader and kernels for it are not read */
    if (s->mode == VL_MODE_INFER && s->weight_dtype == VL_DT_BNB8 &&
        s->framework->kv_sizing != VL_KV_NONE)
        return _("--weight-dtype bnb8 under a serving engine's profile is not modelled (bnb8 is "
                 "bitsandbytes' LLM.int8() as transformers' load_in_8bit runs it)");
    if (s->mode == VL_MODE_INFER && s->weight_dtype == VL_DT_INT8 &&
        s->weight_format == VL_WFMT_AWQ)
        return _("--weight-format awq needs --weight-dtype int4 (AWQ's checkpoints are 4-bit)");
    if (s->mode == VL_MODE_INFER && s->loop_keeps_logits == VL_KEEP_LOGITS_BACKWARD)
        return _("--loop-keeps-logits backward applies to training (inference has no "
                 "backward): true keeps the forward before's outputs through a forward");
    if (s->mode == VL_MODE_INFER)
        return s->seq + s->gen > VL_MAX_SEQ ? _("--seq plus --gen must be at most 16777216") : NULL;
    if (s->fp32_grads && pure16(s))
        return _("--fp32-grads needs fp32, fp16-mixed, bf16-mixed, fp16-amp or bf16-amp");
    if (s->qlora && !s->lora_rank)
        return _("--qlora needs --lora-rank (QLoRA trains LoRA adapters over a 4-bit base)");
    if (s->gpus % (s->tp * s->pp) != 0)
        return _("--gpus must be a multiple of --tp x --pp (GPUs = tensor x pipeline x data "
                 "parallel)");
    if (s->cp > 1 && s->gpus % (s->tp * s->pp * s->cp) != 0)
        return _("--gpus must be a multiple of --tp x --pp x --cp (GPUs = tensor x pipeline x "
                 "context x data parallel)");
    /* Megatron-Core cuts a sequence into 2 x cp chunks and gives each GPU two, one from each
     * end, so that a causal mask's work is balanced (get_batch_on_this_cp_rank) */
    if (s->cp > 1 && s->seq % (2 * s->cp) != 0)
        return _("--seq must be a multiple of 2 x --cp (context parallelism gives each GPU two "
                 "of 2 x cp equal chunks of the sequence)");
    if (s->cp > 1 && s->attention == VL_ATTN_EAGER)
        return _("--cp needs --attention sdpa or flash (context parallelism runs ring attention "
                 "over blocks, never the whole s x s scores)");
    if (vl_autocast_refused(s))
        return s->autocast == VL_CHOICE_FALSE
                   ? _("--autocast false: the -amp precisions are autocast over fp32 weights "
                       "(give fp16 or bf16 for a 16-bit model without it)")
                   : _("--autocast true: autocast over fp32 weights is --precision bf16-amp "
                       "or fp16-amp");
    if (s->attention == VL_ATTN_SDPA && !s->framework->transformers &&
        !vl_torch_runs_sdpa(s, false))
        return _("--torch: SDPA attention needs PyTorch 2.0 or later, which brought "
                 "scaled_dot_product_attention (give --attention eager or flash)");
    if (s->cp > 1 && (s->ep > 1 || s->lora_rank))
        return _("--cp with --ep or --lora-rank is not modelled (context parallelism as "
                 "Megatron-Core runs it: full fine-tuning, dense or with --tp, --pp)");
    if (s->vpp > 1 && s->pp < 2)
        return _("--vpp needs --pp 2 or more (interleaving splits each pipeline stage's layers "
                 "into model chunks)");
    /* Megatron's interleaved schedule runs the micro-batches in groups of pp */
    if (s->vpp > 1 && s->grad_accum % s->pp != 0)
        return _("--vpp needs --grad-accum a multiple of --pp (the interleaved schedule runs "
                 "micro-batches in groups of pp)");
    if (s->sp && s->tp < 2)
        return _("--sp (sequence parallel) needs --tp 2 or more");
    if (s->lora_rank && s->tp * s->pp > 1)
        return _("--lora-rank with --tp or --pp is not modelled (LoRA runs data parallel)");
    if (s->offload == VL_OFFLOAD_PARAMS && s->zero != 3)
        return _("--offload params needs --zero 3 (only ZeRO-3 shards the weights it moves)");
    if (s->offload == VL_OFFLOAD_OPTIMIZER && s->zero == 0)
        return _("--offload optimizer needs --zero 1, 2 or 3 (ZeRO-Offload moves each GPU's "
                 "optimizer partition)");
    if (s->ep > 1 && (s->gpus / (s->tp * s->pp)) % s->ep != 0)
        return _("--ep must divide the data-parallel GPUs, --gpus / (--tp x --pp) (expert "
                 "parallelism splits the experts over data-parallel ranks)");
    if (s->ep > 1 && (s->tp * s->pp > 1 || s->lora_rank))
        return _("--ep with --tp, --pp or --lora-rank is not modelled (expert parallelism runs "
                 "with data parallelism and full fine-tuning)");
    if (vl_optimizer_shaped[s->optimizer] && s->ep > 1)
        return _("this --optimizer keeps states shaped like each matrix, which vramlab models "
                 "without --ep");
    if (vl_optimizer_shaped[s->optimizer] && (s->lora_rank || s->tp * s->pp > 1))
        return _("this --optimizer keeps states shaped like each matrix, which vramlab models "
                 "with data parallelism and full fine-tuning only (no --lora-rank, --tp or --pp)");
    return NULL;
}

bool vl_settings_valid(const vl_settings *s, const vl_arch *a, char *why, size_t len)
{
    if (!table_check(s, why, len))
        return false;
    const char *r = vl_settings_check(s);
    if (r) {
        snprintf(why, len, "%s", r);
        return false;
    }
    if (!a) /* no model yet (a scenario file on its own) */
        return true;
    if (s->mode == VL_MODE_INFER && s->gen > 0 && vl_arch_encoder(a)) {
        snprintf(why, len, "%s",
                 _("--gen: an encoder (post-norm with token types or a pooler: BERT) reads "
                   "its input in one pass and generates no tokens"));
        return false;
    }
    if (s->cp > 1 && vl_attention_for(s, a) == VL_ATTN_EAGER) {
        snprintf(why, len, _("--cp needs SDPA, which this model's class runs from transformers "
                             "%s on (--transformers)"),
                 vl_transformers_names[a->sdpa_from]);
        return false;
    }
    if (s->pp > a->layers) {
        snprintf(why, len, _("--pp %" PRIu64 " must be at most the model's %" PRIu64 " layers (a "
                   "stage holds whole layers)"), s->pp, a->layers);
        return false;
    }
    if (s->mode == VL_MODE_INFER) {
        /* each GPU keeps whole attention heads and, for the cache, whole KV heads or a
         * replica of one (a KV head is replicated when GPUs outnumber them); with --pp the
         * tensor-parallel GPUs are those of one stage, --gpus / --pp */
        uint64_t g = s->gpus / s->pp;
        const char *count = s->pp > 1 ? "--gpus / --pp" : _("the GPU count");
        if (g > 1 && a->heads % g != 0)
            snprintf(why, len, _("--gpus: tensor parallelism needs %s to divide the "
                                 "model's attention heads"), count);
        else if (g > 1 && a->kv_heads % g != 0 && g % a->kv_heads != 0)
            snprintf(why, len, _("--gpus: tensor parallelism needs %s and the model's "
                                 "KV heads to divide one another"), count);
        else
            return true;
        return false;
    }
    if (s->ep > 1 && (a->experts < 2 || a->experts % s->ep != 0)) {
        snprintf(why, len, a->experts < 2 ? _("--ep needs a mixture-of-experts model")
                                           : _("--ep %" PRIu64 " must divide the model's %" PRIu64
                                               " routed experts (each GPU keeps whole experts)"),
                 s->ep, a->experts);
        return false;
    }
    if (s->tp > 1 && a->heads % s->tp != 0) {
        snprintf(why, len,
                 _("--tp %" PRIu64 " must divide the model's %" PRIu64 " attention heads"), s->tp,
                 a->heads);
        return false;
    }
    if (s->tp > 1 && a->kv_heads % s->tp != 0) {
        snprintf(why, len, _("--tp %" PRIu64 " must divide the model's %" PRIu64 " KV heads (each "
                   "GPU keeps whole KV heads)"), s->tp, a->kv_heads);
        return false;
    }
    if (s->tp > 1 && a->kv_lora_rank) {
        snprintf(why, len, "%s", _("--tp with multi-head latent attention is not modelled"));
        return false;
    }
    if (s->vpp > 1 && a->layers % (s->pp * s->vpp) != 0) {
        snprintf(why, len, _("--pp x --vpp (%" PRIu64 ") must divide the model's %" PRIu64
                   " layers (each model chunk holds as many whole layers)"), s->pp * s->vpp,
                 a->layers);
        return false;
    }
    return true;
}

/* ---- settings given in part ----------------------------------------------------------- */

void vl_patch_mark(vl_settings_patch *p, vl_setting k)
{
    vl_set_add(&p->given, k);
}

void vl_settings_on_transformers(vl_settings *s)
{
    /* attn_implementation, and with it SDPA for the models that support it, came in 4.36
     * (modeling_utils.py, _autoset_attn_implementation); every model ran eager before */
    if (s->framework->transformers && s->transformers != VL_TF_CURRENT &&
        s->transformers < VL_TF_4_36)
        s->attention = VL_ATTN_EAGER;
}

bool vl_precision_is_mixed(vl_precision p)
{
    return p == VL_FP16_MIXED || p == VL_BF16_MIXED;
}

bool vl_precision_is_amp(vl_precision p)
{
    return p == VL_FP16_AMP || p == VL_BF16_AMP;
}

bool vl_precision_holds_16bit(vl_precision p)
{
    return p != VL_FP32 && !vl_precision_is_amp(p);
}

bool vl_settings_padded(const vl_settings *s)
{
    return s->mode == VL_MODE_TRAIN &&
           (s->padded == VL_CHOICE_TRUE || (s->padded == VL_CHOICE_AUTO && s->batch > 1));
}

bool vl_autocast_refused(const vl_settings *s)
{
    return (s->autocast == VL_CHOICE_FALSE && vl_precision_is_amp(s->precision)) ||
           (s->autocast == VL_CHOICE_TRUE && s->precision == VL_FP32);
}

bool vl_torch_runs_sdpa(const vl_settings *s, bool transformers)
{
    /* scaled_dot_product_attention came in PyTorch 2.0; transformers takes it from 2.1.1
     * (utils/import_utils.py, is_torch_sdpa_available: the scale argument, an arbitrary
     * mask in the memory-efficient kernel, pytorch issue #112577), taking the 2.1 line at
     * its last patch, 2.1.2; --torch is training's (vl_settings_cuda) */
    if (s->mode != VL_MODE_TRAIN || s->torch == VL_TORCH_CURRENT)
        return true;
    return s->torch >= (transformers ? VL_TORCH_2_1 : VL_TORCH_2_0);
}

vl_attention vl_attention_for(const vl_settings *s, const vl_arch *a)
{
    /* from_pretrained sets attn_implementation "sdpa" only for a class that supports it
     * on a PyTorch that transformers runs it on, "eager" for the others
     * (modeling_utils.py, _autoset_attn_implementation) */
    if (s->attention == VL_ATTN_SDPA && s->framework->transformers &&
        ((s->transformers != VL_TF_CURRENT && (int)s->transformers < a->sdpa_from) ||
         !vl_torch_runs_sdpa(s, true)))
        return VL_ATTN_EAGER;
    return s->attention;
}

void vl_settings_on_vllm(vl_settings *s)
{
    /* gpu_memory_utilization's default went from 0.9 to 0.92 in 0.20.0, as the CUDA graphs'
     * estimate began to come off the cache (vllm pull request #38284), and to 1.0 in 0.34.0
     * with the extensible KV cache (vllm/config/cache.py, resolved_gpu_memory_utilization:
     * "1.0 ... and 0.92 otherwise") */
    if (!vllm_inert(s)) {
        const unsigned line = vl_vllm_line(s->vllm);
        s->gpu_util = line < 20 ? 900000 : line < 34 ? 920000 : s->framework->gpu_util;
    }
}

void vl_settings_apply(vl_settings *s, const vl_settings_patch *p)
{
    /* a framework brings its choices, a day its releases, and a transformers release its
     * attention, which the patch's own settings may then override */
    if (vl_set_has(p->given, VL_SET_FRAMEWORK))
        vl_settings_take_framework(s, p->values.framework);
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (vl_set_has(p->given, k))
            vl_setting_put((vl_setting)k, s, vl_setting_get((vl_setting)k, &p->values));
    const uint32_t day = vl_patch_day(p);
    const vl_setting_set given =
        day != VL_DAY_CURRENT ? vl_set_union(p->given, vl_settings_on_day(s, day, p->given))
                              : p->given;
    if (vl_set_has(given, VL_SET_TRANSFORMERS) && !vl_set_has(given, VL_SET_ATTENTION))
        vl_settings_on_transformers(s);
    if (vl_set_has(given, VL_SET_VLLM) && !vl_set_has(given, VL_SET_GPU_UTIL))
        vl_settings_on_vllm(s);
}

void vl_patch_merge(vl_settings_patch *to, const vl_settings_patch *from)
{
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (vl_set_has(from->given, k)) {
            vl_setting_put((vl_setting)k, &to->values, vl_setting_get((vl_setting)k, &from->values));
            vl_patch_mark(to, (vl_setting)k);
        }
}

void vl_settings_write_yaml(FILE *out, const vl_settings *s, int indent)
{
    int col = indent;
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        if (!vl_setting_applies((vl_setting)k, s) || (d->inert && d->inert(s)) ||
            (d->zero_ok && vl_setting_get((vl_setting)k, s) == 0))
            continue;
        char v[64], item[96];
        const char *text = vl_setting_format((vl_setting)k, s, v, sizeof v);
        bool quote = d->type == VL_ST_LORA; /* "q,v": a comma in flow style */
        int n = snprintf(item, sizeof item, "%s: %s%s%s,", vl_setting_keys[k],
                         quote ? "\"" : "", text, quote ? "\"" : "");
        if (col > indent && col + 1 + n > 92) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        }
        fprintf(out, "%s%s", col > indent ? " " : "", item);
        col += (col > indent) + n;
    }
}
