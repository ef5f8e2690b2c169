//! The jobs list as an SSMS user reads it (issue 26): every job's owner, category and whether
//! it is enabled, as the scheduler records them, and the list filtered by each
//! (`?owner=&category=&enabled=yes|no`), over the whole demo fleet. The page's rows are
//! compared with the JSON API's jobs: a filter must keep exactly the jobs whose value matches,
//! and every link of a filtered page must keep the filter.
use crate::support::web::{self, api, get};
use crate::support::{enc, t};
use serde_json::Value;
use server::demo;
use std::collections::{BTreeMap, BTreeSet};

const NOW: &str = "2026-11-22T12:00:00Z";

/// Which jobs a filter keeps, by the API's job object.
type Keeps = Box<dyn Fn(&Value) -> bool>;

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// Text with tags (and leptos's comment markers) removed, trimmed.
fn text_of(html: &str) -> String {
    unescape(crate::support::web::visible(html).trim())
}

/// What a row shows of a job: owner, category, enabled (the cells' text).
#[derive(Debug, PartialEq, Eq, Clone)]
struct Shown {
    owner: String,
    category: String,
    enabled: String,
}

/// Each job row of a jobs page, by job id, in page order.
fn rows(html: &str) -> Vec<(String, Shown)> {
    let mut out = Vec::new();
    for row in html.split("data-testid=\"job-row\"").skip(1) {
        let row = &row[..row.find("</tr>").unwrap_or(row.len())];
        let head = &row[..row.find('>').unwrap_or(row.len())];
        let id = head.split("data-job-id=\"").nth(1).and_then(|r| r.split('"').next()).expect("a row's job id");
        let cell = |testid: &str| {
            let at = row.find(&format!("data-testid=\"{testid}\"")).unwrap_or_else(|| panic!("{testid} in {row}"));
            let rest = &row[at..];
            let body = &rest[rest.find('>').unwrap() + 1..rest.find("</td>").unwrap()];
            text_of(body)
        };
        out.push((
            unescape(id),
            Shown { owner: cell("job-owner"), category: cell("job-category"), enabled: cell("job-enabled") },
        ));
    }
    out
}

/// What the API says a row should show.
fn expected(job: &Value) -> Shown {
    let category = job["category"].as_str().unwrap();
    Shown {
        owner: job["owner"].as_str().unwrap_or("—").to_owned(),
        category: if category.is_empty() { "—".to_owned() } else { category.to_owned() },
        enabled: if job["enabled"].as_bool().unwrap() { "Yes" } else { "No" }.to_owned(),
    }
}

/// The ids of the page's rows, as a set.
fn ids(html: &str) -> BTreeSet<String> {
    rows(html).into_iter().map(|(id, _)| id).collect()
}

/// The options of the form's select `name` (their values, the empty "any" left out).
fn options(html: &str, name: &str) -> BTreeSet<String> {
    let at = html.find(&format!("name=\"{name}\"")).unwrap_or_else(|| panic!("the {name} select"));
    let select = &html[at..at + html[at..].find("</select>").unwrap()];
    select
        .split("<option value=\"")
        .skip(1)
        .map(|o| unescape(&o[..o.find('"').unwrap()]))
        .filter(|v| !v.is_empty())
        .collect()
}

/// Every `href` of the list's own links (sort headers, show chips, window links, the clear
/// link: each carries a sort; the header's navigation starts a list afresh).
fn list_links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|h| unescape(&h[..h.find('"').unwrap()]))
        .filter(|h| h.starts_with("/jobs?") && h.contains("&sort="))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_jobs_list_shows_owner_category_enabled_and_filters_on_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;

    let mut owners_seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut filters_checked = 0;
    let instances = api(&state, "/api/instances").await;
    for inst in instances["instances"].as_array().unwrap() {
        let name = inst["name"].as_str().unwrap();
        let (status, body) = get(&state, &format!("/api/instances/{}/jobs", enc(name))).await;
        if status != axum::http::StatusCode::OK {
            continue; // the unreachable instance: never read
        }
        let jobs: Value = serde_json::from_str(&body).unwrap();
        let jobs = jobs["jobs"].as_array().unwrap();
        let by_id: BTreeMap<String, &Value> = jobs.iter().map(|j| (j["id"].as_str().unwrap().to_owned(), j)).collect();
        let base = format!("/jobs?instance={}&days=7", enc(name));

        // Unfiltered: every job, each row showing the API's owner, category and enabled.
        let html = get(&state, &base).await.1;
        let all = rows(&html);
        assert_eq!(all.len(), jobs.len(), "{name}: one row per job");
        for (id, shown) in &all {
            let job = by_id.get(id).unwrap_or_else(|| panic!("{name}: row {id} is no job of the API"));
            assert_eq!(*shown, expected(job), "{name}: {id}");
        }
        assert!(!html.contains("data-testid=\"jobs-filtered\""), "{name}: no filter, no 'filtered' line");
        let owners: BTreeSet<String> = jobs.iter().filter_map(|j| j["owner"].as_str().map(str::to_owned)).collect();
        let categories: BTreeSet<String> =
            jobs.iter().map(|j| j["category"].as_str().unwrap().to_owned()).filter(|c| !c.is_empty()).collect();
        // The form lists exactly the values present.
        assert_eq!(options(&html, "owner"), owners, "{name}: the owner select");
        assert_eq!(options(&html, "category"), categories, "{name}: the category select");
        assert_eq!(options(&html, "enabled"), ["no", "yes"].map(String::from).into(), "{name}");
        owners_seen.insert(name.to_owned(), owners.clone());

        // Each filter keeps exactly the jobs whose value matches, says so, and its links keep it.
        let mut filters: Vec<(String, Keeps)> = Vec::new();
        for o in &owners {
            let o2 = o.clone();
            filters.push((format!("&owner={}", enc(o)), Box::new(move |j: &Value| j["owner"].as_str() == Some(&o2))));
        }
        for c in &categories {
            let c2 = c.clone();
            filters.push((format!("&category={}", enc(c)), Box::new(move |j: &Value| j["category"] == c2.as_str())));
        }
        filters.push(("&enabled=yes".into(), Box::new(|j: &Value| j["enabled"] == true)));
        filters.push(("&enabled=no".into(), Box::new(|j: &Value| j["enabled"] == false)));
        // Combined, the filters narrow together.
        if let Some(o) = owners.iter().next() {
            let o2 = o.clone();
            filters.push((
                format!("&owner={}&enabled=yes", enc(o)),
                Box::new(move |j: &Value| j["owner"].as_str() == Some(&o2) && j["enabled"] == true),
            ));
        }
        for (query, keeps) in &filters {
            let html = get(&state, &format!("{base}{query}")).await.1;
            let want: BTreeSet<String> =
                jobs.iter().filter(|j| keeps(j)).map(|j| j["id"].as_str().unwrap().to_owned()).collect();
            assert_eq!(ids(&html), want, "{name}{query}: exactly the matching jobs");
            let line = html
                .split("data-testid=\"jobs-filtered\"")
                .nth(1)
                .unwrap_or_else(|| panic!("{name}{query}: the 'filtered' line"));
            let line = text_of(&line[line.find('>').unwrap() + 1..line.find("</p>").unwrap()]);
            let total = if jobs.len() == 1 { "1 job".to_owned() } else { format!("{} jobs", jobs.len()) };
            assert_eq!(line, format!("filtered: {} of {total} · clear", want.len()), "{name}{query}");
            let links = list_links(&html);
            assert!(links.len() >= 10, "{name}{query}: sort, show and window links: {links:?}");
            let tail = query.trim_start_matches('&');
            // The clear link drops the filters (and keeps the rest); every other keeps them.
            let clear = html.split("data-testid=\"jobs-filter-clear\"").next().unwrap();
            let clear = unescape(&clear[clear.rfind("href=\"").unwrap() + 6..]);
            let clear = &clear[..clear.find('"').unwrap()];
            assert!(
                !clear.contains("owner=") && !clear.contains("category=") && !clear.contains("enabled="),
                "{clear}"
            );
            let cleared = get(&state, clear).await.1;
            assert_eq!(rows(&cleared).len(), jobs.len(), "{name}{query}: clear shows every job again");
            for link in links.iter().filter(|l| l.as_str() != clear) {
                assert!(link.contains(tail), "{name}{query}: the link {link} drops the filter");
            }
            filters_checked += 1;
        }
        // A value no job has (an old link): no row, and the select still shows it chosen.
        let html = get(&state, &format!("{base}&owner=nobody%5Cgone")).await.1;
        assert!(ids(&html).is_empty(), "{name}: an owner nobody is");
        assert!(html.contains("selected") && options(&html, "owner").contains("nobody\\gone"), "{name}");
    }

    // The owners as each scheduler records them.
    let prod = &owners_seen[demo::INSTANCE];
    for o in ["sa", "CORP\\etl_admin", "CORP\\svc_reports", "CORP\\svc_sqlagent", "##MS_SSISServerCleanupJobLogin##"] {
        assert!(prod.contains(o), "SQLPROD01's owners: {prod:?}");
    }
    assert!(owners_seen[demo::PG_CRON_INSTANCE].contains("postgres"), "pg_cron: cron.job.username");
    assert!(owners_seen[demo::EVENTS_INSTANCE].contains("shop_admin@%"), "events: DEFINER");
    assert!(owners_seen[demo::JOB_TABLE_INSTANCE].contains("etl"), "the job table: job_owner");
    assert!(owners_seen[demo::JOBACTIVITY_INSTANCE].is_empty(), "jobactivity records no owner");
    assert!(filters_checked >= 30, "{filters_checked} filters checked");
}

/// The count beside a show chip (`data-show="problems"` …) and the chip's words.
fn chip(html: &str, key: &str) -> (String, usize) {
    let at = html.find(&format!("data-show=\"{key}\"")).unwrap_or_else(|| panic!("the {key} chip"));
    let rest = &html[at..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</a>").unwrap()];
    let n = body.split("class=\"filter-count\">").nth(1).expect("a count");
    let n = n[..n.find('<').unwrap()].trim().parse().expect("a number");
    (text_of(&body[..body.find("<span class=\"filter-count\"").unwrap()]), n)
}

/// "Any problem" means what it counts: every job another chip counts (failing now, with
/// failures, with missed runs) is one of its jobs, on every instance of the demo and over a
/// day and a week. (It once read "Any problem 0" beside "With failures 1".)
#[tokio::test(flavor = "multi_thread")]
async fn any_problem_holds_every_job_the_other_chips_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let instances = api(&state, "/api/instances").await;
    let mut failures_outside_problems = 0;
    for inst in instances["instances"].as_array().unwrap() {
        let name = inst["name"].as_str().unwrap();
        for days in [1, 7] {
            let base = format!("/jobs?instance={}&days={days}", enc(name));
            let (status, html) = get(&state, &base).await;
            if status != axum::http::StatusCode::OK || !html.contains("data-show=\"problems\"") {
                continue;
            }
            let (words, problems) = chip(&html, "problems");
            assert_eq!(words, "Any problem", "{name}");
            let kept = ids(&get(&state, &format!("{base}&show=problems")).await.1);
            assert_eq!(kept.len(), problems, "{name} {days}d: the chip counts the rows it shows");
            for key in ["failing", "failures", "missed"] {
                let (words, n) = chip(&html, key);
                assert!(n <= problems, "{name} {days}d: \"Any problem {problems}\" beside \"{words} {n}\"");
                let these = ids(&get(&state, &format!("{base}&show={key}")).await.1);
                assert!(these.is_subset(&kept), "{name} {days}d: {words}: {these:?} not all in {kept:?}");
                if key == "failures" {
                    failures_outside_problems += these.iter().filter(|j| !kept.contains(*j)).count();
                }
            }
        }
    }
    assert_eq!(failures_outside_problems, 0);
}
