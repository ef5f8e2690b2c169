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
//! The URL never prints: its value is a [`Secret`], and messages about it say `***`.
use super::{Checker, ConfigError, Secret};
use app::engine::triage::ProblemSeverity;
use serde::Deserialize;
use std::collections::HashSet;
use std::time::Duration;
use toml::Spanned;

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
    /// The file and line of its `[[alert]]` table, for messages.
    pub origin: String,
    pub line: usize,
}

/// Where a webhook's URL comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum AlertTarget {
    /// Written in the file (`url`).
    Url(Secret),
    /// In this environment variable (`url_env`).
    Env(String),
}

/// What a webhook receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertFormat {
    /// Slack's incoming webhooks (`{"text": …, "blocks": […]}`); Mattermost and others take it.
    Slack,
    /// Sundial's own JSON (see `alerts::payload`).
    Json,
}

impl AlertFormat {
    pub fn key(self) -> &'static str {
        match self {
            AlertFormat::Slack => "slack",
            AlertFormat::Json => "json",
        }
    }
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
}

/// A webhook URL Sundial can post to: http or https with a host. Never echoes the URL.
fn check_url(raw: &str) -> Result<reqwest::Url, &'static str> {
    let url = reqwest::Url::parse(raw.trim()).map_err(|_| "not a URL (http:// or https://)")?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err("not an http:// or https:// URL with a host");
    }
    Ok(url)
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
            let target = match (&r.url, &r.url_env) {
                (Some(u), None) => {
                    check_url(u.get_ref()).map_err(|why| self.invalid(u.span(), None, &field("url"), &"***", why))?;
                    AlertTarget::Url(Secret(u.get_ref().trim().to_owned()))
                }
                (None, Some(e)) if !e.get_ref().trim().is_empty() => AlertTarget::Env(e.get_ref().trim().to_owned()),
                (None, Some(e)) => {
                    let why = "names the environment variable holding the webhook's URL";
                    return Err(self.invalid(e.span(), None, &field("url_env"), &quoted(e), why));
                }
                (Some(_), Some(e)) => {
                    let why = "only one of url and url_env (url_env keeps the secret out of the file)";
                    return Err(self.invalid(e.span(), None, &field("url_env"), &quoted(e), why));
                }
                (None, None) => {
                    let why = "an alert needs url_env (the environment variable holding the webhook's URL) or url";
                    return Err(self.invalid(spanned.span(), None, &field("url_env"), &"(missing)", why));
                }
            };
            let format = match r.format.as_ref().map(|f| (f, f.get_ref().trim())) {
                None | Some((_, "json")) => AlertFormat::Json,
                Some((_, "slack")) => AlertFormat::Slack,
                Some((f, _)) => {
                    return Err(self.invalid(f.span(), None, &field("format"), &quoted(f), "not slack or json"));
                }
            };
            let grace = r.grace.as_ref().map(|v| self.duration_or_zero(v, &field("grace"))).transpose()?;
            let remind = r.remind.as_ref().map(|v| self.duration_or_zero(v, &field("remind"))).transpose()?;
            let min_severity = match r.min_severity.as_ref().map(|s| (s, s.get_ref().trim())) {
                None | Some((_, "error")) => ProblemSeverity::Error,
                Some((_, "critical")) => ProblemSeverity::Critical,
                Some((_, "warning")) => ProblemSeverity::Warning,
                Some((_, "info")) => ProblemSeverity::Info,
                Some((s, _)) => {
                    let why = "not critical, error, warning or info";
                    return Err(self.invalid(s.span(), None, &field("min_severity"), &quoted(s), why));
                }
            };
            out.push(AlertConfig {
                name,
                target,
                format,
                grace: grace.unwrap_or(Duration::from_secs(5 * 60)),
                remind: match remind {
                    None => Some(Duration::from_secs(4 * 3600)),
                    Some(d) if d.is_zero() => None,
                    Some(d) => Some(d),
                },
                min_severity,
                origin: self.origin.to_owned(),
                line: super::line_of(self.text, spanned.span()),
            });
        }
        Ok(out)
    }
}

/// The webhook's URL, from the file or its environment variable, checked; errors name the
/// alert, its line and the variable, never the value.
pub fn resolve_alert_url(alert: &AlertConfig) -> Result<Secret, ConfigError> {
    let invalid = |field: &str, value: String, message: &str| ConfigError::Invalid {
        origin: alert.origin.clone(),
        line: alert.line,
        instance: None,
        field: format!("alert \"{}\" {field}", alert.name),
        value,
        message: message.to_owned(),
    };
    match &alert.target {
        AlertTarget::Url(s) => Ok(s.clone()),
        AlertTarget::Env(var) => {
            let value = std::env::var(var)
                .map_err(|_| invalid("url_env", format!("{var:?}"), "the environment variable is not set"))?;
            check_url(&value).map_err(|why| {
                invalid("url_env", format!("{var:?}"), &format!("the environment variable's value is {why}"))
            })?;
            Ok(Secret(value.trim().to_owned()))
        }
    }
}
