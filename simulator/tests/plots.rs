//! `--plot FILE.svg` as a user runs it: a replay's per-rank bars, a sweep's lines and a
//! synthetic latency curve are well-formed SVG with exactly the bars, points and legend
//! entries their runs give; a chart that cannot be written stops the run before it starts.
//! (scripts/plot-check.sh renders them with Chromium and looks at the pictures.)

use crate::common;
use common::*;
use std::path::Path;
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

fn sim(args: &[&str]) -> (i32, String) {
    let o = Command::new(SIM).args(args).env_remove("SLURM_ARRAY_TASK_ID").output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into())
}

/// The SVG's texts and its element count by tag.
fn svg(p: &Path) -> (Vec<String>, impl Fn(&str) -> usize) {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| n.text().unwrap_or("").trim().to_string());
    let texts: Vec<String> = texts.collect();
    let tags: Vec<String> = doc.descendants().filter(|n| n.is_element()).map(|n| n.tag_name().name().into()).collect();
    (texts, move |t: &str| tags.iter().filter(|x| *x == t).count())
}

fn has(texts: &[String], want: &str) -> bool {
    texts.iter().any(|t| t == want)
}

fn machine() -> String {
    let m = tmp("plots-m.toml");
    std::fs::write(&m, BASE).unwrap();
    m.to_str().unwrap().to_string()
}

#[test]
fn a_replay_draws_three_stacked_bars_per_rank() {
    let (m, out) = (machine(), tmp("ranks.svg"));
    let (code, err) = sim(&["gen:stencil2d:ranks=4,iters=3", "-m", &m, "-q", "--plot", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (texts, count) = svg(&out);
    let title = "Predicted time per rank: gen:stencil2d:ranks=4,iters=3 on ";
    assert!(texts[0].starts_with(title) && texts[0].ends_with("plots-m.toml"), "{texts:?}");
    for want in ["rank", "0", "1", "2", "3", "computation", "communication (not waiting)", "waiting"] {
        assert!(has(&texts, want), "{want} in {texts:?}");
    }
    assert!(texts.iter().any(|t| t.starts_with("time (")), "{texts:?}");
    // Background, 4 ranks x 3 layers, the legend's fill and border, 3 swatches.
    assert_eq!(count("rect"), 1 + 12 + 2 + 3);
}

/// A traced run's per-rank bars carry its measured time as a line across them, named in the
/// legend with the rank it belongs to.
#[test]
fn a_traced_run_marks_its_measured_time() {
    let (m, out) = (machine(), tmp("ranks-measured.svg"));
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/apps/stencil2d.psins");
    let (code, err) = sim(&[trace, "-m", &m, "-q", "--plot", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (texts, _) = svg(&out);
    let mark = texts.iter().find(|t| t.starts_with("measured run: ")).unwrap_or_else(|| panic!("{texts:?}"));
    assert!(mark.contains(" (rank ") && mark.ends_with(')'), "{mark}");
}

#[test]
fn a_sweep_draws_a_line_per_value_of_the_other_axis() {
    let (m, dir, out) = (machine(), tmp("plots-sweep"), tmp("sweep.svg"));
    let args = [
        "sweep",
        "gen:stencil2d:ranks=4,iters=3,bytes=64KiB",
        "-m",
        &m,
        "--vary",
        "network.bandwidth=1GB/s..4GB/s*2",
        "--vary",
        "network.latency=1us,2us",
        "-o",
        dir.to_str().unwrap(),
        "-q",
        "--plot",
        out.to_str().unwrap(),
    ];
    let (code, err) = sim(&args);
    assert_eq!(code, 0, "{err}");
    let (texts, count) = svg(&out);
    for want in ["network.bandwidth (GB/s)", "network.latency=1us", "network.latency=2us"] {
        assert_eq!(texts.iter().filter(|t| *t == want).count(), 1, "{want} in {texts:?}");
    }
    // 3 bandwidths x 2 latencies, and each line's mark in the legend.
    assert_eq!(count("circle"), 6 + 2);
    // merge --plot draws the same chart.
    let again = tmp("sweep-merge.svg");
    let (code, err) = sim(&["sweep", "merge", dir.to_str().unwrap(), "-q", "--plot", again.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn a_synthetic_sweep_marks_saturation() {
    let (csv, out) = (tmp("curve.csv"), tmp("curve.svg"));
    let m = format!("{}/../configs/torus-4x4.toml", env!("CARGO_MANIFEST_DIR"));
    let args = ["synth", "-m", &m, "--sweep", csv.to_str().unwrap(), "--plot", out.to_str().unwrap()];
    let o = Command::new(SIM)
        .args(args)
        .args(["--loads", "0.1,1.0", "--warmup", "200", "--measure", "1000"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // Full load on a 4x4 torus under uniform traffic is past saturation, a tenth is not.
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("load ")).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(!lines[0].contains("saturated") && lines[1].contains("saturated"), "{stdout}");
    let (texts, count) = svg(&out);
    for want in ["average", "99th percentile", "saturated from load 1", "packet latency (cycles, log scale)"] {
        assert!(has(&texts, want), "{want} in {texts:?}");
    }
    assert_eq!(count("circle"), 4 + 2);
}

#[test]
fn an_unwritable_chart_stops_the_run_before_it_starts() {
    let m = machine();
    // A directory that cannot be made (/proc takes none, even from root).
    let out = std::path::PathBuf::from("/proc/psins-no-such-dir/ranks.svg");
    let json = tmp("plots-unwritten.json");
    let (code, err) = sim(&[
        "gen:stencil2d:ranks=4,iters=3",
        "-m",
        &m,
        "-q",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("ranks.svg"), "{err}");
    assert!(!json.exists(), "the replay ran: {err}");
}

/// --plot-sizes: the replayed messages' sizes. One 1000 B and two 3000 B messages: bars of
/// 512 and 2Ki (counts 1 and 2) with the empty 1Ki bin between as a gap. A replay without
/// messages has no sizes to draw: one error naming the option and the file, exit 1, no file.
#[test]
fn a_replay_draws_its_message_sizes() {
    let tasks = vec![
        vec![send(0, 1, 1000), send(0, 1, 3000), send(0, 1, 3000), fin()],
        vec![recv(0, 0, 1000), recv(0, 0, 3000), recv(0, 0, 3000), fin()],
    ];
    let (m, trace, out) = (machine(), write("sizes.psins", &tasks, vec![]), tmp("sizes.svg"));
    let (code, err) = sim(&[trace.to_str().unwrap(), "-m", &m, "-q", "--plot-sizes", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (texts, count) = svg(&out);
    assert!(texts[0].starts_with("Message sizes replayed: ") && texts[0].contains("sizes.psins on "), "{texts:?}");
    for want in ["512", "1Ki", "2Ki", "messages"] {
        assert!(has(&texts, want), "{want} in {texts:?}");
    }
    // The background and one bar per bin (the empty one of height 0); one layer, no legend.
    assert_eq!(count("rect"), 1 + 3);
    let heights: Vec<f64> = {
        let text = std::fs::read_to_string(&out).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let rects = doc.descendants().filter(|n| n.has_tag_name("rect")).skip(1);
        rects.map(|n| n.attribute("height").unwrap().parse().unwrap()).collect()
    };
    assert_eq!(heights.len(), 3);
    assert_eq!((heights[1], heights[2] / heights[0]), (0.0, 2.0), "{heights:?}");

    let silent = write("silent.psins", &[vec![fin()], vec![fin()]], vec![]);
    let none = tmp("none.svg");
    let (code, err) = sim(&[silent.to_str().unwrap(), "-m", &m, "-q", "--plot-sizes", none.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--plot-sizes") && err.contains("none.svg") && err.contains("no messages"), "{err}");
    assert!(!none.exists());
}
