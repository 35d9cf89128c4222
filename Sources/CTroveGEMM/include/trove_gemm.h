#ifndef TROVE_GEMM_H
#define TROVE_GEMM_H

/// `C = A · Wᵀ (+ bias) (+ C)` for row-major float matrices where A has few rows (a query's tokens): A is m×k (row
/// stride lda), W is n×k (row stride ldw: PyTorch's `[out, in]`, the model file's own layout), C is m×n (row stride
/// ldc). `bias` (n floats) may be NULL; with `accumulate` the product is added to C instead of replacing it.
///
/// A general sgemm packs W into its own layout on every call; for a one-query embedding that copy of all 42 MB of
/// weights cost more than the arithmetic (perf, BENCHMARKS.md#query-embedding). This reads W once, in place and in
/// order, three rows at a time against four rows of A, prefetching the next three rows while it works.
///
/// Only for a CPU with AVX2 and FMA (the caller checks). Each output is one sum of eight interleaved FMA chains.
void trove_sgemm_nt_avx2(int m, int n, int k, const float *a, int lda, const float *w, int ldw, const float *bias,
                         int accumulate, float *c, int ldc);

/// As `trove_sgemm_nt_avx2`, for a CPU with AVX-512 (F and VL; the caller checks): five rows of A against four of
/// W in 20 of the 32 sixteen-lane registers, so a row loaded serves more products than eight-lane AVX2's 4 × 3.
void trove_sgemm_nt_avx512(int m, int n, int k, const float *a, int lda, const float *w, int ldw, const float *bias,
                           int accumulate, float *c, int ldc);
/// One attention head of a short sequence, the two products OpenBLAS's sgemm spent more on setting up than on
/// arithmetic (n×n×32, 144 calls a query). `scores` (n×n, packed) = scale · Q · Kᵀ, where row i of Q and K starts at
/// q + i·ld and k + i·ld; d (the head size) must be a multiple of 8. AVX2 and FMA only, as above.
void trove_head_scores_avx2(int n, int d, float scale, const float *q, const float *k, int ld, float *scores);

/// `out` (n×d, row stride ldo) = weights · V: row i is the sum over j of weights[i·n + j] times V's row j (at v + j·ld).
void trove_head_mix_avx2(int n, int d, const float *weights, const float *v, int ld, float *out, int ldo);

#endif
