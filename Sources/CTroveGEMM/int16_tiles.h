// The int16 product's tiles for one instruction set: included twice by trove_int16.c (no include guard), with
// TARGET (the function attribute), SUFFIX (the names' ending) and MULTIPLY_ADD(acc, x, w) (acc plus x and w's
// pairwise products, as int32) set.

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define NAME(name) CONCAT(name, CONCAT(_, SUFFIX))

/// R rows of A (pairs at a, row stride kp) against one packed panel (`kq` pairs deep) into C's columns 0..<columns.
static TARGET inline __attribute__((always_inline)) void NAME(tile)(int R, int kq, const int16_t *a, int kp,
                                                                    const float *rowScales, const int16_t *panel,
                                                                    int columns, const float *bias, float *c,
                                                                    int ldc) {
    __m256 sums[6][2];
    for (int r = 0; r < R; r++) sums[r][0] = sums[r][1] = _mm256_setzero_ps();
    for (int start = 0; start < kq; start += BLOCK) {
        int end = start + BLOCK < kq ? start + BLOCK : kq;
        __m256i acc[6][2];
        for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
        for (int q = start; q < end; q++) {
            const int16_t *b = panel + (size_t)q * 2 * TROVE_INT16_PANEL;
            __m256i w0 = _mm256_loadu_si256((const __m256i *)b), w1 = _mm256_loadu_si256((const __m256i *)(b + 16));
            for (int r = 0; r < R; r++) {
                int32_t pair;
                memcpy(&pair, a + (size_t)r * kp + 2 * q, sizeof pair);
                __m256i x = _mm256_set1_epi32(pair);
                acc[r][0] = MULTIPLY_ADD(acc[r][0], x, w0);
                acc[r][1] = MULTIPLY_ADD(acc[r][1], x, w1);
            }
        }
        for (int r = 0; r < R; r++)
            for (int v = 0; v < 2; v++) sums[r][v] = _mm256_add_ps(sums[r][v], _mm256_cvtepi32_ps(acc[r][v]));
    }
    const float *scales = (const float *)(panel + (size_t)kq * 2 * TROVE_INT16_PANEL);
    for (int v = 0; v < 2; v++) {
        int left = columns - 8 * v;
        if (left <= 0) break;
        __m256i mask = trove_first_lanes(left);
        __m256 columnScales = _mm256_loadu_ps(scales + 8 * v);
        for (int r = 0; r < R; r++) {
            float *out = c + (size_t)r * ldc + 8 * v;
            __m256 sum = _mm256_mul_ps(_mm256_mul_ps(sums[r][v], columnScales), _mm256_set1_ps(rowScales[r]));
            if (bias) sum = _mm256_add_ps(sum, _mm256_maskload_ps(bias + 8 * v, mask));
            // A masked store only for a panel's last few columns: AMD's `VMASKMOVPS` store takes many cycles.
            if (left >= 8)
                _mm256_storeu_ps(out, sum);
            else
                _mm256_maskstore_ps(out, mask, sum);
        }
    }
}

#define TILE(R)                                                                                                       \
    static TARGET void NAME(tile_##R)(int kq, const int16_t *a, int kp, const float *rowScales,                      \
                                      const int16_t *panel, int columns, const float *bias, float *c, int ldc) {     \
        NAME(tile)(R, kq, a, kp, rowScales, panel, columns, bias, c, ldc);                                            \
    }
TILE(1) TILE(2) TILE(3) TILE(4) TILE(5) TILE(6)
#undef TILE

static TARGET void NAME(visit)(const void *context, int i, int rows, int panel, int columns) {
    static void (*const tiles[7])(int, const int16_t *, int, const float *, const int16_t *, int, const float *,
                                  float *, int) = {0,           NAME(tile_1), NAME(tile_2), NAME(tile_3),
                                          NAME(tile_4), NAME(tile_5), NAME(tile_6)};
    const struct product *p = context;
    int kp = 2 * p->kq;
    tiles[rows](p->kq, p->a + (size_t)i * kp, kp, p->scales + i,
                (const int16_t *)(p->packed + panel * panel_bytes(kp)), columns,
                p->bias ? p->bias + panel * TROVE_INT16_PANEL : 0,
                p->c + (size_t)i * p->ldc + panel * TROVE_INT16_PANEL, p->ldc);
}

TARGET void NAME(trove_int16_gemm)(int m, int n, int k, const int16_t *a, const float *scales, const void *packed,
                                   const float *bias, float *c, int ldc) {
    struct product p = {a, scales, bias, packed, pairs(k), ldc, c};
    trove_walk_panels(m, n, TROVE_INT16_PANEL, panel_bytes(k), NAME(visit), &p);
}

#undef NAME
#undef CONCAT
#undef CONCAT_
