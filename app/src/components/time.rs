//! Times as pages show them, and the page-wide zone and theme switches.
//!
//! Every instant on a page is a [`Time`]: a `<time>` whose `datetime` is RFC 3339 with the
//! instance zone's offset and whose title is the UTC time. Its text follows the page-wide
//! [`ZoneMode`]: the instance's zone (the default, and what the server renders), UTC, or the
//! browser's own zone. The choice, and the theme's, are remembered in `localStorage`.
use crate::api::{TimePoint, offset_label};
use leptos::prelude::*;

/// Which zone times are shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneMode {
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

/// The page-wide choices, in context (see [`provide_prefs`]).
#[derive(Clone, Copy)]
pub struct Prefs {
    pub zone: RwSignal<ZoneMode>,
    /// `auto` (follow the system), `light` or `dark`.
    pub theme: RwSignal<&'static str>,
    /// Bumped on the instance's poll interval: pages that read it refetch their data.
    pub tick: RwSignal<u64>,
}

const ZONE_KEY: &str = "sundial-zone";
const THEME_KEY: &str = "sundial-theme";

/// Put [`Prefs`] in context; in the browser, load the remembered choices and keep them.
pub fn provide_prefs() {
    let prefs = Prefs { zone: RwSignal::new(ZoneMode::Instance), theme: RwSignal::new("auto"), tick: RwSignal::new(0) };
    provide_context(prefs);
    // Effects run only in the browser, after hydration, so the server render (instance zone)
    // and the first browser render agree; the remembered choice applies right after.
    Effect::new(move |first: Option<()>| {
        if first.is_none() {
            if let Some(z) = storage_get(ZONE_KEY).as_deref().and_then(ZoneMode::parse) {
                prefs.zone.set(z);
            }
            if let Some(t) = storage_get(THEME_KEY) {
                prefs.theme.set(match t.as_str() {
                    "light" => "light",
                    "dark" => "dark",
                    _ => "auto",
                });
            }
        }
    });
    // Remember changes (not the first run: that is the default, before the load above).
    Effect::new(move |prev: Option<()>| {
        let z = prefs.zone.get();
        if prev.is_some() {
            storage_set(ZONE_KEY, z.key());
        }
    });
    Effect::new(move |prev: Option<()>| {
        let t = prefs.theme.get();
        if prev.is_some() {
            storage_set(THEME_KEY, t);
            apply_theme(t);
        }
    });
}

/// The [`Prefs`] in context (fresh defaults outside an app, e.g. in a unit render).
pub fn prefs() -> Prefs {
    use_context::<Prefs>()
        .unwrap_or_else(|| Prefs { zone: RwSignal::new(ZoneMode::Instance), theme: RwSignal::new("auto"), tick: RwSignal::new(0) })
}

#[cfg(feature = "hydrate")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

fn storage_get(key: &str) -> Option<String> {
    #[cfg(feature = "hydrate")]
    {
        storage()?.get_item(key).ok()?
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = key;
        None
    }
}

fn storage_set(key: &str, value: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (key, value);
}

fn apply_theme(theme: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = if theme == "auto" { root.remove_attribute("data-theme") } else { root.set_attribute("data-theme", theme) };
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = theme;
}

/// The inline script that applies the remembered theme before the first paint.
pub const THEME_SCRIPT: &str = "try{var t=localStorage.getItem('sundial-theme');if(t==='dark'||t==='light')document.documentElement.setAttribute('data-theme',t)}catch(e){}";

/// The browser's offset from UTC at an instant, in seconds (east positive).
fn browser_offset(ms: i64) -> i32 {
    #[cfg(feature = "hydrate")]
    {
        let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
        -(d.get_timezone_offset() as i32) * 60
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = ms;
        0
    }
}

/// The text of a time in a zone mode, and its zone label.
pub fn shown(t: &TimePoint, mode: ZoneMode) -> (String, String) {
    match mode {
        ZoneMode::Instance => (t.local.clone(), offset_label(t.off)),
        ZoneMode::Utc => (t.utc_text(), "UTC".into()),
        ZoneMode::Browser => {
            let off = browser_offset(t.ms);
            (t.text_at(off), offset_label(off))
        }
    }
}

/// One instant: `<time datetime="2026-11-22T07:00:00-05:00" title="… UTC">`, its text in the
/// page's zone with the zone's offset after it.
#[component]
pub fn Time(t: TimePoint) -> impl IntoView {
    let zone = prefs().zone;
    let datetime = t.rfc3339();
    let title = format!("{} UTC", t.utc_text());
    let text = Memo::new(move |_| shown(&t, zone.get()));
    view! {
        <time datetime=datetime title=title>
            {move || text.with(|t| t.0.clone())}
            " "
            <span class="tz-off">{move || text.with(|t| t.1.clone())}</span>
        </time>
    }
}

/// The zone switch: instance zone, UTC, or the browser's zone, for every time on the page.
#[component]
pub fn ZoneSwitch() -> impl IntoView {
    let zone = prefs().zone;
    view! {
        <div class="zone-switch" role="group" aria-label="Show times in" data-testid="zone-switch">
            {ZoneMode::ALL
                .into_iter()
                .map(|m| {
                    view! {
                        <button
                            type="button"
                            aria-pressed=move || if zone.get() == m { "true" } else { "false" }
                            data-zone=m.key()
                            on:click=move |_| zone.set(m)
                        >
                            {m.label()}
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}

/// The theme toggle: follow the system, dark, light (remembered).
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = prefs().theme;
    let label = move || match theme.get() {
        "dark" => "Theme: dark",
        "light" => "Theme: light",
        _ => "Theme: auto",
    };
    view! {
        <button
            type="button"
            class="theme-toggle"
            data-testid="theme-toggle"
            data-theme-choice=move || theme.get()
            title="Follow the system, dark, or light"
            on:click=move |_| theme.update(|t| *t = match *t { "auto" => "dark", "dark" => "light", _ => "auto" })
        >
            {label}
        </button>
    }
}
