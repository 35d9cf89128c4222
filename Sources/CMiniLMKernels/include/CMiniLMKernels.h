#ifndef CMINILMKERNELS_H
#define CMINILMKERNELS_H

#include <stdbool.h>

/// Whether the CPU and the OS run the AVX-512 kernels below; false on other architectures.
bool trove_avx512_available(void);

/// `Kernels.softmaxRows` with AVX-512: each row becomes 2^(x − max) and inverse_sums[r] 1 / its sum.
void trove_softmax_rows_avx512(float *x, long rows, long columns, long stride, float *inverse_sums);

/// `Kernels.biasGELU` with AVX-512: x[r][j] = gelu(x[r][j] + bias[j]), the tanh approximation.
void trove_bias_gelu_avx512(float *x, long rows, long width, const float *bias);

#endif
