//! English descriptions in the voice SSMS uses.
use super::AgentSchedule;

/// "Occurs every 2 week(s) on Monday at 8:00:00 AM. Schedule will be used starting on 3/3/2008."
pub fn agent(_s: &AgentSchedule) -> String {
    String::new()
}
