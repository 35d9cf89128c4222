#include "trove_int8.h"
#include "panels.h"

#include <math.h>
#include <string.h>

static int quads(int k) { return (k + 3) / 4; }

/// Bytes of one panel: its weights, then 64 scales and 64 sums.
static size_t panel_bytes(int k) { return (size_t)TROVE_INT8_PANEL * 4 * quads(k) + TROVE_INT8_PANEL * 8; }

size_t trove_int8_packed_bytes(int n, int k) {
    return (size_t)((n + TROVE_INT8_PANEL - 1) / TROVE_INT8_PANEL) * panel_bytes(k);
}

void trove_int8_pack(int n, int k, const float *w, int ldw, void *packed) {
    int panels = (n + TROVE_INT8_PANEL - 1) / TROVE_INT8_PANEL, kq = quads(k);
    for (int panel = 0; panel < panels; panel++) {
        int8_t *weights = (int8_t *)packed + panel * panel_bytes(k);
        float *scales = (float *)(weights + (size_t)TROVE_INT8_PANEL * 4 * kq);
        int32_t *sums = (int32_t *)(scales + TROVE_INT8_PANEL);
        for (int column = 0; column < TROVE_INT8_PANEL; column++) {
            int j = panel * TROVE_INT8_PANEL + column;
            float largest = 0;
            if (j < n)
                for (int p = 0; p < k; p++) largest = fmaxf(largest, fabsf(w[(size_t)j * ldw + p]));
            float inverse = largest > 0 ? 127 / largest : 0;
            int32_t sum = 0;
            for (int p = 0; p < 4 * kq; p++) {
                int8_t q = 0;
                if (j < n && p < k) q = (int8_t)lrintf(w[(size_t)j * ldw + p] * inverse);
                weights[((size_t)(p / 4) * TROVE_INT8_PANEL + column) * 4 + p % 4] = q;
                sum += q;
            }
            scales[column] = largest / 127;
            sums[column] = sum;
        }
    }
}

void trove_int8_outliers(int m, int k, const float *a, int lda, int count, int *columns) {
    float largest[TROVE_INT8_MAX_K];
    for (int p = 0; p < k; p++) largest[p] = 0;
    for (int r = 0; r < m; r++)
        for (int p = 0; p < k; p++) largest[p] = fmaxf(largest[p], fabsf(a[(size_t)r * lda + p]));
    // A few picks from a few thousand: one scan each, the chosen one marked below zero.
    for (int c = 0; c < count; c++) {
        int best = -1;
        for (int p = 0; p < k; p++)
            if (largest[p] >= 0 && (best < 0 || largest[p] > largest[best])) best = p;
        largest[best] = -1;
    }
    int c = 0;
    for (int p = 0; p < k && c < count; p++)
        if (largest[p] < 0) columns[c++] = p;
}

void trove_int8_gather(int n, const float *w, int ldw, int count, const int *columns, float *out, int ldo) {
    for (int c = 0; c < count; c++)
        for (int j = 0; j < n; j++) out[(size_t)c * ldo + j] = w[(size_t)j * ldw + columns[c]];
}

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

static __mmask16 first(int count) {
    return count >= 16 ? (__mmask16)0xffff : count <= 0 ? 0 : (__mmask16)((1u << count) - 1);
}

AVX512 void trove_int8_rows(int m, int k, const float *a, int lda, int count, const int *columns, uint8_t *out,
                            float *scales, float *offsets, float *kept) {
    int kp = 4 * quads(k);
    float row[TROVE_INT8_MAX_K];
    for (int r = 0; r < m; r++) {
        memcpy(row, a + (size_t)r * lda, sizeof(float) * k);
        for (int c = 0; c < count; c++) {
            kept[(size_t)r * count + c] = row[columns[c]];
            row[columns[c]] = 0;
        }
        uint8_t *to = out + (size_t)r * kp;
        __m512 high = _mm512_set1_ps(-INFINITY), low = _mm512_set1_ps(INFINITY);
        for (int p = 0; p < k; p += 16) {
            __mmask16 have = first(k - p);
            high = _mm512_mask_max_ps(high, have, high, _mm512_maskz_loadu_ps(have, row + p));
            low = _mm512_mask_min_ps(low, have, low, _mm512_maskz_loadu_ps(have, row + p));
        }
        float top = _mm512_reduce_max_ps(high), bottom = _mm512_reduce_min_ps(low);
        scales[r] = (top - bottom) / 255;
        offsets[r] = bottom;
        __m512 inverse = _mm512_set1_ps(top > bottom ? 255 / (top - bottom) : 0);
        __m512 shift = _mm512_set1_ps(bottom);
        for (int p = 0; p < kp; p += 16) {
            __mmask16 have = first(k - p);
            __m512 x = _mm512_maskz_loadu_ps(have, row + p);
            // Round to nearest even; clamped to 0…255, which float error can leave by one.
            __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_sub_ps(x, shift), inverse));
            q = _mm512_maskz_max_epi32(have, q, _mm512_setzero_si512());
            _mm_mask_storeu_epi8(to + p, first(kp - p), _mm512_cvtusepi32_epi8(q));
        }
    }
}

/// R rows of A (quads at a, row stride kp) against one packed panel (`kq` quads deep) into C's columns 0..<columns.
static VNNI TILE_CODE inline __attribute__((always_inline)) void tile(int R, int kq, const uint8_t *a, int kp,
                                                             const float *rowScales, const float *rowOffsets,
                                                             int count, const float *kept, const float *outliers,
                                                             int ldo, const int8_t *panel, int columns,
                                                             const float *bias, float *c, int ldc) {
    __m512i acc[6][4];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < 4; v++) acc[r][v] = _mm512_setzero_si512();
    for (int q = 0; q < kq; q++) {
        const int8_t *b = panel + (size_t)q * 4 * TROVE_INT8_PANEL;
        __m512i w[4];
        for (int v = 0; v < 4; v++) w[v] = _mm512_loadu_si512(b + 64 * v);
        for (int r = 0; r < R; r++) {
            int32_t quad;
            memcpy(&quad, a + (size_t)r * kp + 4 * q, sizeof quad);
            __m512i x = _mm512_set1_epi32(quad);
            for (int v = 0; v < 4; v++) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x, w[v]);
        }
    }
    const float *scales = (const float *)(panel + (size_t)kq * 4 * TROVE_INT8_PANEL);
    const int32_t *sums = (const int32_t *)(scales + TROVE_INT8_PANEL);
#pragma clang loop unroll(full)
    for (int v = 0; v < 4; v++) {
        __mmask16 mask = first(columns - 16 * v);
        __m512 columnScales = _mm512_loadu_ps(scales + 16 * v);
        __m512 columnSums = _mm512_cvtepi32_ps(_mm512_loadu_si512(sums + 16 * v));
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++) {
            float *out = c + (size_t)r * ldc + 16 * v;
            // (scale · Σ q·w + offset · Σ w) in W's units, times W's scale; then the outliers in fp32.
            __m512 sum = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[r][v]), _mm512_set1_ps(rowScales[r]));
            sum = _mm512_mul_ps(_mm512_fmadd_ps(columnSums, _mm512_set1_ps(rowOffsets[r]), sum), columnScales);
            for (int o = 0; o < count; o++)
                sum = _mm512_fmadd_ps(_mm512_set1_ps(kept[(size_t)r * count + o]),
                                      _mm512_maskz_loadu_ps(mask, outliers + (size_t)o * ldo + 16 * v), sum);
            if (bias) sum = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(mask, bias + 16 * v));
            _mm512_mask_storeu_ps(out, mask, sum);
        }
    }
}

#define TILE(R)                                                                                                       \
    static VNNI TILE_CODE void tile_##R(int kq, const uint8_t *a, int kp, const float *rowScales,                      \
                              const float *rowOffsets, int count, const float *kept, const float *outliers, int ldo,   \
                              const int8_t *panel, int columns, const float *bias, float *c, int ldc) {                \
        tile(R, kq, a, kp, rowScales, rowOffsets, count, kept, outliers, ldo, panel, columns, bias, c, ldc);         \
    }
TILE(1) TILE(2) TILE(3) TILE(4) TILE(5) TILE(6)

/// One int8 product's operands and quantization, for the walk's visits.
struct product {
    const uint8_t *a;
    const float *scales, *offsets, *kept, *outliers, *bias;
    const int8_t *packed;
    int kq, count, ldo, ldc;
    float *c;
};

static VNNI void visit(const void *context, int i, int rows, int panel, int columns) {
    static void (*const tiles[7])(int, const uint8_t *, int, const float *, const float *, int, const float *,
                                  const float *, int, const int8_t *, int, const float *, float *, int) = {
        0, tile_1, tile_2, tile_3, tile_4, tile_5, tile_6};
    const struct product *p = context;
    int kp = 4 * p->kq;
    tiles[rows](p->kq, p->a + (size_t)i * kp, kp, p->scales + i, p->offsets + i, p->count,
                p->kept + (size_t)i * p->count, p->outliers + panel * TROVE_INT8_PANEL, p->ldo,
                p->packed + panel * panel_bytes(4 * p->kq), columns, p->bias ? p->bias + panel * TROVE_INT8_PANEL : 0,
                p->c + (size_t)i * p->ldc + panel * TROVE_INT8_PANEL, p->ldc);
}

VNNI void trove_int8_gemm(int m, int n, int k, const uint8_t *a, const float *scales, const float *offsets, int count,
                          const float *kept, const float *outlierWeights, int ldo, const void *packed,
                          const float *bias, float *c, int ldc) {
    struct product p = {a, scales, offsets, kept, outlierWeights, bias, packed, quads(k), count, ldo, ldc, c};
    trove_walk_panels(m, n, TROVE_INT8_PANEL, panel_bytes(k), visit, &p);
}

#else

// Other architectures never call these (the caller checks the CPU); they exist so that the package links.
void trove_int8_rows(int m, int k, const float *a, int lda, int count, const int *columns, uint8_t *out,
                     float *scales, float *offsets, float *kept) {
    __builtin_trap();
}
void trove_int8_gemm(int m, int n, int k, const uint8_t *a, const float *scales, const float *offsets, int count,
                     const float *kept, const float *outlierWeights, int ldo, const void *packed, const float *bias,
                     float *c, int ldc) {
    __builtin_trap();
}

#endif
