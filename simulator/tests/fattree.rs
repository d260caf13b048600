//! The `fattree` model as a user runs it: `check` prints the section, bad keys and
//! impossible designs are one error naming the key, every test app replays on a small tree
//! under both routings, `synth` runs on the bundled 512-node tree, the report shows the
//! network statistics.

use crate::binary;
use binary::*;

#[test]
fn bundled_fat_trees_check_and_print_every_key() {
    for (name, nodes) in [("fattree-16.toml", 16), ("fattree-512.toml", 512), ("fattree-64k.toml", 65536)] {
        let (code, out, err) = sim(&["check", &config(name)]);
        assert_eq!(code, 0, "{name}: {err}");
        for key in
            ["[network.fattree]", "down = [", "up = [", "routing = \"dmodk\"", "clock = \"1GHz\"", "watchdog_cycles = "]
        {
            assert!(out.contains(key), "{name}: no {key} in\n{out}");
        }
        assert!(out.contains(&format!("# {nodes} nodes")), "{name}: {out}");
    }
    let (_, out, _) = sim(&["check", &config("fattree-512.toml")]);
    assert!(out.contains("down = [8, 8, 8]\nup = [8, 8]") && out.contains("16-port switches"), "{out}");
    let (_, out, _) = sim(&["--list-models"]);
    assert!(out.lines().any(|l| l.starts_with("fattree ")), "{out}");
}

#[test]
fn bad_keys_and_impossible_designs_name_the_key() {
    let m = config("fattree-16.toml");
    let cases = [
        ("network.fattree.vcs=3", "3 is out of range: expected 1 to 2"),
        ("network.fattree.routing=valiant", "unknown variant `valiant`"),
        ("network.fattree.k=17", "17 is out of range: expected 1 to 16"),
        ("network.fattree.spines=2", "unknown field `spines`"),
    ];
    for (set, msg) in cases {
        let (code, _, err) = sim(&["check", &m, "--set", set]);
        assert_eq!(code, 1, "{set}");
        assert!(err.contains(msg) && err.contains(&format!("--set {set}")), "{set}: {err}");
    }
    let designs = [
        ("network.fattree.tapering=3", "k = 3 or 6 would fit"),
        ("network.fattree.radix=6", "raise radix to 8"),
        ("network.fattree.k=8", "set nodes = 64"),
        ("network.fattree.levels=3", "set nodes = 64"),
    ];
    for (set, msg) in designs {
        let (code, _, err) = sim(&["check", &m, "--set", set]);
        assert_eq!(code, 1, "{set}");
        assert!(err.contains(msg), "{set}: {err}");
    }
}

#[test]
fn every_app_replays_under_both_routings() {
    let m = config("fattree-16.toml");
    for routing in ["dmodk", "adaptive"] {
        for app in apps() {
            let set = format!("network.fattree.routing={routing}");
            let (code, out, err) = sim(&[app.to_str().unwrap(), "-m", &m, "--set", &set]);
            assert_eq!(code, 0, "{} {routing}: {err}", app.display());
            assert!(out.contains("network (fattree):") && out.contains("collectives expanded"), "{out}");
        }
    }
}

#[test]
fn synth_runs_on_the_512_node_tree() {
    let m = config("fattree-512.toml");
    for routing in ["dmodk", "adaptive"] {
        let set = format!("network.fattree.routing={routing}");
        let args = [
            "synth",
            "-m",
            &m,
            "--set",
            &set,
            "--pattern",
            "uniform",
            "--load",
            "0.2",
            "--warmup",
            "300",
            "--measure",
            "1000",
        ];
        let (code, out, err) = sim(&args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("fat-tree down [8, 8, 8]") && out.contains("accepted"), "{out}");
    }
    let (code, _, err) = sim(&["synth", "-m", &m, "--pattern", "transpose"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("transpose needs"), "{err}");
}

#[test]
fn replay_reports_level_utilisation() {
    let m = config("fattree-16.toml");
    let (code, out, err) = sim(&["gen:stencil2d:ranks=16,iters=2", "-m", &m]);
    assert_eq!(code, 0, "{err}");
    for key in ["level_utilisation", "avg_latency_cycles", "avg_hops", "fat-tree down [4, 4] up [4]"] {
        assert!(out.contains(key), "no {key} in\n{out}");
    }
}
