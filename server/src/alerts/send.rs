//! Delivery to one webhook target: its own task, its own bounded queue, retries with
//! exponential backoff. Nothing waits for it: deciding only queues (polling and pages go on
//! whatever a target does), and a target down for hours holds at most
//! [`OUTBOX_MAX`](super::store::OUTBOX_MAX) messages (the oldest are dropped, counted and
//! logged).
//!
//! The URL is a secret: it is never logged nor put in an error; errors say what failed
//! (refused, timed out, the status answered). So is PagerDuty's routing key, which is added to
//! the event only here, as it is posted (Sundial's store never holds it), and the SMTP URL.
use super::email::{Smtp, SmtpError};
use super::store::{AlertStore, OUTBOX_MAX, Queued};
use crate::config::Secret;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// How a failing target is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// The first wait after a failure; each failure in a row doubles it…
    pub first: Duration,
    /// …up to this.
    pub max: Duration,
    /// One delivery attempt may take this long.
    pub timeout: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry { first: Duration::from_secs(1), max: Duration::from_secs(300), timeout: Duration::from_secs(10) }
    }
}

/// The wait after `failures` failures in a row (1: the first wait).
pub fn backoff(retry: &Retry, failures: u32) -> Duration {
    let doubled = retry.first.saturating_mul(1u32 << failures.saturating_sub(1).min(20));
    doubled.min(retry.max)
}

/// How delivery to one target goes (safe to show: no URL).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetStatus {
    /// Messages waiting.
    pub queued: usize,
    pub delivered: u64,
    /// Delivery attempts, failed ones included.
    pub attempts: u64,
    pub failures_in_a_row: u32,
    /// The waits of the latest failure streak, still kept once it ended (the latest 16).
    pub waits: Vec<Duration>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// Messages given up: the queue was full, or the target refused the message itself (400,
    /// 413, 415, 422: sending it again would not help).
    pub dropped: u64,
}

/// How a target's messages travel.
pub enum Channel {
    /// POST the body as JSON (Sundial's JSON, Slack, Teams).
    Webhook(Secret),
    /// POST the event to PagerDuty's Events API v2, its routing key added.
    PagerDuty { url: Secret, routing_key: Secret },
    /// The body is a whole message, given to an SMTP relay.
    Email(Box<Smtp>),
}

/// One target's delivery (see the module docs).
pub struct Sender {
    name: String,
    channel: Channel,
    client: reqwest::Client,
    queue: Mutex<VecDeque<Queued>>,
    notify: Notify,
    status: watch::Sender<TargetStatus>,
    store: Arc<AlertStore>,
    retry: Retry,
}

/// Why an attempt failed.
enum Failure {
    /// Worth trying again.
    Retry(String),
    /// The target refused this message for what it is.
    Rejected(String),
}

impl Sender {
    /// A sender for `name` over `channel`, holding what was waiting (`queued`); start it with
    /// [`Sender::spawn`].
    pub fn new(name: &str, channel: Channel, store: Arc<AlertStore>, retry: Retry, queued: Vec<Queued>) -> Arc<Sender> {
        let client = reqwest::Client::builder()
            .timeout(retry.timeout)
            .user_agent(concat!("sundial/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        let queue: VecDeque<Queued> = queued.into_iter().collect();
        let status = TargetStatus { queued: queue.len(), ..TargetStatus::default() };
        Arc::new(Sender {
            name: name.to_owned(),
            channel,
            client,
            queue: Mutex::new(queue),
            notify: Notify::new(),
            status: watch::channel(status).0,
            store,
            retry,
        })
    }

    pub fn spawn(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move { me.run().await })
    }

    pub fn status(&self) -> watch::Receiver<TargetStatus> {
        self.status.subscribe()
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Queued>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue messages (never waits); past [`OUTBOX_MAX`] the oldest are dropped.
    pub fn enqueue(&self, messages: Vec<Queued>) {
        if messages.is_empty() {
            return;
        }
        let (len, dropped) = {
            let mut q = self.queue();
            q.extend(messages);
            let dropped = q.len().saturating_sub(OUTBOX_MAX);
            q.drain(..dropped);
            (q.len(), dropped)
        };
        if dropped > 0 {
            tracing::warn!(alert = %self.name, dropped, "alerts: the target is behind; the oldest messages were dropped");
        }
        self.status.send_modify(|s| {
            s.queued = len;
            s.dropped += dropped as u64;
        });
        self.notify.notify_one();
    }

    async fn run(&self) {
        loop {
            let next = self.queue().front().cloned();
            let Some(message) = next else {
                self.notify.notified().await;
                continue;
            };
            let result = self.post(&message).await;
            let failed = match &result {
                Ok(()) | Err(Failure::Rejected(_)) => {
                    let len = {
                        let mut q = self.queue();
                        if q.front().is_some_and(|f| f.id == message.id) {
                            q.pop_front();
                        }
                        q.len()
                    };
                    if let Err(e) = self.store.done(message.id).await {
                        tracing::warn!(alert = %self.name, error = %e, "alerts: could not clear a delivered message from Sundial's store");
                    }
                    self.status.send_modify(|s| {
                        s.queued = len;
                        s.attempts += 1;
                        s.failures_in_a_row = 0;
                        match &result {
                            Err(Failure::Rejected(e)) => {
                                s.dropped += 1;
                                s.last_error = Some(e.clone());
                            }
                            _ => {
                                s.delivered += 1;
                                s.last_error = None;
                            }
                        }
                    });
                    match &result {
                        Err(Failure::Rejected(e)) => {
                            tracing::warn!(alert = %self.name, subject = %message.subject, error = %e, "alerts: the target refused a message; dropped")
                        }
                        _ => tracing::info!(alert = %self.name, subject = %message.subject, "alert delivered"),
                    }
                    None
                }
                Err(Failure::Retry(e)) => Some(e.clone()),
            };
            if let Some(error) = failed {
                let mut wait = Duration::ZERO;
                self.status.send_modify(|s| {
                    s.attempts += 1;
                    if s.failures_in_a_row == 0 {
                        s.waits.clear();
                    }
                    s.failures_in_a_row += 1;
                    wait = backoff(&self.retry, s.failures_in_a_row);
                    s.waits.push(wait);
                    let extra = s.waits.len().saturating_sub(16);
                    s.waits.drain(..extra);
                    s.last_error = Some(error.clone());
                });
                tracing::warn!(alert = %self.name, error = %error, retry_in = ?wait, "alerts: delivery failed; will retry");
                tokio::time::sleep(wait).await;
            }
        }
    }

    /// One attempt; the error never holds the URL (nor the routing key, nor a password).
    async fn post(&self, message: &Queued) -> Result<(), Failure> {
        let (url, body) = match &self.channel {
            Channel::Webhook(url) => (url, message.body.clone()),
            Channel::PagerDuty { url, routing_key } => {
                let mut event: serde_json::Value = serde_json::from_str(&message.body)
                    .map_err(|_| Failure::Rejected("the event kept is not JSON".to_owned()))?;
                event["routing_key"] = serde_json::Value::String(routing_key.expose().to_owned());
                (url, event.to_string())
            }
            Channel::Email(smtp) => {
                return smtp.send(&message.body).await.map_err(|e| match e {
                    SmtpError::Rejected(_) => Failure::Rejected(e.to_string()),
                    SmtpError::Retry(_) => Failure::Retry(e.to_string()),
                });
            }
        };
        let sent = self
            .client
            .post(url.expose())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await;
        let response = sent.map_err(|e| Failure::Retry(self.words(url, e)))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let words = format!("the target answered {status}");
        match status.as_u16() {
            400 | 413 | 415 | 422 => Err(Failure::Rejected(words)),
            _ => Err(Failure::Retry(words)),
        }
    }

    /// What went wrong, in the client's words and its causes', without the URL.
    fn words(&self, url: &Secret, e: reqwest::Error) -> String {
        let what = if e.is_timeout() {
            format!("no answer within {}", humantime::format_duration(self.retry.timeout))
        } else if e.is_connect() {
            "cannot connect".to_owned()
        } else {
            "the request failed".to_owned()
        };
        let e = e.without_url();
        let mut causes = Vec::new();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            causes.push(s.to_string());
            source = s.source();
        }
        let text = if causes.is_empty() { what } else { format!("{what}: {}", causes.join(": ")) };
        // Belt and braces: no cause may quote the URL.
        let text = text.replace(url.expose(), "***");
        match &self.channel {
            Channel::PagerDuty { routing_key, .. } => text.replace(routing_key.expose(), "***"),
            _ => text,
        }
    }
}
