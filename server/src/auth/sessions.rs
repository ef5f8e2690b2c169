//! Sign-in sessions: a random id in the reader's cookie, its SHA-256 and the principal in
//! memory. A session lasts the configured time from sign-in; signing out ends it at once.
//!
//! Sessions live in this process: a restart signs everyone out. With a store replicas share
//! (PostgreSQL), they live in its `session` table instead (the id's SHA-256, the principal,
//! the end as wall-clock time), read at every request: a session begun on one replica holds
//! on every other, and signing out on one ends it on all.
use crate::store::Store;
use crate::store::sessions as stored;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use sundial_model::Principal;

/// At most this many sessions are kept; past it the one ending first goes.
const CAPACITY: usize = 10_000;

/// The sessions of this process, or of every replica (see the module docs).
pub struct Sessions {
    ttl: Duration,
    by_digest: Mutex<HashMap<[u8; 32], (Principal, Instant)>>,
    /// The replicas' shared store; `None`: this process keeps its own.
    shared: Option<Store>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions").field("ttl", &self.ttl).field("shared", &self.shared.is_some()).finish()
    }
}

fn digest(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

impl Sessions {
    /// Sessions that last `ttl` from sign-in.
    pub fn new(ttl: Duration) -> Sessions {
        Sessions { ttl, by_digest: Mutex::new(HashMap::new()), shared: None }
    }

    /// Keep them in `store` when replicas share it (PostgreSQL); else in this process.
    pub fn shared_in(mut self, store: Option<&Store>) -> Sessions {
        self.shared = store.filter(|s| s.at().shared()).cloned();
        self
    }

    /// How long a session lasts.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A new session for `principal`, as of `now`; its id (256 random bits, hex) goes in the
    /// cookie and nowhere else.
    pub async fn start(&self, principal: Principal, now: Instant) -> Option<String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let id = hex::encode(bytes);
        if let Some(pool) = self.shared.as_ref().and_then(Store::postgres) {
            let now_ms = chrono::Utc::now().timestamp_millis();
            let ends = now_ms.saturating_add(self.ttl.as_millis().min(i64::MAX as u128) as i64);
            let role = serde_json::to_string(&principal.role).ok()?;
            let via = serde_json::to_string(&principal.via).ok()?;
            let kept = stored::start(pool, now_ms, &hex::encode(digest(&id)), &principal.name, &role, &via, ends).await;
            return match kept {
                Ok(_) => Some(id),
                Err(e) => {
                    tracing::warn!(error = %e, "sign-in: the session could not be kept in Sundial's shared store");
                    None
                }
            };
        }
        let mut map = self.by_digest.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= CAPACITY {
            map.retain(|_, (_, end)| *end > now);
        }
        if map.len() >= CAPACITY
            && let Some(first) = map.iter().min_by_key(|(_, (_, end))| *end).map(|(k, _)| *k)
        {
            map.remove(&first);
        }
        map.insert(digest(&id), (principal, now + self.ttl));
        Some(id)
    }

    /// Who holds session `id` at `now`; `None` when it is unknown or over (and then forgotten).
    pub async fn get(&self, id: &str, now: Instant) -> Option<Principal> {
        let key = digest(id);
        if let Some(pool) = self.shared.as_ref().and_then(Store::postgres) {
            let row = stored::get(pool, &hex::encode(key)).await;
            let (name, role, via, ends) = match row {
                Ok(Some(row)) => row,
                Ok(None) => return None,
                Err(e) => {
                    tracing::warn!(error = %e, "sign-in: Sundial's shared store could not be asked for a session");
                    return None;
                }
            };
            if ends <= chrono::Utc::now().timestamp_millis() {
                return None;
            }
            let role = serde_json::from_str(&role).ok()?;
            let via = serde_json::from_str(&via).ok()?;
            return Some(Principal { name, role, via });
        }
        let mut map = self.by_digest.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(&key) {
            Some((p, end)) if *end > now => Some(p.clone()),
            Some(_) => {
                map.remove(&key);
                None
            }
            None => None,
        }
    }

    /// End session `id` (signing out).
    pub async fn end(&self, id: &str) {
        if let Some(pool) = self.shared.as_ref().and_then(Store::postgres)
            && let Err(e) = stored::end(pool, &hex::encode(digest(id))).await
        {
            tracing::warn!(error = %e, "sign-out: the session could not be ended in Sundial's shared store");
        }
        self.by_digest.lock().unwrap_or_else(|e| e.into_inner()).remove(&digest(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sundial_model::{Role, SignedInVia};

    fn alice() -> Principal {
        Principal { name: "alice".into(), role: Role::Admin, via: SignedInVia::Session }
    }

    #[tokio::test]
    async fn a_session_holds_until_its_time_is_over_or_it_is_ended() {
        let s = Sessions::new(Duration::from_secs(3600));
        let t0 = Instant::now();
        let id = s.start(alice(), t0).await.expect("a session");
        assert_eq!(id.len(), 64);
        assert_eq!(s.get(&id, t0 + Duration::from_secs(3599)).await, Some(alice()));
        assert_eq!(s.get(&id, t0 + Duration::from_secs(3600)).await, None, "over at its end");
        assert_eq!(s.get(&id, t0).await, None, "and forgotten once over");
        let id = s.start(alice(), t0).await.expect("a session");
        s.end(&id).await;
        assert_eq!(s.get(&id, t0).await, None, "ended by signing out");
        assert_eq!(s.get("not-a-session", t0).await, None);
    }

    #[tokio::test]
    async fn two_sign_ins_get_different_ids() {
        let s = Sessions::new(Duration::from_secs(60));
        let t0 = Instant::now();
        assert_ne!(s.start(alice(), t0).await, s.start(alice(), t0).await);
    }
}
