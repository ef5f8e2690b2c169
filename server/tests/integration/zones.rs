//! Every time carries its zone, in sentences too (issue 26): over the demo fleet, triage's
//! evidence (the triage page and the fleet page's panel), the jobs list's state and the job
//! page's explanations of missed and skipped runs hold no date-time but as a `<time>` with its
//! zone, and each one follows the zone the reader chose (the `sundial-zone` cookie: the
//! instance's zone, UTC, or the browser's, `sundial-browser-tz`). The fleet-wide log gives
//! every line in one zone: UTC when its instances' zones differ, and says so.
use crate::support::web::{self, api, send};
use crate::support::{enc, t};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use chrono::{DateTime, FixedOffset, Utc};
use scraper::{ElementRef, Html, Selector};
use server::http::AppState;

const NOW: &str = "2026-11-22T12:00:00Z";

/// The reader's choice, as its cookies say it, and the offset a time must be shown at.
#[derive(Clone, Copy, Debug)]
enum Choice {
    Instance,
    Utc,
    Tokyo,
}

impl Choice {
    const ALL: [Choice; 3] = [Choice::Instance, Choice::Utc, Choice::Tokyo];

    fn cookie(self) -> &'static str {
        match self {
            Choice::Instance => "sundial-zone=instance",
            Choice::Utc => "sundial-zone=utc",
            Choice::Tokyo => "sundial-zone=browser; sundial-browser-tz=Asia%2FTokyo",
        }
    }

    /// The offset a time whose `datetime` has the instance's offset `own` is shown at.
    fn offset(self, own: i32) -> i32 {
        match self {
            Choice::Instance => own,
            Choice::Utc => 0,
            Choice::Tokyo => 9 * 3600,
        }
    }
}

/// `UTC`, `UTC−5`, `UTC+9`, `UTC+5:30`, as the pages label an offset.
fn label(off: i32) -> String {
    if off == 0 {
        return "UTC".into();
    }
    let sign = if off < 0 { '\u{2212}' } else { '+' };
    let (h, m) = (off.unsigned_abs() / 3600, off.unsigned_abs() % 3600 / 60);
    if m == 0 { format!("UTC{sign}{h}") } else { format!("UTC{sign}{h}:{m:02}") }
}

async fn page(state: &AppState, uri: &str, choice: Choice) -> String {
    let req = Request::get(uri).header(header::COOKIE, choice.cookie()).body(Body::empty()).unwrap();
    let a = send(state.clone(), req).await;
    assert_eq!(a.status, StatusCode::OK, "{uri}");
    a.text()
}

/// Where a date-time (`2026-11-22 05:40`, `2026-11-22T05:40`) starts in `s`.
fn date_time_at(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let shape = b"dddd-dd-dd dd:dd";
    (0..b.len().saturating_sub(shape.len() - 1)).find(|&i| {
        shape.iter().enumerate().all(|(k, &c)| {
            let x = b[i + k];
            match c {
                b'd' => x.is_ascii_digit(),
                b' ' => x == b' ' || x == b'T',
                c => x == c,
            }
        })
    })
}

/// The text of `el` without its `<time>` elements.
fn bare_text(el: ElementRef) -> String {
    let mut out = String::new();
    for node in el.descendants() {
        let inside_time = node
            .ancestors()
            .take_while(|a| a.id() != el.id())
            .any(|a| a.value().as_element().is_some_and(|e| e.name() == "time"));
        if let Some(text) = node.value().as_text()
            && !inside_time
        {
            out.push_str(text);
        }
    }
    out
}

/// Checks one sentence shown under `choice`: no date-time outside a `<time>`, and each
/// `<time>` shows its instant at the chosen zone's offset, with that zone's label. Returns its
/// instants and its whole text.
fn check_sentence(el: ElementRef, choice: Choice, what: &str) -> (Vec<DateTime<Utc>>, String) {
    let whole: String = el.text().collect();
    let bare = bare_text(el);
    assert!(date_time_at(&bare).is_none(), "{what}: a date-time without its zone, outside a <time>: {whole:?}");
    let time = Selector::parse("time").unwrap();
    let zone = Selector::parse(".tz-off").unwrap();
    let mut instants = Vec::new();
    for t in el.select(&time) {
        let at = DateTime::parse_from_rfc3339(t.value().attr("datetime").unwrap_or_default())
            .unwrap_or_else(|e| panic!("{what}: a <time> without an instant and its offset ({e}): {whole:?}"));
        let off = choice.offset(at.offset().local_minus_utc());
        let shown = at.with_timezone(&FixedOffset::east_opt(off).unwrap()).format("%Y-%m-%d %H:%M:%S").to_string();
        let label_text: String = t.select(&zone).flat_map(|z| z.text()).collect();
        let text: String = t.text().collect();
        assert_eq!(label_text.trim(), label(off), "{what} under {choice:?}: the zone beside {text:?} in {whole:?}");
        assert_eq!(
            text.trim(),
            format!("{shown} {}", label(off)),
            "{what} under {choice:?}: {at} shown at the wrong offset in {whole:?}"
        );
        instants.push(at.to_utc());
    }
    (instants, whole)
}

/// Every sentence `selector` finds on `uri` under every choice: each checked, and the same
/// instants under all three, their text changing with the zone. Returns how many held times.
async fn check_page(state: &AppState, uri: &str, selector: &str) -> usize {
    timed_sentences(state, uri, selector).await.into_iter().filter(|t| *t).count()
}

/// [`check_page`]'s checks; for each sentence in page order, whether it holds a time.
async fn timed_sentences(state: &AppState, uri: &str, selector: &str) -> Vec<bool> {
    let sel = Selector::parse(selector).unwrap();
    let mut seen: Vec<Vec<(Vec<DateTime<Utc>>, String)>> = Vec::new();
    for choice in Choice::ALL {
        let html = Html::parse_document(&page(state, uri, choice).await);
        seen.push(html.select(&sel).map(|el| check_sentence(el, choice, &format!("{uri} {selector}"))).collect());
    }
    let (instance, utc, tokyo) = (&seen[0], &seen[1], &seen[2]);
    assert_eq!(instance.len(), utc.len(), "{uri}: the same sentences in every zone");
    assert_eq!(instance.len(), tokyo.len(), "{uri}: the same sentences in every zone");
    let mut timed = Vec::new();
    for ((i, u), k) in instance.iter().zip(utc).zip(tokyo) {
        assert_eq!((&i.0, &i.0), (&u.0, &k.0), "{uri}: the same instants whatever the zone");
        timed.push(!i.0.is_empty());
        if !i.0.is_empty() {
            assert_ne!(u.1, k.1, "{uri}: a sentence with times reads the same in UTC and in Tokyo: {:?}", u.1);
        }
    }
    timed
}

async fn demo_fleet() -> (tempfile::TempDir, AppState) {
    web::demo_fleet(t(NOW)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn every_time_in_a_sentence_carries_its_zone_and_follows_the_readers_choice() {
    let (_dir, state) = demo_fleet().await;

    // Triage, and the fleet page's panel: every problem's evidence.
    let triage = api(&state, "/api/triage").await;
    let problems = triage["problems"].as_array().unwrap();
    let on_triage = timed_sentences(&state, "/triage", "[data-testid=\"evidence\"]").await;
    let timed = on_triage.iter().filter(|t| **t).count();
    assert!(timed >= 8, "the demo's evidence holds times: {timed} sentences with times");
    // The fleet page's panel: triage's worst problems, as many as the panel holds.
    let on_fleet = timed_sentences(&state, "/fleet", "[data-testid=\"evidence\"]").await;
    let panel = on_triage.len().min(sundial_model::triage::PANEL_ROWS);
    assert_eq!(on_fleet, on_triage[..panel], "the fleet page's panel says what triage says of its first {panel}");
    // A source's wall-clock next run (Service Broker's NextRunOn) is an instant in the sentence.
    let html = Html::parse_document(&page(&state, "/triage", Choice::Instance).await);
    let disagrees = Selector::parse("[data-kind=\"next_run_disagrees\"] [data-testid=\"evidence\"] time").unwrap();
    assert_eq!(html.select(&disagrees).count(), 2, "the scheduler's next run and Sundial's, each a <time>");

    // The job page of every job triage names: its state's words and its explanations.
    let mut notes = 0;
    for p in problems.iter().filter(|p| p["job_id"].is_string()) {
        let (instance, job) = (p["instance"].as_str().unwrap(), p["job_id"].as_str().unwrap());
        for days in [1, 7] {
            let uri = format!("/jobs/{}?days={days}&instance={}", enc(job), enc(instance));
            notes += check_page(&state, &uri, "[data-testid=\"note\"], .collapsed-misses summary").await;
            state_titles(&state, &uri).await;
        }
    }
    // SQLEU01's jobs starved by its zombie Agent: "SQL Agent started no job between … and …".
    for j in api(&state, "/api/instances/SQLEU01/jobs").await["jobs"].as_array().unwrap() {
        let uri = format!("/jobs/{}?days=1&instance=SQLEU01", enc(j["id"].as_str().unwrap()));
        notes += check_page(&state, &uri, "[data-testid=\"note\"], .collapsed-misses summary").await;
    }
    assert!(notes >= 5, "the demo's job pages explain missed and skipped runs with times: {notes}");

    // The jobs lists' state words (a title: text, each time with its zone).
    for i in ["SQLEU01", "SQLPROD01", "pg-analytics", "broker-sched", "job-runner"] {
        state_titles(&state, &format!("/jobs?days=1&instance={i}")).await;
    }
}

/// The state pills' titles of a page: each date-time followed by the chosen zone's label, the
/// same pills under every choice, and a title with times reading otherwise in Tokyo than in UTC.
async fn state_titles(state: &AppState, uri: &str) {
    let sel = Selector::parse("[data-testid=\"job-state\"]").unwrap();
    let mut seen = Vec::new();
    for choice in Choice::ALL {
        let html = Html::parse_document(&page(state, uri, choice).await);
        let titles: Vec<String> =
            html.select(&sel).map(|e| e.value().attr("title").unwrap_or_default().to_owned()).collect();
        for title in &titles {
            let mut rest = title.as_str();
            while let Some(i) = date_time_at(rest) {
                let after = &rest[i + 16..];
                let after = after.strip_prefix(|c: char| c == ':').map_or(after, |a| &a[2..]);
                match choice {
                    Choice::Utc => assert!(after.starts_with(" UTC") && !after.starts_with(" UTC+"), "{uri}: {title}"),
                    Choice::Tokyo => assert!(after.starts_with(" UTC+9"), "{uri} in Tokyo: {title}"),
                    Choice::Instance => assert!(after.starts_with(" UTC"), "{uri}: a time without its zone: {title}"),
                }
                rest = after;
            }
        }
        seen.push(titles);
    }
    assert_eq!(seen[1].len(), seen[2].len(), "{uri}");
    for (u, k) in seen[1].iter().zip(&seen[2]) {
        if date_time_at(u).is_some() {
            assert_ne!(u, k, "{uri}: a state's words with times read the same in UTC and in Tokyo");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fleets_log_gives_every_line_in_one_zone_and_says_which() {
    let (_dir, state) = demo_fleet().await;
    let time = Selector::parse("[data-testid=\"log-line\"] time .tz-off").unwrap();
    let note = Selector::parse("[data-testid=\"log-zone-note\"]").unwrap();
    let labels = |html: &Html| {
        let mut l: Vec<String> = html.select(&time).map(|e| e.text().collect::<String>()).collect();
        l.sort();
        l.dedup();
        l
    };
    // Instances in New York, London, Berlin…: in their own zones, the log is in UTC, and says so.
    let fleet = Html::parse_document(&page(&state, "/log?days=7&limit=2000", Choice::Instance).await);
    assert_eq!(labels(&fleet), vec!["UTC"], "one zone for the fleet's lines");
    let said: String = fleet.select(&note).flat_map(|e| e.text()).collect();
    assert!(said.contains("different zones") && said.contains("UTC"), "{said:?}");
    assert!(said.contains("America/New_York") && said.contains("Europe/Berlin"), "{said:?}");
    // The reader's own choice is one zone already: no note.
    let tokyo = Html::parse_document(&page(&state, "/log?days=7", Choice::Tokyo).await);
    assert_eq!(labels(&tokyo), vec!["UTC+9"]);
    assert_eq!(tokyo.select(&note).count(), 0);
    // One instance: its own zone, no note.
    let one = Html::parse_document(&page(&state, "/log?days=7&instance=SQLPROD01", Choice::Instance).await);
    assert_eq!(labels(&one), vec!["UTC\u{2212}5"]);
    assert_eq!(one.select(&note).count(), 0);

    // The CSV export: the same one zone, every time with its offset.
    let (status, csv) = web::get(&state, "/log.csv?days=7").await;
    assert_eq!(status, StatusCode::OK);
    let offsets = |csv: &str| -> std::collections::BTreeSet<i32> {
        csv::Reader::from_reader(csv.as_bytes())
            .records()
            .map(|r| {
                let t = r.expect("a CSV record")[0].to_owned();
                DateTime::parse_from_rfc3339(&t).unwrap_or_else(|e| panic!("{t}: {e}")).offset().local_minus_utc()
            })
            .collect()
    };
    assert_eq!(offsets(&csv).into_iter().collect::<Vec<_>>(), vec![0], "the fleet's CSV in UTC");
    let (_, csv) = web::get(&state, "/log.csv?days=7&instance=SQLPROD01").await;
    assert_eq!(offsets(&csv).into_iter().collect::<Vec<_>>(), vec![-5 * 3600], "one instance's CSV in its zone");
}
