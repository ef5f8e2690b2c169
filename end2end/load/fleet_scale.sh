#!/usr/bin/env bash
# Collection at fleet scale (issue 27's figures): INSTANCES live SQL Agent instances of JOBS jobs
# each, every one its own msdb-shaped SQLite file (the demo's SQLPROD01 simulated up to the real
# clock, cut to its first JOBS jobs, 60 days of history, made live: sundial_demo.now_utc NULL),
# served as a fleet read every POLL on the real clock (no --now), with Sundial's store, while an
# appender (python3's sqlite3) writes a new run (its step rows and outcome row, the next
# instance_ids, SQL Agent's own messages) into every file each APPEND_EVERY seconds, so that
# every poll has rows to read past its mark. Prints: the time until every instance's first read;
# resident memory (rss, and the peak VmHWM) after the first reads and after CYCLES poll cycles;
# the CPU seconds the process spent in each cycle; then, while polling goes on, wrk at CLIENTS
# clients for SECONDS per page against /fleet, /triage, a job page and the JSON API: p50, p95,
# p99, max and errors. Figures, not a test.
# REPLICAS=2: two replicas of Sundial over one PostgreSQL store (a throwaway PostgreSQL 15 from
# .ci/pg-test-server): each instance must be read by one replica per interval, and each
# replica's memory is printed; the pages are then measured on the first.
#   [POLL=60s] [CYCLES=10] [SECONDS=15] [CLIENTS=50] [APPEND_EVERY=60] [REPLICAS=1] \
#     end2end/load/fleet_scale.sh [INSTANCES (1000)] [JOBS (20)]
# (INSTANCES and JOBS may be given in the environment too; SUNDIAL_BIN: the binary, default the
# release build; LEPTOS_SITE_ROOT: its site, default target/site beside it.)
set -euo pipefail
# SECONDS is bash's own clock: only a value the caller exported counts.
seconds=$(printenv SECONDS || echo 15)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
instances=${1:-${INSTANCES:-1000}}
jobs=${2:-${JOBS:-20}}
poll=${POLL:-60s}
cycles=${CYCLES:-10}
clients=${CLIENTS:-50}
append_every=${APPEND_EVERY:-60}
replicas=${REPLICAS:-1}
bin=${SUNDIAL_BIN:-$repo/target/release/sundial}
site=${LEPTOS_SITE_ROOT:-$(dirname "$(dirname "$bin")")/site}
command -v wrk >/dev/null || { echo "wrk is missing: make setup installs it (apt-get install wrk)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing: make setup installs it" >&2; exit 1; }
[ -x "$bin" ] || { echo "no release binary at $bin: run make build" >&2; exit 1; }
[ -d "$site" ] || { echo "no site at $site: set LEPTOS_SITE_ROOT" >&2; exit 1; }
poll_secs=$(python3 -c '
import re, sys
n, u = re.fullmatch(r"(\d+)\s*(ms|s|sec|m|min|h)", sys.argv[1]).groups()
print(max(1, round(int(n) * {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}[u])))' "$poll")

dir=$(mktemp -d)
pid=''
pid2=''
appender=''
cleanup() {
  [ -n "$appender" ] && kill "$appender" 2>/dev/null || true
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  [ -n "$pid2" ] && kill "$pid2" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -d "$dir/pg" ] && "$repo/.ci/pg-test-server" stop "$dir/pg" || true
  rm -rf "$dir"
}
trap cleanup EXIT

# The demo simulated up to the current minute: its last runs are just before the real clock.
now=$(date -u +%Y-%m-%dT%H:%M:00Z)
"$bin" demo --out "$dir/demo.sqlite" --now "$now" >/dev/null
cp "$dir/demo.sqlite" "$dir/agent.sqlite"
sqlite3 "$dir/agent.sqlite" <<SQL
DELETE FROM sysjobs WHERE job_id NOT IN (SELECT job_id FROM sysjobs ORDER BY name LIMIT $jobs);
DELETE FROM sysjobsteps WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
DELETE FROM sysjobschedules WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
DELETE FROM sysjobhistory WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
DELETE FROM sysjobactivity WHERE job_id NOT IN (SELECT job_id FROM sysjobs);
-- The runs going at the demo's now are left ended without an outcome (the appender writes
-- whole runs): their activity stopped, their step rows gone.
UPDATE sysjobactivity SET stop_execution_date = start_execution_date
  WHERE start_execution_date IS NOT NULL AND stop_execution_date IS NULL;
DELETE FROM sysjobhistory WHERE step_id > 0 AND instance_id >
  (SELECT COALESCE(MAX(o.instance_id), 0) FROM sysjobhistory o WHERE o.job_id = sysjobhistory.job_id AND o.step_id = 0);
-- Live: read as of each poll, incrementally (the meta row made anew: a file from an older
-- demo has now_utc NOT NULL).
CREATE TABLE sundial_live AS
  SELECT instance_name, time_zone, NULL AS now_utc, seed, history_days, generator FROM sundial_demo;
DROP TABLE sundial_demo;
ALTER TABLE sundial_live RENAME TO sundial_demo;
VACUUM;
SQL
rows=$(sqlite3 "$dir/agent.sqlite" 'SELECT count(*) FROM sysjobhistory')
days=$(sqlite3 "$dir/agent.sqlite" "SELECT julianday(substr(MAX(run_date),1,4)||'-'||substr(MAX(run_date),5,2)||'-'||substr(MAX(run_date),7,2)) - julianday(substr(MIN(run_date),1,4)||'-'||substr(MIN(run_date),5,2)||'-'||substr(MIN(run_date),7,2)) FROM sysjobhistory")
size=$(stat -c %s "$dir/agent.sqlite")
runs=$(sqlite3 "$dir/agent.sqlite" "SELECT count(*) FROM sysjobhistory WHERE step_id = 0 AND run_date >= CAST(strftime('%Y%m%d', 'now', '-30 days') AS INTEGER)")
# Each instance its own file: the appender writes to each.
mkdir "$dir/agents"
width=${#instances}
for i in $(seq -w 1 "$instances"); do cp "$dir/agent.sqlite" "$dir/agents/SQL$i.sqlite"; done
first="SQL$(printf '%0*d' "$width" 1)"
store="$dir/store.sqlite"
if [ "$replicas" = 2 ]; then
  # PostgreSQL runs as its own OS user: it must get through the directory to its own.
  chmod 755 "$dir"
  pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$repo/.ci/pg-test-server" start "$dir/pg" "$pg_port" >/dev/null
  psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -c 'CREATE DATABASE sundial_store' >/dev/null
  store="postgres://postgres@127.0.0.1:$pg_port/sundial_store"
fi
{
  echo "store = \"$store\""
  for i in $(seq -w 1 "$instances"); do
    printf '[[instance]]\nname = "SQL%s"\nkind = "sqlite_demo"\npath = "%s"\npoll_interval = "%s"\ntimeout = "300s"\n\n' \
      "$i" "$dir/agents/SQL$i.sqlite" "$poll"
  done
} > "$dir/fleet.toml"

# The appender: every APPEND_EVERY seconds, one whole run of one job (the next, round) in every
# file, as SQL Agent writes it: a row per step, then the outcome row, the next instance_ids, in
# the instance's local time; one run in twenty fails at its last step.
cat > "$dir/append.py" <<'PY'
import glob, random, sqlite3, sys, time, datetime, zoneinfo
files, every = sorted(glob.glob(sys.argv[1] + "/*.sqlite")), float(sys.argv[2])
rnd, round_, locked = random.Random(27), 0, 0
def hms(secs):
    return secs // 3600 * 10000 + secs % 3600 // 60 * 100 + secs % 60
while True:
    began, appended = time.monotonic(), 0
    for path in files:
        db = sqlite3.connect(path, timeout=10)
        tz = zoneinfo.ZoneInfo(db.execute("SELECT time_zone FROM sundial_demo").fetchone()[0])
        jobs = db.execute("SELECT job_id, name FROM sysjobs ORDER BY name").fetchall()
        job_id, _ = jobs[round_ % len(jobs)]
        steps = db.execute("SELECT step_id, step_name FROM sysjobsteps WHERE job_id = ? ORDER BY step_id", (job_id,)).fetchall() or [(1, "Step 1")]
        sched = db.execute("SELECT s.schedule_id, s.name FROM sysjobschedules js JOIN sysschedules s ON s.schedule_id = js.schedule_id WHERE js.job_id = ? ORDER BY s.schedule_id LIMIT 1", (job_id,)).fetchone()
        invoked = f"Schedule {sched[0]} ({sched[1]})" if sched else "User CORP\\svc_ops"
        server = db.execute("SELECT instance_name FROM sundial_demo").fetchone()[0]
        failed = rnd.random() < 0.05
        per_step = [rnd.randint(1, 20) for _ in steps]
        start = datetime.datetime.now(tz).replace(microsecond=0) - datetime.timedelta(seconds=sum(per_step) + 1)
        rows, at = [], start
        for k, ((step_id, step_name), secs) in enumerate(zip(steps, per_step)):
            last = k == len(steps) - 1
            ok = not (failed and last)
            msg = ("Executed as user: CORP\\svc_sqlagent. The step succeeded." if ok else
                   "Executed as user: CORP\\svc_sqlagent. Cannot insert duplicate key row in object 'dbo.Load' with unique index 'IX_Load'. [SQLSTATE 23000] (Error 2601).  The step failed.")
            rows.append((job_id, step_id, step_name, 0 if ok else 2601, 0 if ok else 14, msg, 1 if ok else 0,
                         int(at.strftime("%Y%m%d")), int(at.strftime("%H%M%S")), hms(secs), server))
            at += datetime.timedelta(seconds=secs)
        last_id, last_name = steps[-1]
        outcome = ("The job succeeded." if not failed else "The job failed.") + \
            f"  The Job was invoked by {invoked}.  The last step to run was step {last_id} ({last_name})."
        rows.append((job_id, 0, "(Job outcome)", 0, 0, outcome, 0 if failed else 1,
                     int(start.strftime("%Y%m%d")), int(start.strftime("%H%M%S")), hms(sum(per_step)), server))
        try:
            with db:
                db.executemany("INSERT INTO sysjobhistory (job_id, step_id, step_name, sql_message_id, sql_severity, message, run_status, run_date, run_time, run_duration, operator_id_emailed, operator_id_netsent, operator_id_paged, retries_attempted, server) VALUES (?,?,?,?,?,?,?,?,?,?,0,0,0,0,?)", rows)
            appended += len(rows)
        except sqlite3.OperationalError:
            # A reader held the file past the timeout (rollback journal: a writer waits for
            # every reader): this file's run is left out this round, and counted.
            locked += 1
        db.close()
    took = time.monotonic() - began
    print(f"round {round_}: {appended} rows into {len(files)} files in {took:.1f}s ({locked} locked files skipped so far)", flush=True)
    round_ += 1
    time.sleep(max(0.0, every - took))
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
started=$(date +%s.%N)
# The real clock: no --now (nor SUNDIAL_NOW).
env -u SUNDIAL_NOW LEPTOS_SITE_ROOT="$site" LEPTOS_OUTPUT_NAME=sundial SUNDIAL_LOG=warn \
  "$bin" serve --config "$dir/fleet.toml" --addr "127.0.0.1:$port" >"$dir/out.log" 2>&1 &
pid=$!
if [ "$replicas" = 2 ]; then
  port2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  url2="http://127.0.0.1:$port2"
  env -u SUNDIAL_NOW LEPTOS_SITE_ROOT="$site" LEPTOS_OUTPUT_NAME=sundial SUNDIAL_LOG=warn \
    "$bin" serve --config "$dir/fleet.toml" --addr "127.0.0.1:$port2" >"$dir/out2.log" 2>&1 &
  pid2=$!
fi
python3 "$dir/append.py" "$dir/agents" "$append_every" >"$dir/append.log" 2>&1 &
appender=$!
for _ in $(seq 1 600); do curl -sf "$url/api/health" >/dev/null && break; sleep 0.1; done
listening=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started")
until curl -sf "$url/api/instances?at=$(date +%s%N)" | python3 -c 'import json,sys; sys.exit(any(i["state"]=="Waiting" for i in json.load(sys.stdin)["instances"]))'; do
  kill -0 "$pid" 2>/dev/null || { echo "sundial stopped:" >&2; tail -n 20 "$dir/out.log" >&2; exit 1; }
  sleep 0.25
done
if [ "$replicas" = 2 ]; then
  until curl -sf "$url2/api/instances?at=$(date +%s%N)" | python3 -c 'import json,sys; sys.exit(any(i["state"]=="Waiting" for i in json.load(sys.stdin)["instances"]))'; do
    kill -0 "$pid2" 2>/dev/null || { echo "the second replica stopped:" >&2; tail -n 20 "$dir/out2.log" >&2; exit 1; }
    sleep 0.25
  done
fi
read_all=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started")

# Counted from an answer of its own (a URL never asked before: not one kept from before).
instances_json() { curl -sf "$url/api/instances?at=$(date +%s%N)"; }
reads() { instances_json | python3 -c 'import json,sys; print(sum(i.get("reads",0) for i in json.load(sys.stdin)["instances"]))'; }
unreachable() { instances_json | python3 -c 'import json,sys; print(sum(i["state"]!="Ok" for i in json.load(sys.stdin)["instances"]))'; }
memory() {
  local rss hwm
  rss=$(awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$pid/status")
  hwm=$(awk '/^VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status")
  echo "${rss} MB resident (ps: $(ps -o rss= -p "$pid" | awk '{printf "%.0f", $1/1024}') MB), peak ${hwm} MB (VmHWM)"
}
# The second replica's: its own reads, memory, CPU.
reads2() { [ -z "$pid2" ] && echo 0 && return; curl -sf "$url2/api/instances?at=$(date +%s%N)" | python3 -c 'import json,sys; print(sum(i.get("reads",0) for i in json.load(sys.stdin)["instances"]))'; }
memory2() {
  [ -z "$pid2" ] && return
  echo "; second replica $(awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$pid2/status") MB resident, peak $(awk '/^VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid2/status") MB"
}
# The process's CPU time (user + system), in clock ticks (both replicas').
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat" ${pid2:+"/proc/$pid2/stat"} | awk '{s += $1} END {print s}'; }
hz=$(getconf CLK_TCK)

echo "fleet: $instances live SQL Agent instances of $jobs jobs, each its own file ($rows history rows over $days days, $runs runs in the 30 days read, $((size / 1024)) KiB), read every $poll on the real clock; a new run appended to every file every ${append_every}s"
echo "listening after ${listening}s; every instance's first read done after ${read_all}s ($(unreachable) not Ok)"
echo "after the first reads: $(memory)$(memory2)"
echo "triage: $(curl -sf "$url/api/triage" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["judged_jobs"], "jobs judged on", v["judged_instances"], "instances,", len(v["problems"]), "problems")')"
total=0
for c in $(seq 1 "$cycles"); do
  t0=$(ticks); r0=$(reads); q0=$(reads2); s0=$(date +%s.%N)
  sleep "$poll_secs"
  t1=$(ticks); r1=$(reads); q1=$(reads2); s1=$(date +%s.%N)
  cpu=$(python3 -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3]):.2f}')" "$t0" "$t1" "$hz")
  wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$s0" "$s1")
  total=$((t1 - t0 + total))
  if [ -n "$pid2" ]; then
    echo "cycle $c: ${cpu} CPU s in ${wall} s, $((r1 - r0)) reads by the first replica + $((q1 - q0)) by the second = $((r1 - r0 + q1 - q0)) of $instances instances"
  else
    echo "cycle $c: ${cpu} CPU s in ${wall} s, $((r1 - r0)) reads"
  fi
done
echo "CPU per cycle, mean of $cycles: $(python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]) / int(sys.argv[3]):.2f}')" "$total" "$hz" "$cycles") s (per read: $(python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]) / int(sys.argv[3]) / int(sys.argv[4]) * 1000:.1f}')" "$total" "$hz" "$cycles" "$instances") ms)"
echo "after $cycles poll cycles: $(memory)$(memory2); $(unreachable) instances not Ok"
echo "appender: $(tail -n 1 "$dir/append.log")"
job=$(curl -sf "$url/api/jobs?instance=$first&days=7" | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["id"])')
for page in /fleet /triage "/jobs/$job?instance=$first" "/api/jobs?instance=$first"; do
  before=$(reads)
  printf 'c=%-4s %-50s ' "$clients" "$page"
  # Every answer compressed, as browsers ask.
  wrk -t2 -c"$clients" -d"${seconds}s" --timeout 10s -H 'Accept-Encoding: gzip, deflate, br, zstd' \
    -s "$here/percentiles.lua" "$url$page" | tail -n 1 | tr -d '\n'
  echo "  reads $(( $(reads) - before ))"
done
# Pages across the fleet that no load test covers: one request each, its time.
# The fleet-wide log: its first page, its next (the first page's "Older" link), under filters,
# over a time range that cuts days, and a CSV export.
first_log=$(curl -sf --max-time 300 -o "$dir/log.html" -w '%{time_total}' "$url/log" || echo 'no answer in 300 ')
printf 'one request %-60s %ss (the first: rendered, not kept)\n' "/log" "$first_log"
older=$(python3 -c 'import html,re,sys; m=re.search(r"href=\"([^\"]*)\"[^>]*data-testid=\"pager-older\"|data-testid=\"pager-older\"[^>]*href=\"([^\"]*)\"", open(sys.argv[1]).read()); print(html.unescape((m.group(1) or m.group(2))) if m else "/log")' "$dir/log.html")
range_from=$(date -u -d '-3 days -5 hours' +%Y-%m-%dT%H:%M:00Z)
range_to=$(date -u -d '-1 days -7 hours' +%Y-%m-%dT%H:%M:00Z)
for page in "/find?q=backup" "$older" "/log?problems=1" "/log?kind=failed&days=30" "/log?job=backup" \
  "/log?from=$range_from&to=$range_to" "/log.csv?kind=failed&days=1"; do
  printf 'one request %-60s %ss\n' "$page" "$(curl -s -o /dev/null -w '%{time_total}' --max-time 300 "$url$page" || echo 'no answer in 300 ')"
done
echo "at the end: $(memory)$(memory2); $(unreachable) instances not Ok"
# Sundial's warnings and errors, counted by kind (without their time and instance).
if grep -qiE 'warn|error|panick' "$dir/out.log"; then
  echo "sundial's log:"
  grep -iE 'warn|error|panick' "$dir/out.log" | sed -E 's/^[^ ]+ +//; s/instance=[^ ]+ //' | cut -c1-200 | sort | uniq -c | sort -rn | head -n 5
fi
