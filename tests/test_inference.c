/* test_inference.c: inference memory (HACKING §4.5) against hand-derived figures, and the
 * what-fits solver's answers against the next value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/framework.h"
#include "core/memory.h"
#include "core/timeline.h"
#include "core/solve.h"
#include "core/units.h"

/* the runtime of a GPU of unknown generation, its context modelled */
static const vl_runtime any = {.arch = VL_ARCH_UNKNOWN, .cuda = 1204}; /* CUDA 12.4 */
#include "helpers.h"


static vl_settings infer(void)
{
    vl_settings s;
    vl_settings_default(&s);
    s.mode = VL_MODE_INFER;
    return s;
}

/* KV cache per token in 16-bit: OPT-13B 2 x 40 layers x 5120 x 2 B = 819,200;
 * Llama-2-70B 2 x 80 x 8 KV heads x 128 x 2 B = 327,680 (HACKING §4.5). */
static void test_kv_per_token(void **state)
{
    (void)state;
    vl_model opt = model_of((vl_arch){.hidden = 5120, .layers = 40, .heads = 40, .vocab = 50272,
                                   .ffn = 20480, .max_positions = 2050,
                                   .position = VL_POS_LEARNED, .mlp = VL_MLP_STANDARD,
                                   .norm = VL_NORM_LAYERNORM, .attention_bias = true,
                                   .mlp_bias = true, .tie_embeddings = true});
    vl_model l70 = model_of((vl_arch){.hidden = 8192, .layers = 80, .heads = 64, .kv_heads = 8,
                                   .ffn = 28672, .vocab = 32000});
    vl_settings s = infer();
    vl_breakdown b;
    assert_null(vl_estimate(&opt, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 819200);
    assert_int_equal(b.bytes[VL_C_KV_CACHE], 819200ULL * 2048);
    assert_null(vl_estimate(&l70, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 327680);
    s.kv_dtype = VL_DT_FP8;
    assert_null(vl_estimate(&l70, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 163840);
}

/* Mistral 7B's 4096-token sliding window caps the cache: 2 x 32 x 8 x 128 x 2 B = 131,072 B
 * per token, at most 4096 tokens whatever the prompt and generation. */
static void test_sliding_window(void **state)
{
    (void)state;
    vl_model m = model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                                 .ffn = 14336, .vocab = 32000, .sliding_window = 4096});
    vl_settings s = infer();
    s.seq = 3000;
    s.gen = 5000;
    s.batch = 2;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.prompt_tokens, 3000);
    assert_int_equal(b.inf.cached_tokens, 4096);
    assert_int_equal(b.inf.prefill.kv_cache, 131072ULL * 3000 * 2);
    assert_int_equal(b.inf.decode.kv_cache, 131072ULL * 4096 * 2);
}

/* int4 with 16-bit scales per 128 weights, Llama 2 7B, by hand:
 * layer matrices 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 params -> /2 bytes;
 * scales per layer: q, k, v, o 4 x 4096 x 32 = 524,288; gate, up 2 x 11008 x 32 = 704,512;
 * down 4096 x ceil(11008/128) = 352,256; x 32 layers x 2 B = 101,187,584 bytes;
 * embeddings 2 x 131,072,000 x 2 B; norms 65 x 4096 x 2 B. */
static void test_int4_weights(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.weight_dtype = VL_DT_INT4;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.linear_params, 6476005376ULL);
    assert_int_equal(b.inf.scale_bytes, 101187584ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS],
                     6476005376ULL / 2 + 101187584ULL + 262144000ULL * 2 + 266240ULL * 2);
    s.group_size = 64; /* twice the scales */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.scale_bytes, 2 * 101187584ULL);
    s.weight_dtype = VL_DT_INT8; /* 1 B per matrix weight, no scales counted */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 6476005376ULL + 262144000ULL * 2 + 266240ULL * 2);
}

/* A checkpoint format's runs against the symmetric one's: no exllama buffer, the weights
 * `more` bytes more, each run's prefill workspace its extra bytes more, decode's the same. */
typedef struct format_run {
    uint64_t batch, seq, extra;
} format_run;

static void check_format_runs(const vl_model *m, vl_settings s, vl_weight_format format,
                              uint64_t more, const format_run *runs, size_t n)
{
    vl_breakdown sym, b;
    for (size_t i = 0; i < n; i++) {
        s.batch = runs[i].batch;
        s.seq = runs[i].seq;
        s.weight_format = VL_WFMT_SYMMETRIC;
        assert_null(vl_estimate(m, &s, &sym));
        s.weight_format = format;
        assert_null(vl_estimate(m, &s, &b));
        assert_int_equal(b.inf.dq_buffer_bytes, 0);
        assert_int_equal(b.bytes[VL_C_WEIGHTS], sym.bytes[VL_C_WEIGHTS] + more);
        assert_int_equal(b.inf.prefill.workspace, sym.inf.prefill.workspace + runs[i].extra);
        assert_int_equal(b.inf.decode.workspace, sym.inf.decode.workspace);
    }
}

/* GPTQ's and AWQ's checkpoints, Llama 2 7B by hand: beside the 101,187,584 B of scales, a
 * 4-bit zero point for each of the 50,593,792 groups, 25,296,896 B.  Under transformers GPTQ
 * brings exllama's buffer (or without it cuda-old's dequantized matrix, below), the largest layer matrix (4096 x 11008 = 45,088,768) in fp16,
 * 90,177,536 B (half of it on each of two GPUs), with the weights; vLLM's kernels and AWQ
 * have none.  AWQ's GEMM dequantizes a matrix to fp16 for a forward of 1,024 tokens or more
 * (batch x prompt): the MLP's 2 x 45,088,768 B in the prefill's workspace, none at 1,023. */
static void test_int4_formats(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.weight_dtype = VL_DT_INT4;
    vl_breakdown sym, b;
    assert_null(vl_estimate(&m, &s, &sym));
    assert_int_equal(sym.inf.dq_buffer_bytes, 0);
    const uint64_t zeros = 25296896ULL, dq = 90177536ULL;
    s.weight_format = VL_WFMT_GPTQ;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.scale_bytes, 101187584ULL + zeros);
    assert_int_equal(b.inf.dq_buffer_bytes, dq);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], sym.bytes[VL_C_WEIGHTS] + zeros + dq);
    s.gpus = 2;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.dq_buffer_bytes, dq / 2);
    s.gpus = 1;
    /* --exllama-version 2: one scratch, the largest of each linear's in x out x 2 + 128 and
     * out x 2048 x 8 x 4 + 128: up and gate (4096 to 11008) 90,177,664 + 721,420,416 B, where
     * down (11008 to 4096) takes 90,177,664 + 268,435,584 and q 33,554,560 + 268,435,584;
     * over two GPUs up's share, 4096 to 5504: 45,088,896 + 360,710,272 */
    s.exllama_version = 2;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.dq_buffer_bytes, 90177664ULL + 721420416ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], sym.bytes[VL_C_WEIGHTS] + zeros + 811598080ULL);
    s.gpus = 2;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.dq_buffer_bytes, 45088896ULL + 360710272ULL);
    s.gpus = 1;
    s.exllama_version = 1;
    /* --no-exllama: auto-gptq's cuda-old kernel, no buffer; for 128 rows or more it
     * dequantizes the MLP's matrix through int32 and int8, 5 x 45,088,768 B, beside one of
     * the MLP's three tensors (the two others, 2 x 11008 x 2 B a row, come off it) */
    s.exllama = false;
    const format_run old[] = {{1, 127, 0},
                              {1, 128, 225443840ULL - 44032ULL * 128},
                              {1, 5000, 225443840ULL - 44032ULL * 5000},
                              {1, 5120, 0}};
    check_format_runs(&m, s, VL_WFMT_GPTQ, zeros, old, sizeof old / sizeof *old);
    s.exllama = true;
    vl_settings_take_framework(&s, vl_framework_find("vllm"));
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.dq_buffer_bytes, 0);
    assert_int_equal(b.inf.scale_bytes, 101187584ULL + zeros);
    vl_settings_take_framework(&s, vl_framework_find("hf"));
    const format_run awq[] = {{1, 1023, 0}, {1, 1024, dq}, {2, 512, dq}, {2, 511, 0}};
    check_format_runs(&m, s, VL_WFMT_AWQ, zeros, awq, sizeof awq / sizeof *awq);
}

/* An 8-bit GPTQ checkpoint, Llama 2 7B by hand: the 50,593,792 groups of 128 each keep a
 * 16-bit scale (101,187,584 B) and an 8-bit zero point (50,593,792 B) beside the
 * 6,476,005,376 B of weights; no exllama buffer.  Under transformers auto-gptq's cuda-old
 * kernel dequantizes a matrix for 128 rows or more: the MLP's 4096 x 11008 at 6 B a weight,
 * 270,532,608 B, beside one of its three tensors of rows x 11008 x 2 B; the MLP's other two,
 * 44,032 B a row, come off it, so the prefill adds 270,532,608 - 44,032 x rows until 6,144
 * rows, and nothing from there, below 128 rows, or under vLLM. */
static void test_gptq_int8(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.weight_dtype = VL_DT_INT8;
    const format_run runs[] = {{1, 127, 0},
                               {1, 128, 270532608ULL - 44032ULL * 128},
                               {2, 64, 270532608ULL - 44032ULL * 128},
                               {1, 4000, 270532608ULL - 44032ULL * 4000},
                               {1, 6144, 0},
                               {1, 8000, 0}};
    check_format_runs(&m, s, VL_WFMT_GPTQ, 101187584ULL + 50593792ULL, runs,
                      sizeof runs / sizeof *runs);
    vl_breakdown sym, b;
    assert_null(vl_estimate(&m, &s, &sym));
    assert_int_equal(sym.inf.scale_bytes, 0);
    s.weight_format = VL_WFMT_GPTQ;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.scale_bytes, 101187584ULL + 50593792ULL);
    vl_settings_take_framework(&s, vl_framework_find("vllm"));
    s.seq = 1000;
    s.weight_format = VL_WFMT_SYMMETRIC;
    assert_null(vl_estimate(&m, &s, &sym));
    s.weight_format = VL_WFMT_GPTQ;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.prefill.workspace, sym.inf.prefill.workspace);
    s.weight_format = VL_WFMT_AWQ; /* AWQ's checkpoints are 4-bit */
    assert_non_null(vl_settings_check(&s));
}

/* bitsandbytes 4-bit, Llama 2 7B by hand: the 6,476,005,376 matrix weights in
 * 101,187,584 blocks of 64; bnb4 keeps an fp32 absmax each (404,750,336 B), bnb4-dq a byte
 * each and an fp32 absmax a 256 of them (101,187,584 + 4 x 395,264 = 102,768,640 B, the
 * QLoRA base's scales, tests/test_lora.c).  A 20-token prompt: the MLP's 3 x 20 x 11008 x
 * 2 B and, as the matmul dequantizes W = 4096 x 11008 = 45,088,768 weights, 2 B each; in
 * fp32 the down projection's 4 x 20 x 11008 B input and its 16- and 32-bit matrix (6W B)
 * at once.  One token takes gemv_4bit: no matrix, the fp32 input and output only (the
 * last position's fp32 logits, 4 x 32000 B, are then the larger).  Beside the residual
 * stream, transformers' forward keeps the embeddings' output and the layer's input
 * (layer_input_held): 2 x 2 x 20 x 4096 B more. */
static void test_bnb4(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.seq = 20;
    s.weight_dtype = VL_DT_BNB4;
    s.compute_dtype = VL_DT_BF16;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    const uint64_t rest = 6476005376ULL / 2 + 262144000ULL * 2 + 266240ULL * 2;
    assert_int_equal(b.inf.scale_bytes, 404750336ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], rest + 404750336ULL);
    const uint64_t residual = 2 * 2 * 20 * 4096ULL, mlp = 3 * 20 * 11008ULL * 2, w = 45088768ULL;
    const uint64_t held = residual;
    assert_int_equal(b.inf.prefill.workspace, residual + held + mlp + 2 * w);
    s.weight_dtype = VL_DT_BNB4_DQ;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.scale_bytes, 102768640ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], rest + 102768640ULL);
    s.compute_dtype = VL_DT_FP32;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.prefill.workspace, residual + held + mlp + 4 * 20 * 11008ULL + 6 * w);
    s.seq = 1;
    assert_null(vl_estimate(&m, &s, &b));
    /* 3 x 11008 x 2 + 4 x (4096 + 11008) = 126,464 B, short of the fp32 logits (128,000
     * B), but not with the held embeddings' output and layer input beside it */
    assert_int_equal(3 * 11008ULL * 2 + 4 * (4096ULL + 11008), 126464);
    assert_int_equal(b.inf.prefill.workspace, 2 * 2 * 4096ULL + 126464 + 2 * 2 * 4096ULL);
    const vl_framework *hf = s.framework;
    vl_framework plain = *hf; /* without them, the logits are the larger */
    plain.layer_input_held = false;
    s.framework = &plain;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.prefill.workspace, 2 * 2 * 4096ULL + 4 * 32000ULL);
    s.framework = hf;
    s.batch = 2; /* two tokens: the matrix, and the MLP's 2 x 66,048 B */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.prefill.workspace,
                     2 * (2 * 2 * 2 * 4096ULL) + 2 * 3 * 11008ULL * 2 + 4 * 2 * 11008ULL + 6 * w);
    s.batch = 1;
    /* vLLM's 4-bit layers compute in their input's dtype: only the 16-bit matrix */
    vl_framework f = *s.framework;
    f.bnb_compute_cast = false;
    s.framework = &f;
    s.seq = 20;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.prefill.workspace, residual + held + mlp + 2 * w);
}

/* LitGPT's 4-bit Llama 2 7B (Lightning's BitsandbytesPrecision): the output layer in NF4
 * with the layers' matrices, (6,476,005,376 + 131,072,000) / 2 B + an fp32 absmax for each
 * of their 103,235,584 blocks of 64, the embeddings and norms at 2 B.  A 20-token prompt:
 * GPT.forward projects all 20 positions, 20 x 32000 x 2 B, and Fabric's _FabricModule
 * returns them cast to fp32 (convert_output), 4 B more each, as the 4-bit head dequantizes
 * to fp16 and is cast to bf16, 2 x 2 B x 131,072,000, the largest of the workspace beside
 * the residual stream (the MLP's matrix takes 2 x 2 B x 45,088,768).  One token: gemv, no
 * matrix, the last position's logits and their fp32 cast.  Loading quantizes each matrix
 * from a 16-bit copy on the GPU: the head's, 2 x 131,072,000 B, is the largest (the MLP's
 * under transformers, which keeps the head in 16 bits). */
static void test_litgpt_bnb4(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    vl_settings_take_framework(&s, vl_framework_find("litgpt"));
    s.seq = 20;
    s.weight_dtype = VL_DT_BNB4;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    const uint64_t q = 6476005376ULL + 131072000ULL;
    assert_int_equal(b.inf.stage_qhead, 131072000ULL);
    assert_int_equal(b.inf.scale_bytes, 4 * 103235584ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS],
                     q / 2 + 4 * 103235584ULL + 131072000ULL * 2 + 266240ULL * 2);
    const uint64_t residual = 2 * 2 * 20 * 4096ULL;
    assert_int_equal(b.inf.prefill.workspace,
                     residual + 20 * 32000ULL * (2 + 4) + 4 * 131072000ULL);
    assert_int_equal(b.inf.decode.workspace, 0); /* no decode asked */
    s.gen = 1;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.decode.workspace, 2 * 2 * 4096ULL + (2 + 4) * 32000ULL);
    bool ovf = false;
    assert_int_equal(vl_bnb_load_copy(&m.arch, &s, true, &ovf), 2 * 131072000ULL);
    vl_settings_take_framework(&s, vl_framework_find("hf"));
    assert_int_equal(vl_bnb_load_copy(&m.arch, &s, true, &ovf), 2 * 45088768ULL);
    assert_false(ovf);
}

/* LLM.int8() (bnb8), Llama 2 7B by hand: the 6,476,005,376 matrix weights a byte each, the
 * embeddings, head and norms at 2 B.  A 20-token prompt: beside the MLP's 3 x 20 x 11008 x
 * 2 B, the up projection's matmul holds its input twice in int8 and again laid out for
 * igemmlt (3 x 20 x 4096 B) and its int32 product and fp16 result (6 x 20 x 11008 B), more
 * than the down projection's (3 x 20 x 11008 + 6 x 20 x 4096 B).  Loading quantizes the
 * largest matrix, the MLP's 45,088,768 weights, from an fp16 copy into two int8 copies (3 B
 * each beside the weights); the first forward lays it out for the tensor cores beside its
 * row-major bytes (1 B each).  A serving engine's profile refuses it. */
static void test_bnb8(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.seq = 20;
    s.weight_dtype = VL_DT_BNB8;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.scale_bytes, 0);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 6476005376ULL + 262144000ULL * 2 + 266240ULL * 2);
    const uint64_t residual = 2 * 2 * 20 * 4096ULL, mlp = 3 * 20 * 11008ULL * 2;
    assert_int_equal(b.inf.prefill.workspace,
                     residual + residual + mlp + 3 * 20 * 4096ULL + 6 * 20 * 11008ULL);
    bool ovf = false;
    assert_int_equal(vl_bnb_load_copy(&m.arch, &s, true, &ovf), 3 * 45088768ULL);
    assert_int_equal(vl_bnb8_first_layout(&m.arch, &s, &ovf), 45088768ULL);
    s.weight_dtype = VL_DT_INT8; /* a byte a weight and nothing more */
    assert_int_equal(vl_bnb_load_copy(&m.arch, &s, true, &ovf), 0);
    assert_int_equal(vl_bnb8_first_layout(&m.arch, &s, &ovf), 0);
    assert_false(ovf);
    s.weight_dtype = VL_DT_BNB8;
    vl_settings_take_framework(&s, vl_framework_find("vllm"));
    assert_non_null(vl_settings_check(&s));
}

/* vLLM's RoPE table: Llama 3.1 8B's 131,072 positions x 128 x 2 B = 33,554,432 B on each
 * GPU beside the weights (its "Model loading took 14.9889 GiB": 16,060,522,496 B of bf16
 * parameters and this); transformers keeps none; a model without RoPE none either. */
static void test_rope_cache(void **state)
{
    (void)state;
    vl_model m = model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                                    .ffn = 14336, .vocab = 128256, .max_positions = 131072});
    vl_settings s = infer();
    vl_breakdown hf, vllm;
    assert_null(vl_estimate(&m, &s, &hf));
    assert_int_equal(hf.bytes[VL_C_WEIGHTS], 8030261248ULL * 2);
    assert_int_equal(hf.inf.rope_cache_bytes, 0);
    vl_settings_take_framework(&s, vl_framework_find("vllm"));
    assert_null(vl_estimate(&m, &s, &vllm));
    assert_int_equal(vllm.inf.rope_cache_bytes, 131072ULL * 128 * 2);
    assert_int_equal(vllm.bytes[VL_C_WEIGHTS], 8030261248ULL * 2 + 33554432ULL);
    s.gpus = 2; /* tensor parallel: the matrices halve; the 266,240 norm weights and the
                 * table do not */
    assert_null(vl_estimate(&m, &s, &vllm));
    assert_int_equal(vllm.bytes[VL_C_WEIGHTS],
                     (8030261248ULL - 266240) + 266240ULL * 2 + 33554432ULL);
    vl_model gpt = model_of((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .ffn = 3072,
                                      .vocab = 50257, .max_positions = 1024,
                                      .position = VL_POS_LEARNED});
    s.gpus = 1;
    assert_null(vl_estimate(&gpt, &s, &vllm));
    assert_int_equal(vllm.inf.rope_cache_bytes, 0);
}

/* GGUF file types as --weight-dtype.  Llama 2 7B q8_0, by hand: every 2-D tensor (the
 * embeddings and output too, llama.cpp keeps q8_0 for output.weight in a q8_0 file) in
 * blocks of 32 weights and 34 bytes (a 16-bit scale + 32 int8, block_q8_0), the 65 norms of
 * 4096 in f32: (6,738,415,616 - 266,240) / 32 x 34 + 266,240 x 4 = 7,160,348,672.
 * q4_k_m: 4,080,263,168 (derived in tests/test_gguf.c; TheBloke's file is 4,081,004,224
 * bytes with its metadata).  Over 2 GPUs each holds half (llama.cpp's layer split). */
static void test_gguf_weights(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    char why[256];
    assert_true(vl_setting_parse(VL_SET_WEIGHT_DTYPE, "q8_0", &s, why, sizeof why));
    vl_gguf_ftype ft;
    assert_true(vl_dtype_gguf(s.weight_dtype, &ft));
    assert_int_equal(ft, VL_GGUF_Q8_0);
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_true(b.inf.gguf_on);
    const uint64_t q8 = (6738415616ULL - 266240) / 32 * 34 + 266240ULL * 4;
    assert_int_equal(b.inf.gguf.bytes, q8);
    assert_int_equal(b.inf.gguf.type_elements[VL_GGML_F32], 266240);
    /* llama.cpp keeps token_embd, 131,072,000 weights in q8_0 (139,264,000 B), in CPU memory:
     * the GPU holds the rest */
    assert_int_equal(b.inf.gguf.input_bytes, 131072000ULL / 32 * 34);
    assert_int_equal(b.inf.gguf.output_copy_bytes, 0);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], q8 - 139264000ULL);
    assert_true(vl_setting_parse(VL_SET_WEIGHT_DTYPE, "Q4_K_M", &s, why, sizeof why));
    assert_int_equal(s.weight_dtype, VL_DT_GGUF_Q4_K_M);
    assert_null(vl_estimate(&m, &s, &b));
    /* q4_K's token_embd: 131,072,000 / 256 x 144 = 73,728,000 B, llama.cpp's "CPU buffer
     * size = 70.31 MiB" for this file */
    const uint64_t gpu = 4080263168ULL - 73728000ULL;
    assert_int_equal(b.bytes[VL_C_WEIGHTS], gpu);
    assert_int_equal(b.total, gpu + b.bytes[VL_C_KV_CACHE] + b.bytes[VL_C_ACTIVATIONS] +
                                  s.overhead);
    s.gpus = 2;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], gpu / 2);
    /* tied embeddings (as Llama 3.2 and Gemma have them): token_embd in CPU memory, and
     * again as the output layer on the GPU: every byte of the file's tensor data there */
    vl_model t = llama2_7b();
    t.arch.tie_embeddings = true;
    s.gpus = 1;
    assert_null(vl_estimate(&t, &s, &b));
    assert_int_equal(b.inf.gguf.output_copy_bytes, b.inf.gguf.input_bytes);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], b.inf.gguf.bytes);
    /* the plain names stay plain dtypes; the KV cache takes no GGUF type */
    assert_true(vl_setting_parse(VL_SET_WEIGHT_DTYPE, "int4", &s, why, sizeof why));
    assert_false(vl_dtype_gguf(s.weight_dtype, NULL));
    assert_false(vl_setting_parse(VL_SET_KV_DTYPE, "q8_0", &s, why, sizeof why));
    assert_false(vl_setting_parse(VL_SET_KV_DTYPE, "Q8_0", &s, why, sizeof why));
    assert_non_null(strstr(why, "int4"));
}

/* An int4 KV cache: half a byte an element and a 16-bit scale and zero point per head and
 * token.  Llama 2 7B: 2 x 32 layers x 32 heads x (128 / 2 + 4) B = 139,264 B a token; int8
 * 2 x 32 x 32 x 128 x 1 = 262,144. */
static void test_int4_kv(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.kv_dtype = VL_DT_INT4;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 2 * 32 * 32 * (128 / 2 + 4));
    assert_int_equal(b.bytes[VL_C_KV_CACHE], 139264ULL * 2048);
    s.kv_dtype = VL_DT_INT8;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 262144);
}

/* Serving capacity.  --gpu-util 0.9 of an H100's 85,520,809,984 bytes: 76,968,728,985
 * (floor).  A paged cache of 16-token blocks holds a 2048 + 500 token sequence in
 * ceil(2548 / 16) = 160 blocks, 2560 slots.  Llama 2 7B, 524,288 B a token: a sequence's
 * cache is 2560 x 524,288 = 1,342,177,280; beside the weights, the run's workspace and the
 * overhead (its total less its cache), floor((usable - fixed) / that) sequences fit. */
static void test_serving_capacity(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.gen = 500;
    s.gpu_util = 900000;
    s.kv_block = 16;
    assert_int_equal(vl_usable_memory(&s, 85520809984ULL), 76968728985ULL);
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.cached_tokens, 2548);
    assert_int_equal(b.inf.cached_slots, 2560);
    assert_int_equal(b.inf.prompt_slots, 2048);
    assert_int_equal(b.inf.decode.kv_cache, 2560ULL * 524288);
    uint64_t fixed = b.total - b.bytes[VL_C_KV_CACHE];
    vl_solution sol;
    assert_null(vl_solve_fit(&m, &s, VL_SOLVE_MAX_CONCURRENCY, 76968728985ULL, &any, &sol));
    assert_int_equal(sol.answer, (76968728985ULL - fixed) / (2560ULL * 524288));
    assert_true(sol.next_total > 76968728985ULL);
    assert_true(fixed + sol.answer * 2560ULL * 524288 <= 76968728985ULL);
    assert_int_equal(s.batch, 1); /* the run as given is kept */
    s.kv_block = 0; /* contiguous: 2548 tokens */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.decode.kv_cache, 2548ULL * 524288);
    s.gpu_util = VL_PPM; /* the whole GPU; training always */
    assert_int_equal(vl_usable_memory(&s, 85520809984ULL), 85520809984ULL);
    vl_settings t;
    vl_settings_default(&t);
    assert_non_null(vl_solve_fit(&m, &t, VL_SOLVE_MAX_CONCURRENCY, 85520809984ULL, &any, &sol));
    assert_non_null(vl_solve_fit(&m, &s, VL_SOLVE_MAX_CONCURRENCY, 1ULL << 30, &any, &sol));
}

/* Tensor parallelism: matrices and embeddings split, norms replicated; KV heads split, and
 * replicated once the GPUs outnumber them. */
static void test_tensor_parallel(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    vl_breakdown one, two;
    assert_null(vl_estimate(&m, &s, &one));
    s.gpus = 2;
    assert_null(vl_estimate(&m, &s, &two));
    assert_int_equal(two.bytes[VL_C_WEIGHTS], 6476005376ULL + 262144000ULL + 266240ULL * 2);
    assert_int_equal(two.inf.kv_heads_per_gpu, 16);
    assert_int_equal(2 * two.bytes[VL_C_KV_CACHE], one.bytes[VL_C_KV_CACHE]);

    vl_model gqa = model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                                   .ffn = 14336, .vocab = 32000});
    s.gpus = 16; /* 8 KV heads over 16 GPUs: one each */
    assert_null(vl_estimate(&gqa, &s, &two));
    assert_int_equal(two.inf.kv_heads_per_gpu, 1);
    assert_int_equal(two.bytes[VL_C_KV_CACHE], 2ULL * 32 * 1 * 128 * 2 * 2048);
    s.gpus = 3; /* does not divide 32 heads */
    assert_non_null(vl_estimate(&gqa, &s, &two));
    s.gpus = 12; /* divides neither way with 8 KV heads... nor the 32 heads */
    assert_non_null(vl_estimate(&gqa, &s, &two));
}

/* Pipeline-parallel serving, Llama 2 7B (h 4096, 32 layers, f 11008, V 32000, untied),
 * bf16, b = 1, a 2048-token prompt.  A layer's matrices: q, k, v, o 4 x 4096^2 = 67,108,864
 * and gate, up, down 3 x 4096 x 11008 = 135,266,304: 202,375,168; its two RMSNorms 8192.
 *   --pp 2 --gpus 2: 16 layers a stage.  The first has the embeddings (131,072,000), the
 *   last the output layer (131,072,000) and the final norm (4096): the last is larger,
 *   2 x (16 x 202,383,360 + 131,076,096) = 6,738,419,712 bytes; its KV cache 2 x 16 x 32 x
 *   128 x 2 = 262,144 B a token, 536,870,912 for the prompt; its workspace the residual
 *   stream 2 x 2 x 2048 x 4096 = 33,554,432, as much again for the embeddings' output and
 *   the layer's input that transformers' forward keeps, + the MLP's 2 x 2048 x 3 x 11008 =
 *   135,266,304 (larger than Q, K, V and the logits).
 *   --pp 3 --gpus 3 (32 layers do not divide by 3): ceil(32/3) = 11 layers, 2 x (11 x
 *   202,383,360 + 131,076,096) = 4,714,586,112 bytes, KV 2 x 11 x 32 x 128 x 2 = 180,224 B
 *   a token.
 *   --pp 2 --gpus 4: 2-way tensor parallel in each stage: the matrices and the output layer
 *   halved, the norms whole: 16 x 202,375,168 + 131,072,000 + 2 x (16 x 8192 + 4096), and
 *   16 of the 32 KV heads. */
static void test_pipeline_serving(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    vl_breakdown b;
    const uint64_t layer = 4ULL * 4096 * 4096 + 3ULL * 4096 * 11008, norms = 8192;
    assert_int_equal(layer, 202375168);
    s.pp = 2;
    s.gpus = 2;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.stage_layers, 16);
    assert_true(b.inf.logits);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 2 * (16 * (layer + norms) + 131072000 + 4096));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 6738419712ULL);
    assert_int_equal(b.inf.kv_gpu_per_token, 2 * 16 * 32 * 128 * 2);
    assert_int_equal(b.bytes[VL_C_KV_CACHE], 536870912);
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], 2 * 33554432 + 135266304);
    assert_int_equal(b.total, 6738419712ULL + 536870912 + 202375168 + 1073741824);

    s.pp = 3;
    s.gpus = 3;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.stage_layers, 11);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 4714586112ULL);
    assert_int_equal(b.inf.kv_gpu_per_token, 180224);
    assert_int_equal(b.bytes[VL_C_KV_CACHE], 180224ULL * 2048);

    s.pp = 2;
    s.gpus = 4;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS],
                     16 * layer + 131072000 + 2 * (16 * norms + 4096));
    assert_int_equal(b.inf.kv_heads_per_gpu, 16);

    /* The timeline serves the same stage: its weights, its 16 layers' cache grown by
     * torch.cat one layer at a time (hf), and the last stage's sampler; 4 new tokens are
     * the prefill's and 3 decode steps', so the cache ends at 2048 + 3 tokens. */
    s.pp = 2;
    s.gpus = 2;
    s.gen = 4;
    assert_null(vl_estimate(&m, &s, &b));
    vl_timeline t;
    char why[256];
    assert_true(vl_timeline_for(&m, &s, &any, &t, why, sizeof why));
    assert_int_equal(t.peak.alive[VL_TL_WEIGHTS], 6738419712ULL);
    assert_int_equal(t.end[VL_TL_KV_CACHE], 2ULL * 16 * 32 * 128 * 2 * 2051);
    int layers = 0, samplers = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        if (t.events[i].kind != VL_EV_ALLOC)
            continue;
        if (strcmp(vl_timeline_phase(&t, i), "prefill") == 0 &&
            strcmp(t.events[i].what, "KV cache of a layer (torch.cat)") == 0)
            layers++;
        if (strcmp(t.events[i].what, "sampler: fp32 logits, whole vocabulary") == 0)
            samplers++;
    }
    assert_int_equal(layers, 16);
    assert_true(samplers > 0);
    vl_timeline_free(&t);

    /* bad input: GPUs not whole stages, more stages than layers, a GGUF type */
    char w[256];
    s.gpus = 3;
    assert_false(vl_settings_valid(&s, &m.arch, w, sizeof w));
    assert_non_null(strstr(w, "--gpus must be a multiple of --pp"));
    s.pp = 33;
    s.gpus = 33;
    assert_false(vl_settings_valid(&s, &m.arch, w, sizeof w));
    assert_non_null(strstr(w, "--pp 33 must be at most the model's 32 layers"));
}

/* Two phases: the prefill keeps the prompt's cache and its large workspace; decode the full
 * cache and a one-token workspace.  The total is the larger phase. */
static void test_phases(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.seq = 1000;
    s.gen = 3000;
    s.attention = VL_ATTN_FLASH;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    /* decode workspace, by hand: residual 2 x 4096 x 2 B; the largest of attention
     * (32 + 64) x 128 x 2 B, gated MLP 3 x 11008 x 2 B and fp32 logits 32000 x 4 B */
    assert_int_equal(b.inf.decode.workspace, 2 * 4096 * 2 + 32000 * 4);
    assert_int_equal(b.inf.decode.kv_cache, 524288ULL * 4000);
    assert_true(b.inf.decode_peak);
    assert_int_equal(b.total, b.inf.decode.total);
    assert_int_equal(b.total, b.bytes[VL_C_WEIGHTS] + 524288ULL * 4000 +
                                  b.inf.decode.workspace + (1ULL << 30));
    assert_int_equal(b.bytes[VL_C_GRADIENTS] + b.bytes[VL_C_OPTIMIZER], 0);
}

static void test_speed_bounds(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.batch = 4;
    s.gen = 100;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    vl_speed v = vl_speed_bounds(&b, &s, 1e12, 1e15, 0);
    double bytes = (double)(b.bytes[VL_C_WEIGHTS] + b.inf.decode.kv_cache);
    assert_true(v.decode_step_seconds == bytes / 1e12);
    assert_true(v.decode_tokens_per_s == 4 / (bytes / 1e12));
    assert_true(v.prefill_seconds == 2.0 * 6738415616.0 * 4 * 2048 / 1e15);
    vl_speed none = vl_speed_bounds(&b, &s, 0, 0, 0);
    assert_false(none.known);
    assert_true(none.decode_tokens_per_s == 0);
}

/* --cpu-offload (vLLM's cpu_offload_gb, per GPU).  Llama 2 7B in bf16 holds 6,476,005,376
 * layer-matrix, 262,144,000 embedding and 266,240 norm params (the published architecture),
 * 2 bytes each: 13,476,831,232 bytes on one GPU.  With --gpus 2 the matrices and embeddings
 * split: 3,238,002,688 x 2 + 131,072,000 x 2 + 266,240 x 2 = 6,738,681,856 bytes a GPU, of
 * which each GPU offloads its own 4 GiB (4,294,967,296).  While an offloaded layer runs
 * its copy is on the GPU, in the workspace: one layer's matrices, 6,476,005,376 x 2 B / 32
 * layers = 404,750,336 B (half on each of 2 GPUs). */
static void test_cpu_offload(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.cpu_offload = 4ULL << 30;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 13476831232ULL - 4294967296ULL);
    assert_int_equal(b.inf.offloaded_bytes, 4294967296ULL);
    assert_int_equal(b.inf.offload_copy, 404750336ULL);
    vl_settings none = s;
    none.cpu_offload = 0;
    vl_breakdown kept;
    assert_null(vl_estimate(&m, &none, &kept));
    assert_int_equal(kept.inf.offload_copy, 0);
    assert_int_equal(b.inf.prefill.workspace, kept.inf.prefill.workspace + 404750336ULL);
    assert_int_equal(b.cpu.node_total, 4294967296ULL);
    assert_int_equal(b.total, b.inf.prefill.total);
    assert_int_equal(b.total, 9181863936ULL + b.inf.prefill.kv_cache + b.inf.prefill.workspace +
                                  (1ULL << 30));

    s.gpus = 2; /* each GPU offloads from its own share; a node holds both GPUs' */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 6738681856ULL - 4294967296ULL);
    assert_int_equal(b.inf.offload_copy, 404750336ULL / 2);
    assert_int_equal(b.cpu.gpus_per_node, 2);
    assert_int_equal(b.cpu.node_total, 2 * 4294967296ULL);

    s.gpus = 1; /* a budget past the weights offloads them all, as vLLM's loop runs out */
    s.cpu_offload = 64ULL << 30;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 0);
    assert_int_equal(b.inf.offloaded_bytes, 13476831232ULL);
    assert_int_equal(b.inf.offload_copy, 404750336ULL);

    s.mode = VL_MODE_TRAIN; /* serving only */
    char why[256];
    assert_false(vl_settings_valid(&s, &m.arch, why, sizeof why));
    assert_string_equal(why, "--cpu-offload applies to --mode infer only");
}

/* The offloaded bytes cross the host link at every forward.  On an H100 SXM (3.35e12 B/s
 * HBM3 and 989.4e12 bf16 FLOP/s dense: NVIDIA H100 datasheet; PCIe 5.0 x16, 63e9 B/s a
 * direction: PCI-SIG), Llama 2 7B bf16, 4 GiB offloaded, 2048 + 100 tokens: a decode step
 * reads 9,181,863,936 weight bytes and 2148 x 524,288 = 1,126,170,624 KV bytes from HBM,
 * 10,308,034,560 / 3.35e12 = 3.0770 ms, and 4,294,967,296 / 63e9 = 68.1741 ms over PCIe:
 * 71.2511 ms, 14.035 tokens/s.  The prefill: 2 x 6,738,415,616 x 2048 / 989.4e12 = 27.8963
 * ms of compute, plus the same 68.1741 ms. */
static void test_cpu_offload_speed(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s = infer();
    s.cpu_offload = 4ULL << 30;
    s.gen = 100;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    vl_speed v = vl_speed_bounds(&b, &s, 3.35e12, 989.4e12, 63e9);
    assert_true(fabs(v.host_seconds - 0.0681740841) < 1e-9);
    assert_true(fabs(v.decode_step_seconds - 0.0712511093) < 1e-9);
    assert_true(fabs(v.decode_tokens_per_s - 14.0348) < 1e-3);
    assert_true(fabs(v.prefill_seconds - (0.0278963 + 0.0681741)) < 1e-6);
    /* a GPU whose host link is unknown gives no bound for an offloaded run */
    vl_speed none = vl_speed_bounds(&b, &s, 3.35e12, 989.4e12, 0);
    assert_false(none.known);
    assert_true(none.decode_step_seconds == 0);
}

/* What the solver judges: the step's peak on the device. */
static uint64_t total(const vl_model *m, vl_settings s)
{
    vl_timeline t;
    char why[256];
    uint64_t peak = vl_timeline_for(m, &s, &any, &t, why, sizeof why) ? t.peak.device : UINT64_MAX;
    vl_timeline_free(&t);
    return peak;
}

/* The verdict (vl_fit_of): the peak against capacity, exactly full fitting; under an engine
 * that sizes its KV cache, the share that leaves none, then the cache against the batch's
 * sequences, then the peak, and where all hold the tighter margin; the signed headroom
 * saturated, never wrapped. */
static void test_fit_verdict(void **state)
{
    (void)state;
    const uint64_t G = 1ULL << 30;
    vl_fit f = vl_fit_of(60, 80, NULL, 1);
    assert_true(f.fits && f.by == VL_FIT_PEAK);
    assert_int_equal(f.margin, 20);
    assert_int_equal(f.device, 60);
    f = vl_fit_of(80, 80, NULL, 1);
    assert_true(f.fits);
    assert_int_equal(f.margin, 0);
    f = vl_fit_of(81, 80, NULL, 1);
    assert_false(f.fits);
    assert_int_equal(f.margin, 1);

    vl_kv_budget k = {.sizing = VL_KV_PROFILE, .available = 10 * G, .per_sequence = G};
    f = vl_fit_of(50 * G, 80 * G, &k, 4); /* 6 GiB of cache spare, 30 of the GPU */
    assert_true(f.fits && f.by == VL_FIT_KV_CACHE);
    assert_int_equal(f.margin, 6 * G);
    assert_int_equal(f.held, 10);
    f = vl_fit_of(79 * G, 80 * G, &k, 4); /* the GPU's 1 GiB is the tighter */
    assert_true(f.fits && f.by == VL_FIT_PEAK);
    assert_int_equal(f.margin, G);
    f = vl_fit_of(50 * G, 80 * G, &k, 10); /* exactly full */
    assert_true(f.fits);
    assert_int_equal(f.margin, 0);
    f = vl_fit_of(90 * G, 80 * G, &k, 11); /* the cache decides before the peak */
    assert_false(f.fits);
    assert_true(f.by == VL_FIT_KV_CACHE);
    assert_int_equal(f.margin, G);
    assert_int_equal(f.held, 10);
    f = vl_fit_of(90 * G, 80 * G, &k, 4);
    assert_false(f.fits);
    assert_true(f.by == VL_FIT_PEAK);
    assert_int_equal(f.margin, 10 * G);
    f = vl_fit_of(G, 80 * G, &k, UINT64_MAX); /* the batch's cache past 64 bits */
    assert_false(f.fits);
    assert_int_equal(f.margin, UINT64_MAX);

    vl_kv_budget none = {.sizing = VL_KV_STATIC, .shortfall = 2 * G, .per_sequence = G};
    f = vl_fit_of(G, 80 * G, &none, 3); /* its shortfall and the batch's three sequences */
    assert_false(f.fits);
    assert_true(f.by == VL_FIT_SHARE);
    assert_int_equal(f.margin, 5 * G);
    assert_int_equal(f.held, 0);
    none.shortfall = 0; /* the weights take the share exactly: still none left */
    f = vl_fit_of(G, 80 * G, &none, 1);
    assert_false(f.fits);
    assert_int_equal(f.margin, G);

    k.per_sequence = 0; /* a model that caches nothing (an encoder): the peak alone */
    f = vl_fit_of(50 * G, 80 * G, &k, 11);
    assert_true(f.fits && f.by == VL_FIT_PEAK);
    assert_int_equal(f.margin, 30 * G);
    assert_int_equal(f.held, 0);
    k.per_sequence = G;
    k.sizing = VL_KV_NONE; /* a framework that sizes none: the peak alone */
    f = vl_fit_of(50 * G, 80 * G, &k, 11);
    assert_true(f.fits && f.by == VL_FIT_PEAK);
    assert_int_equal(f.margin, 30 * G);

    f = (vl_fit){.fits = true, .margin = 20};
    assert_int_equal(vl_fit_headroom(&f), 20);
    f.fits = false;
    assert_int_equal(vl_fit_headroom(&f), -20);
    f.margin = UINT64_MAX;
    assert_int_equal(vl_fit_headroom(&f), -INT64_MAX);
    f.fits = true;
    f.margin = (uint64_t)INT64_MAX + 1;
    assert_int_equal(vl_fit_headroom(&f), INT64_MAX);
}

/* The solver's answer fits and the value past it does not. */
static void test_solver(void **state)
{
    (void)state;
    const uint64_t cap = 80ULL << 30;
    vl_model m = llama2_7b();
    vl_solution sol;

    vl_settings s = infer();
    s.gen = 4096;
    assert_null(vl_solve_fit(&m, &s, VL_SOLVE_MAX_BATCH, cap, &any, &sol));
    assert_int_equal(s.batch, sol.answer);
    assert_true(total(&m, s) <= cap);
    s.batch++;
    assert_true(total(&m, s) > cap);
    assert_int_equal(sol.next_total, total(&m, s));

    s = infer();
    assert_null(vl_solve_fit(&m, &s, VL_SOLVE_MAX_CONTEXT, cap, &any, &sol));
    assert_true(total(&m, s) <= cap);
    s.seq++;
    assert_true(total(&m, s) > cap);

    vl_settings t;
    vl_settings_default(&t);
    t.zero = 3;
    assert_null(vl_solve_fit(&m, &t, VL_SOLVE_MIN_GPUS, cap, &any, &sol));
    assert_true(t.gpus > 1 && total(&m, t) <= cap);
    t.gpus--;
    assert_true(total(&m, t) > cap);

    vl_settings_default(&t); /* ZeRO-0: no GPU count helps */
    assert_non_null(vl_solve_fit(&m, &t, VL_SOLVE_MIN_GPUS, cap, &any, &sol));

    s = infer(); /* tensor parallel: a divisor of the 32 heads */
    vl_model big = model_of((vl_arch){.hidden = 8192, .layers = 80, .heads = 64, .kv_heads = 8,
                                   .ffn = 28672, .vocab = 32000});
    assert_null(vl_solve_fit(&big, &s, VL_SOLVE_MIN_GPUS, cap, &any, &sol));
    assert_int_equal(s.gpus, 2);
    assert_int_equal(sol.next, 1);
    assert_true(sol.next_total > cap);

    s = infer(); /* nothing fits a tiny GPU */
    assert_non_null(vl_solve_fit(&m, &s, VL_SOLVE_MAX_BATCH, 1ULL << 30, &any, &sol));
}

/* What a watched search tells: each try in turn, within the bound it gives, and the same
 * answer as the search unwatched. */
typedef struct watched {
    unsigned calls, last, most;
    bool in_order;
} watched;

static void watch(void *ctx, unsigned tried, unsigned most)
{
    watched *w = ctx;
    w->in_order = w->in_order && tried == w->calls + 1 && tried <= most &&
                  (w->calls == 0 || most == w->most);
    w->calls++;
    w->last = tried;
    w->most = most;
}

static void test_solver_watched(void **state)
{
    (void)state;
    const uint64_t cap = 80ULL << 30;
    vl_model m = llama2_7b();
    for (vl_solve what = VL_SOLVE_MAX_BATCH; what <= VL_SOLVE_MIN_GPUS; what++) {
        vl_settings s = infer(), t = infer();
        vl_solution a, b;
        watched w = {.in_order = true};
        assert_null(vl_solve_fit(&m, &s, what, cap, &any, &a));
        assert_null(vl_solve_fit_watched(&m, &t, what, cap, &any, &b, watch, &w));
        assert_int_equal(a.answer, b.answer);
        assert_int_equal(a.next_total, b.next_total);
        assert_true(w.in_order);
        /* one try where a single GPU already holds the model */
        assert_true(w.calls > (what == VL_SOLVE_MIN_GPUS ? 0u : 1u) && w.last <= w.most);
    }
}

/* DeepSeek-V3's multi-head latent attention caches the 512-wide latent and the 64-wide
 * rotary key per layer: 61 x 576 x 2 B = 70,272 B a token, whole on every GPU. */
static void test_latent_cache(void **state)
{
    (void)state;
    vl_model m = model_of((vl_arch){.hidden = 7168, .layers = 61, .heads = 128, .head_dim = 192,
                                 .ffn = 18432, .vocab = 129280, .kv_lora_rank = 512,
                                 .q_lora_rank = 1536, .qk_rope_head_dim = 64, .v_head_dim = 128});
    vl_settings s = infer();
    s.gpus = 8;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 70272);
    assert_int_equal(b.bytes[VL_C_KV_CACHE], 70272ULL * 2048);
}

static void test_bad_combinations(void **state)
{
    (void)state;
    vl_settings s = infer();
    s.zero = 2;
    assert_non_null(strstr(settings_why(&s), "--zero"));
    s = infer();
    s.recompute = VL_RECOMPUTE_FULL;
    assert_non_null(strstr(settings_why(&s), "--recompute"));
    s = infer();
    s.kv_dtype = VL_DT_GGUF_Q4_K_M; /* a GGUF file type is for weights only */
    assert_non_null(strstr(settings_why(&s), "--kv-dtype"));
    s = infer();
    s.group_size = 0;
    assert_non_null(strstr(settings_why(&s), "--group-size"));
}

/* An encoder (BERT: post-norm, token types, a pooler) reads its input in one pass: no KV
 * cache, and generated tokens are refused rather than counted. */
static void test_encoder(void **state)
{
    (void)state;
    vl_model m = model_of((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .ffn = 3072,
                                 .vocab = 30522, .position = VL_POS_LEARNED,
                                 .max_positions = 512, .mlp = VL_MLP_STANDARD,
                                 .norm = VL_NORM_LAYERNORM, .norm_position = VL_NORM_POST,
                                 .token_types = 2, .pooler = true, .attention_bias = true,
                                 .mlp_bias = true, .embedding_norm = true, .tie_embeddings = true});
    vl_settings s = infer();
    s.seq = 512;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_KV_CACHE], 0);
    assert_int_equal(b.inf.kv_bytes_per_token, 0);
    s.gen = 16;
    assert_non_null(strstr(vl_estimate(&m, &s, &b), "an encoder"));
    m.arch.norm_position = VL_NORM_PRE; /* a decoder of the same shape caches K and V */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.inf.kv_bytes_per_token, 2ULL * 12 * 12 * 64 * 2);
}

/* Eager attention's forward in inference holds, for each score: q·kᵀ and its scaled copy,
 * 2 + 2 B in 16 bits; transformers' softmax(..., dtype=torch.float32).to(dtype) holds the
 * scaled scores, its fp32 output and the 16-bit cast, 2 + 4 + 2 B in fp16 (CUDA's
 * half-to-float softmax), or the scaled scores, the fp32 copy it reads of bf16 scores and
 * its fp32 output, 2 + 4 + 4 B in bf16; GPTBigCode's fused softmax (eager_softmax fused)
 * and a softmax in the scores' dtype hold 2 + 2 B.  A prompt of 1,024 tokens, 8 heads:
 * the scores dwarf the MLP and the logits. */
static void test_eager_scores(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 64, .layers = 2, .heads = 8, .head_dim = 8, .ffn = 128,
                 .vocab = 256, .position = VL_POS_ROPE, .max_positions = 4096,
                 .mlp = VL_MLP_GATED, .norm = VL_NORM_RMSNORM};
    vl_arch_defaults(&a);
    vl_settings s = infer();
    vl_settings_take_framework(&s, vl_framework_find("hf"));
    s.attention = VL_ATTN_EAGER;
    assert_true(s.framework->layer_input_held);
    const uint64_t scores = 1024ULL * 1024 * 8; /* batch 1 */
    static const struct {
        vl_dtype dtype;
        vl_eager_softmax softmax;
        uint64_t per_score;
    } cases[] = {
        {VL_DT_FP16, VL_SOFTMAX_FP32, 8}, {VL_DT_BF16, VL_SOFTMAX_FP32, 10},
        {VL_DT_BF16, VL_SOFTMAX_FUSED, 4}, {VL_DT_BF16, VL_SOFTMAX_INPUT, 4},
        {VL_DT_FP32, VL_SOFTMAX_FP32, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool ovf = false;
        s.weight_dtype = cases[i].dtype;
        a.eager_softmax = cases[i].softmax;
        const uint64_t act = cases[i].dtype == VL_DT_FP32 ? 4 : 2;
        /* the residual stream twice, the layer's input and output its caller holds (the
         * hf profile's layer_input_held), and q, k, v beside the scores */
        const uint64_t want = 2 * act * 1024 * 64 + 2 * act * 1024 * 64 +
                              act * 1024 * 3 * 64 + cases[i].per_score * scores;
        assert_int_equal(vl_infer_workspace(&a, &s, false, 1024, 1024, &ovf), want);
        assert_false(ovf);
    }
}

/* A class's later releases upcast what its model's eager_softmax says they run in the
 * scores' dtype or fused (modeling_<type>.py in the wheels): GPTNeoXAttention._attn's
 * softmax in the scores' dtype through 4.48, eager_attention_forward's
 * softmax(..., dtype=torch.float32).to(query.dtype) from 4.49; GPTBigCode's fused
 * upcast_masked_softmax through 4.53, the same plain upcast from 4.54.  In fp16 the
 * workspace holds 2 + 2 B a score before, 2 + 4 + 2 B after (test_eager_scores). */
static void test_class_softmax_upcast(void **state)
{
    (void)state;
    static const struct {
        vl_model_type type;
        vl_eager_softmax softmax;
        vl_transformers release;
        uint64_t per_score;
    } cases[] = {
        {VL_MT_GPT_NEOX, VL_SOFTMAX_INPUT, VL_TF_4_48, 4},
        {VL_MT_GPT_NEOX, VL_SOFTMAX_INPUT, VL_TF_4_49, 8},
        {VL_MT_GPT_NEOX, VL_SOFTMAX_INPUT, VL_TF_CURRENT, 8},
        {VL_MT_GPT_BIGCODE, VL_SOFTMAX_FUSED, VL_TF_4_53, 4},
        {VL_MT_GPT_BIGCODE, VL_SOFTMAX_FUSED, VL_TF_4_54, 8},
        {VL_MT_GPT2, VL_SOFTMAX_INPUT, VL_TF_CURRENT, 4},
    };
    const uint64_t scores = 1024ULL * 1024 * 8;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_arch a = {.hidden = 64, .layers = 2, .heads = 8, .head_dim = 8, .ffn = 128,
                     .vocab = 256, .position = VL_POS_ROPE, .max_positions = 4096,
                     .mlp = VL_MLP_GATED, .norm = VL_NORM_RMSNORM};
        vl_arch_defaults(&a);
        a.model_type = cases[i].type;
        a.eager_softmax = cases[i].softmax;
        vl_framework f = *vl_framework_find("hf");
        vl_framework_on_class(&f, &a, cases[i].release, false);
        vl_settings s = infer();
        vl_settings_take_framework(&s, &f);
        s.attention = VL_ATTN_EAGER;
        s.weight_dtype = VL_DT_FP16;
        bool ovf = false;
        const uint64_t want = 2 * 2 * 1024 * 64 + 2 * 2 * 1024 * 64 + 2 * 1024 * 3 * 64 +
                              cases[i].per_score * scores;
        assert_int_equal(vl_infer_workspace(&a, &s, false, 1024, 1024, &ovf), want);
    }
}

/* vLLM 0.7's MLA backend keeps, beside the checkpoint's, each layer's absorbed matrices, by
 * hand.  DeepSeek-V2-Lite's shape in AWQ (16 heads, hidden 2048, no query LoRA, kv_lora_rank
 * 512, rotary 64 of 192, v 128), one GPU, bf16 activations: W_QR 2048 x 16 x 64 x 2 B =
 * 4,194,304, W_Q_UK 2048 x 16 x 512 x 2 = 33,554,432, W_UV_O the same, the dequantized
 * kv_b_proj 512 x 16 x 256 x 2 = 4,194,304: 75,497,472 a layer.  DeepSeek-R1's in fp8 over
 * 8 GPUs (128 heads, 16 a GPU, hidden 7168, q_lora_rank 1536): W_QR 1536 x 16 x 64 x 2 =
 * 3,145,728, W_Q_UK in fp8 1536 x 8192 + 12 x 64 blocks x 4 B = 12,585,984, W_UV_O
 * 8192 x 7168 + 64 x 56 x 4 = 58,734,592, kv_b_proj dequantized 4,194,304: 78,660,608.
 * None under 0.6.5 (no MLA backend) or 0.8 (no absorption), nor for a model without MLA. */
static void test_mla_absorbed(void **state)
{
    (void)state;
    vl_arch lite = {.hidden = 2048, .layers = 27, .heads = 16, .head_dim = 192, .ffn = 10944,
                    .vocab = 102400, .position = VL_POS_ROPE, .max_positions = 163840,
                    .mlp = VL_MLP_GATED, .norm = VL_NORM_RMSNORM, .kv_lora_rank = 512,
                    .qk_rope_head_dim = 64, .v_head_dim = 128};
    vl_arch_defaults(&lite);
    vl_settings s = infer();
    vl_settings_take_framework(&s, vl_framework_find("vllm-v0"));
    s.vllm = VL_VLLM_0_7_1;
    s.weight_dtype = VL_DT_INT4;
    bool ovf = false;
    assert_int_equal(vl_mla_absorbed_bytes(&lite, &s, 27, &ovf), 27ULL * 75497472);
    vl_arch r1 = lite;
    r1.hidden = 7168;
    r1.heads = 128;
    r1.q_lora_rank = 1536;
    s.weight_dtype = VL_DT_FP8;
    s.gpus = 8;
    assert_int_equal(vl_mla_absorbed_bytes(&r1, &s, 61, &ovf), 61ULL * 78660608);
    assert_false(ovf);
    static const vl_vllm none[] = {VL_VLLM_0_6_5, VL_VLLM_0_8};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        s.vllm = none[i];
        assert_int_equal(vl_mla_absorbed_bytes(&r1, &s, 61, &ovf), 0);
    }
    s.vllm = VL_VLLM_0_7_1;
    r1.kv_lora_rank = 0;
    assert_int_equal(vl_mla_absorbed_bytes(&r1, &s, 61, &ovf), 0);
}

/* A prefill step under a budget of prompt tokens (vLLM's max_num_batched_tokens): the whole
 * batch when it fits, whole prompts while they fit, one prompt's chunk when one does not;
 * without a budget (transformers) the whole batch at once. */
static void test_prefill_step(void **state)
{
    (void)state;
    static const struct {
        const char *fw;
        uint64_t batch, seq, seqs, tokens;
    } cases[] = {
        {"vllm", 1024, 8, 1024, 8},   /* V1's profile run: 8192 over 1024 */
        {"vllm", 64, 4096, 2, 4096},  /* two prompts a step */
        {"vllm", 3, 3000, 2, 3000},   /* 8192 / 3000: two */
        {"vllm", 1, 20000, 1, 8192},  /* one prompt in chunks */
        {"vllm-v0", 256, 32, 64, 32}, /* 2048 / 32 */
        {"hf", 64, 4096, 64, 4096},   /* no budget */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_settings s;
        vl_settings_default(&s);
        s.mode = VL_MODE_INFER;
        s.batch = cases[i].batch;
        s.seq = cases[i].seq;
        vl_settings_take_framework(&s, vl_framework_find(cases[i].fw));
        uint64_t seqs, tokens;
        vl_prefill_step(&s, &seqs, &tokens);
        assert_int_equal(seqs, cases[i].seqs);
        assert_int_equal(tokens, cases[i].tokens);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoder),
        cmocka_unit_test(test_kv_per_token),      cmocka_unit_test(test_sliding_window),
        cmocka_unit_test(test_int4_weights),      cmocka_unit_test(test_int4_formats),
        cmocka_unit_test(test_gptq_int8),
        cmocka_unit_test(test_bnb4),
        cmocka_unit_test(test_litgpt_bnb4),
        cmocka_unit_test(test_bnb8),
        cmocka_unit_test(test_rope_cache),
        cmocka_unit_test(test_tensor_parallel),
        cmocka_unit_test(test_phases),            cmocka_unit_test(test_speed_bounds),
        cmocka_unit_test(test_fit_verdict),
        cmocka_unit_test(test_solver),
        cmocka_unit_test(test_solver_watched),            cmocka_unit_test(test_latent_cache),
        cmocka_unit_test(test_bad_combinations), cmocka_unit_test(test_gguf_weights),
        cmocka_unit_test(test_int4_kv), cmocka_unit_test(test_serving_capacity),
        cmocka_unit_test(test_pipeline_serving), cmocka_unit_test(test_cpu_offload),
        cmocka_unit_test(test_cpu_offload_speed), cmocka_unit_test(test_prefill_step),
        cmocka_unit_test(test_eager_scores),
        cmocka_unit_test(test_class_softmax_upcast),
        cmocka_unit_test(test_mla_absorbed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
