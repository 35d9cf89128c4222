"""pgvector exact and HNSW search on synthetic unit vectors, recall@10 against exact top-10 computed in numpy.

The vectors are clustered (unit-normalised centre + Gaussian noise of the same scale, 1,000 centres): cosine
within a cluster ~0.5, between clusters ~0, which is closer to text embeddings than uniform random vectors, on which
any graph index recalls far less. Queries come from the same generator with another seed. Rows carry `tag = id %
1000`, so `tag < 10` keeps 1 % and `tag = 0` keeps 0.1 % of them.
"""
import statistics
import struct
import time

import numpy as np

D = 384
CLUSTERS = 1000
BLOCK = 50_000


def generator(seed):
    centres = np.random.default_rng(12345).standard_normal((CLUSTERS, D), dtype=np.float32)
    rng = np.random.default_rng(seed)

    def block(n):
        x = centres[rng.integers(0, CLUSTERS, n)] + rng.standard_normal((n, D), dtype=np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)
    return block


def literal(v):
    return "[" + ",".join(f"{x:.7g}" for x in v) + "]"


class Truth:
    """Exact top-10 ids per query (inner product of unit vectors), kept while the rows stream past."""

    def __init__(self, queries, keep=lambda ids: np.ones(len(ids), bool)):
        self.q, self.keep = queries, keep
        self.best = np.full((len(queries), 10), -np.inf, np.float32)
        self.ids = np.zeros((len(queries), 10), np.int64)

    def add(self, ids, x):
        mask = self.keep(ids)
        if not mask.any():
            return
        ids, x = ids[mask], x[mask]
        s = self.q @ x.T
        s = np.concatenate([self.best, s], axis=1)
        i = np.concatenate([self.ids, np.broadcast_to(ids, (len(self.q), len(ids)))], axis=1)
        top = np.argpartition(-s, 9, axis=1)[:, :10]
        self.best = np.take_along_axis(s, top, 1)
        self.ids = np.take_along_axis(i, top, 1)


FILTERS = {
    "50 %": ("tag < 500", lambda ids: ids % 1000 < 500),
    "10 %": ("tag < 100", lambda ids: ids % 1000 < 100),
    "1 %": ("tag < 10", lambda ids: ids % 1000 < 10),
    "0.1 %": ("tag = 0", lambda ids: ids % 1000 == 0),
}


def truths_only(n, queries, seed=7):
    """The ground truths of a table `load` made earlier (the same seeded rows, generated again)."""
    truths = {"all": Truth(queries)} | {k: Truth(queries, f) for k, (_, f) in FILTERS.items()}
    block = generator(seed)
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        x, ids = block(m), np.arange(start, start + m, dtype=np.int64)
        for t in truths.values():
            t.add(ids, x)
    return truths


def load(conn, name, n, queries, seed=7):
    """Table NAME(id, tag, embedding vector(384)) of n rows through binary COPY; returns the ground truths."""
    truths = {"all": Truth(queries)} | {k: Truth(queries, f) for k, (_, f) in FILTERS.items()}
    block = generator(seed)
    row = np.dtype([("fields", ">i2"), ("l1", ">i4"), ("id", ">i8"), ("l2", ">i4"), ("tag", ">i4"),
                    ("l3", ">i4"), ("dim", ">i2"), ("unused", ">i2"), ("v", ">f4", D)])
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {name}")
        cur.execute(f"CREATE TABLE {name} (id bigint PRIMARY KEY, tag int NOT NULL, embedding vector({D}) NOT NULL)")
        started = time.time()
        with cur.copy(f"COPY {name} (id, tag, embedding) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(b"PGCOPY\n\xff\r\n\0" + struct.pack(">ii", 0, 0))
            for start in range(0, n, BLOCK):
                m = min(BLOCK, n - start)
                x = block(m)
                ids = np.arange(start, start + m, dtype=np.int64)
                for t in truths.values():
                    t.add(ids, x)
                rows = np.zeros(m, row)
                rows["fields"], rows["l1"], rows["id"], rows["l2"], rows["tag"] = 3, 8, ids, 4, ids % 1000
                rows["l3"], rows["dim"], rows["v"] = 4 + 4 * D, D, x
                copy.write(rows.tobytes())
            copy.write(struct.pack(">h", -1))
        cur.execute(f"CREATE INDEX ON {name} (tag)")
        conn.commit()
        cur.execute(f"VACUUM ANALYZE {name}")
        loaded = time.time() - started
        cur.execute(f"SELECT pg_relation_size('{name}')")
        size = cur.fetchone()[0]
    return truths, loaded, size


def timed(cur, sql, queries, extra=()):
    cur.execute(sql, (literal(queries[0]), *extra))  # warm
    cur.fetchall()
    times, results = [], []
    for q in queries:
        t = time.perf_counter()
        cur.execute(sql, (literal(q), *extra))
        rows = cur.fetchall()
        times.append((time.perf_counter() - t) * 1000)
        results.append([r[0] for r in rows])
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.9) - 1)], results


def recall(results, truth):
    got = [len(set(r) & set(t)) / 10 for r, t in zip(results, truth.ids.tolist())]
    return statistics.mean(got)


def plan(cur, sql, q):
    cur.execute("EXPLAIN " + sql, (literal(q),))
    lines = [r[0] for r in cur.fetchall()]
    for key in ("hnsw", "Bitmap Heap", "Index Scan", "Seq Scan"):
        if any(key in line for line in lines):
            return {"hnsw": "HNSW index scan", "Bitmap Heap": "bitmap scan on tag + sort",
                    "Index Scan": "index scan + sort", "Seq Scan": "seq scan + sort"}[key]
    return lines[0]
