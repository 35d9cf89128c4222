"""Warm exact top-10, Trove beside numpy, alternating in one run so both see the same machine.

For each N x d: R rounds of [numpy (1 and 2 threads), trove-bench search (each scan kernel this CPU runs: OpenBLAS's
sgemv and Trove's AVX2 / AVX-512 kernels, 1 and 2 threads each)], then the median of each one's best-thread p50 over
the rounds, the ratios, and the read-bandwidth floor (peer-bench's membw, measured before and after, best of both)
for the matrix. Run with the peer-bench venv (numpy, threadpoolctl):

    Benchmarks/.peer-bench/.venv/bin/python Benchmarks/warm_vs_numpy.py [--configs 100000x384,...] [--rounds 3]
"""
import argparse, json, os, statistics, subprocess, sys, time

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCH = os.path.join(ROOT, ".build/release/trove-bench")
MEMBW = os.path.join(HERE, ".peer-bench/build/membw")


def numpy_p50(n, d, threads, queries):
    """numpy's exact top-10 as peer-bench runs it: X @ q (sgemv), argpartition, sort of the 10."""
    rng = np.random.default_rng(n + d)
    x = rng.standard_normal((n, d), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    q = rng.standard_normal((queries + 10, d), dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    times = []
    with threadpool_limits(threads):
        for i, v in enumerate(q):
            start = time.perf_counter()
            s = x @ v
            top = np.argpartition(-s, 10)[:10]
            top[np.argsort(-s[top])]
            if i >= 10:
                times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def trove_p50(n, d, threads, queries):
    """trove-bench search's blocked top-10 p50 (ms) per kernel, the best of the thread counts."""
    out = subprocess.run(
        [BENCH, "search", "--sizes", str(n), "--dims", str(d), "--threads", ",".join(map(str, threads)), "--variants", "exact",
         "--kernel", "all", "--queries", str(queries), "--batch", "10"],
        capture_output=True, text=True, check=True).stdout
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith(f"| {n} | {d} ")]
    best = {}
    for r in rows:
        best[r[3]] = min(best.get(r[3], float("inf")), float(r[6]))
    return best, out.strip().splitlines()[-1]


def read_bandwidth():
    """Best read GB/s over 1 and 2 threads (peer-bench's STREAM-style membw)."""
    out = subprocess.run([MEMBW, "--threads", "1,2"], capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return max(r["best_gbs"] for r in rows if r["kernel"] == "read")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default="100000x384,100000x768,1000000x384,1000000x768")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    configs = [tuple(map(int, c.split("x"))) for c in args.configs.split(",")]
    load = lambda: " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"# Warm top-10, Trove beside numpy, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, load {load()}\n")
    bandwidth = [read_bandwidth()]
    rows = []
    for n, d in configs:
        queries = 200 if n <= 100_000 else 30
        numpy_runs, trove_runs = [], {}
        for _ in range(args.rounds):
            numpy_runs.append(min(numpy_p50(n, d, t, queries) for t in (1, 2)))
            measured, footer = trove_p50(n, d, [1, 2], queries)
            for kernel, p50 in measured.items():
                trove_runs.setdefault(kernel, []).append(p50)
            print(f"  {n} x {d}: numpy {numpy_runs[-1]:.2f} ms, trove {measured} (load {load()})", file=sys.stderr)
        rows.append((n, d, numpy_runs, trove_runs))
    bandwidth.append(read_bandwidth())
    gbs = max(bandwidth)
    print(f"numpy: {[i['internal_api'] + ' ' + str(i.get('version')) + ' ' + str(i.get('architecture')) for i in threadpool_info()]}")
    print(f"trove: {footer}")
    print(f"read bandwidth (membw, best of before/after): {gbs:.1f} GB/s; load at end {load()}\n")
    kernels = [k for k in ("blas", "avx2", "avx512") if k in rows[0][3]]
    print("| N × d | floor ms | numpy p50 ms (÷ floor) | " + " | ".join(f"Trove {k} p50 ms (÷ floor, ÷ numpy)" for k in kernels)
          + " | rounds: numpy / " + " / ".join(kernels) + " |")
    print("|---|---:|---:|" + "---:|" * len(kernels) + "---|")
    for n, d, a, b in rows:
        floor = n * d * 4 / gbs / 1e6
        na = statistics.median(a)
        cells = []
        for k in kernels:
            tb = statistics.median(b[k])
            cells.append(f"{tb:.2f} ({tb / floor:.2f}×, {tb / na:.2f}×)")
        rounds = ", ".join("/".join(f"{x:.1f}" for x in (a[i], *(b[k][i] for k in kernels))) for i in range(len(a)))
        print(f"| {n:,} × {d} | {floor:.2f} | {na:.2f} ({na / floor:.2f}×) | " + " | ".join(cells) + f" | {rounds} |")


if __name__ == "__main__":
    main()
