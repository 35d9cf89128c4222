#ifndef TROVE_BF16_H
#define TROVE_BF16_H

#include <stddef.h>
#include <stdint.h>

/// bf16 products for a CPU with AVX-512 BF16 (`VDPBF16PS`: two bf16 products summed into each fp32 lane, twice the
/// work of an fp32 FMA per instruction). W is packed once (the weights), A is converted per batch (activations), and
/// every sum is kept in fp32.
///
/// Packed layout of an n×k matrix W (the model file's `[out, in]`): panels of 64 output columns (the last padded
/// with zeros), each panel k/2 pairs deep (k rounded up to even, padded with a zero), each pair row 64 columns × 2
/// bf16: `packed[panel][pair][column][2]`. One pair row of a panel is the four 64-byte vectors the kernel loads.

/// Output columns per panel.
#define TROVE_BF16_PANEL 64

/// bf16 values (uint16_t) that the packed copy of an n×k matrix holds.
size_t trove_bf16_packed_count(int n, int k);

/// Packs W (n rows of k floats, row stride ldw) into `packed` (`trove_bf16_packed_count(n, k)` values), rounding
/// to nearest even. Plain C: runs on any CPU (the cache is built where it is used, but tests build it anywhere).
void trove_bf16_pack(int n, int k, const float *w, int ldw, uint16_t *packed);

/// One float rounded to bf16, to nearest even (NaN stays NaN): what the packing and the row conversion do.
uint16_t trove_bf16_round(float value);

/// Converts m rows of k floats (row stride lda) into m rows of k rounded up to even bf16 values (packed, the pad a
/// zero), with `VCVTNEPS2BF16` (round to nearest even). AVX-512 BF16 only (the caller checks).
void trove_bf16_rows(int m, int k, const float *a, int lda, uint16_t *out);

/// `C = A · Wᵀ + bias` (bias: n floats, one a column, or NULL for none): A is m rows of `trove_bf16_rows`' output for
/// this k, W the packed n×k matrix (or a whole-panel slice of one: its first panel at `packed`), C m×n floats (row
/// stride ldc). Six rows of A against one panel in 24 of the 32 registers; panels grouped so that a group stays in L2
/// while every row of A passes it. AVX-512 BF16 only (the caller checks).
void trove_bf16_gemm(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias, float *c,
                     int ldc);

/// As `trove_bf16_gemm`, each value of C rounded to bf16 as it is stored (C m×n bf16 values, row stride ldc): the
/// QKV product of a batch whose attention heads run in bf16.
void trove_bf16_gemm_rounded(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                             uint16_t *c, int ldc);

/// As `trove_bf16_gemm_rounded`, each value through GELU (the tanh form, as the row loops') before it is rounded: a
/// bf16 batch's feed-forward product, whose result the next product reads as it is (no pass of GELU over fp32 values
/// and no conversion of them).
void trove_bf16_gemm_gelu(int m, int n, int k, const uint16_t *a, const uint16_t *packed, const float *bias,
                          uint16_t *c, int ldc);

/// One attention head of a batch's long sequence in bf16 (its two products of n×n×d ran in fp32 through OpenBLAS, a
/// fifth of a bf16 batch's time): `out` (n×d, row stride ldo) = softmax(scale · Q · Kᵀ, in powers of 2) · V, where
/// row i of Q, K and V (d bf16 values, d 16 or 32; ld even) starts at q, k and v + i·ld. The softmax's weights are
/// rounded to bf16, every sum is fp32; twelve rows at a time go through their scores, softmax and mix while they are
/// in L1. `scratch` holds `trove_bf16_head_scratch(n, d)` values. AVX-512 BF16 only (the caller checks).
size_t trove_bf16_head_scratch(int n, int d);
void trove_bf16_head(int n, int d, float scale, const uint16_t *q, const uint16_t *k, const uint16_t *v, int ld,
                     float *out, int ldo, uint16_t *scratch);

#endif
