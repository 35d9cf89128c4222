#!/usr/bin/env python3
"""Prune old WAL-G base backups from the archive bucket.

Keeps the 14 most recent nightly backups plus the first backup of each month
for the last 12 months. Everything else is deleted with `wal-g delete`.

Usage:
    prune_old_backups.py            # dry run, prints what would go
    prune_old_backups.py --confirm  # actually delete

Runs from cron on the ops box at 03:00 UTC, after the nightly backup.
"""

import argparse
import json
import subprocess
import sys
from datetime import datetime, timezone

KEEP_NIGHTLY = 14
KEEP_MONTHS = 12


def list_backups():
    # wal-g prints one JSON object per backup with --json --detail.
    out = subprocess.run(
        ["wal-g", "backup-list", "--json", "--detail"],
        check=True, capture_output=True, text=True,
    ).stdout
    backups = json.loads(out)
    for b in backups:
        b["time"] = datetime.fromisoformat(b["time"].replace("Z", "+00:00"))
    return sorted(backups, key=lambda b: b["time"], reverse=True)


def choose_keepers(backups, now):
    keep = set()
    # The most recent nightly backups, whatever their age.
    for b in backups[:KEEP_NIGHTLY]:
        keep.add(b["backup_name"])
    # The earliest backup in each of the last KEEP_MONTHS calendar months.
    firsts = {}
    for b in reversed(backups):  # oldest first
        month = (b["time"].year, b["time"].month)
        age_months = (now.year - month[0]) * 12 + (now.month - month[1])
        if age_months < KEEP_MONTHS and month not in firsts:
            firsts[month] = b["backup_name"]
    keep.update(firsts.values())
    return keep


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--confirm", action="store_true", help="delete for real")
    args = parser.parse_args()

    backups = list_backups()
    if len(backups) < KEEP_NIGHTLY:
        # Something is wrong with the nightly job; never prune in that state.
        print(f"only {len(backups)} backups found, refusing to prune", file=sys.stderr)
        return 1

    keep = choose_keepers(backups, datetime.now(timezone.utc))
    doomed = [b["backup_name"] for b in backups if b["backup_name"] not in keep]

    for name in doomed:
        print(("deleting " if args.confirm else "would delete ") + name)
        if args.confirm:
            subprocess.run(["wal-g", "delete", "target", name, "--confirm"], check=True)

    print(f"kept {len(keep)}, {'deleted' if args.confirm else 'would delete'} {len(doomed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
