#!/usr/bin/env bash
# Page load under concurrent clients, on loopback (issue 13's performance goal): a fleet of
# INSTANCES copies of the demo instance (41 jobs each; 50 → 2,050 jobs) read from one demo file,
# plus TROUBLE copies of each of the demo fleet's other eight instances (the zombie, the
# unreachable one, the stuck pg_cron job, the stopped event scheduler…), so the triage list has
# rows to render; served by the release binary as of a fixed now. wrk (Debian's) drives CLIENTS
# connections for SECONDS against each page and prints p50/p95/p99 and errors. Nothing here is
# a test: it prints figures (see README, "Measuring").
# POLL (default 1h) is how often each copy of the demo instance is read again: every read
# changes the data pages show (POLL=15s: 50 copies give 3 reads a second, as 200 instances read
# every minute would), so pages are rendered again as they would be for a live fleet.
#   [POLL=15s] end2end/load/run.sh [INSTANCES] [CLIENTS] [SECONDS] [TROUBLE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
instances=${1:-50}
clients=${2:-50}
seconds=${3:-15}
trouble=${4:-5}
poll=${POLL:-1h}
bin=${SUNDIAL_BIN:-$repo/target/release/sundial}
now=2026-11-22T12:00:00Z
command -v wrk >/dev/null || { echo "wrk is missing: make setup installs it (apt-get install wrk)" >&2; exit 1; }
[ -x "$bin" ] || { echo "no release binary at $bin: run make build" >&2; exit 1; }

dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" demo --out "$dir/demo.sqlite" --now "$now" >/dev/null
{
  echo "store = \"$dir/store.sqlite\""
  for i in $(seq -w 1 "$instances"); do
    printf '[[instance]]\nname = "SQL%s"\nkind = "sqlite_demo"\npath = "%s"\npoll_interval = "%s"\ntimeout = "300s"\n\n' "$i" "$dir/demo.sqlite" "$poll"
  done
  # The demo fleet's other instances (its fleet file's blocks after the first), each TROUBLE
  # times under a name of its own.
  python3 - "$dir/demo.fleet.toml" "$trouble" <<'PY'
import re, sys
# The demo's maintenance windows name its instances, which are renamed here: left out.
text = re.split(r"\n\[\[maintenance\]\]\n", open(sys.argv[1]).read())[0]
blocks = text.split("\n[[instance]]\n")[2:]
for k in range(1, int(sys.argv[2]) + 1):
    for b in blocks:
        print("[[instance]]\n" + re.sub(r'^name = "([^"]*)"', rf'name = "\1-{k}"', b, count=1))
PY
} > "$dir/fleet.toml"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LEPTOS_SITE_ROOT="$repo/target/site" LEPTOS_OUTPUT_NAME=sundial SUNDIAL_LOG=warn \
  "$bin" serve --config "$dir/fleet.toml" --now "$now" --addr "127.0.0.1:$port" >"$dir/out.log" 2>&1 &
pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 1 600); do curl -sf "$url/api/health" >/dev/null && break; sleep 0.1; done
# Pages are measured once every instance has been read (reads are the pollers' work, not the
# pages'): wait until none is still waiting for its first read.
for _ in $(seq 1 1200); do
  curl -sf "$url/api/instances" | python3 -c 'import json,sys; sys.exit(any(i["state"]=="Waiting" for i in json.load(sys.stdin)["instances"]))' && break
  sleep 0.25
done
jobs=$(curl -sf "$url/api/triage" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["judged_jobs"], "jobs judged on", v["judged_instances"], "instances,", len(v["problems"]), "problems")')
echo "fleet: $instances copies of SQLPROD01 (each read every $poll) and $trouble of the demo's 8 others; $jobs"
# Served: pages as clients get them (rendered once per change of data, then kept, see
# server/src/http/page_cache.rs). Rendered: every request a URL of its own, rendered afresh.
for page in /triage /fleet /api/triage "/jobs?days=7&instance=SQL01"; do
  curl -sf -o /dev/null "$url$page"  # the first request judges the fleet; the figures are for pages served from it
  printf 'served   %-26s ' "$page"
  wrk -t2 -c"$clients" -d"${seconds}s" -s "$here/percentiles.lua" "$url$page" | tail -n 1
done
# As a browser asks: compressed (every answer gzipped afresh, with its own script nonce).
for page in /triage /fleet; do
  printf 'gzipped  %-26s ' "$page"
  wrk -t2 -c"$clients" -d"${seconds}s" -H 'Accept-Encoding: gzip, deflate, br, zstd' -s "$here/percentiles.lua" "$url$page" | tail -n 1
done
for page in /triage /fleet; do
  printf 'rendered %-26s ' "$page"
  LOAD_DIR="$here" wrk -t2 -c"$clients" -d"${seconds}s" -s "$here/uncached.lua" "$url$page" | tail -n 1
done
