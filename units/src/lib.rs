//! Quantities with units as written in machine files (`"2.5us"`, `"10GB/s"`, `"64KiB"`,
//! `"1.6GHz"`), and the reverse formatting for `psins-sim check` and reports.
//!
//! Times are kept as integer picoseconds so that the simulation is exact and deterministic;
//! bandwidths as bytes per second (f64), converted to a transfer time once per message.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Simulated time in picoseconds.
pub type Ps = u64;

pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Why a quantity is refused: the text as written (trimmed) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("`{input}`: {problem}")]
pub struct UnitError {
    pub input: String,
    pub problem: Problem,
}

/// What is wrong with a quantity.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Problem {
    #[error("expected a number followed by a unit")]
    NotANumber,
    #[error("must be a finite, non-negative number")]
    Negative,
    #[error("a {what} needs a unit ({allowed})")]
    NoUnit { what: &'static str, allowed: &'static str },
    #[error("bad {what} unit (use one of {allowed})")]
    BadUnit { what: &'static str, allowed: &'static str },
    #[error("a {what} must be positive")]
    NotPositive { what: &'static str },
    #[error("too large")]
    TooLarge,
    #[error("expected N or N-M")]
    NotARange,
}

fn refuse<T>(input: &str, problem: Problem) -> Result<T, UnitError> {
    Err(UnitError { input: input.into(), problem })
}

/// Splits `"2.5us"` into (2.5, "us"); whitespace between number and unit is allowed.
fn split_number(s: &str) -> Result<(f64, &str), UnitError> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let Ok(v) = num.parse::<f64>() else { return refuse(s, Problem::NotANumber) };
    if !v.is_finite() || v < 0.0 {
        return refuse(s, Problem::Negative);
    }
    Ok((v, unit.trim()))
}

const TIME_UNITS: &str = "ps, ns, us, ms, s";

/// Parses a duration: `ps`, `ns`, `us` (or `µs`), `ms`, `s`.
pub fn parse_time(s: &str) -> Result<Ps, UnitError> {
    let (v, u) = split_number(s)?;
    let scale = match u {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        "" => return refuse(s.trim(), Problem::NoUnit { what: "time", allowed: TIME_UNITS }),
        _ => return refuse(s.trim(), Problem::BadUnit { what: "time", allowed: TIME_UNITS }),
    };
    to_u64(v * scale, s)
}

/// Parses a byte count: plain integer, or `B`, `KB`/`MB`/`GB` (powers of 1000), `KiB`/`MiB`/`GiB`.
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    let (v, u) = split_number(s)?;
    let scale = match u {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        _ => return refuse(s.trim(), Problem::BadUnit { what: "size", allowed: "B, KB, MB, GB, KiB, MiB, GiB" }),
    };
    to_u64(v * scale, s)
}

/// Parses a bandwidth into bytes per second: `B/s`, `KB/s`, `MB/s`, `GB/s`, `KiB/s` …,
/// or bits: `Kb/s`, `Mb/s`, `Gb/s`, `Gbit/s`.
pub fn parse_bandwidth(s: &str) -> Result<f64, UnitError> {
    let (v, u) = split_number(s)?;
    let scale = match u {
        "B/s" => 1.0,
        "KB/s" | "kB/s" => 1e3,
        "MB/s" => 1e6,
        "GB/s" => 1e9,
        "TB/s" => 1e12,
        "KiB/s" => 1024.0,
        "MiB/s" => 1048576.0,
        "GiB/s" => 1073741824.0,
        "Kb/s" | "kbit/s" => 1e3 / 8.0,
        "Mb/s" | "Mbit/s" => 1e6 / 8.0,
        "Gb/s" | "Gbit/s" => 1e9 / 8.0,
        "Tb/s" | "Tbit/s" => 1e12 / 8.0,
        _ => {
            let allowed = "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, Mb/s, Gb/s, Tb/s";
            return refuse(s.trim(), Problem::BadUnit { what: "bandwidth", allowed });
        }
    };
    let bw = v * scale;
    if bw <= 0.0 {
        return refuse(s.trim(), Problem::NotPositive { what: "bandwidth" });
    }
    Ok(bw)
}

/// Parses a frequency into Hz: `Hz`, `kHz`, `MHz`, `GHz`.
pub fn parse_frequency(s: &str) -> Result<f64, UnitError> {
    let (v, u) = split_number(s)?;
    let scale = match u {
        "Hz" => 1.0,
        "kHz" | "KHz" => 1e3,
        "MHz" => 1e6,
        "GHz" => 1e9,
        _ => return refuse(s.trim(), Problem::BadUnit { what: "frequency", allowed: "Hz, kHz, MHz, GHz" }),
    };
    let f = v * scale;
    if f <= 0.0 {
        return refuse(s.trim(), Problem::NotPositive { what: "frequency" });
    }
    Ok(f)
}

fn to_u64(v: f64, s: &str) -> Result<u64, UnitError> {
    if v > u64::MAX as f64 {
        return refuse(s.trim(), Problem::TooLarge);
    }
    Ok(v.round() as u64)
}

/// Formats picoseconds with the largest unit that keeps the value ≥ 1 (exact digits, no float noise).
pub fn fmt_time(ps: Ps) -> String {
    const UNITS: [(u64, &str); 4] = [(PS_PER_S, "s"), (1_000_000_000, "ms"), (PS_PER_US, "us"), (PS_PER_NS, "ns")];
    for (scale, name) in UNITS {
        if ps >= scale {
            return format!("{}{name}", fmt_ratio(ps, scale));
        }
    }
    format!("{ps}ps")
}

/// `n / d` printed with up to 6 decimals, trailing zeros trimmed.
fn fmt_ratio(n: u64, d: u64) -> String {
    let whole = n / d;
    let frac = ((n % d) as u128 * 1_000_000 / d as u128) as u64;
    if frac == 0 {
        return whole.to_string();
    }
    let f = format!("{frac:06}");
    format!("{whole}.{}", f.trim_end_matches('0'))
}

/// A clock rate in the largest unit that keeps it ≥ 1, as machine files write it ("1.6GHz").
pub fn fmt_frequency(hz: f64) -> String {
    for (scale, name) in [(1e9, "GHz"), (1e6, "MHz"), (1e3, "kHz")] {
        if hz >= scale {
            return format!("{}{name}", trim_float(hz / scale));
        }
    }
    format!("{}Hz", trim_float(hz))
}

pub fn fmt_bandwidth(bps: f64) -> String {
    for (scale, name) in [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "KB/s")] {
        if bps >= scale {
            return format!("{}{name}", trim_float(bps / scale));
        }
    }
    format!("{}B/s", trim_float(bps))
}

/// A byte count in the largest binary unit up to GiB that divides it, as machine files write
/// sizes and the parser reads them back ("64KiB", "1500B").
pub fn fmt_bytes(b: u64) -> String {
    binary_size(b as u128, "", 30)
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A time for people to read, as mpiP and IPM print them: 3 or 4 significant digits in the
/// largest of s, ms, µs, ns that keeps the value at least 1 ("591.0 ns", "1.234 ms",
/// "12.35 s"); below a nanosecond, whole picoseconds. The replay's and the profile's text
/// tables print times with it (a sweep's merged table keeps seconds); JSON keeps seconds.
pub fn human_time(ps: Ps) -> String {
    if ps == 0 {
        return "0 s".into();
    }
    const UNITS: [(f64, &str); 4] = [(1e12, "s"), (1e9, "ms"), (1e6, "µs"), (1e3, "ns")];
    // A value that rounds up to 1000 of a unit is printed as 1 of the next one.
    for (scale, unit) in UNITS {
        let x = ps as f64 / scale;
        if x >= 0.99995 {
            return format!("{} {unit}", significant(x));
        }
    }
    format!("{ps} ps")
}

/// [`human_time`] of nanoseconds (the tracer's unit).
pub fn human_time_ns(ns: u64) -> String {
    human_time(ns.saturating_mul(PS_PER_NS))
}

/// `x` (at least about 1) with 4 significant digits, 3 decimals at most.
fn significant(x: f64) -> String {
    let decimals = if x >= 99.995 {
        1
    } else if x >= 9.9995 {
        2
    } else {
        3
    };
    format!("{x:.decimals$}")
}

/// A power-of-two size bin `[lo, 2·lo)` (or `[0 B, 1 B)`) in binary units, the one style of
/// psins-sim's and psins-dump's message-size tables: "[1 KiB, 2 KiB)".
pub fn size_bin(lo: u64) -> String {
    let hi = if lo == 0 { 1 } else { lo as u128 * 2 };
    format!("[{}, {})", binary_size(lo as u128, " ", 60), binary_size(hi, " ", 60))
}

/// A byte count in the largest binary unit of at most 2^`largest` bytes that divides it, `sep`
/// before the unit ("64 KiB", "1500 B" for reports).
fn binary_size(b: u128, sep: &str, largest: u32) -> String {
    const UNITS: [(u32, &str); 6] = [(60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, unit) in UNITS {
        if shift <= largest && b >= 1 << shift && b.is_multiple_of(1 << shift) {
            return format!("{}{sep}{unit}", b >> shift);
        }
    }
    format!("{b}{sep}B")
}

/// Seconds as f64 for reports (the only place picoseconds become floating point).
pub fn secs(ps: Ps) -> f64 {
    ps as f64 / PS_PER_S as f64
}

macro_rules! unit_newtype {
    ($(#[$m:meta])* $name:ident($inner:ty), $parse:ident, $fmt:ident, $what:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
        pub struct $name(pub $inner);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!("`{v}` has no unit: write it as a string with a unit, e.g. {}", $what)))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!("`{v}` has no unit: write it as a string with a unit, e.g. {}", $what)))
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(&$fmt(self.0))
            }
        }
        /// Written back as the string the parser reads.
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}

unit_newtype!(
    /// A duration from the machine file.
    Time(Ps), parse_time, fmt_time, "a time such as \"2.5us\""
);
unit_newtype!(
    /// A clock rate in Hz.
    Frequency(f64), parse_frequency, fmt_frequency, "a frequency such as \"2GHz\""
);
unit_newtype!(
    /// A bandwidth in bytes per second.
    Bandwidth(f64), parse_bandwidth, fmt_bandwidth, "a bandwidth such as \"10GB/s\""
);

/// A byte count: a plain integer or a string with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size such as \"64KiB\" or a byte count")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Bytes, E> {
                parse_bytes(s).map(Bytes).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v).map(Bytes).map_err(|_| E::custom("a size cannot be negative"))
            }
        }
        d.deserialize_any(V)
    }
}

/// Written back as a size with its unit ("64KiB").
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&fmt_bytes(self.0))
    }
}

/// Parses `"0-7,12"` into the listed numbers.
pub fn parse_ranges(s: &str) -> Result<Vec<u32>, UnitError> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || UnitError { input: part.into(), problem: Problem::NotARange };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
                if a > b {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

/// [`parse_ranges`] in ascending order, each rank once (`--timeline-ranks 0-3,2`).
pub fn parse_rank_set(s: &str) -> Result<Vec<u32>, UnitError> {
    let mut v = parse_ranges(s)?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_time("2.5us"), Ok(2_500_000));
        assert_eq!(parse_time("1 ms"), Ok(1_000_000_000));
        assert_eq!(parse_time("100ps"), Ok(100));
        assert!(parse_time("3").is_err());
        assert!(parse_time("3 parsecs").is_err());
        assert_eq!(parse_bandwidth("10GB/s"), Ok(1e10));
        assert_eq!(parse_bandwidth("8Gb/s"), Ok(1e9));
        assert_eq!(parse_bytes("64KiB"), Ok(65536));
        assert_eq!(parse_frequency("1.6GHz"), Ok(1.6e9));
        assert!(parse_bandwidth("-1GB/s").is_err());
    }

    #[test]
    fn refusals_say_what_is_wrong_with_the_text() {
        let e = parse_time(" 3 ").unwrap_err();
        assert_eq!(e.problem, Problem::NoUnit { what: "time", allowed: TIME_UNITS });
        assert_eq!(e.to_string(), "`3`: a time needs a unit (ps, ns, us, ms, s)");
        assert_eq!(
            parse_bytes("2 parsecs").unwrap_err().to_string(),
            "`2 parsecs`: bad size unit (use one of B, KB, MB, GB, KiB, MiB, GiB)"
        );
        assert_eq!(parse_frequency("0GHz").unwrap_err().problem, Problem::NotPositive { what: "frequency" });
        assert_eq!(parse_bytes("1e30GiB").unwrap_err().problem, Problem::TooLarge);
        assert_eq!(parse_time("-1us").unwrap_err().problem, Problem::Negative);
        assert_eq!(parse_time("fast").unwrap_err().problem, Problem::NotANumber);
        let e = parse_ranges("0-3,5-2").unwrap_err();
        assert_eq!((e.input.as_str(), e.problem), ("5-2", Problem::NotARange));
    }

    #[test]
    fn formats_round_trip() {
        for s in ["2.5us", "1ms", "100ps", "3s", "1.000001s"] {
            assert_eq!(fmt_time(parse_time(s).unwrap()), s);
        }
        assert_eq!(fmt_bandwidth(1e10), "10GB/s");
        assert_eq!(fmt_bytes(65536), "64KiB");
    }

    #[test]
    fn human_times_have_four_significant_digits() {
        assert_eq!(human_time(0), "0 s");
        assert_eq!(human_time(30), "30 ps");
        assert_eq!(human_time(30_000), "30.00 ns");
        assert_eq!(human_time(591_000), "591.0 ns");
        assert_eq!(human_time(1_234_567_890), "1.235 ms");
        assert_eq!(human_time(61_006_821_000), "61.01 ms");
        assert_eq!(human_time(12_345_000_000_000), "12.35 s");
        assert_eq!(human_time(4_000_000_000_000_000), "4000.0 s");
        // rounding up to 1000 of a unit moves to the next one
        assert_eq!(human_time(999_960), "1.000 µs");
        assert_eq!(human_time(999_940), "999.9 ns");
        assert_eq!(human_time_ns(23_000), "23.00 µs");
    }

    #[test]
    fn size_bins_in_binary_units() {
        assert_eq!(size_bin(0), "[0 B, 1 B)");
        assert_eq!(size_bin(1), "[1 B, 2 B)");
        assert_eq!(size_bin(512), "[512 B, 1 KiB)");
        assert_eq!(size_bin(1024), "[1 KiB, 2 KiB)");
        assert_eq!(size_bin(1 << 63), "[8 EiB, 16 EiB)");
    }
}
