"""Keyword ranking in PostgreSQL full text on the public labelled sets, scored as `trove-bench relevance --suite`.

Each set's passages come from `trove-bench passages` (the indexer's own chunker), so PostgreSQL ranks exactly the
passages Trove's SQLite keyword mode ranks. Queries lose English function words first (TroveKit's
KeywordQuery.meaningfulText, which runs before any store), candidates are OR-of-terms, results are grouped by
document (first passage of each document counts), nDCG@10 as score.py / RelevanceBenchmark.metrics compute it.
"""
import json
import math
import statistics
import subprocess
import time

# TroveKit's KeywordQuery.stopWords: applied to the query before the store sees it.
STOP_WORDS = set("""a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it it's its itself just me more most must my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours yourself yourselves i'm i've we've don't can't won't isn't there's let may
might shall also""".split())

K1, B = 1.2, 0.5  # Trove's keyword-mode BM25 (Sources/TroveStore/SQLiteStore+Keywords.swift)

# The text-search configurations compared. trove_english: the Snowball English stemmer with no stop-word list, the
# closest to SQLite's `porter unicode61` (Porter stemming, every word kept).
CONFIGS = ["simple", "english", "trove_english"]

# How many of a long query's rarest lexemes the `rarest` BM25 variants keep.
RAREST = (4, 8, 12, 16, 24)

SETUP = """
CREATE SCHEMA IF NOT EXISTS kw;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'english_stem_all') THEN
    CREATE TEXT SEARCH DICTIONARY english_stem_all (TEMPLATE = snowball, LANGUAGE = english);
    CREATE TEXT SEARCH CONFIGURATION trove_english (COPY = english);
    ALTER TEXT SEARCH CONFIGURATION trove_english
      ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH english_stem_all;
  END IF;
END $$;
-- The OR of a text's lexemes (each quoted, so no input is a tsquery syntax error); empty when it has none.
CREATE OR REPLACE FUNCTION kw.or_query(cfg regconfig, q text) RETURNS tsquery LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT coalesce(string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery,
                  ''::tsquery)
  FROM unnest(to_tsvector(cfg, q))
$$;
-- OR of tsqueries (the `||` operator as an aggregate), for a query built from chosen lexemes.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'tsq_or') THEN
    CREATE AGGREGATE kw.tsq_or(tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
  END IF;
END $$;
"""


def meaningful(text):
    words = text.split()
    kept = [w for w in words if "".join(c for c in w.lower() if c.isalnum() or c == "'") not in STOP_WORDS]
    return " ".join(kept) if kept else text


def tsv(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def load_set(folder):
    qrels = {}
    for row in tsv(folder + "/qrels.tsv"):
        if len(row) >= 3 and int(row[2]) > 0:
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries = [(r[0], r[1]) for r in tsv(folder + "/queries.tsv") if len(r) >= 2 and r[0] in qrels]
    return queries, qrels


def ndcg10(ranked, relevant):
    # Linear gains, as RelevanceBenchmark.metrics (and score.py) compute them.
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def passages(bench, docs):
    out = subprocess.run([bench, "passages", "--docs", docs], check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    return [(r["path"].rsplit("/", 1)[-1].split(".")[0], r["heading"], r["text"]) for r in rows]


def create_table(conn, name, rows, copies=1):
    """kw.NAME: passages with one tsvector column and token length per configuration, GIN indexes, a term table
    (document frequency per lexeme, from ts_stat) and a one-row statistics table per configuration."""
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS kw.{name} CASCADE")
        cols = ", ".join(f"tsv_{c} tsvector, len_{c} int" for c in CONFIGS)
        cur.execute(f"CREATE TABLE kw.{name} (id bigserial PRIMARY KEY, doc text, heading text, body text, {cols})")
        with cur.copy(f"COPY kw.{name} (doc, heading, body) FROM STDIN") as copy:
            for n in range(copies):
                for doc, heading, text in rows:
                    copy.write_row((doc if copies == 1 else f"{doc}#{n}", heading, text))
        sets = ", ".join(
            f"tsv_{c} = to_tsvector('{c}', heading || ' ' || body)" for c in CONFIGS)
        cur.execute(f"UPDATE kw.{name} SET {sets}")
        lens = ", ".join(
            f"len_{c} = (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(tsv_{c}))" for c in CONFIGS)
        cur.execute(f"UPDATE kw.{name} SET {lens}")
        for c in CONFIGS:
            cur.execute(f"CREATE INDEX ON kw.{name} USING gin (tsv_{c})")
            cur.execute(f"DROP TABLE IF EXISTS kw.{name}_terms_{c}")
            cur.execute(
                f"CREATE TABLE kw.{name}_terms_{c} AS SELECT word AS term, ndoc AS df "
                f"FROM ts_stat('SELECT tsv_{c} FROM kw.{name}')")
            cur.execute(f"ALTER TABLE kw.{name}_terms_{c} ADD PRIMARY KEY (term)")
            cur.execute(f"DROP TABLE IF EXISTS kw.{name}_stats_{c}")
            cur.execute(
                f"CREATE TABLE kw.{name}_stats_{c} AS SELECT count(*)::float8 AS n, "
                f"avg(len_{c})::float8 AS avgdl FROM kw.{name}")
        # A postings table (term, passage, term frequency, passage length) for the `english` configuration: BM25
        # as one index-only range scan per query term and a hash aggregate, no tsvector unnested at query time.
        cur.execute(f"DROP TABLE IF EXISTS kw.{name}_postings")
        cur.execute(
            f"CREATE TABLE kw.{name}_postings AS SELECT u.lexeme AS term, p.id AS chunk_id, "
            f"array_length(u.positions, 1) AS tf, p.len_english AS len FROM kw.{name} p, unnest(p.tsv_english) u")
        cur.execute(f"CREATE INDEX ON kw.{name}_postings (term) INCLUDE (chunk_id, tf, len)")
        cur.execute(f"VACUUM ANALYZE kw.{name}")
        cur.execute(f"VACUUM ANALYZE kw.{name}_postings")
    conn.commit()


def postings_sql(name):
    """The same BM25 from the postings table (document frequency from the term table)."""
    return f"""
WITH s AS (SELECT n, avgdl FROM kw.{name}_stats_english),
q AS (SELECT lexeme, array_length(positions, 1) AS qtf FROM unnest(to_tsvector('english', %(q)s))),
w AS (SELECT q.lexeme, q.qtf * greatest(ln((s.n - t.df + 0.5) / (t.df + 0.5)), 1e-6) AS idf
      FROM q JOIN kw.{name}_terms_english t ON t.term = q.lexeme CROSS JOIN s),
r AS (SELECT p.chunk_id, sum(w.idf * p.tf * ({K1} + 1) / (p.tf + {K1} * (1 - {B} + {B} * p.len / s.avgdl))) AS score
      FROM w JOIN kw.{name}_postings p ON p.term = w.lexeme CROSS JOIN s
      GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %(depth)s)
SELECT r.chunk_id, c.doc, r.score FROM r JOIN kw.{name} c ON c.id = r.chunk_id ORDER BY r.score DESC, r.chunk_id"""


def bm25_sql(name, cfg, df_from, rarest=None):
    """BM25 (Trove's keyword mode: FTS5's IDF floored at 1e-6, a repeated query word counting twice) over the
    OR-of-terms candidates; document frequency from the term table or counted with the GIN index per query term.
    `rarest` N: a query with more lexemes keeps only its N rarest (lowest df, ties by lexeme) for both the
    candidates and the score, as a WAND-style engine skips the frequent terms of a long query."""
    if rarest is not None:
        assert df_from == "count"
        return f"""
WITH q AS (SELECT lexeme, array_length(positions, 1) AS qtf FROM unnest(to_tsvector('{cfg}', %(q)s))),
d AS (SELECT q.lexeme, q.qtf, t.df FROM q CROSS JOIN LATERAL (SELECT count(*) AS df FROM kw.{name}
      WHERE tsv_{cfg} @@ quote_literal(q.lexeme)::tsquery) t ORDER BY t.df, q.lexeme LIMIT {rarest}),
w AS (SELECT d.lexeme, d.qtf * greatest(ln((s.n - d.df + 0.5) / (d.df + 0.5)), 1e-6) AS idf
      FROM d CROSS JOIN kw.{name}_stats_{cfg} s),
k AS (SELECT kw.tsq_or(quote_literal(lexeme)::tsquery) AS tq FROM w),
c AS (SELECT id, doc, tsv_{cfg} AS tsv, len_{cfg} AS len FROM kw.{name}, k WHERE tsv_{cfg} @@ k.tq)
SELECT c.id, c.doc, sum(w.idf * u.tf * ({K1} + 1) / (u.tf + {K1} * (1 - {B} + {B} * c.len / s.avgdl))) AS score
FROM c CROSS JOIN kw.{name}_stats_{cfg} s
CROSS JOIN LATERAL (SELECT lexeme, array_length(positions, 1) AS tf FROM unnest(c.tsv)) u
JOIN w ON w.lexeme = u.lexeme
GROUP BY c.id, c.doc ORDER BY score DESC, c.id LIMIT %(depth)s"""
    if df_from == "table":
        df = f"JOIN kw.{name}_terms_{cfg} t ON t.term = q.lexeme"
        dfcol = "t.df"
    else:
        df = (f"CROSS JOIN LATERAL (SELECT count(*) AS df FROM kw.{name} "
              f"WHERE tsv_{cfg} @@ quote_literal(q.lexeme)::tsquery) t")
        dfcol = "t.df"
    return f"""
WITH q AS (SELECT lexeme, array_length(positions, 1) AS qtf FROM unnest(to_tsvector('{cfg}', %(q)s))),
w AS (SELECT q.lexeme, q.qtf * greatest(ln((s.n - {dfcol} + 0.5) / ({dfcol} + 0.5)), 1e-6) AS idf
      FROM q {df} CROSS JOIN kw.{name}_stats_{cfg} s),
c AS (SELECT id, doc, tsv_{cfg} AS tsv, len_{cfg} AS len FROM kw.{name}
      WHERE tsv_{cfg} @@ kw.or_query('{cfg}', %(q)s))
SELECT c.id, c.doc, sum(w.idf * u.tf * ({K1} + 1) / (u.tf + {K1} * (1 - {B} + {B} * c.len / s.avgdl))) AS score
FROM c CROSS JOIN kw.{name}_stats_{cfg} s
CROSS JOIN LATERAL (SELECT lexeme, array_length(positions, 1) AS tf FROM unnest(c.tsv)) u
JOIN w ON w.lexeme = u.lexeme
GROUP BY c.id, c.doc ORDER BY score DESC, c.id LIMIT %(depth)s"""


def rank_sql(name, cfg, fn, norm, form="or"):
    query = {
        "or": f"kw.or_query('{cfg}', %(q)s)",
        "plain": f"plainto_tsquery('{cfg}', %(q)s)",
        "websearch": f"websearch_to_tsquery('{cfg}', %(q)s)",
    }[form]
    return f"""
SELECT id, doc, {fn}(tsv_{cfg}, q, {norm}) AS score FROM kw.{name}, {query} q
WHERE tsv_{cfg} @@ q ORDER BY score DESC, id LIMIT %(depth)s"""


def variants():
    out = []
    for cfg in CONFIGS:
        out.append((f"BM25 k1 {K1} b {B}, df from term table, {cfg}", cfg, lambda n, c=cfg: bm25_sql(n, c, "table")))
    out.append(("BM25 from a postings table (term, passage, tf, length), english", "english", postings_sql))
    for cfg in ("english", "trove_english"):
        out.append((f"BM25, df counted per query (GIN), {cfg}", cfg, lambda n, c=cfg: bm25_sql(n, c, "count")))
    for m in RAREST:
        out.append((f"BM25, df counted per query, {m} rarest lexemes, english", "english",
                    lambda n, r=m: bm25_sql(n, "english", "count", rarest=r)))
    for cfg in CONFIGS:
        for norm in (0, 1, 2, 4, 8, 32):
            out.append((f"ts_rank_cd norm {norm}, {cfg}", cfg, lambda n, c=cfg, m=norm: rank_sql(n, c, "ts_rank_cd", m)))
        for norm in (0, 1, 2, 8, 32):
            out.append((f"ts_rank norm {norm}, {cfg}", cfg, lambda n, c=cfg, m=norm: rank_sql(n, c, "ts_rank", m)))
    out.append(("ts_rank_cd norm 0, plainto_tsquery (AND), english", "english",
                lambda n: rank_sql(n, "english", "ts_rank_cd", 0, "plain")))
    out.append(("ts_rank_cd norm 0, websearch_to_tsquery (AND), english", "english",
                lambda n: rank_sql(n, "english", "ts_rank_cd", 0, "websearch")))
    return out


def ranked_documents(cur, sql, query, want=10, depth=100):
    """The first `want` distinct documents of the passage ranking, deepening ×4 as Retriever does."""
    while True:
        cur.execute(sql, {"q": query, "depth": depth})
        rows = cur.fetchall()
        docs = []
        for _, doc, _ in rows:
            if doc not in docs:
                docs.append(doc)
        if len(docs) >= want or len(rows) < depth:
            return docs[:want]
        depth *= 4


def relevance(conn, bench, suite, names, only=None):
    with conn.cursor() as cur:
        cur.execute(SETUP)
    conn.commit()
    sets = {}
    for name in names:
        rows = passages(bench, f"{suite}/{name}/docs")
        create_table(conn, name, rows)
        sets[name] = load_set(f"{suite}/{name}")
        print(f"{name}: {len(rows)} passages, {len(sets[name][0])} judged queries", flush=True, file=__import__("sys").stderr)
    results = []
    for label, cfg, make in variants():
        if only and not any(o in label for o in only):
            continue
        scores = []
        with conn.cursor() as cur:
            for name in names:
                queries, qrels = sets[name]
                sql = make(name)
                total = 0.0
                for qid, text in queries:
                    total += ndcg10(ranked_documents(cur, sql, meaningful(text)), qrels[qid])
                scores.append(total / len(queries))
        results.append((label, scores, statistics.mean(scores)))
    return results


def latency(conn, bench, suite, names, copies, labels, runs=30):
    """Median and p90 ms per query over `runs` queries from all sets, on one table of every set's passages
    replicated `copies` times (document frequencies scale with it, so the postings' shape is kept)."""
    with conn.cursor() as cur:
        cur.execute(SETUP)
    rows = []
    for name in names:
        rows += passages(bench, f"{suite}/{name}/docs")
    started = time.time()
    create_table(conn, "big", rows, copies)
    build = time.time() - started
    with conn.cursor() as cur:
        cur.execute("SELECT count(*), pg_total_relation_size('kw.big') FROM kw.big")
        count, size = cur.fetchone()
    queries = []
    for name in names:
        queries += [meaningful(t) for _, t in load_set(f"{suite}/{name}")[0]]
    step = max(1, len(queries) // runs)
    sample = queries[::step][:runs]
    table = []
    with conn.cursor() as cur:
        for label, cfg, make in variants():
            if label not in labels:
                continue
            sql = make("big")
            cur.execute(sql, {"q": sample[0], "depth": 200})  # warm
            times = []
            for q in sample:
                t = time.perf_counter()
                cur.execute(sql, {"q": q, "depth": 200})
                cur.fetchall()
                times.append((time.perf_counter() - t) * 1000)
            times.sort()
            table.append((label, statistics.median(times), times[int(len(times) * 0.9) - 1]))
    table.append(sqlite_latency(rows, copies, sample))
    return count, size, build, table


def sqlite_latency(rows, copies, sample):
    """Trove's SQLite keyword engine on the same passages: FTS5 with the index's tokenizer, the words OR-ed as
    quoted strings (SQLiteStore.ftsQuery), FTS5's bm25() (k1 1.2, b 0.75: the same work as trove_bm25), depth 200."""
    import sqlite3
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(text, heading, tokenize = 'porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO f(text, heading) VALUES (?, ?)",
                   ((text, heading) for _ in range(copies) for _, heading, text in rows))
    db.commit()
    sql = "SELECT rowid, bm25(f) AS score FROM f WHERE f MATCH ? ORDER BY score, rowid LIMIT 200"
    match = [" OR ".join('"' + w.replace('"', '""') + '"' for w in q.split() if any(c.isalnum() for c in w))
             for q in sample]
    db.execute(sql, (match[0],)).fetchall()
    times = []
    for m in match:
        t = time.perf_counter()
        db.execute(sql, (m,)).fetchall()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return ("SQLite FTS5 bm25(), same passages (Trove's keyword engine), in process", statistics.median(times),
            times[int(len(times) * 0.9) - 1])
