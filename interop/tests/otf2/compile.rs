//! The OTF2 fixture writers of tests/otf2/ are C programs on libotf2: each is compiled once
//! per test binary, into that binary's scratch directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// tests/otf2/`name`.c, compiled (once) into the directory `dir` makes.
pub fn writer(name: &str, dir: impl FnOnce() -> PathBuf) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    built
        .entry(name.to_string())
        .or_insert_with(|| {
            let exe = dir().join(name);
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/otf2/{name}.c"));
            let cc = Command::new("cc").arg(&src).arg("-o").arg(&exe).arg("-lotf2").output().unwrap();
            assert!(cc.status.success(), "{}: {}", src.display(), String::from_utf8_lossy(&cc.stderr));
            exe
        })
        .clone()
}
