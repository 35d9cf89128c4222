// The matrix products of one query's MiniLM pass, alone: six layers of Q, K, V, output (384×384), intermediate
// (1536×384) and feed-forward (384×1536) matrices, each its own random weights (42 MB in all, as the model's),
// multiplied in place by `trove_sgemm_nt_avx2` for M query tokens, split between 1 or 2 lanes by columns with a
// barrier after each step as MiniLM.forward does. Prints the mean and best time of a pass and GFLOP/s.
//
//   cc -O2 -I Sources/CTroveGEMM/include Benchmarks/query_products.c Sources/CTroveGEMM/trove_gemm.c -lpthread
//   ./a.out TOKENS LANES [LABEL]      (Benchmarks/query-products.sh compares two revisions of the kernel)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trove_gemm.h"

enum { D = 384, I = 1536, L = 6, PASSES = 200, WARMUP = 10 };

typedef struct {
    float *q, *k, *v, *o, *i, *f;
} Layer;

#ifndef KERNEL
#define KERNEL trove_sgemm_nt_avx2  // -DKERNEL=trove_sgemm_nt_avx512 times the AVX-512 one
#endif

static Layer layers[L];
static float *a, *middle, *c, *wide;
static int m, lanes;
static pthread_barrier_t barrier;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static float *random_floats(size_t count) {
    float *p = aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64);
    for (size_t i = 0; i < count; i++) p[i] = rand() / (float)RAND_MAX - 0.5f;
    return p;
}

// This lane's share of the columns, in whole panels of twelve as MiniLM.inPlace splits them.
static void product(int lane, int n, int k, const float *x, const float *w, float *out, int ldc) {
    int share = (n / lanes + 11) / 12 * 12, first = lane * share;
    int count = n - first < share ? n - first : share;
    if (count > 0) KERNEL(m, count, k, x, k, w + (long)first * k, k, 0, 0, out + first, ldc);
}

static void step_done(void) {
    if (lanes > 1) pthread_barrier_wait(&barrier);
}

static void pass(int lane) {
    for (int l = 0; l < L; l++) {
        Layer *y = &layers[l];
        product(lane, D, D, a, y->q, c, 3 * D);
        product(lane, D, D, a, y->k, c + D, 3 * D);
        product(lane, D, D, a, y->v, c + 2 * D, 3 * D);
        step_done();
        product(lane, D, D, a, y->o, c, 3 * D);
        step_done();
        product(lane, I, D, a, y->i, wide, I);
        step_done();
        product(lane, D, I, middle, y->f, c, 3 * D);
        step_done();
    }
}

static void *partner(void *unused) {
    (void)unused;
    for (int p = 0; p < PASSES; p++) {
        pthread_barrier_wait(&barrier);
        pass(1);
        pthread_barrier_wait(&barrier);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s TOKENS LANES [LABEL]\n", argv[0]);
        return 2;
    }
    m = atoi(argv[1]);
    lanes = atoi(argv[2]);
    if (m < 1 || m > 512 || lanes < 1 || lanes > 2) {
        fprintf(stderr, "TOKENS 1…512, LANES 1 or 2\n");
        return 2;
    }
    for (int l = 0; l < L; l++) {
        layers[l] = (Layer){random_floats(D * D), random_floats(D * D), random_floats(D * D),
                            random_floats(D * D), random_floats(I * D), random_floats(D * I)};
    }
    a = random_floats(m * D);
    middle = random_floats(m * I);
    c = random_floats(m * 3 * D);
    wide = random_floats(m * I);
    pthread_t thread;
    if (lanes > 1) {
        pthread_barrier_init(&barrier, 0, 2);
        pthread_create(&thread, 0, partner, 0);
    }
    double total = 0, best = 1e9;
    for (int p = 0; p < PASSES; p++) {
        if (lanes > 1) pthread_barrier_wait(&barrier);
        double start = now_ms();
        pass(0);
        if (lanes > 1) pthread_barrier_wait(&barrier);
        double elapsed = now_ms() - start;
        if (p < WARMUP) continue;
        total += elapsed;
        if (elapsed < best) best = elapsed;
    }
    if (lanes > 1) pthread_join(thread, 0);
    double mean = total / (PASSES - WARMUP), flop = 2.0 * m * L * (4.0 * D * D + 2.0 * D * I);
    printf("%s\t%d\t%d\t%.2f\t%.2f\t%.1f\t%.1f\n", argc > 3 ? argv[3] : "", m, lanes, mean, best, flop / mean / 1e6,
           flop / best / 1e6);
    return 0;
}
