#!/usr/bin/env bash
# How a command reads its recording: the times the file is opened, the read
# calls on it and the bytes they read, against the file's size (strace -ff
# -y: every read of any thread on a descriptor of that file).
#
#   bench/recording_reads.sh FILE [COMMAND [ARGS...]]
#
# COMMAND defaults to `report` (output to /dev/null); SWPROF names the
# binary (default build/swprof). Prints one line:
#   opens=N reads=N bytes=N size=N bytes/size=R
set -euo pipefail
SWPROF="${SWPROF:-$(dirname "$0")/../build/swprof}"
file=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strace -ff -y -qq -s 0 -e trace=openat,read,pread64 -o "$tmp/t" "$SWPROF" "$@" "$file" > /dev/null 2>&1 || true
cat "$tmp"/t.* | awk -v f="$file" -v size="$(stat -c %s "$file")" '
  index($0, "<" f ">") && /^openat\(/ { opens++ }
  index($0, "<" f ">") && /^(pread64|read)\(/ { reads++; if ($NF ~ /^[0-9]+$/) bytes += $NF }
  END { printf "opens=%d reads=%d bytes=%d size=%d bytes/size=%.2f\n", opens, reads, bytes, size, bytes / size }'
