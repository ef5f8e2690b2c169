#!/usr/bin/env python3
"""Next runs of cron expressions by croniter, for Sundial's cross-check (app/engine/tests/cron_croniter.rs).

Reads JSON lines {"expr": "...", "start": "YYYY-MM-DDTHH:MM:SS", "count": N} on stdin and
writes, per line, a JSON array of the next N runs strictly after start (naive UTC,
"YYYY-MM-DDTHH:MM:SS"), or {"error": "..."} when croniter refuses the expression.
croniter's default day_or=True is Vixie's rule: with both day fields restricted, either fires.
"""
import json
import sys
from datetime import datetime

from croniter import croniter

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    req = json.loads(line)
    try:
        start = datetime.strptime(req["start"], "%Y-%m-%dT%H:%M:%S")
        it = croniter(req["expr"], start, day_or=True)
        out = [it.get_next(datetime).strftime("%Y-%m-%dT%H:%M:%S") for _ in range(req["count"])]
        print(json.dumps(out))
    except Exception as e:  # reported to the Rust side, which fails the test
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    sys.stdout.flush()
