//! The users file: accounts (argon2 password hashes) and API tokens (SHA-256 of the token).
//!
//! ```toml
//! [[user]]
//! name = "alice"
//! role = "admin"                       # admin | viewer
//! password_hash = "$argon2id$v=19$…"   # `sundial hash-password` writes it
//!
//! [[token]]
//! name = "prometheus"                  # what logs and pages call it
//! role = "viewer"
//! sha256 = "9f86d081…"                 # `sundial new-token` writes it (and prints the token once)
//! ```
//!
//! The file holds no secret a reader could use: hashes only. Names are compared ignoring case.
use super::AuthError;
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use sundial_model::Role;
use toml::Spanned;

/// One account.
#[derive(Clone, Debug)]
pub struct User {
    pub name: String,
    pub role: Role,
    /// A PHC string (`$argon2id$…`), checked when the file is read.
    hash: String,
}

/// One API token: its name and role; the token itself is known only by its SHA-256.
#[derive(Clone, Debug)]
pub struct Token {
    pub name: String,
    pub role: Role,
}

/// Every account and token of the users file.
#[derive(Clone, Debug, Default)]
pub struct Accounts {
    /// By lowercased name.
    users: HashMap<String, User>,
    /// By the SHA-256 of the token.
    tokens: HashMap<[u8; 32], Token>,
    /// A hash no password matches, checked for an unknown name so that it takes as long as a
    /// known one.
    decoy: String,
}

/// The decoy hash, made once per process (hashing is slow on purpose; a users file read again
/// needs no new one).
fn decoy() -> Result<String, AuthError> {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if let Some(d) = DECOY.get() {
        return Ok(d.clone());
    }
    let made = hash_password("no password matches this one")?;
    Ok(DECOY.get_or_init(|| made).clone())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    user: Vec<Spanned<RawUser>>,
    #[serde(default)]
    token: Vec<Spanned<RawToken>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUser {
    name: String,
    role: Option<String>,
    password_hash: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToken {
    name: String,
    role: Option<String>,
    sha256: String,
}

fn line_of(text: &str, at: usize) -> usize {
    text.get(..at.min(text.len())).map_or(1, |t| t.matches('\n').count() + 1)
}

/// The SHA-256 of an API token.
pub fn token_digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.trim().as_bytes()).into()
}

/// An argon2id hash (PHC string) of `password`, with a fresh random salt.
pub fn hash_password(password: &str) -> Result<String, AuthError> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|_| AuthError::Random)?;
    let salt = SaltString::encode_b64(&salt).map_err(|_| AuthError::Random)?;
    Argon2::default().hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(|_| AuthError::Random)
}

/// A new API token (`sdl_` and 64 hex digits, 256 random bits) and its SHA-256 in hex.
pub fn new_token() -> Result<(String, String), AuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| AuthError::Random)?;
    let token = format!("sdl_{}", hex::encode(bytes));
    let digest = hex::encode(token_digest(&token));
    Ok((token, digest))
}

impl Accounts {
    /// Read and check the users file: every hash parses, every role is known, no name twice.
    pub fn load(path: &Path) -> Result<Accounts, AuthError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| AuthError::Read { file: file.clone(), source: e })?;
        Accounts::parse(&text, &file)
    }

    /// Check `text`; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Accounts, AuthError> {
        let bad = |line: usize, message: String| AuthError::UsersFile { file: file.to_owned(), line, message };
        let raw: RawFile = toml::from_str(text)
            .map_err(|e| bad(e.span().map_or(1, |s| line_of(text, s.start)), e.message().trim().to_owned()))?;
        let role = |r: &Option<String>, line: usize| match r.as_deref() {
            None => Ok(Role::Viewer),
            Some(s) => {
                Role::parse(s).ok_or_else(|| bad(line, format!("role = {s:?}: must be \"admin\" or \"viewer\"")))
            }
        };
        let mut accounts = Accounts { decoy: decoy()?, ..Accounts::default() };
        for u in &raw.user {
            let line = line_of(text, u.span().start);
            let u = u.get_ref();
            let name = u.name.trim();
            if name.is_empty() {
                return Err(bad(line, "a [[user]] without a name".into()));
            }
            let parsed = PasswordHash::new(u.password_hash.trim()).map_err(|_| {
                bad(
                    line,
                    format!(
                        "user {name:?}: password_hash is not a PHC hash string (make one with `sundial hash-password`)"
                    ),
                )
            })?;
            if !parsed.algorithm.as_str().starts_with("argon2") {
                return Err(bad(
                    line,
                    format!("user {name:?}: password_hash must be argon2 (argon2id), not {}", parsed.algorithm),
                ));
            }
            let user =
                User { name: name.to_owned(), role: role(&u.role, line)?, hash: u.password_hash.trim().to_owned() };
            if accounts.users.insert(name.to_lowercase(), user).is_some() {
                return Err(bad(line, format!("user {name:?} is listed twice")));
            }
        }
        for t in &raw.token {
            let line = line_of(text, t.span().start);
            let t = t.get_ref();
            let name = t.name.trim();
            let digest =
                hex::decode(t.sha256.trim()).ok().and_then(|d| <[u8; 32]>::try_from(d).ok()).ok_or_else(|| {
                    bad(
                        line,
                        format!("token {name:?}: sha256 must be 64 hex digits (make one with `sundial new-token`)"),
                    )
                })?;
            let token = Token { name: name.to_owned(), role: role(&t.role, line)? };
            if accounts.tokens.insert(digest, token).is_some() {
                return Err(bad(line, format!("token {name:?}: the same token is listed twice")));
            }
        }
        if accounts.users.is_empty() && accounts.tokens.is_empty() {
            return Err(bad(1, "no [[user]] and no [[token]]: nobody could sign in".into()));
        }
        Ok(accounts)
    }

    /// How many accounts and tokens there are.
    pub fn counts(&self) -> (usize, usize) {
        (self.users.len(), self.tokens.len())
    }

    /// The account `name` names when `password` is its password. Costs one argon2 check
    /// whether or not the name is known (run it off the async workers).
    pub fn check_password(&self, name: &str, password: &str) -> Option<&User> {
        let user = self.users.get(&name.trim().to_lowercase());
        let hash = user.map_or(self.decoy.as_str(), |u| u.hash.as_str());
        let ok =
            PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok());
        user.filter(|_| ok)
    }

    /// The account `name` names (ignoring case), if the file has it.
    pub fn user(&self, name: &str) -> Option<&User> {
        self.users.get(&name.trim().to_lowercase())
    }

    /// The token's name and role, if it is one of the file's.
    pub fn token(&self, token: &str) -> Option<&Token> {
        self.tokens.get(&token_digest(token))
    }
}
