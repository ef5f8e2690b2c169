//! What the triage page's forms take, bounded on the server: each text field has a most it
//! holds ([`Field::max`]), a required one must not be empty, and a form that breaks either is
//! refused, saying which field and why ([`Refusal`]), never clipped in silence.
//!
//! A refusal travels back to the page as a short code in the URL (`?maint_error=long-reason`),
//! and the page turns the code into Sundial's own sentence ([`Refusal::text`]): text from a
//! request is never echoed as a message.
use serde::{Deserialize, Serialize};

/// A text field of a triage form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// Who acts (without sign-in).
    By,
    /// An acknowledgement's note.
    Note,
    /// A window's name.
    Name,
    /// Why a window is added.
    Reason,
    /// The instance a window covers.
    Instance,
    /// The jobs a window covers, comma-separated.
    Jobs,
    /// When a window starts.
    Start,
    /// The zone of that start.
    Zone,
    /// Why a window is ended.
    Why,
}

impl Field {
    /// Every field, in the order forms show them.
    pub const ALL: [Field; 9] = [
        Field::By,
        Field::Note,
        Field::Name,
        Field::Reason,
        Field::Instance,
        Field::Jobs,
        Field::Start,
        Field::Zone,
        Field::Why,
    ];

    /// Its name in a form (and in a refusal's code).
    pub fn key(self) -> &'static str {
        match self {
            Field::By => "by",
            Field::Note => "note",
            Field::Name => "name",
            Field::Reason => "reason",
            Field::Instance => "instance",
            Field::Jobs => "jobs",
            Field::Start => "start",
            Field::Zone => "zone",
            Field::Why => "why",
        }
    }

    /// What a sentence calls it.
    pub fn words(self) -> &'static str {
        match self {
            Field::By => "who",
            Field::Note => "the note",
            Field::Name => "the name",
            Field::Reason => "the reason",
            Field::Instance => "the instance",
            Field::Jobs => "the list of jobs",
            Field::Start => "the start",
            Field::Zone => "the zone",
            Field::Why => "the reason",
        }
    }

    /// The most characters it holds (the page's `maxlength` says the same).
    pub fn max(self) -> usize {
        match self {
            Field::By => 80,
            Field::Note | Field::Reason | Field::Why => 500,
            Field::Name => 80,
            Field::Instance => 200,
            Field::Jobs => 1000,
            Field::Start => 40,
            Field::Zone => 60,
        }
    }
}

/// At most this many jobs in one window added from the page (more: a window over the instance).
pub const MAX_JOBS: usize = 50;
/// A window added from the page may start this many minutes before now (a form filled in a
/// little late); it starts now then, so no past run changes.
pub const START_TOLERANCE_MINUTES: i64 = 5;
/// A window added from the page starts within this many days (the triage page lists them all).
pub const START_HORIZON_DAYS: i64 = 7;

/// The start the maintenance form offers as an example: tomorrow at 22:00 (UTC, the form's
/// zone by default), counted from the backend's `now` (a fixed "now" gives its tomorrow, never
/// the real clock's): always a start the form takes.
pub fn start_example(now: chrono::DateTime<chrono::Utc>) -> String {
    (now + chrono::TimeDelta::days(1)).format("%Y-%m-%d 22:00").to_string()
}

/// Why a form was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// A required field was empty.
    Missing(Field),
    /// A field held more than [`Field::max`] characters.
    TooLong(Field),
    /// More than [`MAX_JOBS`] jobs.
    TooManyJobs,
    /// A start that cannot be read.
    BadStart,
    /// A start before now (a past window is declared in the fleet file, not added here).
    PastStart,
    /// A start after [`START_HORIZON_DAYS`].
    FarStart,
    /// A length the form does not offer.
    BadLength,
    /// A zone the tz database does not know.
    BadZone,
    /// An instance that is not configured.
    BadInstance,
}

impl Refusal {
    /// The code a page's URL carries.
    pub fn code(self) -> String {
        match self {
            Refusal::Missing(f) => format!("missing-{}", f.key()),
            Refusal::TooLong(f) => format!("long-{}", f.key()),
            Refusal::TooManyJobs => "many-jobs".to_owned(),
            Refusal::BadStart => "start".to_owned(),
            Refusal::PastStart => "past".to_owned(),
            Refusal::FarStart => "far".to_owned(),
            Refusal::BadLength => "length".to_owned(),
            Refusal::BadZone => "zone".to_owned(),
            Refusal::BadInstance => "instance".to_owned(),
        }
    }

    /// The refusal a code names (`None`: not one of Sundial's codes).
    pub fn from_code(code: &str) -> Option<Refusal> {
        let field = |key: &str| Field::ALL.into_iter().find(|f| f.key() == key);
        if let Some(key) = code.strip_prefix("missing-") {
            return field(key).map(Refusal::Missing);
        }
        if let Some(key) = code.strip_prefix("long-") {
            return field(key).map(Refusal::TooLong);
        }
        Some(match code {
            "many-jobs" => Refusal::TooManyJobs,
            "start" => Refusal::BadStart,
            "past" => Refusal::PastStart,
            "far" => Refusal::FarStart,
            "length" => Refusal::BadLength,
            "zone" => Refusal::BadZone,
            "instance" => Refusal::BadInstance,
            _ => return None,
        })
    }

    /// The field at fault, when one is (a length is chosen from a list: none).
    pub fn field(self) -> Option<Field> {
        match self {
            Refusal::Missing(f) | Refusal::TooLong(f) => Some(f),
            Refusal::TooManyJobs => Some(Field::Jobs),
            Refusal::BadStart | Refusal::PastStart | Refusal::FarStart => Some(Field::Start),
            Refusal::BadZone => Some(Field::Zone),
            Refusal::BadInstance => Some(Field::Instance),
            Refusal::BadLength => None,
        }
    }

    /// What the page says (after "Nothing was changed.", say).
    pub fn text(self) -> String {
        match self {
            Refusal::Missing(f) => format!("{} is required.", capital(f.words())),
            Refusal::TooLong(f) => format!("{} is longer than {} characters.", capital(f.words()), f.max()),
            Refusal::TooManyJobs => {
                format!("A window names at most {MAX_JOBS} jobs; over more, choose the instance (all its jobs).")
            }
            Refusal::BadStart => "The start must be a date and a time, YYYY-MM-DD HH:MM (or be empty: now).".to_owned(),
            Refusal::PastStart => format!(
                "A window added here starts now or later (up to {START_TOLERANCE_MINUTES} minutes ago counts as now); \
                 a past one is declared in the fleet file ([[maintenance]]), where it is kept with the file."
            ),
            Refusal::FarStart => {
                format!(
                    "A window added here starts within {START_HORIZON_DAYS} days; a later one, add nearer the time."
                )
            }
            Refusal::BadLength => "The length must be one the form offers (30 minutes to 1 day).".to_owned(),
            Refusal::BadZone => "The zone must be one of the tz database's, like Europe/London or UTC.".to_owned(),
            Refusal::BadInstance => "The instance must be one Sundial reads.".to_owned(),
        }
    }
}

impl From<Refusal> for super::ApiError {
    fn from(r: Refusal) -> Self {
        super::ApiError::Refused { code: r.code(), message: r.text() }
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// `raw` trimmed, when it fits `field` (and is not empty, when `required`).
pub fn take(field: Field, raw: &str, required: bool) -> Result<String, Refusal> {
    let v = raw.trim();
    if required && v.is_empty() {
        return Err(Refusal::Missing(field));
    }
    if v.chars().count() > field.max() {
        return Err(Refusal::TooLong(field));
    }
    Ok(v.to_owned())
}

/// Who a form says acts: [`take`] of [`Field::By`], "someone" when empty.
pub fn who(raw: &str) -> Result<String, Refusal> {
    take(Field::By, raw, false).map(|b| if b.is_empty() { "someone".to_owned() } else { b })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_over_its_bound_or_empty_when_required_is_refused_by_name() {
        assert_eq!(take(Field::Name, "  Patching ", true), Ok("Patching".to_owned()));
        assert_eq!(take(Field::Name, "   ", true), Err(Refusal::Missing(Field::Name)));
        assert_eq!(take(Field::Jobs, "", false), Ok(String::new()));
        assert_eq!(
            take(Field::Name, &"é".repeat(80), true).map(|s| s.chars().count()),
            Ok(80),
            "characters, not bytes"
        );
        assert_eq!(take(Field::Name, &"x".repeat(81), true), Err(Refusal::TooLong(Field::Name)));
        assert_eq!(who(""), Ok("someone".to_owned()));
        assert_eq!(who(&"b".repeat(81)), Err(Refusal::TooLong(Field::By)));
    }

    #[test]
    fn every_refusal_round_trips_through_its_code_and_says_what_to_do() {
        let mut all: Vec<Refusal> =
            Field::ALL.into_iter().flat_map(|f| [Refusal::Missing(f), Refusal::TooLong(f)]).collect();
        all.extend([
            Refusal::TooManyJobs,
            Refusal::BadStart,
            Refusal::PastStart,
            Refusal::FarStart,
            Refusal::BadLength,
            Refusal::BadZone,
            Refusal::BadInstance,
        ]);
        for r in all {
            assert_eq!(Refusal::from_code(&r.code()), Some(r), "{r:?}");
            assert!(r.text().ends_with('.'), "{r:?}");
        }
        assert_eq!(Refusal::TooLong(Field::Reason).text(), "The reason is longer than 500 characters.");
        assert_eq!(Refusal::from_code("<script>"), None);
        assert_eq!(Refusal::from_code("long-password"), None);
    }
}
