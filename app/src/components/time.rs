//! Times as pages show them, and the page-wide zone and theme switches.
//!
//! Every instant on a page is a [`Time`]: a `<time>` whose `datetime` is RFC 3339 with the
//! instance zone's offset and whose title is the UTC time. Its text follows the page-wide
//! [`ZoneMode`]: the instance's zone (the default), UTC, or the browser's own zone. The
//! choice, and the theme's, are cookies the server reads when it renders the page.
use crate::api::{SentencePiece, SentenceView, TimePoint, offset_label};
use leptos::prelude::*;

/// Which zone times are shown in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZoneMode {
    #[default]
    Instance,
    Utc,
    Browser,
}

impl ZoneMode {
    pub const ALL: [ZoneMode; 3] = [ZoneMode::Instance, ZoneMode::Utc, ZoneMode::Browser];
    pub fn key(self) -> &'static str {
        match self {
            ZoneMode::Instance => "instance",
            ZoneMode::Utc => "utc",
            ZoneMode::Browser => "browser",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            ZoneMode::Instance => "Instance",
            ZoneMode::Utc => "UTC",
            ZoneMode::Browser => "Browser",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        ZoneMode::ALL.into_iter().find(|m| m.key() == s)
    }
}

/// The page-wide choices, read from the request's cookies when the page is rendered.
///
/// Pages are rendered on the server (only islands run in the browser), so a choice is a
/// cookie the server reads: `POST /prefs` (the switches' forms) sets it and sends the reader
/// back to the page they were on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prefs {
    pub zone: ZoneMode,
    /// The browser's IANA zone (`Intl…resolvedOptions().timeZone`), which [`BROWSER_TZ_SCRIPT`]
    /// keeps in a cookie; `None` before the first page load has run the script.
    pub browser_tz: Option<String>,
    /// `auto` (follow the system), `light` or `dark`.
    pub theme: Theme,
}

/// The theme choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn key(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Theme::Auto, Theme::Light, Theme::Dark].into_iter().find(|t| t.key() == s)
    }
    /// What the toggle switches to next.
    pub fn next(self) -> Self {
        match self {
            Theme::Auto => Theme::Dark,
            Theme::Dark => Theme::Light,
            Theme::Light => Theme::Auto,
        }
    }
}

/// Cookie names (one year, `SameSite=Lax`, path `/`).
pub const ZONE_COOKIE: &str = "sundial-zone";
pub const THEME_COOKIE: &str = "sundial-theme";
pub const BROWSER_TZ_COOKIE: &str = "sundial-browser-tz";

/// Read the choices from the request being rendered (defaults outside a request).
pub fn read_prefs() -> Prefs {
    #[cfg_attr(not(feature = "ssr"), allow(unused_mut))]
    let mut prefs = Prefs::default();
    #[cfg(feature = "ssr")]
    if let Some(parts) = use_context::<http::request::Parts>() {
        for header in parts.headers.get_all(http::header::COOKIE) {
            let Ok(text) = header.to_str() else { continue };
            for c in cookie::Cookie::split_parse_encoded(text).flatten() {
                match c.name() {
                    ZONE_COOKIE => prefs.zone = ZoneMode::parse(c.value()).unwrap_or_default(),
                    THEME_COOKIE => prefs.theme = Theme::parse(c.value()).unwrap_or_default(),
                    BROWSER_TZ_COOKIE => prefs.browser_tz = Some(c.value().to_owned()).filter(|z| !z.is_empty()),
                    _ => {}
                }
            }
        }
    }
    prefs
}

/// Put [`Prefs`] in context, read from the request.
pub fn provide_prefs() {
    provide_context(read_prefs());
}

/// The [`Prefs`] in context (defaults outside an app, e.g. in a unit render).
pub fn prefs() -> Prefs {
    use_context::<Prefs>().unwrap_or_default()
}

/// The inline script that keeps the browser's zone in a cookie, so the server can render
/// times in it when the reader chooses "Browser".
pub const BROWSER_TZ_SCRIPT: &str = "try{document.cookie='sundial-browser-tz='+encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone)+';path=/;max-age=31536000;samesite=lax'}catch(e){}";

/// The offset (seconds east of UTC) of an IANA zone at an instant; `None` for an unknown zone.
fn zone_offset(zone: &str, ms: i64) -> Option<i32> {
    #[cfg(feature = "ssr")]
    {
        use chrono::{Offset, TimeZone};
        let tz: chrono_tz::Tz = zone.parse().ok()?;
        let at = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)?;
        Some(tz.offset_from_utc_datetime(&at.naive_utc()).fix().local_minus_utc())
    }
    #[cfg(not(feature = "ssr"))]
    {
        let _ = (zone, ms);
        None
    }
}

/// The text of a time under the page's choices, and its zone label.
pub fn shown(t: &TimePoint, prefs: &Prefs) -> (String, String) {
    match prefs.zone {
        ZoneMode::Instance => (t.local.clone(), offset_label(t.off)),
        ZoneMode::Utc => (t.utc_text(), "UTC".into()),
        ZoneMode::Browser => match prefs.browser_tz.as_deref().and_then(|z| zone_offset(z, t.ms)) {
            Some(off) => (t.text_at(off), offset_label(off)),
            None => (t.utc_text(), "UTC".into()),
        },
    }
}

/// One instant: `<time datetime="2026-11-22T07:00:00-05:00" title="… UTC">`, its text in the
/// page's zone with the zone's offset after it.
#[component]
pub fn Time(t: TimePoint) -> impl IntoView {
    let datetime = t.rfc3339();
    let title = format!("{} UTC", t.utc_text());
    let (text, zone) = shown(&t, &prefs());
    view! {
        <time datetime=datetime title=title>
            {text}
            " "
            <span class="tz-off">{zone}</span>
        </time>
    }
}

/// One instant said briefly, where its year and seconds mean nothing (a problem's "since",
/// beside how long ago it was): `11-19 02:30 UTC+1`, the seconds kept when they are not `:00`.
/// The `<time>` and its title are [`Time`]'s.
#[component]
pub fn BriefTime(t: TimePoint) -> impl IntoView {
    let datetime = t.rfc3339();
    let title = format!("{} UTC", t.utc_text());
    let (text, zone) = shown(&t, &prefs());
    let brief = brief_text(&text);
    view! {
        <time datetime=datetime title=title>
            {brief}
            " "
            <span class="tz-off">{zone}</span>
        </time>
    }
}

/// `2026-11-19 02:30:00` → `11-19 02:30`; `2026-11-22 11:30:04` → `11-22 11:30:04`.
pub fn brief_text(text: &str) -> String {
    let day_time = text.get(5..).unwrap_or(text);
    match day_time.strip_suffix(":00") {
        Some(minutes) if day_time.len() == "11-19 02:30:00".len() => minutes.to_owned(),
        _ => day_time.to_owned(),
    }
}

/// A sentence with instants in it (triage's evidence, a missed run's explanation): its words
/// as text, each instant a [`Time`], so that it follows the zone switch and says its zone.
#[component]
pub fn Sentence(s: SentenceView) -> impl IntoView {
    s.0.into_iter()
        .map(|p| match p {
            SentencePiece::Text(t) => t.into_any(),
            SentencePiece::At(t) => view! { <Time t=t/> }.into_any(),
        })
        .collect_view()
}

/// A sentence as plain text for an attribute (a `title`): each instant in the page's zone
/// with the zone after it, as [`Time`] shows it.
pub fn sentence_text(s: &SentenceView, prefs: &Prefs) -> String {
    let mut out = String::new();
    for p in &s.0 {
        match p {
            SentencePiece::Text(t) => out.push_str(t),
            SentencePiece::At(t) => {
                let (text, zone) = shown(t, prefs);
                out.push_str(&format!("{text} {zone}"));
            }
        }
    }
    out
}

/// The page being rendered (path and query), where a switch sends the reader back to.
fn here() -> String {
    let loc = leptos_router::hooks::use_location();
    let (path, query) = (loc.pathname.get_untracked(), loc.search.get_untracked());
    if query.is_empty() { path } else { format!("{path}?{query}") }
}

/// The zone switch: instance zone, UTC, or the browser's zone, for every time on the page.
/// Plain forms (`POST /prefs`): they work without JavaScript.
#[component]
pub fn ZoneSwitch() -> impl IntoView {
    let current = prefs().zone;
    let back = here();
    view! {
        <div class="zone-switch" role="group" aria-label="Show times in" data-testid="zone-switch">
            {ZoneMode::ALL
                .into_iter()
                .map(|m| {
                    view! {
                        <form method="post" action="/prefs">
                            <input type="hidden" name="zone" value=m.key()/>
                            <input type="hidden" name="back" value=back.clone()/>
                            <button type="submit" aria-pressed=if current == m { "true" } else { "false" } data-zone=m.key()>
                                {m.label()}
                            </button>
                        </form>
                    }
                })
                .collect_view()}
        </div>
    }
}

/// The theme toggle: follow the system, dark, light (remembered in a cookie).
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = prefs().theme;
    let label = match theme {
        Theme::Dark => "Theme: dark",
        Theme::Light => "Theme: light",
        Theme::Auto => "Theme: auto",
    };
    view! {
        <form method="post" action="/prefs" class="theme-form">
            <input type="hidden" name="theme" value=theme.next().key()/>
            <input type="hidden" name="back" value=here()/>
            <button type="submit" class="theme-toggle" data-testid="theme-toggle" data-theme-choice=theme.key() title="Follow the system, dark, or light">
                {label}
            </button>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::brief_text;

    #[test]
    fn a_brief_time_drops_the_year_and_seconds_that_say_nothing() {
        assert_eq!(brief_text("2026-11-19 02:30:00"), "11-19 02:30");
        assert_eq!(brief_text("2026-11-22 11:30:04"), "11-22 11:30:04", "seconds that mean something stay");
        assert_eq!(brief_text("2026-11-22 11:00:00"), "11-22 11:00");
    }
}
