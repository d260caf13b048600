//! The `flow` model as a user runs it: on each graph (torus, fat-tree, dragonfly) every test
//! app replays and predicts within 5 % of the packet model (the apps' messages rarely
//! contend), `check` prints `[network.flow]`, a bad topology is an error with its line and a
//! node count that does not match the graph names what would fit.

use crate::binary;
use binary::*;
use std::path::Path;

#[test]
fn every_app_on_every_graph_agrees_with_the_packet_model() {
    for (machine, topology) in
        [("torus-4x4.toml", "torus"), ("fattree-16.toml", "fattree"), ("dragonfly-72.toml", "dragonfly")]
    {
        let m = config(machine);
        let flow = ["--set", "network.model=flow", "--set"];
        let topo = format!("network.flow.topology={topology}");
        for app in apps() {
            let a = app.to_str().unwrap();
            let (code, out, err) = sim(&[&[a, "-m", &m][..], &flow, &[topo.as_str()]].concat());
            assert_eq!(code, 0, "{a} on {machine}: {err}");
            assert!(out.contains("network (flow):") && out.contains("flow over the"), "{out}");
            let (_, packets, _) = sim(&[a, "-m", &m]);
            let (f, p) = (predicted(&out), predicted(&packets));
            assert!((f - p).abs() <= 0.05 * p, "{a} on {machine}: flow {f} s, packets {p} s");
        }
    }
}

#[test]
fn check_and_errors() {
    let m = config("fattree-16.toml");
    let (code, out, err) = sim(&["check", &m, "--set", "network.model=flow"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[network.flow]\ntopology = \"fattree\""), "{out}");
    let (code, _, err) = sim(&["check", &m, "--set", "network.model=flow", "--set", "network.flow.topology=ring"]);
    assert_eq!(code, 1);
    assert!(err.contains("--set network.flow.topology=ring: unknown variant `ring`"), "{err}");
    let (code, _, err) = sim(&["check", &m, "--set", "network.model=flow", "--set", "network.flow.topology=dragonfly"]);
    assert_eq!(code, 1);
    assert!(err.contains("set nodes = 72"), "{err}");
    let (_, out, _) = sim(&["--list-models"]);
    assert!(out.lines().any(|l| l.starts_with("flow ")), "{out}");
    // The bundled twins of the 512-node and the 65,536-node fat-trees and of the 1,056-node
    // dragonfly, and the million-rank fat-tree.
    for (name, topology) in [
        ("fattree-512-flow.toml", "fattree"),
        ("fattree-64k-flow.toml", "fattree"),
        ("dragonfly-1056-flow.toml", "dragonfly"),
        ("fattree-1m-flow.toml", "fattree"),
    ] {
        let (code, out, err) = sim(&["check", &config(name)]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("model = \"flow\"") && out.contains(&format!("topology = \"{topology}\"")), "{out}");
    }
    let (code, out, err) = sim(&["gen:stencil2d:ranks=64,iters=1", "-m", &config("fattree-512-flow.toml")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("flows"), "{out}");
}

#[test]
fn flow_runs_on_every_flat_machine() {
    // The flat cluster (no topology section): an up and a down link per node to one crossbar.
    // Every app replays; pingpong, one message at a time, takes exactly what the
    // contention-free simple model gives (L + S/B per message, to the rounding of ps).
    for machine in
        ["bus-cluster.toml", "fat-simple.toml", "inlink-cluster.toml", "outlink-cluster.toml", "pmac-cluster.toml"]
    {
        let m = config(machine);
        for app in apps() {
            let a = app.to_str().unwrap();
            let (code, out, err) = sim(&[a, "-m", &m, "--set", "network.model=flow"]);
            assert_eq!(code, 0, "{a} on {machine}: {err}");
            assert!(out.contains("flow over a cluster of") && out.contains("no backbone"), "{out}");
            if a.ends_with("pingpong.psins") {
                let f = predicted_exact(&[a, "-m", &m, "--set", "network.model=flow"]);
                let s = predicted_exact(&[a, "-m", &m, "--set", "network.model=simple"]);
                assert!((f - s).abs() <= 1e-8 * s, "{a} on {machine}: flow {f} s, simple {s} s");
            }
        }
    }
    // A backbone: printed by check, refused on a graph, and a narrow one slows the stencil.
    let m = config("bus-cluster.toml");
    let set = ["--set", "network.model=flow", "--set", "network.flow.backbone=1GB/s"];
    let (code, out, err) = sim(&[&["check", &m][..], &set].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[network.flow]\ntopology = \"cluster\"\nbackbone = \"1GB/s\""), "{out}");
    let stencil = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/apps/stencil3d.psins");
    let s = stencil.to_str().unwrap();
    let wide = predicted_exact(&[s, "-m", &m, "--set", "network.model=flow"]);
    let narrow = predicted_exact(&[&[s, "-m", &m][..], &set].concat());
    assert!(narrow > wide, "narrow {narrow} s, wide {wide} s");
    let (code, _, err) = sim(&[&["check", &config("fattree-16.toml")][..], &set].concat());
    assert_eq!(code, 1);
    assert!(err.contains("backbone is for topology = \"cluster\" only"), "{err}");
}
