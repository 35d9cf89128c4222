#ifndef TROVE_INT8_H
#define TROVE_INT8_H

#include <stddef.h>
#include <stdint.h>

/// int8 products for a CPU with AVX-512 VNNI (`VPDPBUSD`: four u8·s8 products summed into each int32 lane, four
/// times an fp32 FMA's work per instruction). W is quantized once, per output column (symmetric, scale max|w|/127);
/// A per batch, per row (asymmetric: scale (max − min)/255 and offset min, stored as u8), except a few outlier
/// columns of A (the largest |a| of the batch: the encoder's hidden states have a few channels ten times the rest,
/// which would take a row's whole range), kept in fp32 and multiplied by W's matching fp32 columns. The offsets
/// come back in through each column's sum of quantized W, kept beside it.
///
/// Packed layout of an n×k matrix W (the model file's `[out, in]`): panels of 64 output columns (the last padded
/// with zeros), each panel `[k/4][64 columns][4]` int8 (k rounded up to a multiple of 4, the pad zero), then its 64
/// column scales (float) and 64 column sums of the quantized values (int32). A panel is self-contained, so a lane
/// can start at any.

/// Output columns per panel.
#define TROVE_INT8_PANEL 64
/// Columns of A kept in fp32 per product.
#define TROVE_INT8_OUTLIERS 8
/// The longest row of A (k) the row functions take.
#define TROVE_INT8_MAX_K 4096

/// Bytes of the packed copy of an n×k matrix.
size_t trove_int8_packed_bytes(int n, int k);

/// Quantizes and packs W (n rows of k floats, row stride ldw) into `packed` (`trove_int8_packed_bytes(n, k)`
/// bytes, 4-byte aligned). Plain C: runs on any CPU.
void trove_int8_pack(int n, int k, const float *w, int ldw, void *packed);

/// The `count` (at most `TROVE_INT8_OUTLIERS`, at most k) columns of A (m rows of k ≤ `TROVE_INT8_MAX_K` floats,
/// row stride lda) with the largest |value|, in ascending order, into `columns`. Plain C.
void trove_int8_outliers(int m, int k, const float *a, int lda, int count, int *columns);

/// `out[c][j] = w[j][columns[c]]` for the `count` columns and j < n: W's columns that meet A's outliers, as rows of
/// n floats `ldo` apart. Plain C.
void trove_int8_gather(int n, const float *w, int ldw, int count, const int *columns, float *out, int ldo);

/// Quantizes m rows of k ≤ `TROVE_INT8_MAX_K` floats (row stride lda) into m rows of k rounded up to a multiple of 4
/// bytes (packed; the pad meets W's zero pad), each row's scale and offset into `scales` and `offsets`; the `count`
/// outlier `columns` are quantized as zeros and their values go to `kept` (m rows of `count`). AVX-512 only (the
/// caller checks).
void trove_int8_rows(int m, int k, const float *a, int lda, int count, const int *columns, uint8_t *out,
                     float *scales, float *offsets, float *kept);

/// `C = A · Wᵀ + bias` (bias: n floats, one a column, or NULL for none): A is m rows of `trove_int8_rows`' output for
/// this k with their scales, offsets and `count` kept outliers, W the packed n×k matrix (or a whole-panel slice of
/// one), `outlierWeights` `trove_int8_gather`'s rows for the same columns of W (row stride ldo), C m×n floats (row
/// stride ldc). Six rows of A against one panel in 24 registers, like the bf16 kernel. AVX-512 VNNI only (the caller
/// checks).
void trove_int8_gemm(int m, int n, int k, const uint8_t *a, const float *scales, const float *offsets, int count,
                     const float *kept, const float *outlierWeights, int ldo, const void *packed, const float *bias,
                     float *c, int ldc);

#endif
