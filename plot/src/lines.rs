//! A line chart: one line (with its points marked) per series, dashed vertical markers (a
//! saturation load, …), a legend naming both.

use crate::style::{colour, title_px, FONT, LABEL_PX, TICK_PX};
use crate::{Plot, PlotError, SIZE};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

/// How the x values are laid out.
#[derive(Clone, Debug, PartialEq)]
pub enum XAxis {
    Linear,
    /// Logarithmic: every x must be above 0 (a geometric sweep such as 1..16 GB/s ×2).
    Log,
    /// Named positions: a point's x is its index in this list.
    Categories(Vec<String>),
}

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A dashed vertical line at `x`, named in the legend.
#[derive(Clone, Debug)]
pub struct Marker {
    pub x: f64,
    pub label: String,
}

#[derive(Clone, Debug)]
pub struct Lines {
    pub title: String,
    /// With the unit: `network.bandwidth (GB/s)`.
    pub x_label: String,
    pub y_label: String,
    pub x: XAxis,
    pub y_log: bool,
    pub series: Vec<Series>,
    pub markers: Vec<Marker>,
}

impl Plot for Lines {
    fn svg(&self) -> Result<String, PlotError> {
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        if pts().next().is_none() {
            return Err(PlotError::Empty(self.title.clone()));
        }
        let xs = pts().map(|p| p.0).chain(self.markers.iter().map(|m| m.x));
        let (x0, x1) = match &self.x {
            XAxis::Categories(c) => (-0.5, c.len().max(1) as f64 - 0.5),
            XAxis::Log => log_span(xs),
            XAxis::Linear => padded(span(xs)),
        };
        let ys = pts().map(|p| p.1);
        let (y0, y1) = if self.y_log { log_span(ys) } else { from_zero(span(ys)) };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
            // Log axes get their own ticks: plotters' put a decade's end both as the last light
            // tick of one decade and the first bold one of the next (a sweep's x axis read
            // "… 9 10 10 20").
            let lx = || (x0..x1).log_scale().with_key_points(log_ticks(x0, x1));
            let ly = || (y0..y1).log_scale().with_key_points(log_ticks(y0, y1));
            let r = match (&self.x, self.y_log) {
                (XAxis::Log, false) => self.draw(&root, lx(), y0..y1),
                (XAxis::Log, true) => self.draw(&root, lx(), ly()),
                (_, false) => self.draw(&root, x0..x1, y0..y1),
                (_, true) => self.draw(&root, x0..x1, ly()),
            };
            r.and_then(|()| root.present())
                .map_err(|e| PlotError::Draw { title: self.title.clone(), msg: e.to_string() })?;
        }
        Ok(out)
    }
}

impl Lines {
    fn draw<X, Y>(
        &self,
        root: &DrawingArea<SVGBackend, Shift>,
        x: X,
        y: Y,
    ) -> Result<(), DrawingAreaErrorKind<std::io::Error>>
    where
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, title_px(&self.title)))
            .margin(24)
            .x_label_area_size(56)
            .y_label_area_size(96)
            .build_cartesian_2d(x, y)?;
        let cats = match &self.x {
            XAxis::Categories(c) => Some(c),
            _ => None,
        };
        let x_fmt = |v: &f64| match cats {
            Some(c) => category(c, *v),
            None => number(*v),
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .axis_desc_style((FONT, LABEL_PX))
            .label_style((FONT, TICK_PX))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|v| number(*v))
            .light_line_style(WHITE);
        if let Some(c) = cats {
            mesh.x_labels(c.len() * 2 + 1);
        }
        mesh.draw()?;
        for (i, s) in self.series.iter().enumerate() {
            let c = colour(i);
            chart.draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?.label(&s.name).legend(
                move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (24, 0)], c.stroke_width(2))
                        + Circle::new((12, 0), 4, c.filled())
                },
            );
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        }
        let (ylo, yhi) = (chart.y_range().start, chart.y_range().end);
        for m in &self.markers {
            let style = RED.stroke_width(2);
            chart.draw_series(DashedLineSeries::new([(m.x, ylo), (m.x, yhi)], 8, 6, style))?.label(&m.label).legend(
                move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (8, 0)], style)
                        + PathElement::new(vec![(14, 0), (22, 0)], style)
                },
            );
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FONT, TICK_PX))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .margin(12)
            .draw()?;
        Ok(())
    }
}

/// The label of category `v` when it sits on one (ticks between categories stay blank).
fn category(c: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < c.len() {
        c[i as usize].clone()
    } else {
        String::new()
    }
}

/// A tick value in at most 4 significant digits, plain between 0.001 and 100000.
pub(crate) fn number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.2e}")
    } else {
        let digits = (3 - a.log10().floor() as i32).max(0) as usize;
        let s = format!("{v:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

fn span(v: impl Iterator<Item = f64>) -> (f64, f64) {
    v.filter(|x| x.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
}

fn padded((lo, hi): (f64, f64)) -> (f64, f64) {
    let pad = if hi > lo { (hi - lo) * 0.04 } else { lo.abs().max(1.0) * 0.5 };
    (lo - pad, hi + pad)
}

/// A y range from 0 (or from the lowest value when it is below 0), with headroom for the legend.
fn from_zero((lo, hi): (f64, f64)) -> (f64, f64) {
    let lo = lo.min(0.0);
    let hi = if hi > lo { hi } else { lo + 1.0 };
    (lo, hi + (hi - lo) * 0.25)
}

/// The ticks of a log axis over `lo..hi`, each once: 1, 2 and 5 times the powers of ten in
/// it, or every whole multiple of them where that gives fewer than three.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let ticks = |steps: &[f64]| -> Vec<f64> {
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        (a..=b).flat_map(|k| steps.iter().map(move |m| m * 10f64.powi(k))).filter(|v| (lo..=hi).contains(v)).collect()
    };
    let v = ticks(&[1.0, 2.0, 5.0]);
    if v.len() >= 3 {
        v
    } else {
        ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    }
}

/// A log range over the positive values, a little wider than them.
fn log_span(v: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = span(v.filter(|x| *x > 0.0));
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    (lo / 1.25, hi * 1.6)
}

#[cfg(test)]
mod tests {
    use super::number;

    /// Each tick of a log axis once (a sweep over 1–16 GB/s drew "10" twice).
    #[test]
    fn log_ticks_are_each_once() {
        assert_eq!(super::log_ticks(0.8, 25.6), vec![1.0, 2.0, 5.0, 10.0, 20.0]);
        assert_eq!(super::log_ticks(3.0, 7.0), vec![3.0, 4.0, 5.0, 6.0, 7.0]);
        let t = super::log_ticks(8.0, 160.0);
        let mut d = t.clone();
        d.dedup();
        assert_eq!(t, d);
    }

    #[test]
    fn tick_numbers_are_short() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(2.0), "2");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(12.5), "12.5");
        assert_eq!(number(1234.5678), "1235");
        assert_eq!(number(0.000012), "1.20e-5");
    }
}
