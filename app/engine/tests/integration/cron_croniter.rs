//! Cross-check against an implementation nobody here wrote: Sundial's pg_cron forecasts
//! against croniter (PyPI, installed into `.venv` by `.ci/install-deps`) on generated expressions, 20 next
//! runs each, all in UTC.
//!
//! The generator stays inside the semantics both share:
//! - a `*/n` step in a day field only when the *other* day field is `*`: pg_cron (like Vixie
//!   cron) treats a field that starts with `*` as unrestricted for the day-of-month /
//!   day-of-week OR rule, croniter treats only a bare `*` so; that difference is pinned by a
//!   data case in `cases/cron/` instead;
//! - no `$`, `'N seconds'` or seconds fields (pg_cron extensions croniter reads differently);
//! - day of week 0-6 (both also accept 7 for Sunday; pinned by a data case);
//! - no one-value ranges like `12-12` or `17-17/4`: croniter 6 reads them as the whole field
//!   (`0 0 * 12-12 *` fires in November), Vixie cron and pg_cron as the one value; Sundial's
//!   reading is pinned by data cases in `cases/cron/vixie.toml`.
use chrono::{NaiveDate, NaiveDateTime, TimeZone, Utc};
use std::io::Write;
use std::process::{Command, Stdio};
use sundial_engine::{self as engine, Schedule, cron::CronSchedule};

const EXPRESSIONS: usize = 520;
const RUNS: usize = 20;

/// A small deterministic generator (LCG); no dependency, same expressions every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

const MONTHS: [&str; 12] = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// One field over `lo..=hi`; `allow_star_step` false keeps `*/n` out (day fields, see above).
fn field(r: &mut Lcg, lo: u64, hi: u64, names: Option<&[&str]>, allow_star_step: bool, star_weight: u64) -> String {
    let name = |r: &mut Lcg, v: u64| match names {
        Some(n) if r.below(3) == 0 => n[(v - lo) as usize].to_string(),
        _ => v.to_string(),
    };
    match r.below(6 + star_weight) {
        0 => {
            let v = r.range(lo, hi);
            name(r, v)
        }
        1 => {
            let k = r.range(2, 4);
            let mut vs: Vec<u64> = (0..k).map(|_| r.range(lo, hi)).collect();
            vs.sort_unstable();
            vs.dedup();
            vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
        }
        2 => {
            let a = r.range(lo, hi - 1);
            let b = r.range(a + 1, hi);
            format!("{}-{}", name(r, a), name(r, b))
        }
        3 => {
            let a = r.range(lo, hi - 1);
            let b = r.range(a + 1, hi);
            format!("{a}-{b}/{}", r.range(1, 5))
        }
        4 if allow_star_step => format!("*/{}", r.range(2, (hi - lo + 1).min(30))),
        5 => {
            let a = r.range(lo, hi - 1);
            let b = r.range(a + 1, hi);
            format!("{},{a}-{b}", r.range(lo, hi))
        }
        _ => "*".to_string(),
    }
}

fn expression(r: &mut Lcg) -> String {
    if r.below(25) == 0 {
        return ["@hourly", "@daily", "@weekly", "@monthly", "@yearly"][r.below(5) as usize].to_string();
    }
    let minute = field(r, 0, 59, None, true, 0);
    let hour = field(r, 0, 23, None, true, 2);
    let month = field(r, 1, 12, Some(&MONTHS), true, 4);
    let (dom, dow) = match r.below(4) {
        // Both restricted: Vixie's OR.
        0 => (field(r, 1, 31, None, false, 0), field(r, 0, 6, Some(&DAYS), false, 0)),
        1 => (field(r, 1, 31, None, true, 0), "*".to_string()),
        2 => ("*".to_string(), field(r, 0, 6, Some(&DAYS), true, 0)),
        _ => ("*".to_string(), "*".to_string()),
    };
    format!("{minute} {hour} {dom} {month} {dow}")
}

fn start(r: &mut Lcg) -> NaiveDateTime {
    // Spread over 2023..2029 (leap years 2024 and 2028), landing on month ends often.
    let year = r.range(2023, 2029) as i32;
    let month = r.range(1, 12) as u32;
    let day = if r.below(3) == 0 { 28 + r.range(0, 3) as u32 } else { r.range(1, 28) as u32 };
    let date = NaiveDate::from_ymd_opt(year, month, day)
        .or_else(|| NaiveDate::from_ymd_opt(year, month, 28))
        .expect("day 28 exists");
    date.and_hms_opt(r.below(24) as u32, r.below(60) as u32, r.below(60) as u32).expect("valid time")
}

#[test]
fn sundial_agrees_with_croniter() {
    let mut r = Lcg(0x5EED_2026);
    let cases: Vec<(String, NaiveDateTime)> = (0..EXPRESSIONS).map(|_| (expression(&mut r), start(&mut r))).collect();

    let script = crate::support::file("croniter_next.py");
    // croniter lives in the repository's .venv (`.ci/install-deps`); any python3 with it will do.
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python3");
    let python = if venv.exists() { venv } else { std::path::PathBuf::from("python3") };
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 must be installed: run .ci/install-deps");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for (expr, at) in &cases {
            let req =
                serde_json::json!({"expr": expr, "start": at.format("%Y-%m-%dT%H:%M:%S").to_string(), "count": RUNS});
            writeln!(stdin, "{req}").expect("write to croniter helper");
        }
    }
    let out = child.wait_with_output().expect("croniter helper ran");
    assert!(
        out.status.success(),
        "the croniter helper failed (is croniter installed? run .ci/install-deps): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).expect("utf-8").lines().collect();
    assert_eq!(lines.len(), cases.len(), "one answer per expression");

    let mut mismatches = Vec::new();
    let mut compared = 0usize;
    for ((expr, at), line) in cases.iter().zip(&lines) {
        let theirs: Vec<String> = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) => {
                mismatches.push(format!("{expr:?} from {at}: croniter refused it: {line}"));
                continue;
            }
        };
        let schedule = Schedule::Cron(CronSchedule::new(expr.clone()));
        let f = engine::next_after(1, &schedule, chrono_tz::UTC.into(), Utc.from_utc_datetime(at), RUNS);
        let ours: Vec<String> = f.occurrences.iter().map(|o| o.local.format("%Y-%m-%dT%H:%M:%S").to_string()).collect();
        compared += theirs.len();
        if ours != theirs {
            let i = ours.iter().zip(&theirs).position(|(a, b)| a != b).unwrap_or(ours.len().min(theirs.len()));
            mismatches.push(format!(
                "{expr:?} from {at}: run #{i}: sundial {:?}, croniter {:?} (diagnostics: {:?})",
                ours.get(i),
                theirs.get(i),
                f.diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>()
            ));
        }
    }
    println!(
        "cron cross-check: {} expressions x {RUNS} runs = {compared} instants, {} mismatches",
        cases.len(),
        mismatches.len()
    );
    assert!(cases.len() >= 500 && compared >= 500 * RUNS, "too few compared: {compared}");
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
}
