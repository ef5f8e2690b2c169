//! Email alerts (`format = "email"`): the message, built by lettre, and the SMTP relay.
//!
//! Each message is `multipart/alternative`: plain text, and HTML with every text from a source
//! escaped (a job named `<script>` is shown as written); lettre's header types encode what a
//! subject holds, so no name can add a header (a CR/LF in a job's name stays in the subject).
//!
//! **Threads.** The first alert of an episode has a deterministic `Message-ID`: its thread
//! ([`Item::thread`](super::decide::Item)), this target and the sender's domain. A grouped alert
//! is one thread for all it announced. Reminders and the recovery reply to the announcement:
//! `In-Reply-To` its id, `References` every thread the message speaks of (a grouped reminder
//! or recovery may speak of several). Their own ids are deterministic too: a message sent again
//! after a failure is the same message.
//!
//! The relay's URL is a secret (it holds the password): it is never logged nor put in an
//! error ([`SmtpError`] says what failed, and any quote of the password is masked).
// `ConfigError` is large and returned once, at start (see `crate::config`): boxing buys nothing.
#![allow(clippy::result_large_err)]
use super::decide::{Item, Message, MessageKind, count_words};
use crate::config::{AlertConfig, ConfigError, Secret, check_smtp_url};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::AsyncSmtpTransport;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Address, AsyncTransport, Tokio1Executor};
use sha2::{Digest, Sha256};
use std::fmt::Write;
use sundial_model::html::escape;

/// At most this many threads in `References`.
const MAX_REFERENCES: usize = 20;

/// An email target's addresses, checked.
#[derive(Clone, Debug)]
pub struct Mail {
    /// Tells this target's messages from another's (its name's SHA-256, 8 hex digits).
    target: String,
    pub from: Mailbox,
    pub to: Vec<Mailbox>,
}

impl Mail {
    /// From the `[[alert]]`'s `from` and `to` (already checked when the file was read).
    pub fn new(alert: &AlertConfig) -> Result<Mail, ConfigError> {
        let invalid = |field: &str, value: &str| ConfigError::Invalid {
            origin: alert.origin.clone(),
            line: alert.line,
            instance: None,
            field: format!("alert \"{}\" {field}", alert.name),
            value: format!("{value:?}"),
            message: "not an email address".to_owned(),
        };
        let Some(e) = &alert.email else { return Err(invalid("from", "(missing)")) };
        let from: Mailbox = e.from.parse().map_err(|_| invalid("from", &e.from))?;
        let to = e.to.iter().map(|t| t.parse().map_err(|_| invalid("to", t))).collect::<Result<Vec<Mailbox>, _>>()?;
        let target = hex::encode(&Sha256::digest(alert.name.as_bytes())[..4]);
        Ok(Mail { target, from, to })
    }

    /// `<thread.target@sender's domain>`.
    pub fn message_id(&self, thread: &str) -> String {
        format!("<{thread}.{}@{}>", self.target, self.from.email.domain())
    }

    /// The whole message (RFC 5322), as the relay is given it.
    pub fn render(&self, message: &Message, subject: &str, text: &str, public_url: &str) -> String {
        let Some(first) = message.items.first() else { return String::new() };
        let mut threads: Vec<&str> = Vec::new();
        for i in &message.items {
            if !threads.contains(&i.thread.as_str()) {
                threads.push(&i.thread);
            }
        }
        let own = match message.kind {
            // An alert starts its thread (one for all of a grouped alert).
            MessageKind::Alert => first.thread.clone(),
            kind => {
                let mut h = Sha256::new();
                h.update(format!("{kind:?}|{}", message.at.timestamp_millis()));
                for t in &threads {
                    h.update(b"|");
                    h.update(t.as_bytes());
                }
                hex::encode(&h.finalize()[..16])
            }
        };
        let mut b = lettre::Message::builder()
            .from(self.from.clone())
            .subject(subject)
            .date(message.at.into())
            .message_id(Some(self.message_id(&own)))
            .user_agent(concat!("Sundial/", env!("CARGO_PKG_VERSION")).to_owned());
        for to in &self.to {
            b = b.to(to.clone());
        }
        if message.kind != MessageKind::Alert {
            b = b.in_reply_to(self.message_id(&first.thread));
            let refs: Vec<String> = threads.iter().take(MAX_REFERENCES).map(|t| self.message_id(t)).collect();
            b = b.references(refs.join(" "));
        }
        let text = format!("{text}\n\n-- \nSundial: {public_url}/triage\n");
        let html = html(message, subject, public_url);
        match b.multipart(MultiPart::alternative_plain_html(text, html)) {
            Ok(m) => String::from_utf8_lossy(&m.formatted()).into_owned(),
            // Only without a sender or a recipient, which the configuration always has.
            Err(e) => {
                tracing::warn!(error = %e, "alerts: an email could not be built");
                String::new()
            }
        }
    }
}

/// A message that starts its own thread (`own`: its `Message-ID`'s token), from its parts:
/// the changes of jobs' definitions told (`super::changes`), whose HTML the caller escaped.
impl Mail {
    pub fn render_parts(
        &self,
        subject: &str,
        text: String,
        html: String,
        own: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> String {
        let mut b = lettre::Message::builder()
            .from(self.from.clone())
            .subject(subject)
            .date(at.into())
            .message_id(Some(self.message_id(own)))
            .user_agent(concat!("Sundial/", env!("CARGO_PKG_VERSION")).to_owned());
        for to in &self.to {
            b = b.to(to.clone());
        }
        match b.multipart(MultiPart::alternative_plain_html(text, html)) {
            Ok(m) => String::from_utf8_lossy(&m.formatted()).into_owned(),
            Err(e) => {
                tracing::warn!(error = %e, "alerts: an email could not be built");
                String::new()
            }
        }
    }
}

/// An HTML part's start: the document, its title and heading, `subject` escaped. Problems'
/// and changes' emails alike; the caller adds the body and `</body></html>`.
pub(super) fn html_start(subject: &str) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    out.push_str(&escape(subject));
    out.push_str("</title></head><body style=\"font-family:sans-serif\">\n<h2>");
    out.push_str(&escape(subject));
    out.push_str("</h2>\n");
    out
}

/// The HTML part: every text from a source escaped, every link Sundial's.
fn html(message: &Message, subject: &str, public_url: &str) -> String {
    let mut out = html_start(subject);
    for i in message.items.iter().take(super::MAX_LISTED) {
        item_html(&mut out, i, message.kind);
    }
    let more = message.items.len().saturating_sub(super::MAX_LISTED);
    let triage = escape(&format!("{public_url}/triage"));
    if more > 0 {
        let _ = writeln!(out, "<p>and {more} more: <a href=\"{triage}\">the triage view</a></p>");
    } else {
        let _ = writeln!(out, "<p><a href=\"{triage}\">The triage view</a></p>");
    }
    out.push_str("</body></html>\n");
    out
}

fn item_html(out: &mut String, i: &Item, kind: MessageKind) {
    let p = &i.problem;
    let counted = count_words(p.kind, i.max_count).map(|c| format!(" ({c})")).unwrap_or_default();
    let head = match kind {
        MessageKind::Resolved => format!("{}: resolved{counted}", p.subject()),
        _ => format!("{} since {}", p.subject(), p.since),
    };
    let _ = write!(
        out,
        "<div style=\"margin:1em 0\"><p><strong>{}</strong> ({})</p>\n<table>\
         <tr><th align=\"left\">Instance</th><td>{}</td></tr>\n{}\
         <tr><th align=\"left\">Since</th><td>{}</td></tr>\n</table>\n<p>{}</p>\n\
         <p><a href=\"{}\">Open the evidence</a></p></div>\n",
        escape(&head),
        p.severity.key(),
        escape(&p.instance),
        p.job
            .as_ref()
            .map(|j| format!("<tr><th align=\"left\">Job</th><td>{}</td></tr>\n", escape(j)))
            .unwrap_or_default(),
        escape(&p.since),
        escape(&p.evidence).replace('\n', "<br>"),
        escape(&p.link),
    );
}

/// Why a delivery over SMTP failed, without the URL or its password.
#[derive(Debug, thiserror::Error)]
pub enum SmtpError {
    /// The relay refused this message for what it is (a permanent answer to the envelope or
    /// the data): sending it again would not help.
    #[error("the relay refused the message: {0}")]
    Rejected(String),
    /// Worth trying again: no connection, TLS, authentication, a transient answer.
    #[error("{0}")]
    Retry(String),
}

/// One email target's relay: lettre's pooled async transport over rustls.
pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    envelope: lettre::address::Envelope,
    /// To mask in any error's words.
    password: Option<String>,
    /// One delivery, start to end (lettre's own timeout bounds each connection attempt only: a
    /// relay that stops answering mid-session, as aiosmtpd does after a refused AUTH, would
    /// hold the target's queue for ever).
    deadline: std::time::Duration,
}

impl Smtp {
    /// The relay at `url` (checked: `smtps://` or `smtp://…?tls=required`), trusting `ca_pem`'s
    /// certificates besides the system's; errors name the alert and its line, never the URL.
    pub fn new(
        alert: &AlertConfig,
        mail: &Mail,
        url: &Secret,
        ca_pem: Option<&[u8]>,
        timeout: std::time::Duration,
    ) -> Result<Smtp, ConfigError> {
        let invalid = |message: &str| ConfigError::Invalid {
            origin: alert.origin.clone(),
            line: alert.line,
            instance: None,
            field: format!("alert \"{}\" url", alert.name),
            value: "***".to_owned(),
            message: message.to_owned(),
        };
        let parsed = check_smtp_url(url.expose()).map_err(invalid)?;
        let host = parsed.host_str().unwrap_or_default().trim_matches(['[', ']']).to_owned();
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose().trim())
            .map_err(|_| invalid("lettre cannot read this SMTP URL"))?
            .timeout(Some(timeout));
        if let Some(pem) = ca_pem {
            let cert = Certificate::from_pem(pem).map_err(|_| invalid("the ca_file holds no PEM certificate"))?;
            let params = TlsParameters::builder(host)
                .add_root_certificate(cert)
                .build_rustls()
                .map_err(|e| invalid(&format!("TLS cannot be set up: {e}")))?;
            builder = builder.tls(match parsed.scheme() {
                "smtps" => Tls::Wrapper(params),
                _ => Tls::Required(params),
            });
        }
        let to: Vec<Address> = mail.to.iter().map(|m| m.email.clone()).collect();
        let envelope = lettre::address::Envelope::new(Some(mail.from.email.clone()), to)
            .map_err(|e| invalid(&format!("no envelope: {e}")))?;
        let password =
            parsed.password().map(|p| percent_encoding::percent_decode_str(p).decode_utf8_lossy().into_owned());
        Ok(Smtp { transport: builder.build(), envelope, password, deadline: timeout.saturating_mul(3) })
    }

    /// Deliver one message (its RFC 5322 text).
    pub async fn send(&self, formatted: &str) -> Result<(), SmtpError> {
        let sent = tokio::time::timeout(self.deadline, self.transport.send_raw(&self.envelope, formatted.as_bytes()));
        match sent.await {
            Err(_) => {
                Err(SmtpError::Retry(format!("no delivery within {}", humantime::format_duration(self.deadline))))
            }
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => {
                let words = self.words(&e);
                // A permanent answer about the message or its recipients; authentication and
                // access answers (530, 534, 535, 538) are the configuration's to fix: retried.
                let about_message = e.status().is_some_and(|c| {
                    let code = c.to_string();
                    e.is_permanent() && !matches!(code.as_str(), "530" | "534" | "535" | "538")
                });
                Err(if about_message { SmtpError::Rejected(words) } else { SmtpError::Retry(words) })
            }
        }
    }

    fn words(&self, e: &lettre::transport::smtp::Error) -> String {
        let what = if e.is_timeout() {
            "no answer in time"
        } else if e.is_tls() {
            "TLS failed"
        } else if e.is_permanent() || e.is_transient() {
            "the relay answered"
        } else {
            "cannot deliver"
        };
        let mut text = format!("{what}: {e}");
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            let _ = write!(text, ": {s}");
            source = s.source();
        }
        match &self.password {
            Some(p) if !p.is_empty() => text.replace(p.as_str(), "***"),
            _ => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decide::{self, Open, SentState, Settings};
    use super::*;
    use chrono::{DateTime, TimeDelta, Utc};
    use sundial_engine::triage::{ProblemKind, ProblemSeverity};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    const HOSTILE: &str = "ETL\r\nBcc: victim@evil.example\r\nX-Injected: 1\r\n\r\n<script>alert(1)</script>";

    fn mail() -> Mail {
        let text = "[[alert]]\nname = \"mail\"\nformat = \"email\"\nurl = \"smtps://u:p@relay.example\"\n\
                    from = \"Sundial <sundial@corp.example>\"\nto = [\"dba@corp.example\"]\n";
        let c = crate::config::parse(text, "fleet.toml").unwrap();
        Mail::new(&c.alerts[0]).unwrap()
    }

    fn open(n: usize, job: &str) -> Open {
        Open {
            key: format!("missed|SQL1|j{n}"),
            episode: t("2026-11-22T12:00:00Z"),
            kind: ProblemKind::Missed,
            severity: ProblemSeverity::Error,
            instance: "SQL1".into(),
            job: Some(job.into()),
            since: "2026-11-22T07:00:00-05:00".into(),
            evidence: "the run due 2026-11-22 12:00 UTC missed <b>".into(),
            count: 1,
            link: "http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1".into(),
            acknowledged: false,
            maintenance_until: None,
        }
    }

    /// The header block of a formatted message, unfolded, one header a line.
    fn headers(formatted: &str) -> Vec<String> {
        let head = formatted.split("\r\n\r\n").next().unwrap();
        let mut out: Vec<String> = Vec::new();
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                out.last_mut().unwrap().push_str(line);
            } else {
                out.push(line.to_owned());
            }
        }
        out
    }

    fn header<'a>(hs: &'a [String], name: &str) -> Vec<&'a str> {
        hs.iter().filter_map(|h| h.strip_prefix(&format!("{name}: "))).collect()
    }

    #[test]
    fn a_hostile_name_adds_no_header_and_the_recovery_replies_to_the_alert() {
        let settings = Settings {
            grace: TimeDelta::zero(),
            remind: None,
            min_severity: ProblemSeverity::Info,
            route: Default::default(),
            group: true,
            after: 1,
            resolve_after: 1,
            quiet: None,
        };
        let mail = mail();
        let (m, sent) = decide::decide(
            &[open(1, HOSTILE)],
            &Default::default(),
            &SentState::new(),
            &settings,
            t("2026-11-22T12:05:00Z"),
        );
        let subject = m[0].subject();
        let alert = mail.render(&m[0], &subject, "text", "http://s");
        let hs = headers(&alert);
        let names: Vec<&str> = hs.iter().map(|h| h.split(':').next().unwrap()).collect();
        assert!(
            !names.iter().any(|n| n.eq_ignore_ascii_case("bcc") || n.eq_ignore_ascii_case("x-injected")),
            "{hs:#?}"
        );
        assert_eq!(header(&hs, "To"), ["dba@corp.example"]);
        let id = header(&hs, "Message-ID")[0].to_owned();
        assert!(id.ends_with("@corp.example>") && id.starts_with('<'), "{id}");
        assert_eq!(id, mail.message_id(&decide::episode_thread("missed|SQL1|j1", t("2026-11-22T12:00:00Z"))));
        assert!(header(&hs, "In-Reply-To").is_empty());
        // Its recovery, decided by another process later: in the same thread.
        let judged = std::collections::HashSet::from(["SQL1".to_owned()]);
        let (m, _) = decide::decide(&[], &judged, &sent, &settings, t("2026-11-22T14:00:00Z"));
        let recovery = mail.render(&m[0], &m[0].subject(), "text", "http://s");
        let hs = headers(&recovery);
        assert_eq!(header(&hs, "In-Reply-To"), [id.as_str()]);
        assert_eq!(header(&hs, "References"), [id.as_str()]);
        assert_ne!(header(&hs, "Message-ID")[0], id);
        // The HTML part's text from sources is escaped.
        let page = html(&m[0], &m[0].subject(), "http://s");
        assert!(
            !page.contains("<script>") && page.contains("&lt;script&gt;") && page.contains("missed &lt;b&gt;"),
            "{page}"
        );
    }

    #[test]
    fn a_grouped_alerts_episodes_reply_to_it() {
        let settings = Settings {
            grace: TimeDelta::zero(),
            remind: Some(TimeDelta::hours(1)),
            min_severity: ProblemSeverity::Info,
            route: Default::default(),
            group: true,
            after: 1,
            resolve_after: 1,
            quiet: None,
        };
        let mail = mail();
        let open: Vec<Open> = (0..12).map(|n| open(n, &format!("job {n}"))).collect();
        let judged = std::collections::HashSet::from(["SQL1".to_owned()]);
        let (m, sent) = decide::decide(&open, &judged, &SentState::new(), &settings, t("2026-11-22T12:05:00Z"));
        assert_eq!(m.len(), 1);
        let group = mail.render(&m[0], &m[0].subject(), "text", "http://s");
        let id = header(&headers(&group), "Message-ID")[0].to_owned();
        // A reminder of all, then one recovery: both reply to the grouped alert.
        let (m, sent) = decide::decide(&open, &judged, &sent, &settings, t("2026-11-22T13:05:00Z"));
        assert_eq!(m[0].kind, MessageKind::Reminder);
        let reminder = mail.render(&m[0], &m[0].subject(), "text", "http://s");
        assert_eq!(header(&headers(&reminder), "In-Reply-To"), [id.as_str()]);
        assert_eq!(header(&headers(&reminder), "References"), [id.as_str()], "one thread, named once");
        let (m, _) = decide::decide(&open[1..], &judged, &sent, &settings, t("2026-11-22T13:10:00Z"));
        let recovery = mail.render(&m[0], &m[0].subject(), "text", "http://s");
        assert_eq!(header(&headers(&recovery), "In-Reply-To"), [id.as_str()]);
    }
}
