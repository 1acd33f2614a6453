/* backend.c: picking the CPU or CUDA backend, and running each kernel on it (backend.h). */
#include <config.h>

#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-kernels.h"
#ifdef HAVE_CUDA
#include "cuda/probe_kernels.h"
#include "cuda/train_kernels.h"
#endif

const char *const vl_backend_choice_names[VL_N_BACKEND_CHOICES] = {"auto", "cpu", "cuda"};

bool vl_backend_open(vl_backend *b, vl_backend_choice choice)
{
    *b = (vl_backend){.cuda = false};
    if (choice == VL_BACKEND_CPU) {
        snprintf(b->why_cpu, sizeof b->why_cpu, "the CPU backend was asked for");
        return true;
    }
#ifdef HAVE_CUDA
    b->cuda = vl_cuda_open(b->device, sizeof b->device, b->why_cpu, sizeof b->why_cpu) == 0;
#else
    snprintf(b->why_cpu, sizeof b->why_cpu, "built without CUDA (configure found no nvcc)");
#endif
    return b->cuda || choice != VL_BACKEND_CUDA;
}

const char *vl_backend_name(const vl_backend *b)
{
    return b->cuda ? "cuda" : "cpu";
}

const char *vl_backend_note(const vl_backend *b, char *buf, size_t len)
{
    if (b->cuda)
        snprintf(buf, len, "%s", b->device);
    else
        snprintf(buf, len, "%s: CPU emulation", b->why_cpu);
    return buf;
}

#ifdef HAVE_CUDA
/* True when the CUDA kernel ran (rc 0); else the backend falls back to the CPU for good. */
static bool cuda_ran(vl_backend *b, const char *kernel, int rc)
{
    if (rc == 0)
        return true;
    b->cuda = false;
    snprintf(b->why_cpu, sizeof b->why_cpu, "CUDA error in the %s kernel (%s)", kernel,
             vl_cuda_error());
    return false;
}
#define ON_CUDA(kernel, call) (b->cuda && cuda_ran(b, kernel, call))
#else
#define ON_CUDA(kernel, call) ((void)b, false)
#endif

void vl_run_encode(vl_backend *b, vl_format f, bool saturate, const float *x, size_t n,
                   uint32_t *codes)
{
    if (!ON_CUDA("encode", vl_cuda_encode(f, saturate, x, n, codes)))
        vl_cpu_encode(f, saturate, x, n, codes);
}

void vl_run_underflow(vl_backend *b, const float *x, size_t n, const float *scales, int n_scales,
                      bool saturate, unsigned formats, vl_cast_counts *const *out)
{
    if (!ON_CUDA("underflow", vl_cuda_underflow(x, n, scales, n_scales, saturate, formats, out)))
        for (int s = 0; s < n_scales; s++)
            vl_cpu_underflow(x, n, scales[s], saturate, formats, out[s]);
}

void vl_run_scaler(vl_backend *b, const vl_scaler_params *p, const float *grad_max, size_t steps,
                   float *scale, uint8_t *found_inf, vl_scaler_state *final)
{
    if (!ON_CUDA("scaler", vl_cuda_scaler(p, grad_max, steps, scale, found_inf, final)))
        vl_cpu_scaler(p, grad_max, steps, scale, found_inf, final);
}

void vl_run_sub(vl_backend *b, vl_format f, const float *w, const float *u, size_t n, float *out)
{
    if (!ON_CUDA("update", vl_cuda_sub(f, w, u, n, out)))
        vl_cpu_sub(f, w, u, n, out);
}

void vl_run_repeat(vl_backend *b, float w, float u, uint32_t steps, vl_repeat *out)
{
    if (!ON_CUDA("repeat", vl_cuda_repeat(w, u, steps, out)))
        vl_cpu_repeat(w, u, steps, out);
}

void vl_run_accumulate(vl_backend *b, const float *a, const float *c, size_t n, vl_accum *out)
{
    if (!ON_CUDA("accumulate", vl_cuda_accumulate(a, c, n, out)))
        vl_cpu_accumulate(a, c, n, out);
}

/* ---- training runs ---------------------------------------------------------------------- */

/* True when m lives on the device and the call ran; a failure loses the device copy. */
#ifdef HAVE_CUDA
#define ON_DEVICE(m, kernel, call) \
    ((m)->dev && !(m)->lost && (cuda_ran(b, kernel, call) || ((m)->lost = true, false)))
#else
#define ON_DEVICE(m, kernel, call) ((void)b, false)
#endif

bool vl_run_train_open(vl_backend *b, vl_train_mem *m, size_t n_mem, size_t n_cnt)
{
    *m = (vl_train_mem){.n_mem = n_mem, .n_cnt = n_cnt};
    m->mem = calloc(n_mem, sizeof *m->mem);
    m->cnt = calloc(n_cnt, sizeof *m->cnt);
    if (!m->mem || !m->cnt) {
        vl_run_train_close(m);
        return false;
    }
#ifdef HAVE_CUDA
    void *dev = NULL;
    if (b->cuda && cuda_ran(b, "training memory", vl_cuda_train_alloc(n_mem, n_cnt, &dev)))
        m->dev = dev;
#else
    (void)b;
#endif
    return true;
}

void vl_run_train_close(vl_train_mem *m)
{
#ifdef HAVE_CUDA
    if (m->dev)
        vl_cuda_train_free(m->dev);
#endif
    free(m->mem);
    free(m->cnt);
    *m = (vl_train_mem){.mem = NULL};
}

void vl_run_train_write(vl_backend *b, vl_train_mem *m, size_t off, const float *src, size_t n)
{
    memcpy(m->mem + off, src, n * sizeof *src);
    (void)ON_DEVICE(m, "upload", vl_cuda_train_write(m->dev, off, src, n));
}

void vl_run_train_read(vl_backend *b, vl_train_mem *m, size_t off, float *dst, size_t n)
{
    if (!ON_DEVICE(m, "download", vl_cuda_train_read(m->dev, off, dst, n)))
        memcpy(dst, m->mem + off, n * sizeof *dst);
}

void vl_run_train_counts(vl_backend *b, vl_train_mem *m, size_t first, size_t n, uint32_t *dst)
{
    if (ON_DEVICE(m, "counters", vl_cuda_train_counts(m->dev, first, n, dst)))
        return;
    memcpy(dst, m->cnt + first, n * sizeof *dst);
    memset(m->cnt + first, 0, n * sizeof *m->cnt);
}

void vl_run_train_op(vl_backend *b, vl_train_mem *m, const vl_top *op)
{
    if (m->dev) {
        (void)ON_DEVICE(m, "training", vl_cuda_train_op(m->dev, op));
        return;
    }
    vl_cpu_train_op(m->mem, m->cnt, op);
}
