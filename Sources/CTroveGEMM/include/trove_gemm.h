#ifndef TROVE_GEMM_H
#define TROVE_GEMM_H

/// `C = A · Wᵀ (+ bias) (+ C)` for row-major float matrices where A has few rows (a query's tokens): A is m×k (row
/// stride lda), W is n×k (row stride ldw: PyTorch's `[out, in]`, the model file's own layout), C is m×n (row stride
/// ldc). `bias` (n floats) may be NULL; with `accumulate` the product is added to C instead of replacing it.
///
/// A general sgemm packs W into its own layout on every call; for a one-query embedding that copy of all 42 MB of
/// weights cost more than the arithmetic (perf, BENCHMARKS.md). This reads W once, in place and in order, three rows
/// at a time against four rows of A, prefetching the next three rows while it works.
///
/// Only for a CPU with AVX2 and FMA (the caller checks). Each output is one sum of eight interleaved FMA chains.
void trove_sgemm_nt_avx2(int m, int n, int k, const float *a, int lda, const float *w, int ldw, const float *bias,
                         int accumulate, float *c, int ldc);

#endif
