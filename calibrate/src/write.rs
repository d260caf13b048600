//! The calibration as psins-sim files: the machine file (`[[intra.band]]`/`[[network.band]]`,
//! `[[self.band]]`, the eager threshold, `[calibrated]` provenance) and the pmac collective
//! curves beside it.

use crate::fit::{figure, BandFit, Calibration};
use crate::samples::Samples;
use std::collections::BTreeSet;
use std::fmt::Write;

/// How the run was made, for `[calibrated]`.
pub struct Provenance<'a> {
    pub at: String,
    pub launcher: &'a str,
    pub buffers: &'a str,
    pub trials: u32,
    /// Worker launches the trials were pooled over (each ran `trials`).
    pub launches: u32,
    pub name: &'a str,
    /// File name of the curves, relative to the machine file.
    pub curves: &'a str,
    /// Which trials were left out and why (states.rs), if any were.
    pub left_out: Option<&'a str>,
    /// Whether the ranks' messages on one host go through its memory (shared memory), so
    /// that the node's copy bandwidth is written; false with `--no-memory-sharing`.
    pub memory_sharing: bool,
}

/// "21 trials (3 launches of 7)", or "7 trials" for one launch; "… less those left out" when
/// some were.
fn pooled(p: &Provenance) -> String {
    let all = match p.launches {
        1 => format!("{} trials", p.trials),
        n => format!("{} trials ({n} launches of {})", n * p.trials, p.trials),
    };
    if p.left_out.is_some() {
        format!("{all} less those left out")
    } else {
        all
    }
}

fn us(s: f64) -> String {
    format!("\"{:.4}us\"", s * 1e6)
}
fn gbps(b: f64) -> String {
    format!("\"{:.4}GB/s\"", b / 1e9)
}

pub fn machine(c: &Calibration, s: &Samples, p: &Provenance) -> String {
    let mut o = String::new();
    let hosts: BTreeSet<&str> = s.ranks.iter().map(|r| r.host.as_str()).collect();
    let ranks = s.ranks.len().max(2) as u32;
    let nodes = hosts.len().max(1) as u32;
    let _ = writeln!(o, "# Written by psins-calibrate {}: measured, not edited.", env!("CARGO_PKG_VERSION"));
    if let Some(why) = p.left_out {
        let _ = writeln!(o, "# {why}");
    }
    let _ = writeln!(
        o,
        "# Half round trips (20 % trimmed mean of {}; the width of its 95 % interval; the spread: the width of the narrowest majority of the trials), {} buffers:",
        pooled(p),
        p.buffers
    );
    for (b, f) in &c.pingpong {
        let _ = write!(
            o,
            "#   {b:>8} B  {:>10.3} us  interval {:>4.1} %  spread {:>4.1} %",
            f.value * 1e6,
            f.interval * 100.0,
            f.spread * 100.0
        );
        if let Some((k, at)) = f.apart {
            let _ = write!(o, "  (another mode: {k} trials near {:.3} us)", at * 1e6);
        }
        let _ = writeln!(o);
    }
    if !c.pingpong_other.is_empty() {
        let other = if p.buffers == "cold" { "warm" } else { "cold" };
        let _ = write!(o, "# {other} buffers, for comparison (us):");
        for (b, f) in &c.pingpong_other {
            let _ = write!(o, " {b}:{:.3}", f.value * 1e6);
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "# memory copy bandwidth {:.2} GB/s", c.memcpy_bandwidth / 1e9);
    if !c.exchange.is_empty() {
        let _ = write!(o, "# exchanges, both ranks sending at once (us, and the crossing cost fitted):");
        for (b, x, h) in &c.exchange {
            let _ = write!(o, " {b}:{:.3}/{:.3}", x * 1e6, h * 1e6);
        }
        let _ = writeln!(o);
    }
    if !c.self_path.is_empty() {
        let _ = write!(o, "# a rank's message to itself, Irecv + Isend + Waitall (us):");
        for (b, t) in &c.self_path {
            let _ = write!(o, " {b}:{:.3}", t * 1e6);
        }
        let _ = writeln!(o);
    }
    if !c.capped.is_empty() {
        let sizes: Vec<String> = c.capped.iter().map(u64::to_string).collect();
        let _ = writeln!(o, "# overheads scaled down to fit the round trip at: {} B", sizes.join(", "));
    }
    let _ = writeln!(o, "\n[calibrated]\nby = \"psins-calibrate {}\"", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(o, "at = {:?}\nhost = {:?}", p.at, hosts.iter().copied().collect::<Vec<_>>().join(","));
    let _ = writeln!(o, "launcher = {:?}\nmpi_library = {:?}", p.launcher, s.mpi_library);
    let _ = writeln!(o, "buffers = {:?}\ntrials = {}\nlaunches = {}", p.buffers, p.trials, p.launches);
    if let Some(why) = &c.noisy {
        let _ = writeln!(o, "noisy = {why:?}");
    }
    // What `psins-calibrate --check` measures again later (warm buffers: bytes, figure, spread).
    let warm = if p.buffers == "warm" { &c.pingpong } else { &c.pingpong_other };
    let _ = writeln!(o, "{}", crate::check::toml_line(&crate::check::pick(warm)));
    let _ =
        writeln!(o, "\n[machine]\nname = {:?}\nnodes = {nodes}\ncores_per_node = {}", p.name, ranks.div_ceil(nodes));
    // Both ranks on one host through its memory: the node's copy bandwidth, which the
    // [intra] bands' crossing costs then leave out (fit.rs, `memory_fit`).
    let memory = c.memory.as_ref().filter(|_| nodes == 1 && p.memory_sharing);
    if let Some(m) = memory {
        let from: Vec<String> = m.from.iter().map(|(b, bw)| format!("{b}:{:.2}", bw / 1e9)).collect();
        let _ = writeln!(o, "# the node's copy bandwidth from each large exchange (GB/s): {}", from.join(" "));
        let _ = writeln!(o, "memory_bandwidth = {}", gbps(m.bandwidth));
    }
    if let Some(e) = c.eager_threshold {
        let _ = writeln!(o, "\n[mpi]\neager_threshold = {e}");
    }
    // Both ranks on one host measured the intra-node path; on two, the network. The other
    // section gets the same figures (an unmeasured path has nothing better).
    let nominal = c.bands.last().map_or(1e9, |b| b.bandwidth);
    let sections: &[&str] = if nodes == 1 { &["intra", "network"] } else { &["network"] };
    for sec in sections {
        let _ = writeln!(o, "\n[{sec}]");
        if *sec == "network" {
            // pmac: point-to-point as `simple` while one message at a time crosses a node's
            // link, and the collectives this run measured from their curves (the others
            // from their algorithm).
            let _ = writeln!(o, "model = \"pmac\"");
            let _ = writeln!(o, "calibration = {:?}", p.curves);
            // Two ranks measure one link, not a machine-wide bus: leave the bus unlimited.
            let _ = writeln!(o, "buses = 65536");
        }
        let _ = writeln!(o, "latency = {}\nbandwidth = {}", us(c.latency), gbps(nominal));
        for (i, b) in c.bands.iter().enumerate() {
            match memory.and_then(|m| m.cross.get(i)).filter(|_| *sec == "intra") {
                Some(&(cross_overhead, cross_rate)) => band(&mut o, sec, &BandFit { cross_overhead, cross_rate, ..*b }),
                None => band(&mut o, sec, b),
            }
        }
    }
    // A message to itself (scattered alltoall's own block): its measured time as the
    // sender's overhead over a free wire (fit.rs, `self_bands`).
    if !c.own.is_empty() {
        let _ = writeln!(o, "\n[self]\nlatency = {}\nbandwidth = {}", us(0.0), gbps(crate::fit::SELF_WIRE));
        for b in &c.own {
            band(&mut o, "self", b);
        }
    }
    o
}

fn band(o: &mut String, sec: &str, b: &BandFit) {
    let _ = writeln!(o, "[[{sec}.band]]");
    if let Some(u) = b.upto {
        let _ = writeln!(o, "upto = {u}");
    }
    let _ = writeln!(o, "latency = {}\nbandwidth = {}", us(b.latency), gbps(b.bandwidth));
    let _ = writeln!(o, "send_overhead = {}", us(b.send_overhead));
    if let Some(r) = b.send_rate {
        let _ = writeln!(o, "send_rate = {}", gbps(r));
    }
    let _ = writeln!(o, "recv_overhead = {}", us(b.recv_overhead));
    if let Some(r) = b.recv_rate {
        let _ = writeln!(o, "recv_rate = {}", gbps(r));
    }
    if b.cross_overhead > 0.0 || b.cross_rate.is_some() {
        let _ = writeln!(o, "cross_overhead = {}", us(b.cross_overhead));
    }
    if let Some(r) = b.cross_rate {
        let _ = writeln!(o, "cross_rate = {}", gbps(r));
    }
}

/// pmac's `[[curve]]` entries: the time of one call per size (fit::figure).
pub fn curves(s: &Samples, p: &Provenance) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Collective curves written by psins-calibrate {} at {}", env!("CARGO_PKG_VERSION"), p.at);
    let _ = writeln!(o, "# bytes: per-rank size (allgather: each rank's part; alltoall: per peer); seconds: 20 % trimmed mean of {} of the mean call time, slowest rank", pooled(p));
    if let Some(why) = p.left_out {
        let _ = writeln!(o, "# {why}");
    }
    let names: BTreeSet<(&str, u32)> = s.collectives.keys().map(|(n, r, _)| (n.as_str(), *r)).collect();
    for (name, ranks) in names {
        let pts: Vec<(u64, f64)> = s
            .collectives
            .iter()
            .filter(|((n, r, _), _)| n == name && *r == ranks)
            .map(|((_, _, b), t)| (*b, figure(t).value))
            .collect();
        let bytes: Vec<String> = pts.iter().map(|p| p.0.to_string()).collect();
        let secs: Vec<String> = pts.iter().map(|p| format!("{:.6e}", p.1)).collect();
        let _ = writeln!(
            o,
            "\n[[curve]]\ncollective = {name:?}\nranks = {ranks}\nbytes = [{}]\nseconds = [{}]",
            bytes.join(", "),
            secs.join(", ")
        );
    }
    o
}
