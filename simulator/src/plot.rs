//! The charts of a replay and of a synthetic-traffic sweep (`--plot FILE.svg`; sweeps draw
//! theirs in [`crate::sweep::plot`]). The drawing itself is psins-plot's.

use crate::error::{Result, SimError};
use crate::report::Report;
use crate::units::{human_time_ns, secs};
use psins_network::synth::SynthResult;
use psins_plot::{time_unit, Bars, Layer, Lines, Marker, Series, XAxis};

/// A path's last part, for chart titles: `runs/cg.psins` → `cg.psins` (a workload spec such
/// as `gen:ring:ranks=8` stays whole). The one helper of psins-sim's and the sweeps' charts.
pub fn short_name(p: &str) -> String {
    if p.starts_with("gen:") {
        return p.to_string();
    }
    std::path::Path::new(p).file_name().map_or(p.to_string(), |n| n.to_string_lossy().into_owned())
}

/// More ranks than this are drawn as this many blocks of neighbouring ranks, each bar their
/// mean, so a million-rank replay still gives a small, readable SVG.
pub const MAX_BARS: usize = 256;

/// Per rank, the predicted time stacked as computation, communication outside waiting
/// (the calls' own cost and transfers) and waiting.
pub fn ranks(r: &Report, what: &str) -> Bars {
    let n = r.tasks.len();
    let per = n.div_ceil(MAX_BARS).max(1);
    let blocks: Vec<(usize, usize)> = (0..n).step_by(per).map(|a| (a, (a + per).min(n))).collect();
    let max_s = r.tasks.iter().map(|t| secs(t.compute + t.comm)).fold(0.0, f64::max);
    let (scale, unit) = time_unit(max_s);
    let layer = |name: &str, f: fn(&crate::report::TaskTimes) -> u64| Layer {
        name: name.into(),
        values: blocks
            .iter()
            .map(|&(a, b)| r.tasks[a..b].iter().map(|t| secs(f(t))).sum::<f64>() / (b - a) as f64 * scale)
            .collect(),
    };
    Bars {
        title: format!("Predicted time per rank: {what}"),
        x_label: if per == 1 { "rank".into() } else { format!("ranks (each bar the mean of {per} ranks)") },
        y_label: format!("time ({unit})"),
        categories: blocks
            .iter()
            .map(|&(a, b)| if b - a == 1 { a.to_string() } else { format!("{a}-{}", b - 1) })
            .collect(),
        layers: vec![
            layer("computation", |t| t.compute),
            layer("communication (not waiting)", |t| t.comm.saturating_sub(t.wait)),
            layer("waiting", |t| t.wait),
        ],
        // The traced run's own time, where its bursts were timed by the wall clock (a CPU-clock
        // trace's span is not the time the run took).
        reference: r.measured.as_ref().filter(|m| m.bursts == Some(psins_formats::BurstClock::Wall)).map(|m| {
            (m.span_ns as f64 / 1e9 * scale, format!("measured run: {} (rank {})", human_time_ns(m.span_ns), m.rank))
        }),
    }
}

/// The sizes of the messages the replay sent (every engine message: point-to-point, and the
/// steps of expanded collectives; not one-sided data) in power-of-two bins, as the report's
/// `message_sizes` counts them and `psins-dump --profile --plot` draws the measured sends.
pub fn sizes(r: &Report, what: &str) -> Bars {
    psins_plot::size_histogram(format!("Message sizes replayed: {what}"), &r.stats.sizes.rows())
}

/// Average and 99th-percentile latency against offered load; the first saturated load
/// ([`SynthResult::saturated`]) is marked.
pub fn latency_curve(results: &[SynthResult], what: &str) -> Lines {
    let avg = results.iter().map(|r| (r.load, r.avg_latency)).collect();
    let p99 = results.iter().map(|r| (r.load, r.p99_latency as f64)).collect();
    let markers = results
        .iter()
        .find(|r| r.saturated())
        .map(|r| Marker { x: r.load, label: format!("saturated from load {}", r.load) })
        .into_iter()
        .collect();
    Lines {
        title: format!("Latency against load: {what}"),
        x_label: "offered load (fraction of the uniform-traffic capacity)".into(),
        y_label: "packet latency (cycles, log scale)".into(),
        x: XAxis::Linear,
        y_log: true,
        series: vec![
            Series { name: "average".into(), points: avg },
            Series { name: "99th percentile".into(), points: p99 },
        ],
        markers,
    }
}

/// Draws `chart` into `out` (prepared before the run, so a bad place fails first).
pub fn write(chart: &dyn psins_plot::Plot, out: psins_formats::Output) -> Result<()> {
    let svg = chart.svg().map_err(|e| SimError::Input(format!("--plot {}: {e}", out.path().display())))?;
    std::fs::write(out.temp_path(), svg).map_err(|e| SimError::output(out.path(), e))?;
    out.commit().map_err(SimError::OutputFile)
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn chart_titles_name_the_file_not_its_folders() {
        assert_eq!(short_name("runs/2026/cg.psins"), "cg.psins");
        assert_eq!(short_name("/abs/configs/bus-cluster.toml"), "bus-cluster.toml");
        assert_eq!(short_name("cg.psins"), "cg.psins");
        assert_eq!(short_name("gen:pingpong:ranks=2,bytes=1KiB"), "gen:pingpong:ranks=2,bytes=1KiB");
    }
}
