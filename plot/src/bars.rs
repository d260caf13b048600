//! A bar chart: one bar per category, its layers stacked bottom to top (a rank's compute,
//! transfer and wait), or a single layer (a histogram of message sizes).

use crate::style::{colour, title_px, FONT, LABEL_PX, TICK_PX};
use crate::{lines::number, Plot, PlotError, SIZE};
use plotters::prelude::*;

/// One part of every bar: `values[i]` is its height in bar `i`.
#[derive(Clone, Debug)]
pub struct Layer {
    pub name: String,
    pub values: Vec<f64>,
}

#[derive(Clone, Debug)]
pub struct Bars {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The bars' names, left to right.
    pub categories: Vec<String>,
    /// Bottom to top; one layer draws no legend.
    pub layers: Vec<Layer>,
    /// A height to compare the bars with, drawn as a line across the chart and named in the
    /// legend (the measured run's time beside the predicted ranks').
    pub reference: Option<(f64, String)>,
}

/// Bars beyond this many get no gap between them and only some of their names under the axis.
const NAMED_BARS: usize = 32;

impl Plot for Bars {
    fn svg(&self) -> Result<String, PlotError> {
        let n = self.categories.len();
        if n == 0 || self.layers.is_empty() {
            return Err(PlotError::Empty(self.title.clone()));
        }
        let top = (0..n)
            .map(|i| self.layers.iter().map(|l| l.values.get(i).copied().unwrap_or(0.0).max(0.0)).sum::<f64>())
            .fold(0.0, f64::max);
        let top = top.max(self.reference.as_ref().map_or(0.0, |r| r.0));
        let top = if top > 0.0 { top * if self.layers.len() > 1 { 1.3 } else { 1.1 } } else { 1.0 };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
            self.draw(&root, top).map_err(|e| PlotError::Draw { title: self.title.clone(), msg: e.to_string() })?;
        }
        Ok(out)
    }
}

impl Bars {
    fn draw(
        &self,
        root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
        top: f64,
    ) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
        let n = self.categories.len();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, title_px(&self.title)))
            .margin(24)
            .x_label_area_size(56)
            .y_label_area_size(96)
            .build_cartesian_2d(segments(n).into_segmented(), 0.0..top)?;
        let cats = &self.categories;
        let x_fmt = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) => cats.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .axis_desc_style((FONT, LABEL_PX))
            .label_style((FONT, TICK_PX))
            .x_labels(labels(&self.categories))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&|v| number(*v))
            .disable_x_mesh()
            .light_line_style(WHITE)
            .draw()?;
        let gap = if n > NAMED_BARS { 0 } else { (600 / n as u32 / 8).clamp(1, 16) };
        let mut base = vec![0.0; n];
        for (k, layer) in self.layers.iter().enumerate() {
            let c = colour(k);
            let bars: Vec<Rectangle<(SegmentValue<usize>, f64)>> = (0..n)
                .map(|i| {
                    let v = layer.values.get(i).copied().unwrap_or(0.0).max(0.0);
                    let mut r = Rectangle::new(
                        [(SegmentValue::Exact(i), base[i]), (SegmentValue::Exact(i + 1), base[i] + v)],
                        c.filled(),
                    );
                    r.set_margin(0, 0, gap, gap);
                    base[i] += v;
                    r
                })
                .collect();
            let drawn = chart.draw_series(bars)?;
            if self.layers.len() > 1 {
                drawn
                    .label(&layer.name)
                    .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], c.filled()));
            }
        }
        if let Some((y, name)) = &self.reference {
            let line = [(SegmentValue::Exact(0), *y), (SegmentValue::Last, *y)];
            chart
                .draw_series(LineSeries::new(line, BLACK.stroke_width(2)))?
                .label(name)
                .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.stroke_width(2)));
        }
        if self.layers.len() > 1 || self.reference.is_some() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .label_font((FONT, TICK_PX))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .margin(12)
                .draw()?;
        }
        root.present()
    }
}

/// The integer range whose segments are the bars: plotters takes an integer range's end as a
/// value, so `0..n - 1` has n segments (one bar has to share its axis with an empty segment).
fn segments(n: usize) -> std::ops::Range<usize> {
    if n > 1 {
        0..n - 1
    } else {
        0..1
    }
}

/// How many bar names fit under the axis without overlapping: about 9 px a character and a
/// space between, over the plot's width.
fn labels(categories: &[String]) -> usize {
    let widest = categories.iter().map(|c| c.chars().count()).max().unwrap_or(1);
    let fit = (SIZE.0 as usize - 160) / (widest * 9 + 12);
    categories.len().min(fit).clamp(1, NAMED_BARS)
}
