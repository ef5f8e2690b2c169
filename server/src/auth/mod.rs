//! Sign-in: who may read Sundial and who may change what it keeps.
//!
//! Bound to loopback without `[auth]`, Sundial asks nobody (the one person at the machine may
//! do everything). Otherwise every page and API call needs a [`Principal`], from one of:
//!
//! - an API token: `Authorization: Bearer <token>` ([`accounts`]: only its SHA-256 is kept);
//! - a session cookie from the sign-in page ([`sessions`]; argon2 passwords, attempts limited
//!   per address);
//! - a trusted reverse proxy's user header, taken only from the configured proxy addresses.
//!
//! Roles: a viewer reads; an admin may also acknowledge and silence problems. The HTTP glue
//! (the middleware, `/signin`, `/signout`) is in `http::auth`.
pub mod accounts;
pub mod sessions;

pub use accounts::{Accounts, hash_password, new_token};
pub use app::api::{Principal, Role, SignedInVia};
pub use sessions::Sessions;

use crate::config::{AuthConfig, ProxyConfig};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What can go wrong setting sign-in up. Messages name the file and line, never a hash or a
/// password.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The users file could not be read.
    #[error("{file}: cannot read the users file: {source}")]
    Read { file: String, source: std::io::Error },
    /// The users file is wrong at `line`.
    #[error("{file}:{line}: {message}")]
    UsersFile { file: String, line: usize, message: String },
    /// The system's random source failed (salts, session ids, tokens).
    #[error("the system's random number source failed")]
    Random,
}

/// Why a sign-in was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum SignInError {
    /// The name and password match no account.
    Wrong,
    /// Too many attempts from this address (or for this name): try again in this many seconds.
    Wait(u64),
}

/// Sign-in attempts allowed per client address: 10 at once, then one every 6 s.
const PER_ADDRESS: (u32, Duration) = (10, Duration::from_secs(6));
/// Attempts allowed per account name, from anywhere: 20 at once, then one every 3 s.
const PER_NAME: (u32, Duration) = (20, Duration::from_secs(3));

fn quota((burst, every): (u32, Duration)) -> Quota {
    Quota::with_period(every).expect("a positive period").allow_burst(NonZeroU32::new(burst).expect("a positive burst"))
}

/// Sign-in, set up from `[auth]`.
pub struct Auth {
    accounts: Arc<Accounts>,
    sessions: Sessions,
    proxy: Option<ProxyConfig>,
    per_address: DefaultKeyedRateLimiter<IpAddr>,
    per_name: DefaultKeyedRateLimiter<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (users, tokens) = self.accounts.counts();
        f.debug_struct("Auth")
            .field("users", &users)
            .field("tokens", &tokens)
            .field("proxy", &self.proxy.is_some())
            .finish()
    }
}

impl Auth {
    /// Read the users file (if any) and set up sessions and the proxy.
    pub fn load(config: &AuthConfig) -> Result<Auth, AuthError> {
        let accounts = match &config.users_file {
            Some(path) => Accounts::load(path)?,
            None => Accounts::default(),
        };
        Ok(Auth::new(accounts, config.session, config.proxy.clone()))
    }

    /// Sign-in over `accounts`, sessions lasting `session`, and a proxy if any.
    pub fn new(accounts: Accounts, session: Duration, proxy: Option<ProxyConfig>) -> Auth {
        Auth {
            accounts: Arc::new(accounts),
            sessions: Sessions::new(session),
            proxy,
            per_address: RateLimiter::keyed(quota(PER_ADDRESS)),
            per_name: RateLimiter::keyed(quota(PER_NAME)),
        }
    }

    /// What this sign-in offers, for the log at start.
    pub fn summary(&self) -> String {
        let (users, tokens) = self.accounts.counts();
        let mut s = format!("{users} account(s), {tokens} API token(s)");
        if let Some(p) = &self.proxy {
            s.push_str(&format!(", users from {} set by {} trusted prox(ies)", p.header, p.trusted.len()));
        }
        s
    }

    /// How long a session lasts.
    pub fn session_ttl(&self) -> Duration {
        self.sessions.ttl()
    }

    /// The principal an API token stands for.
    pub fn by_token(&self, token: &str) -> Option<Principal> {
        let t = self.accounts.token(token)?;
        Some(Principal { name: t.name.clone(), role: t.role, via: SignedInVia::Token })
    }

    /// The user a trusted proxy names in its header. `None` when no proxy is configured, the
    /// request did not come from one of its addresses (the header is then ignored: anyone can
    /// send it), or the header is absent or empty.
    pub fn by_proxy(&self, peer: Option<IpAddr>, headers: &axum::http::HeaderMap) -> Option<Principal> {
        let proxy = self.proxy.as_ref()?;
        let peer = peer?;
        if !proxy.trusted.iter().any(|net| net.contains(&peer)) {
            return None;
        }
        let name = headers.get(&proxy.header)?.to_str().ok()?.trim();
        if name.is_empty() {
            return None;
        }
        let role = if proxy.admins.iter().any(|a| a.eq_ignore_ascii_case(name)) { Role::Admin } else { Role::Viewer };
        Some(Principal { name: name.to_owned(), role, via: SignedInVia::Proxy })
    }

    /// Who holds session `id` now.
    pub async fn by_session(&self, id: &str) -> Option<Principal> {
        self.sessions.get(id, Instant::now()).await
    }

    /// Keep sessions in `store` when replicas share it (see [`sessions`]).
    pub fn sessions_in(mut self, store: Option<&crate::store::Store>) -> Auth {
        self.sessions = self.sessions.shared_in(store);
        self
    }

    /// Check a name and password from `peer` (attempts are limited per address and per name)
    /// and start a session: its id, for the cookie.
    pub async fn sign_in(&self, peer: Option<IpAddr>, name: &str, password: &str) -> Result<String, SignInError> {
        let address = peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let wait = |e: governor::NotUntil<_>| {
            let d = e.wait_time_from(governor::clock::Clock::now(&governor::clock::DefaultClock::default()));
            SignInError::Wait(d.as_secs().max(1))
        };
        self.per_address.check_key(&address).map_err(wait)?;
        self.per_name.check_key(&name.trim().to_lowercase()).map_err(wait)?;
        if self.per_address.len() > 100_000 {
            self.per_address.retain_recent();
            self.per_name.retain_recent();
        }
        let accounts = self.accounts.clone();
        let (name, password) = (name.to_owned(), password.to_owned());
        let user = tokio::task::spawn_blocking(move || {
            accounts.check_password(&name, &password).map(|u| Principal {
                name: u.name.clone(),
                role: u.role,
                via: SignedInVia::Session,
            })
        })
        .await
        .ok()
        .flatten()
        .ok_or(SignInError::Wrong)?;
        self.sessions.start(user, Instant::now()).await.ok_or(SignInError::Wrong)
    }

    /// End session `id`.
    pub async fn sign_out(&self, id: &str) {
        self.sessions.end(id).await;
    }
}
