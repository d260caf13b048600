//! The calibration as psins-sim files: the machine file (`[[intra.band]]`/`[[network.band]]`,
//! `[[self.band]]`, the eager threshold, `[calibrated]` provenance) and the pmac collective
//! curves beside it.

use crate::fit::{figure, BandFit, Calibration};
use crate::samples::Samples;
use psins_machine::curves::{Curve, Curves};
use psins_machine::file::{
    BandSection, CalibratedSection, CheckPoint, LinkSection, MachineFile, MachineSection, MpiSection, NetworkSection,
};
use psins_units::{Bandwidth, Bytes, Time};
use std::collections::BTreeSet;

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
    /// Write `serial_receive` on the bands the worker found serial (not with `--no-serial-receive`).
    pub serial_receive: bool,
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

/// Seconds as a machine file's time (whole picoseconds).
fn time(s: f64) -> Time {
    Time((s * 1e12).round().max(0.0) as u64)
}

/// The header's comment lines: what was measured, as the fits saw it.
fn measured(c: &Calibration, p: &Provenance) -> Vec<String> {
    let mut o = vec![format!("Written by psins-calibrate {}: measured, not edited.", env!("CARGO_PKG_VERSION"))];
    if let Some(why) = p.left_out {
        o.push(why.to_string());
    }
    o.push(format!(
        "Half round trips (20 % trimmed mean of {}; the width of its 95 % interval; the spread: the width of the narrowest majority of the trials), {} buffers:",
        pooled(p),
        p.buffers
    ));
    for (b, f) in &c.pingpong {
        let mut line = format!(
            "  {b:>8} B  {:>10.3} us  interval {:>4.1} %  spread {:>4.1} %",
            f.value * 1e6,
            f.interval * 100.0,
            f.spread * 100.0
        );
        if let Some((k, at)) = f.apart {
            line += &format!("  (another mode: {k} trials near {:.3} us)", at * 1e6);
        }
        o.push(line);
    }
    let list = |v: Vec<String>| v.join(" ");
    if !c.pingpong_other.is_empty() {
        let other = if p.buffers == "cold" { "warm" } else { "cold" };
        let v = c.pingpong_other.iter().map(|(b, f)| format!("{b}:{:.3}", f.value * 1e6)).collect();
        o.push(format!("{other} buffers, for comparison (us): {}", list(v)));
    }
    o.push(format!("memory copy bandwidth {:.2} GB/s", c.memcpy_bandwidth / 1e9));
    if !c.exchange.is_empty() {
        let v = c.exchange.iter().map(|(b, x, h)| format!("{b}:{:.3}/{:.3}", x * 1e6, h * 1e6)).collect();
        o.push(format!("exchanges, both ranks sending at once (us, and the crossing cost fitted): {}", list(v)));
    }
    if !c.self_path.is_empty() {
        let v = c.self_path.iter().map(|(b, t)| format!("{b}:{:.3}", t * 1e6)).collect();
        o.push(format!("a rank's message to itself, Irecv + Isend + Waitall (us): {}", list(v)));
    }
    if !c.capped.is_empty() {
        let sizes: Vec<String> = c.capped.iter().map(u64::to_string).collect();
        o.push(format!("overheads scaled down to fit the round trip at: {} B", sizes.join(", ")));
    }
    o
}

pub fn machine(c: &Calibration, s: &Samples, p: &Provenance) -> String {
    let hosts: BTreeSet<&str> = s.ranks.iter().map(|r| r.host.as_str()).collect();
    let ranks = s.ranks.len().max(2) as u32;
    let nodes = hosts.len().max(1) as u32;
    // Both ranks on one host through its memory: the node's copy bandwidth, which the
    // [intra] bands' crossing costs then leave out (fit.rs, `memory_fit`).
    let through_memory = nodes == 1 && p.memory_sharing;
    let memory = c.memory.as_ref().filter(|_| through_memory);
    // What `psins-calibrate --check` measures again later (warm buffers: bytes, figure, spread).
    let warm = if p.buffers == "warm" { &c.pingpong } else { &c.pingpong_other };
    let check = crate::check::pick(warm)
        .iter()
        .map(|r| CheckPoint {
            bytes: r.bytes,
            half_rtt: time(r.half_rtt),
            spread: Some((r.spread * 1000.0).round() / 1000.0),
        })
        .collect();
    // Both ranks on one host measured the intra-node path; on two, the network. The other
    // section gets the same figures (an unmeasured path has nothing better).
    let nominal = Bandwidth(c.bands.last().map_or(1e9, |b| b.bandwidth));
    // A band whose incoming copies the receiver makes one at a time (fit.rs, `serial_fit`),
    // where both ranks share the node's memory, unless --no-serial-receive.
    let serial =
        |i: usize| (through_memory && p.serial_receive && c.serial.per_band.get(i) == Some(&true)).then_some(true);
    let intra_bands = c
        .bands
        .iter()
        .enumerate()
        .map(|(i, b)| match memory.and_then(|m| m.cross.get(i).map(|c| (c, m.per_band[i]))) {
            Some((&(cross_overhead, cross_rate), own)) => BandSection {
                memory_bandwidth: own.map(Bandwidth),
                serial_receive: serial(i),
                ..band(&BandFit { cross_overhead, cross_rate, ..*b })
            },
            None => BandSection { serial_receive: serial(i), ..band(b) },
        })
        .collect();
    let file = MachineFile {
        machine: MachineSection {
            name: Some(p.name.to_string()),
            nodes,
            cores_per_node: ranks.div_ceil(nodes),
            mapping: Default::default(),
            node_of_rank: None,
            cpu_ratio: None,
            clock: None,
            base_clock: None,
            cpu: Vec::new(),
            memory_bandwidth: None,
        },
        intra: (nodes == 1).then(|| LinkSection { latency: time(c.latency), bandwidth: nominal, band: intra_bands }),
        // A message to itself (scattered alltoall's own block): its measured time as the
        // sender's overhead over a free wire (fit.rs, `self_bands`).
        own: (!c.own.is_empty()).then(|| LinkSection {
            latency: Time(0),
            bandwidth: Bandwidth(crate::fit::SELF_WIRE),
            band: c.own.iter().map(band).collect(),
        }),
        mpi: MpiSection {
            eager_threshold: c.eager_threshold.map(Bytes),
            irecv_overhead: c.irecv_overhead.map(time),
            ..Default::default()
        },
        network: NetworkSection {
            // pmac: point-to-point as `simple` while one message at a time crosses a node's
            // link, and the collectives this run measured from their curves (the others from
            // their algorithm).
            model: "pmac".into(),
            latency: time(c.latency),
            bandwidth: nominal,
            band: c.bands.iter().map(band).collect(),
            // Two ranks measure one link, not a machine-wide bus: leave the bus unlimited.
            buses: Some(65536),
            in_links: None,
            out_links: None,
            calibration: Some(p.curves.to_string()),
            torus: None,
            fattree: None,
            dragonfly: None,
            flow: None,
        },
        calibrated: Some(CalibratedSection {
            by: Some(format!("psins-calibrate {}", env!("CARGO_PKG_VERSION"))),
            at: Some(p.at.clone()),
            host: Some(hosts.iter().copied().collect::<Vec<_>>().join(",")),
            launcher: Some(p.launcher.to_string()),
            mpi_library: Some(s.mpi_library.clone()),
            buffers: Some(p.buffers.to_string()),
            trials: Some(p.trials),
            launches: Some(p.launches),
            noisy: c.noisy.clone(),
            check: Some(check),
        }),
    };
    let mut notes: Vec<(&[&str], Vec<String>)> = vec![(&["machine"], measured(c, p))];
    let mut intra_notes = Vec::new();
    if let Some(m) = memory {
        let from: Vec<String> = m.from.iter().map(|(b, bw)| format!("{b}:{:.2}", bw / 1e9)).collect();
        intra_notes.push(format!(
            "the node's copy bandwidth from each exchange clearly slower than a one-way message (GB/s): {}; each band's memory_bandwidth is the median of those among its sizes",
            from.join(" ")
        ));
    }
    if through_memory && !c.serial.from.is_empty() {
        let from: Vec<String> = c.serial.from.iter().map(|(b, r)| format!("{b}:{r:.2}")).collect();
        intra_notes.push(format!(
            "two messages each way over one each way (size:ratio): {}; serial_receive where a band's median is {} or more (none with --no-serial-receive)",
            from.join(" "),
            crate::fit::SERIAL_RATIO
        ));
    }
    if !intra_notes.is_empty() {
        notes.push((&["intra"], intra_notes));
    }
    file.to_toml(&notes)
}

fn band(b: &BandFit) -> BandSection {
    let crossing = b.cross_overhead > 0.0 || b.cross_rate.is_some();
    BandSection {
        upto: b.upto.map(Bytes),
        latency: Some(time(b.latency)),
        bandwidth: Some(Bandwidth(b.bandwidth)),
        send_overhead: Some(time(b.send_overhead)),
        send_rate: b.send_rate.map(Bandwidth),
        recv_overhead: Some(time(b.recv_overhead)),
        recv_rate: b.recv_rate.map(Bandwidth),
        cross_overhead: crossing.then(|| time(b.cross_overhead)),
        cross_rate: b.cross_rate.map(Bandwidth),
        memory_bandwidth: None,
        serial_receive: None,
    }
}

/// pmac's `[[curve]]` entries: the time of one call per size (fit::figure).
pub fn curves(s: &Samples, p: &Provenance) -> String {
    let mut head = vec![
        format!("Collective curves written by psins-calibrate {} at {}", env!("CARGO_PKG_VERSION"), p.at),
        format!("bytes: per-rank size (allgather: each rank's part; alltoall: per peer); seconds: 20 % trimmed mean of {} of the mean call time, slowest rank", pooled(p)),
    ];
    if let Some(why) = p.left_out {
        head.push(why.to_string());
    }
    let names: BTreeSet<(&str, u32)> = s.collectives.keys().map(|(n, r, _)| (n.as_str(), *r)).collect();
    let curve = names
        .into_iter()
        .map(|(name, ranks)| {
            let (bytes, seconds) = s
                .collectives
                .iter()
                .filter(|((n, r, _), _)| n == name && *r == ranks)
                // Seven significant digits: the trials agree to far fewer.
                .map(|((_, _, b), t)| (*b, format!("{:.6e}", figure(t).value).parse::<f64>().unwrap_or(0.0)))
                .unzip();
            Curve { collective: name.to_string(), ranks, bytes, seconds }
        })
        .collect();
    Curves { curve }.to_toml(&head)
}
