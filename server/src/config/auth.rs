//! The fleet file's sign-in settings (`[auth]`).
//!
//! ```toml
//! [auth]
//! users_file = "/etc/sundial/users.toml"  # accounts (argon2 hashes) and API tokens (SHA-256);
//!                                         # relative paths are beside this file
//! session = "12h"                         # how long a sign-in lasts (default 12h)
//! trusted_proxies = ["127.0.0.1"]         # proxies in front: their X-Forwarded-For names the
//!                                         # client (sign-in limits count per client address)
//! proxy_header = "X-Forwarded-User"       # or: a reverse proxy's signed-in user, taken only
//!                                         # from trusted_proxies
//! proxy_admins = ["alice"]                # the proxy's users who are admins (others: viewers)
//! ```
//!
//! Bound to loopback, Sundial needs no sign-in. Bound to any other address, it refuses to start
//! without `users_file` or `proxy_header` (or `--users`).
use super::{Checker, ConfigError};
use ipnet::IpNet;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// `[auth]`, validated (the users file itself is read by `auth::Auth::load`).
#[derive(Clone, Debug, PartialEq)]
pub struct AuthConfig {
    /// Accounts and API tokens.
    pub users_file: Option<PathBuf>,
    /// How long a sign-in lasts.
    pub session: Duration,
    /// A reverse proxy's user header, and whom it is taken from.
    pub proxy: Option<ProxyConfig>,
    /// The proxies in front of Sundial (`trusted_proxies`): from them, the client's address is
    /// the last one of `X-Forwarded-For` that is not theirs.
    pub forwarded_by: Vec<IpNet>,
}

/// A trusted reverse proxy that signs users in (`proxy_header`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyConfig {
    /// The header carrying the signed-in user's name, e.g. `X-Forwarded-User`.
    pub header: axum::http::HeaderName,
    /// Only requests from these addresses may carry it; from anyone else it is ignored.
    pub trusted: Vec<IpNet>,
    /// Users (as the header names them) who are admins; everyone else is a viewer.
    pub admins: Vec<String>,
}

/// How long a sign-in lasts by default.
pub const DEFAULT_SESSION: Duration = Duration::from_secs(12 * 3600);

impl AuthConfig {
    /// Accounts from `users_file` only (`--users`).
    pub fn users(path: PathBuf) -> AuthConfig {
        AuthConfig { users_file: Some(path), session: DEFAULT_SESSION, proxy: None, forwarded_by: Vec::new() }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAuth {
    users_file: Option<Spanned<String>>,
    session: Option<Spanned<String>>,
    proxy_header: Option<Spanned<String>>,
    #[serde(default)]
    trusted_proxies: Vec<Spanned<String>>,
    #[serde(default)]
    proxy_admins: Vec<String>,
}

/// An address or a network: `10.0.0.5`, `10.0.0.0/8`, `::1`.
fn parse_net(s: &str) -> Option<IpNet> {
    let s = s.trim();
    s.parse::<IpNet>().ok().or_else(|| s.parse::<std::net::IpAddr>().ok().map(IpNet::from))
}

impl Checker<'_> {
    /// `[auth]`: a proxy header only with the proxies it is taken from, every address valid.
    pub(super) fn auth(&self, raw: Option<&Spanned<RawAuth>>) -> Result<Option<AuthConfig>, ConfigError> {
        let Some(spanned) = raw else { return Ok(None) };
        let raw = spanned.get_ref();
        let users_file = raw.users_file.as_ref().map(|p| {
            let p = Path::new(p.get_ref());
            if p.is_relative() {
                Path::new(self.origin).parent().unwrap_or(Path::new(".")).join(p)
            } else {
                p.to_owned()
            }
        });
        let session = match &raw.session {
            Some(v) => self.duration(v, None, "auth.session")?,
            None => DEFAULT_SESSION,
        };
        let mut trusted = Vec::new();
        for t in &raw.trusted_proxies {
            let net = parse_net(t.get_ref()).ok_or_else(|| {
                let why = "not an address or a network (\"10.0.0.5\", \"10.0.0.0/8\", \"::1\")";
                self.invalid(t.span(), None, "auth.trusted_proxies", &format!("{:?}", t.get_ref()), why)
            })?;
            trusted.push(net);
        }
        let proxy = match &raw.proxy_header {
            None => None,
            Some(h) => {
                let header = axum::http::HeaderName::from_bytes(h.get_ref().trim().as_bytes()).map_err(|_| {
                    self.invalid(
                        h.span(),
                        None,
                        "auth.proxy_header",
                        &format!("{:?}", h.get_ref()),
                        "not an HTTP header name",
                    )
                })?;
                if trusted.is_empty() {
                    let why =
                        "needs trusted_proxies: the addresses of the proxies allowed to set it (anyone else could)";
                    return Err(self.invalid(h.span(), None, "auth.proxy_header", &format!("{:?}", h.get_ref()), why));
                }
                Some(ProxyConfig { header, trusted: trusted.clone(), admins: raw.proxy_admins.clone() })
            }
        };
        if users_file.is_none() && proxy.is_none() {
            let why = "says nothing: set users_file (accounts and tokens) or proxy_header";
            return Err(self.invalid(spanned.span(), None, "auth", &"{}", why));
        }
        Ok(Some(AuthConfig { users_file, session, proxy, forwarded_by: trusted }))
    }
}
