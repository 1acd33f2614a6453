/* test_explorer.c: the explorer's sliders move the settings the way the keys promise, and
 * every state shows exactly what vl_estimate computes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/lora.h"
#include "tui/explorer.h"
#include "helpers.h"


/* The breakdown on screen is the core's for the same settings, ZeRO comparison included. */
static void assert_consistent(const explorer *e)
{
    vl_breakdown b;
    assert_null(vl_estimate(&e->model, &e->s, &b));
    assert_int_equal(e->b.total, b.total);
    for (unsigned z = 0; z < 4; z++) {
        vl_settings s = e->s;
        s.zero = z;
        assert_null(vl_estimate(&e->model, &s, &b));
        assert_int_equal(e->zero[z].total, b.total);
    }
}

static void test_gpus_slider(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_consistent(&e);
    assert_true(explorer_move(&e, VL_SET_GPUS, 3, false));
    assert_int_equal(e.s.gpus, 4);
    assert_true(explorer_move(&e, VL_SET_GPUS, 1, true)); /* coarse: next power of two */
    assert_int_equal(e.s.gpus, 8);
    assert_true(explorer_move(&e, VL_SET_GPUS, 1, false));
    assert_true(explorer_move(&e, VL_SET_GPUS, -1, true));
    assert_int_equal(e.s.gpus, 8);
    assert_true(explorer_jump(&e, VL_SET_GPUS, true));
    assert_int_equal(e.s.gpus, vl_setting_table[VL_SET_GPUS].slider_max);
    assert_false(explorer_move(&e, VL_SET_GPUS, 1, false)); /* clamped */
    assert_true(explorer_jump(&e, VL_SET_GPUS, false));
    assert_int_equal(e.s.gpus, 1);
    assert_false(explorer_move(&e, VL_SET_GPUS, -1, false));
    assert_consistent(&e);
}

static void test_params_slider_detaches(void **state)
{
    (void)state;
    explorer e;
    char v[64];
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_false(e.detached);
    assert_true(explorer_move(&e, SL_PARAMS, 1, false)); /* 6.74e9 -> 6.8e9 (E12) */
    assert_true(e.detached);
    assert_int_equal(e.model.free_params, 6800000000ULL);
    explorer_value(&e, SL_PARAMS, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "6.8e9");
    assert_true(explorer_move(&e, SL_PARAMS, -2, false)); /* 6.8e9 -> 5.6e9 -> 4.7e9 */
    assert_int_equal(e.model.free_params, 4700000000ULL);
    assert_true(explorer_move(&e, SL_PARAMS, 1, true)); /* a decade */
    assert_int_equal(e.model.free_params, 47000000000ULL);
    assert_true(explorer_jump(&e, SL_PARAMS, true));
    assert_int_equal(e.model.free_params, EX_MAX_PARAMS);
    assert_consistent(&e);
    explorer_load_model(&e, vl_catalog_model(&cat, "gpt2")); /* a preset re-attaches */
    assert_false(e.detached);
    assert_int_equal(e.b.P, 124439808ULL);
}

static void test_context_slider(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_true(explorer_move(&e, VL_SET_SEQ, 1, false));
    assert_int_equal(e.s.seq, 4096);
    assert_true(explorer_move(&e, VL_SET_SEQ, 1, true));
    assert_int_equal(e.s.seq, 32768);
    assert_null(explorer_set(&e, VL_SET_SEQ, "3000"));
    assert_int_equal(e.s.seq, 3000);
    assert_true(explorer_move(&e, VL_SET_SEQ, 1, false)); /* off the grid: to the next power */
    assert_int_equal(e.s.seq, 4096);
    assert_null(explorer_set(&e, VL_SET_SEQ, "3000"));
    assert_true(explorer_move(&e, VL_SET_SEQ, -1, false));
    assert_int_equal(e.s.seq, 2048);
    assert_consistent(&e);
}

static void test_typed_values(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    const char *why = explorer_set(&e, VL_SET_GPUS, "7Q");
    assert_non_null(why);
    assert_string_equal(why, "GPUs: '7Q' is not a whole number: unknown unit suffix");
    assert_int_equal(e.s.gpus, 1);
    why = explorer_set(&e, VL_SET_GPUS, "0");
    assert_non_null(strstr(why, "must be between 1 and"));
    assert_null(explorer_set(&e, SL_PARAMS, "70B"));
    assert_int_equal(e.model.free_params, 70000000000ULL);
    assert_null(explorer_set(&e, VL_SET_PRECISION, "fp16-mixed"));
    assert_int_equal(e.s.precision, VL_FP16_MIXED);
    assert_non_null(explorer_set(&e, VL_SET_PRECISION, "fp8"));
    assert_null(explorer_set(&e, SL_GPU, "a100-40gb"));
    assert_string_equal(explorer_gpu(&e)->name, "a100-40gb");
    assert_consistent(&e);
}

/* The framework slider steps through the catalog's frameworks (the GPU slider's way), each
 * bringing its attention kernel and loss dtype; a typed name is any of them, and the
 * timeline is the one of the profile chosen. */
static void test_framework_slider(void **state)
{
    (void)state;
    static const char mine[] = "kind: framework\nname: mine\nattention: flash\n";
    char err[VL_ERR_LEN];
    vl_kind k;
    size_t at;
    assert_true(vl_catalog_add_text(&cat, "mine.yaml", mine, strlen(mine), &k, &at, err));
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    char v[64];
    explorer_value(&e, VL_SET_FRAMEWORK, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "hf"); /* the default, the C table's, found by name */
    /* from the first to the last, one step each */
    assert_true(explorer_jump(&e, VL_SET_FRAMEWORK, false));
    explorer_value(&e, VL_SET_FRAMEWORK, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, cat.frameworks[0].name);
    for (size_t i = 1; i < cat.n_frameworks; i++) {
        assert_true(explorer_move(&e, VL_SET_FRAMEWORK, 1, false));
        assert_ptr_equal(e.s.framework, &cat.frameworks[i]);
        assert_int_equal(e.s.attention, cat.frameworks[i].attention);
        assert_int_equal(e.s.loss_dtype, cat.frameworks[i].loss_dtype);
    }
    assert_false(explorer_move(&e, VL_SET_FRAMEWORK, 1, false)); /* the last */
    assert_int_equal(cat.n_frameworks, vl_n_frameworks + 1);
    assert_null(explorer_set(&e, VL_SET_FRAMEWORK, "mine"));
    assert_ptr_equal(e.s.framework, &cat.frameworks[at]);
    assert_int_equal(e.s.attention, VL_ATTN_FLASH);
    assert_consistent(&e);
    assert_null(explorer_set(&e, VL_SET_FRAMEWORK, "pytorch"));
    assert_int_equal(e.s.attention, VL_ATTN_EAGER);
    assert_non_null(strstr(e.note, "attention -> eager")); /* its choices, said */
    assert_string_equal(explorer_set(&e, VL_SET_FRAMEWORK, "tensorflow"),
                        "framework: unknown value 'tensorflow'");
    teardown(NULL); /* the others' catalog: the built-ins only */
    assert_int_equal(setup(NULL), 0);
}

static void test_choices(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_true(explorer_jump(&e, VL_SET_ZERO, true));
    assert_int_equal(e.s.zero, 3);
    assert_false(explorer_move(&e, VL_SET_ZERO, 1, false));
    assert_true(explorer_move(&e, VL_SET_FP32_GRADS, 1, false));
    assert_true(e.s.fp32_grads);
    assert_null(explorer_set(&e, VL_SET_PRECISION, "bf16")); /* pure 16-bit: switch follows */
    assert_false(e.s.fp32_grads);
    assert_null(e.error);
    assert_true(explorer_fraction(&e, VL_SET_ZERO) == 1.0);
    assert_true(explorer_jump(&e, VL_SET_ZERO, false));
    assert_true(explorer_fraction(&e, VL_SET_ZERO) == 0.0);
    assert_consistent(&e);
}

/* A scenario brings its model, GPU and settings: the ZeRO paper's 7.5B on 64 GPUs gives
 * the paper's Figure 1 model states at ZeRO 0-3 (16 B/param: 120, 31.4, 16.6, 1.875 GB). */
static void test_scenario(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    const vl_scenario *sc = vl_catalog_scenario(&cat, "zero-paper-7.5b-64gpus");
    assert_non_null(sc);
    assert_null(explorer_load_scenario(&e, sc));
    assert_true(e.detached);
    assert_int_equal(e.s.gpus, 64);
    assert_int_equal(e.s.zero, 3);
    assert_string_equal(explorer_gpu(&e)->name, "v100-32gb");
    static const uint64_t fig1[4] = {120000000000ULL, 31406250000ULL, 16640625000ULL,
                                     1875000000ULL};
    for (int z = 0; z < 4; z++) {
        const uint64_t *b = e.zero[z].bytes;
        assert_int_equal(b[VL_C_WEIGHTS] + b[VL_C_GRADIENTS] + b[VL_C_OPTIMIZER], fig1[z]);
    }
    assert_consistent(&e);
}

/* The fine-tuning and parallelism sliders, and the settings that follow them. */
static void test_finetune_sliders(void **state)
{
    (void)state;
    explorer e;
    vl_breakdown b;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_true(explorer_move(&e, VL_SET_LORA_RANK, 4, false)); /* off, 1, 2, 4, 8 */
    assert_int_equal(e.s.lora_rank, 8);
    assert_true(explorer_move(&e, VL_SET_QLORA, 1, false));
    assert_true(e.s.qlora);
    assert_null(e.error);
    assert_true(explorer_jump(&e, VL_SET_LORA_RANK, false)); /* off: QLoRA goes with it */
    assert_int_equal(e.s.lora_rank, 0);
    assert_false(e.s.qlora);
    assert_true(explorer_move(&e, VL_SET_QLORA, 1, false)); /* QLoRA brings rank 16 */
    assert_int_equal(e.s.lora_rank, 16);
    assert_null(explorer_set(&e, VL_SET_LORA_RANK, "0"));
    assert_false(e.s.qlora);

    /* offload brings the ZeRO stage it needs; the ZeRO slider steps it down */
    assert_true(explorer_jump(&e, VL_SET_OFFLOAD, true));
    assert_int_equal(e.s.offload, VL_OFFLOAD_PARAMS);
    assert_int_equal(e.s.zero, 3);
    assert_null(e.error);
    assert_true(explorer_move(&e, VL_SET_ZERO, -1, false));
    assert_int_equal(e.s.offload, VL_OFFLOAD_OPTIMIZER);
    assert_true(explorer_jump(&e, VL_SET_ZERO, false));
    assert_int_equal(e.s.offload, VL_OFFLOAD_NONE);

    /* tensor x pipeline: the GPUs stay whole groups; sequence parallel needs t >= 2, and
     * says so rather than switch to no effect */
    assert_false(explorer_move(&e, VL_SET_SP, 1, false));
    assert_false(e.s.sp);
    assert_non_null(strstr(e.note, "sequence par. has no effect now: sequence parallel needs "
                                   "tensor par. 2 or more"));
    assert_true(explorer_move(&e, VL_SET_TP, 2, false));
    assert_int_equal(e.s.tp, 4);
    assert_int_equal(e.s.gpus, 4);
    assert_true(explorer_move(&e, VL_SET_PP, 1, false));
    assert_int_equal(e.s.gpus, 8);
    assert_true(explorer_move(&e, VL_SET_GPUS, 1, false)); /* the next whole group */
    assert_int_equal(e.s.gpus, 16);
    assert_true(explorer_move(&e, VL_SET_SP, 1, false));
    assert_true(e.s.sp);
    assert_true(explorer_move(&e, VL_SET_GRAD_ACCUM, 2, false));
    assert_int_equal(e.s.grad_accum, 4);
    assert_null(e.error);
    vl_settings s = explorer_settings(&e);
    assert_null(vl_estimate(&e.model, &s, &b));
    assert_int_equal(e.b.total, b.total);
    assert_int_equal(e.b.par.global_batch, 4 * 2); /* micro-batch 1 x data 2 x 4 */
    char v[32];
    explorer_value(&e, VL_SET_LORA_RANK, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "off (full)");

    /* inference leaves them aside */
    assert_true(explorer_move(&e, VL_SET_MODE, 1, false));
    s = explorer_settings(&e);
    assert_int_equal(s.tp, 1);
    assert_false(s.sp);
}

/* The sliders of the finer choices: LoRA's targets step through the common sets by the
 * matrices they adapt (a typed list between them by its count), and the switches and counts
 * of QLoRA's scales, the paged optimizer, the PyTorch release, the classes of a cls head and
 * int4's groups move, each inert with its reason until it applies. */
static void test_finer_choice_sliders(void **state)
{
    (void)state;
    explorer e;
    char v[64];
    unsigned qv = 1u << VL_LORA_Q | 1u << VL_LORA_V;
    unsigned qkvo = qv | 1u << VL_LORA_K | 1u << VL_LORA_O;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_false(explorer_move(&e, VL_SET_LORA_TARGETS, 1, false)); /* no adapters yet */
    assert_non_null(strstr(e.note, "no LoRA rank: full fine-tuning"));
    assert_true(explorer_move(&e, VL_SET_LORA_RANK, 5, false)); /* rank 16 */
    assert_int_equal(e.s.lora_targets, qv);
    assert_true(explorer_move(&e, VL_SET_LORA_TARGETS, 1, false));
    assert_int_equal(e.s.lora_targets, qkvo);
    explorer_value(&e, VL_SET_LORA_TARGETS, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "q,k,v,o");
    assert_true(explorer_move(&e, VL_SET_LORA_TARGETS, 1, false));
    assert_int_equal(e.s.lora_targets, VL_LORA_ALL_LINEAR);
    assert_true(explorer_fraction(&e, VL_SET_LORA_TARGETS) * 7 == 6.0); /* 7 of 8 matrices */
    assert_true(explorer_move(&e, VL_SET_LORA_TARGETS, 1, false)); /* and the output layer */
    assert_int_equal(e.s.lora_targets, VL_LORA_ALL_TARGETS);
    explorer_value(&e, VL_SET_LORA_TARGETS, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "all-linear,head");
    assert_true(explorer_fraction(&e, VL_SET_LORA_TARGETS) == 1.0);
    assert_false(explorer_move(&e, VL_SET_LORA_TARGETS, 1, false)); /* the last set */
    assert_true(explorer_move(&e, VL_SET_LORA_TARGETS, -1, true)); /* coarse: the first */
    assert_int_equal(e.s.lora_targets, qv);
    assert_false(explorer_move(&e, VL_SET_LORA_TARGETS, -1, false));
    /* a typed list of three lies between q,v and q,k,v,o */
    assert_null(explorer_set(&e, VL_SET_LORA_TARGETS, "q,k,v"));
    assert_true(explorer_fraction(&e, VL_SET_LORA_TARGETS) * 7 == 2.0); /* 3 of 8 matrices */
    assert_true(explorer_move(&e, VL_SET_LORA_TARGETS, -1, false));
    assert_int_equal(e.s.lora_targets, qv);
    assert_null(explorer_set(&e, VL_SET_LORA_TARGETS, "q,k,v"));
    assert_true(explorer_move(&e, VL_SET_LORA_TARGETS, 1, false));
    assert_int_equal(e.s.lora_targets, qkvo);
    assert_non_null(explorer_set(&e, VL_SET_LORA_TARGETS, "q,x"));
    assert_int_equal(e.s.lora_targets, qkvo);
    assert_consistent(&e);

    /* QLoRA's block scales: off is transformers' default, 4.5 bits a weight, more bytes */
    assert_non_null(explorer_inert(&e, VL_SET_DOUBLE_QUANT));
    assert_true(explorer_move(&e, VL_SET_QLORA, 1, false));
    assert_null(explorer_inert(&e, VL_SET_DOUBLE_QUANT));
    uint64_t dq = e.b.bytes[VL_C_WEIGHTS];
    assert_true(explorer_move(&e, VL_SET_DOUBLE_QUANT, -1, false));
    assert_false(e.s.double_quant);
    assert_true(e.b.bytes[VL_C_WEIGHTS] > dq);
    assert_consistent(&e);

    /* the paged optimizer: bitsandbytes pages AdamW, not SGD */
    assert_true(explorer_move(&e, VL_SET_PAGED_OPTIMIZER, 1, false));
    assert_true(e.s.paged_optimizer);
    assert_null(explorer_set(&e, VL_SET_OPTIMIZER, "sgd"));
    assert_non_null(explorer_inert(&e, VL_SET_PAGED_OPTIMIZER));

    /* an older PyTorch, a classification head's classes */
    assert_true(explorer_jump(&e, VL_SET_TORCH, true));
    assert_int_equal(e.s.torch, VL_N_TORCHES - 1);
    assert_null(explorer_set(&e, VL_SET_TORCH, "1.10"));
    assert_int_equal(e.s.torch, VL_TORCH_1_10);
    assert_non_null(explorer_inert(&e, VL_SET_LABELS));
    assert_null(explorer_set(&e, VL_SET_HEAD, "cls"));
    assert_true(explorer_move(&e, VL_SET_LABELS, 1, false));
    assert_int_equal(e.s.labels, 3);
    assert_consistent(&e);

    /* int4's groups, in inference */
    assert_true(explorer_move(&e, VL_SET_MODE, 1, false));
    assert_non_null(explorer_inert(&e, VL_SET_GROUP_SIZE));
    assert_null(explorer_set(&e, VL_SET_WEIGHT_DTYPE, "int4"));
    uint64_t g128 = e.b.bytes[VL_C_WEIGHTS];
    assert_true(explorer_move(&e, VL_SET_GROUP_SIZE, -1, false)); /* 128 -> 64 */
    assert_int_equal(e.s.group_size, 64);
    assert_true(e.b.bytes[VL_C_WEIGHTS] > g128); /* twice the scales */
    /* and their format: GPTQ's zero points and, under transformers, exllama's buffer */
    assert_null(explorer_inert(&e, VL_SET_WEIGHT_FORMAT));
    uint64_t sym = e.b.bytes[VL_C_WEIGHTS];
    assert_true(explorer_move(&e, VL_SET_WEIGHT_FORMAT, 1, false));
    assert_int_equal(e.s.weight_format, VL_WFMT_GPTQ);
    assert_true(e.b.inf.dq_buffer_bytes > 0);
    assert_true(e.b.bytes[VL_C_WEIGHTS] > sym + e.b.inf.dq_buffer_bytes);
    /* int8 keeps GPTQ's groups; AWQ's format takes int4 with it, and back */
    assert_null(explorer_set(&e, VL_SET_WEIGHT_DTYPE, "int8"));
    assert_int_equal(e.s.weight_format, VL_WFMT_GPTQ);
    assert_null(explorer_inert(&e, VL_SET_GROUP_SIZE));
    assert_true(explorer_move(&e, VL_SET_WEIGHT_FORMAT, 1, false));
    assert_int_equal(e.s.weight_format, VL_WFMT_AWQ);
    assert_int_equal(e.s.weight_dtype, VL_DT_INT4);
    assert_non_null(strstr(e.note, "int4"));
    assert_true(explorer_move(&e, VL_SET_WEIGHT_FORMAT, -1, false));
    assert_int_equal(e.s.weight_format, VL_WFMT_GPTQ);
    assert_int_equal(e.s.weight_dtype, VL_DT_INT8);
    assert_true(explorer_move(&e, VL_SET_WEIGHT_FORMAT, -1, false)); /* int8, symmetric */
    assert_non_null(explorer_inert(&e, VL_SET_GROUP_SIZE));
    assert_null(explorer_set(&e, VL_SET_WEIGHT_DTYPE, "int4")); /* int8 drops AWQ's */
    assert_null(explorer_set(&e, VL_SET_WEIGHT_FORMAT, "awq"));
    assert_null(explorer_set(&e, VL_SET_WEIGHT_DTYPE, "int8"));
    assert_int_equal(e.s.weight_format, VL_WFMT_SYMMETRIC);
    assert_null(explorer_set(&e, VL_SET_WEIGHT_DTYPE, "bf16"));
    assert_non_null(explorer_inert(&e, VL_SET_WEIGHT_FORMAT));
}

/* GPUs per node matter where a node's CPU memory holds what its GPUs offload (training's
 * ZeRO-Offload, serving's --cpu-offload) or where a communicator's GPUs on a node size
 * NVLink SHARP's buffers (a training profile's data-parallel group); a serving engine's
 * measured communicator and one GPU leave them inert. */
static void test_per_node_inert(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_non_null(explorer_inert(&e, VL_SET_GPUS_PER_NODE)); /* one GPU */
    assert_null(explorer_set(&e, VL_SET_GPUS, "8"));
    assert_null(explorer_inert(&e, VL_SET_GPUS_PER_NODE)); /* hf's data-parallel group */
    assert_true(explorer_move(&e, VL_SET_MODE, 1, false));
    assert_null(explorer_set(&e, VL_SET_FRAMEWORK, "vllm"));
    assert_non_null(explorer_inert(&e, VL_SET_GPUS_PER_NODE));
    assert_null(explorer_set(&e, VL_SET_CPU_OFFLOAD, "4GiB"));
    assert_null(explorer_inert(&e, VL_SET_GPUS_PER_NODE));
}

/* What a move raised to follow it, the move back gives back while it still holds the raised
 * value: offload none -> optimizer -> params -> optimizer -> none walks ZeRO 0, 1, 3, 1, 0;
 * a ZeRO stage chosen by hand stays. */
static void test_move_back_gives_back(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    static const unsigned zero_at[] = {1, 3, 1, 0};
    static const int dir[] = {1, 1, -1, -1};
    for (int i = 0; i < 4; i++) {
        assert_true(explorer_move(&e, VL_SET_OFFLOAD, dir[i], false));
        assert_int_equal(e.s.zero, zero_at[i]);
        vl_breakdown b;
        assert_null(vl_estimate(&e.model, &e.s, &b));
        assert_int_equal(e.b.total, b.total);
    }
    assert_true(explorer_move(&e, VL_SET_OFFLOAD, 1, false)); /* ZeRO 1 */
    assert_true(explorer_move(&e, VL_SET_ZERO, 1, false));    /* by hand: 2 */
    assert_true(explorer_move(&e, VL_SET_OFFLOAD, -1, false));
    assert_int_equal(e.s.zero, 2);
    /* the GPUs a tensor-parallel degree brought go when it goes; typed GPUs are rounded up
     * to whole groups and the note says so */
    assert_true(explorer_jump(&e, VL_SET_TP, true));
    assert_int_equal(e.s.gpus, e.s.tp);
    assert_true(explorer_jump(&e, VL_SET_TP, false));
    assert_int_equal(e.s.gpus, 1);
    assert_true(explorer_move(&e, VL_SET_TP, 1, false));
    assert_null(explorer_set(&e, VL_SET_GPUS, "3"));
    assert_int_equal(e.s.gpus, 4);
    assert_string_equal(e.note, "GPUs 3 -> 4: whole groups of tensor x pipeline = 2 GPUs");
}

/* Typed beyond the slider's range: Right stays (and says so), Left comes back to the range;
 * End stops at the last value the model takes and says why; the memory pane never goes. */
static void test_valid_states_only(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_null(explorer_set(&e, VL_SET_SEQ, "16777216"));
    assert_false(explorer_move(&e, VL_SET_SEQ, 1, false));
    assert_int_equal(e.s.seq, 16777216ULL);
    assert_non_null(strstr(e.note, "end of its range"));
    assert_true(explorer_move(&e, VL_SET_SEQ, -1, false));
    assert_int_equal(e.s.seq, vl_setting_table[VL_SET_SEQ].slider_max);
    assert_true(explorer_jump(&e, VL_SET_TP, true)); /* 64 does not split 32 heads */
    assert_int_equal(e.s.tp, 32);
    assert_int_equal(e.s.gpus, 32);
    assert_null(e.error);
    assert_non_null(strstr(e.note, "--tp 64 must divide the model's 32 attention heads"));
    assert_non_null(strstr(e.note, "GPUs -> 32"));
    /* a typed value the model refuses leaves the state as it was */
    assert_non_null(strstr(explorer_set(&e, VL_SET_TP, "3"), "must divide"));
    assert_int_equal(e.s.tp, 32);
    /* a switch that has no effect says why */
    assert_null(explorer_inert(&e, VL_SET_FP32_GRAD_COPY));
    assert_null(explorer_set(&e, VL_SET_PRECISION, "fp32"));
    assert_non_null(explorer_inert(&e, VL_SET_FP32_GRAD_COPY));
}

/* The sliders of context parallelism, interleaving, the MFU, the token budget and the
 * serving memory fraction: each steps as its table row says, drawn disabled with a reason
 * where it has no effect, and every state is the core's. */
static void test_parallel_and_speed_sliders(void **state)
{
    (void)state;
    explorer e;
    char v[64];
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    /* --cp needs sdpa or flash; 2 raises the GPUs to whole tensor x pipeline x context groups */
    e.s.attention = VL_ATTN_EAGER;
    assert_non_null(explorer_inert(&e, VL_SET_CP));
    assert_false(explorer_move(&e, VL_SET_CP, 1, false));
    e.s.attention = VL_ATTN_SDPA;
    assert_null(explorer_inert(&e, VL_SET_CP));
    assert_true(explorer_move(&e, VL_SET_CP, 1, false));
    assert_int_equal(e.s.cp, 2);
    assert_int_equal(e.s.gpus, 2);
    assert_consistent(&e);
    assert_true(explorer_move(&e, VL_SET_CP, -1, false));
    assert_int_equal(e.s.cp, 1);
    assert_int_equal(e.s.gpus, 1); /* given back */
    /* --zero-grad: inert where the gradients never live through the forward anyway:
     * under ZeRO 2 and 3, and under DeepSpeed's ZeRO-1, which frees them in its step */
    e.s.framework = vl_catalog_framework(&cat, "deepspeed");
    e.s.zero = 1;
    assert_non_null(strstr(explorer_inert(&e, VL_SET_ZERO_GRAD), "frees the gradients"));
    e.s.framework = vl_catalog_framework(&cat, "hf");
    assert_null(explorer_inert(&e, VL_SET_ZERO_GRAD));
    e.s.zero = 2;
    assert_non_null(explorer_inert(&e, VL_SET_ZERO_GRAD));
    e.s.zero = 0;
    /* --vpp: inert below two pipeline stages, then 2 chunks with --pp 2 (32 layers, grad
     * accumulation a multiple of 2) */
    assert_non_null(strstr(explorer_inert(&e, VL_SET_VPP), "pipeline par. 2 or more"));
    e.s.pp = 2;
    e.s.gpus = 2;
    e.s.grad_accum = 2;
    assert_null(explorer_inert(&e, VL_SET_VPP));
    assert_true(explorer_move(&e, VL_SET_VPP, 1, false));
    assert_int_equal(e.s.vpp, 2);
    assert_consistent(&e);
    assert_true(explorer_move(&e, VL_SET_PP, -1, false)); /* back to one stage: vpp follows */
    assert_int_equal(e.s.vpp, 1);
    /* the MFU by whole percents (coarse: tens), shown as a percentage */
    explorer_value(&e, VL_SET_MFU, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "40%");
    assert_true(explorer_move(&e, VL_SET_MFU, 1, false));
    assert_int_equal(e.s.mfu, 410000);
    assert_true(explorer_move(&e, VL_SET_MFU, -1, true));
    assert_int_equal(e.s.mfu, 400000);
    explorer_value(&e, VL_SET_MFU, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "40%");
    /* the token budget: off, then 1B and the E12 series, and off again */
    explorer_value(&e, VL_SET_TOKENS, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "off");
    assert_true(explorer_move(&e, VL_SET_TOKENS, 1, false));
    assert_int_equal(e.s.tokens, 1000000000);
    assert_true(explorer_move(&e, VL_SET_TOKENS, 1, false));
    assert_int_equal(e.s.tokens, 1200000000);
    assert_true(explorer_move(&e, VL_SET_TOKENS, 1, true)); /* a decade */
    assert_int_equal(e.s.tokens, 12000000000ULL);
    assert_true(explorer_move(&e, VL_SET_TOKENS, -3, true)); /* 1.2B, the range's 1B, off */
    assert_int_equal(e.s.tokens, 0);
    e.s.precision = VL_FP32; /* no step time without a dense fp32 peak */
    assert_non_null(explorer_inert(&e, VL_SET_MFU));
    assert_non_null(explorer_inert(&e, VL_SET_TOKENS));
    /* serving: the fraction of memory the engine may use */
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_true(explorer_move(&e, VL_SET_MODE, 1, false));
    assert_int_equal(e.s.mode, VL_MODE_INFER);
    assert_true(explorer_move(&e, VL_SET_GPU_UTIL, -1, true));
    assert_int_equal(e.s.gpu_util, 900000);
    explorer_value(&e, VL_SET_GPU_UTIL, VL_UNITS_GIB, v, sizeof v);
    assert_string_equal(v, "90%");
    assert_true(explorer_move(&e, VL_SET_GPU_UTIL, 1, false));
    assert_int_equal(e.s.gpu_util, 910000);
    vl_breakdown b;
    assert_null(vl_estimate(&e.model, &e.s, &b));
    assert_int_equal(e.b.total, b.total);
}

/* Every setting has its row in the table: a flag, a field, help, and a slider's steps only
 * with a slider's range. */
static void test_setting_table_complete(void **state)
{
    (void)state;
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        assert_non_null(d->flag);
        assert_non_null(d->help);
        assert_true(d->size > 0 && d->modes != 0);
        assert_int_equal(vl_setting_by_key(vl_setting_keys[k]), k);
        assert_int_equal(vl_setting_by_flag(d->flag, NULL), k);
        if (d->step != VL_STEP_NONE)
            assert_true(d->slider_max > d->slider_min && d->label);
        if (d->type == VL_ST_ENUM)
            assert_true(d->names && d->n_names > 1);
    }
    /* every setting is a slider of the modes it applies to, listed once, and the longest
     * list is the one the settings column is sized for */
    slider_id ids[EX_MAX_SLIDERS];
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    int longest = 0;
    for (vl_mode m = 0; m < VL_N_MODES; m++) {
        e.s.mode = m;
        int want = 2; /* the parameters and the GPU */
        for (int k = 0; k < VL_N_SETTINGS; k++) {
            /* shown whole in the settings column, a space before the track */
            assert_non_null(vl_setting_table[k].label);
            assert_in_range(strlen(vl_setting_table[k].label), 1, EX_LABEL_COLS);
            want += vl_setting_applies((vl_setting)k, &e.s);
        }
        int n = explorer_sliders(&e, ids);
        assert_int_equal(n, want);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                assert_int_not_equal(ids[i], ids[j]);
        longest = n > longest ? n : longest;
    }
    assert_int_equal(explorer_longest(), longest);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_states_only),
        cmocka_unit_test(test_setting_table_complete),
        cmocka_unit_test(test_gpus_slider),
        cmocka_unit_test(test_parallel_and_speed_sliders),
        cmocka_unit_test(test_params_slider_detaches),
        cmocka_unit_test(test_context_slider),
        cmocka_unit_test(test_typed_values),
        cmocka_unit_test(test_framework_slider),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_finer_choice_sliders), cmocka_unit_test(test_per_node_inert),
        cmocka_unit_test(test_scenario),
        cmocka_unit_test(test_finetune_sliders),
        cmocka_unit_test(test_move_back_gives_back),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
