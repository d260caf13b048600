//! Message-size histograms in power-of-two bins, as psins-sim's report and psins-dump's
//! profile count them: bin [s, 2s) is labelled s, the zero-byte bin 0.

use crate::{Bars, Layer};

/// The histogram of `rows` (lower bound, upper bound exclusive, count; non-empty bins in
/// ascending order), with the empty bins between them drawn as gaps. A single size gets its
/// empty neighbours on both sides, labelled: one bar alone would share the axis with an
/// unlabelled empty slot.
pub fn size_histogram(title: String, rows: &[(u64, u64, u64)]) -> Bars {
    let bin = |lo: u64| if lo == 0 { 0 } else { 64 - lo.leading_zeros() };
    let (mut categories, mut counts) = (Vec::new(), Vec::new());
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        let (mut from, mut to) = (bin(first.0), bin(last.0));
        if from == to {
            (from, to) = (from.saturating_sub(1), (to + 1).min(64));
        }
        for b in from..=to {
            let lo = if b == 0 { 0 } else { 1u64 << (b - 1) };
            categories.push(bytes(lo));
            counts.push(rows.iter().find(|r| r.0 == lo).map_or(0.0, |r| r.2 as f64));
        }
    }
    Bars {
        title,
        x_label: "message size in bytes (bin s: s to 2s - 1)".into(),
        y_label: "messages".into(),
        categories,
        layers: vec![Layer { name: "messages".into(), values: counts }],
        reference: None,
    }
}

/// 512, 1Ki, 64Mi: a power of two in binary units.
fn bytes(v: u64) -> String {
    for (shift, unit) in [(60, "Ei"), (50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki")] {
        if v >= 1 << shift {
            return format!("{}{unit}", v >> shift);
        }
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_bins_between_are_kept_and_labelled() {
        let h = size_histogram("t".into(), &[(0, 1, 2), (4, 8, 5), (1024, 2048, 7)]);
        assert_eq!(h.categories, ["0", "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1Ki"]);
        assert_eq!(h.layers[0].values, [2.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]);
        let h = size_histogram("t".into(), &[(1 << 20, 1 << 21, 1), (1 << 63, u64::MAX, 3)]);
        assert_eq!(h.categories.first().map(String::as_str), Some("1Mi"));
        assert_eq!(h.categories.last().map(String::as_str), Some("8Ei"));
        assert!(size_histogram("t".into(), &[]).categories.is_empty());
    }

    #[test]
    fn a_single_size_is_drawn_between_its_empty_neighbours() {
        let h = size_histogram("t".into(), &[(8192, 16384, 1280)]);
        assert_eq!(h.categories, ["4Ki", "8Ki", "16Ki"]);
        assert_eq!(h.layers[0].values, [0.0, 1280.0, 0.0]);
        let h = size_histogram("t".into(), &[(0, 1, 3)]);
        assert_eq!(h.categories, ["0", "1"]);
    }
}
