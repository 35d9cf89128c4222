// AVX2 helpers of the int16 kernels (trove_int16.c, trove_int16_heads.c), x86-64 only.
#ifndef TROVE_INT16_LANES_H
#define TROVE_INT16_LANES_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/// The first `count` lanes set (none for count ≤ 0, all from 8).
static inline __attribute__((target("avx2"), always_inline)) __m256i trove_first_lanes(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// Stores eight int32 lanes, each within int16, as int16 values at `to`: all eight, or the first `count` when fewer.
static inline __attribute__((target("avx2"), always_inline)) void trove_store_int16(int16_t *to, __m256i values,
                                                                                     int count) {
    __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(values), _mm256_extracti128_si256(values, 1));
    if (count >= 8) {
        _mm_storeu_si128((__m128i *)to, packed);
        return;
    }
    int16_t kept[8];
    _mm_storeu_si128((__m128i *)kept, packed);
    memcpy(to, kept, sizeof(int16_t) * (size_t)count);
}

#endif
