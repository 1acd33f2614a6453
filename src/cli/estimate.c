/* estimate.c: `vramlab estimate`: options -> settings -> breakdown -> report. */
#include <stdio.h>

#include "cli.h"
#include "core/memory.h"
#include "app/options.h"
#include "report/report.h"

static void estimate_help(void)
{
    printf(
        "usage: vramlab estimate [OPTIONS]\n"
        "Print the per-GPU memory needed to train or serve a transformer, and how each part is\n"
        "computed.\n"
        "\n"
        "model (one of; a scenario's settings apply first, then the flags):\n"
        "  --preset NAME           a model or scenario from the catalog (default " DEFAULT_MODEL ")\n"
        "  --preset-file PATH      a YAML model or scenario preset (see vramlab-presets(5))\n"
        "  --hf-config PATH        a Hugging Face config.json\n"
        "  --params N              a free count (7B, 350M, 1.5T, 7e9): GPT-3-like shape derived\n"
        "training:\n"
        "  --precision P           fp32, fp16, bf16, fp16-mixed, bf16-mixed, fp16-amp, bf16-amp\n"
        "                          (default bf16-mixed)\n"
        "  --optimizer O           adamw, adam-8bit, sgd-momentum, sgd, lion (default adamw)\n"
        "  --fp32-grads            gradients in fp32 (Megatron-LM main grads)\n"
        "  --fp32-grad-copy        count an fp32 gradient copy in the optimizer states (default)\n"
        "  --no-fp32-grad-copy     do not (the ZeRO paper's K = 12)\n"
        "  --zero S                ZeRO stage 0, 1, 2 or 3 (default 0)\n"
        "  --gpus N                GPUs: tensor x pipeline x data parallel (default 1)\n"
        "  --batch N               micro-batch per GPU (default 1)\n"
        "  --seq N                 sequence length in tokens (default 2048)\n"
        "  --recompute R           none, selective, full (default none)\n"
        "  --flash-attn, --no-flash-attn   attention without the s^2 matrices (default off)\n"
        "  --overhead SIZE         CUDA context and workspace: 0, 1GiB, 800MB (default 1GiB)\n"
        "  --lora-rank R           LoRA adapters of rank R over a frozen base (default: full\n"
        "                          fine-tuning)\n"
        "  --lora-targets T        q,k,v,o,gate,up,down (a list) or all-linear (default q,v)\n"
        "  --qlora                 the frozen base's layer matrices in 4-bit NF4 (QLoRA)\n"
        "  --tp T, --pp P          tensor and pipeline (1F1B) parallel degrees; data\n"
        "                          parallel = --gpus / (T x P) (default 1, 1)\n"
        "  --sp                    sequence parallel (with --tp)\n"
        "  --grad-accum N          micro-batches per step: global batch shown (default 1)\n"
        "  --offload O             none, optimizer or params (ZeRO-3): ZeRO-Offload to CPU\n"
        "                          memory, shown per node (default none)\n"
        "  --gpus-per-node N       GPUs a node, for CPU memory per node (default 8)\n"
        "  --mode M                train (default) or infer\n"
        "inference (--mode infer):\n"
        "  --gpus N                tensor-parallel GPUs (must divide the attention heads)\n"
        "  --seq N, --gen N        prompt tokens, tokens generated after it (default 2048, 0)\n"
        "  --weight-dtype D        fp32, fp16, bf16, fp8, int8, int4 (default bf16)\n"
        "  --group-size N          int4: weights per 16-bit scale (default 128)\n"
        "  --kv-dtype D            KV cache: fp32, fp16, bf16, fp8, int8 (default bf16)\n"
        "output:\n"
        "  --gpu NAME              GPU to fit on (default " DEFAULT_GPU ")\n"
        "  --format F              table, json, csv, markdown, svg (default table)\n"
        "  --units U               gib (2^30 bytes) or gb (10^9 bytes) (default gib)\n"
        "  --explain               list every activation tensor saved for backward\n"
        "  --check-fit             exit 1 when the run does not fit the GPU\n"
        "  --solve S               max-batch, max-context or min-gpus: the exact largest\n"
        "                          (smallest) value that fits the GPU, and the breakdown there\n"
        "\n"
        "exit status: 0 ok, 1 does not fit (with --check-fit), 2 bad usage or input.\n"
        "See vramlab(1) for the formulas and their sources.\n");
}

/* The breakdown (and, in training, the ZeRO 0-3 comparison) at o->s, written out. */
static int estimate_and_report(run_opts *o, const vl_model *model, const vl_gpu *gpu)
{
    vl_breakdown b, zero[REPORT_ZERO_STAGES];
    vl_solution sol;
    char why[VL_ERR_LEN];
    if (o->solving) {
        const char *none = vl_solve_fit(model, &o->s, o->solve, gpu->memory, &sol);
        if (none) {
            fprintf(stderr, "vramlab: --solve %s on %s: %s\n", vl_solve_names[o->solve],
                    gpu->name, none);
            return EXIT_NOFIT;
        }
    }
    const char *invalid = vl_estimate(model, &o->s, &b);
    if (invalid)
        return usage_error("%s", invalid);
    bool training = o->s.mode == VL_MODE_TRAIN;
    if (training && !report_zero_sweep(model, &o->s, zero, why, sizeof why))
        return usage_error("%s", why);
    report r = {model, &o->s, &b, gpu, o->units, o->explain, training ? zero : NULL,
                o->solving ? &sol : NULL, o->solve};
    report_write(stdout, o->format, &r);
    return o->check_fit && !report_fits(&r) ? EXIT_NOFIT : EXIT_OK;
}

int cmd_estimate(int argc, char **argv)
{
    run_opts o;
    int rc = options_parse(argc, argv, &o, "estimate");
    if (rc != EXIT_OK)
        return rc;
    if (o.help) {
        estimate_help();
        return EXIT_OK;
    }
    if (o.tui_only_given)
        return usage_error("--no-mouse, --no-color, --ascii and --theme apply to the explorer "
                           "(vramlab tui) only");

    vl_catalog cat;
    vl_model model;
    const vl_gpu *gpu;
    vl_catalog_init(&cat);
    rc = options_resolve(&o, &cat, &model, &gpu);
    for (size_t i = 0; i < cat.n_warnings; i++) /* bad files on the search path */
        fprintf(stderr, "vramlab: warning: %s\n", cat.warnings[i]);
    if (rc == EXIT_OK)
        rc = estimate_and_report(&o, &model, gpu);
    vl_catalog_free(&cat);
    return rc;
}
