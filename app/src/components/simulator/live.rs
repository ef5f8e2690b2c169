//! The simulator in the browser: listens to the server-rendered form (one `input` and one
//! `change` listener on its root), hands each edit to the [`State`], and writes back what
//! changed: the result regions' HTML, the controls' values, which parts of the form show, the
//! column editor, the URL. No request while editing; a zone not seen yet fetches its rules.
use super::model::SimSetup;
use super::render;
use super::state::{Changed, Shown, State};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Element, Event, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

/// The state, what each region shows now (so a redraw compares strings, never reads the DOM
/// back), and whether a URL update is already on its way.
struct Live {
    st: State,
    drawn: Vec<(&'static str, String)>,
    url_pending: bool,
    /// The zones the row named whose rules were asked for (each asked once).
    asked: Vec<String>,
}

type Shared = Rc<RefCell<Live>>;

/// Attach to `#sim-root` (rendered by the server) and mark it `data-ready`.
pub fn attach(setup: SimSetup) {
    let doc = leptos::prelude::document();
    let Some(root) = doc.get_element_by_id("sim-root") else { return };
    let state = State::new(&setup);
    let drawn = state.outputs();
    let st: Shared = Rc::new(RefCell::new(Live { st: state, drawn, url_pending: false, asked: Vec::new() }));
    fetch_row_zone(&st);
    copy_state(&st.borrow().st.statement());
    for kind in ["input", "change"] {
        let st = st.clone();
        let cb = Closure::<dyn FnMut(Event)>::new(move |ev: Event| on_event(&st, &ev, kind));
        let _ = root.add_event_listener_with_callback(kind, cb.as_ref().unchecked_ref());
        cb.forget();
    }
    if let Some(button) = doc.get_element_by_id("sim-copy") {
        let st = st.clone();
        let cb = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
            let text = st.borrow().st.statement();
            let w = leptos::prelude::window();
            if !text.is_empty() {
                let _ = w.navigator().clipboard().write_text(&text);
            }
            if let Some(b) = w.document().and_then(|d| d.get_element_by_id("sim-copy")) {
                b.set_text_content(Some(if text.is_empty() { "Copy" } else { "Copied" }));
            }
        });
        let _ = button.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
        cb.forget();
    }
    let _ = root.set_attribute("data-ready", "true");
}

/// A control's value, whether it is checked, and whether it reports on `change` (selects,
/// boxes, the zone) rather than on every `input` (every text field, the column editor's too).
fn read(el: &Element) -> Option<(String, bool, bool)> {
    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
        return Some((i.value(), i.checked(), super::state::reports_on_change(&i.type_(), &i.id())));
    }
    if let Some(s) = el.dyn_ref::<HtmlSelectElement>() {
        return Some((s.value(), false, true));
    }
    el.dyn_ref::<HtmlTextAreaElement>().map(|t| (t.value(), false, false))
}

fn on_event(st: &Shared, ev: &Event, kind: &str) {
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
    let Some((value, checked, on_change)) = read(&el) else { return };
    let id = el.id();
    // The zone box: applied as you type once the name is a whole zone; on leaving it whatever
    // it says (a name no zone has is refused then).
    let zone_box = id == "sim-tz";
    if zone_box && kind == "input" && !super::state::whole_zone(&value, suggested) {
        return;
    }
    if (kind == "change") != on_change && !zone_box {
        return;
    }
    let changed = st.borrow_mut().st.edit(&id, &value, checked);
    if changed.fetch_zone.is_some() {
        let (st, name) = (st.clone(), value.trim().to_owned());
        leptos::task::spawn_local(async move {
            let rules = super::server::fetch_zone_rules(name.clone()).await.map_err(|e| e.to_string());
            let after = st.borrow_mut().st.zone_rules(&name, rules);
            draw(&st, "", Changed { after, ..Changed::default() });
        });
    }
    draw(st, &id, changed);
    fetch_row_zone(st);
}

/// Whether the zone box suggests `name` (`<datalist id="zones">`: every zone the server has).
fn suggested(name: &str) -> bool {
    let doc = leptos::prelude::document();
    doc.query_selector(&format!("#zones option[value=\"{name}\"]")).ok().flatten().is_some()
}

/// Fetch the rules of a zone the row names (a MySQL event's `TIME_ZONE`) when the zone box
/// would take it: one list of zones for the whole page.
fn fetch_row_zone(st: &Shared) {
    let Some(name) = st.borrow().st.wanted_zone() else { return };
    if st.borrow().asked.contains(&name) || !super::state::whole_zone(&name, suggested) {
        return;
    }
    st.borrow_mut().asked.push(name.clone());
    let st = st.clone();
    leptos::task::spawn_local(async move {
        if let Ok(rules) = super::server::fetch_zone_rules(name).await {
            st.borrow_mut().st.more_rules(rules);
            draw(&st, "", Changed::default());
        }
    });
}

/// Copy only what can be copied: disabled (the reason beside it) while there is no statement.
fn copy_state(statement: &str) {
    let Some(b) = leptos::prelude::document().get_element_by_id("sim-copy") else { return };
    let _ = if statement.is_empty() {
        b.set_text_content(Some("Copy"));
        b.set_attribute("disabled", "")
    } else {
        b.remove_attribute("disabled")
    };
}

/// Write the state back into the page (only what differs).
fn draw(shared: &Shared, source: &str, changed: Changed) {
    let w = leptos::prelude::window();
    let Some(doc) = w.document() else { return };
    let mut live = shared.borrow_mut();
    let outputs = live.st.outputs();
    for (id, html) in outputs {
        let old = live.drawn.iter_mut().find(|(i, _)| *i == id);
        if old.as_ref().is_some_and(|(_, h)| *h == html) {
            continue;
        }
        if let Some(el) = doc.get_element_by_id(id) {
            el.set_inner_html(&html);
        }
        match old {
            Some((_, h)) => *h = html,
            None => live.drawn.push((id, html)),
        }
    }
    let st = &live.st;
    copy_state(&st.statement());
    for (id, shown) in st.sections() {
        if let Some(el) = doc.get_element_by_id(id) {
            let _ = if shown { el.remove_attribute("hidden") } else { el.set_attribute("hidden", "") };
        }
    }
    if changed.row || changed.dialect || changed.after {
        for (id, shown) in st.controls() {
            if id == source {
                continue;
            }
            let Some(el) = doc.get_element_by_id(&id) else { continue };
            match shown {
                Shown::Checked(c) => {
                    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                        i.set_checked(c);
                    }
                }
                Shown::Value(v) => {
                    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                        if i.value() != v {
                            i.set_value(&v);
                        }
                    } else if let Some(s) = el.dyn_ref::<HtmlSelectElement>() {
                        s.set_value(&v);
                    } else if let Some(t) = el.dyn_ref::<HtmlTextAreaElement>()
                        && t.value() != v
                    {
                        t.set_value(&v);
                    }
                }
            }
        }
        if (changed.row || changed.dialect)
            && !source.starts_with("col-")
            && let Some(el) = doc.get_element_by_id("sim-columns")
        {
            el.set_inner_html(&render::columns(st.dialect, &st.json));
        }
    }
    // The URL follows within 200 ms (browsers throttle history updates on every keystroke).
    if !live.url_pending {
        live.url_pending = true;
        let shared = shared.clone();
        leptos::prelude::set_timeout(
            move || {
                let mut live = shared.borrow_mut();
                live.url_pending = false;
                let query: Vec<String> = live
                    .st
                    .query()
                    .iter()
                    .map(|(k, v)| format!("{k}={}", String::from(js_sys::encode_uri_component(v))))
                    .collect();
                if let Ok(h) = leptos::prelude::window().history() {
                    let _ = h.replace_state_with_url(
                        &wasm_bindgen::JsValue::NULL,
                        "",
                        Some(&format!("/simulate?{}", query.join("&"))),
                    );
                }
            },
            std::time::Duration::from_millis(200),
        );
    }
}
