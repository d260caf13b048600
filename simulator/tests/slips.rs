//! The usual slips of a first hour with psins-sim, each answered with what was meant (exit
//! code 2 for the command line, 1 for an input), never clap's "the subcommand … cannot be
//! used with [TRACE]" or a bare "No such file".

use std::path::{Path, PathBuf};
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

fn sim(dir: &Path, args: &[&str]) -> (i32, String) {
    let o = Command::new(SIM).args(args).current_dir(dir).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-slips-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn command_line_slips_say_what_was_meant() {
    let d = scratch("cli");
    let (code, err) = sim(&d, &["a.psins", "b.psins", "-m", "bus-cluster"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("one TRACE per replay, 2 given (a.psins, b.psins)") && err.contains("glob"), "{err}");
    let (code, err) = sim(&d, &["gen:stencil2d:ranks=4", "-m", "bus-cluster", "--set", "network.latency", "5us"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`--set network.latency=5us`"), "{err}");
    let (code, err) = sim(&d, &["gen:stencil2d:ranks=4", "-m", "bus-cluster", "-m", "torus-8x8"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("one machine per replay") && err.contains("psins-sim sweep TRACE -m bus-cluster -m torus-8x8"),
        "{err}"
    );
    assert!(!err.contains("cannot be used with"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn machine_paths_and_set_keys() {
    let d = scratch("machines");
    // The README's form, outside the source tree: the bundled machine, said so.
    let (code, err) = sim(&d, &["gen:stencil2d:ranks=4,iters=2", "-m", "configs/bus-cluster.toml", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("the bundled machine bus-cluster is") && !err.contains(".."), "{err}");
    let (code, err) = sim(&d, &["gen:stencil2d:ranks=4", "-m", "mine/bus-cluster.toml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no such file; the bundled machine of that name is `-m bus-cluster`"), "{err}");
    let (code, err) = sim(&d, &["gen:stencil2d:ranks=4", "-m", "bus-cluster", "--set", "network.latnecy=5us"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--set network.latnecy=5us: unknown field") && err.contains("did you mean `latency`?"),
        "{err}"
    );
    assert!(!err.contains("line "), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

/// The tracer's output where a compact trace is expected: the run's directory, the directory
/// of runs, a rank's log.
#[test]
fn logs_where_a_trace_is_expected() {
    let d = scratch("logs");
    let run = d.join("psins-trace/20261129-112436-25856");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("rank-000000.bin"), b"PSINSLOG\x05\x00").unwrap();
    let (code, err) = sim(&d, &["psins-trace/20261129-112436-25856", "-m", "bus-cluster"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("per-rank logs")
            && err.contains("psins-consolidate psins-trace/20261129-112436-25856 -o app.psins"),
        "{err}"
    );
    let (code, err) = sim(&d, &["psins-trace", "-m", "bus-cluster"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("holds 1 traced run") && err.contains("(the newest)"), "{err}");
    let (code, err) = sim(&d, &["psins-trace/20261129-112436-25856/rank-000000.bin", "-m", "bus-cluster"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("consolidate its run first"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}
