//! What a webhook receives: Slack's incoming-webhook shape, or Sundial's own JSON.
//!
//! Sundial's JSON (`format = "json"`):
//!
//! ```json
//! {
//!   "type": "alert",                        // alert | reminder | resolved
//!   "subject": "[MISSED] SQLPROD01 / ETL - Nightly Load",
//!   "text": "…the subject, then a line per problem: evidence and link…",
//!   "sent_at": "2026-11-22T12:05:00Z",
//!   "triage": "https://sundial.corp/triage",
//!   "problems": [{
//!     "key": "missed|SQLPROD01|<job id>", "kind": "missed", "subject": "MISSED",
//!     "severity": "error", "instance": "SQLPROD01", "job": "ETL - Nightly Load",
//!     "since": "2026-11-22T07:00:00-05:00", "first_seen": "2026-11-22T12:00:00Z",
//!     "evidence": "…", "count": 1, "max_count": 3, "counted": "3 runs missed",
//!     "link": "https://sundial.corp/jobs/<job id>?at=…&instance=SQLPROD01",
//!     "acknowledged": false
//!   }],
//!   "more": 0                                // problems not listed (at most 50 are)
//! }
//! ```
//!
//! Slack's (`format = "slack"`): `{"text": <subject>, "blocks": [section, …]}` in mrkdwn, one
//! section per problem with its evidence and a link to the moment.
//!
//! PagerDuty's (`format = "pagerduty"`): an Events API v2 event, `trigger` when an episode is
//! alerted and `resolve` when it ends, both with the episode's [`dedup_key`]; the routing key
//! (a secret) is not in the body kept in Sundial's store: the sender adds it when it posts.
//!
//! Teams' (`format = "teams"`): a Workflows webhook's message holding one Adaptive Card; text
//! from a source is escaped so that Teams' Markdown shows it as written ([`teams_text`]).
//!
//! Email's (`format = "email"`): see [`super::email`].
use super::decide::{Item, Message, MessageKind, count_words};
use super::email::Mail;
use chrono::SecondsFormat;
use serde_json::{Value, json};
use sundial_engine::triage::ProblemSeverity;

pub use super::MAX_LISTED;

/// At most this many problems in one Teams card (a card's body must stay under 28 KB).
pub const TEAMS_LISTED: usize = 20;

/// PagerDuty's `payload.summary` is cut to this many characters.
pub const PAGERDUTY_SUMMARY_MAX: usize = 1024;

/// What a target's messages are made into.
#[derive(Clone, Copy, Debug)]
pub enum Format<'a> {
    Json,
    Slack,
    Teams,
    PagerDuty,
    Email(&'a Mail),
}

/// The message as its target's format wants it: the subject, and the body to deliver (for
/// email, the whole RFC 5322 message).
pub fn render(message: &Message, format: Format<'_>, public_url: &str) -> (String, String) {
    let message = &visible(message);
    let subject = message.subject();
    let body = match format {
        Format::Json => json_body(message, &subject, public_url).to_string(),
        Format::Slack => slack_body(message, &subject, public_url).to_string(),
        Format::Teams => teams_body(message, &subject, public_url).to_string(),
        Format::PagerDuty => pagerduty_body(message, public_url).to_string(),
        Format::Email(mail) => mail.render(message, &subject, &text(message, &subject, public_url), public_url),
    };
    (subject, body)
}

/// The message with every text from a source shown as the log shows it
/// ([`crate::logging::visible`]): control characters (ESC, CR…) and direction marks (a
/// right-to-left override) escaped in every format, the evidence's line breaks kept.
fn visible(message: &Message) -> Message {
    use crate::logging::visible;
    let mut out = message.clone();
    for i in &mut out.items {
        let p = &mut i.problem;
        p.key = visible(&p.key, false);
        p.instance = visible(&p.instance, false);
        p.job = p.job.as_deref().map(|j| visible(j, false));
        p.since = visible(&p.since, false);
        p.evidence = visible(&p.evidence, true);
    }
    out
}

fn rfc3339(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The line a problem gets in plain text.
fn line(i: &Item, kind: MessageKind) -> String {
    let p = &i.problem;
    let counted = count_words(p.kind, i.max_count).map(|c| format!(" ({c})")).unwrap_or_default();
    match kind {
        MessageKind::Resolved => format!("{}: resolved{counted}; it was: {}\n{}", p.subject(), p.evidence, p.link),
        _ => format!("{} since {}: {}\n{}", p.subject(), p.since, p.evidence, p.link),
    }
}

/// The plain text of a message: the subject, then each problem's line (evidence and link).
pub fn text(message: &Message, subject: &str, public_url: &str) -> String {
    let mut out = subject.to_owned();
    for i in message.items.iter().take(MAX_LISTED) {
        out.push_str("\n\n");
        out.push_str(&line(i, message.kind));
    }
    let more = message.items.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        out.push_str(&format!("\n\nand {more} more: {public_url}/triage"));
    }
    out
}

fn json_body(message: &Message, subject: &str, public_url: &str) -> Value {
    let problems: Vec<Value> = message
        .items
        .iter()
        .take(MAX_LISTED)
        .map(|i| {
            let p = &i.problem;
            json!({
                "key": p.key,
                "kind": p.kind,
                "subject": p.kind.subject(),
                "severity": p.severity,
                "instance": p.instance,
                "job": p.job,
                "since": p.since,
                "first_seen": rfc3339(p.episode),
                "evidence": p.evidence,
                "count": p.count,
                "max_count": i.max_count,
                "counted": count_words(p.kind, i.max_count),
                "link": p.link,
                "acknowledged": p.acknowledged,
            })
        })
        .collect();
    json!({
        "type": message.kind,
        "subject": subject,
        "text": text(message, subject, public_url),
        "sent_at": rfc3339(message.at),
        "triage": format!("{public_url}/triage"),
        "problems": problems,
        "more": message.items.len().saturating_sub(MAX_LISTED),
    })
}

/// Slack's mrkdwn needs `&`, `<` and `>` escaped.
fn mrkdwn(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn slack_body(message: &Message, subject: &str, public_url: &str) -> Value {
    let mut blocks = vec![json!({
        "type": "header",
        "text": { "type": "plain_text", "text": subject.chars().take(150).collect::<String>() },
    })];
    for i in message.items.iter().take(MAX_LISTED) {
        let p = &i.problem;
        let counted = count_words(p.kind, i.max_count).map(|c| format!(" ({c})")).unwrap_or_default();
        let head = match message.kind {
            MessageKind::Resolved => format!("*{}*: resolved{counted}", mrkdwn(&p.subject())),
            _ => format!("*{}* ({}) since {}", mrkdwn(&p.subject()), p.severity.key(), mrkdwn(&p.since)),
        };
        let body = format!("{head}\n{}\n<{}|Open the evidence>", mrkdwn(&p.evidence), p.link);
        blocks.push(json!({
            "type": "section",
            "text": { "type": "mrkdwn", "text": body.chars().take(3000).collect::<String>() },
        }));
    }
    let more = message.items.len().saturating_sub(MAX_LISTED);
    let footer = if more > 0 {
        format!("and {more} more: <{public_url}/triage|the triage view>")
    } else {
        format!("<{public_url}/triage|The triage view>")
    };
    blocks.push(json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": footer }] }));
    // The top-level text (what notifications show) is mrkdwn too: a job named `<!channel>`
    // or `<https://elsewhere|Open the evidence>` would otherwise ping or link as Slack's own.
    json!({ "text": mrkdwn(&text(message, subject, public_url)), "blocks": blocks })
}

/// PagerDuty's severities are the same four words as Sundial's.
fn pagerduty_severity(s: ProblemSeverity) -> &'static str {
    match s {
        ProblemSeverity::Critical => "critical",
        ProblemSeverity::Error => "error",
        ProblemSeverity::Warning => "warning",
        ProblemSeverity::Info => "info",
    }
}

/// The episode's key in PagerDuty: its problem and when Sundial first saw the episode, the same
/// on every tick and across restarts; a later episode of the same problem is a new incident.
/// PagerDuty takes at most 255 characters: a longer one is its SHA-256.
pub fn dedup_key(i: &Item) -> String {
    let key = format!("sundial/{}/{}", i.problem.key, rfc3339(i.problem.episode));
    if key.len() <= 255 {
        return key;
    }
    use sha2::Digest;
    format!("sundial/{}", hex::encode(sha2::Sha256::digest(key.as_bytes())))
}

/// `s` cut to at most `max` characters (an ellipsis says so).
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// One Events API v2 event: a message holds one episode for this format (`Settings::group`
/// false); were it to hold more, the first is sent.
fn pagerduty_body(message: &Message, public_url: &str) -> Value {
    let Some(i) = message.items.first() else { return json!({}) };
    let p = &i.problem;
    let action = match message.kind {
        MessageKind::Resolved => "resolve",
        MessageKind::Alert | MessageKind::Reminder => "trigger",
    };
    if message.kind == MessageKind::Resolved {
        return json!({ "event_action": action, "dedup_key": dedup_key(i) });
    }
    json!({
        "event_action": action,
        "dedup_key": dedup_key(i),
        "client": "Sundial",
        "client_url": format!("{public_url}/triage"),
        "payload": {
            "summary": cut(&format!("{}: {}", p.subject(), p.evidence), PAGERDUTY_SUMMARY_MAX),
            "source": p.instance,
            "severity": pagerduty_severity(p.severity),
            "timestamp": rfc3339(p.episode),
            "component": p.job.as_deref().unwrap_or(&p.instance),
            "group": p.instance,
            "class": p.kind.key(),
            "custom_details": {
                "kind": p.kind.subject(),
                "instance": p.instance,
                "job": p.job,
                "since": p.since,
                "first_seen": rfc3339(p.episode),
                "evidence": p.evidence,
                "count": p.count,
                "max_count": i.max_count,
                "counted": count_words(p.kind, i.max_count),
                "link": p.link,
            },
        },
        "links": [
            { "href": p.link, "text": "The evidence in Sundial" },
            { "href": format!("{public_url}/triage"), "text": "Sundial's triage view" },
        ],
    })
}

/// Text from a source as Teams shows it in a TextBlock or a fact: every ASCII punctuation
/// character backslash-escaped (CommonMark's rule, which Adaptive Cards' Markdown follows), so
/// no name can make a link, emphasis, a heading or a list; line breaks kept as breaks.
pub fn teams_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    for c in s.chars() {
        match c {
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {}
            c if c.is_control() && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn teams_body(message: &Message, subject: &str, public_url: &str) -> Value {
    let triage = format!("{public_url}/triage");
    let mut body = vec![json!({
        "type": "TextBlock", "text": teams_text(subject), "weight": "bolder", "size": "medium", "wrap": true,
    })];
    for i in message.items.iter().take(TEAMS_LISTED) {
        let p = &i.problem;
        let mut facts = vec![json!({ "title": "Instance", "value": teams_text(&p.instance) })];
        if let Some(job) = &p.job {
            facts.push(json!({ "title": "Job", "value": teams_text(job) }));
        }
        facts.push(json!({ "title": "Since", "value": teams_text(&p.since) }));
        facts.push(json!({ "title": "Severity", "value": p.severity.key() }));
        let counted = count_words(p.kind, i.max_count).unwrap_or_else(|| p.count.to_string());
        facts.push(json!({ "title": "Count", "value": teams_text(&counted) }));
        let head = match message.kind {
            MessageKind::Resolved => format!("Resolved: {}", p.subject()),
            _ => p.subject(),
        };
        body.push(json!({
            "type": "Container",
            "separator": true,
            "items": [
                { "type": "TextBlock", "text": teams_text(&head), "weight": "bolder", "wrap": true },
                { "type": "FactSet", "facts": facts },
                { "type": "TextBlock", "text": teams_text(&p.evidence), "wrap": true },
            ],
            "selectAction": { "type": "Action.OpenUrl", "title": "Open the evidence", "url": p.link },
        }));
    }
    let more = message.items.len().saturating_sub(TEAMS_LISTED);
    if more > 0 {
        body.push(json!({ "type": "TextBlock", "text": format!("and {more} more"), "wrap": true }));
    }
    let mut actions = Vec::new();
    if let [one] = message.items.as_slice() {
        actions.push(json!({ "type": "Action.OpenUrl", "title": "Open the evidence", "url": one.problem.link }));
    }
    actions.push(json!({ "type": "Action.OpenUrl", "title": "Triage", "url": triage }));
    teams_card(subject, body, actions)
}

/// A Teams message: one adaptive card of `body` and `actions`, with `subject` as the text a
/// client without cards shows. Problems and changes alike are sent in it.
pub(super) fn teams_card(subject: &str, body: Vec<Value>, actions: Vec<Value>) -> Value {
    json!({
        "type": "message",
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "contentUrl": null,
            "content": {
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "type": "AdaptiveCard",
                "version": "1.4",
                "fallbackText": teams_text(subject),
                "body": body,
                "actions": actions,
                "msteams": { "width": "Full" },
            },
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::super::decide::Open;
    use super::*;
    use sundial_engine::triage::{ProblemKind, ProblemSeverity};

    fn message(kind: MessageKind) -> Message {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-22T12:05:00Z").unwrap().to_utc();
        let problem = Open {
            key: "missed|SQL1|j1".into(),
            episode: at,
            kind: ProblemKind::Missed,
            severity: ProblemSeverity::Error,
            instance: "SQL1".into(),
            job: Some("ETL <Nightly> & Load".into()),
            since: "2026-11-22T07:00:00-05:00".into(),
            evidence: "the run due 2026-11-22 12:00 UTC missed".into(),
            count: 1,
            link: "http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1".into(),
            acknowledged: false,
            maintenance_until: None,
        };
        Message { kind, items: vec![Item { problem, max_count: 2, thread: "t1".into() }], at }
    }

    #[test]
    fn json_carries_the_kind_evidence_and_link() {
        let (subject, body) = render(&message(MessageKind::Alert), Format::Json, "http://s");
        assert_eq!(subject, "[MISSED] SQL1 / ETL <Nightly> & Load");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["type"], "alert");
        assert_eq!(v["problems"][0]["kind"], "missed");
        assert_eq!(v["problems"][0]["link"], "http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1");
        assert_eq!(v["triage"], "http://s/triage");
        let (_, body) = render(&message(MessageKind::Resolved), Format::Json, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["problems"][0]["counted"], "2 runs missed");
        assert!(v["text"].as_str().unwrap().contains("resolved (2 runs missed)"), "{v}");
    }

    #[test]
    fn slack_escapes_mrkdwn_and_links_the_moment() {
        let (_, body) = render(&message(MessageKind::Alert), Format::Slack, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        let section = v["blocks"][1]["text"]["text"].as_str().unwrap();
        assert!(section.contains("ETL &lt;Nightly&gt; &amp; Load"), "{section}");
        assert!(section.contains("<http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1|Open the evidence>"));
        assert!(v["text"].as_str().unwrap().starts_with("[MISSED] SQL1 / "));
    }

    #[test]
    fn slack_escapes_the_notification_text_too() {
        let mut m = message(MessageKind::Alert);
        m.items[0].problem.job = Some("<!channel> <https://elsewhere|Open the evidence> & more".into());
        let (_, body) = render(&m, Format::Slack, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        let text = v["text"].as_str().unwrap();
        assert!(
            text.starts_with("[MISSED] SQL1 / &lt;!channel&gt; &lt;https://elsewhere|Open the evidence&gt; &amp; more"),
            "{text}"
        );
        assert!(!text.contains('<') && !text.contains('>'), "{text}");
        // The header is plain text: shown as it is.
        assert!(v["blocks"][0]["text"]["text"].as_str().unwrap().contains("<!channel>"));
    }

    #[test]
    fn pagerduty_triggers_and_resolves_one_incident_per_episode() {
        let m = message(MessageKind::Alert);
        let (_, body) = render(&m, Format::PagerDuty, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["event_action"], "trigger");
        assert_eq!(v["dedup_key"], "sundial/missed|SQL1|j1/2026-11-22T12:05:00Z");
        assert!(v.get("routing_key").is_none(), "the secret is added by the sender only");
        let p = &v["payload"];
        assert_eq!((p["severity"].as_str(), p["source"].as_str()), (Some("error"), Some("SQL1")));
        assert_eq!((p["component"].as_str(), p["class"].as_str()), (Some("ETL <Nightly> & Load"), Some("missed")));
        assert_eq!(p["custom_details"]["evidence"], "the run due 2026-11-22 12:00 UTC missed");
        assert_eq!(v["links"][0]["href"], "http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1");
        assert_eq!(v["links"][1]["href"], "http://s/triage");
        // The same episode later (another tick, another process): the same key; its recovery too.
        let (_, again) = render(&m, Format::PagerDuty, "http://s");
        assert_eq!(again, body);
        let (_, resolved) = render(&message(MessageKind::Resolved), Format::PagerDuty, "http://s");
        let r: Value = serde_json::from_str(&resolved).unwrap();
        assert_eq!((r["event_action"].as_str(), &r["dedup_key"]), (Some("resolve"), &v["dedup_key"]));
        // A long evidence: the summary is cut to PagerDuty's 1024 characters; a long key hashed.
        let mut long = message(MessageKind::Alert);
        long.items[0].problem.evidence = "é".repeat(5000);
        long.items[0].problem.key = "k".repeat(400);
        let (_, body) = render(&long, Format::PagerDuty, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["payload"]["summary"].as_str().unwrap().chars().count(), PAGERDUTY_SUMMARY_MAX);
        assert!(v["dedup_key"].as_str().unwrap().len() <= 255);
        for (severity, word) in [
            (ProblemSeverity::Critical, "critical"),
            (ProblemSeverity::Error, "error"),
            (ProblemSeverity::Warning, "warning"),
            (ProblemSeverity::Info, "info"),
        ] {
            assert_eq!(pagerduty_severity(severity), word);
        }
    }

    /// Markdown as CommonMark reads it: the text shown, and whether anything but text was made.
    fn markdown(s: &str) -> (String, Vec<String>) {
        use pulldown_cmark::{Event, Parser, Tag};
        let (mut shown, mut made) = (String::new(), Vec::new());
        for e in Parser::new(s) {
            match e {
                Event::Text(t) => shown.push_str(&t),
                Event::SoftBreak | Event::HardBreak => shown.push('\n'),
                Event::Start(Tag::Paragraph) | Event::End(_) => {}
                other => made.push(format!("{other:?}")),
            }
        }
        (shown, made)
    }

    #[test]
    fn teams_shows_a_sources_text_as_written_never_as_markup() {
        for hostile in [
            "[Open the evidence](https://evil.example) **bold** _it_ `code`",
            "# heading\n- list\n1. one\n> quote",
            "<b>html</b> &amp; <https://evil.example> ![img](https://evil.example/x.png)",
            "back\\slash \\*not bold\\*",
        ] {
            let (shown, made) = markdown(&teams_text(hostile));
            assert!(made.is_empty(), "{hostile:?} made {made:?}");
            assert_eq!(shown, hostile, "shown as written");
        }
        let mut m = message(MessageKind::Alert);
        m.items[0].problem.job = Some("[x](https://evil.example)".into());
        let (_, body) = render(&m, Format::Teams, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        let card = &v["attachments"][0]["content"];
        assert_eq!(v["type"], "message");
        assert_eq!(v["attachments"][0]["contentType"], "application/vnd.microsoft.card.adaptive");
        let facts = &card["body"][1]["items"][1]["facts"];
        assert_eq!(facts[1]["title"], "Job");
        assert_eq!(markdown(facts[1]["value"].as_str().unwrap()), ("[x](https://evil.example)".to_owned(), vec![]));
        assert_eq!(card["actions"][0]["url"], "http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1");
        assert_eq!(card["actions"][1]["url"], "http://s/triage");
    }
}
