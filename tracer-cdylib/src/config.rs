//! The one table of `PSINS_*` environment variables, with typed parsing.
//!
//! Parsed once, at `MPI_Init` (never at library load: a process that never calls `MPI_Init`
//! must not see any effect). A malformed value is an error that names the variable, the
//! value and what was expected; the tracer then stays off for the run and says so once.
//! The collective selection thresholds (`PSINS_COLL_*`, one variable per row of
//! `psins_collectives::THRESHOLD_TABLE`) are read here too, with the same rule: a malformed
//! value, or a `PSINS_COLL_` name that is no threshold, stops tracing with one message
//! (rather than silently expanding with the defaults), and every threshold's value is
//! written to settings.txt.

use psins_collectives::{Thresholds, ENV_PREFIX, THRESHOLD_TABLE};
use std::fmt;
use std::path::PathBuf;

/// How one variable is parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    /// `0/1`, `yes/no`, `on/off`, `true/false`.
    Bool,
    /// Bytes, with an optional `K`/`M`/`G` suffix (powers of 1024).
    Size,
    Path,
    /// One of a few words (any case).
    Choice(&'static [&'static str]),
}

/// One row of the table.
pub struct Var {
    pub name: &'static str,
    pub ty: VarType,
    pub default: &'static str,
    pub help: &'static str,
}

/// Every variable the tracer reads. `docs/tracer.md` reproduces this table.
pub const VARS: &[Var] = &[
    Var {
        name: "PSINS_TRACE",
        ty: VarType::Bool,
        default: "1",
        help: "0 turns tracing off: every call goes straight to MPI",
    },
    Var {
        name: "PSINS_DIR",
        ty: VarType::Path,
        default: "psins-trace",
        help: "output directory; logs go to <dir>/<job id>/rank-NNNNNN.bin",
    },
    Var {
        name: "PSINS_BUFFER",
        ty: VarType::Size,
        default: "4M",
        help: "per-rank record buffer; every closed block is written out at once (64K..1G)",
    },
    Var {
        name: "PSINS_BLOCK",
        ty: VarType::Size,
        default: "64K",
        help: "log block size: a crash loses at most the open block (4K..PSINS_BUFFER)",
    },
    Var {
        name: "PSINS_EXPAND",
        ty: VarType::Bool,
        default: "1",
        help: "write each collective's MPICH-style expansion after it (0: collective records only)",
    },
    Var {
        name: "PSINS_SIGNALS",
        ty: VarType::Bool,
        default: "1",
        help: "on SIGSEGV/SIGBUS/SIGABRT/SIGTERM/SIGINT write the buffer, then re-raise",
    },
    Var { name: "PSINS_QUIET", ty: VarType::Bool, default: "0", help: "1: rank 0 does not print where the logs are" },
    Var {
        name: "PSINS_FOLD_POLLS",
        ty: VarType::Bool,
        default: "1",
        help:
            "a run of unsuccessful MPI_Test*/MPI_Iprobe/MPI_Improbe calls is one `poll` record (0: one record per call)",
    },
    Var {
        name: "PSINS_CLOCK",
        ty: VarType::Choice(&["wall", "cpu", "cpu-syscall"]),
        default: "wall",
        help: "what times a CPU burst (a record's gap): wall time, or the calling thread's CPU time \
               (cpu; cpu-syscall reads it at every call instead of only after the thread left its CPU); \
               a call's duration is wall time either way",
    },
];

/// `PSINS_CLOCK`: what times the CPU burst before each call (docs/tracer.md, "Timing").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClockSetting {
    /// Wall time from the previous call's exit to this call's entry.
    #[default]
    Wall,
    /// The calling thread's CPU time over that span, read (a system call) only when the thread
    /// has left its CPU since the last reading, as its rseq area tells; at every call when it
    /// cannot tell.
    Cpu,
    /// The same clock, read at every call's entry and exit.
    CpuSyscall,
}

impl ClockSetting {
    pub fn parse(s: &str) -> Option<ClockSetting> {
        match s.trim().to_ascii_lowercase().as_str() {
            "wall" => Some(ClockSetting::Wall),
            "cpu" => Some(ClockSetting::Cpu),
            "cpu-syscall" => Some(ClockSetting::CpuSyscall),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ClockSetting::Wall => "wall",
            ClockSetting::Cpu => "cpu",
            ClockSetting::CpuSyscall => "cpu-syscall",
        }
    }

    /// The shim's `psins_cpu_clock`: 0 wall, 1 CPU time read when rseq says so, 2 read always.
    pub fn shim_mode(self) -> i32 {
        match self {
            ClockSetting::Wall => 0,
            ClockSetting::Cpu => 1,
            ClockSetting::CpuSyscall => 2,
        }
    }
}

/// The effective settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub trace: bool,
    pub dir: PathBuf,
    pub buffer: usize,
    pub block: usize,
    pub expand: bool,
    pub signals: bool,
    pub quiet: bool,
    pub fold_polls: bool,
    /// PSINS_CLOCK.
    pub clock: ClockSetting,
    /// The collective selection thresholds the expansions use.
    pub thresholds: Thresholds,
    /// (name, value, "default" | "env") for settings.txt and the log header.
    pub effective: Vec<(String, String, &'static str)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub var: String,
    pub value: String,
    pub expected: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={:?} is not valid: expected {}", self.var, self.value, self.expected)
    }
}

pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "yes" | "on" | "true" | "y" => Some(true),
        "0" | "no" | "off" | "false" | "n" => Some(false),
        _ => None,
    }
}

pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&t[..i], 1 << 20),
        (i, 'g' | 'G') => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

impl Config {
    /// Reads the variables through `get` (the environment in the tracer; a map in tests).
    /// `coll_names` are the names of the `PSINS_COLL_*` variables that are set, so that one
    /// that names no threshold (a typo) is an error too.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>, coll_names: &[String]) -> Result<Config, ConfigError> {
        let mut effective = Vec::new();
        let mut val = |v: &Var| -> String {
            match get(v.name) {
                Some(s) if !s.trim().is_empty() => {
                    effective.push((v.name.to_string(), s.clone(), "env"));
                    s
                }
                _ => {
                    effective.push((v.name.to_string(), v.default.to_string(), "default"));
                    v.default.to_string()
                }
            }
        };
        let mut values = Vec::new();
        for v in VARS {
            values.push(val(v));
        }
        let find = |name: &str| VARS.iter().position(|v| v.name == name).unwrap();
        let bool_of = |name: &'static str| -> Result<bool, ConfigError> {
            let s = &values[find(name)];
            parse_bool(s).ok_or_else(|| ConfigError {
                var: name.into(),
                value: s.clone(),
                expected: "0 or 1 (or yes/no, on/off, true/false)".into(),
            })
        };
        let size_of = |name: &'static str, lo: u64, hi: u64| -> Result<u64, ConfigError> {
            let s = &values[find(name)];
            let err = || ConfigError {
                var: name.into(),
                value: s.clone(),
                expected: format!(
                    "a size in bytes between {lo} and {hi}, optionally with a K, M or G suffix (e.g. 4M)"
                ),
            };
            let n = parse_size(s).ok_or_else(err)?;
            if n < lo || n > hi {
                return Err(err());
            }
            Ok(n)
        };
        let trace = bool_of("PSINS_TRACE")?;
        let dir = PathBuf::from(values[find("PSINS_DIR")].clone());
        let buffer = size_of("PSINS_BUFFER", 64 << 10, 1 << 30)? as usize;
        let block = size_of("PSINS_BLOCK", 4 << 10, buffer as u64)? as usize;
        let (expand, signals) = (bool_of("PSINS_EXPAND")?, bool_of("PSINS_SIGNALS")?);
        let (quiet, fold_polls) = (bool_of("PSINS_QUIET")?, bool_of("PSINS_FOLD_POLLS")?);
        let clock = {
            let i = find("PSINS_CLOCK");
            let VarType::Choice(words) = VARS[i].ty else { unreachable!("PSINS_CLOCK is a choice") };
            let c = ClockSetting::parse(&values[i]).ok_or_else(|| ConfigError {
                var: "PSINS_CLOCK".into(),
                value: values[i].clone(),
                expected: format!("one of {}", words.join(", ")),
            })?;
            // recorded as the word readers look for (psins_formats::BurstClock), whatever its case
            effective[i].1 = c.name().to_string();
            c
        };
        let thresholds = thresholds(&get, coll_names, &mut effective)?;
        Ok(Config { trace, dir, buffer, block, expand, signals, quiet, fold_polls, clock, thresholds, effective })
    }

    pub fn from_env() -> Result<Config, ConfigError> {
        let coll: Vec<String> = std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| k.starts_with(ENV_PREFIX))
            .collect();
        Config::from_lookup(|k| std::env::var(k).ok(), &coll)
    }

    /// `key=value` separated by spaces (the log header's settings field).
    pub fn header_string(&self) -> String {
        self.effective.iter().map(|(k, v, _)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    }

    /// The text of settings.txt.
    pub fn settings_txt(&self, extra: &[(String, String)]) -> String {
        let mut s = String::from("# psins tracer: effective settings of this run (source: env or default)\n");
        for (k, v, src) in &self.effective {
            s.push_str(&format!("{k}={v}    # {src}\n"));
        }
        for (k, v) in extra {
            s.push_str(&format!("{k}={v}\n"));
        }
        s
    }
}

/// The thresholds: defaults overridden by the `PSINS_COLL_*` variables that are set, each
/// value added to `effective`.
fn thresholds(
    get: &impl Fn(&str) -> Option<String>,
    coll_names: &[String],
    effective: &mut Vec<(String, String, &'static str)>,
) -> Result<Thresholds, ConfigError> {
    let known: Vec<String> = THRESHOLD_TABLE.iter().map(|t| t.env_var()).collect();
    if let Some(bad) = coll_names.iter().find(|n| !known.contains(n)) {
        return Err(ConfigError {
            var: bad.clone(),
            value: get(bad).unwrap_or_default(),
            expected: format!("the name of a collective selection threshold: {}", known.join(", ")),
        });
    }
    let th = Thresholds::from_lookup(|v| get(v).filter(|s| !s.trim().is_empty())).map_err(|e| ConfigError {
        value: get(&e.origin).unwrap_or_default(),
        var: e.origin,
        expected: "a non-negative integer (a collective selection threshold, docs/collectives.md)".into(),
    })?;
    for (info, var) in THRESHOLD_TABLE.iter().zip(known) {
        let v = th.get(info.name).unwrap_or(info.default);
        let set = get(&var).is_some_and(|s| !s.trim().is_empty());
        effective.push((var, v.to_string(), if set { "env" } else { "default" }));
    }
    Ok(th)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let coll: Vec<String> = m.keys().filter(|k| k.starts_with(ENV_PREFIX)).cloned().collect();
        Config::from_lookup(|k| m.get(k).cloned(), &coll)
    }

    #[test]
    fn defaults() {
        let c = cfg(&[]).unwrap();
        assert!(c.trace && c.expand && c.signals && !c.quiet);
        assert_eq!(c.buffer, 4 << 20);
        assert_eq!(c.block, 64 << 10);
        assert_eq!(c.dir, PathBuf::from("psins-trace"));
        assert!(c.effective.iter().all(|e| e.2 == "default"));
    }

    #[test]
    fn sizes_and_bools() {
        let c = cfg(&[("PSINS_BUFFER", "1M"), ("PSINS_EXPAND", "off"), ("PSINS_BLOCK", "8k")]).unwrap();
        assert_eq!(c.buffer, 1 << 20);
        assert_eq!(c.block, 8 << 10);
        assert!(!c.expand);
        assert_eq!(parse_size("2MiB"), None);
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("123"), Some(123));
    }

    #[test]
    fn errors_name_the_variable() {
        let e = cfg(&[("PSINS_BUFFER", "lots")]).unwrap_err();
        assert_eq!(e.var, "PSINS_BUFFER");
        assert!(e.to_string().contains("PSINS_BUFFER=\"lots\""), "{e}");
        let e = cfg(&[("PSINS_BUFFER", "1K")]).unwrap_err();
        assert_eq!(e.var, "PSINS_BUFFER");
        let e = cfg(&[("PSINS_EXPAND", "maybe")]).unwrap_err();
        assert_eq!(e.var, "PSINS_EXPAND");
    }

    #[test]
    fn collective_thresholds_are_checked_and_recorded() {
        let c = cfg(&[("PSINS_COLL_BCAST_SHORT_MSG_SIZE", "4096")]).unwrap();
        assert_eq!(c.thresholds.bcast_short_msg_size, 4096);
        assert_eq!(c.thresholds.reduce_short_msg_size, Thresholds::default().reduce_short_msg_size);
        let txt = c.settings_txt(&[]);
        assert!(txt.contains("PSINS_COLL_BCAST_SHORT_MSG_SIZE=4096    # env\n"), "{txt}");
        assert!(txt.contains("PSINS_COLL_REDUCE_SHORT_MSG_SIZE=2048    # default\n"), "{txt}");
        assert!(c.header_string().contains("PSINS_COLL_ALLTOALL_THROTTLE=32"));
        // one malformed value: an error naming it (not every threshold silently at its default)
        let e =
            cfg(&[("PSINS_COLL_BCAST_SHORT_MSG_SIZE", "4096"), ("PSINS_COLL_ALLTOALL_THROTTLE", "lots")]).unwrap_err();
        assert_eq!(e.var, "PSINS_COLL_ALLTOALL_THROTTLE");
        assert!(e.to_string().starts_with("PSINS_COLL_ALLTOALL_THROTTLE=\"lots\" is not valid"), "{e}");
        // a name that is no threshold (a typo) is not ignored
        let e = cfg(&[("PSINS_COLL_BCAST_SHORT_MSG", "10")]).unwrap_err();
        assert_eq!(e.var, "PSINS_COLL_BCAST_SHORT_MSG");
        assert!(e.expected.contains("PSINS_COLL_BCAST_SHORT_MSG_SIZE"), "{e}");
    }

    #[test]
    fn clock_setting() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.clock, ClockSetting::Wall);
        assert!(c.header_string().contains("PSINS_CLOCK=wall"), "{}", c.header_string());
        for (v, want) in [
            ("cpu", ClockSetting::Cpu),
            ("CPU", ClockSetting::Cpu),
            (" cpu ", ClockSetting::Cpu),
            ("wall", ClockSetting::Wall),
            ("cpu-syscall", ClockSetting::CpuSyscall),
        ] {
            let c = cfg(&[("PSINS_CLOCK", v)]).unwrap();
            assert_eq!(c.clock, want, "{v:?}");
            // the header says it in the readers' word, from the environment
            let h = c.header_string();
            assert!(h.contains(&format!("PSINS_CLOCK={} ", want.name())), "{h}");
            assert_eq!(psins_formats::BurstClock::of_settings(&h), psins_formats::BurstClock::of_setting(want.name()));
            assert!(c.settings_txt(&[]).contains(&format!("PSINS_CLOCK={}    # env\n", want.name())));
        }
        // an empty value is the default, as for every variable
        assert_eq!(cfg(&[("PSINS_CLOCK", "")]).unwrap().clock, ClockSetting::Wall);
        // anything else: one error naming the variable, the value and the choices; no fallback
        for bad in ["thread", "cpu_time", "1", "process"] {
            let e = cfg(&[("PSINS_CLOCK", bad)]).unwrap_err();
            assert_eq!(e.var, "PSINS_CLOCK");
            assert_eq!(
                e.to_string(),
                format!("PSINS_CLOCK={bad:?} is not valid: expected one of wall, cpu, cpu-syscall")
            );
        }
        assert_eq!(ClockSetting::Cpu.shim_mode(), 1);
        assert_eq!(ClockSetting::CpuSyscall.shim_mode(), 2);
        assert_eq!(ClockSetting::Wall.shim_mode(), 0);
    }

    #[test]
    fn fold_polls_switch() {
        assert!(cfg(&[]).unwrap().fold_polls);
        let c = cfg(&[("PSINS_FOLD_POLLS", "0")]).unwrap();
        assert!(!c.fold_polls);
        assert!(c.settings_txt(&[]).contains("PSINS_FOLD_POLLS=0    # env\n"));
    }
}
