// kernel_work.cuh: what the threads of the probe's kernels (probe_kernels.cu) compute.
//
// All __host__ __device__: on the GPU they run CUDA's conversion instructions and IEEE
// float operations (__fmul_rn, __fadd_rn: never fused); on the host, the reference code
// CUDA's headers carry for the same conversions, and plain float operations.  So
// tests/test_cuda_host checks the kernels' own logic against the CPU kernels wherever nvcc
// is, GPU or not; `vramlab probe selftest` checks the GPU's instructions where there is one.
#ifndef VL_KERNEL_WORK_CUH
#define VL_KERNEL_WORK_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <string.h>

#include "core/kernels.h"

#define VL_HOST_DEVICE __host__ __device__ static inline

// One IEEE operation each, never fused into a multiply-add.
VL_HOST_DEVICE float mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

VL_HOST_DEVICE float add_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

VL_HOST_DEVICE float min_normal(int f)
{
    switch (f) {
    case VL_FMT_F16: return 0x1p-14f;
    case VL_FMT_E4M3: return 0x1p-6f;
    case VL_FMT_E5M2: return 0x1p-14f;
    default: return 0x1p-126f; // fp32, bf16
    }
}

// ---- casts with CUDA's conversions ---------------------------------------------------------

// The code of x in f, as vl_encode.  fp16 and bf16 have no saturating conversion: an
// infinite result becomes +-max, as .satfinite would give.
VL_HOST_DEVICE uint32_t cast_code(int f, float x, bool saturate)
{
    uint32_t sign = vl_f32_bits(x) >> 31;
    switch (f) {
    case VL_FMT_F16: {
        __half h = __float2half_rn(x);
        return saturate && __hisinf(h) ? sign << 15 | 0x7BFF : __half_as_ushort(h);
    }
    case VL_FMT_BF16: {
        __nv_bfloat16 h = __float2bfloat16_rn(x);
        return saturate && __hisinf(h) ? sign << 15 | 0x7F7F : __bfloat16_as_ushort(h);
    }
    case VL_FMT_E4M3:
        return __nv_cvt_float_to_fp8(x, saturate ? __NV_SATFINITE : __NV_NOSAT, __NV_E4M3);
    case VL_FMT_E5M2:
        return __nv_cvt_float_to_fp8(x, saturate ? __NV_SATFINITE : __NV_NOSAT, __NV_E5M2);
    default: // fp32: the value itself, NaN made canonical
        if (isnan(x))
            return 0x7FFFFFFF;
        return saturate && isinf(x) ? sign << 31 | 0x7F7FFFFF : vl_f32_bits(x);
    }
}

// The value of a code, with CUDA's conversions back; every NaN as 0x7FFFFFFF.
VL_HOST_DEVICE float decode(int f, uint32_t code)
{
    float v;
    switch (f) {
    case VL_FMT_F16: v = __half2float(__ushort_as_half((unsigned short)code)); break;
    case VL_FMT_BF16: v = __bfloat162float(__ushort_as_bfloat16((unsigned short)code)); break;
    case VL_FMT_E4M3:
        v = __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, __NV_E4M3)));
        break;
    case VL_FMT_E5M2:
        v = __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code, __NV_E5M2)));
        break;
    default: v = vl_f32_from_bits(code); break;
    }
    return isnan(v) ? vl_f32_from_bits(0x7FFFFFFF) : v;
}

VL_HOST_DEVICE float round_to(int f, float x)
{
    return decode(f, cast_code(f, x, false));
}

// What casting x to f does, as vl_classify_cast, read off the value the cast gives.
VL_HOST_DEVICE int cast_class(int f, float x, bool saturate)
{
    if (isnan(x))
        return VL_CLS_NAN;
    if (x == 0)
        return VL_CLS_ZERO;
    float v = round_to(f, x);
    if (v == 0)
        return VL_CLS_FLUSHED;
    if (isinf(v) || isnan(v)) // E4M3 overflows to NaN
        return saturate ? VL_CLS_SATURATED : VL_CLS_INF;
    return fabsf(v) < min_normal(f) ? VL_CLS_SUBNORMAL : VL_CLS_NORMAL;
}

// ---- the kernels' work, thread by thread --------------------------------------------------

// underflow: the class in format f of y = x * scale (as vl_cpu_underflow).
VL_HOST_DEVICE int underflow_class(int f, float x, float y, bool saturate)
{
    int c = cast_class(f, y, saturate);
    return c == VL_CLS_ZERO && x != 0 ? VL_CLS_FLUSHED : c; // the product underflowed fp32
}

// scaler: steps [from, to) of the trace, in one thread, as PyTorch's update kernel, the
// state carried in *s; the kernel runs the trace in parts, so that no launch runs long
// enough for a display GPU's watchdog.
VL_HOST_DEVICE void scaler_part(const vl_scaler_params *p, const float *grad_max, size_t from,
                                size_t to, float *scale, uint8_t *found_inf, vl_scaler_state *s)
{
    for (size_t i = from; i < to; i++) {
        __half h = __float2half_rn(mul_rn(grad_max[i], s->scale));
        bool inf = __hisinf(h) || __hisnan(h);
        scale[i] = s->scale;
        found_inf[i] = inf;
        vl_scaler_update(s, inf, p);
    }
}

// scaler: the whole trace (as vl_cpu_scaler).
VL_HOST_DEVICE void scaler_run(const vl_scaler_params *p, const float *grad_max, size_t steps,
                               float *scale, uint8_t *found_inf, vl_scaler_state *final)
{
    vl_scaler_state s = {p->init_scale, 0};
    scaler_part(p, grad_max, 0, steps, scale, found_inf, &s);
    *final = s;
}

// update: w - u in format f (as vl_cpu_sub).
VL_HOST_DEVICE float sub_one(int f, float w, float u)
{
    return round_to(f, add_rn(round_to(f, w), round_to(f, -u)));
}

// update: w - u again and again in format f (as vl_cpu_repeat, one format).
VL_HOST_DEVICE void repeat_one(int f, float w, float u, uint32_t steps, vl_repeat *out)
{
    float v = round_to(f, w), du = round_to(f, -u);
    uint32_t lost = 0;
    for (uint32_t i = 0; i < steps; i++) {
        float next = round_to(f, add_rn(v, du));
        lost += next == v;
        v = next;
    }
    out->final[f] = v;
    out->lost[f] = lost;
}

// accumulate: elements [from, to) of the running sums, in one thread (a running sum has
// one order), carried in *r; in parts, as the scaler.
VL_HOST_DEVICE void accumulate_part(const float *a, const float *c, size_t from, size_t to,
                                    vl_accum *r)
{
    for (size_t i = from; i < to; i++) {
        float x = round_to(VL_FMT_F16, a[i]);
        float p = mul_rn(x, round_to(VL_FMT_F16, c[i])); // 22 bits: exact in fp32
        float s16 = round_to(VL_FMT_F16, add_rn(r->sum16, x));
        float d16 = round_to(VL_FMT_F16, add_rn(r->dot16, round_to(VL_FMT_F16, p)));
        if (s16 != r->sum16)
            r->sum16_last = (uint32_t)(i + 1);
        if (d16 != r->dot16)
            r->dot16_last = (uint32_t)(i + 1);
        r->sum16 = s16;
        r->dot16 = d16;
        r->sum32 = add_rn(r->sum32, x);
        r->dot32 = add_rn(r->dot32, p);
    }
}

// accumulate: the whole sums (as vl_cpu_accumulate).
VL_HOST_DEVICE void accumulate_run(const float *a, const float *c, size_t n, vl_accum *out)
{
    vl_accum r = {0, 0, 0, 0, 0, 0};
    accumulate_part(a, c, 0, n, &r);
    *out = r;
}

#endif
