//! What a prediction assumes, printed beside it: a prediction is only as good as the
//! machine file's figures, and a reader comparing two reports needs to see which file, how
//! old its calibration is, how CPU bursts and ranks were placed on the target, and why the
//! message counts of two machines can differ.

use psins_collectives::ChoiceBy;
use psins_machine::file::CalibratedSection;
use psins_machine::{CollMode, Machine, MappingKind};
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::PathBuf;

/// The assumptions of one replay, taken from the machine it ran on.
#[derive(Clone, Debug)]
pub struct Assumptions {
    /// The machine file read (a bundled machine's file when given by name).
    pub machine_file: PathBuf,
    pub calibrated: Option<CalibratedSection>,
    /// The pmac model's collective curves, when the model reads them.
    pub curves: Option<PathBuf>,
    /// The target's core speed relative to the traced one, and how many nodes differ.
    pub cpu_ratio: f64,
    pub cpu_nodes_differing: usize,
    pub mapping: MappingKind,
    pub ranks: u32,
    /// Nodes holding at least one rank, of `nodes`.
    pub nodes_used: u32,
    pub nodes: u32,
    pub cores_per_node: u32,
    /// `collectives = "auto"`: the model chose the mode.
    pub collectives_auto: bool,
    /// Whose collective algorithms were followed, and why (set by the replay).
    pub library: psins_collectives::Choice,
}

impl Assumptions {
    pub fn of(m: &Machine, ranks: u32) -> Assumptions {
        Assumptions {
            machine_file: m.path.clone(),
            calibrated: m.calibrated.clone(),
            curves: match &m.network {
                psins_machine::Network::Pmac(p) => p.calibration.clone(),
                _ => None,
            },
            cpu_ratio: m.cpu.default,
            cpu_nodes_differing: m.cpu.overrides.len(),
            mapping: m.mapping,
            ranks,
            nodes_used: nodes_used(m, ranks),
            nodes: m.nodes,
            cores_per_node: m.cores_per_node,
            collectives_auto: m.collectives == CollMode::Auto,
            library: psins_collectives::Library::choose(m.library, None),
        }
    }

    /// The table's block. `named` is the machine as the user gave it (`-m NAME` or a path),
    /// `mode` the collectives mode the replay used, `now` the seconds since 1970 the
    /// calibration's age is counted to.
    pub fn table(&self, named: Option<&str>, mode: &str, now: u64) -> String {
        let mut s = String::from("\nwhat the prediction assumes:\n");
        let file = self.machine_file.display().to_string();
        let machine = match named {
            Some(n) if n != file && !n.contains('/') => format!("the bundled machine `{n}`: {file}"),
            _ => file.clone(),
        };
        line(&mut s, "machine file", &machine);
        if let Some(c) = &self.calibrated {
            line(&mut s, "calibrated", &calibration(c, now));
            let check = format!("`psins-calibrate --check {file}` says whether this host still matches it");
            line(&mut s, "", &check);
        }
        if let Some(c) = &self.curves {
            line(&mut s, "collective curves", &c.display().to_string());
        }
        line(&mut s, "CPU bursts", &self.cpu_text());
        line(&mut s, "ranks", &self.ranks_text());
        line(&mut s, "collectives", &collectives_text(mode, self.collectives_auto));
        line(&mut s, "MPI library", &library_text(&self.library));
        s
    }

    fn cpu_text(&self) -> String {
        let r = self.cpu_ratio;
        let speed = if r == 1.0 {
            "target cores as fast as the traced ones".to_string()
        } else {
            format!("a target core {r}× as fast as a traced one")
        };
        let mut t = format!("replayed as the trace times them, divided by cpu_ratio = {r} ({speed})");
        if self.cpu_nodes_differing > 0 {
            let _ = write!(t, "; {} nodes have a ratio of their own ([[machine.cpu]])", self.cpu_nodes_differing);
        }
        t
    }

    fn ranks_text(&self) -> String {
        let rule = match self.mapping {
            MappingKind::Block => format!("block mapping, rank r on node r / {}", self.cores_per_node),
            MappingKind::Cyclic => format!("cyclic mapping, rank r on node r % {}", self.nodes),
            MappingKind::List => "the machine file's node_of_rank list".to_string(),
        };
        format!(
            "{} on {} of {} nodes ({rule}, {} cores a node); a message within a node takes [intra]",
            self.ranks, self.nodes_used, self.nodes, self.cores_per_node
        )
    }

    pub fn json(&self, mode: &str) -> Value {
        let calibrated = self.calibrated.as_ref().map(|c| {
            json!({"by": c.by, "at": c.at, "host": c.host, "launcher": c.launcher, "mpi_library": c.mpi_library,
                   "buffers": c.buffers, "trials": c.trials, "launches": c.launches, "noisy": c.noisy})
        });
        let mapping = match self.mapping {
            MappingKind::Block => "block",
            MappingKind::Cyclic => "cyclic",
            MappingKind::List => "list",
        };
        json!({
            "machine_file": self.machine_file.display().to_string(),
            "calibrated": calibrated,
            "collective_curves": self.curves.as_ref().map(|c| c.display().to_string()),
            "cpu_ratio": self.cpu_ratio,
            "cpu_nodes_differing": self.cpu_nodes_differing,
            "mapping": mapping,
            "ranks": self.ranks,
            "nodes_used": self.nodes_used,
            "nodes": self.nodes,
            "cores_per_node": self.cores_per_node,
            "collectives": {"mode": mode, "setting": if self.collectives_auto { "auto" } else { mode }},
            "mpi_library": {
                "library": self.library.library.name(),
                "algorithms": self.library.library.algorithms(),
                "traced": self.library.traced,
                "by": match self.library.by {
                    ChoiceBy::Setting => "mpi.library",
                    ChoiceBy::Trace => "trace",
                    ChoiceBy::Default => "default",
                },
                "warning": self.library.warning,
            },
        })
    }
}

/// One `  key  text` line of the block, keys aligned.
fn line(s: &mut String, key: &str, text: &str) {
    let _ = writeln!(s, "  {key:<18} {text}");
}

fn nodes_used(m: &Machine, ranks: u32) -> u32 {
    match m.mapping {
        MappingKind::Block => ranks.div_ceil(m.cores_per_node.max(1)),
        MappingKind::Cyclic => ranks.min(m.nodes),
        MappingKind::List => {
            let mut v: Vec<u32> = m.node_of_rank.iter().take(ranks as usize).copied().collect();
            v.sort_unstable();
            v.dedup();
            v.len() as u32
        }
    }
}

/// Whose algorithms expand and cost the collectives, and why.
fn library_text(c: &psins_collectives::Choice) -> String {
    let why = match (c.by, &c.traced) {
        (ChoiceBy::Setting, Some(t)) => format!("mpi.library = \"{}\"; the trace ran under {t}", c.library.name()),
        (ChoiceBy::Setting, None) => format!("mpi.library = \"{}\"", c.library.name()),
        (ChoiceBy::Trace, Some(t)) => format!("the trace ran under {t}"),
        _ => "the trace does not name its MPI library".to_string(),
    };
    format!("collectives follow {}'s algorithms ({why})", c.library.algorithms())
}

/// Why the message counts of two machines differ: an analytic collective sends no messages.
fn collectives_text(mode: &str, auto: bool) -> String {
    let chosen = if auto { " (collectives = \"auto\": the model's choice)" } else { "" };
    let effect = if mode == "expanded" {
        "a collective is replayed as its point-to-point steps (the trace's, else the MPI \
         library's algorithm), which `messages` counts beside the point-to-point traffic"
    } else {
        "a collective is one modelled operation (the last member's arrival plus the model's \
         time) and sends no messages, so `messages` counts point-to-point traffic only \
         (an expanded replay counts the collectives' steps too)"
    };
    format!("{mode}{chosen}: {effect}")
}

/// When, where, through which launcher and by what the machine was measured, and how long ago.
fn calibration(c: &CalibratedSection, now: u64) -> String {
    let mut t = match c.at.as_deref() {
        Some(at) => format!("{at}{}", age(at, now).map(|a| format!(" ({a})")).unwrap_or_default()),
        None => "at an unrecorded time".to_string(),
    };
    if let Some(h) = &c.host {
        let _ = write!(t, " on {h}");
    }
    if let Some(l) = &c.launcher {
        let _ = write!(t, " through `{l}`");
    }
    if let Some(lib) = &c.mpi_library {
        let _ = write!(t, ", {lib}");
    }
    if let Some(b) = &c.by {
        let _ = write!(t, ", by {b}");
    }
    if let Some(why) = &c.noisy {
        let _ = write!(t, "; flagged noisy: {why}");
    }
    t
}

/// "3 days old" for a calibration stamped `at` ("2026-11-26T10:00:00Z", as psins-calibrate
/// writes it), `now` seconds after 1970; `None` when `at` is not such a stamp.
pub fn age(at: &str, now: u64) -> Option<String> {
    let then = parse_utc(at)?;
    if then > now {
        return Some("dated after this host's clock".into());
    }
    Some(match (now - then) / 86_400 {
        0 => "less than a day old".into(),
        1 => "1 day old".into(),
        d => format!("{d} days old"),
    })
}

/// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ` (Howard Hinnant's days-from-civil, the
/// inverse of `psins_cli::utc`).
fn parse_utc(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z'
    {
        return None;
    }
    let n = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (h, mi, sec) = (n(11..13)?, n(14..16)?, n(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + mi * 60 + sec).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_parse_back_to_the_seconds_they_were_made_from() {
        for secs in [0, 951_827_696, 1_795_742_000, 4_102_444_799] {
            let (y, m, d, h, mi, s) = psins_cli::utc(secs);
            let stamp = format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z");
            assert_eq!(parse_utc(&stamp), Some(secs), "{stamp}");
        }
        assert_eq!(parse_utc("2026-11-29 10:00:00"), None);
        assert_eq!(parse_utc("2026-13-29T10:00:00Z"), None);
    }

    #[test]
    fn ages_count_whole_days() {
        let at = "2026-11-26T10:00:00Z";
        let t = parse_utc(at).unwrap();
        assert_eq!(age(at, t + 3600).as_deref(), Some("less than a day old"));
        assert_eq!(age(at, t + 86_400).as_deref(), Some("1 day old"));
        assert_eq!(age(at, t + 3 * 86_400 + 5).as_deref(), Some("3 days old"));
        assert_eq!(age(at, t - 1).as_deref(), Some("dated after this host's clock"));
        assert_eq!(age("yesterday", t), None);
    }
}
