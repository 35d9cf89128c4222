#include "trove_int16.h"
#include "panels.h"

#include <math.h>
#include <string.h>

static int pairs(int k) { return (k + 1) / 2; }

/// Bytes of one panel: its weights, then 16 scales.
static size_t panel_bytes(int k) { return (size_t)TROVE_INT16_PANEL * 4 * pairs(k) + TROVE_INT16_PANEL * 4; }

size_t trove_int16_packed_bytes(int n, int k) {
    return (size_t)((n + TROVE_INT16_PANEL - 1) / TROVE_INT16_PANEL) * panel_bytes(k);
}

void trove_int16_pack(int n, int k, const float *w, int ldw, void *packed) {
    int panels = (n + TROVE_INT16_PANEL - 1) / TROVE_INT16_PANEL, kp = 2 * pairs(k);
    for (int panel = 0; panel < panels; panel++) {
        int16_t *weights = (int16_t *)((char *)packed + panel * panel_bytes(k));
        float *scales = (float *)(weights + (size_t)TROVE_INT16_PANEL * kp);
        for (int column = 0; column < TROVE_INT16_PANEL; column++) {
            int j = panel * TROVE_INT16_PANEL + column;
            float largest = 0;
            if (j < n)
                for (int p = 0; p < k; p++) largest = fmaxf(largest, fabsf(w[(size_t)j * ldw + p]));
            float inverse = largest > 0 ? TROVE_INT16_LEVELS / largest : 0;
            for (int p = 0; p < kp; p++) {
                long q = j < n && p < k ? lrintf(w[(size_t)j * ldw + p] * inverse) : 0;
                // Float error can leave ±4095 by one.
                q = q > TROVE_INT16_LEVELS ? TROVE_INT16_LEVELS : q < -TROVE_INT16_LEVELS ? -TROVE_INT16_LEVELS : q;
                weights[((size_t)(p / 2) * TROVE_INT16_PANEL + column) * 2 + p % 2] = (int16_t)q;
            }
            scales[column] = largest / TROVE_INT16_LEVELS;
        }
    }
}

#if defined(__x86_64__)
#include "int16_lanes.h"

#define AVX2 __attribute__((target("avx2,fma")))

AVX2 void trove_int16_rows(int m, int k, const float *a, int lda, int16_t *out, float *scales) {
    int kp = 2 * pairs(k);
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (int r = 0; r < m; r++) {
        const float *row = a + (size_t)r * lda;
        int16_t *to = out + (size_t)r * kp;
        __m256 high = _mm256_setzero_ps();
        int p = 0;
        for (; p + 8 <= k; p += 8) high = _mm256_max_ps(high, _mm256_and_ps(magnitude, _mm256_loadu_ps(row + p)));
        float largest = 0;
        for (int q = p; q < k; q++) largest = fmaxf(largest, fabsf(row[q]));
        __m128 half = _mm_max_ps(_mm256_castps256_ps128(high), _mm256_extractf128_ps(high, 1));
        half = _mm_max_ps(half, _mm_movehl_ps(half, half));
        half = _mm_max_ss(half, _mm_shuffle_ps(half, half, 1));
        largest = fmaxf(largest, _mm_cvtss_f32(half));
        scales[r] = largest / TROVE_INT16_LEVELS;
        __m256 inverse = _mm256_set1_ps(largest > 0 ? TROVE_INT16_LEVELS / largest : 0);
        const __m256i top = _mm256_set1_epi32(TROVE_INT16_LEVELS), bottom = _mm256_set1_epi32(-TROVE_INT16_LEVELS);
        for (p = 0; p < kp; p += 8) {
            __m256i have = trove_first_lanes(k - p);
            __m256 x = _mm256_maskload_ps(row + p, have);
            // Round to nearest even, clamped to ±4095 (float error can leave it by one).
            __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(x, inverse));
            trove_store_int16(to + p, _mm256_max_epi32(_mm256_min_epi32(q, top), bottom), kp - p);
        }
    }
}

/// Pairs summed in int32 before the sums move into fp32: 64 · 2 · 4095² < 2³¹.
#define BLOCK 64

/// One int16 product's operands, for the walk's visits.
struct product {
    const int16_t *a;
    const float *scales, *bias;
    const char *packed;
    int kq, ldc;
    float *c;
};

// The tiles, the visit and the product, once per instruction set: AVX2's `VPMADDWD` then `VPADDD`, and AVX-VNNI's
// `VPDPWSSD`, which does both in one instruction (Alder Lake and later: AVX2 CPUs without AVX-512 that have it).
#define TARGET __attribute__((target("avx2,fma")))
#define SUFFIX avx2
#define MULTIPLY_ADD(acc, x, w) _mm256_add_epi32(acc, _mm256_madd_epi16(x, w))
#include "int16_tiles.h"
#undef TARGET
#undef SUFFIX
#undef MULTIPLY_ADD

#define TARGET __attribute__((target("avx2,fma,avxvnni")))
#define SUFFIX avxvnni
#define MULTIPLY_ADD(acc, x, w) _mm256_dpwssd_avx_epi32(acc, x, w)
#include "int16_tiles.h"

#else

// Other architectures never call these (the caller checks the CPU); they exist so that the package links.
void trove_int16_rows(int m, int k, const float *a, int lda, int16_t *out, float *scales) { __builtin_trap(); }
void trove_int16_gemm_avx2(int m, int n, int k, const int16_t *a, const float *scales, const void *packed,
                           const float *bias, float *c, int ldc) {
    __builtin_trap();
}
void trove_int16_gemm_avxvnni(int m, int n, int k, const int16_t *a, const float *scales, const void *packed,
                              const float *bias, float *c, int ldc) {
    __builtin_trap();
}

#endif
