//! Every chart kind parses as XML and draws what it was given: its title, axis labels, one
//! legend entry per series or layer, one mark per point or bar.

use psins_plot::{Bars, Layer, Lines, Marker, Plot, PlotError, Series, XAxis};

/// The SVG's text elements, and a count of its elements by tag.
fn parse(svg: &str) -> (Vec<String>, impl Fn(&str) -> usize) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect();
    let tags: Vec<String> =
        doc.descendants().filter(|n| n.is_element()).map(|n| n.tag_name().name().to_string()).collect();
    (texts, move |tag: &str| tags.iter().filter(|t| *t == tag).count())
}

fn lines(x: XAxis) -> Lines {
    Lines {
        title: "Predicted run time of app.psins".into(),
        x_label: "network.bandwidth (GB/s)".into(),
        y_label: "predicted time (ms)".into(),
        x,
        y_log: false,
        series: vec![
            Series { name: "network.latency=1us".into(), points: vec![(1.0, 3.0), (2.0, 2.0), (4.0, 1.5)] },
            Series { name: "network.latency=4us".into(), points: vec![(1.0, 4.0), (2.0, 3.0), (4.0, 2.5)] },
        ],
        markers: vec![],
    }
}

#[test]
fn a_line_chart_has_its_labels_and_a_legend_entry_and_points_per_series() {
    for x in [XAxis::Linear, XAxis::Log] {
        let svg = lines(x).svg().unwrap();
        let (texts, count) = parse(&svg);
        for want in ["Predicted run time of app.psins", "network.bandwidth (GB/s)", "predicted time (ms)"] {
            assert_eq!(texts.iter().filter(|t| *t == want).count(), 1, "{want} in {texts:?}");
        }
        for s in ["network.latency=1us", "network.latency=4us"] {
            assert_eq!(texts.iter().filter(|t| *t == s).count(), 1, "legend entry {s}");
        }
        // 6 points and a legend mark per series.
        assert_eq!(count("circle"), 6 + 2);
    }
}

#[test]
fn a_marker_is_named_in_the_legend() {
    let mut l = lines(XAxis::Linear);
    l.markers.push(Marker { x: 2.5, label: "saturation (load 2.5)".into() });
    l.y_log = true;
    let (texts, count) = parse(&l.svg().unwrap());
    assert_eq!(texts.iter().filter(|t| *t == "saturation (load 2.5)").count(), 1);
    assert_eq!(count("circle"), 8);
}

#[test]
fn categories_label_their_positions() {
    let mut l = lines(XAxis::Categories(vec!["a.toml".into(), "b.toml".into(), "c.toml".into()]));
    l.series = vec![Series { name: "predicted".into(), points: vec![(0.0, 1.0), (1.0, 2.0), (2.0, 1.5)] }];
    let (texts, _) = parse(&l.svg().unwrap());
    for c in ["a.toml", "b.toml", "c.toml"] {
        assert_eq!(texts.iter().filter(|t| *t == c).count(), 1, "{c} in {texts:?}");
    }
}

#[test]
fn stacked_bars_have_a_rect_per_bar_and_layer_and_a_legend() {
    let b = Bars {
        title: "Predicted time per rank".into(),
        x_label: "rank".into(),
        y_label: "time (ms)".into(),
        categories: (0..4).map(|i| i.to_string()).collect(),
        layers: vec![
            Layer { name: "compute".into(), values: vec![1.0, 2.0, 3.0, 4.0] },
            Layer { name: "transfer".into(), values: vec![0.5, 0.5, 0.5, 0.5] },
            Layer { name: "wait".into(), values: vec![2.0, 1.0, 0.5, 0.0] },
        ],
        reference: None,
    };
    let (texts, count) = parse(&b.svg().unwrap());
    for want in ["Predicted time per rank", "rank", "time (ms)", "compute", "transfer", "wait", "0", "3"] {
        assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
    }
    // Background, 4 bars x 3 layers, the legend box (its fill and its border), 3 swatches.
    assert_eq!(count("rect"), 1 + 12 + 2 + 3);
}

#[test]
fn a_histogram_has_a_bar_per_bin_and_no_legend() {
    let b = Bars {
        title: "Message sizes".into(),
        x_label: "message size (bytes)".into(),
        y_label: "messages".into(),
        categories: vec!["[1, 2)".into(), "[1Ki, 2Ki)".into()],
        layers: vec![Layer { name: "messages".into(), values: vec![10.0, 3.0] }],
        reference: None,
    };
    let (texts, count) = parse(&b.svg().unwrap());
    assert!(texts.iter().any(|t| t == "[1Ki, 2Ki)"), "{texts:?}");
    assert_eq!(count("rect"), 1 + 2);
}

#[test]
fn nothing_to_draw_is_an_error_naming_the_chart() {
    let mut l = lines(XAxis::Linear);
    l.series.clear();
    match l.svg() {
        Err(e @ PlotError::Empty(_)) => assert_eq!(e.to_string(), "Predicted run time of app.psins: nothing to plot"),
        other => panic!("{other:?}"),
    }
}
