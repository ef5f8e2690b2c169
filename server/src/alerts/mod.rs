//! Alerts (`[[alert]]` in the fleet file) that lead to the triage view: webhooks (Sundial's
//! JSON, Slack, Microsoft Teams), PagerDuty's Events API v2, and email over SMTP.
//!
//! Every [`TICK_EVERY`], [`Alerter::tick`] takes the fleet's problems as judged for the pages
//! ([`FleetBackend::problems`]), and for each target [`decide::decide`] says what to send: one
//! alert per problem episode after its grace, reminders of what is still open and not
//! acknowledged, a recovery when an episode ends. The decision and its messages are kept in
//! Sundial's store in one transaction ([`store`]), then queued to the target's own sender
//! ([`send`]), which retries with backoff; nothing waits for delivery. A restart reloads both:
//! nothing is sent twice, nothing decided is lost.
//!
//! Each target takes the problems its route selects (`tags` of the instance, `kinds`,
//! `min_severity`: [`decide::Route`]); an episode alerted before a change of route is followed to
//! its real end (its recovery), never dropped nor resolved early.
//!
//! - `decide.rs`: the pure decision (problems now + what was sent + now + settings).
//! - `payload.rs`: Sundial's JSON, Slack's, Teams' and PagerDuty's bodies.
//! - `email.rs`: the email (text and HTML, threaded per episode) and the SMTP relay.
//! - `send.rs`: delivery, bounded queue, backoff; the URL (a secret) never in a log or error.
//! - `store.rs`: `alert_sent` and `alert_outbox` in Sundial's store.
//! - `changes.rs`: the changes of jobs' definitions told to targets whose `kinds` include
//!   "changed" (each tick, after the problems), once each, through the same outbox.
/// At most this many problems are listed in one message (Slack takes 50 blocks), in every
/// format (`payload`, `email`).
pub const MAX_LISTED: usize = 45;

pub mod changes;
pub mod decide;
pub mod email;
pub mod payload;
pub mod send;
pub mod store;

use crate::config::{AlertConfig, AlertFormat, FleetConfig, read_ca_file, resolve_alert_url, resolve_routing_key};
use crate::fleet::FleetBackend;
use crate::triage::Judged;
use anyhow::Context;
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use decide::{Open, Route, SentState, Settings};
use email::{Mail, Smtp};
use payload::Format;
use send::{Channel, Retry, Sender, TargetStatus};
use std::sync::Arc;
use std::time::Duration;
use store::AlertStore;
use tokio::sync::watch;

/// How often problems are looked at (the fleet's judgement is renewed as often).
pub const TICK_EVERY: Duration = Duration::from_secs(15);

/// One target: its rules, what was sent to it, its sender.
struct Target {
    config: AlertConfig,
    /// An email target's addresses.
    mail: Option<Mail>,
    settings: Settings,
    sent: tokio::sync::Mutex<SentState>,
    sender: Arc<Sender>,
}

/// Alerts over a fleet (see the module docs).
pub struct Alerter {
    backend: Arc<FleetBackend>,
    public_url: String,
    targets: Vec<Target>,
    store: Arc<AlertStore>,
    /// One tick at a time.
    ticking: tokio::sync::Mutex<()>,
}

/// A problem as alerts see it: its absolute link and whether an acknowledgement holds.
pub fn open(j: &Judged, acknowledged: bool, public_url: &str, now: DateTime<Utc>) -> Open {
    let p = &j.problem;
    let row = sundial_model::triage::row(p, j.first_seen, j.tz, None, now);
    let since = p.since.unwrap_or(j.first_seen).with_timezone(&j.tz).fixed_offset();
    Open {
        key: row.key,
        episode: j.first_seen,
        kind: p.kind,
        severity: p.severity,
        instance: p.instance.clone(),
        job: p.job.as_ref().map(|j| j.1.clone()),
        since: since.to_rfc3339_opts(SecondsFormat::Secs, true),
        evidence: p.evidence.clone(),
        count: p.count,
        link: format!("{public_url}{}", row.link),
        acknowledged,
        maintenance_until: j.maintenance.as_ref().map(|h| h.until),
    }
}

fn delta(d: Duration) -> TimeDelta {
    TimeDelta::from_std(d).unwrap_or(TimeDelta::MAX)
}

impl Target {
    fn format(&self) -> Format<'_> {
        match (self.config.format, &self.mail) {
            (AlertFormat::Json, _) => Format::Json,
            (AlertFormat::Slack, _) => Format::Slack,
            (AlertFormat::Teams, _) => Format::Teams,
            (AlertFormat::PagerDuty, _) => Format::PagerDuty,
            (AlertFormat::Email, Some(mail)) => Format::Email(mail),
            // `start` makes every email target's `Mail`.
            (AlertFormat::Email, None) => Format::Json,
        }
    }
}

/// A target's route over this fleet: the instances whose tags match (`None`: no tag asked).
pub fn route(alert: &AlertConfig, fleet: &FleetConfig) -> Route {
    let r = &alert.route;
    Route {
        instances: (!r.tags.is_empty())
            .then(|| fleet.instances.iter().filter(|i| r.takes_instance(&i.tags)).map(|i| i.name.clone()).collect()),
        kinds: r.kinds.as_ref().map(|k| k.iter().copied().collect()),
    }
}

/// How a target's messages travel, its secrets resolved (an unset variable, an unreadable
/// `ca_file` stop the start, naming the alert, its line and the variable or file).
fn channel(a: &AlertConfig, retry: &Retry) -> anyhow::Result<(Channel, Option<Mail>)> {
    let url = resolve_alert_url(a)?;
    Ok(match a.format {
        AlertFormat::Json | AlertFormat::Slack | AlertFormat::Teams => (Channel::Webhook(url), None),
        AlertFormat::PagerDuty => {
            let routing_key =
                resolve_routing_key(a)?.ok_or_else(|| anyhow::anyhow!("alert \"{}\": no routing key", a.name))?;
            (Channel::PagerDuty { url, routing_key }, None)
        }
        AlertFormat::Email => {
            let mail = Mail::new(a)?;
            let ca = read_ca_file(a)?;
            let smtp = Smtp::new(a, &mail, &url, ca.as_deref(), retry.timeout)?;
            (Channel::Email(Box::new(smtp)), Some(mail))
        }
    })
}

impl Alerter {
    /// The alerts the fleet file configures (`None`: none), their URLs resolved (an unset
    /// variable stops the start, naming the alert, its line and the variable), what was sent
    /// and what waits reloaded from Sundial's store, and each target's sender started.
    /// `public_url`: where links point (no trailing slash). Ticks only when told
    /// ([`Alerter::tick`], or [`Alerter::spawn`] for the serving loop).
    pub async fn start(
        backend: Arc<FleetBackend>,
        config: &FleetConfig,
        public_url: &str,
        retry: Retry,
    ) -> anyhow::Result<Option<Arc<Alerter>>> {
        if config.alerts.is_empty() {
            return Ok(None);
        }
        let mut channels = Vec::new();
        for a in &config.alerts {
            channels.push(channel(a, &retry)?);
        }
        let pool = match crate::store::Store::open_at(&config.store).await {
            Ok(store) => Some(store),
            Err(e) => {
                tracing::warn!(error = %e, "alerts: Sundial's store cannot be opened: what was sent is kept in memory only, and a restart may repeat alerts");
                None
            }
        };
        let store = Arc::new(AlertStore::new(pool));
        let (mut sent, mut outbox) = store.load().await.context("reading what alerts sent from Sundial's store")?;
        if backend.replicas().is_some() {
            // Replicas: the one that takes the alert lease loads these then (`take_over`).
            (sent, outbox) = Default::default();
        }
        let targets = config
            .alerts
            .iter()
            .zip(channels)
            .map(|(a, (channel, mail))| {
                let sender =
                    Sender::new(&a.name, channel, store.clone(), retry, outbox.remove(&a.name).unwrap_or_default());
                sender.spawn();
                Target {
                    config: a.clone(),
                    mail,
                    settings: Settings {
                        grace: delta(a.grace),
                        remind: a.remind.map(delta),
                        min_severity: a.min_severity,
                        route: route(a, config),
                        // PagerDuty: one event per episode, its incident.
                        group: a.format != AlertFormat::PagerDuty,
                        after: a.after,
                        resolve_after: a.resolve_after,
                        quiet: a.quiet.clone(),
                    },
                    sent: tokio::sync::Mutex::new(sent.remove(&a.name).unwrap_or_default()),
                    sender,
                }
            })
            .collect();
        tracing::info!(alerts = config.alerts.len(), public_url, "alerts configured");
        Ok(Some(Arc::new(Alerter {
            backend,
            public_url: public_url.trim_end_matches('/').to_owned(),
            targets,
            store,
            ticking: tokio::sync::Mutex::new(()),
        })))
    }

    /// Look at the fleet's problems now and queue what each target should receive; returns
    /// (target, subject) of each message queued. Never waits for a delivery.
    pub async fn tick(&self, now: DateTime<Utc>) -> Vec<(String, String)> {
        let _one = self.ticking.lock().await;
        let fleet = self.backend.problems_current().await;
        let keeper = self.backend.keeper();
        let open: Vec<Open> =
            fleet.judged.iter().map(|j| open(j, keeper.is_acknowledged(j, now), &self.public_url, now)).collect();
        let successes = if self.targets.iter().any(|t| t.settings.resolve_after > 1) {
            self.successes(&fleet.judged_instances).await
        } else {
            decide::Successes::new()
        };
        let mut queued = Vec::new();
        for t in &self.targets {
            let mut sent = t.sent.lock().await;
            let (messages, next) =
                decide::decide_with(&open, &fleet.judged_instances, &successes, &sent, &t.settings, now);
            if messages.is_empty() && next == *sent {
                continue;
            }
            let bodies: Vec<(String, String)> =
                messages.iter().map(|m| payload::render(m, t.format(), &self.public_url)).collect();
            let changed = (next != *sent).then_some(&next);
            match self.store.commit(&t.config.name, changed, bodies.clone(), now).await {
                Ok(ready) => {
                    queued.extend(ready.iter().map(|q| (t.config.name.clone(), q.subject.clone())));
                    t.sender.enqueue(ready);
                    *sent = next;
                }
                // Nothing is sent that could not be remembered: the next tick decides again.
                Err(e) => {
                    tracing::warn!(alert = %t.config.name, error = %e, "alerts: Sundial's store refused the decision; retrying next tick")
                }
            }
        }
        queued.extend(self.tell_changes(now).await);
        queued
    }

    /// Each judged job's successes in a row (from its instance's latest judgment), for
    /// `resolve_after`.
    async fn successes(&self, judged: &std::collections::HashSet<String>) -> decide::Successes {
        use sundial_model::ssr::Backend;
        let mut out = decide::Successes::new();
        for instance in judged {
            for f in self.backend.figures(instance).await.iter().flat_map(|f| f.iter()) {
                out.insert(format!("{instance}|{}", f.id), f.successes_in_a_row);
            }
        }
        out
    }

    /// Tick every [`TICK_EVERY`] once every instance was read once (or its first read timed
    /// out). `fixed_now` (`serve --now`): time starts there and runs on.
    pub fn spawn(self: &Arc<Self>, fixed_now: Option<DateTime<Utc>>) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move {
            me.backend.first_reads().await;
            let started = std::time::Instant::now();
            let mut timer = tokio::time::interval(TICK_EVERY);
            timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // With replicas, the one holding the alert lease sends; one that takes it over
            // starts from what the store says was sent and is still queued.
            let mut leading = me.backend.replicas().is_none();
            loop {
                timer.tick().await;
                if let Some(r) = me.backend.replicas() {
                    let leads = r.leads_alerts().await;
                    if leads && !leading {
                        me.take_over().await;
                    }
                    leading = leads;
                    if !leads {
                        continue;
                    }
                }
                let now = fixed_now.map_or_else(Utc::now, |t| t + delta(started.elapsed()));
                me.tick(now).await;
            }
        })
    }

    /// Become the replica that sends: what was sent and what waits, as the store has them.
    async fn take_over(&self) {
        let (mut sent, mut outbox) = match self.store.load().await {
            Ok(loaded) => loaded,
            Err(e) => {
                tracing::warn!(error = %e, "alerts: taking over from another replica, the store could not be read; deciding from this replica's view");
                return;
            }
        };
        for t in &self.targets {
            *t.sent.lock().await = sent.remove(&t.config.name).unwrap_or_default();
            t.sender.enqueue(outbox.remove(&t.config.name).unwrap_or_default());
        }
        tracing::info!("alerts: this replica sends the fleet's alerts now");
    }

    /// Each target's name and how its delivery goes.
    pub fn status(&self) -> Vec<(String, watch::Receiver<TargetStatus>)> {
        self.targets.iter().map(|t| (t.config.name.clone(), t.sender.status())).collect()
    }

    /// Whether what was sent survives a restart.
    pub fn is_persistent(&self) -> bool {
        self.store.is_persistent()
    }
}
