//! `psins-sim` with torus machine files as a user runs it: `check`, `synth`, the watchdog's
//! exit code, and the bundled configs.

use std::path::{Path, PathBuf};
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SIM).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn config(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(name).to_string_lossy().into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("psins-network-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn bundled_torus_machines_check_and_print_every_key() {
    for name in ["torus-4x4.toml", "torus-8x8.toml", "torus-4x4x4.toml"] {
        let (code, out, err) = sim(&["check", &config(name)]);
        assert_eq!(code, 0, "{name}: {err}");
        for key in ["[network.torus]", "dims = ", "vcs = ", "routing = ", "clock = \"1GHz\"", "watchdog_cycles = "] {
            assert!(out.contains(key), "{name}: no {key} in\n{out}");
        }
    }
    let (_, out, _) = sim(&["--list-models"]);
    assert!(out.lines().any(|l| l.starts_with("torus ")), "{out}");
}

#[test]
fn dims_as_text_or_array_are_the_same_machine() {
    let a = sim(&["check", &config("torus-8x8.toml"), "--set", "network.torus.dims=8x8"]).1;
    let b = sim(&["check", &config("torus-8x8.toml")]).1;
    assert_eq!(a, b);
}

#[test]
fn bad_torus_keys_are_errors_naming_the_set() {
    let m = config("torus-8x8.toml");
    let cases = [
        ("network.torus.vcs=5", "5 is out of range: expected 1 to 4"),
        ("network.torus.routing=west-first", "unknown variant `west-first`"),
        ("network.torus.dims=8x1", "every dimension needs 2 ≤ k ≤ 32767"),
        ("network.torus.clock=fast", "fast"),
        ("network.torus.lanes=2", "unknown field `lanes`"),
    ];
    for (set, msg) in cases {
        let (code, _, err) = sim(&["check", &m, "--set", set]);
        assert_eq!(code, 1, "{set}");
        assert!(err.contains(msg) && err.contains(&format!("--set {set}")), "{set}: {err}");
    }
    let (code, _, err) = sim(&["check", &m, "--set", "network.torus.dims=4x4"]);
    assert_eq!(code, 1);
    assert!(err.contains("[machine] nodes = 64") && err.contains("set nodes = 16"), "{err}");
    let (code, _, err) = sim(&["check", &m, "--set", "network.torus.buffer_packets=1"]);
    assert_eq!(code, 1);
    assert!(err.contains("buffer_packets") && err.contains("bubble"), "{err}");
}

#[test]
fn synth_prints_throughput_and_latency() {
    let m = config("torus-4x4.toml");
    let (code, out, err) = sim(&["synth", "-m", &m, "--pattern", "uniform", "--load", "0.2", "--measure", "2000"]);
    assert_eq!(code, 0, "{err}");
    for key in ["offered ", "accepted ", "packets/node/cycle", "B/node/cycle", "latency avg / p99", "packet-hops"] {
        assert!(out.contains(key), "no {key} in\n{out}");
    }
    let again = sim(&["synth", "-m", &m, "--pattern", "uniform", "--load", "0.2", "--measure", "2000"]).1;
    let strip = |s: &str| s.lines().filter(|l| !l.starts_with("speed")).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&out), strip(&again), "same seed, same results");
}

#[test]
fn synth_sweep_writes_the_csv() {
    let csv = scratch("sweep.csv");
    let m = config("torus-4x4.toml");
    let args = ["synth", "-m", &m, "--pattern", "neighbour", "--sweep", csv.to_str().unwrap(), "--loads", "0.1,0.3"];
    let (code, out, err) = sim(&[&args[..], &["--warmup", "500", "--measure", "1000", "--seed", "3"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| l.starts_with("load ")).count(), 2, "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("pattern,routing,vcs,load,"));
    assert!(lines[1].starts_with("neighbour,dor,1,0.1000,"));
}

#[test]
fn synth_errors() {
    let m = config("torus-4x4.toml");
    // Bad arguments exit 2, a bad machine file 1 (docs/exit-codes.md).
    let (code, _, err) = sim(&["synth", "-m", &m, "--pattern", "tornado"]);
    assert_eq!(code, 2);
    assert!(err.contains("--pattern") && err.contains("tornado"), "{err}");
    let (code, _, err) = sim(&["synth", "-m", &config("bus-cluster.toml")]);
    assert_eq!(code, 1);
    assert!(err.contains("synth needs a torus"), "{err}");
    let (code, _, err) = sim(&["synth", "-m", &m, "--set", "network.torus.vcs=0"]);
    assert_eq!(code, 1);
    assert!(err.contains("--set network.torus.vcs=0"), "{err}");
    let (code, _, _) = sim(&["synth", "-m", &m, "--measure", "0"]);
    assert_eq!(code, 2);
}

/// The debug switch: a 6-node ring without bubbles under heavy uniform traffic deadlocks;
/// the watchdog stops the run with exit code 4 (a typed deadlock, not a matched message) and
/// lists the full buffers.
#[test]
fn synth_without_bubbles_deadlocks_with_exit_code_4() {
    let ring = [
        "--set",
        "network.torus.dims=[6]",
        "--set",
        "machine.nodes=6",
        "--set",
        "network.torus.watchdog_cycles=1000",
        "--load",
        "2",
    ];
    let m = config("torus-8x8.toml");
    let (code, _, err) = sim(&[&["synth", "-m", &m, "--set", "network.torus.bubble=false"][..], &ring].concat());
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("network deadlock at cycle") && err.contains("full buffers"), "{err}");
    let (code, _, err) = sim(&[&["synth", "-m", &m][..], &ring].concat());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn replay_reports_the_network_statistics_in_table_and_json() {
    let json = scratch("r.json");
    let m = config("torus-4x4.toml");
    let (code, out, err) = sim(&["gen:stencil2d:ranks=4,iters=3", "-m", &m, "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("network (torus):") && out.contains("collectives expanded"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let net = &v["network"];
    for key in ["avg_latency_cycles", "p99_latency_cycles", "avg_hops", "max_link_utilisation", "blocked_cycles"] {
        assert!(net[key].is_number(), "no {key} in {net}");
        assert!(out.contains(key), "no {key} in the table");
    }
    assert_eq!(net["dim_utilisation"].as_array().unwrap().len(), 2);
    assert!(net["packets"].as_u64().unwrap() > 0);
}

/// A generated run with a message too large for the packet model: exit 1 and one message
/// naming the rank, the record (record 1 of rank 0: the send after Init), the size and the
/// limit, at once instead of simulating 2^54 packets.
#[test]
fn a_generated_message_over_the_packet_limit_is_refused() {
    let m = config("torus-4x4.toml");
    let (code, _, err) = sim(&["gen:pingpong:ranks=2,iters=1,bytes=1000000000GiB", "-m", &m]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("rank 0, record 1: a message of 1073741824000000000 bytes"), "{err}");
    assert!(err.contains("max_message_packets = 16777216"), "{err}");
    let (code, out, err) = sim(&["check", &m]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("max_message_packets = 16777216"), "{out}");
    // The fat-tree shares the router keys, the limit with them.
    let f = config("fattree-16.toml");
    let (code, _, err) = sim(&[
        "gen:pingpong:ranks=2,iters=1,bytes=1GiB",
        "-m",
        &f,
        "--set",
        "network.fattree.max_message_packets=1000",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("rank 0, record 1: a message of 1073741824 bytes to rank 1 (another node) is too large for network model fattree"), "{err}");
    assert!(err.contains("16777216 packets of 64 bytes, more than max_message_packets = 1000"), "{err}");
}
