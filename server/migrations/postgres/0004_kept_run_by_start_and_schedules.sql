-- A window's kept runs across an instance's jobs, by start: what a page reads of the runs held
-- in memory without their words (crate::held, crate::history::kept_runs).
CREATE INDEX kept_run_by_start ON kept_run (instance, start_us);

-- Each version of a job's schedules ({enabled, schedules} as JSON), from the read that first saw
-- it (microseconds): an edit applies from then on (crate::history).
CREATE TABLE kept_schedule (instance TEXT NOT NULL, job TEXT NOT NULL, from_us BIGINT NOT NULL,
    schedules TEXT NOT NULL, PRIMARY KEY (instance, job, from_us));
