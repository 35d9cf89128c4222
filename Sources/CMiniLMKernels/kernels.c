// The encoder's two exp-heavy loops with AVX-512, chosen at run time: the Swift package compiles for baseline
// x86-64 (SSE2), four lanes and no FMA, where softmax and GELU took ~15% of the encoder's time. Only these functions
// carry the target attribute, so the binary still runs on any x86-64 CPU; callers check trove_avx512_available().
#include "CMiniLMKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

bool trove_avx512_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

// 2^x with FastMath.exp2's clamp and Cephes polynomial, 16 lanes.
__attribute__((target("avx512f"))) static inline __m512 exp2_16(__m512 x) {
    x = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(127.0f)), _mm512_set1_ps(-126.0f));
    __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_sub_ps(x, n);
    __m512 p = _mm512_set1_ps(1.5353362e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3398874e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(9.6184374e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.5503325e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(2.4022648e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(6.9314720e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

__attribute__((target("avx512f"))) void trove_softmax_rows_avx512(
    float *x, long rows, long columns, long stride, float *inverse_sums) {
    for (long r = 0; r < rows; r++) {
        float *row = x + r * stride;
        __m512 m = _mm512_set1_ps(-__builtin_inff());
        long j = 0;
        for (; j + 16 <= columns; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(row + j));
        if (j < columns) {
            __mmask16 tail = (__mmask16)((1u << (columns - j)) - 1);
            m = _mm512_mask_max_ps(m, tail, m, _mm512_maskz_loadu_ps(tail, row + j));
        }
        __m512 shift = _mm512_set1_ps(_mm512_reduce_max_ps(m));
        __m512 total = _mm512_setzero_ps();
        for (j = 0; j + 16 <= columns; j += 16) {
            __m512 v = exp2_16(_mm512_sub_ps(_mm512_loadu_ps(row + j), shift));
            _mm512_storeu_ps(row + j, v);
            total = _mm512_add_ps(total, v);
        }
        if (j < columns) {
            __mmask16 tail = (__mmask16)((1u << (columns - j)) - 1);
            __m512 v = exp2_16(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, row + j), shift));
            _mm512_mask_storeu_ps(row + j, tail, v);
            total = _mm512_add_ps(total, _mm512_maskz_mov_ps(tail, v));
        }
        inverse_sums[r] = 1.0f / _mm512_reduce_add_ps(total);
    }
}

__attribute__((target("avx512f"))) static inline __m512 gelu_16(__m512 x) {
    // x·σ(2·√(2/π)·(x + 0.044715x³)) = x / (2^u + 1), u = -2·√(2/π)·log₂e·(x + 0.044715x³), as FastMath.gelu.
    __m512 inner = _mm512_fmadd_ps(_mm512_mul_ps(x, x), _mm512_set1_ps(0.044715f), _mm512_set1_ps(1.0f));
    __m512 u = _mm512_mul_ps(_mm512_mul_ps(x, inner), _mm512_set1_ps(-2.3022082f));
    return _mm512_div_ps(x, _mm512_add_ps(exp2_16(u), _mm512_set1_ps(1.0f)));
}

__attribute__((target("avx512f"))) void trove_bias_gelu_avx512(float *x, long rows, long width, const float *bias) {
    for (long r = 0; r < rows; r++) {
        float *row = x + r * width;
        long j = 0;
        for (; j + 16 <= width; j += 16) {
            __m512 v = _mm512_add_ps(_mm512_loadu_ps(row + j), _mm512_loadu_ps(bias + j));
            _mm512_storeu_ps(row + j, gelu_16(v));
        }
        if (j < width) {
            __mmask16 tail = (__mmask16)((1u << (width - j)) - 1);
            __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(tail, row + j), _mm512_maskz_loadu_ps(tail, bias + j));
            _mm512_mask_storeu_ps(row + j, tail, gelu_16(v));
        }
    }
}

#else

bool trove_avx512_available(void) { return false; }
void trove_softmax_rows_avx512(float *x, long rows, long columns, long stride, float *inverse_sums) {}
void trove_bias_gelu_avx512(float *x, long rows, long width, const float *bias) {}

#endif
