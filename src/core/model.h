/* model.h: a transformer's architecture and its exact parameter count (HACKING §4.1).
 *
 * Counts are exact integers: the shipped presets reproduce the published counts to the
 * parameter (GPT-2 124,439,808; Llama-2-7B 6,738,415,616; ...). */
#ifndef VL_MODEL_H
#define VL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { VL_POS_ROPE, VL_POS_LEARNED, VL_POS_ALIBI } vl_position;
typedef enum { VL_MLP_GATED, VL_MLP_STANDARD } vl_mlp;
typedef enum { VL_NORM_RMSNORM, VL_NORM_LAYERNORM } vl_norm;
/* pre: a norm before each sublayer and a final norm (GPT-2 on); post: a norm after each
 * sublayer and none at the end (BERT, the original Transformer). */
typedef enum { VL_NORM_PRE, VL_NORM_POST } vl_norm_position;
/* Norms on the queries and keys before the dot product: head, one norm of head_dim for
 * the queries and one for the keys, shared by the heads (Qwen3, Gemma 3); full, one over
 * all query heads and one over all key heads (OLMo 2). */
typedef enum { VL_QK_NORM_NONE, VL_QK_NORM_HEAD, VL_QK_NORM_FULL } vl_qk_norm;
/* The dtype of the softmax in the model's own eager attention code, where the framework
 * runs it (a profile whose `transformers` is set, with softmax_fp32): fp32, softmax(...,
 * dtype=torch.float32) as transformers' Llama family writes it; input, in the scores' own
 * dtype (BERT's nn.Softmax, GPT-2's, Falcon's softmax(..., dtype=hidden_states.dtype));
 * fused, in fp32 within one TorchScript function that its fuser compiles to one kernel
 * (GPTBigCode's upcast_masked_softmax): no fp32 copy of the scores is made for it to read,
 * and without a gradient no fp32 output is made either. */
typedef enum { VL_SOFTMAX_FP32, VL_SOFTMAX_INPUT, VL_SOFTMAX_FUSED } vl_eager_softmax;
/* Dropout on the attention probabilities, where it differs from the model's other dropout
 * (OPT's and Phi's attention_dropout is 0 where their residual dropout is 0.1): as dropout
 * says, off or on. */
typedef enum {
    VL_ATTN_DROPOUT_AS_DROPOUT,
    VL_ATTN_DROPOUT_OFF,
    VL_ATTN_DROPOUT_ON
} vl_attn_dropout;
/* The bias of attention's output projection, where it differs from the MLP's (GPT-J's MLP
 * has biases, its attention none): as mlp_bias says, off or on. */
typedef enum { VL_OUT_BIAS_AS_MLP, VL_OUT_BIAS_OFF, VL_OUT_BIAS_ON } vl_out_bias;
/* Which of Q, K and V the model's attention code takes as views of one fused QKV
 * projection's output, where a tensor kept as a view keeps that whole output: none
 * (separate projections, or copies: BLOOM, Falcon); V alone, Q and K made anew by RoPE
 * (transformers' GPT-NeoX and Phi-3, query_key_value and qkv_proj); all three (GPT-2's and
 * GPTBigCode's c_attn, split with no RoPE). */
typedef enum { VL_QKV_VIEWS_NONE, VL_QKV_VIEWS_V, VL_QKV_VIEWS_QKV } vl_qkv_views;

/* The transformers model class that runs the model, by config.json's model_type (the types
 * --hf-config reads), and what its releases did (vl_framework_on_class, read in the
 * released wheels' models/<type>/modeling_<type>.py, 4.31 to 5.0).  Each row, after the
 * type:
 *   the first release whose forward no longer returned fp32 logits in training (given
 *     labels), then in serving (Mistral's 4.46 and 4.47, Starcoder2's 4.46 and GPT-Neo's
 *     cast only given labels);
 *   the first whose forward took (num_)logits_to_keep;
 *   the first whose loss no longer copied the shifted logits as the forward returned them,
 *     casting the copy after (the class's own loss code before ForCausalLMLoss, which
 *     casts first);
 *   the first whose class took a Cache object (_supports_cache_class), so that 4.42's
 *     generate passed it a DynamicCache, not tuples of past_key_values that a decode step
 *     concatenates into new ones while the old stay referenced;
 *   the causal-mask buffer the class registers, max_position_embeddings squared bools
 *     (torch.tril): one in each attention layer (LAYER), one in the model (MODEL) or none;
 *     and the first release without it (ALWAYS: none yet);
 *   the first release whose training forward, with use_cache on and no past given, no
 *     longer returned every layer's K and V as tuples (a legacy cache) but in a Cache
 *     object, and what it does then: CACHE, the object; GUARD, the same, but 4.44 made no
 *     cache in training (`not self.training`); NONE, no cache in training at any release
 *     (encoders; Gemma 2 and 3, whose HybridCache was made only outside training, but for
 *     Gemma 2's 4.50 to 4.52);
 *   the first release and the first after it whose attention layers each registered cos
 *     and sin buffers of every position (the rotary embedding's cos_cached and sin_cached,
 *     Llama's _cos_cached and _sin_cached "for BC" from 4.38.2 to 4.40): the same release
 *     twice for none.  Partial rotary (Phi's, GPT-NeoX's, StableLM's) is counted at the
 *     head's whole width (vl_rope_tables_bytes);
 *   the first release whose padded batch hands SDPA a mask of bools (masking_utils'
 *     sdpa_mask: create_causal_mask, an encoder's create_bidirectional_mask), where before
 *     it was floats in the residual stream's dtype (vl_sdpa_padding_mask); ALWAYS: floats
 *     yet;
 *   the first release whose eager attention runs its softmax in fp32 where the model's
 *     eager_softmax says otherwise (softmax(..., dtype=torch.float32).to(query.dtype) in
 *     the eager_attention_forward GPT-NeoX took in 4.49 and GPTBigCode in 4.54; before,
 *     GPT-NeoX's _attn ran softmax in the scores' dtype); ALWAYS: as eager_softmax says.
 * 4_31, the first release modelled, stands for never (cast, shifted uncast) or from the
 * first (kept, a Cache object); CURRENT for through 4.57, 5.0 the first without.  llama,
 * the first row, is the default: LlamaForCausalLM's rules, which most classes copied. */
#define VL_MODEL_TYPES(X)                                                                                              \
    X(LLAMA, "llama", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_41, 4_53, ALWAYS)                 \
    X(BERT, "bert", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, CURRENT, ALWAYS)                 \
    X(BLOOM, "bloom", 4_31, 4_31, CURRENT, 4_49, 4_44, NONE, 4_31, 4_54, GUARD, 4_31, 4_31, ALWAYS, ALWAYS)            \
    X(DEEPSEEK_V2, "deepseek_v2", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, CACHE, 4_31, 4_31, 4_31, ALWAYS)     \
    X(DEEPSEEK_V3, "deepseek_v3", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, CACHE, 4_31, 4_31, 4_53, ALWAYS)     \
    X(DISTILBERT, "distilbert", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, CURRENT, ALWAYS)     \
    X(ERNIE4_5, "ernie4_5", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, CACHE, 4_31, 4_31, 4_31, ALWAYS)           \
    X(FALCON, "falcon", 4_31, 4_31, 4_47, 4_49, 4_45, NONE, 4_31, 4_54, CACHE, 4_36, 4_45, ALWAYS, ALWAYS)             \
    X(GEMMA, "gemma", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_31, 4_53, ALWAYS)                 \
    X(GEMMA2, "gemma2", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, 4_53, ALWAYS)                \
    X(GEMMA3, "gemma3", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, 4_53, ALWAYS)                \
    X(GEMMA3_TEXT, "gemma3_text", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, 4_53, ALWAYS)      \
    X(GPT2, "gpt2", 4_31, 4_31, 4_53, 4_49, 4_52, LAYER, ALWAYS, 4_56, CACHE, 4_31, 4_31, 4_55, ALWAYS)                \
    X(GPT_BIGCODE, "gpt_bigcode", 4_31, 4_31, CURRENT, 4_49, 4_54, MODEL, ALWAYS, 4_56, CACHE, 4_31, 4_31, 4_54, 4_54) \
    X(GPT_NEO, "gpt_neo", CURRENT, 4_31, CURRENT, 4_31, 4_45, LAYER, ALWAYS, 4_54, CACHE, 4_31, 4_31, ALWAYS, ALWAYS)  \
    X(GPT_NEOX, "gpt_neox", 4_31, 4_31, 4_49, 4_49, 4_45, LAYER, 4_49, 4_48, CACHE, 4_35, 4_45, 4_53, 4_49)            \
    X(GPTJ, "gptj", CURRENT, CURRENT, CURRENT, 4_31, 4_45, LAYER, 4_45, 4_54, CACHE, 4_31, 4_31, ALWAYS, ALWAYS)       \
    X(GRANITE, "granite", 4_48, 4_46, 4_48, 4_31, 4_31, NONE, 4_31, 4_48, CACHE, 4_31, 4_31, 4_53, ALWAYS)             \
    X(GRANITEMOE, "granitemoe", CURRENT, 4_46, 4_52, 4_31, 4_31, NONE, 4_31, 4_54, CACHE, 4_31, 4_31, CURRENT, ALWAYS) \
    X(MISTRAL, "mistral", 4_48, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_42, 4_53, ALWAYS)             \
    X(MIXTRAL, "mixtral", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_48, 4_53, ALWAYS)             \
    X(OLMO2, "olmo2", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_48, CACHE, 4_31, 4_31, 4_53, ALWAYS)                 \
    X(OLMOE, "olmoe", 4_46, 4_31, 4_45, 4_31, 4_31, NONE, 4_31, 4_54, CACHE, 4_31, 4_31, CURRENT, ALWAYS)              \
    X(OPT, "opt", 4_31, 4_31, CURRENT, 4_49, 4_49, NONE, 4_31, 4_54, CACHE, 4_31, 4_31, ALWAYS, ALWAYS)                \
    X(PHI, "phi", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_45, 4_53, ALWAYS)                     \
    X(PHI3, "phi3", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_31, 4_53, ALWAYS)                   \
    X(QWEN2, "qwen2", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_45, 4_53, ALWAYS)                 \
    X(QWEN2_MOE, "qwen2_moe", 4_46, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_54, GUARD, 4_31, 4_45, CURRENT, ALWAYS)      \
    X(QWEN3, "qwen3", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, CACHE, 4_31, 4_31, 4_53, ALWAYS)                 \
    X(QWEN3_MOE, "qwen3_moe", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, CACHE, 4_31, 4_31, 4_53, ALWAYS)         \
    X(ROBERTA, "roberta", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, CURRENT, ALWAYS)           \
    X(SMOLLM3, "smollm3", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, CACHE, 4_31, 4_31, 4_53, ALWAYS)             \
    X(STABLELM, "stablelm", 4_31, 4_31, 4_45, 4_49, 4_31, NONE, 4_31, 4_54, GUARD, 4_31, 4_45, ALWAYS, ALWAYS)         \
    X(STARCODER2, "starcoder2", 4_47, 4_46, 4_45, 4_31, 4_31, NONE, 4_31, 4_48, GUARD, 4_31, 4_45, 4_53, ALWAYS)       \
    X(XLM_ROBERTA, "xlm-roberta", 4_31, 4_31, 4_31, 4_31, 4_31, NONE, 4_31, 4_31, NONE, 4_31, 4_31, CURRENT, ALWAYS)
#define VL_MODEL_TYPE_ID(id, name, ...) VL_MT_##id,
typedef enum { VL_MASK_BUFFER_NONE, VL_MASK_BUFFER_LAYER, VL_MASK_BUFFER_MODEL } vl_mask_buffer;
typedef enum { VL_KV_KIND_CACHE, VL_KV_KIND_GUARD, VL_KV_KIND_NONE } vl_kv_kind;
typedef enum { VL_MODEL_TYPES(VL_MODEL_TYPE_ID) VL_N_MODEL_TYPES } vl_model_type;
extern const char *const vl_model_type_names[VL_N_MODEL_TYPES];

typedef struct vl_arch {
    uint64_t hidden;            /* h */
    uint64_t layers;            /* L */
    uint64_t heads;             /* a */
    uint64_t kv_heads;          /* k */
    uint64_t head_dim;          /* d */
    uint64_t ffn;               /* f, per expert */
    uint64_t vocab;             /* V */
    uint64_t max_positions;
    vl_position position;
    vl_mlp mlp;
    vl_norm norm;
    vl_norm_position norm_position;
    uint64_t norms_per_layer;   /* 0 = 2, or 1 with parallel_attention (Falcon-7B) */
    vl_qk_norm qk_norm;
    bool attention_bias;        /* q, k, v biases */
    bool mlp_bias;              /* MLP biases (and the attention output-projection bias) */
    vl_out_bias attention_out_bias;
    vl_qkv_views qkv_views;
    bool tie_embeddings;
    bool head_bias;             /* a bias on the output layer (Phi): V parameters */
    bool parallel_attention;    /* one norm per layer feeding attention and MLP (Falcon) */
    bool dropout;               /* dropout layers present in training */
    vl_attn_dropout attention_dropout;
    vl_eager_softmax eager_softmax;
    vl_model_type model_type;
    int sdpa_from;              /* the transformers release (a vl_transformers) from which the
                                 * model's class runs SDPA; 0: with the first, 4.36 */
    uint64_t sliding_window;    /* 0 = none */
    uint64_t experts;           /* routed experts per layer; 1 = dense */
    uint64_t experts_per_token; /* routed experts each token uses */
    uint64_t shared_experts;    /* experts every token uses, besides the routed ones */
    uint64_t moe_ffn;           /* width of a routed expert; 0 = ffn */
    uint64_t shared_ffn;        /* width of a shared expert; 0 = moe_ffn */
    uint64_t dense_layers;      /* leading layers with a dense MLP of width ffn (MoE only) */
    bool router_bias;           /* a bias per routed expert in the router (DeepSeek-V3) */
    bool shared_expert_gate;    /* a sigmoid gate, h x 1, on the shared experts' output
                                 * (Qwen2-MoE's shared_expert_gate); counted with the router */
    /* Embedding extras (encoders, BLOOM, OPT). */
    uint64_t position_offset;   /* extra rows in the learned position table (OPT: 2) */
    uint64_t token_types;       /* token-type (segment) embeddings (BERT: 2) */
    bool embedding_norm;        /* a norm right after the embeddings (BERT, BLOOM) */
    bool pooler;                /* BERT's pooler: one h x h layer with bias */
    /* Multi-head latent attention (DeepSeek-V2/V3): on when kv_lora_rank > 0.  head_dim is
     * then the query/key head size, qk_rope_head_dim of it rotary. */
    uint64_t q_lora_rank;       /* 0 = queries projected directly from h */
    uint64_t kv_lora_rank;
    uint64_t qk_rope_head_dim;
    uint64_t v_head_dim;        /* 0 = head_dim */
} vl_arch;

typedef struct vl_model {
    char name[64];
    char display[128];
    char source[256];
    char notes[512];            /* shown with the model: caveats, approximations */
    char origin[256];           /* the file it came from, "(built-in)/..." for built-ins */
    uint64_t published_params;  /* from the preset; 0 when none */
    uint64_t rounded_params;    /* a rounded published figure (params_rounded); 0 when none */
    uint64_t rounded_unit;      /* the figure's last significant unit (350M: 10M) */
    double rounded_tolerance;   /* percent, when the publication rounds more loosely; 0 */
    uint64_t free_params;       /* --params: the count the user asked for; 0 otherwise */
    /* --model: the checkpoint's own safetensors headers (hfcache.c), when the snapshot has
     * them: its exact element count (the memory model's P) and stored bytes; else 0 */
    uint64_t checkpoint_params, checkpoint_bytes;
    bool hf_cache;              /* --model: from the local Hugging Face cache (source says how) */
    vl_arch arch;
} vl_model;

/* The parameter count, term by term.  Everything is a count of parameters. */
typedef struct vl_params {
    uint64_t embedding;         /* V·h */
    uint64_t positions;         /* learned position embeddings */
    uint64_t token_types;       /* token-type embeddings */
    uint64_t embedding_norm;
    uint64_t lm_head;           /* V·h when untied, else 0 */
    uint64_t head_bias;         /* V with head_bias, else 0 */
    uint64_t attention;         /* per layer, biases included */
    uint64_t mlp;               /* per layer, all experts, biases included */
    uint64_t mlp_active;        /* per layer, the experts one token uses */
    uint64_t router;            /* per layer, h·E (+ E router biases) when E > 1 */
    uint64_t norms;             /* per layer, query and key norms included */
    uint64_t dense_mlp;         /* per leading dense layer of an MoE model */
    uint64_t final_norm;
    uint64_t pooler;
    uint64_t per_layer;         /* attention + mlp + router + norms */
    uint64_t per_dense_layer;   /* attention + dense_mlp + norms (dense_layers of them) */
    uint64_t outside;           /* everything not in a layer */
    uint64_t total;
    uint64_t active;            /* what one token touches (MoE); = total when dense */
    uint64_t largest_matrix;    /* the largest single weight tensor (ZeRO-3 live params) */
    uint64_t largest_layer_matrix; /* of the layers' matrices (attention, MLP, experts) */
} vl_params;

/* Fills defaults a preset may omit: kv_heads = heads, head_dim = hidden / heads,
 * ffn = 4·hidden, experts = experts_per_token = 1.  Call after filling what is known. */
void vl_arch_defaults(vl_arch *a);

/* Sane-architecture check: NULL, or a reason; *key names the preset key at fault. */
const char *vl_arch_check(const vl_arch *a, const char **key);

/* Parameters of one MLP of width f (gated: 3 matrices, standard: 2), biases included. */
uint64_t vl_mlp_params(const vl_arch *a, uint64_t f);
/* Parameters of one norm over `width` features: a scale, and a bias for LayerNorm. */
uint64_t vl_norm_params(const vl_arch *a, uint64_t width);
/* Parameters of one layer's query and key norms (qk_norm); 0 without them. */
uint64_t vl_qk_norm_params(const vl_arch *a);
/* The MLP width one token goes through in a layer: ffn when dense, else the routed experts
 * it uses plus the shared experts. */
uint64_t vl_active_mlp_width(const vl_arch *a);

/* An encoder (BERT-style: post-norm with token types, a pooler or a norm over the
 * embeddings, as DistilBERT has without the other two) reads its input in one
 * bidirectional pass: it keeps no KV cache and generates no tokens. */
bool vl_arch_encoder(const vl_arch *a);
/* Attention and the MLP read one norm's output: parallel attention with one norm a layer
 * (Falcon-7B, Phi).  GPT-NeoX's parallel residual normalizes the same input for each
 * (norms_per_layer 2): the MLP's input is a tensor of its own. */
bool vl_shared_norm(const vl_arch *a);

/* Whether training drops out the attention probabilities. */
bool vl_attention_dropout(const vl_arch *a);
/* Whether attention's output projection has a bias. */
bool vl_attention_out_bias(const vl_arch *a);

/* Exact parameter count; false only if it does not fit in 64 bits. */
bool vl_count_params(const vl_arch *a, vl_params *out);

/* The parameters by tensor rank, for optimizers whose state follows the shapes (Adafactor
 * factors a matrix's second moment into its rows and columns; Muon updates the hidden
 * matrices and leaves the rest to AdamW).  matrix + vector = the exact count. */
typedef struct vl_shapes {
    uint64_t matrix;         /* parameters in 2-D weight matrices */
    uint64_t matrix_dims;    /* the sum of rows + columns over those matrices */
    uint64_t hidden_matrix;  /* of matrix: the transformer layers' (not the embeddings', the
                              * output layer's or the pooler's) */
    uint64_t vector;         /* in 1-D tensors: norms and biases */
} vl_shapes;
bool vl_param_shapes(const vl_arch *a, vl_shapes *out);

/* The count the memory model uses: the free count when given, else the checkpoint's
 * (--model with safetensors headers), else the architecture's. */
uint64_t vl_model_params(const vl_model *m, const vl_params *p);

/* A GPT-3-like model of about n parameters: hidden size interpolated on the shapes of
 * Brown et al. 2020, Table 2.1 (log-log between rows, extrapolated past the ends), the
 * layer count chosen so the shape's own count is closest to n.  Sets free_params = n. */
void vl_model_from_params(vl_model *m, uint64_t n);

#endif
