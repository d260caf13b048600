//! `-m NAME`: a machine given by name instead of a path is looked up among the bundled
//! machines (configs/), so `psins-sim app.psins -m torus-8x8` works from anywhere.
//!
//! Search order: every directory of `$PSINS_MACHINE_PATH` (colon-separated), then the
//! installed `<prefix>/share/psins/configs` beside the running binary's `<prefix>/bin`, then
//! the source tree's `configs/` this binary was built from.

use std::path::{Path, PathBuf};

/// A `-m` argument that names no machine file.
#[derive(Debug, thiserror::Error)]
pub enum BundledError {
    #[error("no such file; the bundled machine of that name is `-m {stem}` ({})", bundled.display())]
    UseName { stem: String, bundled: PathBuf },
    #[error(
        "no file `{name}` and no bundled machine of that name (looked in {}; bundled: {})",
        looked.join(", "),
        if bundled.is_empty() { "none found".into() } else { bundled.join(", ") }
    )]
    NotFound { name: String, looked: Vec<String>, bundled: Vec<String> },
}

/// A path to read: `arg` itself when it exists or names a path (has a `/` or ends in
/// `.toml`); else the first bundled `NAME.toml`. `Err` lists where it looked and what exists.
pub fn resolve(arg: &Path) -> Result<PathBuf, BundledError> {
    let text = arg.to_string_lossy();
    let dirs = search_dirs();
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    if text.contains('/') || text.ends_with(".toml") {
        // The README's `-m configs/NAME.toml` run from outside the source tree: the bundled
        // machine of that name is the one meant.
        let stem = arg.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let in_configs = arg.parent().and_then(|p| p.file_name()).is_some_and(|d| d == "configs");
        if let Some(p) = dirs.iter().map(|d| d.join(format!("{stem}.toml"))).find(|p| p.is_file()) {
            if in_configs {
                psins_formats::note!(
                    "psins-sim: note: no file {text} here; the bundled machine {stem} is {} (`-m {stem}` names it from anywhere)",
                    p.display()
                );
                return Ok(p);
            }
            return Err(BundledError::UseName { stem, bundled: p });
        }
        return Ok(arg.to_path_buf());
    }
    for d in &dirs {
        let p = d.join(format!("{text}.toml"));
        if p.is_file() {
            return Ok(p);
        }
    }
    let mut names: Vec<String> = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".toml").map(String::from))
        .filter(|n| !n.ends_with(".curves") && !n.contains("calibration"))
        .collect();
    names.sort();
    names.dedup();
    let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(BundledError::NotFound { name: text.into_owned(), looked, bundled: names })
}

fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PSINS_MACHINE_PATH").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    if let Some(bin) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        dirs.push(bin.join("../share/psins/configs"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs"));
    // Canonical, so that a bundled machine is named `/…/configs/NAME.toml`, not
    // `/…/simulator/../configs/NAME.toml`.
    dirs.into_iter().filter_map(|d| d.canonicalize().ok()).filter(|d| d.is_dir()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_find_bundled_machines_and_paths_stay_paths() {
        let p = resolve(Path::new("torus-8x8")).unwrap();
        assert!(p.ends_with("configs/torus-8x8.toml"), "{}", p.display());
        assert_eq!(resolve(Path::new("./x.toml")).unwrap(), Path::new("./x.toml"));
        let e = resolve(Path::new("no-such-machine")).unwrap_err().to_string();
        assert!(e.contains("bus-cluster") && e.contains("no bundled machine"), "{e}");
    }
}
