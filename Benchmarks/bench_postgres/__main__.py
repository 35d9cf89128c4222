"""python -m bench_postgres --url URL --bench TROVE_BENCH [keyword] [vector --sizes …]: prints Markdown tables.

Run through Benchmarks/bench-postgres.sh, which creates the venv, starts the throwaway server and builds trove-bench.
"""
import argparse
import statistics
import sys

import numpy as np
import psycopg

from . import fulltext, vector


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run_relevance(conn, args):
    names = sorted(args.sets.split(","))
    results = fulltext.relevance(conn, args.bench, args.suite, names, args.only)
    print("\nKeyword ranking in PostgreSQL, nDCG@10 (Trove's passages, OR of the query's lexemes, grouped by document):\n")
    print("| variant | " + " | ".join(names) + " | mean |")
    print("|---|" + "---:|" * (len(names) + 1))
    for label, scores, mean in sorted(results, key=lambda r: -r[2]):
        print(f"| {label} | " + " | ".join(f"{s:.4f}" for s in scores) + f" | {mean:.4f} |")
    sys.stdout.flush()


def run_latency(conn, args):
    names = sorted(args.sets.split(","))
    labels = ["BM25 from a postings table (term, passage, tf, length), english",
              "BM25 k1 1.2 b 0.5, df from term table, english", "BM25, df counted per query (GIN), english",
              "ts_rank_cd norm 0, english", "ts_rank norm 1, english",
              "ts_rank_cd norm 0, plainto_tsquery (AND), english"] + [
              f"BM25, df counted per query, {m} rarest lexemes, english" for m in fulltext.RAREST]
    count, size, build, table = fulltext.latency(conn, args.bench, args.suite, names, args.latency_copies, labels)
    print(f"\nKeyword query latency, {count:,} passages (every set's passages ×{args.latency_copies}; table + GIN "
          f"{size / 2**20:.0f} MiB, built in {build:.0f} s), depth 200 (Trove's candidate depth), 30 queries from the sets:\n")
    print("| variant | p50 ms | p90 ms |\n|---|---:|---:|")
    for label, p50, p90 in table:
        print(f"| {label} | {p50:.1f} | {p90:.1f} |")
    sys.stdout.flush()


def run_vector(conn, args):
    queries = vector.generator(99)(100)
    rows = []
    for n in args.sizes:
        name = f"vec_{n}"
        with conn.cursor() as cur:
            cur.execute("SELECT to_regclass(%s) IS NOT NULL", (name,))
            exists = cur.fetchone()[0]
        if args.reuse and exists:
            log(f"reusing {name}; generating its ground truth again")
            truths, loaded = vector.truths_only(n, queries), None
            with conn.cursor() as cur:
                cur.execute(f"SELECT pg_relation_size('{name}')")
                heap = cur.fetchone()[0]
        else:
            log(f"loading {n:,} vectors")
            truths, loaded, heap = vector.load(conn, name, n, queries)
        nq = 20 if n >= 500_000 else 50
        exact_sql = f"SELECT id FROM {name} ORDER BY embedding <=> %s::vector LIMIT 10"
        with conn.cursor() as cur:
            cur.execute("SET enable_indexscan = off")  # exact even when an HNSW index exists
            p50, p90, res = vector.timed(cur, exact_sql, queries[:nq])
            r = vector.recall(res, truths["all"])
            filtered = {}
            for key, (where, _) in vector.FILTERS.items():
                sql = f"SELECT id FROM {name} WHERE {where} ORDER BY embedding <=> %s::vector LIMIT 10"
                f50, _, fres = vector.timed(cur, sql, queries[:nq])
                filtered[key] = (f50, vector.recall(fres, truths[key]))
            # The form Trove's store sends: the filter's chunk ids as one array parameter.
            ids = [i for i in range(n) if i % 1000 < 10]
            sql = f"SELECT id FROM {name} WHERE id = ANY(%s::bigint[]) ORDER BY embedding <=> %s::vector LIMIT 10"
            a50 = timed_ids(cur, sql, ids, queries[:nq])
            cur.execute("RESET enable_indexscan")
        how = "reused" if loaded is None else f"loaded by binary COPY + VACUUM ANALYZE in {loaded:.0f} s"
        print(f"\n### {n:,} vectors × {D} (heap {heap / 2**20:.0f} MiB, {how})\n")
        print(f"Exact `ORDER BY embedding <=> $1 LIMIT 10` ({nq} queries): p50 {p50:.1f} ms, p90 {p90:.1f} ms, "
              f"recall@10 {r:.3f} (a check: exact must be 1). With the filter in WHERE, exact (index scans off: "
              "seq or bitmap scan, then sort): "
              + ", ".join(f"{k}: p50 {v[0]:.1f} ms, recall {v[1]:.3f}" for k, v in filtered.items())
              + f"; 1 % as `id = ANY($ids)` ({len(ids):,} ids in one array): p50 {a50:.1f} ms.\n", flush=True)
        rows.append((n, "exact", "-", "-", "-", p50, p90, r))
        builds = [(16, 64)] + ([(32, 128)] if n <= args.second_build_max else [])
        for m, efc in builds:
            with conn.cursor() as cur:
                index = f"{name}_hnsw" if (m, efc) == (16, 64) else f"{name}_hnsw_{m}_{efc}"
                cur.execute("SELECT to_regclass(%s) IS NOT NULL", (index,))
                if args.reuse and cur.fetchone()[0]:
                    build = "-"
                else:
                    cur.execute(f"DROP INDEX IF EXISTS {index}")
                    log(f"building HNSW m {m} ef_construction {efc} on {n:,}")
                    t = time.time()
                    cur.execute(f"CREATE INDEX {index} ON {name} USING hnsw (embedding vector_cosine_ops) "
                                f"WITH (m = {m}, ef_construction = {efc})")
                    build = f"{time.time() - t:.0f}"
                cur.execute(f"SELECT pg_relation_size('{index}')")
                size = cur.fetchone()[0]
                for ef in (40, 100, 200):
                    cur.execute(f"SET hnsw.ef_search = {ef}")
                    p50, p90, res = vector.timed(cur, exact_sql, queries)
                    rows.append((n, f"HNSW m {m} efc {efc}", build, f"{size / 2**20:.0f}", ef, p50, p90,
                                 vector.recall(res, truths["all"])))
                    print_row(rows[-1])
                filtered_hnsw(conn, cur, name, queries, truths, f"m {m} efc {efc}")
                if (m, efc) != (16, 64):
                    cur.execute(f"DROP INDEX {index}")  # one HNSW index at a time, so the planner has no choice
    print("\n| N | search | build s | index MiB | ef_search | p50 ms | p90 ms | recall@10 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print_row(row, sys.stdout)
    sys.stdout.flush()


def timed_ids(cur, sql, ids, queries):
    times = []
    for q in queries:
        t = time.perf_counter()
        cur.execute(sql, (ids, vector.literal(q)))
        cur.fetchall()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def print_row(row, out=sys.stderr):
    n, kind, build, size, ef, p50, p90, r = row
    print(f"| {n:,} | {kind} | {build} | {size} | {ef} | {p50:.2f} | {p90:.2f} | {r:.3f} |", file=out, flush=True)


def filtered_hnsw(conn, cur, name, queries, truths, build):
    """A selective filter with the HNSW index present: what the planner picks, and HNSW forced (`tag + 0` keeps the
    tag index out), rows returned and recall against the filtered exact top-10."""
    print(f"\nFilters on {name} with its HNSW index ({build}; 100 queries; recall against the filtered exact top 10):\n")
    print("| filter | plan | ef_search | p50 ms | mean rows (of 10) | queries with < 10 rows | recall@10 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for key, (where, _) in vector.FILTERS.items():
        forced = where.replace("tag", "(tag + 0)")
        for label, w, efs in (("planner's choice", where, (40,)), ("HNSW forced", forced, (40, 100, 200, 400, 1000))):
            for ef in efs:
                cur.execute(f"SET hnsw.ef_search = {ef}")
                sql = f"SELECT id FROM {name} WHERE {w} ORDER BY embedding <=> %s::vector LIMIT 10"
                chosen = vector.plan(cur, sql, queries[0])
                p50, _, res = vector.timed(cur, sql, queries)
                counts = [len(r) for r in res]
                print(f"| {key} | {label}: {chosen} | {ef} | {p50:.1f} | {np.mean(counts):.1f} | "
                      f"{sum(c < 10 for c in counts)} | {vector.recall(res, truths[key]):.3f} |", flush=True)
    cur.execute("RESET hnsw.ef_search")


import time  # noqa: E402

D = vector.D


def main():
    p = argparse.ArgumentParser(prog="bench_postgres")
    p.add_argument("--url", required=True)
    p.add_argument("--bench", required=True, help="the trove-bench binary (its `passages` subcommand)")
    p.add_argument("--suite", default="../shared/datasets")
    p.add_argument("--sets", default="cacm,cisi,cranfield,npl")
    p.add_argument("--only", type=lambda s: s.split("|"), help="keyword variants whose label contains one of these (separated by |)")
    p.add_argument("--latency-copies", type=int, default=5)
    p.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[100_000, 1_000_000])
    p.add_argument("--second-build-max", type=int, default=100_000,
                   help="sizes up to this also get the second HNSW build (m 32, ef_construction 128)")
    p.add_argument("--reuse", action="store_true", help="keep a vector table (and HNSW index) already there")
    p.add_argument("parts", nargs="*", help="relevance, latency, vector (default: all)")
    args = p.parse_args()
    args.parts = args.parts or ["relevance", "latency", "vector"]
    if unknown := set(args.parts) - {"relevance", "latency", "vector"}:
        p.error(f"unknown part {sorted(unknown)[0]}: expected relevance, latency or vector")
    with psycopg.connect(args.url, autocommit=True) as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT version(), (SELECT extversion FROM pg_extension WHERE extname = 'vector')")
            version, vec = cur.fetchone()
            cur.execute("SHOW shared_buffers")
            buffers = cur.fetchone()[0]
        print(f"{version.split(' on ')[0]}, pgvector {vec}, shared_buffers {buffers}")
        if "relevance" in args.parts:
            run_relevance(conn, args)
        if "latency" in args.parts:
            run_latency(conn, args)
        if "vector" in args.parts:
            run_vector(conn, args)


main()
