//! A trace that holds no records (a partial consolidation of ranks killed before their first
//! block) is a bad input: exit 1 with one message, as docs/exit-codes.md gives bad inputs,
//! never exit 2 (bad command-line usage).

use psins_formats::TraceWriter;
use std::process::Command;

#[test]
fn an_empty_trace_is_a_bad_input() {
    let d = std::env::temp_dir().join(format!("psins-empty-trace-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let path = d.join("empty.psins");
    TraceWriter::write_tasks(&path, &[Vec::new(), Vec::new()], Vec::new(), Vec::new()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_psins-sim")).arg(&path).args(["-m", "bus-cluster"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no records, so there is nothing to predict"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&d).ok();
}
