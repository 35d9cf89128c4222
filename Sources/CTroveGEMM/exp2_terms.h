#ifndef TROVE_EXP2_TERMS_H
#define TROVE_EXP2_TERMS_H

/// Cephes' exp2f polynomial on [-½, ½], highest power first (p = p·r + term, from 1.5353362e-4): the row loops'
/// `FastMath.exp2`, and the bf16 kernels' (the heads' softmax, the feed-forward product's GELU).
static const float trove_exp2_terms[7] = {1.5353362e-4f, 1.3398874e-3f, 9.6184374e-3f, 5.5503325e-2f,
                                          2.4022648e-1f, 6.9314720e-1f, 1};

#endif
