-- The history of each job's definition (crate::history, engine::changes).
-- Each job's definition as the last read saw it (JSON); a row with an empty job marks the
-- instance's first read, its baseline (no change is recorded against nothing).
CREATE TABLE job_definition (instance TEXT NOT NULL, job TEXT NOT NULL, definition TEXT NOT NULL,
    PRIMARY KEY (instance, job));
-- Each change seen (JSON), keyed by the read that saw it (microseconds) and its kind: a second
-- write of one change (two replicas, a retried read) is harmless.
CREATE TABLE job_change (instance TEXT NOT NULL, job TEXT NOT NULL, seen_us BIGINT NOT NULL,
    kind TEXT NOT NULL, change TEXT NOT NULL, PRIMARY KEY (instance, job, seen_us, kind));
CREATE INDEX job_change_by_seen ON job_change (instance, seen_us);
