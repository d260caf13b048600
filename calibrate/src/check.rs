//! `psins-calibrate --check FILE`: is this host still the machine FILE describes?
//!
//! A calibration is only as good as the host's state when it ran. A virtual machine can move
//! between speed states (this project's own VM: a 0-byte half round trip of 0.13 µs in one,
//! 0.55 µs in the other, for hours at a time), and a node can be reconfigured or shared. The
//! calibration writes a few warm half round trips into `[calibrated] check`; the check
//! measures the same sizes again in a second or two and compares: exit 0 when every one is
//! within the tolerance, exit 1 naming the first that is not.

use crate::error::Error;
use crate::fit::{figure, Figure};
use crate::samples::Samples;
use psins_machine::file::CalibratedSection;
use std::fmt::Write;
use std::path::Path;

/// One reference point of a machine file: a warm half round trip at `bytes`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reference {
    pub bytes: u64,
    pub half_rtt: f64,
    pub spread: f64,
}

/// The sizes the check probes, from the sizes a calibration measured: the smallest (the
/// latency), those nearest 1 KiB and 64 KiB (eager copies) and the largest (bandwidth).
pub fn pick(series: &[(u64, Figure)]) -> Vec<Reference> {
    let nearest = |target: f64| {
        series.iter().filter(|(b, _)| *b > 0).min_by(|(a, _), (b, _)| {
            let d = |x: u64| ((x as f64).log2() - target.log2()).abs();
            d(*a).total_cmp(&d(*b))
        })
    };
    let mut out: Vec<Reference> = Vec::new();
    let candidates = [series.first(), nearest(1024.0), nearest(65536.0), series.last()];
    for (b, f) in candidates.into_iter().flatten() {
        if !out.iter().any(|r| r.bytes == *b) {
            out.push(Reference { bytes: *b, half_rtt: f.value, spread: f.spread });
        }
    }
    out
}

/// What the machine file says: its reference points and the launcher it was calibrated with.
pub struct Calibrated {
    pub references: Vec<Reference>,
    pub launcher: Option<String>,
}

pub fn read(path: &Path) -> Result<Calibrated, Error> {
    /// The one section the check reads; the rest of the machine file is psins-sim's to check.
    #[derive(serde::Deserialize)]
    struct Provenance {
        calibrated: Option<CalibratedSection>,
    }
    let bad = |why: String| Error::Check(format!("{}: {why}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let file: Provenance = toml::from_str(&text).map_err(|e| bad(format!("not a machine file: {e}")))?;
    let cal = file.calibrated.ok_or_else(|| bad("no [calibrated] section: not written by psins-calibrate".into()))?;
    let list = cal.check.ok_or_else(|| {
        bad("[calibrated] has no `check` points (written by an older psins-calibrate: recalibrate)".into())
    })?;
    let mut references = Vec::new();
    for (i, p) in list.iter().enumerate() {
        if p.half_rtt.0 == 0 {
            return Err(bad(format!("[calibrated] check point {}: a half round trip of 0", i + 1)));
        }
        references.push(Reference {
            bytes: p.bytes,
            half_rtt: psins_units::secs(p.half_rtt.0),
            spread: p.spread.unwrap_or(0.0),
        });
    }
    if references.is_empty() {
        return Err(bad("[calibrated] check is empty".into()));
    }
    Ok(Calibrated { references, launcher: cal.launcher })
}

/// The worker's `-p` argument for these references.
pub fn probe_arg(refs: &[Reference]) -> String {
    refs.iter().map(|r| r.bytes.to_string()).collect::<Vec<_>>().join(",")
}

/// How a probe compares with the reference points.
#[derive(Debug)]
pub enum Verdict {
    /// Every size within the tolerance.
    Matches,
    /// The first size beyond it, both figures named.
    Changed(String),
    /// A probe whose own spread is above the limit: it cannot say either way.
    Noisy(String),
}

/// Compares the probe's figures with the references: the table of every size, and the
/// verdict. Sizes the probe did not measure are left out (a `--quick` calibration replacing
/// a full one measures other sizes); Err when it measured none of them.
pub fn compare(refs: &[Reference], s: &Samples, tolerance: f64, max_spread: f64) -> Result<(String, Verdict), Error> {
    let mut table = String::new();
    // The spread is the probe's own (fit::figure: the narrowest majority of its trials): what
    // the "too noisy to tell" verdict is judged on.
    let _ = writeln!(table, "{:>10}  {:>12}  {:>12}  {:>8}  {:>7}", "bytes", "calibrated", "now", "change", "spread");
    let mut first_off = None;
    let mut noisy = None;
    let mut compared = 0;
    for r in refs {
        let Some(trials) = s.pingpong.get(&("warm".to_string(), r.bytes)) else { continue };
        compared += 1;
        let now = figure(trials);
        let change = now.value / r.half_rtt - 1.0;
        let _ = writeln!(
            table,
            "{:>10}  {:>9.3} us  {:>9.3} us  {:>+7.1} %  {:>5.1} %",
            r.bytes,
            r.half_rtt * 1e6,
            now.value * 1e6,
            change * 100.0,
            now.spread * 100.0
        );
        if noisy.is_none() && now.spread > max_spread {
            noisy = Some(format!(
                "{} B half round trip spread {:.1} % over the probe's trials",
                r.bytes,
                now.spread * 100.0
            ));
        }
        if first_off.is_none() && change.abs() > tolerance {
            first_off = Some(format!(
                "{} B half round trip {:.3} us now against {:.3} us calibrated ({:+.1} %, tolerance {:.0} %)",
                r.bytes,
                now.value * 1e6,
                r.half_rtt * 1e6,
                change * 100.0,
                tolerance * 100.0
            ));
        }
    }
    if compared == 0 {
        let sizes = probe_arg(refs);
        return Err(Error::Worker(format!("the probe printed no warm ping-pong of any reference size ({sizes} B)")));
    }
    let verdict = match (noisy, first_off) {
        (Some(why), _) => Verdict::Noisy(why),
        (None, Some(why)) => Verdict::Changed(why),
        (None, None) => Verdict::Matches,
    };
    Ok((table, verdict))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(median: f64) -> Figure {
        Figure { value: median, trials: 7, interval: 0.05, spread: 0.02, apart: None }
    }

    #[test]
    fn picks_latency_eager_and_bandwidth_sizes() {
        let full: Vec<(u64, Figure)> =
            std::iter::once(0).chain((0..=22).map(|k| 1u64 << k)).map(|b| (b, f(1e-7 + b as f64 * 1e-10))).collect();
        let got: Vec<u64> = pick(&full).iter().map(|r| r.bytes).collect();
        assert_eq!(got, vec![0, 1024, 65536, 4 << 20]);
        // --quick measures powers of 8: the nearest on a log scale.
        let quick: Vec<(u64, Figure)> =
            [0u64, 1, 8, 64, 512, 4096, 32768, 262144, 2097152].iter().map(|&b| (b, f(1e-6))).collect();
        let got: Vec<u64> = pick(&quick).iter().map(|r| r.bytes).collect();
        assert_eq!(got, vec![0, 512, 65536 / 2, 2097152]);
    }

    #[test]
    fn the_check_points_read_back() {
        let dir = std::env::temp_dir().join(format!("psins-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("m.toml");
        let check = "check = [{ bytes = 0, half_rtt = \"127ns\", spread = 0.064 }, { bytes = 4194304, half_rtt = \"295.6us\" }]";
        std::fs::write(&p, format!("[calibrated]\nlauncher = \"mpirun -n 2\"\n{check}\n")).unwrap();
        let c = read(&p).unwrap();
        assert_eq!(c.launcher.as_deref(), Some("mpirun -n 2"));
        assert_eq!(c.references.len(), 2);
        assert!((c.references[0].half_rtt - 1.27e-7).abs() < 1e-12 && c.references[1].bytes == 4 << 20);
        std::fs::write(&p, "[calibrated]\nlauncher = \"mpirun -n 2\"\n").unwrap();
        assert!(read(&p).err().unwrap().to_string().contains("older psins-calibrate"));
        std::fs::write(&p, "[calibrated]\ncheck = [{ bytes = 0, half_rtt = \"fast\" }]\n").unwrap();
        let e = read(&p).err().unwrap().to_string();
        assert!(e.contains("line 2") && e.contains("`fast`"), "{e}");
    }

    fn probe(points: &[(u64, &[f64])]) -> Samples {
        let mut s = Samples::default();
        for (b, t) in points {
            s.pingpong.insert(("warm".into(), *b), t.to_vec());
        }
        s
    }

    #[test]
    fn a_slower_host_is_named_a_steady_one_passes() {
        let refs = [
            Reference { bytes: 0, half_rtt: 1.3e-7, spread: 0.05 },
            Reference { bytes: 1 << 20, half_rtt: 7.4e-5, spread: 0.03 },
        ];
        let same = probe(&[(0, &[1.31e-7, 1.32e-7, 1.30e-7]), (1 << 20, &[7.5e-5, 7.6e-5, 7.4e-5])]);
        assert!(matches!(compare(&refs, &same, 0.2, 0.25).unwrap().1, Verdict::Matches));
        // The other state of this VM: every size slower, the latency four times.
        let other = probe(&[(0, &[5.5e-7, 5.5e-7, 5.6e-7]), (1 << 20, &[1.3e-4, 1.3e-4, 1.3e-4])]);
        let (table, v) = compare(&refs, &other, 0.2, 0.25).unwrap();
        assert!(table.contains("+325.6 %"), "{table}");
        let Verdict::Changed(why) = v else { panic!("not a change") };
        assert!(
            why.starts_with("0 B half round trip 0.553 us now against 0.130 us calibrated (+325.6 %, tolerance 20 %)"),
            "{why}"
        );
        let noisy = probe(&[(0, &[1.3e-7, 5e-7, 9e-7, 1.3e-7]), (1 << 20, &[7.5e-5, 7.5e-5, 7.5e-5])]);
        let (table, v) = compare(&refs, &noisy, 0.2, 0.25).unwrap();
        assert!(matches!(v, Verdict::Noisy(_)));
        // The table shows the spread the verdict is judged on, beside each size.
        assert!(table.lines().next().unwrap().ends_with("spread"), "{table}");
        let zero = table.lines().nth(1).unwrap();
        assert!(
            zero.ends_with(&format!("{:.1} %", figure(&vec![1.3e-7, 5e-7, 9e-7, 1.3e-7]).spread * 100.0)),
            "{table}"
        );
        assert!(table.lines().nth(2).unwrap().ends_with("  0.0 %"), "{table}");
        // A probe of other sizes (a --quick calibration replacing a full one) compares what
        // it has, and says so when it has nothing.
        let part = probe(&[(0, &[1.31e-7, 1.3e-7, 1.3e-7]), (512, &[2e-7, 2e-7, 2e-7])]);
        let (table, v) = compare(&refs, &part, 0.2, 0.25).unwrap();
        assert!(matches!(v, Verdict::Matches) && table.lines().count() == 2, "{table}");
        let none = probe(&[(512, &[2e-7, 2e-7, 2e-7])]);
        assert!(compare(&refs, &none, 0.2, 0.25)
            .unwrap_err()
            .to_string()
            .contains("no warm ping-pong of any reference size (0,1048576 B)"));
    }
}
