//! DUMPI import against psins's own tracer: the committed libdumpi traces
//! (interop/tests/fixtures/dumpi, scripts/make-dumpi-fixtures.sh) are of runs this test makes
//! again under the tracer, with the same app, arguments and ranks. Both traces must hold the
//! same messages (each rank's sends in order; its receives as a set, since the two tracers
//! list a Waitall's completions in different orders) and the same collectives in order; and
//! the imported trace replays in psins-sim. Persistent sends count as sent at each start;
//! probes that found a message are compared in order (the unsuccessful ones of a polling loop
//! vary from run to run).

use psins_e2e::*;
use psins_formats::*;
use std::path::{Path, PathBuf};

/// The fixtures: app, ranks, arguments (as the script ran them).
const RUNS: [(&str, u32, &[&str]); 8] = [
    ("pingpong", 2, &["1"]),
    ("ring", 4, &["3", "4"]),
    ("stencil2d", 4, &["2", "8"]),
    ("is", 4, &["1", "64"]),
    ("requests", 4, &["64", "1"]),
    ("cg", 4, &["2", "64"]),
    ("groups", 4, &[]),
    ("intercomm", 4, &[]),
];

fn records(trace: &Path) -> Vec<Vec<Record>> {
    TraceReader::open(trace).and_then(|r| r.read_tasks()).unwrap_or_else(|e| panic!("{e}"))
}

/// One rank's messages and collectives: sends (peer, tag, bytes) in order, receives
/// (source, tag, bytes) sorted, collectives (kind, root, bytes both ways, count, list).
#[derive(Debug, PartialEq)]
struct Traffic {
    sends: Vec<(i32, i32, u64)>,
    recvs: Vec<(i32, i32, u64)>,
    colls: Vec<(Coll, i32, u64, u64, u64, Vec<i64>)>,
    probes: Vec<(i32, i32, u64, u8)>,
    /// Communicators made (constructor, members) and freed, in order.
    comms: Vec<(CommFn, Vec<i64>)>,
    freed: usize,
    /// Requests cancelled.
    cancels: usize,
}

fn traffic(recs: &[Record]) -> Traffic {
    let mut t = Traffic {
        sends: Vec::new(),
        recvs: Vec::new(),
        colls: Vec::new(),
        probes: Vec::new(),
        comms: Vec::new(),
        freed: 0,
        cancels: 0,
    };
    // Persistent sends by request id: each start sends one message.
    let mut persistent = std::collections::HashMap::new();
    for r in recs {
        let started: Vec<u32> = match &r.op {
            Op::Start { req } => vec![*req],
            Op::Startall => r.list.iter().map(|&q| q as u32).collect(),
            _ => Vec::new(),
        };
        for q in started {
            if let Some(&s) = persistent.get(&q) {
                t.sends.push(s);
            }
        }
        match &r.op {
            Op::SendInit { peer, tag, bytes, req, .. } => {
                persistent.insert(*req, (*peer, *tag, *bytes));
            }
            Op::RecvInit { req, .. } | Op::RequestFree { req } => {
                persistent.remove(req);
            }
            // A rank given MPI_COMM_NULL: the tracer records the call with no members, the
            // importer folds it into computation (dumpi records only the null handle); both
            // replay alike.
            Op::CommCreate { .. } if r.list.is_empty() => {}
            Op::CommCreate { func, .. } => t.comms.push((*func, r.list.clone())),
            Op::CommFree { .. } => t.freed += 1,
            Op::Cancel { .. } => t.cancels += 1,
            Op::Probe { peer, tag, bytes, flags, .. } if flags & ProbeFlags::FOUND != 0 => {
                t.probes.push((*peer, *tag, *bytes, *flags))
            }
            Op::Send { peer, tag, bytes, .. } | Op::Isend { peer, tag, bytes, .. } => {
                t.sends.push((*peer, *tag, *bytes))
            }
            Op::Recv { peer, tag, bytes, .. } => t.recvs.push((*peer, *tag, *bytes)),
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, .. } => {
                t.sends.push((*peer, *tag, *bytes));
                t.recvs.push((*src, *rtag, *rbytes));
            }
            Op::Wait { .. } => {
                for q in r.list.chunks(4).filter(|q| q[1] != NO_RANK as i64) {
                    t.recvs.push((q[1] as i32, q[2] as i32, q[3] as u64));
                }
            }
            Op::Coll { coll, root, send_bytes, recv_bytes, count, .. } => {
                t.colls.push((*coll, *root, *send_bytes, *recv_bytes, *count, r.list.clone()))
            }
            _ => {}
        }
    }
    t.recvs.sort();
    t
}

fn fixture(app: &str) -> PathBuf {
    root().join("interop/tests/fixtures/dumpi").join(app)
}

#[test]
fn imported_dumpi_traces_have_our_tracers_messages_and_collectives_and_replay() {
    for (app, n, args) in RUNS {
        let run = run_traced(app, n, args, &[]);
        run.ok();
        let ours = run.dir.join("ours.psins");
        run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), ours.as_os_str()]);
        let theirs = run.dir.join("dumpi.psins");
        let fx = fixture(app);
        run_tool(
            "psins-import",
            &["--from".as_ref(), "dumpi".as_ref(), fx.as_os_str(), "-o".as_ref(), theirs.as_os_str()],
        );
        let (a, b) = (records(&ours), records(&theirs));
        assert_eq!((a.len(), b.len()), (n as usize, n as usize), "{app}");
        let mut messages = 0;
        for r in 0..n as usize {
            let (ta, tb) = (traffic(&a[r]), traffic(&b[r]));
            assert_eq!(tb, ta, "{app} rank {r}: imported (left) against traced (right)");
            messages += ta.sends.len();
        }
        // The runs' known message counts: pingpong 6 sizes × 1 round trip × 2 directions;
        // ring 3 iterations × 4 ranks; stencil2d 2 iterations × 4 ranks × 2 neighbours; is
        // none (collectives only).
        let want = match app {
            "pingpong" => 12,
            "ring" => 12,
            "stencil2d" => 16,
            // requests: per rank 4 persistent sends (3 Startall rounds, one Start), 3 of
            // Waitsome, one each of Testall, Testsome, the Test loop, Probe, Iprobe, Issend,
            // Ssend, Rsend, Bsend and Sendrecv_replace.
            "requests" => 4 * 17,
            // cg 2 iterations on a 2x2 grid: per iteration a row Sendrecv on every rank and
            // a transpose Sendrecv on the two off-diagonal ones.
            "cg" => 2 * (4 + 2),
            // groups at 4 ranks: a Sendrecv ring on each communicator it makes: the even ranks
            // (2), all ranks in a new order (4), the 2x2 grid (4), its two rows (2 + 2), the
            // line of the first 3 ranks and the graph of the same 3.
            "groups" => 2 + 4 + 4 + 4 + 3 + 3,
            // intercomm at 4 ranks, groups {0, 3} and {2, 1}: every rank to every remote rank
            // (4 × 2), a wildcard receive on the intercommunicator and one on its dup, a
            // Sendrecv ring on the merged communicator.
            "intercomm" => 4 * 2 + 1 + 1 + 4,
            _ => 0,
        };
        assert_eq!(messages, want, "{app}: messages");
        let probes: usize = (0..n as usize).map(|r| traffic(&b[r]).probes.len()).sum();
        assert_eq!(probes, if app == "requests" { 4 * 2 } else { 0 }, "{app}: probes that found a message");
        // requests: a receive nobody matches, cancelled, on every rank.
        let cancels: usize = (0..n as usize).map(|r| traffic(&b[r]).cancels).sum();
        assert_eq!(cancels, if app == "requests" { 4 } else { 0 }, "{app}: cancelled requests");
        // cg: a row and a column communicator per rank (2x2 grid: two ranks each), freed.
        let (made, freed): (usize, usize) =
            (0..n as usize).map(|r| traffic(&b[r])).fold((0, 0), |(m, f), t| (m + t.comms.len(), f + t.freed));
        let want = match app {
            "cg" => (8, 8),
            // groups: those six communicators, 2 + 4 + 4 + 4 + 3 + 3 members, each freed.
            "groups" => (20, 20),
            // intercomm: per rank its group (a split), the intercommunicator, its dup and the
            // merge, each freed.
            "intercomm" => (16, 16),
            _ => (0, 0),
        };
        assert_eq!((made, freed), want, "{app}: communicators made and freed");
        let colls: usize = (0..n as usize).map(|r| traffic(&b[r]).colls.len()).sum();
        let want = match app {
            "stencil2d" => 4 * 2,          // an Allreduce per iteration
            "is" => 4 * 3,                 // Alltoall, Alltoallv, Allreduce
            "requests" => 4,               // the Barrier before the ready sends
            "cg" => 4 * 10,                // Allreduces: 1 before, 3 per iteration, 3 after
            "groups" => 2 + 4 + 4 + 4 + 3, // an Allreduce on each communicator but the line
            "intercomm" => 4 * 4,          // Barrier, Bcast, Allreduce across, Allreduce merged
            _ => 0,
        };
        assert_eq!(colls, want, "{app}: collectives");
        // The imported trace replays.
        let json = run.dir.join("sim.json");
        let machine = root().join("configs/fat-simple.toml");
        let args = [
            theirs.as_os_str(),
            "-m".as_ref(),
            machine.as_os_str(),
            "-q".as_ref(),
            "--json".as_ref(),
            json.as_os_str(),
        ];
        run_tool("psins-sim", &args);
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let t = v["predicted_seconds"].as_f64().unwrap();
        assert!(t > 0.0 && t < 10.0, "{app}: predicted {t} s");
        assert_eq!(v["tasks"].as_array().unwrap().len(), n as usize, "{app}");
    }
}
