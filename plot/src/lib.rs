//! SVG charts for psins's tools, drawn with plotters' SVG backend: a [`Lines`] chart (sweeps,
//! latency-versus-load curves) and a [`Bars`] chart (per-rank stacked time, message-size
//! histograms). A chart is plain data; [`Plot::svg`] draws it. The callers own the files (they
//! write through psins_formats' output rule), so this crate only makes text.

mod bars;
mod lines;
mod sizes;
mod style;

pub use bars::{Bars, Layer};
pub use lines::{Lines, Marker, Series, XAxis};
pub use sizes::size_histogram;

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw: no series or points, no bars.
    #[error("{0}: nothing to plot")]
    Empty(String),
    /// plotters refused the drawing (a range it cannot lay out, …).
    #[error("{title}: cannot draw the chart: {msg}")]
    Draw { title: String, msg: String },
}

/// Anything that draws itself as an SVG document.
pub trait Plot {
    fn svg(&self) -> Result<String, PlotError>;
}

/// Width and height of every chart, in SVG pixels.
pub const SIZE: (u32, u32) = (1000, 620);

/// The unit that shows times up to `max_s` seconds with at most three integer digits: the
/// factor to multiply seconds by, and its name (`ms`, …).
pub fn time_unit(max_s: f64) -> (f64, &'static str) {
    match max_s {
        m if m >= 1.0 => (1.0, "s"),
        m if m >= 1e-3 => (1e3, "ms"),
        m if m >= 1e-6 => (1e6, "µs"),
        _ => (1e9, "ns"),
    }
}
