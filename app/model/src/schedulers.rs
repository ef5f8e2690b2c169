//! The schedulers Sundial reads, described once: for each, every word pages say of it and what
//! its own tables cannot tell ([`SCHEDULERS`], one row each). Pages, the JSON API and alerts
//! word what they say of a scheduler from its row, never from a configuration's spelling or
//! from display text; which configured source kind reads which scheduler is the server's
//! registry's (`server/src/config/kinds.rs`), which sends it with each instance
//! ([`crate::InstanceStatus::scheduler`]).
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Everything pages say of one scheduler.
#[derive(Debug)]
pub struct SchedulerInfo {
    pub scheduler: Scheduler,
    /// Its JSON form: `sql_agent`, or the name of the source kind that reads it.
    pub key: &'static str,
    /// Its name to start a sentence with: "SQL Agent", "The event scheduler".
    pub label: &'static str,
    /// Its name in the middle of a sentence ("while the event scheduler …").
    pub mid: &'static str,
    /// Its short name, without article: "Agent", "event scheduler".
    pub noun: &'static str,
    /// Who was down, starting a sentence ("Agent was down, restarted at …").
    pub down_who: &'static str,
    /// The chart legend's entry for a (re)start of the scheduler: "Agent restart".
    pub restart_word: &'static str,
    /// The banner's title for a span in which it started nothing.
    pub zombie_title: &'static str,
    /// What its own tables cannot tell, each with why: said on the jobs list, the job page
    /// and in the JSON API (`cannot_tell`), so no page reads a silence as a 0. The counts it
    /// touches are unknown (`null` in the API), never 0.
    pub cannot_tell: &'static [CannotTell],
}

const PURGED: CannotTell = CannotTell {
    what: "runs older than the scheduler's history",
    why: "the scheduler purges its own history; a run due before the oldest row it keeps is unknown, \
              not missed, unless Sundial kept it (Sundial keeps every run it reads)",
};

/// The registry: one row per scheduler makes its variant of [`Scheduler`], its place in
/// [`Scheduler::ALL`] and its row of [`SCHEDULERS`].
macro_rules! registry {
    ($($(#[doc = $doc:expr])* $variant:ident { $($field:ident: $value:expr),* $(,)? })*) => {
        /// What starts an instance's jobs: the scheduler Sundial reads there. Pages word what they
        /// say of it by this type, never by the configuration's strings or by display text. Its JSON
        /// form is `sql_agent` or the source kind's name (`pg_cron`, `pgagent`, `mysql_events`, `jobactivity`,
        /// `mysql_job_table`, `service_broker`, `primentra`).
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Scheduler {
            $($(#[doc = $doc])* $variant,)*
        }

        /// How many schedulers there are.
        const COUNT: usize = [$(Scheduler::$variant),*].len();

        /// Every scheduler, in [`Scheduler::ALL`]'s order: its row is what pages say of it.
        pub static SCHEDULERS: [SchedulerInfo; COUNT] =
            [$(SchedulerInfo { scheduler: Scheduler::$variant, $($field: $value),* }),*];

        impl Scheduler {
            /// Every scheduler, in the order of [`SCHEDULERS`].
            pub const ALL: [Scheduler; COUNT] = [$(Scheduler::$variant),*];
        }
    };
}

// A scheduler: its variant and JSON form, every word pages say of it, what its tables cannot
// tell. The first is the default (SQL Agent: the demo's).
registry! {
    /// SQL Server Agent (msdb; also the built-in demo).
    SqlAgent {
        key: "sql_agent",
        label: "SQL Agent",
        mid: "SQL Agent",
        noun: "Agent",
        down_who: "Agent",
        restart_word: "Agent restart",
        zombie_title: "Zombie Agent.",
        cannot_tell: &[
            CannotTell {
                what: "runs older than msdb's history",
                why: "msdb keeps a limited history (the Agent's jobhistory_max_rows, sp_purge_jobhistory): a run \
                              due before the oldest row it keeps is unknown, not missed, unless Sundial kept it",
            },
            CannotTell {
                what: "how a run ended when the Agent stopped during it",
                why: "the Agent writes a run's outcome row when the run ends: a run cut off by a stop or crash \
                              of the service has no outcome row and shows as crashed (never finished)",
            },
        ],
    }
    /// pg_cron.
    PgCron {
        key: "pg_cron",
        label: "pg_cron",
        mid: "pg_cron",
        noun: "pg_cron",
        down_who: "pg_cron",
        restart_word: "pg_cron restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[
            CannotTell {
                what: "whether a \"succeeded\" run did its work",
                why: "pg_cron's \"succeeded\" means the command returned without an error; a pg_net call \
                              (net.http_get, net.http_post) only queues its HTTP request, whose answer is in \
                              net._http_response, which Sundial does not read",
            },
            PURGED,
            CannotTell {
                what: "any run, when cron.log_run is off",
                why: "with cron.log_run off pg_cron writes no cron.job_run_details row: every run is unknown",
            },
        ],
    }
    /// pgAgent (pgAdmin's job scheduler).
    PgAgent {
        key: "pgagent",
        label: "pgAgent",
        mid: "pgAgent",
        noun: "pgAgent",
        down_who: "pgAgent",
        restart_word: "pgAgent restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[
            CannotTell {
                what: "which schedule started a run, or whether it was started by hand",
                why: "pga_joblog keeps no trigger: a job with one enabled schedule has its runs put on it; a \
                              \"run now\" from pgAdmin (jobnextrun set to now) looks like a scheduled run",
            },
            PURGED,
        ],
    }
    /// The MySQL / MariaDB event scheduler.
    MysqlEvents {
        key: "mysql_events",
        label: "The event scheduler",
        mid: "the event scheduler",
        noun: "event scheduler",
        down_who: "The event scheduler",
        restart_word: "Event scheduler restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[
            CannotTell {
                what: "a run's outcome and duration",
                why: "information_schema.EVENTS keeps only LAST_EXECUTED, a start: no end, no outcome \
                              (failures only where performance_schema's statement history is readable)",
            },
            CannotTell {
                what: "every run of an event that fires more often than Sundial polls",
                why: "between two polls only the last execution is visible: the runs before it are unobserved, \
                              unknown rather than missed",
            },
            CannotTell {
                what: "runs before Sundial's first poll",
                why: "MySQL keeps no run history for events: runs accumulate in Sundial's store from its first poll",
            },
        ],
    }
    /// A worker role keeping a `jobactivity` table (seed 001).
    JobActivity {
        key: "jobactivity",
        label: "The worker role",
        mid: "the worker role",
        noun: "worker role",
        down_who: "The worker role",
        restart_word: "Worker role restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[
            CannotTell {
                what: "the schedule",
                why: "the jobactivity table holds runs, not schedules: each job's schedule comes from Sundial's \
                              configuration",
            },
            CannotTell {
                what: "a crash after CleanUp",
                why: "CleanUp deletes a run that never stopped, so the job runs again: Sundial sees a crash only \
                              while its row exists",
            },
        ],
    }
    /// A MySQL stored-procedure scheduler's job runner and its `job` table (seed 002).
    MysqlJobTable {
        key: "mysql_job_table",
        label: "The job runner",
        mid: "the job runner",
        noun: "job runner",
        down_who: "The job runner",
        restart_word: "Job runner restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[CannotTell {
            what: "past runs, except from Sundial's samples",
            why: "the job table keeps only the current cycle: past cycles are rebuilt from what Sundial sampled \
                          at each poll; what cannot be placed is unobserved, not missed",
        }],
    }
    /// A Service Broker scheduler (seed 003).
    ServiceBroker {
        key: "service_broker",
        label: "The Service Broker scheduler",
        mid: "the Service Broker scheduler",
        noun: "Service Broker scheduler",
        down_who: "The Service Broker scheduler",
        restart_word: "Service Broker scheduler restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[CannotTell {
            what: "runs before the last two",
            why: "the tables keep only the latest run of each job (LastRunOn, NextRunOn) and the steps' last \
                          success: older runs come from Sundial's store, from its first poll",
        }],
    }
    /// The Primentra staging scheduler's dispatcher (seed 004).
    Primentra {
        key: "primentra",
        label: "The Primentra dispatcher",
        mid: "the Primentra dispatcher",
        noun: "Primentra dispatcher",
        down_who: "The Primentra dispatcher",
        restart_word: "Primentra dispatcher restart",
        zombie_title: "Zombie scheduler.",
        cannot_tell: &[PURGED],
    }
}

impl Default for Scheduler {
    fn default() -> Scheduler {
        Scheduler::ALL[0].clone()
    }
}

/// A scheduler is written as its key.
impl Serialize for Scheduler {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.info().key)
    }
}

/// A scheduler is read from its key.
impl<'de> Deserialize<'de> for Scheduler {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scheduler, D::Error> {
        let key = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        SCHEDULERS
            .iter()
            .find(|i| i.key == key)
            .map(|i| i.scheduler.clone())
            .ok_or_else(|| serde::de::Error::custom(format!("not a scheduler: {key:?}")))
    }
}

impl Scheduler {
    /// Its row: every word pages say of it.
    pub fn info(&self) -> &'static SchedulerInfo {
        &SCHEDULERS[self.clone() as usize]
    }

    /// Its name to start a sentence with: "SQL Agent", "pg_cron", "The event scheduler",
    /// "The worker role", "The job runner", "The Service Broker scheduler", "The Primentra
    /// dispatcher".
    pub fn label(&self) -> &'static str {
        self.info().label
    }

    /// Its name in the middle of a sentence ("while the event scheduler …").
    pub fn mid(&self) -> &'static str {
        self.info().mid
    }

    /// Its short name, without article: "Agent", "pg_cron", "event scheduler", "worker role",
    /// "job runner", "Service Broker scheduler", "Primentra dispatcher".
    pub fn noun(&self) -> &'static str {
        self.info().noun
    }

    /// Who was down, starting a sentence ("Agent was down, restarted at …", "pg_cron was
    /// down …", "The event scheduler was down …").
    pub fn down_who(&self) -> &'static str {
        self.info().down_who
    }

    /// The chart legend's entry for a (re)start of the scheduler: "Agent restart", "pg_cron
    /// restart", "Event scheduler restart", …
    pub fn restart_word(&self) -> &'static str {
        self.info().restart_word
    }

    /// What this scheduler's own tables cannot tell ([`SchedulerInfo::cannot_tell`]).
    pub fn cannot_tell(&self) -> &'static [CannotTell] {
        self.info().cannot_tell
    }

    /// The banner's title for a span in which it started nothing: "Zombie Agent." for SQL
    /// Agent, "Zombie scheduler." for the others.
    pub fn zombie_title(&self) -> &'static str {
        self.info().zombie_title
    }

    /// What the log's badge says for a line of `kind`: the kind in words, a start of the
    /// scheduler named by it ("Agent start", "pg_cron start", "event scheduler start", …).
    pub fn log_label(&self, kind: crate::engine::log::LogKind) -> String {
        match kind {
            crate::engine::log::LogKind::AgentStart => format!("{} start", self.noun()),
            crate::engine::log::LogKind::SchedulerStop => format!("{} stop", self.noun()),
            other => other.label().to_owned(),
        }
    }
}

/// A scheduler, or a name that starts a sentence, in the middle of one: see [`scheduler_mid`].
pub trait MidSentence {
    fn mid_sentence(&self) -> String;
}

impl MidSentence for Scheduler {
    fn mid_sentence(&self) -> String {
        self.mid().to_owned()
    }
}

impl MidSentence for str {
    fn mid_sentence(&self) -> String {
        match self.strip_prefix("The ") {
            Some(rest) => format!("the {rest}"),
            None => self.to_owned(),
        }
    }
}

impl MidSentence for String {
    fn mid_sentence(&self) -> String {
        self.as_str().mid_sentence()
    }
}

/// One thing a scheduler's tables cannot tell ([`Scheduler::cannot_tell`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CannotTell {
    /// What is unknown, a few words ("a run's outcome and duration").
    pub what: &'static str,
    /// Why, in the scheduler's own terms.
    pub why: &'static str,
}

/// A [`Scheduler`] ([`Scheduler::mid`]) or a name that starts a sentence in the middle of one
/// ("while the event scheduler …").
pub fn scheduler_mid<S: MidSentence + ?Sized>(scheduler: &S) -> String {
    scheduler.mid_sentence()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scheduler_has_its_own_row_in_its_order() {
        for (i, s) in Scheduler::ALL.iter().enumerate() {
            assert_eq!(&SCHEDULERS[i].scheduler, s, "row {i}");
            assert_eq!(s.info().scheduler, *s);
            assert!(!s.cannot_tell().is_empty(), "{s:?}: every scheduler's tables miss something");
        }
    }
}
