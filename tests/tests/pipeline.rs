//! The whole pipeline on real traces: each test app traced under real `mpirun`, consolidated,
//! dumped, and simulated on every bundled machine. What must hold:
//! - consolidation keeps every record of every rank, and `psins-dump --json` shows each with
//!   the meaning it had in the log (kind, times, world peer, tag, bytes);
//! - in the trace every point-to-point send is matched by exactly one receive of the same
//!   size, tag and communicator (receives with their actual sources);
//! - every collective's expansion steps match across the ranks of its communicator;
//! - every bundled machine file replays the trace to completion with a positive prediction.

use psins_e2e::*;
use psins_formats::{CommDef, Op, Record, StepOp, TraceReader, COMM_SELF, PROC_NULL};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Apps at 2 and 4 ranks (the Fortran ones at 2, in `fortran_apps_at_2_ranks`), a test each,
/// `every_app_at_2_and_4_ranks::APP`: cargo's test threads share them, one app's consolidation,
/// dumps and replays running beside another's `mpirun` (the runs themselves are serialized).
/// As one test they took 48 s on the 2-core VM, with one core idle.
macro_rules! every_app_at_2_and_4_ranks {
    ($($app:ident)*) => {
        mod every_app_at_2_and_4_ranks {
            $(
                #[test]
                fn $app() {
                    psins_e2e::need_mpi!();
                    for n in [2, 4] {
                        super::pipeline(stringify!($app), n);
                    }
                }
            )*
        }
    };
}
every_app_at_2_and_4_ranks!(pingpong ring stencil2d stencil3d cg is master_worker collectives comms requests intercomm rma nbc);

fn consolidate(run: &Run, out: &Path) {
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), out.as_os_str()]);
}

/// A record as its peers' world ranks plus the fields that keep their meaning through
/// consolidation (comm and request ids are renumbered).
fn meaning(kind: &str, gap: i64, dur: i64, peer: Option<i64>, tag: Option<i64>, bytes: Option<i64>) -> String {
    format!("{kind} gap={gap} dur={dur} peer={peer:?} tag={tag:?} bytes={bytes:?}")
}

fn log_meanings(log: &Log) -> Vec<String> {
    let rank = log.header.rank;
    let mut comms: HashMap<u32, CommDef> = HashMap::new();
    comms.insert(0, CommDef::intra(0, (0..log.header.world_size).collect()));
    comms.insert(COMM_SELF, CommDef::intra(COMM_SELF, vec![rank]));
    let world = |comms: &HashMap<u32, CommDef>, c: u32, p: i32| -> i64 {
        if p < 0 {
            return p as i64;
        }
        comms.get(&c).and_then(|d| d.peer_group(rank)?.get(p as usize)).map_or(-100, |&w| w as i64)
    };
    let mut last_coll_comm = 0;
    log.records
        .iter()
        .map(|r| {
            if let Op::CommCreate { comm, split, .. } = r.op {
                comms.insert(comm, CommDef { id: comm, members: CommDef::members_from_list(&r.list), split });
            }
            let (peer, tag, bytes) = match r.op {
                Op::Send { peer, tag, bytes, comm, .. }
                | Op::Isend { peer, tag, bytes, comm, .. }
                | Op::SendInit { peer, tag, bytes, comm, .. }
                | Op::Recv { peer, tag, bytes, comm }
                | Op::Irecv { peer, tag, bytes, comm, .. }
                | Op::RecvInit { peer, tag, bytes, comm, .. }
                | Op::Probe { peer, tag, bytes, comm, .. }
                | Op::Sendrecv { peer, tag, bytes, comm, .. } => {
                    (Some(world(&comms, comm, peer)), Some(tag as i64), Some(bytes as i64))
                }
                Op::Coll { comm, root, send_bytes, .. } => {
                    last_coll_comm = comm;
                    (Some(world(&comms, comm, root)), None, Some(send_bytes as i64))
                }
                // a batch's WaitAll step has no peer (psins-dump prints none)
                Op::Step { op: StepOp::WaitAll, .. } => (None, None, None),
                Op::Step { peer, bytes, .. } => (Some(world(&comms, last_coll_comm, peer)), None, Some(bytes as i64)),
                Op::Rma { bytes, .. } => (None, None, Some(bytes as i64)),
                Op::Poll { func, peer, tag, comm, .. } if func.is_probe() => {
                    (Some(world(&comms, comm, peer)), Some(tag as i64), None)
                }
                _ => (None, None, None),
            };
            meaning(r.kind().name(), r.gap_ns as i64, r.dur_ns as i64, peer, tag, bytes)
        })
        .collect()
}

fn dump_meanings(trace: &Path, task: u32) -> Vec<String> {
    let t = task.to_string();
    let out = run_tool("psins-dump", &[trace.as_os_str(), "--json".as_ref(), "--task".as_ref(), OsStr::new(&t)]);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON {l}: {e}"));
            assert_eq!(v["task"], task as i64);
            let kind = v["kind"].as_str().unwrap();
            let key = |k: &str| v.get(k).and_then(|x| x.as_i64());
            let peer = if kind == "coll" { key("root") } else { key("peer") };
            let tag = if kind == "coll" || kind == "step" { None } else { key("tag") };
            meaning(kind, key("gap_ns").unwrap(), key("dur_ns").unwrap(), peer, tag, key("bytes"))
        })
        .collect()
}

/// One message end: (global comm, sender world rank, receiver world rank, tag, bytes).
type End = (u32, i64, i64, i64, u64);

/// Every point-to-point send and receive of the trace, receives with their actual sources.
fn message_ends(tr: &TraceReader) -> (Vec<End>, Vec<End>) {
    let comms: HashMap<u32, &CommDef> = tr.header.comms.iter().map(|c| (c.id, c)).collect();
    let (mut sends, mut recvs) = (Vec::new(), Vec::new());
    for t in 0..tr.tasks() {
        let world = |c: u32, p: i32| -> i64 {
            if c == COMM_SELF {
                return t as i64;
            }
            comms[&c].peer_group(t).expect("a member")[p as usize] as i64
        };
        let mut reqs: HashMap<u32, Op> = HashMap::new();
        let mut cur = tr.task(t, 4096).unwrap();
        let mut r = Record::default();
        while cur.next(&mut r).unwrap() {
            let mut send = |comm: u32, peer: i32, tag: i32, bytes: u64| {
                if peer != PROC_NULL {
                    sends.push((comm, t as i64, world(comm, peer), tag as i64, bytes));
                }
            };
            match r.op {
                Op::Send { peer, tag, bytes, comm, .. } | Op::Isend { peer, tag, bytes, comm, .. } => {
                    send(comm, peer, tag, bytes)
                }
                Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, .. } => {
                    send(comm, peer, tag, bytes);
                    if src >= 0 {
                        recvs.push((comm, world(comm, src), t as i64, rtag as i64, rbytes));
                    }
                }
                Op::Recv { peer, tag, bytes, comm } if peer >= 0 => {
                    recvs.push((comm, world(comm, peer), t as i64, tag as i64, bytes))
                }
                _ => {}
            }
            match r.op {
                Op::Irecv { req, .. } | Op::RecvInit { req, .. } | Op::SendInit { req, .. } => {
                    reqs.insert(req, r.op);
                }
                Op::Start { req } => {
                    if let Some(Op::SendInit { peer, tag, bytes, comm, .. }) = reqs.get(&req) {
                        send(*comm, *peer, *tag, *bytes);
                    }
                }
                Op::Startall => {
                    for &q in &r.list {
                        if let Some(Op::SendInit { peer, tag, bytes, comm, .. }) = reqs.get(&(q as u32)) {
                            send(*comm, *peer, *tag, *bytes);
                        }
                    }
                }
                Op::Wait { .. } => {
                    for q in r.list.chunks_exact(4) {
                        let posted = reqs.get(&(q[0] as u32)).copied();
                        if let (Some(Op::Irecv { comm, .. } | Op::RecvInit { comm, .. }), true) = (posted, q[1] >= 0) {
                            recvs.push((comm, world(comm, q[1] as i32), t as i64, q[2], q[3] as u64));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    sends.sort_unstable();
    recvs.sort_unstable();
    (sends, recvs)
}

/// One expansion message: (from world rank, to world rank, bytes).
type Msg = (i64, i64, u64);

/// Per communicator, the k-th collective of every member is one instance; over its members
/// the expansion's sends and receives (world ranks, bytes) must pair up exactly.
fn check_expansions(tr: &TraceReader) -> usize {
    let comms: HashMap<u32, &CommDef> = tr.header.comms.iter().map(|c| (c.id, c)).collect();
    // (comm, k) -> (sends, receives) as (from, to, bytes)
    let mut inst: BTreeMap<(u32, usize), (Vec<Msg>, Vec<Msg>)> = BTreeMap::new();
    for t in 0..tr.tasks() {
        let mut nth: HashMap<u32, usize> = HashMap::new();
        let mut of_instance: HashMap<u32, (u32, usize)> = HashMap::new();
        let mut cur = tr.task(t, 4096).unwrap();
        let mut r = Record::default();
        while cur.next(&mut r).unwrap() {
            match r.op {
                Op::Coll { comm, instance, .. } => {
                    let k = nth.entry(comm).or_insert(0);
                    of_instance.insert(instance, (comm, *k));
                    inst.entry((comm, *k)).or_default();
                    *k += 1;
                }
                Op::Step { instance, op, peer, bytes, peer2, bytes2 } => {
                    let (comm, k) = of_instance[&instance];
                    let w = |p: i32| if comm == COMM_SELF { t as i64 } else { comms[&comm].members[p as usize] as i64 };
                    let e = inst.get_mut(&(comm, k)).unwrap();
                    match op {
                        StepOp::Send | StepOp::ISend => e.0.push((t as i64, w(peer), bytes)),
                        StepOp::Recv | StepOp::IRecv => e.1.push((w(peer), t as i64, bytes)),
                        StepOp::WaitAll => {}
                        StepOp::SendRecv => {
                            e.0.push((t as i64, w(peer), bytes));
                            e.1.push((w(peer2), t as i64, bytes2));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for ((comm, k), (mut s, mut r)) in inst.clone() {
        s.sort_unstable();
        r.sort_unstable();
        assert_eq!(s, r, "collective #{k} on communicator {comm}: sends and receives of its expansion differ");
    }
    inst.len()
}

/// Every bundled machine file that `psins-sim check` accepts, and the models they cover; asked
/// once per test process (checking the million-node fat-tree alone takes 0.6 s).
fn machines() -> Vec<(PathBuf, String)> {
    static MACHINES: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    MACHINES.get_or_init(checked_machines).clone()
}

fn checked_machines() -> Vec<(PathBuf, String)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(root().join("configs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let out = std::process::Command::new(tool("psins-sim")).arg("check").arg(&p).output().unwrap();
        if out.status.success() {
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let model = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("model = "))
                .unwrap_or("?")
                .trim_matches('"')
                .to_string();
            v.push((p, model));
        }
    }
    v.sort();
    v
}

/// The routings each packet-level topology offers (docs/fattree.md, docs/dragonfly.md); the
/// bundled file's own is one of them.
fn routings(model: &str) -> &'static [&'static str] {
    match model {
        "fattree" => &["network.fattree.routing=dmodk", "network.fattree.routing=adaptive"],
        "dragonfly" => &[
            "network.dragonfly.routing=minimal",
            "network.dragonfly.routing=valiant",
            "network.dragonfly.routing=ugal-l",
            "network.dragonfly.routing=ugal-g",
        ],
        _ => &[""],
    }
}

/// Every bundled machine, and on the packet-level fat-trees and dragonflies every routing.
fn simulate_everywhere(trace: &Path, ranks: u32) {
    for (m, model) in machines() {
        for set in routings(&model) {
            let json = trace.with_extension(format!("{model}.json"));
            let mut args: Vec<&OsStr> = vec![trace.as_os_str(), "-m".as_ref(), m.as_os_str()];
            args.extend(["-q".as_ref(), "--json".as_ref(), json.as_os_str()]);
            if !set.is_empty() {
                args.extend([OsStr::new("--set"), OsStr::new(set)]);
            }
            run_tool("psins-sim", &args);
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let t = v["predicted_seconds"].as_f64().unwrap();
            assert!(t > 0.0 && t < 100.0, "{} {set}: predicted {t} s", m.display());
            assert_eq!(v["tasks"].as_array().unwrap().len(), ranks as usize, "{} {set}", m.display());
        }
    }
}

fn pipeline(app: &str, n: u32) {
    // pingpong's default three round trips a size, 4 MiB its largest, made its replays on the
    // packet-level machines 19 s of this file's time; one round trip a size covers the same
    // protocols (eager, rendezvous) and records.
    let args: &[&str] = if app == "pingpong" { &["1"] } else { &[] };
    let run = run_traced(app, n, args, &[]);
    run.ok();
    let logs = read_logs(&run, n);
    let trace = run.dir.join("app.psins");
    consolidate(&run, &trace);
    let tr = TraceReader::open(&trace).unwrap();
    assert_eq!(tr.tasks(), n);
    for (t, log) in logs.iter().enumerate() {
        assert_eq!(tr.header.tasks[t].records, log.records.len() as u64, "{app}: rank {t} lost records");
        assert_eq!(dump_meanings(&trace, t as u32), log_meanings(log), "{app}: rank {t} changed meaning");
    }
    let (sends, recvs) = message_ends(&tr);
    assert_eq!(sends, recvs, "{app} at {n}: sends and receives do not pair up");
    check_expansions(&tr);
    simulate_everywhere(&trace, n);
}

/// Real codes' habits: polling loops (folded into `poll` records) and MPI_Pcontrol regions
/// with a pause.
#[test]
fn polling_and_pcontrol_apps_at_2_and_4_ranks() {
    need_mpi!();
    for app in ["poll", "pcontrol"] {
        for n in [2, 4] {
            pipeline(app, n);
        }
    }
}

#[test]
fn fortran_apps_at_2_ranks() {
    need_mpi!();
    for app in ["stencil_f", "stencil_f08"] {
        if root().join("mpi-test-apps/bin").join(app).exists() {
            pipeline(app, 2);
        }
    }
}

#[test]
fn bundled_machines_cover_every_model() {
    let out = run_tool("psins-sim", &["--list-models".as_ref()]);
    let listed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect();
    let covered: Vec<String> = machines().into_iter().map(|(_, m)| m).collect();
    for m in &listed {
        assert!(covered.contains(m), "no bundled machine file in configs/ uses model {m} (covered: {covered:?})");
    }
}

#[test]
fn wildcard_receives_are_resolved_in_the_trace() {
    need_mpi!();
    let run = run_traced("master_worker", 4, &[], &[]);
    run.ok();
    let trace = run.dir.join("mw.psins");
    consolidate(&run, &trace);
    let tr = TraceReader::open(&trace).unwrap();
    let (_, recvs) = message_ends(&tr);
    let at_master: Vec<&End> = recvs.iter().filter(|e| e.2 == 0).collect();
    assert!(!at_master.is_empty());
    assert!(at_master.iter().all(|e| (1..4).contains(&e.1)), "master receives name real workers: {at_master:?}");
}

/// Over an intercommunicator a peer is a rank of the other group: the trace must carry both
/// groups, give both sides one id, and map peers so that every send pairs with its receive
/// (`pipeline` checks the pairing; here, what the table holds).
#[test]
fn intercommunicators_hold_both_groups() {
    need_mpi!();
    let run = run_traced("intercomm", 4, &[], &[]);
    run.ok();
    let trace = run.dir.join("ic.psins");
    consolidate(&run, &trace);
    let tr = TraceReader::open(&trace).unwrap();
    // world ranks 0 and 3 form group 0; group 1 is 2, 1 in its rank order (split key -rank)
    let inter: Vec<&CommDef> = tr.header.comms.iter().filter(|c| c.is_inter()).collect();
    assert_eq!(inter.len(), 2, "Intercomm_create and its dup: {:?}", tr.header.comms);
    for c in &inter {
        assert_eq!((&c.members[..], c.split), (&[0, 3, 2, 1][..], 2), "{c:?}");
    }
    assert!(tr.header.comms.iter().any(|c| !c.is_inter() && c.members == [0, 3, 2, 1]), "the merged communicator");
    let (sends, recvs) = message_ends(&tr);
    let across = |e: &&End| inter.iter().any(|c| c.id == e.0);
    let group = |w: i64| w % 3 == 0;
    let on_inter: Vec<&End> = sends.iter().filter(across).collect();
    // all pairs (2 × 2 each way) and the two rank-0-to-rank-0 sends
    assert_eq!(on_inter.len(), 10, "{on_inter:?}");
    assert!(on_inter.iter().all(|e| group(e.1) != group(e.2)), "sends cross the groups: {on_inter:?}");
    assert_eq!(recvs.iter().filter(across).count(), 10);
}

/// One-sided traffic moves through the network: the rma app (every kind of epoch) traced at 2
/// and 4 ranks, replayed on a bus cluster and a torus. Every RMA byte the app says it moved is
/// in the trace and moved by the replay on both machines, and the two predictions differ.
#[test]
fn every_rma_byte_is_moved_on_two_networks() {
    need_mpi!();
    for n in [2u32, 4] {
        let run = run_traced("rma", n, &[], &[]);
        run.ok();
        let (mut app_ops, mut app_bytes) = (0u64, 0u64);
        for line in run.stdout.lines().filter(|l| l.starts_with("PSINS_RMA ")) {
            for kv in line.split_whitespace().skip(1) {
                let (k, v) = kv.split_once('=').unwrap();
                let v: u64 = v.parse().unwrap();
                match k {
                    "ops" => app_ops += v,
                    "bytes" => app_bytes += v,
                    _ => {}
                }
            }
        }
        assert!(app_ops > 0, "PSINS_RMA lines in:\n{}", run.stdout);
        let trace = run.dir.join("rma.psins");
        consolidate(&run, &trace);
        let tr = TraceReader::open(&trace).unwrap();
        let (mut ops, mut bytes) = (0u64, 0u64);
        for t in 0..tr.tasks() {
            let mut cur = tr.task(t, 4096).unwrap();
            let mut r = Record::default();
            while cur.next(&mut r).unwrap() {
                if let Op::Rma { bytes: out, rbytes, .. } = r.op {
                    ops += 1;
                    bytes += out + rbytes;
                }
            }
        }
        assert_eq!((ops, bytes), (app_ops, app_bytes), "at {n} ranks: the trace holds every operation and byte");
        let mut predicted = Vec::new();
        for machine in ["bus-cluster.toml", "torus-4x4.toml"] {
            let m = root().join("configs").join(machine);
            let json = trace.with_extension(format!("{machine}.json"));
            run_tool(
                "psins-sim",
                &[trace.as_os_str(), "-m".as_ref(), m.as_os_str(), "-q".as_ref(), "--json".as_ref(), json.as_os_str()],
            );
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let moved = (v["rma"]["operations"].as_u64().unwrap(), v["rma"]["bytes"].as_f64().unwrap() as u64);
            assert_eq!(moved, (ops, bytes), "{machine} at {n} ranks: every RMA byte moved");
            predicted.push(v["predicted_ps"].as_u64().unwrap());
        }
        assert_ne!(predicted[0], predicted[1], "at {n} ranks: the networks give different predictions");
    }
}
