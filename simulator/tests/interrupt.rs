//! Ctrl-C during a replay: the temporary files of the unfinished outputs are removed, one line
//! says so, and the exit status is 130.

use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

#[test]
fn an_interrupted_replay_leaves_nothing_behind() {
    let d = std::env::temp_dir().join(format!("psins-interrupt-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    // A replay of several seconds, its three outputs written through temporary files beside
    // them; SIGINT after one second.
    let o = Command::new("timeout")
        .args([
            "--preserve-status",
            "-s",
            "INT",
            "1",
            SIM,
            "gen:stencil2d:ranks=65536,iters=50",
            "-m",
            "fat-simple",
            "-q",
        ])
        .args(["--json", "big.json", "--timeline", "tl.json", "--predicted-trace", "big.psins"])
        .current_dir(&d)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert_eq!(err.trim(), "psins-sim: interrupted: nothing written");
    let left: Vec<String> =
        std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    std::fs::remove_dir_all(&d).ok();
}
