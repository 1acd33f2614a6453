/* backend.h: where the probe's micro-kernels run (HACKING §5).  The CPU emulation is always
 * built; the CUDA kernels when configure found nvcc, and they run when a device answers.
 * Both give the same results bit for bit (`vramlab probe selftest` checks it), so the
 * experiments (probe.h) call these and never ask which one ran; the output only says it.
 *
 * A CUDA error in any kernel moves the backend to the CPU for that kernel and every later
 * one, with the error as the reason: a run never fails for want of a GPU. */
#ifndef VL_BACKEND_H
#define VL_BACKEND_H

#include <stddef.h>

#include "kernels.h"
#include "train-work.h"

typedef enum {
    VL_BACKEND_AUTO,
    VL_BACKEND_CPU,
    VL_BACKEND_CUDA,
    VL_N_BACKEND_CHOICES
} vl_backend_choice;
extern const char *const vl_backend_choice_names[VL_N_BACKEND_CHOICES]; /* auto, cpu, cuda */

typedef struct vl_backend {
    bool cuda;         /* the kernels run on the GPU */
    char device[160];  /* with cuda: "NVIDIA H200, compute capability 9.0" */
    char why_cpu[320]; /* without: why, e.g. "CUDA driver not found (cudaGetDeviceCount: ...)" */
} vl_backend;

/* AUTO: CUDA when built with it and a device answers, else the CPU and the reason.  CPU:
 * the CPU.  CUDA: false, with the reason in why_cpu, when no device can be had. */
bool vl_backend_open(vl_backend *b, vl_backend_choice choice);

/* "cuda" or "cpu". */
const char *vl_backend_name(const vl_backend *b);

/* What ran and why, for people: the device, or "<why>: CPU emulation" (in buf). */
const char *vl_backend_note(const vl_backend *b, char *buf, size_t len);

/* The kernels; their contracts are in cpu-kernels.h, the CPU versions. */
void vl_run_encode(vl_backend *b, vl_format f, bool saturate, const float *x, size_t n,
                   uint32_t *codes);
/* underflow at each of scales[0..n_scales) into *out[0..n_scales): the sample goes to the
 * GPU once for all of them. */
void vl_run_underflow(vl_backend *b, const float *x, size_t n, const float *scales, int n_scales,
                      bool saturate, unsigned formats, vl_cast_counts *const *out);
void vl_run_scaler(vl_backend *b, const vl_scaler_params *p, const float *grad_max, size_t steps,
                   float *scale, uint8_t *found_inf, vl_scaler_state *final);
void vl_run_sub(vl_backend *b, vl_format f, const float *w, const float *u, size_t n, float *out);
void vl_run_repeat(vl_backend *b, float w, float u, uint32_t steps, vl_repeat *out);
void vl_run_accumulate(vl_backend *b, const float *a, const float *c, size_t n, vl_accum *out);


/* The tensors of a training run (train.c): an arena of floats and one of counters, in host
 * memory, and with CUDA a copy of both on the device that the operations work on.  When
 * CUDA fails mid-run the device copy is lost: lost is set, the backend moves to the CPU,
 * and the caller starts the run again (train.c replays it: the results are the same). */
typedef struct vl_train_mem {
    float *mem;
    uint32_t *cnt;
    size_t n_mem, n_cnt;
    void *dev; /* the CUDA copy, or NULL */
    bool lost;
} vl_train_mem;

/* false when out of host memory. */
bool vl_run_train_open(vl_backend *b, vl_train_mem *m, size_t n_mem, size_t n_cnt);
void vl_run_train_close(vl_train_mem *m);
void vl_run_train_write(vl_backend *b, vl_train_mem *m, size_t off, const float *src, size_t n);
void vl_run_train_read(vl_backend *b, vl_train_mem *m, size_t off, float *dst, size_t n);
/* The counters [first, first + n) into dst, and then zeroed. */
void vl_run_train_counts(vl_backend *b, vl_train_mem *m, size_t first, size_t n, uint32_t *dst);
void vl_run_train_op(vl_backend *b, vl_train_mem *m, const vl_top *op);

#endif
