//! Instants as the reconciliation and replay cases write them: relative to the case's date
//! ("02:00", "+1d 02:00:30", "-2d 23:00") or RFC 3339, and ranges "A..B/STEP".
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use sundial_engine::Window;

/// The case's date (default 2024-01-01, UTC midnight) that relative instants count from.
pub struct Clock {
    date: NaiveDate,
}

impl Clock {
    pub fn new(date: &Option<String>) -> Result<Self, String> {
        let text = date.as_deref().unwrap_or("2024-01-01");
        let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|e| format!("date {text:?}: {e}"))?;
        Ok(Clock { date })
    }

    pub fn midnight(&self) -> DateTime<Utc> {
        self.date.and_time(NaiveTime::MIN).and_utc()
    }

    /// "HH:MM[:SS]", "+Nd HH:MM[:SS]", "-Nd …" (relative to the date) or RFC 3339.
    pub fn at(&self, text: &str) -> Result<DateTime<Utc>, String> {
        if text.contains('T') {
            return DateTime::parse_from_rfc3339(text)
                .map(|t| t.to_utc())
                .map_err(|e| format!("instant {text:?}: {e}"));
        }
        let (days, time) = match text.split_once(' ') {
            Some((d, t)) => {
                let n: i64 = d
                    .strip_suffix('d')
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| format!("instant {text:?}: day offset must look like +1d"))?;
                (n, t)
            }
            None => (0, text),
        };
        let time = NaiveTime::parse_from_str(time, "%H:%M:%S")
            .or_else(|_| NaiveTime::parse_from_str(time, "%H:%M"))
            .map_err(|e| format!("instant {text:?}: {e}"))?;
        Ok(self.date.and_time(time).and_utc() + Duration::days(days))
    }

    /// A list of instants and "A..B/STEP" ranges.
    pub fn list(&self, items: &[String]) -> Result<Vec<DateTime<Utc>>, String> {
        let mut out = Vec::new();
        for item in items {
            let Some((a, rest)) = item.split_once("..") else {
                out.push(self.at(item)?);
                continue;
            };
            let (b, step) = rest.rsplit_once('/').ok_or_else(|| format!("range {item:?}: no /STEP"))?;
            let (n, unit) = step.split_at(step.len().saturating_sub(1));
            let n: i64 = n.parse().map_err(|e| format!("range {item:?}: step {step:?}: {e}"))?;
            let step = match unit {
                "s" => Duration::seconds(n),
                "m" => Duration::minutes(n),
                "h" => Duration::hours(n),
                "d" => Duration::days(n),
                _ => return Err(format!("range {item:?}: step unit must be s, m, h or d")),
            };
            if step <= Duration::zero() {
                return Err(format!("range {item:?}: step must be positive"));
            }
            let (mut t, end) = (self.at(a)?, self.at(b)?);
            while t < end {
                out.push(t);
                t += step;
            }
        }
        Ok(out)
    }

    /// The case's window, or `default_days` from the date's midnight.
    pub fn window(&self, w: &Option<[String; 2]>, default_days: i64) -> Result<Window, String> {
        match w {
            Some([a, b]) => Ok(Window::new(self.at(a)?, self.at(b)?)),
            None => Ok(Window::new(self.midnight(), self.midnight() + Duration::days(default_days))),
        }
    }

    /// An instant as the cases write it: "HH:MM:SS", "+1d HH:MM:SS" (relative to the date).
    pub fn render(&self, t: DateTime<Utc>) -> String {
        self.relative(t, t.format("%H:%M:%S").to_string())
    }

    /// As [`Clock::render`], without the seconds when they are 0 ("02:00", "+1d 02:00:30").
    pub fn render_short(&self, t: DateTime<Utc>) -> String {
        let time = if t.format("%S").to_string() == "00" { t.format("%H:%M") } else { t.format("%H:%M:%S") };
        self.relative(t, time.to_string())
    }

    fn relative(&self, t: DateTime<Utc>, time: String) -> String {
        let days = (t.date_naive() - self.date).num_days();
        if days == 0 { time } else { format!("{days:+}d {time}") }
    }
}
