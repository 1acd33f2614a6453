/* timeline.c: a training step or a serving run, tensor by tensor (timeline.h). */
#include "timeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lora.h"
#include "preset.h"
#include "solve.h"
#include "units.h"

#define VL_TL_KEY(id, key, label) key,
const char *const vl_tl_component_keys[VL_N_TL_COMPONENTS] = {VL_TL_COMPONENTS(VL_TL_KEY)};
_Static_assert(sizeof vl_tl_component_keys / sizeof *vl_tl_component_keys == VL_N_TL_COMPONENTS,
               "component keys");
/* the shared components keep vl_estimate's order, so that their JSON keys agree */
_Static_assert(VL_TL_WEIGHTS == (int)VL_C_WEIGHTS && VL_TL_GRADIENTS == (int)VL_C_GRADIENTS &&
                   VL_TL_OPTIMIZER == (int)VL_C_OPTIMIZER &&
                   VL_TL_ACTIVATIONS == (int)VL_C_ACTIVATIONS &&
                   VL_TL_KV_CACHE == (int)VL_C_KV_CACHE && VL_TL_GATHERED == (int)VL_C_ZERO3_LIVE,
               "components shared with vl_estimate");

/* A cuBLAS workspace for each thread that multiplies, each of which reserves its own handle
 * (aten/src/ATen/cuda/detail/DeviceThreadHandles.h): the one that runs the forward and, in
 * training, autograd's thread for the GPU, which runs every CUDA node of backward
 * (torch/csrc/autograd/engine.cpp, a worker thread a device).  Kept from the first step. */
static const char *const cublas_what[] = {"cuBLAS workspace (PyTorch's default)",
                                          "cuBLAS workspace of autograd's GPU thread (its own "
                                          "handle)"};

static uint64_t cublas_handles(vl_mode mode)
{
    return mode == VL_MODE_TRAIN ? 2 : 1;
}
#define FOREACH_WHAT "foreach temporary (sqrt of a second moment)"
#define FOREACH_DENOM_WHAT "foreach temporary (denom, a root plus eps; PyTorch < 2.1)"
/* torch/csrc/autograd/functions/accumulate_grad.h: into an existing .grad, in place */
#define ACCUMULATED_WHAT "a gradient, added into the .grad it accumulates in"
#define TIED_WAIT_WHAT "the head's gradient of the tied matrix, waiting for the lookup's"
#define TIED_LOOKUP_WHAT "the lookup's gradient of the tied matrix (embedding backward)"
#define TIED_SUM_WHAT "the tied matrix's two gradients, summed"
#define SOFTMAX_IN_PLACE_WHAT "the logits' fp32 copy, softmaxed in place (for the loss)"
#define OFFLOAD_COPY_WHAT "an offloaded layer's weights, copied in for its forward"
#define HEAD_DEQUANT_WHAT "4-bit output layer dequantized to 16 bits"
#define DEQUANT_WHAT "4-bit matrix dequantized to 16 bits"
#define MLP_WS "MLP backward workspace (gradients in and out)"
#define ATTN_WS "attention backward workspace (gradients in and out)"

/* ---- recording ------------------------------------------------------------------------ */

typedef struct builder {
    vl_timeline *t;
    vl_alloc *al;
    uint32_t *handles;          /* per event: the allocator's block */
    uint32_t phase;
    uint64_t live[VL_N_TL_COMPONENTS];
    uint64_t tensors;
    bool ovf, nomem;
    uint32_t sampler_buffer;    /* vLLM V1's top-k/top-p buffer, once allocated (it stays) */
    uint32_t averaged;          /* DeepSpeed ZeRO-2's gradient partition for the step */
    /* the loop's logits of the micro-batch before and what its graph keeps
     * (loop_keeps_logits), until the next forward returns its own */
    uint32_t kept_logits, kept_graph;
    bool make_states;           /* this step's optimizer makes its state (the run's first) */
} builder;

static void phase(builder *b, const char *fmt, ...)
{
    vl_timeline *t = b->t;
    if (t->n_phases == t->cap_phases) {
        size_t cap = t->cap_phases ? 2 * t->cap_phases : 64;
        void *p = realloc(t->phases, cap * sizeof *t->phases);
        if (!p) {
            b->nomem = true;
            return;
        }
        t->phases = p;
        t->cap_phases = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->phases[t->n_phases], VL_PHASE_LEN, fmt, ap);
    va_end(ap);
    b->phase = (uint32_t)t->n_phases++;
}

static vl_event *push(builder *b)
{
    vl_timeline *t = b->t;
    if (b->nomem)
        return NULL;
    if (t->n_events == t->cap_events) {
        size_t cap = t->cap_events ? 2 * t->cap_events : 1024;
        vl_event *e = realloc(t->events, cap * sizeof *e);
        uint32_t *h = realloc(b->handles, cap * sizeof *h);
        if (e)
            t->events = e;
        if (h)
            b->handles = h;
        if (!e || !h) {
            b->nomem = true;
            return NULL;
        }
        t->cap_events = cap;
    }
    return &t->events[t->n_events++];
}

static void stamp(builder *b, vl_event *e)
{
    e->tensors = b->tensors;
    e->allocated = vl_alloc_allocated(b->al);
    e->reserved = vl_alloc_reserved(b->al);
}

/* The event of a tensor of bytes alive from now in the allocator's block h: its id. */
static uint32_t record(builder *b, vl_tl_component c, uint64_t bytes, const char *what, uint32_t h)
{
    vl_event *e = push(b);
    if (!e)
        return 0;
    size_t i = b->t->n_events - 1;
    b->handles[i] = h;
    *e = (vl_event){VL_EV_ALLOC, c, bytes, what, b->phase, (uint32_t)i, 0, 0, 0};
    b->live[c] += bytes;
    b->tensors = vl_add(b->tensors, bytes, &b->ovf);
    stamp(b, e);
    vl_peak *p = &b->t->peak;
    if (e->allocated > p->allocated) {
        p->allocated = e->allocated;
        p->tensors = b->tensors;
        p->event = i;
        memcpy(p->alive, b->live, sizeof p->alive);
    }
    return (uint32_t)i + 1;
}

/* More tensors for the event id to stand for, already in the allocator's blocks (the
 * moments the run's first step made, a tensor each, shown as one event). */
static void grow(builder *b, uint32_t id, uint64_t bytes)
{
    vl_event *e = &b->t->events[id - 1];
    e->bytes = vl_add(e->bytes, bytes, &b->ovf);
    b->live[e->component] += bytes;
    b->tensors = vl_add(b->tensors, bytes, &b->ovf);
    stamp(b, e);
    vl_peak *p = &b->t->peak;
    if (p->event == id - 1) {
        p->tensors = b->tensors;
        memcpy(p->alive, b->live, sizeof p->alive);
    }
}

/* A tensor of bytes born now: its id for release (0 when it has no bytes). */
static uint32_t alloc(builder *b, vl_tl_component c, uint64_t bytes, const char *what)
{
    if (!bytes || b->nomem)
        return 0;
    return record(b, c, bytes, what, vl_alloc_tensor(b->al, bytes, &b->ovf));
}

static void release(builder *b, uint32_t id)
{
    if (!id || b->nomem)
        return;
    const vl_event a = b->t->events[id - 1];
    vl_event *e = push(b);
    if (!e)
        return;
    vl_alloc_release(b->al, b->handles[id - 1]);
    *e = (vl_event){VL_EV_FREE, a.component, a.bytes, a.what, b->phase, id - 1, 0, 0, 0};
    b->live[a.component] -= a.bytes;
    b->tensors -= a.bytes;
    stamp(b, e);
}

/* A tensor that lives only inside the current phase. */
static void transient(builder *b, vl_tl_component c, uint64_t bytes, const char *what)
{
    release(b, alloc(b, c, bytes, what));
}

/* ---- what a step is made of ------------------------------------------------------------ */

#define MAX_LAYER_TERMS (VL_MAX_TERMS + 8)
#define MAX_PARAM_TENSORS 8     /* q, k, v, o, gate, up, down, and the rest */

typedef struct step {
    const vl_arch *a;
    const vl_settings *s;
    const vl_framework *f;
    const vl_breakdown *bd;
    uint64_t beta, rho, loss;   /* activation, fp32-under-autocast, loss element bytes */
    uint64_t sb, sbh, sbv;      /* tokens; x hidden; x this GPU's vocabulary */
    uint64_t layers, in_flight, micro_batches;
    /* one layer's saved tensors, the framework's choices applied */
    vl_term layer[MAX_LAYER_TERMS];
    int n_layer;
    uint64_t first[MAX_LAYER_TERMS]; /* of each, what the first layer keeps (first_layer) */
    uint64_t ws_bytes;          /* its ops' workspace: ws_n tensors of ws_bytes (layer_terms) */
    int ws_n;
    /* its backward in three stages (layer_terms): the MLP's ops, with mlp_ws_n tensors of
     * mlp_ws_bytes; attention's value side (the output projection, the value matmul, the
     * dropout between), making the probabilities' gradient and V's (held to the stage's
     * end); then the softmax and what is before it, with two tensors of attn_ws_bytes.
     * freed_by[i]: the stage whose end frees layer[i] (FREED_FIRST: before the MLP's) */
    uint64_t mlp_ws_bytes, probs_grad, v_grad, attn_ws_bytes;
    int mlp_ws_n;
    unsigned char freed_by[MAX_LAYER_TERMS];
    /* eager attention's forward transients (layer_terms), each made before the term at
     * its index and freed before the term at another (n_layer: at the layer's end; -1:
     * none): q·kᵀ and its scaled and masked copy, and the fp32 copy an upcasting softmax
     * reads (0 for the one a softmax that keeps its input keeps); */
    uint64_t scores, scores_scaled, scores_upcast;
    int scores_at, upcast_freed, scores_freed;
    /* under autocast what the attention dropout makes or reads beside what is kept; */
    uint64_t dropped;
    int dropped_at, dropped_freed;
    const char *dropped_what;
    /* q's, k's and v's projections, held beside the copies the matmuls keep, to returns, the
     * first term made once the attention's function has returned; */
    uint64_t projected;
    int projected_at, returns;
    /* the value matmul's output, alive while o's input joins its heads */
    uint64_t joined;
    int joined_at;
    uint64_t recomputed_core;   /* selective recompute: the s x s tensors rebuilt in backward */
    uint64_t dequant;           /* QLoRA: one base matrix in 16 bits (backward) */
    uint64_t dequant_fwd;       /* and as the forward's matmul holds it, named so */
    const char *dequant_fwd_what;
    uint64_t head_dequant;      /* QLoRA: a 4-bit output layer in 16 bits, at the loss */
    uint64_t mask;              /* eager attention's materialised mask, or the padding mask a
                                 * padded micro-batch hands SDPA (vl_sdpa_padding_mask) */
    const char *mask_what;
    /* the outside tensors: the embedding side, the head and the loss */
    vl_term emb[VL_MAX_TERMS], head[VL_MAX_TERMS + 4];
    int n_emb, n_head;
    uint64_t logprobs;          /* the loss's saved log-probabilities: head[logprobs_term] */
    int logprobs_term;
    uint64_t head_out;          /* the head's output, in the activations' dtype */
    /* gradients, per GPU */
    unsigned grad_bytes;        /* a gradient element as backward makes it (gradient_plan) */
    uint64_t layer_grad, head_grad, embedding_grad, grad_full, grad_part, trainable;
    uint64_t head_params, embedding_params;
    uint64_t tied_grad;         /* a tied matrix's gradient, which its two uses sum (0: none
                                 * modelled; gradient_plan) */
    /* a layer's trainable parameters as the tensors that hold them (elements) */
    uint64_t tensor[MAX_PARAM_TENSORS];
    int n_tensors;
    int attn_tensors;           /* of them, attention's: tensor[0 .. attn_tensors) */
    int down_tensor;            /* and the MLP's down projection's, or -1 */
    int down_in;                /* layer[down_in]: the input down_proj keeps, or -1 */
    bool grads_held;            /* one gradient buffer kept for the whole run */
    bool grads_in_place;        /* of them, the gradients an in-place zero_grad keeps: made by
                                 * the run's first backward, not before the run */
    bool partition_in_backward; /* DeepSpeed ZeRO-2: bucket and partition made in backward */
    bool bucket_in_backward;    /* DeepSpeed ZeRO-1 and 2: the reduce bucket, in backward */
    bool grads_freed_in_step;   /* DeepSpeed ZeRO-1: autograd's gradients, freed in the step */
    bool grads_before;          /* the step before's gradients live through the forward */
    bool keeps_logits;          /* the loop keeps the micro-batch before's logits and graph
                                 * through the next forward (vl_loop_keeps_logits) */
    bool binds_logits;          /* it binds a micro-batch's logits through its backward
                                 * (vl_loop_binds_logits), where the step has none before
                                 * to keep */
    uint64_t positions;         /* a micro-batch's positions on this GPU (--cp splits them) */
    /* a transformers model's outputs under use_cache (vl_kv_outputs): each layer's K and V
     * as made where the attention keeps them repeated, held from the layer's forward until
     * the loop has read the loss; the fp32 casts accelerate makes of the outputs' 16-bit K
     * and V (legacy tuples) and logits (outputs_to_fp32) */
    uint64_t kv_held, kv_fp32, logits_fp32;
    uint64_t loss_chunks;       /* the loss's chunks of loss_chunk positions (0: whole) */
    uint64_t kept_graph;        /* what that graph keeps: 4-bit layers' inputs (keeps_graph) */
    uint64_t bucket;            /* reduce bucket bytes (DeepSpeed) */
    bool fsdp;                  /* --zero 2, 3 as FSDP: per-layer reduce-scatter, no bucket */
    bool lazy_states;           /* the optimizer's moments made at the run's first step */
    bool inputs_held;           /* FSDP keeps each recomputed layer's input and its gradient
                                 * until backward ends (holds_inputs) */
    uint64_t dp;                /* the GPUs the gradients and optimizer states are split over */
    uint64_t gathered_layer, gathered_outside; /* ZeRO-3 */
    uint64_t cast_shard;        /* a layer's shard cast for its all-gather (FSDP) */
    uint64_t step_grad_copy;    /* the fp32 gradient copy made for the step (grad_copy_at_step) */
    uint64_t ahead, ahead_back; /* layers gathered ahead in the forward, in backward */
    uint64_t cublas;            /* a cuBLAS handle's workspace in the allocator (0 when
                                 * cuBLAS makes its own or --overhead stands for it) */
    uint64_t sms;               /* the GPU's streaming multiprocessors (0: unknown) */
    bool v2;                    /* vLLM's V2 model runner samples (vl_runs_v2) */
    bool paged_on;              /* --paged-optimizer: bitsandbytes' fused, paged optimizer */
    uint64_t paged;             /* its states in CUDA managed memory */
} step;

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* PyTorch before 2.2 saved mean's input for its backward (pytorch/pytorch issue #109876,
 * fixed by pull request #109935): an RMSNorm's mean of squares keeps the squares, the size
 * and dtype of the fp32 input it squares */
#define MEAN_SQUARES "RMSNorm squares, kept by mean (PyTorch < 2.2)"
#define SCORES_WHAT "attention scores (the q.k product)"
#define SOFTMAX_CAST "attention softmax, its 16-bit cast for the value matmul"
#define SOFTMAX_FP32 "attention softmax in fp32"
#define SOFTMAX_INPUT "attention softmax input (PyTorch < 1.11)"
#define QKV_COPY "16-bit weight copies (autocast), q's, k's or v's"
#define MLP_COPY "16-bit weight copies (autocast), the MLP's"
#define FROZEN_CAST "frozen weights' 16-bit casts (their matmuls')"
#define MLP_FROZEN_CAST "frozen weights' 16-bit casts (their matmuls'), the MLP's"

enum { FREED_FIRST, FREED_BY_MLP, FREED_BY_VALUE, FREED_LAST };

/* Whether name starts with one of the n prefixes. */
static bool starts_any(const char *name, const char *const *prefixes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (starts(name, prefixes[i]))
            return true;
    return false;
}

/* A saved tensor of the MLP's, which its backward (run first) frees. */
static bool mlp_term(const char *name)
{
    static const char *const mlp[] = {"MLP ", "gate, up inputs", "router probabilities",
                                      "routed experts'", "4-bit MLP input", "4-bit down_proj",
                                      "GELU written out"};
    return starts_any(name, mlp, sizeof mlp / sizeof *mlp);
}

/* Made after eager attention's function returns: by the output projection (its input,
 * the residual's dropout), the MLP and its norm, or the casts of their weights. */
static bool after_attention(const char *name)
{
    static const char *const after[] = {"attention output", "attention residual dropout",
                                        "frozen MLP input", "frozen down_proj input",
                                        "16-bit weight copies", "frozen weights' 16-bit casts"};
    return strcmp(name, QKV_COPY) != 0 &&
           (mlp_term(name) || starts_any(name, after, sizeof after / sizeof *after));
}

/* Moves the first term named name among t[start .. n) to index `to` as counted without
 * it; returns the index it had, or -1 where there is none (nothing moves). */
static int move_term(vl_term *t, int n, int start, const char *name, int to)
{
    int from = start;
    while (from < n && strcmp(t[from].name, name) != 0)
        from++;
    if (from == n)
        return -1;
    const vl_term x = t[from];
    memmove(t + from, t + from + 1, (size_t)(n - from - 1) * sizeof *t);
    memmove(t + to + 1, t + to, (size_t)(n - 1 - to) * sizeof *t);
    t[to] = x;
    return from;
}

/* Orders a layer's n terms as its forward makes them around the attention (a stable
 * partition: the ones made before its scores go, then after_attention's; the squares
 * MEAN_SQUARES keeps go with the norm input before them) and returns how many come
 * first. */
static int attention_first(vl_term *t, int n)
{
    vl_term after[MAX_LAYER_TERMS];
    int k = 0, m = 0;
    bool prev = false;
    for (int i = 0; i < n; i++) {
        const bool late = strcmp(t[i].name, MEAN_SQUARES) == 0 ? prev : after_attention(t[i].name);
        if (late)
            after[m++] = t[i];
        else
            t[k++] = t[i];
        prev = late;
    }
    memcpy(t + k, after, (size_t)m * sizeof *after);
    return k;
}

/* The backward stage that frees a saved tensor of a layer, by its name: the MLP's (run
 * first), attention's value side (eager: the output projection's input, V and the
 * probabilities the value matmul reads; a flash or SDPA kernel's backward reads its q, k,
 * v and output together, at the end), or the rest; a tensor that ops of both halves share
 * (the adapters') stays to the end, and so do attention's weight copies; the MLP's go with
 * its backward.  Post-norm layers (BERT's) end each half with its norm, whose backward
 * runs before the half's: the MLP's norm before the MLP, attention's once the MLP is done.
 * The attention dropout's mask goes with the dropout's backward, after the value side's.
 * prev: the stage of the term before, whose squares MEAN_SQUARES are. */
static unsigned char freed_by(const char *name, unsigned char prev, bool eager, bool post)
{
    static const char *const value[] = {"V, ", "attention dropout output", "attention output",
                                        SOFTMAX_CAST, "attention softmax output, cast to 16 bits"};
    if (strcmp(name, MEAN_SQUARES) == 0)
        return prev;
    if (strcmp(name, MLP_COPY) == 0 || strcmp(name, MLP_FROZEN_CAST) == 0)
        return FREED_BY_MLP;
    if (post && starts(name, "MLP norm"))
        return FREED_FIRST;
    if (post && starts(name, "attention norm"))
        return FREED_BY_MLP;
    if (mlp_term(name))
        return FREED_BY_MLP;
    if (starts(name, "attention residual dropout"))
        return FREED_BY_VALUE;
    if (!eager)
        return FREED_LAST;
    if (strcmp(name, "V") == 0 || starts_any(name, value, sizeof value / sizeof *value))
        return FREED_BY_VALUE;
    return FREED_LAST;
}

static void add_term(vl_term *list, int *n, int max, const char *name, uint64_t bytes)
{
    if (bytes && *n < max)
        list[(*n)++] = (vl_term){name, bytes};
}

/* Ops at work hold two tensors of the largest, big (an op's backward: its output's gradient
 * and its input's), unless a gated MLP's product of width bytes, gated_mlp, holds more with
 * its three (forward: the activation, up and their product; backward: the product's
 * gradient and both factors'). */
static void ws_shape(uint64_t big, uint64_t gated_mlp, uint64_t *bytes, int *n, bool *ovf)
{
    *bytes = big;
    *n = 2;
    if (vl_mul(3, gated_mlp, ovf) > vl_mul(2, big, ovf))
        *bytes = gated_mlp, *n = 3;
}

/* DeepSpeed's zero.Init, which transformers' from_pretrained enters under ZeRO-3 for a
 * model it does not quantize, replaces torch.nn.functional.linear for the rest of the
 * process with LinearFunctionForZeroStage3 (memory_efficient_linear, on by default:
 * deepspeed/runtime/zero/partition_parameters.py and linear.py), whose forward saves its
 * input whether or not the weight trains: under LoRA a frozen matrix keeps its input as a
 * trained one would.  Under autocast that input would be the uncast tensor, not modelled
 * (DeepSpeed's own precisions run without autocast). */
static bool zero3_linear_keeps(const step *st)
{
    const vl_settings *s = st->s;
    return s->zero == 3 && st->f->zero_impl == VL_ZERO_DEEPSPEED && st->f->transformers &&
           s->lora_rank && !s->qlora && !vl_precision_is_amp(vl_compute_precision(s));
}

/* Under LoRA the embeddings are frozen, and unless the framework makes their output ask for
 * a gradient (frozen_embeddings_grad) the first layer's input needs none: the ops on it keep
 * nothing until an adapter's output joins, the attention's norm, its frozen projections'
 * inputs and the dropout masks of the adapters reading it.  Under parallel attention the MLP
 * reads the same input: with no adapter of its own it keeps nothing at all.  One pipeline
 * stage's first layer has the embeddings before it only on the first stage: modelled
 * without --pp. */
static bool first_frozen(const step *st)
{
    return st->s->lora_rank && !st->f->frozen_embeddings_grad && st->s->pp == 1;
}

static bool mlp_frozen_first(const step *st)
{
    const unsigned mlp_adapters =
        (1u << VL_LORA_GATE) | (1u << VL_LORA_UP) | (1u << VL_LORA_DOWN);
    return first_frozen(st) && st->a->parallel_attention && !(st->s->lora_targets & mlp_adapters);
}

/* Whether the first layer, under first_frozen, keeps nothing of the term named name: its
 * attention's norm and frozen q, k, v input; under mlp_frozen_first (mlp) the MLP's terms.
 * Eager attention over separate projections keeps Q for K's gradient and K for Q's: a
 * frozen k (or q) without an adapter asks for none there. */
static bool first_keeps_none(const step *st, const char *name, bool mlp)
{
    const bool eager_apart = st->bd->attention == VL_ATTN_EAGER && !st->f->fused_qkv;
    const unsigned targets = st->s->lora_targets;
    if (starts(name, "attention norm") || starts(name, "4-bit q, k, v") ||
        starts(name, "frozen q, k, v"))
        return true;
    if (eager_apart && strcmp(name, "Q") == 0)
        return !(targets & (1u << VL_LORA_K));
    if (eager_apart && (strcmp(name, "K") == 0 || starts(name, "K, ")))
        return !(targets & (1u << VL_LORA_Q));
    return mlp && (mlp_term(name) || starts(name, "frozen MLP") || starts(name, "frozen down_proj"));
}

/* What the first layer keeps of each term (first_frozen): none of first_keeps_none's, and
 * of the adapters' masks those not on the layer's input. */
static void first_layer(step *st)
{
    const bool frozen = first_frozen(st), mlp = mlp_frozen_first(st);
    bool gone = false;
    for (int i = 0; i < st->n_layer; i++) {
        const char *name = st->layer[i].name;
        uint64_t bytes = st->layer[i].bytes;
        if (strcmp(name, MEAN_SQUARES) != 0) /* the squares go with their norm, the term before */
            gone = frozen && first_keeps_none(st, name, mlp);
        if (frozen && strcmp(name, VL_LORA_MASKS) == 0)
            bytes -= st->bd->act.lora_input_masks;
        st->first[i] = gone ? 0 : bytes;
    }
}

/* bitsandbytes' MatMul4Bit before 0.43.2 kept its input as an attribute of its autograd
 * context, ctx.tensors = (A, B) (bitsandbytes/autograd/_functions.py), which backward does
 * not release: the inputs live as long as the graph, wherever the input requires grad.  A
 * loop that keeps the logits keeps the graph, and with it, in each layer, the q, k, v input
 * (not the first layer's where its input asks for no gradient: first_frozen), the attention
 * output, the MLP's input (the same tensor where a norm feeds both: vl_shared_norm) and down's
 * input, in `in` bytes an element (the attention output in the activations' dtype), and a
 * 4-bit head's input. */
static uint64_t keeps_graph(const step *st, uint64_t in, uint64_t rs, uint64_t q, uint64_t mlp,
                            bool *ovf)
{
    const uint64_t mlp_in = vl_shared_norm(st->a) ? 0 : rs;
    const uint64_t layer =
        vl_add(vl_mul(in, rs + mlp_in + mlp, ovf), vl_mul(st->beta, q, ovf), ovf);
    uint64_t all = vl_mul(layer, st->layers, ovf);
    if (first_frozen(st)) /* the first layer's q, k, v input, and a frozen MLP's inputs */
        all -= vl_mul(in, rs + (mlp_frozen_first(st) ? mlp_in + mlp : 0), ovf);
    if (st->f->bnb_quantize_head)
        all = vl_add(all, vl_mul(in, rs, ovf), ovf);
    return all;
}

/* The layer's saved tensors: vl_activations_compute's, then what the framework changes.  The
 * terms are matched by the names memory.c gives them. */
static void layer_terms(step *st, bool *ovf)
{
    const vl_arch *a = st->a;
    const vl_settings *s = st->s;
    const vl_framework *f = st->f;
    const vl_activations *act = &st->bd->act;
    const bool amp = vl_precision_is_amp(vl_compute_precision(s));
    const bool eager = st->bd->attention == VL_ATTN_EAGER;
    const bool core_saved = s->recompute != VL_RECOMPUTE_SELECTIVE;
    const bool lora = s->lora_rank > 0;
    const uint64_t t = s->tp, beta = st->beta;
    const uint64_t q = vl_mul(st->sb, a->heads * a->head_dim, ovf);
    const uint64_t kv = vl_mul(st->sb, a->kv_heads * a->head_dim, ovf);
    const uint64_t ass = vl_ceil_div(
        vl_mul(vl_mul(vl_mul(s->seq, s->seq, ovf), s->batch, ovf), a->heads, ovf), t);
    const uint64_t mlp = vl_ceil_div(vl_mul(st->sb, vl_active_mlp_width(a), ovf), t);
    const uint64_t rs = s->sp ? vl_ceil_div(st->sbh, t) : st->sbh;
#define KEEPS(target) (!lora || (s->lora_targets & (1u << (target))))
    const unsigned qkv_kept = KEEPS(VL_LORA_Q) + KEEPS(VL_LORA_K) + KEEPS(VL_LORA_V);
    const bool gated = a->mlp == VL_MLP_GATED;
    const unsigned mlp_in_kept = (gated && KEEPS(VL_LORA_GATE)) + KEEPS(VL_LORA_UP);
    /* bitsandbytes' Linear4bit computes in an fp32 input's dtype and returns its output in
     * its input's dtype (set_compute_type, out.to(inp_dtype), bitsandbytes/nn/modules.py):
     * fed the fp32 residual stream of autocast, or of PEFT's
     * prepare_model_for_kbit_training, q, k, v, gate and up come out in fp32, and so do the
     * MLP's activation and product that down reads */
    const bool nf4_fp32 = s->qlora && f->nf4_returns_input_dtype && amp;
    /* 16-bit eager attention with its softmax in fp32: the framework's own attention code
     * (softmax_fp32), or transformers' modeling code where the model's upcasts, or autocast
     * over the 16-bit weights FSDP gathers */
    const bool upcast16 =
        beta == 2 && !amp && (vl_fsdp_casts_params(s) || vl_softmax_upcasts(f, a));
    const bool drop = lora && s->lora_dropout;
    const int max = MAX_LAYER_TERMS;

    st->n_layer = 0;
    for (int i = 0; i < act->n_layer; i++) {
        vl_term x = act->layer[i];
        /* autograd keeps the normalized tensor only for the norm weight's gradient */
        if (f->prune_frozen_saves && lora && strstr(x.name, "normalized input"))
            continue;
        /* autocast caches the 16-bit cast of a weight only for a leaf that requires grad
         * (cached_cast, torch/csrc/autograd/autocast_mode.cpp): under LoRA the cache holds
         * the adapters' copies; a frozen fp32 matrix is cast anew at each use, and its
         * matmul saves that cast for its input's gradient (mm's mat2), so the layer keeps it
         * until its backward but a recomputed layer's first forward does not.  QLoRA's
         * base matrices are dequantized instead (the 4-bit matrix transient). */
        if (f->prune_frozen_saves && amp && lora && starts(x.name, "16-bit weight copies")) {
            const vl_lora_split *l = &st->bd->lora;
            const uint64_t adapters =
                vl_mul(beta, (l->trainable_params - l->head_params) / st->layers, ovf);
            if (!s->qlora && x.bytes > adapters) {
                /* the MLP's go with its backward, attention's with the layer's */
                const vl_params *p = &st->bd->params;
                uint64_t frozen = x.bytes - adapters;
                uint64_t mlp_cast = vl_mul(beta, vl_ceil_div(p->mlp + p->router, t), ovf);
                mlp_cast = mlp_cast < frozen ? mlp_cast : frozen;
                add_term(st->layer, &st->n_layer, max, FROZEN_CAST, frozen - mlp_cast);
                add_term(st->layer, &st->n_layer, max, MLP_FROZEN_CAST, mlp_cast);
            }
            x.bytes = adapters;
        }
        /* autocast casts each weight on its own: a copy a parameter tensor, as its
         * projection runs (q, k and v before the attention: QKV_COPY; the MLP's, which its
         * backward frees: MLP_COPY) */
        if (!lora && st->n_tensors > 1 && starts(x.name, "16-bit weight copies")) {
            uint64_t left = x.bytes;
            const int qkv = f->fused_qkv ? 1 : 3;
            for (int j = 0; j < st->n_tensors - 1; j++) {
                const uint64_t c = vl_mul(beta, st->tensor[j], ovf);
                if (c > left)
                    break;
                add_term(st->layer, &st->n_layer, max,
                         j < qkv ? QKV_COPY : j < st->attn_tensors ? x.name : MLP_COPY, c);
                left -= c;
            }
            x.bytes = left; /* the biases, and what the loop left */
        }
        if (nf4_fp32 && (starts(x.name, "MLP gate projection output") ||
                         starts(x.name, "MLP up projection output") ||
                         starts(x.name, "MLP activation") || starts(x.name, "routed experts'")))
            x.bytes = vl_mul(x.bytes / beta, 4, ovf);
        st->layer[st->n_layer++] = x;
        if (f->mean_saves_input && vl_rmsnorm_input(x.name))
            add_term(st->layer, &st->n_layer, max, MEAN_SQUARES, x.bytes);
    }
    /* 16-bit eager attention with softmax(..., dtype=float32).to(dtype): the fp32 softmax is
     * kept for its backward and the 16-bit cast for the matmul with V (without dropout; with
     * dropout the dropout output is that operand already) */
    if (eager && core_saved && upcast16) {
        add_term(st->layer, &st->n_layer, max, SOFTMAX_FP32, vl_mul(4 - beta, ass, ovf));
        if (!vl_attention_dropout(a))
            add_term(st->layer, &st->n_layer, max, SOFTMAX_CAST, vl_mul(beta, ass, ovf));
    }
    /* PyTorch before 1.11 kept the softmax's input too: the scores as the softmax reads
     * them, fp32 where it upcasts (autocast runs softmax in fp32) */
    if (eager && core_saved && f->softmax_saves_input)
        add_term(st->layer, &st->n_layer, max, SOFTMAX_INPUT,
                 vl_mul(amp || upcast16 ? 4 : beta, ass, ovf));
    /* GPT-2's GELU written out in Python: x, tanh(...), 0.5·x and 1 + tanh(...) are saved
     * where F.gelu saves x alone */
    if (f->gelu == VL_GELU_TANH_COMPOSITE && !gated)
        add_term(st->layer, &st->n_layer, max, "GELU written out: three more f-wide tensors",
                 vl_mul(3 * beta, mlp, ovf));
    /* Attention's output, o's input: vl_activations_compute counts it when o is trained or
     * adapted (under lora_dropout it stands for the adapter's dropped copy instead, and
     * for fp32 adapters for the adapter's own copy: fp32 without autocast, cast32, a
     * 16-bit layer's 16-bit cast under it, cast16).  Else it is
     * kept once for whoever needs it: flash and SDPA backward read their own output, even
     * when o_proj is frozen; bitsandbytes' 4-bit matmul keeps its input whether or not the
     * base is frozen. */
    const bool nf4 = s->qlora && f->nf4_keeps_input;
    const bool z3 = zero3_linear_keeps(st);
    const bool cast32 = vl_adapters_cast_input(s), cast16 = vl_adapters_cast16(s);
    if ((!KEEPS(VL_LORA_O) || drop || cast32 || cast16) &&
        ((!eager && core_saved && f->prune_frozen_saves) || nf4 || z3))
        add_term(st->layer, &st->n_layer, max,
                 z3 ? "attention output (kept by its backward or ZeRO-3's o_proj)"
                    : "attention output (kept by its backward or a 4-bit o_proj)",
                 vl_mul(beta, vl_ceil_div(q, t), ovf));
    /* A frozen matrix that keeps its input (a 4-bit matmul that does, or ZeRO-3's linear)
     * keeps the tensor its layer was given, cast to nothing (Linear4bit's compute dtype is an
     * fp32 input's own): under autocast the fp32 norm outputs and the fp32 product down
     * reads, beside the 16-bit casts the adapters keep; else the inputs the adapters share,
     * unless lora_dropout or fp32 adapters give each adapter a copy. */
    st->kept_graph = nf4 ? keeps_graph(st, nf4_fp32 ? 4 : beta, rs, vl_ceil_div(q, t), mlp, ovf)
                         : 0;
    if (nf4 || z3) {
        const uint64_t in = nf4_fp32 ? 4 : beta;
        const bool own = nf4_fp32 || drop || cast32 || cast16;
        if (!qkv_kept || own)
            add_term(st->layer, &st->n_layer, max,
                     z3 ? "frozen q, k, v input (ZeRO-3's linear)" : "4-bit q, k, v input",
                     vl_mul(in, rs, ovf));
        if ((!mlp_in_kept || own) && !vl_shared_norm(a))
            add_term(st->layer, &st->n_layer, max,
                     z3 ? "frozen MLP input (ZeRO-3's linear)" : "4-bit MLP input",
                     vl_mul(in, rs, ovf));
        if (!KEEPS(VL_LORA_DOWN) || own)
            add_term(st->layer, &st->n_layer, max,
                     z3 ? "frozen down_proj input (ZeRO-3's linear)" : "4-bit down_proj input",
                     vl_mul(in, mlp, ovf));
    }
#undef KEEPS
    /* The workspace of a layer's ops (ws_shape), in the forward: the largest tensor an op of
     * the layer writes (the fp32 residual stream, q, an MLP intermediate, eager attention's
     * scores in the softmax's dtype). */
    const bool upcast = amp || upcast16;
    uint64_t op_mlp = mlp;
    if (a->experts > 1 && f->moe_expert_loop) {
        /* one expert at a time: a routed one on its share of the tokens (s·b·k/E when the
         * router balances), a shared one on all of them */
        const uint64_t routed = vl_mul(
            vl_ceil_div(vl_mul(st->sb, a->experts_per_token, ovf), a->experts), a->moe_ffn, ovf);
        const uint64_t shared = a->shared_experts ? vl_mul(st->sb, a->shared_ffn, ovf) : 0;
        op_mlp = vl_ceil_div(routed > shared ? routed : shared, t);
    }
    const uint64_t mlp_t = vl_mul(nf4_fp32 ? 4 : beta, op_mlp, ovf);
    const uint64_t resid = vl_mul(st->rho, rs, ovf);
    uint64_t big = resid;
    const uint64_t ops[] = {vl_mul(nf4_fp32 ? 4 : beta, vl_ceil_div(q, t), ovf), mlp_t,
                            eager ? vl_mul(upcast ? 4 : beta, ass, ovf) : 0};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        big = ops[i] > big ? ops[i] : big;
    ws_shape(big, gated ? mlp_t : 0, &st->ws_bytes, &st->ws_n, ovf);
    /* backward, stage by stage: the MLP's ops on the residual stream and its width; the
     * value matmul's gradient of the probabilities, in the matmul's dtype (eager); the
     * softmax's gradients in and out, q's, the residual stream's */
    ws_shape(mlp_t > resid ? mlp_t : resid, gated ? mlp_t : 0, &st->mlp_ws_bytes,
             &st->mlp_ws_n, ovf);
    const bool value_grads = eager && core_saved;
    st->probs_grad = value_grads ? vl_mul(beta, ass, ovf) : 0;
    /* the value matmul's backward makes V's gradient first (over every query head where
     * K and V are repeated for them), which waits for v_proj's backward, after the
     * softmax's and q.k's */
    st->v_grad = value_grads ? vl_mul(beta, vl_ceil_div(q, t), ovf) : 0;
    st->attn_ws_bytes = resid > ops[0] ? resid : ops[0];
    st->attn_ws_bytes = ops[2] > st->attn_ws_bytes ? ops[2] : st->attn_ws_bytes;
    /* the scores before the softmax: q·kᵀ, then each out-of-place op on them (the scale,
     * the mask, a masked_fill) making a copy while the one it reads lives, and the fp32 copy
     * the softmax reads when it upcasts (autocast runs softmax in fp32).  The softmax's
     * output, where the layer keeps it, is made while the last two live (the last is the
     * input a softmax before PyTorch 1.11 keeps); the copy goes as the softmax returns,
     * and an fp32 softmax's 16-bit cast follows.  The scaled scores go then where the code
     * reassigns one variable (plain PyTorch's att, transformers' decoders' attn_weights);
     * transformers' encoder classes name them apart (BertSelfAttention's attention_scores,
     * DistilBERT's scores), which holds them until the attention's function returns,
     * before the tensors the output projection and the MLP save. */
    st->scores_at = st->dropped_at = st->dropped_freed = st->joined_at = st->projected_at =
        st->returns = -1;
    if (eager && s->recompute == VL_RECOMPUTE_NONE) {
        st->scores = st->scores_scaled = vl_mul(beta, ass, ovf);
        /* a fused softmax reads the 16-bit scores as they are */
        st->scores_upcast =
            upcast && !(upcast16 && vl_softmax_fused(f, a)) ? vl_mul(4, ass, ovf) : 0;
        st->returns = attention_first(st->layer, st->n_layer);
        /* autocast casts q's, k's and v's weights as their projections run (QKV_COPY), which
         * is before Q, the first tensor the attention's matmuls keep */
        bool fused_view = false; /* V a view of a fused QKV output (below) */
        for (int i = 0; i < st->returns; i++) {
            if (st->projected_at < 0 && strcmp(st->layer[i].name, "Q") == 0)
                st->projected_at = i;
            fused_view = fused_view || starts(st->layer[i].name, "V, a view");
        }
        while (st->projected_at >= 0 && move_term(st->layer, st->returns, st->projected_at + 1,
                                                  QKV_COPY, st->projected_at) >= 0)
            st->projected_at++;
        st->scores_at = st->upcast_freed = st->scores_freed = st->returns; /* none kept */
        for (int i = 0; i < st->returns; i++)
            if (starts(st->layer[i].name, "attention softmax output")) {
                int last = i;
                if (move_term(st->layer, st->returns, i, SOFTMAX_INPUT, i) >= 0) {
                    last++; /* it is the last copy of the scores, the one the softmax reads */
                    if (upcast)
                        st->scores_upcast = 0;
                    else
                        st->scores_scaled = 0;
                }
                if (move_term(st->layer, st->returns, i, SOFTMAX_FP32, last + 1) >= 0)
                    last++;
                st->scores_at = i;
                st->upcast_freed = last + 1;
                if (move_term(st->layer, st->returns, i, SOFTMAX_CAST, last + 1) >= 0)
                    last++;
                st->scores_freed = last + 1;
                break;
            }
        /* the value matmul's output, its heads joined by a contiguous copy (o's input)
         * before the function returns */
        if (st->returns < st->n_layer &&
            strcmp(st->layer[st->returns].name, "attention output-projection input") == 0) {
            st->joined_at = st->returns++;
            st->joined = st->layer[st->joined_at].bytes;
        }
        if (vl_arch_encoder(a) && st->scores_freed < st->returns)
            st->scores_freed = st->returns;
        /* torch.matmul copies an operand it cannot view as a batch of matrices (the heads'
         * transposed views of q, k and v: at::matmul's reshape), and its bmm keeps the copy
         * (Q, K, V); the projections' outputs stay in the attention's variables until it
         * returns.  Where V is a view of a fused QKV output, that output is V's term. */
        if (!fused_view)
            st->projected = vl_mul(beta, vl_ceil_div(vl_add(q, vl_mul(2, kv, ovf), ovf), t), ovf);
        /* under autocast the softmax's output is fp32.  Plain modules and transformers'
         * encoders drop it out as it is, and the value matmul casts the fp32 output to 16
         * bits for itself: the variable holds that output until the function returns.
         * transformers' decoders cast it to the values' dtype first (GPT2Attention's
         * .type(value.dtype), eager_attention_forward's .to(query.dtype)) and drop out the
         * 16-bit cast, which the reassigned variable frees once the dropout has run. */
        for (int i = 1; i < st->returns; i++)
            if (strcmp(st->layer[i].name, "attention dropout output, cast to 16 bits") == 0) {
                const bool cast_first = f->transformers && !vl_arch_encoder(a);
                st->dropped = vl_mul(cast_first ? beta : 4, ass, ovf);
                st->dropped_at = cast_first ? i - 1 : i; /* before the mask, or the cast */
                st->dropped_freed = cast_first ? i + 1 : st->returns;
                st->dropped_what =
                    cast_first ? "attention softmax output, cast to 16 bits for the dropout"
                               : "attention dropout output (fp32), cast for the value matmul";
            }
    }
    first_layer(st); /* in the order the terms are now made */
    /* the input down_proj saved for its backward, which frees it as it runs (a 4-bit
     * matmul that keeps its input holds it on its node, to the end of the layer's graph:
     * keeps_graph) */
    st->down_in = -1;
    for (int i = 0; i < st->n_layer; i++) {
        st->freed_by[i] = freed_by(st->layer[i].name, i ? st->freed_by[i - 1] : FREED_LAST, eager,
                                   a->norm_position == VL_NORM_POST);
        if (starts(st->layer[i].name, "MLP down projection input") ||
            starts(st->layer[i].name, "frozen down_proj input"))
            st->down_in = i;
    }
    st->dequant = act->layer_dequant_bytes;
    /* MatMul4Bit's forward casts the dequantized matrix to its input's dtype
     * (dequantize_4bit(B).to(A.dtype), bitsandbytes/autograd/_functions.py): an fp32 copy
     * for an fp32 input, which autocast casts to 16 bits again for F.linear while it lives,
     * 4 + 2 bytes a weight; backward casts it to the 16-bit output gradient's dtype */
    st->dequant_fwd = nf4_fp32 ? vl_mul(4 + 2, act->largest_base, ovf) : st->dequant;
    st->dequant_fwd_what = nf4_fp32 ? "4-bit matrix dequantized, in fp32 and its 16-bit cast"
                                    : DEQUANT_WHAT;
    st->head_dequant = act->head_dequant_bytes;
    /* eager attention's mask: an encoder's padding mask is b x 1 x 1 x s, broadcast over the
     * scores (ModuleUtilsMixin.get_extended_attention_mask, transformers' modeling_utils.py);
     * only a causal decoder's is b x 1 x s x s, in the embeddings' dtype (the residual
     * stream's).  Under SDPA a padded micro-batch's (vl_sdpa_padding_mask), whose copies
     * each layer keeps (layer_terms). */
    if (eager && f->materialized_mask && !vl_arch_encoder(st->a)) {
        st->mask = vl_mul(vl_mul(vl_mul(s->seq, s->seq, ovf), s->batch, ovf), st->rho, ovf);
        st->mask_what = "causal mask (b x 1 x s x s)";
    } else {
        uint64_t copy;
        vl_sdpa_padding_mask(s, st->a, st->rho, st->beta, &st->mask, &copy, ovf);
        st->mask_what = "padding mask (b x 1 x s x s)";
    }
}

/* The outside tensors: the embedding side as vl_activations_compute keeps it; the head and
 * the loss by the framework's head and loss dtype. */
static void outside_terms(step *st, bool *ovf)
{
    const vl_activations *act = &st->bd->act;
    const vl_settings *s = st->s;
    uint64_t emb = 0;
    int i = 0;
    st->n_emb = st->n_head = 0;
    st->logprobs_term = -1;
    for (; i < act->n_outside && emb < act->embedding_bytes; i++) {
        st->emb[st->n_emb++] = act->outside[i];
        emb += act->outside[i].bytes;
    }
    const int max = VL_MAX_TERMS + 4;
    const bool cls = st->f->head == VL_HEAD_CLS;
    for (; i < act->n_outside; i++) {
        vl_term x = act->outside[i];
        if (act->dequant_bytes && x.bytes == act->dequant_bytes && i == act->n_outside - 1)
            continue; /* QLoRA's dequantized matrices: transients of each layer, the loss */
        if (st->f->prune_frozen_saves && s->lora_rank && strstr(x.name, "normalized input"))
            continue;
        if (starts(x.name, "logits")) {
            st->logprobs = vl_mul(st->loss, st->sbv, ovf);
            st->logprobs_term = st->n_head;
            x = (vl_term){st->f->loss_in_place == VL_LIP_ALL ? SOFTMAX_IN_PLACE_WHAT
                          : st->f->loss_in_place ? "softmax (for the loss, its gradient in place)"
                                                 : "log-probabilities (for the loss)",
                          st->logprobs};
        } else if (strcmp(x.name, VL_CLASS_LOGPROBS) == 0) {
            st->logprobs = x.bytes;
            st->logprobs_term = st->n_head;
        } /* a frozen fp32 head's 16-bit cast is no cached copy, but its matmul saves it for
           * the hidden state's gradient: kept under LoRA too */
        st->head[st->n_head++] = x;
        if (st->f->mean_saves_input && vl_rmsnorm_input(x.name))
            add_term(st->head, &st->n_head, max, MEAN_SQUARES, x.bytes);
    }
    if (s->pp > 1)
        return;
    /* a causal LM's loss in chunks of loss_chunk positions, where it shifts no copy */
    const bool chunked = st->f->loss_chunk && st->f->head == VL_HEAD_LM &&
                         !st->f->loss_shift_copy && st->logprobs_term >= 0;
    st->loss_chunks = chunked ? vl_ceil_div(st->positions, st->f->loss_chunk) : 0;
    if (st->f->head == VL_HEAD_LM && zero3_linear_keeps(st)) /* the frozen head's */
        add_term(st->head, &st->n_head, max, "output-projection input (ZeRO-3's linear)",
                 vl_mul(st->beta, st->sbh, ovf));
    if (st->f->head == VL_HEAD_MLM) /* BERT's transform: dense, GELU, LayerNorm */
        add_term(st->head, &st->n_head, max, "MLM transform: dense, GELU and norm inputs",
                 vl_add(vl_mul(2 * st->beta, st->sbh, ovf), vl_mul(st->rho, st->sbh, ovf), ovf));
    /* the head's output, the logits: b x labels (vl_activations_compute's cls terms) or
     * the vocabulary's */
    st->head_out = cls ? vl_mul(vl_mul(st->beta, s->batch, ovf), st->f->labels, ovf)
                       : vl_mul(st->beta, st->sbv, ovf);
    /* log_softmax's input, as PyTorch before 1.11 kept it: the logits the loss reads, the
     * log-probabilities' size and dtype */
    if (st->f->softmax_saves_input)
        add_term(st->head, &st->n_head, max, "loss input logits (PyTorch < 1.11)", st->logprobs);
    /* use_cache in training: gradient checkpointing turns it off */
    const vl_kv_out kv_out = s->recompute == VL_RECOMPUTE_FULL || !vl_use_cache(s)
                                 ? VL_KV_OUT_NONE
                                 : vl_kv_outputs(st->f, st->a, s->transformers);
    if (kv_out != VL_KV_OUT_NONE)
        st->kv_held = st->bd->act.kv_narrow_bytes;
    if (vl_outputs_fp32(s)) {
        if (kv_out == VL_KV_OUT_TUPLES) /* each layer's K and V, 4 bytes an element */
            st->kv_fp32 = vl_mul(vl_mul(2 * 4, st->layers, ovf), st->bd->act.kv_elements, ovf);
        if (!st->f->logits_cast_in_model) /* logits the model returns in 16 bits */
            st->logits_fp32 = vl_ceil_div(st->head_out, st->beta) * 4;
    }
}

/* A layer's parameters as PyTorch holds them, one tensor per nn.Linear weight on this GPU
 * (q, k, v or one fused QKV, o, and the MLP's gate, up and down; column-parallel ones split
 * by tp along their outputs, row-parallel ones along their inputs), the biases and norms
 * as one more; one tensor for what this does not describe (experts, latent attention,
 * adapters) and for ZeRO's flat partitions. */
static void layer_tensors(step *st, uint64_t layer_params, bool *ovf)
{
    const vl_arch *a = st->a;
    const uint64_t t = st->s->tp, h = a->hidden, d = a->head_dim;
    const uint64_t q = vl_ceil_div(vl_mul(a->heads, d, ovf), t);
    const uint64_t kv = vl_ceil_div(vl_mul(a->kv_heads, d, ovf), t);
    const uint64_t f = vl_ceil_div(vl_active_mlp_width(a), t);
    uint64_t m[MAX_PARAM_TENSORS];
    int n = 0;
    if (st->s->zero == 0 && !st->s->lora_rank && a->experts <= 1 && !a->kv_lora_rank &&
        !a->q_lora_rank) {
        if (st->f->fused_qkv) {
            m[n++] = vl_mul(h, q + 2 * kv, ovf);
        } else {
            m[n++] = vl_mul(h, q, ovf);
            m[n++] = vl_mul(h, kv, ovf);
            m[n++] = vl_mul(h, kv, ovf);
        }
        m[n++] = vl_mul(q, h, ovf);
        if (a->mlp == VL_MLP_GATED)
            m[n++] = vl_mul(h, f, ovf);
        m[n++] = vl_mul(h, f, ovf);
        m[n++] = vl_mul(f, h, ovf);
    }
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum = vl_add(sum, m[i], ovf);
    if (sum > layer_params) /* a layout this does not describe: one tensor */
        n = 0, sum = 0;
    memcpy(st->tensor, m, (size_t)n * sizeof *m);
    st->n_tensors = n;
    /* q, k and v (or the fused QKV) and o lead: attention's */
    st->attn_tensors = n ? (st->f->fused_qkv ? 2 : 4) : 0;
    st->down_tensor = n ? n - 1 : -1; /* the MLP's last */
    if (layer_params > sum)
        st->tensor[st->n_tensors++] = layer_params - sum;
}

/* FSDP reshards a unit whose parameters are all frozen (LoRA's layers, once the adapters
 * are units of their own) by a hook on the unit's inputs, registered as each forward with
 * grad runs (torch/distributed/fsdp/_runtime_utils.py, _register_post_backward_reshard_only_
 * hook).  Under reentrant checkpointing that forward is the recomputation in backward, its
 * input a detached leaf; register_multi_grad_hook (torch/autograd/graph.py) keeps the
 * leaf's AccumulateGrad in the hook, so the leaf and the gradient accumulated into it
 * outlive the layer's backward, until _post_backward_final_callback removes the hooks as
 * backward ends: a layer input and its gradient for every layer gone through. */
static bool holds_inputs(const step *st)
{
    return st->fsdp && st->s->lora_rank && st->f->adapter_units && st->f->checkpoint_reentrant &&
           st->s->recompute == VL_RECOMPUTE_FULL;
}

/* Gradients, buckets and ZeRO-3's gathering, per GPU. */
static void gradient_plan(step *st, bool *ovf)
{
    const vl_settings *s = st->s;
    const vl_breakdown *bd = st->bd;
    st->fsdp = s->zero >= 2 && st->f->zero_impl == VL_ZERO_FSDP;
    const bool ddp = bd->par.dp > 1 && s->zero == 0 && !s->lora_rank;
    st->grads_freed_in_step = vl_grads_freed_in_step(st->f, s->zero);
    const bool buffer = st->f->grads_persistent || (ddp && st->f->ddp_bucket_view);
    st->grads_held = s->zero < 2 && !st->grads_freed_in_step &&
                     (buffer || st->f->zero_grad_in_place);
    st->grads_in_place = st->grads_held && !buffer;
    /* the gradients as backward makes them: FSDP's are cast into its shard after the
     * reduce-scatter (keep_gradient); autograd makes a 16-bit parameter's in 16 bits, which
     * a framework's fp32 gradient buffer (--fp32-grads: Megatron's main_grad, added into
     * by its DDP's hook on each parameter, _make_backward_post_hook) takes in */
    const bool main_grads = st->grads_held && st->f->grads_persistent &&
                            bd->bpp.gradients > bd->bpp.weights;
    st->grad_bytes = st->fsdp ? bd->bpp.unsharded_grad
                     : main_grads ? bd->bpp.weights
                                  : bd->bpp.gradients;
    const unsigned g = st->grad_bytes;
    uint64_t layer_params;
    if (s->lora_rank) { /* the output layer's adapter is the head's, below */
        st->trainable = bd->lora.trainable_params;
        layer_params = (st->trainable - bd->lora.head_params) / st->layers;
    } else {
        st->trainable = bd->par.params;
        layer_params = bd->par.layer_params / st->layers;
    }
    st->layer_grad = vl_mul(layer_params, g, ovf);
    layer_tensors(st, layer_params, ovf);
    /* the outside parameters' gradients: the head's (with a tied embedding matrix) are
     * born in the loss's backward, the embedding side's at the end; a classification head
     * does not read the tied matrix, whose gradient is then the embedding's */
    const uint64_t rest = st->trainable - layer_params * st->layers;
    uint64_t emb = 0, tied = 0;
    if (!s->lora_rank) {
        const vl_params *p = &bd->params;
        const bool head_reads = st->a->tie_embeddings && st->f->head != VL_HEAD_CLS;
        emb = (head_reads ? 0 : vl_ceil_div(p->embedding, s->tp)) + p->positions +
              p->token_types + p->embedding_norm;
        emb = emb < rest ? emb : rest;
        /* the two gradients of a matrix the head and the lookup share meet in the input
         * buffer of its AccumulateGrad (torch/csrc/autograd/input_buffer.cpp): the head's,
         * a transposed view of its matmul's output, waits there through backward, and the
         * lookup's (embedding_dense_backward: the whole matrix, mostly zeros) is added to it
         * out of place, since a view cannot be added into; DeepSpeed's ZeRO-2 and 3 reduce
         * the sum, from their hook on that AccumulateGrad.  Not modelled under FSDP (the
         * matrix a view of its unit's flat parameter) or pipeline stages */
        if (head_reads && s->pp == 1 && !st->fsdp)
            tied = vl_mul(vl_ceil_div(p->embedding, s->tp), g, ovf);
    }
    st->embedding_params = emb;
    st->head_params = rest - emb;
    st->embedding_grad = vl_mul(emb, g, ovf);
    st->head_grad = vl_mul(rest - emb, g, ovf);
    st->tied_grad = tied < st->head_grad ? tied : st->head_grad; /* within the head's share */
    st->grad_full = vl_mul(st->trainable, bd->bpp.gradients, ovf);
    st->grad_part = bd->bytes[VL_C_GRADIENTS];
    st->grads_before = s->zero_grad == VL_ZERO_GRAD_BACKWARD && s->zero < 2 &&
                       !st->grads_held && !st->grads_freed_in_step;
    st->keeps_logits = vl_loop_keeps_logits(s) && s->pp <= 1;
    st->binds_logits = vl_loop_binds_logits(s) && s->pp <= 1;
    st->inputs_held = holds_inputs(st);
    st->dp = s->lora_rank ? s->gpus : bd->par.dp;
    /* DeepSpeed allocates its reduce bucket whole, reduce_bucket_size elements in the
     * gradients' dtype however few parameters train (contiguous_gradients: the ipg_buffer
     * stage_1_and_2.py makes in backward, the __ipg_bucket_flat_buffer stage3.py makes at
     * start); Megatron's distributed optimizer reduce-scatters within its gradient buffer */
    if (s->zero >= 1 && !st->fsdp && !st->f->ddp_bucket_view)
        st->bucket = vl_mul(st->f->reduce_bucket, g, ovf);
    /* DeepSpeed's ZeRO-2 makes its reduce bucket (ipg_buffer) and the partition the bucket
     * reduces into (grads_in_partition) as backward starts, copies the partition out for
     * the step (averaged_gradients) as it ends and frees the two (stage_1_and_2.py:
     * backward; independent_gradient_partition_epilogue, _release_ipg_buffers); the step
     * frees the copy.  ZeRO-3 keeps both from its start (stage3.py). */
    st->partition_in_backward = s->zero == 2 && !st->fsdp && !st->f->ddp_bucket_view;
    st->bucket_in_backward = st->partition_in_backward || st->grads_freed_in_step;
    if (s->zero == 3) {
        const unsigned w = bd->bpp.gathered;
        if (s->lora_rank) {
            uint64_t outside = vl_mul(bd->params.outside, w, ovf);
            /* all-gathered: the frozen layers' weights as gathered, or their 4-bit data, not
             * the scales every GPU holds */
            const uint64_t kept = vl_add(outside, bd->lora.nf4_scale_bytes, ovf);
            uint64_t base = !s->qlora ? vl_mul(bd->P - bd->params.outside, w, ovf)
                            : bd->lora.frozen_bytes > kept ? bd->lora.frozen_bytes - kept
                                                           : 0;
            st->gathered_layer = base / st->layers + vl_mul(layer_params, w, ovf);
            st->gathered_outside = outside;
        } else {
            st->gathered_layer = vl_mul(bd->par.layer_params / st->layers, w, ovf);
            st->gathered_outside = vl_mul(bd->par.outside_params, w, ovf);
        }
        uint64_t per = layer_params ? bd->par.layer_params / st->layers : 1;
        if (s->lora_rank)
            per = (bd->P - bd->params.outside) / st->layers;
        /* DeepSpeed prefetches by its bucket both ways; FSDP's forward gathers a unit as it
         * runs (forward_prefetch=False), its backward the unit before the current one in
         * the forward's order (BACKWARD_PRE): the layer before, or where the adapters are
         * units of their own, the previous layer's last adapter, a unit of no weight
         * (torch/distributed/fsdp/_exec_order_utils.py, get_handle_to_backward_prefetch) */
        st->ahead = st->fsdp ? 0 : per ? st->f->prefetch_bucket / per : 0;
        if (st->ahead > st->layers - 1)
            st->ahead = st->layers - 1;
        if (st->fsdp)
            st->ahead_back = s->lora_rank && st->f->adapter_units ? 0 : 1;
        else
            st->ahead_back = st->ahead;
        /* MixedPrecision's 16-bit copy of this GPU's shard, made for the all-gather and freed
         * once it is done (FlatParamHandle.post_unshard) */
        if (st->fsdp && vl_fsdp_casts_params(s))
            st->cast_shard = vl_ceil_div(st->gathered_layer, st->dp);
    }
    /* an optimizer that makes its fp32 gradient copy for the step holds it then only: this
     * GPU's share under ZeRO, else the whole, out of the optimizer states the step starts
     * with */
    if (st->f->grad_copy_at_step && s->offload == VL_OFFLOAD_NONE) {
        const uint64_t share = s->zero >= 1 ? vl_ceil_div(st->trainable, st->dp) : st->trainable;
        const uint64_t copy = vl_mul(share, bd->bpp.grad_copy, ovf);
        st->step_grad_copy = copy < bd->bytes[VL_C_OPTIMIZER] ? copy : bd->bytes[VL_C_OPTIMIZER];
    }
}

/* bitsandbytes' paged optimizers (bitsandbytes/optim/optimizer.py, get_state_buffer) give a
 * parameter of 1e5 elements or more states from F.get_paged, cudaMallocManaged memory that
 * the caching allocator never sees; smaller ones get torch.zeros_like.  This GPU's states of
 * the large tensors: every adapter matrix of at least 1e5 elements, or, in full training,
 * all but the norms and routers (biases go with their matrices). */
#define PAGED_MIN_NUMEL 100000
static uint64_t paged_states(const step *st, bool *ovf)
{
    const vl_settings *s = st->s;
    const vl_breakdown *bd = st->bd;
    const vl_arch *a = st->a;
    if (!st->paged_on)
        return 0;
    uint64_t large;
    if (s->lora_rank) {
        if (vl_lora_params(a, s->lora_targets, s->lora_rank, PAGED_MIN_NUMEL, &large))
            return 0;
    } else {
        /* this GPU's parameters (its tensor-parallel share, its pipeline stage's layers) */
        const vl_params *p = &bd->params;
        const uint64_t per_layer = p->norms + (a->experts > 1 ? p->router : 0);
        const uint64_t small = vl_add(vl_mul(per_layer, bd->par.stage_layers, ovf),
                                      p->final_norm + p->embedding_norm, ovf);
        large = bd->par.params > small ? bd->par.params - small : 0;
    }
    /* ZeRO's share of them, at the optimizer's bytes a parameter; no more than this GPU's
     * states (none when they are offloaded) */
    const uint64_t held = s->zero >= 1 ? vl_ceil_div(large, st->dp) : large;
    const uint64_t paged = vl_mul(held, bd->bpp.optimizer, ovf);
    return paged < bd->bytes[VL_C_OPTIMIZER] ? paged : bd->bytes[VL_C_OPTIMIZER];
}

/* ---- training -------------------------------------------------------------------------- */

typedef struct micro {
    uint32_t emb[VL_MAX_TERMS], head[VL_MAX_TERMS + 4], mask;
    uint32_t root;              /* FSDP: the root unit's gathered parameters (fsdp_root) */
    uint32_t *layer;            /* layers x MAX_LAYER_TERMS ids */
    uint32_t *checkpoint;       /* full recompute: each layer's kept input */
    uint32_t held_logits;       /* the logits the loop binds through this backward */
    uint32_t *logprobs;         /* a chunked loss's log-probabilities, a chunk each */
    uint32_t *kv;               /* the K and V the model's outputs hold, a layer each */
} micro;

/* FSDP's root unit (the model's parameters outside its wrapped layers: the embeddings, the
 * final norm, the head) is gathered as the forward starts and not resharded after it, "with
 * the intention that they are immediately used for backward computation"; it is resharded
 * when backward ends (torch/distributed/fsdp/_runtime_utils.py: _post_forward_reshard
 * frees no root, _post_backward_final_callback's _catch_all_reshard).  One micro-batch at
 * a time (no pipeline); DeepSpeed gathers each module for its own forward and backward. */
#define FSDP_ROOT_WHAT "FSDP root unit's parameters, gathered until backward ends"
static bool fsdp_root(const step *st)
{
    return st->fsdp && st->s->zero == 3 && st->s->pp == 1;
}

/* ZeRO-3 gathering the outside parameters for each use (the embedding, the head) */
static bool gathers_outside(const step *st)
{
    return st->s->zero == 3 && !fsdp_root(st);
}

static uint32_t *gathered_ids(builder *b, size_t n)
{
    uint32_t *p = calloc(n ? n : 1, sizeof *p);
    if (!p)
        b->nomem = true;
    return p;
}

/* ZeRO-3: layer i and the layers the prefetch bucket reaches are gathered. */
static void gather(builder *b, const step *st, uint32_t *ids, uint64_t i, bool forward)
{
    if (st->s->zero != 3)
        return;
    for (uint64_t k = 0; k <= (forward ? st->ahead : st->ahead_back); k++) {
        uint64_t j = forward ? i + k : i - k;
        if ((forward && j >= st->layers) || (!forward && k > i))
            break;
        if (ids[j])
            continue;
        const uint32_t cast = alloc(b, VL_TL_TRANSIENT, st->cast_shard,
                                    "shard cast to 16 bits for the all-gather (MixedPrecision)");
        ids[j] = alloc(b, VL_TL_GATHERED, st->gathered_layer, "gathered layer parameters");
        release(b, cast);
    }
}

/* --ep: the token dispatcher's all-to-all buffers (memory.c, vl_activations.a2a_bytes),
 * saved by nothing, alive while MoE layer l runs its forward or its backward. */
static void all_to_all(builder *b, const step *st, uint64_t l)
{
    if (l >= st->a->dense_layers)
        transient(b, VL_TL_TRANSIENT, st->bd->act.a2a_bytes,
                  "all-to-all dispatch and combine buffers (expert parallel)");
}

static void release_all(builder *b, const uint32_t *ids, int n)
{
    for (int i = 0; i < n; i++)
        release(b, ids[i]);
}

/* Eager attention's scores up to its softmax: q·kᵀ, the copy the scale and the mask make
 * while it lives (one or several, each freed as the next is made: two at a time), then the
 * fp32 copy an upcasting softmax reads (*upcast).  Returns the scaled scores. */
static uint32_t scores_before_softmax(builder *b, const step *st, uint32_t *upcast)
{
    const uint32_t product = alloc(b, VL_TL_TRANSIENT, st->scores, SCORES_WHAT);
    const uint32_t scaled =
        alloc(b, VL_TL_TRANSIENT, st->scores_scaled, "attention scores, scaled and masked");
    release(b, product);
    *upcast = alloc(b, VL_TL_TRANSIENT, st->scores_upcast,
                    "attention scores in fp32, the softmax's input");
    return scaled;
}

/* The end of a layer's backward stage: its saved tensors that stage frees (freed_by). */
static void release_stage(builder *b, const step *st, uint32_t *ids, unsigned char stage)
{
    for (int i = 0; i < st->n_layer; i++)
        if (st->freed_by[i] == stage) {
            release(b, ids[i]);
            ids[i] = 0;
        }
}

/* A layer's ops at work, as the tensors they hold at once: n of bytes (ws_shape). */
static void workspace(builder *b, uint64_t bytes, int n, const char *what, uint32_t ids[3])
{
    for (int i = 0; i < 3; i++)
        ids[i] = i < n ? alloc(b, VL_TL_TRANSIENT, bytes, what) : 0;
}

/* Leaving autocast empties its weight cache (torch.autocast.__exit__): under full
 * recompute no saved tensor holds the first forward's copies, so they go before backward,
 * where each recomputed layer casts its own again. */
static void end_autocast(builder *b, const step *st, micro *mb, bool full)
{
    for (uint64_t l = 0; full && l < st->layers; l++)
        for (int i = 0; i < st->n_layer; i++) {
            uint32_t *id = &mb->layer[l * MAX_LAYER_TERMS + i];
            if (*id && starts(st->layer[i].name, "16-bit weight copies")) {
                release(b, *id);
                *id = 0;
            }
        }
}

/* A chunked loss's chunk i of a tensor of `whole` bytes over the micro-batch's positions:
 * loss_chunk positions, the last chunk what remains. */
static uint64_t chunk_bytes(const step *st, uint64_t whole, uint64_t i)
{
    const uint64_t first = i * st->f->loss_chunk, left = st->positions - first;
    return whole / st->positions * (left < st->f->loss_chunk ? left : st->f->loss_chunk);
}

/* What an adapter on the output layer (--lora-targets head) makes at a time beside the
 * logits: B(A(x)), then it times the adapter's scaling (PEFT's and LitGPT's
 * `... * self.scaling`) until the sum takes the base's logits' place; in backward the
 * logits' gradient times the scaling.  Chunk i's where the model runs its head in the
 * loss's chunks (LitGPT's lm_head_chunk_size; the first is the largest); 0 without one. */
static uint64_t head_adapter_piece(const step *st, uint64_t i)
{
    if (!st->bd->lora.head_params)
        return 0;
    return st->loss_chunks ? chunk_bytes(st, st->head_out, i) : st->head_out;
}

#define HEAD_ADAPTER_WHAT "the output layer's adapter: B(A(x))"
#define HEAD_ADAPTER_SCALED_WHAT "the output layer's adapter: B(A(x)) scaled"
#define HEAD_ADAPTER_GRAD_WHAT "the output layer's adapter: the logits' gradient scaled"
#define LOGPROBS_CHUNK_WHAT "log-probabilities (for the loss), a chunk's"
#define KV_HELD_WHAT "K and V as made, held by the model's outputs (use_cache)"
#define OUTPUTS_CAST_WHAT "the model's outputs cast to fp32 (accelerate, under autocast)"

/* the loss's shifted copy of the logits, and their gradient cast back to 16 bits */
#define SHIFTED_WHAT "shifted logits (a contiguous copy)"
#define GRAD_CAST_WHAT "gradient of the logits, cast"

/* The loop rebinds its logits: the micro-batch before's go, with the graph they held. */
static void drop_kept_logits(builder *b)
{
    release(b, b->kept_logits);
    release(b, b->kept_graph);
    b->kept_logits = b->kept_graph = 0;
}

static void forward(builder *b, const step *st, micro *mb, uint64_t m, uint32_t *gath)
{
    const bool full = st->s->recompute == VL_RECOMPUTE_FULL;
    const char *pre = st->in_flight > 1 || st->micro_batches > 1 ? "micro-batch " : "";
    char tag[40] = "";
    if (*pre)
        snprintf(tag, sizeof tag, "%s%llu ", pre, (unsigned long long)m + 1);
    phase(b, "%sforward embedding", tag);
    uint32_t gout = 0;
    if (fsdp_root(st))
        mb->root = alloc(b, VL_TL_GATHERED, st->gathered_outside, FSDP_ROOT_WHAT);
    else if (gathers_outside(st))
        gout = alloc(b, VL_TL_GATHERED, st->gathered_outside, "gathered embeddings");
    for (int i = 0; i < st->n_emb; i++)
        mb->emb[i] = alloc(b, VL_TL_ACTIVATIONS, st->emb[i].bytes, st->emb[i].name);
    mb->mask = alloc(b, VL_TL_TRANSIENT, st->mask, st->mask_what);
    release(b, gout);
    /* full recompute keeps each layer's input: the embeddings' output, then each layer's,
     * made while the layer's ops still hold their workspace */
    if (full)
        mb->checkpoint[0] = alloc(b, VL_TL_ACTIVATIONS, st->bd->act.checkpoint_bytes,
                                  "checkpointed layer input");
    if (st->kv_held) /* the K and V the model's outputs will hold */
        mb->kv = gathered_ids(b, st->layers);
    for (uint64_t l = 0; l < st->layers && !b->nomem; l++) {
        phase(b, "%sforward layer %llu", tag, (unsigned long long)l);
        gather(b, st, gath, l, true);
        uint32_t *ids = &mb->layer[l * MAX_LAYER_TERMS];
        if (full) {
            for (int i = 0; i < st->n_layer; i++)
                if (starts(st->layer[i].name, "16-bit weight copies"))
                    ids[i] = alloc(b, VL_TL_ACTIVATIONS, st->layer[i].bytes, st->layer[i].name);
            uint32_t ws[3];
            workspace(b, st->ws_bytes, st->ws_n, "layer forward workspace (no grad)", ws);
            if (l + 1 < st->layers)
                mb->checkpoint[l + 1] = alloc(b, VL_TL_ACTIVATIONS, st->bd->act.checkpoint_bytes,
                                              "checkpointed layer input");
            release_all(b, ws, 3);
        } else {
            uint32_t scaled = 0, upcast = 0, dropped = 0, projected = 0;
            for (int i = 0; i <= st->n_layer; i++) {
                if (i == st->projected_at)
                    projected = alloc(b, VL_TL_TRANSIENT, st->projected,
                                      "q, k, v projections (the matmuls keep copies)");
                if (i == st->scores_at)
                    scaled = scores_before_softmax(b, st, &upcast);
                if (i == st->upcast_freed)
                    release(b, upcast);
                if (i == st->scores_freed)
                    release(b, scaled);
                if (i == st->dropped_at)
                    dropped = alloc(b, VL_TL_TRANSIENT, st->dropped, st->dropped_what);
                if (i == st->dropped_freed)
                    release(b, dropped);
                if (i == st->returns)
                    release(b, projected);
                const uint32_t product = i != st->joined_at ? 0 :
                    alloc(b, VL_TL_TRANSIENT, st->joined, "attention output (the value matmul's)");
                if (i < st->n_layer)
                    ids[i] = alloc(b, VL_TL_ACTIVATIONS, l ? st->layer[i].bytes : st->first[i],
                                   st->layer[i].name);
                release(b, product);
            }
        }
        if (mb->kv)
            mb->kv[l] = alloc(b, VL_TL_ACTIVATIONS, st->kv_held, KV_HELD_WHAT);
        all_to_all(b, st, l);
        transient(b, VL_TL_TRANSIENT, st->dequant_fwd, st->dequant_fwd_what);
        if (st->s->zero == 3) {
            release(b, gath[l]);
            gath[l] = 0;
        }
    }
    if (st->s->pp > 1) {
        end_autocast(b, st, mb, full);
        return;
    }
    /* the head and the loss: the output layer's logits, their cast for the loss, the
     * log-probabilities the loss keeps */
    phase(b, "%sloss", tag);
    gout = gathers_outside(st) ? alloc(b, VL_TL_GATHERED, st->gathered_outside, "gathered head")
                               : 0;
    uint32_t last = alloc(b, VL_TL_TRANSIENT, st->bd->act.head_input_live,
                          "the last hidden state, which the head reads");
    for (int i = 0; i < st->n_head; i++)
        if (i != st->logprobs_term)
            mb->head[i] = alloc(b, VL_TL_ACTIVATIONS, st->head[i].bytes, st->head[i].name);
    /* a 4-bit output layer's matrix, dequantized while it computes the logits */
    uint32_t hq = alloc(b, VL_TL_TRANSIENT, st->head_dequant, HEAD_DEQUANT_WHAT);
    /* logits the loop binds are state: for its backward, or for the next step */
    const bool held = st->keeps_logits || st->binds_logits;
    const vl_tl_component lc = held ? VL_TL_ACTIVATIONS : VL_TL_TRANSIENT;
    uint32_t out = alloc(b, lc, st->head_out, "logits");
    release(b, hq);
    const uint64_t piece = head_adapter_piece(st, 0);
    if (piece) { /* an adapter on it: base(x) + B(A(x)) * scaling, in that order */
        uint32_t ab = alloc(b, VL_TL_TRANSIENT, piece, HEAD_ADAPTER_WHAT);
        uint32_t scaled = alloc(b, VL_TL_TRANSIENT, piece, HEAD_ADAPTER_SCALED_WHAT);
        release(b, ab);
        if (!st->loss_chunks) { /* the sum takes the base's logits' place (a chunk's, in
                                 * chunks: the logits here are their list) */
            uint32_t sum = alloc(b, lc, st->head_out, "logits");
            release(b, out);
            out = sum;
        }
        release(b, scaled);
    }
    /* the loop binds the logits the model returns, and the micro-batch before's go: as the
     * model returns, after its own cast where it casts them (logits_cast_in_model) */
    const bool returns_cast = st->f->logits_cast_in_model;
    if (st->keeps_logits && !returns_cast)
        drop_kept_logits(b);
    const bool lm = st->f->head != VL_HEAD_CLS;
    const uint64_t loss_in = vl_ceil_div(st->head_out, st->beta) * st->loss;
    /* a causal LM's loss compares position i with token i + 1, a masked LM's with its own:
     * the shifted copy of the cast (in the model's place, or beside it), or, first, of the
     * logits as they are, which cross_entropy casts (shift_before_cast) */
    const bool shift = st->f->loss_shift_copy && st->f->head == VL_HEAD_LM;
    const bool copy_first = shift && st->f->shift_before_cast;
    uint32_t shifted = copy_first ? alloc(b, VL_TL_TRANSIENT, st->head_out, SHIFTED_WHAT) : 0;
    /* a loss in place makes its fp32 copy as the term it keeps (below) */
    const bool in_place =
        st->f->loss_in_place == VL_LIP_ALL && st->logprobs_term >= 0 && !st->loss_chunks;
    uint32_t cast = st->loss != st->beta && lm && !in_place
                        ? alloc(b, copy_first ? VL_TL_TRANSIENT : lc, loss_in,
                                copy_first ? "shifted logits cast for the loss"
                                           : "logits cast for the loss")
                        : 0;
    if (cast && returns_cast) { /* the cast takes the logits' place */
        release(b, out);
        out = 0;
    }
    if (st->keeps_logits && returns_cast)
        drop_kept_logits(b);
    if (shift && !copy_first)
        shifted = alloc(b, VL_TL_TRANSIENT, loss_in, SHIFTED_WHAT);
    if (st->loss_chunks) { /* log_softmax keeps each chunk's output */
        mb->logprobs = gathered_ids(b, st->loss_chunks);
        for (uint64_t i = 0; mb->logprobs && i < st->loss_chunks; i++)
            mb->logprobs[i] = alloc(b, VL_TL_ACTIVATIONS, chunk_bytes(st, st->logprobs, i),
                                    LOGPROBS_CHUNK_WHAT);
    } else if (in_place && st->loss == st->beta && !held) {
        mb->head[st->logprobs_term] = out; /* fp32 logits: .float() is the tensor itself */
        out = 0;
    } else if (st->logprobs_term >= 0) {
        mb->head[st->logprobs_term] = alloc(b, VL_TL_ACTIVATIONS, st->head[st->logprobs_term].bytes,
                                            st->head[st->logprobs_term].name);
    }
    if (copy_first) { /* log_softmax keeps its output, not the cast it read */
        release(b, cast);
        cast = 0;
    }
    release(b, shifted);
    if (!held && !st->f->logits_cast_in_model) { /* the loss's own cast goes with the loss */
        release(b, cast);
        cast = 0;
    }
    /* the model returns: the loop reads the loss from its outputs, cast to fp32 where
     * accelerate casts them, and drops them with the K and V they held */
    transient(b, VL_TL_TRANSIENT, st->kv_fp32 + st->logits_fp32, OUTPUTS_CAST_WHAT);
    if (mb->kv) {
        release_all(b, mb->kv, (int)st->layers);
        free(mb->kv);
        mb->kv = NULL;
    }
    if (held) { /* bound by the loop: the logits, or the cast that replaced them */
        *(st->keeps_logits ? &b->kept_logits : &mb->held_logits) = out ? out : cast;
        *(out ? &out : &cast) = 0;
    }
    release(b, cast);
    release(b, out);
    release(b, gout);
    release(b, last);
    end_autocast(b, st, mb, full);
}

static void reduce_pending(builder *b, const step *st, uint32_t *pending, size_t *n,
                           uint64_t *bytes, bool force)
{
    if (!*n || (!force && *bytes < st->bucket && st->s->zero != 3))
        return;
    for (size_t i = 0; i < *n; i++)
        release(b, pending[i]);
    *n = 0;
    *bytes = 0;
}

/* A gradient autograd has just made: born as the .grad (its id), or where the .grad exists
 * added into it by AccumulateGrad and dropped (0). */
static uint32_t new_gradient(builder *b, uint64_t bytes, const char *what, bool birth)
{
    if (birth)
        return alloc(b, VL_TL_GRADIENTS, bytes, what);
    transient(b, VL_TL_TRANSIENT, bytes, ACCUMULATED_WHAT);
    return 0;
}

/* A parameter's gradient g once autograd has made it: the .grad itself (slot), or under
 * ZeRO 2 and 3 reduced away.  FSDP reduce-scatters it into its shard at once, the shard
 * the .grad until zero_grad (added into by later micro-batches); DeepSpeed queues it for
 * its reduce bucket. */
static void keep_gradient(builder *b, const step *st, uint32_t g, uint64_t bytes, bool born,
                          uint32_t *slot, uint32_t *pending, size_t *n, uint64_t *pending_bytes)
{
    if (!g)
        return;
    if (st->fsdp) {
        const uint64_t shard = vl_mul(vl_ceil_div(bytes / st->grad_bytes, st->dp),
                                      st->bd->bpp.gradients, &b->ovf);
        if (born)
            *slot = alloc(b, VL_TL_GRADIENTS, shard, "gradient shard (reduce-scattered)");
        else
            transient(b, VL_TL_TRANSIENT, shard, ACCUMULATED_WHAT);
        release(b, g);
    } else if (st->s->zero >= 2) {
        pending[(*n)++] = g;
        *pending_bytes += bytes;
    } else {
        *slot = g;
    }
}

#define RESID_GRAD_WHAT "residual-stream gradient"

/* The loss's backward, the whole sequence at once: nll_loss backward makes a dense gradient
 * of the log-probabilities, log_softmax backward the logits' gradient while the first is
 * alive; then the shift's and the cast's backward.  Returns the gradient the head reads. */
static uint32_t loss_backward(builder *b, const step *st, bool cast)
{
    uint32_t glp = alloc(b, VL_TL_TRANSIENT, st->logprobs, "gradient of the log-probabilities");
    uint32_t gl = alloc(b, VL_TL_TRANSIENT, st->logprobs, "gradient of the logits");
    release(b, glp);
    const bool shift = st->f->loss_shift_copy && st->f->head == VL_HEAD_LM;
    const bool copy_first = shift && st->f->shift_before_cast; /* cast back, unshift */
    if (copy_first && cast) {
        uint32_t g16 = alloc(b, VL_TL_TRANSIENT, st->head_out, GRAD_CAST_WHAT);
        release(b, gl);
        gl = g16;
    }
    if (shift) {
        /* the slice's backward: the shifted gradient copied into a full-size one */
        uint32_t unshifted = alloc(b, VL_TL_TRANSIENT, copy_first ? st->head_out : st->logprobs,
                                   "gradient of the logits, unshifted");
        release(b, gl);
        gl = unshifted;
    }
    if (cast && !copy_first) {
        uint32_t g16 = alloc(b, VL_TL_TRANSIENT, st->head_out, GRAD_CAST_WHAT);
        release(b, gl);
        gl = g16;
    }
    return gl;
}

/* A chunked loss's backward (loss_chunk): autograd runs every chunk's loss before the
 * output layer's backward, made earlier (a lower sequence number), last chunk first: each
 * makes its log-probabilities' gradient and from it the logits', and drops the first and
 * its log-probabilities; the logits' gradients wait for the head, cast back to 16 bits
 * first where the loss read a cast.  Returns them, a chunk each (NULL, out of memory). */
static uint32_t *chunked_loss_backward(builder *b, const step *st, micro *mb, bool cast)
{
    uint32_t *gl = gathered_ids(b, 2 * st->loss_chunks);
    if (!gl || !mb->logprobs) {
        free(gl);
        return NULL;
    }
    for (uint64_t i = st->loss_chunks; i-- > 0;) {
        const uint64_t bytes = chunk_bytes(st, st->logprobs, i);
        uint32_t glp =
            alloc(b, VL_TL_TRANSIENT, bytes, "gradient of the log-probabilities, a chunk's");
        gl[i] = alloc(b, VL_TL_TRANSIENT, bytes, "gradient of the logits, a chunk's");
        release(b, glp);
        release(b, mb->logprobs[i]);
    }
    free(mb->logprobs);
    mb->logprobs = NULL;
    for (uint64_t i = st->loss_chunks; cast && i-- > 0;) {
        uint32_t g16 = alloc(b, VL_TL_TRANSIENT, chunk_bytes(st, st->head_out, i), GRAD_CAST_WHAT);
        release(b, gl[i]);
        gl[i] = g16;
    }
    return gl;
}

/* The output layer's backward over a chunked loss's gradients (chunked_loss_backward's,
 * freed here): each chunk's input gradient (a 4-bit head dequantized again for it), the
 * chunk's logits' gradient dropped; then the split's backward joins them.  Returns the
 * residual-stream gradient. */
static uint32_t chunked_head_backward(builder *b, const step *st, uint32_t *gl)
{
    const uint64_t resid = vl_mul(st->rho, st->sbh, &b->ovf), n = st->loss_chunks;
    for (uint64_t i = n; i-- > 0;) {
        transient(b, VL_TL_TRANSIENT, head_adapter_piece(st, i), HEAD_ADAPTER_GRAD_WHAT);
        uint32_t hq = alloc(b, VL_TL_TRANSIENT, st->head_dequant, HEAD_DEQUANT_WHAT);
        gl[n + i] = alloc(b, VL_TL_TRANSIENT, chunk_bytes(st, resid, i),
                          "residual-stream gradient, a chunk's");
        release(b, hq);
        release(b, gl[i]);
    }
    uint32_t whole = alloc(b, VL_TL_TRANSIENT, resid, RESID_GRAD_WHAT);
    release_all(b, gl + n, (int)n);
    free(gl);
    return whole;
}

/* The gradients' slots: each layer's tensors, then the head's and the embedding side's. */
#define GRAD_SLOTS(st) ((st)->layers * MAX_PARAM_TENSORS + 2)
#define HEAD_SLOT(st) ((st)->layers * MAX_PARAM_TENSORS)

static uint32_t *backward(builder *b, const step *st, micro *mb, uint32_t *gath, bool born,
                          uint32_t *grads, const char *tag)
{
    const vl_settings *s = st->s;
    const bool full = s->recompute == VL_RECOMPUTE_FULL;
    const bool part = s->zero >= 2;  /* gradients reduced and dropped as they come */
    /* held gradients are written in place; partitioned ones are born (and reduced away)
     * in every micro-batch's backward, the others in the first only */
    const bool birth = (born || part) && !st->grads_held;
    uint32_t tied_wait = 0; /* the head's gradient of the tied matrix, in its input buffer */
    size_t n_pending = 0;
    uint64_t pending_bytes = 0;
    /* the head's gradient, one a layer, the tied matrix's sum and the embedding's */
    uint32_t *pending = part ? gathered_ids(b, st->layers + 3) : NULL;
    uint32_t *held = st->inputs_held ? gathered_ids(b, st->layers) : NULL;
    uint32_t resid = 0, ipg = 0, in_partition = 0;
    if (s->pp == 1)
        phase(b, "%sloss backward", tag);
    else
        phase(b, "%sbackward: gradient from the next stage", tag);
    if (st->bucket_in_backward) /* engine.backward, before loss.backward (ZeRO-1: the first
                                 * gradient's hook) */
        ipg = alloc(b, VL_TL_BUCKETS, st->bucket, "ZeRO reduce bucket (ipg_buffer)");
    if (st->partition_in_backward)
        in_partition = alloc(b, VL_TL_GRADIENTS, st->grad_part, "gradient partition being reduced");
    if (s->pp == 1) {
        uint32_t gout = gathers_outside(st)
                            ? alloc(b, VL_TL_GATHERED, st->gathered_outside, "gathered head")
                            : 0;
        const bool cast = st->loss != st->beta;
        uint32_t gl = 0, *chunks = NULL;
        if (st->loss_chunks) {
            chunks = chunked_loss_backward(b, st, mb, cast);
        } else if (st->f->loss_in_place != VL_LIP_NONE && st->logprobs_term >= 0) {
            /* the gradient in the softmax's tensor, cast back to 16 bits where it was cast */
            gl = mb->head[st->logprobs_term];
            mb->head[st->logprobs_term] = 0;
            if (cast) {
                uint32_t g16 = alloc(b, VL_TL_TRANSIENT, st->head_out, GRAD_CAST_WHAT);
                release(b, gl);
                gl = g16;
            }
        } else {
            gl = loss_backward(b, st, cast);
            /* an adapter's branch runs first (made later); then the base's, its matrix
             * dequantized again for the gradient of its input */
            transient(b, VL_TL_TRANSIENT, head_adapter_piece(st, 0), HEAD_ADAPTER_GRAD_WHAT);
            uint32_t hq = alloc(b, VL_TL_TRANSIENT, st->head_dequant, HEAD_DEQUANT_WHAT);
            resid = alloc(b, VL_TL_TRANSIENT, vl_mul(st->rho, st->sbh, &b->ovf), RESID_GRAD_WHAT);
            /* an encoder's head read hidden[:, 0], a select of a slice: each one's backward
             * spreads the gradient over a whole s x b x h tensor of its own.  Where the head
             * saved the last hidden state, that goes first and makes room for one; under
             * autocast it saved a cast (head_input_live) */
            transient(b, VL_TL_TRANSIENT, st->bd->act.head_input_live,
                      "the first position's gradient, spread by the select's backward");
            release(b, hq);
        }
        /* the tied matrix's gradient waits for the lookup's in its input buffer: beside
         * the .grad of a later micro-batch, and apart from the reduction under ZeRO-2/3 */
        const uint64_t waits = part || !birth ? st->tied_grad : 0;
        uint32_t g = new_gradient(b, st->head_grad - waits, "head gradients", birth);
        tied_wait = alloc(b, part ? VL_TL_GRADIENTS : VL_TL_TRANSIENT, waits, TIED_WAIT_WHAT);
        if (chunks)
            resid = chunked_head_backward(b, st, chunks);
        release(b, gl);
        for (int i = 0; i < st->n_head; i++)
            release(b, mb->head[i]);
        release(b, gout);
        keep_gradient(b, st, g, st->head_grad - waits, born, &grads[HEAD_SLOT(st)], pending,
                      &n_pending, &pending_bytes);
    } else {
        resid = alloc(b, VL_TL_TRANSIENT, vl_mul(st->beta, st->sbh, &b->ovf),
                      "activation gradient from the next stage");
    }
    for (uint64_t l = st->layers; l-- > 0 && !b->nomem;) {
        phase(b, "%sbackward layer %llu", tag, (unsigned long long)l);
        gather(b, st, gath, l, false);
        uint32_t *ids = &mb->layer[l * MAX_LAYER_TERMS];
        /* reentrant checkpointing (torch.utils.checkpoint's CheckpointFunction.backward)
         * runs the layer's forward again and holds its output while it runs backward
         * through it */
        uint32_t rerun = 0;
        if (full) {
            for (int i = 0; i < st->n_layer; i++)
                if (!ids[i])
                    ids[i] = alloc(b, VL_TL_ACTIVATIONS, l ? st->layer[i].bytes : st->first[i],
                                   st->layer[i].name);
            if (st->f->checkpoint_reentrant)
                rerun = alloc(b, VL_TL_TRANSIENT, st->bd->act.checkpoint_bytes,
                              "recomputed layer output (reentrant checkpoint)");
        }
        /* the MLP's backward first, beside the layer's other saved tensors; autograd's
         * AccumulateGrad makes each parameter's .grad on its own, as the
         * parameter's op runs backward: down_proj's first, then the rest of the MLP's
         * matrices (and the rest: biases, norms, a layout layer_tensors does not split),
         * attention's output projection once the MLP is done, q, k and v last */
        uint32_t g[MAX_PARAM_TENSORS] = {0};
        uint64_t bytes[MAX_PARAM_TENSORS] = {0};
        const int attn = st->attn_tensors, down = st->down_tensor;
        for (int i = 0; i < st->n_tensors; i++)
            bytes[i] = vl_mul(st->tensor[i], st->grad_bytes, &b->ovf);
        /* down_proj's backward: its input's gradient (the workspace's first tensor, from
         * its matrix dequantized under QLoRA) and its weight's; the input it kept goes once
         * it is done, before the activation's backward holds the rest of the workspace and
         * the MLP's other matrices run theirs */
        uint32_t ws[3];
        release_stage(b, st, ids, FREED_FIRST);
        workspace(b, st->mlp_ws_bytes, 1, MLP_WS, ws);
        transient(b, VL_TL_TRANSIENT, st->dequant, DEQUANT_WHAT);
        if (down >= 0)
            g[down] = new_gradient(b, bytes[down], "layer gradients", birth);
        if (st->down_in >= 0) {
            release(b, ids[st->down_in]);
            ids[st->down_in] = 0;
        }
        for (int i = 1; i < st->mlp_ws_n; i++)
            ws[i] = alloc(b, VL_TL_TRANSIENT, st->mlp_ws_bytes, MLP_WS);
        all_to_all(b, st, l);
        transient(b, VL_TL_TRANSIENT, st->dequant, DEQUANT_WHAT);
        for (int i = attn; i < st->n_tensors; i++)
            if (i != down)
                g[i] = new_gradient(b, bytes[i], "layer gradients", birth);
        release_all(b, ws, 3);
        /* then attention's, from its output back: the value side, then the softmax with
         * its gradients in and out (selective recompute rebuilds the core for it) */
        release_stage(b, st, ids, FREED_BY_MLP);
        if (attn)
            g[attn - 1] = new_gradient(b, bytes[attn - 1], "layer gradients", birth);
        uint32_t vg = alloc(b, VL_TL_TRANSIENT, st->v_grad, "gradient of V (the value matmul's)");
        transient(b, VL_TL_TRANSIENT, st->probs_grad, "gradient of the attention probabilities");
        release_stage(b, st, ids, FREED_BY_VALUE);
        uint32_t core = alloc(b, VL_TL_TRANSIENT, st->recomputed_core, "recomputed attention core");
        workspace(b, st->attn_ws_bytes, 2, ATTN_WS, ws);
        release_all(b, ws, 3);
        release(b, core);
        release(b, vg);
        for (int i = 0; i + 1 < attn; i++)
            g[i] = new_gradient(b, bytes[i], "layer gradients", birth);
        for (int i = 0; i < st->n_layer; i++)
            release(b, ids[i]);
        release(b, rerun);
        if (st->inputs_held) /* its input's gradient, held beside the input (holds_inputs) */
            held[l] = alloc(b, VL_TL_TRANSIENT, st->bd->act.checkpoint_bytes,
                            "layer input's gradient, held by FSDP's reshard hook");
        else if (full)
            release(b, mb->checkpoint[l]);
        if (s->zero == 3) {
            release(b, gath[l]);
            gath[l] = 0;
        }
        /* partitioned: one tensor a layer (layer_tensors) */
        for (int i = 0; i < st->n_tensors; i++)
            keep_gradient(b, st, g[i], bytes[i], born, &grads[l * MAX_PARAM_TENSORS + i],
                          pending, &n_pending, &pending_bytes);
        if (part)
            reduce_pending(b, st, pending, &n_pending, &pending_bytes, false);
    }
    phase(b, "%sbackward embedding", tag);
    if (st->tied_grad) {
        /* the lookup's gradient, and the sum it makes with the head's: the .grad in the
         * head's place (same bytes), added into the .grad (a later micro-batch's), or
         * reduced (ZeRO-2/3) */
        uint32_t lookup = alloc(b, VL_TL_TRANSIENT, st->tied_grad, TIED_LOOKUP_WHAT);
        uint32_t sum = alloc(b, part ? VL_TL_GRADIENTS : VL_TL_TRANSIENT, st->tied_grad,
                             TIED_SUM_WHAT);
        release(b, lookup);
        release(b, tied_wait);
        if (part)
            keep_gradient(b, st, sum, st->tied_grad, born, &grads[HEAD_SLOT(st)], pending,
                          &n_pending, &pending_bytes);
        else
            release(b, sum);
    }
    uint32_t g = new_gradient(b, st->embedding_grad, "embedding gradients", birth);
    keep_gradient(b, st, g, st->embedding_grad, born, &grads[HEAD_SLOT(st) + 1], pending,
                  &n_pending, &pending_bytes);
    release(b, resid);
    for (int i = 0; i < st->n_emb; i++)
        release(b, mb->emb[i]);
    release(b, mb->mask);
    release(b, mb->root); /* FSDP's catch-all reshard as backward ends */
    mb->root = 0;
    release(b, mb->held_logits); /* the loop's, where it keeps none for the next forward */
    mb->held_logits = 0;
    if (held) { /* _finalize_params removes the hooks, and with them the inputs held */
        release_all(b, held, (int)st->layers);
        release_all(b, mb->checkpoint, (int)st->layers);
    }
    free(held);
    if (part)
        reduce_pending(b, st, pending, &n_pending, &pending_bytes, true);
    free(pending);
    if (st->partition_in_backward) { /* the epilogue: the step's copy, then the release */
        if (b->averaged)
            transient(b, VL_TL_TRANSIENT, st->grad_part, ACCUMULATED_WHAT);
        else
            b->averaged = alloc(b, VL_TL_GRADIENTS, st->grad_part,
                                "gradient partition for the step (averaged_gradients)");
        release(b, in_partition);
    }
    release(b, ipg); /* _release_ipg_buffers */
    return grads;
}

/* A GPU's trainable parameter tensors in the model's order: the embedding side's, each
 * layer's (tensor[]), the head's; param_tensor(st, k) for k below param_tensors(st) is the
 * elements of the k-th. */
static size_t param_tensors(const step *st)
{
    return (size_t)st->layers * (size_t)st->n_tensors + 2;
}

static uint64_t param_tensor(const step *st, size_t k)
{
    const size_t n = param_tensors(st);
    return k == 0       ? st->embedding_params
           : k == n - 1 ? st->head_params
                        : st->tensor[(k - 1) % (size_t)st->n_tensors];
}

/* foreach's sqrt of the second moments, a tensor for each parameter tensor, all alive at
 * once (torch._foreach_sqrt returns a list), elem bytes an element; before PyTorch 2.1 a
 * second such list, denom, the roots plus eps (foreach_denom_copy). */
static void foreach_temps(builder *b, const step *st, uint64_t elem, uint64_t shards)
{
    const int lists = st->f->foreach_denom_copy ? 2 : 1;
    const size_t n = param_tensors(st);
    uint32_t *ids = gathered_ids(b, n * (size_t)lists);
    if (!ids)
        return;
    size_t j = 0;
    for (int list = 0; list < lists; list++) {
        const char *what = list ? FOREACH_DENOM_WHAT : FOREACH_WHAT;
        for (size_t k = 0; k < n; k++) /* the layers' first, then the head's, the embedding's */
            ids[j++] = alloc(b, VL_TL_OPTIM_TEMP,
                             vl_mul(vl_ceil_div(param_tensor(st, (k + 1) % n), shards), elem,
                                    &b->ovf),
                             what);
    }
    for (size_t i = 0; i < j; i++)
        release(b, ids[i]);
    free(ids);
}

/* an array, not a literal: first_step knows its events by the pointer */
static const char LAZY_STATES_WHAT[] =
    "optimizer states (a tensor a moment, made at the first step)";
/* The moments an optimizer that makes its state at its first step makes (torch.optim's
 * _init_group, bitsandbytes' init_state, transformers' Adafactor: when a parameter's state
 * is empty), for every trainable parameter tensor in the model's order (param_tensor): a
 * tensor a moment in the parameter's shape, this GPU's share of it under ZeRO.  Allocated
 * where make is set; their bytes, either way. */
static uint64_t lazy_states(builder *b, const step *st, bool make)
{
    if (!st->lazy_states)
        return 0;
    const unsigned count = st->bd->bpp.moment_tensors, elem = st->bd->bpp.moments / count;
    const uint64_t shards = st->s->zero ? st->dp : 1;
    uint64_t sum = 0;
    for (size_t k = 0; k < param_tensors(st); k++) {
        const uint64_t bytes = vl_mul(vl_ceil_div(param_tensor(st, k), shards), elem, &b->ovf);
        for (unsigned c = 0; c < count; c++) {
            sum = vl_add(sum, bytes, &b->ovf);
            if (make)
                alloc(b, VL_TL_OPTIMIZER, bytes, LAZY_STATES_WHAT);
        }
    }
    return sum;
}

/* The optimizer's temporaries (torch/optim/adamw.py, torch >= 2.0): foreach takes
 * torch._foreach_sqrt of every second moment at once, a temporary for each parameter
 * tensor (foreach_temps: FSDP's shards a layer's flat parameter; one buffer's worth over
 * DeepSpeed's flat partition and adapters),
 * together the size of the moments; the single-tensor loop, per parameter,
 * exp_avg_sq.sqrt() / bias_correction2_sqrt (two temporaries of the largest parameter's);
 * fused kernels none.  SGD with momentum
 * updates in place; 8-bit Adam (bitsandbytes) is one fused kernel; Lion (lion-pytorch) goes
 * parameter by parameter, two temporaries of the largest.  Offloaded: the CPU steps. */
#define DS_SUB_GROUP 1000000000ULL /* DeepSpeed's ZeRO-3 sub_group_size default */
static void optimizer_step(builder *b, const step *st, uint32_t *grads)
{
    const vl_settings *s = st->s;
    const vl_breakdown *bd = st->bd;
    phase(b, "optimizer step");
    if (b->make_states)
        lazy_states(b, st, true);
    if (s->offload != VL_OFFLOAD_NONE) {
        release(b, b->averaged); /* copied to the CPU, which steps */
        return;
    }
    uint64_t held = s->zero >= 1 ? vl_ceil_div(st->trainable, st->dp) : st->trainable;
    uint64_t largest = bd->params.largest_matrix;
    if (s->lora_rank) {
        const vl_arch *a = st->a;
        uint64_t wide = a->hidden > vl_active_mlp_width(a) ? a->hidden : vl_active_mlp_width(a);
        largest = vl_mul(s->lora_rank, wide, &b->ovf);
    }
    uint64_t elem = 0, temps = 0;
    switch (s->optimizer) {
    case VL_ADAMW:
        elem = bd->bpp.moments / 2;
        if (st->f->optim_impl == VL_OPTIM_FOREACH)
            temps = vl_mul(held, elem, &b->ovf);
        else if (st->f->optim_impl == VL_OPTIM_SINGLE_TENSOR)
            temps = vl_mul(2 * elem, largest, &b->ovf);
        break;
    case VL_LION:
        temps = vl_mul(2 * bd->bpp.moments, largest, &b->ovf);
        break;
    case VL_ADAFACTOR:
    case VL_ADAFACTOR_M:
        /* transformers.Adafactor.step: grad**2 + eps and the update, each fp32 and the
         * size of the tensor being stepped */
        temps = vl_mul(2 * 4, largest, &b->ovf);
        break;
    case VL_MUON:
        /* the reference zeropower_via_newtonschulz5, in bf16 on the largest matrix (h x f):
         * X and the new X (2 x h x f), A = X X^T, A A and B (3 x h x h) */
        temps = vl_mul(2, vl_add(vl_mul(2, largest, &b->ovf),
                                 vl_mul(3, vl_mul(st->a->hidden, st->a->hidden, &b->ovf),
                                        &b->ovf), &b->ovf), &b->ovf);
        break;
    case VL_SGD_MOMENTUM: case VL_SGD: case VL_ADAM_8BIT: case VL_N_OPTIMIZERS:
        break;
    }
    /* the fp32 gradient copy, made and stepped a group at a time: DeepSpeed's ZeRO-3 a
     * sub-group of sub_group_size parameters (1e9 unless configured, deepspeed/runtime/zero/
     * config.py), else the whole share at once (one parameter group holds nearly all); the
     * 16-bit partition it is made from goes (ZeRO-2: averaged_gradients set to None) */
    uint64_t copy = st->step_grad_copy;
    if (s->zero == 3 && bd->bpp.grad_copy) {
        const uint64_t group = vl_mul(DS_SUB_GROUP, bd->bpp.grad_copy, &b->ovf);
        copy = copy < group ? copy : group;
    }
    /* DeepSpeed's ZeRO-1: the gradients of the other GPUs' partitions go first; this GPU's,
     * reduced into grads_in_partition as backward ended, are flattened and copied to fp32,
     * then go too */
    uint32_t mine = 0, flat = 0;
    if (st->grads_freed_in_step) {
        const uint64_t part = vl_mul(vl_ceil_div(st->trainable, st->dp), st->grad_bytes, &b->ovf);
        for (uint64_t i = 0; i < GRAD_SLOTS(st); i++) {
            release(b, grads[i]);
            grads[i] = 0;
        }
        mine = alloc(b, VL_TL_GRADIENTS, part, "gradient partition (grads_in_partition)");
        flat = alloc(b, VL_TL_TRANSIENT, part, "gradient partition, flattened");
    }
    uint32_t grad = 0, *per_tensor = NULL;
    const size_t n_copies = param_tensors(st);
    if (st->f->grad_copy_per_tensor && copy == st->step_grad_copy && copy &&
        (per_tensor = gathered_ids(b, n_copies))) {
        /* a tensor a parameter (this GPU's shard of it under ZeRO), as Megatron's
         * main_grad.float() makes them */
        const uint64_t shards = s->zero ? st->dp : 1;
        for (size_t k = 0; k < n_copies; k++)
            per_tensor[k] = alloc(b, VL_TL_OPTIM_TEMP,
                                  vl_mul(vl_ceil_div(param_tensor(st, k), shards),
                                         bd->bpp.grad_copy, &b->ovf),
                                  "fp32 gradient copy for the step, a tensor a parameter");
    } else {
        grad = alloc(b, VL_TL_OPTIM_TEMP, copy, "fp32 gradient copy for the step");
    }
    release(b, flat);
    release(b, mine);
    release(b, b->averaged);
    const bool foreach = s->optimizer == VL_ADAMW && st->f->optim_impl == VL_OPTIM_FOREACH;
    if (st->paged_on) {
        /* bitsandbytes' paged optimizers: one fused kernel a parameter, in place */
    } else if (foreach && !s->lora_rank && (s->zero == 0 || st->fsdp)) {
        foreach_temps(b, st, elem, s->zero ? st->dp : 1);
    } else if (foreach || s->optimizer == VL_MUON) { /* foreach: the roots, denom beside them */
        uint32_t roots = alloc(b, VL_TL_OPTIM_TEMP, temps,
                               foreach ? "foreach temporaries (sqrt of the moments)"
                                       : "per-parameter temporaries");
        if (foreach && st->f->foreach_denom_copy)
            transient(b, VL_TL_OPTIM_TEMP, temps, "foreach temporaries (denom; PyTorch < 2.1)");
        release(b, roots);
    } else { /* a loop over the parameters: two tensors the size of the largest, at once */
        uint32_t a = alloc(b, VL_TL_OPTIM_TEMP, temps / 2, "per-parameter temporaries");
        transient(b, VL_TL_OPTIM_TEMP, temps - temps / 2, "per-parameter temporaries");
        release(b, a);
    }
    release(b, grad);
    for (size_t k = 0; per_tensor && k < n_copies; k++)
        release(b, per_tensor[k]);
    free(per_tensor);
}

#define BEFORE_WHAT "the step before's gradients, until zero_grad (--zero-grad backward)"
#define KEPT_LOGITS_WHAT "the micro-batch before's logits, which the loop keeps"
#define KEPT_GRAPH_WHAT "the 4-bit layers' inputs its graph keeps (bitsandbytes before 0.43.2)"
#define ROPE_TABLES_WHAT "RoPE cos and sin tables, each attention layer's"
#define MASK_BUFFERS_WHAT "causal-mask buffers (torch.tril of the positions)"
static void cublas_workspaces(builder *b, const step *st)
{
    for (uint64_t i = 0; i < cublas_handles(st->s->mode); i++)
        alloc(b, VL_TL_RUNTIME, st->cublas, cublas_what[i]);
}

/* One step from the state it starts with: each micro-batch's forward and backward, the
 * optimizer step, zero_grad.  The n_before ids in before (the step before's gradients) go
 * once the first forward is done (--zero-grad backward).  The gradients the step makes are
 * handed to *left (ids, GRAD_SLOTS of them) where left is given; else they go at zero_grad,
 * unless the loop drops them after the next forward (grads_before). */
static bool run_step(builder *b, step *st, const uint32_t *before, size_t n_before,
                     uint32_t **left)
{
    const uint64_t k = st->in_flight > st->micro_batches ? st->in_flight : st->micro_batches;
    micro *mbs = calloc(k, sizeof *mbs);
    uint32_t *gath = gathered_ids(b, st->layers);
    uint32_t *grads = gathered_ids(b, GRAD_SLOTS(st));
    if (!mbs || !gath || !grads) {
        free(mbs);
        free(gath);
        free(grads);
        return false;
    }
    for (uint64_t m = 0; m < k; m++) {
        mbs[m].layer = gathered_ids(b, st->layers * MAX_LAYER_TERMS);
        mbs[m].checkpoint = gathered_ids(b, st->layers);
    }
    if (st->in_flight > 1) { /* 1F1B: the first stage runs in_flight forwards first */
        for (uint64_t m = 0; m < k && !b->nomem; m++)
            forward(b, st, &mbs[m], m, gath);
        for (size_t i = 0; i < n_before; i++)
            release(b, before[i]);
        backward(b, st, &mbs[0], gath, true, grads, "micro-batch 1 ");
        phase(b, "the other micro-batches (1F1B)");
        for (uint64_t m = 1; m < k; m++) {
            for (uint64_t i = 0; i < st->layers * MAX_LAYER_TERMS; i++)
                release(b, mbs[m].layer[i]);
            for (int i = 0; i < st->n_emb; i++)
                release(b, mbs[m].emb[i]);
            release(b, mbs[m].mask);
        }
    } else { /* gradient accumulation: the second micro-batch runs with the gradients held */
        for (uint64_t m = 0; m < k && !b->nomem; m++) {
            char tag[40] = "";
            if (k > 1)
                snprintf(tag, sizeof tag, "micro-batch %llu ", (unsigned long long)m + 1);
            forward(b, st, &mbs[m], m, gath);
            for (size_t i = 0; m == 0 && i < n_before; i++)
                release(b, before[i]);
            backward(b, st, &mbs[m], gath, m == 0, grads, tag);
            if (st->keeps_logits) /* what backward leaves of the graph the logits hold */
                b->kept_graph = alloc(b, VL_TL_ACTIVATIONS, st->kept_graph, KEPT_GRAPH_WHAT);
        }
    }
    optimizer_step(b, st, grads);
    if (left) {
        *left = grads;
        grads = NULL;
    } else if (!st->grads_before) { /* else they live on to the next step's forward */
        phase(b, "zero_grad");
        for (uint64_t i = 0; i < GRAD_SLOTS(st); i++)
            release(b, grads[i]);
    }
    for (uint64_t m = 0; m < k; m++) {
        free(mbs[m].layer);
        free(mbs[m].checkpoint);
        free(mbs[m].logprobs);
        free(mbs[m].kv);
    }
    free(mbs);
    free(gath);
    free(grads);
    return !b->nomem;
}

#define IN_PLACE_WHAT "gradients, zeroed in place from step to step (PyTorch < 2.0)"

/* The run's first step, laid out on the allocator before the step measured, where a step
 * leaves what it made to the next: gradients the loop drops only after the next forward
 * (--zero-grad backward) or that an in-place zero_grad keeps, the logits the loop keeps.
 * The next step finds them where the first one's backward put them, among the blocks its
 * activations freed, which shapes the segments the caching allocator reserves from then
 * on.  The first step starts with none of them and makes its gradients in its backward.
 * Its events go (it frees none of the state it starts with, whose events stay as they
 * are); what it leaves is recorded as state the measured step starts with, its gradients'
 * ids in *left (GRAD_SLOTS(st)), the logits' in the builder. */
static bool first_step(builder *b, step *st, uint32_t **left)
{
    vl_timeline *t = b->t;
    const size_t n0 = t->n_events, p0 = t->n_phases;
    const uint32_t phase0 = b->phase;
    const vl_peak peak0 = t->peak;
    uint64_t live0[VL_N_TL_COMPONENTS];
    memcpy(live0, b->live, sizeof live0);
    const uint64_t tensors0 = b->tensors;
    const bool held = st->grads_held;
    st->grads_held = held && !st->grads_in_place;
    b->make_states = true;
    const bool ok = run_step(b, st, NULL, 0, st->grads_before || st->grads_in_place ? left : NULL);
    b->make_states = false;
    st->grads_held = held;
    if (!ok)
        return false;
    /* what outlives the step: its allocations never freed */
    const size_t n = t->n_events - n0;
    uint32_t *to = calloc(n ? n : 1, sizeof *to);
    vl_event *kept = calloc(n ? n : 1, sizeof *kept);
    uint32_t *blocks = calloc(n ? n : 1, sizeof *blocks);
    if (!to || !kept || !blocks) {
        free(to);
        free(kept);
        free(blocks);
        b->nomem = true;
        return false;
    }
    for (size_t i = 0; i < n; i++)
        to[i] = t->events[n0 + i].kind == VL_EV_ALLOC;
    for (size_t i = 0; i < n; i++)
        if (t->events[n0 + i].kind == VL_EV_FREE && t->events[n0 + i].tensor >= n0)
            to[t->events[n0 + i].tensor - n0] = 0;
    size_t n_kept = 0;
    for (size_t i = 0; i < n; i++)
        if (to[i]) {
            to[i] = (uint32_t)n_kept;
            blocks[n_kept] = b->handles[n0 + i];
            kept[n_kept++] = t->events[n0 + i];
        } else {
            to[i] = UINT32_MAX;
        }
    t->n_events = n0;
    t->n_phases = p0;
    b->phase = phase0;
    t->peak = peak0;
    memcpy(b->live, live0, sizeof live0);
    b->tensors = tensors0;
    uint32_t moments = 0; /* the optimizer's moments, one event for all their tensors */
    for (size_t i = 0; i < n_kept; i++) {
        const vl_event *e = &kept[i];
        if (e->what == LAZY_STATES_WHAT && moments) {
            grow(b, moments, e->bytes);
            blocks[i] = moments;
            continue;
        }
        const char *what = e->tensor + 1 == b->kept_logits ? KEPT_LOGITS_WHAT
                           : e->component != VL_TL_GRADIENTS ? e->what
                           : st->grads_before                ? BEFORE_WHAT
                                                             : IN_PLACE_WHAT;
        blocks[i] = record(b, e->component, e->bytes, what, blocks[i]);
        if (e->what == LAZY_STATES_WHAT)
            moments = blocks[i];
    }
    /* the ids the builder and the caller hold, from the first step's to the recorded ones */
#define REMAP(id) ((id) > n0 && to[(id) - 1 - n0] != UINT32_MAX ? blocks[to[(id) - 1 - n0]] : 0)
    for (uint64_t i = 0; *left && i < GRAD_SLOTS(st); i++)
        (*left)[i] = REMAP((*left)[i]);
    b->kept_logits = REMAP(b->kept_logits);
    b->kept_graph = REMAP(b->kept_graph);
#undef REMAP
    free(to);
    free(kept);
    free(blocks);
    return !b->nomem;
}

static bool build_train(builder *b, step *st)
{
    const vl_settings *s = st->s;
    const vl_breakdown *bd = st->bd;
    phase(b, "step start (the state kept between steps)");
    alloc(b, VL_TL_WEIGHTS, bd->bytes[VL_C_WEIGHTS], "weights");
    /* in the dtype the model loaded in: fp32 under autocast, 16 bits for a pure 16-bit run,
     * mixed precision's 16-bit model and QLoRA's (its 4-bit layers load in 16 bits) */
    const bool fp32_load =
        s->precision == VL_FP32 || (vl_precision_is_amp(s->precision) && !s->qlora);
    alloc(b, VL_TL_WEIGHTS, vl_rope_tables_bytes(st->f, st->a, st->layers, fp32_load ? 4 : 2,
                                                 &b->ovf), ROPE_TABLES_WHAT);
    alloc(b, VL_TL_WEIGHTS,
          vl_mask_buffers_bytes(st->f, st->a, s->transformers, st->layers, &b->ovf),
          MASK_BUFFERS_WHAT);
    cublas_workspaces(b, st);
    const uint64_t opt = bd->bytes[VL_C_OPTIMIZER] - st->paged;
    /* less the moments the first step makes, where the optimizer makes them then */
    uint64_t kept = opt > st->step_grad_copy ? opt - st->step_grad_copy : 0;
    const uint64_t lazy = lazy_states(b, st, false);
    if (lazy > kept) /* a layout the moments do not describe: kept as one block */
        st->lazy_states = false;
    else
        kept -= lazy;
    alloc(b, VL_TL_OPTIMIZER, kept,
          st->step_grad_copy ? "optimizer states (the fp32 gradient copy left to the step)"
                             : "optimizer states");
    if (s->zero >= 2 && !st->fsdp && !st->partition_in_backward)
        alloc(b, VL_TL_GRADIENTS, st->grad_part, "gradient partition");
    else if (st->grads_held && !st->grads_in_place)
        alloc(b, VL_TL_GRADIENTS, st->grad_full, "gradient buffer");
    /* PyTorch's DDP (under a framework whose sharding is PyTorch's own, FSDP) makes its
     * buckets once and keeps them for the run (torch/csrc/distributed/c10d/reducer.cpp,
     * initialize_buckets): beside the gradients, also where they persist between steps
     * (zero_grad without set_to_none, before PyTorch 2.0), unless the gradients are views
     * of them (gradient_as_bucket_view) */
    if (bd->par.dp > 1 && s->zero == 0 && st->f->zero_impl == VL_ZERO_FSDP &&
        !st->f->ddp_bucket_view)
        alloc(b, VL_TL_BUCKETS, st->grad_full, "DDP buckets (a copy of the gradients)");
    if (!st->bucket_in_backward)
        alloc(b, VL_TL_BUCKETS, st->bucket, "ZeRO reduce bucket");
    /* what a step leaves to the next is where the run's first step left it */
    uint32_t *left = NULL;
    b->t->second_step =
        st->grads_before || st->grads_in_place || st->keeps_logits || st->lazy_states;
    if (b->t->second_step && !first_step(b, st, &left)) {
        free(left);
        return false;
    }
    const bool ok =
        run_step(b, st, st->grads_before ? left : NULL, st->grads_before ? GRAD_SLOTS(st) : 0,
                 NULL);
    free(left);
    return ok;
}

/* ---- serving ----------------------------------------------------------------------------- */

#define KV_CAT_WHAT "KV cache of a layer (torch.cat)"
#define KV_VIEWS_WHAT "KV cache of a layer (its QKV views)"

/* The KV cache of `tokens` tokens over the batch (per_token bytes each, `what` each layer's):
 * allocated once (paged), or grown layer by layer with torch.cat, which holds the old and
 * the new copy of one layer at once; where the caller still holds the old cache (kept,
 * kv_step_copy), each old copy goes to kept[] for the caller to free. */
static void grow_kv(builder *b, const step *st, uint32_t *kv, uint32_t *kept, uint64_t per_token,
                    uint64_t tokens, const char *what)
{
    const uint64_t L = st->bd->inf.stage_layers; /* this GPU's stage's (all without --pp) */
    uint64_t all = vl_mul(per_token, tokens, &b->ovf);
    if (st->f->kv_preallocated)
        return;
    uint64_t per_layer = all / L;
    for (uint64_t l = 0; l < L; l++) {
        uint32_t old = kv[l];
        kv[l] = alloc(b, VL_TL_KV_CACHE, l + 1 < L ? per_layer : all - per_layer * (L - 1), what);
        if (kept)
            kept[l] = old;
        else
            release(b, old);
    }
}

/* torch.sort's scratch beyond its values and int64 indices, for `rows` rows of V on CUDA
 * (aten/src/ATen/native/cuda/SortStable.cu): one row, or rows of a million and more, sort
 * one at a time with one row's int64 start indices; fewer than 128 rows sort as one array
 * of (row, index) int2 pairs, in and out, with a key output; more rows sort segmented with
 * the start indices of all.  cub's radix sort, called without a DoubleBuffer, adds a third
 * key and value buffer of its own (cub DispatchRadixSort, "3rd keys buffer"). */
static uint64_t sort_scratch(uint64_t rows, uint64_t V, bool *ovf)
{
    if (rows == 1 || V >= 1000000)
        return vl_mul(8 + 4 + 8, V, ovf);
    const uint64_t n = vl_mul(rows, V, ovf);
    if (rows < 128)
        return vl_mul(8 + 8 + 4 + (4 + 8), n, ovf);
    return vl_mul(8 + (4 + 8), n, ovf);
}

/* The sampler, once the forward's workspace is freed, for the `rows` sequences the last
 * forward ended and its `tokens` tokens: the caller's logits of the last positions in the
 * model's dtype, whole vocabulary (tensor-parallel engines gather them first: vLLM's
 * LogitsProcessor, tensor_model_parallel_gather), and the engine's hidden states where it
 * holds them; the logits in fp32; where top-k/top-p sorts (the V0 engine's
 * vllm/model_executor/layers/sampler.py, _apply_top_k_top_p) the vocabulary sorted (fp32
 * values, int64 indices and the sort's scratch), a top-k mask, the sorted softmax, its
 * cumulative sum and a top-p mask, all alive while the filtered logits are scattered back;
 * then the fp32 tensors the framework keeps besides the logits (probabilities, logprobs,
 * the noise it samples with).  vLLM's V2 runner copies the logits to fp32 only for requests
 * with sampling parameters, which its profile run before 0.33 has none of
 * (v1/worker/gpu/sample/sampler.py, apply_sampling_params), and draws its Gumbel noise inside
 * a kernel that keeps each 1024-token block's maximum, int64 index and fp32 value
 * (sample/gumbel.py, gumbel_sample): no probabilities. */
static void sampler(builder *b, const step *st, uint64_t rows, uint64_t tokens)
{
    const uint64_t V = st->a->vocab;
    const uint64_t bv = vl_mul(rows, V, &b->ovf);
    const uint64_t f32 = vl_mul(4, bv, &b->ovf);
    const uint64_t beta = vl_infer_act_bytes(st->s);
    const bool params = !st->v2 || !st->f->profile_run || st->f->profile_sampler_params;
    uint32_t hidden = 0;
    if (st->f->sampler_hidden)
        hidden = alloc(b, VL_TL_TRANSIENT,
                       vl_mul(vl_mul(tokens, st->a->hidden, &b->ovf), beta, &b->ovf),
                       "the forward's last hidden states (held by the engine)");
    uint32_t own = alloc(b, VL_TL_TRANSIENT, vl_mul(beta, bv, &b->ovf),
                         "logits of the last positions, model dtype");
    uint32_t logits = params ? alloc(b, VL_TL_TRANSIENT, f32,
                                     "sampler: fp32 logits, whole vocabulary")
                             : 0;
    if (params && st->f->sampler_sort) {
        uint32_t held[6];
        held[0] = alloc(b, VL_TL_TRANSIENT, f32, "sampler: sorted logits");
        held[1] = alloc(b, VL_TL_TRANSIENT, vl_mul(8, bv, &b->ovf),
                        "sampler: sort indices (int64)");
        transient(b, VL_TL_TRANSIENT, sort_scratch(rows, V, &b->ovf),
                  "sampler: the sort's scratch (indices, cub buffers)");
        held[2] = alloc(b, VL_TL_TRANSIENT, bv, "sampler: top-k mask (bool)");
        held[3] = alloc(b, VL_TL_TRANSIENT, f32, "sampler: softmax of the sorted logits");
        held[4] = alloc(b, VL_TL_TRANSIENT, f32, "sampler: cumulative sum (top-p)");
        held[5] = alloc(b, VL_TL_TRANSIENT, bv, "sampler: top-p mask (bool)");
        uint32_t back = alloc(b, VL_TL_TRANSIENT, f32, "sampler: filtered logits, unsorted");
        for (int i = 0; i < 6; i++)
            release(b, held[i]);
        release(b, logits);
        logits = back;
    }
    /* vLLM V1's Triton top-k/top-p: min(rows, SMs) programs, each a vocabulary row of fp32
     * in a buffer of min(next power of 2, SMs) rows, cached for the later steps
     * (apply_top_k_top_p_triton); unknown SMs: not counted */
    if (params && st->f->sampler_triton && st->sms && !b->sampler_buffer) {
        const uint64_t programs = rows < st->sms ? rows : st->sms;
        uint64_t size = 1;
        while (size < programs)
            size *= 2;
        b->sampler_buffer =
            alloc(b, VL_TL_TRANSIENT,
                  vl_mul(vl_mul(size < st->sms ? size : st->sms, V, &b->ovf), 4, &b->ovf),
                  "sampler: top-k/top-p buffer, a vocabulary row a program (cached)");
    }
    if (st->v2) {
        transient(b, VL_TL_TRANSIENT, vl_mul(vl_mul(rows, vl_ceil_div(V, 1024), &b->ovf), 8 + 4,
                                             &b->ovf),
                  "sampler: Gumbel block maxima (index and value a 1024-token block)");
    } else {
        uint32_t ids[16] = {0};
        for (uint64_t i = 0; i < st->f->sampler_fp32 && i < 16; i++)
            ids[i] = alloc(b, VL_TL_TRANSIENT, f32, "sampler: fp32 probabilities");
        for (uint64_t i = 0; i < st->f->sampler_fp32 && i < 16; i++)
            release(b, ids[i]);
    }
    release(b, logits);
    release(b, own);
    release(b, hidden);
}

/* What the cache holds for a prompt token at the prefill where it keeps the tensors the
 * attention hands it (the framework's kv_cache_views) and the model takes K or V as views of
 * one fused QKV output (qkv_views): that output whole, in the activations' dtype, and K
 * where RoPE made it anew, until the first decode step's torch.cat copies K and V out.  0
 * where the cache holds K and V alone. */
static uint64_t kv_view_bytes(const step *st, bool *ovf)
{
    const vl_arch *a = st->a;
    if (!st->f->kv_cache_views || st->f->kv_preallocated || a->qkv_views == VL_QKV_VIEWS_NONE)
        return 0;
    const uint64_t q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    const uint64_t width = q + 2 * kv + (a->qkv_views == VL_QKV_VIEWS_V ? kv : 0);
    return vl_mul(vl_mul(st->bd->inf.stage_layers, vl_ceil_div(width, vl_infer_tp(st->s)), ovf),
                  vl_infer_act_bytes(st->s), ovf);
}

/* A serving run's prefill as the framework schedules it: steps of seqs prompts of `tokens`
 * tokens each (the estimate's vl_prefill_step), `chunks` steps a prompt, over `groups` of
 * the batch. */
typedef struct prefill {
    uint64_t seqs, tokens, chunks, groups, steps;
} prefill;

static prefill prefill_of(const vl_settings *s, const vl_inference *inf)
{
    prefill p;
    p.seqs = inf->prefill_seqs;
    p.tokens = inf->prefill_tokens;
    p.chunks = vl_ceil_div(s->seq, p.tokens);
    p.groups = vl_ceil_div(s->batch, p.seqs);
    p.steps = p.chunks * p.groups; /* at most seq x batch tokens, one a step */
    return p;
}

/* The KV cache's tokens over the batch once step k of the prefill is done: the groups
 * before whole, this one's prompts to the chunk, each at most `cap` (a sliding window). */
static uint64_t prefill_kv_tokens(const vl_settings *s, const prefill *p, uint64_t k, uint64_t cap)
{
    const uint64_t g = k / p->chunks, c = k % p->chunks;
    const uint64_t whole = s->seq < cap ? s->seq : cap;
    const uint64_t done = c + 1 < p->chunks ? (c + 1) * p->tokens : s->seq;
    const uint64_t rows = g + 1 < p->groups ? p->seqs : s->batch - g * p->seqs;
    return g * p->seqs * whole + rows * (done < cap ? done : cap);
}

/* The logits a transformers forward returns for `rows` positions: fp32 where the model
 * casts them (logits_cast_in_model), else in the activations' dtype. */
static uint64_t logits_returned(const step *st, uint64_t rows, bool *ovf)
{
    return vl_mul(vl_mul(rows, st->a->vocab, ovf),
                  st->f->logits_cast_in_model ? 4 : vl_infer_act_bytes(st->s), ovf);
}

static bool build_serve(builder *b, step *st)
{
    const vl_settings *s = st->s;
    const vl_breakdown *bd = st->bd;
    const vl_inference *inf = &bd->inf;
    const uint64_t L = inf->stage_layers;
    phase(b, "load weights");
    alloc(b, VL_TL_WEIGHTS, bd->bytes[VL_C_WEIGHTS], "weights");
    /* before the RoPE tables: from_pretrained moves the model's buffers to the GPU once it
     * has loaded and tied the weights (dispatch_model) */
    transient(b, VL_TL_TRANSIENT, vl_awq_tied_head_copy(st->a, s, inf->logits, &b->ovf),
              "the checkpoint's own copy of the tied output layer, until the loader ties it");
    alloc(b, VL_TL_WEIGHTS,
          vl_rope_tables_bytes(st->f, st->a, L, (unsigned)vl_infer_act_bytes(s), &b->ovf),
          ROPE_TABLES_WHAT);
    alloc(b, VL_TL_WEIGHTS, vl_mask_buffers_bytes(st->f, st->a, s->transformers, L, &b->ovf),
          MASK_BUFFERS_WHAT);
    transient(b, VL_TL_TRANSIENT, vl_bnb_load_copy(st->a, s, inf->logits, &b->ovf),
              s->weight_dtype == VL_DT_BNB8
                  ? "a matrix in 16 bits and transposed in int8 while bitsandbytes quantizes it"
                  : "a matrix in 16 bits while bitsandbytes quantizes it");
    cublas_workspaces(b, st);
    alloc(b, VL_TL_RUNTIME, vl_sampler_state(st->a, st->f),
          "sampler state: penalty counts and token masks, a vocabulary row a sequence");
    const uint64_t per_token = inf->prefill.kv_cache / (inf->prompt_tokens * s->batch);
    const uint64_t views = kv_view_bytes(st, &b->ovf);
    uint32_t *kv = gathered_ids(b, L);
    if (!kv)
        return false;
    if (st->f->kv_preallocated) {
        /* the engine's whole pool where it sized one (kv_pool), else the run's own cache */
        const uint64_t run = s->gen ? inf->decode.kv_cache : inf->prefill.kv_cache;
        phase(b, "allocate the KV cache");
        alloc(b, VL_TL_KV_CACHE, st->f->kv_pool > run ? st->f->kv_pool : run,
              st->f->kv_pool > run ? "KV cache (the engine's pool, allocated once)"
                                   : "KV cache (paged, allocated once)");
    }
    if (st->f->cuda_graphs && st->f->graph_batch) {
        phase(b, "capture CUDA graphs");
        vl_settings g = *s;
        g.batch = st->f->graph_batch;
        /* the graphs hold the model's forward; the logits are computed outside them
         * (vLLM's compute_logits, after the CUDA graph runner returns the hidden states) */
        alloc(b, VL_TL_RUNTIME, vl_infer_workspace(st->a, &g, false, 1, 1, &b->ovf),
              "CUDA graph pool (the largest captured batch's decode workspace)");
    }
    /* vLLM's V1 runner then warms its sampler up at the largest shape: a forward of
     * max_num_reqs tokens, one a sequence, and the sampler over them (top-k and top-p
     * set), "after capture_model on purpose to prevent memory buffers from being cleared by
     * torch.cuda.empty_cache" (v1/worker/gpu_worker.py, compile_or_warm_up_model); what the
     * caching allocator reserved for it stays */
    if (st->f->kv_pool && vl_is_vllm(st->f) && !vl_is_vllm_v0(st->f) && !st->v2 &&
        inf->logits) {
        phase(b, "warm up the sampler");
        vl_settings g = *s;
        g.batch = st->f->prefill_chunk && st->f->prefill_chunk < st->f->profile_seqs
                      ? st->f->prefill_chunk
                      : st->f->profile_seqs;
        transient(b, VL_TL_TRANSIENT, vl_infer_workspace(st->a, &g, false, 1, 1, &b->ovf),
                  "forward workspace");
        sampler(b, st, g.batch, g.batch);
    }
    const uint64_t cap = st->a->sliding_window ? st->a->sliding_window : UINT64_MAX;
    /* the prefill in the framework's steps (vl_prefill_step): the first, the ones between
     * only as the cache they grow, and the last, which ends the last prompt */
    const prefill pf = prefill_of(s, inf);
    /* a loop that binds each forward's outputs (`_ = model(**inputs)`, a forward alone)
     * holds the forward before's until this one returns: its logits, as the forward
     * returns them, and the K and V it returned, as the attention handed them over */
    uint32_t before = 0;
    if (vl_loop_keeps_logits(s)) {
        phase(b, "the forward before's outputs, which the loop keeps");
        const uint64_t rows = st->f->prefill_logits_all ? vl_mul(s->seq, s->batch, &b->ovf)
                                                        : s->batch;
        const uint64_t logits = inf->logits ? logits_returned(st, rows, &b->ovf) : 0;
        const uint64_t cache =
            vl_mul(views ? views : per_token, prefill_kv_tokens(s, &pf, pf.steps - 1, cap),
                   &b->ovf);
        before = alloc(b, VL_TL_ACTIVATIONS, vl_add(logits, cache, &b->ovf),
                       "the forward before's logits, K and V, which the loop keeps");
    }
    uint32_t moe_kept = 0, outputs = 0;
    for (uint64_t k = 0; k < pf.steps && !b->nomem;
         k = k == 0 && pf.steps > 2 ? pf.steps - 1 : k + 1) {
        if (k > 1) {
            phase(b, k == 2 ? "prefill step %llu" : "prefill steps 2-%llu", (unsigned long long)k);
            grow_kv(b, st, kv, NULL, per_token, prefill_kv_tokens(s, &pf, k - 1, cap),
                    KV_CAT_WHAT);
        }
        phase(b, pf.steps > 1 ? "prefill step %llu" : "prefill", (unsigned long long)k + 1);
        const uint64_t c = k % pf.chunks, g = k / pf.chunks;
        const uint64_t n = c + 1 < pf.chunks ? pf.tokens : s->seq - c * pf.tokens;
        vl_settings here = *s; /* the sequences this step takes */
        here.batch = g + 1 < pf.groups ? pf.seqs : s->batch - g * pf.seqs;
        /* the first step's cache: the views the attention hands over, where it keeps them */
        const bool as_views = k == 0 && views;
        grow_kv(b, st, kv, NULL, as_views ? views : per_token, prefill_kv_tokens(s, &pf, k, cap),
                as_views ? KV_VIEWS_WHAT : KV_CAT_WHAT);
        if (k == 0) /* the first step is the largest forward */
            moe_kept = alloc(b, VL_TL_TRANSIENT, inf->moe_kept_bytes,
                             "fused MoE workspaces (shared by the layers, kept)");
        uint32_t copy = alloc(b, VL_TL_TRANSIENT, inf->offload_copy, OFFLOAD_COPY_WHAT);
        const uint64_t keys = c * pf.tokens + n;
        const uint64_t ws_bytes =
            vl_infer_workspace(st->a, &here, inf->logits, n, keys < cap ? keys : cap, &b->ovf);
        uint32_t ws = alloc(b, VL_TL_TRANSIENT, ws_bytes, "forward workspace");
        if (k == 0) /* the run's first forward lays each int8 matrix out anew */
            transient(b, VL_TL_TRANSIENT, vl_bnb8_first_layout(st->a, s, &b->ovf),
                      "a matrix in the tensor cores' int8 layout beside its row-major bytes");
        release(b, ws);
        release(b, copy);
        /* the last forward's logits, every position's (fp32 where the model casts them),
         * stay in generate's outputs until the first decode step's forward returns
         * (step_outputs_held); or generate clones them all to sample (logits_clone_all) */
        const bool all = k + 1 == pf.steps && st->f->prefill_logits_all && inf->logits;
        const uint64_t logits =
            all ? logits_returned(st, vl_mul(n, here.batch, &b->ovf), &b->ovf) : 0;
        if (all && st->f->step_outputs_held && s->gen)
            outputs = alloc(b, VL_TL_TRANSIENT, logits,
                            "the prefill's logits, held in generate's outputs");
        if (all && st->f->logits_clone_all) {
            uint32_t returned = alloc(b, VL_TL_TRANSIENT, logits, "the prefill's logits");
            transient(b, VL_TL_TRANSIENT, logits, "generate's clone of the prefill's logits");
            release(b, returned);
        }
        if (c + 1 == pf.chunks && inf->logits) /* the last pipeline stage samples the ended */
            sampler(b, st, here.batch, vl_mul(n, here.batch, &b->ovf));
    }
    release(b, before); /* the loop has bound this forward's outputs */
    uint32_t *kept = st->f->kv_step_copy ? gathered_ids(b, L) : NULL;
    if (st->f->kv_step_copy && !kept) {
        free(kv);
        return false;
    }
    /* decode: the prefill sampled the first of --gen's tokens, and each decode step feeds the
     * token before and samples the next (generate's max_new_tokens, vLLM's max_tokens), so
     * --gen N takes N - 1 steps; the first step and the last, the ones between only grow
     * the cache */
    const uint64_t steps = s->gen > 1 ? s->gen - 1 : 0;
    for (uint64_t step_i = 1; step_i <= steps && !b->nomem;
         step_i = step_i == 1 && steps > 1 ? steps : step_i + 1) {
        uint64_t ctx = s->seq + step_i;
        if (step_i > 2 && step_i == steps) {
            if (step_i == 3)
                phase(b, "decode step 2");
            else
                phase(b, "decode steps 2-%llu", (unsigned long long)step_i - 1);
            grow_kv(b, st, kv, NULL, per_token,
                    vl_mul(ctx - 1 < cap ? ctx - 1 : cap, s->batch, &b->ovf), KV_CAT_WHAT);
        }
        phase(b, "decode step %llu", (unsigned long long)step_i);
        /* with kv_step_copy the step before's cache stays, whole, until the step has sampled
         * (generate's model_kwargs hold it) */
        grow_kv(b, st, kv, kept, per_token, vl_mul(ctx < cap ? ctx : cap, s->batch, &b->ovf),
                KV_CAT_WHAT);
        uint32_t copy = alloc(b, VL_TL_TRANSIENT, inf->offload_copy, OFFLOAD_COPY_WHAT);
        uint32_t ws = alloc(b, VL_TL_TRANSIENT,
                            vl_infer_workspace(st->a, s, inf->logits, 1, ctx < cap ? ctx : cap,
                                               &b->ovf),
                            "decode workspace");
        release(b, ws);
        release(b, copy);
        release(b, outputs); /* the forward has returned new outputs */
        outputs = 0;
        if (inf->logits)
            sampler(b, st, s->batch, s->batch);
        for (uint64_t l = 0; kept && l < L; l++) {
            release(b, kept[l]);
            kept[l] = 0;
        }
    }
    release(b, outputs);
    free(kept);
    release(b, moe_kept); /* the engine's caches, until it stops */
    release(b, b->sampler_buffer);
    free(kv);
    return !b->nomem;
}

/* ---- the whole ---------------------------------------------------------------------------- */

bool vl_timeline_build(const vl_model *m0, const vl_settings *s0, const vl_framework *f,
                       const vl_runtime *rt, vl_timeline *out, char *err, size_t len)
{
    vl_model own;
    const vl_model *m = vl_model_as_built(m0, f, &own);
    vl_framework fc = *f; /* f with the model's class */
    vl_framework_on_class(&fc, &m->arch, s0->transformers, s0->mode == VL_MODE_TRAIN);
    f = &fc;
    memset(out, 0, sizeof *out);
    vl_settings s = *s0;
    vl_settings_take_framework(&s, f); /* vl_estimate reads it too */
    s.head = f->head; /* the step's head is the framework's (vl_framework_of gives it the
                       * settings'), and vl_estimate counts its classifier by it */
    s.labels = f->labels;
    if (f->head == VL_HEAD_CLS && f->labels < 1) {
        snprintf(err, len, "--labels must be at least 1");
        return false;
    }
    const char *why = vl_estimate(m, &s, &out->sum);
    if (why) {
        snprintf(err, len, "%s", why);
        return false;
    }
    const vl_breakdown *bd = &out->sum;
    builder b = {.t = out, .al = vl_alloc_new(f->allocator)};
    step st = {.a = &m->arch, .s = &s, .f = f, .bd = bd,
               .cublas = f->cublas_workspace_cached ? vl_runtime_cublas(rt) : 0,
               .sms = rt->sms,
               .v2 = s.mode == VL_MODE_INFER && vl_runs_v2(f, m->arch.experts > 1)};
    if (!b.al) {
        snprintf(err, len, "out of memory");
        return false;
    }
    bool ovf = false;
    vl_peak *p = &out->peak;
    p->context = vl_runtime_context(rt, s.overhead, &p->context_source);
    /* the kernels the step loads lazily: a serving engine's own measure of what its profile
     * forward adds outside PyTorch where it has one (vLLM's "non-torch forward increase
     * memory", which its KV budget takes off too), else all of PyTorch's modules */
    if (!rt->overhead_given)
        p->lazy_kernels = f->profile_non_torch ? f->profile_non_torch
                                               : vl_lazy_kernels_bytes(rt->cuda);
    p->context = vl_add(p->context, p->lazy_kernels, &ovf);
    const uint64_t workspaces = vl_mul(cublas_handles(s.mode), vl_runtime_cublas(rt), &ovf);
    if (f->cublas_workspace_cached)
        p->cublas = workspaces;
    else
        p->cublas_own = workspaces;
    p->context = vl_add(p->context, p->cublas_own, &ovf);
    p->communicators = vl_communicator_bytes(f, &s, rt, &p->nvls, NULL);
    /* cudaMalloc fails where the segments would take what the context and the communicators
     * leave of the GPU (managed memory gives way: the driver evicts it) */
    const uint64_t outside = vl_add(p->context, p->communicators, &ovf);
    if (rt->memory > outside)
        vl_alloc_limit(b.al, rt->memory - outside);
    const vl_precision compute = vl_compute_precision(&s);
    st.beta = vl_activation_bytes(compute);
    st.rho = vl_precision_is_amp(compute) ? 4 : st.beta;
    /* autocast runs log_softmax in fp32 whatever the loss dtype asks */
    st.loss = f->loss_dtype == VL_LOSS_FP32 || vl_precision_is_amp(s.precision) ? 4 : st.beta;
    st.positions = bd->act.local_seq ? bd->act.local_seq : s.seq; /* --cp */
    st.sb = vl_mul(st.positions, s.batch, &ovf);
    st.sbh = vl_mul(st.sb, m->arch.hidden, &ovf);
    st.sbv = vl_mul(st.sb, vl_ceil_div(m->arch.vocab, s.tp), &ovf);
    bool ok;
    if (s.mode == VL_MODE_TRAIN) {
        st.layers = bd->act.layers;
        st.in_flight = bd->act.in_flight;
        st.micro_batches = s.pp == 1 && s.grad_accum > 1 ? 2 : 1;
        gradient_plan(&st, &ovf); /* the layer's parameter tensors, for layer_terms */
        layer_terms(&st, &ovf);
        if (s.recompute == VL_RECOMPUTE_SELECTIVE) { /* what selective recompute dropped */
            vl_settings none = s;
            vl_activations kept;
            none.recompute = VL_RECOMPUTE_NONE;
            vl_activations_compute(&m->arch, &none, &kept, &ovf);
            st.recomputed_core = kept.layer_bytes - bd->act.layer_bytes;
        }
        outside_terms(&st, &ovf);
        st.paged_on = s.paged_optimizer && !vl_setting_table[VL_SET_PAGED_OPTIMIZER].inert(&s);
        st.paged = paged_states(&st, &ovf);
        st.lazy_states = f->optimizer_state_lazy && !st.paged_on &&
                         s.offload == VL_OFFLOAD_NONE && bd->bpp.moment_tensors > 0;
        ok = build_train(&b, &st);
    } else {
        ok = build_serve(&b, &st);
    }
    free(b.handles);
    memcpy(out->end, b.live, sizeof out->end);
    p->reserved = vl_alloc_peak_reserved(b.al);
    p->released = vl_alloc_released(b.al);
    vl_alloc_free_all(b.al);
    if (out->n_events)
        p->phase = out->phases[out->events[p->event].phase];
    p->managed = st.paged;
    p->link = vl_link_of(&s, rt);
    p->device = vl_peak_on_gpu(p, p->reserved, &ovf);
    if (!ok) {
        snprintf(err, len, "out of memory");
        return false;
    }
    if (ovf || b.ovf) {
        snprintf(err, len, "the result does not fit in 64 bits (over 16 EiB per GPU): reduce "
                           "--batch or --seq");
        return false;
    }
    return true;
}

void vl_timeline_free(vl_timeline *t)
{
    free(t->events);
    free(t->phases);
    memset(t, 0, sizeof *t);
}

const char *vl_timeline_phase(const vl_timeline *t, size_t i)
{
    return i < t->n_events ? t->phases[t->events[i].phase] : "";
}

void vl_timeline_alive(const vl_timeline *t, size_t i, uint64_t out[VL_N_TL_COMPONENTS])
{
    memset(out, 0, VL_N_TL_COMPONENTS * sizeof *out);
    for (size_t k = 0; k <= i && k < t->n_events; k++) {
        const vl_event *e = &t->events[k];
        if (e->kind == VL_EV_ALLOC)
            out[e->component] += e->bytes;
        else
            out[e->component] -= e->bytes;
    }
}

uint64_t vl_peak_on_gpu(const vl_peak *p, uint64_t reserved, bool *ovf)
{
    return vl_add(vl_add(vl_add(reserved, p->context, ovf), p->managed, ovf), p->communicators,
                  ovf);
}

bool vl_timeline_for(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                     vl_timeline *out, char *err, size_t len)
{
    vl_kv_budget k;
    return vl_timeline_with_kv(m, s, rt, rt->memory ? vl_usable_memory(s, rt->memory) : 0, out,
                               &k, err, len);
}

const char *vl_estimate_for(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                            vl_breakdown *out)
{
    vl_settings at = *s;
    if (s->mode == VL_MODE_INFER) { /* serving settings: training keeps them at 0 */
        vl_framework f;
        vl_framework_of(s, rt, &f);
        at.prefill_chunk = f.prefill_chunk;
        at.profile_seqs = f.profile_seqs;
    }
    return vl_estimate(m, &at, out);
}

uint64_t vl_runtime_context(const vl_runtime *rt, uint64_t overhead, const char **source)
{
    if (!rt->overhead_given)
        return vl_cuda_context_bytes(rt, source);
    if (source)
        *source = "--overhead";
    return overhead;
}

uint64_t vl_runtime_cublas(const vl_runtime *rt)
{
    return rt->overhead_given ? 0 : vl_cublas_workspace_bytes(rt->arch);
}

uint64_t vl_sampler_state(const vl_arch *a, const vl_framework *f)
{
    if (!vl_runs_v2(f, a->experts > 1))
        return 0;
    /* v1/worker/gpu/sample/penalties.py, PenaltiesState: output_bin_counts, max_num_reqs x
     * vocab_size int32, and prompt_bin_mask, max_num_reqs x cdiv(vocab_size, 32) int32; the
     * structured-output worker's grammar_bitmask of the same shape */
    bool ovf = false;
    const uint64_t counts = vl_mul(vl_mul(f->profile_seqs, a->vocab, &ovf), 4, &ovf);
    const uint64_t masks =
        vl_mul(vl_mul(f->profile_seqs, vl_ceil_div(a->vocab, 32), &ovf), 2 * 4, &ovf);
    return ovf ? UINT64_MAX : counts + masks;
}

/* How many of vLLM's CUDA graph capture sizes are at most `most` (vllm/config/vllm.py,
 * _set_cudagraph_sizes: 1, 2, 4, every 8 from 8 to 248, every 16 from 256). */
static uint64_t capture_sizes(uint64_t most)
{
    uint64_t n = (most >= 1) + (most >= 2) + (most >= 4);
    if (most >= 8)
        n += (most < 248 ? most : 248) / 8;
    if (most >= 256)
        n += (most - 256) / 16 + 1;
    return n;
}

uint64_t vl_graph_estimate(const vl_arch *a, const vl_settings *s, const vl_framework *f)
{
    /* before 0.29 the V2 runner's profile_cudagraph_memory returns 0 ("It is TBD whether we
     * keep this API or not", v1/worker/gpu/model_runner.py) */
    if (!f->graph_estimate || !f->cuda_graphs || !f->graph_batch ||
        (f->model_runner == VL_RUNNER_V2_DENSE && vl_runs_v2(f, a->experts > 1)))
        return 0;
    /* the largest size, max_cudagraph_capture_size: min(2 x max_num_seqs, 512), no more than
     * max_num_batched_tokens; FULL graphs (decode batches) up to max_num_seqs, PIECEWISE
     * graphs of every size (FULL_AND_PIECEWISE, the O2 default) */
    uint64_t most = 2 * f->profile_seqs < f->graph_batch ? 2 * f->profile_seqs : f->graph_batch;
    if (f->prefill_chunk && f->prefill_chunk < most)
        most = f->prefill_chunk;
    const uint64_t piecewise = capture_sizes(most);
    const uint64_t full = capture_sizes(f->profile_seqs < most ? f->profile_seqs : most);
    if (!piecewise || !full)
        return 0;
    /* profile_cudagraph_memory (v1/worker/gpu_model_runner.py) captures each kind's two
     * largest sizes and reads what the free memory drops by: the first, its eager warmup's
     * blocks in PyTorch's cache and the capture's in the graph pool, each that size's decode
     * workspace (the timeline's CUDA graph pool); the second reuses both, so it falls to the
     * floor every other graph is counted at, 1 MiB ("Use at least 1 MiB per graph for driver
     * overhead"; vllm pull request #51590).  Workspaces that attention backends and cuBLAS
     * make on first use are measured too, and not counted here. */
    vl_settings g = *s;
    g.batch = most;
    bool ovf = false;
    const uint64_t first = vl_mul(2, vl_infer_workspace(a, &g, false, 1, 1, &ovf), &ovf);
    const uint64_t rest = vl_mul(piecewise - 1 + full - 1, 1ULL << 20, &ovf); /* 1 MiB */
    return ovf ? UINT64_MAX : vl_add(first, rest, &ovf);
}

vl_runtime vl_runtime_on(const vl_gpu *gpu, const vl_settings *s, bool overhead_given)
{
    return (vl_runtime){.arch = gpu ? gpu->generation : VL_ARCH_UNKNOWN,
                        .cuda = vl_cuda_number(vl_settings_cuda(s)),
                        .overhead_given = overhead_given,
                        .sms = gpu ? gpu->sms : 0, .memory = gpu ? vl_gpu_capacity(gpu) : 0,
                        .smi_memory = gpu ? gpu->memory : 0,
                        .interconnect = gpu ? gpu->interconnect : VL_LINK_PCIE,
                        .nvlinks = gpu ? gpu->nvlinks : 0,
                        .cc = gpu ? (unsigned)lround(gpu->compute_capability * 10) : 0};
}
