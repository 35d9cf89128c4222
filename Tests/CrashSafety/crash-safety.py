#!/usr/bin/env python3
"""Crash safety, counted: kills a real `trove index` with SIGKILL at random moments and checks the index after each.

    Tests/CrashSafety/crash-safety.py [--kills 100] [--reembed-kills 20] [--copies 20] [--trove .build/release/trove]

The folder is Corpora/ copied --copies times (--reembed-copies for the re-embed kills, default 1) (realistic names and sizes; the copies share their text, so later
copies reuse the first one's vectors, as a real folder with duplicates does). The embedder is the built-in one, so
no server is involved. First one uninterrupted run gives the reference index and its duration T. Then, until
--kills runs were killed mid-run: a fresh index, `trove index` killed with SIGKILL after a uniformly random delay in
[0, T), T the duration a whole run took in the trial before (the load of a shared machine moves it); a run that
finished before its kill is checked the same way and counted apart. On what the kill left:
`PRAGMA integrity_check` must say ok, no document may be half written (chunks 0..n-1 each with a vector), and a
rerun to completion must give exactly the reference index (same documents, chunks, text and hashes; vectors equal
within 1e-5, since a rerun embeds the remaining chunks in other batches). Then --reembed-kills times the same for
`trove index --reembed` over a complete index: after each kill every chunk must still have its vector (the old
set until the swap), and a rerun of --reembed must finish to the reference. Prints a table; exits 1 on any failure.
"""

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def contents(path):
    """Every document and chunk with its vector, ids left out (they differ between runs of the same content)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        """
        SELECT roots.path, documents.path, documents.content_hash, coalesce(chunks.ordinal, -1),
               coalesce(chunks.start_line, 0), coalesce(chunks.end_line, 0), coalesce(chunks.heading, ''),
               coalesce(chunks.text, ''), coalesce(chunks.content_hash, ''), vectors.embedding
        FROM documents JOIN roots ON roots.id = documents.root_id
        LEFT JOIN chunks ON chunks.document_id = documents.id
        LEFT JOIN vectors ON vectors.chunk_id = chunks.id
        ORDER BY roots.path, documents.path, chunks.ordinal
        """
    ).fetchall()
    db.close()
    return rows


def copy(source, destination):
    """A whole copy of the index at `source`, its WAL included (SQLite's backup, not a copy of the main file)."""
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as db, sqlite3.connect(destination) as out:
        db.backup(out)


def check(path):
    """Problems of the index at `path` as found right after a kill: integrity and half-written documents."""
    problems = []
    if not os.path.exists(path):
        return problems  # killed before the file was created: nothing to check
    db = sqlite3.connect(path)
    integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    if integrity != "ok":
        problems.append(f"integrity_check: {integrity}")
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "documents" in tables:
        half = db.execute(
            """
            SELECT documents.path FROM documents
            LEFT JOIN chunks ON chunks.document_id = documents.id
            LEFT JOIN vectors ON vectors.chunk_id = chunks.id
            GROUP BY documents.id
            HAVING count(chunks.id) != count(vectors.chunk_id)
                OR (count(chunks.id) > 0 AND (min(chunks.ordinal) != 0 OR max(chunks.ordinal) != count(chunks.id) - 1))
            """
        ).fetchall()
        if half:
            problems.append(f"{len(half)} half-written documents, e.g. {half[0][0]}")
    db.close()
    return problems


def same(reference, rows):
    """None when `rows` equal `reference` (vectors within 1e-5), else the first difference."""
    import struct

    if len(rows) != len(reference):
        return f"{len(rows)} rows, expected {len(reference)}"
    for a, b in zip(reference, rows):
        if a[:9] != b[:9]:
            return f"row differs: {b[:3]} vs {a[:3]}"
        if (a[9] is None) != (b[9] is None):
            return f"vector missing for {b[1]}"
        if a[9] is not None:
            if len(a[9]) != len(b[9]):
                return f"vector length differs for {b[1]}"
            if a[9] != b[9]:
                x = struct.unpack(f"<{len(a[9]) // 4}f", a[9])
                y = struct.unpack(f"<{len(b[9]) // 4}f", b[9])
                if max(abs(p - q) for p, q in zip(x, y)) > 1e-5:
                    return f"vector differs for {b[1]}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--reembed-kills", type=int, default=20)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--reembed-copies", type=int, default=1)
    parser.add_argument("--trove", default=os.path.join(ROOT, ".build/release/trove"))
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    random.seed(args.seed)
    work = tempfile.mkdtemp(prefix="trove-crash-")
    environment = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    # A copy of the binary: a rebuild during an hour-long run must not change the program under test midway.
    binary = os.path.join(work, "trove")
    shutil.copy2(args.trove, binary)
    began = time.monotonic()

    def run(index, folder, *extra):
        env = dict(environment, TROVE_INDEX=index)
        return subprocess.run(
            [binary, "index", "--embedder", "builtin", *extra, folder], env=env, capture_output=True, text=True)

    def prepare(copies):
        """The folder of `copies` copies of Corpora/, its uninterrupted index, that index's rows and duration."""
        folder = os.path.join(work, f"corpus-x{copies}")
        for copy in range(copies):
            shutil.copytree(os.path.join(ROOT, "Corpora"), os.path.join(folder, f"copy{copy:02d}"))
        reference_path = os.path.join(work, f"reference-x{copies}.sqlite")
        started = time.monotonic()
        done = run(reference_path, folder)
        duration = time.monotonic() - started
        if done.returncode != 0:
            sys.exit(f"the uninterrupted run failed: {done.stderr}")
        reference = contents(reference_path)
        documents = len({(r[0], r[1]) for r in reference})
        print(f"folder: Corpora x{copies} = {documents} documents, {len(reference)} chunks; "
              f"uninterrupted run {duration:.1f} s", flush=True)
        return folder, reference_path, reference, duration

    def trial(index, folder, reference, limit, reembed):
        """One kill at a random moment in [0, limit); returns (killed mid-run, problems, how long a whole run
        took this time: the run's own duration when it finished first, else the kill's delay plus the rerun's)."""
        delay = random.uniform(0, limit)
        started = time.monotonic()
        env = dict(environment, TROVE_INDEX=index)
        extra = ["--reembed"] if reembed else []
        process = subprocess.Popen(
            [binary, "index", "--embedder", "builtin", *extra, folder], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=delay)
            killed = False
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            killed = True
        took = time.monotonic() - started
        problems = check(index)
        if reembed and os.path.exists(index):
            db = sqlite3.connect(index)
            missing = db.execute(
                "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)").fetchone()[0]
            db.close()
            if missing:
                problems.append(f"{missing} chunks without a vector mid-reembed")
        rerun_started = time.monotonic()
        rerun = run(index, folder, *extra)
        if killed:
            took += time.monotonic() - rerun_started
        if rerun.returncode != 0:
            problems.append(f"rerun failed ({rerun.returncode}): {rerun.stderr.strip()[-200:]}")
        else:
            difference = same(reference, contents(index))
            if difference:
                problems.append("rerun differs from the uninterrupted index: " + difference)
        return killed, problems, took

    phases = []
    if args.kills:
        folder, reference_path, reference, duration = prepare(args.copies)
        phases.append(("index", args.kills, False, folder, reference_path, reference, duration))
    if args.reembed_kills:
        # --reembed embeds every chunk again (no reuse between copies), so it runs on fewer copies.
        folder, reference_path, reference, _ = prepare(args.reembed_copies)
        timing = os.path.join(work, "reembed-timing.sqlite")
        copy(reference_path, timing)
        started = time.monotonic()
        if run(timing, folder, "--reembed").returncode != 0:
            sys.exit("the uninterrupted --reembed failed")
        duration = time.monotonic() - started
        print(f"uninterrupted --reembed of Corpora x{args.reembed_copies}: {duration:.1f} s", flush=True)
        phases.append(("index --reembed", args.reembed_kills, True, folder, reference_path, reference, duration))

    failures = 0
    results = []
    for label, count, reembed, folder, reference_path, reference, duration in phases:
        killed_total = 0
        passed = 0
        trials = 0
        # `count` kills mid-run: a run that finishes before its kill is checked too, but counted apart. The load of
        # a shared machine changes a run's duration by a factor of two or more, so the kill's window follows the
        # duration seen in the latest trial instead of the first run's alone.
        while killed_total < count and trials < 3 * count:
            index = os.path.join(work, f"trial-{label.replace(' ', '')}-{trials}.sqlite")
            trials += 1
            if reembed:
                copy(reference_path, index)
            killed, problems, took = trial(index, folder, reference, duration, reembed)
            duration = took
            killed_total += killed
            if problems:
                failures += 1
            else:
                passed += 1
            verdict = "; ".join(problems) if problems else "ok"
            print(f"  {label} trial {trials}: {'killed' if killed else 'finished first'} "
                  f"({killed_total}/{count} kills), {verdict} ({time.monotonic() - began:.0f} s in)", flush=True)
            for suffix in ["", "-wal", "-shm", ".vectors", ".lock"]:
                if os.path.exists(index + suffix):
                    os.remove(index + suffix)
        results.append((label, trials, killed_total, passed))
        print(f"{label}: {passed}/{trials} consistent after a kill and equal to the uninterrupted index after a rerun "
              f"({killed_total} killed mid-run, {trials - killed_total} finished before the kill)", flush=True)
    shutil.rmtree(work)
    print()
    print(f"{time.monotonic() - began:.0f} s in all")
    print("| run killed | trials | killed mid-run | finished before the kill | consistent + rerun equal |")
    print("| --- | --- | --- | --- | --- |")
    for label, trials, killed, passed in results:
        print(f"| `trove {label}` | {trials} | {killed} | {trials - killed} | {passed}/{trials} |")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
