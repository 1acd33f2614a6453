/* gguf.h: the bytes of a model's weights in a llama.cpp GGUF file type (HACKING §4).
 *
 * Two tables and one rule, all from llama.cpp's own source:
 *  - the tensor types (ggml_type): elements and bytes per block, from the block_* structs of
 *    ggml/src/ggml-common.h (block_q4_K: 2 halves + 12 scale bytes + 128 nibble bytes for
 *    256 weights = 144 bytes, 4.5 bits a weight);
 *  - the file types (llama_ftype, as llama-quantize names them: q4_k_m, q8_0, ...) and their
 *    default tensor type, from llama_ftype_get_default_type in src/llama-quant.cpp;
 *  - the per-tensor mix, from llama_tensor_get_type_impl in src/llama-quant.cpp: which
 *    tensors a file type keeps at a larger type (q4_k_m: attn_v and ffn_down at q6_K in
 *    half the layers, output.weight at q6_K), with its fallbacks for rows whose length the
 *    block does not divide.
 * The model is the architecture of model.h, its tensors named and shaped as llama.cpp's
 * converter (convert_hf_to_gguf.py) writes them.  Where a choice depends on an importance
 * matrix, the k-quant and legacy file types are taken without one, and the iq1, iq2 and iq3
 * file types, which llama-quantize refuses to make without one, with one. */
#ifndef VL_GGUF_H
#define VL_GGUF_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* ggml tensor types; the table in gguf.c gives each its block layout and source. */
#define VL_GGML_TYPES(X)                                                                      \
    X(F32, "f32") X(F16, "f16") X(BF16, "bf16") X(Q4_0, "q4_0") X(Q4_1, "q4_1")              \
    X(Q5_0, "q5_0") X(Q5_1, "q5_1") X(Q8_0, "q8_0") X(Q2_K, "q2_K") X(Q3_K, "q3_K")          \
    X(Q4_K, "q4_K") X(Q5_K, "q5_K") X(Q6_K, "q6_K") X(IQ1_S, "iq1_s") X(IQ1_M, "iq1_m")      \
    X(IQ2_XXS, "iq2_xxs") X(IQ2_XS, "iq2_xs") X(IQ2_S, "iq2_s") X(IQ3_XXS, "iq3_xxs")       \
    X(IQ3_S, "iq3_s") X(IQ4_NL, "iq4_nl") X(IQ4_XS, "iq4_xs")

#define VL_GGML_ENUM(id, name) VL_GGML_##id,
typedef enum { VL_GGML_TYPES(VL_GGML_ENUM) VL_GGML_N } vl_ggml_type;
#undef VL_GGML_ENUM

typedef struct {
    const char *name;    /* ggml_type_name: "q4_K" */
    uint32_t block;      /* weights a block holds (ggml_blck_size) */
    uint32_t bytes;      /* bytes a block takes (ggml_type_size) */
} vl_ggml_type_info;

const vl_ggml_type_info *vl_ggml_info(vl_ggml_type t);
/* 8 * bytes / block: q4_K 4.5, q6_K 6.5625, q8_0 8.5. */
double vl_ggml_bits_per_weight(vl_ggml_type t);
/* Bytes of n weights stored as t, n a multiple of the block; false on overflow. */
bool vl_ggml_bytes(vl_ggml_type t, uint64_t n, uint64_t *bytes);

/* llama.cpp file types, by the names llama-quantize takes (case-insensitive): the float
 * ones, then the quantized ones (which --weight-dtype takes as well; see settings.h). */
#define VL_GGUF_FLOAT_FTYPES(X) X(F32, "f32") X(F16, "f16") X(BF16, "bf16")
#define VL_GGUF_QUANT_FTYPES(X)                                                               \
    X(Q4_0, "q4_0") X(Q4_1, "q4_1") X(Q5_0, "q5_0") X(Q5_1, "q5_1") X(Q8_0, "q8_0")          \
    X(Q2_K, "q2_k") X(Q2_K_S, "q2_k_s") X(Q3_K_S, "q3_k_s") X(Q3_K_M, "q3_k_m")              \
    X(Q3_K_L, "q3_k_l") X(Q4_K_S, "q4_k_s") X(Q4_K_M, "q4_k_m") X(Q5_K_S, "q5_k_s")          \
    X(Q5_K_M, "q5_k_m") X(Q6_K, "q6_k") X(IQ4_NL, "iq4_nl") X(IQ4_XS, "iq4_xs")              \
    X(IQ3_XXS, "iq3_xxs") X(IQ3_XS, "iq3_xs") X(IQ3_S, "iq3_s") X(IQ3_M, "iq3_m")            \
    X(IQ2_XXS, "iq2_xxs") X(IQ2_XS, "iq2_xs") X(IQ2_S, "iq2_s") X(IQ2_M, "iq2_m")            \
    X(IQ1_S, "iq1_s") X(IQ1_M, "iq1_m")
#define VL_GGUF_FTYPES(X) VL_GGUF_FLOAT_FTYPES(X) VL_GGUF_QUANT_FTYPES(X)

#define VL_GGUF_ENUM(id, name) VL_GGUF_##id,
typedef enum { VL_GGUF_FTYPES(VL_GGUF_ENUM) VL_GGUF_N } vl_gguf_ftype;
#undef VL_GGUF_ENUM

const char *vl_gguf_ftype_name(vl_gguf_ftype ft);
/* "q4_k_m", "Q4_K_M": true and *ft; false for anything else. */
bool vl_gguf_ftype_parse(const char *name, vl_gguf_ftype *ft);
/* The type most tensors of the file type get (llama_ftype_get_default_type). */
vl_ggml_type vl_gguf_default_type(vl_gguf_ftype ft);

/* How llama.cpp lays out an architecture's tensors, where model.h does not say. */
typedef struct {
    bool fused_qkv;      /* one attn_qkv tensor (GPT-2, GPT-NeoX, Falcon, BLOOM, Phi-3) */
    bool fused_gate_up;  /* one ffn_up of width 2f holding gate and up (Phi-3) */
    bool falcon;         /* llama.cpp's LLM_ARCH_FALCON rules (output at q8_0, ...) */
} vl_gguf_layout;

/* The layout model.h implies: fused q, k, v with parallel attention, ALiBi or learned
 * positions without token types (GPT-NeoX, Falcon, BLOOM, GPT-2), Falcon's rules for
 * parallel attention without biases.  Phi-3's fused layout cannot be told from the
 * architecture: vl_gguf_layout_for names it. */
vl_gguf_layout vl_gguf_default_layout(const vl_arch *a);

/* The layout of a Hugging Face model_type as llama.cpp converts it ("phi3": fused q, k, v
 * and gate, up; "falcon": fused q, k, v and Falcon's rules); other types: the default. */
vl_gguf_layout vl_gguf_layout_for(const char *model_type, const vl_arch *a);

/* The tensor data of a model in a file type. */
typedef struct {
    uint64_t bytes;                  /* all tensor data; the file adds its metadata */
    uint64_t elements;               /* all weights */
    uint64_t type_elements[VL_GGML_N]; /* weights stored in each tensor type */
    uint64_t type_bytes[VL_GGML_N];
    /* llama.cpp's input layer, token_embd and the position and token-type embeddings, which
     * it keeps in CPU memory (LLM_TENSOR_LAYER_INPUT, src/llama-arch.cpp; "there is very
     * little benefit to offloading the input layer", src/llama-model.cpp); with tied
     * embeddings the output layer is token_embd loaded again (TENSOR_DUPLICATED) */
    uint64_t input_bytes;
    uint64_t output_copy_bytes;
} vl_gguf_weights;

/* The tensors of the architecture, typed as llama-quantize types them for ft (without an
 * importance matrix), and their bytes.  False only on overflow. */
bool vl_gguf_weights_of(const vl_arch *a, const vl_gguf_layout *layout, vl_gguf_ftype ft,
                        vl_gguf_weights *out);

/* What a full offload puts on the GPUs: every tensor but the input layer's, and the output
 * layer's copy of token_embd when the embeddings are tied. */
uint64_t vl_gguf_gpu_bytes(const vl_gguf_weights *w);

/* Bits per weight of the whole file's tensor data: 8 * bytes / elements. */
double vl_gguf_bits_per_weight(const vl_gguf_weights *w);

#endif
