//! psins-export --to paraver on test apps traced under real mpirun: one communication record
//! per message the apps counted (bytes too), and a .prv Paraver can read — records in time
//! order, each thread's states back to back from 0 to its end, every MPI event closed.

use psins_e2e::*;
use std::collections::BTreeMap;

#[test]
fn traced_apps_export_every_message() {
    need_mpi!();
    // Nonblocking halos (stencil2d, ring), wildcards (master_worker), sub-communicators and
    // sendrecv (comms, cg), persistent requests (requests).
    for app in ["stencil2d", "ring", "master_worker", "comms", "cg", "requests"] {
        let run = run_traced(app, 4, &[], &[]);
        run.ok();
        let counts = parse_app(&run.stdout, "PSINS_COUNTS");
        let sent: u64 = counts.values().map(|c| c.p2p.get("sent_msgs").copied().unwrap_or(0)).sum();
        let bytes: u64 = counts.values().map(|c| c.p2p.get("recv_bytes").copied().unwrap_or(0)).sum();
        assert_eq!(counts.len(), 4, "{app}: the app printed its counts");
        let trace = run.dir.join(format!("{app}.psins"));
        run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
        let prv = run.dir.join(format!("{app}.prv"));
        let o = run_tool(
            "psins-export",
            &["--to".as_ref(), "paraver".as_ref(), trace.as_os_str(), "-o".as_ref(), prv.as_os_str()],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("without a partner"), "{app}: {err}");
        let text = std::fs::read_to_string(&prv).unwrap();
        let c = check_prv(app, &text, 4);
        assert_eq!((c.messages, c.bytes), (sent, bytes), "{app}: messages and bytes the apps counted");
    }
}

#[derive(Default)]
struct Checked {
    messages: u64,
    bytes: u64,
}

/// Paraver's rules, checked line by line; the messages and their bytes.
fn check_prv(app: &str, text: &str, ranks: u32) -> Checked {
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    let threads = vec!["1:1"; ranks as usize].join(",");
    let tail = format!(":1({ranks}):1:{ranks}({threads})");
    assert!(head.starts_with("#Paraver (") && head.ends_with(&tail), "{app}: {head}");
    let ftime: u64 = head.split("):").nth(1).unwrap().split("_ns").next().unwrap().parse().unwrap();
    let (mut last, mut out) = (0u64, Checked::default());
    // Per thread: where its states reached, and the MPI event open (type, value).
    let mut reached: BTreeMap<u64, u64> = BTreeMap::new();
    let mut open: BTreeMap<u64, Option<(u64, u64)>> = BTreeMap::new();
    for l in lines {
        let f: Vec<u64> = l.split(':').map(|x| x.parse().unwrap_or_else(|_| panic!("{app}: {l}"))).collect();
        assert!((1..=ranks as u64).contains(&f[1]) && f[2] == 1 && f[3] == f[1] && f[4] == 1, "{app}: {l}");
        assert!(f[5] >= last, "{app}: out of time order: {l}");
        last = f[5];
        match f[0] {
            1 => {
                assert_eq!(f.len(), 8, "{app}: {l}");
                let at = reached.entry(f[1]).or_insert(0);
                assert!(f[5] == *at && f[6] > f[5] && f[6] <= ftime, "{app}: state not back to back: {l}");
                *at = f[6];
            }
            2 => {
                assert_eq!(f.len(), 8, "{app}: {l}");
                let o = open.entry(f[1]).or_insert(None);
                match (*o, f[7]) {
                    (None, v) if v > 0 => *o = Some((f[6], v)),
                    (Some((ty, _)), 0) if ty == f[6] => *o = None,
                    _ => panic!("{app}: event out of pairs: {l} (open {o:?})"),
                }
            }
            3 => {
                assert_eq!(f.len(), 15, "{app}: {l}");
                assert!(f[5] <= f[6] && f[11] <= f[12] && f[6] <= ftime && f[12] <= ftime, "{app}: {l}");
                assert!((1..=ranks as u64).contains(&f[7]) && f[9] == f[7], "{app}: {l}");
                // A message arrives after it was sent.
                assert!(f[12] >= f[5], "{app}: received before sent: {l}");
                out.messages += 1;
                out.bytes += f[13];
            }
            _ => panic!("{app}: unknown record {l}"),
        }
    }
    assert!(open.values().all(Option::is_none), "{app}: an MPI event left open");
    assert_eq!(reached.values().max().copied(), Some(ftime), "{app}: the header's duration is the last rank's end");
    out
}
