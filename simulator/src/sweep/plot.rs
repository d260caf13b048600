//! `--plot FILE.svg` of a whole sweep: predicted time against the first numeric `--vary`
//! axis, one line per combination of the other axes (and machine files, when there are
//! several). A sweep of machine files alone puts the files on the x axis.

use super::merge::Merged;
use crate::plot::short_name;
use crate::units::{parse_bandwidth, parse_bytes, parse_time};
use psins_plot::{time_unit, Lines, Series, XAxis};
use serde_json::Value;

/// Turns a value of the x axis into its position.
type ToX = Box<dyn Fn(&str) -> f64>;

/// The chart of `m` (its rows in point order).
pub fn chart(m: &Merged) -> Lines {
    let keys: Vec<&str> = m.def["vary"].as_array().into_iter().flatten().filter_map(|a| a["key"].as_str()).collect();
    let machines: Vec<&str> = m.def["machines"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let vary = |r: &Value, k: &str| r["vary"][k].as_str().unwrap_or("").to_string();
    // The x axis: the first varied key whose values are all numbers (else the first key,
    // by name; else the machine file).
    let axis_values = |k: &str| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for r in &m.rows {
            let x = vary(r, k);
            if !v.contains(&x) {
                v.push(x);
            }
        }
        v
    };
    let numeric_key = keys.iter().find_map(|k| numeric(&axis_values(k)).map(|n| (*k, n)));
    let x_key = numeric_key.as_ref().map(|(k, _)| *k).or(keys.first().copied());
    let several = machines.len() > 1;
    let x_of = |r: &Value| -> String {
        match x_key {
            Some(k) => vary(r, k),
            None => r["machine"].as_str().unwrap_or("").to_string(),
        }
    };
    let (x_axis, x_label, x_number): (XAxis, String, ToX) = match &numeric_key {
        Some((k, n)) => {
            let log = n.log;
            let unit = if n.unit.is_empty() { String::new() } else { format!(" ({})", n.unit) };
            let to = n.to;
            (if log { XAxis::Log } else { XAxis::Linear }, format!("{k}{unit}"), Box::new(move |s: &str| to(s)))
        }
        None => {
            let cats = match x_key {
                Some(k) => axis_values(k),
                None => machines.iter().map(|s| s.to_string()).collect(),
            };
            let label = x_key.map_or("machine file".to_string(), String::from);
            let c = cats.clone();
            (XAxis::Categories(cats), label, Box::new(move |s: &str| c.iter().position(|x| x == s).unwrap_or(0) as f64))
        }
    };
    let max_s = m.rows.iter().filter_map(|r| r["predicted_s"].as_f64()).fold(0.0, f64::max);
    let (scale, unit) = time_unit(max_s);
    // A series per combination of everything but x, in point order.
    let mut series: Vec<Series> = Vec::new();
    for r in &m.rows {
        let mut name: Vec<String> = Vec::new();
        if several && x_key.is_some() {
            name.push(short_name(r["machine"].as_str().unwrap_or("")));
        }
        name.extend(keys.iter().filter(|k| Some(**k) != x_key).map(|k| format!("{k}={}", vary(r, k))));
        let name = if name.is_empty() { "predicted".to_string() } else { name.join(", ") };
        let Some(y) = r["predicted_s"].as_f64() else { continue }; // a deadlocked point has no time
        let p = (x_number(&x_of(r)), y * scale);
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(p),
            None => series.push(Series { name, points: vec![p] }),
        }
    }
    let trace = m.def["trace"]["path"].as_str().or(m.def["trace"]["spec"].as_str()).unwrap_or("trace");
    let on =
        if several { String::new() } else { format!(" on {}", short_name(machines.first().copied().unwrap_or(""))) };
    Lines {
        title: format!("Predicted run time of {}{on}", short_name(trace)),
        x_label,
        y_label: format!("predicted time ({unit})"),
        x: x_axis,
        y_log: false,
        series,
        markers: Vec::new(),
    }
}

/// Values read as numbers: how to turn one into x, the axis unit, and whether the spread
/// asks for a log axis.
struct Numeric {
    to: fn(&str) -> f64,
    unit: &'static str,
    log: bool,
}

fn numeric(values: &[String]) -> Option<Numeric> {
    type Reader = (fn(&str) -> Option<f64>, fn(&str) -> f64, &'static str);
    let readers: [Reader; 4] = [
        (|s| s.parse::<f64>().ok(), |s| s.parse().unwrap_or(0.0), ""),
        (|s| parse_time(s).ok().map(|ps| ps as f64 / 1e6), |s| parse_time(s).map_or(0.0, |ps| ps as f64 / 1e6), "µs"),
        (|s| parse_bandwidth(s).ok().map(|b| b / 1e9), |s| parse_bandwidth(s).map_or(0.0, |b| b / 1e9), "GB/s"),
        (|s| parse_bytes(s).ok().map(|b| b as f64), |s| parse_bytes(s).map_or(0.0, |b| b as f64), "B"),
    ];
    let (_, to, unit) = readers.into_iter().find(|(ok, _, _)| values.iter().all(|v| ok(v).is_some()))?;
    let xs: Vec<f64> = values.iter().map(|v| to(v)).collect();
    let (lo, hi) = xs.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    Some(Numeric { to, unit, log: lo > 0.0 && hi / lo >= 10.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merged(machines: &[&str], vary: Value, rows: Vec<Value>) -> Merged {
        let def = json!({"trace": {"path": "/x/app.psins"}, "machines": machines, "vary": vary});
        Merged { def, rows, parts: 1 }
    }

    fn row(m: &str, vary: Value, s: Option<f64>) -> Value {
        json!({"machine": m, "vary": vary, "predicted_s": s})
    }

    #[test]
    fn x_is_the_first_numeric_axis_and_the_others_make_the_series() {
        let vary = json!([{"key": "network.model", "values": ["bus", "pmac"]},
                          {"key": "network.bandwidth", "values": ["1GB/s", "16GB/s"]}]);
        let rows = vec![
            row("a.toml", json!({"network.model": "bus", "network.bandwidth": "1GB/s"}), Some(0.004)),
            row("a.toml", json!({"network.model": "bus", "network.bandwidth": "16GB/s"}), Some(0.002)),
            row("a.toml", json!({"network.model": "pmac", "network.bandwidth": "1GB/s"}), Some(0.003)),
            // A deadlocked point has no time and no mark.
            row("a.toml", json!({"network.model": "pmac", "network.bandwidth": "16GB/s"}), None),
        ];
        let c = chart(&merged(&["cfg/a.toml"], vary, rows));
        assert_eq!(c.title, "Predicted run time of app.psins on a.toml");
        assert_eq!((c.x_label.as_str(), c.y_label.as_str()), ("network.bandwidth (GB/s)", "predicted time (ms)"));
        assert_eq!(c.x, XAxis::Log);
        let s: Vec<(&str, &[(f64, f64)])> = c.series.iter().map(|s| (s.name.as_str(), &s.points[..])).collect();
        assert_eq!(
            s,
            [("network.model=bus", &[(1.0, 4.0), (16.0, 2.0)][..]), ("network.model=pmac", &[(1.0, 3.0)][..])]
        );
    }

    #[test]
    fn machine_files_alone_are_categories() {
        let rows = vec![row("m/a.toml", json!({}), Some(2.0)), row("m/b.toml", json!({}), Some(3.0))];
        let c = chart(&merged(&["m/a.toml", "m/b.toml"], json!([]), rows));
        assert_eq!(c.x, XAxis::Categories(vec!["m/a.toml".into(), "m/b.toml".into()]));
        assert_eq!(c.y_label, "predicted time (s)");
        assert_eq!(c.series.len(), 1);
        assert_eq!(c.series[0].points, [(0.0, 2.0), (1.0, 3.0)]);
    }

    #[test]
    fn times_and_plain_numbers_read_as_numbers() {
        let t = numeric(&["0.5us".into(), "2ns".into()]).unwrap();
        assert_eq!((t.unit, (t.to)("0.5us"), (t.to)("2ns"), t.log), ("µs", 0.5, 0.002, true));
        let n = numeric(&["1".into(), "4".into()]).unwrap();
        assert_eq!((n.unit, (n.to)("4"), n.log), ("", 4.0, false));
        assert!(numeric(&["bus".into(), "1".into()]).is_none());
    }
}
