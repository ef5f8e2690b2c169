//! What to do about a miss: the statement that runs a job now, in its scheduler's own words,
//! with what it does and what it does not do. Built here, once, for every page that shows it
//! (the job page, triage): keyed by the instance's [`Scheduler`] (the worker role's
//! `jobactivity` has no schedule dialect, so the engine's `Dialect` cannot key it), beside the
//! schedulers' other words, and quoted by the engine's [`quote`] rules, the same as the
//! simulator's statements. Sundial never runs it (it is read-only): the DBA copies it.
use crate::engine::edit::quote;
use crate::schedulers::Scheduler;
use serde::{Deserialize, Serialize};

/// The statement that makes up for a miss, and what it does and does not do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunNow {
    /// The SQL to copy and run; `None` when the scheduler offers no statement (then `does`
    /// says what to do instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// What it does (or, without a statement, what to do).
    pub does: String,
    /// What it does not do: a manual run is not the scheduled one.
    pub does_not: String,
}

/// What the statement needs to know of the job.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunNowJob<'a> {
    /// The source's key (msdb job_id, pgAgent jobid, Service Broker ScheduledJobs.ID,
    /// Primentra EntityId, …).
    pub id: &'a str,
    /// Its name as the scheduler spells it (an event's is `schema.name`).
    pub name: &'a str,
    /// pg_cron: the database; MySQL events: the schema.
    pub category: &'a str,
    /// pg_cron: the role it runs as; events: the DEFINER.
    pub owner: Option<&'a str>,
    /// What it runs, where the scheduler keeps one statement (pg_cron, events).
    pub command: Option<&'a str>,
    /// The step that failed the run, where the scheduler can start at a step (SQL Agent).
    pub failed_step: Option<&'a str>,
}

const NOT_THE_MISSED_RUN: &str = "It is not the missed run: the miss stays missed on Sundial, and the run shows as manual \
                                  or unscheduled, not as the schedule's.";

/// The statement that runs `job` now on `scheduler`, with what it does and does not do.
pub fn run_now(scheduler: &Scheduler, job: &RunNowJob) -> RunNow {
    match scheduler {
        Scheduler::SqlAgent => agent(job),
        Scheduler::PgAgent => pgagent(job),
        Scheduler::PgCron => pg_cron(job),
        Scheduler::MysqlEvents => mysql_event(job),
        Scheduler::MysqlJobTable => RunNow {
            statement: None,
            does: "The job table has no way to run a job once: job$run starts the whole schedule and blocks its \
                   connection until the schedule ends. Call the job's procedure (job_procedure_schema.\
                   job_procedure_name, shown as its category) by hand, in its schema: CALL schema.procedure();"
                .into(),
            does_not: format!(
                "The job table does not know of it: no cycle is recorded (job_runner_cycles, job_last_cycle_start \
                 are unchanged). {NOT_THE_MISSED_RUN}"
            ),
        },
        Scheduler::ServiceBroker => service_broker(job),
        Scheduler::Primentra => primentra(job),
        Scheduler::JobActivity => RunNow {
            statement: None,
            does: "The worker role starts this job from its own code (StartJob in its loop, at the hour it is set \
                   to); no table of it starts a run, so there is no statement. Run the job's code by hand, or \
                   restart the worker role instance after its start time: it starts the day's run when the day \
                   has none."
                .into(),
            does_not: format!(
                "A run started outside the worker role writes no jobactivity row unless its code calls StartJob \
                 and StopJob. {NOT_THE_MISSED_RUN}"
            ),
        },
    }
}

/// `id` when it is a plain integer key; else a placeholder that is a syntax error until the
/// DBA fills it in, so the statement can never touch every row.
fn int_key(id: &str, what: &str) -> String {
    if !id.is_empty() && id.len() <= 19 && id.bytes().all(|b| b.is_ascii_digit()) {
        id.to_owned()
    } else {
        format!("<{what}>")
    }
}

/// A job's own statement, trimmed and ended by a `;` (pg_cron's and an event's may have
/// none), on a line of its own when the last line could be a `--` comment, so that what
/// follows it is never commented out.
fn ended(sql: &str) -> String {
    let sql = sql.trim();
    if sql.ends_with(';') {
        sql.to_owned()
    } else if sql.lines().last().is_some_and(|l| l.contains("--") || l.contains('#')) {
        format!("{sql}\n;")
    } else {
        format!("{sql};")
    }
}

fn agent(job: &RunNowJob) -> RunNow {
    let name = quote::tsql_nvarchar(job.name);
    match job.failed_step.filter(|s| !s.trim().is_empty()) {
        Some(step) => RunNow {
            statement: Some(format!(
                "EXEC msdb.dbo.sp_start_job @job_name = {name}, @step_name = {};",
                quote::tsql_nvarchar(step)
            )),
            does: "Starts the job now at the step that failed, and goes on from there as the job's steps say; \
                   the Agent runs it in the background (sp_start_job returns at once). Without @step_name it \
                   starts at the first step."
                .into(),
            does_not: format!(
                "It does not run the steps before the failed one again, and fails if the job is running now. \
                 msdb records it as invoked by a user, not by the schedule; the schedule's next run is \
                 unchanged. {NOT_THE_MISSED_RUN}"
            ),
        },
        None => RunNow {
            statement: Some(format!("EXEC msdb.dbo.sp_start_job @job_name = {name};")),
            does: "Starts the job now, from its first step; the Agent runs it in the background (sp_start_job \
                   returns at once)."
                .into(),
            does_not: format!(
                "It fails if the job is running now. msdb records it as invoked by a user, not by the schedule; \
                 the schedule's next run is unchanged. {NOT_THE_MISSED_RUN}"
            ),
        },
    }
}

fn pgagent(job: &RunNowJob) -> RunNow {
    RunNow {
        statement: Some(format!(
            "UPDATE pgagent.pga_job SET jobnextrun = now() WHERE jobid = {};",
            int_key(job.id, "jobid")
        )),
        does: "Makes the job due now: the pgAgent daemon starts it at its next poll (within a minute by default), \
               all its steps in order, as long as the job is enabled and a daemon is running."
            .into(),
        does_not: format!(
            "It does not run anything by itself, nor a second time if the job is running now; after the run pgAgent \
             sets jobnextrun from the schedule again. pga_joblog records it like any run. {NOT_THE_MISSED_RUN}"
        ),
    }
}

fn pg_cron(job: &RunNowJob) -> RunNow {
    let does_not = format!(
        "pg_cron does not know of it: cron.job_run_details gets no row, so Sundial sees no run; it runs with your \
         session's settings. {NOT_THE_MISSED_RUN}"
    );
    let Some(command) = job.command.filter(|c| !c.trim().is_empty()) else {
        return RunNow {
            statement: None,
            does: "pg_cron has no \"run now\": run the job's command (cron.job.command) by hand, in its database, as \
                   its role. Sundial did not read the command."
                .into(),
            does_not,
        };
    };
    let mut lines = Vec::new();
    if !job.category.is_empty() {
        lines.push(format!("-- In database {}:", quote::comment(&quote::pg_ident(job.category))));
    }
    let role = job.owner.filter(|o| !o.is_empty());
    if let Some(role) = role {
        lines.push(format!("SET ROLE {};", quote::pg_ident(role)));
    }
    lines.push(ended(command));
    if role.is_some() {
        lines.push("RESET ROLE;".into());
    }
    RunNow {
        statement: Some(lines.join("\n")),
        does: "Runs the job's own command now, in your session: connect to the job's database first; SET ROLE runs \
               it as the job's role (you must be a member of it)."
            .into(),
        does_not,
    }
}

fn mysql_event(job: &RunNowJob) -> RunNow {
    let does_not = format!(
        "The event scheduler does not know of it: the event's LAST_EXECUTED is unchanged; it runs as you, not as the \
         event's DEFINER, in your session's time zone. {NOT_THE_MISSED_RUN}"
    );
    let Some(body) = job.command.filter(|c| !c.trim().is_empty()) else {
        return RunNow {
            statement: None,
            does: "The event scheduler has no \"run now\": run the event's body (information_schema.EVENTS.\
                   EVENT_DEFINITION) by hand in its schema. Sundial did not read the body."
                .into(),
            does_not,
        };
    };
    let body = ended(body);
    let compound = body.get(..5).is_some_and(|b| b.eq_ignore_ascii_case("BEGIN"));
    let schema = (!job.category.is_empty()).then(|| format!("USE {};\n", quote::mysql_ident(job.category)));
    RunNow {
        statement: Some(format!("{}{body}", schema.unwrap_or_default())),
        does: if compound {
            "Runs the event's body now, in its schema. It is a BEGIN … END block, which MySQL and MariaDB run only \
             inside a stored program: wrap it in a procedure (or, on MariaDB, BEGIN NOT ATOMIC … END) or run its \
             statements one by one."
                .into()
        } else {
            "Runs the event's body now, in its schema, in your session.".into()
        },
        does_not,
    }
}

fn service_broker(job: &RunNowJob) -> RunNow {
    RunNow {
        statement: Some(format!(
            "-- The scheduler has no \"run now\": these are the job's steps, to run by hand in this order.\n\
             SELECT StepName, SqlToRun FROM ScheduledJobSteps WHERE ScheduledJobId = {} ORDER BY ID;",
            int_key(job.id, "ScheduledJobId")
        )),
        does: "Lists the job's steps (ScheduledJobSteps.SqlToRun): run each by hand, in order, in the scheduler's \
               database. usp_RunScheduledJob is its Service Broker activation procedure, not meant to be run by hand."
            .into(),
        does_not: format!(
            "Steps run by hand are not retried (RetryOnFail) and update neither LastRunOn nor LastExecutedOn; the \
             conversation timer still fires at NextRunOn. {NOT_THE_MISSED_RUN}"
        ),
    }
}

fn primentra(job: &RunNowJob) -> RunNow {
    RunNow {
        statement: Some(format!(
            "UPDATE SchedulerConfigurations SET NextScheduledRun = SYSUTCDATETIME() WHERE EntityId = {};",
            int_key(job.id, "EntityId")
        )),
        does: "Makes the entity due now: the dispatcher (its SQL Agent job) fires it at its next pass, processes \
               the batch and computes the next run again. Only in scheduled mode with IsEnabled = 1; \"Process\" \
               in Primentra's screen runs it at once instead."
            .into(),
        does_not: format!(
            "It does not fire while IsRunning = 1 (the overlap guard skips it) nor in manual or triggered mode; \
             SchedulerLog records it as fired by the schedule at an unscheduled time. {NOT_THE_MISSED_RUN}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str) -> RunNowJob<'_> {
        RunNowJob { id: "42", name, ..RunNowJob::default() }
    }

    #[test]
    fn agent_doubles_quotes_in_an_nvarchar_literal_and_names_the_failed_step() {
        let hostile = "Nightly ]] O'Brien'; DROP TABLE x; --\n</script>";
        let r = run_now(&Scheduler::SqlAgent, &job(hostile));
        assert_eq!(
            r.statement.as_deref(),
            Some("EXEC msdb.dbo.sp_start_job @job_name = N'Nightly ]] O''Brien''; DROP TABLE x; --\n</script>';")
        );
        let r = run_now(&Scheduler::SqlAgent, &RunNowJob { failed_step: Some("Push 'CRM'"), ..job("Sync") });
        assert_eq!(
            r.statement.as_deref(),
            Some("EXEC msdb.dbo.sp_start_job @job_name = N'Sync', @step_name = N'Push ''CRM''';")
        );
        assert!(r.does.contains("at the step that failed"), "{}", r.does);
        assert!(r.does_not.contains("not the missed run"), "{}", r.does_not);
    }

    #[test]
    fn pgagent_sets_jobnextrun_and_never_quotes_a_key_that_is_not_a_number() {
        let r = run_now(&Scheduler::PgAgent, &job("x"));
        assert_eq!(r.statement.as_deref(), Some("UPDATE pgagent.pga_job SET jobnextrun = now() WHERE jobid = 42;"));
        let r = run_now(&Scheduler::PgAgent, &RunNowJob { id: "1 OR 1=1", ..job("x") });
        assert_eq!(
            r.statement.as_deref(),
            Some("UPDATE pgagent.pga_job SET jobnextrun = now() WHERE jobid = <jobid>;")
        );
    }

    #[test]
    fn pg_cron_gives_the_command_in_its_database_as_its_role_with_hostile_names_quoted() {
        let j = RunNowJob {
            category: "sales\"\nDROP DATABASE x; --",
            owner: Some("etl\"role"),
            command: Some("CALL refresh('it''s');"),
            ..job("refresh")
        };
        let r = run_now(&Scheduler::PgCron, &j);
        assert_eq!(
            r.statement.as_deref(),
            Some(
                "-- In database \"sales\"\" DROP DATABASE x; --\":\nSET ROLE \"etl\"\"role\";\nCALL refresh('it''s');\nRESET ROLE;"
            )
        );
        let j = RunNowJob { command: Some("SELECT 1 -- and a comment"), ..job("refresh") };
        let r = run_now(&Scheduler::PgCron, &j);
        assert_eq!(r.statement.as_deref(), Some("SELECT 1 -- and a comment\n;"), "the ; is not commented out");
        let j = RunNowJob { command: Some("CALL rollup()"), owner: Some("etl"), ..job("refresh") };
        let r = run_now(&Scheduler::PgCron, &j);
        assert_eq!(r.statement.as_deref(), Some("SET ROLE \"etl\";\nCALL rollup();\nRESET ROLE;"));
        let none = run_now(&Scheduler::PgCron, &job("refresh"));
        assert_eq!(none.statement, None);
        assert!(none.does.contains("did not read the command"), "{}", none.does);
    }

    #[test]
    fn an_event_body_runs_in_its_schema_and_a_compound_body_is_said_to_need_a_program() {
        let j = RunNowJob { category: "app`db", command: Some("DELETE FROM t WHERE a = 'x';"), ..job("app`db.purge") };
        let r = run_now(&Scheduler::MysqlEvents, &j);
        assert_eq!(r.statement.as_deref(), Some("USE `app``db`;\nDELETE FROM t WHERE a = 'x';"));
        assert!(!r.does.contains("BEGIN"));
        let j = RunNowJob { category: "app", command: Some("begin\n  DELETE FROM t;\nend"), ..job("app.purge") };
        let r = run_now(&Scheduler::MysqlEvents, &j);
        assert!(r.does.contains("BEGIN … END"), "{}", r.does);
    }

    #[test]
    fn kinds_without_a_statement_say_so_and_every_kind_says_it_is_not_the_missed_run() {
        for s in Scheduler::ALL {
            let r = run_now(&s, &job("j"));
            assert!(r.does_not.contains("not the missed run"), "{s:?}: {}", r.does_not);
            assert!(!r.does.is_empty(), "{s:?}");
        }
        assert_eq!(run_now(&Scheduler::JobActivity, &job("j")).statement, None);
        assert_eq!(run_now(&Scheduler::MysqlJobTable, &job("j")).statement, None);
        let sb = run_now(&Scheduler::ServiceBroker, &job("j")).statement.unwrap();
        assert!(sb.ends_with("WHERE ScheduledJobId = 42 ORDER BY ID;"), "{sb}");
        let p = run_now(&Scheduler::Primentra, &RunNowJob { id: "7'", ..job("j") }).statement.unwrap();
        assert!(p.ends_with("WHERE EntityId = <EntityId>;"), "{p}");
    }
}
