//! The changes of jobs' definitions (`engine::changes`, kept in the store's `job_change` by
//! `crate::history`) told to the alert targets that ask for them: `kinds` with `"changed"`
//! (never by default; `kinds = ["changed"]` alone: changes only). A target's `tags` still
//! choose the instances.
//!
//! Each tick ([`Alerter::tell_changes`], on the replica leading alerts), each such target gets
//! the changes recorded that it was not told yet, as one message (grouped: "3 changes on
//! SQLPROD01: …"), each change with its instance, job, before and after, when Sundial saw it,
//! the scheduler's own modification time, and a link to the job page's Changes. Told once:
//! what each target was told is kept by `job_change`'s key (`alert_change_told`), in the same
//! transaction as the message's place in the outbox, so a crash between deciding and sending
//! neither loses nor repeats it, and a replica that finds a change already told writes nothing.
//! The first time a target is seen, it starts from that moment (`alert_change_from`): it is not
//! told the whole history; a change recorded while Sundial was down (its first read after the
//! start sees it) is told after the start. A change written late (a read whose write waited)
//! is still told: the told keys, not a time, say what was told.
//!
//! Quiet hours hold changes as they hold info-severity problems: nothing is told nor recorded
//! while they hold, and what waited is told at the first tick after they end. PagerDuty is not
//! told changes (it pages incidents; the fleet file refuses `"changed"` for it).
use super::payload::{Format, teams_text};
use super::store::{OUTBOX_MAX, Queued};
use super::{Alerter, MAX_LISTED};
use crate::config::AlertFormat;
use crate::store::alerts as stored;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};
use std::fmt::Write;
use sundial_engine::changes::Change;
use sundial_engine::triage::ProblemSeverity;
use sundial_model::html::escape;

/// At most this many changes are handled per target and tick (the rest at the next).
pub const PER_TICK: i64 = 200;

/// The job page's window a change links to (days).
const LINK_DAYS: u32 = 7;

/// One change as told: its instance, the change, the link to its job page's Changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Told {
    pub instance: String,
    pub change: Change,
    pub link: String,
}

impl Told {
    /// Of a change kept of `instance`, its link under `public_url`.
    pub fn new(instance: &str, change: Change, public_url: &str) -> Told {
        let page = sundial_model::links::job_href(Some(instance), &change.job, LINK_DAYS);
        Told { instance: instance.to_owned(), link: format!("{public_url}{page}#changes"), change }
    }

    /// `SQLPROD01 / Full backup`.
    fn place(&self) -> String {
        format!("{} / {}", self.instance, self.change.name)
    }

    /// `Full backup: schedule changed`.
    fn what(&self) -> String {
        format!("{}: {}", self.change.name, self.change.kind.words().to_lowercase())
    }

    fn before(&self) -> Option<String> {
        self.change.before.as_ref().map(|v| v.text())
    }

    fn after(&self) -> Option<String> {
        self.change.after.as_ref().map(|v| v.text())
    }

    /// `0 1 * * * → 0 3 * * *`, the added job's definition, or what the removed one was.
    fn values(&self) -> String {
        match (self.before(), self.after()) {
            (Some(a), Some(b)) => format!("{a} → {b}"),
            (None, Some(b)) => b,
            (Some(a), None) => format!("was {a}"),
            (None, None) => String::new(),
        }
    }

    /// When it was seen, and the scheduler's own time of it.
    fn when(&self) -> String {
        let seen = format!("seen {}", rfc3339(self.change.seen));
        match self.change.modified {
            Some(m) => format!("{seen}; modified in the scheduler {}", rfc3339(m)),
            None => format!("{seen}; the scheduler keeps no modification time"),
        }
    }
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// One message of changes to one target.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeMessage {
    /// Oldest first.
    pub items: Vec<Told>,
    /// When it was decided.
    pub at: DateTime<Utc>,
}

impl ChangeMessage {
    /// `[CHANGED] SQLPROD01 / Full backup: schedule changed`, `3 changes on SQLPROD01: Full
    /// backup: schedule changed, …`, or `5 changes on 2 instances: …`.
    pub fn subject(&self) -> String {
        let Some(first) = self.items.first() else { return String::new() };
        if let [one] = self.items.as_slice() {
            return format!("[CHANGED] {} / {}", one.instance, one.what());
        }
        let mut instances: Vec<&str> = self.items.iter().map(|t| t.instance.as_str()).collect();
        instances.sort_unstable();
        instances.dedup();
        let on = match instances.as_slice() {
            [one] => (*one).to_owned(),
            many => format!("{} instances", many.len()),
        };
        let first = if instances.len() == 1 { first.what() } else { format!("{} / {}", first.instance, first.what()) };
        format!("{} changes on {on}: {first}, …", self.items.len())
    }

    /// Every text from a source as the log shows it (control characters and direction marks
    /// escaped; a command's line breaks kept).
    fn visible(&self) -> ChangeMessage {
        use crate::logging::visible;
        use sundial_engine::changes::Value as V;
        let value = |v: &Option<V>| match v {
            Some(V::Text(t)) => Some(V::Text(visible(t, true))),
            other => other.clone(),
        };
        let mut out = self.clone();
        for t in &mut out.items {
            t.instance = visible(&t.instance, false);
            t.change.name = visible(&t.change.name, false);
            t.change.job = visible(&t.change.job, false);
            t.change.before = value(&t.change.before);
            t.change.after = value(&t.change.after);
        }
        out
    }
}

/// The message as its target's format wants it: the subject and the body (PagerDuty is never
/// told changes: its body would be Sundial's JSON).
pub fn render(message: &ChangeMessage, format: Format<'_>, public_url: &str) -> (String, String) {
    let message = &message.visible();
    let subject = message.subject();
    let body = match format {
        Format::Json | Format::PagerDuty => json_body(message, &subject, public_url).to_string(),
        Format::Slack => slack_body(message, &subject, public_url).to_string(),
        Format::Teams => teams_body(message, &subject, public_url).to_string(),
        Format::Email(mail) => {
            let text = format!("{}\n\n-- \nSundial: {public_url}/\n", text(message, &subject, public_url));
            mail.render_parts(&subject, text, html(message, &subject, public_url), &thread(message), message.at)
        }
    };
    (subject, body)
}

/// The email's own thread: the moment and the changes it tells.
fn thread(message: &ChangeMessage) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(format!("changes|{}", message.at.timestamp_millis()));
    for t in &message.items {
        h.update(format!(
            "|{}|{}|{}|{}",
            t.instance,
            t.change.job,
            t.change.seen.timestamp_micros(),
            t.change.kind.key()
        ));
    }
    hex::encode(&h.finalize()[..16])
}

fn more(message: &ChangeMessage, listed: usize) -> usize {
    message.items.len().saturating_sub(listed)
}

/// The plain text: the subject, then each change (what, before → after, when, link).
pub fn text(message: &ChangeMessage, subject: &str, public_url: &str) -> String {
    let mut out = subject.to_owned();
    for t in message.items.iter().take(MAX_LISTED) {
        let _ = write!(out, "\n\n{}: {}", t.place(), t.change.kind.words());
        let values = t.values();
        if !values.is_empty() {
            let _ = write!(out, "\n{values}");
        }
        let _ = write!(out, "\n{}\n{}", t.when(), t.link);
    }
    let more = more(message, MAX_LISTED);
    if more > 0 {
        let _ = write!(out, "\n\nand {more} more: {public_url}/api/changes");
    }
    out
}

fn json_body(message: &ChangeMessage, subject: &str, public_url: &str) -> Value {
    let changes: Vec<Value> = message
        .items
        .iter()
        .take(MAX_LISTED)
        .map(|t| {
            let c = &t.change;
            json!({
                "instance": t.instance,
                "job": c.name,
                "job_id": c.job,
                "change": c.kind.key(),
                "words": c.kind.words(),
                "before": c.before,
                "after": c.after,
                "seen": rfc3339(c.seen),
                "modified": c.modified.map(rfc3339),
                "link": t.link,
            })
        })
        .collect();
    json!({
        "type": "changed",
        "subject": subject,
        "text": text(message, subject, public_url),
        "sent_at": rfc3339(message.at),
        "changes": changes,
        "more": more(message, MAX_LISTED),
    })
}

/// Slack's mrkdwn needs `&`, `<` and `>` escaped.
fn mrkdwn(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn slack_body(message: &ChangeMessage, subject: &str, public_url: &str) -> Value {
    let mut blocks = vec![json!({
        "type": "header",
        "text": { "type": "plain_text", "text": subject.chars().take(150).collect::<String>() },
    })];
    for t in message.items.iter().take(MAX_LISTED) {
        let body = format!(
            "*{}*: {}\n{}\n{}\n<{}|Open the job's changes>",
            mrkdwn(&t.place()),
            t.change.kind.words(),
            mrkdwn(&t.values()),
            t.when(),
            t.link
        );
        blocks.push(json!({
            "type": "section",
            "text": { "type": "mrkdwn", "text": body.chars().take(3000).collect::<String>() },
        }));
    }
    let more = more(message, MAX_LISTED);
    if more > 0 {
        blocks
            .push(json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": format!("and {more} more") }] }));
    }
    json!({ "text": mrkdwn(&text(message, subject, public_url)), "blocks": blocks })
}

fn teams_body(message: &ChangeMessage, subject: &str, _public_url: &str) -> Value {
    let mut body = vec![json!({
        "type": "TextBlock", "text": teams_text(subject), "weight": "bolder", "size": "medium", "wrap": true,
    })];
    for t in message.items.iter().take(super::payload::TEAMS_LISTED) {
        let mut facts = vec![
            json!({ "title": "Instance", "value": teams_text(&t.instance) }),
            json!({ "title": "Job", "value": teams_text(&t.change.name) }),
            json!({ "title": "Change", "value": t.change.kind.words() }),
        ];
        if let Some(b) = t.before() {
            facts.push(json!({ "title": "Before", "value": teams_text(&b) }));
        }
        if let Some(a) = t.after() {
            facts.push(json!({ "title": "After", "value": teams_text(&a) }));
        }
        facts.push(json!({ "title": "Seen", "value": teams_text(&rfc3339(t.change.seen)) }));
        if let Some(m) = t.change.modified {
            facts.push(json!({ "title": "Modified", "value": teams_text(&rfc3339(m)) }));
        }
        body.push(json!({
            "type": "Container",
            "separator": true,
            "items": [{ "type": "FactSet", "facts": facts }],
            "selectAction": { "type": "Action.OpenUrl", "title": "Open the job's changes", "url": t.link },
        }));
    }
    let more = more(message, super::payload::TEAMS_LISTED);
    if more > 0 {
        body.push(json!({ "type": "TextBlock", "text": format!("and {more} more"), "wrap": true }));
    }
    let actions: Vec<Value> = message
        .items
        .first()
        .map(|t| json!({ "type": "Action.OpenUrl", "title": "Open the job's changes", "url": t.link }))
        .into_iter()
        .collect();
    super::payload::teams_card(subject, body, actions)
}

/// The HTML part: every text from a source escaped, every link Sundial's.
fn html(message: &ChangeMessage, subject: &str, public_url: &str) -> String {
    let mut out = super::email::html_start(subject);
    let cell = |v: Option<String>| v.map(|v| escape(&v).replace('\n', "<br>")).unwrap_or_else(|| "—".to_owned());
    for t in message.items.iter().take(MAX_LISTED) {
        let _ = write!(
            out,
            "<div style=\"margin:1em 0\"><p><strong>{}</strong></p>\n<table>\
             <tr><th align=\"left\">Instance</th><td>{}</td></tr>\n\
             <tr><th align=\"left\">Job</th><td>{}</td></tr>\n\
             <tr><th align=\"left\">Before</th><td>{}</td></tr>\n\
             <tr><th align=\"left\">After</th><td>{}</td></tr>\n</table>\n<p>{}</p>\n\
             <p><a href=\"{}\">Open the job's changes</a></p></div>\n",
            escape(t.change.kind.words()),
            escape(&t.instance),
            escape(&t.change.name),
            cell(t.before()),
            cell(t.after()),
            escape(&t.when()),
            escape(&t.link),
        );
    }
    let more = more(message, MAX_LISTED);
    if more > 0 {
        let all = escape(&format!("{public_url}/api/changes"));
        let _ = writeln!(out, "<p>and {more} more: <a href=\"{all}\">every change</a></p>");
    }
    out.push_str("</body></html>\n");
    out
}

impl Alerter {
    /// Tell each target whose `kinds` include "changed" the changes it was not told (see the
    /// module docs); returns (target, subject) of each message queued. Needs Sundial's store
    /// (the changes live there): without one, nothing.
    pub(super) async fn tell_changes(&self, now: DateTime<Utc>) -> Vec<(String, String)> {
        let Some(store) = self.store.pool() else { return Vec::new() };
        let mut queued = Vec::new();
        for t in &self.targets {
            let name = &t.config.name;
            if !t.config.route.changes || t.config.format == AlertFormat::PagerDuty {
                continue;
            }
            // Held as an info-severity problem is.
            if t.config.quiet.as_ref().is_some_and(|q| q.holds(ProblemSeverity::Info, now)) {
                continue;
            }
            let untold = match stored::changes_from(store, name, now.timestamp_micros()).await {
                Ok(from) => stored::untold_changes(store, name, from, PER_TICK).await,
                Err(e) => Err(e),
            };
            let rows = match untold {
                Ok(rows) if rows.is_empty() => continue,
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(alert = %name, error = %e, "alerts: the changes to tell could not be read from Sundial's store; retrying next tick");
                    continue;
                }
            };
            // Each change is handled once: told when the route takes its instance, else
            // (and a row that cannot be read) passed over.
            let items: Vec<Told> = rows
                .iter()
                .filter(|r| t.settings.route.instances.as_ref().is_none_or(|i| i.contains(&r.instance)))
                .filter_map(|r| serde_json::from_str::<Change>(&r.change).ok().map(|c| (r, c)))
                .map(|(r, c)| Told::new(&r.instance, c, &self.public_url))
                .collect();
            let messages: Vec<(String, String)> = if items.is_empty() {
                Vec::new()
            } else {
                vec![render(&ChangeMessage { items, at: now }, t.format(), &self.public_url)]
            };
            let told: Vec<(&str, &str, i64, &str)> = rows.iter().map(stored::UntoldRow::key).collect();
            match stored::commit_changes(store, name, &told, &messages, now.timestamp_millis(), OUTBOX_MAX as i64).await
            {
                Ok(Some(ids)) => {
                    let ready: Vec<Queued> = ids
                        .into_iter()
                        .zip(messages)
                        .map(|(id, (subject, body))| Queued { id, subject, body })
                        .collect();
                    queued.extend(ready.iter().map(|q| (name.clone(), q.subject.clone())));
                    t.sender.enqueue(ready);
                }
                Ok(None) => tracing::info!(alert = %name, "alerts: these changes were told by another replica"),
                Err(e) => {
                    tracing::warn!(alert = %name, error = %e, "alerts: Sundial's store refused the changes told; retrying next tick")
                }
            }
        }
        queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sundial_engine::changes::{ChangeKind, Value as V};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn told(instance: &str, name: &str, kind: ChangeKind, before: Option<V>, after: Option<V>) -> Told {
        let change = Change {
            job: format!("id-{name}"),
            name: name.to_owned(),
            kind,
            before,
            after,
            seen: t("2026-11-27T09:00:00Z"),
            modified: Some(t("2026-11-27T08:58:00Z")),
        };
        Told::new(instance, change, "https://s")
    }

    #[test]
    fn one_change_names_its_place_several_are_counted_per_instance() {
        let at = t("2026-11-27T09:00:15Z");
        let one = told("SQLPROD01", "Full backup", ChangeKind::Schedule, Some(V::Text("a".into())), None);
        let m = ChangeMessage { items: vec![one.clone()], at };
        assert_eq!(m.subject(), "[CHANGED] SQLPROD01 / Full backup: schedule changed");
        assert_eq!(one.link, "https://s/jobs/id-Full%20backup?days=7&instance=SQLPROD01#changes");
        let two = told("SQLPROD01", "FTP export", ChangeKind::Enabled, Some(V::Flag(true)), Some(V::Flag(false)));
        let three = told("SQLPROD01", "Stats", ChangeKind::Added, None, Some(V::Text("0 4 * * *".into())));
        let m = ChangeMessage { items: vec![one.clone(), two.clone(), three], at };
        assert_eq!(m.subject(), "3 changes on SQLPROD01: Full backup: schedule changed, …");
        let other = told("SQLEU01", "Load", ChangeKind::Removed, Some(V::Text("x".into())), None);
        let m = ChangeMessage { items: vec![one, other], at };
        assert_eq!(m.subject(), "2 changes on 2 instances: SQLPROD01 / Full backup: schedule changed, …");
        assert_eq!(two.values(), "true → false");
    }

    #[test]
    fn a_sources_text_is_escaped_in_the_email_and_shown_as_written_in_every_format() {
        let hostile = "<script>alert(1)</script> & [x](https://evil.example)";
        let c = told(
            "SQL1",
            hostile,
            ChangeKind::Command,
            Some(V::Text("EXEC a <b>".into())),
            Some(V::Text("EXEC b\x1b[31m".into())),
        );
        let m = ChangeMessage { items: vec![c], at: t("2026-11-27T09:00:15Z") }.visible();
        let page = html(&m, &m.subject(), "https://s");
        assert!(!page.contains("<script>") && !page.contains("<b>"), "{page}");
        assert!(page.contains("&lt;script&gt;") && page.contains("EXEC a &lt;b&gt;"), "{page}");
        assert!(!page.contains('\x1b'), "control characters shown escaped: {page}");
        let (_, body) = render(&m, Format::Json, "https://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["changes"][0]["job"], hostile);
        assert_eq!(
            (v["changes"][0]["change"].as_str(), v["changes"][0]["before"].as_str()),
            (Some("command"), Some("EXEC a <b>"))
        );
        let (_, body) = render(&m, Format::Slack, "https://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        for mrkdwn in [&v["text"], &v["blocks"][1]["text"]["text"]] {
            assert!(!mrkdwn.as_str().unwrap().contains("<script>"), "{body}");
        }
        let (_, body) = render(&m, Format::Teams, "https://s");
        let v: Value = serde_json::from_str(&body).unwrap();
        let facts = &v["attachments"][0]["content"]["body"][1]["items"][0]["facts"];
        assert_eq!(facts[1]["title"], "Job");
        assert_eq!(facts[1]["value"].as_str(), Some(teams_text(hostile).as_str()));
    }
}
