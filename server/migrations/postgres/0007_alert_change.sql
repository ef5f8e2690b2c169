-- The changes of jobs' definitions told to alert targets (crate::alerts::changes).
-- Where each target started being told (microseconds): a new target is not told the history.
CREATE TABLE alert_change_from (target TEXT PRIMARY KEY, from_us BIGINT NOT NULL);
-- Each change told to each target, by job_change's key: told once across restarts and replicas.
CREATE TABLE alert_change_told (target TEXT NOT NULL, instance TEXT NOT NULL, job TEXT NOT NULL,
    seen_us BIGINT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (target, instance, job, seen_us, kind));
