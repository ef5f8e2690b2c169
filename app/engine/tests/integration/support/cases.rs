//! Reading case files. Every data-driven harness reads its `*.toml` files through here, so a
//! directory that cannot be listed, a file that cannot be read, one that does not parse and one
//! that holds no case are each a failure naming the file — never zero cases that pass.
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A case file: its tables of cases.
pub trait CaseFile: DeserializeOwned {
    /// How many cases it holds (of every kind).
    fn len(&self) -> usize;
}

/// The `*.toml` files of `dir`, sorted.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list the case files: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// One file's cases from its text (`read`: what reading it gave); `name` names it in the error.
pub fn parse<F: CaseFile>(name: &str, read: std::io::Result<String>) -> Result<F, String> {
    let text = read.map_err(|e| format!("{name}: unreadable: {e}"))?;
    let file: F = toml::from_str(&text).map_err(|e| format!("{name}: does not parse: {e}"))?;
    if file.len() == 0 {
        return Err(format!("{name}: no cases in it"));
    }
    Ok(file)
}

/// One file's cases, read from `path`.
pub fn load<F: CaseFile>(name: &str, path: &Path) -> Result<F, String> {
    parse(name, std::fs::read_to_string(path))
}

/// Every file of `dir`, each named `DIR/FILE` (`agent/daily.toml`), with the failures of those
/// that could not be read (and of the directory itself). An empty directory is a failure too.
pub fn load_dir<F: CaseFile>(dir: &Path) -> (Vec<(String, F)>, Vec<String>) {
    let paths = match files(dir) {
        Ok(p) => p,
        Err(e) => return (Vec::new(), vec![e]),
    };
    if paths.is_empty() {
        return (Vec::new(), vec![format!("{}: no *.toml case file", dir.display())]);
    }
    let prefix = dir.file_name().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
    let (mut loaded, mut failures) = (Vec::new(), Vec::new());
    for path in paths {
        let name = format!("{prefix}/{}", path.file_name().unwrap_or_default().to_string_lossy());
        match load(&name, &path) {
            Ok(f) => loaded.push((name, f)),
            Err(e) => failures.push(e),
        }
    }
    (loaded, failures)
}
