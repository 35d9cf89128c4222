#include "trove_scan.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE inline __attribute__((always_inline))

// Rows scored together: four streams of one region keep the prefetcher busy and the loads independent, and 4 rows ×
// 2 accumulators leave room for the query's vector in 16 registers (AVX2) as in 32 (AVX-512).
#define GROUP 4

/// Asks for the lines of the group after the one at row r, if a whole one follows. The hardware prefetcher alone left
/// the AVX-512 kernel at half of one core's read rate on Zen 4 (11 against 22 GB/s; with this 16–18, and 1M × 384 on
/// two threads 73 → 51 ms against a 38 ms floor) and the AVX2 kernel ~10 % more CPU time per scan on Zen 5, where
/// AVX-512 neither gained nor lost (Benchmarks/scan-floor.sh).
static INLINE void prefetch_next(const float *rows, size_t r, size_t count, size_t d) {
    if (r + 2 * GROUP > count) return;
    const char *next = (const char *)(rows + (r + GROUP) * d);
    for (size_t byte = 0; byte < GROUP * d * sizeof(float); byte += 64) _mm_prefetch(next + byte, _MM_HINT_T0);
}

// ---- AVX-512 ----

/// Rows `row[0..R)` against the query: full pairs of vectors, then at most one full vector and one masked one, the
/// same sequence for every R so a row's sum never depends on its group.
static AVX512 INLINE void rows512(int R, const float *const *row, size_t d, const float *q, float *out) {
    __m512 a0[GROUP], a1[GROUP];
    for (int r = 0; r < R; r++) a0[r] = a1[r] = _mm512_setzero_ps();
    size_t j = 0;
    for (; j + 32 <= d; j += 32) {
        __m512 q0 = _mm512_loadu_ps(q + j), q1 = _mm512_loadu_ps(q + j + 16);
        for (int r = 0; r < R; r++) {
            a0[r] = _mm512_fmadd_ps(_mm512_loadu_ps(row[r] + j), q0, a0[r]);
            a1[r] = _mm512_fmadd_ps(_mm512_loadu_ps(row[r] + j + 16), q1, a1[r]);
        }
    }
    int odd = 0;
    if (j + 16 <= d) {
        __m512 q0 = _mm512_loadu_ps(q + j);
        for (int r = 0; r < R; r++) a0[r] = _mm512_fmadd_ps(_mm512_loadu_ps(row[r] + j), q0, a0[r]);
        j += 16;
        odd = 1;
    }
    if (j < d) {
        __mmask16 m = (__mmask16)((1u << (d - j)) - 1);
        __m512 q0 = _mm512_maskz_loadu_ps(m, q + j);
        for (int r = 0; r < R; r++) {
            __m512 x = _mm512_maskz_loadu_ps(m, row[r] + j);
            if (odd) a1[r] = _mm512_fmadd_ps(x, q0, a1[r]);
            else a0[r] = _mm512_fmadd_ps(x, q0, a0[r]);
        }
    }
    for (int r = 0; r < R; r++) out[r] = _mm512_reduce_add_ps(_mm512_add_ps(a0[r], a1[r]));
}

AVX512 void trove_scan_avx512(const float *rows, size_t count, size_t d, const float *query, float *scores) {
    size_t r = 0;
    for (; r + GROUP <= count; r += GROUP) {
        const float *row[GROUP] = {rows + r * d, rows + (r + 1) * d, rows + (r + 2) * d, rows + (r + 3) * d};
        prefetch_next(rows, r, count, d);
        rows512(GROUP, row, d, query, scores + r);
    }
    for (; r < count; r++) {
        const float *row[1] = {rows + r * d};
        rows512(1, row, d, query, scores + r);
    }
}

// ---- AVX2 ----

static AVX2 INLINE float sum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/// As `rows512`, with vectors of 8 and the masked last vector through `VMASKMOVPS`.
static AVX2 INLINE void rows256(int R, const float *const *row, size_t d, const float *q, float *out) {
    __m256 a0[GROUP], a1[GROUP];
    for (int r = 0; r < R; r++) a0[r] = a1[r] = _mm256_setzero_ps();
    size_t j = 0;
    for (; j + 16 <= d; j += 16) {
        __m256 q0 = _mm256_loadu_ps(q + j), q1 = _mm256_loadu_ps(q + j + 8);
        for (int r = 0; r < R; r++) {
            a0[r] = _mm256_fmadd_ps(_mm256_loadu_ps(row[r] + j), q0, a0[r]);
            a1[r] = _mm256_fmadd_ps(_mm256_loadu_ps(row[r] + j + 8), q1, a1[r]);
        }
    }
    int odd = 0;
    if (j + 8 <= d) {
        __m256 q0 = _mm256_loadu_ps(q + j);
        for (int r = 0; r < R; r++) a0[r] = _mm256_fmadd_ps(_mm256_loadu_ps(row[r] + j), q0, a0[r]);
        j += 8;
        odd = 1;
    }
    if (j < d) {
        // Lane i is loaded when i < d - j: its mask element's sign bit is set.
        __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(d - j)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 q0 = _mm256_maskload_ps(q + j, m);
        for (int r = 0; r < R; r++) {
            __m256 x = _mm256_maskload_ps(row[r] + j, m);
            if (odd) a1[r] = _mm256_fmadd_ps(x, q0, a1[r]);
            else a0[r] = _mm256_fmadd_ps(x, q0, a0[r]);
        }
    }
    for (int r = 0; r < R; r++) out[r] = sum256(_mm256_add_ps(a0[r], a1[r]));
}

AVX2 void trove_scan_avx2(const float *rows, size_t count, size_t d, const float *query, float *scores) {
    size_t r = 0;
    for (; r + GROUP <= count; r += GROUP) {
        const float *row[GROUP] = {rows + r * d, rows + (r + 1) * d, rows + (r + 2) * d, rows + (r + 3) * d};
        prefetch_next(rows, r, count, d);
        rows256(GROUP, row, d, query, scores + r);
    }
    for (; r < count; r++) {
        const float *row[1] = {rows + r * d};
        rows256(1, row, d, query, scores + r);
    }
}

// ---- int8 ----

#define AVX512BW __attribute__((target("avx512f,avx512bw")))

AVX512BW void trove_scan_int8_avx512(const int8_t *rows, size_t count, size_t d, const int8_t *query,
                                     int32_t *sums) {
    for (size_t r = 0; r < count; r++) {
        const int8_t *row = rows + r * d;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0;
        size_t j = 0;
        for (; j + 64 <= d; j += 64) {
            __m512i x0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(row + j)));
            __m512i x1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(row + j + 32)));
            __m512i q0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(query + j)));
            __m512i q1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(query + j + 32)));
            a0 = _mm512_add_epi32(a0, _mm512_madd_epi16(x0, q0));
            a1 = _mm512_add_epi32(a1, _mm512_madd_epi16(x1, q1));
        }
        int32_t sum = _mm512_reduce_add_epi32(_mm512_add_epi32(a0, a1));
        for (; j < d; j++) sum += (int32_t)row[j] * query[j];
        sums[r] = sum;
    }
}

AVX2 void trove_scan_int8_avx2(const int8_t *rows, size_t count, size_t d, const int8_t *query, int32_t *sums) {
    for (size_t r = 0; r < count; r++) {
        const int8_t *row = rows + r * d;
        __m256i a0 = _mm256_setzero_si256(), a1 = a0;
        size_t j = 0;
        for (; j + 32 <= d; j += 32) {
            __m256i x0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + j)));
            __m256i x1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + j + 16)));
            __m256i q0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(query + j)));
            __m256i q1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(query + j + 16)));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(x0, q0));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(x1, q1));
        }
        __m256i a = _mm256_add_epi32(a0, a1);
        __m128i h = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
        h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
        h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
        int32_t sum = _mm_cvtsi128_si32(h);
        for (; j < d; j++) sum += (int32_t)row[j] * query[j];
        sums[r] = sum;
    }
}

#endif

// ---- The int8 copy (every architecture) ----

void trove_quantize_int8(const float *values, size_t count, size_t d, int8_t *codes, float *scales) {
    for (size_t r = 0; r < count; r++) {
        const float *x = values + r * d;
        int8_t *c = codes + r * d;
        // A finite float's magnitude orders as its bits do; infinities and NaNs (bits ≥ 0x7f800000) count as 0.
        uint32_t largest = 0;
        for (size_t j = 0; j < d; j++) {
            uint32_t bits;
            __builtin_memcpy(&bits, x + j, sizeof bits);
            bits &= 0x7fffffffu;
            bits = bits < 0x7f800000u ? bits : 0;
            largest = bits > largest ? bits : largest;
        }
        float magnitude;
        __builtin_memcpy(&magnitude, &largest, sizeof magnitude);
        float scale = largest > 0 ? magnitude / 127 : 1;
        float inverse = 1 / scale;
        scales[r] = scale;
        for (size_t j = 0; j < d; j++) {
            float y = x[j] * inverse;
            y = y == y ? y : 0;
            y = y < -127 ? -127 : y > 127 ? 127 : y;
            c[j] = (int8_t)(int32_t)(y + (y < 0 ? -0.5f : 0.5f));
        }
    }
}
