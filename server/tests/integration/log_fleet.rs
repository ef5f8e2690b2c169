//! The log across the fleet, request by request: two demo instances in different zones and one
//! that cannot be read, merged newest first on the page (`/log`), in the JSON API
//! (`/api/log`) and in the CSV export (`/log.csv`); filters by instance, job, kind and time
//! range; paging by cursor over the merged stream; counts over the whole filter; bad values
//! named beside their field; each line linking to its job at that moment.
use crate::support::t;
use crate::support::web::{self, api, get, send};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use chrono::{DateTime, Utc};
use server::demo;
use server::http::AppState;
use std::collections::HashSet;

const NOW: &str = "2026-11-22T12:00:00Z";

/// SQLPROD01 (the demo, New York), SQLPROD02 (another demo file read as Berlin's) and GONE
/// (a file that does not exist), served as of [`NOW`].
async fn fleet(dir: &tempfile::TempDir) -> AppState {
    let (one, two) = (dir.path().join("one.sqlite"), dir.path().join("two.sqlite"));
    demo::write_demo(&one, t(NOW), 42).await.expect("the demo is written");
    demo::write_demo(&two, t(NOW), 7).await.expect("the second demo is written");
    let toml = format!(
        "[[instance]]\nname = \"SQLPROD01\"\nkind = \"sqlite_demo\"\npath = {:?}\n\n\
         [[instance]]\nname = \"SQLPROD02\"\nkind = \"sqlite_demo\"\npath = {:?}\ntime_zone = \"Europe/Berlin\"\n\n\
         [[instance]]\nname = \"GONE\"\nkind = \"sqlite_demo\"\npath = {:?}\n",
        one.to_string_lossy(),
        two.to_string_lossy(),
        dir.path().join("missing.sqlite").to_string_lossy(),
    );
    web::fleet_as_of(&toml, t(NOW)).await
}

/// A page's HTML, which must answer `status`.
async fn page(state: &AppState, uri: &str, status: StatusCode) -> String {
    let (s, html) = get(state, uri).await;
    if s != status {
        // What a reader would see, without the page's scripts.
        let body = html.split("<body").nth(1).unwrap_or(&html).split("<script").next().unwrap_or_default();
        let text: String = body.split('<').map(|p| p.split_once('>').map_or(p, |x| x.1)).collect::<Vec<_>>().join(" ");
        panic!("{uri}: {s}, not {status}: {}", text.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    html
}

/// HTML text as a reader sees it (entities decoded).
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The value of the first `name="…"` in `html`.
fn attr(html: &str, name: &str) -> Option<String> {
    let at = html.find(&format!(" {name}=\""))?;
    Some(unescape(html[at + name.len() + 3..].split('"').next()?))
}

fn num(html: &str, name: &str) -> usize {
    attr(html, name).unwrap_or_else(|| panic!("no {name}")).parse().unwrap()
}

/// A line of the page, as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    at: String,
    instance: String,
    job: String,
    job_id: String,
    kind: String,
    count: usize,
    /// The line's text, for a line standing for one event.
    text: Option<String>,
    href: Option<String>,
}

fn rows(html: &str) -> Vec<Row> {
    html.split(r#"data-testid="log-line""#)
        .skip(1)
        .map(|chunk| {
            let tr = chunk.split("</tr>").next().unwrap();
            let link = tr.split(r#"data-testid="log-job-link""#).nth(1);
            let count = num(tr, "data-count");
            let text = tr.split(r#"class="log-text""#).nth(1).map(|c| {
                let inner = c.split_once('>').map(|x| x.1).unwrap_or_default();
                told(&unescape(inner.split("</td>").next().unwrap_or_default().replace("<!>", "").trim()))
            });
            Row {
                at: attr(tr, "datetime").expect("a time"),
                instance: attr(tr, "data-instance").expect("an instance"),
                job: link
                    .map(|l| unescape(l.split_once('>').unwrap().1.split("</a>").next().unwrap()))
                    .unwrap_or_default(),
                job_id: attr(tr, "data-job-id").unwrap_or_default(),
                kind: attr(tr, "data-kind").expect("a kind"),
                count,
                text: text.filter(|_| count == 1),
                href: link.and_then(|_| {
                    let before = tr.split(r#"data-testid="log-job-link""#).next().unwrap();
                    before.rsplit("href=\"").next().map(|h| unescape(h.split('"').next().unwrap()))
                }),
            }
        })
        .collect()
}

/// A line's words as the export keeps them: each `<time>` of the page (in the reader's zone)
/// written as its instant in UTC (`2026-11-15 12:00:00 UTC`).
fn told(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find("<time ") {
        out.push_str(&rest[..i]);
        let tag = &rest[i..];
        let at = attr(tag, "datetime").expect("a <time> with its instant");
        let at = DateTime::parse_from_rfc3339(&at).unwrap_or_else(|e| panic!("{at}: {e}"));
        out.push_str(&at.to_utc().format("%Y-%m-%d %H:%M:%S UTC").to_string());
        rest = &tag[tag.find("</time>").expect("a closed <time>") + "</time>".len()..];
    }
    out.push_str(rest);
    out
}

/// The `href` of the element with `data-testid="{testid}"`.
fn href_of(html: &str, testid: &str) -> Option<String> {
    let at = html.find(&format!(r#"data-testid="{testid}""#))?;
    let tag_start = html[..at].rfind('<')?;
    let tag = &html[tag_start..at + html[at..].find('>')?];
    attr(tag, "href")
}

/// Every line under the filter of `uri`, following the pages' "Older" links.
async fn all_pages(state: &AppState, uri: &str) -> (Vec<Row>, usize) {
    let mut url = uri.to_owned();
    let mut seen = Vec::new();
    let mut total = None;
    for _ in 0..1000 {
        let html = page(state, &url, StatusCode::OK).await;
        let t = num(&html, "data-total");
        assert_eq!(*total.get_or_insert(t), t, "{url}: the total is the filter's, whatever the page");
        assert_eq!(num(&html, "data-from"), seen.len() + 1, "{url}: the page starts where the last ended");
        seen.extend(rows(&html));
        match html.contains(r#"rel="next""#) {
            true => url = href_of(&html, "pager-older").expect("an older link"),
            false => return (seen, total.unwrap_or(0)),
        }
    }
    panic!("paging {uri} does not end");
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s}: {e}")).to_utc()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_log_merges_every_instance_newest_first_and_names_the_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let state = fleet(&dir).await;

    // The page: both instances' lines in one stream, the one that cannot be read named.
    let html = page(&state, "/log?days=1", StatusCode::OK).await;
    let (all, total) = all_pages(&state, "/log?days=1&limit=500").await;
    assert_eq!(all.len(), total, "every line on some page, none twice");
    let instances: HashSet<&str> = all.iter().map(|r| r.instance.as_str()).collect();
    assert_eq!(instances, HashSet::from(["SQLPROD01", "SQLPROD02"]));
    assert!(
        all.windows(2).all(|w| {
            let (a, b) = (at(&w[0].at), at(&w[1].at));
            a > b || (a == b && w[0].instance <= w[1].instance)
        }),
        "newest first, ties by instance"
    );
    let banner = html.split(r#"data-testid="unreachable-banner""#).nth(1).expect("a banner for GONE");
    assert!(banner.starts_with(r#" data-instance="GONE""#), "{banner:.200}");
    assert!(banner.contains("none of its lines is listed"), "{banner:.400}");
    assert_eq!(num(&html, "data-instances"), 2, "lines from the two instances read");
    // Lines sorted by instant read in one zone: the two instances' zones differ, so UTC, and
    // the page says so (each instance's own log keeps its zone).
    let offsets: HashSet<String> = all.iter().map(|r| r.at[r.at.len() - 6..].to_owned()).collect();
    assert_eq!(offsets, HashSet::from(["+00:00".to_owned()]), "{offsets:?}");
    assert!(html.contains(r#"data-testid="log-zone-note""#), "the page says its times are UTC");
    // The merged stream is the instances' streams, line for line.
    let mut one = all_pages(&state, "/log?days=1&limit=500&instance=SQLPROD01").await.0;
    one.extend(all_pages(&state, "/log?days=1&limit=500&instance=SQLPROD02").await.0);
    let key = |r: &Row| (at(&r.at), r.instance.clone(), r.job_id.clone(), r.kind.clone(), r.count);
    let mut merged: Vec<_> = all.iter().map(key).collect();
    let mut separate: Vec<_> = one.iter().map(key).collect();
    merged.sort();
    separate.sort();
    assert_eq!(merged, separate);

    // The JSON API: the same fleet-wide merge, GONE named, never read.
    let v = api(&state, "/api/log?limit=1000").await;
    let events = v["events"].as_array().unwrap();
    let names: HashSet<&str> = events.iter().filter_map(|e| e["instance"].as_str()).collect();
    assert_eq!(names, HashSet::from(["SQLPROD01", "SQLPROD02"]));
    assert!(events.windows(2).all(|w| at(w[0]["at"].as_str().unwrap()) >= at(w[1]["at"].as_str().unwrap())));
    assert_eq!(v["unreachable"][0]["instance"], "GONE", "{}", v["unreachable"]);
    assert_eq!(v["unreachable"][0]["listed"], false);
    let one = api(&state, "/api/log?instance=SQLPROD01&limit=1").await["total"].as_u64().unwrap();
    let two = api(&state, "/api/log?instance=SQLPROD02&limit=1").await["total"].as_u64().unwrap();
    assert_eq!(v["total"].as_u64().unwrap(), one + two, "the fleet's total is its instances'");
    // Asked for by name, an instance never read is an error, as before.
    let (s, body) = get(&state, "/api/log?instance=GONE").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let (s, _) = get(&state, "/log?instance=NOPE").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // The API's document says so.
    let doc = api(&state, "/api/openapi.json").await;
    let params: Vec<&str> = doc["paths"]["/api/log"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(params, ["instance", "job", "kind", "problems", "limit", "cursor", "from", "to", "as_of"]);
    assert!(doc["components"]["schemas"]["Unreachable"].is_object());
}

#[tokio::test(flavor = "multi_thread")]
async fn filters_by_instance_job_kind_and_time_range_counted_over_the_whole_filter() {
    let dir = tempfile::tempdir().unwrap();
    let state = fleet(&dir).await;

    // Instance and kind, paged by cursor: exactly the chip's count, each line of that kind there.
    let html = page(&state, "/log?days=30&instance=SQLPROD01", StatusCode::OK).await;
    let chip =
        html.split(r#"data-kind="failed""#).skip(1).find(|c| c.contains(r#"data-testid="kind-filter""#)).unwrap();
    let failed = num(chip, "data-lines");
    assert!(failed > 3, "the demo fails now and then: {failed}");
    let (rows_, total) = all_pages(&state, "/log?days=30&instance=SQLPROD01&kind=failed&limit=3").await;
    assert_eq!((rows_.len(), total), (failed, failed));
    assert!(rows_.iter().all(|r| r.instance == "SQLPROD01" && r.kind == "failed"), "{rows_:?}");

    // A job by part of its name, in any case, on every instance that has it.
    let part = demo::LONG_RUN_JOB.to_lowercase().replace("etl - ", "");
    let uri = format!("/log?days=1&job={}", sundial_model::links::encode_segment(&part));
    let (rows_, _) = all_pages(&state, &uri).await;
    assert!(!rows_.is_empty());
    assert!(
        rows_.iter().all(|r| r.job == demo::LONG_RUN_JOB),
        "{:?}",
        rows_.iter().map(|r| &r.job).collect::<HashSet<_>>()
    );
    let on: HashSet<&str> = rows_.iter().map(|r| r.instance.as_str()).collect();
    assert_eq!(on.len(), 2, "both demos run it: {on:?}");

    // A time range in the instance's zone (New York: UTC−5), half-open.
    let uri = "/log?days=7&instance=SQLPROD01&from=2026-11-20T00:00&to=2026-11-20T06:00";
    let html = page(&state, uri, StatusCode::OK).await;
    assert!(html.contains("From (America/New_York)"), "the field names its zone");
    let field = html.split(r#"id="log-from""#).nth(1).unwrap().split('>').next().unwrap();
    assert_eq!(attr(field, "value").as_deref(), Some("2026-11-20T00:00"), "the field keeps its value");
    let (rows_, _) = all_pages(&state, uri).await;
    assert!(!rows_.is_empty());
    let (from, to) = (t("2026-11-20T05:00:00Z"), t("2026-11-20T11:00:00Z"));
    assert!(rows_.iter().all(|r| at(&r.at) >= from && at(&r.at) < to), "{:?}", rows_.first());
    // Across instances of two zones, the fields are UTC, and say so.
    let html = page(&state, "/log?from=2026-11-20T00:00&to=2026-11-20T01:00", StatusCode::OK).await;
    assert!(html.contains("From (UTC)"), "mixed zones: the fields are UTC");
    let got = rows(&html);
    assert!(
        !got.is_empty()
            && got.iter().all(|r| {
                let a = at(&r.at);
                a >= t("2026-11-20T00:00:00Z") && a < t("2026-11-20T01:00:00Z")
            })
    );
    // A range reaches back over the whole read (30 days), whatever the window.
    let html = page(&state, "/log?days=1&instance=SQLPROD01&from=2026-11-01&to=2026-11-02", StatusCode::OK).await;
    assert!(!rows(&html).is_empty(), "three weeks back");

    // Problems only, with the other filters kept.
    let (rows_, _) = all_pages(&state, "/log?days=7&problems=1&instance=SQLPROD02").await;
    assert!(!rows_.is_empty() && rows_.iter().all(|r| !["started", "succeeded", "running"].contains(&r.kind.as_str())));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_value_is_named_beside_its_field_never_a_failed_page() {
    let dir = tempfile::tempdir().unwrap();
    let state = fleet(&dir).await;
    let cases = [
        ("/log?from=yesterday", "from", "\"yesterday\""),
        ("/log?from=2026-11-20T10:00&to=2026-11-20T09:00", "to", "must be after from"),
        ("/log?instance=SQLPROD01&to=2026-03-08T02:30", "to", "does not exist in America/New_York"),
        ("/log?kind=explosion", "kind", "\"explosion\""),
        ("/log?limit=0", "limit", "\"0\""),
        ("/log?cursor=garbage", "cursor", "cursor must look like"),
    ];
    for (uri, field, words) in cases {
        let html = page(&state, uri, StatusCode::BAD_REQUEST).await;
        assert!(html.contains(r#"data-testid="log-filter""#), "{uri}: the form stays, to fix it");
        let err = html
            .split(r#"data-testid="field-error""#)
            .skip(1)
            .find(|e| e.starts_with(&format!(r#" data-field="{field}""#)))
            .unwrap_or_else(|| panic!("{uri}: no message for {field}"));
        let text = unescape(err.split_once('>').unwrap().1.split("</p>").next().unwrap());
        assert!(text.contains(field) && text.contains(words), "{uri}: {text}");
        assert!(!html.contains(r#"data-testid="log-line""#), "{uri}: no line until it is fixed");
    }
    // The export says the same, as the API does.
    let (s, body) = get(&state, "/log.csv?from=yesterday").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(body.contains("from must be") && body.contains("yesterday"), "{body}");
    let (s, body) = get(&state, "/api/log?problems=maybe").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(body.contains("problems") && body.contains("maybe"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_csv_holds_exactly_the_filtered_rows_and_each_row_links_its_job_at_that_moment() {
    let dir = tempfile::tempdir().unwrap();
    let state = fleet(&dir).await;
    // Problems across the fleet over a range: several pages of the page, one CSV.
    let uri = "/log?days=30&problems=1&from=2026-11-10T00:00&to=2026-11-22T00:00&limit=40";
    let (shown, total) = all_pages(&state, uri).await;
    assert!(total > 80, "several pages: {total}");
    let html = page(&state, uri, StatusCode::OK).await;
    let csv_href = href_of(&html, "csv-link").expect("a CSV link");
    assert!(
        csv_href.starts_with("/log.csv?") && !csv_href.contains("limit=") && !csv_href.contains("cursor="),
        "{csv_href}"
    );
    let a = send(state.clone(), Request::get(&csv_href).body(Body::empty()).unwrap()).await;
    assert_eq!(a.status, StatusCode::OK, "{csv_href}: {}", a.text());
    assert!(a.headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/csv"));
    let disposition = a.headers[header::CONTENT_DISPOSITION].to_str().unwrap();
    assert!(disposition.starts_with("attachment;") && disposition.contains(".csv"), "{disposition}");
    let mut reader = csv::Reader::from_reader(&a.body[..]);
    assert_eq!(
        reader.headers().unwrap(),
        &csv::StringRecord::from(vec!["time", "instance", "job", "kind", "text", "count"])
    );
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a CSV record")).collect();
    assert_eq!(records.len(), shown.len(), "every page of the filter, no more");
    for (r, row) in records.iter().zip(&shown) {
        assert_eq!(&r[0], row.at, "RFC 3339 with the offset");
        assert!(DateTime::parse_from_rfc3339(&r[0]).is_ok());
        assert_eq!((&r[1], &r[2], &r[3]), (row.instance.as_str(), row.job.as_str(), row.kind.as_str()));
        assert_eq!(r[5].parse::<usize>().unwrap(), row.count);
        if let Some(text) = &row.text {
            assert_eq!(&r[4], text);
        }
    }
    assert!(records.iter().any(|r| &r[5] != "1"), "a collapsed run of misses counts each");

    // The whole fleet's month is written as it is sent, a piece at a time, never whole.
    let router = web::router(state.clone()).await;
    let res = {
        let _rendering = web::rendering().await;
        tower::ServiceExt::oneshot(router, Request::get("/log.csv?days=30").body(Body::empty()).unwrap()).await.unwrap()
    };
    assert_eq!(res.status(), StatusCode::OK);
    let mut body = res.into_body();
    let (mut pieces, mut bytes) = (0, Vec::new());
    while let Some(frame) = http_body_util::BodyExt::frame(&mut body).await {
        if let Ok(data) = frame.unwrap().into_data() {
            pieces += 1;
            bytes.extend_from_slice(&data);
        }
    }
    let lines = csv::Reader::from_reader(&bytes[..]).records().count();
    // Compressed for a browser (every browser asks for gzip): the same file, whole.
    let a = send(
        state.clone(),
        Request::get("/log.csv?days=30").header(header::ACCEPT_ENCODING, "gzip").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.headers[header::CONTENT_ENCODING], "gzip");
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&a.body[..]), &mut unzipped).unwrap();
    assert_eq!(unzipped, bytes, "gzip's file is the plain one");
    assert!(lines > 2 * server::http::log_csv::CHUNK, "{lines} lines");
    assert_eq!(pieces, lines.div_ceil(server::http::log_csv::CHUNK), "{lines} lines in {pieces} pieces");

    // The JSON link is the same filter in the API.
    let json = href_of(&html, "json-link").expect("a JSON link");
    let v = api(&state, &json).await;
    let events = v["events"].as_array().unwrap();
    assert!(!events.is_empty());
    assert!(
        events.iter().all(|e| !["started", "succeeded", "running"].contains(&e["kind"].as_str().unwrap())),
        "{json}"
    );

    // Each line with a job links its timeline at that moment on its instance.
    let row = shown.iter().find(|r| r.instance == "SQLPROD02" && r.kind == "failed").expect("a failure on SQLPROD02");
    let href = row.href.clone().expect("a link");
    let want = sundial_model::links::job_at_href(Some("SQLPROD02"), &row.job_id, at(&row.at));
    assert_eq!(href, want);
    // The timeline may first send the reader on to its window around the moment.
    let mut url = href.clone();
    for _ in 0..3 {
        let a = send(state.clone(), Request::get(&url).body(Body::empty()).unwrap()).await;
        match a.headers.get(header::LOCATION) {
            Some(to) if a.status.is_redirection() => url = to.to_str().unwrap().to_owned(),
            _ => break,
        }
    }
    assert!(url.contains("instance=SQLPROD02"), "{url}");
    let timeline = page(&state, &url, StatusCode::OK).await;
    assert!(unescape(&timeline).contains(&row.job), "the job's page");
    assert!(timeline.contains("SQLPROD02"), "on its instance");
}

/// The first [`PAGES`] pages of `q` over `days` (every page, when fewer), read whole and read
/// from tallies: each page's data equal, a walk ending together.
async fn same_both_ways(state: &AppState, days: u32, q: &sundial_model::LogQuery) -> usize {
    use sundial_model::ssr::fleet_log_scaled;
    let backend = state.backend.as_ref();
    let mut q = q.clone();
    let mut lines = 0;
    for page in 0..PAGES {
        let whole = fleet_log_scaled(backend, None, days, &q, usize::MAX).await.expect("the whole log").page();
        let tallied = fleet_log_scaled(backend, None, days, &q, 0).await.expect("the tallied log").page();
        let what = format!("days {days}, {q:?}, page {page}");
        assert_eq!(tallied.counts, whole.counts, "{what}: counts");
        assert_eq!((tallied.total, tallied.offset), (whole.total, whole.offset), "{what}: total and offset");
        assert_eq!(tallied.lines, whole.lines, "{what}: lines");
        assert_eq!(tallied.next_cursor, whole.next_cursor, "{what}: next page");
        assert_eq!(tallied, whole, "{what}: the rest of the page");
        lines += whole.lines.len();
        match whole.next_cursor {
            Some(c) => q.cursor = Some(c),
            None => break,
        }
    }
    lines
}

/// Pages compared from each starting point.
const PAGES: usize = 3;

/// A large fleet's log is counted from each instance's tally and paged from a few days of lines
/// at a time; it lists what the whole log lists, in its order, page by page, under every filter:
/// whole days and days a time range cuts, cursors inside a day and at its edges, every kind.
#[tokio::test(flavor = "multi_thread")]
async fn a_log_read_from_tallies_lists_what_the_whole_log_lists() {
    let dir = tempfile::tempdir().unwrap();
    let state = fleet(&dir).await;
    let q = |f: &dyn Fn(&mut sundial_model::LogQuery)| {
        let mut q = sundial_model::LogQuery { limit: Some("53".into()), ..Default::default() };
        f(&mut q);
        q
    };
    for days in [1, 7, 30] {
        same_both_ways(&state, days, &q(&|_| {})).await;
        // Every problem of the window, to its last page.
        let problems = same_both_ways(
            &state,
            days,
            &q(&|q| {
                q.problems_only = true;
                q.limit = Some("10000".into())
            }),
        )
        .await;
        assert!(problems > 10, "{days} days: {problems} problems");
    }
    for kind in ["failed", "missed", "succeeded", "agent-start", "late", "zombie"] {
        same_both_ways(&state, 7, &q(&|q| q.kind = Some(kind.into()))).await;
    }
    same_both_ways(&state, 7, &q(&|q| q.job = Some("backup".into()))).await;
    same_both_ways(&state, 30, &q(&|q| q.job = Some("1".into()))).await;
    // Time ranges that cut days, in the instances' zones (New York and Berlin) and as instants.
    same_both_ways(
        &state,
        7,
        &q(&|q| (q.from, q.to) = (Some("2026-11-19T05:17:00Z".into()), Some("2026-11-21T20:03:00Z".into()))),
    )
    .await;
    same_both_ways(&state, 7, &q(&|q| q.from = Some("2026-11-02T00:00:00Z".into()))).await;
    same_both_ways(&state, 7, &q(&|q| q.to = Some("2026-11-22T11:58:30Z".into()))).await;
    same_both_ways(
        &state,
        7,
        &q(&|q| {
            q.to = Some("2026-11-12T00:00:00Z".into());
            q.problems_only = true
        }),
    )
    .await;
    // Cursors: a page from inside a day, at a day's edge (the read's "now" less whole days), a
    // skip past the lines at its millisecond, one before every line, one after.
    let now = at(NOW).timestamp_millis();
    for (days, ms) in
        [(30, now - 29 * 86_400_000 - 7_000_000), (30, now - 12 * 86_400_000), (7, now - 6 * 86_400_000 - 1)]
    {
        same_both_ways(&state, days, &q(&|q| q.cursor = Some(format!("{ms}~0")))).await;
    }
    for cursor in [
        format!("{}~0", now - 36 * 3_600_000 - 1_234),
        format!("{}~0", now - 2 * 86_400_000),
        format!("{}~3", now - 86_400_000),
        format!("{}~99", now - 3 * 86_400_000),
        format!("{}~0", now - 40 * 86_400_000),
        format!("{}~0", now + 86_400_000),
    ] {
        same_both_ways(&state, 7, &q(&|q| q.cursor = Some(cursor.clone()))).await;
    }
    // A filter the URL got wrong: named, no line either way.
    same_both_ways(&state, 7, &q(&|q| q.kind = Some("nonsense".into()))).await;

    // The CSV export's pieces, every one: the same lines.
    use sundial_model::ssr::{PieceAt, fleet_log_scaled};
    let problems = q(&|q| q.problems_only = true);
    let mut all = Vec::new();
    for whole_up_to in [usize::MAX, 0] {
        let log = fleet_log_scaled(state.backend.as_ref(), None, 30, &problems, whole_up_to).await.unwrap();
        let (mut lines, mut next) = log.piece(PieceAt::Index(0), 7).await;
        while let Some(at) = next {
            let (more, then) = log.piece(at, 7).await;
            lines.extend(more);
            next = then;
        }
        assert_eq!(lines.len(), log.len(), "every line of the filter, once");
        all.push(lines);
    }
    assert_eq!(all[0], all[1], "the export of the whole log and of the tallies");
}
