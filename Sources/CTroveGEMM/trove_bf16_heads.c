#include "trove_bf16.h"
#include "exp2_terms.h"
#include "panels.h"

static int up(int x, int to) { return (x + to - 1) / to * to; }

/// Rows per tile: 12 rows × 2 vectors of sums in 24 of the 32 registers.
enum { ROWS = 12 };

/// The scratch's parts, in bf16 values from its start: K's key blocks, V's pairs of rows, one tile's rows of scores
/// (floats) and of weights.
struct parts {
    size_t values, scores, weights, end;
};

static struct parts parts(int n, int d) {
    struct parts p;
    p.values = (size_t)up(n, 32) * d;
    p.scores = up((int)(p.values + (size_t)up(n, 2) * d), 32);
    p.weights = p.scores + 2 * ROWS * (size_t)up(n, 32);
    p.end = p.weights + ROWS * (size_t)up(n, 2);
    return p;
}

size_t trove_bf16_head_scratch(int n, int d) { return parts(n, d).end; }

#if defined(__x86_64__)
#include <immintrin.h>

#define BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/// Keys per block of K: one 16-lane vector of scores.
enum { KEYS = 16 };

/// R rows of Q (`pairs` pairs each, rows ldq pairs apart, at q) against C blocks of 16 keys (each `pairs` deep, at k)
/// into R rows of scores, the first `columns` of them, times scale.
static BF16 TILE_CODE inline __attribute__((always_inline)) void scores_tile(int R, int C, int pairs, const uint32_t *q,
                                                                    int ldq, const uint32_t *k, float scale,
                                                                    int columns, float *s, int lds) {
    __m512 acc[ROWS][2];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) acc[r][c] = _mm512_setzero_ps();
    for (int p = 0; p < pairs; p++) {
        __m512bh w[2];
        for (int c = 0; c < C; c++) w[c] = (__m512bh)_mm512_loadu_si512(k + ((size_t)c * pairs + p) * KEYS);
        // Unrolled whole, so that the sums stay in registers (past the compiler's own limit they went to memory).
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++) {
            __m512bh x = (__m512bh)_mm512_set1_epi32((int)q[(size_t)r * ldq + p]);
            for (int c = 0; c < C; c++) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], x, w[c]);
        }
    }
    __m512 factor = _mm512_set1_ps(scale);
    for (int c = 0; c < C; c++) {
        int left = columns - KEYS * c;
        __mmask16 mask = left >= KEYS ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        for (int r = 0; r < R; r++)
            _mm512_mask_storeu_ps(s + (size_t)r * lds + KEYS * c, mask, _mm512_mul_ps(acc[r][c], factor));
    }
}

/// R rows of the weights (pairs per row, at a) against V's pairs of rows (C vectors of 16 columns each, at v) into R
/// rows of out, each times its factor.
static BF16 TILE_CODE inline __attribute__((always_inline)) void mix_tile(int R, int C, int pairs, const uint32_t *a,
                                                                 const uint16_t *v, const float *factors, float *out,
                                                                 int ldo) {
    __m512 acc[ROWS][2];
#pragma clang loop unroll(full)
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) acc[r][c] = _mm512_setzero_ps();
    for (int p = 0; p < pairs; p++) {
        __m512bh w[2];
        for (int c = 0; c < C; c++) w[c] = (__m512bh)_mm512_loadu_si512(v + ((size_t)p * C + c) * 2 * KEYS);
        // As above.
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++) {
            __m512bh x = (__m512bh)_mm512_set1_epi32((int)a[(size_t)r * pairs + p]);
            for (int c = 0; c < C; c++) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], x, w[c]);
        }
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            _mm512_storeu_ps(out + (size_t)r * ldo + KEYS * c, _mm512_mul_ps(acc[r][c], _mm512_set1_ps(factors[r])));
}

typedef void (*scores_fn)(int, const uint32_t *, int, const uint32_t *, float, int, float *, int);
typedef void (*mix_fn)(int, const uint32_t *, const uint16_t *, const float *, float *, int);

#define TILES(R)                                                                                                      \
    static BF16 TILE_CODE void scores_##R##_1(int pairs, const uint32_t *q, int ldq, const uint32_t *k, float scale,   \
                                    int columns, float *s, int lds) {                                                 \
        scores_tile(R, 1, pairs, q, ldq, k, scale, columns, s, lds);                                                  \
    }                                                                                                                 \
    static BF16 TILE_CODE void scores_##R##_2(int pairs, const uint32_t *q, int ldq, const uint32_t *k, float scale,   \
                                    int columns, float *s, int lds) {                                                 \
        scores_tile(R, 2, pairs, q, ldq, k, scale, columns, s, lds);                                                  \
    }                                                                                                                 \
    static BF16 TILE_CODE void mix_##R##_1(int pairs, const uint32_t *a, const uint16_t *v, const float *factors,      \
                                 float *out, int ldo) {                                                                \
        mix_tile(R, 1, pairs, a, v, factors, out, ldo);                                                               \
    }                                                                                                                 \
    static BF16 TILE_CODE void mix_##R##_2(int pairs, const uint32_t *a, const uint16_t *v, const float *factors,      \
                                 float *out, int ldo) {                                                                \
        mix_tile(R, 2, pairs, a, v, factors, out, ldo);                                                               \
    }
TILES(1)
TILES(2)
TILES(3)
TILES(4)
TILES(5)
TILES(6)
TILES(7)
TILES(8)
TILES(9)
TILES(10)
TILES(11)
TILES(12)

static const scores_fn scores_tiles[ROWS + 1][3] = {
    {0}, {0, scores_1_1, scores_1_2}, {0, scores_2_1, scores_2_2}, {0, scores_3_1, scores_3_2},
    {0, scores_4_1, scores_4_2}, {0, scores_5_1, scores_5_2}, {0, scores_6_1, scores_6_2},
    {0, scores_7_1, scores_7_2}, {0, scores_8_1, scores_8_2}, {0, scores_9_1, scores_9_2},
    {0, scores_10_1, scores_10_2}, {0, scores_11_1, scores_11_2}, {0, scores_12_1, scores_12_2}};

static const mix_fn mix_tiles[ROWS + 1][3] = {
    {0}, {0, mix_1_1, mix_1_2}, {0, mix_2_1, mix_2_2}, {0, mix_3_1, mix_3_2}, {0, mix_4_1, mix_4_2},
    {0, mix_5_1, mix_5_2}, {0, mix_6_1, mix_6_2}, {0, mix_7_1, mix_7_2}, {0, mix_8_1, mix_8_2},
    {0, mix_9_1, mix_9_2}, {0, mix_10_1, mix_10_2}, {0, mix_11_1, mix_11_2}, {0, mix_12_1, mix_12_2}};

/// 2^x for x ≤ 0 (down to -126; below, 2^-126) in the lanes of `mask`, zero in the others, to ~1 ulp: Cephes'
/// exp2f polynomial on [-½, ½], as the row loops' FastMath.exp2, the power of two put in by `VSCALEFPS`.
static BF16 inline __attribute__((always_inline)) __m512 exp2_ps(__mmask16 mask, __m512 x) {
    x = _mm512_max_ps(x, _mm512_set1_ps(-126));
    __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_sub_ps(x, n);
    __m512 p = _mm512_set1_ps(trove_exp2_terms[0]);
    for (int i = 1; i < 7; i++) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(trove_exp2_terms[i]));
    return _mm512_maskz_scalef_ps(mask, p, n);
}

/// R ≤ 6 rows of scores (n floats each, rows n apart) → 2^(x − the row's largest) in bf16 (np values a row, the pad
/// a zero), and each row's 1 / their sum (taken in fp32, before the rounding) in factors. The rows go through each
/// block of 16 keys together (one row's max and sum are chains of dependent instructions, six rows' are not), their
/// sums in registers: R is a constant in each of `softmax_rows`' calls.
static BF16 inline __attribute__((always_inline)) void softmax_group(int R, int n, int np, const float *scores,
                                                                     uint16_t *weights, float *factors) {
    __m512 shift[6], total[6];
#pragma clang loop unroll(full)
    for (int r = 0; r < R; r++) shift[r] = _mm512_set1_ps(-__builtin_inff());
    for (int j = 0; j < n; j += KEYS) {
        __mmask16 mask = n - j >= KEYS ? (__mmask16)0xffff : (__mmask16)((1u << (n - j)) - 1);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++)
            shift[r] = _mm512_max_ps(shift[r], _mm512_mask_loadu_ps(shift[r], mask, scores + (size_t)r * n + j));
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < R; r++) {
        shift[r] = _mm512_set1_ps(_mm512_reduce_max_ps(shift[r]));
        total[r] = _mm512_setzero_ps();
    }
    for (int j = 0; j < np; j += KEYS) {
        __mmask16 mask = n - j >= KEYS ? (__mmask16)0xffff : (__mmask16)((1u << (n - j)) - 1);
        __mmask16 room = np - j >= KEYS ? (__mmask16)0xffff : (__mmask16)((1u << (np - j)) - 1);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++) {
            __m512 x = _mm512_maskz_loadu_ps(mask, scores + (size_t)r * n + j);
            __m512 e = exp2_ps(mask, _mm512_sub_ps(x, shift[r]));
            total[r] = _mm512_add_ps(total[r], e);
            _mm256_mask_storeu_epi16(weights + (size_t)r * np + j, room, (__m256i)_mm512_cvtneps_pbh(e));
        }
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < R; r++) factors[r] = 1 / _mm512_reduce_add_ps(total[r]);
}

/// `softmax_group` over R rows, six at a time.
static BF16 void softmax_rows(int R, int n, int np, const float *scores, uint16_t *weights, float *factors) {
    for (int r = 0; r < R; r += 6) {
        const float *s = scores + (size_t)r * n;
        uint16_t *w = weights + (size_t)r * np;
        switch (R - r < 6 ? R - r : 6) {
        case 1: softmax_group(1, n, np, s, w, factors + r); break;
        case 2: softmax_group(2, n, np, s, w, factors + r); break;
        case 3: softmax_group(3, n, np, s, w, factors + r); break;
        case 4: softmax_group(4, n, np, s, w, factors + r); break;
        case 5: softmax_group(5, n, np, s, w, factors + r); break;
        default: softmax_group(6, n, np, s, w, factors + r); break;
        }
    }
}

/// K's rows as blocks of 16 keys, each pair of a block one vector: keys[block][pair][key], the keys past n zeros.
/// Sixteen rows (`pairs` ≤ 16 pairs each, rows ldp pairs apart) at a time, transposed in registers (the compiler made
/// the plain loop a scatter, slow on AMD).
static BF16 void key_blocks(int n, int pairs, int blocks, const uint32_t *rows, int ldp, uint32_t *keys) {
    __mmask16 held = (__mmask16)((1u << pairs) - 1);
    for (int block = 0; block < blocks; block++) {
        __m512i x[KEYS], y[KEYS];
        for (int key = 0; key < KEYS; key++) {
            int j = block * KEYS + key;
            x[key] = j < n ? _mm512_maskz_loadu_epi32(held, rows + (size_t)j * ldp) : _mm512_setzero_si512();
        }
        // 16×16 dwords: rows interleaved by dword, then by qword, then by 128-bit lane twice; x[p] is then pair p.
        for (int i = 0; i < KEYS; i += 2) {
            y[i] = _mm512_unpacklo_epi32(x[i], x[i + 1]);
            y[i + 1] = _mm512_unpackhi_epi32(x[i], x[i + 1]);
        }
        for (int i = 0; i < KEYS; i += 4)
            for (int h = 0; h < 2; h++) {
                x[i + 2 * h] = _mm512_unpacklo_epi64(y[i + h], y[i + h + 2]);
                x[i + 2 * h + 1] = _mm512_unpackhi_epi64(y[i + h], y[i + h + 2]);
            }
        for (int i = 0; i < KEYS; i += 8)
            for (int h = 0; h < 4; h++) {
                y[i + h] = _mm512_shuffle_i32x4(x[i + h], x[i + h + 4], 0x88);
                y[i + h + 4] = _mm512_shuffle_i32x4(x[i + h], x[i + h + 4], 0xdd);
            }
        for (int h = 0; h < 8; h++) {
            x[h] = _mm512_shuffle_i32x4(y[h], y[h + 8], 0x88);
            x[h + 8] = _mm512_shuffle_i32x4(y[h], y[h + 8], 0xdd);
        }
        for (int p = 0; p < pairs; p++) _mm512_storeu_si512(keys + ((size_t)block * pairs + p) * KEYS, x[p]);
    }
}

BF16 void trove_bf16_head(int n, int d, float scale, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                          int ld, float *out, int ldo, uint16_t *scratch) {
    int pairs = d / 2, ldp = ld / 2, np = up(n, 2), C = d / KEYS, blocks = up(n, 32) / KEYS;
    struct parts at = parts(n, d);
    uint32_t *keys = (uint32_t *)scratch;
    key_blocks(n, pairs, blocks, (const uint32_t *)k, ldp, keys);
    // V's rows two by two, interleaved: values[pair][column][2], each 16 columns of a pair one vector.
    uint16_t *values = scratch + at.values;
    const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                                6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    for (int p = 0; p < np / 2; p++)
        for (int c = 0; c < C; c++) {
            const uint16_t *x = v + (size_t)(2 * p) * ld + KEYS * c;
            __m256i even = _mm256_loadu_si256((const __m256i *)x);
            __m256i odd = 2 * p + 1 < n ? _mm256_loadu_si256((const __m256i *)(x + ld)) : _mm256_setzero_si256();
            __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512(even), odd, 1);
            _mm512_storeu_si512(values + ((size_t)p * C + c) * 2 * KEYS, _mm512_permutexvar_epi16(interleave, both));
        }
    // Twelve rows at a time: their scores, softmax and mix, in L1.
    const uint32_t *queries = (const uint32_t *)q;
    float *scores = (float *)(scratch + at.scores), factors[ROWS];
    uint16_t *weights = scratch + at.weights;
    for (int i = 0; i < n; i += ROWS) {
        int R = n - i < ROWS ? n - i : ROWS;
        for (int j = 0; j < n; j += 2 * KEYS) {
            int columns = n - j < 2 * KEYS ? n - j : 2 * KEYS;
            scores_tiles[R][columns > KEYS ? 2 : 1](pairs, queries + (size_t)i * ldp, ldp, keys + (size_t)j * pairs,
                                                    scale, columns, scores + j, n);
        }
        softmax_rows(R, n, np, scores, weights, factors);
        mix_tiles[R][C](np / 2, (const uint32_t *)weights, values, factors, out + (size_t)i * ldo, ldo);
    }
}

#else

// Other architectures never call this (the caller checks the CPU); it exists so that the package links.
void trove_bf16_head(int n, int d, float scale, const uint16_t *q, const uint16_t *k, const uint16_t *v, int ld,
                     float *out, int ldo, uint16_t *scratch) {
    __builtin_trap();
}

#endif
