//! Who is reading: the principal sign-in gives a request, and its role.
use super::*;

/// Who is reading, when Sundial asks for sign-in (served on loopback without sign-in, there is
/// nobody: every reader may do everything).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Principal {
    /// The account, the token's name, or the user the proxy named.
    pub name: String,
    pub role: Role,
    /// How they signed in (only a session can sign out).
    pub via: SignedInVia,
}

/// What a principal may do: viewers read; admins also acknowledge and silence problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Viewer,
    Admin,
}

impl Role {
    pub fn key(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s.trim() {
            "viewer" => Some(Role::Viewer),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// How a principal signed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignedInVia {
    /// The sign-in page: a session cookie.
    Session,
    /// An API token (`Authorization: Bearer`).
    Token,
    /// A trusted reverse proxy's header.
    Proxy,
}
