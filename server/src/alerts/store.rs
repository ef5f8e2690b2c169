//! What alerts keep in Sundial's store, so a restart neither repeats nor loses a message: per
//! target, the episodes alerted (`alert_sent`, the decision's [`SentState`]) and the messages
//! decided but not yet delivered (`alert_outbox`, at most [`OUTBOX_MAX`] per target: the
//! oldest go first when a target stays down).
//!
//! Without a store (it could not be opened) both live in memory only, and Sundial says so.
//!
//! The thread an episode was announced in ([`Sent::thread`]) is kept in `last`'s JSON beside
//! the problem (`"thread"`): no new column, so rows an older Sundial wrote load (no thread: the
//! episode's own), and an older Sundial reads these (it ignores the field). So do a waiting
//! recovery's `ended` and the later episode an alerted one `follows` (`resolve_after`).
use super::decide::{Open, Sent, SentState};
use crate::store::Store;
use crate::store::alerts::{self as stored, SentRow};
use chrono::{DateTime, Utc};
use std::collections::HashMap;

/// At most this many undelivered messages are kept per target.
pub const OUTBOX_MAX: usize = 100;

/// `alert_sent.last`: the problem as last seen, and the thread that announced it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Last {
    #[serde(flatten)]
    last: Open,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thread: Option<String>,
    /// A recovery waiting (`resolve_after`, quiet hours): since when it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ended: Option<DateTime<Utc>>,
    /// The later episode the alerted one goes on through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    follows: Option<DateTime<Utc>>,
}

/// A message waiting for delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    /// Its row in the outbox (a running number without a store).
    pub id: i64,
    pub subject: String,
    pub body: String,
}

/// The alerts' part of Sundial's store.
pub struct AlertStore {
    pool: Option<Store>,
    /// Ids for messages when there is no store.
    next_id: std::sync::atomic::AtomicI64,
}

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn from_ms(v: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(v).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

impl AlertStore {
    /// Over Sundial's store (`None`: in memory only).
    pub fn new(pool: Option<Store>) -> AlertStore {
        AlertStore { pool, next_id: std::sync::atomic::AtomicI64::new(1) }
    }

    /// Sundial's store, when it could be opened (the changes told read and write it).
    pub fn pool(&self) -> Option<&Store> {
        self.pool.as_ref()
    }

    pub fn is_persistent(&self) -> bool {
        self.pool.is_some()
    }

    /// What was sent and what waits, per target. A row that cannot be read (written by a
    /// newer Sundial, damaged) is skipped with a warning, not fatal.
    pub async fn load(&self) -> Result<(HashMap<String, SentState>, HashMap<String, Vec<Queued>>), sqlx::Error> {
        let mut sent: HashMap<String, SentState> = HashMap::new();
        let mut outbox: HashMap<String, Vec<Queued>> = HashMap::new();
        let Some(store) = &self.pool else { return Ok((sent, outbox)) };
        let (sent_rows, outbox_rows) = stored::load(store).await?;
        for (target, r) in sent_rows {
            let Last { last, thread, ended, follows } = match serde_json::from_str(&r.last) {
                Ok(last) => last,
                Err(e) => {
                    tracing::warn!(alert = %target, key = %r.key, error = %e, "alerts: a sent record cannot be read; skipped");
                    continue;
                }
            };
            let s = Sent {
                episode: from_ms(r.episode),
                alerted_at: from_ms(r.alerted_at),
                reminded_at: from_ms(r.reminded_at),
                max_count: r.max_count.max(0) as usize,
                last,
                thread,
                ended,
                follows,
            };
            sent.entry(target).or_default().insert(r.key, s);
        }
        for r in outbox_rows {
            let q = Queued { id: r.id, subject: r.subject, body: r.body };
            outbox.entry(r.target).or_default().push(q);
        }
        Ok((sent, outbox))
    }

    /// Record one decision for `target` in one transaction: what has been sent (`sent`, when it
    /// changed) and the messages to deliver; the outbox keeps the newest [`OUTBOX_MAX`].
    /// Returns the messages with their ids.
    pub async fn commit(
        &self,
        target: &str,
        sent: Option<&SentState>,
        messages: Vec<(String, String)>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Queued>, sqlx::Error> {
        let Some(store) = &self.pool else {
            use std::sync::atomic::Ordering;
            let queued = messages.into_iter().map(|(subject, body)| Queued {
                id: self.next_id.fetch_add(1, Ordering::Relaxed),
                subject,
                body,
            });
            return Ok(queued.collect());
        };
        let sent = match sent {
            Some(sent) => Some(
                sent.iter()
                    .map(|(key, s)| {
                        let last =
                            Last { last: s.last.clone(), thread: s.thread.clone(), ended: s.ended, follows: s.follows };
                        let last = serde_json::to_string(&last).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                        Ok(SentRow {
                            key: key.clone(),
                            episode: ms(s.episode),
                            alerted_at: ms(s.alerted_at),
                            reminded_at: ms(s.reminded_at),
                            max_count: s.max_count as i64,
                            last,
                        })
                    })
                    .collect::<Result<Vec<SentRow>, sqlx::Error>>()?,
            ),
            None => None,
        };
        let ids = stored::commit(store, target, sent.as_deref(), &messages, ms(now), OUTBOX_MAX as i64).await?;
        let queued = ids.into_iter().zip(messages).map(|(id, (subject, body))| Queued { id, subject, body }).collect();
        Ok(queued)
    }

    /// A message was delivered (or dropped): it leaves the outbox.
    pub async fn done(&self, id: i64) -> Result<(), sqlx::Error> {
        if let Some(store) = &self.pool {
            stored::done(store, id).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_rides_in_last_and_older_rows_still_load() {
        let open = r#"{"key":"missed|SQL1|j1","episode":"2026-11-22T12:00:00Z","kind":"missed","severity":"error",
            "instance":"SQL1","job":"ETL","since":"2026-11-22T07:00:00-05:00","evidence":"e","count":1,
            "link":"http://s/jobs/j1","acknowledged":false}"#;
        let old: Last = serde_json::from_str(open).expect("a row an older Sundial wrote");
        assert_eq!(old.thread, None);
        let new = Last { last: old.last.clone(), thread: Some("abc".into()), ended: None, follows: None };
        let text = serde_json::to_string(&new).unwrap();
        let back: Last = serde_json::from_str(&text).unwrap();
        assert_eq!((back.last, back.thread.as_deref()), (old.last.clone(), Some("abc")));
        // An older Sundial reads the problem alone: the thread is an unknown field it ignores.
        let theirs: Open = serde_json::from_str(&text).unwrap();
        assert_eq!(theirs, old.last);
    }
}
