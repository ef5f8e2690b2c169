//! A sentence with instants in it: triage's evidence, told as pieces of text and instants, so
//! that each page shows every instant in the zone its reader chose (with the zone beside it),
//! while alerts, logs and the JSON API read the same sentence as plain text in UTC
//! ([`Sentence::utc_text`]).
//!
//! Wall-clock times a source gives (Service Broker's `NextRunOn`, msdb's `next_run_date`) are
//! made instants through the instance's zone before they reach a sentence: a sentence holds
//! no time without its zone.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One piece of a [`Sentence`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    /// Words (and text quoted from a source), shown as they are.
    Text(String),
    /// An instant, shown in the reader's zone.
    At(DateTime<Utc>),
}

/// Text and instants, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Sentence(pub Vec<Piece>);

/// How [`Sentence::utc_text`] writes an instant: `2026-11-22 05:40 UTC`.
pub fn utc(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

impl Sentence {
    pub fn new() -> Self {
        Sentence(Vec::new())
    }

    /// Words after what is there (joined to the words before them).
    pub fn text(mut self, s: impl AsRef<str>) -> Self {
        self.push_text(s);
        self
    }

    /// An instant after what is there.
    pub fn at(mut self, t: DateTime<Utc>) -> Self {
        self.0.push(Piece::At(t));
        self
    }

    /// Another sentence after this one.
    pub fn then(mut self, other: Sentence) -> Self {
        for p in other.0 {
            match p {
                Piece::Text(s) => self.push_text(s),
                at => self.0.push(at),
            }
        }
        self
    }

    pub fn push_text(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if s.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Piece::Text(t)) => t.push_str(s),
            _ => self.0.push(Piece::Text(s.to_owned())),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The instants it holds, in order.
    pub fn instants(&self) -> impl Iterator<Item = DateTime<Utc>> + '_ {
        self.0.iter().filter_map(|p| match p {
            Piece::At(t) => Some(*t),
            Piece::Text(_) => None,
        })
    }

    /// Plain text, every instant in UTC with the word `UTC` after it ([`utc`]): what the JSON
    /// API's `evidence`, the alerts and the logs say.
    pub fn utc_text(&self) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Piece::Text(s) => out.push_str(s),
                Piece::At(t) => out.push_str(&utc(*t)),
            }
        }
        out
    }
}

/// How Sundial writes an instant into plain text it keeps (a log line's words, a finding's
/// message): `2026-11-23 07:00:00 UTC`, read back by [`Sentence::told`].
pub const TOLD: &str = "%Y-%m-%d %H:%M:%S UTC";
const TOLD_LEN: usize = "2026-11-23 07:00:00 UTC".len();

impl Sentence {
    /// A message with times written as [`TOLD`] (Sundial's own words, or a source's that name
    /// UTC), as a sentence: each such time the instant it names, so that pages show it in
    /// their reader's zone like every other instant of the line.
    pub fn told(message: &str) -> Sentence {
        let mut out = Sentence::new();
        let mut rest = message;
        while !rest.is_empty() {
            let found = rest.char_indices().filter(|(_, c)| c.is_ascii_digit()).find_map(|(i, _)| {
                let candidate = rest.get(i..i + TOLD_LEN)?;
                let t = chrono::NaiveDateTime::parse_from_str(candidate, TOLD).ok()?;
                Some((i, t.and_utc()))
            });
            match found {
                Some((i, t)) => {
                    out = out.text(&rest[..i]).at(t);
                    rest = &rest[i + TOLD_LEN..];
                }
                None => {
                    out = out.text(rest);
                    rest = "";
                }
            }
        }
        out
    }
}

impl From<&str> for Sentence {
    fn from(s: &str) -> Self {
        Sentence::new().text(s)
    }
}

impl From<String> for Sentence {
    fn from(s: String) -> Self {
        Sentence::new().text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_joins_and_instants_read_in_utc_with_their_zone() {
        let t = DateTime::parse_from_rfc3339("2026-11-22T00:40:00-05:00").unwrap().to_utc();
        let s = Sentence::new().text("no job since ").text("").at(t).text(" (6 h)").then(Sentence::from("; more"));
        assert_eq!(s.0.len(), 3, "{s:?}");
        assert_eq!(s.utc_text(), "no job since 2026-11-22 05:40 UTC (6 h); more");
        assert_eq!(s.instants().collect::<Vec<_>>(), vec![t]);
    }
}
