//! SQL Server Agent schedules: one `msdb.dbo.sysschedules` row, forecast and validated.
//!
//! (Owner: engine-agent. Stub signatures; the implementation fills them.)
use super::{Diagnostic, Forecast, ScheduleId, Window};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

/// One `msdb.dbo.sysschedules` row, as integers exactly as msdb stores them (any value is
/// accepted here; [`validate`] says what is wrong). Absent columns take the defaults of
/// `sp_add_schedule`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentSchedule {
    pub enabled: i64,
    pub freq_type: i64,
    pub freq_interval: i64,
    pub freq_subday_type: i64,
    pub freq_subday_interval: i64,
    pub freq_relative_interval: i64,
    pub freq_recurrence_factor: i64,
    /// yyyymmdd
    pub active_start_date: i64,
    /// yyyymmdd
    pub active_end_date: i64,
    /// hhmmss
    pub active_start_time: i64,
    /// hhmmss
    pub active_end_time: i64,
}

impl Default for AgentSchedule {
    fn default() -> Self {
        AgentSchedule {
            enabled: 1,
            freq_type: 0,
            freq_interval: 0,
            freq_subday_type: 0,
            freq_subday_interval: 0,
            freq_relative_interval: 0,
            freq_recurrence_factor: 0,
            active_start_date: 19900101,
            active_end_date: 99991231,
            active_start_time: 0,
            active_end_time: 235959,
        }
    }
}

/// What `sp_verify_schedule` would refuse, plus what cannot be forecast.
pub fn validate(_s: &AgentSchedule) -> Vec<Diagnostic> {
    Vec::new()
}

/// Every occurrence inside `window`.
pub fn forecast(_id: ScheduleId, _s: &AgentSchedule, _tz: Tz, _window: Window) -> Forecast {
    Forecast::default()
}

/// The first `count` occurrences strictly after `after`.
pub fn next_after(_id: ScheduleId, _s: &AgentSchedule, _tz: Tz, _after: DateTime<Utc>, _count: usize) -> Forecast {
    Forecast::default()
}
