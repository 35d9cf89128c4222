#!/usr/bin/env python3
"""trove watch, measured with the release binary and the built-in embedder (issue 17).

1. latency: a file in a copy of Corpora/ is saved as editors do (temp file, rename over it); the time from the
   rename to the first `trove search --mode keyword` that finds the new word, and the pass's own seconds.
2. burst: `git checkout` of a branch that changes 1,000 files under the watched folder: how many passes.
3. idle and memory: a watched tree of N files (N/20 folders): CPU seconds the watcher uses over IDLE seconds with
   no change, and its RSS after the catch-up pass. The files repeat 50 texts, so indexing them costs little
   embedding (vectors are reused by passage hash) and the tree can be large.

Usage: Benchmarks/bench-watch.py [--trials 10] [--idle 60] [--sizes 10000,100000]   (after swift build -c release)
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, threading, time

BIN = os.path.abspath(".build/release/trove")
TICK = os.sysconf("SC_CLK_TCK")


class Watch:
    """A `trove watch --json` child; its JSON lines collected as they come."""

    def __init__(self, index, *folders):
        self.passes = []
        self.proc = subprocess.Popen([BIN, "watch", "--json", "--index", index, *folders],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.passes.append((time.monotonic(), json.loads(line)))

    def wait_passes(self, count, timeout=600):
        end = time.monotonic() + timeout
        while len(self.passes) < count and time.monotonic() < end:
            time.sleep(0.01)
        return len(self.passes) >= count

    def cpu_seconds(self):
        fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def rss_mb(self):
        status = dict(l.split(":", 1) for l in open(f"/proc/{self.proc.pid}/status"))
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def index(index_path, folder):
    subprocess.run([BIN, "index", "--quiet", "--embedder", "builtin", "--index", index_path, folder], check=True,
                   stdout=subprocess.DEVNULL)


def search_finds(index_path, word):
    out = subprocess.run([BIN, "search", "--mode", "keyword", "-n", "1", "--index", index_path, word],
                         capture_output=True, text=True).stdout
    return word in out


def latency(work, trials):
    notes = os.path.join(work, "corpora")
    shutil.copytree("Corpora", notes)
    db = os.path.join(work, "latency.sqlite")
    index(db, notes)
    watch = Watch(db)
    watch.wait_passes(1)
    target = os.path.join(notes, "engineering", "deploy.md")
    rows = []
    for trial in range(trials):
        word = f"zqxmarker{trial}w"
        before = len(watch.passes)
        text = open(target).read() + f"\n\nA new paragraph about {word} and the rotation schedule.\n"
        with open(target + ".tmp", "w") as f:
            f.write(text)
        start = time.monotonic()
        os.rename(target + ".tmp", target)
        while not search_finds(db, word):
            if time.monotonic() - start > 60:
                raise SystemExit("search never saw the edit")
        seen = time.monotonic() - start
        watch.wait_passes(before + 1)
        summary = watch.passes[before][1]["summary"]
        rows.append((seen, summary["seconds"], summary["chunks_embedded"]))
        time.sleep(0.5)
    watch.stop()
    rows.sort()
    print("| rename → first search that sees it | median | min | max | pass seconds (median) | chunks embedded/pass |")
    print("|---|---|---|---|---|---|")
    median = rows[len(rows) // 2]
    passes = sorted(r[1] for r in rows)
    print(f"| {trials} saves of Corpora/engineering/deploy.md | {median[0]:.2f} s | {rows[0][0]:.2f} s | "
          f"{rows[-1][0]:.2f} s | {passes[len(passes) // 2]:.2f} s | {median[2]} |")


def burst(work):
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    git = lambda *a: subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True)
    git("init", "-q", "-b", "a")
    git("config", "user.email", "bench@trove")
    git("config", "user.name", "bench")
    for i in range(1000):
        folder = os.path.join(repo, f"dir{i % 40}")
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, f"n{i}.md"), "w").write(f"# Note {i}\n\nversion a, topic {i % 25}\n")
    git("add", "-A")
    git("commit", "-qm", "a")
    git("checkout", "-q", "-b", "b")
    for i in range(1000):
        open(os.path.join(repo, f"dir{i % 40}", f"n{i}.md"), "w").write(f"# Note {i}\n\nversion b, topic {i % 25}\n")
    git("commit", "-qam", "b")
    git("checkout", "-q", "a")
    db = os.path.join(work, "burst.sqlite")
    index(db, repo)
    watch = Watch(db)
    watch.wait_passes(1)
    start = time.monotonic()
    git("checkout", "-q", "b")
    checkout = time.monotonic() - start
    watch.wait_passes(2)
    time.sleep(4)  # anything after the first pass would be a second one
    after = [p for _, p in watch.passes[1:]]
    watch.stop()
    changed = sum(p["summary"]["changed"] for p in after)
    print("| git checkout changing 1,000 files | checkout s | passes | documents changed | pass seconds |")
    print("|---|---|---|---|---|")
    print(f"| 40 folders | {checkout:.2f} | {len(after)} | {changed} | "
          f"{', '.join('%.2f' % p['summary']['seconds'] for p in after)} |")


def idle(work, sizes, seconds):
    print(f"| files watched | folders | catch-up pass s | RSS after it MB | peak RSS MB | CPU over {seconds} s idle |")
    print("|---|---|---|---|---|---|")
    for size in sizes:
        tree = os.path.join(work, f"tree{size}")
        for i in range(size):
            folder = os.path.join(tree, f"d{i % (size // 20)}")
            os.makedirs(folder, exist_ok=True)
            open(os.path.join(folder, f"f{i}.md"), "w").write(f"# Shared {i % 50}\n\nthe same text {i % 50}\n")
        db = os.path.join(work, f"tree{size}.sqlite")
        index(db, tree)
        watch = Watch(db)
        watch.wait_passes(1)
        catch_up = watch.passes[0][1]["summary"]["seconds"]
        time.sleep(1)
        rss, peak = watch.rss_mb()
        cpu = watch.cpu_seconds()
        time.sleep(seconds)
        used = watch.cpu_seconds() - cpu
        watch.stop()
        print(f"| {size:,} | {size // 20:,} | {catch_up:.2f} | {rss:.0f} | {peak:.0f} | {used:.2f} s |")
        shutil.rmtree(tree)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--idle", type=int, default=60)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--only", default="latency,burst,idle")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="trove-bench-watch-")
    try:
        parts = args.only.split(",")
        if "latency" in parts:
            latency(work, args.trials)
        if "burst" in parts:
            burst(work)
        if "idle" in parts:
            idle(work, [int(s) for s in args.sizes.split(",")], args.idle)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
