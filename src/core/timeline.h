/* timeline.h: one training step or one serving run as the ordered tensors it allocates and
 * frees (HACKING §6), and its peak: what the GPU must hold, where the steady-state sum of
 * vl_estimate (the article's view) only adds the components up.
 *
 * The saved activations are vl_activations_compute's terms, tensor by tensor; the weights,
 * gradients and optimizer states are vl_estimate's; the framework profile decides what is
 * added around them (the loss's gradients, the optimizer's temporaries, buckets, gathered
 * ZeRO-3 layers, a server's chunks and sampler), and runtime.h replays the allocator. */
#ifndef VL_TIMELINE_H
#define VL_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framework.h"
#include "memory.h"
#include "model.h"
#include "runtime.h"

/* What a tensor is, for the stacked picture and the peak's "alive": the first six are
 * vl_estimate's components (the same JSON keys). */
#define VL_TL_COMPONENTS(X)                                                          \
    X(VL_TL_WEIGHTS, "weights", N_("weights"))                                       \
    X(VL_TL_GRADIENTS, "gradients", N_("gradients"))                                 \
    X(VL_TL_OPTIMIZER, "optimizer", N_("optimizer states"))                          \
    X(VL_TL_ACTIVATIONS, "activations", N_("saved activations"))                     \
    X(VL_TL_KV_CACHE, "kv_cache", N_("KV cache"))                                    \
    X(VL_TL_GATHERED, "zero3_live", N_("ZeRO-3 gathered parameters"))                \
    X(VL_TL_TRANSIENT, "transient", N_("transient tensors"))                         \
    X(VL_TL_OPTIM_TEMP, "optimizer_temp", N_("optimizer step temporaries"))          \
    X(VL_TL_BUCKETS, "buckets", N_("gradient buckets"))                              \
    X(VL_TL_RUNTIME, "runtime", N_("runtime pools"))
#define VL_TL_ITEM(id, key, label) id,
typedef enum { VL_TL_COMPONENTS(VL_TL_ITEM) VL_N_TL_COMPONENTS } vl_tl_component;
extern const char *const vl_tl_component_keys[VL_N_TL_COMPONENTS];

typedef enum { VL_EV_ALLOC, VL_EV_FREE } vl_event_kind;

typedef struct vl_event {
    vl_event_kind kind;
    vl_tl_component component;
    uint64_t bytes;             /* the tensor's own bytes */
    const char *what;           /* the tensor, a static string */
    uint32_t phase;             /* index into vl_timeline.phases */
    uint32_t tensor;            /* a free: the index of its allocation event */
    uint64_t tensors;           /* after the event: bytes of every live tensor */
    uint64_t allocated;         /* after the event: the allocator's blocks in use */
    uint64_t reserved;          /* after the event: its segments */
} vl_event;

#define VL_PHASE_LEN 64

typedef struct vl_peak {
    uint64_t allocated;         /* ~ torch.cuda.max_memory_allocated() */
    uint64_t reserved;          /* ~ torch.cuda.max_memory_reserved() */
    uint64_t released;          /* segments the allocator freed when the GPU ran short (its
                                 * release_cached_blocks); 0 where none */
    uint64_t device;            /* reserved + context (or the settings' overhead) + managed
                                 * + communicators: nvidia-smi */
    uint64_t managed;           /* bitsandbytes' paged optimizer states: CUDA managed memory,
                                 * on the GPU but outside the caching allocator */
    uint64_t context;           /* the CUDA context, or the overhead that replaces it, with
                                 * lazy_kernels */
    uint64_t lazy_kernels;      /* what the context gains as the step's kernels load */
    uint64_t cublas_own;        /* in the context too: the workspaces cuBLAS makes itself,
                                 * one a handle, where PyTorch gives it none (before 2.0) */
    uint64_t cublas;            /* the cuBLAS handles' workspaces in the allocator, alive
                                 * from the start (component runtime) */
    uint64_t communicators;     /* the framework's communicators, outside the allocator
                                 * (vl_communicator_bytes) */
    uint64_t nvls;              /* of them, NCCL's NVLink SHARP buffers */
    vl_link link;               /* how the GPUs are linked (vl_link_of) */
    const char *context_source; /* whose figure the context (without lazy_kernels) is */
    uint64_t tensors;           /* at the peak: the live tensors' own bytes */
    size_t event;               /* the event after which allocated peaks */
    const char *phase;
    uint64_t alive[VL_N_TL_COMPONENTS]; /* at the peak, by component; sums to tensors */
} vl_peak;

/* What nvidia-smi would show with `reserved` bytes in the caching allocator: those, the CUDA
 * context (or --overhead), the paged optimizer states in managed memory and the
 * communicators' buffers. */
uint64_t vl_peak_on_gpu(const vl_peak *p, uint64_t reserved, bool *ovf);

typedef struct vl_timeline {
    vl_event *events;
    size_t n_events, cap_events;
    char (*phases)[VL_PHASE_LEN];
    size_t n_phases, cap_phases;
    vl_peak peak;
    bool second_step;                  /* the step is the run's second, after first_step */
    uint64_t end[VL_N_TL_COMPONENTS];  /* alive after the last event: the state kept */
    vl_breakdown sum;                  /* vl_estimate's steady-state view of the same run */
} vl_timeline;

/* The runtime a step runs on. */
typedef struct vl_runtime {
    vl_gpu_arch arch;
    unsigned cuda;              /* major * 100 + minor */
    bool overhead_given;        /* the settings' overhead replaces the modelled context */
    uint64_t sms;               /* the GPU's streaming multiprocessors; 0 = unknown */
    uint64_t memory;            /* the GPU's memory as CUDA reports it; 0 = unknown */
    uint64_t smi_memory;        /* as nvidia-smi totals it (SGLang's defaults read it) */
    vl_link interconnect;       /* how its GPUs reach each other: pcie or nvlink */
    uint64_t nvlinks;           /* the GPU's NVLink links; 0 = none or unknown */
    unsigned cc;                /* compute capability, major * 10 + minor; 0 = unknown */
} vl_runtime;

/* Builds the timeline of m under s and framework f.  f decides the attention kernel (it
 * overrides s->attention).  true, or false with one line in err (an invalid setting, a
 * result over 64 bits, out of memory).  Free with vl_timeline_free, also after a failure. */
bool vl_timeline_build(const vl_model *m, const vl_settings *s, const vl_framework *f,
                       const vl_runtime *rt, vl_timeline *out, char *err, size_t len);
void vl_timeline_free(vl_timeline *t);

/* The timeline of m under s on its framework (vl_framework_of), on runtime rt, beside the
 * whole KV cache an engine sizes out of what rt's memory lets the run use
 * (vl_timeline_with_kv). */
bool vl_timeline_for(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                     vl_timeline *out, char *err, size_t len);
/* The steady-state sum (vl_estimate, which knows no GPU) of m under s at the serving
 * defaults s's framework takes on the GPU of rt (its prefill chunk and profile sequences,
 * where s leaves them to it), so that it chunks its prefill as vl_timeline_for's timeline
 * does.  NULL, or why s is not valid. */
const char *vl_estimate_for(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                            vl_breakdown *out);
/* The runtime of a run under s on gpu (NULL: a GPU of unknown generation, linked over PCIe)
 * with s's CUDA; overhead_given: the settings' overhead replaces the modelled context. */
struct vl_gpu;
vl_runtime vl_runtime_on(const struct vl_gpu *gpu, const vl_settings *s, bool overhead_given);

/* The CUDA context on rt (vl_cuda_context_bytes), or the settings' overhead where it stands
 * for the runtime; *source, when source is not NULL, says where it comes from. */
uint64_t vl_runtime_context(const vl_runtime *rt, uint64_t overhead, const char **source);
/* A cuBLAS handle's workspace on rt (0 when --overhead stands for it). */
uint64_t vl_runtime_cublas(const vl_runtime *rt);
/* What vLLM's V2 runner keeps for its sampler from the start, under f: a penalty count of
 * every vocabulary entry (int32) and two bit masks of the vocabulary (the prompt's tokens, a
 * grammar's), a row each of max_num_seqs (f->profile_seqs); 0 under other runners. */
uint64_t vl_sampler_state(const vl_arch *a, const vl_framework *f);
/* vLLM's estimate of its CUDA graphs' memory, which it takes off the KV cache where
 * f->graph_estimate (and not on the V2 runner before 0.29, whose estimate is 0), for s. */
uint64_t vl_graph_estimate(const vl_arch *a, const vl_settings *s, const vl_framework *f);

/* The phase label of event i. */
const char *vl_timeline_phase(const vl_timeline *t, size_t i);
/* What is alive after event i, by component (for a cursor over the events). */
void vl_timeline_alive(const vl_timeline *t, size_t i, uint64_t out[VL_N_TL_COMPONENTS]);

#endif
