//! Sign-in: who may read Sundial and who may change what it keeps.
//!
//! Bound to loopback without `[auth]`, Sundial asks nobody (the one person at the machine may
//! do everything). Otherwise every page and API call needs a [`Principal`], from one of:
//!
//! - an API token: `Authorization: Bearer <token>` ([`accounts`]: only its SHA-256 is kept);
//! - a session cookie from the sign-in page ([`sessions`]; argon2 passwords; failed attempts
//!   limited per known browser, else per client address and per name: [`limits`]);
//! - a trusted reverse proxy's user header, taken only from the configured proxy addresses.
//!
//! Roles: a viewer reads; an admin may also acknowledge and silence problems. A session's role
//! is the users file's at each request (the file is read again when it changes): a removed
//! user is signed out, a demoted one demoted, on every replica. The HTTP glue
//! (the middleware, `/signin`, `/signout`) is in `http::auth`.
pub mod accounts;
pub mod limits;
pub mod sessions;

pub use accounts::{Accounts, hash_password, new_token};
pub use sessions::Sessions;
pub use sundial_model::{Principal, Role, SignedInVia};

use crate::config::{AuthConfig, ProxyConfig};
use ipnet::IpNet;
use limits::{Attempt, Limits};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

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
    /// Too many failed attempts by this client (or for this name, by clients it has not signed
    /// in from): try again in this many seconds.
    Wait(u64),
}

/// A sign-in that held: the session's id (for its cookie) and the browser's device id, which
/// makes it a known browser of that name for the limits ([`limits`]).
#[derive(Debug)]
pub struct SignedIn {
    pub session: String,
    pub device: String,
}

/// Browsers remembered as known to a name, at most (the oldest go first).
const DEVICES: usize = 10_000;

/// The users file as last read: its path, and its modification time and length then.
struct UsersFile {
    path: PathBuf,
    seen: Option<(SystemTime, u64)>,
}

/// Sign-in, set up from `[auth]`.
pub struct Auth {
    /// The accounts as the users file says now (read again when it changes).
    accounts: RwLock<Arc<Accounts>>,
    file: Option<Mutex<UsersFile>>,
    sessions: Sessions,
    proxy: Option<ProxyConfig>,
    /// The proxies whose `X-Forwarded-For` names the client.
    forwarded_by: Vec<IpNet>,
    limits: Limits,
    /// Known browsers: the SHA-256 of a device id → the name it signed in as, and when.
    devices: Mutex<HashMap<[u8; 32], (String, Instant)>>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (users, tokens) = self.accounts().counts();
        f.debug_struct("Auth")
            .field("users", &users)
            .field("tokens", &tokens)
            .field("proxy", &self.proxy.is_some())
            .finish()
    }
}

fn file_seen(path: &Path) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

impl Auth {
    /// Read the users file (if any) and set up sessions and the proxy.
    pub fn load(config: &AuthConfig) -> Result<Auth, AuthError> {
        let accounts = match &config.users_file {
            Some(path) => Accounts::load(path)?,
            None => Accounts::default(),
        };
        let mut auth = Auth::new(accounts, config.session, config.proxy.clone());
        auth.forwarded_by = config.forwarded_by.clone();
        auth.file =
            config.users_file.as_ref().map(|path| Mutex::new(UsersFile { path: path.clone(), seen: file_seen(path) }));
        Ok(auth)
    }

    /// Sign-in over `accounts`, sessions lasting `session`, and a proxy if any.
    pub fn new(accounts: Accounts, session: Duration, proxy: Option<ProxyConfig>) -> Auth {
        let forwarded_by = proxy.as_ref().map(|p| p.trusted.clone()).unwrap_or_default();
        Auth {
            accounts: RwLock::new(Arc::new(accounts)),
            file: None,
            sessions: Sessions::new(session),
            proxy,
            forwarded_by,
            limits: Limits::default(),
            devices: Mutex::new(HashMap::new()),
        }
    }

    /// The accounts as the users file says now: read again when its modification time or
    /// length changed (one `stat` per request that asks). A file that no longer reads keeps the
    /// accounts it last gave, and the log says why.
    fn accounts(&self) -> Arc<Accounts> {
        if let Some(file) = &self.file {
            let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
            let seen = file_seen(&f.path);
            if seen != f.seen {
                f.seen = seen;
                match Accounts::load(&f.path) {
                    Ok(a) => {
                        tracing::info!(file = %f.path.display(), "the users file changed: read again");
                        *self.accounts.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(a);
                    }
                    Err(e) => tracing::warn!(
                        error = %e,
                        "the users file changed and cannot be read: its accounts as they were are kept"
                    ),
                }
            }
        }
        self.accounts.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// What this sign-in offers, for the log at start.
    pub fn summary(&self) -> String {
        let (users, tokens) = self.accounts().counts();
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

    /// The principal an API token stands for (as the users file says now).
    pub fn by_token(&self, token: &str) -> Option<Principal> {
        let accounts = self.accounts();
        let t = accounts.token(token)?;
        Some(Principal { name: t.name.clone(), role: t.role, via: SignedInVia::Token })
    }

    /// The client's address: `peer`, or when `peer` is a trusted proxy, the last address of
    /// `X-Forwarded-For` that is not one of the trusted proxies'.
    pub fn client_address(&self, peer: Option<IpAddr>, headers: &axum::http::HeaderMap) -> Option<IpAddr> {
        let peer = peer?;
        let trusted = |ip: &IpAddr| self.forwarded_by.iter().any(|net| net.contains(ip));
        if !trusted(&peer) {
            return Some(peer);
        }
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        for hop in hops.iter().rev() {
            match hop.parse::<IpAddr>() {
                Ok(ip) if trusted(&ip) => continue,
                Ok(ip) => return Some(ip),
                // Not an address: what stands left of it cannot be trusted either.
                Err(_) => return Some(peer),
            }
        }
        Some(peer)
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

    /// Who holds session `id` now, with the role the users file gives them now: a user
    /// removed from it is signed out, a demoted one reads as a viewer from the next request.
    pub async fn by_session(&self, id: &str) -> Option<Principal> {
        let p = self.sessions.get(id, Instant::now()).await?;
        match self.accounts().user(&p.name) {
            Some(u) => Some(Principal { name: u.name.clone(), role: u.role, ..p }),
            None => {
                self.sessions.end(id).await;
                None
            }
        }
    }

    /// Keep sessions in `store` when replicas share it (see [`sessions`]).
    pub fn sessions_in(mut self, store: Option<&crate::store::Store>) -> Auth {
        self.sessions = self.sessions.shared_in(store);
        self
    }

    /// The name `device` (a device cookie's value) is a known browser of, if any.
    fn device_of(&self, device: &str) -> Option<String> {
        let key: [u8; 32] = Sha256::digest(device.as_bytes()).into();
        self.devices.lock().unwrap_or_else(|e| e.into_inner()).get(&key).map(|(n, _)| n.clone())
    }

    /// A new device id for a browser that signed in as `name`.
    fn remember_device(&self, name: &str) -> Option<String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let id = hex::encode(bytes);
        let key: [u8; 32] = Sha256::digest(id.as_bytes()).into();
        let mut devices = self.devices.lock().unwrap_or_else(|e| e.into_inner());
        if devices.len() >= DEVICES
            && let Some(oldest) = devices.iter().min_by_key(|(_, (_, at))| *at).map(|(k, _)| *k)
        {
            devices.remove(&oldest);
        }
        devices.insert(key, (name.to_owned(), Instant::now()));
        Some(id)
    }

    /// Check a name and password from a client at `address` (its device cookie `device`, if
    /// any) and start a session. Failed attempts are limited ([`limits`]): per known browser,
    /// else per address and per name.
    pub async fn sign_in(
        &self,
        address: Option<IpAddr>,
        device: Option<&str>,
        name: &str,
        password: &str,
    ) -> Result<SignedIn, SignInError> {
        let key = name.trim().to_lowercase();
        let known = device.filter(|d| self.device_of(d).is_some_and(|n| n == key));
        let attempt =
            Attempt { address: address.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)), name: &key, device: known };
        if let Some(wait) = self.limits.wait(&attempt, Instant::now()) {
            return Err(SignInError::Wait(wait.as_secs_f64().ceil().max(1.0) as u64));
        }
        let accounts = self.accounts();
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
        .flatten();
        let Some(user) = user else {
            self.limits.failed(&attempt, Instant::now());
            return Err(SignInError::Wrong);
        };
        let device = match known {
            Some(d) => d.to_owned(),
            None => self.remember_device(&key).ok_or(SignInError::Wrong)?,
        };
        let session = self.sessions.start(user, Instant::now()).await.ok_or(SignInError::Wrong)?;
        Ok(SignedIn { session, device })
    }

    /// End session `id`.
    pub async fn sign_out(&self, id: &str) {
        self.sessions.end(id).await;
    }
}
