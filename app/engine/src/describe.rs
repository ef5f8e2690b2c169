//! English descriptions in the voice SSMS uses.
//!
//! Dates print as M/D/YYYY and times as h:mm:ss AM/PM, as SSMS does in its en-US summary.
//! Weekdays of a weekly schedule are listed in msdb's bitmap order (Sunday first). A value that
//! cannot be read is printed as written, with the column name, so even a broken row gets a
//! description (never a panic).
use super::AgentSchedule;
use super::agent::{date_from_int, time_from_int};
use chrono::{Datelike, Timelike};

pub(crate) const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// "Occurs every 2 week(s) on Monday at 8:00:00 AM. Schedule will be used starting on 3/3/2008."
pub fn agent(s: &AgentSchedule) -> String {
    match s.freq_type {
        64 => "Start automatically when SQL Server Agent starts".to_owned(),
        128 => "Start whenever the CPUs become idle".to_owned(),
        1 => format!("Occurs on {} at {}.", date(s.active_start_date), time(s.active_start_time)),
        4 | 8 | 16 | 32 => {
            format!("Occurs {} {}. {}", days(s), times(s), usage(s))
        }
        other => format!("Unknown schedule type (freq_type = {other}) {}. {}", times(s), usage(s)),
    }
}

/// 3/3/2008, or the integer as written when it is no date.
pub fn date(v: i64) -> String {
    match date_from_int(v) {
        Some(d) => format!("{}/{}/{}", d.month(), d.day(), d.year()),
        None => format!("{v} (not a date)"),
    }
}

/// 8:00:00 AM, or the integer as written when it is no time.
pub fn time(v: i64) -> String {
    match time_from_int(v) {
        Some(t) => {
            let (pm, h) = t.hour12();
            format!("{h}:{:02}:{:02} {}", t.minute(), t.second(), if pm { "PM" } else { "AM" })
        }
        None => format!("{v} (not a time)"),
    }
}

/// The recurrence factor as SSMS shows it: 0 is read as 1.
fn every(s: &AgentSchedule) -> i64 {
    if s.freq_recurrence_factor == 0 { 1 } else { s.freq_recurrence_factor }
}

fn days(s: &AgentSchedule) -> String {
    let fi = s.freq_interval;
    match s.freq_type {
        4 if fi == 1 => "every day".to_owned(),
        4 => format!("every {fi} day(s)"),
        8 => {
            let period = match every(s) {
                1 => "every week".to_owned(),
                n => format!("every {n} week(s)"),
            };
            if (1..=127).contains(&fi) {
                let names: Vec<&str> = (0..7).filter(|b| fi & (1 << b) != 0).map(|b| WEEKDAYS[b as usize]).collect();
                format!("{period} on {}", names.join(", "))
            } else {
                format!("{period} on no valid day (freq_interval = {fi})")
            }
        }
        16 => format!("every {} month(s) on day {fi}", every(s)),
        32 => {
            let nth = match s.freq_relative_interval {
                1 => "first".to_owned(),
                2 => "second".to_owned(),
                4 => "third".to_owned(),
                8 => "fourth".to_owned(),
                16 => "last".to_owned(),
                v => format!("(freq_relative_interval = {v})"),
            };
            let what = match fi {
                1..=7 => WEEKDAYS[fi as usize - 1].to_owned(),
                8 => "day".to_owned(),
                9 => "weekday".to_owned(),
                10 => "weekend day".to_owned(),
                v => format!("(freq_interval = {v})"),
            };
            format!("every {} month(s) on the {nth} {what} of that month", every(s))
        }
        _ => String::new(),
    }
}

fn times(s: &AgentSchedule) -> String {
    let n = s.freq_subday_interval;
    let unit = match s.freq_subday_type {
        0 | 1 => return format!("at {}", time(s.active_start_time)),
        2 => "second(s)",
        4 => "minute(s)",
        8 => "hour(s)",
        v => return format!("at {} (freq_subday_type = {v})", time(s.active_start_time)),
    };
    format!("every {n} {unit} between {} and {}", time(s.active_start_time), time(s.active_end_time))
}

fn usage(s: &AgentSchedule) -> String {
    if s.active_end_date == 99991231 {
        format!("Schedule will be used starting on {}.", date(s.active_start_date))
    } else {
        format!("Schedule will be used between {} and {}.", date(s.active_start_date), date(s.active_end_date))
    }
}
