-- The database end2end/load/pg_cron_history.sh measures: pg_cron with 20 jobs and :rows rows of
-- history in cron.job_run_details, as pg_cron writes them, and the least-privileged reader
-- README describes. Run as the superuser `postgres` in the database pg_cron lives in:
--   psql -v rows=1000000 -f pg_cron_history.sql
-- The jobs are owned by `postgres` and the server runs with cron.enable_superuser_jobs = off,
-- so pg_cron's launcher skips them: only the script writes runs (its writer plays pg_cron),
-- and nothing but Sundial and that writer touches job_run_details while it measures.
\set ON_ERROR_STOP on
\if :{?rows}
\else
  \set rows 1000000
\endif

CREATE EXTENSION IF NOT EXISTS pg_cron;
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;

-- 20 jobs: load-01..10 every minute, load-11..20 every five minutes (12 runs a minute, so
-- 1,000,000 runs are the last ~58 days). cron.schedule() refuses superuser jobs while
-- cron.enable_superuser_jobs is off: the rows are inserted as it would insert them.
INSERT INTO cron.job (schedule, command, jobname)
SELECT CASE WHEN j <= 10 THEN '* * * * *' ELSE '*/5 * * * *' END,
       format('SELECT load_step(%s)', j),
       format('load-%s', lpad(j::text, 2, '0'))
FROM generate_series(1, 20) AS j;

-- How long each job's run lasts, shared with the writer: load-01..10 2n s, load-11..20
-- 25(n-10) s (up to 250 s, under their five minutes), so a few runs are always in progress.
CREATE FUNCTION public.sim_duration(jobname name) RETURNS interval LANGUAGE sql IMMUTABLE AS
$$ SELECT make_interval(secs => CASE WHEN substr(jobname, 6)::int <= 10 THEN 2 * substr(jobname, 6)::int
                                      ELSE 25 * (substr(jobname, 6)::int - 10) END) $$;

-- The writer's state: when it last played pg_cron, and the runs it started and has not ended
-- (it ends them by primary key, as pg_cron does: never a scan of job_run_details).
CREATE TABLE public.sim_clock (last_tick timestamptz NOT NULL);
CREATE TABLE public.sim_running (runid bigint PRIMARY KEY, jobname name NOT NULL, ends timestamptz NOT NULL);

-- The history: every minute's runs, newest first, cut at :rows; inserted oldest first so that
-- runid follows start_time, as pg_cron's sequence does. A run starts within 0.2 s of its
-- minute; 2 % fail (load-07: 20 %); a run whose end is still ahead is `running` (the writer
-- ends it when its time comes).
SELECT date_trunc('minute', now()) AS top \gset
INSERT INTO public.sim_clock VALUES (:'top');
WITH runs AS (
  SELECT j.jobid, j.jobname, j.command,
         m + make_interval(secs => random() * 0.2) AS start_time,
         CASE WHEN random() < CASE WHEN j.jobname = 'load-07' THEN 0.2 ELSE 0.02 END
              THEN 'failed' ELSE 'succeeded' END AS outcome
  FROM generate_series(:'top'::timestamptz - make_interval(mins => ceil(:rows / 12.0)::int + 5),
                       :'top'::timestamptz, interval '1 minute') AS m
  JOIN cron.job AS j ON j.schedule = '* * * * *' OR extract(minute FROM m)::int % 5 = 0
  ORDER BY m DESC, j.jobid
  LIMIT :rows
), timed AS (
  SELECT r.*, r.start_time + sim_duration(r.jobname) * (0.9 + random() * 0.2) AS ends FROM runs AS r
), inserted AS (
  INSERT INTO cron.job_run_details
    (jobid, job_pid, database, username, command, status, return_message, start_time, end_time)
  SELECT jobid, 10000 + (random() * 50000)::int, 'postgres', 'postgres', command,
         CASE WHEN ends > now() THEN 'running' ELSE outcome END,
         CASE WHEN ends > now() THEN NULL
              WHEN outcome = 'failed' THEN 'ERROR:  canceling statement due to statement timeout'
              ELSE 'SELECT 1' END,
         start_time,
         CASE WHEN ends > now() THEN NULL ELSE ends END
  FROM timed ORDER BY start_time, jobid
  RETURNING runid, status, end_time, start_time, jobid
)
INSERT INTO public.sim_running
SELECT i.runid, j.jobname, i.start_time + sim_duration(j.jobname)
FROM inserted AS i JOIN cron.job AS j USING (jobid)
WHERE i.status = 'running';

-- The least privilege README gives Sundial for pg_cron (server/src/sources/pg_cron.rs):
-- USAGE on schema cron, SELECT on cron.job and cron.job_run_details, BYPASSRLS.
CREATE ROLE sundial_reader LOGIN BYPASSRLS;
GRANT USAGE ON SCHEMA cron TO sundial_reader;
GRANT SELECT ON cron.job, cron.job_run_details TO sundial_reader;

VACUUM ANALYZE cron.job, cron.job_run_details;
