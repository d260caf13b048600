//! Colours and fonts shared by the charts, so every psins chart looks the same.

use plotters::style::RGBColor;

/// A qualitative palette (Okabe–Ito, readable by colour-blind viewers); series past its end
/// reuse it in order.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(240, 228, 66),
];

pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

pub const FONT: &str = "sans-serif";
pub const TITLE_PX: u32 = 26;
pub const LABEL_PX: u32 = 20;
pub const TICK_PX: u32 = 17;

/// The title's font size: TITLE_PX, smaller for a title that would not fit across the chart
/// (a synthetic curve's names the machine, its topology, routing and pattern: 100 characters
/// fill the whole width at 26, and run past both edges in a wider sans-serif). The SVG backend draws a size of `px` at 0.806 px, and a
/// sans-serif character is about 0.55 of the size wide on average; 24 px of margin each side.
pub fn title_px(title: &str) -> u32 {
    let room = (crate::SIZE.0 - 48) as f64;
    let per_char = 0.806 * 0.55;
    let fits = (room / (per_char * title.chars().count().max(1) as f64)).floor() as u32;
    fits.clamp(12, TITLE_PX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short title keeps the full size; the synthetic curve's longest (100 characters on
    /// the bundled dragonfly with UGAL-G routing) shrinks to what fits across the chart.
    #[test]
    fn a_long_title_shrinks_to_fit() {
        assert_eq!(title_px("Predicted time per rank"), TITLE_PX);
        let long =
            "Latency against load: dragonfly-72, dragonfly p=2 a=4 h=2 g=9 Absolute, ugal-g 3 VC, pattern group-shift";
        let px = title_px(long);
        assert!((12..TITLE_PX).contains(&px), "{px}");
        assert!(0.806 * 0.55 * px as f64 * long.chars().count() as f64 <= (crate::SIZE.0 - 48) as f64);
    }
}
