#include "trove_gemm.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TARGET __attribute__((target("avx2,fma")))

static TARGET inline float horizontal_sum(__m256 v) {
    __m128 low = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    low = _mm_hadd_ps(low, low);
    low = _mm_hadd_ps(low, low);
    return _mm_cvtss_f32(low);
}

/// R rows of A against J rows of W, over all of k: R×J accumulators of eight lanes. With `next`, the J rows of W
/// after these are prefetched (only the first row group of a panel does it: the others find W in L1).
#define BLOCK(R, J)                                                                                                   \
    static TARGET inline void block_##R##_##J(int k, const float *a, int lda, const float *w, int ldw,               \
                                              const float *bias, int accumulate, float *c, int ldc,                  \
                                              const float *next) {                                                   \
        __m256 acc[R][J];                                                                                             \
        for (int r = 0; r < R; r++)                                                                                   \
            for (int j = 0; j < J; j++) acc[r][j] = _mm256_setzero_ps();                                              \
        int p = 0;                                                                                                    \
        for (; p + 8 <= k; p += 8) {                                                                                  \
            __m256 weights[J];                                                                                        \
            for (int j = 0; j < J; j++) weights[j] = _mm256_loadu_ps(w + (long)j * ldw + p);                         \
            if (next && (p & 15) == 0)                                                                                \
                for (int j = 0; j < J; j++) _mm_prefetch((const char *)(next + (long)j * ldw + p), _MM_HINT_T0);      \
            for (int r = 0; r < R; r++) {                                                                             \
                __m256 x = _mm256_loadu_ps(a + (long)r * lda + p);                                                    \
                for (int j = 0; j < J; j++) acc[r][j] = _mm256_fmadd_ps(x, weights[j], acc[r][j]);                   \
            }                                                                                                         \
        }                                                                                                             \
        for (int r = 0; r < R; r++)                                                                                   \
            for (int j = 0; j < J; j++) {                                                                             \
                float sum = horizontal_sum(acc[r][j]);                                                                \
                for (int q = p; q < k; q++) sum = __builtin_fmaf(a[(long)r * lda + q], w[(long)j * ldw + q], sum);    \
                float *out = c + (long)r * ldc + j;                                                                   \
                if (bias) sum += bias[j];                                                                             \
                *out = accumulate ? *out + sum : sum;                                                                 \
            }                                                                                                         \
    }
BLOCK(4, 3)
BLOCK(1, 3)
BLOCK(4, 1)
BLOCK(1, 1)

/// Every row of A against the J rows of W at `w` (output columns j…j+J-1).
#define PANEL(J)                                                                                                      \
    static TARGET void panel_##J(int m, int k, const float *a, int lda, const float *w, int ldw, const float *bias,  \
                                 int accumulate, float *c, int ldc, const float *next) {                             \
        int i = 0;                                                                                                    \
        for (; i + 4 <= m; i += 4, next = 0)                                                                          \
            block_4_##J(k, a + (long)i * lda, lda, w, ldw, bias, accumulate, c + (long)i * ldc, ldc, next);          \
        for (; i < m; i++, next = 0)                                                                                  \
            block_1_##J(k, a + (long)i * lda, lda, w, ldw, bias, accumulate, c + (long)i * ldc, ldc, next);          \
    }
PANEL(3)
PANEL(1)

TARGET void trove_sgemm_nt_avx2(int m, int n, int k, const float *a, int lda, const float *w, int ldw,
                                const float *bias, int accumulate, float *c, int ldc) {
    int j = 0;
    for (; j + 3 <= n; j += 3) {
        const float *next = j + 6 <= n ? w + (long)(j + 3) * ldw : 0;
        panel_3(m, k, a, lda, w + (long)j * ldw, ldw, bias ? bias + j : 0, accumulate, c + j, ldc, next);
    }
    for (; j < n; j++) panel_1(m, k, a, lda, w + (long)j * ldw, ldw, bias ? bias + j : 0, accumulate, c + j, ldc, 0);
}

#else

void trove_sgemm_nt_avx2(int m, int n, int k, const float *a, int lda, const float *w, int ldw, const float *bias,
                         int accumulate, float *c, int ldc) {
    (void)m, (void)n, (void)k, (void)a, (void)lda, (void)w, (void)ldw, (void)bias, (void)accumulate, (void)c, (void)ldc;
    __builtin_trap();  // never called: the caller checks for AVX2 and FMA first
}

#endif
