//! The fleet file's webhooks (`[[alert]]`) and the address alerts link to (`public_url`).
//!
//! ```toml
//! public_url = "https://sundial.corp"   # where alerts' links point; default http://<bind address>
//!
//! [[alert]]
//! name = "oncall"
//! url_env = "SUNDIAL_SLACK_URL"        # the webhook URL is a secret: preferably from the environment
//! # url = "https://hooks.slack.com/…"  # or in the file (then keep the file secret)
//! format = "slack"                     # slack | json (default json)
//! grace = "5m"                         # open this long before it alerts (default 5m; "0": at once)
//! remind = "4h"                        # a reminder of what is still open (default 4h; "0": never)
//! min_severity = "error"               # critical | error | warning | info (default error)
//! ```
//!
//! Other channels, and routing (all optional: a target takes every problem at least as bad as
//! `min_severity`):
//!
//! ```toml
//! [[alert]]
//! name = "dba-mail"
//! format = "email"
//! url_env = "SUNDIAL_SMTP_URL"         # smtp://user:pass@relay:587?tls=required (STARTTLS)
//!                                      # or smtps://user:pass@relay:465 (implicit TLS)
//! from = "Sundial <sundial@corp.example>"
//! to = ["dba@corp.example", "Oncall <oncall@corp.example>"]
//! ca_file = "/etc/sundial/relay-ca.pem" # an extra root certificate (a private relay)
//! tags = { env = "prod" }              # only instances with every one of these tags
//! kinds = ["missed", "failed"]         # only these kinds of problem; "changed" adds the changes
//!                                      # of jobs' definitions (never told without it)
//! after = 2                            # a failed or missed job alerts at its 2nd in a row (default 1)
//! resolve_after = 2                    # its recovery waits for 2 successes in a row (default 1)
//! quiet = "22:00-07:00"                # quiet hours, in time_zone: held until they end
//! quiet_severity = "critical"          # what still goes through (default critical)
//! time_zone = "Europe/London"          # the quiet hours' zone (default UTC)
//!
//! [[alert]]
//! name = "pager"
//! format = "pagerduty"                 # Events API v2; url defaults to PagerDuty's enqueue
//! routing_key_env = "SUNDIAL_PD_KEY"   # the integration key (a secret)
//! min_severity = "critical"
//!
//! [[alert]]
//! name = "teams"
//! format = "teams"                     # a Teams Workflows webhook ("Post to a channel when a
//! url_env = "SUNDIAL_TEAMS_URL"        # webhook request is received"): an Adaptive Card
//! ```
//!
//! The URL never prints: its value is a [`Secret`], and messages about it say `***`; so does
//! PagerDuty's routing key and the SMTP URL's password.
use super::{Checker, ConfigError, Secret};
use chrono::{DateTime, NaiveTime, Utc};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;
use sundial_engine::triage::{ProblemKind, ProblemSeverity};
use toml::Spanned;

/// Where PagerDuty's Events API v2 takes events (`url` overrides it, for tests and proxies).
pub const PAGERDUTY_EVENTS_URL: &str = "https://events.pagerduty.com/v2/enqueue";

/// One webhook target, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct AlertConfig {
    pub name: String,
    /// Where its URL comes from (the value is a secret).
    pub target: AlertTarget,
    pub format: AlertFormat,
    /// A problem must stay open this long before it alerts.
    pub grace: Duration,
    /// How often what is still open is listed again; `None`: never.
    pub remind: Option<Duration>,
    /// Problems at least this bad alert.
    pub min_severity: ProblemSeverity,
    /// Which instances and kinds of problem this target takes (`tags`, `kinds`).
    pub route: AlertRoute,
    /// `format = "email"`: sender, recipients, an extra root certificate.
    pub email: Option<EmailSettings>,
    /// `format = "pagerduty"`: where its routing (integration) key comes from.
    pub routing_key: Option<AlertTarget>,
    /// A failed or missed job (kinds that count runs in a row) alerts once this many went
    /// wrong in a row (`after`, at least 1).
    pub after: usize,
    /// Such a problem's recovery waits for this many successes in a row (`resolve_after`).
    pub resolve_after: usize,
    /// Quiet hours (`quiet`, `quiet_severity`, `time_zone`): `None`, never quiet.
    pub quiet: Option<QuietHours>,
    /// The file and line of its `[[alert]]` table, for messages.
    pub origin: String,
    pub line: usize,
}

/// A target's quiet hours: a daily span of wall clock in its zone during which only problems
/// at least as bad as `passes` are sent; the rest wait for the span's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuietHours {
    pub from: NaiveTime,
    /// The end (exclusive); before `from`: the span crosses midnight.
    pub to: NaiveTime,
    pub zone: chrono_tz::Tz,
    /// Problems at least this bad still go through.
    pub passes: ProblemSeverity,
}

impl QuietHours {
    /// Whether `at` falls in the quiet span (by the wall clock in its zone).
    pub fn covers(&self, at: DateTime<Utc>) -> bool {
        let t = at.with_timezone(&self.zone).time();
        if self.from < self.to { self.from <= t && t < self.to } else { t >= self.from || t < self.to }
    }

    /// Whether a problem of `severity` waits at `at` (severities order worst first).
    pub fn holds(&self, severity: ProblemSeverity, at: DateTime<Utc>) -> bool {
        severity > self.passes && self.covers(at)
    }
}

/// The word in `kinds` that asks for the changes of jobs' definitions.
pub const CHANGED: &str = "changed";

/// The largest `after` and `resolve_after`.
pub const MAX_IN_A_ROW: i64 = 1000;

/// Where a webhook's URL comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum AlertTarget {
    /// Written in the file (`url`).
    Url(Secret),
    /// In this environment variable (`url_env`).
    Env(String),
}

/// What a target receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertFormat {
    /// Slack's incoming webhooks (`{"text": …, "blocks": […]}`); Mattermost and others take it.
    Slack,
    /// Sundial's own JSON (see `alerts::payload`).
    Json,
    /// Mail over SMTP: plain text and HTML, one thread per problem episode.
    Email,
    /// PagerDuty's Events API v2: one incident per episode, resolved when it ends.
    PagerDuty,
    /// A Microsoft Teams Workflows webhook: an Adaptive Card.
    Teams,
}

impl AlertFormat {
    pub const ALL: [AlertFormat; 5] =
        [AlertFormat::Json, AlertFormat::Slack, AlertFormat::Email, AlertFormat::PagerDuty, AlertFormat::Teams];

    pub fn key(self) -> &'static str {
        match self {
            AlertFormat::Slack => "slack",
            AlertFormat::Json => "json",
            AlertFormat::Email => "email",
            AlertFormat::PagerDuty => "pagerduty",
            AlertFormat::Teams => "teams",
        }
    }
}

/// Which problems a target takes, besides `min_severity`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlertRoute {
    /// Every one of these must be among the instance's `tags` (empty: any instance).
    pub tags: BTreeMap<String, String>,
    /// Only these kinds (`None`: every kind; empty: none, `kinds = ["changed"]`).
    pub kinds: Option<Vec<ProblemKind>>,
    /// `"changed"` among `kinds`: the changes of jobs' definitions are told here
    /// (`crate::alerts::changes`); never without it.
    pub changes: bool,
}

impl AlertRoute {
    /// Whether an instance with `tags` is routed here.
    pub fn takes_instance(&self, tags: &BTreeMap<String, String>) -> bool {
        self.tags.iter().all(|(k, v)| tags.get(k) == Some(v))
    }

    pub fn takes_kind(&self, kind: ProblemKind) -> bool {
        self.kinds.as_ref().is_none_or(|k| k.contains(&kind))
    }
}

/// An email target's addresses (each checked as an RFC 5322 mailbox).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmailSettings {
    pub from: String,
    pub to: Vec<String>,
    /// A PEM file of root certificates trusted besides the system's (a private relay's CA).
    pub ca_file: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAlert {
    name: Spanned<String>,
    url: Option<Spanned<String>>,
    url_env: Option<Spanned<String>>,
    format: Option<Spanned<String>>,
    grace: Option<Spanned<String>>,
    remind: Option<Spanned<String>>,
    min_severity: Option<Spanned<String>>,
    from: Option<Spanned<String>>,
    to: Option<Spanned<Vec<Spanned<String>>>>,
    ca_file: Option<Spanned<String>>,
    routing_key: Option<Spanned<String>>,
    routing_key_env: Option<Spanned<String>>,
    tags: Option<Spanned<BTreeMap<String, Spanned<String>>>>,
    kinds: Option<Spanned<Vec<Spanned<String>>>>,
    after: Option<Spanned<i64>>,
    resolve_after: Option<Spanned<i64>>,
    quiet: Option<Spanned<String>>,
    quiet_severity: Option<Spanned<String>>,
    time_zone: Option<Spanned<String>>,
}

/// A webhook URL Sundial can post to: http or https with a host. Never echoes the URL.
fn check_url(raw: &str) -> Result<reqwest::Url, &'static str> {
    let url = reqwest::Url::parse(raw.trim()).map_err(|_| "not a URL (http:// or https://)")?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err("not an http:// or https:// URL with a host");
    }
    Ok(url)
}

/// An SMTP URL as lettre reads it, with TLS: `smtps://` (implicit TLS) or `smtp://…?tls=required`
/// (STARTTLS). Never echoes the URL (it may hold a password).
pub fn check_smtp_url(raw: &str) -> Result<reqwest::Url, &'static str> {
    const WHAT: &str = "not an SMTP URL with TLS: smtps://user:pass@host:465 (implicit TLS) or \
                        smtp://user:pass@host:587?tls=required (STARTTLS)";
    let url = reqwest::Url::parse(raw.trim()).map_err(|_| WHAT)?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(WHAT);
    }
    let tls = url.query_pairs().find(|(k, _)| k == "tls").map(|(_, v)| v.into_owned());
    match (url.scheme(), tls.as_deref()) {
        ("smtps", None) | ("smtp", Some("required")) => Ok(url),
        ("smtp", _) => {
            Err("STARTTLS must be required (?tls=required), or use smtps://: the password never goes in clear")
        }
        _ => Err(WHAT),
    }
}

/// Checks the value of `url`/`url_env` for `format`.
fn check_target(format: AlertFormat, raw: &str) -> Result<(), &'static str> {
    match format {
        AlertFormat::Email => check_smtp_url(raw).map(drop),
        _ => check_url(raw).map(drop),
    }
}

impl Checker<'_> {
    /// A duration like "5m", or "0" (none).
    fn duration_or_zero(&self, v: &Spanned<String>, field: &str) -> Result<Duration, ConfigError> {
        match v.get_ref().trim() {
            "0" => Ok(Duration::ZERO),
            s => humantime::parse_duration(s).map_err(|_| {
                self.invalid(
                    v.span(),
                    None,
                    field,
                    &format!("{:?}", v.get_ref()),
                    "not a duration like \"30s\", \"5m\" or \"4h\" (or \"0\")",
                )
            }),
        }
    }

    /// `public_url`: an http(s) URL with a host, without a trailing slash.
    pub(super) fn public_url(&self, raw: Option<&Spanned<String>>) -> Result<Option<String>, ConfigError> {
        let Some(v) = raw else { return Ok(None) };
        let url = check_url(v.get_ref())
            .map_err(|why| self.invalid(v.span(), None, "public_url", &format!("{:?}", v.get_ref()), why))?;
        if url.query().is_some() || url.fragment().is_some() {
            let why = "the address Sundial is reached at, without ?query or #fragment";
            return Err(self.invalid(v.span(), None, "public_url", &format!("{:?}", v.get_ref()), why));
        }
        Ok(Some(url.as_str().trim_end_matches('/').to_owned()))
    }

    /// Every `[[alert]]`: named once each, exactly one of `url` and `url_env`, and the rest
    /// within what Sundial offers.
    pub(super) fn alerts(&self, raw: &[Spanned<RawAlert>]) -> Result<Vec<AlertConfig>, ConfigError> {
        let mut names = HashSet::new();
        let mut out = Vec::with_capacity(raw.len());
        for (n, spanned) in raw.iter().enumerate() {
            let r = spanned.get_ref();
            let field = |f: &str| format!("alert[{n}].{f}");
            let quoted = |v: &Spanned<String>| format!("{:?}", v.get_ref());
            let name = r.name.get_ref().trim().to_owned();
            if name.is_empty() || !names.insert(name.clone()) {
                let why = if name.is_empty() { "an alert needs a name" } else { "another alert already has this name" };
                return Err(self.invalid(r.name.span(), None, &field("name"), &quoted(&r.name), why));
            }
            let format = match r.format.as_ref().map(|f| (f, f.get_ref().trim())) {
                None => AlertFormat::Json,
                Some((f, key)) => AlertFormat::ALL.into_iter().find(|a| a.key() == key).ok_or_else(|| {
                    self.invalid(
                        f.span(),
                        None,
                        &field("format"),
                        &quoted(f),
                        "not json, slack, email, pagerduty or teams",
                    )
                })?,
            };
            let target = match (&r.url, &r.url_env) {
                (Some(u), None) => {
                    check_target(format, u.get_ref())
                        .map_err(|why| self.invalid(u.span(), None, &field("url"), &"***", why))?;
                    AlertTarget::Url(Secret(u.get_ref().trim().to_owned()))
                }
                (None, Some(e)) if !e.get_ref().trim().is_empty() => AlertTarget::Env(e.get_ref().trim().to_owned()),
                (None, Some(e)) => {
                    let why = "names the environment variable holding the target's URL";
                    return Err(self.invalid(e.span(), None, &field("url_env"), &quoted(e), why));
                }
                (Some(_), Some(e)) => {
                    let why = "only one of url and url_env (url_env keeps the secret out of the file)";
                    return Err(self.invalid(e.span(), None, &field("url_env"), &quoted(e), why));
                }
                // PagerDuty's endpoint is known; its secret is the routing key.
                (None, None) if format == AlertFormat::PagerDuty => {
                    AlertTarget::Url(Secret(PAGERDUTY_EVENTS_URL.to_owned()))
                }
                (None, None) => {
                    let why = match format {
                        AlertFormat::Email => {
                            "an email alert needs url_env (the environment variable holding the SMTP URL, smtps://user:pass@host:465 or smtp://user:pass@host:587?tls=required) or url"
                        }
                        _ => "an alert needs url_env (the environment variable holding the webhook's URL) or url",
                    };
                    return Err(self.invalid(spanned.span(), None, &field("url_env"), &"(missing)", why));
                }
            };
            // Fields of one format only.
            let only = |present: bool, f: &str, of: AlertFormat, span: std::ops::Range<usize>| {
                if present && format != of {
                    let why =
                        format!("only for format = \"{}\" (this alert's format is \"{}\")", of.key(), format.key());
                    return Err(self.invalid(span, None, &field(f), &"(set)", &why));
                }
                Ok(())
            };
            let span = |v: Option<std::ops::Range<usize>>| v.unwrap_or(spanned.span());
            only(r.from.is_some(), "from", AlertFormat::Email, span(r.from.as_ref().map(Spanned::span)))?;
            only(r.to.is_some(), "to", AlertFormat::Email, span(r.to.as_ref().map(Spanned::span)))?;
            only(r.ca_file.is_some(), "ca_file", AlertFormat::Email, span(r.ca_file.as_ref().map(Spanned::span)))?;
            only(
                r.routing_key.is_some(),
                "routing_key",
                AlertFormat::PagerDuty,
                span(r.routing_key.as_ref().map(Spanned::span)),
            )?;
            only(
                r.routing_key_env.is_some(),
                "routing_key_env",
                AlertFormat::PagerDuty,
                span(r.routing_key_env.as_ref().map(Spanned::span)),
            )?;
            let email = (format == AlertFormat::Email).then(|| self.email(r, spanned.span(), &field)).transpose()?;
            let routing_key = match (&r.routing_key, &r.routing_key_env) {
                _ if format != AlertFormat::PagerDuty => None,
                (Some(k), None) if !k.get_ref().trim().is_empty() => {
                    Some(AlertTarget::Url(Secret(k.get_ref().trim().to_owned())))
                }
                (None, Some(e)) if !e.get_ref().trim().is_empty() => {
                    Some(AlertTarget::Env(e.get_ref().trim().to_owned()))
                }
                (Some(_), Some(e)) => {
                    let why = "only one of routing_key and routing_key_env (routing_key_env keeps the secret out of the file)";
                    return Err(self.invalid(e.span(), None, &field("routing_key_env"), &quoted(e), why));
                }
                (Some(k), None) => {
                    return Err(self.invalid(k.span(), None, &field("routing_key"), &"***", "an empty key"));
                }
                (None, Some(e)) => {
                    let why = "names the environment variable holding the integration's routing key";
                    return Err(self.invalid(e.span(), None, &field("routing_key_env"), &quoted(e), why));
                }
                (None, None) => {
                    let why = "a pagerduty alert needs routing_key_env (the environment variable holding the Events API v2 integration key) or routing_key";
                    return Err(self.invalid(spanned.span(), None, &field("routing_key_env"), &"(missing)", why));
                }
            };
            let route = self.route(r, &field)?;
            if let (AlertFormat::PagerDuty, true, Some(kinds)) = (format, route.changes, &r.kinds) {
                let why = "PagerDuty pages incidents, and a change of a job's definition is none: tell changes to a json, slack, teams or email target";
                return Err(self.invalid(kinds.span(), None, &field("kinds"), &format!("\"{CHANGED}\""), why));
            }
            let grace = r.grace.as_ref().map(|v| self.duration_or_zero(v, &field("grace"))).transpose()?;
            let remind = r.remind.as_ref().map(|v| self.duration_or_zero(v, &field("remind"))).transpose()?;
            // PagerDuty escalates by its own policy: a trigger again on the same dedup_key only
            // adds a line to the incident's log, so Sundial never reminds it.
            if let (AlertFormat::PagerDuty, Some(v), Some(d)) = (format, &r.remind, remind)
                && !d.is_zero()
            {
                let why =
                    "PagerDuty escalates by its own rules: Sundial sends it no reminders (leave remind out, or \"0\")";
                return Err(self.invalid(v.span(), None, &field("remind"), &quoted(v), why));
            }
            let min_severity =
                self.severity(r.min_severity.as_ref(), &field("min_severity"))?.unwrap_or(ProblemSeverity::Error);
            let (after, resolve_after, quiet) = self.flapping(r, &field)?;
            out.push(AlertConfig {
                name,
                target,
                format,
                grace: grace.unwrap_or(Duration::from_secs(5 * 60)),
                remind: match remind {
                    _ if format == AlertFormat::PagerDuty => None,
                    None => Some(Duration::from_secs(4 * 3600)),
                    Some(d) if d.is_zero() => None,
                    Some(d) => Some(d),
                },
                min_severity,
                route,
                email,
                routing_key,
                after,
                resolve_after,
                quiet,
                origin: self.origin.to_owned(),
                line: super::line_of(self.text, spanned.span()),
            });
        }
        Ok(out)
    }

    /// A severity's word (`None` when the field is left out).
    fn severity(&self, v: Option<&Spanned<String>>, field: &str) -> Result<Option<ProblemSeverity>, ConfigError> {
        let Some(v) = v else { return Ok(None) };
        Ok(Some(match v.get_ref().trim() {
            "critical" => ProblemSeverity::Critical,
            "error" => ProblemSeverity::Error,
            "warning" => ProblemSeverity::Warning,
            "info" => ProblemSeverity::Info,
            _ => {
                let why = "not critical, error, warning or info";
                return Err(self.invalid(v.span(), None, field, &format!("{:?}", v.get_ref()), why));
            }
        }))
    }

    /// `after`, `resolve_after` and the quiet hours (`quiet`, `quiet_severity`, `time_zone`).
    fn flapping(
        &self,
        r: &RawAlert,
        field: &dyn Fn(&str) -> String,
    ) -> Result<(usize, usize, Option<QuietHours>), ConfigError> {
        let in_a_row = |v: Option<&Spanned<i64>>, f: &str| match v {
            None => Ok(1),
            Some(n) if (1..=MAX_IN_A_ROW).contains(n.get_ref()) => Ok(*n.get_ref() as usize),
            Some(n) => {
                let why = format!("a number of runs in a row, from 1 (the first: the default) to {MAX_IN_A_ROW}");
                Err(self.invalid(n.span(), None, &field(f), n.get_ref(), &why))
            }
        };
        let after = in_a_row(r.after.as_ref(), "after")?;
        let resolve_after = in_a_row(r.resolve_after.as_ref(), "resolve_after")?;
        let Some(q) = &r.quiet else {
            // Quiet hours' own fields make no sense alone.
            for (v, f) in [(&r.quiet_severity, "quiet_severity"), (&r.time_zone, "time_zone")] {
                if let Some(v) = v {
                    let why = "only with quiet = \"22:00-07:00\" (the quiet hours it belongs to)";
                    return Err(self.invalid(v.span(), None, &field(f), &format!("{:?}", v.get_ref()), why));
                }
            }
            return Ok((after, resolve_after, None));
        };
        let quoted = |v: &Spanned<String>| format!("{:?}", v.get_ref());
        let clock = |t: &str| NaiveTime::parse_from_str(t.trim(), "%H:%M").ok();
        let span = q.get_ref().split_once('-').and_then(|(a, b)| Some((clock(a)?, clock(b)?)));
        let Some((from, to)) = span else {
            let why = "not a span of wall clock like \"22:00-07:00\" (HH:MM-HH:MM, 24-hour, in time_zone)";
            return Err(self.invalid(q.span(), None, &field("quiet"), &quoted(q), why));
        };
        if from == to {
            let why = "starts where it ends: an empty span (leave quiet out for none)";
            return Err(self.invalid(q.span(), None, &field("quiet"), &quoted(q), why));
        }
        let zone = match &r.time_zone {
            None => chrono_tz::UTC,
            Some(z) => self.zone(z, None, &field("time_zone"))?,
        };
        let passes =
            self.severity(r.quiet_severity.as_ref(), &field("quiet_severity"))?.unwrap_or(ProblemSeverity::Critical);
        Ok((after, resolve_after, Some(QuietHours { from, to, zone, passes })))
    }

    /// An email target's `from`, `to` and `ca_file`.
    fn email(
        &self,
        r: &RawAlert,
        whole: std::ops::Range<usize>,
        field: &dyn Fn(&str) -> String,
    ) -> Result<EmailSettings, ConfigError> {
        let mailbox = |v: &Spanned<String>, f: &str| {
            let text = v.get_ref().trim();
            text.parse::<lettre::message::Mailbox>().map(|_| text.to_owned()).map_err(|_| {
                let why = "not an email address (\"sundial@corp.example\" or \"Sundial <sundial@corp.example>\")";
                self.invalid(v.span(), None, &field(f), &format!("{:?}", v.get_ref()), why)
            })
        };
        let from = match &r.from {
            Some(v) => mailbox(v, "from")?,
            None => {
                let why = "an email alert needs from = \"Sundial <sundial@corp.example>\"";
                return Err(self.invalid(whole, None, &field("from"), &"(missing)", why));
            }
        };
        let to = match &r.to {
            Some(list) if !list.get_ref().is_empty() => {
                list.get_ref().iter().map(|v| mailbox(v, "to")).collect::<Result<Vec<_>, _>>()?
            }
            Some(list) => {
                return Err(self.invalid(list.span(), None, &field("to"), &"[]", "at least one recipient"));
            }
            None => {
                let why = "an email alert needs to = [\"dba@corp.example\", …]";
                return Err(self.invalid(whole, None, &field("to"), &"(missing)", why));
            }
        };
        let ca_file = match &r.ca_file {
            Some(v) if v.get_ref().trim().is_empty() => {
                return Err(self.invalid(
                    v.span(),
                    None,
                    &field("ca_file"),
                    &"\"\"",
                    "names a PEM file of root certificates",
                ));
            }
            Some(v) => Some(PathBuf::from(v.get_ref().trim())),
            None => None,
        };
        Ok(EmailSettings { from, to, ca_file })
    }

    /// `tags` and `kinds`: which problems the target takes.
    fn route(&self, r: &RawAlert, field: &dyn Fn(&str) -> String) -> Result<AlertRoute, ConfigError> {
        let mut route = AlertRoute::default();
        if let Some(tags) = &r.tags {
            for (k, v) in tags.get_ref() {
                if k.trim().is_empty() {
                    return Err(self.invalid(tags.span(), None, &field("tags"), &"\"\"", "a tag needs a name"));
                }
                route.tags.insert(k.clone(), v.get_ref().clone());
            }
        }
        if let Some(kinds) = &r.kinds {
            let mut list = Vec::new();
            for v in kinds.get_ref() {
                let key = v.get_ref().trim();
                if key == CHANGED {
                    route.changes = true;
                    continue;
                }
                let Some(kind) = ProblemKind::ALL.into_iter().find(|k| k.key() == key) else {
                    let allowed: Vec<&str> = ProblemKind::ALL.iter().map(|k| k.key()).chain([CHANGED]).collect();
                    let why = format!("not a kind of problem, nor \"{CHANGED}\": one of {}", allowed.join(", "));
                    return Err(self.invalid(v.span(), None, &field("kinds"), &format!("{:?}", v.get_ref()), &why));
                };
                if !list.contains(&kind) {
                    list.push(kind);
                }
            }
            if list.is_empty() && !route.changes {
                let why = "at least one kind (leave kinds out for every kind of problem)";
                return Err(self.invalid(kinds.span(), None, &field("kinds"), &"[]", why));
            }
            route.kinds = Some(list);
        }
        Ok(route)
    }
}

/// The target's URL (a webhook's, the SMTP relay's, PagerDuty's endpoint), from the file or its
/// environment variable, checked for its format; errors name the alert, its line and the
/// variable, never the value.
pub fn resolve_alert_url(alert: &AlertConfig) -> Result<Secret, ConfigError> {
    resolve(alert, &alert.target, "url_env", |raw| check_target(alert.format, raw))
}

/// PagerDuty's routing key (`None` for other formats), from the file or its variable.
pub fn resolve_routing_key(alert: &AlertConfig) -> Result<Option<Secret>, ConfigError> {
    let check = |raw: &str| if raw.trim().is_empty() { Err("empty") } else { Ok(()) };
    alert.routing_key.as_ref().map(|k| resolve(alert, k, "routing_key_env", check)).transpose()
}

/// An email target's extra root certificates (`ca_file`), read as PEM; `None` without one.
pub fn read_ca_file(alert: &AlertConfig) -> Result<Option<Vec<u8>>, ConfigError> {
    let Some(path) = alert.email.as_ref().and_then(|e| e.ca_file.as_ref()) else { return Ok(None) };
    let invalid = |message: String| ConfigError::Invalid {
        origin: alert.origin.clone(),
        line: alert.line,
        instance: None,
        field: format!("alert \"{}\" ca_file", alert.name),
        value: format!("{:?}", path.display().to_string()),
        message,
    };
    let pem = std::fs::read(path).map_err(|e| invalid(format!("cannot be read: {e}")))?;
    lettre::transport::smtp::client::Certificate::from_pem(&pem)
        .map_err(|_| invalid("not a PEM file of certificates (-----BEGIN CERTIFICATE-----)".to_owned()))?;
    Ok(Some(pem))
}

fn resolve(
    alert: &AlertConfig,
    from: &AlertTarget,
    env_field: &str,
    check: impl Fn(&str) -> Result<(), &'static str>,
) -> Result<Secret, ConfigError> {
    let invalid = |field: &str, value: String, message: &str| ConfigError::Invalid {
        origin: alert.origin.clone(),
        line: alert.line,
        instance: None,
        field: format!("alert \"{}\" {field}", alert.name),
        value,
        message: message.to_owned(),
    };
    match from {
        AlertTarget::Url(s) => Ok(s.clone()),
        AlertTarget::Env(var) => {
            let value = std::env::var(var)
                .map_err(|_| invalid(env_field, format!("{var:?}"), "the environment variable is not set"))?;
            check(&value).map_err(|why| {
                invalid(env_field, format!("{var:?}"), &format!("the environment variable's value is {why}"))
            })?;
            Ok(Secret(value.trim().to_owned()))
        }
    }
}
