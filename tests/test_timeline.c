/* test_timeline.c: the step timeline of small models against hand derivations, the
 * allocator replay against CUDACachingAllocator.cpp's rules worked by hand, and the
 * invariants every timeline keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/explain.h"
#include "core/framework.h"
#include "core/lora.h"
#include "core/runtime.h"
#include "core/solve.h"
#include "core/timeline.h"
#include "core/units.h"
#include "helpers.h"

#define MIB 1048576ULL

/* GPT-2-like, tiny: h 64, 2 layers, 4 heads, V 1000, 128 learned positions, LayerNorm,
 * standard MLP (f = 256), biases, tied embeddings, no dropout. */
/* PyTorch's default cuBLAS workspace on Hopper: 4096 KiB x 8 (CublasHandlePool.cpp) */
#define CUBLAS_HOPPER (4096ULL * 1024 * 8)

static vl_model tiny_gpt(void)
{
    return model_of((vl_arch){.hidden = 64, .layers = 2, .heads = 4, .vocab = 1000,
                              .max_positions = 128, .position = VL_POS_LEARNED,
                              .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                              .attention_bias = true, .mlp_bias = true,
                              .tie_embeddings = true});
}

/* Llama-like, tiny: RMSNorm, gated MLP, RoPE, GQA (8 heads, 2 KV heads), untied. */
static vl_model tiny_llama(void)
{
    return model_of((vl_arch){.hidden = 128, .layers = 3, .heads = 8, .kv_heads = 2,
                              .ffn = 352, .vocab = 3000, .max_positions = 4096,
                              .position = VL_POS_ROPE, .mlp = VL_MLP_GATED,
                              .norm = VL_NORM_RMSNORM});
}

/* ... with 4 experts of its MLP, 2 a token (Mixtral-like). */
static vl_model tiny_moe(void)
{
    vl_model m = tiny_llama();
    m.arch.experts = 4;
    m.arch.experts_per_token = 2;
    return m;
}

static const vl_runtime hopper = {VL_ARCH_HOPPER, 1204, false};

static vl_settings train(vl_precision p, uint64_t seq, uint64_t batch)
{
    vl_settings s;
    vl_settings_default(&s);
    s.precision = p;
    s.seq = seq;
    s.batch = batch;
    return s;
}

/* ... under ZeRO-3 over 2 GPUs. */
static vl_settings train_zero3(vl_precision p, uint64_t seq, uint64_t batch)
{
    vl_settings s = train(p, seq, batch);
    s.gpus = 2;
    s.zero = 3;
    return s;
}

/* Serving: `batch` prompts of `seq` tokens, `gen` new tokens each. */
static vl_settings serve(uint64_t seq, uint64_t gen, uint64_t batch)
{
    vl_settings s;
    vl_settings_default(&s);
    s.mode = VL_MODE_INFER;
    s.seq = seq;
    s.gen = gen;
    s.batch = batch;
    return s;
}

static void build(const vl_model *m, const vl_settings *s, const vl_framework *f, vl_timeline *t)
{
    char err[256];
    bool ok = vl_timeline_build(m, s, f, &hopper, t, err, sizeof err);
    if (!ok)
        print_error("vl_timeline_build: %s\n", err);
    assert_true(ok);
}

static const vl_framework *fw(const char *name)
{
    const vl_framework *f = vl_framework_find(name);
    assert_non_null(f);
    return f;
}

/* The vllm profile as release v runs it (vl_framework_on_vllm). */
static const vl_framework *vllm_at(vl_vllm v)
{
    static vl_framework f;
    f = *fw("vllm");
    vl_framework_on_vllm(&f, v);
    return &f;
}

/* The backward workspaces as the timeline names them. */
#define MLP_WORKSPACE "MLP backward workspace (gradients in and out)"
#define ATTN_WORKSPACE "attention backward workspace (gradients in and out)"

static size_t first_event_of(const vl_timeline *t, const char *phase)
{
    for (size_t i = 0; i < t->n_events; i++)
        if (strcmp(vl_timeline_phase(t, i), phase) == 0)
            return i;
    fail_msg("no phase '%s'", phase);
    return 0;
}

/* The forward's last moment: before leaving autocast frees its weight cache (full
 * recompute), else before the loss's backward. */
static size_t end_of_forward(const vl_timeline *t)
{
    const size_t bwd = first_event_of(t, "loss backward");
    for (size_t i = first_event_of(t, "loss"); i < bwd; i++)
        if (t->events[i].kind == VL_EV_FREE &&
            strncmp(t->events[i].what, "16-bit weight copies", 20) == 0)
            return i;
    return bwd;
}

/* What is alive, by component, just before event i. */
static void alive_before(const vl_timeline *t, size_t i, uint64_t out[VL_N_TL_COMPONENTS])
{
    if (i == 0)
        memset(out, 0, VL_N_TL_COMPONENTS * sizeof *out);
    else
        vl_timeline_alive(t, i - 1, out);
}

/* ---- the allocator, worked by hand from CUDACachingAllocator.cpp's rules ---------------- */

static void test_allocator_rounding(void **state)
{
    (void)state;
    assert_int_equal(vl_alloc_round(1), 512);
    assert_int_equal(vl_alloc_round(512), 512);
    assert_int_equal(vl_alloc_round(513), 1024);
    assert_int_equal(vl_alloc_segment(512), 2 * MIB);            /* small pool */
    assert_int_equal(vl_alloc_segment(MIB), 2 * MIB);            /* kSmallSize is small */
    assert_int_equal(vl_alloc_segment(MIB + 512), 20 * MIB);     /* kLargeBuffer */
    assert_int_equal(vl_alloc_segment(10 * MIB - 512), 20 * MIB);
    assert_int_equal(vl_alloc_segment(10 * MIB), 10 * MIB);      /* kMinLargeAlloc: own size */
    assert_int_equal(vl_alloc_segment(10 * MIB + 512), 12 * MIB); /* rounded to 2 MiB */
}

/* Many tensors of mixed sizes, freed in a scrambled order, twice: allocated is always the
 * live tensors' rounded sizes and the remainders too small to split off (under 1 MiB each,
 * a large-pool block's); once all are freed every segment is one free block again, so a
 * tensor the first segment held fits it again. */
static void test_allocator_many(void **state)
{
    (void)state;
    enum { N = 3000 };
    static uint32_t h[N];
    static uint64_t bytes[N];
    bool ovf = false;
    vl_alloc *a = vl_alloc_new(VL_ALLOC_CACHING);
    /* a 24 MiB segment of its own (23 MiB is over kMinLargeAlloc), free from the start */
    vl_alloc_release(a, vl_alloc_tensor(a, 23 * MIB, &ovf));
    for (int round = 0; round < 2; round++) {
        uint32_t x = 12345; /* a fixed linear congruential sequence: the same both rounds */
        uint64_t live = 0, n_live = 0;
        for (int i = 0; i < N; i++) {
            x = x * 1103515245u + 12345u;
            /* small-pool tensors (up to 1 MiB) and large ones (up to 24 MiB) */
            bytes[i] = x % 3 ? 1 + (x >> 8) % MIB : MIB + (x >> 8) % (23 * MIB);
            h[i] = vl_alloc_tensor(a, bytes[i], &ovf);
            live += vl_alloc_round(bytes[i]);
            n_live++;
            if (i % 3 == 2) { /* free an earlier one, out of order */
                const int j = (int)((x >> 4) % (uint32_t)(i + 1));
                if (h[j]) {
                    vl_alloc_release(a, h[j]);
                    live -= vl_alloc_round(bytes[j]);
                    n_live--;
                    h[j] = 0;
                }
            }
            assert_in_range(vl_alloc_allocated(a), live, live + n_live * MIB);
        }
        for (int i = N - 1; i >= 0; i--)
            if (h[i]) {
                vl_alloc_release(a, h[i]);
                h[i] = 0;
            }
        assert_int_equal(vl_alloc_allocated(a), 0);
    }
    const uint64_t reserved = vl_alloc_reserved(a);
    uint32_t small = vl_alloc_tensor(a, MIB, &ovf), large = vl_alloc_tensor(a, 23 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), reserved);
    /* the 1 MiB left of the 24 MiB segment is no more than kSmallSize: not split off */
    assert_int_equal(vl_alloc_allocated(a), MIB + 24 * MIB);
    vl_alloc_release(a, small);
    vl_alloc_release(a, large);
    assert_false(ovf);
    vl_alloc_free_all(a);
}

static void test_allocator_split_merge_fragment(void **state)
{
    (void)state;
    bool ovf = false;
    vl_alloc *a = vl_alloc_new(VL_ALLOC_CACHING);
    /* two 1 MiB tensors share one 2 MiB small segment (the split leaves 1 MiB >= 512 B) */
    uint32_t x = vl_alloc_tensor(a, MIB, &ovf), y = vl_alloc_tensor(a, MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 2 * MIB);
    /* 1.5 MiB opens a 20 MiB large segment, split (18.5 MiB left > 1 MiB); 18 MiB then takes
     * the 18.5 MiB block whole (0.5 MiB left is no split) and counts whole */
    uint32_t p = vl_alloc_tensor(a, 3 * MIB / 2, &ovf), q = vl_alloc_tensor(a, 18 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 22 * MIB);
    assert_int_equal(vl_alloc_allocated(a), 2 * MIB + 20 * MIB);
    /* freed neighbours merge: the 20 MiB segment serves 19 MiB again */
    vl_alloc_release(a, p);
    vl_alloc_release(a, q);
    uint32_t r = vl_alloc_tensor(a, 19 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 22 * MIB);
    vl_alloc_release(a, r);
    /* the cached 20 MiB segment serves 12 MiB (split, 8 MiB left); a second 12 MiB gets a
     * segment of its own; once the first is freed, 14 MiB fits the merged 20 MiB block */
    uint32_t A = vl_alloc_tensor(a, 12 * MIB, &ovf), B = vl_alloc_tensor(a, 12 * MIB, &ovf);
    vl_alloc_release(a, A);
    uint32_t C = vl_alloc_tensor(a, 14 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 22 * MIB + 12 * MIB);
    vl_alloc_release(a, B);
    vl_alloc_release(a, C);
    vl_alloc_release(a, x);
    vl_alloc_release(a, y);
    assert_int_equal(vl_alloc_allocated(a), 0);
    vl_alloc_free_all(a);
    /* fragmentation, from an empty cache: a freed 12 MiB segment cannot serve 14 MiB, and
     * free segments never merge, so 24 MiB takes a fourth: 12 + 12 + 14 + 24 */
    a = vl_alloc_new(VL_ALLOC_CACHING);
    A = vl_alloc_tensor(a, 12 * MIB, &ovf);
    B = vl_alloc_tensor(a, 12 * MIB, &ovf);
    vl_alloc_release(a, A);
    C = vl_alloc_tensor(a, 14 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 38 * MIB);
    vl_alloc_release(a, B);
    vl_alloc_release(a, C);
    (void)vl_alloc_tensor(a, 24 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 62 * MIB);
    assert_int_equal(vl_alloc_allocated(a), 24 * MIB);
    assert_false(ovf);
    vl_alloc_free_all(a);
    /* the same requests where the GPU leaves the allocator 40 MiB: 24 MiB would take the
     * segments to 62, so the three free ones (38 MiB) are freed first and it takes 24 */
    a = vl_alloc_new(VL_ALLOC_CACHING);
    vl_alloc_limit(a, 40 * MIB);
    A = vl_alloc_tensor(a, 12 * MIB, &ovf);
    B = vl_alloc_tensor(a, 12 * MIB, &ovf);
    vl_alloc_release(a, A);
    C = vl_alloc_tensor(a, 14 * MIB, &ovf); /* 38 MiB: under the limit, nothing freed */
    assert_int_equal(vl_alloc_released(a), 0);
    vl_alloc_release(a, B);
    vl_alloc_release(a, C);
    uint32_t D = vl_alloc_tensor(a, 24 * MIB, &ovf);
    assert_int_equal(vl_alloc_released(a), 38 * MIB);
    assert_int_equal(vl_alloc_reserved(a), 24 * MIB);
    assert_int_equal(vl_alloc_peak_reserved(a), 38 * MIB);
    /* a segment with a block in use stays: 12 MiB splits the 24 MiB one (D freed), 14 MiB
     * does not fit the 12 left and takes a segment (24 + 14, under the limit); 20 MiB more
     * is past it, and no segment is without a block in use: the segment is made past the
     * limit (the run fails there) and nothing more is freed */
    vl_alloc_release(a, D);
    A = vl_alloc_tensor(a, 12 * MIB, &ovf);
    B = vl_alloc_tensor(a, 14 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 38 * MIB);
    (void)vl_alloc_tensor(a, 20 * MIB, &ovf);
    assert_int_equal(vl_alloc_reserved(a), 58 * MIB);
    assert_int_equal(vl_alloc_peak_reserved(a), 58 * MIB);
    assert_int_equal(vl_alloc_released(a), 38 * MIB);
    assert_false(ovf);
    vl_alloc_free_all(a);

    a = vl_alloc_new(VL_ALLOC_EXACT);
    x = vl_alloc_tensor(a, 1000, &ovf);
    y = vl_alloc_tensor(a, 3000, &ovf);
    vl_alloc_release(a, x);
    (void)vl_alloc_tensor(a, 500, &ovf);
    assert_int_equal(vl_alloc_allocated(a), 3500);
    assert_int_equal(vl_alloc_reserved(a), 4000); /* the peak of what was allocated */
    vl_alloc_free_all(a);
}

static uint64_t context_on(vl_gpu_arch arch, unsigned cuda, uint64_t sms, unsigned cc,
                           const char **src)
{
    const vl_runtime rt = {.arch = arch, .cuda = cuda, .sms = sms, .cc = cc};
    return vl_cuda_context_bytes(&rt, src);
}

static void test_context(void **state)
{
    (void)state;
    const char *src = NULL;
    /* a GPU of unknown SMs: pytorch/pytorch#86509's cudaMemGetInfo less the 20 MiB
     * segment its 6.4 MB tensor took, every kernel loaded (before CUDA 11.7) and lazily */
    const uint64_t eager = 666632192ULL - 20 * MIB, lazy = 287047680ULL - 20 * MIB;
    assert_int_equal(context_on(VL_ARCH_AMPERE, 1106, 0, 0, &src), eager);
    assert_int_equal(context_on(VL_ARCH_HOPPER, 1204, 0, 0, &src), lazy);
    assert_non_null(strstr(src, "86509"));
    assert_int_equal(context_on(VL_ARCH_ADA, 1300, 0, 0, &src), 426 * MIB);
    assert_int_equal(context_on(VL_ARCH_ADA, 1204, 0, 0, NULL), lazy);
    /* a V100 before lazy loading: the transformers docs' 1343 MiB less a 2 MiB segment */
    assert_int_equal(context_on(VL_ARCH_VOLTA, 1102, 80, 70, &src), 1341 * MIB);
    assert_int_equal(context_on(VL_ARCH_VOLTA, 1204, 0, 0, NULL), lazy);
    /* a GPU whose SMs and compute capability are known, lazily: the threads' stacks (SMs x
     * the resident threads an SM holds x 1 KiB) and the base: CUDA 11.7 and 11.8's 656 MiB
     * on an RTX 3090 (82 SMs of 1536) less a 2 MiB segment and its stacks, CUDA 12's 256
     * MiB on an RTX 3090 less its stacks, CUDA 13's 426 MiB on an RTX 6000 Ada (142 of
     * 1536) less its */
    const uint64_t base11 = 654 * MIB - 82 * 1536 * 1024, base12 = 256 * MIB - 82 * 1536 * 1024,
                   base13 = 426 * MIB - 142 * 1536 * 1024;
    assert_int_equal(context_on(VL_ARCH_AMPERE, 1107, 82, 86, &src), 654 * MIB);
    assert_non_null(strstr(src, "GPTlearning"));
    assert_int_equal(context_on(VL_ARCH_AMPERE, 1108, 108, 80, NULL), base11 + 108 * 2048 * 1024);
    assert_int_equal(context_on(VL_ARCH_AMPERE, 1200, 108, 80, NULL), base12 + 108 * 2048 * 1024);
    assert_int_equal(context_on(VL_ARCH_AMPERE, 1208, 82, 86, &src), 256 * MIB);
    assert_non_null(strstr(src, "9413"));
    assert_int_equal(context_on(VL_ARCH_ADA, 1300, 142, 89, &src), 426 * MIB);
    assert_int_equal(context_on(VL_ARCH_HOPPER, 1204, 132, 90, NULL), base12 + 132 * 2048 * 1024);
    assert_int_equal(context_on(VL_ARCH_HOPPER, 1300, 132, 90, NULL), base13 + 132 * 2048 * 1024);
    assert_int_equal(context_on(VL_ARCH_TURING, 1201, 40, 75, NULL), base12 + 40 * 1024 * 1024);
    /* an H100 SXM's is within what SGLang's log of one shows used before its weights load
     * (sgl-project/sglang pull request #2907: 78.81 GB free of 79.19: 389 MiB, 420 at
     * rounding's widest), a measure of its own */
    assert_in_range(context_on(VL_ARCH_HOPPER, 1204, 132, 90, NULL), 389 * MIB, 420 * MIB);
    /* eager loading's context is a measure of its own; a capability not in the table
     * (8.7, Jetson Orin) keeps the unknown GPU's */
    assert_int_equal(context_on(VL_ARCH_HOPPER, 1106, 132, 90, NULL), eager);
    assert_int_equal(context_on(VL_ARCH_AMPERE, 1204, 16, 87, NULL), lazy);
    /* what a training step's kernels add under lazy loading (CUDA 11.7 on): eager loading's
     * context less lazy loading's in the same measurement; nothing before, where the
     * context holds them all */
    assert_int_equal(vl_lazy_kernels_bytes(1106), 0);
    assert_int_equal(vl_lazy_kernels_bytes(1107), 379584512ULL);
    assert_int_equal(vl_lazy_kernels_bytes(1300), 379584512ULL);
    /* PyTorch's cuBLAS workspace: :4096:2:16:8 (2 x 4 MiB + 8 x 16 KiB), 4 MiB x 8 on
     * Hopper and Blackwell and where the generation is unknown */
    assert_int_equal(vl_cublas_workspace_bytes(VL_ARCH_AMPERE), 8 * MIB + 128 * 1024);
    assert_int_equal(vl_cublas_workspace_bytes(VL_ARCH_VOLTA), 8519680);
    assert_int_equal(vl_cublas_workspace_bytes(VL_ARCH_HOPPER), 32 * MIB);
    assert_int_equal(vl_cublas_workspace_bytes(VL_ARCH_BLACKWELL), 32 * MIB);
    assert_int_equal(vl_cublas_workspace_bytes(VL_ARCH_UNKNOWN), 32 * MIB);
}

/* ---- the profiles ---------------------------------------------------------------------- */

static void test_profiles(void **state)
{
    (void)state;
    static const char *const names[] = {"pytorch",   "hf",   "megatron", "deepspeed",
                                        "vllm",      "vllm-v0", "litgpt"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_string_equal(fw(names[i])->name, names[i]);
    assert_null(vl_framework_find("tensorflow"));
    assert_int_equal(fw(VL_FRAMEWORK_DEFAULT)->attention, VL_ATTN_SDPA);
    assert_int_equal(fw("pytorch")->attention, VL_ATTN_EAGER);
    assert_int_equal(fw("vllm")->prefill_chunk, 8192);
    assert_int_equal(fw("vllm-v0")->prefill_chunk, 2048);
    assert_string_equal(vl_attention_names[VL_ATTN_FLASH], "flash");
    assert_string_equal(vl_optim_impl_names[VL_OPTIM_SINGLE_TENSOR], "single-tensor");

    vl_framework f = *fw("hf");
    char err[160];
    assert_true(vl_framework_set(&f, "attention", "eager", err, sizeof err));
    assert_int_equal(f.attention, VL_ATTN_EAGER);
    assert_true(vl_framework_set(&f, "fused_qkv", "true", err, sizeof err));
    assert_true(f.fused_qkv);
    assert_true(vl_framework_set(&f, "labels", "5", err, sizeof err));
    assert_int_equal(f.labels, 5);
    assert_false(vl_framework_set(&f, "attention", "fast", err, sizeof err));
    assert_string_equal(err, "attention: unknown value 'fast' (expected eager, sdpa or flash)");
    assert_false(vl_framework_set(&f, "labels", "0", err, sizeof err));
    assert_string_equal(err, "labels must be an integer between 1 and 1048576");
    assert_false(vl_framework_set(&f, "labels", "-3", err, sizeof err));
    assert_false(vl_framework_set(&f, "colour", "blue", err, sizeof err));
    assert_string_equal(err, "unknown framework setting 'colour'");
    assert_false(vl_framework_set(&f, "cuda_graphs", "yes", err, sizeof err));
}

/* ---- the golden timeline ----------------------------------------------------------------- */

/* The tiny GPT in fp32, b = 2, s = 32, AdamW, plain PyTorch.  By hand: P = 64,000 (tokens) +
 * 8,192 (positions) + 2 x 49,984 (qkv 12,480, o 4,160, MLP 33,088, norms 256) + 128 (final
 * norm) = 172,288; weights 4 B = 689,152, AdamW 8 B = 1,378,304.  A layer keeps 8 tensors
 * of s·b·h x 4 B = 16,384 (2 norm inputs, QKV input, Q, K, V, o-proj input, MLP input), the
 * softmax (b·a·s² x 4 = 32,768) and two of s·b·f x 4 = 65,536: 294,912.  Outside: token ids
 * 512, position ids 256, final norm and output-projection inputs 16,384 each, fp32
 * log-probabilities s·b·V x 4 = 256,000, targets 512: 290,048.  Activations 879,872.
 * The peak: in the loss backward, once the head's gradients (the tied embedding matrix and
 * the final norm, 64,128 x 4 = 256,512; the positions' 32,768 come at the embedding's
 * backward) are born, with the logits' gradient (256,000) and the residual stream's (16,384)
 * alive: 2,067,456 + 879,872 + 256,000 + 16,384 + 256,512 = 3,476,224 B of tensors;
 * allocated adds the position ids' rounding to 512 B: 3,476,480. */
static void test_golden_tiny_gpt(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = train(VL_FP32, 32, 2);
    vl_timeline t;
    build(&m, &s, fw("pytorch"), &t);

    static const char *const order[] = {
        "step start (the state kept between steps)", "forward embedding", "forward layer 0",
        "forward layer 1", "loss", "loss backward", "backward layer 1", "backward layer 0",
        "backward embedding", "optimizer step", "zero_grad"};
    size_t k = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        const char *p = vl_timeline_phase(&t, i);
        if (strcmp(p, order[k]) != 0) {
            k++;
            assert_true(k < sizeof order / sizeof *order);
            assert_string_equal(p, order[k]);
        }
    }
    assert_int_equal(k, sizeof order / sizeof *order - 1);
    assert_int_equal(t.events[0].bytes, 689152);
    /* two cuBLAS workspaces: the forward's thread's handle and autograd's thread's */
    assert_int_equal(t.events[1].bytes, CUBLAS_HOPPER);
    assert_int_equal(t.events[2].bytes, CUBLAS_HOPPER);
    /* AdamW's moments, made at the first step (optimizer_state_lazy) and kept, one event:
     * an exp_avg and an exp_avg_sq for each parameter tensor, 4 B an element (the position
     * table's 8,192, each layer's q, k, v and o 4,096 each, the MLP's two 16,384, the
     * biases and norms 832, the head's 64,128: the tied matrix and the final norm) */
    assert_int_equal(t.events[3].component, VL_TL_OPTIMIZER);
    assert_int_equal(t.events[3].bytes, 1378304);
    assert_int_equal(t.sum.act.total, 879872);

    assert_int_equal(t.peak.tensors, 3476224 + 2 * CUBLAS_HOPPER);
    /* and the four moments of the layers' biases and norms (3,328 B) theirs, to 3,584 */
    assert_int_equal(t.peak.allocated, 3476480 + 4 * 256 + 2 * CUBLAS_HOPPER);
    assert_string_equal(t.peak.phase, "loss backward");
    assert_string_equal(t.events[t.peak.event].what, "head gradients");
    assert_int_equal(t.peak.alive[VL_TL_WEIGHTS], 689152);
    assert_int_equal(t.peak.alive[VL_TL_RUNTIME], 2 * CUBLAS_HOPPER);
    assert_int_equal(t.peak.cublas, 2 * CUBLAS_HOPPER);
    assert_int_equal(t.peak.cublas_own, 0);
    assert_int_equal(t.peak.alive[VL_TL_OPTIMIZER], 1378304);
    assert_int_equal(t.peak.alive[VL_TL_ACTIVATIONS], 879872);
    assert_int_equal(t.peak.alive[VL_TL_GRADIENTS], 256512);
    assert_int_equal(t.peak.alive[VL_TL_TRANSIENT], 256000 + 16384);
    /* reserved: each cuBLAS workspace in a 32 MiB segment of its own; every other tensor,
     * AdamW's moments now among them, is small (at most 1 MiB) and in the small pool's
     * 2 MiB segments, which hold 689,152 + 1,379,328 + 880,128 + 256,000 + 16,384 +
     * 256,512 = 3,477,504 B when the head's gradients arrive: two segments at least, and
     * the replay fits them in two.  2 x 32 + 2 x 2 MiB; 88 MiB when the moments were one
     * block made before the first step, in a 20 MiB large segment. */
    assert_int_equal(t.peak.reserved, 68 * MIB);
    /* the context of CUDA 12.4's lazy loading, and the kernels a training step loads: as
     * much as eager loading held, 666,632,192 B less its tensor's 20 MiB segment
     * (pytorch/pytorch#86509; a GPU of unknown SMs) */
    assert_int_equal(t.peak.lazy_kernels, 666632192ULL - 287047680ULL);
    assert_int_equal(t.peak.context, 666632192ULL - 20 * MIB);
    assert_int_equal(t.peak.device, 68 * MIB + 666632192ULL - 20 * MIB);
    /* the state kept: weights and AdamW's moments */
    assert_int_equal(t.end[VL_TL_WEIGHTS] + t.end[VL_TL_OPTIMIZER], 2067456);
    vl_timeline_free(&t);

    /* the loss: two fp32 logit-size tensors at once beside the saved log-probabilities */
    build(&m, &s, fw("pytorch"), &t);
    size_t i = first_event_of(&t, "loss backward");
    assert_string_equal(t.events[i + 1].what, "gradient of the logits");
    uint64_t alive[VL_N_TL_COMPONENTS];
    alive_before(&t, i + 2, alive);
    assert_int_equal(alive[VL_TL_TRANSIENT], 2 * 256000);
    vl_timeline_free(&t);
}

/* ---- invariants over many configurations ------------------------------------------------ */

static void check_invariants(const vl_timeline *t, const vl_settings *s)
{
    uint64_t live[VL_N_TL_COMPONENTS] = {0}, tensors = 0, max_alloc = 0, prev_reserved = 0,
             max_reserved = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const vl_event *e = &t->events[i];
        if (e->kind == VL_EV_ALLOC) {
            assert_int_equal(e->tensor, i);
            live[e->component] += e->bytes;
            tensors += e->bytes;
        } else {
            assert_true(e->tensor < i);
            const vl_event *a = &t->events[e->tensor];
            assert_int_equal(a->kind, VL_EV_ALLOC);
            assert_int_equal(a->bytes, e->bytes);
            assert_int_equal(a->component, e->component);
            for (size_t k = e->tensor + 1; k < i; k++) /* freed once */
                assert_false(t->events[k].kind == VL_EV_FREE && t->events[k].tensor == e->tensor);
            live[e->component] -= e->bytes;
            tensors -= e->bytes;
        }
        assert_int_equal(e->tensors, tensors);
        assert_true(e->allocated >= e->tensors);
        assert_true(e->reserved >= e->allocated);
        /* segments are kept, but where the GPU ran short */
        assert_true(e->reserved >= prev_reserved || t->peak.released);
        prev_reserved = e->reserved;
        max_reserved = e->reserved > max_reserved ? e->reserved : max_reserved;
        max_alloc = e->allocated > max_alloc ? e->allocated : max_alloc;
    }
    assert_int_equal(t->peak.allocated, max_alloc);
    assert_int_equal(t->peak.reserved, max_reserved);
    assert_int_equal(t->peak.device, t->peak.reserved + t->peak.context + t->peak.managed +
                                         t->peak.communicators);
    if (s->gpus < 2) /* one GPU: no communicator */
        assert_int_equal(t->peak.communicators, 0);
    uint64_t sum = 0;
    for (int c = 0; c < VL_N_TL_COMPONENTS; c++) {
        assert_int_equal(t->end[c], live[c]);
        sum += t->peak.alive[c];
    }
    assert_int_equal(sum, t->peak.tensors);
    uint64_t at[VL_N_TL_COMPONENTS];
    vl_timeline_alive(t, t->peak.event, at);
    assert_memory_equal(at, t->peak.alive, sizeof at);
    /* what is left is the state: no transient, and no activation but what the step began
     * with (the logits a loop keeps, and their graph's) */
    uint64_t kept = 0;
    for (size_t i = 0; i < t->n_events && t->events[i].phase == 0; i++)
        if (t->events[i].kind == VL_EV_ALLOC && t->events[i].component == VL_TL_ACTIVATIONS)
            kept += t->events[i].bytes;
    assert_int_equal(t->end[VL_TL_ACTIVATIONS], kept);
    assert_int_equal(t->end[VL_TL_TRANSIENT], 0);
    assert_int_equal(t->end[VL_TL_OPTIM_TEMP], 0);
    assert_int_equal(t->end[VL_TL_GATHERED], 0);
    /* the weights as the sum counts them, and what the model registers beside them */
    uint64_t tables = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == VL_EV_ALLOC &&
            strcmp(t->events[i].what, "RoPE cos and sin tables, each attention layer's") == 0)
            tables += t->events[i].bytes;
    assert_int_equal(t->end[VL_TL_WEIGHTS], t->sum.bytes[VL_C_WEIGHTS] + tables);
    if (s->mode == VL_MODE_TRAIN) {
        /* an fp32 gradient copy made for the step is made for it alone (a tiny model's in
         * one piece, or a tensor a parameter) */
        uint64_t step_copy = 0;
        for (size_t i = 0; i < t->n_events; i++)
            if (t->events[i].kind == VL_EV_ALLOC &&
                strncmp(t->events[i].what, "fp32 gradient copy for the step", 31) == 0)
                step_copy += t->events[i].bytes;
        assert_int_equal(t->end[VL_TL_OPTIMIZER] + step_copy, t->sum.bytes[VL_C_OPTIMIZER]);
        /* the peak holds at least the state and, at some moment, every saved activation */
        assert_true(t->peak.tensors >= t->sum.bytes[VL_C_WEIGHTS] + t->sum.bytes[VL_C_OPTIMIZER]);
    }
}

/* "micro-batch 1 " where the step accumulates micro-batches, else "". */
static const char *micro_batch_prefix(const vl_timeline *t)
{
    for (size_t i = 0; i < t->n_events; i++)
        if (strncmp(vl_timeline_phase(t, i), "micro-batch 1 ", 14) == 0)
            return "micro-batch 1 ";
    return "";
}

/* The activations layer `layer`'s first forward allocates, in order, from event `from`:
 * their count, names in what[] and bytes in bytes[] (at most n). */
static size_t layer_allocs(const vl_timeline *t, unsigned layer, const char **what,
                           uint64_t *bytes, size_t n)
{
    char phase[VL_PHASE_LEN];
    snprintf(phase, sizeof phase, "%sforward layer %u", micro_batch_prefix(t), layer);
    size_t k = 0;
    for (size_t i = first_event_of(t, phase);
         i < t->n_events && strcmp(vl_timeline_phase(t, i), phase) == 0; i++) {
        const vl_event *e = &t->events[i];
        if (e->kind != VL_EV_ALLOC || e->component != VL_TL_ACTIVATIONS)
            continue;
        assert_true(k < n);
        what[k] = e->what;
        bytes[k++] = e->bytes;
    }
    return k;
}

/* The first layer keeps what the second keeps, tensor by tensor in the same order, unless
 * its input asks for no gradient (frozen_embeddings_grad false under LoRA); under full
 * recomputation a layer keeps its input, which the layer before made. */
static void check_layers_alike(const vl_timeline *t, const vl_settings *s,
                               const vl_framework *f)
{
    if ((s->lora_rank && !f->frozen_embeddings_grad) || s->recompute == VL_RECOMPUTE_FULL)
        return;
    const char *w0[256], *w1[256];
    uint64_t b0[256], b1[256];
    const size_t n0 = layer_allocs(t, 0, w0, b0, 256), n1 = layer_allocs(t, 1, w1, b1, 256);
    assert_int_equal(n0, n1);
    for (size_t i = 0; i < n0; i++) {
        assert_string_equal(w0[i], w1[i]);
        assert_int_equal(b0[i], b1[i]);
    }
}

static void test_invariants(void **state)
{
    (void)state;
    const vl_model models[] = {tiny_gpt(), tiny_llama()};
    static const vl_precision precisions[] = {VL_FP32, VL_BF16, VL_BF16_MIXED, VL_FP16_AMP};
    int built = 0;
    for (size_t mi = 0; mi < 2; mi++)
        for (size_t fi = 0; fi < vl_n_frameworks; fi++)
            for (size_t pi = 0; pi < 4; pi++)
                for (unsigned z = 0; z <= 3; z++)
                    for (int lora = 0; lora <= 2; lora++)
                        for (int rc = 0; rc < VL_N_RECOMPUTES; rc++) {
                            vl_settings s = train(precisions[pi], 48, 2);
                            s.zero = z;
                            s.gpus = z ? 4 : (lora == 0 ? 2 : 1);
                            s.lora_rank = lora ? 4 : 0;
                            s.qlora = lora == 2;
                            s.recompute = (vl_recompute)rc;
                            s.grad_accum = rc == 1 ? 3 : 1;
                            if (s.qlora && vl_precision_is_amp(s.precision))
                                continue;
                            vl_timeline t;
                            build(&models[mi], &s, &vl_frameworks[fi], &t);
                            check_invariants(&t, &s);
                            if (s.pp == 1)
                                check_layers_alike(&t, &s, &vl_frameworks[fi]);
                            vl_timeline_free(&t);
                            built++;
                        }
    /* pipeline and tensor parallel */
    vl_settings s = train(VL_BF16_MIXED, 64, 1);
    s.gpus = 8;
    s.pp = 2;
    s.tp = 2;
    s.grad_accum = 4;
    vl_timeline t;
    build(&models[1], &s, fw("megatron"), &t);
    check_invariants(&t, &s);
    /* 1F1B: the first stage holds two micro-batches' activations at once */
    uint64_t alive[VL_N_TL_COMPONENTS];
    alive_before(&t, first_event_of(&t, "micro-batch 1 backward: gradient from the next stage"),
                 alive);
    assert_int_equal(alive[VL_TL_ACTIVATIONS], t.sum.act.total);
    vl_timeline_free(&t);
    /* serving */
    for (size_t mi = 0; mi < 2; mi++)
        for (size_t fi = 0; fi < vl_n_frameworks; fi++) {
            vl_settings v = serve(5000, 7, 3);
            build(&models[mi], &v, &vl_frameworks[fi], &t);
            check_invariants(&t, &v);
            /* the sum counts the prompt and every new token; the last token is sampled,
             * never fed, so a cache that grows holds a token a sequence less */
            const uint64_t token = t.sum.inf.prefill.kv_cache / (v.seq * v.batch);
            assert_int_equal(t.end[VL_TL_KV_CACHE],
                             t.sum.inf.decode.kv_cache -
                                 (vl_frameworks[fi].kv_preallocated ? 0 : token * v.batch));
            vl_timeline_free(&t);
        }
    assert_true(built > 1000);
}

/* The pytorch profile with eager attention reproduces vl_estimate's activation sum at the
 * start of backward, tensor for tensor. */
static void test_pytorch_matches_the_sum(void **state)
{
    (void)state;
    const vl_model models[] = {tiny_gpt(), tiny_llama()};
    static const vl_precision precisions[] = {VL_FP32, VL_BF16, VL_BF16_MIXED, VL_BF16_AMP};
    for (size_t mi = 0; mi < 2; mi++)
        for (size_t pi = 0; pi < 4; pi++)
            for (int lora = 0; lora <= 1; lora++)
                for (int rc = 0; rc < VL_N_RECOMPUTES; rc++)
                    for (int drop = 0; drop <= 1; drop++) {
                        vl_model m = models[mi];
                        m.arch.dropout = drop;
                        vl_settings s = train(precisions[pi], 40, 3);
                        s.lora_rank = lora ? 8 : 0;
                        s.recompute = (vl_recompute)rc;
                        vl_timeline t;
                        build(&m, &s, fw("pytorch"), &t);
                        uint64_t alive[VL_N_TL_COMPONENTS];
                        alive_before(&t, end_of_forward(&t), alive);
                        const vl_activations *act = &t.sum.act;
                        uint64_t want = rc == VL_RECOMPUTE_FULL
                                            ? act->checkpoint_bytes * act->layers +
                                                  act->forward_end_bytes
                                            : act->total;
                        assert_int_equal(alive[VL_TL_ACTIVATIONS], want);
                        /* the peak is at least the steady-state parts alive then */
                        assert_true(t.peak.tensors >= alive[VL_TL_WEIGHTS] +
                                                          alive[VL_TL_OPTIMIZER] + want);
                        vl_timeline_free(&t);
                    }
}

/* The index of the first allocation named what in phase or after it. */
/* The first event from event i on of that kind on a tensor named what. */
static size_t first_event_named(const vl_timeline *t, size_t i, vl_event_kind kind,
                                const char *what)
{
    for (; i < t->n_events; i++)
        if (t->events[i].kind == kind && strcmp(t->events[i].what, what) == 0)
            return i;
    fail_msg("no %s of '%s' after event %zu", kind == VL_EV_ALLOC ? "alloc" : "free", what, i);
    return 0;
}

static size_t first_alloc(const vl_timeline *t, const char *phase, const char *what)
{
    return first_event_named(t, first_event_of(t, phase), VL_EV_ALLOC, what);
}

static uint64_t event_bytes(const vl_timeline *t, const char *phase, const char *what)
{
    return t->events[first_alloc(t, phase, what)].bytes;
}

/* The bytes of every allocation named what in phase, and how many there were. */
static int allocs_in(const vl_timeline *t, const char *phase, const char *what, uint64_t *bytes)
{
    int n = 0;
    for (size_t i = first_event_of(t, phase);
         i < t->n_events && strcmp(vl_timeline_phase(t, i), phase) == 0; i++)
        if (t->events[i].kind == VL_EV_ALLOC && strcmp(t->events[i].what, what) == 0) {
            *bytes = t->events[i].bytes;
            n++;
        }
    return n;
}

/* One event of a layer's forward as a test expects it. */
typedef struct {
    vl_event_kind kind;
    uint64_t bytes;
    const char *what;
} expected_event;

/* Layer 1's forward of t, from its first event to the MLP norm's input, is want[n]. */
static void check_attention_forward(const vl_timeline *t, const expected_event *want, size_t n)
{
    size_t i = first_event_of(t, "forward layer 1");
    for (size_t k = 0; k < n; k++, i++) {
        assert_true(i < t->n_events);
        if (t->events[i].kind != want[k].kind || t->events[i].bytes != want[k].bytes ||
            strcmp(t->events[i].what, want[k].what) != 0)
            fail_msg("event %zu of layer 1: %s %llu '%s', expected %s %llu '%s'", k,
                     t->events[i].kind == VL_EV_ALLOC ? "alloc" : "free",
                     (unsigned long long)t->events[i].bytes, t->events[i].what,
                     want[k].kind == VL_EV_ALLOC ? "alloc" : "free",
                     (unsigned long long)want[k].bytes, want[k].what);
    }
    assert_string_equal(t->events[i].what, "MLP norm input");
}

/* Eager attention's forward as torch.matmul and the code around it run it, for tiny_gpt at
 * b 3, s 40 (s x b x h elements 7,680, scores b x heads x s x s 19,200):
 * - the q, k, v projections' outputs stay in the attention's variables until it returns,
 *   beside the copies torch.matmul makes of the heads' transposed views and keeps (Q, K, V);
 * - q·kᵀ, then its scaled and masked copy made while it lives; the softmax's output made
 *   while that copy lives, which goes with it in plain PyTorch's code (one variable
 *   reassigned) and at the function's return in an encoder's (BertSelfAttention names the
 *   scores apart);
 * - the value matmul's output, its heads joined by a copy (o's input);
 * - under autocast q's, k's and v's weights are cast as their projections run; the
 *   softmax reads an fp32 copy of the scores, and the dropout runs on its fp32 output,
 *   which the value matmul casts to 16 bits and the variable holds to the return. */
static void test_eager_attention_forward(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = train(VL_FP32, 40, 3);
    vl_timeline t;
    const uint64_t sbh = 3 * 40 * 64, ss = 3 * 4 * 40 * 40;
    build(&m, &s, fw("pytorch"), &t);
    const expected_event plain[] = {
        {VL_EV_ALLOC, 4 * sbh, "attention norm input"},
        {VL_EV_ALLOC, 4 * sbh, "QKV projection input"},
        {VL_EV_ALLOC, 3 * 4 * sbh, "q, k, v projections (the matmuls keep copies)"},
        {VL_EV_ALLOC, 4 * sbh, "Q"},
        {VL_EV_ALLOC, 4 * sbh, "K"},
        {VL_EV_ALLOC, 4 * sbh, "V"},
        {VL_EV_ALLOC, 4 * ss, "attention scores (the q.k product)"},
        {VL_EV_ALLOC, 4 * ss, "attention scores, scaled and masked"},
        {VL_EV_FREE, 4 * ss, "attention scores (the q.k product)"},
        {VL_EV_ALLOC, 4 * ss, "attention softmax output (s x s per head)"},
        {VL_EV_FREE, 4 * ss, "attention scores, scaled and masked"},
        {VL_EV_ALLOC, 4 * sbh, "attention output (the value matmul's)"},
        {VL_EV_ALLOC, 4 * sbh, "attention output-projection input"},
        {VL_EV_FREE, 4 * sbh, "attention output (the value matmul's)"},
        {VL_EV_FREE, 3 * 4 * sbh, "q, k, v projections (the matmuls keep copies)"},
    };
    check_attention_forward(&t, plain, sizeof plain / sizeof *plain);
    vl_timeline_free(&t);

    m.arch.norm_position = VL_NORM_POST;
    m.arch.token_types = 2;
    m.arch.embedding_norm = true;
    m.arch.pooler = true;
    m.arch.dropout = true;
    s.precision = VL_BF16_AMP;
    s.head = VL_HEAD_CLS;
    vl_framework x = *fw("pytorch");
    x.head = VL_HEAD_CLS;
    build(&m, &s, &x, &t);
    const char *copy = "16-bit weight copies (autocast), q's, k's or v's";
    const expected_event encoder[] = {
        {VL_EV_ALLOC, 4 * sbh, "attention norm input"},
        {VL_EV_ALLOC, 3 * 2 * sbh, "q, k, v inputs (a 16-bit cast each)"},
        {VL_EV_ALLOC, 2 * 64 * 64, copy},
        {VL_EV_ALLOC, 2 * 64 * 64, copy},
        {VL_EV_ALLOC, 2 * 64 * 64, copy},
        {VL_EV_ALLOC, 3 * 2 * sbh, "q, k, v projections (the matmuls keep copies)"},
        {VL_EV_ALLOC, 2 * sbh, "Q"},
        {VL_EV_ALLOC, 2 * sbh, "K"},
        {VL_EV_ALLOC, 2 * sbh, "V"},
        {VL_EV_ALLOC, 2 * ss, "attention scores (the q.k product)"},
        {VL_EV_ALLOC, 2 * ss, "attention scores, scaled and masked"},
        {VL_EV_FREE, 2 * ss, "attention scores (the q.k product)"},
        {VL_EV_ALLOC, 4 * ss, "attention scores in fp32, the softmax's input"},
        {VL_EV_ALLOC, 4 * ss, "attention softmax output (fp32, s x s)"},
        {VL_EV_FREE, 4 * ss, "attention scores in fp32, the softmax's input"},
        {VL_EV_ALLOC, ss, "attention dropout mask"},
        {VL_EV_ALLOC, 4 * ss, "attention dropout output (fp32), cast for the value matmul"},
        {VL_EV_ALLOC, 2 * ss, "attention dropout output, cast to 16 bits"},
        {VL_EV_ALLOC, 2 * sbh, "attention output (the value matmul's)"},
        {VL_EV_ALLOC, 2 * sbh, "attention output-projection input"},
        {VL_EV_FREE, 2 * sbh, "attention output (the value matmul's)"},
        {VL_EV_FREE, 2 * ss, "attention scores, scaled and masked"},
        {VL_EV_FREE, 4 * ss, "attention dropout output (fp32), cast for the value matmul"},
        {VL_EV_FREE, 3 * 2 * sbh, "q, k, v projections (the matmuls keep copies)"},
        {VL_EV_ALLOC, sbh, "attention residual dropout mask"},
    };
    check_attention_forward(&t, encoder, sizeof encoder / sizeof *encoder);
    vl_timeline_free(&t);

    /* transformers' decoders cast the softmax's output to 16 bits before the dropout */
    vl_model gpt = tiny_gpt();
    gpt.arch.dropout = true;
    vl_framework hf = *fw("hf");
    hf.attention = VL_ATTN_EAGER;
    s.head = VL_HEAD_LM;
    build(&gpt, &s, &hf, &t);
    const char *cast = "attention softmax output, cast to 16 bits for the dropout";
    const size_t made = first_alloc(&t, "forward layer 1", cast);
    assert_int_equal(t.events[made].bytes, 2 * ss);
    const char *kept = "attention softmax output (fp32, s x s)";
    assert_true(first_alloc(&t, "forward layer 1", kept) < made);
    assert_string_equal(t.events[made + 1].what, "attention dropout mask");
    assert_string_equal(t.events[made + 2].what, "attention dropout output, cast to 16 bits");
    assert_int_equal(t.events[made + 3].kind, VL_EV_FREE);
    assert_string_equal(t.events[made + 3].what, cast);
    uint64_t n = 0;
    const char *fp32 = "attention dropout output (fp32), cast for the value matmul";
    assert_int_equal(allocs_in(&t, "forward layer 1", fp32, &n), 0);
    vl_timeline_free(&t);

    /* a softmax that keeps its input (PyTorch before 1.11) keeps the scaled scores: they are
     * made once, as that input */
    s = train(VL_FP32, 40, 3);
    x = *fw("pytorch");
    x.softmax_saves_input = true;
    gpt.arch.dropout = false;
    build(&gpt, &s, &x, &t);
    const char *input = "attention softmax input (PyTorch < 1.11)";
    const size_t in = first_alloc(&t, "forward layer 1", input);
    assert_int_equal(t.events[in].bytes, 4 * ss);
    assert_int_equal(t.events[in - 1].kind, VL_EV_FREE);
    assert_string_equal(t.events[in - 1].what, "attention scores (the q.k product)");
    assert_string_equal(t.events[in + 1].what, "attention softmax output (s x s per head)");
    const char *scaled = "attention scores, scaled and masked";
    assert_int_equal(allocs_in(&t, "forward layer 1", scaled, &n), 0);
    vl_timeline_free(&t);

    /* pure bf16 with the softmax in fp32: its fp32 output whole, the fp32 copy it read
     * freed, then the 16-bit cast for the value matmul, then the scaled scores freed */
    s.precision = VL_BF16;
    x = *fw("pytorch");
    x.softmax_fp32 = true;
    build(&gpt, &s, &x, &t);
    const size_t whole = first_alloc(&t, "forward layer 1", "attention softmax in fp32");
    assert_string_equal(t.events[whole - 1].what, "attention softmax output (s x s per head)");
    assert_int_equal(t.events[whole - 1].bytes + t.events[whole].bytes, 4 * ss);
    assert_int_equal(t.events[whole + 1].kind, VL_EV_FREE);
    assert_string_equal(t.events[whole + 1].what, "attention scores in fp32, the softmax's input");
    assert_string_equal(t.events[whole + 2].what,
                        "attention softmax, its 16-bit cast for the value matmul");
    assert_int_equal(t.events[whole + 2].bytes, 2 * ss);
    assert_int_equal(t.events[whole + 3].kind, VL_EV_FREE);
    assert_string_equal(t.events[whole + 3].what, scaled);
    vl_timeline_free(&t);

    /* transformers' class with a fused fp32 softmax (GPTBigCode's) reads the bf16 scores as
     * they are; Llama's makes the fp32 copy first */
    const char *copy32 = "attention scores in fp32, the softmax's input";
    hf = *fw("hf");
    hf.attention = VL_ATTN_EAGER;
    const vl_eager_softmax kinds[] = {VL_SOFTMAX_FP32, VL_SOFTMAX_FUSED};
    for (int k = 0; k < 2; k++) {
        gpt.arch.eager_softmax = kinds[k];
        build(&gpt, &s, &hf, &t);
        assert_int_equal(allocs_in(&t, "forward layer 1", copy32, &n), k == 0);
        vl_timeline_free(&t);
    }

    /* Megatron's own attention in fp16 (--attention eager): its fused scale-mask-softmax
     * kernel computes in fp32 and stores the 16-bit softmax alone */
    s.precision = VL_FP16_MIXED;
    x = *fw("megatron");
    x.attention = VL_ATTN_EAGER;
    build(&gpt, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "forward layer 1", "attention softmax output (s x s per head)"),
                     2 * ss);
    assert_int_equal(allocs_in(&t, "forward layer 1", copy32, &n), 0);
    assert_int_equal(allocs_in(&t, "forward layer 1", "attention softmax in fp32", &n), 0);
    vl_timeline_free(&t);
}

/* The bytes of every allocation named what in phase, summed. */
static uint64_t alloc_sum(const vl_timeline *t, const char *phase, const char *what)
{
    uint64_t sum = 0;
    for (size_t i = first_event_of(t, phase);
         i < t->n_events && strcmp(vl_timeline_phase(t, i), phase) == 0; i++)
        if (t->events[i].kind == VL_EV_ALLOC && strcmp(t->events[i].what, what) == 0)
            sum += t->events[i].bytes;
    return sum;
}

/* PEFT's adapters on QLoRA's 4-bit layers are fp32 over a 16-bit model.  Without autocast
 * each casts its input to fp32 for itself and keeps that copy; with it (the Trainer's bf16
 * flag, hf's default) q, k and v share the 16-bit input.  tiny_llama in bf16, 2 x 64
 * tokens (sb = 128), h = 128, q 128 wide, f = 352, r = 8 on all seven projections: */
static void test_qlora_adapters_fp32(void **state)
{
    (void)state;
    const vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    s.lora_targets = VL_LORA_ALL_LINEAR;
    s.qlora = true;
    const uint64_t sb = 128, sbh = sb * 128, q = sb * 128, mlp = sb * 352;
    static const char *const layer = "forward layer 1";
    vl_timeline t;
    uint64_t bytes = 0;

    s.autocast = VL_CHOICE_FALSE;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, layer, "QKV projection input: each adapter's fp32 copy"),
                     4 * 3 * sbh);
    assert_int_equal(event_bytes(&t, layer, "attention output-projection input: the "
                                            "adapter's fp32 copy"),
                     4 * q);
    assert_int_equal(event_bytes(&t, layer, "MLP input: each adapter's fp32 copy"), 4 * 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "MLP down projection input: the adapter's fp32 copy"),
                     4 * mlp);
    assert_int_equal(event_bytes(&t, layer, "LoRA adapters' x.A (r wide)"), 4 * 7 * sb * 8);
    /* SDPA's backward reads its own 16-bit output, no longer o's input */
    assert_int_equal(allocs_in(&t, layer, "attention output (kept by its backward or a 4-bit "
                                          "o_proj)", &bytes), 1);
    assert_int_equal(bytes, 2 * q);
    vl_timeline_free(&t);

    s.autocast = VL_CHOICE_AUTO; /* hf's: on */
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, layer, "QKV projection input"), 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "attention output-projection input"), 2 * q);
    assert_int_equal(event_bytes(&t, layer, "MLP input"), 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "MLP down projection input"), 2 * mlp);
    assert_int_equal(event_bytes(&t, layer, "LoRA adapters' x.A (r wide)"), 2 * 7 * sb * 8);
    assert_int_equal(allocs_in(&t, layer, "attention output (kept by its backward or a 4-bit "
                                          "o_proj)", &bytes), 0);
    vl_timeline_free(&t);

    /* either way the adapters' weights, gradients and AdamW moments are fp32; DeepSpeed's
     * engine casts them to bf16 with the rest of the module */
    vl_breakdown b;
    s.framework = fw("hf");
    assert_null(vl_estimate(&m, &s, &b));
    assert_true(b.lora.fp32);
    assert_int_equal(b.bpp.weights, 4);
    assert_int_equal(b.bpp.gradients, 4);
    assert_int_equal(b.bpp.optimizer, 8);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 4 * b.lora.trainable_params);
    s.framework = fw("deepspeed");
    assert_null(vl_estimate(&m, &s, &b));
    assert_false(b.lora.fp32);
    assert_int_equal(b.bpp.weights, 2);
    assert_int_equal(b.bpp.optimizer, 4);

    /* autocast is the -amp precisions' own; fp32 has nothing to cast */
    s.framework = fw("hf");
    s.precision = VL_BF16_AMP;
    s.autocast = VL_CHOICE_FALSE;
    assert_non_null(strstr(settings_why(&s), "--autocast false: the -amp precisions"));
    s.precision = VL_FP32;
    s.autocast = VL_CHOICE_TRUE;
    assert_non_null(strstr(settings_why(&s), "--autocast true: autocast over fp32 weights"));

    /* 4-bit weights stored in bf16 (--quant-storage bf16, FSDP's QLoRA) are a float PEFT
     * moves the adapters to before 0.12: bf16 adapters, which share their 16-bit inputs
     * without autocast; PEFT 0.12 upcasts them again, and fp32 storage keeps them fp32 */
    s.precision = VL_BF16;
    s.autocast = VL_CHOICE_FALSE;
    s.quant_storage = VL_QS_BF16;
    s.peft = VL_PEFT_0_11;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, layer, "QKV projection input"), 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "MLP down projection input"), 2 * mlp);
    assert_int_equal(event_bytes(&t, layer, "LoRA adapters' x.A (r wide)"), 2 * 7 * sb * 8);
    vl_timeline_free(&t);
    assert_null(vl_estimate(&m, &s, &b));
    assert_false(b.lora.fp32);
    assert_int_equal(b.bpp.weights, 2);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 2 * b.lora.trainable_params);
    s.peft = VL_PEFT_CURRENT;
    assert_true(vl_adapters_fp32(&s));
    s.peft = VL_PEFT_0_11;
    s.quant_storage = VL_QS_FP32;
    assert_true(vl_adapters_fp32(&s));
    s.quant_storage = VL_QS_UINT8;
    assert_true(vl_adapters_fp32(&s));
}

/* PEFT 0.12 and later make a 16-bit layer's adapters fp32 (autocast_adapter_dtype), and
 * lora.Linear casts the input to theirs for each adapter: under the Trainer's autocast the
 * matmul casts it back, a 16-bit copy an adapter where q's and v's had shared one; without
 * autocast an fp32 copy each, x.A in fp32; SDPA keeps its own output beside o's copy.
 * Before 0.12 (--peft 0.11) the adapters took the layer's dtype. */
static void test_lora_adapters_fp32(void **state)
{
    (void)state;
    const vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    s.lora_targets = (1u << VL_LORA_Q) | (1u << VL_LORA_V) | (1u << VL_LORA_O);
    const uint64_t sb = 128, sbh = sb * 128, q = sb * 128;
    static const char *const layer = "forward layer 1";
    vl_timeline t;
    uint64_t bytes = 0;

    s.peft = VL_PEFT_0_11;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, layer, "QKV projection input"), 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "attention output-projection input"), 2 * q);
    assert_int_equal(event_bytes(&t, layer, "LoRA adapters' x.A (r wide)"), 2 * 3 * sb * 8);
    assert_int_equal(allocs_in(&t, layer, "attention output (kept by its backward or a 4-bit "
                                          "o_proj)", &bytes), 0);
    vl_timeline_free(&t);

    s.peft = VL_PEFT_CURRENT; /* hf's autocast: on */
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, layer, "q, k, v inputs (a 16-bit cast each)"), 2 * 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "attention output-projection input"), 2 * q);
    assert_int_equal(event_bytes(&t, layer, "LoRA adapters' x.A (r wide)"), 2 * 3 * sb * 8);
    assert_int_equal(allocs_in(&t, layer, "attention output (kept by its backward or a 4-bit "
                                          "o_proj)", &bytes), 1);
    assert_int_equal(bytes, 2 * q);
    vl_timeline_free(&t);

    s.autocast = VL_CHOICE_FALSE;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, layer, "QKV projection input: each adapter's fp32 copy"),
                     4 * 2 * sbh);
    assert_int_equal(event_bytes(&t, layer, "attention output-projection input: the "
                                            "adapter's fp32 copy"),
                     4 * q);
    assert_int_equal(event_bytes(&t, layer, "LoRA adapters' x.A (r wide)"), 4 * 3 * sb * 8);
    vl_timeline_free(&t);

    /* their weights, gradients and moments are fp32; DeepSpeed's engine casts them back
     * with the module, and an fp32 model's are fp32 in any release */
    vl_breakdown b;
    s.framework = fw("hf");
    assert_null(vl_estimate(&m, &s, &b));
    assert_true(b.lora.fp32);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 4 * b.lora.trainable_params);
    s.peft = VL_PEFT_0_11;
    assert_null(vl_estimate(&m, &s, &b));
    assert_false(b.lora.fp32);
    s.peft = VL_PEFT_CURRENT;
    s.framework = fw("deepspeed");
    assert_null(vl_estimate(&m, &s, &b));
    assert_false(b.lora.fp32);
    assert_false(vl_adapters_cast16(&s));
    s.framework = fw("hf");
    s.autocast = VL_CHOICE_AUTO;
    s.precision = VL_BF16_AMP;
    assert_false(vl_adapters_fp32(&s));
}

/* The phase in which the tensor named what, allocated in phase `in`, is freed. */
static const char *freed_in(const vl_timeline *t, const char *in, const char *what)
{
    for (size_t i = first_event_of(t, in); i < t->n_events; i++)
        if (t->events[i].kind == VL_EV_ALLOC && strcmp(t->events[i].what, what) == 0) {
            const uint32_t id = (uint32_t)i;
            for (size_t j = i + 1; j < t->n_events; j++)
                if (t->events[j].kind == VL_EV_FREE && t->events[j].tensor == id)
                    return vl_timeline_phase(t, j);
            fail_msg("'%s' of '%s' never freed", what, in);
        }
    fail_msg("no '%s' in '%s'", what, in);
    return NULL;
}

/* In backward layer 1, the MLP workspace's allocations (ws) and where `kept` is freed. */
static size_t mlp_backward(const vl_timeline *t, const char *kept, size_t ws[3])
{
    size_t k = 0, gone = 0;
    for (size_t i = first_event_of(t, "backward layer 1");
         i < t->n_events && strcmp(vl_timeline_phase(t, i), "backward layer 1") == 0; i++) {
        if (t->events[i].kind == VL_EV_ALLOC &&
            strcmp(t->events[i].what, MLP_WORKSPACE) == 0) {
            assert_true(k < 3);
            ws[k++] = i;
        }
        if (t->events[i].kind == VL_EV_FREE && strcmp(t->events[i].what, kept) == 0)
            gone = i;
    }
    assert_int_equal(k, 3); /* a gated MLP: the product's gradient and both factors' */
    return gone;
}

/* The MLP's backward as autograd runs it (checked on the CPU with a gated MLP of 4-bit-like
 * matmuls that keep their inputs: the backward peaks two f-wide tensors over the forward's
 * end, not three): down_proj's backward makes its input's gradient, then the input it
 * saved goes, then the product's backward holds the rest of the workspace.  A 4-bit
 * matmul that keeps its input on its node (bitsandbytes before 0.43.2) holds it to the end
 * of the layer's graph. */
static void test_mlp_backward_order(void **state)
{
    (void)state;
    const vl_model m = tiny_llama();
    vl_settings s = train(VL_FP32, 64, 2);
    vl_timeline t;
    size_t ws[3];
    build(&m, &s, fw("pytorch"), &t);
    size_t gone = mlp_backward(&t, "MLP down projection input", ws);
    assert_true(ws[0] < gone && gone < ws[1]);
    vl_timeline_free(&t);
    s.qlora = true;
    s.lora_rank = 8; /* q and v: down_proj frozen, 4-bit */
    vl_framework x = *fw("hf");
    x.nf4_keeps_input = true;
    build(&m, &s, &x, &t);
    gone = mlp_backward(&t, "4-bit down_proj input", ws);
    assert_true(gone > ws[2]);
    vl_timeline_free(&t);
}

/* Reentrant checkpointing reruns a layer's forward in its backward and holds the output
 * while it runs backward through it (on the CPU, torch.utils.checkpoint with
 * use_reentrant=True peaks one residual-stream tensor over use_reentrant=False): 64 x 2
 * tokens x 128 x 4 B here, in fp32. */
static void test_reentrant_output(void **state)
{
    (void)state;
    const vl_model m = tiny_llama();
    vl_settings s = train(VL_FP32, 64, 2);
    s.recompute = VL_RECOMPUTE_FULL;
    vl_framework x = *fw("pytorch");
    static const char what[] = "recomputed layer output (reentrant checkpoint)";
    for (int reentrant = 0; reentrant <= 1; reentrant++) {
        x.checkpoint_reentrant = reentrant;
        vl_timeline t;
        build(&m, &s, &x, &t);
        uint64_t bytes = 0;
        assert_int_equal(allocs_in(&t, "backward layer 1", what, &bytes), reentrant);
        if (reentrant) {
            assert_int_equal(bytes, 64 * 2 * 128 * 4);
            assert_string_equal(freed_in(&t, "backward layer 1", what), "backward layer 1");
        }
        vl_timeline_free(&t);
    }
}

/* ---- the framework's choices, each against its hand-derived bytes ------------------------ */

static uint64_t activations_at_backward(const vl_model *m, const vl_settings *s,
                                        const vl_framework *f)
{
    vl_timeline t;
    build(m, s, f, &t);
    uint64_t alive[VL_N_TL_COMPONENTS];
    alive_before(&t, first_event_of(&t, "loss backward"), alive);
    vl_timeline_free(&t);
    return alive[VL_TL_ACTIVATIONS];
}

static void test_choices(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    const uint64_t L = 3, sb = 128, ass = 2 * 8 * 64 * 64, f = 352, V = 3000;
    const vl_framework *pt = fw("pytorch");
    const uint64_t base = activations_at_backward(&m, &s, pt);
    vl_framework x = *pt;

    /* HF's eager softmax in fp32 then cast: 4 + 2 B per score where plain modules keep 2 */
    x.softmax_fp32 = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), base + L * 4 * ass);
    /* under transformers' modeling code the model's own softmax decides: Llama's upcasts,
     * BERT's and GPT-2's run in the scores' dtype and keep the 2 B plain modules keep; a
     * framework with its own attention code (LitGPT's) upcasts for every model */
    x.transformers = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), base + L * 4 * ass);
    vl_model in16 = m;
    in16.arch.eager_softmax = VL_SOFTMAX_INPUT;
    assert_int_equal(activations_at_backward(&in16, &s, &x), base);
    x.transformers = false;
    assert_int_equal(activations_at_backward(&in16, &s, &x), base + L * 4 * ass);
    /* PyTorch before 1.11: each softmax keeps its input too, the 2 B scores of a layer
     * and the 4 B logits log_softmax reads; under autocast the layer's scores are fp32 */
    x = *pt;
    x.softmax_saves_input = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), base + L * 2 * ass + 4 * sb * V);
    vl_settings amp = train(VL_BF16_AMP, 64, 2);
    assert_int_equal(activations_at_backward(&m, &amp, &x),
                     activations_at_backward(&m, &amp, pt) + L * 4 * ass + 4 * sb * V);
    /* PyTorch before 2.2: each RMSNorm's mean keeps the fp32 squares, 4 B per element of
     * its input: two norms a layer and the final one */
    x = *pt;
    x.mean_saves_input = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), base + (2 * L + 1) * 4 * sb * 128);
    /* cross-entropy on 16-bit logits: 2 B per logit element instead of 4 */
    x = *pt;
    x.loss_dtype = VL_LOSS_BF16;
    assert_int_equal(activations_at_backward(&m, &s, &x), base - 2 * sb * V);
    /* a loss that shifts the logits by a copy: a third fp32 s x V tensor while the
     * log-probabilities are made, and the slice's full-size gradient in backward; what is
     * kept for backward is the same */
    x = *pt;
    x.loss_shift_copy = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), base);
    vl_timeline t;
    build(&m, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "loss", "shifted logits (a contiguous copy)"), 4 * sb * V);
    assert_int_equal(event_bytes(&t, "loss backward", "gradient of the logits, unshifted"),
                     4 * sb * V);
    const size_t shift = first_alloc(&t, "loss", "shifted logits (a contiguous copy)");
    uint64_t kept[VL_N_TL_COMPONENTS], cast[VL_N_TL_COMPONENTS];
    alive_before(&t, shift, kept);
    vl_timeline_free(&t);
    /* transformers before 4.46: the model returns lm_head(h).float(), and the 2 B logits
     * are gone before the loss copies the fp32 ones */
    x.logits_cast_in_model = true;
    build(&m, &s, &x, &t);
    alive_before(&t, first_alloc(&t, "loss", "shifted logits (a contiguous copy)"), cast);
    assert_int_equal(kept[VL_TL_TRANSIENT] - cast[VL_TL_TRANSIENT], 2 * sb * V);
    vl_timeline_free(&t);
    /* a masked LM's loss reads each position's own logits: nothing shifted either way */
    x.head = VL_HEAD_MLM;
    build(&m, &s, &x, &t);
    uint64_t none = 0;
    assert_int_equal(allocs_in(&t, "loss", "shifted logits (a contiguous copy)", &none), 0);
    assert_int_equal(allocs_in(&t, "loss backward", "gradient of the logits, unshifted", &none), 0);
    vl_timeline_free(&t);
    /* a classification head: no s x V log-probabilities, no output-projection weight; the
     * classifier's input (the last hidden state), b x labels log-probabilities, b labels */
    x = *pt;
    x.head = VL_HEAD_CLS;
    x.labels = 3;
    assert_int_equal(activations_at_backward(&m, &s, &x),
                     base - 4 * sb * V - 8 * sb + 4 * 2 * 3 + 8 * 2);
    /* SDPA: no s x s tensor; K and V stay at the 2 KV heads; the row statistics */
    x = *pt;
    x.attention = VL_ATTN_SDPA;
    uint64_t kvq = sb * 8 * 16, kvk = sb * 2 * 16;
    assert_int_equal(activations_at_backward(&m, &s, &x),
                     base - L * (2 * ass + 2 * 2 * (kvq - kvk)) + L * 4 * 8 * sb);

    /* GPT-2's GELU written out: three more s x b x f tensors a layer */
    vl_model g = tiny_gpt();
    const uint64_t base_g = activations_at_backward(&g, &s, pt);
    x = *pt;
    x.gelu = VL_GELU_TANH_COMPOSITE;
    assert_int_equal(activations_at_backward(&g, &s, &x), base_g + 2 * 3 * 2 * sb * 256);

    /* LoRA on q, v with frozen RMSNorm weights: the normalized tensors (2 a layer and the
     * final one, 2 B each) are not kept; SDPA keeps its output for o_proj frozen */
    s.lora_rank = 8;
    x = *pt;
    uint64_t lora_base = activations_at_backward(&m, &s, &x);
    x.prune_frozen_saves = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), lora_base - (2 * L + 1) * 2 * sb * 128);
    /* QLoRA: bitsandbytes keeps the inputs of the frozen o, MLP and down projections */
    s.qlora = true;
    x = *pt;
    uint64_t q_base = activations_at_backward(&m, &s, &x);
    x.nf4_keeps_input = true;
    assert_int_equal(activations_at_backward(&m, &s, &x),
                     q_base + L * 2 * (sb * 128 + sb * 128 + sb * f));
}

/* A layer's backward runs the MLP's ops first, then attention's from its output back, and
 * each op's saved tensors go as it ends (tests/validate/peak.py measures a recomputed
 * layer's on the CPU).  The tiny Llama in bf16, plain modules (eager, no
 * upcast), s = 64, b = 2: the MLP's backward holds 3 gated-product tensors of s·b·f x 2 B
 * with the whole layer alive; then its norm's fp32 input and normalized tensor (4 + 2) and
 * its input (2) x s·b·h, and gate, up, activation and down input 4 x 2·s·b·f, are freed:
 * 8 x 16,384 + 8 x 45,056 = 491,520 B.  The value matmul makes the probabilities' gradient,
 * b·a·s² x 2 B = 131,072; the output projection's input and V as widened to the 8 heads,
 * 2·s·b·a·d = 32,768 each, go; the softmax then holds its gradients in and out,
 * 2 x 131,072, beside what is left. */
static void test_backward_stages(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    const uint64_t sb = 128, h = 128, f = 352, ass = 2 * 8 * 64 * 64;
    vl_timeline t;
    build(&m, &s, fw("pytorch"), &t);
    const char *layer = "backward layer 2";
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, layer, MLP_WORKSPACE, &bytes), 3);
    assert_int_equal(bytes, 2 * sb * f);
    assert_int_equal(allocs_in(&t, layer, "gradient of the attention probabilities", &bytes), 1);
    assert_int_equal(bytes, 2 * ass);
    assert_int_equal(allocs_in(&t, layer, ATTN_WORKSPACE, &bytes), 2);
    assert_int_equal(bytes, 2 * ass);
    uint64_t mlp[VL_N_TL_COMPONENTS], probs[VL_N_TL_COMPONENTS], attn[VL_N_TL_COMPONENTS];
    alive_before(&t, first_alloc(&t, layer, MLP_WORKSPACE), mlp);
    alive_before(&t, first_alloc(&t, layer, "gradient of the attention probabilities"), probs);
    alive_before(&t, first_alloc(&t, layer, ATTN_WORKSPACE), attn);
    assert_int_equal(mlp[VL_TL_ACTIVATIONS] - probs[VL_TL_ACTIVATIONS], 8 * sb * h + 8 * sb * f);
    assert_int_equal(probs[VL_TL_ACTIVATIONS] - attn[VL_TL_ACTIVATIONS], 2 * 2 * sb * h);
    vl_timeline_free(&t);
    /* SDPA's backward reads q, k, v and its output together: only the MLP's tensors go
     * before it, and there is no probabilities' gradient */
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(allocs_in(&t, layer, "gradient of the attention probabilities", &bytes), 0);
    alive_before(&t, first_alloc(&t, layer, MLP_WORKSPACE), mlp);
    alive_before(&t, first_alloc(&t, layer, ATTN_WORKSPACE), attn);
    assert_int_equal(mlp[VL_TL_ACTIVATIONS] - attn[VL_TL_ACTIVATIONS], 8 * sb * h + 8 * sb * f);
    vl_timeline_free(&t);
}

/* --torch: each release line against the release that changed the default. */
static void test_torch_releases(void **state)
{
    (void)state;
    static const struct {
        vl_torch t;
        bool softmax, in_place, single, denom, mean, cublas_cached;
    } want[] = {
        {VL_TORCH_1_10, true, true, true, true, true, false},
        {VL_TORCH_1_11, false, true, true, true, true, false},
        {VL_TORCH_1_13, false, true, true, true, true, false},
        {VL_TORCH_2_0, false, false, false, true, true, true},
        {VL_TORCH_2_1, false, false, false, false, true, true},
        {VL_TORCH_2_2, false, false, false, false, false, true},
        {VL_TORCH_2_9, false, false, false, false, false, true},
        {VL_TORCH_CURRENT, false, false, false, false, false, true},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_framework f = *fw("pytorch"); /* foreach AdamW, gradients set to None */
        vl_framework_on_torch(&f, want[i].t);
        assert_int_equal(f.softmax_saves_input, want[i].softmax);
        assert_int_equal(f.zero_grad_in_place, want[i].in_place);
        assert_false(f.grads_persistent);
        assert_int_equal(f.optim_impl == VL_OPTIM_SINGLE_TENSOR, want[i].single);
        assert_int_equal(f.foreach_denom_copy, want[i].denom);
        assert_int_equal(f.mean_saves_input, want[i].mean);
        assert_int_equal(f.cublas_workspace_cached, want[i].cublas_cached);
    }
    /* a profile that steps fused stays fused (DeepSpeed's and Megatron's own kernels),
     * unless fused is the Trainer's default, which it is from PyTorch 2.8 (transformers'
     * training_args.py, default_optim): before, adamw_torch, foreach, and before 2.0
     * torch's single-tensor loop */
    vl_framework f = *fw("deepspeed");
    vl_framework_on_torch(&f, VL_TORCH_1_10);
    assert_int_equal(f.optim_impl, VL_OPTIM_FUSED);
    static const struct {
        vl_torch t;
        vl_optim_impl impl;
    } trainer[] = {
        {VL_TORCH_CURRENT, VL_OPTIM_FUSED}, {VL_TORCH_2_9, VL_OPTIM_FUSED},
        {VL_TORCH_2_8, VL_OPTIM_FUSED},     {VL_TORCH_2_7, VL_OPTIM_FOREACH},
        {VL_TORCH_2_0, VL_OPTIM_FOREACH},   {VL_TORCH_1_13, VL_OPTIM_SINGLE_TENSOR},
    };
    for (size_t i = 0; i < sizeof trainer / sizeof *trainer; i++) {
        f = *fw("hf");
        vl_framework_on_torch(&f, trainer[i].t);
        assert_int_equal(f.optim_impl, trainer[i].impl);
    }
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    vl_settings_take_framework(&s, fw("pytorch"));
    s.torch = VL_TORCH_2_1;
    vl_timeline t;
    char err[128];
    assert_true(vl_timeline_for(&m, &s, &hopper, &t, err, sizeof err));
    uint64_t alive[VL_N_TL_COMPONENTS];
    alive_before(&t, first_event_of(&t, "loss backward"), alive);
    vl_timeline_free(&t);
    vl_framework x = *fw("pytorch");
    x.mean_saves_input = true;
    assert_int_equal(alive[VL_TL_ACTIVATIONS], activations_at_backward(&m, &s, &x));
}

/* The cuBLAS workspaces: one a thread that multiplies, each with its own handle (the
 * forward's, and in training autograd's thread for the GPU), from the caching allocator
 * from PyTorch 2.0 (pull request #83461); cuBLAS's own before, outside it. */
static size_t cublas_events(const vl_timeline *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == VL_EV_ALLOC && strncmp(t->events[i].what, "cuBLAS", 6) == 0) {
            assert_int_equal(t->events[i].bytes, CUBLAS_HOPPER);
            n++;
        }
    return n;
}

static void test_cublas_workspaces(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    vl_framework cached = *fw("pytorch");
    vl_timeline t, own_t;
    build(&m, &s, &cached, &t);
    assert_int_equal(cublas_events(&t), 2);
    assert_int_equal(t.peak.cublas, 2 * CUBLAS_HOPPER);
    assert_int_equal(t.peak.alive[VL_TL_RUNTIME], 2 * CUBLAS_HOPPER);
    assert_int_equal(t.peak.cublas_own, 0);
    /* cuBLAS's own workspaces: the same bytes outside the allocator, in the context; on a
     * Hopper each took a 32 MiB segment of its own, so nvidia-smi's figure is the same */
    vl_framework own = cached;
    own.cublas_workspace_cached = false;
    build(&m, &s, &own, &own_t);
    assert_int_equal(cublas_events(&own_t), 0);
    assert_int_equal(own_t.peak.cublas, 0);
    assert_int_equal(own_t.peak.cublas_own, 2 * CUBLAS_HOPPER);
    assert_int_equal(own_t.peak.allocated, t.peak.allocated - 2 * CUBLAS_HOPPER);
    assert_int_equal(own_t.peak.reserved, t.peak.reserved - 2 * CUBLAS_HOPPER);
    assert_int_equal(own_t.peak.context, t.peak.context + 2 * CUBLAS_HOPPER);
    assert_int_equal(own_t.peak.device, t.peak.device);
    vl_timeline_free(&own_t);
    vl_timeline_free(&t);
    /* serving multiplies on one thread */
    s = serve(64, 16, 2);
    build(&m, &s, &cached, &t);
    assert_int_equal(cublas_events(&t), 1);
    assert_int_equal(t.peak.cublas, CUBLAS_HOPPER);
    vl_timeline_free(&t);
    build(&m, &s, &own, &t);
    assert_int_equal(cublas_events(&t), 0);
    assert_int_equal(t.peak.cublas_own, CUBLAS_HOPPER);
    vl_timeline_free(&t);
}

/* m (the tiny Llama where NULL) served as s says under hf, on transformers a into ta and b
 * into tb. */
static void served_at(const vl_model *m, vl_settings s, vl_transformers a, vl_transformers b,
                      vl_timeline *ta, vl_timeline *tb)
{
    const vl_model lm = m ? *m : tiny_llama();
    char err[256];
    vl_settings_take_framework(&s, fw("hf"));
    s.transformers = a;
    assert_true(vl_timeline_for(&lm, &s, &hopper, ta, err, sizeof err));
    s.transformers = b;
    assert_true(vl_timeline_for(&lm, &s, &hopper, tb, err, sizeof err));
}

/* GPT-2's class keeps a causal-mask buffer in each attention layer: the tiny Llama's 3 of
 * 4096 x 4096 bools */
#define GPT2_MASKS (3ULL * 4096 * 4096)

/* The tiny Llama as classes a and b, trained under autocast on 4 x 512 tokens at
 * transformers v, into t[0] and t[1]; both peak at the loss. */
static void trained_as(vl_model_type a, vl_model_type b, vl_transformers v, vl_timeline t[2])
{
    const vl_model_type types[] = {a, b};
    for (size_t i = 0; i < 2; i++) {
        vl_model m = tiny_llama();
        m.arch.model_type = types[i];
        vl_settings ts = train(VL_BF16_AMP, 512, 4);
        vl_settings_take_framework(&ts, fw("hf"));
        ts.transformers = v;
        char err[128];
        assert_true(vl_timeline_for(&m, &ts, &hopper, &t[i], err, sizeof err));
        assert_string_equal(t[i].peak.phase, "loss");
    }
}

/* Each model class's releases, as read in its modeling_<type>.py: whether the forward
 * returned fp32 logits (in training, given labels; in serving) and projected every position
 * generate gave it; then what that moves in a step. */
static void test_logits_by_class(void **state)
{
    (void)state;
    static const struct {
        vl_model_type type;
        vl_transformers v;
        bool training, cast, all;
    } want[] = {
        /* LlamaForCausalLM: logits.float() through 4.45, num_logits_to_keep from 4.45 */
        {VL_MT_LLAMA, VL_TF_4_44, true, true, true},
        {VL_MT_LLAMA, VL_TF_4_45, false, true, false},
        {VL_MT_LLAMA, VL_TF_4_46, true, false, false},
        /* MistralForCausalLM cast in 4.46 and 4.47 only under `if labels is not None` */
        {VL_MT_MISTRAL, VL_TF_4_47, true, true, false},
        {VL_MT_MISTRAL, VL_TF_4_47, false, false, false},
        {VL_MT_MISTRAL, VL_TF_4_48, true, false, false},
        /* Starcoder2 likewise in 4.46; OLMoE from its first release, 4.45, to 4.46 */
        {VL_MT_STARCODER2, VL_TF_4_46, true, true, false},
        {VL_MT_STARCODER2, VL_TF_4_46, false, false, false},
        {VL_MT_OLMOE, VL_TF_4_45, true, true, false},
        {VL_MT_OLMOE, VL_TF_4_45, false, false, false},
        /* GraniteMoe cast given labels until 5.0, kept from 4.52 */
        {VL_MT_GRANITEMOE, VL_TF_4_57, true, true, false},
        {VL_MT_GRANITEMOE, VL_TF_4_51, false, false, true},
        /* GPT-2 never cast; logits_to_keep from 4.53 */
        {VL_MT_GPT2, VL_TF_4_44, true, false, true},
        {VL_MT_GPT2, VL_TF_4_52, false, false, true},
        {VL_MT_GPT2, VL_TF_4_53, false, false, false},
        /* Falcon from 4.47, GPT-NeoX from 4.49, GPTBigCode only from 5.0 */
        {VL_MT_FALCON, VL_TF_4_46, false, false, true},
        {VL_MT_FALCON, VL_TF_4_47, false, false, false},
        {VL_MT_GPT_NEOX, VL_TF_4_48, false, false, true},
        {VL_MT_GPT_NEOX, VL_TF_4_49, false, false, false},
        {VL_MT_GPT_BIGCODE, VL_TF_4_57, false, false, true},
        /* GPT-J's lm_head(...).to(torch.float32) in every forward until 5.0; GPT-Neo's only
         * given labels */
        {VL_MT_GPTJ, VL_TF_4_57, false, true, true},
        {VL_MT_GPT_NEO, VL_TF_4_57, true, true, true},
        {VL_MT_GPT_NEO, VL_TF_4_57, false, false, true},
        /* 5.0: none of them */
        {VL_MT_GPTJ, VL_TF_CURRENT, false, false, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_framework f = *fw("hf");
        vl_arch a = tiny_llama().arch;
        a.model_type = want[i].type;
        vl_framework_on_class(&f, &a, want[i].v, want[i].training);
        assert_int_equal(f.logits_cast_in_model, want[i].cast);
        assert_int_equal(f.prefill_logits_all, want[i].all);
        /* a profile whose models are not transformers' is left as it is */
        vl_framework p = *fw("pytorch"), before = p;
        vl_framework_on_class(&p, &a, want[i].v, want[i].training);
        assert_memory_equal(&p, &before, sizeof p);
    }
    /* generate from 4.42 hands a DynamicCache only to a class that takes a Cache object;
     * GPT-NeoX's took one from 4.45, BLOOM's from 4.44, GPT-2's from 4.52, GPTBigCode's
     * from 4.54: before, tuples of past_key_values, the step before's held while a decode
     * step concatenates the new (kv_step_copy), though 4.42 stopped holding its outputs */
    static const struct {
        vl_model_type type;
        vl_transformers v;
        bool step_copy;
    } cached[] = {
        {VL_MT_LLAMA, VL_TF_4_42, false},      {VL_MT_GPT_NEOX, VL_TF_4_44, true},
        {VL_MT_GPT_NEOX, VL_TF_4_45, false},   {VL_MT_BLOOM, VL_TF_4_44, false},
        {VL_MT_GPT2, VL_TF_4_51, true},        {VL_MT_GPT2, VL_TF_4_52, false},
        {VL_MT_GPT_BIGCODE, VL_TF_4_53, true}, {VL_MT_GPT_BIGCODE, VL_TF_4_54, false},
        {VL_MT_OPT, VL_TF_4_48, true},         {VL_MT_OPT, VL_TF_4_49, false},
    };
    for (size_t i = 0; i < sizeof cached / sizeof *cached; i++) {
        vl_framework f = *fw("hf");
        vl_framework_on_transformers(&f, cached[i].v);
        vl_arch a = tiny_llama().arch;
        a.model_type = cached[i].type;
        vl_framework_on_class(&f, &a, cached[i].v, false);
        assert_int_equal(f.kv_step_copy, cached[i].step_copy);
        assert_false(f.step_outputs_held);
        vl_framework t = *fw("hf"); /* training keeps no cache */
        vl_framework_on_transformers(&t, cached[i].v);
        vl_framework_on_class(&t, &a, cached[i].v, true);
        assert_false(t.kv_step_copy);
    }
    /* 4 sequences of 8 + 600 tokens, 384 B a token: at the last step, the 599th (the
     * prefill sampled the first new token), GPT-NeoX's class at 4.44 holds the 606 tokens'
     * cache beside the 607 tokens' (as every class before 4.42), Llama's the 607 tokens'
     * and one layer of the 606 tokens' as its torch.cat copies it;
     * neither holds the prefill's logits */
    {
        vl_model neox = tiny_llama();
        neox.arch.model_type = VL_MT_GPT_NEOX;
        vl_timeline tn, tl, unused;
        served_at(&neox, serve(8, 600, 4), VL_TF_4_44, VL_TF_4_44, &tn, &unused);
        vl_timeline_free(&unused);
        served_at(NULL, serve(8, 600, 4), VL_TF_4_44, VL_TF_4_44, &tl, &unused);
        vl_timeline_free(&unused);
        assert_string_equal(tn.peak.phase, "decode step 599");
        assert_int_equal(tn.peak.alive[VL_TL_KV_CACHE], (607ULL + 606) * 4 * 384);
        assert_int_equal(tl.peak.alive[VL_TL_KV_CACHE], 607ULL * 4 * 384 + 606ULL * 4 * 384 / 3);
        uint64_t bytes = 0;
        assert_int_equal(allocs_in(&tn, "prefill", "the prefill's logits, held in "
                                                   "generate's outputs",
                                   &bytes),
                         0);
        vl_timeline_free(&tn);
        vl_timeline_free(&tl);
    }
    /* the causal-mask buffers, torch.tril of max_position_embeddings squared: GPT-2's in
     * every attention layer in every release, 5.0 too; GPT-NeoX's until 4.49, GPT-J's until
     * 4.45; GPTBigCode's one in the model; none under a profile of plain modules */
    {
        static const struct {
            vl_model_type type;
            vl_transformers v;
            const char *framework;
            uint64_t bytes;
        } masks[] = {
            {VL_MT_GPT2, VL_TF_CURRENT, "hf", GPT2_MASKS},
            {VL_MT_GPT2, VL_TF_4_31, "hf", GPT2_MASKS},
            {VL_MT_GPT_NEOX, VL_TF_4_48, "hf", GPT2_MASKS},
            {VL_MT_GPT_NEOX, VL_TF_4_49, "hf", 0},
            {VL_MT_GPTJ, VL_TF_4_44, "hf", GPT2_MASKS},
            {VL_MT_GPTJ, VL_TF_4_45, "hf", 0},
            {VL_MT_GPT_BIGCODE, VL_TF_CURRENT, "hf", 4096ULL * 4096},
            {VL_MT_LLAMA, VL_TF_4_31, "hf", 0},
            {VL_MT_GPT2, VL_TF_CURRENT, "pytorch", 0},
        };
        for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
            vl_arch a = tiny_llama().arch;
            a.model_type = masks[i].type;
            bool ovf = false;
            assert_int_equal(vl_mask_buffers_bytes(fw(masks[i].framework), &a, masks[i].v, 3,
                                                   &ovf),
                             masks[i].bytes);
        }
        vl_model gpt2 = tiny_llama();
        gpt2.arch.model_type = VL_MT_GPT2;
        vl_timeline t, unused;
        served_at(&gpt2, serve(8, 4, 1), VL_TF_4_44, VL_TF_4_44, &t, &unused);
        assert_int_equal(event_bytes(&t, "load weights", "causal-mask buffers (torch.tril of the "
                                                         "positions)"),
                         GPT2_MASKS);
        vl_timeline_free(&t);
        vl_timeline_free(&unused);
    }
    /* generate at 4.46 cloned the whole logits to sample: GPT-2's class, which projects
     * every position until 4.53, holds its 512 x 3000 x 2 B logits twice after the forward,
     * where 4.47's peak is the forward's, the logits beside the two hidden-size tensors it
     * keeps (2 x 512 x 128 x 2 B) */
    {
        vl_model gpt2 = tiny_llama();
        gpt2.arch.model_type = VL_MT_GPT2;
        vl_timeline t46, t47;
        served_at(&gpt2, serve(512, 0, 1), VL_TF_4_46, VL_TF_4_47, &t46, &t47);
        assert_string_equal(t46.peak.phase, "prefill");
        assert_int_equal(t46.peak.tensors - t47.peak.tensors,
                         512ULL * 3000 * 2 - 2ULL * 512 * 128 * 2);
        vl_timeline_free(&t46);
        vl_timeline_free(&t47);
    }
    /* generate's prefill at 4.44: the tiny Llama's 512 positions x 3000 logits in bf16, and
     * as Llama's class their fp32 copy beside them, 512 x 3000 x 4 B more at the peak, where
     * GPT-2's class keeps its causal-mask buffers (GPT2_MASKS) */
    {
        vl_model gpt2 = tiny_llama();
        gpt2.arch.model_type = VL_MT_GPT2;
        vl_timeline llama, t44, t53;
        served_at(NULL, serve(512, 0, 1), VL_TF_4_44, VL_TF_4_44, &llama, &t44);
        vl_timeline_free(&t44);
        served_at(&gpt2, serve(512, 0, 1), VL_TF_4_44, VL_TF_4_53, &t44, &t53);
        assert_string_equal(llama.peak.phase, "prefill");
        assert_string_equal(t44.peak.phase, "prefill");
        assert_int_equal(llama.peak.tensors + GPT2_MASKS - t44.peak.tensors, 512ULL * 3000 * 4);
        /* GPT-2's class at 4.53 projects the last position only, as Llama's at 4.45 */
        vl_timeline l45, l45b;
        served_at(NULL, serve(512, 0, 1), VL_TF_4_45, VL_TF_4_45, &l45, &l45b);
        assert_int_equal(t53.peak.tensors, l45.peak.tensors + GPT2_MASKS);
        vl_timeline_free(&llama);
        vl_timeline_free(&t44);
        vl_timeline_free(&t53);
        vl_timeline_free(&l45);
        vl_timeline_free(&l45b);
    }
    /* training at 4.47: Mistral's class returned the fp32 cast, and the 4 x 512 x 3000 bf16
     * logits went with it; Llama's kept them in its outputs beside the loss's own cast */
    {
        vl_timeline t[2];
        trained_as(VL_MT_LLAMA, VL_MT_MISTRAL, VL_TF_4_47, t);
        assert_int_equal(t[0].peak.tensors - t[1].peak.tensors, 4ULL * 512 * 3000 * 2);
        vl_timeline_free(&t[0]);
        vl_timeline_free(&t[1]);
    }
    /* training at 4.48 under autocast: GPT-2's own loss copied the shifted logits in bf16
     * and cross_entropy cast that copy (2 + 2 + 4 B a logit, and the fp32 log-probabilities);
     * Qwen3's, ForCausalLMLoss, cast first and copied the fp32 cast (2 + 4 + 4 B): 4 x 512 x
     * 3000 x 2 B less at the loss.  In backward GPT-2's gradient is cast back before the
     * slice's backward makes the full-size one, in bf16 */
    {
        vl_timeline t[2];
        trained_as(VL_MT_QWEN3, VL_MT_GPT2, VL_TF_4_48, t);
        assert_int_equal(t[0].peak.tensors + GPT2_MASKS - t[1].peak.tensors,
                         4ULL * 512 * 3000 * 2);
        uint64_t bytes = 0;
        assert_int_equal(allocs_in(&t[1], "loss backward", "gradient of the logits, unshifted",
                                   &bytes),
                         1);
        assert_int_equal(bytes, 4ULL * 512 * 3000 * 2);
        assert_int_equal(allocs_in(&t[0], "loss backward", "gradient of the logits, unshifted",
                                   &bytes),
                         1);
        assert_int_equal(bytes, 4ULL * 512 * 3000 * 4);
        vl_timeline_free(&t[0]);
        vl_timeline_free(&t[1]);
    }
}

/* --transformers: each release line against the pull request that changed the default;
 * profiles whose models are not transformers' are left as they are. */
static void test_transformers_releases(void **state)
{
    (void)state;
    static const struct {
        vl_transformers v;
        bool reentrant, shift_copy, step_copy, cache_views;
        vl_optim_impl impl; /* the Trainer's AdamW on current PyTorch */
    } want[] = {
        {VL_TF_4_31, true, true, true, true, VL_OPTIM_SINGLE_TENSOR},
        {VL_TF_4_32, true, true, true, true, VL_OPTIM_FOREACH},
        {VL_TF_4_41, true, true, true, true, VL_OPTIM_FOREACH},
        {VL_TF_4_42, true, true, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_44, true, true, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_45, true, true, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_46, true, true, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_48, true, true, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_49, true, false, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_53, true, false, false, true, VL_OPTIM_FOREACH},
        {VL_TF_4_54, true, false, false, true, VL_OPTIM_FUSED},
        {VL_TF_4_55, true, false, false, true, VL_OPTIM_FUSED},
        {VL_TF_4_56, true, false, false, false, VL_OPTIM_FUSED},
        {VL_TF_4_57, true, false, false, false, VL_OPTIM_FUSED},
        {VL_TF_CURRENT, false, false, false, false, VL_OPTIM_FUSED},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_framework f = *fw("hf");
        vl_framework_on_transformers(&f, want[i].v);
        assert_int_equal(f.checkpoint_reentrant, want[i].reentrant);
        assert_int_equal(f.loss_shift_copy, want[i].shift_copy);
        assert_int_equal(f.kv_step_copy, want[i].step_copy);
        assert_int_equal(f.kv_cache_views, want[i].cache_views);
        assert_int_equal(f.optim_impl, want[i].impl);
        /* _sample's outputs.logits.clone()[:, -1, :] in 4.45 and 4.46 (#34813 in 4.47) */
        assert_int_equal(f.logits_clone_all, want[i].v == VL_TF_4_45 || want[i].v == VL_TF_4_46);
    }
    /* generate before 4.42 held the step before's cache while a decode step concatenated
     * the new one: 4 sequences of 8 + 600 tokens, 384 B a token (2 x 3 layers x 2 KV heads
     * x 16 x 2 B), hold 607 and 606 tokens' caches at the last step (the 599th: the prefill
     * sampled the first token), where 4.42 holds the 607 tokens' and one layer of the 606
     * tokens' as the last layer's torch.cat copies it;
     * the prefill's logits, fp32 (4.31 to 4.45 cast them in the model), 8 x 4 x 3000 x 4 B,
     * stay in generate's outputs through the first decode step */
    {
        vl_timeline t41, t42;
        served_at(NULL, serve(8, 600, 4), VL_TF_4_41, VL_TF_4_42, &t41, &t42);
        assert_string_equal(t41.peak.phase, "decode step 599");
        assert_string_equal(t42.peak.phase, "decode step 599");
        assert_int_equal(t41.peak.alive[VL_TL_KV_CACHE], (607ULL + 606) * 4 * 384);
        assert_int_equal(t42.peak.alive[VL_TL_KV_CACHE], 607ULL * 4 * 384 + 606ULL * 4 * 384 / 3);
        assert_int_equal(event_bytes(&t41, "prefill", "the prefill's logits, held in "
                                                      "generate's outputs"),
                         8ULL * 4 * 3000 * 4);
        vl_timeline_free(&t41);
        vl_timeline_free(&t42);
    }
    /* before 4.56 the cache kept the prefill's K and V as the attention handed them over:
     * where they are views of one fused QKV output, that output, q + 2 kv = 128 + 2 x 32
     * wide for the tiny Llama (8 heads, 2 KV heads of 16), stays whole, with K where RoPE
     * made it anew (qkv_views v), in each of the 3 layers: 512 tokens x (192 + 32) x 2 B a
     * layer, or x 192 x 2 B with Q, K and V all views (qkv), where 4.56 copies K and V out,
     * 512 x 2 x 32 x 2 B a layer; the first decode step's torch.cat frees the views */
    {
        static const struct {
            vl_qkv_views views;
            uint64_t width;
        } kept[] = {{VL_QKV_VIEWS_V, 128 + 2 * 32 + 32}, {VL_QKV_VIEWS_QKV, 128 + 2 * 32}};
        const char *views = "KV cache of a layer (its QKV views)";
        for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
            vl_model m = tiny_llama();
            m.arch.qkv_views = kept[i].views;
            vl_timeline t55, t56;
            served_at(&m, serve(512, 4, 1), VL_TF_4_55, VL_TF_4_56, &t55, &t56);
            uint64_t bytes = 0;
            assert_int_equal(allocs_in(&t55, "prefill", views, &bytes), 3);
            assert_int_equal(bytes, 512ULL * kept[i].width * 2);
            assert_string_equal(freed_in(&t55, "prefill", views), "decode step 1");
            assert_int_equal(allocs_in(&t56, "prefill", views, &bytes), 0);
            assert_int_equal(allocs_in(&t56, "prefill", "KV cache of a layer (torch.cat)", &bytes),
                             3);
            assert_int_equal(bytes, 512ULL * 2 * 32 * 2);
            assert_int_equal(t55.peak.alive[VL_TL_KV_CACHE] - t56.peak.alive[VL_TL_KV_CACHE],
                             3ULL * 512 * (kept[i].width - 2 * 32) * 2);
            assert_int_equal(t55.end[VL_TL_KV_CACHE], t56.end[VL_TL_KV_CACHE]);
            vl_timeline_free(&t55);
            vl_timeline_free(&t56);
            /* over 2 GPUs in tensor parallel each holds half the output's width */
            vl_settings tp2 = serve(512, 4, 1);
            tp2.gpus = 2;
            served_at(&m, tp2, VL_TF_4_55, VL_TF_4_56, &t55, &t56);
            assert_int_equal(allocs_in(&t55, "prefill", views, &bytes), 3);
            assert_int_equal(bytes, 512ULL * kept[i].width / 2 * 2);
            vl_timeline_free(&t55);
            vl_timeline_free(&t56);
        }
    }
    /* generate before 4.45: the prefill's every position projected to bf16 logits, 512 x
     * 3000 x 2 B, and cast to fp32 beside them, x 4 B, where the MLP's three 512 x 352 x 2 B
     * tensors were the largest of the layer, with the embeddings' output and the layer's
     * input the forward keeps (2 x 512 x 128 x 2 B); 4.45 projects the last position only */
    {
        vl_timeline t44, t45;
        served_at(NULL, serve(512, 0, 1), VL_TF_4_44, VL_TF_4_45, &t44, &t45);
        assert_int_equal(t44.peak.tensors - t45.peak.tensors,
                         512ULL * 3000 * (2 + 4) - 3ULL * 512 * 352 * 2 - 2ULL * 512 * 128 * 2);
        vl_timeline_free(&t44);
        vl_timeline_free(&t45);
    }
    /* each attention layer kept cos and sin of every position over its class's releases,
     * as read in the wheels' modeling_<type>.py: Llama's through 4.40 (4.38.2 to 4.40 "for
     * BC"), Mistral's through 4.41, Mixtral's through 4.47, Qwen2's, Phi's and GPT-NeoX's
     * through 4.44, GPT-NeoX's as buffers from 4.35 (plain attributes before, left on the
     * CPU), Falcon's from 4.36 (the sequence's alone before), Gemma's never: the tiny
     * Llama's 3 layers x 2 x 4096 positions x 16 head dim, in the dtype the model loaded
     * in: 16 bits served, 32 under autocast's fp32 model, 16 for a pure 16-bit run */
    {
        const char *tables = "RoPE cos and sin tables, each attention layer's";
        static const struct {
            vl_model_type type;
            vl_transformers v;
            bool tables;
        } classes[] = {
            {VL_MT_LLAMA, VL_TF_4_31, true},      {VL_MT_LLAMA, VL_TF_4_40, true},
            {VL_MT_LLAMA, VL_TF_4_41, false},     {VL_MT_LLAMA, VL_TF_CURRENT, false},
            {VL_MT_MISTRAL, VL_TF_4_41, true},    {VL_MT_MISTRAL, VL_TF_4_42, false},
            {VL_MT_MIXTRAL, VL_TF_4_47, true},    {VL_MT_MIXTRAL, VL_TF_4_48, false},
            {VL_MT_QWEN2, VL_TF_4_44, true},      {VL_MT_QWEN2, VL_TF_4_45, false},
            {VL_MT_GPT_NEOX, VL_TF_4_34, false},  {VL_MT_GPT_NEOX, VL_TF_4_35, true},
            {VL_MT_FALCON, VL_TF_4_35, false},    {VL_MT_FALCON, VL_TF_4_36, true},
            {VL_MT_FALCON, VL_TF_4_45, false},    {VL_MT_GEMMA, VL_TF_4_38, false},
        };
        for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
            vl_arch a = tiny_llama().arch;
            a.model_type = classes[i].type;
            for (int training = 0; training < 2; training++) {
                vl_framework f = *fw("hf");
                vl_framework_on_transformers(&f, classes[i].v);
                vl_framework_on_class(&f, &a, classes[i].v, training);
                assert_int_equal(f.rope_tables, classes[i].tables);
            }
        }
        vl_timeline t40, t41;
        served_at(NULL, serve(8, 4, 1), VL_TF_4_40, VL_TF_4_41, &t40, &t41);
        assert_int_equal(event_bytes(&t40, "load weights", tables), 3ULL * 2 * 4096 * 16 * 2);
        assert_int_equal(t40.end[VL_TL_WEIGHTS] - t41.end[VL_TL_WEIGHTS], 3ULL * 2 * 4096 * 16 * 2);
        vl_timeline_free(&t40);
        vl_timeline_free(&t41);
        const vl_model lm = tiny_llama();
        static const struct {
            vl_precision p;
            uint64_t bytes;
        } trained[] = {{VL_BF16_AMP, 4}, {VL_FP32, 4}, {VL_BF16, 2}, {VL_BF16_MIXED, 2}};
        for (size_t i = 0; i < sizeof trained / sizeof *trained; i++) {
            vl_settings ts = train(trained[i].p, 64, 2);
            vl_settings_take_framework(&ts, fw("hf"));
            ts.transformers = VL_TF_4_38;
            vl_timeline t;
            char err[128];
            assert_true(vl_timeline_for(&lm, &ts, &hopper, &t, err, sizeof err));
            assert_int_equal(event_bytes(&t, "step start (the state kept between steps)", tables),
                             3ULL * 2 * 4096 * 16 * trained[i].bytes);
            vl_timeline_free(&t);
        }
    }
    /* the releases compose: transformers 4.54 on PyTorch 2.7 steps foreach, 4.31 on 1.13
     * transformers' own loop; DeepSpeed's FusedAdam is no Trainer default */
    vl_settings s = train(VL_BF16, 64, 2);
    vl_settings_take_framework(&s, fw("hf"));
    s.transformers = VL_TF_4_54;
    s.torch = VL_TORCH_2_7;
    vl_framework f;
    vl_framework_of(&s, &hopper, &f);
    assert_int_equal(f.optim_impl, VL_OPTIM_FOREACH);
    vl_settings_take_framework(&s, fw("deepspeed"));
    s.transformers = VL_TF_4_31;
    vl_framework_of(&s, &hopper, &f);
    assert_int_equal(f.optim_impl, VL_OPTIM_FUSED);
    assert_true(f.checkpoint_reentrant);
    static const char *const others[] = {"pytorch", "megatron", "vllm", "litgpt"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        vl_framework before = *fw(others[i]), after = before;
        vl_framework_on_transformers(&after, VL_TF_4_31);
        assert_memory_equal(&before, &after, sizeof before);
    }
    /* --bitsandbytes: MatMul4Bit kept its input until 0.43.2 (pull request #1270), in any
     * profile, and nothing else changes */
    static const struct {
        vl_bitsandbytes v;
        bool keeps;
    } bnb[] = {{VL_BNB_0_41, true}, {VL_BNB_0_42, true}, {VL_BNB_0_43_0, true},
               {VL_BNB_0_43_1, true}, {VL_BNB_CURRENT, false}};
    for (size_t i = 0; i < sizeof bnb / sizeof *bnb; i++) {
        vl_framework before = *fw("litgpt"), after = before;
        vl_framework_on_bitsandbytes(&after, bnb[i].v);
        assert_int_equal(after.nf4_keeps_input, bnb[i].keeps);
        after.nf4_keeps_input = before.nf4_keeps_input;
        assert_memory_equal(&before, &after, sizeof before);
    }
    s.bitsandbytes = VL_BNB_0_43_1;
    vl_framework_of(&s, &hopper, &f);
    assert_true(f.nf4_keeps_input);

    /* attn_implementation came in 4.36: an older release brings eager attention under the
     * profiles whose models are transformers', unless the same settings name one */
    static const struct {
        const char *framework;
        vl_transformers v;
        bool attention_given;
        vl_attention want;
    } attn[] = {
        {"hf", VL_TF_4_35, false, VL_ATTN_EAGER},    {"hf", VL_TF_4_31, false, VL_ATTN_EAGER},
        {"hf", VL_TF_4_36, false, VL_ATTN_SDPA},     {"hf", VL_TF_CURRENT, false, VL_ATTN_SDPA},
        {"hf", VL_TF_4_31, true, VL_ATTN_FLASH},
        {"deepspeed", VL_TF_4_31, false, VL_ATTN_EAGER},
        {"litgpt", VL_TF_4_31, false, VL_ATTN_SDPA},
    };
    for (size_t i = 0; i < sizeof attn / sizeof *attn; i++) {
        vl_settings t = train(VL_BF16, 64, 2);
        vl_settings_patch p = {0};
        p.values.framework = fw(attn[i].framework);
        vl_patch_mark(&p, VL_SET_FRAMEWORK);
        p.values.transformers = attn[i].v;
        vl_patch_mark(&p, VL_SET_TRANSFORMERS);
        if (attn[i].attention_given) {
            p.values.attention = VL_ATTN_FLASH;
            vl_patch_mark(&p, VL_SET_ATTENTION);
        }
        vl_settings_apply(&t, &p);
        assert_int_equal(t.attention, attn[i].want);
    }

    /* a model whose class ran SDPA from a later release (BERT's from 4.41) runs eager
     * before it, and so does every model on a PyTorch before 2.1.1: the same step as
     * --attention eager; flash stays, and a profile whose models are not transformers' is
     * not concerned */
    vl_model bert = tiny_gpt();
    bert.arch.sdpa_from = VL_TF_4_41;
    static const char class_note[] = "runs SDPA from transformers 4.41 on: under 4.40, "
                                     "attention is eager";
    static const char torch_note[] = "transformers runs SDPA on PyTorch 2.1.1 and later: "
                                     "under 2.0, attention is eager";
    static const struct {
        const char *framework;
        vl_transformers v;
        vl_torch torch;
        vl_attention asked, want;
        const char *note;
    } runs[] = {
        {"hf", VL_TF_4_40, VL_TORCH_CURRENT, VL_ATTN_SDPA, VL_ATTN_EAGER, class_note},
        {"hf", VL_TF_4_41, VL_TORCH_CURRENT, VL_ATTN_SDPA, VL_ATTN_SDPA, NULL},
        {"hf", VL_TF_CURRENT, VL_TORCH_CURRENT, VL_ATTN_SDPA, VL_ATTN_SDPA, NULL},
        {"hf", VL_TF_4_40, VL_TORCH_CURRENT, VL_ATTN_FLASH, VL_ATTN_FLASH, NULL},
        {"pytorch", VL_TF_4_40, VL_TORCH_CURRENT, VL_ATTN_SDPA, VL_ATTN_SDPA, NULL},
        {"hf", VL_TF_CURRENT, VL_TORCH_2_0, VL_ATTN_SDPA, VL_ATTN_EAGER, torch_note},
        {"hf", VL_TF_4_40, VL_TORCH_2_0, VL_ATTN_SDPA, VL_ATTN_EAGER, torch_note},
        {"deepspeed", VL_TF_CURRENT, VL_TORCH_2_0, VL_ATTN_SDPA, VL_ATTN_EAGER, torch_note},
        {"hf", VL_TF_CURRENT, VL_TORCH_2_1, VL_ATTN_SDPA, VL_ATTN_SDPA, NULL},
        {"pytorch", VL_TF_CURRENT, VL_TORCH_2_0, VL_ATTN_SDPA, VL_ATTN_SDPA, NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        vl_settings t = train(VL_BF16, 64, 2);
        vl_settings_take_framework(&t, fw(runs[i].framework));
        t.padded = VL_CHOICE_FALSE; /* the releases' masks differ (test_sdpa_padding_mask) */
        t.transformers = runs[i].v;
        t.torch = runs[i].torch;
        t.attention = runs[i].asked;
        assert_int_equal(vl_attention_for(&t, &bert.arch), runs[i].want);
        vl_breakdown b, as_eager;
        assert_null(vl_estimate(&bert, &t, &b));
        assert_int_equal(b.attention, runs[i].want);
        char notes[4][VL_NOTE_LEN];
        const int n = vl_notes(&t, &bert, &b, notes, 4);
        int explained = 0; /* the notes that say why the run is eager, and the last */
        const char *said = "";
        for (int k = 0; k < n; k++)
            if (strstr(notes[k], class_note) || strstr(notes[k], torch_note)) {
                explained++;
                said = notes[k];
            }
        assert_int_equal(explained, runs[i].note != NULL);
        assert_true(!runs[i].note || strstr(said, runs[i].note));
        t.attention = runs[i].want;
        t.transformers = VL_TF_CURRENT;
        assert_null(vl_estimate(&bert, &t, &as_eager));
        assert_int_equal(b.act.total, as_eager.act.total);
        if (i == 0) { /* and the eager run keeps the scores the SDPA run does not */
            vl_breakdown sdpa;
            t.attention = VL_ATTN_SDPA;
            assert_null(vl_estimate(&bert, &t, &sdpa));
            assert_true(b.act.total > sdpa.act.total);
        }
    }

    /* releases as pip prints them: a patch release is its line, a release past the list
     * is current, one before the first listed is that line where the earlier ones behave
     * as it (transformers, PyTorch, CUDA) and refused where they do not (bitsandbytes before
     * 0.41 computed in its own dtype, vLLM's V1 engine and trl's cast came later) */
    static const struct {
        vl_setting k;
        const char *text;
        int want; /* -1: refused */
    } typed[] = {
        {VL_SET_TRANSFORMERS, "4.40.2", VL_TF_4_40}, {VL_SET_TRANSFORMERS, "5.2", VL_TF_CURRENT},
        {VL_SET_TRANSFORMERS, "5", VL_TF_CURRENT},   {VL_SET_TRANSFORMERS, "4.30", VL_TF_4_30},
        {VL_SET_TRANSFORMERS, "4.3", VL_TF_4_3},     {VL_SET_TRANSFORMERS, "3.5.1", VL_TF_4_0},
        {VL_SET_TRANSFORMERS, "4.40.x", -1},
        {VL_SET_TRANSFORMERS, "5.", -1},             {VL_SET_TORCH, "2.1.2", VL_TORCH_2_1},
        {VL_SET_TORCH, "2.10", VL_TORCH_CURRENT},    {VL_SET_TORCH, "1.7", VL_TORCH_1_8},
        {VL_SET_BITSANDBYTES, "0.41.1", VL_BNB_0_41}, {VL_SET_BITSANDBYTES, "0.43.1", VL_BNB_0_43_1},
        {VL_SET_BITSANDBYTES, "0.43.3", VL_BNB_CURRENT}, {VL_SET_BITSANDBYTES, "0.40.2", -1},
        {VL_SET_VLLM, "0.10.2", VL_VLLM_0_10},      {VL_SET_VLLM, "0.17.1", VL_VLLM_0_17},
        {VL_SET_VLLM, "0.19.1", VL_VLLM_0_19},      {VL_SET_VLLM, "0.33.2", VL_VLLM_0_33},
        {VL_SET_VLLM, "0.34.1", VL_VLLM_0_34},      {VL_SET_VLLM, "0.35.0", VL_VLLM_CURRENT},
        {VL_SET_VLLM, "0.1.7", -1},
        /* SGLang's lines span the releases up to the next */
        {VL_SET_SGLANG, "0.4.9", VL_SGL_0_4_8},     {VL_SET_SGLANG, "0.5.2", VL_SGL_0_4_8},
        {VL_SET_SGLANG, "0.4.6", VL_SGL_0_4_6},     {VL_SET_SGLANG, "0.4.10", VL_SGL_0_4_8},
        {VL_SET_SGLANG, "0.5.19", VL_SGL_0_5_10},   {VL_SET_SGLANG, "0.5.23", VL_SGL_CURRENT},
        {VL_SET_SGLANG, "0.3.5", VL_SGL_0_3},       {VL_SET_SGLANG, "0.2.9", -1},
        {VL_SET_SGLANG, "0.4.7.post1", VL_SGL_0_4_7},
        /* V0's lines: 0.3.1 to 0.5.2, 0.5.3 to 0.6.3, 0.6.4, 0.6.5 to 0.7.0, 0.7.1 on
         * (vl_settings_check refuses them under the V1 profile) */
        {VL_SET_VLLM, "0.4.1", VL_VLLM_0_3_1},      {VL_SET_VLLM, "0.5.2", VL_VLLM_0_3_1},
        {VL_SET_VLLM, "0.5.3", VL_VLLM_0_5_3},      {VL_SET_VLLM, "0.6.3", VL_VLLM_0_5_3},
        {VL_SET_VLLM, "0.6.4.post1", VL_VLLM_0_6_4}, {VL_SET_VLLM, "0.7.3", VL_VLLM_0_7_1},
        {VL_SET_VLLM, "0.7.0", VL_VLLM_0_6_5},
        {VL_SET_VLLM, "0.3.0", -1},                 {VL_SET_VLLM, "0.6.4x", -1},
        {VL_SET_TORCH, "2.5.1+cu124", VL_TORCH_2_5}, {VL_SET_TORCH, "2.5.1.rc1", -1},
        {VL_SET_TRL, "0.13.0", VL_TRL_0_13},        {VL_SET_TRL, "0.22.1", VL_TRL_CURRENT},
        {VL_SET_TRL, "0.7.5", -1},                  {VL_SET_CUDA, "11.2.1", VL_CUDA_11_2},
        {VL_SET_CUDA, "13.1", VL_CUDA_CURRENT},     {VL_SET_CUDA, "12.7", -1},
        {VL_SET_CUDA, "9.2", VL_CUDA_10_2},        {VL_SET_CUDA, "12.x", -1},
        {VL_SET_CUDA, "auto", VL_CUDA_AUTO},
    };
    for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
        vl_settings t = train(VL_BF16, 64, 2);
        char why[512];
        bool ok = vl_setting_parse(typed[i].k, typed[i].text, &t, why, sizeof why);
        assert_int_equal(ok, typed[i].want >= 0);
        if (ok) {
            char got[32];
            vl_setting_format(typed[i].k, &t, got, sizeof got);
            assert_string_equal(got, vl_setting_table[typed[i].k].names[typed[i].want]);
        }
    }
}

/* --trl: SFTTrainer from 0.7.5 to 0.21 casts a 4-bit model's embeddings and head back to
 * bf16 under bf16 autocast, as the profile key qlora_bf16_embeddings does, in the profiles
 * whose models are transformers' only; the timeline is the key's to the byte. */
static void test_trl_release(void **state)
{
    (void)state;
    static const struct {
        const char *framework;
        vl_trl release;
        bool cast;
    } want[] = {
        {"hf", VL_TRL_CURRENT, false}, {"hf", VL_TRL_0_8, true},  {"hf", VL_TRL_0_21, true},
        {"deepspeed", VL_TRL_0_13, true}, {"pytorch", VL_TRL_0_13, false},
        {"litgpt", VL_TRL_0_13, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_settings s = train(VL_BF16_AMP, 64, 2);
        vl_settings_take_framework(&s, fw(want[i].framework));
        s.trl = want[i].release;
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        assert_int_equal(f.qlora_bf16_embeddings, want[i].cast);
    }
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16_AMP, 64, 2);
    vl_settings_take_framework(&s, fw("hf"));
    s.lora_rank = 8;
    s.qlora = true;
    vl_framework key = *fw("hf");
    key.qlora_bf16_embeddings = true;
    s.framework = &key;
    vl_timeline by_key, by_release, none;
    char why[256];
    assert_true(vl_timeline_for(&m, &s, &hopper, &by_key, why, sizeof why));
    s.framework = fw("hf");
    s.trl = VL_TRL_0_13;
    assert_true(vl_timeline_for(&m, &s, &hopper, &by_release, why, sizeof why));
    s.trl = VL_TRL_CURRENT;
    assert_true(vl_timeline_for(&m, &s, &hopper, &none, why, sizeof why));
    assert_int_equal(by_release.peak.allocated, by_key.peak.allocated);
    /* the embeddings (3000 x 128) and the head (128 x 3000) in 2 bytes, not fp32's 4 */
    assert_int_equal(none.end[VL_TL_WEIGHTS] - by_release.end[VL_TL_WEIGHTS],
                     2 * 2 * 3000 * 128);
    vl_timeline_free(&by_key);
    vl_timeline_free(&by_release);
    vl_timeline_free(&none);
}

/* --cuda picks the context through the runtime: a V100 with CUDA 11.2 loads every kernel
 * with it (the transformers docs' 1343 MiB less the first tensor's 2 MiB segment); from
 * 11.7 kernels load as used, 287,047,680 B less a 20 MiB segment at first and the step's
 * kernels, 379,584,512 B, once it runs (pytorch/pytorch#86509, a GPU of unknown SMs);
 * current is CUDA 13 and later (an Ada GPU's context, 426 MiB). */
static void test_cuda_release(void **state)
{
    (void)state;
    static const struct {
        vl_cuda cuda;
        unsigned number;
        vl_gpu_arch arch;
        uint64_t context;
    } want[] = {
        {VL_CUDA_10_2, 1002, VL_ARCH_VOLTA, 1341 * MIB},
        {VL_CUDA_11_2, 1102, VL_ARCH_VOLTA, 1341 * MIB},
        {VL_CUDA_11_7, 1107, VL_ARCH_VOLTA, 287047680ULL - 20 * MIB + 379584512ULL},
        {VL_CUDA_12_4, 1204, VL_ARCH_ADA, 287047680ULL - 20 * MIB + 379584512ULL},
        {VL_CUDA_CURRENT, 1300, VL_ARCH_ADA, 426 * MIB + 379584512ULL},
    };
    vl_model m = tiny_gpt();
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_settings s = train(VL_FP32, 64, 2);
        s.cuda = want[i].cuda;
        assert_int_equal(vl_cuda_number(s.cuda), want[i].number);
        const vl_gpu gpu = {.name = "any", .generation = want[i].arch, .memory = 16384 * MIB};
        const vl_runtime rt = vl_runtime_on(&gpu, &s, false);
        assert_int_equal(rt.cuda, want[i].number);
        vl_timeline t;
        char why[256];
        assert_true(vl_timeline_for(&m, &s, &rt, &t, why, sizeof why));
        assert_int_equal(t.peak.context, want[i].context);
        vl_timeline_free(&t);
    }
    /* auto, the default: the CUDA of --torch's wheel on PyPI, as pip resolves its
     * nvidia-cuda-runtime pin (10.2 inside the wheels before 1.13); a release given wins */
    static const struct {
        vl_torch torch;
        unsigned number;
    } wheel[] = {{VL_TORCH_1_10, 1002}, {VL_TORCH_1_12, 1002}, {VL_TORCH_1_13, 1107},
                 {VL_TORCH_2_0, 1107},  {VL_TORCH_2_1, 1201},  {VL_TORCH_2_4, 1201},
                 {VL_TORCH_2_5, 1204},  {VL_TORCH_2_6, 1204},  {VL_TORCH_2_7, 1206},
                 {VL_TORCH_2_8, 1208},  {VL_TORCH_2_9, 1208},  {VL_TORCH_CURRENT, 1208}};
    vl_settings s;
    vl_settings_default(&s);
    assert_int_equal(s.cuda, VL_CUDA_AUTO);
    for (size_t i = 0; i < sizeof wheel / sizeof *wheel; i++) {
        s.torch = wheel[i].torch;
        assert_int_equal(vl_cuda_number(vl_settings_cuda(&s)), wheel[i].number);
        assert_int_equal(vl_runtime_on(NULL, &s, false).cuda, wheel[i].number);
    }
    s.torch = VL_TORCH_2_0; /* --torch is training's: serving runs today's */
    s.mode = VL_MODE_INFER;
    assert_int_equal(vl_cuda_number(vl_settings_cuda(&s)), 1208);
    s.cuda = VL_CUDA_11_8;
    assert_int_equal(vl_cuda_number(vl_settings_cuda(&s)), 1108);
}

/* Under eager attention a causal decoder adds its b x 1 x s x s mask, in the model's
 * dtype; an encoder (BERT: post-norm, a pooler, token types) broadcasts a b x 1 x 1 x s one
 * and adds none. */
static void test_encoder_mask(void **state)
{
    (void)state;
    vl_model dec = tiny_gpt(), enc = tiny_gpt(), distil = tiny_gpt();
    enc.arch.norm_position = VL_NORM_POST;
    enc.arch.pooler = true;
    enc.arch.token_types = 2;
    assert_true(vl_arch_encoder(&enc.arch));
    /* DistilBERT: post-norm with a norm over its embeddings, no token types, no pooler */
    distil.arch.norm_position = VL_NORM_POST;
    distil.arch.embedding_norm = true;
    assert_true(vl_arch_encoder(&distil.arch));
    vl_settings s = train(VL_FP32, 64, 2);
    vl_settings_take_framework(&s, fw("hf"));
    s.attention = VL_ATTN_EAGER;
    s.head = VL_HEAD_CLS;
    const vl_model *models[] = {&dec, &enc, &distil};
    for (int i = 0; i < 3; i++) {
        vl_timeline t;
        char why[256];
        assert_true(vl_timeline_for(models[i], &s, &hopper, &t, why, sizeof why));
        uint64_t masks = 0, bytes = 0;
        for (size_t e = 0; e < t.n_events; e++)
            if (strcmp(t.events[e].what, "causal mask (b x 1 x s x s)") == 0 &&
                t.events[e].bytes > 0) {
                masks++;
                bytes = t.events[e].bytes;
            }
        if (i == 0) {
            assert_true(masks > 0);
            assert_int_equal(bytes, 64 * 64 * 2 * 4);
        } else {
            assert_int_equal(masks, 0);
        }
        vl_timeline_free(&t);
    }
}

/* BERT-like, tiny (tiny_gpt's widths; post-norm, token types, a norm over the embeddings,
 * the pooler) fine-tuned to classify under eager attention: the embeddings' sum kept for
 * their norm; each half's norm, which ends it, runs first in backward and frees its input
 * before the half's own backward; the value matmul's gradient of V (s x b x h) held through
 * the softmax's backward; under autocast the pooler's 16-bit cast of the first position
 * saved, and the fp32 last hidden state alive through the loss, not after. */
static void test_encoder(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    m.arch.norm_position = VL_NORM_POST;
    m.arch.token_types = 2;
    m.arch.embedding_norm = true;
    m.arch.pooler = true;
    vl_settings s = train(VL_FP32, 128, 2);
    s.head = VL_HEAD_CLS;
    vl_framework x = *fw("pytorch");
    x.head = VL_HEAD_CLS;
    const uint64_t sbh = 128 * 2 * 64;
    vl_timeline t;
    build(&m, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "forward embedding", "embedding norm input"), 4 * sbh);
    const size_t bwd = first_event_of(&t, "backward layer 1");
    const char *vg = "gradient of V (the value matmul's)";
    assert_true(first_event_named(&t, bwd, VL_EV_FREE, "MLP norm input") <
                first_event_named(&t, bwd, VL_EV_ALLOC, MLP_WORKSPACE));
    const size_t v = first_event_named(&t, bwd, VL_EV_ALLOC, vg);
    assert_int_equal(t.events[v].bytes, 4 * sbh);
    assert_true(first_event_named(&t, bwd, VL_EV_FREE, "attention norm input") < v);
    assert_true(v < first_event_named(&t, bwd, VL_EV_ALLOC, ATTN_WORKSPACE));
    assert_true(first_event_named(&t, v, VL_EV_FREE, vg) < first_event_of(&t, "backward layer 0"));
    assert_int_equal(event_bytes(&t, "loss", "classifier input (the last hidden state)"), 4 * sbh);
    const char *spread = "the first position's gradient, spread by the select's backward";
    uint64_t n = 0;
    assert_int_equal(allocs_in(&t, "loss backward", spread, &n), 0);
    vl_timeline_free(&t);
    /* dropout: the attention's mask goes with the dropout's backward, after the value
     * side's, so the softmax's gradients meet it */
    m.arch.dropout = true;
    build(&m, &s, &x, &t);
    const size_t ws = first_event_named(&t, bwd, VL_EV_ALLOC, ATTN_WORKSPACE);
    assert_true(ws < first_event_named(&t, bwd, VL_EV_FREE, "attention dropout mask"));
    assert_true(first_event_named(&t, bwd, VL_EV_FREE, "attention dropout output") < ws);
    vl_timeline_free(&t);
    m.arch.dropout = false;

    s.precision = VL_BF16_AMP;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "loss", "classifier input (the last hidden state)", &n), 0);
    assert_int_equal(
        event_bytes(&t, "loss", "classifier input (the first position, a 16-bit cast)"), 2 * 2 * 64);
    const char *live = "the last hidden state, which the head reads";
    const size_t last = first_alloc(&t, "loss", live);
    assert_int_equal(t.events[last].bytes, 4 * sbh);
    assert_true(first_event_named(&t, last, VL_EV_FREE, live) < first_event_of(&t, "loss backward"));
    /* its gradient: select's and slice's backward each make a whole one */
    assert_int_equal(allocs_in(&t, "loss backward", spread, &n), 1);
    assert_int_equal(n, 4 * sbh);
    vl_timeline_free(&t);
}

/* LoRA under autocast, and QLoRA's 4-bit matmuls under autocast. */
static void test_frozen_under_autocast(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16_AMP, 64, 2);
    const uint64_t sb = 128, h = 128, f = 352, L = 3;
    s.lora_rank = 8; /* q: 8 x (128 + 128), v: 8 x (128 + 32) (2 KV heads of 16) a layer */
    const uint64_t adapters = 8 * (128 + 128) + 8 * (128 + 32);
    vl_framework x = *fw("pytorch");
    vl_timeline t;
    build(&m, &s, &x, &t);
    const uint64_t copies = t.sum.act.layer_weight_copies;
    vl_timeline_free(&t);
    uint64_t base = activations_at_backward(&m, &s, &x);
    /* autocast caches copies of the adapters only, but each frozen fp32 matrix's cast (the
     * output layer's too) is saved by its matmul for the input's gradient: the same bytes;
     * the frozen RMSNorm weights need no normalized tensors (fp32 under autocast) */
    x.prune_frozen_saves = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), base - (2 * L + 1) * 4 * sb * h);
    build(&m, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "forward layer 0", "16-bit weight copies (autocast)"),
                     2 * adapters);
    /* the MLP's casts (gate, up, down) apart: its backward frees them */
    assert_int_equal(event_bytes(&t, "forward layer 0", "frozen weights' 16-bit casts (their matmuls')"),
                     copies - 2 * adapters - 2 * 3 * h * f);
    const char *mlp_casts = "frozen weights' 16-bit casts (their matmuls'), the MLP's";
    assert_int_equal(event_bytes(&t, "forward layer 0", mlp_casts), 2 * 3 * h * f);
    assert_true(first_event_named(&t, first_event_of(&t, "backward layer 2"), VL_EV_FREE,
                                  mlp_casts) <
                first_alloc(&t, "backward layer 2", "gradient of V (the value matmul's)"));
    assert_int_equal(event_bytes(&t, "loss", "output-projection weight, 16-bit copy"), 2 * 3000 * h);
    vl_timeline_free(&t);
    /* under full recompute the first forward saves nothing: leaving autocast frees its cache
     * (the adapters' copies) before backward, and the recomputed layer casts anew */
    s.recompute = VL_RECOMPUTE_FULL;
    build(&m, &s, &x, &t);
    uint64_t alive[VL_N_TL_COMPONENTS], after[VL_N_TL_COMPONENTS];
    alive_before(&t, end_of_forward(&t), alive);
    alive_before(&t, first_event_of(&t, "loss backward"), after);
    assert_int_equal(alive[VL_TL_ACTIVATIONS] - after[VL_TL_ACTIVATIONS],
                     L * 2 * adapters);
    assert_int_equal(event_bytes(&t, "backward layer 2", "frozen weights' 16-bit casts (their matmuls')"),
                     copies - 2 * adapters - 2 * 3 * h * f);
    vl_timeline_free(&t);
    s.recompute = VL_RECOMPUTE_NONE;
    /* QLoRA (bitsandbytes 0.43.2 and later): Linear4bit computes in its fp32 input's dtype
     * and returns its output in it, so gate and up come out in fp32, and so does the
     * activation; the 4-bit matmuls keep no input, and o (frozen here) reads attention's
     * 16-bit output, which SDPA's backward keeps */
    s.qlora = true;
    x = *fw("hf");
    build(&m, &s, &x, &t);
    assert_int_equal(
        event_bytes(&t, "forward layer 0", "attention output (kept by its backward or a 4-bit o_proj)"),
        2 * sb * h);
    assert_int_equal(event_bytes(&t, "forward layer 0", "MLP gate projection output"), 4 * sb * f);
    assert_int_equal(event_bytes(&t, "forward layer 0", "MLP up projection output"), 4 * sb * f);
    assert_int_equal(event_bytes(&t, "forward layer 0", "MLP activation output (gate)"), 4 * sb * f);
    /* the largest base matrix (h x f) dequantized: the forward's matmul casts it to its fp32
     * input's dtype and autocast back to 16 bits, 4 + 2 B a weight; backward, 2 B, in
     * down_proj's backward and again in gate's and up's */
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "forward layer 0",
                               "4-bit matrix dequantized, in fp32 and its 16-bit cast", &bytes), 1);
    assert_int_equal(bytes, 6 * h * f);
    assert_int_equal(allocs_in(&t, "backward layer 0", "4-bit matrix dequantized to 16 bits", &bytes),
                     2);
    assert_int_equal(bytes, 2 * h * f);
    vl_timeline_free(&t);
    /* up to 0.43.1 each 4-bit matmul keeps its input, uncast: the fp32 norm output q, k
     * and v share, the one gate and up share, and the fp32 product down reads, a layer */
    const uint64_t q_base = activations_at_backward(&m, &s, &x);
    x.nf4_keeps_input = true;
    assert_int_equal(activations_at_backward(&m, &s, &x), q_base + L * 4 * (2 * sb * h + sb * f));
    /* an adapter on down keeps its own 16-bit cast of the product, beside the fp32 product
     * down's 4-bit matmul keeps */
    s.lora_targets |= 1u << VL_LORA_DOWN;
    build(&m, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "forward layer 0", "4-bit down_proj input"), 4 * sb * f);
    assert_int_equal(event_bytes(&t, "forward layer 0", "MLP down projection input"), 2 * sb * f);
    vl_timeline_free(&t);

    /* vLLM over 2 GPUs samples from the gathered vocabulary: 4 B x b x V each */
    vl_settings v;
    vl_settings_default(&v);
    v.mode = VL_MODE_INFER;
    v.seq = 100;
    v.batch = 5;
    v.gpus = 2;
    build(&m, &v, vllm_at(VL_VLLM_0_19), &t); /* the V1 runner's sampler */
    assert_int_equal(event_bytes(&t, "prefill", "sampler: fp32 probabilities"), 4 * 5 * 3000);
    vl_timeline_free(&t);
}

/* Under DeepSpeed ZeRO-3 transformers loads the model in zero.Init, which swaps
 * torch.nn.functional.linear for LinearFunctionForZeroStage3: every nn.Linear saves its
 * input, frozen or not.  Against ZeRO-2 (no zero.Init), LoRA on q and v keeps in each
 * layer the inputs of the frozen gate and up (one 16-bit tensor, h wide) and of down (f
 * wide), and the frozen head's input once; o's input is attention's output, which SDPA's
 * backward keeps under either. */
static void test_zero3_linear(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    const uint64_t sb = 128, h = 128, f = 352, L = 3;
    vl_settings s = train(VL_BF16, 64, 2);
    s.gpus = 2;
    s.lora_rank = 8;
    const vl_framework *ds = fw("deepspeed");
    s.zero = 2;
    const uint64_t zero2 = activations_at_backward(&m, &s, ds);
    s.zero = 3;
    assert_int_equal(activations_at_backward(&m, &s, ds),
                     zero2 + L * 2 * (sb * h + sb * f) + 2 * sb * h);
    /* lora_dropout gives each adapter a copy of its own: the frozen q, k, v's shared input
     * is kept apart from them too */
    s.lora_dropout = 100000;
    s.zero = 2;
    const uint64_t drop2 = activations_at_backward(&m, &s, ds);
    s.zero = 3;
    assert_int_equal(activations_at_backward(&m, &s, ds),
                     drop2 + L * 2 * (2 * sb * h + sb * f) + 2 * sb * h);
    vl_timeline t;
    build(&m, &s, ds, &t);
    assert_int_equal(event_bytes(&t, "forward layer 0", "frozen down_proj input (ZeRO-3's linear)"),
                     2 * sb * f);
    assert_int_equal(event_bytes(&t, "loss", "output-projection input (ZeRO-3's linear)"),
                     2 * sb * h);
    vl_timeline_free(&t);
    /* not under autocast (the input it would keep is the uncast one), not for QLoRA's
     * 4-bit layers (no zero.Init: transformers quantizes instead), not under FSDP */
    const vl_precision amp_qlora_fsdp[] = {VL_BF16_AMP, VL_BF16, VL_BF16};
    for (int i = 0; i < 3; i++) {
        s.precision = amp_qlora_fsdp[i];
        s.qlora = i == 1;
        const vl_framework *x = i == 2 ? fw("hf") : ds;
        s.zero = 2;
        const uint64_t two = activations_at_backward(&m, &s, x);
        s.zero = 3;
        assert_int_equal(activations_at_backward(&m, &s, x), two);
    }
}

/* The most optimizer temporaries alive at once in the step under f. */
static uint64_t optimizer_temp_under(const vl_model *m, const vl_settings *s,
                                     const vl_framework *f)
{
    vl_timeline t;
    build(m, s, f, &t);
    uint64_t most = 0, alive[VL_N_TL_COMPONENTS];
    for (size_t i = 0; i < t.n_events; i++) {
        vl_timeline_alive(&t, i, alive);
        if (alive[VL_TL_OPTIM_TEMP] > most)
            most = alive[VL_TL_OPTIM_TEMP];
    }
    vl_timeline_free(&t);
    return most;
}

static uint64_t optimizer_temp(const vl_model *m, const vl_settings *s, vl_optim_impl impl)
{
    vl_framework f = *fw("pytorch");
    f.optim_impl = impl;
    return optimizer_temp_under(m, s, &f);
}

/* Megatron's vocab-parallel cross-entropy (tiny_gpt, 2 x 32 tokens, vocabulary 1,000: 64,000
 * logits): from Megatron-Core 0.8 the loss softmaxes its fp32 copy of the bf16 logits in
 * place and makes the gradient there, so the only fp32 tensor of the logits' size is that
 * copy, and backward makes the gradient's bf16 cast alone; before 0.8 the softmax is a
 * second fp32 tensor beside the copy, which goes as the loss returns, and backward is in
 * place all the same.  transformers' loss makes two fp32 gradients in backward. */
static void test_megatron_loss(void **state)
{
    (void)state;
    const vl_model m = tiny_gpt();
    const vl_settings s = train(VL_BF16_MIXED, 32, 2);
    const uint64_t logits = 32 * 2 * 1000;
    vl_framework x = *fw("megatron");
    vl_timeline t;
    uint64_t n;
    build(&m, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "loss", "logits"), 2 * logits);
    assert_int_equal(
        event_bytes(&t, "loss", "the logits' fp32 copy, softmaxed in place (for the loss)"),
        4 * logits);
    assert_int_equal(allocs_in(&t, "loss", "logits cast for the loss", &n), 0);
    assert_int_equal(allocs_in(&t, "loss backward", "gradient of the logits", &n), 0);
    assert_int_equal(allocs_in(&t, "loss backward", "gradient of the log-probabilities", &n), 0);
    assert_int_equal(event_bytes(&t, "loss backward", "gradient of the logits, cast"), 2 * logits);
    check_invariants(&t, &s);
    vl_timeline_free(&t);

    vl_framework_on_megatron(&x, VL_MEG_0_5);
    assert_int_equal(x.loss_in_place, VL_LIP_BACKWARD);
    build(&m, &s, &x, &t);
    assert_int_equal(event_bytes(&t, "loss", "logits cast for the loss"), 4 * logits);
    assert_int_equal(
        event_bytes(&t, "loss", "softmax (for the loss, its gradient in place)"), 4 * logits);
    assert_string_equal(freed_in(&t, "loss", "logits cast for the loss"), "loss");
    assert_int_equal(allocs_in(&t, "loss backward", "gradient of the logits", &n), 0);
    assert_int_equal(allocs_in(&t, "loss backward", "gradient of the log-probabilities", &n), 0);
    check_invariants(&t, &s);
    vl_timeline_free(&t);

    build(&m, &s, fw("pytorch"), &t);
    assert_int_equal(event_bytes(&t, "loss backward", "gradient of the logits"), 4 * logits);
    assert_int_equal(event_bytes(&t, "loss backward", "gradient of the log-probabilities"),
                     4 * logits);
    vl_timeline_free(&t);
    /* the release moves only Megatron's loss */
    x = *fw("hf");
    vl_framework_on_megatron(&x, VL_MEG_0_5);
    assert_int_equal(x.loss_in_place, VL_LIP_NONE);
}

/* A matrix the head and the lookup share (tiny_gpt's 1,000 x 64 embedding, fp32 gradients
 * under autocast): its two gradients meet in its AccumulateGrad's input buffer, where the
 * lookup's whole-matrix gradient is added to the head's out of place, two 256,000 B
 * tensors beside the head's.  A later micro-batch's head gradient waits there from the
 * loss to the lookup.  Not under LoRA (a frozen matrix) or a classification head. */
static void test_tied_gradients(void **state)
{
    (void)state;
    const vl_model m = tiny_gpt();
    vl_settings s = train(VL_BF16_AMP, 32, 2);
    const uint64_t matrix = 1000 * 64 * 4;
    const char *lookup = "the lookup's gradient of the tied matrix (embedding backward)";
    const char *sum = "the tied matrix's two gradients, summed";
    const char *wait = "the head's gradient of the tied matrix, waiting for the lookup's";
    vl_timeline t;
    build(&m, &s, fw("pytorch"), &t);
    const size_t l = first_alloc(&t, "backward embedding", lookup);
    const size_t i = first_alloc(&t, "backward embedding", sum);
    assert_int_equal(t.events[l].bytes, matrix);
    assert_int_equal(t.events[i].bytes, matrix);
    uint64_t before[VL_N_TL_COMPONENTS], at[VL_N_TL_COMPONENTS];
    alive_before(&t, l, before);
    vl_timeline_alive(&t, i, at);
    assert_int_equal(at[VL_TL_TRANSIENT] - before[VL_TL_TRANSIENT], 2 * matrix);
    assert_true(at[VL_TL_GRADIENTS] >= matrix); /* the head's, in the buffer */
    vl_timeline_free(&t);

    s.grad_accum = 2;
    build(&m, &s, fw("pytorch"), &t);
    size_t w = first_alloc(&t, "micro-batch 2 loss backward", wait);
    assert_int_equal(t.events[w].bytes, matrix);
    size_t gone = first_event_named(&t, w, VL_EV_FREE, wait);
    assert_string_equal(vl_timeline_phase(&t, gone), "micro-batch 2 backward embedding");
    assert_true(gone > first_alloc(&t, "micro-batch 2 backward embedding", sum));
    vl_timeline_free(&t);

    /* DeepSpeed's ZeRO-2 on 2 GPUs reduces from its hook on the AccumulateGrad: the head's
     * gradient of the matrix is not reduced with the first layer's but waits, a gradient,
     * to the lookup's, and the sum goes to the reduce bucket */
    s.grad_accum = 1;
    s.gpus = 2;
    s.zero = 2;
    build(&m, &s, fw("deepspeed"), &t);
    w = first_alloc(&t, "loss backward", wait);
    assert_int_equal(t.events[w].component, VL_TL_GRADIENTS);
    const size_t z = first_alloc(&t, "backward embedding", sum);
    assert_int_equal(t.events[z].bytes, t.events[w].bytes);
    assert_int_equal(t.events[z].component, VL_TL_GRADIENTS);
    gone = first_event_named(&t, w, VL_EV_FREE, wait);
    assert_string_equal(vl_timeline_phase(&t, gone), "backward embedding");
    assert_string_equal(vl_timeline_phase(&t, first_event_named(&t, z, VL_EV_FREE, sum)),
                        "backward embedding");
    vl_timeline_free(&t);
    s.gpus = 1;
    s.zero = 0;

    /* frozen (LoRA), or not read by the head (a classification head) */
    s.lora_rank = 4;
    build(&m, &s, fw("pytorch"), &t);
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "backward embedding", sum, &bytes), 0);
    vl_timeline_free(&t);
    s.lora_rank = 0;
    vl_framework cls = *fw("pytorch");
    cls.head = VL_HEAD_CLS;
    build(&m, &s, &cls, &t);
    assert_int_equal(allocs_in(&t, "backward embedding", sum, &bytes), 0);
    vl_timeline_free(&t);
}

static void test_optimizer_and_buckets(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = train(VL_BF16_AMP, 32, 2);
    /* AdamW, fp32 moments: foreach's sqrt of every second moment, 172,288 x 4; the
     * single-tensor loop two temporaries of the largest parameter (the 64,000 embedding) */
    assert_int_equal(optimizer_temp(&m, &s, VL_OPTIM_FOREACH), 172288 * 4);
    assert_int_equal(optimizer_temp(&m, &s, VL_OPTIM_SINGLE_TENSOR), 2 * 64000 * 4);
    assert_int_equal(optimizer_temp(&m, &s, VL_OPTIM_FUSED), 0);
    /* before PyTorch 2.1, denom = roots + eps out of place: a second 172,288 x 4 list
     * alive beside the roots; the single-tensor loop is as it was */
    vl_framework pre21 = *fw("pytorch");
    vl_framework_on_torch(&pre21, VL_TORCH_2_0);
    assert_int_equal(optimizer_temp_under(&m, &s, &pre21), 2 * 172288 * 4);
    pre21.optim_impl = VL_OPTIM_SINGLE_TENSOR;
    assert_int_equal(optimizer_temp_under(&m, &s, &pre21), 2 * 64000 * 4);
    /* one list's worth, as one tensor, where the roots are not per parameter (adapters) */
    s.lora_rank = 4;
    const uint64_t lora = optimizer_temp(&m, &s, VL_OPTIM_FOREACH);
    assert_true(lora > 0);
    pre21.optim_impl = VL_OPTIM_FOREACH;
    assert_int_equal(optimizer_temp_under(&m, &s, &pre21), 2 * lora);
    s.lora_rank = 0;
    s.optimizer = VL_SGD_MOMENTUM;
    assert_int_equal(optimizer_temp(&m, &s, VL_OPTIM_FOREACH), 0);

    /* DDP over 2 GPUs: buckets a second copy of the fp32 gradients; Megatron's buffer is
     * the gradients themselves, held from step to step */
    s = train(VL_BF16_AMP, 32, 2);
    s.gpus = 2;
    vl_timeline t;
    build(&m, &s, fw("pytorch"), &t);
    assert_int_equal(t.end[VL_TL_BUCKETS], 172288 * 4);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 0);
    vl_timeline_free(&t);
    build(&m, &s, fw("megatron"), &t);
    assert_int_equal(t.end[VL_TL_BUCKETS], 0);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 172288 * 4);
    vl_timeline_free(&t);
    /* before PyTorch 2.0 zero_grad keeps the gradients: DDP's buckets stay beside them, and
     * DeepSpeed at ZeRO-0 runs no DDP */
    vl_framework old = *fw("pytorch");
    vl_framework_on_torch(&old, VL_TORCH_1_13);
    build(&m, &s, &old, &t);
    assert_int_equal(t.end[VL_TL_BUCKETS], 172288 * 4);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 172288 * 4);
    vl_timeline_free(&t);
    build(&m, &s, fw("deepspeed"), &t);
    assert_int_equal(t.end[VL_TL_BUCKETS], 0);
    vl_timeline_free(&t);
    /* ZeRO-1 under DeepSpeed: its reduce bucket, allocated whole (5e8 elements in the
     * gradients' dtype) though 172,288 parameters train, as backward starts and freed as it
     * ends; the gradients autograd makes in backward live to the step, which frees them
     * once this GPU's partition (86,144 x 4 B) is flattened and copied to fp32: nothing is
     * left between steps.  The distributed optimizer of Megatron reduce-scatters within its
     * gradient buffer, held from step to step, with no bucket beside it. */
    s.zero = 1;
    build(&m, &s, fw("deepspeed"), &t);
    const char *ipg = "ZeRO reduce bucket (ipg_buffer)", *mine = "gradient partition "
                                                                "(grads_in_partition)";
    assert_int_equal(event_bytes(&t, "loss backward", ipg), 500000000ULL * 4);
    assert_string_equal(freed_in(&t, "loss backward", ipg), "backward embedding");
    assert_string_equal(freed_in(&t, "loss backward", "head gradients"), "optimizer step");
    assert_int_equal(event_bytes(&t, "optimizer step", mine), 172288 / 2 * 4);
    assert_int_equal(event_bytes(&t, "optimizer step", "gradient partition, flattened"),
                     172288 / 2 * 4);
    assert_int_equal(t.end[VL_TL_BUCKETS], 0);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 0);
    vl_timeline_free(&t);
    build(&m, &s, fw("megatron"), &t);
    assert_int_equal(t.end[VL_TL_BUCKETS], 0);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 172288 * 4);
    vl_timeline_free(&t);
    /* ZeRO-2 under DeepSpeed, with 2 micro-batches: the bucket and the partition it reduces
     * into (86,144 x 4 B) are made as each backward starts and freed as it ends, after the
     * partition is copied out for the step (the first backward's copy, added into by the
     * second's); the step drops that copy.  Nothing is left between steps. */
    s.zero = 2;
    s.grad_accum = 2;
    build(&m, &s, fw("deepspeed"), &t);
    const char *red = "gradient partition being reduced",
               *avg = "gradient partition for the step (averaged_gradients)";
    assert_int_equal(event_bytes(&t, "micro-batch 1 loss backward", ipg), 500000000ULL * 4);
    assert_int_equal(event_bytes(&t, "micro-batch 2 loss backward", red), 172288 / 2 * 4);
    assert_string_equal(freed_in(&t, "micro-batch 1 loss backward", ipg),
                        "micro-batch 1 backward embedding");
    assert_int_equal(event_bytes(&t, "micro-batch 1 backward embedding", avg), 172288 / 2 * 4);
    assert_string_equal(freed_in(&t, "micro-batch 1 backward embedding", avg), "optimizer step");
    uint64_t n_avg = 0;
    assert_int_equal(allocs_in(&t, "micro-batch 2 backward embedding", avg, &n_avg), 0);
    assert_int_equal(t.end[VL_TL_BUCKETS], 0);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 0);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    s.zero = 0;
    s.grad_accum = 1;

    /* bf16-mixed with the fp32 gradient copy, ZeRO-2 over 2 GPUs: DeepSpeed makes the copy
     * of its 86,144 parameters (4 B each) for the step only, out of the 16 B a parameter
     * the states hold; the pytorch profile keeps it among them */
    s = train(VL_BF16_MIXED, 32, 2);
    s.gpus = 2;
    s.zero = 2;
    s.fp32_grad_copy = true;
    const uint64_t share = 172288 / 2;
    build(&m, &s, fw("deepspeed"), &t);
    assert_int_equal(event_bytes(&t, "step start (the state kept between steps)",
                                 "optimizer states (the fp32 gradient copy left to the step)"),
                     share * 12);
    assert_int_equal(event_bytes(&t, "optimizer step", "fp32 gradient copy for the step"),
                     share * 4);
    vl_timeline_free(&t);
    build(&m, &s, fw("pytorch"), &t);
    /* the master weights and the copy from the start, AdamW's moments (8 B) as its first
     * step makes them, each FSDP unit's shard: 8,192 / 2, 49,984 / 2 a layer, 64,128 / 2 */
    assert_int_equal(event_bytes(&t, "step start (the state kept between steps)",
                                 "optimizer states"), share * 8);
    assert_int_equal(alloc_sum(&t, "step start (the state kept between steps)",
                               "optimizer states (a tensor a moment, made at the first step)"),
                     share * 8);
    uint64_t none = 0;
    assert_int_equal(allocs_in(&t, "optimizer step", "fp32 gradient copy for the step", &none), 0);
    vl_timeline_free(&t);
    /* without ZeRO, on one GPU: DeepSpeed's FP16_Optimizer flattens all 172,288 parameters'
     * gradients to fp32 for the step, one piece; Megatron's optimizer gives each fp32 main
     * parameter its own (main_grad.float()), a tensor a parameter tensor; neither holds the
     * copy between steps, which keep the 12 B a parameter of master weights and moments */
    s.gpus = 1;
    s.zero = 0;
    build(&m, &s, fw("deepspeed"), &t);
    assert_int_equal(event_bytes(&t, "optimizer step", "fp32 gradient copy for the step"),
                     172288 * 4);
    assert_int_equal(event_bytes(&t, "step start (the state kept between steps)",
                                 "optimizer states (the fp32 gradient copy left to the step)"),
                     172288 * 12);
    vl_timeline_free(&t);
    build(&m, &s, fw("megatron"), &t);
    const char *each = "fp32 gradient copy for the step, a tensor a parameter";
    uint64_t piece = 0;
    const int pieces = allocs_in(&t, "optimizer step", each, &piece);
    assert_int_equal(alloc_sum(&t, "optimizer step", each), 172288 * 4);
    assert_true(pieces > (int)m.arch.layers); /* several a layer */
    assert_int_equal(allocs_in(&t, "optimizer step", "fp32 gradient copy for the step", &none), 0);
    assert_int_equal(event_bytes(&t, "step start (the state kept between steps)",
                                 "optimizer states (the fp32 gradient copy left to the step)"),
                     172288 * 12);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    /* Megatron with fp32 main grads under bf16 weights: its buffer holds 4 B a parameter
     * from the start, and autograd makes each gradient in bf16 for the hook to add into it:
     * the layer's largest, the MLP's 64 x 256 matrices, 16,384 x 2 B */
    s.fp32_grads = true;
    build(&m, &s, fw("megatron"), &t);
    assert_int_equal(event_bytes(&t, "step start (the state kept between steps)",
                                 "gradient buffer"), 172288 * 4);
    uint64_t most_added = 0;
    for (size_t i = first_event_of(&t, "backward layer 1");
         i < t.n_events && strcmp(vl_timeline_phase(&t, i), "backward layer 1") == 0; i++)
        if (t.events[i].kind == VL_EV_ALLOC &&
            strcmp(t.events[i].what, "a gradient, added into the .grad it accumulates in") == 0 &&
            t.events[i].bytes > most_added)
            most_added = t.events[i].bytes;
    assert_int_equal(most_added, 16384 * 2);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    s.fp32_grads = false;
    s.gpus = 2;
    s.zero = 2;
    /* ZeRO-3: a sub-group of 1e9 parameters at a time, however large the share (Llama 2 7B
     * over 2 GPUs: 3,369,207,808 parameters) */
    vl_model big = model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008,
                                      .vocab = 32000});
    s.zero = 3;
    s.seq = 128;
    s.batch = 1;
    build(&big, &s, fw("deepspeed"), &t);
    assert_int_equal(event_bytes(&t, "optimizer step", "fp32 gradient copy for the step"),
                     1000000000ULL * 4);
    assert_int_equal(event_bytes(&t, "step start (the state kept between steps)",
                                 "optimizer states (the fp32 gradient copy left to the step)"),
                     6738415616ULL / 2 * 12);
    vl_timeline_free(&t);
    s = train(VL_BF16_AMP, 32, 2);

    /* ZeRO-3 over 4 GPUs: the prefetch bucket (5e7 elements) reaches the next layer, so two
     * layers are gathered at once, 49,984 x 4 B each, never more */
    s.gpus = 4;
    s.zero = 3;
    build(&m, &s, fw("deepspeed"), &t);
    uint64_t most = 0, live = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        const vl_event *e = &t.events[i];
        if (e->component == VL_TL_GATHERED && strcmp(e->what, "gathered layer parameters") == 0)
            live = e->kind == VL_EV_ALLOC ? live + e->bytes : live - e->bytes;
        most = live > most ? live : most;
    }
    assert_int_equal(most, 2 * 49984 * 4);
    vl_timeline_free(&t);

    /* --zero-grad backward: the step before's gradients (172,288 x 4 B, a tensor each
     * parameter, where the run's first backward made them) live from the step's start
     * through the forward, and this step's are left for the next; a persistent gradient
     * buffer (DeepSpeed) leaves nothing to move */
    const char *before = "the step before's gradients, until zero_grad (--zero-grad backward)";
    s = train(VL_FP32, 32, 2);
    s.zero_grad = VL_ZERO_GRAD_BACKWARD;
    build(&m, &s, fw("pytorch"), &t);
    assert_int_equal(alloc_sum(&t, "step start (the state kept between steps)", before),
                     172288 * 4);
    assert_string_equal(freed_in(&t, "step start (the state kept between steps)", before),
                        "loss");
    assert_int_equal(t.end[VL_TL_GRADIENTS], 172288 * 4);
    vl_timeline_free(&t);
    s.zero_grad = VL_ZERO_GRAD_STEP;
    build(&m, &s, fw("pytorch"), &t);
    assert_int_equal(allocs_in(&t, "step start (the state kept between steps)", before, &none), 0);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 0);
    vl_timeline_free(&t);
    s.zero_grad = VL_ZERO_GRAD_BACKWARD;
    build(&m, &s, fw("deepspeed"), &t);
    assert_int_equal(allocs_in(&t, "step start (the state kept between steps)", before, &none), 0);
    vl_timeline_free(&t);

    /* gradient accumulation: the second micro-batch's forward runs beside every gradient */
    s = train(VL_FP32, 32, 2);
    s.grad_accum = 4;
    build(&m, &s, fw("pytorch"), &t);
    uint64_t alive[VL_N_TL_COMPONENTS];
    alive_before(&t, first_event_of(&t, "micro-batch 2 forward embedding"), alive);
    assert_int_equal(alive[VL_TL_GRADIENTS], 172288 * 4);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
}

/* A step that leaves what it made to the next is measured after the run's first step, on
 * the allocator as that step left it: the gradients an in-place zero_grad keeps (PyTorch
 * before 2.0) are the first backward's, a tensor a parameter (the tiny GPT's 172,288 in
 * fp32), where a framework's own buffer (DeepSpeed) is one block made before the run; the
 * timeline holds one step, each phase once, the same phases as a step that leaves nothing,
 * and at the loss the same tensors and the step before's gradients. */
static void test_first_step(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = train(VL_FP32, 32, 2);
    const char *start = "step start (the state kept between steps)";
    const char *in_place = "gradients, zeroed in place from step to step (PyTorch < 2.0)";
    vl_framework old = *fw("pytorch");
    vl_framework_on_torch(&old, VL_TORCH_1_13);
    vl_timeline t, ds, plain;
    build(&m, &s, &old, &t);
    assert_int_equal(alloc_sum(&t, start, in_place), 172288 * 4);
    assert_int_equal(allocs_in(&t, start, "gradient buffer", NULL), 0);
    assert_int_equal(t.end[VL_TL_GRADIENTS], 172288 * 4);
    check_invariants(&t, &s);
    vl_framework buffered = *fw("deepspeed");
    vl_framework_on_torch(&buffered, VL_TORCH_1_13);
    build(&m, &s, &buffered, &ds);
    assert_int_equal(alloc_sum(&ds, start, "gradient buffer"), 172288 * 4);
    uint64_t one = 0;
    assert_int_equal(allocs_in(&ds, start, "gradient buffer", &one), 1);
    assert_int_equal(allocs_in(&ds, start, in_place, NULL), 0);
    vl_timeline_free(&ds);
    /* --zero-grad backward against zero_grad at the step: the same phases, in order */
    s.zero_grad = VL_ZERO_GRAD_BACKWARD;
    vl_timeline_free(&t);
    build(&m, &s, fw("pytorch"), &t);
    s.zero_grad = VL_ZERO_GRAD_STEP;
    build(&m, &s, fw("pytorch"), &plain);
    assert_int_equal(t.n_phases, plain.n_phases + (strcmp(plain.phases[plain.n_phases - 1],
                                                           "zero_grad") == 0 ? -1 : 0));
    for (size_t i = 0; i < t.n_phases; i++)
        assert_string_equal(t.phases[i], plain.phases[i]);
    uint64_t at[VL_N_TL_COMPONENTS], at_plain[VL_N_TL_COMPONENTS];
    alive_before(&t, first_event_of(&t, "loss"), at);
    alive_before(&plain, first_event_of(&plain, "loss"), at_plain);
    for (int c = 0; c < VL_N_TL_COMPONENTS; c++)
        assert_int_equal(at[c], at_plain[c] + (c == VL_TL_GRADIENTS ? 172288 * 4 : 0));
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    vl_timeline_free(&plain);
    /* the same over a pipeline (1F1B: the step before's gradients go once the first stage's
     * forwards are done) and with accumulation */
    s.zero_grad = VL_ZERO_GRAD_BACKWARD;
    s.pp = 2;
    s.gpus = 2;
    s.grad_accum = 4;
    build(&m, &s, fw("pytorch"), &t);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    s.pp = 1;
    s.gpus = 1;
    build(&m, &s, &old, &t);
    assert_int_equal(alloc_sum(&t, start, in_place), 172288 * 4);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
}

/* An engine that sizes its KV cache allocates all of it before it serves: the step's
 * timeline (vl_timeline_for) holds the cache vl_kv_budget_of gives, whole, where the run's
 * own would be a sliver of it; the fit judges the device against the GPU's whole memory
 * and the batch's cache against the engine's.  A framework that sizes none holds the run's
 * own, and so does a GPU of unknown memory. */
static void test_engine_kv_pool(void **state)
{
    (void)state;
    const vl_model m = tiny_llama();
    vl_runtime rt = hopper;
    rt.memory = 16ULL << 30;
    static const char *const engines[] = {"vllm", "sglang"};
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++) {
        vl_settings s = serve(512, 16, 2);
        vl_settings_take_framework(&s, fw(engines[i]));
        s.gpu_util = 800000; /* SGLang's rule would keep most of a small GPU for itself */
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        vl_kv_budget k;
        assert_null(vl_kv_budget_of(&m, &s, &f, &rt, vl_usable_memory(&s, rt.memory), &k));
        vl_timeline t;
        char err[128];
        assert_true(vl_timeline_for(&m, &s, &rt, &t, err, sizeof err));
        uint64_t bytes = 0;
        assert_int_equal(allocs_in(&t, "allocate the KV cache",
                                   "KV cache (the engine's pool, allocated once)", &bytes), 1);
        assert_int_equal(bytes, k.available);
        assert_int_equal(t.peak.alive[VL_TL_KV_CACHE], k.available);
        /* 2 sequences of 528 tokens at 384 B a token are far less */
        assert_true(k.available > 2 * 528 * 384);
        /* judged against the whole GPU, not the engine's share of it (its cache, most of
         * it, is more than half the GPU) */
        assert_true(t.peak.device > rt.memory / 2);
        const vl_fit fit = vl_fit_of(t.peak.device, rt.memory / 2, &k, s.batch);
        assert_true(fit.fits);
        assert_true(fit.margin <= rt.memory - t.peak.device);
        vl_timeline_free(&t);
        /* with the GPU's memory unknown there is no pool to hold */
        vl_runtime unknown = rt;
        unknown.memory = 0;
        assert_true(vl_timeline_for(&m, &s, &unknown, &t, err, sizeof err));
        assert_int_equal(t.peak.alive[VL_TL_KV_CACHE], 2ULL * 528 * 384);
        vl_timeline_free(&t);
    }
    vl_settings s = serve(512, 16, 2);
    vl_settings_take_framework(&s, fw("hf"));
    vl_timeline t;
    char err[128];
    assert_true(vl_timeline_for(&m, &s, &rt, &t, err, sizeof err));
    assert_int_equal(t.end[VL_TL_KV_CACHE], 2ULL * 527 * 384); /* the last token uncached */
    vl_timeline_free(&t);
    /* vLLM's V1 runner (0.19's) warms its sampler up beside the cache, over min(max_num_seqs,
     * max_num_batched_tokens) sequences: their fp32 logits, 3,000 wide; not the V0 engine,
     * nor the V2 runner (current), which samples by its own preallocated state */
    static const struct {
        const char *framework;
        vl_vllm v;
        bool warms;
    } runners[] = {{"vllm", VL_VLLM_0_19, true}, {"vllm-v0", VL_VLLM_0_6_5, false},
                   {"vllm", VL_VLLM_CURRENT, false}};
    for (size_t i = 0; i < sizeof runners / sizeof *runners; i++) {
        s = serve(512, 16, 2);
        vl_settings_take_framework(&s, fw(runners[i].framework));
        s.vllm = runners[i].v;
        vl_settings_on_vllm(&s);
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        assert_true(vl_timeline_for(&m, &s, &rt, &t, err, sizeof err));
        const uint64_t rows = f.prefill_chunk < f.profile_seqs ? f.prefill_chunk : f.profile_seqs;
        bool warmed = false;
        for (size_t e = 0; e < t.n_events; e++)
            if (strcmp(vl_timeline_phase(&t, e), "warm up the sampler") == 0 &&
                t.events[e].kind == VL_EV_ALLOC &&
                strcmp(t.events[e].what, "sampler: fp32 logits, whole vocabulary") == 0) {
                assert_int_equal(t.events[e].bytes, rows * 3000 * 4);
                warmed = true;
            }
        assert_int_equal(warmed, runners[i].warms);
        vl_timeline_free(&t);
    }
}

/* The KV cache a profiling engine gives itself (vl_kv_budget_of): what its profile run (the
 * step's token budget shared over its sequences) leaves of its share, in whole blocks. */
static void test_kv_budget(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = serve(5000, 10, 2);
    vl_settings_take_framework(&s, fw("vllm")); /* its defaults: all of the GPU, blocks of 16 */
    assert_int_equal(s.gpu_util, VL_PPM);
    assert_int_equal(s.kv_block, 16);
    s.vllm = VL_VLLM_0_19; /* 90% before 0.20, and no CUDA graph estimate or V2 runner */
    vl_settings_on_vllm(&s);
    assert_int_equal(s.gpu_util, 900000);
    vl_framework f;
    vl_framework_of(&s, &hopper, &f);
    const uint64_t cap = 1ULL << 30;
    vl_kv_budget k;
    assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &k));
    /* 8,192 tokens over 1,024 sequences: 8 each, nothing generated */
    assert_int_equal(k.profile_seqs, 1024);
    assert_int_equal(k.profile_tokens, 8);
    assert_int_equal(k.non_torch, 268435456);
    assert_int_equal(k.weights + k.profile_peak + k.non_torch + k.available, cap);
    /* the peak is the profile run's: its timeline read as the engine reads it */
    vl_settings p = s;
    p.seq = 8;
    p.batch = 1024;
    p.gen = 0;
    vl_timeline t;
    build(&m, &p, &f, &t);
    assert_int_equal(k.profile_peak, vl_profile_peak(&t));
    assert_int_equal(k.weights, t.end[VL_TL_WEIGHTS]);
    vl_timeline_free(&t);
    /* 384 B a token (2 x 3 layers x 2 KV heads x 16 x 2 B): whole blocks of 16 x 384 B; a
     * sequence of 5,010 tokens holds 314 blocks */
    assert_int_equal(k.tokens, k.available / (16 * 384) * 16);
    assert_int_equal(k.per_sequence, 314 * 16 * 384);
    vl_solution c;
    vl_settings copy = s;
    assert_null(vl_solve_fit(&m, &copy, VL_SOLVE_MAX_CONCURRENCY, cap, &hopper, &c));
    assert_int_equal(c.answer, k.available / k.per_sequence);
    /* a flag's block is kept over the profile's */
    s.kv_block = 32;
    vl_framework_of(&s, &hopper, &f);
    assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &k));
    assert_int_equal(k.tokens % 32, 0);
    assert_int_equal(k.per_sequence, 157 * 32 * 384);
    /* a budget smaller than the sequences: one token each, as many sequences as tokens */
    f.prefill_chunk = 100;
    assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &k));
    assert_int_equal(k.profile_seqs, 100);
    assert_int_equal(k.profile_tokens, 1);
    /* nothing left: the outside-PyTorch quarter GiB alone fills a quarter GiB, and the
     * weights and the profile run are what the engine's share lacks */
    assert_non_null(vl_kv_budget_of(&m, &s, &f, &hopper, 268435456, &k));
    assert_int_equal(k.available, 0);
    assert_int_equal(k.tokens, 0);
    assert_int_equal(k.non_torch, 268435456);
    assert_true(k.weights > 0 && k.profile_peak > 0);
    assert_int_equal(k.shortfall, k.weights + k.profile_peak + k.communicators);
    /* a framework that does not profile has no such cache */
    f.profile_seqs = 0;
    assert_non_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &k));
}

/* vLLM's defaults by GPU (arg_utils.py, get_batch_defaults): 8192 prompt tokens a step over
 * 1024 sequences on a GPU of 70 GiB and more that is no A100, 2048 over 256 on the others;
 * an unknown GPU keeps the first; a flag wins on any GPU; a profile without the rule is the
 * same everywhere. */
static void test_serving_defaults_by_gpu(void **state)
{
    (void)state;
    static const struct {
        vl_gpu_arch arch;
        uint64_t memory, chunk, seqs;
    } want[] = {
        {VL_ARCH_HOPPER, 85026062336ULL, 8192, 1024},  /* H100 80GB: 81,090 MiB */
        {VL_ARCH_HOPPER, 70ULL << 30, 8192, 1024},     /* 70 GiB: large */
        {VL_ARCH_ADA, (70ULL << 30) - 1, 2048, 256},     /* a byte under */
        {VL_ARCH_AMPERE, 84987264614ULL, 2048, 256},   /* A100 80GB: large, but an A100 */
        {VL_ARCH_ADA, 47695724544ULL, 2048, 256},      /* L40S: 45,486 MiB */
        {VL_ARCH_BLACKWELL, 191514976256ULL, 8192, 1024}, /* B200 */
        {VL_ARCH_UNKNOWN, 0, 8192, 1024},              /* no GPU known */
    };
    vl_settings s = serve(5000, 10, 2);
    vl_settings_take_framework(&s, fw("vllm"));
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_runtime rt = hopper;
        rt.arch = want[i].arch;
        rt.memory = want[i].memory;
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        assert_int_equal(f.prefill_chunk, want[i].chunk);
        assert_int_equal(f.profile_seqs, want[i].seqs);
    }
    /* on an L40S the profile run is 2048 tokens over 256 sequences, 8 each */
    vl_model m = tiny_llama();
    vl_runtime l40s = hopper;
    l40s.arch = VL_ARCH_ADA;
    l40s.memory = 47695724544ULL;
    vl_framework f;
    vl_framework_of(&s, &l40s, &f);
    vl_kv_budget k;
    assert_null(vl_kv_budget_of(&m, &s, &f, &l40s, 1ULL << 30, &k));
    assert_int_equal(k.profile_seqs, 256);
    assert_int_equal(k.profile_tokens, 8);
    /* --prefill-chunk and --profile-seqs win over either default */
    s.prefill_chunk = 4096;
    s.profile_seqs = 512;
    vl_settings v0 = serve(40000, 10, 2); /* over 32K tokens: V0 chunks */
    vl_settings_take_framework(&v0, fw("vllm-v0"));
    const struct {
        const vl_settings *s;
        const vl_runtime *rt;
        uint64_t chunk, seqs;
    } given[] = {{&s, &l40s, 4096, 512}, {&s, &hopper, 4096, 512},
                 /* the V0 engine has one default on every GPU */
                 {&v0, &l40s, 2048, 256}, {&v0, &hopper, 2048, 256}};
    for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
        vl_framework_of(given[i].s, given[i].rt, &f);
        assert_int_equal(f.prefill_chunk, given[i].chunk);
        assert_int_equal(f.profile_seqs, given[i].seqs);
    }
    /* and sizes its cache as V1 does, from 0.7 on: 2048 tokens over 256 sequences, 8 each,
     * and 0.04 GiB outside PyTorch */
    assert_null(vl_kv_budget_of(&m, &v0, &f, &hopper, 1ULL << 30, &k));
    assert_int_equal(k.profile_seqs, 256);
    assert_int_equal(k.profile_tokens, 8);
    assert_int_equal(k.non_torch, 42949673);
    /* V0 chunks only sequences (seq + gen, its max_model_len) of more than 32768 tokens;
     * below, a step takes max(max_model_len, 2048) tokens; a given chunk wins */
    static const struct {
        uint64_t seq, gen, given, want;
    } whole[] = {
        {5000, 10, 0, 5010}, {1000, 0, 0, 2048},     {32768, 0, 0, 32768},
        {32000, 769, 0, 2048}, {32769, 0, 0, 2048}, {5000, 10, 4096, 4096},
    };
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
        vl_settings w = serve(whole[i].seq, whole[i].gen, 1);
        vl_settings_take_framework(&w, fw("vllm-v0"));
        w.prefill_chunk = whole[i].given;
        vl_framework_of(&w, &hopper, &f);
        assert_int_equal(f.prefill_chunk, whole[i].want);
    }
    /* the flag chunks the steady-state sum's prefill too (vl_prefill_step) */
    uint64_t seqs, tokens;
    v0.prefill_chunk = 1000;
    vl_prefill_step(&v0, &seqs, &tokens);
    assert_int_equal(seqs, 1);
    assert_int_equal(tokens, 1000);
}

/* What vLLM's profile run adds outside PyTorch (its "non-torch forward increase memory"):
 * 0.25 GiB from 0.19 on any GPU; V1 releases before, as their logs measured it, 0.13 GiB on
 * an H100 (and generations not measured) and 0.02 GiB on Ampere and Ada; V0's 0.04 GiB on
 * every GPU.  The KV cache gives up exactly that figure from 0.9.1 (before, the context
 * besides: test_vllm_v0_release). */
static void test_vllm_non_torch(void **state)
{
    (void)state;
    static const struct {
        vl_vllm v;
        vl_gpu_arch arch;
        uint64_t want;
    } cases[] = {
        {VL_VLLM_CURRENT, VL_ARCH_AMPERE, 268435456}, {VL_VLLM_0_19, VL_ARCH_ADA, 268435456},
        {VL_VLLM_0_19, VL_ARCH_HOPPER, 268435456},    {VL_VLLM_0_18, VL_ARCH_HOPPER, 139586437},
        {VL_VLLM_0_11, VL_ARCH_HOPPER, 139586437},    {VL_VLLM_0_9_1, VL_ARCH_BLACKWELL, 139586437},
        {VL_VLLM_0_10, VL_ARCH_UNKNOWN, 139586437},   {VL_VLLM_0_10, VL_ARCH_AMPERE, 21474836},
        {VL_VLLM_0_11, VL_ARCH_ADA, 21474836},        {VL_VLLM_0_18, VL_ARCH_AMPERE, 21474836},
    };
    vl_model m = tiny_llama();
    const uint64_t cap = 1ULL << 30;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_settings s = serve(5000, 10, 1);
        vl_settings_take_framework(&s, fw("vllm"));
        s.vllm = cases[i].v;
        vl_settings_on_vllm(&s);
        vl_runtime rt = hopper;
        rt.arch = cases[i].arch;
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        assert_int_equal(f.profile_non_torch, cases[i].want);
        vl_kv_budget k;
        assert_null(vl_kv_budget_of(&m, &s, &f, &rt, cap, &k));
        assert_int_equal(k.non_torch, cases[i].want);
        assert_int_equal(k.weights + k.profile_peak + k.non_torch + k.communicators +
                             k.sampler_state + k.graph_estimate + k.available,
                         cap);
    }
    /* the V0 engine's figure holds on every GPU and release */
    vl_settings v0 = serve(5000, 10, 1);
    vl_settings_take_framework(&v0, fw("vllm-v0"));
    v0.vllm = VL_VLLM_0_8;
    vl_settings_on_vllm(&v0);
    vl_runtime ampere = hopper;
    ampere.arch = VL_ARCH_AMPERE;
    vl_framework f;
    vl_framework_of(&v0, &ampere, &f);
    assert_int_equal(f.profile_non_torch, 42949673);
    vl_framework_of(&v0, &hopper, &f);
    assert_int_equal(f.profile_non_torch, 42949673);
}

/* --vllm: releases of the V1 engine before 0.18 sort the vocabulary for top-k/top-p (no
 * Triton kernel); current ones do not; V0 sorts in every release, and a profile that is not
 * vLLM's does not change. */
static void test_vllm_release(void **state)
{
    (void)state;
    const vl_sampler AUTO = VL_SAMPLER_AUTO, SORT = VL_SAMPLER_SORT,
                     TRITON = VL_SAMPLER_TRITON, FI = VL_SAMPLER_FLASHINFER;
    const struct {
        const char *framework;
        vl_vllm release;
        vl_sampler sampler;
        bool sort, triton;
    } want[] = {
        {"vllm", VL_VLLM_CURRENT, AUTO, false, true}, {"vllm", VL_VLLM_0_10, AUTO, true, false},
        {"vllm", VL_VLLM_0_16, AUTO, true, false},    {"vllm", VL_VLLM_0_17, AUTO, false, true},
        {"vllm-v0", VL_VLLM_0_10, AUTO, true, false},
        {"hf", VL_VLLM_0_10, AUTO, false, false},
        /* --sampler over the release's: FlashInfer neither sorts nor keeps Triton's rows */
        {"vllm", VL_VLLM_0_10, FI, false, false},     {"vllm", VL_VLLM_CURRENT, FI, false, false},
        {"vllm", VL_VLLM_CURRENT, SORT, true, false}, {"vllm", VL_VLLM_0_10, TRITON, false, true},
        /* the V0 engine and a profile that is not vLLM's do not change */
        {"vllm-v0", VL_VLLM_0_10, FI, true, false},   {"hf", VL_VLLM_0_10, SORT, false, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_settings s = serve(512, 0, 1);
        vl_settings_take_framework(&s, fw(want[i].framework));
        s.vllm = want[i].release;
        s.sampler = want[i].sampler;
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        assert_int_equal(f.sampler_sort, want[i].sort);
        assert_int_equal(f.sampler_triton, want[i].triton);
    }
    /* the sort's buffers raise the profile run's peak: 256 sequences of a 3000-token
     * vocabulary, sorted, take more than the Triton kernel's cached rows */
    vl_model m = tiny_llama();
    vl_settings s = serve(512, 0, 1);
    vl_settings_take_framework(&s, fw("vllm"));
    s.profile_seqs = 256;
    vl_kv_budget k[2];
    for (int r = 0; r < 2; r++) {
        s.vllm = r ? VL_VLLM_0_10 : VL_VLLM_0_18;
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, 1ULL << 30, &k[r]));
    }
    assert_true(k[1].profile_peak > k[0].profile_peak);
    assert_int_equal(k[0].available - k[1].available, k[1].profile_peak - k[0].profile_peak);
}

/* --vllm under the V0 engine: what its profile run counts.  From 0.3.1 to 0.6.3 the memory
 * free at the start less the memory free after the run, so the allocator's reserved segments;
 * 0.6.4 the allocator's peak and all CUDA reports used outside it, the context with it
 * (pytorch/pytorch#86509's 287,047,680 B with lazy loading, less its tensor's 20 MiB
 * segment) and the 0.04 GiB the run's
 * kernels add; from 0.6.5 the peak and what grew outside the allocator.  The V1 engine
 * refuses V0's releases, and the V0 engine those after 0.10; V1's own worker counted the
 * context as 0.6.4 did until 0.9.1. */
static void test_vllm_v0_release(void **state)
{
    (void)state;
    static const struct {
        vl_vllm release;
        vl_profile_counts counts;
    } want[] = {
        {VL_VLLM_0_3_1, VL_COUNTS_RESERVED}, {VL_VLLM_0_5_3, VL_COUNTS_RESERVED},
        {VL_VLLM_0_6_4, VL_COUNTS_CONTEXT},
        {VL_VLLM_0_6_5, VL_COUNTS_INCREASE}, {VL_VLLM_0_8, VL_COUNTS_INCREASE},
        {VL_VLLM_0_10, VL_COUNTS_INCREASE},  {VL_VLLM_CURRENT, VL_COUNTS_INCREASE},
    };
    vl_model m = tiny_llama();
    const uint64_t cap = 1ULL << 30;
    vl_settings s = serve(512, 0, 1);
    vl_settings_take_framework(&s, fw("vllm-v0"));
    vl_framework f;
    vl_kv_budget now, k;
    vl_framework_of(&s, &hopper, &f);
    assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &now));
    /* the profile run as the budget builds it, for its reserved segments */
    vl_settings p = s;
    p.batch = now.profile_seqs;
    p.seq = now.profile_tokens;
    vl_framework pf = f;
    pf.profile_run = true;
    vl_timeline t;
    build(&m, &p, &pf, &t);
    const uint64_t slack = t.peak.reserved - t.peak.allocated;
    vl_timeline_free(&t);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        s.vllm = want[i].release;
        assert_null(vl_settings_check(&s));
        vl_framework_of(&s, &hopper, &f);
        assert_int_equal(f.profile_counts, want[i].counts);
        assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &k));
        assert_int_equal(k.weights, now.weights);
        switch (want[i].counts) {
        case VL_COUNTS_RESERVED:
            assert_int_equal(k.profile_peak, now.profile_peak + slack);
            assert_int_equal(k.non_torch, 42949673);
            break;
        case VL_COUNTS_CONTEXT:
            assert_int_equal(k.profile_peak, now.profile_peak);
            assert_int_equal(k.non_torch, 287047680ULL - 20 * MIB + 42949673);
            break;
        case VL_COUNTS_INCREASE:
            assert_int_equal(k.profile_peak, now.profile_peak);
            assert_int_equal(k.non_torch, 42949673);
            break;
        }
        assert_int_equal(k.weights + k.profile_peak + k.non_torch + k.available, cap);
    }
    assert_true(slack > 0); /* the 0.3.1 row above differs from 0.6.5's */
    s.vllm = VL_VLLM_0_11;
    assert_non_null(vl_settings_check(&s));
    /* the V1 engine takes no V0 release; its worker took off its share all CUDA reported
     * used outside PyTorch's bytes, the context with it, as 0.6.4's did, until 0.9.1's
     * memory snapshot counted what grew outside PyTorch (the same line's budget but for that,
     * the cache the context smaller before) */
    vl_settings v1 = serve(512, 0, 1);
    vl_settings_take_framework(&v1, fw("vllm"));
    v1.vllm = VL_VLLM_0_6_4;
    assert_non_null(vl_settings_check(&v1));
    static const struct {
        vl_vllm release;
        vl_profile_counts counts;
    } v1_want[] = {
        {VL_VLLM_0_8, VL_COUNTS_CONTEXT},     {VL_VLLM_0_9, VL_COUNTS_CONTEXT},
        {VL_VLLM_0_9_1, VL_COUNTS_INCREASE},  {VL_VLLM_0_10, VL_COUNTS_INCREASE},
        {VL_VLLM_CURRENT, VL_COUNTS_INCREASE},
    };
    for (size_t i = 0; i < sizeof v1_want / sizeof *v1_want; i++) {
        v1.vllm = v1_want[i].release;
        assert_null(vl_settings_check(&v1));
        vl_framework_of(&v1, &hopper, &f);
        assert_int_equal(f.profile_counts, v1_want[i].counts);
    }
    vl_kv_budget old, snap;
    v1.vllm = VL_VLLM_0_9;
    vl_framework_of(&v1, &hopper, &f);
    assert_null(vl_kv_budget_of(&m, &v1, &f, &hopper, cap, &old));
    v1.vllm = VL_VLLM_0_9_1;
    vl_framework_of(&v1, &hopper, &f);
    assert_null(vl_kv_budget_of(&m, &v1, &f, &hopper, cap, &snap));
    assert_int_equal(snap.non_torch, f.profile_non_torch);
    assert_int_equal(old.non_torch, 287047680ULL - 20 * MIB + snap.non_torch);
    assert_int_equal(old.available + old.non_torch, snap.available + snap.non_torch);
}

/* --vllm under the V0 engine: its prefill budget, the profile run's tokens (vllm/config.py,
 * SchedulerConfig; engine/arg_utils.py, use_long_context).  A max_model_len of 32768 or
 * less takes the whole sequence a step, 2048 at least; over 32768 none chunked before 0.5.3,
 * 512 tokens a step from 0.5.3 to 0.6.4, 2048 from 0.6.5; --prefill-chunk over them all. */
static void test_vllm_v0_budget(void **state)
{
    (void)state;
    static const vl_vllm releases[] = {VL_VLLM_0_3_1, VL_VLLM_0_5_3, VL_VLLM_0_6_4,
                                       VL_VLLM_0_6_5, VL_VLLM_CURRENT};
    static const uint64_t over[] = {40000, 512, 512, 2048, 2048};
    for (size_t i = 0; i < sizeof releases / sizeof *releases; i++) {
        static const uint64_t lens[] = {300, 20000, 32768, 40000};
        for (size_t j = 0; j < sizeof lens / sizeof *lens; j++) {
            vl_settings s = serve(lens[j], 0, 1);
            vl_settings_take_framework(&s, fw("vllm-v0"));
            s.vllm = releases[i];
            vl_framework f;
            vl_framework_of(&s, &hopper, &f);
            const uint64_t want = lens[j] > 32768 ? over[i] : lens[j] < 2048 ? 2048 : lens[j];
            assert_int_equal(f.prefill_chunk, want);
            s.prefill_chunk = 1024;
            vl_framework_of(&s, &hopper, &f);
            assert_int_equal(f.prefill_chunk, 1024);
        }
    }
}

/* --vllm from 0.20: 92% of the GPU by default and the CUDA graphs' estimate off the KV cache;
 * the V2 runner for dense models from 0.25 (its estimate 0 before 0.29), every model from
 * 0.29; its profile run samples with no parameters before 0.33.  The V0 engine keeps its own
 * under every release. */
static void test_vllm_v2(void **state)
{
    (void)state;
    const vl_model_runner V1 = VL_RUNNER_V1, DENSE = VL_RUNNER_V2_DENSE, V2 = VL_RUNNER_V2;
    const struct {
        vl_vllm release;
        vl_model_runner runner;
        bool params, estimate;
        uint64_t util;
    } want[] = {
        {VL_VLLM_0_17, V1, false, false, 900000},    {VL_VLLM_0_19, V1, false, false, 900000},
        {VL_VLLM_0_20, V1, false, true, 920000},     {VL_VLLM_0_24, V1, false, true, 920000},
        {VL_VLLM_0_25, DENSE, false, true, 920000},  {VL_VLLM_0_28, DENSE, false, true, 920000},
        {VL_VLLM_0_29, V2, false, true, 920000},     {VL_VLLM_0_32, V2, false, true, 920000},
        {VL_VLLM_0_33, V2, true, true, 920000},      {VL_VLLM_0_34, V2, true, true, VL_PPM},
        {VL_VLLM_CURRENT, V2, true, true, VL_PPM},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_settings s = serve(512, 0, 1);
        vl_settings_take_framework(&s, fw("vllm"));
        s.vllm = want[i].release;
        vl_settings_on_vllm(&s);
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        assert_int_equal(f.model_runner, want[i].runner);
        assert_int_equal(f.profile_sampler_params, want[i].params);
        assert_int_equal(f.graph_estimate, want[i].estimate);
        assert_int_equal(s.gpu_util, want[i].util);
        /* the extensible KV cache from 0.34, the profile's estimate before */
        assert_int_equal(f.kv_sizing, want[i].util == VL_PPM ? VL_KV_EXTENSIBLE : VL_KV_PROFILE);
    }
    vl_settings s = serve(512, 0, 1);
    vl_settings_take_framework(&s, fw("vllm-v0"));
    s.vllm = VL_VLLM_CURRENT;
    vl_settings_on_vllm(&s);
    vl_framework f;
    vl_framework_of(&s, &hopper, &f);
    assert_int_equal(s.gpu_util, 900000);
    assert_int_equal(f.model_runner, VL_RUNNER_V0);
    assert_false(f.graph_estimate);
    /* 0.25 to 0.28 run a mixture of experts on the V1 runner */
    assert_true(vl_runs_v2(vllm_at(VL_VLLM_0_25), false));
    assert_false(vl_runs_v2(vllm_at(VL_VLLM_0_25), true));
    assert_true(vl_runs_v2(vllm_at(VL_VLLM_0_29), true));

    /* the V2 runner's sampler state from the start: 256 rows of the 3000-token vocabulary's
     * int32 counts and of two masks of cdiv(3000, 32) = 94 int32 */
    vl_model m = tiny_llama(), moe = tiny_moe();
    const uint64_t state_bytes = 256 * 3000 * 4 + 2 * 256 * 94 * 4;
    s = serve(64, 0, 5);
    vl_settings_take_framework(&s, fw("vllm"));
    s.profile_seqs = 256;
    s.vllm = VL_VLLM_0_25;
    vl_framework_of(&s, &hopper, &f);
    assert_int_equal(vl_sampler_state(&m.arch, &f), state_bytes);
    assert_int_equal(vl_sampler_state(&moe.arch, &f), 0);
    assert_int_equal(vl_sampler_state(&m.arch, vllm_at(VL_VLLM_0_24)), 0);
    vl_timeline t;
    build(&m, &s, &f, &t);
    assert_int_equal(event_bytes(&t, "load weights", "sampler state: penalty counts and token "
                                                     "masks, a vocabulary row a sequence"),
                     state_bytes);
    /* serving: the logits copied to fp32, no probabilities; the Gumbel kernel's maxima, 5
     * rows of cdiv(3000, 1024) = 3 blocks, an int64 index and an fp32 value each */
    uint64_t bytes = 0;
    const char *copy = "sampler: fp32 logits, whole vocabulary";
    assert_int_equal(allocs_in(&t, "prefill", copy, &bytes), 1);
    assert_int_equal(bytes, 5 * 3000 * 4);
    assert_int_equal(allocs_in(&t, "prefill", "sampler: fp32 probabilities", &bytes), 0);
    assert_int_equal(event_bytes(&t, "prefill", "sampler: Gumbel block maxima (index and value "
                                                "a 1024-token block)"),
                     5 * 3 * 12);
    vl_timeline_free(&t);
    /* its profile run before 0.33 samples with no parameters: no fp32 copy; from 0.33 it has
     * one */
    static const struct {
        vl_vllm release;
        size_t copies;
    } profiled[] = {{VL_VLLM_0_25, 0}, {VL_VLLM_0_33, 1}};
    for (size_t i = 0; i < 2; i++) {
        s.vllm = profiled[i].release;
        vl_framework_of(&s, &hopper, &f);
        f.profile_run = true;
        build(&m, &s, &f, &t);
        assert_int_equal(allocs_in(&t, "prefill", copy, &bytes), profiled[i].copies);
        vl_timeline_free(&t);
    }

    /* the CUDA graphs' estimate: the largest size, min(2 x 256, 512, 8192) = 512, its decode
     * workspace twice (warmup and pool), and 1 MiB for each other graph: 51 PIECEWISE sizes
     * (1, 2, 4, 8 to 248 by 8, 256 to 512 by 16) and 35 FULL ones (to 256) */
    s.vllm = VL_VLLM_0_20;
    vl_framework_of(&s, &hopper, &f);
    vl_settings g = s;
    g.batch = 512;
    bool ovf = false;
    const uint64_t ws512 = vl_infer_workspace(&m.arch, &g, false, 1, 1, &ovf);
    assert_int_equal(vl_graph_estimate(&m.arch, &s, &f), 2 * ws512 + (50 + 34) * (1 << 20));
    /* one sequence: sizes 1 and 2, one FULL graph */
    f.profile_seqs = 1;
    g.batch = 2;
    const uint64_t ws2 = vl_infer_workspace(&m.arch, &g, false, 1, 1, &ovf);
    assert_int_equal(vl_graph_estimate(&m.arch, &s, &f), 2 * ws2 + 1 * (1 << 20));
    /* none before 0.20, none on the V2 runner before 0.29 (a dense model), the V1 runner's for
     * a mixture of experts then */
    s.profile_seqs = 256;
    s.vllm = VL_VLLM_0_19;
    vl_framework_of(&s, &hopper, &f);
    assert_int_equal(vl_graph_estimate(&m.arch, &s, &f), 0);
    s.vllm = VL_VLLM_0_25;
    vl_framework_of(&s, &hopper, &f);
    assert_int_equal(vl_graph_estimate(&m.arch, &s, &f), 0);
    assert_true(vl_graph_estimate(&moe.arch, &s, &f) > 0);
    /* the KV cache is what is left after all six */
    s.vllm = VL_VLLM_0_29;
    s.gpu_util = 920000;
    vl_framework_of(&s, &hopper, &f);
    vl_kv_budget k;
    const uint64_t cap = 1ULL << 30;
    assert_null(vl_kv_budget_of(&m, &s, &f, &hopper, cap, &k));
    assert_int_equal(k.sampler_state, state_bytes);
    assert_int_equal(k.graph_estimate, vl_graph_estimate(&m.arch, &s, &f));
    assert_int_equal(k.weights + k.profile_peak + k.non_torch + k.communicators + k.sampler_state +
                         k.graph_estimate + k.available,
                     cap);
    assert_false(ovf);
    /* 0.34's extensible cache on an 8 GiB GPU: what is free after warmup and capture (the
     * GPU less the CUDA context and what the engine keeps) less a margin of max(1 GiB, 0.75
     * x the transient peak) and the peak; under a share that is less, the share */
    s.vllm = VL_VLLM_CURRENT;
    s.gpu_util = VL_PPM;
    vl_runtime rt = hopper;
    rt.memory = 8ULL << 30;
    vl_framework_of(&s, &rt, &f);
    assert_null(vl_kv_budget_of(&m, &s, &f, &rt, rt.memory, &k));
    const uint64_t context = vl_cuda_context_bytes(&hopper, NULL);
    assert_int_equal(k.sizing, VL_KV_EXTENSIBLE);
    assert_int_equal(k.context, context);
    assert_true(k.profile_peak < VL_GIB); /* a tiny model: the floor */
    assert_int_equal(k.margin, VL_GIB);
    assert_int_equal(k.capacity, rt.memory - context - VL_GIB);
    const uint64_t kept = k.weights + k.non_torch + k.communicators + k.sampler_state +
                          k.graph_estimate + k.profile_peak;
    assert_int_equal(k.available, k.capacity - kept);
    assert_null(vl_kv_budget_of(&m, &s, &f, &rt, rt.memory / 2, &k));
    assert_int_equal(k.capacity, rt.memory / 2);
    assert_int_equal(k.available, rt.memory / 2 - kept);
    /* a profile run of a million tokens peaks above 4/3 GiB: the margin is 0.75 x it */
    s.prefill_chunk = 1ULL << 20;
    rt.memory = 64ULL << 30;
    vl_framework_of(&s, &rt, &f);
    assert_null(vl_kv_budget_of(&m, &s, &f, &rt, rt.memory, &k));
    assert_true(k.profile_peak > (4ULL << 30) / 3);
    assert_int_equal(k.margin, k.profile_peak - k.profile_peak / 4);
    assert_int_equal(k.capacity, rt.memory - context - k.margin);
}

/* The communicators' buffers: vLLM's comm_nvlink by release, worked from the logs' figures
 * outside PyTorch at -tp 2 less -tp 1: 0.19.0 1.00 GiB in the worker's init snapshot
 * (1.51 - 0.51) and 1.82 in the profile run (2.07 - 0.25), 2.82 GiB = 3,027,951,944 B (the
 * parts rounded to bytes); 0.11.0 0.93 GiB at startup (78.57 - 77.64 free) and 0.42
 * (0.55 - 0.13), 1.35 GiB = 1,449,551,462 B; 0.6.5 3.58 - 1.79 = 1.79 GiB = 1,921,997,865 B,
 * V0's and V1's before 0.11; comm_pcie, 0.20 - 0.04 = 0.16 GiB = 171,798,692 B; by the GPU's
 * link or --interconnect, on the device; nothing on one GPU, in pipeline stages of one GPU
 * each or under --overhead.  In training, PyTorch's 688 MiB (721,420,288 B) over NVLink for
 * each group of two or more that runs collectives: data parallel, tensor parallel, both;
 * none for pipeline stages alone, none measured over PCIe. */
static void test_communicators(void **state)
{
    (void)state;
    enum { A = VL_LINK_AUTO, P = VL_LINK_PCIE, N = VL_LINK_NVLINK };
    const uint64_t pcie = 171798692;
    static const struct {
        const char *framework;
        uint64_t gpus, pp;
        int gpu_link, flag;
        bool overhead;
        uint64_t want;
    } cases[] = {
        {"vllm", 2, 1, N, A, false, 3027951944}, {"vllm", 2, 1, P, A, false, 171798692},
        {"vllm", 2, 1, P, N, false, 3027951944}, {"vllm", 2, 1, N, P, false, 171798692},
        {"vllm-v0", 2, 1, N, A, false, 1921997865}, {"vllm", 1, 1, N, A, false, 0},
        {"vllm", 2, 1, N, A, true, 0},
        /* pipeline stages: the tensor-parallel group's, none for a group of one */
        {"vllm", 2, 2, N, A, false, 0},          {"vllm", 4, 2, N, A, false, 3027951944},
    };
    vl_model m = tiny_llama();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_settings s = serve(512, 0, 1);
        vl_settings_take_framework(&s, fw(cases[i].framework));
        s.gpus = cases[i].gpus;
        s.pp = cases[i].pp;
        s.interconnect = (vl_link)cases[i].flag;
        vl_runtime rt = hopper;
        rt.interconnect = (vl_link)cases[i].gpu_link;
        rt.overhead_given = cases[i].overhead;
        vl_timeline t;
        char err[128];
        assert_true(vl_timeline_for(&m, &s, &rt, &t, err, sizeof err));
        assert_int_equal(t.peak.communicators, cases[i].want);
        assert_int_equal(t.peak.device,
                         t.peak.reserved + t.peak.context + t.peak.managed + cases[i].want);
        vl_timeline_free(&t);
    }
    /* training: tp x pp x dp; NCCL's NVLS buffers worked by hand from nvls.cc: 16
     * channels x 2 x (4 MiB + 2 MiB) a GPU of the group on the node from NCCL 2.17 (torch
     * 2.2's 2.19.3), 16 x 2 x (1 + 2) MiB in 2.21 (torch 2.5), 16 x 2 x 1 MiB and a 2 MiB
     * credit granule from 2.22 (current: 2.30.4); Blackwell 32 channels in 2.26 (torch
     * 2.7), 24 from 2.27 (torch 2.8); off for a group of two before 2.28.7 */
    enum { H = VL_ARCH_HOPPER, AM = VL_ARCH_AMPERE, BW = VL_ARCH_BLACKWELL };
    const uint64_t B = 721420288, MiB = 1048576;
    static const struct {
        const char *framework;
        vl_torch torch;
        int arch;
        unsigned cuda;
        uint64_t gpus, per_node, tp, pp;
        int link;
        uint64_t nvlinks; /* 0: unknown */
    } train_cases[] = {
        {"hf", VL_TORCH_CURRENT, H, 1204, 8, 8, 1, 1, N}, /* dp 8 */
        {"hf", VL_TORCH_CURRENT, H, 1204, 8, 8, 2, 1, N}, /* tp 2, dp 4 */
        {"hf", VL_TORCH_CURRENT, H, 1204, 8, 8, 8, 1, N}, /* tp 8, dp 1 */
        {"hf", VL_TORCH_CURRENT, H, 1204, 8, 8, 2, 4, N}, /* tp 2, pp 4, dp 1 */
        {"hf", VL_TORCH_CURRENT, H, 1204, 8, 8, 1, 8, N}, /* pipeline stages alone */
        {"hf", VL_TORCH_CURRENT, H, 1204, 8, 8, 1, 1, P}, /* not measured over PCIe */
        {"hf", VL_TORCH_2_2, H, 1201, 8, 8, 1, 1, N},
        {"hf", VL_TORCH_2_2, H, 1201, 8, 8, 2, 1, N},   /* the pair has none */
        {"hf", VL_TORCH_2_2, AM, 1201, 8, 8, 1, 1, N},  /* no multicast */
        {"hf", VL_TORCH_2_2, H, 1108, 8, 8, 1, 1, N},   /* NCCL built for CUDA 11 */
        {"hf", VL_TORCH_2_0, H, 1201, 8, 8, 1, 1, N},   /* NCCL 2.14 */
        {"deepspeed", VL_TORCH_2_2, H, 1201, 8, 8, 1, 1, N},
        {"hf", VL_TORCH_2_2, H, 1201, 16, 8, 1, 1, N},  /* two nodes: 8 GPUs on each */
        {"hf", VL_TORCH_2_2, H, 1201, 16, 8, 4, 1, N},  /* tp 4's; dp 4 has two GPUs a node */
        {"hf", VL_TORCH_2_5, H, 1204, 8, 8, 1, 1, N},
        {"hf", VL_TORCH_2_7, BW, 1208, 8, 8, 1, 1, N},
        {"hf", VL_TORCH_2_8, BW, 1208, 8, 8, 1, 1, N},
        {"hf", VL_TORCH_2_9, H, 1208, 8, 8, 2, 1, N},
        {"vllm", VL_TORCH_2_2, H, 1201, 8, 8, 1, 1, N}, /* measured with them */
        /* 2.20 and 2.21 take the communicator's channels: 24 on GPUs of 18 NVLink links */
        {"hf", VL_TORCH_2_4, H, 1204, 8, 8, 1, 1, N, 18},
        {"hf", VL_TORCH_2_4, H, 1204, 8, 8, 1, 1, N, 8},
        {"hf", VL_TORCH_2_5, H, 1204, 8, 8, 1, 1, N, 18},
        {"hf", VL_TORCH_2_2, H, 1201, 8, 8, 1, 1, N, 18}, /* 2.19: NCCL_NVLS_NCHANNELS */
        {"hf", VL_TORCH_2_7, H, 1208, 8, 8, 1, 1, N, 18}, /* 2.26: likewise */
    };
    const uint64_t want[][2] = {
        {B + 258 * MiB, 258 * MiB},
        {2 * B + 66 * MiB + 130 * MiB, 196 * MiB},
        {B + 258 * MiB, 258 * MiB},
        {B + 66 * MiB, 66 * MiB},
        {0, 0},
        {0, 0},
        {B + 1536 * MiB, 1536 * MiB},
        {2 * B + 768 * MiB, 768 * MiB},
        {B, 0},
        {B, 0},
        {B, 0},
        {2 * (B + 1536 * MiB), 2 * 1536 * MiB},
        {B + 1536 * MiB, 1536 * MiB},
        {2 * B + 768 * MiB, 768 * MiB},
        {B + 768 * MiB, 768 * MiB},
        {B + 514 * MiB, 514 * MiB},
        {B + 386 * MiB, 386 * MiB},
        {2 * B + 130 * MiB, 130 * MiB},
        {3027951944, 0},
        {B + 2304 * MiB, 2304 * MiB},
        {B + 1536 * MiB, 1536 * MiB},
        {B + 1152 * MiB, 1152 * MiB},
        {B + 1536 * MiB, 1536 * MiB},
        {B + 258 * MiB, 258 * MiB},
    };
    _Static_assert(sizeof train_cases / sizeof *train_cases == sizeof want / sizeof *want, "");
    for (size_t i = 0; i < sizeof train_cases / sizeof *train_cases; i++) {
        vl_settings s = train(VL_BF16_MIXED, 64, 2);
        vl_settings_take_framework(&s, fw(train_cases[i].framework));
        s.torch = train_cases[i].torch;
        s.gpus = train_cases[i].gpus;
        s.gpus_per_node = train_cases[i].per_node;
        s.tp = train_cases[i].tp;
        s.pp = train_cases[i].pp;
        vl_runtime rt = hopper;
        rt.arch = (vl_gpu_arch)train_cases[i].arch;
        rt.cuda = train_cases[i].cuda;
        rt.interconnect = (vl_link)train_cases[i].link;
        rt.nvlinks = train_cases[i].nvlinks;
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        uint64_t nvls = 1;
        assert_int_equal(vl_communicator_bytes(&f, &s, &rt, &nvls, NULL), want[i][0]);
        assert_int_equal(nvls, want[i][1]);
    }
    /* vLLM's KV cache on two GPUs loses what the communicators add after the worker
     * measures its memory: from 0.11 the buffers less what they take as they are made
     * (0.19: 1.82 GiB = 1,954,210,120 B; 0.11 to 0.18: 0.42 GiB = 450,971,566 B), before it
     * all of them (0.10, V0); over PCIe all of them in every release; the device holds
     * them all */
    static const struct {
        const char *framework;
        vl_vllm release;
        int link;
        uint64_t device, counted;
    } kv[] = {
        {"vllm", VL_VLLM_CURRENT, N, 3027951944, 1954210120},
        {"vllm", VL_VLLM_0_19, N, 3027951944, 1954210120},
        {"vllm", VL_VLLM_0_18, N, 1449551462, 450971566},
        {"vllm", VL_VLLM_0_11, N, 1449551462, 450971566},
        {"vllm", VL_VLLM_0_10, N, 1921997865, 1921997865},
        {"vllm", VL_VLLM_0_11, P, 171798692, 171798692},
        {"vllm", VL_VLLM_CURRENT, P, 171798692, 171798692},
        {"vllm-v0", VL_VLLM_CURRENT, N, 1921997865, 1921997865},
    };
    vl_kv_budget k[sizeof kv / sizeof *kv];
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) {
        vl_settings s = serve(512, 0, 1);
        vl_settings_take_framework(&s, fw(kv[i].framework));
        s.vllm = kv[i].release;
        s.gpus = 2;
        vl_runtime rt = hopper;
        rt.interconnect = (vl_link)kv[i].link;
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        vl_timeline t;
        char err[128];
        assert_true(vl_timeline_for(&m, &s, &rt, &t, err, sizeof err));
        assert_int_equal(t.peak.communicators, kv[i].device);
        vl_timeline_free(&t);
        assert_null(vl_kv_budget_of(&m, &s, &f, &rt, 8ULL << 30, &k[i]));
        assert_int_equal(k[i].communicators, kv[i].counted);
    }
    /* the same release over PCIe and over NVLink: the caches differ by what they count */
    assert_int_equal(k[6].available - k[0].available, 1954210120 - pcie);
    assert_int_equal(k[5].available - k[3].available, 450971566 - pcie);
}

/* SGLang (static sizing): its chunked prefill and decode graphs by the GPU's memory in MiB
 * (nvidia-smi's) and its tensor parallelism, mem_fraction_static by its rule (reserved_mem
 * = 512 + 1.5 a chunk token + 128 a GPU + 2 a decode graph batch + 8 a prefill graph size,
 * 10 GiB at least over 60 GiB; round((gpu_mem - reserved_mem) / gpu_mem, 3)), worked by
 * hand; and its pool: that share of what CUDA leaves once its context and the communicators
 * are made, less the weights, in pages of one token. */
static void test_sglang(void **state)
{
    (void)state;
    static const struct {
        uint64_t mib, gpus, given_chunk, chunk, max_bs, share;
    } want[] = {
        /* H100: 512 + 12,288 + 128 + 512 + 58 x 8 = 13,904 MiB of 81,559: 0.8295 */
        {81559, 1, 0, 8192, 256, 830000},
        /* four of them: max_bs 512, 512 MiB for the GPUs: 14,800 MiB, 0.8185 */
        {81559, 4, 0, 8192, 512, 819000},
        /* a chunk of 2048 given: 512 + 3,072 + 128 + 512 + 42 x 8 = 4,560, raised to
         * 10,240: 0.8744 */
        {81559, 1, 2048, 2048, 256, 874000},
        /* RTX 4090: 512 + 6,144 + 128 + 96 + 50 x 8 = 7,280 MiB of 24,564: 0.7036 */
        {24564, 1, 0, 4096, 48, 704000},
        /* two A100 40GB: 512 + 6,144 + 256 + 64 + 400 = 7,376 of 40,960: 0.8199 */
        {40960, 2, 0, 4096, 32, 820000},
        /* T4: 512 + 3,072 + 128 + 16 + 42 x 8 = 4,064 of 15,360: 0.7354 */
        {15360, 1, 0, 2048, 8, 735000},
        /* MI300X: 512 + 24,576 + 128 + 1,024 + 74 x 8 = 26,832 of 196,608: 0.8635 */
        {196608, 1, 0, 16384, 512, 864000},
        /* memory unknown: 4096, 160 and 0.95 */
        {0, 1, 0, 4096, 160, 950000},
    };
    vl_settings s = serve(512, 0, 1);
    vl_settings_take_framework(&s, fw("sglang"));
    assert_int_equal(s.gpu_util, 0); /* its rule */
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_runtime rt = hopper;
        rt.memory = rt.smi_memory = want[i].mib << 20;
        s.gpus = want[i].gpus;
        s.prefill_chunk = want[i].given_chunk;
        vl_framework f;
        vl_framework_of(&s, &rt, &f);
        assert_int_equal(f.prefill_chunk, want[i].chunk);
        assert_int_equal(f.graph_batch, want[i].max_bs);
        assert_int_equal(f.gpu_util, want[i].share);
        assert_int_equal(vl_sglang_fraction(&f, &s, &rt), want[i].share);
    }
    /* by release, for one GPU of an RTX 4090's, an A100 40GB's, an H100's, an H200's and a
     * B200's memory (the tp table before mid-2025; 0.4.6 and 0.4.7's rules over 96 GiB and
     * 180,000 MiB; 0.4.8's buckets; the reserve, without and with prefill graphs, and
     * 0.5.20's second row), each as SGLang's code gives it */
    static const uint64_t mibs[5] = {24564, 40960, 81559, 143771, 183359};
    static const struct {
        vl_sglang line;
        uint64_t share[5];
    } lines[] = {
        {VL_SGL_0_3, {880000, 880000, 880000, 880000, 880000}},
        {VL_SGL_0_4_6, {880000, 880000, 880000, 871796, 899476}},
        {VL_SGL_0_4_7, {880000, 880000, 880000, 871796, 790000}},
        {VL_SGL_0_4_8, {879000, 750000, 874000, 911000, 821000}},
        {VL_SGL_0_5_3, {847000, 833000, 835000, 907000, 857000}},
        {VL_SGL_0_5_10, {833000, 823000, 830000, 903000, 854000}},
        {VL_SGL_CURRENT, {704000, 823000, 830000, 903000, 854000}},
    };
    s.gpus = 1;
    s.prefill_chunk = 0;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        for (size_t g = 0; g < 5; g++) {
            vl_runtime rt = hopper;
            rt.memory = rt.smi_memory = mibs[g] << 20;
            s.sglang = lines[i].line;
            vl_framework f;
            vl_framework_of(&s, &rt, &f);
            assert_int_equal(f.gpu_util, lines[i].share[g]);
        }
    /* eight GPUs: 0.83 in 0.3, 0.82 in 0.3.6, 0.81 in 0.4 */
    s.gpus = 8;
    static const vl_sglang eight[] = {VL_SGL_0_3, VL_SGL_0_3_6, VL_SGL_0_4};
    for (size_t i = 0; i < 3; i++) {
        s.sglang = eight[i];
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        assert_int_equal(f.gpu_util, 830000 - 10000 * i);
    }
    s.sglang = VL_SGL_CURRENT;
    /* --gpu-util names mem_fraction_static; the run may use the whole GPU, which SGLang's
     * share does not bound */
    s.gpus = 1;
    s.prefill_chunk = 0;
    s.gpu_util = 500000;
    vl_runtime rt = hopper;
    rt.memory = rt.smi_memory = 8ULL << 30;
    vl_framework f;
    vl_framework_of(&s, &rt, &f);
    assert_int_equal(f.gpu_util, 500000);
    assert_int_equal(vl_usable_memory(&s, 8ULL << 30), 8ULL << 30);
    /* the pool: (8 GiB - the context) x 0.5 - the weights, 384 B a token (2 x 3 layers x 2
     * KV heads x 16 x 2 B) */
    vl_model m = tiny_llama();
    vl_kv_budget k;
    assert_null(vl_kv_budget_of(&m, &s, &f, &rt, 8ULL << 30, &k));
    const uint64_t context = vl_cuda_context_bytes(&hopper, NULL);
    assert_int_equal(k.sizing, VL_KV_STATIC);
    assert_int_equal(k.share, 500000);
    assert_int_equal(k.free_at_load, (8ULL << 30) - context);
    assert_int_equal(k.capacity, k.free_at_load / 2);
    assert_int_equal(k.available, k.capacity - k.weights);
    assert_int_equal(k.tokens, k.available / 384);
    assert_int_equal(k.profile_seqs + k.profile_peak + k.non_torch + k.communicators, 0);
    vl_settings one = s; /* the weights as loaded, with the RoPE table beside them */
    one.seq = 1;
    vl_timeline t;
    build(&m, &one, &f, &t);
    assert_int_equal(k.weights, t.end[VL_TL_WEIGHTS]);
    vl_timeline_free(&t);
    vl_solution c;
    vl_settings copy = s;
    assert_null(vl_solve_fit(&m, &copy, VL_SOLVE_MAX_CONCURRENCY, 8ULL << 30, &rt, &c));
    assert_int_equal(c.answer, k.available / (512 * 384));
    /* two GPUs over NVLink: the communicators (1.96 GiB) come off before the share */
    s.gpus = 2;
    rt.interconnect = VL_LINK_NVLINK;
    vl_framework_of(&s, &rt, &f);
    vl_kv_budget two;
    assert_null(vl_kv_budget_of(&m, &s, &f, &rt, 8ULL << 30, &two));
    assert_int_equal(two.communicators, 2104533893);
    assert_int_equal(two.free_at_load, (8ULL << 30) - context - 2104533893);
    /* a share the weights fill: nothing left, and by how much */
    s.gpus = 1;
    s.gpu_util = 1;
    vl_framework_of(&s, &rt, &f);
    assert_non_null(vl_kv_budget_of(&m, &s, &f, &rt, 8ULL << 30, &k));
    assert_int_equal(k.sizing, VL_KV_STATIC);
    assert_int_equal(k.available, 0);
    assert_int_equal(k.shortfall, k.weights - k.capacity);
    /* the weights as the free memory shows them, past their bytes: each tensor of 10 MiB or
     * more in a segment of its own rounded up to 2 MiB.  Qwen2.5 32B's shape (QwQ 32B) over
     * four GPUs, in bf16: qkv (10 + 2 x 2) x 128 x 5120 x 2 = 17.5 MiB (0.5 past), o 12.5
     * MiB (1.5), gate-up 135 MiB (1), down 67.5 MiB (0.5), 64 layers; the embeddings and
     * the output layer, 38,016 rows of 5120 x 2, 371.25 MiB each (0.75) */
    vl_model q = model_of((vl_arch){.hidden = 5120, .layers = 64, .heads = 40, .kv_heads = 8,
                                    .ffn = 27648, .vocab = 152064});
    vl_settings sq = serve(512, 0, 1);
    vl_settings_take_framework(&sq, fw("sglang"));
    sq.gpus = 4;
    const uint64_t MiB = 1 << 20;
    assert_int_equal(vl_weight_segment_tails(&q.arch, &sq, 64, true),
                     64 * (MiB / 2 + 3 * MiB / 2 + MiB + MiB / 2) + 2 * (3 * MiB / 4));
    assert_int_equal(vl_weight_segment_tails(&q.arch, &sq, 64, false),
                     64 * (MiB / 2 + 3 * MiB / 2 + MiB + MiB / 2) + 3 * MiB / 4);
    sq.weight_dtype = VL_DT_INT4; /* packed: not modelled */
    assert_int_equal(vl_weight_segment_tails(&q.arch, &sq, 64, true), 0);
    /* on one GPU every tensor of Llama 3.1 8B's shape is whole 2 MiB */
    vl_model l = model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                                    .ffn = 14336, .vocab = 128256});
    sq.weight_dtype = VL_DT_BF16;
    sq.gpus = 1;
    assert_int_equal(vl_weight_segment_tails(&l.arch, &sq, 32, true), 0);
    /* under vLLM's V0 engine 0 is the profile's own share; the run may use that much */
    vl_settings v = serve(512, 0, 1);
    vl_settings_take_framework(&v, fw("vllm-v0"));
    v.gpu_util = 0;
    vl_framework_of(&v, &rt, &f);
    assert_int_equal(f.gpu_util, 900000);
    assert_int_equal(vl_usable_memory(&v, 1000000), 900000);
}

static void test_serving(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = serve(5000, 10, 2);
    /* KV: 2 x 3 layers x 2 heads x 16 x 2 B = 384 B a token */
    const uint64_t kv_token = 384;
    vl_timeline t;
    /* vLLM's V0 engine: the cache once, a budget of 2048 prompt tokens a step, so each
     * 5,000-token prompt in 3 chunks (2048, 2048, 904), one prompt after the other: 6
     * steps, the 2nd to 5th as one phase.  A full step's forward, by hand (h 128, 8 heads
     * and 2 KV heads of 16, FFN 352, bf16): the residual stream in and out, 2 x 2048 x 128
     * x 2 = 1,048,576, the MLP's 3 x 352 x 2 a token, 4,325,376, and beside it the layer's
     * input, which vLLM's layer loop holds, and the MLP's output, 1,048,576 again; the last
     * step's 904 tokens 462,848 + 1,909,248 + 462,848 */
    build(&m, &s, fw("vllm-v0"), &t);
    assert_int_equal(t.sum.inf.kv_bytes_per_token, kv_token);
    assert_int_equal(event_bytes(&t, "prefill step 1", "forward workspace"), 6422528);
    assert_int_equal(event_bytes(&t, "prefill step 6", "forward workspace"), 2834944);
    for (size_t i = 0; i < t.n_events; i++)
        assert_string_not_equal(vl_timeline_phase(&t, i), "prefill step 7");
    assert_int_equal(t.sum.inf.prefill.workspace, 6422528);
    /* the engine's blocks of 16 tokens: a sequence of 5,010 tokens holds 314 of them */
    assert_int_equal(t.end[VL_TL_KV_CACHE], kv_token * 314 * 16 * 2);
    vl_timeline_free(&t);
    /* the same steps with a cache grown by torch.cat: the steps between grow it to the
     * first prompt whole and the second's first two chunks, (5000 + 4096) x 384 B, before
     * the last */
    vl_framework grown = *fw("hf");
    grown.prefill_chunk = 2048;
    build(&m, &s, &grown, &t);
    uint64_t before[VL_N_TL_COMPONENTS];
    vl_timeline_alive(&t, first_event_of(&t, "prefill step 6") - 1, before);
    assert_int_equal(before[VL_TL_KV_CACHE], kv_token * (5000 + 4096));
    first_event_of(&t, "prefill steps 2-5");
    vl_timeline_free(&t);
    /* V1: a budget of 8192, one prompt a step: two steps */
    build(&m, &s, fw("vllm"), &t);
    first_event_of(&t, "prefill step 2");
    for (size_t i = 0; i < t.n_events; i++)
        assert_string_not_equal(vl_timeline_phase(&t, i), "prefill step 3");
    assert_int_equal(t.end[VL_TL_KV_CACHE], kv_token * 314 * 16 * 2);
    vl_timeline_free(&t);
    /* HF generate: torch.cat holds one layer's old and new cache at once; the last of the
     * 9 decode steps (the prefill sampled the first of the 10 tokens) grows 5008 to 5009 */
    build(&m, &s, fw("hf"), &t);
    uint64_t most = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        uint64_t alive[VL_N_TL_COMPONENTS];
        alive_before(&t, i + 1, alive);
        most = alive[VL_TL_KV_CACHE] > most ? alive[VL_TL_KV_CACHE] : most;
    }
    assert_int_equal(most, kv_token * 5009 * 2 + kv_token / 3 * 5008 * 2);
    assert_string_equal(t.peak.phase, "prefill");
    vl_timeline_free(&t);
}

/* The tiny GPT served by transformers' generate, fp32, b = 2, a 32-token prompt, 4 new
 * tokens: the prefill samples the first, decode steps 1 to 3 the others.  By hand: the KV
 * cache is 2 (K, V) x 4 heads x 16 x 4 B = 512 B a token and a layer; torch.cat grows each
 * layer in turn.  The prefill's workspace (SDPA, so no s x s): the residual stream in and
 * out, 2 x 4 x 64 tokens x 64 = 32,768, plus the largest of the MLP's two f-wide tensors
 * (2 x 256 x 4 x 64 = 131,072) with the embeddings' output and the layer's input the
 * forward keeps beside them (32,768), Q, K, V (49,152) and the last position's fp32 logits
 * (8,000): 196,608.  The peak is that workspace beside the weights (689,152) and the
 * prompt's cache (2 x 32 x 2 x 512 = 65,536): 951,296, in the prefill; then the sampler:
 * the whole vocabulary's fp32 logits and their softmax, 8,000 each. */
static void test_golden_serving(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = serve(32, 4, 2);
    s.weight_dtype = s.kv_dtype = VL_DT_FP32;
    vl_timeline t;
    build(&m, &s, fw("hf"), &t);
    static const char *const order[] = {"load weights", "prefill", "decode step 1",
                                        "decode step 2", "decode step 3"};
    size_t k = 0;
    for (size_t i = 0; i < t.n_events; i++)
        if (strcmp(vl_timeline_phase(&t, i), order[k]) != 0) {
            k++;
            assert_true(k < sizeof order / sizeof *order);
            assert_string_equal(vl_timeline_phase(&t, i), order[k]);
        }
    assert_int_equal(k, 4);
    assert_int_equal(t.peak.tensors, 951296 + CUBLAS_HOPPER);
    assert_int_equal(t.peak.allocated, 951296 + CUBLAS_HOPPER);
    assert_string_equal(t.peak.phase, "prefill");
    assert_string_equal(t.events[t.peak.event].what, "forward workspace");
    assert_int_equal(t.peak.alive[VL_TL_KV_CACHE], 65536);
    /* the caller's logits of the last positions (fp32 here: fp32 weights), then the copy */
    assert_int_equal(event_bytes(&t, "prefill", "logits of the last positions, model dtype"),
                     8000);
    assert_int_equal(event_bytes(&t, "prefill", "sampler: fp32 logits, whole vocabulary"), 8000);
    assert_int_equal(event_bytes(&t, "prefill", "sampler: fp32 probabilities"), 8000);
    /* decode step 3 holds the other layer's new cache (35 tokens) and this layer's old and
     * new (34, 35); the decode workspace is the residual stream (1,024) and the logits */
    uint64_t alive[VL_N_TL_COMPONENTS];
    size_t i = first_event_of(&t, "decode step 3");
    vl_timeline_alive(&t, i + 2, alive); /* layer 0 replaced, layer 1's new one born */
    assert_int_equal(alive[VL_TL_KV_CACHE], 2 * 35 * 512 * 2 + 2 * 34 * 512);
    assert_int_equal(event_bytes(&t, "decode step 3", "decode workspace"), 1024 + 8000);
    assert_int_equal(t.end[VL_TL_KV_CACHE], 2 * 35 * 1024);
    vl_timeline_free(&t);
}

/* --ep: the token dispatcher's all-to-all buffers are saved by nothing; each MoE layer
 * holds them while its forward and its backward run.  A tiny Mixtral-like model (h 128,
 * 4 experts, 2 a token) at s = 40, b = 3, bf16: 2 x 120 tokens x 2 x 128 x 2 = 122,880
 * bytes, in every layer's forward and backward, and none among the activations kept. */
static void test_all_to_all(void **state)
{
    (void)state;
    vl_model m = tiny_moe();
    vl_settings s = train(VL_BF16_MIXED, 40, 3);
    s.gpus = 2;
    s.ep = 2;
    vl_timeline t;
    build(&m, &s, fw("megatron"), &t);
    const char *what = "all-to-all dispatch and combine buffers (expert parallel)";
    assert_int_equal(t.sum.act.a2a_bytes, 2 * 120 * 2 * 128 * 2);
    int n = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        if (t.events[i].kind != VL_EV_ALLOC || strcmp(t.events[i].what, what) != 0)
            continue;
        char want[32];
        snprintf(want, sizeof want, "%s layer %d", n < 3 ? "forward" : "backward",
                 n < 3 ? n : 5 - n);
        assert_string_equal(vl_timeline_phase(&t, i), want);
        assert_int_equal(t.events[i].bytes, 122880);
        n++;
    }
    assert_int_equal(n, 6);
    uint64_t alive[VL_N_TL_COMPONENTS]; /* none kept: the saved activations of the run */
    alive_before(&t, first_event_of(&t, "loss backward"), alive);
    assert_int_equal(alive[VL_TL_ACTIVATIONS], t.sum.act.total - t.sum.act.a2a_bytes);
    vl_timeline_free(&t);
}

/* Tensor by tensor, as PyTorch holds them (derived by hand for the tiny Llama: h 128, 8
 * heads of 16, 2 KV heads, gated MLP 352, two RMSNorm weights a layer, untied): autograd
 * makes a .grad for each as its op runs backward, gate, up and down (128 x 352) and the
 * norms with the MLP, then o (128 x 128), then q (128 x 128), k and v (128 x 32); foreach
 * AdamW's sqrt makes one temporary for each trainable tensor; a ZeRO-2 partition is one
 * buffer a layer. */
static void test_per_tensor(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_FP32, 32, 2);
    vl_timeline t;
    vl_framework foreach = *fw("hf"); /* the Trainer's AdamW before PyTorch 2.8 */
    vl_framework_on_torch(&foreach, VL_TORCH_2_7);
    build(&m, &s, &foreach, &t);
    /* the layer's tensors, q, k, v, o, gate, up, down and the norms, as born in backward */
    static const uint64_t elems[] = {16384, 4096, 4096, 16384, 45056, 45056, 45056, 256};
    static const int born[] = {4, 5, 6, 7, 3, 0, 1, 2};
    size_t i = first_event_of(&t, "backward layer 2"), k = 0, attn = 0;
    for (; i < t.n_events && strcmp(vl_timeline_phase(&t, i), "backward layer 2") == 0; i++) {
        if (t.events[i].kind != VL_EV_ALLOC)
            continue;
        if (strcmp(t.events[i].what, ATTN_WORKSPACE) == 0)
            attn = k;
        if (strcmp(t.events[i].what, "layer gradients") == 0) {
            assert_true(k < sizeof born / sizeof *born);
            assert_int_equal(t.events[i].bytes, 4 * elems[born[k]]);
            k++;
        }
    }
    assert_int_equal(k, sizeof born / sizeof *born);
    /* o's before attention's own backward, q's, k's and v's after it */
    assert_int_equal(attn, 5);
    uint64_t temps = 0, n = 0;
    for (i = first_event_of(&t, "optimizer step"); i < t.n_events; i++)
        if (t.events[i].kind == VL_EV_ALLOC && t.events[i].component == VL_TL_OPTIM_TEMP) {
            temps += t.events[i].bytes;
            n++;
        }
    assert_int_equal(n, 3 * 8 + 2);                  /* each layer's 8, the head, the embedding */
    assert_int_equal(temps, 4 * t.sum.par.params);   /* fp32: 4 B an element, every parameter */
    vl_timeline_free(&t);
    /* the fused kernel, the Trainer's default now, steps in place: no temporaries */
    build(&m, &s, fw("hf"), &t);
    for (i = 0; i < t.n_events; i++)
        assert_int_not_equal(t.events[i].component, VL_TL_OPTIM_TEMP);
    /* a gated MLP's product at work: its gradient and both factors', 3 x s x b x f x 4 B */
    k = 0;
    for (i = first_event_of(&t, "backward layer 2");
         i < t.n_events && strcmp(vl_timeline_phase(&t, i), "backward layer 2") == 0; i++)
        if (t.events[i].kind == VL_EV_ALLOC &&
            strcmp(t.events[i].what, MLP_WORKSPACE) == 0) {
            assert_int_equal(t.events[i].bytes, 4 * 64 * 352);
            k++;
        }
    assert_int_equal(k, 3);
    vl_timeline_free(&t);

    /* autocast casts each matrix on its own: 16-bit copies of the 7 (q's, k's and v's
     * named as made before the attention), the norms stay fp32 */
    s.precision = VL_BF16_AMP;
    build(&m, &s, fw("hf"), &t);
    k = 0;
    for (i = first_event_of(&t, "forward layer 1");
         i < t.n_events && strcmp(vl_timeline_phase(&t, i), "forward layer 1") == 0; i++)
        if (t.events[i].kind == VL_EV_ALLOC &&
            strncmp(t.events[i].what, "16-bit weight copies", 20) == 0) {
            assert_true(k < 7);
            assert_string_equal(t.events[i].what,
                                k < 3   ? "16-bit weight copies (autocast), q's, k's or v's"
                                : k < 4 ? "16-bit weight copies (autocast)"
                                        : "16-bit weight copies (autocast), the MLP's");
            assert_int_equal(t.events[i].bytes, 2 * elems[k]);
            k++;
        }
    assert_int_equal(k, 7);
    vl_timeline_free(&t);
    s.precision = VL_FP32;

    s.gpus = 2;
    s.zero = 2;
    build(&m, &s, fw("hf"), &t);
    k = 0;
    for (i = first_event_of(&t, "backward layer 2");
         i < t.n_events && strcmp(vl_timeline_phase(&t, i), "backward layer 2") == 0; i++)
        k += t.events[i].kind == VL_EV_ALLOC && strcmp(t.events[i].what, "layer gradients") == 0;
    assert_int_equal(k, 1);
    vl_timeline_free(&t);
}

/* --zero 3 as FSDP shards (hf) and as DeepSpeed does (deepspeed); an MoE block's experts
 * one at a time (hf) or grouped (megatron). */
static void test_sharding_and_experts(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train_zero3(VL_BF16, 32, 2);
    vl_timeline t;
    uint64_t bytes = 0;
    /* FSDP: nothing for gradients at the step's start; each layer's 7 matrices and the
     * rest (one flat tensor under ZeRO: 3 x 45056 + 2 x 16384 + 2 x 4096 + 256 elements,
     * 2 B each) reduce-scattered into a shard of half; AdamW foreach, as the Trainer steps
     * it before PyTorch 2.8 */
    vl_framework foreach = *fw("hf");
    vl_framework_on_torch(&foreach, VL_TORCH_2_7);
    build(&m, &s, &foreach, &t);
    assert_int_equal(allocs_in(&t, "step start (the state kept between steps)",
                               "gradient partition", &bytes), 0);
    assert_int_equal(allocs_in(&t, "step start (the state kept between steps)",
                               "ZeRO reduce bucket", &bytes), 0);
    assert_int_equal(allocs_in(&t, "backward layer 1", "gradient shard (reduce-scattered)", &bytes),
                     1);
    assert_int_equal(bytes, 2 * (3 * 45056 + 2 * 16384 + 2 * 4096 + 256) / 2);
    /* a layer gathered as its forward runs (forward_prefetch=False); in backward the layer
     * before it too (BACKWARD_PRE): the last layer's backward gathers itself and layer 1 */
    const char *layer = "gathered layer parameters";
    assert_int_equal(allocs_in(&t, "forward layer 0", layer, &bytes), 1);
    assert_int_equal(allocs_in(&t, "backward layer 2", layer, &bytes), 2);
    assert_int_equal(allocs_in(&t, "backward layer 1", layer, &bytes), 1);
    /* foreach AdamW over FSDP's flat parameters: a sqrt temporary a layer's shard, the
     * head's and the embedding's */
    int n = 0;
    for (size_t i = first_event_of(&t, "optimizer step"); i < t.n_events; i++)
        if (t.events[i].kind == VL_EV_ALLOC && t.events[i].component == VL_TL_OPTIM_TEMP) {
            if (n++ == 0)
                assert_int_equal(t.events[i].bytes, t.sum.bpp.moments / 2 *
                                                        ((3 * 45056 + 2 * 16384 + 2 * 4096 + 256) / 2));
        }
    assert_int_equal(n, 3 + 2);
    /* FSDP's root unit, the embeddings, final norm and head, (2 x 3000 x 128 + 128) x 2 B,
     * gathered as the forward starts and freed as backward ends: alive through both */
    const char *root = "FSDP root unit's parameters, gathered until backward ends";
    assert_int_equal(allocs_in(&t, "forward embedding", root, &bytes), 1);
    assert_int_equal(bytes, (2 * 3000 * 128 + 128) * 2);
    assert_int_equal(allocs_in(&t, "loss", "gathered head", &bytes), 0);
    assert_int_equal(allocs_in(&t, "loss backward", "gathered head", &bytes), 0);
    size_t freed = 0;
    for (size_t i = 0; i < t.n_events; i++)
        if (t.events[i].kind == VL_EV_FREE && strcmp(t.events[i].what, root) == 0)
            freed = i;
    assert_string_equal(vl_timeline_phase(&t, freed), "backward embedding");
    vl_timeline_free(&t);
    /* DeepSpeed: the partition allocated once, a reduce bucket, no shard per layer; the
     * head gathered for its own forward and backward */
    build(&m, &s, fw("deepspeed"), &t);
    assert_int_equal(allocs_in(&t, "loss", "gathered head", &bytes), 1);
    assert_int_equal(allocs_in(&t, "forward embedding", root, &bytes), 0);
    assert_int_equal(allocs_in(&t, "step start (the state kept between steps)",
                               "gradient partition", &bytes), 1);
    assert_int_equal(bytes, t.sum.bytes[VL_C_GRADIENTS]);
    assert_int_equal(allocs_in(&t, "backward layer 1", "gradient shard (reduce-scattered)", &bytes),
                     0);
    vl_timeline_free(&t);

    /* 4 experts, 2 a token, s x b = 120 tokens: one at a time, an expert's gated product
     * holds 3 tensors of 60 tokens x 352 x 2 B; grouped, 3 of all 240 routed tokens' */
    m.arch.experts = 4;
    m.arch.experts_per_token = 2;
    s = train(VL_BF16, 40, 3);
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(allocs_in(&t, "backward layer 1", MLP_WORKSPACE, &bytes), 3);
    assert_int_equal(bytes, 60 * 352 * 2);
    vl_timeline_free(&t);
    build(&m, &s, fw("megatron"), &t);
    assert_int_equal(allocs_in(&t, "backward layer 1", MLP_WORKSPACE, &bytes), 3);
    assert_int_equal(bytes, 240 * 352 * 2);
    vl_timeline_free(&t);
}

/* LoRA under FSDP with reentrant checkpointing: the adapters are units of their own, so a
 * layer's unit is frozen and FSDP's reshard hook on its recomputed input keeps that input
 * and its gradient (s x b x h x 2 B each in bf16) until backward ends; each layer's input
 * freed with its backward otherwise (non-reentrant, full fine-tuning, DeepSpeed). */
static void test_fsdp_holds_frozen_inputs(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train_zero3(VL_BF16, 32, 2);
    s.recompute = VL_RECOMPUTE_FULL;
    s.lora_rank = 8;
    const uint64_t input = 32 * 2 * 128 * 2;
    const char *held = "layer input's gradient, held by FSDP's reshard hook";
    vl_framework x = *fw("hf");
    x.checkpoint_reentrant = true;
    vl_timeline t;
    build(&m, &s, &x, &t);
    static const char *const layers[] = {"backward layer 2", "backward layer 1",
                                         "backward layer 0"};
    for (int l = 0; l < 3; l++) {
        assert_int_equal(event_bytes(&t, layers[l], held), input);
        assert_string_equal(freed_in(&t, layers[l], held), "backward embedding");
        /* BACKWARD_PRE's prefetch lands on an adapter's unit: one layer gathered at a time */
        assert_int_equal(allocs_in(&t, layers[l], "gathered layer parameters", &(uint64_t){0}),
                         1);
    }
    assert_string_equal(freed_in(&t, "forward layer 1", "checkpointed layer input"),
                        "backward embedding");
    /* as backward ends, every layer's input and its gradient are alive at once */
    uint64_t alive[VL_N_TL_COMPONENTS], before[VL_N_TL_COMPONENTS];
    alive_before(&t, first_event_of(&t, "backward embedding"), alive);
    vl_timeline_free(&t);
    x.checkpoint_reentrant = false; /* the hf profile's: non-reentrant */
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "backward layer 0", held, &(uint64_t){0}), 0);
    assert_string_equal(freed_in(&t, "forward layer 1", "checkpointed layer input"),
                        "backward layer 2");
    alive_before(&t, first_event_of(&t, "backward embedding"), before);
    vl_timeline_free(&t);
    assert_int_equal(alive[VL_TL_ACTIVATIONS] - before[VL_TL_ACTIVATIONS], 3 * input);
    assert_int_equal(alive[VL_TL_TRANSIENT] - before[VL_TL_TRANSIENT], 3 * input);
    /* full fine-tuning (the units train), DeepSpeed (no FSDP units): nothing held */
    x.checkpoint_reentrant = true;
    s.lora_rank = 0;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "backward layer 0", held, &(uint64_t){0}), 0);
    vl_timeline_free(&t);
    s.lora_rank = 8;
    x = *fw("deepspeed");
    x.checkpoint_reentrant = true;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "backward layer 0", held, &(uint64_t){0}), 0);
    vl_timeline_free(&t);
    /* --use-reentrant over the release's: transformers 4.48 checkpoints reentrant unless a
     * Trainer passes use_reentrant=False, the current release does not unless told to */
    static const struct {
        vl_transformers release;
        vl_choice flag;
        bool reentrant;
    } want[] = {{VL_TF_4_48, VL_CHOICE_AUTO, true}, {VL_TF_4_48, VL_CHOICE_FALSE, false},
                {VL_TF_CURRENT, VL_CHOICE_AUTO, false},
                {VL_TF_CURRENT, VL_CHOICE_TRUE, true}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_settings_take_framework(&s, fw("hf"));
        s.transformers = want[i].release;
        s.use_reentrant = want[i].flag;
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        assert_int_equal(f.checkpoint_reentrant, want[i].reentrant);
    }
}

/* FSDP's MixedPrecision under bf16 autocast (accelerate's, the hf profile's), by hand for
 * the tiny Llama (a layer: q 128 x 128, k and v 128 x 32, o 128 x 128, gate, up and down
 * 128 x 352, two norms of 128: 176,384 parameters; LoRA rank 8 on q and v: 2,048 + 1,280
 * adapter parameters a layer) at 32 tokens x 2 on 2 GPUs: the layers run on 16-bit weights,
 * so a checkpointed input is 32 x 2 x 128 x 2 B, a gathered layer 2 B a parameter, cast
 * shard by shard (half of it each), and autocast copies no weight; without it, 4 B and
 * fp32 gathers. */
static void test_fsdp_mixed_precision(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train_zero3(VL_BF16_AMP, 32, 2);
    s.recompute = VL_RECOMPUTE_FULL;
    s.lora_rank = 8;
    const char *cast = "shard cast to 16 bits for the all-gather (MixedPrecision)";
    const char *frozen = "frozen weights' 16-bit casts (their matmuls')";
    const uint64_t layer = 176384 + 2048 + 1280;
    static const struct {
        const char *framework;
        vl_choice flag;
        bool on;
    } runs[] = {{"hf", VL_CHOICE_AUTO, true},       {"hf", VL_CHOICE_FALSE, false},
                {"pytorch", VL_CHOICE_AUTO, false}, {"pytorch", VL_CHOICE_TRUE, true},
                {"litgpt", VL_CHOICE_AUTO, false}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        s.fsdp_mixed_precision = runs[r].flag;
        vl_timeline t;
        build(&m, &s, fw(runs[r].framework), &t);
        const uint64_t w = runs[r].on ? 2 : 4;
        assert_int_equal(event_bytes(&t, "forward layer 0", "checkpointed layer input"),
                         32 * 2 * 128 * w);
        assert_int_equal(event_bytes(&t, "forward layer 0", "gathered layer parameters"),
                         layer * w);
        assert_int_equal(alloc_sum(&t, "forward layer 0", cast), runs[r].on ? layer * w / 2 : 0);
        const char *copy = "16-bit weight copies (autocast)";
        const uint64_t copies = alloc_sum(&t, "backward layer 2", frozen) +
                                alloc_sum(&t, "backward layer 2", copy);
        assert_int_equal(copies > 0, !runs[r].on);
        /* the root unit's embeddings, final norm and head, gathered as the layers are */
        assert_int_equal(event_bytes(&t, "forward embedding",
                                     "FSDP root unit's parameters, gathered until backward ends"),
                         (2 * 3000 * 128 + 128) * w);
        vl_timeline_free(&t);
    }
    /* full fine-tuning on 4 GPUs: a layer's gradients are made in 16 bits (2 B each) and
     * reduce-scattered into fp32 shards (a quarter of the parameters, 4 B each) */
    s.lora_rank = 0;
    s.gpus = 4;
    s.fsdp_mixed_precision = VL_CHOICE_AUTO;
    vl_timeline t;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(alloc_sum(&t, "backward layer 2", "layer gradients"), 176384 * 2);
    assert_int_equal(alloc_sum(&t, "backward layer 2", "gradient shard (reduce-scattered)"),
                     176384 / 4 * 4);
    vl_timeline_free(&t);
    /* inert: not autocast (bf16-mixed), not FSDP (ZeRO-1; DeepSpeed) */
    vl_settings off[3] = {s, s, s};
    off[0].precision = VL_BF16_MIXED;
    off[1].zero = 1;
    const vl_framework *f[3] = {fw("hf"), fw("hf"), fw("deepspeed")};
    for (int i = 0; i < 3; i++) {
        vl_timeline a, b;
        build(&m, &off[i], f[i], &a);
        off[i].fsdp_mixed_precision = VL_CHOICE_TRUE;
        build(&m, &off[i], f[i], &b);
        assert_int_equal(a.peak.allocated, b.peak.allocated);
        assert_int_equal(a.n_events, b.n_events);
        vl_timeline_free(&a);
        vl_timeline_free(&b);
    }
}

/* vLLM's V0 sampler with top-k/top-p, derived by hand for the tiny model in bf16: the
 * engine's hidden states (b x s x h x 2), the caller's bf16 logits (b x V x 2), the fp32
 * copy, the sorted values and int64 indices, and torch.sort's scratch by the number of rows
 * (SortStable.cu): 2 rows sort as int2 pairs in and out with a key output and cub's third
 * key and value buffers (8 + 8 + 4 + 4 + 8 = 32 B a logit); 128 rows, segmented, int64
 * start indices and cub's buffers (8 + 4 + 8); 1 row, one row's worth of those. */
static void test_vllm_sampler(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    static const struct { uint64_t batch, scratch; } rows[] = {
        {2, 32 * 2 * 1000}, {128, 20 * 128 * 1000}, {1, 20 * 1000}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        vl_settings s;
        vl_settings_default(&s);
        s.mode = VL_MODE_INFER;
        s.weight_dtype = s.kv_dtype = VL_DT_BF16;
        s.seq = 16; /* 128 x 16: the V0 budget of 2048, one step */
        s.gen = 0;
        s.batch = rows[r].batch;
        vl_timeline t;
        build(&m, &s, fw("vllm-v0"), &t);
        const uint64_t bv = rows[r].batch * 1000, hidden = rows[r].batch * 16 * 64 * 2;
        assert_int_equal(event_bytes(&t, "prefill",
                                     "the forward's last hidden states (held by the engine)"),
                         hidden);
        assert_int_equal(event_bytes(&t, "prefill", "sampler: the sort's scratch (indices, cub "
                                                    "buffers)"), rows[r].scratch);
        assert_int_equal(event_bytes(&t, "prefill", "sampler: top-k mask (bool)"), bv);
        /* during the sort: everything above at once */
        uint64_t alive[VL_N_TL_COMPONENTS];
        size_t i = 0;
        while (strcmp(t.events[i].what, "sampler: the sort's scratch (indices, cub buffers)"))
            i++;
        vl_timeline_alive(&t, i, alive);
        assert_int_equal(alive[VL_TL_TRANSIENT],
                         hidden + 2 * bv + 4 * bv + 4 * bv + 8 * bv + rows[r].scratch);
        /* while the filtered logits are scattered back: the masks, softmax and sum too */
        while (strcmp(t.events[i].what, "sampler: filtered logits, unsorted"))
            i++;
        vl_timeline_alive(&t, i, alive);
        assert_int_equal(alive[VL_TL_TRANSIENT], hidden + 2 * bv + 4 * bv + 4 * bv + 8 * bv +
                                                     bv + 4 * bv + 4 * bv + bv + 4 * bv);
        vl_timeline_free(&t);

        /* the V1 engine filters in place: no sort; at the last of its fp32 tensors (probs
         * and the exponential noise) the hidden states, the 16-bit logits, their fp32 copy
         * and both are alive */
        build(&m, &s, vllm_at(VL_VLLM_0_19), &t);
        size_t last = 0;
        for (i = 0; i < t.n_events; i++) {
            assert_string_not_equal(t.events[i].what, "sampler: sorted logits");
            if (strcmp(t.events[i].what, "sampler: fp32 probabilities") == 0 &&
                t.events[i].kind == VL_EV_ALLOC)
                last = i;
        }
        vl_timeline_alive(&t, last, alive);
        assert_int_equal(alive[VL_TL_TRANSIENT], hidden + 2 * bv + 4 * bv + 2 * 4 * bv);
        vl_timeline_free(&t);
    }
}

/* The tensors named `what`: how many allocations and frees, the bytes of the last, the
 * first allocation's event and the last free's. */
typedef struct {
    size_t allocs, frees, born, gone;
    uint64_t bytes;
} lifetime;

static lifetime lifetime_of(const vl_timeline *t, const char *what)
{
    lifetime l = {0};
    for (size_t i = 0; i < t->n_events; i++) {
        const vl_event *e = &t->events[i];
        if (strcmp(e->what, what) != 0)
            continue;
        l.bytes = e->bytes;
        if (e->kind == VL_EV_ALLOC) {
            if (!l.allocs++)
                l.born = i;
        } else {
            l.frees++;
            l.gone = i;
        }
    }
    return l;
}

/* vLLM V1's Triton top-k/top-p buffer: min(b, SMs) programs, a vocabulary row of fp32
 * each, in a buffer of that many rows rounded up to a power of 2 but at most the SMs
 * (apply_top_k_top_p_triton); allocated at the first sampling, cached through the decode
 * steps, gone only when the run ends; none when the GPU's SMs are unknown. */
static void test_vllm_triton_buffer(void **state)
{
    (void)state;
    vl_model m = tiny_gpt(); /* V = 1,000 */
    static const struct { uint64_t sms, batch, rows; } cases[] = {
        {6, 2, 2}, {6, 5, 6}, {8, 5, 8}, {132, 1024, 132}, {0, 5, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        vl_settings s = serve(8, 4, cases[c].batch); /* 1024 x 8: the budget, one step */
        s.weight_dtype = s.kv_dtype = VL_DT_BF16;
        vl_runtime rt = hopper;
        rt.sms = cases[c].sms;
        vl_timeline t;
        char err[256];
        assert_true(vl_timeline_build(&m, &s, fw("vllm"), &rt, &t, err, sizeof err));
        const lifetime l =
            lifetime_of(&t, "sampler: top-k/top-p buffer, a vocabulary row a program (cached)");
        assert_int_equal(l.allocs, cases[c].rows ? 1 : 0);
        assert_int_equal(l.frees, l.allocs);
        if (l.allocs) {
            assert_int_equal(l.bytes, cases[c].rows * 1000 * 4);
            assert_string_equal(vl_timeline_phase(&t, l.born), "prefill");
            assert_int_equal(l.gone, t.n_events - 1);
        }
        vl_timeline_free(&t);
    }
    /* --sampler flashinfer: FlashInfer's kernels keep no rows and sort nothing, whatever
     * the release; its masked logits and their softmax are the two fp32 copies */
    vl_settings s = serve(8, 4, 5);
    s.weight_dtype = s.kv_dtype = VL_DT_BF16;
    vl_settings_take_framework(&s, fw("vllm"));
    s.vllm = VL_VLLM_0_10;
    s.sampler = VL_SAMPLER_FLASHINFER;
    vl_runtime rt = hopper;
    rt.sms = 132;
    vl_framework f;
    vl_framework_of(&s, &rt, &f);
    vl_timeline t;
    char err[256];
    assert_true(vl_timeline_build(&m, &s, &f, &rt, &t, err, sizeof err));
    assert_int_equal(
        lifetime_of(&t, "sampler: top-k/top-p buffer, a vocabulary row a program (cached)").allocs,
        0);
    assert_int_equal(lifetime_of(&t, "sampler: sorted logits").allocs, 0);
    const lifetime p = lifetime_of(&t, "sampler: fp32 probabilities");
    assert_int_equal(p.allocs, 2 * lifetime_of(&t, "sampler: fp32 logits, whole vocabulary").allocs);
    assert_int_equal(p.bytes, 5 * 1000 * 4);
    vl_timeline_free(&t);
}

/* vLLM V1's fused MoE over 2 GPUs: the tiny Llama with 4 experts of 352, 2 a token, so
 * N = 352 (gate and up, 176 each on a GPU) and h = 128; a 100-token prompt, b = 2, bf16,
 * in one forward of 200 tokens.  Its two kept workspaces: 200 x 2 x (max(176, 128) +
 * max(352, 128)) x 2 = 422,400 bytes, allocated in the prefill and alive to the end.  A
 * block's own working tensor is its output, 200 x 128 x 2, so the forward's workspace is
 * the residual stream in and out (2 x 200 x 128 x 2 = 102,400) + 51,200, with the layer's
 * input that vLLM's loop holds and the block's output beside it (102,400 again): 256,000;
 * the V0 engine's fused experts keep nothing and count the routed MLP, 3 x 352 a token:
 * 102,400 + 200 x 3 x 352 x 2 + 102,400 = 627,200. */
static void test_vllm_moe_workspace(void **state)
{
    (void)state;
    vl_model m = tiny_moe();
    vl_settings s = serve(100, 3, 2);
    s.gpus = 2;
    vl_timeline t;
    build(&m, &s, fw("vllm"), &t);
    assert_int_equal(t.sum.inf.moe_kept_bytes, 422400);
    assert_int_equal(event_bytes(&t, "prefill", "forward workspace"), 256000);
    const lifetime l = lifetime_of(&t, "fused MoE workspaces (shared by the layers, kept)");
    assert_int_equal(l.allocs, 1);
    assert_int_equal(l.frees, 1);
    assert_int_equal(l.bytes, 422400);
    assert_string_equal(vl_timeline_phase(&t, l.born), "prefill");
    assert_true(l.gone > first_event_of(&t, "decode step 2")); /* 3 tokens: 2 decode steps */
    /* the steady-state view holds them in both phases */
    assert_int_equal(t.sum.inf.prefill.workspace, 256000 + 422400);
    vl_timeline_free(&t);

    build(&m, &s, fw("vllm-v0"), &t);
    assert_int_equal(t.sum.inf.moe_kept_bytes, 0);
    assert_int_equal(event_bytes(&t, "prefill", "forward workspace"), 627200);
    vl_timeline_free(&t);
    /* a dense model keeps nothing */
    vl_model d = tiny_llama();
    build(&d, &s, fw("vllm"), &t);
    assert_int_equal(t.sum.inf.moe_kept_bytes, 0);
    vl_timeline_free(&t);
}

/* --paged-optimizer: Llama 2 7B, LoRA r = 64 on q and v: each A (64 x 4096) and B (4096 x
 * 64) has 262,144 elements, over bitsandbytes' 1e5, so all 32 x 2 x 2 x 262,144 =
 * 33,554,432 adapter parameters' states are managed memory: on the GPU (device) but not
 * allocated or reserved, and the step is a fused kernel, without foreach's temporaries.
 * At r = 8 each tensor has 32,768: none is paged, and the step still has no temporaries. */
static void test_paged_optimizer(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = train(VL_BF16_MIXED, 1024, 1);
    s.lora_rank = 64;
    vl_timeline plain, paged;
    build(&m, &s, fw("hf"), &plain);
    assert_int_equal(plain.peak.managed, 0);
    s.paged_optimizer = true;
    build(&m, &s, fw("hf"), &paged);
    const uint64_t states = plain.sum.bytes[VL_C_OPTIMIZER];
    assert_int_equal(states, 33554432ULL * plain.sum.bpp.optimizer);
    assert_int_equal(paged.peak.managed, states);
    assert_int_equal(paged.peak.device, paged.peak.reserved + paged.peak.context + states);
    assert_int_equal(paged.end[VL_TL_OPTIMIZER], 0);
    assert_int_equal(plain.end[VL_TL_OPTIMIZER], states);
    assert_true(paged.peak.allocated < plain.peak.allocated);
    for (size_t i = 0; i < paged.n_events; i++)
        assert_int_not_equal(paged.events[i].component, VL_TL_OPTIM_TEMP);
    vl_timeline_free(&plain);
    vl_timeline_free(&paged);

    s.lora_rank = 8;
    build(&m, &s, fw("hf"), &paged);
    assert_int_equal(paged.peak.managed, 0);
    assert_int_equal(paged.end[VL_TL_OPTIMIZER], paged.sum.bytes[VL_C_OPTIMIZER]);
    for (size_t i = 0; i < paged.n_events; i++)
        assert_int_not_equal(paged.events[i].component, VL_TL_OPTIM_TEMP);
    vl_timeline_free(&paged);

    /* full training: every matrix and embedding is paged, the 65 RMSNorm weights of 4096
     * (32 layers x 2 + the final norm) are not */
    s.lora_rank = 0;
    build(&m, &s, fw("hf"), &paged);
    assert_int_equal(paged.peak.managed,
                     (paged.sum.P - 65 * 4096ULL) * paged.sum.bpp.optimizer);
    vl_timeline_free(&paged);

    /* SGD has no paged variant: the flag changes nothing */
    s.optimizer = VL_SGD_MOMENTUM;
    s.lora_rank = 64;
    build(&m, &s, fw("hf"), &paged);
    assert_int_equal(paged.peak.managed, 0);
    vl_timeline_free(&paged);
}

/* An AWQ checkpoint of a model with tied embeddings, under transformers: AutoAWQ saved
 * lm_head.weight beside the embeddings, so loading gives the output layer a 16-bit copy of
 * its own, vocab x hidden x 2 B (Qwen2.5 0.5B's shape: 151,936 x 896 x 2 = 272,269,312 B),
 * until the loader ties the weights again.  A one-token prompt peaks there: the weights and
 * the copy (Qwen's speed benchmark of its AWQ checkpoint: 0.68 GiB, the weights 0.43).
 * None for an untied model, GPTQ's checkpoints, or vLLM, whose loader skips the key. */
static void test_awq_tied_head(void **state)
{
    (void)state;
    vl_model m = model_of((vl_arch){.hidden = 896, .layers = 24, .heads = 14, .kv_heads = 2,
                                    .ffn = 4864, .vocab = 151936, .max_positions = 32768,
                                    .position = VL_POS_ROPE, .mlp = VL_MLP_GATED,
                                    .norm = VL_NORM_RMSNORM, .tie_embeddings = true});
    vl_settings s = serve(1, 1, 1);
    s.weight_dtype = VL_DT_INT4;
    s.weight_format = VL_WFMT_AWQ;
    const char *what = "the checkpoint's own copy of the tied output layer, until the loader "
                       "ties it";
    vl_timeline t;
    build(&m, &s, fw("hf"), &t);
    const uint64_t copy = event_bytes(&t, "load weights", what);
    assert_int_equal(copy, 151936ULL * 896 * 2);
    assert_string_equal(t.peak.phase, "load weights");
    assert_int_equal(t.peak.tensors, t.sum.bytes[VL_C_WEIGHTS] + copy);
    vl_timeline_free(&t);
    struct {
        bool tied;
        vl_weight_format format;
        const char *framework;
    } none[] = {{false, VL_WFMT_AWQ, "hf"},
                {true, VL_WFMT_GPTQ, "hf"},
                {true, VL_WFMT_AWQ, "vllm"}};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        m.arch.tie_embeddings = none[i].tied;
        s.weight_format = none[i].format;
        vl_settings r = s;
        vl_settings_take_framework(&r, fw(none[i].framework));
        bool ovf = false;
        assert_int_equal(vl_awq_tied_head_copy(&m.arch, &r, true, &ovf), 0);
    }
    m.arch.tie_embeddings = true;
    s.weight_format = VL_WFMT_AWQ;
    bool ovf = false;
    assert_int_equal(vl_awq_tied_head_copy(&m.arch, &s, false, &ovf), 0); /* no logits here */
}

/* Lightning's 4-bit layers (litgpt) on Llama 2 7B, by hand.  Serving a one-token prompt,
 * the step's peak is the loading: every weight (test_litgpt_bnb4 in test_inference.c) and
 * the 16-bit copy of the matrix being quantized, the 32000 x 4096 head's 262,144,000 B.
 * QLoRA in bf16: the head, 4-bit too, is dequantized to fp16 and cast, 4 x 131,072,000 B,
 * while it computes the logits and again for the gradient of each of the loss's eight
 * chunks of 128 positions; each layer's matrix the same way, 4 x 45,088,768 B at the
 * largest.  transformers' head stays 16-bit: no such event. */
static void test_lightning_bnb4(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = serve(1, 0, 1);
    s.weight_dtype = VL_DT_BNB4;
    vl_timeline t;
    build(&m, &s, fw("litgpt"), &t);
    const uint64_t copy = event_bytes(&t, "load weights",
                                      "a matrix in 16 bits while bitsandbytes quantizes it");
    assert_int_equal(copy, 2 * 131072000ULL);
    assert_string_equal(t.peak.phase, "load weights");
    assert_int_equal(t.peak.tensors, t.sum.bytes[VL_C_WEIGHTS] + copy);
    vl_timeline_free(&t);

    s = train(VL_BF16, 1024, 1);
    s.lora_rank = 8;
    s.qlora = true;
    build(&m, &s, fw("litgpt"), &t);
    const char *head = "4-bit output layer dequantized to 16 bits";
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "loss", head, &bytes), 1);
    assert_int_equal(bytes, 4 * 131072000ULL);
    assert_int_equal(allocs_in(&t, "loss backward", head, &bytes), 8);
    assert_int_equal(bytes, 4 * 131072000ULL);
    assert_int_equal(allocs_in(&t, "forward layer 0", "4-bit matrix dequantized to 16 bits",
                               &bytes), 1);
    assert_int_equal(bytes, 4 * 45088768ULL);
    vl_timeline_free(&t);
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(allocs_in(&t, "loss", head, &bytes), 0);
    vl_timeline_free(&t);
}

/* LLM.int8() (bnb8) under transformers, Llama 2 7B by hand: loading quantizes the MLP's
 * 4096 x 11008 matrix from an fp16 copy into two int8 copies, 3 x 45,088,768 B beside every
 * weight, the step's peak for a one-token prompt; the first forward lays the same matrix out
 * for the tensor cores, 45,088,768 B, once (no decode step does it again). */
static void test_bnb8_load(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = serve(1, 4, 1);
    s.weight_dtype = VL_DT_BNB8;
    vl_timeline t;
    build(&m, &s, fw("hf"), &t);
    const uint64_t copy = event_bytes(
        &t, "load weights", "a matrix in 16 bits and transposed in int8 while bitsandbytes quantizes it");
    assert_int_equal(copy, 3 * 45088768ULL);
    assert_string_equal(t.peak.phase, "load weights");
    assert_int_equal(t.peak.tensors, t.sum.bytes[VL_C_WEIGHTS] + copy);
    const char *layout = "a matrix in the tensor cores' int8 layout beside its row-major bytes";
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "prefill", layout, &bytes), 1);
    assert_int_equal(bytes, 45088768ULL);
    int made = 0;
    for (size_t i = 0; i < t.n_events; i++)
        made += t.events[i].kind == VL_EV_ALLOC && strcmp(t.events[i].what, layout) == 0;
    assert_int_equal(made, 1);
    vl_timeline_free(&t);
}

/* LitGPT freezes the embeddings and asks their output for no gradient: the tiny Llama under
 * LoRA (r 8 on q and v, dropout 0.05) in bf16, s = 64, b = 2, by hand.  Each layer's
 * attention norm keeps its input upcast to fp32, 4 x 128 x 128 = 65,536 B, and the fused
 * q, k, v adapter its dropout's bool mask, 128 x 128 = 16,384 B: the first layer keeps
 * neither, hf's (enable_input_require_grads) both.  Under parallel attention the MLP reads
 * the same input: the first layer's MLP keeps nothing, its activation's input (2 x 128 x 352
 * B) included, until an adapter is on the MLP. */
static void test_first_layer_frozen(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    s.lora_targets = (1u << VL_LORA_Q) | (1u << VL_LORA_V);
    s.lora_dropout = 50000;
    const char *norm = "attention norm input, upcast to fp32";
    uint64_t bytes = 0;
    vl_timeline t;
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(allocs_in(&t, "forward layer 0", norm, &bytes), 0);
    assert_int_equal(allocs_in(&t, "forward layer 0", VL_LORA_MASKS, &bytes), 0);
    assert_int_equal(allocs_in(&t, "forward layer 1", norm, &bytes), 1);
    assert_int_equal(bytes, 4 * 128 * 128ULL);
    assert_int_equal(allocs_in(&t, "forward layer 1", VL_LORA_MASKS, &bytes), 1);
    assert_int_equal(bytes, 128 * 128ULL);
    assert_int_equal(allocs_in(&t, "forward layer 0", "MLP gate projection output", &bytes), 1);
    vl_timeline_free(&t);
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(allocs_in(&t, "forward layer 0", norm, &bytes), 1);
    vl_timeline_free(&t);

    m.arch.parallel_attention = true;
    const char *gate = "MLP gate projection output";
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(allocs_in(&t, "forward layer 0", gate, &bytes), 0);
    assert_int_equal(allocs_in(&t, "forward layer 1", gate, &bytes), 1);
    assert_int_equal(bytes, 2 * 128 * 352ULL);
    vl_timeline_free(&t);
    s.lora_targets |= 1u << VL_LORA_UP;
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(allocs_in(&t, "forward layer 0", gate, &bytes), 1);
    vl_timeline_free(&t);

    /* eager attention over separate q, k, v: q . k^T keeps Q for K's gradient, which the
     * first layer's frozen k without an adapter does not ask for (2 x 128 x 128 B of Q in
     * the layers after it); an adapter on k asks */
    m.arch.parallel_attention = false;
    s.lora_targets = (1u << VL_LORA_Q) | (1u << VL_LORA_V);
    vl_framework x = *fw("pytorch");
    x.frozen_embeddings_grad = false;
    s.attention = VL_ATTN_EAGER;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "forward layer 0", "Q", &bytes), 0);
    assert_int_equal(allocs_in(&t, "forward layer 1", "Q", &bytes), 1);
    assert_int_equal(bytes, 2 * 128 * 128ULL);
    vl_timeline_free(&t);
    s.lora_targets |= 1u << VL_LORA_K;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "forward layer 0", "Q", &bytes), 1);
    vl_timeline_free(&t);
}

/* Parallel attention under QLoRA (bitsandbytes 0.42 keeping its inputs), the tiny Llama in
 * bf16, s = 64, b = 2: with one norm a layer (Falcon-7B, Phi) the MLP's 4-bit input is the
 * attention's; GPT-NeoX's parallel residual normalizes for each, and the MLP's 4-bit layer
 * keeps its own, 2 x 128 x 128 = 32,768 B a layer. */
static void test_parallel_norms(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    m.arch.parallel_attention = true;
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    s.qlora = true;
    vl_framework x = *fw("hf");
    x.nf4_keeps_input = true;
    const char *in = "4-bit MLP input";
    uint64_t bytes = 0;
    vl_timeline t;
    m.arch.norms_per_layer = 1;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "forward layer 1", in, &bytes), 0);
    vl_timeline_free(&t);
    m.arch.norms_per_layer = 2;
    build(&m, &s, &x, &t);
    assert_int_equal(allocs_in(&t, "forward layer 1", in, &bytes), 1);
    assert_int_equal(bytes, 2 * 128 * 128ULL);
    vl_timeline_free(&t);
}

/* LitGPT's fit() keeps each iteration's logits until the next forward returns, and with
 * them the graph, where bitsandbytes 0.42's MatMul4Bit keeps its input on its context.  The
 * tiny Llama, QLoRA (r 8 on q, v) in bf16, s = 64, b = 2, by hand: the logits, which
 * Fabric returns in fp32, are 128 x 3,000 x 4 B = 1,536,000; each layer keeps its q, k,
 * v input, MLP input and down's input, 2 x (16,384 + 16,384 + 45,056) B, and the
 * attention output, 2 x 16,384 B:
 * 188,416 B a layer, 3 layers, less the first layer's q, k, v input (from the frozen
 * embeddings, no grad: 32,768), plus the 4-bit head's input (32,768): 565,248 B.  Both
 * live from the step's start until the forward has made the new logits, which then stay,
 * with what backward leaves of their graph, into the next step. */
/* Whether "logits cast for the loss" is made before the step before's logits go. */
static bool logits_cast_before_drop(const vl_timeline *t, const char *kept)
{
    size_t cast = SIZE_MAX, drop = SIZE_MAX;
    for (size_t i = 0; i < t->n_events; i++) {
        const vl_event *e = &t->events[i];
        if (e->kind == VL_EV_ALLOC && cast == SIZE_MAX &&
            strcmp(e->what, "logits cast for the loss") == 0)
            cast = i;
        if (e->kind == VL_EV_FREE && drop == SIZE_MAX && strcmp(e->what, kept) == 0)
            drop = i;
    }
    assert_true(cast != SIZE_MAX && drop != SIZE_MAX);
    return cast < drop;
}

static void test_loop_keeps_logits(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    s.qlora = true;
    vl_framework f = *fw("litgpt");
    vl_framework_on_bitsandbytes(&f, VL_BNB_0_42);
    const char *start = "step start (the state kept between steps)";
    const char *logits = "the micro-batch before's logits, which the loop keeps";
    const char *graph = "the 4-bit layers' inputs its graph keeps (bitsandbytes before 0.43.2)";
    vl_timeline t;
    build(&m, &s, &f, &t);
    assert_int_equal(event_bytes(&t, start, logits), 1536000);
    assert_int_equal(event_bytes(&t, start, graph), 565248);
    assert_string_equal(freed_in(&t, start, logits), "loss");
    assert_string_equal(freed_in(&t, start, graph), "loss");
    assert_int_equal(t.end[VL_TL_ACTIVATIONS], 1536000 + 565248);
    check_invariants(&t, &s);
    const uint64_t kept = t.peak.allocated;
    /* Fabric casts the logits to fp32 in the model's forward (_FabricModule.forward,
     * convert_output), and fit() rebinds them, dropping the step before's, once it returns:
     * after the cast; where the loss casts them, the loop has rebound them before */
    assert_true(logits_cast_before_drop(&t, logits));
    vl_timeline_free(&t);
    vl_framework own = f;
    own.logits_cast_in_model = false;
    build(&m, &s, &own, &t);
    assert_false(logits_cast_before_drop(&t, logits));
    vl_timeline_free(&t);
    /* bitsandbytes 0.43.2 and later keep no input: the logits alone */
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(event_bytes(&t, start, logits), 1536000);
    assert_int_equal(allocs_in(&t, start, graph, NULL), 0);
    vl_timeline_free(&t);
    /* a run's first step, and a loop that drops its outputs (the Trainer's), keep neither;
     * the loop still holds the step's own logits through their backward */
    s.loop_keeps_logits = VL_KEEP_LOGITS_FALSE;
    build(&m, &s, &f, &t);
    assert_int_equal(allocs_in(&t, start, logits, NULL), 0);
    assert_int_equal(t.end[VL_TL_ACTIVATIONS], 0);
    assert_string_equal(freed_in(&t, "loss", "logits cast for the loss"), "backward embedding");
    assert_true(t.peak.allocated <= kept);
    vl_timeline_free(&t);
    s.loop_keeps_logits = VL_KEEP_LOGITS_AUTO;
    vl_framework hf = *fw("hf");
    vl_framework_on_bitsandbytes(&hf, VL_BNB_0_42);
    build(&m, &s, &hf, &t);
    assert_int_equal(allocs_in(&t, start, logits, NULL), 0);
    vl_timeline_free(&t);
}

/* A step function that holds the model's outputs in a local (--loop-keeps-logits backward)
 * under the Trainer's framework, whose loop holds none: the tiny Llama in fp32, s = 64,
 * b = 2, its logits 128 x 3,000 x 4 B = 1,536,000 live from the loss through the loss's
 * backward, where the peak is, and no longer; none are kept into the next step.  The peak
 * is then the Trainer's own (the log-probabilities and their gradients beside them) with
 * the logits added: its live tensors' bytes, byte for byte (allocated may differ by the
 * blocks the caching allocator reuses whole). */
static void test_loop_binds_logits(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_FP32, 64, 2);
    vl_timeline t;
    build(&m, &s, fw("hf"), &t);
    assert_string_equal(freed_in(&t, "loss", "logits"), "loss");
    assert_string_equal(t.peak.phase, "loss backward");
    const uint64_t trainer = t.peak.tensors;
    vl_timeline_free(&t);
    s.loop_keeps_logits = VL_KEEP_LOGITS_BACKWARD;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(event_bytes(&t, "loss", "logits"), 1536000);
    assert_string_equal(freed_in(&t, "loss", "logits"), "backward embedding");
    assert_int_equal(allocs_in(&t, "step start (the state kept between steps)",
                               "the micro-batch before's logits, which the loop keeps", NULL),
                     0);
    assert_string_equal(t.peak.phase, "loss backward");
    assert_int_equal(t.peak.tensors, trainer + 1536000);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
}

/* loss_dtype auto (the hf profile's): the class's own loss code at the release, read in the
 * wheels.  Llama's forward returned logits.float() until 4.46 and ForCausalLMLoss upcasts
 * after; GPT-2's and GPT-NeoX's own CrossEntropyLoss read the logits as they were until
 * ForCausalLMLoss took over in 4.49; GPT-J's forward cast them; BERT's heads read them as
 * they are at every release.  A 16-bit BERT without autocast then runs the cross-entropy in
 * 16 bits: its masked-LM loss makes no fp32 cast of the logits, its log-probabilities are
 * 2 B a logit (the tiny model's 64 x 2 positions x 3,000 x 2 B = 768,000). */
static void test_loss_dtype_auto(void **state)
{
    (void)state;
    static const struct {
        vl_model_type type;
        bool encoder;
        vl_transformers v;
        vl_loss_dtype want;
    } cases[] = {
        {VL_MT_LLAMA, false, VL_TF_4_44, VL_LOSS_FP32},
        {VL_MT_LLAMA, false, VL_TF_CURRENT, VL_LOSS_FP32},
        {VL_MT_GPT2, false, VL_TF_4_48, VL_LOSS_AUTO},
        {VL_MT_GPT2, false, VL_TF_4_49, VL_LOSS_FP32},
        {VL_MT_GPT_NEOX, false, VL_TF_4_48, VL_LOSS_AUTO},
        {VL_MT_GPTJ, false, VL_TF_4_48, VL_LOSS_FP32},
        {VL_MT_BERT, true, VL_TF_4_36, VL_LOSS_AUTO},
        {VL_MT_BERT, true, VL_TF_CURRENT, VL_LOSS_AUTO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_framework f = *fw("hf");
        assert_int_equal(f.loss_dtype, VL_LOSS_AUTO);
        vl_framework_on_transformers(&f, cases[i].v);
        vl_arch a = tiny_llama().arch;
        a.model_type = cases[i].type;
        if (cases[i].encoder) {
            a.norm_position = VL_NORM_POST;
            a.embedding_norm = true;
        }
        vl_framework_on_class(&f, &a, cases[i].v, true);
        assert_int_equal(f.loss_dtype, cases[i].want);
    }
    vl_model m = tiny_llama();
    m.arch.model_type = VL_MT_BERT;
    m.arch.norm_position = VL_NORM_POST;
    m.arch.embedding_norm = true;
    vl_settings s = train(VL_BF16, 64, 2);
    s.head = VL_HEAD_MLM;
    vl_framework f = *fw("hf");
    f.head = VL_HEAD_MLM;
    vl_timeline t;
    build(&m, &s, &f, &t);
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "loss", "logits cast for the loss", &bytes), 0);
    assert_int_equal(allocs_in(&t, "loss", "log-probabilities (for the loss)", &bytes), 1);
    assert_int_equal(bytes, 768000);
    vl_timeline_free(&t);
    f.loss_dtype = VL_LOSS_FP32; /* --loss-dtype fp32: the cast, and fp32 log-probabilities */
    build(&m, &s, &f, &t);
    assert_int_equal(allocs_in(&t, "loss", "logits cast for the loss", &bytes), 1);
    assert_int_equal(allocs_in(&t, "loss", "log-probabilities (for the loss)", &bytes), 1);
    assert_int_equal(bytes, 1536000);
    vl_timeline_free(&t);
}

/* Under autocast the Trainer's accelerate casts the model's 16-bit outputs to fp32 as its
 * forward returns (the hf profile's outputs_to_fp32): the tiny model's masked-LM logits,
 * 128 positions x 3,000 x 4 B = 1,536,000, made and dropped at the loss; a loop that runs
 * torch.autocast itself (--outputs-fp32 false) makes none. */
static void test_outputs_fp32(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    m.arch.model_type = VL_MT_BERT;
    m.arch.norm_position = VL_NORM_POST;
    m.arch.embedding_norm = true;
    vl_settings s = train(VL_FP16_AMP, 64, 2);
    vl_framework f = *fw("hf");
    f.head = VL_HEAD_MLM;
    const char *cast = "the model's outputs cast to fp32 (accelerate, under autocast)";
    vl_timeline t;
    build(&m, &s, &f, &t);
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "loss", cast, &bytes), 1);
    assert_int_equal(bytes, 1536000);
    vl_timeline_free(&t);
    s.outputs_fp32 = VL_CHOICE_FALSE;
    build(&m, &s, &f, &t);
    assert_int_equal(allocs_in(&t, "loss", cast, &bytes), 0);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
}

/* A loop that binds a forward's outputs in inference (`_ = model(**inputs)` in a loop,
 * --loop-keeps-logits true with --gen 0): the forward before's live through this one.
 * The tiny Llama under transformers 4.34, prompts of 64 tokens, batch 2, by hand: Llama's
 * forward returned every position's logits in fp32, 128 x 3,000 x 4 = 1,536,000 B, and its
 * K and V in bf16, 3 layers x 2 x 2 KV heads x 16 x 2 B = 384 B a token, 49,152 B; kept from
 * before the prefill until it ends, and at its peak on top of what the forward alone holds. */
static void test_forward_outputs_kept(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = serve(64, 0, 2);
    s.transformers = VL_TF_4_34;
    vl_framework f = *fw("hf");
    vl_framework_on_transformers(&f, VL_TF_4_34);
    const char *kept = "the forward before's logits, K and V, which the loop keeps";
    vl_timeline t;
    build(&m, &s, &f, &t);
    const uint64_t alone = t.peak.tensors;
    assert_string_equal(t.peak.phase, "prefill");
    vl_timeline_free(&t);
    s.loop_keeps_logits = VL_KEEP_LOGITS_TRUE;
    build(&m, &s, &f, &t);
    assert_int_equal(event_bytes(&t, "the forward before's outputs, which the loop keeps", kept),
                     1536000 + 49152);
    assert_string_equal(freed_in(&t, "the forward before's outputs, which the loop keeps", kept),
                        "prefill");
    assert_string_equal(t.peak.phase, "prefill");
    assert_int_equal(t.peak.tensors, alone + 1536000 + 49152);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    /* generate drops each forward's outputs itself: nothing kept with tokens to generate */
    s.gen = 4;
    build(&m, &s, &f, &t);
    assert_false(vl_loop_keeps_logits(&s));
    vl_timeline_free(&t);
}

/* An adapter on the output layer (--lora-targets q,v,head), the tiny Llama in bf16, s = 64,
 * b = 2, r = 8, by hand: the logits are 128 x 3,000 x 2 B = 768,000; the head computes
 * base(x) + B(A(x)) * scaling, so B's output and its scaled copy, 768,000 each, come and go
 * beside the base's logits, and the sum takes their place (two "logits" made); it keeps its
 * input, 128 x 128 x 2 = 32,768, and x.A, 128 x 8 x 2 = 2,048, until the loss's backward,
 * which scales the logits' gradient for it (768,000); its gradients, 8 x (128 + 3,000) x
 * 2 B = 50,048, are born there, and the layers' are those of q and v alone. */
static void test_head_adapter(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    vl_timeline qv;
    build(&m, &s, fw("pytorch"), &qv);
    s.lora_targets |= 1u << VL_LORA_HEAD;
    vl_timeline t;
    build(&m, &s, fw("pytorch"), &t);
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t, "loss", "the output layer's adapter: B(A(x))", &bytes), 1);
    assert_int_equal(bytes, 768000);
    assert_int_equal(allocs_in(&t, "loss", "the output layer's adapter: B(A(x)) scaled", &bytes),
                     1);
    assert_int_equal(bytes, 768000);
    assert_int_equal(allocs_in(&t, "loss", "logits", &bytes), 2);
    assert_int_equal(allocs_in(&qv, "loss", "logits", &bytes), 1);
    assert_int_equal(event_bytes(&t, "loss", "output layer's adapter input"), 32768);
    assert_int_equal(event_bytes(&t, "loss", "output layer's adapter x.A (r wide)"), 2048);
    assert_int_equal(allocs_in(&t, "loss backward",
                               "the output layer's adapter: the logits' gradient scaled", &bytes),
                     1);
    assert_int_equal(bytes, 768000);
    assert_int_equal(event_bytes(&t, "loss backward", "head gradients"), 50048);
    assert_int_equal(allocs_in(&qv, "loss backward", "head gradients", &bytes), 0);
    assert_int_equal(alloc_sum(&t, "backward layer 1", "layer gradients"),
                     alloc_sum(&qv, "backward layer 1", "layer gradients"));
    /* the peak moves by no more than the two pieces, what the adapter keeps, and its
     * weights, gradients and AdamW's two moments, 2 + 2 + 4 B a parameter in bf16 */
    assert_true(t.peak.allocated > qv.peak.allocated);
    assert_true(t.peak.allocated <= qv.peak.allocated + 2 * 768000 + 32768 + 2048 + 4 * 50048);
    check_invariants(&t, &s);
    vl_timeline_free(&t);
    vl_timeline_free(&qv);
}

/* The most bytes of live tensors after an event of phase. */
static uint64_t phase_tensors(const vl_timeline *t, const char *phase)
{
    uint64_t most = 0;
    for (size_t i = first_event_of(t, phase);
         i < t->n_events && strcmp(vl_timeline_phase(t, i), phase) == 0; i++)
        if (t->events[i].tensors > most)
            most = t->events[i].tensors;
    return most;
}

/* A loss in chunks (loss_chunk, LitGPT's), by hand on the tiny Llama in bf16 at s = 300,
 * b = 1, with litgpt's logits cast to fp32 and held by the loop: chunks of 128, 128 and 44
 * positions, whose fp32 log-probabilities are 4 x 3,000 x 128 = 1,536,000 B and 528,000 B.
 * Backward runs the last chunk first, making its log-probabilities' gradient and the
 * logits', then dropping the first and its log-probabilities; the logits' gradients wait
 * for the head.  At the middle chunk that holds chunks 0 and 1's log-probabilities, chunk
 * 2's gradient and chunk 1's two, 6,672,000 B, where the whole loss holds three tensors of
 * 3,600,000: the loss backward's peak is 4,128,000 B lower in chunks.  The gradients reach
 * the head cast back to 16 bits a chunk at a time, the first chunk's 2 x 3,000 x 128 B. */
static void test_chunked_loss(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    vl_settings s = train(VL_BF16, 300, 1);
    vl_framework f = *fw("litgpt");
    vl_timeline t[2];
    build(&m, &s, &f, &t[0]);
    f.loss_chunk = 0;
    build(&m, &s, &f, &t[1]);
    uint64_t bytes = 0;
    assert_int_equal(allocs_in(&t[0], "loss", "log-probabilities (for the loss), a chunk's",
                               &bytes), 3);
    assert_int_equal(bytes, 528000);
    assert_int_equal(allocs_in(&t[0], "loss backward", "gradient of the logits, a chunk's",
                               &bytes), 3);
    assert_int_equal(bytes, 1536000);
    assert_int_equal(allocs_in(&t[0], "loss backward", "gradient of the logits, cast", &bytes), 3);
    assert_int_equal(bytes, 2 * 3000 * 128);
    assert_int_equal(allocs_in(&t[1], "loss backward", "gradient of the logits", &bytes), 1);
    assert_int_equal(bytes, 3600000);
    assert_int_equal(phase_tensors(&t[1], "loss backward") - phase_tensors(&t[0], "loss backward"),
                     4128000);
    for (int i = 0; i < 2; i++) {
        check_invariants(&t[i], &s);
        vl_timeline_free(&t[i]);
    }
}

/* A transformers model's outputs in training (use_cache), by hand on the tiny Llama (3
 * layers, 2 KV heads of 16 for 8 query heads) under bf16 autocast, s = 64, b = 2.  Its SDPA
 * keeps K and V repeated to the query heads, so the K and V the cache holds as they were
 * made are 2 x 128 x 32 x 2 B = 16,384 B a layer beside them, from the layer's forward
 * until the loop has read the loss.  Until 4.47 Llama's class returned them as tuples,
 * which the Trainer's accelerate casts to fp32, with the 16-bit logits the class returns
 * from 4.46: 3 x 2 x 128 x 32 x 4 B = 98,304 B and 128 x 3,000 x 4 B = 1,536,000 B; 4.48's
 * Cache object it leaves as it is; 4.44 made no cache in training, and its logits were
 * fp32 already.  Gradient checkpointing turns use_cache off, and so does --use-cache false;
 * under DeepSpeed accelerate casts nothing, and in pure bf16 neither; a model that is not
 * transformers' has no use_cache. */
static void test_model_outputs(void **state)
{
    (void)state;
    vl_model m = tiny_llama();
    const char *held = "K and V as made, held by the model's outputs (use_cache)";
    const char *cast = "the model's outputs cast to fp32 (accelerate, under autocast)";
    const struct {
        const char *framework;
        vl_precision p;
        vl_transformers v;
        bool full;
        vl_choice use_cache;
        uint64_t held, cast;
    } want[] = {
        {"hf", VL_BF16_AMP, VL_TF_4_47, false, VL_CHOICE_AUTO, 16384, 98304 + 1536000},
        {"hf", VL_BF16_AMP, VL_TF_4_48, false, VL_CHOICE_AUTO, 16384, 1536000},
        {"hf", VL_BF16_AMP, VL_TF_4_44, false, VL_CHOICE_AUTO, 0, 0},
        {"hf", VL_BF16_AMP, VL_TF_4_40, false, VL_CHOICE_AUTO, 16384, 98304},
        {"hf", VL_BF16_AMP, VL_TF_4_47, true, VL_CHOICE_AUTO, 0, 1536000},
        {"hf", VL_BF16_AMP, VL_TF_4_47, false, VL_CHOICE_FALSE, 0, 1536000},
        {"deepspeed", VL_BF16_AMP, VL_TF_4_47, false, VL_CHOICE_AUTO, 16384, 0},
        {"hf", VL_BF16, VL_TF_4_47, false, VL_CHOICE_AUTO, 16384, 0},
        {"pytorch", VL_BF16_AMP, VL_TF_4_47, false, VL_CHOICE_TRUE, 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        vl_settings s = train(want[i].p, 64, 2);
        vl_settings_take_framework(&s, fw(want[i].framework));
        s.transformers = want[i].v;
        if (want[i].full)
            s.recompute = VL_RECOMPUTE_FULL;
        s.use_cache = want[i].use_cache;
        vl_timeline t;
        char err[128];
        assert_true(vl_timeline_for(&m, &s, &hopper, &t, err, sizeof err));
        uint64_t bytes = 0;
        assert_int_equal(allocs_in(&t, "forward layer 1", held, &bytes), want[i].held ? 1 : 0);
        if (want[i].held) {
            assert_int_equal(bytes, want[i].held);
            assert_string_equal(freed_in(&t, "forward layer 1", held), "loss");
        }
        assert_int_equal(allocs_in(&t, "loss", cast, &bytes), want[i].cast ? 1 : 0);
        if (want[i].cast)
            assert_int_equal(bytes, want[i].cast);
        check_invariants(&t, &s);
        vl_timeline_free(&t);
    }
}

/* What each class's training forward returned of its K and V under use_cache, as read in
 * the wheels' modeling_<type>.py (the base model's forward): legacy tuples, then a Cache
 * object; 4.44's `not self.training` made none for Llama's family, not for Falcon's or
 * GPT-2's classes; Gemma 2 and encoders make none; a framework whose models are not
 * transformers' has no use_cache. */
static void test_kv_outputs_by_class(void **state)
{
    (void)state;
    const struct {
        vl_model_type type;
        vl_transformers v;
        vl_kv_out want;
    } want[] = {
        {VL_MT_LLAMA, VL_TF_4_31, VL_KV_OUT_TUPLES},   {VL_MT_LLAMA, VL_TF_4_43, VL_KV_OUT_TUPLES},
        {VL_MT_LLAMA, VL_TF_4_44, VL_KV_OUT_NONE},     {VL_MT_LLAMA, VL_TF_4_45, VL_KV_OUT_TUPLES},
        {VL_MT_LLAMA, VL_TF_4_47, VL_KV_OUT_TUPLES},   {VL_MT_LLAMA, VL_TF_4_48, VL_KV_OUT_CACHE},
        {VL_MT_LLAMA, VL_TF_CURRENT, VL_KV_OUT_CACHE}, {VL_MT_QWEN2, VL_TF_4_44, VL_KV_OUT_NONE},
        {VL_MT_QWEN2_MOE, VL_TF_4_53, VL_KV_OUT_TUPLES},
        {VL_MT_QWEN2_MOE, VL_TF_4_54, VL_KV_OUT_CACHE},
        {VL_MT_FALCON, VL_TF_4_44, VL_KV_OUT_TUPLES},  {VL_MT_FALCON, VL_TF_4_54, VL_KV_OUT_CACHE},
        {VL_MT_GPT2, VL_TF_4_55, VL_KV_OUT_TUPLES},    {VL_MT_GPT2, VL_TF_4_56, VL_KV_OUT_CACHE},
        {VL_MT_GPT_NEOX, VL_TF_4_47, VL_KV_OUT_TUPLES},
        {VL_MT_GPT_NEOX, VL_TF_4_48, VL_KV_OUT_CACHE}, {VL_MT_QWEN3, VL_TF_4_51, VL_KV_OUT_CACHE},
        {VL_MT_GEMMA2, VL_TF_4_47, VL_KV_OUT_NONE},    {VL_MT_GEMMA3, VL_TF_CURRENT, VL_KV_OUT_NONE},
        {VL_MT_BERT, VL_TF_4_40, VL_KV_OUT_NONE},
    };
    vl_arch a = tiny_llama().arch;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        a.model_type = want[i].type;
        assert_int_equal(vl_kv_outputs(fw("hf"), &a, want[i].v), want[i].want);
    }
    a.model_type = VL_MT_LLAMA;
    assert_int_equal(vl_kv_outputs(fw("litgpt"), &a, VL_TF_4_40), VL_KV_OUT_NONE);
}

/* LitGPT's GPT gives lm_head a matrix of its own, into which its converter copies a tied
 * checkpoint's embeddings: the tiny GPT (tied, vocab 1,000 x hidden 64) has 64,000 more
 * parameters under litgpt than under hf, and in bf16 inference 128,000 more bytes of
 * weights; an untied model the same under both. */
static void test_untied_head(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = train(VL_BF16, 32, 2);
    vl_timeline hf, lit;
    build(&m, &s, fw("hf"), &hf);
    build(&m, &s, fw("litgpt"), &lit);
    assert_int_equal(lit.sum.P, hf.sum.P + 64000);
    vl_settings_take_framework(&s, fw("litgpt")); /* and says so */
    char notes[4][VL_NOTE_LEN];
    assert_true(vl_notes(&s, &m, &lit.sum, notes, 4) >= 1);
    assert_non_null(strstr(notes[0], "held twice, 64,000 params more"));
    vl_timeline_free(&hf);
    vl_timeline_free(&lit);
    s = serve(1, 0, 1);
    build(&m, &s, fw("hf"), &hf);
    build(&m, &s, fw("litgpt"), &lit);
    assert_int_equal(lit.sum.bytes[VL_C_WEIGHTS], hf.sum.bytes[VL_C_WEIGHTS] + 128000);
    vl_timeline_free(&hf);
    vl_timeline_free(&lit);
    m = tiny_llama();
    build(&m, &s, fw("hf"), &hf);
    build(&m, &s, fw("litgpt"), &lit);
    assert_int_equal(lit.sum.P, hf.sum.P);
    vl_timeline_free(&hf);
    vl_timeline_free(&lit);
}

/* What forward layer l keeps for backward: the live tensors after its last event less
 * those after the layer before's. */
static uint64_t kept_by_layer(const vl_timeline *t, int l)
{
    char phase[2][VL_PHASE_LEN];
    size_t last[2] = {0, 0};
    for (int i = 0; i < 2; i++)
        snprintf(phase[i], sizeof phase[i], "forward layer %d", l - 1 + i);
    for (size_t e = 0; e < t->n_events; e++)
        for (int i = 0; i < 2; i++)
            if (strcmp(vl_timeline_phase(t, e), phase[i]) == 0)
                last[i] = e;
    assert_true(last[0] > 0 && last[1] > last[0]);
    return t->events[last[1]].tensors - t->events[last[0]].tensors;
}

/* A Llama-like model of 3 layers 256 wide, 8 heads of 32 and kv_heads KV heads, FFN 688. */
static vl_model llama_256(uint64_t kv_heads)
{
    return model_of((vl_arch){.hidden = 256, .layers = 3, .heads = 8, .kv_heads = kv_heads,
                              .ffn = 688, .vocab = 512, .max_positions = 4096,
                              .position = VL_POS_ROPE, .mlp = VL_MLP_GATED,
                              .norm = VL_NORM_RMSNORM});
}

/* LitGPT's attention and LoRA (litgpt/model.py and lora.py at 5895df10), by hand, on a
 * 256-wide layer of 8 heads of 32 (FFN 688), batch 2 x 64 tokens in bf16 (sb = 128,
 * sbh = 32,768), LoRA of rank 8 on q and v with lora_dropout:
 *   RMSNorm inputs upcast to fp32, 2 x 4sbh; the adapters' one dropped copy, 2sbh, and its
 *   mask, sbh (one lora_A for q and v); Q, K and flash's output, 3 x 2sbh, and its row
 *   statistics, 4 x 8 x sb; gate, up and their product, 3 x 2 x sb x 688; x.A, 2 x sb x 16;
 *   V a view of the qkv output, which flash keeps whole, 2 x sb x 768; zero_pad's
 *   index_copy source, the q and v adapters' output, 2 x sb x 512: 1,421,312 B.
 * Counted from LitGPT's own modules on the CPU (saved-tensor hooks, with flash's saves and
 * CUDA's bool dropout mask stood in), the layer keeps 1,425,408 B: these and lora_ind, the
 * index tensor, 4,096 B.  With 2 KV heads, K and V are expanded to the query heads and
 * copied (2 x 2sbh; the qkv output is no longer kept) and the pad is 2 x sb x 320; with one,
 * the expand is a view, so V keeps the qkv output (2 x sb x 320) and the pad is 2 x sb x
 * 288.  Adapting q, k and v needs no pad; an RMSNorm in bf16 (lit-gpt before 2023-10-24)
 * keeps 2sbh a norm. */
static void test_litgpt_layer(void **state)
{
    (void)state;
    vl_model m = llama_256(8);
    vl_settings s = train(VL_BF16, 64, 2);
    s.lora_rank = 8;
    s.lora_dropout = 50000; /* 0.05, in millionths */
    const uint64_t sb = 128, sbh = sb * 256;
    const uint64_t common = 2 * 4 * sbh + 2 * sbh + sbh + 3 * 2 * sbh + 4 * 8 * sb +
                            3 * 2 * sb * 688 + 2 * sb * 16;
    vl_timeline t;
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(kept_by_layer(&t, 1), common + 2 * sb * 768 + 2 * sb * 512);
    assert_int_equal(kept_by_layer(&t, 1), 1421312);
    vl_timeline_free(&t);
    m.arch.kv_heads = 2;
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(kept_by_layer(&t, 1), common + 2 * sbh + 2 * sb * 320);
    vl_timeline_free(&t);
    m.arch.kv_heads = 1;
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(kept_by_layer(&t, 1), common + 2 * sb * 320 + 2 * sb * 288);
    vl_timeline_free(&t);
    m.arch.kv_heads = 8;
    s.lora_targets = (1u << VL_LORA_Q) | (1u << VL_LORA_K) | (1u << VL_LORA_V);
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(kept_by_layer(&t, 1), common + 2 * sb * 8 + 2 * sb * 768);
    vl_timeline_free(&t);
    s.lora_targets = (1u << VL_LORA_Q) | (1u << VL_LORA_V);
    s.norm_upcast = VL_CHOICE_FALSE;
    build(&m, &s, fw("litgpt"), &t);
    assert_int_equal(kept_by_layer(&t, 1), 1421312 - 2 * 2 * sbh);
    vl_timeline_free(&t);
    /* PEFT's separate q and v adapters under hf: a dropout each, 2 x (2sbh + sbh), and no
     * view or pad (hf's norm keeps the same fp32 input); the two padded sequences' mask in
     * bf16, SDPA's copy (test_sdpa_padding_mask), 2 x 64 x 64 x 2 */
    s.norm_upcast = VL_CHOICE_AUTO;
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(kept_by_layer(&t, 1), common + 2 * sbh + sbh + 2 * sbh + 2 * 64 * 64 * 2);
    vl_timeline_free(&t);
}

/* transformers' SDPA path before 4.54 (or under PyTorch before 2.5) hands SDPA K and V
 * repeated to the query heads, copies SDPA keeps: test_litgpt_layer's layer without LoRA
 * under hf, 16-bit (norms 2 x 4sbh, QKV and MLP inputs 2 x 2sbh, Q and flash's output
 * 2 x 2sbh, row statistics 4 x 8 x sb, gate, up, product and down's input 4 x 2 x sb x
 * 688, the normalized tensors 2 x 2sbh), with 2 KV heads: K and V 2sbh each, not 2 x sb
 * x 64, and beside them the K and V as made, 2 x 2 x sb x 64, which the model's outputs
 * hold (use_cache, test_model_outputs).  One KV head's repeat is a view of it: K and V
 * stay 2 x sb x 32.  transformers 4.54 on PyTorch 2.5 passes enable_gqa instead. */
static void test_hf_repeat_kv(void **state)
{
    (void)state;
    vl_model m = llama_256(2);
    vl_settings s = train(VL_BF16, 64, 2);
    s.padded = VL_CHOICE_FALSE;
    const uint64_t sb = 128, sbh = sb * 256;
    const uint64_t rest = 2 * 4 * sbh + 2 * 2 * sbh + 2 * 2 * sbh + 4 * 8 * sb +
                          4 * 2 * sb * 688 + 2 * 2 * sbh;
    vl_framework f = *fw("hf");
    vl_framework_on_transformers(&f, VL_TF_4_53);
    vl_timeline t;
    build(&m, &s, &f, &t);
    assert_int_equal(kept_by_layer(&t, 1), rest + 2 * 2 * sbh + 2 * 2 * sb * 64);
    vl_timeline_free(&t);
    m.arch.kv_heads = 1;
    build(&m, &s, &f, &t);
    assert_int_equal(kept_by_layer(&t, 1), rest + 2 * 2 * sb * 32);
    vl_timeline_free(&t);
    m.arch.kv_heads = 2;
    f = *fw("hf");
    vl_framework_on_torch(&f, VL_TORCH_2_4);
    build(&m, &s, &f, &t);
    assert_int_equal(kept_by_layer(&t, 1), rest + 2 * 2 * sbh + 2 * 2 * sb * 64);
    vl_timeline_free(&t);
    build(&m, &s, fw("hf"), &t);
    assert_int_equal(kept_by_layer(&t, 1), rest + 2 * 2 * sb * 64);
    vl_timeline_free(&t);
    /* flash_attention_2 takes the KV heads as they are */
    f = *fw("hf");
    vl_framework_on_transformers(&f, VL_TF_4_53);
    f.attention = VL_ATTN_FLASH;
    build(&m, &s, &f, &t);
    assert_int_equal(kept_by_layer(&t, 1), rest + 2 * 2 * sb * 64);
    vl_timeline_free(&t);
    /* a micro-batch padded to its longest (--padded; auto: more than one sequence) hands
     * SDPA a mask, under which transformers repeats them at every release
     * (use_gqa_in_sdpa), and which SDPA copies to bf16 for the layer to keep, b x s x s x 2
     * (test_sdpa_padding_mask); one sequence, or --padded false, gets enable_gqa: the same
     * 128 tokens either way */
    static const struct {
        vl_choice padded;
        uint64_t batch;
        bool repeats;
    } pads[] = {{VL_CHOICE_AUTO, 2, true},
                {VL_CHOICE_AUTO, 1, false},
                {VL_CHOICE_FALSE, 2, false},
                {VL_CHOICE_TRUE, 1, true}};
    for (size_t i = 0; i < sizeof pads / sizeof *pads; i++) {
        vl_settings p = train(VL_BF16, sb / pads[i].batch, pads[i].batch);
        vl_settings_take_framework(&p, fw("hf"));
        p.padded = pads[i].padded;
        assert_int_equal(vl_settings_padded(&p), pads[i].repeats);
        vl_framework_of(&p, &hopper, &f);
        build(&m, &p, &f, &t);
        const uint64_t seq = sb / pads[i].batch;
        assert_int_equal(kept_by_layer(&t, 1),
                         rest + (pads[i].repeats ? 2 * 2 * sbh + sb * seq * 2 : 0) +
                             2 * 2 * sb * 64);
        vl_timeline_free(&t);
        /* LitGPT's models are not transformers': the mask changes nothing */
        vl_settings_take_framework(&p, fw("litgpt"));
        vl_framework lit;
        vl_framework_of(&p, &hopper, &lit);
        assert_int_equal(lit.kv_repeat, fw("litgpt")->kv_repeat);
        /* serving pads nothing the training flag knows of */
        p.mode = VL_MODE_INFER;
        assert_false(vl_settings_padded(&p));
    }
}

/* A padded micro-batch's mask under transformers' SDPA (vl_sdpa_padding_mask), by hand on
 * llama_256 (8 KV heads: no repeat to tell apart), 2 sequences of s tokens in bf16 unless
 * said: the model's mask b x 1 x s x s, made with the embeddings, and what each layer keeps
 * of it beyond the unpadded run.  From 4.53 Llama's mask is bools, 2 x 64 x 64, which SDPA
 * converts to the query's bf16 at each layer, 2 x 64 x 64 x 2; before, floats in the
 * residual stream's dtype, handed on as they are (bf16), cast once a layer by autocast
 * (fp32 under bf16-amp: the mask 4 B an element, the copy 2), or padded a layer to rows of
 * 8 (s = 60: 2 x 60 x 64 x 2). */
static void test_sdpa_padding_mask(void **state)
{
    (void)state;
    static const char what[] = "padding mask (b x 1 x s x s)";
    static const struct {
        const char *framework;
        vl_transformers v;
        vl_precision p;
        vl_attention attention;
        uint64_t seq, mask, copy;
    } runs[] = {
        {"hf", VL_TF_CURRENT, VL_BF16, VL_ATTN_SDPA, 64, 2 * 64 * 64, 2 * 64 * 64 * 2},
        {"hf", VL_TF_4_53, VL_BF16, VL_ATTN_SDPA, 64, 2 * 64 * 64, 2 * 64 * 64 * 2},
        {"hf", VL_TF_4_52, VL_BF16, VL_ATTN_SDPA, 64, 2 * 64 * 64 * 2, 0},
        {"hf", VL_TF_4_52, VL_BF16_AMP, VL_ATTN_SDPA, 64, 2 * 64 * 64 * 4, 2 * 64 * 64 * 2},
        {"hf", VL_TF_4_52, VL_BF16, VL_ATTN_SDPA, 60, 2 * 60 * 60 * 2, 2 * 60 * 64 * 2},
        {"hf", VL_TF_CURRENT, VL_BF16, VL_ATTN_FLASH, 64, 0, 0}, /* unpads instead */
        {"litgpt", VL_TF_CURRENT, VL_BF16, VL_ATTN_SDPA, 64, 0, 0},
    };
    const vl_model m = llama_256(8);
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        vl_settings s = train(runs[i].p, runs[i].seq, 2);
        vl_settings_take_framework(&s, fw(runs[i].framework));
        s.transformers = runs[i].v;
        s.attention = runs[i].attention;
        uint64_t mask, copy;
        vl_sdpa_padding_mask(&s, &m.arch, vl_precision_is_amp(s.precision) ? 4 : 2, 2, &mask,
                             &copy, &(bool){false});
        assert_int_equal(mask, runs[i].mask);
        assert_int_equal(copy, runs[i].copy);
        vl_framework f;
        vl_framework_of(&s, &hopper, &f);
        vl_timeline padded, unpadded;
        build(&m, &s, &f, &padded);
        uint64_t bytes = 0;
        assert_int_equal(allocs_in(&padded, "forward embedding", what, &bytes),
                         runs[i].mask != 0);
        assert_int_equal(bytes, runs[i].mask);
        s.padded = VL_CHOICE_FALSE;
        build(&m, &s, &f, &unpadded);
        assert_int_equal(allocs_in(&unpadded, "forward embedding", what, &bytes), 0);
        assert_int_equal(kept_by_layer(&padded, 1) - kept_by_layer(&unpadded, 1),
                         runs[i].copy);
        vl_timeline_free(&padded);
        vl_timeline_free(&unpadded);
        /* the sum counts the copy a layer */
        vl_breakdown with, without;
        assert_null(vl_estimate(&m, &s, &without));
        s.padded = VL_CHOICE_TRUE;
        assert_null(vl_estimate(&m, &s, &with));
        assert_int_equal(with.act.layer_bytes - without.act.layer_bytes, runs[i].copy);
        /* and the report says so */
        char notes[8][VL_NOTE_LEN];
        const int n = vl_notes(&s, &m, &with, notes, 8);
        bool said = false;
        for (int k = 0; k < n; k++)
            said = said || strstr(notes[k], "each layer keeps SDPA's copy of it") != NULL;
        assert_int_equal(said, runs[i].copy != 0);
    }
    /* each class by its own releases (model.h): BERT's padding mask, expanded to every
     * query, floats through 4.57 and bools from 5.0; GPT-2's floats through 4.54, bools
     * from 4.55; Falcon's floats yet */
    static const struct {
        vl_model_type type;
        vl_transformers v;
        uint64_t mask, copy;
    } classes[] = {
        {VL_MT_BERT, VL_TF_4_57, 2 * 64 * 64 * 2, 0},
        {VL_MT_BERT, VL_TF_CURRENT, 2 * 64 * 64, 2 * 64 * 64 * 2},
        {VL_MT_GPT2, VL_TF_4_54, 2 * 64 * 64 * 2, 0},
        {VL_MT_GPT2, VL_TF_4_55, 2 * 64 * 64, 2 * 64 * 64 * 2},
        {VL_MT_FALCON, VL_TF_CURRENT, 2 * 64 * 64 * 2, 0},
    };
    vl_settings s = train(VL_BF16, 64, 2);
    vl_settings_take_framework(&s, fw("hf"));
    uint64_t mask, copy;
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
        vl_arch a = m.arch;
        a.model_type = classes[i].type;
        s.transformers = classes[i].v;
        vl_sdpa_padding_mask(&s, &a, 2, 2, &mask, &copy, &(bool){false});
        assert_int_equal(mask, classes[i].mask);
        assert_int_equal(copy, classes[i].copy);
    }
    /* eager attention's is the causal mask it always makes; serving pads nothing --padded
     * knows of */
    s.transformers = VL_TF_CURRENT;
    s.attention = VL_ATTN_EAGER;
    vl_sdpa_padding_mask(&s, &m.arch, 2, 2, &mask, &copy, &(bool){false});
    assert_int_equal(mask + copy, 0);
    s.attention = VL_ATTN_SDPA;
    s.mode = VL_MODE_INFER;
    vl_sdpa_padding_mask(&s, &m.arch, 2, 2, &mask, &copy, &(bool){false});
    assert_int_equal(mask + copy, 0);
}

static void test_bad_input(void **state)
{
    (void)state;
    vl_model m = tiny_gpt();
    vl_settings s = train(VL_FP32, 32, 2);
    s.zero = 7;
    vl_timeline t;
    char err[200];
    assert_false(vl_timeline_build(&m, &s, fw("hf"), &hopper, &t, err, sizeof err));
    assert_string_equal(err, "--zero must be between 0 and 3");
    vl_timeline_free(&t);
    s = train(VL_FP32, 32, 2);
    vl_framework f = *fw("hf");
    f.head = VL_HEAD_CLS;
    f.labels = 0;
    assert_false(vl_timeline_build(&m, &s, &f, &hopper, &t, err, sizeof err));
    assert_string_equal(err, "--labels must be at least 1");
    vl_timeline_free(&t);
    /* --overhead, when given, replaces the modelled context */
    vl_runtime rt = hopper;
    rt.overhead_given = true;
    s.overhead = 12345;
    assert_true(vl_timeline_build(&m, &s, fw("hf"), &rt, &t, err, sizeof err));
    assert_int_equal(t.peak.device, t.peak.reserved + 12345);
    assert_int_equal(t.peak.lazy_kernels, 0);
    vl_timeline_free(&t);
    /* a serving run loads its kernels lazily too: transformers' generate, all of PyTorch's
     * modules as in training; vLLM, what its profile forward added outside PyTorch (its
     * "non-torch forward increase memory", 0.25 GiB), which its KV budget takes off too */
    s = serve(32, 4, 2);
    assert_true(vl_timeline_build(&m, &s, fw("hf"), &hopper, &t, err, sizeof err));
    assert_int_equal(t.peak.lazy_kernels, 666632192ULL - 287047680ULL);
    assert_int_equal(t.peak.device, t.peak.reserved + 666632192ULL - 20 * MIB);
    vl_timeline_free(&t);
    vl_settings_take_framework(&s, fw("vllm"));
    vl_framework v;
    vl_framework_of(&s, &hopper, &v);
    assert_true(vl_timeline_build(&m, &s, &v, &hopper, &t, err, sizeof err));
    assert_int_equal(t.peak.lazy_kernels, 268435456ULL);
    assert_int_equal(t.peak.device, t.peak.reserved + 287047680ULL - 20 * MIB + 268435456ULL);
    vl_timeline_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator_rounding),
        cmocka_unit_test(test_allocator_split_merge_fragment),
        cmocka_unit_test(test_allocator_many),
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_golden_tiny_gpt),
        cmocka_unit_test(test_backward_stages),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_pytorch_matches_the_sum),
        cmocka_unit_test(test_eager_attention_forward),
        cmocka_unit_test(test_megatron_loss),
        cmocka_unit_test(test_qlora_adapters_fp32),
        cmocka_unit_test(test_mlp_backward_order),
        cmocka_unit_test(test_reentrant_output),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_torch_releases),
        cmocka_unit_test(test_cublas_workspaces),
        cmocka_unit_test(test_logits_by_class),
        cmocka_unit_test(test_transformers_releases),
        cmocka_unit_test(test_encoder),
        cmocka_unit_test(test_frozen_under_autocast),
        cmocka_unit_test(test_zero3_linear),
        cmocka_unit_test(test_tied_gradients),
        cmocka_unit_test(test_optimizer_and_buckets),
        cmocka_unit_test(test_first_step),
        cmocka_unit_test(test_loop_keeps_logits),
        cmocka_unit_test(test_loop_binds_logits),
        cmocka_unit_test(test_forward_outputs_kept),
        cmocka_unit_test(test_loss_dtype_auto),
        cmocka_unit_test(test_outputs_fp32),
        cmocka_unit_test(test_head_adapter),
        cmocka_unit_test(test_chunked_loss),
        cmocka_unit_test(test_model_outputs),
        cmocka_unit_test(test_kv_outputs_by_class),
        cmocka_unit_test(test_untied_head),
        cmocka_unit_test(test_litgpt_layer),
        cmocka_unit_test(test_hf_repeat_kv),
        cmocka_unit_test(test_sdpa_padding_mask),
        cmocka_unit_test(test_lora_adapters_fp32),
        cmocka_unit_test(test_serving),
        cmocka_unit_test(test_engine_kv_pool),
        cmocka_unit_test(test_kv_budget),
        cmocka_unit_test(test_serving_defaults_by_gpu),
        cmocka_unit_test(test_vllm_non_torch),
        cmocka_unit_test(test_communicators),
        cmocka_unit_test(test_sglang),
        cmocka_unit_test(test_vllm_release),
        cmocka_unit_test(test_vllm_v0_release),
        cmocka_unit_test(test_vllm_v0_budget),
        cmocka_unit_test(test_vllm_v2),
        cmocka_unit_test(test_trl_release),
        cmocka_unit_test(test_cuda_release),
        cmocka_unit_test(test_encoder_mask),
        cmocka_unit_test(test_golden_serving),
        cmocka_unit_test(test_all_to_all),
        cmocka_unit_test(test_vllm_sampler),
        cmocka_unit_test(test_vllm_triton_buffer),
        cmocka_unit_test(test_vllm_moe_workspace),
        cmocka_unit_test(test_per_tensor),
        cmocka_unit_test(test_sharding_and_experts),
        cmocka_unit_test(test_fsdp_holds_frozen_inputs),
        cmocka_unit_test(test_fsdp_mixed_precision),
        cmocka_unit_test(test_paged_optimizer),
        cmocka_unit_test(test_lightning_bnb4),
        cmocka_unit_test(test_bnb8_load),
        cmocka_unit_test(test_first_layer_frozen),
        cmocka_unit_test(test_parallel_norms),
        cmocka_unit_test(test_awq_tied_head),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
