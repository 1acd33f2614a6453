// casts.cuh: casts with CUDA's conversions, for the probe's kernels (probe_kernels.cu).
//
// __host__ __device__: on the GPU they run CUDA's conversion instructions; on the host,
// the reference code CUDA's headers carry for the same conversions, which is what
// tests/test_cuda_casts checks against the software codecs wherever nvcc is, GPU or not.
#ifndef VL_CASTS_CUH
#define VL_CASTS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <string.h>

#include "core/numerics.h"

#define VL_HOST_DEVICE __host__ __device__ static inline

VL_HOST_DEVICE uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

VL_HOST_DEVICE float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
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

// The code of x in f, as vl_encode.  fp16 and bf16 have no saturating conversion: an
// infinite result becomes +-max, as .satfinite would give.
VL_HOST_DEVICE uint32_t cast_code(int f, float x, bool saturate)
{
    uint32_t sign = bits_of(x) >> 31;
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
        return saturate && isinf(x) ? sign << 31 | 0x7F7FFFFF : bits_of(x);
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
    default: v = float_of(code); break;
    }
    return isnan(v) ? float_of(0x7FFFFFFF) : v;
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

#endif
