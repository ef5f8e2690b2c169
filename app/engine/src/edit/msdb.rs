//! The schedule description msdb itself writes: `msdb.dbo.sp_get_schedule_description`, as
//! `sp_help_jobschedule` and `sp_help_schedule` show it in their `schedule_description`
//! column.
//!
//! # The procedure, as reproduced here
//!
//! From msdb's procedure text (the `instmsdb.sql` definition, as scripted out of msdb in
//! public dumps of its system procedures), and the message texts of sys.messages 14205,
//! 14578 and 14579 (Microsoft's "Database engine events and errors 14000 to 14999"):
//!
//! - **1 (once)**: `Once on <active_start_date> at <active_start_time>`, both printed as the
//!   raw integers (`Once on 20260301 at 83000`).
//! - **4 (daily)**: `Every day ` — whatever `freq_interval` says (an every-3-days schedule is
//!   still "Every day").
//! - **8 (weekly)**: `Every <freq_recurrence_factor> week(s) on ` and the days of the
//!   `freq_interval` bitmap, Sunday first, joined with `, ` (`DATENAME(dw, '1996120' + n)`, in
//!   us_english). No day: `Every 1 week(s) on ` followed directly by the time part.
//! - **16 (monthly)**: `Every <factor> months(s) on day <freq_interval> of that month ` —
//!   msdb's own typo "months(s)".
//! - **32 (monthly relative)**: `Every <factor> months(s) on the <first|second|third|fourth|last>
//!   <Sunday…Saturday|day|week day|weekend day> of that month ` ("week day" with a space). A
//!   `freq_relative_interval` or `freq_interval` outside these values makes the text NULL.
//! - **64**: message 14579, `Automatically starts when SQLServerAgent starts.`
//! - **128**: message 14578, `Starts whenever the CPU usage has remained below <percent>
//!   percent for <seconds> seconds.`, with the Agent's `IdleCPUPercent` / `IdleCPUDuration`
//!   registry values (10 and 600 when unset, the procedure's defaults; see
//!   [`msdb_description_idle`]).
//! - **Time part** (types 4, 8, 16, 32): `freq_subday_type` 1: `at <active_start_time>`; 2, 4,
//!   8: `every <n> second(s)` / `minute(s)` / `hour(s)` and ` between <active_start_time> and
//!   <active_end_time>` — raw integers again (`between 0 and 235959`). Any other subday type
//!   (0 included) makes the text NULL.
//! - Any other `freq_type` leaves the text NULL.
//!
//! `sp_help_jobschedule` then stores `ISNULL(LTRIM(RTRIM(@schedule_description)),
//! FORMATMESSAGE(14205))`: blanks trimmed, and NULL shown as message 14205, `(unknown)`. The
//! output parameter is `NVARCHAR(255)`; longer text is cut there (no row reaches that length).
//!
//! Not reproduced: on Azure SQL Managed Instance (`EngineEdition` 8) type 128 prints message
//! 41914 about ONIDLE not being supported, whose text was not found; and a server whose
//! session language is not us_english prints the weekday names in that language.
//! `sp_help_jobschedule` keeps its variable between rows, so on an instance a row whose text
//! is NULL *before any other row* shows `(unknown)`, but after another row could show that
//! row's text; Sundial always shows `(unknown)`.
use super::super::AgentSchedule;

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// The Agent's default `IdleCPUPercent` and `IdleCPUDuration` (seconds).
const IDLE_DEFAULT: (i64, i64) = (10, 600);

/// What `sp_help_jobschedule` prints as `schedule_description` for this row, e.g.
/// `Every 2 week(s) on Monday, Friday at 83000`. Type 128 (CPU idle) uses the Agent's default
/// idle settings (10 percent, 600 seconds).
pub fn msdb_description(s: &AgentSchedule) -> String {
    msdb_description_idle(s, IDLE_DEFAULT.0, IDLE_DEFAULT.1)
}

/// [`msdb_description`] with the Agent's `IdleCPUPercent` and `IdleCPUDuration` (seconds), which
/// msdb reads from the registry for type 128.
pub fn msdb_description_idle(s: &AgentSchedule, idle_cpu_percent: i64, idle_cpu_duration: i64) -> String {
    let text = raw(s, idle_cpu_percent, idle_cpu_duration);
    match text {
        // RTRIM/LTRIM trim spaces only.
        Some(t) => t.trim_matches(' ').chars().take(255).collect(),
        None => "(unknown)".to_owned(),
    }
}

/// `@schedule_description` as the procedure leaves it; `None` = NULL.
fn raw(s: &AgentSchedule, idle_percent: i64, idle_seconds: i64) -> Option<String> {
    let factor = s.freq_recurrence_factor;
    let days = match s.freq_type {
        0x1 => {
            return Some(format!("Once on {} at {}", s.active_start_date, s.active_start_time));
        }
        0x40 => return Some("Automatically starts when SQLServerAgent starts.".to_owned()),
        0x80 => {
            return Some(format!(
                "Starts whenever the CPU usage has remained below {idle_percent} percent for {idle_seconds} seconds."
            ));
        }
        0x4 => "Every day ".to_owned(),
        0x8 => {
            let mut d = format!("Every {factor} week(s) on ");
            for (bit, name) in DAYS.iter().enumerate() {
                let p = 1i64 << bit;
                if s.freq_interval & p == p {
                    d.push_str(name);
                    d.push_str(", ");
                }
            }
            if let Some(cut) = d.strip_suffix(", ") {
                d = format!("{cut} ");
            }
            d
        }
        0x10 => format!("Every {factor} months(s) on day {} of that month ", s.freq_interval),
        0x20 => {
            let nth = match s.freq_relative_interval {
                0x01 => "first ",
                0x02 => "second ",
                0x04 => "third ",
                0x08 => "fourth ",
                0x10 => "last ",
                _ => return None,
            };
            let what = match s.freq_interval {
                1..=7 => DAYS[s.freq_interval as usize - 1],
                8 => "day",
                9 => "week day",
                10 => "weekend day",
                _ => return None,
            };
            format!("Every {factor} months(s) on the {nth}{what} of that month ")
        }
        _ => return None,
    };
    let n = s.freq_subday_interval;
    let time = match s.freq_subday_type {
        0x1 => return Some(format!("{days}at {}", s.active_start_time)),
        0x2 => format!("every {n} second(s)"),
        0x4 => format!("every {n} minute(s)"),
        0x8 => format!("every {n} hour(s)"),
        _ => return None,
    };
    Some(format!("{days}{time} between {} and {}", s.active_start_time, s.active_end_time))
}
