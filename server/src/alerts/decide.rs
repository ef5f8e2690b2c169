//! What to send, decided from plain data: the problems open now, what was already sent to a
//! target, the moment, and the target's settings give the messages to send and what will then
//! have been sent. No clock, no I/O: the same inputs always give the same messages.
//!
//! The rules, per target:
//! - **Alert**: a problem at least as bad as `min_severity`, not acknowledged, open for at
//!   least `grace` since Sundial first saw its episode, and not yet alerted for this episode.
//!   One alert per episode: what was sent is remembered (keyed by problem key and episode),
//!   and Sundial's store keeps it across restarts.
//! - **Recovery**: an alerted episode that ended (its problem is gone, or came back as a new
//!   episode), with the largest count seen. A job's problem that is merely out of sight (its
//!   instance could not be judged: unreachable, stale, not read yet) has not ended.
//! - **Reminder**: when an alerted episode, still open and not acknowledged, was last sent
//!   `remind` ago or more, one message lists every such episode (and their clocks restart).
//!
//! - **Routing**: a target takes only the problems its [`Route`] selects (instances by their
//!   tags, kinds of problem). An episode already alerted that the route no longer selects (the
//!   fleet file changed across a restart) is followed to its end: no reminder, but its one
//!   recovery when it really ends (the target was told it began: an incident left open in a
//!   pager, or a recovery sent while it is still wrong, would both be lies). Nothing new starts.
//!
//! Many problems at once (a fleet starting broken) are grouped: more than [`MAX_SEPARATE`]
//! alerts or recoveries of one decision go as one message each, listing them all; unless the
//! target takes one message per episode (`Settings::group` false: PagerDuty, whose incidents
//! are episodes).
//!
//! **Flapping** (per target, for the kinds whose count is of a job's runs in a row:
//! [`ProblemKind::counts_runs_in_a_row`]: failed, missed, and a deadline missed, counting its
//! deadline instants missed in a row):
//! - `after = N` (`Settings::after`): such a problem alerts only once its count reaches N; an
//!   episode that ends below N said nothing and is forgotten (a job that fails every other
//!   night, with `after = 2`, never pages). The count is the judgment's, read again from the
//!   runs after a restart: nothing to keep.
//! - `resolve_after = M` (`Settings::resolve_after`): the recovery of such an alerted episode
//!   waits until the job's last M finished runs succeeded ([`Successes`]); meanwhile the episode
//!   waits (`Sent::ended`), and if the problem comes back (a new episode of the same key) the
//!   alerted episode goes on (`Sent::follows`): no recovery, no new alert. A job gone from its
//!   judged instance recovers at once. `Sent::ended` and `Sent::follows` are kept in the store.
//! - **Quiet hours** (`Settings::quiet`): while they hold, an alert, a reminder or a recovery of
//!   a problem less bad than the quiet severity is not sent. Nothing is recorded for it, so it
//!   is decided again at the first tick after they end: an alert then if the problem is still
//!   open (one resolved meanwhile says nothing), a recovery if it is still over (one that came
//!   back meanwhile goes on as above), a reminder if one is due.
//!
//! **Threads.** Each alerted episode records the thread of the message that announced it
//! (`Sent::thread`: its own, or the grouped message's): reminders and the recovery of that
//! episode carry it ([`Item::thread`]), so mail threads them under the announcement.
use crate::config::QuietHours;
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use sundial_engine::triage::{ProblemKind, ProblemSeverity};

/// More alerts (or recoveries) than this in one decision go as one message.
pub const MAX_SEPARATE: usize = 10;

/// One open problem as alerts see it (built from the fleet's judgement; see `alerts::open`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Open {
    /// The problem's stable identity (kind, instance, job).
    pub key: String,
    /// When Sundial first saw this episode.
    pub episode: DateTime<Utc>,
    pub kind: ProblemKind,
    pub severity: ProblemSeverity,
    pub instance: String,
    /// The job's name; `None` for an instance-wide problem.
    pub job: Option<String>,
    /// Since when it is wrong, RFC 3339 in the instance's zone.
    pub since: String,
    pub evidence: String,
    /// Runs missed in a row, failures in a row, jobs starved; 1 otherwise.
    pub count: usize,
    /// The evidence's absolute link (the job's timeline at that moment).
    pub link: String,
    /// Someone acknowledged or silenced this episode, and that still holds.
    pub acknowledged: bool,
    /// The end of the maintenance window that held this episode, the one ending last: no
    /// alert or reminder before it; after it, the grace counts from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintenance_until: Option<DateTime<Utc>>,
}

impl Open {
    /// `[MISSED] SQLPROD01 / ETL - Nightly Load`.
    pub fn subject(&self) -> String {
        format!("[{}] {}", self.kind.subject(), self.place())
    }

    /// `SQLPROD01 / ETL - Nightly Load`, or the instance alone.
    pub fn place(&self) -> String {
        match &self.job {
            Some(job) => format!("{} / {job}", self.instance),
            None => self.instance.clone(),
        }
    }
}

/// An episode that was alerted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub episode: DateTime<Utc>,
    pub alerted_at: DateTime<Utc>,
    /// When it was last sent (the alert or a reminder).
    pub reminded_at: DateTime<Utc>,
    /// The largest count seen in the episode.
    pub max_count: usize,
    /// How it looked when last seen (the recovery says it).
    pub last: Open,
    /// The thread of the message that announced it ([`episode_thread`] or [`group_thread`]);
    /// `None` in what an older Sundial kept: then its own episode's thread.
    #[serde(default)]
    pub thread: Option<String>,
    /// When the problem was first seen over while its recovery waits (`resolve_after`, quiet
    /// hours); `None`: open.
    #[serde(default)]
    pub ended: Option<DateTime<Utc>>,
    /// A later episode of the same problem that came back while the recovery waited: the
    /// alerted episode goes on through it.
    #[serde(default)]
    pub follows: Option<DateTime<Utc>>,
}

impl Sent {
    /// The thread its reminders and recovery reply to.
    pub fn thread(&self, key: &str) -> String {
        self.thread.clone().unwrap_or_else(|| episode_thread(key, self.episode))
    }

    /// Whether `o` is this alerted episode (or the later one it follows).
    fn holds(&self, o: &Open) -> bool {
        o.episode == self.episode || self.follows == Some(o.episode)
    }
}

/// Each judged job's last finished runs that succeeded in a row, by `instance|job id` (a
/// problem's key without its kind: [`job_of`]).
pub type Successes = HashMap<String, usize>;

/// `instance|job id` of a job's problem key (`kind|instance|job id`).
pub fn job_of(key: &str) -> Option<&str> {
    key.split_once('|').map(|(_, rest)| rest).filter(|rest| rest.contains('|'))
}

/// A thread's token: the first 128 bits of SHA-256 over `parts`, in hex.
fn token(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p);
    }
    hex::encode(&h.finalize()[..16])
}

/// The thread an episode's own alert starts: the same for the same problem and episode, on
/// every tick and after any restart.
pub fn episode_thread(key: &str, episode: DateTime<Utc>) -> String {
    token(&[b"episode", key.as_bytes(), &episode.timestamp_millis().to_be_bytes()])
}

/// The thread a grouped alert starts (the moment and the episodes it announced).
pub fn group_thread(at: DateTime<Utc>, items: &[Item]) -> String {
    let mut parts: Vec<Vec<u8>> = vec![b"group".to_vec(), at.timestamp_millis().to_be_bytes().to_vec()];
    for i in items {
        parts.push(i.problem.key.as_bytes().to_vec());
        parts.push(i.problem.episode.timestamp_millis().to_be_bytes().to_vec());
    }
    token(&parts.iter().map(Vec::as_slice).collect::<Vec<_>>())
}

/// What was sent to one target, by problem key.
pub type SentState = BTreeMap<String, Sent>;

/// A target's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub grace: TimeDelta,
    /// `None`: never remind.
    pub remind: Option<TimeDelta>,
    pub min_severity: ProblemSeverity,
    /// Which problems it takes.
    pub route: Route,
    /// Many alerts or recoveries at once go as one message (else one message per episode).
    pub group: bool,
    /// A problem counting runs in a row alerts once its count reaches this (at least 1).
    pub after: usize,
    /// Its recovery waits for this many successes in a row (at least 1).
    pub resolve_after: usize,
    /// Quiet hours: `None`, never quiet.
    pub quiet: Option<QuietHours>,
}

impl Settings {
    /// Whether a problem of `severity` waits for the end of quiet hours at `now`.
    fn quiet_holds(&self, severity: ProblemSeverity, now: DateTime<Utc>) -> bool {
        self.quiet.as_ref().is_some_and(|q| q.holds(severity, now))
    }

    /// Whether an alerted episode that is over (or came back) may be told recovered now.
    fn recovery_due(&self, key: &str, s: &Sent, successes: &Successes, now: DateTime<Utc>) -> bool {
        if self.quiet_holds(s.last.severity, now) {
            return false;
        }
        if self.resolve_after <= 1 || !s.last.kind.counts_runs_in_a_row() {
            return true;
        }
        // A job no longer there (removed from its judged instance) has nothing left to wait for.
        job_of(key).and_then(|job| successes.get(job)).is_none_or(|&n| n >= self.resolve_after)
    }

    /// Whether a problem's count is enough to alert (`after`).
    fn counted_enough(&self, o: &Open) -> bool {
        !o.kind.counts_runs_in_a_row() || o.count >= self.after
    }
}

/// Which problems a target takes (besides `min_severity`): made from the fleet file's
/// `[[alert]]` `tags` and `kinds` when Sundial starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    /// Only problems of these instances (those whose tags match); `None`: every instance.
    pub instances: Option<BTreeSet<String>>,
    /// Only these kinds; `None`: every kind.
    pub kinds: Option<BTreeSet<ProblemKind>>,
}

impl Route {
    pub fn takes(&self, p: &Open) -> bool {
        self.instances.as_ref().is_none_or(|i| i.contains(&p.instance))
            && self.kinds.as_ref().is_none_or(|k| k.contains(&p.kind))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    Alert,
    Reminder,
    Resolved,
}

/// One problem in a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub problem: Open,
    /// The largest count seen in the episode.
    pub max_count: usize,
    /// The thread of the message that announced its episode (an alert: the one it starts).
    pub thread: String,
}

/// One message to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub kind: MessageKind,
    /// Worst first.
    pub items: Vec<Item>,
    /// When it was decided.
    pub at: DateTime<Utc>,
}

impl Message {
    /// The subject line: the kind of problem in capitals, where it is.
    pub fn subject(&self) -> String {
        let words = |items: &[Item]| {
            let mut by_kind: Vec<(&str, usize)> = Vec::new();
            for i in items {
                let word = i.problem.kind.subject();
                match by_kind.iter_mut().find(|(w, _)| *w == word) {
                    Some((_, n)) => *n += 1,
                    None => by_kind.push((word, 1)),
                }
            }
            by_kind.iter().map(|(w, n)| format!("{w} ×{n}")).collect::<Vec<_>>().join(", ")
        };
        match (self.kind, self.items.as_slice()) {
            (MessageKind::Alert, [one]) => one.problem.subject(),
            (MessageKind::Resolved, [one]) => {
                format!("[RESOLVED {}] {}", one.problem.kind.subject(), one.problem.place())
            }
            (MessageKind::Alert, items) => format!("{} new problems: {}", items.len(), words(items)),
            (MessageKind::Resolved, items) => format!("[RESOLVED] {} problems: {}", items.len(), words(items)),
            (MessageKind::Reminder, [one]) => format!("[STILL OPEN] {}", one.problem.subject()),
            (MessageKind::Reminder, items) => format!("[STILL OPEN] {} problems: {}", items.len(), words(items)),
        }
    }
}

/// The problem as seen now, under the episode that was alerted (its PagerDuty incident, its
/// first seen): a later episode it follows speaks as the alerted one.
fn seen_as(o: &Open, s: &Sent) -> Open {
    Open { episode: s.episode, ..o.clone() }
}

/// How many of what an episode counted, in words (`3 runs missed`); `None` when it counts
/// nothing worth saying (1 of a kind that counts nothing).
pub fn count_words(kind: ProblemKind, n: usize) -> Option<String> {
    let (one, many) = kind.info().counts?;
    Some(if n == 1 { format!("1 {one}") } else { format!("{n} {many}") })
}

/// Whether a problem is at least as bad as `min` (severities order worst first).
fn bad_enough(p: &Open, min: ProblemSeverity) -> bool {
    p.severity <= min
}

/// The messages to send to one target now, and what will have been sent then.
///
/// `open`: every problem open now, worst first; `judged`: the instances whose jobs were
/// judged now (a job's problem missing from `open` ended only if its instance is there).
/// Without successes counted: a recovery never waits for them ([`decide_with`]).
pub fn decide(
    open: &[Open],
    judged: &HashSet<String>,
    sent: &SentState,
    settings: &Settings,
    now: DateTime<Utc>,
) -> (Vec<Message>, SentState) {
    decide_with(open, judged, &Successes::new(), sent, settings, now)
}

/// [`decide`], with each judged job's successes in a row (`resolve_after` counts them).
pub fn decide_with(
    open: &[Open],
    judged: &HashSet<String>,
    successes: &Successes,
    sent: &SentState,
    settings: &Settings,
    now: DateTime<Utc>,
) -> (Vec<Message>, SentState) {
    let by_key: BTreeMap<&str, &Open> = open.iter().map(|o| (o.key.as_str(), o)).collect();
    let mut next = SentState::new();
    let mut resolved = Vec::new();
    for (key, s) in sent {
        match by_key.get(key.as_str()) {
            Some(o) if s.holds(o) => {
                let mut s = s.clone();
                s.max_count = s.max_count.max(o.count);
                s.last = seen_as(o, &s);
                s.ended = None;
                next.insert(key.clone(), s);
            }
            // Out of sight, not ended: its instance's jobs could not be judged now.
            None if s.last.job.is_some() && !judged.contains(&s.last.instance) => {
                next.insert(key.clone(), s.clone());
            }
            // Gone, or back as a new episode: this one ended, and is told so once its
            // recovery is due.
            back => {
                if settings.recovery_due(key, s, successes, now) {
                    resolved.push(Item { problem: s.last.clone(), max_count: s.max_count, thread: s.thread(key) });
                    continue;
                }
                let mut s = s.clone();
                match back {
                    // Back before its recovery was told: the alerted episode goes on.
                    Some(o) => {
                        s.thread = Some(s.thread(key));
                        s.follows = Some(o.episode);
                        s.max_count = s.max_count.max(o.count);
                        s.last = seen_as(o, &s);
                        s.ended = None;
                    }
                    None => s.ended = Some(s.ended.unwrap_or(now)),
                }
                next.insert(key.clone(), s);
            }
        }
    }
    let mut alerts = Vec::new();
    for o in open {
        // Opened inside a maintenance window: held until it ends, then alerted after the grace
        // counted from its end.
        let since = o.maintenance_until.map_or(o.episode, |until| until.max(o.episode));
        let due = bad_enough(o, settings.min_severity)
            && settings.route.takes(o)
            && !o.acknowledged
            && !next.contains_key(&o.key)
            && settings.counted_enough(o)
            && !settings.quiet_holds(o.severity, now)
            && now >= since
            && now - since >= settings.grace;
        if due {
            let thread = episode_thread(&o.key, o.episode);
            let s = Sent {
                episode: o.episode,
                alerted_at: now,
                reminded_at: now,
                max_count: o.count,
                last: o.clone(),
                thread: Some(thread.clone()),
                ended: None,
                follows: None,
            };
            next.insert(o.key.clone(), s);
            alerts.push(Item { problem: o.clone(), max_count: o.count, thread });
        }
    }
    // A grouped alert is one thread: each episode it announced replies to it later.
    if settings.group && alerts.len() > MAX_SEPARATE {
        let thread = group_thread(now, &alerts);
        for i in &mut alerts {
            i.thread = thread.clone();
            if let Some(s) = next.get_mut(&i.problem.key) {
                s.thread = Some(thread.clone());
            }
        }
    }
    let mut reminder = Vec::new();
    if let Some(every) = settings.remind {
        let still: Vec<&Open> = open
            .iter()
            .filter(|o| !o.acknowledged && settings.route.takes(o) && next.get(&o.key).is_some_and(|s| s.holds(o)))
            // Quiet hours: it waits for their end.
            .filter(|o| !settings.quiet_holds(o.severity, now))
            // Planned: no reminder while a maintenance window holds it.
            .filter(|o| o.maintenance_until.is_none_or(|until| until <= now))
            .collect();
        let due = still.iter().any(|o| next.get(&o.key).is_some_and(|s| now - s.reminded_at >= every));
        if due {
            for o in still {
                if let Some(s) = next.get_mut(&o.key) {
                    s.reminded_at = now;
                    reminder.push(Item { problem: s.last.clone(), max_count: s.max_count, thread: s.thread(&o.key) });
                }
            }
        }
    }
    let mut messages = Vec::new();
    let mut push = |kind: MessageKind, items: Vec<Item>| {
        if settings.group && items.len() > MAX_SEPARATE {
            messages.push(Message { kind, items, at: now });
        } else {
            messages.extend(items.into_iter().map(|i| Message { kind, items: vec![i], at: now }));
        }
    };
    push(MessageKind::Resolved, resolved);
    push(MessageKind::Alert, alerts);
    if !reminder.is_empty() {
        if settings.group {
            messages.push(Message { kind: MessageKind::Reminder, items: reminder, at: now });
        } else {
            messages.extend(reminder.into_iter().map(|i| Message {
                kind: MessageKind::Reminder,
                items: vec![i],
                at: now,
            }));
        }
    }
    (messages, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn missed(count: usize, episode: &str) -> Open {
        Open {
            key: "missed|SQL1|j1".into(),
            episode: t(episode),
            kind: ProblemKind::Missed,
            severity: ProblemSeverity::Error,
            instance: "SQL1".into(),
            job: Some("ETL - Nightly Load".into()),
            since: "2026-11-22T07:00:00-05:00".into(),
            evidence: "the run due 2026-11-22 12:00 UTC missed".into(),
            count,
            link: "http://sundial/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1".into(),
            acknowledged: false,
            maintenance_until: None,
        }
    }

    fn settings() -> Settings {
        Settings {
            grace: TimeDelta::minutes(5),
            remind: Some(TimeDelta::hours(4)),
            min_severity: ProblemSeverity::Error,
            route: Route::default(),
            group: true,
            after: 1,
            resolve_after: 1,
            quiet: None,
        }
    }

    fn judged() -> HashSet<String> {
        HashSet::from(["SQL1".to_owned()])
    }

    const EP: &str = "2026-11-22T12:00:00Z";

    #[test]
    fn one_alert_after_the_grace_then_nothing_until_it_resolves_once() {
        let open = [missed(1, EP)];
        let s = settings();
        let (m, sent) = decide(&open, &judged(), &SentState::new(), &s, t("2026-11-22T12:04:59Z"));
        assert!(m.is_empty() && sent.is_empty(), "within the grace: {m:?}");
        let (m, sent) = decide(&open, &judged(), &sent, &s, t("2026-11-22T12:05:00Z"));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, MessageKind::Alert);
        assert_eq!(m[0].subject(), "[MISSED] SQL1 / ETL - Nightly Load");
        // Later polls, the count growing: no second alert; the largest count is kept.
        let (m, sent) = decide(&[missed(3, EP)], &judged(), &sent, &s, t("2026-11-22T13:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        let (m, sent) = decide(&[missed(1, EP)], &judged(), &sent, &s, t("2026-11-22T13:01:00Z"));
        assert!(m.is_empty(), "{m:?}");
        let (m, sent) = decide(&[], &judged(), &sent, &s, t("2026-11-22T14:00:00Z"));
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].kind, MessageKind::Resolved);
        assert_eq!(m[0].items[0].max_count, 3, "the largest count seen");
        assert_eq!(m[0].subject(), "[RESOLVED MISSED] SQL1 / ETL - Nightly Load");
        assert!(sent.is_empty());
        let (m, _) = decide(&[], &judged(), &sent, &s, t("2026-11-22T15:00:00Z"));
        assert!(m.is_empty(), "one recovery: {m:?}");
    }

    #[test]
    fn a_problem_resolved_within_the_grace_says_nothing() {
        let s = settings();
        let (_, sent) = decide(&[missed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:01:00Z"));
        let (m, sent) = decide(&[], &judged(), &sent, &s, t("2026-11-22T12:06:00Z"));
        assert!(m.is_empty() && sent.is_empty(), "{m:?}");
    }

    #[test]
    fn a_jobs_problem_out_of_sight_has_not_ended() {
        let s = settings();
        let (_, sent) = decide(&[missed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:10:00Z"));
        // The instance became unreachable: its jobs are not judged; no recovery.
        let (m, kept) = decide(&[], &HashSet::new(), &sent, &s, t("2026-11-22T12:20:00Z"));
        assert!(m.is_empty(), "{m:?}");
        assert_eq!(kept, sent);
    }

    #[test]
    fn a_new_episode_of_the_same_problem_resolves_the_old_and_alerts_after_its_grace() {
        let s = settings();
        let (_, sent) = decide(&[missed(2, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:10:00Z"));
        let again = [missed(1, "2026-11-22T13:00:00Z")];
        let (m, sent) = decide(&again, &judged(), &sent, &s, t("2026-11-22T13:01:00Z"));
        assert_eq!(m.iter().map(|m| m.kind).collect::<Vec<_>>(), [MessageKind::Resolved]);
        let (m, _) = decide(&again, &judged(), &sent, &s, t("2026-11-22T13:05:00Z"));
        assert_eq!(m.iter().map(|m| m.kind).collect::<Vec<_>>(), [MessageKind::Alert]);
    }

    #[test]
    fn reminders_list_what_is_still_open_and_not_acknowledged() {
        let s = settings();
        let mut other = missed(1, EP);
        other.key = "failed|SQL1|j2".into();
        other.kind = ProblemKind::Failed;
        other.job = Some("Backup".into());
        let open = [missed(1, EP), other.clone()];
        let (m, sent) = decide(&open, &judged(), &SentState::new(), &s, t("2026-11-22T12:05:00Z"));
        assert_eq!(m.len(), 2);
        let (m, _) = decide(&open, &judged(), &sent, &s, t("2026-11-22T16:04:59Z"));
        assert!(m.is_empty(), "not yet: {m:?}");
        let mut acked = other.clone();
        acked.acknowledged = true;
        let (m, sent) = decide(&[missed(1, EP), acked.clone()], &judged(), &sent, &s, t("2026-11-22T16:05:00Z"));
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].kind, MessageKind::Reminder);
        assert_eq!(m[0].items.len(), 1, "the acknowledged one is not reminded");
        assert_eq!(m[0].subject(), "[STILL OPEN] [MISSED] SQL1 / ETL - Nightly Load");
        let (m, _) = decide(&[missed(1, EP), acked], &judged(), &sent, &s, t("2026-11-22T17:00:00Z"));
        assert!(m.is_empty(), "its clock restarted: {m:?}");
        let never = Settings { remind: None, ..s.clone() };
        let (m, _) = decide(&open, &judged(), &sent, &never, t("2026-11-23T12:00:00Z"));
        assert!(m.is_empty(), "remind = 0: {m:?}");
    }

    #[test]
    fn acknowledged_and_mild_problems_do_not_alert() {
        let s = settings();
        let mut acked = missed(1, EP);
        acked.acknowledged = true;
        let mut mild = missed(1, EP);
        mild.key = "too_short|SQL1|j1".into();
        mild.kind = ProblemKind::TooShort;
        mild.severity = ProblemSeverity::Info;
        let (m, sent) = decide(&[acked, mild.clone()], &judged(), &SentState::new(), &s, t("2026-11-23T00:00:00Z"));
        assert!(m.is_empty() && sent.is_empty(), "{m:?}");
        let all = Settings { min_severity: ProblemSeverity::Info, ..s.clone() };
        let (m, _) = decide(&[mild], &judged(), &SentState::new(), &all, t("2026-11-23T00:00:00Z"));
        assert_eq!(m[0].subject(), "[SHORT] SQL1 / ETL - Nightly Load");
    }

    #[test]
    fn a_storm_is_one_message() {
        let s = settings();
        let open: Vec<Open> = (0..25)
            .map(|n| {
                let mut o = missed(1, EP);
                o.key = format!("missed|SQL1|j{n}");
                o
            })
            .collect();
        let (m, sent) = decide(&open, &judged(), &SentState::new(), &s, t("2026-11-22T13:00:00Z"));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].items.len(), 25);
        assert_eq!(m[0].subject(), "25 new problems: MISSED ×25");
        assert_eq!(sent.len(), 25);
    }

    fn other(key: &str, instance: &str, kind: ProblemKind) -> Open {
        let mut o = missed(1, EP);
        o.key = key.into();
        o.instance = instance.into();
        o.kind = kind;
        o.severity = kind.severity();
        o
    }

    #[test]
    fn a_route_takes_its_instances_kinds_and_severities_only() {
        let prod = Route { instances: Some(BTreeSet::from(["SQL1".to_owned()])), kinds: None };
        let s = Settings { route: prod, min_severity: ProblemSeverity::Warning, ..settings() };
        let open = [
            other("missed|SQL1|j1", "SQL1", ProblemKind::Missed),
            other("missed|DEV|j1", "DEV", ProblemKind::Missed),
            other("too_short|SQL1|j2", "SQL1", ProblemKind::TooShort),
            other("running_long|SQL1|j3", "SQL1", ProblemKind::RunningLong),
        ];
        let judged = HashSet::from(["SQL1".to_owned(), "DEV".to_owned()]);
        let (m, sent) = decide(&open, &judged, &SentState::new(), &s, t("2026-11-22T12:10:00Z"));
        let keys: Vec<&str> = m.iter().map(|m| m.items[0].problem.key.as_str()).collect();
        assert_eq!(keys, ["missed|SQL1|j1", "running_long|SQL1|j3"], "not DEV's, not info");
        assert_eq!(sent.len(), 2);
        let failed_only = Route { instances: None, kinds: Some(BTreeSet::from([ProblemKind::Failed])) };
        let s = Settings { route: failed_only, ..settings() };
        let (m, _) = decide(&open, &judged, &SentState::new(), &s, t("2026-11-22T12:10:00Z"));
        assert!(m.is_empty(), "no failed problem: {m:?}");
    }

    #[test]
    fn an_episode_the_route_no_longer_takes_is_followed_to_its_real_end() {
        let s = settings();
        let (_, sent) = decide(&[missed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:10:00Z"));
        // The fleet file changed (a restart): this target now takes only failures.
        let narrowed = Settings {
            route: Route { instances: None, kinds: Some(BTreeSet::from([ProblemKind::Failed])) },
            ..settings()
        };
        // Still open: no recovery (it is not resolved), no reminder, kept.
        let (m, kept) = decide(&[missed(2, EP)], &judged(), &sent, &narrowed, t("2026-11-22T20:00:00Z"));
        assert!(m.is_empty(), "no bogus recovery, no reminder: {m:?}");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept["missed|SQL1|j1"].max_count, 2);
        // It ends: its one recovery.
        let (m, kept) = decide(&[], &judged(), &kept, &narrowed, t("2026-11-22T21:00:00Z"));
        assert_eq!(m.iter().map(|m| m.kind).collect::<Vec<_>>(), [MessageKind::Resolved]);
        assert!(kept.is_empty());
        // A new episode of it is not this target's any more.
        let (m, _) =
            decide(&[missed(1, "2026-11-23T00:00:00Z")], &judged(), &kept, &narrowed, t("2026-11-23T01:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
    }

    /// PagerDuty's settings: no grouping, no reminders.
    fn pager() -> Settings {
        Settings { remind: None, group: false, ..settings() }
    }

    #[test]
    fn a_pager_gets_one_message_per_episode_and_an_acknowledgement_resolves_nothing() {
        let s = pager();
        let open: Vec<Open> =
            (0..25).map(|n| other(&format!("missed|SQL1|j{n}"), "SQL1", ProblemKind::Missed)).collect();
        let (m, sent) = decide(&open, &judged(), &SentState::new(), &s, t("2026-11-22T13:00:00Z"));
        assert_eq!(m.len(), 25, "one event per episode, never grouped");
        assert!(m.iter().all(|m| m.items.len() == 1 && m.kind == MessageKind::Alert));
        // Acknowledged in Sundial: the episode goes on; no resolve, no message at all.
        let acked: Vec<Open> = open
            .iter()
            .cloned()
            .map(|mut o| {
                o.acknowledged = true;
                o
            })
            .collect();
        let (m, kept) = decide(&acked, &judged(), &sent, &s, t("2026-11-23T13:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        assert_eq!(kept.len(), 25);
        // They end: 25 resolves, one each.
        let (m, _) = decide(&[], &judged(), &kept, &s, t("2026-11-23T14:00:00Z"));
        assert_eq!(m.len(), 25);
        assert!(m.iter().all(|m| m.items.len() == 1 && m.kind == MessageKind::Resolved));
    }

    #[test]
    fn threads_are_stable_and_a_grouped_alerts_episodes_reply_to_it() {
        let s = settings();
        // One episode: its thread is the same whenever and however often it is decided.
        let (m, sent) = decide(&[missed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:05:00Z"));
        let (m2, _) = decide(&[missed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:09:00Z"));
        assert_eq!(m[0].items[0].thread, m2[0].items[0].thread);
        assert_eq!(m[0].items[0].thread, episode_thread("missed|SQL1|j1", t(EP)));
        let (m, _) = decide(&[], &judged(), &sent, &s, t("2026-11-22T14:00:00Z"));
        assert_eq!(m[0].items[0].thread, episode_thread("missed|SQL1|j1", t(EP)), "the recovery replies to it");
        // Twelve at once: one message, one thread for all, recorded on each episode.
        let open: Vec<Open> =
            (0..12).map(|n| other(&format!("missed|SQL1|j{n}"), "SQL1", ProblemKind::Missed)).collect();
        let (m, sent) = decide(&open, &judged(), &SentState::new(), &s, t("2026-11-22T13:00:00Z"));
        assert_eq!(m.len(), 1);
        let group = m[0].items[0].thread.clone();
        assert!(m[0].items.iter().all(|i| i.thread == group));
        assert!(sent.values().all(|s| s.thread.as_deref() == Some(group.as_str())));
        assert_ne!(group, episode_thread("missed|SQL1|j0", t(EP)));
        // Two of them end: their recoveries reply to the grouped alert.
        let (m, _) = decide(&open[2..], &judged(), &sent, &s, t("2026-11-22T14:00:00Z"));
        assert_eq!(m.len(), 2);
        assert!(m.iter().all(|m| m.kind == MessageKind::Resolved && m.items[0].thread == group));
        // What an older Sundial kept (no thread): its own episode's.
        let mut old = sent.clone();
        for s in old.values_mut() {
            s.thread = None;
        }
        let (m, _) = decide(&open[1..], &judged(), &old, &s, t("2026-11-22T14:00:00Z"));
        assert_eq!(m[0].items[0].thread, episode_thread("missed|SQL1|j0", t(EP)));
    }

    fn failed(count: usize, episode: &str) -> Open {
        let mut o = missed(count, episode);
        o.key = "failed|SQL1|j1".into();
        o.kind = ProblemKind::Failed;
        o
    }

    fn kinds(m: &[Message]) -> Vec<MessageKind> {
        m.iter().map(|m| m.kind).collect()
    }

    /// A job failing every other run, seen each tick: (what is open, its successes in a row).
    fn flapping(n: usize) -> (Vec<Open>, Successes) {
        let hour = |h: usize| format!("2026-11-22T{:02}:00:00Z", 10 + h);
        if n.is_multiple_of(2) {
            (vec![failed(1, &hour(n))], Successes::from([("SQL1|j1".to_owned(), 0)]))
        } else {
            (vec![], Successes::from([("SQL1|j1".to_owned(), 1)]))
        }
    }

    #[test]
    fn with_after_two_a_job_failing_every_other_run_never_alerts_and_two_in_a_row_do_once() {
        let s = Settings { after: 2, grace: TimeDelta::zero(), remind: None, ..settings() };
        let mut sent = SentState::new();
        for n in 0..8 {
            let (open, ok) = flapping(n);
            let at = t("2026-11-22T10:30:00Z") + TimeDelta::hours(n as i64);
            let (m, next) = decide_with(&open, &judged(), &ok, &sent, &s, at);
            assert!(m.is_empty(), "tick {n}: {m:?}");
            sent = next;
        }
        let ep = "2026-11-22T18:00:00Z";
        let (m, sent) = decide(&[failed(2, ep)], &judged(), &sent, &s, t("2026-11-22T19:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Alert]);
        let (m, _) = decide(&[failed(3, ep)], &judged(), &sent, &s, t("2026-11-22T20:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        // Other kinds alert at once, whatever their count.
        let mut long = other("running_long|SQL1|j2", "SQL1", ProblemKind::RunningLong);
        long.severity = ProblemSeverity::Error;
        let (m, _) = decide(&[long], &judged(), &SentState::new(), &s, t("2026-11-22T20:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Alert]);
    }

    #[test]
    fn with_resolve_after_two_one_success_between_failures_is_neither_a_recovery_nor_a_new_episode() {
        let s = Settings { resolve_after: 2, grace: TimeDelta::zero(), remind: None, ..settings() };
        let (m, mut sent) = decide(&[failed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:01:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Alert]);
        let alerted = m[0].items[0].thread.clone();
        for n in 1..8 {
            let (open, ok) = flapping(n);
            let at = t("2026-11-22T12:30:00Z") + TimeDelta::hours(n as i64);
            let (m, next) = decide_with(&open, &judged(), &ok, &sent, &s, at);
            assert!(m.is_empty(), "tick {n}: {m:?}");
            sent = next;
        }
        assert_eq!(sent["failed|SQL1|j1"].episode, t(EP), "the alerted episode goes on");
        // Two successes in a row: its one recovery, in the alert's thread, of the alerted episode.
        let two = Successes::from([("SQL1|j1".to_owned(), 2)]);
        let (m, sent) = decide_with(&[], &judged(), &two, &sent, &s, t("2026-11-22T21:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Resolved]);
        assert_eq!((m[0].items[0].thread.as_str(), m[0].items[0].problem.episode), (alerted.as_str(), t(EP)));
        assert!(sent.is_empty());
        // A job removed from its instance has nothing to wait for.
        let (_, sent) = decide(&[failed(1, EP)], &judged(), &SentState::new(), &s, t("2026-11-22T12:01:00Z"));
        let (m, _) = decide_with(&[], &judged(), &Successes::new(), &sent, &s, t("2026-11-22T13:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Resolved]);
    }

    fn quiet(span: (&str, &str), zone: chrono_tz::Tz) -> Settings {
        let clock = |v: &str| chrono::NaiveTime::parse_from_str(v, "%H:%M").unwrap();
        Settings {
            grace: TimeDelta::zero(),
            remind: None,
            quiet: Some(QuietHours { from: clock(span.0), to: clock(span.1), zone, passes: ProblemSeverity::Critical }),
            ..settings()
        }
    }

    #[test]
    fn quiet_hours_hold_what_is_not_bad_enough_until_they_end_in_their_zone() {
        // 22:00-07:00 in New York (UTC-5 in November): 03:00-12:00 UTC.
        let s = quiet(("22:00", "07:00"), chrono_tz::America::New_York);
        let ep = "2026-11-22T04:00:00Z";
        let (m, sent) = decide(&[missed(1, ep)], &judged(), &SentState::new(), &s, t("2026-11-22T04:00:00Z"));
        assert!(m.is_empty() && sent.is_empty(), "held: {m:?}");
        let mut down = other("unreachable|SQL2", "SQL2", ProblemKind::Unreachable);
        down.job = None;
        down.episode = t(ep);
        let (m, _) = decide(&[down], &judged(), &SentState::new(), &s, t("2026-11-22T04:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Alert], "critical goes through");
        let (m, sent) = decide(&[missed(3, ep)], &judged(), &sent, &s, t("2026-11-22T11:59:59Z"));
        assert!(m.is_empty(), "{m:?}");
        let (m, sent) = decide(&[missed(3, ep)], &judged(), &sent, &s, t("2026-11-22T12:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Alert], "sent when they end, still open");
        // Over during the next quiet hours: the recovery waits for their end; back meanwhile,
        // the episode goes on.
        let (m, sent) = decide(&[], &judged(), &sent, &s, t("2026-11-23T04:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        assert_eq!(sent["missed|SQL1|j1"].ended, Some(t("2026-11-23T04:00:00Z")));
        let (m, sent) = decide(&[missed(1, "2026-11-23T05:00:00Z")], &judged(), &sent, &s, t("2026-11-23T05:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        let (m, sent) = decide(&[], &judged(), &sent, &s, t("2026-11-23T06:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        let (m, sent) = decide(&[], &judged(), &sent, &s, t("2026-11-23T12:00:00Z"));
        assert_eq!(kinds(&m), [MessageKind::Resolved]);
        assert!(sent.is_empty());
        // Resolved during quiet hours before it was ever sent: nothing at their end.
        let (_, sent) = decide(&[missed(1, ep)], &judged(), &SentState::new(), &s, t("2026-11-22T05:00:00Z"));
        let (m, _) = decide(&[], &judged(), &sent, &s, t("2026-11-22T12:00:00Z"));
        assert!(m.is_empty(), "{m:?}");
        // A span within one day.
        let day = quiet(("09:00", "17:00"), chrono_tz::UTC);
        assert!(day.quiet_holds(ProblemSeverity::Error, t("2026-11-22T16:59:00Z")));
        assert!(!day.quiet_holds(ProblemSeverity::Error, t("2026-11-22T17:00:00Z")));
        assert!(!day.quiet_holds(ProblemSeverity::Critical, t("2026-11-22T10:00:00Z")));
    }

    #[test]
    fn counts_in_words() {
        assert_eq!(count_words(ProblemKind::Missed, 1).as_deref(), Some("1 run missed"));
        assert_eq!(count_words(ProblemKind::Missed, 4).as_deref(), Some("4 runs missed"));
        assert_eq!(count_words(ProblemKind::Stale, 1), None);
    }
}
