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

/// R rows of A against J rows of W, over all of k: R×J accumulators of eight lanes. With `next`, columns `from` to
/// `to` of the J rows of W after these are prefetched, a cache line of each row every other step: each row group
/// of a panel fetches its own slice of the next panel (the others find this one in L1).
#define BLOCK(R, J)                                                                                                   \
    static TARGET inline void block_##R##_##J(int k, const float *a, int lda, const float *w, int ldw,               \
                                              const float *bias, int accumulate, float *c, int ldc,                  \
                                              const float *next, int from, int to) {                                 \
        __m256 acc[R][J];                                                                                             \
        for (int r = 0; r < R; r++)                                                                                   \
            for (int j = 0; j < J; j++) acc[r][j] = _mm256_setzero_ps();                                              \
        int p = 0;                                                                                                    \
        for (; p + 8 <= k; p += 8) {                                                                                  \
            __m256 weights[J];                                                                                        \
            for (int j = 0; j < J; j++) weights[j] = _mm256_loadu_ps(w + (long)j * ldw + p);                         \
            int line = from + p;                                                                                      \
            if (next && (p & 15) == 0 && line < to)                                                                   \
                for (int j = 0; j < J; j++) _mm_prefetch((const char *)(next + (long)j * ldw + line), _MM_HINT_T0);   \
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

/// Every row of A against the J rows of W at `w` (output columns j…j+J-1), prefetching `next` (J rows) meanwhile.
/// Spread over all row groups, the prefetches keep the memory busy the whole panel long: issued by the first group
/// alone, they came in one burst and a 20-token query's products took 1.14× as long (BENCHMARKS.md#query-embedding).
#define PANEL(J)                                                                                                      \
    static TARGET void panel_##J(int m, int k, const float *a, int lda, const float *w, int ldw, const float *bias,  \
                                 int accumulate, float *c, int ldc, const float *next) {                             \
        int groups = m / 4 + m % 4;                                                                                   \
        int slice = ((k + groups - 1) / groups + 15) / 16 * 16; /* whole cache lines */                              \
        int i = 0, from = 0;                                                                                          \
        for (; i + 4 <= m; i += 4, from += slice)                                                                     \
            block_4_##J(k, a + (long)i * lda, lda, w, ldw, bias, accumulate, c + (long)i * ldc, ldc, next, from,     \
                        from + slice);                                                                                \
        for (; i < m; i++, from += slice)                                                                             \
            block_1_##J(k, a + (long)i * lda, lda, w, ldw, bias, accumulate, c + (long)i * ldc, ldc, next, from,     \
                        from + slice);                                                                                \
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

#define TARGET512 __attribute__((target("avx512f,avx512vl,avx2,fma")))

/// The sums of a, b, c and d, in that order: 13 instructions for four outputs against 32 for four reductions alone.
static TARGET512 inline __m128 sum4_512(__m512 a, __m512 b, __m512 c, __m512 d) {
#define HALVES(v) _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)))
    __m256 ab = _mm256_hadd_ps(HALVES(a), HALVES(b)), cd = _mm256_hadd_ps(HALVES(c), HALVES(d));
#undef HALVES
    __m256 abcd = _mm256_hadd_ps(ab, cd);
    return _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1));
}

/// As BLOCK, sixteen lanes a register: R×J accumulators of the 32 registers AVX-512 has, so each row of W loaded
/// serves R rows of A and each row of A J rows of W. k's tail is a masked load, not a scalar loop.
#define BLOCK512(R, J)                                                                                                \
    static TARGET512 inline void block512_##R##_##J(int k, const float *a, int lda, const float *w, int ldw,         \
                                                    const float *bias, int accumulate, float *c, int ldc,            \
                                                    const float *next, int from, int to) {                           \
        __m512 acc[R][J];                                                                                             \
        for (int r = 0; r < R; r++)                                                                                   \
            for (int j = 0; j < J; j++) acc[r][j] = _mm512_setzero_ps();                                              \
        for (int p = 0; p < k; p += 16) {                                                                             \
            __mmask16 mask = k - p >= 16 ? 0xffff : (__mmask16)((1u << (k - p)) - 1);                                \
            __m512 weights[J];                                                                                        \
            for (int j = 0; j < J; j++) weights[j] = _mm512_maskz_loadu_ps(mask, w + (long)j * ldw + p);             \
            int line = from + p;                                                                                      \
            if (next && line < to)                                                                                    \
                for (int j = 0; j < J; j++) _mm_prefetch((const char *)(next + (long)j * ldw + line), _MM_HINT_T0);   \
            for (int r = 0; r < R; r++) {                                                                             \
                __m512 x = _mm512_maskz_loadu_ps(mask, a + (long)r * lda + p);                                       \
                for (int j = 0; j < J; j++) acc[r][j] = _mm512_fmadd_ps(x, weights[j], acc[r][j]);                   \
            }                                                                                                         \
        }                                                                                                             \
        for (int r = 0; r < R; r++) {                                                                                 \
            float *out = c + (long)r * ldc;                                                                           \
            if (J == 4) {                                                                                             \
                __m128 sum = sum4_512(acc[r][0], acc[r][1 % J], acc[r][2 % J], acc[r][3 % J]);                        \
                if (bias) sum = _mm_add_ps(sum, _mm_loadu_ps(bias));                                                  \
                if (accumulate) sum = _mm_add_ps(sum, _mm_loadu_ps(out));                                             \
                _mm_storeu_ps(out, sum);                                                                              \
            } else {                                                                                                  \
                for (int j = 0; j < J; j++) {                                                                         \
                    float sum = _mm512_reduce_add_ps(acc[r][j]) + (bias ? bias[j] : 0);                               \
                    out[j] = accumulate ? out[j] + sum : sum;                                                         \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
    }
BLOCK512(5, 4)
BLOCK512(4, 4)
BLOCK512(3, 4)
BLOCK512(2, 4)
BLOCK512(1, 4)
BLOCK512(5, 1)
BLOCK512(4, 1)
BLOCK512(3, 1)
BLOCK512(2, 1)
BLOCK512(1, 1)

/// As PANEL: every row of A against J rows of W, five rows at a time, the last one to four rows in one block.
#define PANEL512(J)                                                                                                   \
    static TARGET512 void panel512_##J(int m, int k, const float *a, int lda, const float *w, int ldw,              \
                                       const float *bias, int accumulate, float *c, int ldc, const float *next) {    \
        int groups = (m + 4) / 5;                                                                                     \
        int slice = ((k + groups - 1) / groups + 15) / 16 * 16;                                                       \
        int i = 0, from = 0;                                                                                          \
        for (; i + 5 <= m; i += 5, from += slice)                                                                     \
            block512_5_##J(k, a + (long)i * lda, lda, w, ldw, bias, accumulate, c + (long)i * ldc, ldc, next, from,  \
                           from + slice);                                                                             \
        const float *x = a + (long)i * lda;                                                                           \
        float *out = c + (long)i * ldc;                                                                               \
        switch (m - i) {                                                                                              \
        case 4: block512_4_##J(k, x, lda, w, ldw, bias, accumulate, out, ldc, next, from, from + slice); break;     \
        case 3: block512_3_##J(k, x, lda, w, ldw, bias, accumulate, out, ldc, next, from, from + slice); break;     \
        case 2: block512_2_##J(k, x, lda, w, ldw, bias, accumulate, out, ldc, next, from, from + slice); break;     \
        case 1: block512_1_##J(k, x, lda, w, ldw, bias, accumulate, out, ldc, next, from, from + slice); break;     \
        }                                                                                                             \
    }
PANEL512(4)
PANEL512(1)

TARGET512 void trove_sgemm_nt_avx512(int m, int n, int k, const float *a, int lda, const float *w, int ldw,
                                    const float *bias, int accumulate, float *c, int ldc) {
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *next = j + 8 <= n ? w + (long)(j + 4) * ldw : 0;
        panel512_4(m, k, a, lda, w + (long)j * ldw, ldw, bias ? bias + j : 0, accumulate, c + j, ldc, next);
    }
    for (; j < n; j++)
        panel512_1(m, k, a, lda, w + (long)j * ldw, ldw, bias ? bias + j : 0, accumulate, c + j, ldc, 0);
}

TARGET void trove_head_scores_avx2(int n, int d, float scale, const float *q, const float *k, int ld, float *scores) {
    for (int i = 0; i < n; i++) {
        const float *x = q + (long)i * ld;
        for (int j = 0; j < n; j++) {
            const float *y = k + (long)j * ld;
            __m256 acc = _mm256_setzero_ps();
            for (int p = 0; p < d; p += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(x + p), _mm256_loadu_ps(y + p), acc);
            scores[(long)i * n + j] = scale * horizontal_sum(acc);
        }
    }
}

TARGET void trove_head_mix_avx2(int n, int d, const float *weights, const float *v, int ld, float *out, int ldo) {
    for (int i = 0; i < n; i++) {
        const float *row = weights + (long)i * n;
        for (int p = 0; p < d; p += 8) {
            __m256 acc = _mm256_setzero_ps();
            for (int j = 0; j < n; j++)
                acc = _mm256_fmadd_ps(_mm256_set1_ps(row[j]), _mm256_loadu_ps(v + (long)j * ld + p), acc);
            _mm256_storeu_ps(out + (long)i * ldo + p, acc);
        }
    }
}

#else

void trove_head_scores_avx2(int n, int d, float scale, const float *q, const float *k, int ld, float *scores) {
    (void)n, (void)d, (void)scale, (void)q, (void)k, (void)ld, (void)scores;
    __builtin_trap();  // never called: the caller checks for AVX2 and FMA first
}

void trove_head_mix_avx2(int n, int d, const float *weights, const float *v, int ld, float *out, int ldo) {
    (void)n, (void)d, (void)weights, (void)v, (void)ld, (void)out, (void)ldo;
    __builtin_trap();  // never called: the caller checks for AVX2 and FMA first
}

void trove_sgemm_nt_avx2(int m, int n, int k, const float *a, int lda, const float *w, int ldw, const float *bias,
                         int accumulate, float *c, int ldc) {
    (void)m, (void)n, (void)k, (void)a, (void)lda, (void)w, (void)ldw, (void)bias, (void)accumulate, (void)c, (void)ldc;
    __builtin_trap();  // never called: the caller checks for AVX2 and FMA first
}

void trove_sgemm_nt_avx512(int m, int n, int k, const float *a, int lda, const float *w, int ldw, const float *bias,
                           int accumulate, float *c, int ldc) {
    (void)m, (void)n, (void)k, (void)a, (void)lda, (void)w, (void)ldw, (void)bias, (void)accumulate, (void)c, (void)ldc;
    __builtin_trap();  // never called: the caller checks for AVX-512 first
}

#endif
