//! ARCHITECTURE.md's invariants that a test can check, each stated as an absence: the crates'
//! dependency graph, what the server takes from the UI crate, what the model does without, and
//! where a scheduler kind's configuration spelling may appear.
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace holds the server").to_path_buf()
}

/// The crates a package depends on (normal dependencies, optional ones too).
fn dependencies(package: &str) -> Vec<String> {
    let path = root().join(package).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest: toml::Table = text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    manifest.get("dependencies").and_then(|d| d.as_table()).map(|d| d.keys().cloned().collect()).unwrap_or_default()
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &str) -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.push((path, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    assert!(!out.is_empty(), "no source under {dir}");
    out
}

/// The text before a file's `#[cfg(test)]` module: what ships.
fn shipped(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

#[test]
fn layers_only_call_down_engine_model_app_server() {
    let engine = dependencies("app/engine");
    let model = dependencies("app/model");
    let app = dependencies("app");
    let server = dependencies("server");
    let io = ["tokio", "sqlx", "tiberius", "reqwest", "hyper", "axum", "lettre"];
    let ui = ["leptos", "leptos_router", "leptos_meta", "leptos_axum", "app"];
    let rules: [(&str, &Vec<String>, Vec<&str>); 3] = [
        ("the engine", &engine, io.iter().chain(&ui).chain(&["sundial-model"]).copied().collect()),
        ("the model", &model, io.iter().chain(&ui).copied().collect()),
        ("the UI crate", &app, io.to_vec()),
    ];
    for (name, deps, banned) in rules {
        let found: Vec<&String> = deps.iter().filter(|d| banned.contains(&d.as_str())).collect();
        assert!(found.is_empty(), "{name} depends on {found:?}");
    }
    assert!(model.contains(&"sundial-engine".to_owned()), "the model maps the engine's reports");
    assert!(app.contains(&"sundial-model".to_owned()), "the pages render the model's types");
    for d in ["sundial-model", "sundial-engine", "app"] {
        assert!(server.contains(&d.to_owned()), "the server depends on {d}");
    }
}

#[test]
fn the_server_takes_from_the_ui_crate_only_what_serves_pages() {
    // The page tree and its shell, the cookies pages read, the sign-in form's bounds.
    let allowed = ["app::App", "app::shell", "app::components::time::", "app::routes::signin::"];
    let mut found = Vec::new();
    for (path, text) in sources("server/src").into_iter().chain(sources("server/tests")) {
        if path.ends_with("architecture.rs") {
            continue; // this file spells what it looks for
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for (i, _) in code.match_indices("app::") {
                let before = code[..i].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue; // sundial_app::, myapp::
                }
                if !allowed.iter().any(|a| code[i..].starts_with(a)) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "the server reaches into the UI crate:\n{}", found.join("\n"));
}

#[test]
fn the_model_has_no_leptos_no_clock_and_no_type_erased_judgment() {
    for (path, text) in sources("app/model/src") {
        let code = shipped(&text);
        for banned in ["leptos::", "dyn Any", "dyn std::any::Any", "downcast", "Utc::now", "SystemTime::now"] {
            assert!(!code.contains(banned), "{} holds {banned}", path.display());
        }
    }
}

#[test]
fn a_scheduler_kinds_configuration_spelling_appears_only_where_kinds_are_described() {
    // Where a kind is described: the registry of kinds (its name and older spelling), the
    // schedulers' words (the wire spells a scheduler as its kind), its reader, its statement
    // dialect (the CLI's flag for it, the simulator's editor) and the demo, which writes fleet
    // files of each kind. Anywhere else a kind is being told apart by name.
    let described = [
        "server/src/config/kinds.rs",
        "server/src/sources/",
        "server/src/demo/",
        "server/src/cli.rs",
        "app/model/src/schedulers.rs",
        "app/src/components/simulator/",
        "app/src/routes/simulate.rs",
    ];
    // Every spelling the registry gives a kind: its name and its older one.
    let kinds: Vec<&str> = server::config::KINDS.iter().flat_map(|k| std::iter::once(k.name).chain(k.alias)).collect();
    let root = root();
    let mut found = Vec::new();
    for dir in ["server/src", "app/src", "app/model/src"] {
        for (path, text) in sources(dir) {
            let rel = path.strip_prefix(&root).expect("under the workspace").to_string_lossy().replace('\\', "/");
            if described.iter().any(|d| rel.starts_with(d)) {
                continue;
            }
            // Code, not what its comments say of it.
            let code: Vec<&str> = shipped(&text).lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            for kind in &kinds {
                if code.iter().any(|l| l.contains(&format!("\"{kind}\""))) {
                    found.push(format!("{rel} names \"{kind}\""));
                }
            }
        }
    }
    assert!(found.is_empty(), "a kind named outside where kinds are described:\n{}", found.join("\n"));
}

#[test]
fn a_risk_kind_is_described_only_in_the_engines_list_of_them() {
    // One description of each kind of risk ahead: `sundial_engine::risks::KINDS` (its key, words
    // and severity). Views, the API and the simulator read it; none spells a kind's key in code.
    let keys: Vec<&str> = sundial_engine::risks::KINDS.iter().map(|k| k.key).collect();
    let root = root();
    let mut found = Vec::new();
    for dir in ["server/src", "app/src", "app/model/src", "app/engine/src"] {
        for (path, text) in sources(dir) {
            let rel = path.strip_prefix(&root).expect("under the workspace").to_string_lossy().replace('\\', "/");
            if rel == "app/engine/src/risks.rs" {
                continue;
            }
            let code: Vec<&str> = shipped(&text).lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            for key in &keys {
                if code.iter().any(|l| l.contains(&format!("\"{key}\""))) {
                    found.push(format!("{rel} names \"{key}\""));
                }
            }
        }
    }
    assert!(found.is_empty(), "a risk kind named outside risks::KINDS:\n{}", found.join("\n"));
}

#[test]
fn no_module_reaches_up_to_what_uses_it() {
    // Inside each crate the layers call down too: the pages' data never names a component or a
    // page, a component never names a page; the configuration, Sundial's store and the
    // sources never name what runs on them (HTTP, the fleet, alerts).
    let rules: [(&[&str], &[&str]); 5] = [
        (&["app/src/api"], &["crate::components", "crate::routes"]),
        (&["app/src/components"], &["crate::routes"]),
        (
            &["server/src/config.rs", "server/src/config"],
            &["crate::http", "crate::fleet", "crate::sources", "crate::alerts"],
        ),
        (&["server/src/store"], &["crate::http", "crate::fleet", "crate::alerts", "crate::sources"]),
        (&["server/src/sources"], &["crate::fleet", "crate::http", "crate::alerts"]),
    ];
    let root = root();
    let mut found = Vec::new();
    for (places, above) in rules {
        for place in places {
            let files = if root.join(place).is_dir() {
                sources(place)
            } else {
                let path = root.join(place);
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                vec![(path, text)]
            };
            for (path, text) in files {
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or_default();
                    if let Some(a) = above.iter().find(|a| code.contains(*a)) {
                        found.push(format!("{}:{}: {a}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "a module names what is above it:\n{}", found.join("\n"));
}
