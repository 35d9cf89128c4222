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

/// One attention head of an n-token sequence in int16, for the same CPUs (`Precision.int16`), in three calls: the
/// scores, their softmax, the mix. d, the head's width, is a multiple of 16; `scratch` holds
/// `trove_int16_head_scratch(n, d)` bytes (4-byte aligned) and carries each call's work to the next.
size_t trove_int16_head_scratch(int n, int d);

/// The scores: Q's and K's n rows (d floats each, rows ld apart) quantized per row as `trove_int16_rows` does, each
/// q·k summed exactly in int32, into n×n floats (row stride n) times their rows' scales and `scale` (which holds
/// log₂e, as the row loops' `softmaxRows` expects). AVX2 only.
void trove_int16_head_scores(int n, int d, float scale, const float *q, const float *k, int ld, float *scores,
                             void *scratch);

/// The softmax of the scores' rows, unnormalised (`softmaxRows`' 2^(x − max), by its exp2 polynomial), each weight to
/// 0…4095 into the scratch (the row's largest is 1, so one scale serves every row), each row's 1 / sum into
/// `inverseSums`. AVX2 only.
void trove_int16_head_softmax(int n, const float *scores, float *inverseSums, void *scratch);

/// The mix: the softmax's weights against V's n rows (d floats, rows ld apart) quantized per column, the products
/// summed exactly in int32 (moved into fp32 every 64 pairs), into n rows of out (d floats, row stride ldo), row r times
/// `factors[r]` (the softmax's 1 / sum). AVX2 only.
void trove_int16_head_mix(int n, int d, const float *factors, const float *v, int ld, float *out, int ldo,
                          void *scratch);

#endif
