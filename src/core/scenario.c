/* scenario.c: settings given in part, laid over others. */
#include "scenario.h"

#include <stddef.h>
#include <string.h>

const char *const vl_setting_names[VL_N_SETTINGS] = {
    "mode", "precision", "optimizer", "fp32_grads", "fp32_grad_copy", "zero", "gpus", "batch",
    "seq", "gen", "recompute", "flash_attn", "weight_dtype", "kv_dtype", "overhead", "group_size",
    "lora_rank", "lora_targets", "qlora", "offload", "gpus_per_node", "tp", "pp", "sp",
    "grad_accum",
};

#define F(field) {offsetof(vl_settings, field), sizeof(((vl_settings *)0)->field)}
static const struct {
    size_t offset, size;
} fields[VL_N_SETTINGS] = {
    [VL_SET_MODE] = F(mode), [VL_SET_PRECISION] = F(precision),
    [VL_SET_OPTIMIZER] = F(optimizer), [VL_SET_FP32_GRADS] = F(fp32_grads),
    [VL_SET_FP32_GRAD_COPY] = F(fp32_grad_copy), [VL_SET_ZERO] = F(zero),
    [VL_SET_GPUS] = F(gpus), [VL_SET_BATCH] = F(batch), [VL_SET_SEQ] = F(seq),
    [VL_SET_GEN] = F(gen), [VL_SET_RECOMPUTE] = F(recompute),
    [VL_SET_FLASH_ATTN] = F(flash_attn), [VL_SET_WEIGHT_DTYPE] = F(weight_dtype),
    [VL_SET_KV_DTYPE] = F(kv_dtype), [VL_SET_OVERHEAD] = F(overhead),
    [VL_SET_GROUP_SIZE] = F(group_size), [VL_SET_LORA_RANK] = F(lora_rank),
    [VL_SET_LORA_TARGETS] = F(lora_targets), [VL_SET_QLORA] = F(qlora),
    [VL_SET_OFFLOAD] = F(offload), [VL_SET_GPUS_PER_NODE] = F(gpus_per_node),
    [VL_SET_TP] = F(tp), [VL_SET_PP] = F(pp), [VL_SET_SP] = F(sp),
    [VL_SET_GRAD_ACCUM] = F(grad_accum),
};
#undef F

void vl_patch_mark(vl_settings_patch *p, vl_setting k)
{
    p->given |= 1u << k;
}

void vl_settings_apply(vl_settings *s, const vl_settings_patch *p)
{
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (p->given & (1u << k))
            memcpy((char *)s + fields[k].offset, (const char *)&p->values + fields[k].offset,
                   fields[k].size);
}
