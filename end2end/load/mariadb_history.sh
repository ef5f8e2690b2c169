#!/usr/bin/env bash
# What one poll of the seed schedulers' history tables costs a MariaDB (issue 27's proof for
# the home-grown schedulers). Figures, not a test.
#
# A throwaway MariaDB 10.11 on loopback (.ci/mariadb-test-server, as the tests start it, with
# performance_schema on) holds, in database `hist`, ROWS (1,000,000) rows of `jobactivity`
# (seed 001: 20 jobs, over SPAN_DAYS (90) days, so the 30-day window holds a third) and ROWS
# rows of Primentra's `SchedulerLog` (seed 004: 20 entities' fired/completed pairs over the
# same days), with `Entities` and `SchedulerConfigurations`, and ROWS rows of the Service
# Broker scheduler's `SchedulingErrors` (seed 003: 20 daily jobs' failed attempts, up to
# midnight; today's runs, from each job's LastRunOn, get the driver's), with its
# `ScheduledJobs`, `JobSchedules` and `ScheduledJobSteps`. The tables are the designs'
# (`SchedulerLog.Id` and `SchedulingErrors.Id` their identity primary keys; `jobactivity` has
# no index in its design: with
# JOBACTIVITY_INDEX=1, the default, an index on start_execution_date is added, as a table of a
# million rows would have; JOBACTIVITY_INDEX=0 measures without it). Sundial reads them as a
# SELECT-only user (`hist_reader`).
#
# The polls are made by the integration tests' driver (`tables_incremental::mariadb_history_figures`,
# ignored unless asked for): through `sources::read` as the fleet's reader does, with the rows
# Sundial fetched counted by the source itself, and MariaDB's own account of Sundial's SELECTs
# on each table from performance_schema.events_statements_summary_by_digest (COUNT_STAR,
# SUM_ROWS_SENT, SUM_ROWS_EXAMINED, SUM_NO_INDEX_USED), reset after the first read and one poll.
# Before each poll the driver plays the scheduler (a run stopped and the next one started:
# every poll has work). No release binary is needed.
#
#   end2end/load/mariadb_history.sh
#   POLLS=10 ROWS=1000000 SPAN_DAYS=90 JOBACTIVITY_INDEX=1 end2end/load/mariadb_history.sh
#   CARGO_TEST_ARGS="--config profile.dev.package.server.codegen-units=255" end2end/load/mariadb_history.sh
#
# The goal (issue 27): after the first read, each poll returns only what is new and unfinished
# (a handful of rows) and examines no more, by an index: no statement without one.
#
# MariaDB 10.11 leaves executions of prepared statements (sqlx prepares every statement) out of
# events_statements_summary_by_digest: the driver reads the same counters from
# performance_schema.prepared_statements_instances.
#
# Measured 2026-11-27 (debug build, 2 busy cores, ROWS=1,000,000, SPAN_DAYS=90, POLLS=10):
#   first read (whole window): jobactivity 333,811 rows sent, 2,333,833 examined, 2 statements
#     without an index (14.8 s); SchedulerLog 344,437 sent, 1,344,437 examined, 1 without (12.9 s);
#     SchedulingErrors 332,284 sent, 1,332,285 examined, 1 without (8.8 s)
#   per poll after it: jobactivity 4.2 rows sent, 4.2 examined, 0 without an index (3
#     statements); SchedulerLog 5 sent, 5 examined, 0 (4); SchedulingErrors 9.5 sent, 9.5
#     examined, 0 (4: the errors of job 1's current run grow by one a poll and are re-read)
#   JOBACTIVITY_INDEX=0 (the design's table, no index): jobactivity 4 rows sent per poll but
#     5,000,037 rows examined, 3 statements without an index (MIN, MAX and the new rows each
#     scan it): goal not met for that table.
# The last lines are the summary:
#   <kind> first read: N rows fetched, …
#   <kind> per poll after the first read: rows fetched N, SELECTs on <table> N, rows sent N, rows examined N, no index N
#   goal (issue 27: …): met | not met
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
polls=${POLLS:-10}
rows=${ROWS:-1000000}
span_days=${SPAN_DAYS:-90}
index=${JOBACTIVITY_INDEX:-1}
command -v mariadbd >/dev/null || PATH="/usr/sbin:$PATH"
command -v mariadbd >/dev/null || { echo "MariaDB is not installed (run .ci/install-deps)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is missing" >&2; exit 1; }

dir=$(mktemp -d)
cleanup() {
  "$repo/.ci/mariadb-test-server" stop "$dir" || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$repo/.ci/mariadb-test-server" start "$dir" "$port" >/dev/null
sql() { mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot "$@"; }

echo "loading $rows rows into jobactivity, SchedulerLog and SchedulingErrors ($span_days days)…" >&2
start=$(date +%s)
span_us=$((span_days * 86400 * 1000000))
last=$((rows - 1))
sql <<SQL
CREATE DATABASE hist;
USE hist;
CREATE TABLE jobactivity (job_id CHAR(36) NOT NULL, job_name VARCHAR(100) NOT NULL,
  start_execution_date DATETIME(3) NOT NULL, stop_execution_date DATETIME(3) NULL);
INSERT INTO jobactivity
  SELECT 'g', CONCAT('job', seq % 20), t, t + INTERVAL 2 SECOND
  FROM (SELECT seq, UTC_TIMESTAMP(3) - INTERVAL (($rows - seq) * ($span_us DIV $rows)) MICROSECOND AS t
        FROM seq_0_to_$last) s;
CREATE TABLE Entities (Id INT PRIMARY KEY, Name VARCHAR(200) NOT NULL);
INSERT INTO Entities SELECT seq, CONCAT('Entity ', seq) FROM seq_1_to_20;
CREATE TABLE SchedulerConfigurations (Id INT AUTO_INCREMENT PRIMARY KEY, EntityId INT NULL,
  ProcessingMode VARCHAR(20) NOT NULL DEFAULT 'manual', ScheduleType VARCHAR(20) NULL, IntervalMinutes INT NULL,
  RunTimes VARCHAR(200) NULL, RunDays VARCHAR(100) NULL, RunDaysOfMonth VARCHAR(100) NULL,
  TriggerOnNewRows BIT NOT NULL DEFAULT 0, TriggerRowThreshold INT NULL, TriggerIdleMinutes INT NULL,
  TriggerDebounceSeconds INT NOT NULL DEFAULT 60, IsRunning BIT NOT NULL DEFAULT 0, RunStartedAt DATETIME(6) NULL,
  RunStartedBy VARCHAR(50) NULL, NextScheduledRun DATETIME(6) NULL, LastCompletedAt DATETIME(6) NULL,
  LastTriggerCheck DATETIME(6) NULL, IsEnabled BIT NOT NULL DEFAULT 1, UNIQUE (EntityId));
INSERT INTO SchedulerConfigurations (EntityId) SELECT seq FROM seq_1_to_20;
CREATE TABLE SchedulerLog (Id INT AUTO_INCREMENT PRIMARY KEY, EntityId INT NOT NULL,
  EventTime DATETIME(6) NOT NULL, EventType VARCHAR(30) NOT NULL, TriggerSource VARCHAR(100) NULL,
  Message VARCHAR(500) NULL, RowsQueued INT NULL, DurationMs INT NULL, BatchId INT NULL);
INSERT INTO SchedulerLog (EntityId, EventTime, EventType, DurationMs)
  SELECT (seq DIV 2) % 20 + 1, UTC_TIMESTAMP(6) - INTERVAL (($rows - seq) * ($span_us DIV $rows)) MICROSECOND,
         IF(seq % 2 = 0, 'fired', 'completed'), IF(seq % 2 = 0, NULL, 1000)
  FROM seq_0_to_$last;
CREATE TABLE JobSchedules (ID INT AUTO_INCREMENT PRIMARY KEY, FrequencyType INT NOT NULL, Frequency INT NOT NULL DEFAULT 1,
  AbsoluteSubFrequency VARCHAR(100) NULL, MontlyRelativeSubFrequencyWhich INT NULL, MontlyRelativeSubFrequencyWhat INT NULL,
  RunAtInSecondsFromMidnight INT NOT NULL DEFAULT 0);
INSERT INTO JobSchedules (FrequencyType, RunAtInSecondsFromMidnight) SELECT 1, seq * 60 FROM seq_1_to_20;
CREATE TABLE ScheduledJobs (ID INT AUTO_INCREMENT PRIMARY KEY, JobScheduleId INT NOT NULL, JobName NVARCHAR(256) NOT NULL,
  ValidFrom DATETIME NOT NULL, LastRunOn DATETIME NULL, NextRunOn DATETIME NULL, IsEnabled BIT NOT NULL DEFAULT 0,
  CreatedOn DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
INSERT INTO ScheduledJobs (JobScheduleId, JobName, ValidFrom, LastRunOn, NextRunOn, IsEnabled)
  SELECT seq, CONCAT('job ', seq), UTC_DATE() - INTERVAL 100 DAY, UTC_DATE() + INTERVAL seq MINUTE,
         UTC_DATE() + INTERVAL 1 DAY + INTERVAL seq MINUTE, 1 FROM seq_1_to_20;
CREATE TABLE ScheduledJobSteps (ID INT AUTO_INCREMENT PRIMARY KEY, ScheduledJobId INT NOT NULL, StepName NVARCHAR(256) NOT NULL,
  SqlToRun TEXT NULL, RetryOnFail BIT NOT NULL DEFAULT 0, RetryOnFailTimes INT NOT NULL DEFAULT 0,
  DurationInSeconds DECIMAL(14,4) DEFAULT 0, CreatedOn DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, LastExecutedOn DATETIME NULL);
INSERT INTO ScheduledJobSteps (ScheduledJobId, StepName, RetryOnFail, RetryOnFailTimes, LastExecutedOn)
  SELECT seq, 'load', 1, 3, UTC_DATE() + INTERVAL seq MINUTE + INTERVAL 5 SECOND FROM seq_1_to_20;
CREATE TABLE SchedulingErrors (Id INT AUTO_INCREMENT PRIMARY KEY, ScheduledJobId INT NULL, ScheduledJobStepId INT NULL,
  ErrorLine INT NULL, ErrorNumber INT NULL, ErrorMessage NVARCHAR(4000) NULL, ErrorSeverity INT NULL, ErrorState INT NULL,
  ErrorDate DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
INSERT INTO SchedulingErrors (ScheduledJobId, ScheduledJobStepId, ErrorNumber, ErrorMessage, ErrorSeverity, ErrorState, ErrorDate)
  SELECT seq % 20 + 1, seq % 20 + 1, 1205, 'deadlock victim', 13, 1,
         UTC_DATE() - INTERVAL 1 SECOND - INTERVAL (($rows - seq) * ($span_us DIV $rows)) MICROSECOND
  FROM seq_0_to_$last;
CREATE USER hist_reader@'127.0.0.1';
GRANT SELECT ON hist.* TO hist_reader@'127.0.0.1';
CREATE USER hist_admin@'127.0.0.1' IDENTIFIED BY 'figures';
GRANT ALL ON hist.* TO hist_admin@'127.0.0.1';
GRANT SELECT, DROP ON performance_schema.* TO hist_admin@'127.0.0.1';
SQL
if [ "$index" = 1 ]; then sql hist -e "CREATE INDEX ix_jobactivity_start ON jobactivity (start_execution_date)"; fi
sql hist -e "ANALYZE TABLE jobactivity, SchedulerLog, SchedulingErrors" >/dev/null
count() { sql -N hist -e "SELECT COUNT(*) FROM $1"; }
echo "loaded in $(( $(date +%s) - start )) s: $(count jobactivity) jobactivity, $(count SchedulerLog) SchedulerLog, $(count SchedulingErrors) SchedulingErrors rows" >&2

cd "$repo"
# shellcheck disable=SC2086 # CARGO_TEST_ARGS is words for cargo
SUNDIAL_FIGURES_PORT=$port SUNDIAL_FIGURES_POLLS=$polls \
  cargo test ${CARGO_TEST_ARGS:-} -p server --test integration mariadb_history_figures -- --ignored --nocapture 2>&1 \
  | grep -E '^(jobactivity|primentra|service_broker|goal)|panicked|test result'
