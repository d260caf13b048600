//! Where a report came from, so that reports (the 20 of a sweep, or two runs months apart)
//! can be told apart and repeated: the tool and trace-format versions, the trace (path, size,
//! CRC-32 of the whole file) or the workload spec, the machine file, the `--set` list in
//! order, the effective machine after it, and the options that change a replay
//! (`--tracer-overhead`). No time stamp: the same inputs give the same
//! bytes. A replay draws no random numbers, so `seeds` is empty.

use crate::error::{Result, SimError};
use crate::source::TracerOverhead;
use psins_machine::Machine;
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;

/// The trace part: `{"path", "bytes", "crc32"}` for a file, `{"spec"}` for a `gen:` workload.
pub fn trace(arg: &str) -> Result<Value> {
    if arg.starts_with("gen:") || arg.starts_with("extrapolate:") {
        return Ok(json!({ "spec": arg }));
    }
    let path = Path::new(arg);
    let err = |e: std::io::Error| SimError::Trace(psins_formats::Error::io(path, "cannot read", e));
    let mut f = std::fs::File::open(path).map_err(err)?;
    let (mut crc, mut bytes, mut buf) = (crc32fast::Hasher::new(), 0u64, vec![0u8; 1 << 20]);
    loop {
        let n = f.read(&mut buf).map_err(err)?;
        if n == 0 {
            break;
        }
        crc.update(&buf[..n]);
        bytes += n as u64;
    }
    Ok(json!({ "path": arg, "bytes": bytes, "crc32": format!("{:08x}", crc.finalize()) }))
}

/// The whole provenance object of one replay of `trace` (from [`trace`]) on `m`, loaded from
/// `machine` with the overrides `sets`, with the tracer's cost taken off as `overhead` says.
pub fn of_run(trace: &Value, machine: &Path, sets: &[String], m: &Machine, overhead: TracerOverhead) -> Value {
    json!({
        "tool": "psins-sim",
        "version": env!("CARGO_PKG_VERSION"),
        "format_version": psins_formats::magic::TRACE_VERSION,
        "trace": trace,
        "machine": { "path": machine.display().to_string(), "sets": sets, "effective": m.effective() },
        "options": { "tracer_overhead": overhead.to_string() },
        "seeds": {},
    })
}

/// The provenance lines of the report table.
pub fn table_lines(p: &Value) -> String {
    let mut s = String::new();
    if let Some(sets) = p["machine"]["sets"].as_array().filter(|a| !a.is_empty()) {
        let list: Vec<&str> = sets.iter().filter_map(Value::as_str).collect();
        s.push_str(&format!("settings:    {}\n", list.join(", ")));
    }
    let t = &p["trace"];
    let trace = match (t["crc32"].as_str(), t["bytes"].as_u64()) {
        (Some(c), Some(b)) => format!("; trace crc32 {c}, {b} bytes"),
        _ => String::new(),
    };
    s.push_str(&format!(
        "made by:     psins-sim {} (trace format {}{trace})\n",
        p["version"].as_str().unwrap_or("?"),
        p["format_version"]
    ));
    s
}
