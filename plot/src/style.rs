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
