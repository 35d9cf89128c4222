#ifndef TROVE_INT16_H
#define TROVE_INT16_H

#include <stddef.h>
#include <stdint.h>

/// int16 products for a CPU with AVX2 and no AVX-512 (`VPMADDWD`: two s16·s16 products summed into each int32
/// lane, sixteen products an instruction against an fp32 FMA's eight). W is quantized once, per output column
/// (symmetric, max |w| to ±4095), A per batch, per row (symmetric, max |a| to ±4095): twelve bits a value, finer than
/// bf16's eight where a row's largest value is within 16× of the rest, as the encoder's are. int8 through
/// `VPMADDUBSW` was not taken: its u8·s8 pairs saturate at 16 bits unless one side keeps 7 bits, and 8 already moved
/// one set's ranking beyond the bound (BENCHMARKS.md#reduced-precision).
///
/// Sums stay exact: a pair is at most 2·4095² < 2²⁵, so 64 pairs fit an int32; the kernel moves its int32 sums into
/// fp32 ones every 64 pairs.
///
/// Packed layout of an n×k matrix W (the model file's `[out, in]`): panels of 16 output columns (the last padded
/// with zeros), each panel `[k/2][16 columns][2]` int16 (k rounded up to even, the pad zero), then its 16 column
/// scales (float). A panel is self-contained, so a lane can start at any.

/// Output columns per panel.
#define TROVE_INT16_PANEL 16
/// The largest quantized |value|, of W and of A.
#define TROVE_INT16_LEVELS 4095

/// Bytes of the packed copy of an n×k matrix.
size_t trove_int16_packed_bytes(int n, int k);

/// Quantizes and packs W (n rows of k floats, row stride ldw) into `packed` (`trove_int16_packed_bytes(n, k)`
/// bytes, 4-byte aligned). Plain C: runs on any CPU.
void trove_int16_pack(int n, int k, const float *w, int ldw, void *packed);

/// Quantizes m rows of k floats (row stride lda) into m rows of k rounded up to even int16 values (packed, the pad
/// a zero), each row's scale into `scales`. AVX2 only (the caller checks).
void trove_int16_rows(int m, int k, const float *a, int lda, int16_t *out, float *scales);

/// `C = A · Wᵀ + bias` (bias: n floats, one a column, or NULL for none): A is m rows of `trove_int16_rows`' output for
/// this k with their scales, W the packed n×k matrix (or a whole-panel slice of one), C m×n floats (row stride ldc).
/// Six rows of A against one 16-column panel in 12 of AVX2's 16 registers. AVX2 only (the caller checks).
void trove_int16_gemm_avx2(int m, int n, int k, const int16_t *a, const float *scales, const void *packed,
                           const float *bias, float *c, int ldc);

/// As `trove_int16_gemm_avx2`, with AVX-VNNI's `VPDPWSSD` (the products and their sum in one instruction) for a CPU
/// that has it (the caller checks); the same exact int32 sums.
void trove_int16_gemm_avxvnni(int m, int n, int k, const int16_t *a, const float *scales, const void *packed,
                              const float *bias, float *c, int ldc);

#endif
