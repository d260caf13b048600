//! `--vary KEY=VALUES`: the axes of a sweep. A value list is comma-separated; an item may be a
//! range, `START..END*FACTOR` (geometric: `1GB/s..16GB/s*2` is 1, 2, 4, 8, 16 GB/s) or
//! `START..END+STEP` (arithmetic: `1us..4us+1us`), both ends included, in the units the
//! machine file takes (the values become `--set KEY=VALUE` overrides of each point).

/// Why a `--vary` argument is not an axis; a range's reasons come wrapped in [`AxisError::Item`].
#[derive(Debug, thiserror::Error)]
pub enum AxisError {
    #[error("--vary `{arg}`: expected KEY=VALUES, e.g. network.bandwidth=1GB/s,2GB/s")]
    NoValues { arg: String },
    #[error("--vary `{arg}`: empty key segment")]
    EmptyKey { arg: String },
    #[error("--vary `{arg}`: an empty value")]
    EmptyValue { arg: String },
    #[error("--vary `{arg}`: `{item}`: {why}")]
    Item { arg: String, item: String, why: Box<AxisError> },
    #[error("a range needs *FACTOR or +STEP, e.g. 1GB/s..16GB/s*2")]
    NoStep,
    #[error("both ends need the same unit (`{lo}` and `{hi}`)")]
    Units { lo: String, hi: String },
    #[error("the factor must be a plain number above 1")]
    Factor,
    #[error("a geometric range must start above 0")]
    GeometricStart,
    #[error("the step must be above 0, in `{unit}` or plain")]
    Step { unit: String },
    #[error("the range has no points (its start is above its end)")]
    NoPoints,
    #[error("the range has more than {MAX_RANGE_POINTS} points")]
    TooManyPoints,
    #[error("`{text}`: expected a number with an optional unit")]
    NotANumber { text: String },
    #[error("`{text}`: not a finite number")]
    NotFinite { text: String },
}

/// One `--vary`: a machine-file key and its values, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
}

/// No range may produce more points than this (a typo such as `*1.0001` would never end).
const MAX_RANGE_POINTS: usize = 10_000;

impl Axis {
    /// Parses `KEY=V1,V2,...` (ranges expanded); errors name the argument.
    pub fn parse(arg: &str) -> Result<Axis, AxisError> {
        let (key, list) = arg.split_once('=').ok_or_else(|| AxisError::NoValues { arg: arg.to_string() })?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|s| s.trim().is_empty()) {
            return Err(AxisError::EmptyKey { arg: arg.to_string() });
        }
        let mut values = Vec::new();
        for item in list.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(AxisError::EmptyValue { arg: arg.to_string() });
            }
            match item.split_once("..") {
                Some((lo, rest)) => values.extend(range(lo, rest).map_err(|why| AxisError::Item {
                    arg: arg.to_string(),
                    item: item.to_string(),
                    why: Box::new(why),
                })?),
                None => values.push(item.to_string()),
            }
        }
        Ok(Axis { key: key.to_string(), values })
    }
}

/// The values of `LO..HI*F` or `LO..HI+S` (`rest` is what follows the `..`).
fn range(lo: &str, rest: &str) -> Result<Vec<String>, AxisError> {
    let at = rest.rfind(['*', '+']).ok_or(AxisError::NoStep)?;
    let (hi, op, by) = (&rest[..at], &rest[at..at + 1], &rest[at + 1..]);
    let (lo, unit) = split_unit(lo)?;
    let (hi, hi_unit) = split_unit(hi)?;
    if hi_unit != unit {
        return Err(AxisError::Units { lo: unit.to_string(), hi: hi_unit.to_string() });
    }
    let (by, by_unit) = split_unit(by)?;
    let mut out = Vec::new();
    // Ends are inclusive, with room for the rounding of repeated steps.
    let end = hi + hi.abs() * 1e-9;
    if op == "*" {
        if !by_unit.is_empty() || by <= 1.0 {
            return Err(AxisError::Factor);
        }
        if lo <= 0.0 {
            return Err(AxisError::GeometricStart);
        }
        let mut v = lo;
        while v <= end && out.len() <= MAX_RANGE_POINTS {
            out.push(v);
            v *= by;
        }
    } else {
        if !(by_unit.is_empty() || by_unit == unit) || by <= 0.0 {
            return Err(AxisError::Step { unit: unit.to_string() });
        }
        let mut k = 0.0;
        while lo + k * by <= end + by * 1e-9 && out.len() <= MAX_RANGE_POINTS {
            out.push(lo + k * by);
            k += 1.0;
        }
    }
    if out.is_empty() {
        return Err(AxisError::NoPoints);
    }
    if out.len() > MAX_RANGE_POINTS {
        return Err(AxisError::TooManyPoints);
    }
    Ok(out.into_iter().map(|v| format!("{}{unit}", fmt_num(v))).collect())
}

/// `2.5GB/s` → (2.5, "GB/s").
fn split_unit(s: &str) -> Result<(f64, &str), AxisError> {
    let s = s.trim();
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(s.len());
    let n = s[..end].parse::<f64>().map_err(|_| AxisError::NotANumber { text: s.to_string() })?;
    if !n.is_finite() {
        return Err(AxisError::NotFinite { text: s.to_string() });
    }
    Ok((n, s[end..].trim()))
}

/// A range value as a person writes it: 12 significant digits at most, no trailing zeros
/// (`0.1 + 0.2` prints as 0.3).
fn fmt_num(v: f64) -> String {
    let rounded: f64 = format!("{v:.11e}").parse().unwrap_or(v);
    format!("{rounded}")
}

/// The value indices of point `k` of a grid with these axis lengths (the last axis fastest).
pub fn decompose(mut k: u64, lens: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; lens.len()];
    for (i, &n) in lens.iter().enumerate().rev() {
        idx[i] = (k % n as u64) as usize;
        k /= n as u64;
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(arg: &str) -> Vec<String> {
        Axis::parse(arg).unwrap().values
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(values("network.bandwidth=1GB/s, 2GB/s"), ["1GB/s", "2GB/s"]);
        assert_eq!(values("network.bandwidth=1GB/s..16GB/s*2"), ["1GB/s", "2GB/s", "4GB/s", "8GB/s", "16GB/s"]);
        assert_eq!(values("network.bandwidth=1GB/s..20GB/s*2"), ["1GB/s", "2GB/s", "4GB/s", "8GB/s", "16GB/s"]);
        assert_eq!(values("mpi.call_overhead=0.1us..0.4us+0.1us"), ["0.1us", "0.2us", "0.3us", "0.4us"]);
        assert_eq!(values("network.buses=1..4+1,8"), ["1", "2", "3", "4", "8"]);
        assert_eq!(values("network.buses=2..2*2"), ["2"]);
        assert_eq!(values("x.y=0.5..1.5+0.5"), ["0.5", "1", "1.5"]);
    }

    #[test]
    fn bad_axes_name_the_argument() {
        for (arg, why) in [
            ("network.bandwidth", "expected KEY=VALUES"),
            ("=1,2", "empty key"),
            ("a.b=1,,2", "empty value"),
            ("a.b=16GB/s..1GB/s*2", "no points"),
            ("a.b=1GB/s..16MB/s*2", "same unit"),
            ("a.b=1..16*1", "above 1"),
            ("a.b=0..16*2", "start above 0"),
            ("a.b=1..16", "needs *FACTOR or +STEP"),
            ("a.b=1..100000+1", "more than 10000"),
            ("a.b=1us..4us+1GB/s", "the step"),
        ] {
            let e = Axis::parse(arg).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--vary `{arg}`")) && e.contains(why), "{arg}: {e}");
        }
    }

    #[test]
    fn points_decompose_last_axis_fastest() {
        let lens = [3, 2];
        let all: Vec<Vec<usize>> = (0..6).map(|k| decompose(k, &lens)).collect();
        assert_eq!(all, [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]);
    }
}
