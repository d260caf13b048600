//! One sweep point as a JSON-lines row and as a CSV row.

use super::Point;
use crate::report::Report;
use crate::units::{secs, Ps};
use serde_json::{json, Map, Value};

/// The row of `point` from its replay's report (provenance included).
pub fn of_report(sweep: &str, point: &Point, r: &Report) -> Value {
    let n = r.tasks.len().max(1) as u128;
    let mean =
        |f: fn(&crate::report::TaskTimes) -> Ps| secs((r.tasks.iter().map(|t| f(t) as u128).sum::<u128>() / n) as Ps);
    let (slowest, max_wait) = r.tasks.iter().enumerate().fold((0, 0), |(s, w), (i, t)| {
        let s = if t.end > r.tasks[s].end { i } else { s };
        (s, w.max(t.wait))
    });
    let vary: Map<String, Value> = point.vary.iter().map(|(k, v)| (k.to_string(), Value::from(*v))).collect();
    let ok = r.deadlock.is_none();
    json!({
        "sweep": sweep,
        "point": point.index,
        "machine": point.machine.display().to_string(),
        "vary": vary,
        "status": if ok { "ok" } else { "deadlock" },
        "predicted_s": if ok { json!(secs(r.predicted)) } else { Value::Null },
        "predicted_ps": if ok { json!(r.predicted) } else { Value::Null },
        "compute_s": mean(|t| t.compute),
        "comm_s": mean(|t| t.comm),
        "wait_s": mean(|t| t.wait),
        "max_wait_s": secs(max_wait),
        "slowest_rank": slowest,
        "model": r.model,
        "messages": r.stats.messages,
        "bytes": r.stats.bytes as f64,
        "network": r.network.iter().cloned().collect::<Map<String, Value>>(),
        "provenance": r.provenance,
    })
}

/// The fixed CSV columns after `point`, `machine` and the varied keys; then `network.*`
/// (the union over the rows), then provenance.
const COLUMNS: [&str; 11] = [
    "status",
    "predicted_s",
    "predicted_ps",
    "compute_s",
    "comm_s",
    "wait_s",
    "max_wait_s",
    "slowest_rank",
    "model",
    "messages",
    "bytes",
];

/// The CSV text of `rows` (in point order) with the varied `keys` as columns.
pub fn csv(rows: &[Value], keys: &[String]) -> String {
    let mut net: Vec<String> =
        rows.iter().filter_map(|r| r["network"].as_object()).flat_map(|m| m.keys().cloned()).collect();
    net.sort();
    net.dedup();
    let mut head: Vec<String> = vec!["point".into(), "machine".into()];
    head.extend(keys.iter().cloned());
    head.extend(COLUMNS.iter().map(|c| c.to_string()));
    head.extend(net.iter().map(|k| format!("network.{k}")));
    head.extend(["version", "trace", "trace_crc32"].map(String::from));
    let mut s = line(&head);
    for r in rows {
        let p = &r["provenance"];
        let trace = if p["trace"]["spec"].is_string() { &p["trace"]["spec"] } else { &p["trace"]["path"] };
        let mut cells = vec![cell(&r["point"]), cell(&r["machine"])];
        cells.extend(keys.iter().map(|k| cell(&r["vary"][k])));
        cells.extend(COLUMNS.iter().map(|c| cell(&r[*c])));
        cells.extend(net.iter().map(|k| cell(&r["network"][k])));
        cells.extend([cell(&p["version"]), cell(trace), cell(&p["trace"]["crc32"])]);
        s.push_str(&line(&cells));
    }
    s
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One CSV line (RFC 4180 quoting where a cell needs it).
fn line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells
        .iter()
        .map(|c| if c.contains([',', '"', '\n', '\r']) { format!("\"{}\"", c.replace('"', "\"\"")) } else { c.clone() })
        .collect();
    quoted.join(",") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_unions_network_columns() {
        let rows = vec![
            json!({"point": 0, "machine": "a,b.toml", "vary": {"k": "1"}, "status": "ok", "network": {"x": 1},
                   "provenance": {"version": "0.1.0", "trace": {"path": "t.psins", "crc32": "00ff"}}}),
            json!({"point": 1, "machine": "m.toml", "vary": {"k": "2"}, "status": "deadlock", "network": {"y": 2.5},
                   "provenance": {"version": "0.1.0", "trace": {"spec": "gen:x"}}}),
        ];
        let text = csv(&rows, &["k".into()]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "point,machine,k,status,predicted_s,predicted_ps,compute_s,comm_s,wait_s,max_wait_s,slowest_rank,model,messages,bytes,network.x,network.y,version,trace,trace_crc32"
        );
        assert_eq!(lines[1], "0,\"a,b.toml\",1,ok,,,,,,,,,,,1,,0.1.0,t.psins,00ff");
        assert_eq!(lines[2], "1,m.toml,2,deadlock,,,,,,,,,,,,2.5,0.1.0,gen:x,");
    }
}
