/* test_gguf.c: GGUF block layouts, llama-quantize's tensor mix, and published file sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "core/gguf.h"

/* Bits per weight as ggml-common.h's comments state them ("Effectively 4.5 bits per
 * weight", "2.0625 bpw", ...), and the legacy types' 2-byte scale per block of 32. */
static void test_block_layouts(void **state)
{
    (void)state;
    static const struct {
        vl_ggml_type t;
        double bpw;
        unsigned block, bytes;
    } rows[] = {
        {VL_GGML_Q4_0, 4.5, 32, 18},       {VL_GGML_Q4_1, 5.0, 32, 20},
        {VL_GGML_Q5_0, 5.5, 32, 22},       {VL_GGML_Q5_1, 6.0, 32, 24},
        {VL_GGML_Q8_0, 8.5, 32, 34},       {VL_GGML_Q2_K, 2.625, 256, 84},
        {VL_GGML_Q3_K, 3.4375, 256, 110},  {VL_GGML_Q4_K, 4.5, 256, 144},
        {VL_GGML_Q5_K, 5.5, 256, 176},     {VL_GGML_Q6_K, 6.5625, 256, 210},
        {VL_GGML_IQ2_XXS, 2.0625, 256, 66}, {VL_GGML_IQ2_XS, 2.3125, 256, 74},
        {VL_GGML_IQ2_S, 2.5625, 256, 82},  {VL_GGML_IQ3_XXS, 3.0625, 256, 98},
        {VL_GGML_IQ3_S, 3.4375, 256, 110}, {VL_GGML_IQ1_S, 1.5625, 256, 50},
        {VL_GGML_IQ1_M, 1.75, 256, 56},    {VL_GGML_IQ4_NL, 4.5, 32, 18},
        {VL_GGML_IQ4_XS, 4.25, 256, 136},  {VL_GGML_F16, 16, 1, 2},
        {VL_GGML_BF16, 16, 1, 2},          {VL_GGML_F32, 32, 1, 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const vl_ggml_type_info *t = vl_ggml_info(rows[i].t);
        assert_int_equal(t->block, rows[i].block);
        assert_int_equal(t->bytes, rows[i].bytes);
        assert_true(vl_ggml_bits_per_weight(rows[i].t) == rows[i].bpw);
    }
    uint64_t b;
    assert_true(vl_ggml_bytes(VL_GGML_Q4_K, 4096ULL * 4096, &b));
    assert_int_equal(b, 4096ULL * 4096 / 256 * 144);
}

static void test_ftype_names(void **state)
{
    (void)state;
    vl_gguf_ftype ft;
    assert_true(vl_gguf_ftype_parse("q4_k_m", &ft));
    assert_int_equal(ft, VL_GGUF_Q4_K_M);
    assert_true(vl_gguf_ftype_parse("Q5_K_S", &ft));
    assert_int_equal(ft, VL_GGUF_Q5_K_S);
    assert_string_equal(vl_gguf_ftype_name(VL_GGUF_IQ4_XS), "iq4_xs");
    assert_false(vl_gguf_ftype_parse("q4_k_x", &ft));
    assert_false(vl_gguf_ftype_parse("", &ft));
    assert_int_equal(vl_gguf_default_type(VL_GGUF_Q4_K_M), VL_GGML_Q4_K);
    assert_int_equal(vl_gguf_default_type(VL_GGUF_Q3_K_L), VL_GGML_Q3_K);
}

static const vl_arch llama2_7b = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 32,
                                  .head_dim = 128, .ffn = 11008, .vocab = 32000,
                                  .experts = 1, .experts_per_token = 1, .moe_ffn = 11008,
                                  .shared_ffn = 11008, .norms_per_layer = 2,
                                  .v_head_dim = 128};

static vl_gguf_weights weights(const vl_arch *a, vl_gguf_ftype ft)
{
    vl_gguf_weights w;
    vl_gguf_layout layout = vl_gguf_default_layout(a);
    assert_true(vl_gguf_weights_of(a, &layout, ft, &w));
    return w;
}

/* Llama-2-7B q4_k_m by hand.  use_more_bits(i, 32) holds for i < 4, i >= 28 and
 * i = 6, 9, ..., 27: 16 layers, whose attn_v (4096 x 4096) and ffn_down (11008 x 4096) are
 * q6_K (210 bytes a 256), the rest q4_K (144 bytes); output.weight q6_K, token_embd q4_K,
 * norms f32:
 *   q, k, o, gate, up: 32 x (3·16,777,216 + 2·45,088,768) x 144/256 = 2,529,165,312
 *   attn_v: 16 x 13,762,560 + 16 x 9,437,184                 =   371,195,904
 *   ffn_down: 16 x 36,986,880 + 16 x 25,362,432              =   997,588,992
 *   token_embd 73,728,000 + output 107,520,000 + norms 4 x (65·4096) = 182,313,984
 * in all 4,080,263,168 bytes of tensor data. */
static void test_llama2_7b_q4_k_m_by_hand(void **state)
{
    (void)state;
    vl_gguf_weights w = weights(&llama2_7b, VL_GGUF_Q4_K_M);
    assert_int_equal(w.bytes, 4080263168ULL);
    assert_int_equal(w.type_elements[VL_GGML_Q6_K],
                     16ULL * (16777216 + 45088768) + 32000ULL * 4096);
    assert_int_equal(w.type_elements[VL_GGML_F32], 65ULL * 4096);
    assert_int_equal(w.elements, 6738415616ULL); /* every parameter, once */
    assert_true(fabs(vl_gguf_bits_per_weight(&w) - 8.0 * 4080263168.0 / 6738415616.0) < 1e-12);
    /* f16: 16 bits a weight but the norms, which stay f32 */
    w = weights(&llama2_7b, VL_GGUF_F16);
    assert_int_equal(w.bytes, 2 * (6738415616ULL - 65 * 4096) + 4 * 65 * 4096);
}

/* The iq file types (made with an importance matrix, which llama-quantize requires for
 * them).  Llama-2-7B iq2_xxs: attn_v at q2_K (fewer than 4 query heads a KV head), ffn_down
 * at q2_K in the first 32/8 = 4 layers, token_embd at q2_K, the output at q5_K, the rest
 * iq2_xxs (66 bytes a 256).  Mistral 7B iq3_m (4 query heads a KV head): attn_v,
 * attn_output and the first 4 layers' ffn_down at q4_K, the output at q6_K, the rest
 * iq3_s (110 bytes a 256). */
static void test_iq_file_types(void **state)
{
    (void)state;
    const uint64_t sq = 16777216ULL, ff = 45088768ULL, emb = 32000ULL * 4096;
    vl_gguf_weights w = weights(&llama2_7b, VL_GGUF_IQ2_XXS);
    assert_int_equal(w.type_elements[VL_GGML_Q2_K], emb + 32 * sq + 4 * ff);
    assert_int_equal(w.type_elements[VL_GGML_Q5_K], emb);
    assert_int_equal(w.type_elements[VL_GGML_IQ2_XXS], 32 * (3 * sq + 2 * ff) + 28 * ff);
    assert_int_equal(w.type_bytes[VL_GGML_IQ2_XXS],
                     (32 * (3 * sq + 2 * ff) + 28 * ff) / 256 * 66);

    const vl_arch mistral = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                             .head_dim = 128, .ffn = 14336, .vocab = 32000, .experts = 1,
                             .experts_per_token = 1, .moe_ffn = 14336, .shared_ffn = 14336,
                             .norms_per_layer = 2, .v_head_dim = 128};
    const uint64_t kv = 4096ULL * 1024, mff = 4096ULL * 14336;
    w = weights(&mistral, VL_GGUF_IQ3_M);
    assert_int_equal(w.type_elements[VL_GGML_Q4_K], 32 * (kv + sq) + 4 * mff);
    assert_int_equal(w.type_elements[VL_GGML_Q6_K], emb);
    assert_int_equal(w.type_elements[VL_GGML_IQ3_S], emb + 32 * (sq + kv + 2 * mff) + 28 * mff);
}

/* Published sizes of GGUF files on Hugging Face (TheBloke's repositories; their model
 * cards round them: Llama-2-7B q4_k_m "4.08 GB").  A file adds its metadata (the
 * tokenizer, about 0.7 MB here) and alignment to the tensor data: the data must be a
 * little smaller, within 3%. */
static void test_published_files(void **state)
{
    (void)state;
    const vl_arch mistral_7b = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                                .head_dim = 128, .ffn = 14336, .vocab = 32000,
                                .experts = 1, .experts_per_token = 1, .moe_ffn = 14336,
                                .shared_ffn = 14336, .norms_per_layer = 2, .v_head_dim = 128};
    vl_arch codellama_13b = {.hidden = 5120, .layers = 40, .heads = 40, .kv_heads = 40,
                             .head_dim = 128, .ffn = 13824, .vocab = 32016,
                             .experts = 1, .experts_per_token = 1, .moe_ffn = 13824,
                             .shared_ffn = 13824, .norms_per_layer = 2, .v_head_dim = 128};
    vl_arch codellama_34b = {.hidden = 8192, .layers = 48, .heads = 64, .kv_heads = 8,
                             .head_dim = 128, .ffn = 22016, .vocab = 32000,
                             .experts = 1, .experts_per_token = 1, .moe_ffn = 22016,
                             .shared_ffn = 22016, .norms_per_layer = 2, .v_head_dim = 128};
    static const struct {
        const char *file;
        int model;
        vl_gguf_ftype ft;
        uint64_t bytes;
    } rows[] = {
        {"TheBloke/Llama-2-7B-GGUF llama-2-7b.Q4_K_M.gguf", 0, VL_GGUF_Q4_K_M, 4081004224ULL},
        {"TheBloke/Llama-2-7B-GGUF llama-2-7b.Q5_K_M.gguf", 0, VL_GGUF_Q5_K_M, 4783156928ULL},
        {"TheBloke/Llama-2-7B-GGUF llama-2-7b.Q8_0.gguf", 0, VL_GGUF_Q8_0, 7161089728ULL},
        {"TheBloke/Mistral-7B-Instruct-v0.1-GGUF Q4_K_M", 1, VL_GGUF_Q4_K_M, 4368438944ULL},
        {"TheBloke/Mistral-7B-Instruct-v0.1-GGUF Q5_K_M", 1, VL_GGUF_Q5_K_M, 5131409056ULL},
        {"TheBloke/CodeLlama-13B-Instruct-GGUF Q4_K_M", 2, VL_GGUF_Q4_K_M, 7866070016ULL},
        {"TheBloke/CodeLlama-13B-Instruct-GGUF Q5_K_M", 2, VL_GGUF_Q5_K_M, 9230048256ULL},
        {"TheBloke/CodeLlama-13B-Instruct-GGUF Q8_0", 2, VL_GGUF_Q8_0, 13831494016ULL},
        {"TheBloke/Phind-CodeLlama-34B-v2-GGUF Q4_K_M", 3, VL_GGUF_Q4_K_M, 20219900064ULL},
        {"TheBloke/Phind-CodeLlama-34B-v2-GGUF Q5_K_M", 3, VL_GGUF_Q5_K_M, 23838797984ULL},
        {"TheBloke/Phind-CodeLlama-34B-v2-GGUF Q8_0", 3, VL_GGUF_Q8_0, 35856052384ULL},
    };
    const vl_arch *models[] = {&llama2_7b, &mistral_7b, &codellama_13b, &codellama_34b};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        vl_gguf_weights w = weights(models[rows[i].model], rows[i].ft);
        double off = ((double)rows[i].bytes - (double)w.bytes) / (double)rows[i].bytes;
        if (w.bytes > rows[i].bytes || off > 0.03)
            fail_msg("%s: tensor data %llu bytes, file %llu (%.3f%%)", rows[i].file,
                     (unsigned long long)w.bytes, (unsigned long long)rows[i].bytes, 100 * off);
    }
}

/* Falcon-7B (hidden 4544, not a multiple of 256): llama-quantize's Falcon rules and its
 * fallbacks.  q4_k_m: the fused attn_qkv (4544 x 4672) is q6_K in the 16 use_more_bits
 * layers, falling back to q8_0, else q4_K falling back to q5_0; ffn_up and attn_output
 * (4544 wide) q4_K -> q5_0; ffn_down (18176 wide) q6_K below 32/16 = 2 layers, q5_K in the other 14
 * use_more_bits layers, q4_K in the 16 others; the tied embedding is typed as the output:
 * q8_0 for Falcon. */
static void test_falcon_rules(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4544, .layers = 32, .heads = 71, .kv_heads = 1, .head_dim = 64,
                 .ffn = 18176, .vocab = 65024, .mlp = VL_MLP_STANDARD,
                 .norm = VL_NORM_LAYERNORM, .tie_embeddings = true, .parallel_attention = true,
                 .experts = 1, .experts_per_token = 1, .moe_ffn = 18176, .shared_ffn = 18176,
                 .norms_per_layer = 1, .v_head_dim = 64};
    vl_gguf_layout layout = vl_gguf_default_layout(&a);
    assert_true(layout.fused_qkv && layout.falcon);
    vl_gguf_weights w = weights(&a, VL_GGUF_Q4_K_M);
    const uint64_t qkv = 4544ULL * 4672, down = 18176ULL * 4544;
    assert_int_equal(w.type_elements[VL_GGML_Q8_0], 16 * qkv + 65024ULL * 4544);
    assert_int_equal(w.type_elements[VL_GGML_Q6_K], 2 * down);
    assert_int_equal(w.type_elements[VL_GGML_Q5_K], 14 * down);
    assert_int_equal(w.type_elements[VL_GGML_Q4_K], 16 * down);
    assert_int_equal(w.type_elements[VL_GGML_Q5_0], 16 * qkv + 32 * down + 32 * 4544ULL * 4544);
    assert_int_equal(w.elements, 6921720704ULL);
}

/* Phi-3 mini (microsoft/Phi-3-mini-4k-instruct: hidden 3072, 32 layers, intermediate 8192,
 * vocab 32064) as llama.cpp lays it out: one attn_qkv (3072 x 9216) typed as attn_v, and
 * ffn_up 3072 x 16384 holding gate and up.  q4_k_m: attn_qkv and ffn_down at q6_K in the 16
 * use_more_bits layers; the rest of the layers at q4_K. */
static void test_phi3_layout(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 3072, .layers = 32, .heads = 32, .ffn = 8192, .vocab = 32064};
    vl_arch_defaults(&a);
    vl_gguf_layout l = vl_gguf_layout_for("phi3", &a);
    assert_true(l.fused_qkv && l.fused_gate_up && !l.falcon);
    l = vl_gguf_layout_for("llama", &a);
    assert_false(l.fused_qkv || l.fused_gate_up || l.falcon);
    l = vl_gguf_layout_for("phi3", &a);
    vl_gguf_weights w;
    assert_true(vl_gguf_weights_of(&a, &l, VL_GGUF_Q4_K_M, &w));
    const uint64_t qkv = 3072ULL * 9216, up = 3072ULL * 16384, down = 8192ULL * 3072,
                   o = 3072ULL * 3072, emb = 32064ULL * 3072;
    assert_int_equal(w.type_elements[VL_GGML_Q6_K], 16 * (qkv + down) + emb);
    assert_int_equal(w.type_elements[VL_GGML_Q4_K], 16 * (qkv + down) + 32 * (up + o) + emb);
    assert_int_equal(w.elements, 3821079552ULL);
}

/* Mixtral 8x7B (8 experts): attn_v and attn_k at q8_0, attn_output at q5_K for q4_k_m;
 * the experts' ffn_down follow use_more_bits per layer.  Every parameter is stored once
 * (46,702,792,704: the router's 32 x 4096 x 8 at f32). */
static void test_mixtral_rules(void **state)
{
    (void)state;
    vl_arch a = {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8, .head_dim = 128,
                 .ffn = 14336, .vocab = 32000, .experts = 8, .experts_per_token = 2,
                 .moe_ffn = 14336, .shared_ffn = 14336, .norms_per_layer = 2,
                 .v_head_dim = 128};
    vl_gguf_weights w = weights(&a, VL_GGUF_Q4_K_M);
    const uint64_t kv = 4096ULL * 1024, down = 8ULL * 14336 * 4096;
    assert_int_equal(w.type_elements[VL_GGML_Q8_0], 32 * 2 * kv);
    assert_int_equal(w.type_elements[VL_GGML_Q5_K], 32 * 4096ULL * 4096);
    assert_int_equal(w.type_elements[VL_GGML_Q6_K], 16 * down + 32000ULL * 4096);
    assert_int_equal(w.type_elements[VL_GGML_F32], 32 * (2 * 4096ULL + 8 * 4096) + 4096);
    assert_int_equal(w.elements, 46702792704ULL);
}

/* Every parameter of the architecture is in exactly one tensor: MLA, shared experts and
 * dense layers (DeepSeek-V2-Lite), q and k norms (Qwen3), a tied embedding. */
static void test_conservation(void **state)
{
    (void)state;
    vl_arch ds = {.hidden = 2048, .layers = 27, .heads = 16, .head_dim = 192, .ffn = 10944,
                  .vocab = 102400, .kv_lora_rank = 512, .qk_rope_head_dim = 64,
                  .v_head_dim = 128, .experts = 64, .experts_per_token = 6,
                  .shared_experts = 2, .moe_ffn = 1408, .dense_layers = 1};
    vl_arch qwen3 = {.hidden = 1024, .layers = 28, .heads = 16, .kv_heads = 8, .head_dim = 128,
                     .ffn = 3072, .vocab = 151936, .tie_embeddings = true,
                     .qk_norm = VL_QK_NORM_HEAD};
    /* GPT-J: biases on the MLP and the output layer (output.bias), none on attention */
    vl_arch gptj = {.hidden = 4096, .layers = 28, .heads = 16, .vocab = 50400,
                    .position = VL_POS_ROPE, .mlp = VL_MLP_STANDARD, .norm = VL_NORM_LAYERNORM,
                    .mlp_bias = true, .attention_out_bias = VL_OUT_BIAS_OFF, .head_bias = true,
                    .parallel_attention = true};
    vl_arch *archs[] = {&ds, &qwen3, &gptj};
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++) {
        vl_arch_defaults(archs[i]);
        vl_params p;
        assert_true(vl_count_params(archs[i], &p));
        for (int ft = 0; ft < VL_GGUF_N; ft++) {
            vl_gguf_weights w = weights(archs[i], (vl_gguf_ftype)ft);
            assert_int_equal(w.elements, p.total);
            uint64_t sum = 0;
            for (int t = 0; t < VL_GGML_N; t++)
                sum += w.type_bytes[t];
            assert_int_equal(sum, w.bytes);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_layouts),
        cmocka_unit_test(test_ftype_names),
        cmocka_unit_test(test_llama2_7b_q4_k_m_by_hand),
        cmocka_unit_test(test_iq_file_types),
        cmocka_unit_test(test_published_files),
        cmocka_unit_test(test_falcon_rules),
        cmocka_unit_test(test_phi3_layout),
        cmocka_unit_test(test_mixtral_rules),
        cmocka_unit_test(test_conservation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
