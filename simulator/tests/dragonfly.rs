//! The `dragonfly` model as a user runs it: `check` prints the section, bad keys and
//! impossible designs are one error naming the key, every test app replays on the small
//! dragonfly under every routing, `synth` runs on the bundled 1,056-node dragonfly
//! (adversarial group shift included), the report shows the network statistics.

use crate::binary;
use binary::*;

#[test]
fn bundled_dragonflies_check_and_print_every_key() {
    for (name, nodes) in [("dragonfly-72.toml", 72), ("dragonfly-1056.toml", 1056)] {
        let (code, out, err) = sim(&["check", &config(name)]);
        assert_eq!(code, 0, "{name}: {err}");
        for key in
            ["[network.dragonfly]", "p = ", "g = ", "arrangement = \"absolute\"", "routing = \"minimal\"", "vcs = 2"]
        {
            assert!(out.contains(key), "{name}: no {key} in\n{out}");
        }
        assert!(out.contains(&format!("# {nodes} nodes")), "{name}: {out}");
    }
    // The VCs follow the routing unless set.
    let (_, out, _) = sim(&["check", &config("dragonfly-72.toml"), "--set", "network.dragonfly.routing=ugal-g"]);
    assert!(out.contains("vcs = 3"), "{out}");
    let (_, out, _) = sim(&["--list-models"]);
    assert!(out.lines().any(|l| l.starts_with("dragonfly ")), "{out}");
}

#[test]
fn bad_keys_and_impossible_designs_name_the_key() {
    let m = config("dragonfly-72.toml");
    let cases = [
        ("network.dragonfly.vcs=5", "5 is out of range: expected 1 to 4"),
        ("network.dragonfly.routing=par", "unknown variant `par`"),
        ("network.dragonfly.arrangement=random", "unknown variant `random`"),
        ("network.dragonfly.groups=3", "unknown field `groups`"),
    ];
    for (set, msg) in cases {
        let (code, _, err) = sim(&["check", &m, "--set", set]);
        assert_eq!(code, 1, "{set}");
        assert!(err.contains(msg) && err.contains(&format!("--set {set}")), "{set}: {err}");
    }
    let designs: [(&[&str], &str); 4] = [
        (&["network.dragonfly.g=12"], "g ≤ 9 would fit"),
        (&["network.dragonfly.g=8"], "g = 2, 3, 5, 9 would fit"),
        (&["network.dragonfly.routing=valiant", "network.dragonfly.vcs=2"], "set vcs = 3"),
        (&["network.dragonfly.g=5"], "set nodes = 40"),
    ];
    for (sets, msg) in designs {
        let mut args = vec!["check", m.as_str()];
        for s in sets {
            args.extend(["--set", s]);
        }
        let (code, _, err) = sim(&args);
        assert_eq!(code, 1, "{sets:?}");
        assert!(err.contains(msg), "{sets:?}: {err}");
    }
}

#[test]
fn every_app_replays_under_every_routing() {
    let m = config("dragonfly-72.toml");
    for routing in ["minimal", "valiant", "ugal-l", "ugal-g"] {
        for app in apps() {
            let set = format!("network.dragonfly.routing={routing}");
            // The four ranks in four groups, so messages cross global links.
            let spread = ["--set", "machine.mapping=list", "--set", "machine.node_of_rank=[0, 21, 42, 70]"];
            let (code, out, err) = sim(&[&[app.to_str().unwrap(), "-m", &m, "--set", &set][..], &spread].concat());
            assert_eq!(code, 0, "{} {routing}: {err}", app.display());
            assert!(out.contains("network (dragonfly):") && out.contains("collectives expanded"), "{out}");
        }
    }
}

#[test]
fn synth_runs_on_the_1056_node_dragonfly() {
    let m = config("dragonfly-1056.toml");
    for (routing, pattern) in [("minimal", "uniform"), ("ugal-l", "group-shift"), ("valiant", "group-shift")] {
        let set = format!("network.dragonfly.routing={routing}");
        let args = [
            "synth",
            "-m",
            &m,
            "--set",
            &set,
            "--pattern",
            pattern,
            "--load",
            "0.2",
            "--warmup",
            "300",
            "--measure",
            "800",
        ];
        let (code, out, err) = sim(&args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("dragonfly p=4 a=8 h=4 g=33") && out.contains("accepted"), "{out}");
    }
    let (code, _, err) = sim(&["synth", "-m", &config("fattree-16.toml"), "--pattern", "group-shift"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("group-shift needs"), "{err}");
}

#[test]
fn replay_reports_link_class_utilisation() {
    let m = config("dragonfly-72.toml");
    let (code, out, err) = sim(&["gen:stencil2d:ranks=72,iters=2", "-m", &m]);
    assert_eq!(code, 0, "{err}");
    for key in ["class_utilisation", "avg_latency_cycles", "avg_hops", "dragonfly p=2 a=4 h=2 g=9"] {
        assert!(out.contains(key), "no {key} in\n{out}");
    }
}
