//! Sign-in limits that slow whoever guesses passwords without locking the right user out.
//!
//! Only failed sign-ins count. Each key holds a level that one failure raises by one and that
//! drains by one every period; at `burst` the key waits until it has drained below it again
//! (`429` with `Retry-After`). Three kinds of key:
//!
//! - a *known browser* (a device cookie Sundial gave it when it signed in as that name): only its
//!   own failures count against it, so someone guessing alice's password from elsewhere never
//!   locks alice's own browser out, whatever address it comes from;
//! - otherwise the client's address (behind a trusted proxy, the address its `X-Forwarded-For`
//!   names, so that one client's guesses do not lock every user of the proxy out);
//! - and the account name, for every client that is not a known browser of it: someone guessing
//!   one account from many addresses is slowed too.
//!
//! (`governor`, which the limits used before, counts every attempt and cannot be asked without
//! spending one: a correct password after failures from elsewhere was refused.)
use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Keys kept at most per limit; past it, keys that have drained are forgotten, then all.
const CAPACITY: usize = 100_000;

/// Failures per key, draining at one per `every`.
pub struct Failures<K> {
    burst: u32,
    every: Duration,
    levels: Mutex<HashMap<K, (f64, Instant)>>,
}

impl<K: Hash + Eq + Clone> Failures<K> {
    /// `burst` failures at once, then one per `every`.
    pub fn new(burst: u32, every: Duration) -> Failures<K> {
        Failures { burst, every, levels: Mutex::new(HashMap::new()) }
    }

    fn level(&self, at: Option<&(f64, Instant)>, now: Instant) -> f64 {
        at.map_or(0.0, |(level, since)| {
            let drained = now.saturating_duration_since(*since).as_secs_f64() / self.every.as_secs_f64();
            (level - drained).max(0.0)
        })
    }

    /// How long `key` must wait before its next attempt; `None`: it may try now.
    pub fn wait(&self, key: &K, now: Instant) -> Option<Duration> {
        let levels = self.levels.lock().unwrap_or_else(|e| e.into_inner());
        let over = self.level(levels.get(key), now) - (f64::from(self.burst) - 1.0);
        (over > 0.0).then(|| self.every.mul_f64(over))
    }

    /// Count a failure of `key`.
    pub fn failed(&self, key: &K, now: Instant) {
        let mut levels = self.levels.lock().unwrap_or_else(|e| e.into_inner());
        if levels.len() >= CAPACITY && !levels.contains_key(key) {
            let every = self.every.as_secs_f64();
            levels.retain(|_, (level, since)| *level > now.saturating_duration_since(*since).as_secs_f64() / every);
            if levels.len() >= CAPACITY {
                levels.clear();
            }
        }
        let level = self.level(levels.get(key), now) + 1.0;
        levels.insert(key.clone(), (level, now));
    }
}

/// Who is signing in, as the limits see them.
#[derive(Clone, Debug)]
pub struct Attempt<'a> {
    /// The client's address (a trusted proxy's `X-Forwarded-For` resolved).
    pub address: IpAddr,
    /// The account name, lowercased and trimmed.
    pub name: &'a str,
    /// The device cookie's id when it is a known browser of `name`.
    pub device: Option<&'a str>,
}

/// The three limits (see the module docs).
pub struct Limits {
    per_device: Failures<String>,
    per_address: Failures<IpAddr>,
    per_name: Failures<String>,
}

/// A known browser: 10 failures, then one every 6 s.
pub const PER_DEVICE: (u32, Duration) = (10, Duration::from_secs(6));
/// Any other client, per address: 10 failures, then one every 6 s.
pub const PER_ADDRESS: (u32, Duration) = (10, Duration::from_secs(6));
/// One account, from every client but its known browsers: 20 failures, then one every 3 s.
pub const PER_NAME: (u32, Duration) = (20, Duration::from_secs(3));

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            per_device: Failures::new(PER_DEVICE.0, PER_DEVICE.1),
            per_address: Failures::new(PER_ADDRESS.0, PER_ADDRESS.1),
            per_name: Failures::new(PER_NAME.0, PER_NAME.1),
        }
    }
}

/// A name as a key: bounded, so a megabyte of name is not kept.
fn name_key(name: &str) -> String {
    name.chars().take(128).collect()
}

impl Limits {
    /// How long this attempt must wait; `None`: its password may be checked.
    pub fn wait(&self, a: &Attempt<'_>, now: Instant) -> Option<Duration> {
        match a.device {
            Some(d) => self.per_device.wait(&d.to_owned(), now),
            None => {
                let (by_address, by_name) =
                    (self.per_address.wait(&a.address, now), self.per_name.wait(&name_key(a.name), now));
                by_address.max(by_name)
            }
        }
    }

    /// Count this attempt's failure.
    pub fn failed(&self, a: &Attempt<'_>, now: Instant) {
        match a.device {
            Some(d) => self.per_device.failed(&d.to_owned(), now),
            None => {
                self.per_address.failed(&a.address, now);
                self.per_name.failed(&name_key(a.name), now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_drain_at_their_rate_and_only_failures_count() {
        let f = Failures::new(3, Duration::from_secs(6));
        let t0 = Instant::now();
        for _ in 0..2 {
            assert_eq!(f.wait(&"k", t0), None);
            f.failed(&"k", t0);
        }
        assert_eq!(f.wait(&"k", t0), None, "two failures of three");
        f.failed(&"k", t0);
        assert_eq!(f.wait(&"k", t0), Some(Duration::from_secs(6)), "the third: wait one period");
        assert_eq!(f.wait(&"k", t0 + Duration::from_secs(3)), Some(Duration::from_secs(3)));
        assert_eq!(f.wait(&"k", t0 + Duration::from_secs(6)), None, "drained below the burst");
        assert_eq!(f.wait(&"other", t0), None, "keys are apart");
        // One failure per period keeps it waiting, but only that key.
        f.failed(&"k", t0 + Duration::from_secs(6));
        assert!(f.wait(&"k", t0 + Duration::from_secs(6)).is_some());
    }

    #[test]
    fn a_known_browser_is_not_locked_out_by_others_guessing_its_name() {
        let l = Limits::default();
        let t0 = Instant::now();
        for i in 0..40u8 {
            let a = Attempt { address: IpAddr::from([192, 0, 2, i]), name: "alice", device: None };
            l.failed(&a, t0);
        }
        let stranger = Attempt { address: IpAddr::from([198, 51, 100, 1]), name: "alice", device: None };
        assert!(l.wait(&stranger, t0).is_some(), "an unknown client waits: the name is being guessed");
        let bob = Attempt { address: IpAddr::from([198, 51, 100, 1]), name: "bob", device: None };
        assert_eq!(l.wait(&bob, t0), None, "another name does not");
        let known = Attempt { device: Some("d1"), ..stranger.clone() };
        assert_eq!(l.wait(&known, t0), None, "alice's own browser signs in from a new address");
        for _ in 0..10 {
            l.failed(&known, t0);
        }
        assert!(l.wait(&known, t0).is_some(), "its own failures count against it");
        assert_eq!(l.wait(&Attempt { device: Some("d2"), ..stranger }, t0), None, "not against another browser");
    }
}
