//! psins-import with a `--from` that does not match its input: one message naming the format
//! the input is and the `--from` to use, exit code 2.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-import-from-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn import(from: &str, input: &Path, out: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", from])
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn the_wrong_from_names_the_right_one() {
    let d = scratch("wrong");
    let out = d.join("out.psins");
    // A directory of TI action files, read as OTF2 or DUMPI.
    let ti = d.join("ti");
    std::fs::create_dir_all(&ti).unwrap();
    std::fs::write(ti.join("replay.txt"), "rank-0.txt\n").unwrap();
    std::fs::write(ti.join("rank-0.txt"), "0 init\n0 compute 1000\n0 finalize\n").unwrap();
    for from in ["otf2", "dumpi"] {
        let (code, err) = import(from, &ti, &out);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("time-independent") && err.contains("use --from ti"), "{err}");
    }
    // An OTF2 anchor read as TI, a DUMPI .meta read as OTF2.
    let anchor = d.join("traces.otf2");
    std::fs::write(&anchor, b"OTF2\0\x01\x02anchor").unwrap();
    let (code, err) = import("ti", &anchor, &out);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("traces.otf2: this is an OTF2 archive") && err.contains("use --from otf2"), "{err}");
    let meta = d.join("run.meta");
    std::fs::write(&meta, "hostname=x\nnumprocs=2\nfileprefix=run\n").unwrap();
    let (code, err) = import("otf2", &meta, &out);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sst-dumpi") && err.contains("use --from dumpi"), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).ok();
}
