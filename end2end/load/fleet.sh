#!/usr/bin/env bash
# A live fleet under page load (issue 14's proof): INSTANCES SQL Agent instances of JOBS jobs
# each (the demo's SQLPROD01 cut to its first JOBS jobs, 60 days of history), plus TROUBLE copies
# of the demo fleet's eight other instances, every instance read every POLL as a configured
# fleet is. wrk (Debian's) drives each client count in CLIENTS for SECONDS against the fleet,
# triage and job pages and the API, and prints p50/p95/p99/max and errors; then how many reads
# the sources got during the load against as long a quiet stretch before it (reads are the
# pollers', one per instance per interval, whatever the pages' load). Figures, not a test.
#   [POLL=60s] [CLIENTS="50 200"] end2end/load/fleet.sh [INSTANCES] [JOBS] [SECONDS] [TROUBLE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
instances=${1:-200}
jobs=${2:-20}
seconds=${3:-15}
trouble=${4:-2}
poll=${POLL:-60s}
clients=${CLIENTS:-50 200}
bin=${SUNDIAL_BIN:-$repo/target/release/sundial}
now=2026-11-22T12:00:00Z
command -v wrk >/dev/null || { echo "wrk is missing: make setup installs it (apt-get install wrk)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing: make setup installs it" >&2; exit 1; }
[ -x "$bin" ] || { echo "no release binary at $bin: run make build" >&2; exit 1; }

dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" demo --out "$dir/demo.sqlite" --now "$now" >/dev/null
# SQLPROD01 with its first $jobs jobs (by name) and only their rows.
cp "$dir/demo.sqlite" "$dir/agent.sqlite"
sqlite3 "$dir/agent.sqlite" <<SQL
DELETE FROM sysjobs WHERE job_id NOT IN (SELECT job_id FROM sysjobs ORDER BY name LIMIT $jobs);
DELETE FROM sysjobsteps WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
DELETE FROM sysjobschedules WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
DELETE FROM sysjobhistory WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
DELETE FROM sysjobactivity WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
VACUUM;
SQL
rows=$(sqlite3 "$dir/agent.sqlite" 'SELECT count(*) FROM sysjobhistory')
{
  echo "store = \"$dir/store.sqlite\""
  for i in $(seq -w 1 "$instances"); do
    printf '[[instance]]\nname = "SQL%s"\nkind = "sqlite_demo"\npath = "%s"\npoll_interval = "%s"\ntimeout = "300s"\n\n' "$i" "$dir/agent.sqlite" "$poll"
  done
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
for _ in $(seq 1 2400); do
  curl -sf "$url/api/instances" | python3 -c 'import json,sys; sys.exit(any(i["state"]=="Waiting" for i in json.load(sys.stdin)["instances"]))' && break
  sleep 0.25
done
# Counted from an answer of its own (a URL never asked before: not one kept from before).
reads() { curl -sf "$url/api/instances?at=$(date +%s%N)" | python3 -c 'import json,sys; print(sum(i.get("reads",0) for i in json.load(sys.stdin)["instances"]))'; }
# What the poll intervals make in $seconds s, whatever the load: from the fleet file (the
# demo's copies are frozen reads, and the API gives no poll interval for those).
expected=$(python3 - "$dir/fleet.toml" "$seconds" <<'PY'
import re, sys
unit = {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}
total = 0.0
for n, u in re.findall(r'^poll_interval = "(\d+)\s*([a-z]+)"', open(sys.argv[1]).read(), re.M):
    total += float(sys.argv[2]) / (int(n) * unit[u])
print(round(total))
PY
)
summary=$(curl -sf "$url/api/triage" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["judged_jobs"], "jobs judged on", v["judged_instances"], "instances,", len(v["problems"]), "problems")')
job=$(curl -sf "$url/api/jobs?instance=SQL$(printf '%0*d' ${#instances} 1)&days=7" | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["id"])')
first="SQL$(printf '%0*d' ${#instances} 1)"
echo "fleet: $instances SQL Agent instances of $jobs jobs ($rows history rows each), read every $poll, and $trouble of the demo's 8 others; $summary"
echo "process: $(ps -o rss= -p "$pid" | awk '{printf "%.0f MB resident", $1/1024}')"
# SETTLE=seconds: wait that long after every instance's first read, for the burst of second
# reads that the first ones delayed to pass before measuring.
sleep "${SETTLE:-0}"
# A quiet stretch as long as one page's load, for the reads the pollers make on their own.
r0=$(reads); sleep "$seconds"; r1=$(reads)
echo "quiet ${seconds}s: $((r1 - r0)) reads (the poll intervals make about $expected in ${seconds}s)"
for c in $clients; do
  for page in /fleet /triage "/jobs/$job?instance=$first" "/jobs?days=7&instance=$first" /api/triage "/api/instances/$first/jobs"; do
    before=$(reads)
    printf 'c=%-4s %-44s ' "$c" "$page"
    # Every answer compressed, as browsers ask.
    wrk -t2 -c"$c" -d"${seconds}s" --timeout 10s -H 'Accept-Encoding: gzip, deflate, br, zstd' \
      -s "$here/percentiles.lua" "$url$page" | tail -n 1 | tr -d '\n'
    echo "  reads $(( $(reads) - before ))"
  done
done
echo "process: $(ps -o rss= -p "$pid" | awk '{printf "%.0f MB resident", $1/1024}')"
