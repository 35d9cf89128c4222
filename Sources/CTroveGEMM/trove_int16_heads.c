#include "trove_int16.h"
#include "exp2_terms.h"
#include "panels.h"

static int up(int x, int to) { return (x + to - 1) / to * to; }

/// Keys per block of K: one 8-lane vector of scores.
enum { KEYS = 8 };
/// Pairs of tokens summed in int32 before the mix moves its sums into fp32: 64 · 2 · 4095² < 2³¹.
enum { BLOCK = 64 };

/// The scratch's parts, in bytes from its start: the softmax's weights (int16 rows, n rounded up to even; first, so
/// that the softmax finds them without d), Q's rows (int16) and their scales, K's rows before and after their packing
/// into blocks of 8 keys and K's scales, V's pairs of rows and V's column scales.
struct parts {
    size_t weights, q, qScales, kRows, k, kScales, v, vScales, end;
};

static struct parts parts(int n, int d) {
    struct parts p;
    size_t n16 = (size_t)up(n, 16), n2 = (size_t)up(n, 2);
    p.weights = 0;
    p.q = up((int)((size_t)n * n2 * 2), 32);
    p.qScales = p.q + (size_t)n * d * 2;
    p.kRows = up((int)(p.qScales + (size_t)n * 4), 32);
    p.k = up((int)(p.kRows + (size_t)n * d * 2), 32);
    p.kScales = p.k + n16 * d * 2;
    p.v = up((int)(p.kScales + n16 * 4), 32);
    p.vScales = p.v + n2 * d * 2;
    p.end = p.vScales + (size_t)d * 4;
    return p;
}

size_t trove_int16_head_scratch(int n, int d) { return parts(n, d).end; }

#if defined(__x86_64__)
#include "int16_lanes.h"

#define AVX2 __attribute__((target("avx2,fma")))

/// R rows of Q (`pairs` pairs each, at q, with their scales) against C blocks of 8 keys (each `pairs` deep, at k, with
/// their scales) into R rows of scores, the first `columns` of them.
static AVX2 TILE_CODE inline __attribute__((always_inline)) void scores_tile(int R, int C, int pairs, const int32_t *q,
                                                                    const float *qScales, const int32_t *k,
                                                                    const float *kScales, int columns, float *s,
                                                                    int lds) {
    __m256i acc[6][2];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) acc[r][c] = _mm256_setzero_si256();
    for (int p = 0; p < pairs; p++) {
        __m256i w[2];
        for (int c = 0; c < C; c++) w[c] = _mm256_loadu_si256((const __m256i *)(k + ((size_t)c * pairs + p) * KEYS));
#pragma clang loop unroll(full)
        for (int r = 0; r < R; r++) {
            __m256i x = _mm256_set1_epi32(q[(size_t)r * pairs + p]);
            for (int c = 0; c < C; c++) acc[r][c] = _mm256_add_epi32(acc[r][c], _mm256_madd_epi16(x, w[c]));
        }
    }
    for (int c = 0; c < C; c++) {
        int left = columns - KEYS * c;
        __m256 scales = _mm256_loadu_ps(kScales + KEYS * c);
        for (int r = 0; r < R; r++) {
            __m256 value = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[r][c]), scales),
                                         _mm256_set1_ps(qScales[r]));
            // A masked store only for the last block's few keys: AMD's `VMASKMOVPS` store takes many cycles.
            if (left >= KEYS)
                _mm256_storeu_ps(s + (size_t)r * lds + KEYS * c, value);
            else
                _mm256_maskstore_ps(s + (size_t)r * lds + KEYS * c, trove_first_lanes(left), value);
        }
    }
}

/// R rows of the weights (pairs at a, rows `stride` pairs apart) against 16 columns of V's pairs of rows (at v, pairs
/// d apart) into R rows of out, each column times its scale and each row times its factor.
static AVX2 TILE_CODE inline __attribute__((always_inline)) void mix_tile(int R, int pairs, const int32_t *a, int stride,
                                                                 const int32_t *v, int d, const float *scales,
                                                                 const float *factors, float *out, int ldo) {
    __m256 sums[6][2];
    for (int r = 0; r < R; r++) sums[r][0] = sums[r][1] = _mm256_setzero_ps();
    for (int start = 0; start < pairs; start += BLOCK) {
        int end = start + BLOCK < pairs ? start + BLOCK : pairs;
        __m256i acc[6][2];
        for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
        for (int p = start; p < end; p++) {
            __m256i w0 = _mm256_loadu_si256((const __m256i *)(v + (size_t)p * d));
            __m256i w1 = _mm256_loadu_si256((const __m256i *)(v + (size_t)p * d + 8));
#pragma clang loop unroll(full)
            for (int r = 0; r < R; r++) {
                __m256i x = _mm256_set1_epi32(a[(size_t)r * stride + p]);
                acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
                acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
            }
        }
        for (int r = 0; r < R; r++)
            for (int c = 0; c < 2; c++) sums[r][c] = _mm256_add_ps(sums[r][c], _mm256_cvtepi32_ps(acc[r][c]));
    }
    for (int c = 0; c < 2; c++) {
        __m256 columnScales = _mm256_loadu_ps(scales + 8 * c);
        for (int r = 0; r < R; r++)
            _mm256_storeu_ps(out + (size_t)r * ldo + 8 * c,
                             _mm256_mul_ps(_mm256_mul_ps(sums[r][c], columnScales), _mm256_set1_ps(factors[r])));
    }
}

typedef void (*scores_fn)(int, const int32_t *, const float *, const int32_t *, const float *, int, float *, int);
typedef void (*mix_fn)(int, const int32_t *, int, const int32_t *, int, const float *, const float *, float *, int);

#define TILES(R)                                                                                                      \
    static AVX2 TILE_CODE void scores_##R##_1(int pairs, const int32_t *q, const float *qs, const int32_t *k,         \
                                              const float *ks, int columns, float *s, int lds) {                      \
        scores_tile(R, 1, pairs, q, qs, k, ks, columns, s, lds);                                                      \
    }                                                                                                                 \
    static AVX2 TILE_CODE void scores_##R##_2(int pairs, const int32_t *q, const float *qs, const int32_t *k,         \
                                              const float *ks, int columns, float *s, int lds) {                      \
        scores_tile(R, 2, pairs, q, qs, k, ks, columns, s, lds);                                                      \
    }                                                                                                                 \
    static AVX2 TILE_CODE void mix_##R(int pairs, const int32_t *a, int stride, const int32_t *v, int d,              \
                                       const float *scales, const float *factors, float *out, int ldo) {              \
        mix_tile(R, pairs, a, stride, v, d, scales, factors, out, ldo);                                               \
    }
TILES(1) TILES(2) TILES(3) TILES(4) TILES(5) TILES(6)

static const scores_fn scores_tiles[7][3] = {{0},
                                             {0, scores_1_1, scores_1_2},
                                             {0, scores_2_1, scores_2_2},
                                             {0, scores_3_1, scores_3_2},
                                             {0, scores_4_1, scores_4_2},
                                             {0, scores_5_1, scores_5_2},
                                             {0, scores_6_1, scores_6_2}};
static const mix_fn mix_tiles[7] = {0, mix_1, mix_2, mix_3, mix_4, mix_5, mix_6};

AVX2 void trove_int16_head_scores(int n, int d, float scale, const float *q, const float *k, int ld, float *scores,
                                  void *scratch) {
    struct parts at = parts(n, d);
    char *base = scratch;
    int pairs = d / 2, blocks = (n + KEYS - 1) / KEYS;
    int16_t *qRows = (int16_t *)(base + at.q), *kRows = (int16_t *)(base + at.kRows);
    float *qScales = (float *)(base + at.qScales), *kScales = (float *)(base + at.kScales);
    int32_t *packed = (int32_t *)(base + at.k);
    trove_int16_rows(n, d, q, ld, qRows, qScales);
    trove_int16_rows(n, d, k, ld, kRows, kScales);
    for (int i = 0; i < n; i++) qScales[i] *= scale;
    for (int j = n; j < blocks * KEYS; j++) kScales[j] = 0;
    // K's rows into blocks of 8 keys, pair by pair (the last block's missing keys zero).
    const int32_t *kPairs = (const int32_t *)kRows;
    for (int b = 0; b < blocks; b++)
        for (int p = 0; p < pairs; p++)
            for (int lane = 0; lane < KEYS; lane++) {
                int j = b * KEYS + lane;
                packed[((size_t)b * pairs + p) * KEYS + lane] = j < n ? kPairs[(size_t)j * pairs + p] : 0;
            }
    const int32_t *qPairs = (const int32_t *)qRows;
    for (int i = 0; i < n; i += 6) {
        int rows = n - i < 6 ? n - i : 6;
        for (int b = 0; b < blocks; b += 2) {
            int C = blocks - b < 2 ? 1 : 2;
            scores_tiles[rows][C](pairs, qPairs + (size_t)i * pairs, qScales + i, packed + (size_t)b * pairs * KEYS,
                                  kScales + b * KEYS, n - b * KEYS, scores + (size_t)i * n + b * KEYS, n);
        }
    }
}

/// 2^x for x ≤ 0 (down to -126; below, 2^-126): Cephes' exp2f polynomial on [-½, ½], as the row loops'
/// FastMath.exp2, the power of two put into the exponent's bits.
static AVX2 inline __attribute__((always_inline)) __m256 exp2_ps(__m256 x) {
    x = _mm256_max_ps(x, _mm256_set1_ps(-126));
    __m256 n = _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_sub_ps(x, n);
    __m256 p = _mm256_set1_ps(trove_exp2_terms[0]);
    for (int i = 1; i < 7; i++) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(trove_exp2_terms[i]));
    __m256i power = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(power));
}

AVX2 void trove_int16_head_softmax(int n, const float *scores, float *inverseSums, void *scratch) {
    int n2 = up(n, 2);
    int16_t *a = (int16_t *)scratch;
    const __m256 levels = _mm256_set1_ps(TROVE_INT16_LEVELS);
    const __m256i top = _mm256_set1_epi32(TROVE_INT16_LEVELS);
    for (int i = 0; i < n; i++) {
        const float *row = scores + (size_t)i * n;
        int16_t *to = a + (size_t)i * n2;
        __m256 largest = _mm256_set1_ps(-__builtin_inff());
        int j = 0;
        for (; j + 8 <= n; j += 8) largest = _mm256_max_ps(largest, _mm256_loadu_ps(row + j));
        if (j < n) {
            __m256i have = trove_first_lanes(n - j);
            __m256 x = _mm256_blendv_ps(largest, _mm256_maskload_ps(row + j, have), _mm256_castsi256_ps(have));
            largest = _mm256_max_ps(largest, x);
        }
        __m128 half = _mm_max_ps(_mm256_castps256_ps128(largest), _mm256_extractf128_ps(largest, 1));
        half = _mm_max_ps(half, _mm_movehl_ps(half, half));
        half = _mm_max_ss(half, _mm_shuffle_ps(half, half, 1));
        __m256 shift = _mm256_broadcastss_ps(half);
        __m256 total = _mm256_setzero_ps();
        // Each weight 2^(x − max) to 0…4095 (the row's largest is 1), an odd row's pad zero.
        for (j = 0; j < n2; j += 8) {
            __m256i have = trove_first_lanes(n - j);
            __m256 p = _mm256_and_ps(exp2_ps(_mm256_sub_ps(_mm256_maskload_ps(row + j, have), shift)),
                                     _mm256_castsi256_ps(have));
            total = _mm256_add_ps(total, p);
            trove_store_int16(to + j, _mm256_min_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(p, levels)), top), n2 - j);
        }
        __m128 sum = _mm_add_ps(_mm256_castps256_ps128(total), _mm256_extractf128_ps(total, 1));
        sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
        sum = _mm_add_ss(sum, _mm_shuffle_ps(sum, sum, 1));
        inverseSums[i] = 1 / _mm_cvtss_f32(sum);
    }
}

AVX2 void trove_int16_head_mix(int n, int d, const float *factors, const float *v, int ld, float *out, int ldo,
                               void *scratch) {
    struct parts at = parts(n, d);
    char *base = scratch;
    int n2 = up(n, 2), pairs = n2 / 2;
    const int32_t *aPairs = (const int32_t *)(base + at.weights);
    int32_t *vPairs = (int32_t *)(base + at.v);
    float *scales = (float *)(base + at.vScales);
    const __m256 levels = _mm256_set1_ps(TROVE_INT16_LEVELS);
    // V per column (symmetric, max |v| to ±4095), eight columns at a time, into pairs of rows: [pair][column] as an
    // int16 pair (an odd n's last pair padded with a zero row).
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256i vTop = _mm256_set1_epi32(TROVE_INT16_LEVELS), vBottom = _mm256_set1_epi32(-TROVE_INT16_LEVELS);
    const __m256i low = _mm256_set1_epi32(0xffff);
    for (int c = 0; c < d; c += 8) {
        __m256 largest = _mm256_setzero_ps();
        for (int j = 0; j < n; j++)
            largest = _mm256_max_ps(largest, _mm256_and_ps(magnitude, _mm256_loadu_ps(v + (size_t)j * ld + c)));
        __m256 inverse = _mm256_blendv_ps(
            _mm256_setzero_ps(), _mm256_div_ps(levels, largest), _mm256_cmp_ps(largest, _mm256_setzero_ps(), _CMP_GT_OQ));
        _mm256_storeu_ps(scales + c, _mm256_div_ps(_mm256_div_ps(largest, levels), levels));
        for (int j = 0; j < n2; j += 2) {
            __m256i pair[2];
            for (int half = 0; half < 2; half++) {
                __m256 x = j + half < n ? _mm256_loadu_ps(v + (size_t)(j + half) * ld + c) : _mm256_setzero_ps();
                __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(x, inverse));
                pair[half] = _mm256_max_epi32(_mm256_min_epi32(q, vTop), vBottom);
            }
            __m256i both = _mm256_or_si256(_mm256_and_si256(pair[0], low), _mm256_slli_epi32(pair[1], 16));
            _mm256_storeu_si256((__m256i *)(vPairs + (size_t)(j / 2) * d + c), both);
        }
    }
    for (int column = 0; column < d; column += 16)
        for (int i = 0; i < n; i += 6) {
            int rows = n - i < 6 ? n - i : 6;
            mix_tiles[rows](pairs, aPairs + (size_t)i * pairs, pairs, vPairs + column, d, scales + column, factors + i,
                            out + (size_t)i * ldo + column, ldo);
        }
}

#else

// Other architectures never call these (the caller checks the CPU); they exist so that the package links.
void trove_int16_head_scores(int n, int d, float scale, const float *q, const float *k, int ld, float *scores,
                             void *scratch) {
    __builtin_trap();
}
void trove_int16_head_softmax(int n, const float *scores, float *inverseSums, void *scratch) { __builtin_trap(); }
void trove_int16_head_mix(int n, int d, const float *factors, const float *v, int ld, float *out, int ldo,
                          void *scratch) {
    __builtin_trap();
}

#endif
