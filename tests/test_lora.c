/* test_lora.c: LoRA trainable counts against hand derivations (the figures PEFT prints for
 * these models), and NF4 bytes against Dettmers et al. 2023. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/framework.h"
#include "core/lora.h"
#include "core/memory.h"
#include "helpers.h"


static vl_arch arch(vl_arch a)
{
    vl_arch_defaults(&a);
    return a;
}

/* Llama 2 7B, r = 8 on q and v: 2 x 8 x (4096 + 4096) = 131,072 a layer, x 32 layers =
 * 4,194,304 (PEFT's "trainable params: 4,194,304"). */
static void test_llama_qv(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008,
                               .vocab = 32000});
    unsigned mask;
    char why[160];
    uint64_t n;
    assert_true(vl_lora_parse_targets("q,v", &mask, why, sizeof why));
    assert_null(vl_lora_params(&a, mask, 8, 0, &n));
    assert_int_equal(n, 4194304ULL);
}

/* Mistral 7B (GQA: k, v are 4096 -> 1024), r = 16, all linear layers, a layer:
 * q 16(4096+4096) + k, v 2 x 16(4096+1024) + o 16(4096+4096) + gate, up, down
 * 3 x 16(4096+14336) = 262,144 + 163,840 + 884,736 = 1,310,720; x 32 = 41,943,040. */
static void test_mistral_all_linear(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                               .ffn = 14336, .vocab = 32000});
    unsigned mask;
    char why[160];
    uint64_t n;
    assert_true(vl_lora_parse_targets("all-linear", &mask, why, sizeof why));
    assert_null(vl_lora_params(&a, mask, 16, 0, &n));
    assert_int_equal(n, 41943040ULL);
    assert_true(vl_lora_parse_targets("q,k,v,o,gate,up,down", &mask, why, sizeof why));
    assert_int_equal(mask, VL_LORA_ALL_LINEAR);
}

/* The output layer too (LitGPT's lora_head, PEFT's "lm_head"): TinyLlama, r = 32, a
 * layer's seven adapters 32(2048+2048) + 2 x 32(2048+256) + 32(2048+2048) + 3 x
 * 32(2048+5632) = 131,072 + 147,456 + 131,072 + 737,280 = 1,146,880, x 22 = 25,231,360;
 * the head's
 * A (32 x 2048) and B (32000 x 32): 32(2048+32000) = 1,089,536.  PEFT's all-linear leaves
 * it out; head after all-linear adds it. */
static void test_head(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 2048, .layers = 22, .heads = 32, .kv_heads = 4,
                               .ffn = 5632, .vocab = 32000});
    unsigned mask;
    char why[160], buf[64];
    uint64_t n;
    assert_true(vl_lora_parse_targets("all-linear,head", &mask, why, sizeof why));
    assert_int_equal(mask, VL_LORA_ALL_TARGETS);
    assert_null(vl_lora_params(&a, mask, 32, 0, &n));
    assert_int_equal(n, 25231360ULL + 1089536);
    assert_int_equal(vl_lora_head_params(&a, mask, 32), 1089536ULL);
    assert_string_equal(vl_lora_format_targets(mask, buf, sizeof buf), "all-linear,head");
    assert_true(vl_lora_parse_targets("all-linear", &mask, why, sizeof why));
    assert_int_equal(vl_lora_head_params(&a, mask, 32), 0);
    assert_null(vl_lora_params(&a, mask, 32, 0, &n));
    assert_int_equal(n, 25231360ULL);
    /* PEFT's module name; the head alone */
    assert_true(vl_lora_parse_targets("q,v,lm_head", &mask, why, sizeof why));
    assert_int_equal(mask, (1u << VL_LORA_Q) | (1u << VL_LORA_V) | (1u << VL_LORA_HEAD));
    assert_string_equal(vl_lora_format_targets(mask, buf, sizeof buf), "q,v,head");
    assert_true(vl_lora_parse_targets("head", &mask, why, sizeof why));
    assert_null(vl_lora_params(&a, mask, 32, 0, &n));
    assert_int_equal(n, 1089536ULL);
    /* only the tensors of at least min elements: B (1,024,000), not A (65,536) */
    assert_null(vl_lora_params(&a, mask, 32, 100000, &n));
    assert_int_equal(n, 1024000ULL);
}

/* GPT-2 (standard MLP, no gate), r = 4 on all linear layers: a layer has q, k, v, o
 * 4 x 4(768+768) and fc1, fc2 2 x 4(768+3072): 24,576 + 30,720 = 55,296; x 12 = 663,552. */
static void test_gpt2_no_gate(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .vocab = 50257,
                               .mlp = VL_MLP_STANDARD});
    uint64_t n;
    assert_null(vl_lora_params(&a, VL_LORA_ALL_LINEAR, 4, 0, &n));
    assert_int_equal(n, 663552ULL);
    assert_non_null(vl_lora_params(&a, 1u << VL_LORA_GATE, 4, 0, &n));
}

/* Mixtral: adapters on every expert's MLP (8 experts of 14336) plus attention. */
static void test_moe(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                               .ffn = 14336, .vocab = 32000, .experts = 8,
                               .experts_per_token = 2});
    a.moe_ffn = 14336; /* as the preset loader fills it */
    uint64_t n;
    unsigned mask;
    char why[160];
    assert_true(vl_lora_parse_targets("down", &mask, why, sizeof why));
    assert_null(vl_lora_params(&a, mask, 8, 0, &n));
    assert_int_equal(n, 32ULL * 8 * 8 * (14336 + 4096));
    /* with latent attention the MLP's adapters are the same; only q, k, v, o are refused */
    a.kv_lora_rank = 512;
    a.qk_rope_head_dim = 64;
    assert_null(vl_lora_params(&a, mask, 8, 0, &n));
    assert_int_equal(n, 32ULL * 8 * 8 * (14336 + 4096));
    assert_true(vl_lora_parse_targets("q,v", &mask, why, sizeof why));
    assert_non_null(strstr(vl_lora_params(&a, mask, 8, 0, &n), "--lora-targets gate,up,down"));
}

static void test_parse_errors(void **state)
{
    (void)state;
    unsigned mask;
    char why[160];
    assert_false(vl_lora_parse_targets("q,vv", &mask, why, sizeof why));
    assert_non_null(strstr(why, "unknown target 'vv'"));
    assert_non_null(strstr(why, "did you mean 'v'?"));
    assert_false(vl_lora_parse_targets("", &mask, why, sizeof why));
    assert_false(vl_lora_parse_targets("q,,v", &mask, why, sizeof why));
    char buf[64];
    assert_string_equal(vl_lora_format_targets((1u << VL_LORA_Q) | (1u << VL_LORA_V), buf,
                                               sizeof buf),
                        "q,v");
    assert_string_equal(vl_lora_format_targets(VL_LORA_ALL_LINEAR, buf, sizeof buf), "all-linear");
}

/* NF4 with double quantization: 4 + 8/64 + 32/(64 x 256) = 4.127 bits a parameter
 * (Dettmers et al. 2023, section 3): for 64 x 256 x 1000 weights exactly
 * 8,192,000 + 256,000 + 4,000 bytes. */
static void test_nf4(void **state)
{
    (void)state;
    assert_int_equal(vl_nf4_bytes(64ULL * 256 * 1000, true), 8192000ULL + 256000 + 4000);
    assert_int_equal(vl_nf4_bytes(1, true), 1 + 1 + 4);
    /* without double quantization, an fp32 absmax a block */
    assert_int_equal(vl_nf4_bytes(64ULL * 256 * 1000, false), 8192000ULL + 4 * 256000);
    assert_int_equal(vl_nf4_bytes(1, false), 1 + 4);
}

/* Llama 2 7B, LoRA r = 8 on q, v, bf16-mixed AdamW, 1 GPU: the 6,738,415,616 base params are
 * frozen in bf16 with no gradients or optimizer states; the 4,194,304 adapter params take
 * 2 + 2 + 16 B.  In fp32 both weights take 4 B.
 * Activations: full fine-tuning keeps 32 x 650,117,120 + 330,334,208 (test_memory); with
 * frozen o, gate, up, down and output layers their inputs go, as PyTorch keeps no input for
 * a frozen nn.Linear: a layer loses the o input 2 x 2048 x 4096, the MLP input
 * 2 x 2048 x 4096 and the down input 2 x 2048 x 11008 (78,643,200) and gains the q and v
 * adapters' x.A, 2 x 2 x 2048 x 8 (65,536): 571,539,456; outside, the token ids
 * 8 x 2048 and the output layer's input 2 x 2048 x 4096 go: 313,540,608.  The adapters
 * take the layer's dtype, as PEFT made them before 0.12 (test_timeline's
 * test_lora_adapters_fp32 has 0.12's fp32 ones). */
static void test_lora_llama_bf16_mixed(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s;
    eager_defaults(&s);
    s.lora_rank = 8;
    s.peft = VL_PEFT_0_11;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_true(b.lora.on);
    assert_int_equal(b.lora.trainable_params, 4194304ULL);
    assert_int_equal(b.lora.frozen_params, 6738415616ULL);
    assert_int_equal(b.lora.frozen_bytes, 2 * 6738415616ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 6738415616ULL * 2 + 4194304ULL * 2);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 4194304ULL * 2);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 4194304ULL * 16);
    uint64_t act = 32 * 571539456ULL + 313540608ULL;
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], act);
    assert_int_equal(b.bytes[VL_C_ZERO3_LIVE], 0);
    assert_int_equal(b.total, 6738415616ULL * 2 + 4194304ULL * 20 + act + (1ULL << 30));

    /* lora_dropout: the q and v adapters each keep a dropped copy of the 2048 x 4096 input
     * (one of them in place of the shared input: + 16,777,216 B) and its bool mask
     * (2 x 8,388,608 B); under autocast each keeps its 16-bit cast already, so only the
     * masks are new */
    s.lora_dropout = 100000; /* 0.1 */
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], act + 32 * (16777216ULL + 16777216ULL));
    s.precision = VL_BF16_AMP;
    vl_breakdown amp;
    assert_null(vl_estimate(&m, &s, &amp));
    s.lora_dropout = 0;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(amp.bytes[VL_C_ACTIVATIONS], b.bytes[VL_C_ACTIVATIONS] + 32 * 16777216ULL);

    s.precision = VL_FP32;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], (6738415616ULL + 4194304ULL) * 4);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 4194304ULL * 4);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 4194304ULL * 8);

    /* ZeRO-3 over 8 GPUs shards the frozen base too; the live matrix (the 32000 x 4096
     * embedding) has no gradient */
    s.precision = VL_BF16_MIXED;
    s.zero = 3;
    s.gpus = 8;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 6738415616ULL * 2 / 8 + 4194304ULL * 2 / 8);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 4194304ULL * 16 / 8);
    assert_int_equal(b.bytes[VL_C_ZERO3_LIVE], 131072000ULL * 2);
}

/* QLoRA on Llama 2 7B, r = 8 on q, v: a layer's seven matrices (q, k, v, o 4096 x 4096;
 * gate, up, down 4096 x 11008) in NF4, each on its own: 4096² -> 8,388,608 + 262,144
 * block scales + 4 x 1,024 = 8,654,848 B; 4096 x 11008 -> 22,544,384 + 704,512 +
 * 4 x 2,752 = 23,259,904 B; a layer 4 x 8,654,848 + 3 x 23,259,904 = 104,399,104 B, x 32
 * = 3,340,771,328 B for 6,476,005,376 params.  The other 262,410,240 params (embeddings,
 * norms) stay bf16.  The dequantized copy of the largest (4096 x 11008) is 90,177,536 B. */
static void test_qlora_llama(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    uint64_t params, bytes, scales, largest;
    assert_null(vl_nf4_base(&m.arch, true, &params, &bytes, &scales, &largest));
    assert_int_equal(params, 6476005376ULL);
    assert_int_equal(bytes, 3340771328ULL);
    assert_int_equal(largest, 4096ULL * 11008);
    /* bnb_4bit_use_double_quant off: an fp32 absmax each block, 4096² -> 8,388,608 +
     * 4 x 262,144 = 9,437,184 B, 4096 x 11008 -> 22,544,384 + 4 x 704,512 = 25,362,432 B:
     * 113,836,032 B a layer, 4.5 bits a weight */
    assert_null(vl_nf4_base(&m.arch, false, &params, &bytes, &scales, &largest));
    assert_int_equal(bytes, 32 * (4 * 9437184ULL + 3 * 25362432ULL));
    assert_int_equal(bytes, 6476005376ULL / 16 * 9);

    vl_settings s;
    eager_defaults(&s);
    s.lora_rank = 8;
    s.qlora = true;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    /* PEFT (hf) keeps the adapters on 4-bit layers in fp32: 4 B weights, 4 B gradients and
     * AdamW's two fp32 moments, no master or gradient copy */
    uint64_t frozen = 3340771328ULL + 262410240ULL * 2;
    assert_int_equal(b.lora.frozen_bytes, frozen);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], frozen + 4194304ULL * 4);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 4194304ULL * 4);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 4194304ULL * 8);
    assert_int_equal(b.act.dequant_bytes, 90177536ULL);
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], 32 * 571539456ULL + 313540608ULL + 90177536ULL);
    /* full recompute: the copy is live both at the end of the forward and while a layer is
     * recomputed */
    vl_breakdown plain;
    s.recompute = VL_RECOMPUTE_FULL;
    assert_null(vl_estimate(&m, &s, &b));
    s.qlora = false;
    s.peft = VL_PEFT_0_11; /* the 16-bit layers' adapters share their input, as QLoRA's do
                            * under autocast */
    assert_null(vl_estimate(&m, &s, &plain));
    assert_int_equal(b.bytes[VL_C_ACTIVATIONS], plain.bytes[VL_C_ACTIVATIONS] + 90177536ULL);
    /* --no-double-quant: the base's bytes above */
    s.qlora = true;
    s.double_quant = false;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.lora.frozen_bytes, 32 * (4 * 9437184ULL + 3 * 25362432ULL) +
                                              262410240ULL * 2);
}

/* QLoRA at rank 16 over the eager defaults. */
static vl_settings qlora_r16(void)
{
    vl_settings s;
    eager_defaults(&s);
    s.lora_rank = 16;
    s.qlora = true;
    return s;
}

/* QLoRA on Mistral 7B, r = 16 on all linear layers, paged 8-bit Adam: a layer's matrices
 * q, o 4096² (8,654,848 B each in NF4), k, v 4096 x 1024 (2,097,152 + 65,536 + 4 x 256 =
 * 2,163,712 B), gate, up, down 4096 x 14336 (29,360,128 + 917,504 + 4 x 3,584 =
 * 30,291,968 B): 112,513,024 B a layer, 3,600,416,768 B in all for 6,979,321,856 params;
 * 262,410,240 others in bf16.  41,943,040 adapter params x (4 + 4 + 2): PEFT's fp32
 * adapters on the 4-bit layers (no master or gradient copy) and 8-bit Adam's two moments
 * a byte each. */
static void test_qlora_mistral_8bit(void **state)
{
    (void)state;
    vl_model m = mistral_7b();
    vl_settings s = qlora_r16();
    s.lora_targets = VL_LORA_ALL_LINEAR;
    s.optimizer = VL_ADAM_8BIT;
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.P, 7241732096ULL);
    assert_int_equal(b.lora.nf4_params, 6979321856ULL);
    assert_int_equal(b.lora.nf4_bytes, 3600416768ULL);
    assert_int_equal(b.lora.frozen_bytes, 3600416768ULL + 262410240ULL * 2);
    assert_int_equal(b.lora.trainable_params, 41943040ULL);
    assert_int_equal(b.bytes[VL_C_WEIGHTS], 4125237248ULL + 41943040ULL * 4);
    assert_int_equal(b.bytes[VL_C_GRADIENTS], 41943040ULL * 4);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 41943040ULL * 2);
    assert_int_equal(b.act.dequant_bytes, 2 * 4096ULL * 14336);
    /* ZeRO-3 over 2 GPUs: half of everything but the block scales, which bitsandbytes keeps
     * beside each parameter and every GPU holds: a layer's 2 x 266,240 (q, o) + 2 x 66,560
     * (k, v) + 3 x 931,840 (gate, up, down), 3,461,120 B, x 32 = 110,755,840 B */
    assert_int_equal(b.lora.nf4_scale_bytes, 110755840ULL);
    s.zero = 3;
    s.gpus = 2;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.bytes[VL_C_WEIGHTS],
                     (4125237248ULL - 110755840ULL) / 2 + 110755840ULL + 41943040ULL * 2);
    assert_int_equal(b.bytes[VL_C_OPTIMIZER], 41943040ULL);
}

/* The same base under bf16 autocast, PEFT's fp32 upcast of the 262,410,240 others
 * (131,072,000 embedding, 131,072,000 head, 266,240 norm params) at 4 B, or with trl's
 * cast back (qlora_bf16_embeddings) the embeddings and the head at 2 B, which then need no
 * 16-bit copy for the logits' matmul: 131,072,000 x 2 B fewer saved. */
static void test_qlora_trl_bf16_embeddings(void **state)
{
    (void)state;
    vl_model m = mistral_7b();
    vl_settings s = qlora_r16();
    s.precision = VL_BF16_AMP;
    vl_breakdown peft, trl;
    assert_null(vl_estimate(&m, &s, &peft));
    assert_int_equal(peft.lora.bf16_params, 0);
    assert_int_equal(peft.lora.frozen_bytes, 3600416768ULL + 262410240ULL * 4);
    vl_framework f = *s.framework;
    f.qlora_bf16_embeddings = true;
    s.framework = &f;
    assert_null(vl_estimate(&m, &s, &trl));
    assert_int_equal(trl.lora.bf16_params, 262144000ULL);
    assert_int_equal(trl.lora.frozen_bytes, 3600416768ULL + 266240ULL * 4 + 262144000ULL * 2);
    assert_int_equal(peft.bytes[VL_C_ACTIVATIONS] - trl.bytes[VL_C_ACTIVATIONS], 262144000ULL);
    /* trl casts only under bf16; fp16 autocast and pure bf16 keep what PEFT left */
    s.precision = VL_FP16_AMP;
    assert_null(vl_estimate(&m, &s, &trl));
    assert_int_equal(trl.lora.bf16_params, 0);
    s.precision = VL_BF16;
    assert_null(vl_estimate(&m, &s, &trl));
    assert_int_equal(trl.lora.frozen_bytes, 3600416768ULL + 262410240ULL * 2);
}

/* QLoRA of Llama 2 7B under Lightning's BitsandbytesPrecision (litgpt): the output layer is
 * a 4-bit layer too, 32000 x 4096 = 131,072,000 weights: 65,536,000 B + 2,048,000 block
 * scales + 4 x 8,000 = 67,616,000 B in NF4 beside the layers' 3,340,771,328 (test_qlora_llama),
 * leaving the 131,338,240 embedding and norm params at 2 B.  Quantized from fp16, each
 * matrix dequantizes to fp16 and a bf16 model casts it: 2 x 2 B a weight, 180,355,072 B for
 * the largest layer matrix and 524,288,000 B for the head, the larger the sum's term; in
 * fp16 no cast, one copy each. */
static void test_qlora_lightning(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s;
    eager_defaults(&s);
    s.precision = VL_BF16;
    s.lora_rank = 8;
    s.qlora = true;
    vl_settings_take_framework(&s, vl_framework_find("litgpt"));
    vl_breakdown b;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.lora.nf4_params, 6476005376ULL + 131072000ULL);
    assert_int_equal(b.lora.nf4_bytes, 3340771328ULL + 67616000ULL);
    assert_int_equal(b.lora.frozen_bytes, 3340771328ULL + 67616000ULL + 131338240ULL * 2);
    assert_int_equal(b.act.layer_dequant_bytes, 4 * 4096ULL * 11008);
    assert_int_equal(b.act.head_dequant_bytes, 4 * 131072000ULL);
    assert_int_equal(b.act.dequant_bytes, 4 * 131072000ULL);
    s.precision = VL_FP16;
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.act.layer_dequant_bytes, 2 * 4096ULL * 11008);
    assert_int_equal(b.act.head_dequant_bytes, 2 * 131072000ULL);
    /* transformers keeps the head in 16 bits and quantizes from the checkpoint's dtype */
    s.precision = VL_BF16;
    vl_settings_take_framework(&s, vl_framework_find("hf"));
    assert_null(vl_estimate(&m, &s, &b));
    assert_int_equal(b.lora.nf4_bytes, 3340771328ULL);
    assert_int_equal(b.act.head_dequant_bytes, 0);
    assert_int_equal(b.act.dequant_bytes, 2 * 4096ULL * 11008);
}

static void test_lora_bad_settings(void **state)
{
    (void)state;
    vl_model m = llama2_7b();
    vl_settings s;
    vl_breakdown b;
    eager_defaults(&s);
    s.qlora = true;
    assert_non_null(strstr(settings_why(&s), "--qlora needs --lora-rank"));
    eager_defaults(&s);
    s.lora_rank = VL_MAX_LORA_RANK + 1;
    assert_non_null(strstr(settings_why(&s), "--lora-rank"));
    eager_defaults(&s);
    s.lora_rank = 8;
    s.mode = VL_MODE_INFER;
    assert_non_null(strstr(settings_why(&s), "--lora-rank applies to --mode train only"));
    eager_defaults(&s);
    s.lora_rank = 8;
    s.lora_targets = 0;
    assert_non_null(vl_estimate(&m, &s, &b));
    /* a standard MLP has no gate */
    vl_model g = model_of((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .vocab = 50257,
                                    .mlp = VL_MLP_STANDARD});
    eager_defaults(&s);
    s.lora_rank = 8;
    s.lora_targets = 1u << VL_LORA_GATE;
    assert_non_null(strstr(vl_estimate(&g, &s, &b), "no gate"));
}

/* With every linear layer adapted nothing is frozen in the layers: a layer keeps what full
 * fine-tuning keeps plus each adapter's x.A (GPT-2: q, k, v, o, up, down; no gate), and only
 * the embedding's indices and the frozen output layer's input go (adapters in the layer's
 * dtype, PEFT before 0.12). */
static void test_lora_all_linear_activations(void **state)
{
    (void)state;
    vl_arch a = arch((vl_arch){.hidden = 768, .layers = 12, .heads = 12, .vocab = 50257,
                               .max_positions = 1024, .position = VL_POS_LEARNED,
                               .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                               .dropout = true});
    vl_settings s;
    eager_defaults(&s);
    s.seq = 1024;
    s.batch = 4;
    vl_activations full, lora;
    bool ovf = false;
    vl_activations_compute(&a, &s, &full, &ovf);
    s.lora_rank = 16;
    s.lora_targets = VL_LORA_ALL_LINEAR;
    s.peft = VL_PEFT_0_11;
    vl_activations_compute(&a, &s, &lora, &ovf);
    assert_false(ovf);
    const uint64_t sb = 4 * 1024;
    assert_int_equal(lora.layer_bytes, full.layer_bytes + 6 * 2 * sb * 16);
    assert_int_equal(lora.outside_bytes, full.outside_bytes - 8 * sb - 2 * sb * 768);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_qv),     cmocka_unit_test(test_mistral_all_linear),
        cmocka_unit_test(test_head),
        cmocka_unit_test(test_gpt2_no_gate), cmocka_unit_test(test_moe),
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_nf4),
        cmocka_unit_test(test_lora_llama_bf16_mixed), cmocka_unit_test(test_qlora_llama),
        cmocka_unit_test(test_qlora_mistral_8bit), cmocka_unit_test(test_qlora_trl_bf16_embeddings),
        cmocka_unit_test(test_qlora_lightning),
        cmocka_unit_test(test_lora_bad_settings),
        cmocka_unit_test(test_lora_all_linear_activations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
