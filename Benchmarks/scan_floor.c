// The warm scan's kernels against the machine's read floor, in turn in one process: for an N × d matrix of floats,
// each round times a plain read of the matrix (the floor: 4 independent sums, nothing else, as peer-bench's membw
// reads), Trove's `trove_scan_avx512` and `trove_scan_avx2` over 16 Ki-row blocks, and OpenBLAS's `cblas_sgemv` over
// the same blocks, each on 1 and 2 threads (rows split in halves; OpenBLAS threads itself). Prints, per variant, the
// best and median wall time, GB/s at the best, the ratio of the best to the floor's best, and CPU ms (user + system of
// the whole process, median): on a busy machine the wall clock waits for cores, the CPU time does not.
//
//   clang -O2 -I Sources/CTroveScan/include Benchmarks/scan_floor.c Sources/CTroveScan/trove_scan.c -lpthread \
//       -l:libopenblas.so.0 -o scan_floor
//   ./scan_floor N D ROUNDS          (Benchmarks/scan-floor.sh builds it and runs 100k and 1M × 384)
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "trove_scan.h"

// OpenBLAS's CBLAS, declared here: Debian's libopenblas0 ships the library without a header.
enum { RowMajor = 101, NoTrans = 111 };
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy);
void openblas_set_num_threads(int threads);

enum { BLOCK = 16384, VARIANTS = 8 };
static const char *names[VARIANTS] = {"read (floor)", "read (floor)", "trove avx512", "trove avx512",
                                      "trove avx2",   "trove avx2",   "openblas sgemv", "openblas sgemv"};

typedef struct {
    const float *rows, *query;
    size_t count, d;
    int variant;
    float sink;
} Part;

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((target("avx512f"))) static float read_all(const float *a, size_t n) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        s0 = _mm512_add_ps(s0, _mm512_loadu_ps(a + i));
        s1 = _mm512_add_ps(s1, _mm512_loadu_ps(a + i + 16));
        s2 = _mm512_add_ps(s2, _mm512_loadu_ps(a + i + 32));
        s3 = _mm512_add_ps(s3, _mm512_loadu_ps(a + i + 48));
    }
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < n; i++) s += a[i];
    return s;
}

static void *run(void *argument) {
    Part *p = argument;
    float scores[BLOCK];
    if (p->variant / 2 == 0) {
        p->sink = read_all(p->rows, p->count * p->d);
        return 0;
    }
    for (size_t r = 0; r < p->count; r += BLOCK) {
        size_t count = p->count - r < BLOCK ? p->count - r : BLOCK;
        const float *rows = p->rows + r * p->d;
        if (p->variant / 2 == 1) trove_scan_avx512(rows, count, p->d, p->query, scores);
        else if (p->variant / 2 == 2) trove_scan_avx2(rows, count, p->d, p->query, scores);
        else cblas_sgemv(RowMajor, NoTrans, (int)count, (int)p->d, 1, rows, (int)p->d, p->query, 1, 0, scores, 1);
        p->sink += scores[0];
    }
    return 0;
}

/// One pass of `variant` (even: 1 thread, odd: 2) over the matrix: its wall and process CPU seconds.
static void pass(const float *x, size_t n, size_t d, const float *q, int variant, double *wall, double *cpu) {
    int threads = variant % 2 + 1;
    double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), t0 = seconds(CLOCK_MONOTONIC);
    if (variant / 2 == 3) {
        openblas_set_num_threads(threads);
        Part p = {x, q, n, d, variant, 0};
        run(&p);
    } else {
        Part parts[2];
        pthread_t thread;
        for (int t = 0; t < threads; t++) {
            size_t lower = n * t / threads, upper = n * (t + 1) / threads;
            parts[t] = (Part){x + lower * d, q, upper - lower, d, variant, 0};
        }
        if (threads == 2) pthread_create(&thread, 0, run, &parts[1]);
        run(&parts[0]);
        if (threads == 2) pthread_join(thread, 0);
    }
    *wall = seconds(CLOCK_MONOTONIC) - t0;
    *cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, count, sizeof *values, compare);
    return values[count / 2];
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: scan_floor N D ROUNDS\n");
        return 64;
    }
    size_t n = strtoull(argv[1], 0, 10), d = strtoull(argv[2], 0, 10);
    int rounds = atoi(argv[3]);
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "scan_floor: this CPU lacks AVX-512 F or AVX2\n");
        return 69;
    }
    float *x = aligned_alloc(64, (n * d * sizeof(float) + 63) / 64 * 64), *q = malloc(d * sizeof(float));
    for (size_t i = 0; i < n * d; i++) x[i] = (float)((i * 2654435761u) % 1000) / 1000 - 0.5f;
    for (size_t j = 0; j < d; j++) q[j] = (float)j / d - 0.5f;
    double *walls = calloc(VARIANTS * rounds, sizeof(double)), *cpus = calloc(VARIANTS * rounds, sizeof(double));
    for (int round = 0; round < rounds; round++)
        for (int v = 0; v < VARIANTS; v++) pass(x, n, d, q, v, &walls[v * rounds + round], &cpus[v * rounds + round]);
    double floor = 1e9;
    for (int v = 0; v < 2; v++)
        for (int r = 0; r < rounds; r++) floor = walls[v * rounds + r] < floor ? walls[v * rounds + r] : floor;
    double bytes = (double)n * d * sizeof(float);
    printf("| variant | threads | best ms | median ms | GB/s at best | best ÷ floor | CPU ms (median) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (int v = 0; v < VARIANTS; v++) {
        double *w = walls + v * rounds, best = 1e9;
        for (int r = 0; r < rounds; r++) best = w[r] < best ? w[r] : best;
        printf("| %s | %d | %.2f | %.2f | %.1f | %.2f | %.2f |\n", names[v], v % 2 + 1, best * 1e3,
               median(w, rounds) * 1e3, bytes / best / 1e9, best / floor, median(cpus + v * rounds, rounds) * 1e3);
    }
    return 0;
}
