-- Sundial's store on PostgreSQL: the tables of the SQLite store (crate::store), in the same
-- columns, 64-bit integers throughout (times: seconds, milliseconds or microseconds since the
-- epoch, UTC, as each column's name or comment says), plus what replicas share.

-- MySQL events: when Sundial first watched each, and every distinct LAST_EXECUTED (seconds).
CREATE TABLE event_watch (instance TEXT NOT NULL, event TEXT NOT NULL, first_seen BIGINT NOT NULL,
    PRIMARY KEY (instance, event));
CREATE TABLE event_sample (instance TEXT NOT NULL, event TEXT NOT NULL, last_executed BIGINT NOT NULL,
    seen_until BIGINT NOT NULL, PRIMARY KEY (instance, event, last_executed));

-- Each state of a MySQL `job` table row (microseconds), with the first and last poll that saw it.
CREATE TABLE job_sample (instance TEXT NOT NULL, job TEXT NOT NULL, first_seen BIGINT NOT NULL,
    seen_until BIGINT NOT NULL, status TEXT, interval_secs BIGINT, schedule_start BIGINT,
    runner_start BIGINT, runner_finish BIGINT, cycles BIGINT, last_start BIGINT, last_finish BIGINT,
    PRIMARY KEY (instance, job, first_seen));

-- The history Sundial keeps (crate::history): every run read (the engine's Run as JSON), and
-- the spans in which a job's whole history was read (microseconds).
CREATE TABLE kept_run (instance TEXT NOT NULL, job TEXT NOT NULL, start_us BIGINT NOT NULL,
    run TEXT NOT NULL, PRIMARY KEY (instance, job, start_us));
CREATE TABLE kept_span (instance TEXT NOT NULL, job TEXT NOT NULL, from_us BIGINT NOT NULL,
    until_us BIGINT NOT NULL, PRIMARY KEY (instance, job, from_us));

-- Triage (crate::triage): open episodes and acknowledgements (milliseconds).
CREATE TABLE triage_open (key TEXT PRIMARY KEY, instance TEXT NOT NULL, of_job BIGINT NOT NULL,
    first_seen BIGINT NOT NULL);
CREATE TABLE triage_ack (key TEXT PRIMARY KEY, episode BIGINT NOT NULL, severity TEXT NOT NULL,
    count BIGINT NOT NULL, until BIGINT, note TEXT NOT NULL, "by" TEXT NOT NULL, at BIGINT NOT NULL);

-- Alerts (crate::alerts::store): what each target was sent, and what is queued for it.
CREATE TABLE alert_sent (target TEXT NOT NULL, key TEXT NOT NULL, episode BIGINT NOT NULL,
    alerted_at BIGINT NOT NULL, reminded_at BIGINT NOT NULL, max_count BIGINT NOT NULL,
    last TEXT NOT NULL, PRIMARY KEY (target, key));
CREATE TABLE alert_outbox (id BIGSERIAL PRIMARY KEY, target TEXT NOT NULL, subject TEXT NOT NULL,
    body TEXT NOT NULL, queued_at BIGINT NOT NULL);

-- Replicas (crate::replicas): each instance's last reading as its collector saw it, for the
-- replicas that serve without polling. `state` and `good` are JSON; `updated_us` orders them.
CREATE TABLE shared_read (instance TEXT PRIMARY KEY, replica TEXT NOT NULL, updated_us BIGINT NOT NULL,
    state TEXT NOT NULL, good_at_us BIGINT, good TEXT);

-- Sign-in sessions (crate::auth::sessions), shared by replicas: the SHA-256 of each session's
-- id, never the id.
CREATE TABLE session (id_sha256 TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL,
    via TEXT NOT NULL, expires_ms BIGINT NOT NULL);
