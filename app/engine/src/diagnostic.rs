//! What was wrong with the input, said so a DBA can find it.
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Severity {
    /// Worth knowing; the forecast is complete (e.g. "runs when the Agent starts: no forecast").
    Info,
    /// Suspicious; the forecast is made with a stated assumption.
    Warning,
    /// The schedule cannot be forecast as written; no occurrences come from it.
    Error,
}

/// What a diagnostic tells beyond its words, for whoever acts on it (triage): typed, so
/// that nobody recognises a finding by a field's name or a message's first words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finding {
    /// The source says its scheduler is off (MySQL's `event_scheduler`, pgAgent's agents gone):
    /// nothing runs until it is back.
    SchedulerStopped,
    /// The scheduler's own next run is not Sundial's forecast (`triage::next_run_disagrees`).
    NextRunDisagrees,
}

/// One finding about the input, naming the field and its value where there is one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The column or field at fault, e.g. `freq_subday_interval`.
    pub field: Option<String>,
    /// The offending value as written in the source.
    pub value: Option<String>,
    /// What is wrong, in plain words.
    pub message: String,
    /// What it tells triage, when it tells more than words ([`Finding`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
}

impl Diagnostic {
    pub fn error(field: &str, value: impl fmt::Display, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, Some(field), Some(value.to_string()), message)
    }
    pub fn warning(field: &str, value: impl fmt::Display, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, Some(field), Some(value.to_string()), message)
    }
    pub fn info(message: impl Into<String>) -> Self {
        Self::new(Severity::Info, None, None, message)
    }
    pub fn new(severity: Severity, field: Option<&str>, value: Option<String>, message: impl Into<String>) -> Self {
        Diagnostic { severity, field: field.map(str::to_owned), value, message: message.into(), finding: None }
    }

    /// The same, telling `finding`.
    pub fn telling(self, finding: Finding) -> Self {
        Diagnostic { finding: Some(finding), ..self }
    }

    /// Whether it tells `finding`.
    pub fn tells(&self, finding: Finding) -> bool {
        self.finding == Some(finding)
    }
}

/// `freq_subday_interval = 5: seconds interval must be at least 10`
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.field, &self.value) {
            (Some(field), Some(value)) => write!(f, "{field} = {value}: {}", self.message),
            (Some(field), None) => write!(f, "{field}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}
