#ifndef TROVE_SCAN_H
#define TROVE_SCAN_H

#include <stddef.h>
#include <stdint.h>

/// The warm vector scan's scoring: `scores[r] = Σ_j rows[r·d + j] · query[j]` for `count` contiguous row-major rows
/// of `d` floats. Memory-bound (every row is read once, the query stays in L1), so the kernels read four rows at a
/// time as one stream and keep the arithmetic far below the memory's pace.
///
/// Every row is summed in the same order whichever group it falls in (two accumulators by alternate vector, a masked
/// last vector, one reduction), so a row's score is the same bits in a full scan as scored alone (count 1): the
/// exact rescoring and the keyword leg's similarities then agree with the ranking to the last bit.
///
/// Each kernel is compiled with `__attribute__((target))`, so the rest of the binary stays baseline x86-64: the
/// caller checks the CPU first (TroveBLAS's `CPU.hasAVX512`, `CPU.hasAVX2`). Absent on other architectures.

/// AVX-512 F (16 floats per vector).
void trove_scan_avx512(const float *rows, size_t count, size_t d, const float *query, float *scores);

/// AVX2 with FMA (8 floats per vector).
void trove_scan_avx2(const float *rows, size_t count, size_t d, const float *query, float *scores);

/// The int8 copy's approximate pass (`--int8`): `sums[r] = Σ_j rows[r·d + j] · query[j]` in exact 32-bit integers
/// (|sum| ≤ 127² · d, which fits for d < 133 000), a quarter of the fp32 matrix's bytes per row. Integer sums are
/// exact, so every kernel returns the same numbers whatever its order.

/// AVX-512 BW (32 codes widened to 16-bit per step, `VPMADDWD`).
void trove_scan_int8_avx512(const int8_t *rows, size_t count, size_t d, const int8_t *query, int32_t *sums);

/// AVX2 (16 codes per step, `VPMADDWD`).
void trove_scan_int8_avx2(const int8_t *rows, size_t count, size_t d, const int8_t *query, int32_t *sums);

/// The int8 copy itself (every architecture): `scales[r]` = the largest finite |value| of row r over 127 (1 for a
/// row with none), `codes[r·d + j]` = value ÷ scale rounded to nearest (halves away from zero), clamped to ±127,
/// NaN coded 0. Plain loops the compiler vectorizes at the baseline (the largest magnitude is taken on the floats'
/// bits, an integer maximum), so the copy of a mapped matrix costs about one pass over it.
void trove_quantize_int8(const float *values, size_t count, size_t d, int8_t *codes, float *scales);

#endif
