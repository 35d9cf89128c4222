#!/usr/bin/env python3
"""Checks that the documentation's links lead somewhere, and that measurements cited in comments name a heading.

1. Every relative link of every tracked Markdown file, `[text](path)` or `[text](path#anchor)`, names a file or
   folder that exists and, for a Markdown file, a heading whose GitHub anchor is `anchor`.
2. Every `BENCHMARKS.md#anchor` or `Benchmarks/notes/FILE.md#anchor` in a source, test or script names a heading
   that exists.
3. No comment line of a source, test or script cites `BENCHMARKS.md` without an anchor (strings a user sees are
   not comments and are left alone).

Usage: Scripts/check-doc-links.py      (from anywhere; exits 1 and lists each problem)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor of a Markdown file's headings (outside code blocks), with GitHub's -1, -2 for repeats."""
    seen, found, fenced = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"^#{1,6} (.*)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check(target, anchor, origin, problems):
    if not os.path.exists(target):
        problems.append(f"{origin}: no such file: {os.path.relpath(target, ROOT)}")
    elif anchor and target.endswith(".md") and anchor not in anchors(target):
        problems.append(f"{origin}: no heading #{anchor} in {os.path.relpath(target, ROOT)}")


def main():
    files = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    problems = []
    for name in files:
        path = os.path.join(ROOT, name)
        if not os.path.isfile(path) or name == "Scripts/check-doc-links.py":
            continue
        if name.endswith(".md"):
            fenced = False
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                if line.startswith("```"):
                    fenced = not fenced
                if fenced:
                    continue
                for link in re.findall(r"\]\(([^)\s]+)\)", line):
                    if re.match(r"[a-z]+:", link):
                        continue
                    file, _, anchor = link.partition("#")
                    target = os.path.join(os.path.dirname(path), file) if file else path
                    check(os.path.normpath(target), anchor, f"{name}:{number}", problems)
        elif re.search(r"\.(swift|c|h|sh|py)$", name):
            for number, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                for file, anchor in re.findall(r"((?:Benchmarks/notes/[\w.-]+|BENCHMARKS)\.md)#([\w-]+)", line):
                    file = file if file.startswith("Benchmarks/") else "BENCHMARKS.md"
                    check(os.path.join(ROOT, file), anchor, f"{name}:{number}", problems)
                marks = ("#",) if name.endswith((".sh", ".py")) else ("//", "/*", "*")
                comment = line.lstrip().startswith(marks)
                if comment and re.search(r"BENCHMARKS\.md(?!#)", line):
                    problems.append(f"{name}:{number}: BENCHMARKS.md cited without a heading (BENCHMARKS.md#anchor)")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
