#include "trove_bf16.h"
#include "exp2_terms.h"
#include "panels.h"

#include <string.h>

static int even(int k) { return (k + 1) & ~1; }

size_t trove_bf16_packed_count(int n, int k) {
    size_t panels = (size_t)(n + TROVE_BF16_PANEL - 1) / TROVE_BF16_PANEL;
    return panels * TROVE_BF16_PANEL * (size_t)even(k);
}

uint16_t trove_bf16_round(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    // A NaN keeps its sign and stays a NaN (a quiet one), which rounding could otherwise carry into infinity.
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40);
    bits += 0x7fffu + ((bits >> 16) & 1);
    return (uint16_t)(bits >> 16);
}

void trove_bf16_pack(int n, int k, const float *w, int ldw, uint16_t *packed) {
    int kp = even(k);
    int panels = (n + TROVE_BF16_PANEL - 1) / TROVE_BF16_PANEL;
    for (int panel = 0; panel < panels; panel++) {
        uint16_t *out = packed + (size_t)panel * TROVE_BF16_PANEL * kp;
        for (int pair = 0; pair < kp / 2; pair++)
            for (int column = 0; column < TROVE_BF16_PANEL; column++)
                for (int half = 0; half < 2; half++) {
                    int j = panel * TROVE_BF16_PANEL + column, p = 2 * pair + half;
                    *out++ = j < n && p < k ? trove_bf16_round(w[(size_t)j * ldw + p]) : 0;
                }
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

#define BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

BF16 void trove_bf16_rows(int m, int k, const float *a, int lda, uint16_t *out) {
    int kp = even(k);
    for (int r = 0; r < m; r++) {
        const float *row = a + (size_t)r * lda;
        uint16_t *to = out + (size_t)r * kp;
        for (int p = 0; p < kp; p += 16) {
            int have = k - p < 16 ? k - p : 16, room = kp - p < 16 ? kp - p : 16;
            __m512 x = _mm512_maskz_loadu_ps((__mmask16)((1u << have) - 1), row + p);
            __m256i y = (__m256i)_mm512_cvtneps_pbh(x);
            _mm256_mask_storeu_epi16(to + p, (__mmask16)((1u << room) - 1), y);
        }
    }
}

/// GELU with the tanh approximation: the row loops' `FastMath.gelu` (x / (2^u + 1), u = -2·√(2/π)·log₂e·(x +
/// 0.044715x³), 2^u by Cephes' exp2f polynomial) in the same operations and order, none fused, so that each value is
/// the one the fp32 row loop gives.
static BF16 inline __attribute__((always_inline)) __m512 gelu_ps(__m512 x) {
#pragma clang fp contract(off)
    __m512 cubic = _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(x, x), _mm512_set1_ps(0.044715f)), _mm512_set1_ps(1));
    __m512 u = _mm512_mul_ps(_mm512_mul_ps(x, cubic), _mm512_set1_ps(-2.3022082f));
    u = _mm512_max_ps(_mm512_min_ps(u, _mm512_set1_ps(127)), _mm512_set1_ps(-126));
    __m512 n = _mm512_roundscale_ps(u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_sub_ps(u, n);
    __m512 p = _mm512_set1_ps(trove_exp2_terms[0]);
    for (int i = 1; i < 7; i++) p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(trove_exp2_terms[i]));
    return _mm512_div_ps(x, _mm512_add_ps(_mm512_scalef_ps(p, n), _mm512_set1_ps(1)));
}

/// R rows of A (pairs at a, row stride kp) against one packed panel (`pairs` deep) into C's columns 0..<columns: into
/// c, or with `rounded` (c NULL) rounded to bf16 there, with `gelu` through GELU first. `TILE_CODE`: the
/// accumulators' zeroing stays in registers (the compiler made it a memset of the whole array on the stack every
/// tile, 1.6 % of a bf16 run).
static BF16 TILE_CODE inline __attribute__((always_inline)) void tile(int R, int pairs, const uint16_t *a, int kp,
                                                             const uint16_t *panel, int columns, const float *bias,
                                                             float *c, uint16_t *rounded, int gelu, int ldc) {
    __m512 acc[6][4];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < 4; v++) acc[r][v] = _mm512_setzero_ps();
    for (int q = 0; q < pairs; q++) {
        const uint16_t *b = panel + (size_t)q * 2 * TROVE_BF16_PANEL;
        __m512bh w[4];
        for (int v = 0; v < 4; v++) w[v] = (__m512bh)_mm512_loadu_si512(b + 32 * v);
        for (int r = 0; r < R; r++) {
            int32_t pair;
            memcpy(&pair, a + (size_t)r * kp + 2 * q, sizeof pair);
            __m512bh x = (__m512bh)_mm512_set1_epi32(pair);
            for (int v = 0; v < 4; v++) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], x, w[v]);
        }
    }
#pragma clang loop unroll(full)
    for (int v = 0; v < 4; v++) {
        int left = columns - 16 * v;
        __mmask16 mask = left >= 16 ? (__mmask16)0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++) {
            __m512 sum = acc[r][v];
            if (bias) sum = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(mask, bias + 16 * v));
            if (gelu) sum = gelu_ps(sum);
            if (rounded)
                _mm256_mask_storeu_epi16(rounded + (size_t)r * ldc + 16 * v, mask, (__m256i)_mm512_cvtneps_pbh(sum));
            else
                _mm512_mask_storeu_ps(c + (size_t)r * ldc + 16 * v, mask, sum);
        }
    }
}

#define TILE(R)                                                                                                       \
    static BF16 TILE_CODE void tile_##R(int pairs, const uint16_t *a, int kp, const uint16_t *panel, int columns,      \
                              const float *bias, float *c, uint16_t *rounded, int gelu, int ldc) {                    \
        tile(R, pairs, a, kp, panel, columns, bias, c, rounded, gelu, ldc);                                           \
    }
TILE(1)
TILE(2)
TILE(3)
TILE(4)
TILE(5)
TILE(6)

/// One product's operands, for the walk's visits.
struct product {
    const uint16_t *a, *packed;
    const float *bias;
    int kp, ldc;
    float *c;
    uint16_t *rounded;
    int gelu;
};

static BF16 void visit(const void *context, int i, int rows, int panel, int columns) {
    static void (*const tiles[7])(int, const uint16_t *, int, const uint16_t *, int, const float *, float *,
                                  uint16_t *, int, int) = {0, tile_1, tile_2, tile_3, tile_4, tile_5, tile_6};
    const struct product *p = context;
    size_t at = (size_t)i * p->ldc + panel * TROVE_BF16_PANEL;
    tiles[rows](p->kp / 2, p->a + (size_t)i * p->kp, p->kp, p->packed + (size_t)panel * TROVE_BF16_PANEL * p->kp,
                columns, p->bias ? p->bias + panel * TROVE_BF16_PANEL : 0, p->c ? p->c + at : 0,
                p->rounded ? p->rounded + at : 0, p->gelu, p->ldc);
}

BF16 void trove_bf16_gemm(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                          float *c, int ldc) {
    struct product p = {a, packed, bias, even(k), ldc, c, 0, 0};
    trove_walk_panels(m, n, TROVE_BF16_PANEL, (size_t)TROVE_BF16_PANEL * even(k) * 2, visit, &p);
}

BF16 void trove_bf16_gemm_rounded(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                                  uint16_t *c, int ldc) {
    struct product p = {a, packed, bias, even(k), ldc, 0, c, 0};
    trove_walk_panels(m, n, TROVE_BF16_PANEL, (size_t)TROVE_BF16_PANEL * even(k) * 2, visit, &p);
}

BF16 void trove_bf16_gemm_gelu(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                               uint16_t *c, int ldc) {
    struct product p = {a, packed, bias, even(k), ldc, 0, c, 1};
    trove_walk_panels(m, n, TROVE_BF16_PANEL, (size_t)TROVE_BF16_PANEL * even(k) * 2, visit, &p);
}

#else

// Other architectures never call these (the caller checks the CPU); they exist so that the package links.
void trove_bf16_rows(int m, int k, const float *a, int lda, uint16_t *out) { __builtin_trap(); }
void trove_bf16_gemm(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias, float *c,
                     int ldc) {
    __builtin_trap();
}
void trove_bf16_gemm_rounded(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                             uint16_t *c, int ldc) {
    __builtin_trap();
}
void trove_bf16_gemm_gelu(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                          uint16_t *c, int ldc) {
    __builtin_trap();
}

#endif
