//! Sign-in sessions: a random id in the reader's cookie, its SHA-256 and the principal in
//! memory. A session lasts the configured time from sign-in; signing out ends it at once.
//!
//! Sessions live in this process: a restart signs everyone out, and each replica has its own.
use app::api::Principal;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// At most this many sessions are kept; past it the one ending first goes.
const CAPACITY: usize = 10_000;

/// The sessions of this process.
#[derive(Debug)]
pub struct Sessions {
    ttl: Duration,
    by_digest: Mutex<HashMap<[u8; 32], (Principal, Instant)>>,
}

fn digest(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

impl Sessions {
    /// Sessions that last `ttl` from sign-in.
    pub fn new(ttl: Duration) -> Sessions {
        Sessions { ttl, by_digest: Mutex::new(HashMap::new()) }
    }

    /// How long a session lasts.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A new session for `principal`, as of `now`; its id (256 random bits, hex) goes in the
    /// cookie and nowhere else.
    pub fn start(&self, principal: Principal, now: Instant) -> Option<String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let id = hex::encode(bytes);
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
    pub fn get(&self, id: &str, now: Instant) -> Option<Principal> {
        let key = digest(id);
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
    pub fn end(&self, id: &str) {
        self.by_digest.lock().unwrap_or_else(|e| e.into_inner()).remove(&digest(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::api::{Role, SignedInVia};

    fn alice() -> Principal {
        Principal { name: "alice".into(), role: Role::Admin, via: SignedInVia::Session }
    }

    #[test]
    fn a_session_holds_until_its_time_is_over_or_it_is_ended() {
        let s = Sessions::new(Duration::from_secs(3600));
        let t0 = Instant::now();
        let id = s.start(alice(), t0).expect("a session");
        assert_eq!(id.len(), 64);
        assert_eq!(s.get(&id, t0 + Duration::from_secs(3599)), Some(alice()));
        assert_eq!(s.get(&id, t0 + Duration::from_secs(3600)), None, "over at its end");
        assert_eq!(s.get(&id, t0), None, "and forgotten once over");
        let id = s.start(alice(), t0).expect("a session");
        s.end(&id);
        assert_eq!(s.get(&id, t0), None, "ended by signing out");
        assert_eq!(s.get("not-a-session", t0), None);
    }

    #[test]
    fn two_sign_ins_get_different_ids() {
        let s = Sessions::new(Duration::from_secs(60));
        let t0 = Instant::now();
        assert_ne!(s.start(alice(), t0), s.start(alice(), t0));
    }
}
