//! `psins-dump --header FILE`: what a file says about the run it holds, before its records:
//! a log's header fields, or a compact trace's metadata and task count, and in both the clock
//! its CPU bursts were timed with (`PSINS_CLOCK`, docs/tracer.md "Timing").

use psins_formats::{sniff, BurstClock, Error, FileKind, LogReader, TraceReader};
use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::Path;

/// The header as (key, value) pairs in the file's order, then `bursts`.
pub fn read(path: &Path) -> Result<Vec<(String, String)>, Error> {
    let mut head = [0u8; 8];
    let n =
        std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).map_err(|e| Error::io(path, "cannot read", e))?;
    let (mut out, bursts) = match sniff(&head[..n]) {
        Some(FileKind::Log) => {
            let h = LogReader::open(path)?.header;
            let out = vec![
                ("file".to_string(), "per-rank log".to_string()),
                ("rank".to_string(), h.rank.to_string()),
                ("world_size".to_string(), h.world_size.to_string()),
                ("job_id".to_string(), format!("{:#x}", h.job_id)),
                ("pid".to_string(), h.pid.to_string()),
                ("start_unix_ns".to_string(), h.start_unix_ns.to_string()),
                ("clock".to_string(), h.clock.clone()),
                ("host".to_string(), h.host.clone()),
                ("mpi_version".to_string(), h.mpi_version.clone()),
                ("settings".to_string(), h.settings.clone()),
                ("tracer_version".to_string(), h.tracer_version.clone()),
            ];
            (out, h.burst_clock())
        }
        // Unknown files go to the trace reader, whose error says what the file is not.
        _ => {
            let tr = TraceReader::open(path)?;
            let mut out = vec![
                ("file".to_string(), "compact trace".to_string()),
                ("tasks".to_string(), tr.tasks().to_string()),
                ("records".to_string(), tr.header.total_records().to_string()),
            ];
            out.extend(tr.header.meta.iter().cloned());
            // a generated, imported or predicted trace holds no bursts the tracer timed
            let traced = tr.header.meta("tracer_version").is_some();
            (out, if traced { tr.header.burst_clock() } else { None })
        }
    };
    out.push(("bursts".to_string(), bursts_text(bursts, &out)));
    Ok(out)
}

/// `cpu (…)` or `wall (…)`; `none` for a file no tracer wrote; `unknown` for a value of
/// PSINS_CLOCK this version does not know.
fn bursts_text(b: Option<BurstClock>, fields: &[(String, String)]) -> String {
    let traced = fields.iter().any(|(k, _)| k == "tracer_version");
    match b {
        Some(b) => format!("{}: {}", b.name(), b.describe()),
        None if traced => "unknown (a PSINS_CLOCK value this psins-dump does not know)".to_string(),
        None => "none (not written by psins's tracer)".to_string(),
    }
}

pub fn text(fields: &[(String, String)]) -> String {
    let w = fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    fields.iter().map(|(k, v)| format!("{k:<w$}  {v}\n")).collect()
}

/// One JSON object; `bursts` is `"wall"`, `"cpu"` or null.
pub fn json(fields: &[(String, String)]) -> Value {
    let mut m = Map::new();
    for (k, v) in fields {
        let v = match k.as_str() {
            "bursts" => v.split(':').next().filter(|w| *w == "wall" || *w == "cpu").map_or(Value::Null, |w| json!(w)),
            "rank" | "world_size" | "pid" | "start_unix_ns" | "tasks" | "records" => {
                v.parse::<u64>().map_or_else(|_| json!(v), |n| json!(n))
            }
            _ => json!(v),
        };
        m.insert(k.clone(), v);
    }
    Value::Object(m)
}
