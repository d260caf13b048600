//! The selection thresholds: one table of data whose defaults are MPICH 4.0.2's flat
//! `MPIR_*` selection (`maint/tuning/coll/mpir/generic.json`, compiled into libmpich), so
//! that another release's values are a configuration change, not a code change.

use std::fmt;

/// Environment variables are this prefix plus the upper-cased threshold name.
pub const ENV_PREFIX: &str = "PSINS_COLL_";

/// One threshold: its name, MPICH 4.0.2's value, the MPICH control variable of the same
/// meaning ("—" where the JSON table has none) and what it decides.
#[derive(Clone, Copy, Debug)]
pub struct ThresholdInfo {
    pub name: &'static str,
    pub default: u64,
    pub mpich_cvar: &'static str,
    pub doc: &'static str,
}

macro_rules! thresholds {
    ($( $(#[doc = $doc:literal])+ $field:ident = $default:literal, $cvar:literal; )+) => {
        /// Selection thresholds in bytes (or ranks for `*_min_procs`, peers for `alltoall_throttle`).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Thresholds {
            $( $(#[doc = $doc])+ pub $field: u64, )+
        }

        impl Default for Thresholds {
            fn default() -> Self {
                Thresholds { $( $field: $default, )+ }
            }
        }

        /// Every threshold, in declaration order.
        pub const THRESHOLD_TABLE: &[ThresholdInfo] = &[
            $( ThresholdInfo {
                name: stringify!($field),
                default: $default,
                mpich_cvar: $cvar,
                doc: concat!($($doc),+),
            }, )+
        ];

        impl Thresholds {
            fn slot(&mut self, name: &str) -> Option<&mut u64> {
                match name {
                    $( stringify!($field) => Some(&mut self.$field), )+
                    _ => None,
                }
            }

            /// The value of the threshold called `name`.
            pub fn get(&self, name: &str) -> Option<u64> {
                match name {
                    $( stringify!($field) => Some(self.$field), )+
                    _ => None,
                }
            }
        }
    };
}

thresholds! {
    /// Bcast: communicators with fewer ranks always use the binomial tree (`comm_size<8`).
    bcast_min_procs = 8, "MPIR_CVAR_BCAST_MIN_PROCS";
    /// Bcast: messages of at most this many bytes use the binomial tree.
    bcast_short_msg_size = 12288, "MPIR_CVAR_BCAST_SHORT_MSG_SIZE";
    /// Bcast on a power-of-two communicator: up to this many bytes, scatter + recursive
    /// doubling allgather; above, scatter + ring allgather.
    bcast_long_msg_size = 524288, "MPIR_CVAR_BCAST_LONG_MSG_SIZE";
    /// Reduce: vectors of at most this many bytes use the binomial tree.
    reduce_short_msg_size = 2048, "MPIR_CVAR_REDUCE_SHORT_MSG_SIZE";
    /// Allreduce: vectors of at most this many bytes use recursive doubling (the JSON
    /// table's 8; the CVAR's own default, 2048, is not what 4.0.2 selects with).
    allreduce_short_msg_size = 8, "MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE";
    /// Allgather on a non-power-of-two communicator: Bruck below this total, else ring.
    allgather_short_msg_size = 81920, "MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE";
    /// Allgather on a power-of-two communicator: recursive doubling below this total, else ring.
    allgather_long_msg_size = 524288, "MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE";
    /// Allgatherv on a non-power-of-two communicator: Bruck below this total, else ring.
    allgatherv_short_msg_size = 81920, "MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE";
    /// Allgatherv on a power-of-two communicator: recursive doubling below this total, else ring.
    allgatherv_long_msg_size = 524288, "MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE";
    /// Allgatherv's ring cuts blocks larger than this into chunks of this size (0: never).
    allgatherv_pipeline_msg_size = 32768, "MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE";
    /// Reduce_scatter with a commutative op: recursive halving below this total, else pairwise.
    reduce_scatter_long_msg_size = 524288, "MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE";
    /// Reduce_scatter_block with a commutative op: recursive halving below this total, else pairwise.
    reduce_scatter_block_long_msg_size = 524288, "MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE";
    /// Alltoall: communicators with fewer ranks never use Bruck (`comm_size<8`).
    alltoall_min_procs = 8, "—";
    /// Alltoall: per-peer blocks of at most this many bytes use Bruck.
    alltoall_short_msg_size = 256, "MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE";
    /// Alltoall: per-peer blocks of at most this many bytes use the scattered algorithm,
    /// larger ones pairwise exchange.
    alltoall_medium_msg_size = 32768, "MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE";
    /// Scattered alltoall/alltoallv/alltoallw: how many peers one batch posts to and from
    /// before waiting for all of them (a count of peers, not bytes; 0 = all in one batch).
    alltoall_throttle = 32, "MPIR_CVAR_ALLTOALL_THROTTLE";
    /// Iallreduce: vectors of at most this many bytes use recursive doubling (the
    /// nonblocking table's `avg_msg_size<=2048`; the blocking one uses 8).
    iallreduce_short_msg_size = 2048, "—";
    /// Ialltoall: per-peer blocks of at most this many bytes use Bruck (the nonblocking
    /// table's `avg_msg_size<=2048`; the blocking one uses 256).
    ialltoall_short_msg_size = 2048, "—";
}

/// A threshold setting that could not be applied; `origin` names the variable or line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThresholdError {
    pub origin: String,
    pub message: String,
}

impl fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

impl std::error::Error for ThresholdError {}

fn error(origin: impl Into<String>, message: impl Into<String>) -> ThresholdError {
    ThresholdError { origin: origin.into(), message: message.into() }
}

impl ThresholdInfo {
    /// The environment variable that overrides this threshold.
    pub fn env_var(&self) -> String {
        format!("{ENV_PREFIX}{}", self.name.to_ascii_uppercase())
    }
}

impl Thresholds {
    /// Sets the threshold `name` (its table name, or its `PSINS_COLL_` variable name, in
    /// any case).
    pub fn set(&mut self, name: &str, value: u64) -> Result<(), ThresholdError> {
        let lower = name.to_ascii_lowercase();
        let key = lower.strip_prefix("psins_coll_").unwrap_or(&lower);
        let slot =
            self.slot(key).ok_or_else(|| error(name, format!("unknown threshold (known: {})", known_names())))?;
        *slot = value;
        Ok(())
    }

    /// Defaults overridden by every `PSINS_COLL_<NAME>` variable that is set.
    pub fn from_env() -> Result<Thresholds, ThresholdError> {
        Thresholds::from_lookup(|var| std::env::var_os(var).map(|v| v.to_string_lossy().into_owned()))
    }

    /// Like [`Thresholds::from_env`], reading variables through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Thresholds, ThresholdError> {
        let mut th = Thresholds::default();
        for info in THRESHOLD_TABLE {
            let var = info.env_var();
            if let Some(text) = lookup(&var) {
                let value = parse_value(&text).map_err(|m| error(var.as_str(), m.to_string()))?;
                th.set(info.name, value)?;
            }
        }
        Ok(th)
    }

    /// Defaults overridden by a `name = value` per line text; `#` starts a comment, blank
    /// lines are skipped, values are decimal integers (`_` separators allowed).
    pub fn from_kv_str(text: &str) -> Result<Thresholds, ThresholdError> {
        parse_lines(text, false)
    }

    /// As [`Thresholds::from_kv_str`] for a TOML file of integer keys: table headers such as
    /// `[collectives]` are accepted and ignored, values may also be quoted.
    pub fn from_toml_str(text: &str) -> Result<Thresholds, ThresholdError> {
        parse_lines(text, true)
    }
}

fn known_names() -> String {
    THRESHOLD_TABLE.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
}

fn parse_lines(text: &str, toml: bool) -> Result<Thresholds, ThresholdError> {
    let mut th = Thresholds::default();
    for (i, raw) in text.lines().enumerate() {
        let origin = format!("line {}", i + 1);
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() || (toml && line.starts_with('[') && line.ends_with(']')) {
            continue;
        }
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| error(origin.as_str(), format!("expected `name = value`, found `{line}`")))?;
        let mut value = value.trim();
        if toml {
            value = value.trim_matches('"');
        }
        let value = parse_value(value).map_err(|m| error(origin.as_str(), m.to_string()))?;
        th.set(name.trim(), value).map_err(|e| error(origin.as_str(), e.to_string()))?;
    }
    Ok(th)
}

/// Why a threshold's value text is not a value.
#[derive(Debug)]
enum ValueError {
    NotAnInteger(String),
    TooLarge(String),
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::NotAnInteger(text) => write!(f, "`{text}` is not a non-negative integer"),
            ValueError::TooLarge(text) => write!(f, "`{text}` does not fit in 64 bits"),
        }
    }
}

fn parse_value(text: &str) -> Result<u64, ValueError> {
    let digits: String = text.trim().chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ValueError::NotAnInteger(text.trim().to_string()));
    }
    digits.parse().map_err(|_| ValueError::TooLarge(text.trim().to_string()))
}
