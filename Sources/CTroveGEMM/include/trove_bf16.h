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

/// `C = A · Wᵀ` (or `C += A · Wᵀ` with `accumulate`): A is m rows of `trove_bf16_rows`' output for this k, W the
/// packed n×k matrix (or a whole-panel slice of one: its first panel at `packed`), C m×n floats (row stride ldc).
/// Six rows of A against one panel in 24 of the 32 registers; panels grouped so that a group stays in L2 while every
/// row of A passes it. AVX-512 BF16 only (the caller checks).
void trove_bf16_gemm(int m, int n, int k, const uint16_t *a, const uint16_t *packed, int accumulate, float *c,
                     int ldc);

#endif
