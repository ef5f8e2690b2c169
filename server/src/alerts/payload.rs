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
use super::decide::{Item, Message, MessageKind, count_words};
use crate::config::AlertFormat;
use chrono::SecondsFormat;
use serde_json::{Value, json};

/// At most this many problems are listed in one message (Slack takes 50 blocks).
pub const MAX_LISTED: usize = 45;

/// The message as its target's format wants it: the subject, and the body to post.
pub fn render(message: &Message, format: AlertFormat, public_url: &str) -> (String, String) {
    let subject = message.subject();
    let body = match format {
        AlertFormat::Json => json_body(message, &subject, public_url),
        AlertFormat::Slack => slack_body(message, &subject, public_url),
    };
    (subject, body.to_string())
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

fn text(message: &Message, subject: &str, public_url: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::super::decide::Open;
    use super::*;
    use app::engine::triage::{ProblemKind, ProblemSeverity};

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
        Message { kind, items: vec![Item { problem, max_count: 2 }], at }
    }

    #[test]
    fn json_carries_the_kind_evidence_and_link() {
        let (subject, body) = render(&message(MessageKind::Alert), AlertFormat::Json, "http://s");
        assert_eq!(subject, "[MISSED] SQL1 / ETL <Nightly> & Load");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["type"], "alert");
        assert_eq!(v["problems"][0]["kind"], "missed");
        assert_eq!(v["problems"][0]["link"], "http://s/jobs/j1?at=2026-11-22T12:00:00Z&instance=SQL1");
        assert_eq!(v["triage"], "http://s/triage");
        let (_, body) = render(&message(MessageKind::Resolved), AlertFormat::Json, "http://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["problems"][0]["counted"], "2 runs missed");
        assert!(v["text"].as_str().unwrap().contains("resolved (2 runs missed)"), "{v}");
    }

    #[test]
    fn slack_escapes_mrkdwn_and_links_the_moment() {
        let (_, body) = render(&message(MessageKind::Alert), AlertFormat::Slack, "http://s");
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
        let (_, body) = render(&m, AlertFormat::Slack, "http://s");
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
}
