#!/usr/bin/env bash
# rotate-logs.sh — rotate and compress the worker's application logs.
#
# Added after the 2024-09-04 disk-full incident, when the logrotate config went
# missing from the image. Runs from cron every hour:
#   0 * * * * /app/scripts/rotate-logs.sh >> /var/log/rotate-logs.out 2>&1
#
# Keeps 7 compressed generations per log and deletes PDF temp files older
# than an hour.

set -euo pipefail

LOG_DIR="${LOG_DIR:-/app/log}"
KEEP="${KEEP:-7}"
MAX_BYTES=$((100 * 1024 * 1024))   # rotate once a log passes 100 MB

for log in "$LOG_DIR"/*.log; do
  [ -e "$log" ] || continue          # glob matched nothing
  size=$(stat -c %s "$log")
  if [ "$size" -lt "$MAX_BYTES" ]; then
    continue
  fi

  # Shift old generations: app.log.6.gz -> app.log.7.gz, and so on.
  for ((i = KEEP - 1; i >= 1; i--)); do
    if [ -e "$log.$i.gz" ]; then
      mv -f "$log.$i.gz" "$log.$((i + 1)).gz"
    fi
  done

  # Copy then truncate, so the running process keeps its file handle.
  cp "$log" "$log.1"
  : > "$log"
  gzip -f "$log.1"
  rm -f "$log.$((KEEP + 1)).gz"
  echo "$(date -u +%FT%TZ) rotated $log ($size bytes)"
done

# Ghostscript leaves these behind when a render times out.
find /tmp -maxdepth 1 -name 'gs_*' -mmin +60 -delete

# Warn loudly if the disk is still tight after rotation.
used=$(df --output=pcent / | tail -1 | tr -dc '0-9')
if [ "$used" -ge 85 ]; then
  echo "$(date -u +%FT%TZ) WARNING: root filesystem at ${used}%" >&2
fi
