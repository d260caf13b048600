//! Record generators shared by the format tests.
#![allow(dead_code)]
use proptest::prelude::*;
use psins_formats::*;

fn mode() -> impl Strategy<Value = SendMode> + Clone {
    prop::sample::select(SendMode::ALL)
}
fn peer() -> impl Strategy<Value = i32> + Clone {
    prop_oneof![Just(ANY_SOURCE), Just(PROC_NULL), 0..64i32, any::<i32>()]
}
fn tag() -> impl Strategy<Value = i32> + Clone {
    prop_oneof![Just(ANY_TAG), 0..8i32, any::<i32>()]
}
fn bytes() -> impl Strategy<Value = u64> + Clone {
    prop_oneof![Just(0u64), Just(8), 0..100_000u64, any::<u64>()]
}
fn comm() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![Just(COMM_WORLD), 0..5u32, any::<u32>()]
}
fn time() -> impl Strategy<Value = u64> + Clone {
    prop_oneof![Just(0u64), 0..20_000u64, any::<u64>()]
}

/// Any valid operation with a list that matches its kind's layout.
pub fn op_and_list() -> impl Strategy<Value = (Op, Vec<i64>)> {
    let p2p = (mode(), peer(), tag(), bytes(), comm(), any::<u32>());
    prop_oneof![
        any::<u8>().prop_map(|t| (Op::Init { thread_level: t }, vec![])),
        Just((Op::Finalize, vec![])),
        any::<i32>().prop_map(|c| (Op::Abort { code: c }, vec![])),
        p2p.clone().prop_map(|(mode, peer, tag, bytes, comm, _)| (Op::Send { mode, peer, tag, bytes, comm }, vec![])),
        p2p.clone()
            .prop_map(|(mode, peer, tag, bytes, comm, req)| (Op::Isend { mode, peer, tag, bytes, comm, req }, vec![])),
        p2p.clone().prop_map(|(mode, peer, tag, bytes, comm, req)| (
            Op::SendInit { mode, peer, tag, bytes, comm, req },
            vec![]
        )),
        p2p.clone().prop_map(|(_, peer, tag, bytes, comm, _)| (Op::Recv { peer, tag, bytes, comm }, vec![])),
        p2p.clone().prop_map(|(_, peer, tag, bytes, comm, req)| (Op::Irecv { peer, tag, bytes, comm, req }, vec![])),
        p2p.clone().prop_map(|(_, peer, tag, bytes, comm, req)| (Op::RecvInit { peer, tag, bytes, comm, req }, vec![])),
        (p2p.clone(), peer(), tag(), bytes(), any::<bool>()).prop_map(
            |((_, peer, tag, bytes, comm, _), src, rtag, rbytes, replace)| {
                (Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, replace }, vec![])
            }
        ),
        (p2p.clone(), 0..=ProbeFlags::ALL)
            .prop_map(|((_, peer, tag, bytes, comm, _), flags)| (Op::Probe { peer, tag, bytes, comm, flags }, vec![])),
        any::<u32>().prop_map(|req| (Op::Start { req }, vec![])),
        prop::collection::vec(any::<i64>(), 0..6).prop_map(|l| (Op::Startall, l)),
        any::<u32>().prop_map(|req| (Op::RequestFree { req }, vec![])),
        any::<u32>().prop_map(|req| (Op::Cancel { req }, vec![])),
        (prop::sample::select(WaitFn::ALL), any::<u32>(), prop::collection::vec(completion(), 0..5))
            .prop_map(|(func, count, c)| (Op::Wait { func, count }, c.concat())),
        (
            prop::sample::select(Coll::ALL),
            comm(),
            peer(),
            bytes(),
            bytes(),
            bytes(),
            0..=CollFlags::ALL,
            any::<u32>(),
            any::<u32>(),
            prop::collection::vec(any::<i64>(), 0..9)
        )
            .prop_map(|(coll, comm, root, send_bytes, recv_bytes, count, flags, req, instance, l)| {
                (Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags, req, instance }, l)
            }),
        (any::<u32>(), prop::sample::select(StepOp::ALL), peer(), bytes(), peer(), bytes()).prop_map(
            |(instance, op, peer, bytes, p2, b2)| {
                let (peer2, bytes2) = if op == StepOp::SendRecv { (p2, b2) } else { (NO_RANK, 0) };
                let (peer, bytes) = if op == StepOp::WaitAll { (NO_RANK, 0) } else { (peer, bytes) };
                (Op::Step { instance, op, peer, bytes, peer2, bytes2 }, vec![])
            }
        ),
        (
            prop::sample::select(CommFn::ALL),
            comm(),
            comm(),
            prop::collection::vec(0..1_000_000i64, 0..20),
            any::<u32>()
        )
            .prop_map(|(func, parent, comm, l, s)| {
                // an intercommunicator (both groups non-empty) or not
                let split = if l.len() >= 2 && s % 2 == 1 { 1 + s / 2 % (l.len() as u32 - 1) } else { 0 };
                (Op::CommCreate { func, parent, comm, split }, l)
            }),
        comm().prop_map(|comm| (Op::CommFree { comm }, vec![])),
        any::<u32>().prop_map(|func| (Op::Other { func }, vec![])),
        (prop::sample::select(RmaFn::ALL), peer(), comm(), bytes(), bytes(), prop_oneof![Just(0u32), any::<u32>()])
            .prop_map(|(func, target, win, bytes, rbytes, req)| {
                (Op::Rma { func, target, win, bytes, rbytes, req }, vec![])
            }),
        (
            prop::sample::select(WinSyncFn::ALL),
            comm(),
            peer(),
            0..=WinFlags::ALL,
            prop::collection::vec(0..1_000_000i64, 0..6)
        )
            .prop_map(|(func, win, rank, flags, l)| (Op::WinSync { func, win, rank, flags }, l)),
        (prop::sample::select(WinFn::ALL), comm(), comm())
            .prop_map(|(func, comm, win)| (Op::WinCreate { func, comm, win }, vec![])),
        comm().prop_map(|win| (Op::WinFree { win }, vec![])),
        (prop::sample::select(PollFn::ALL), 1..u64::MAX, any::<(u64, u64)>(), any::<u32>(), peer(), peer(), comm())
            .prop_map(|(func, calls, (between_ns, min_gap_ns), count, peer, tag, comm)| {
                // the fields of the other family are canonical (what a decoder returns)
                let op = if func.is_probe() {
                    Op::Poll { func, calls, between_ns, min_gap_ns, count: 0, peer, tag, comm }
                } else {
                    Op::Poll { func, calls, between_ns, min_gap_ns, count, peer: NO_RANK, tag: 0, comm: 0 }
                };
                (op, vec![])
            }),
        any::<i32>().prop_map(|level| (Op::Pcontrol { level }, vec![])),
        (any::<u32>(), any::<u32>(), any::<bool>())
            .prop_map(|(func, req, persistent)| (Op::OtherReq { func, req, persistent }, vec![])),
    ]
}

/// `[req, source, tag, bytes]`, sometimes a completed send.
fn completion() -> impl Strategy<Value = Vec<i64>> {
    prop_oneof![
        any::<u32>().prop_map(|r| vec![r as i64, NO_RANK as i64, 0, 0]),
        (any::<u32>(), peer(), tag(), 0..i64::MAX).prop_map(|(r, s, t, b)| vec![r as i64, s as i64, t as i64, b]),
    ]
}

pub fn record() -> impl Strategy<Value = Record> {
    (time(), time(), op_and_list()).prop_map(|(gap_ns, dur_ns, (op, list))| Record { gap_ns, dur_ns, op, list })
}

pub fn records(max: usize) -> impl Strategy<Value = Vec<Record>> {
    prop::collection::vec(record(), 0..max)
}

pub fn sample_header(rank: u32) -> LogHeader {
    LogHeader {
        rank,
        world_size: 4,
        job_id: 0xfeed_beef,
        pid: 1234,
        start_unix_ns: 1_700_000_000_000_000_000,
        clock: "rdtsc".into(),
        host: "node0".into(),
        mpi_version: "MPICH 4.0.2".into(),
        settings: "PSINS_EXPAND=1".into(),
        tracer_version: "0.1.0".into(),
    }
}

/// A whole log file image: header, records in blocks of `per_block`, footer.
pub fn log_image(recs: &[Record], per_block: usize, footer: bool) -> Vec<u8> {
    let mut out = Vec::new();
    sample_header(0).write(&mut out);
    let mut enc = LogEncoder::new();
    for (i, r) in recs.iter().enumerate() {
        enc.push(&mut out, r);
        if (i + 1) % per_block.max(1) == 0 {
            enc.close_block(&mut out);
        }
    }
    if footer {
        enc.finish(&mut out);
    } else {
        enc.close_block(&mut out);
    }
    out
}

pub fn read_log(path: &std::path::Path) -> (Vec<Record>, LogEnd) {
    let mut rd = LogReader::open(path).expect("open log");
    let mut got = Vec::new();
    let mut rec = Record::default();
    while rd.next(&mut rec).expect("decode") {
        got.push(rec.clone());
    }
    (got, rd.end().clone())
}

pub fn write_trace(path: &std::path::Path, tasks: &[Vec<Record>], zstd: Option<i32>) -> TraceHeader {
    let comms = vec![
        CommDef::intra(0, (0..tasks.len() as u32).collect()),
        CommDef::intra(5, vec![3, 1, 2]),
        CommDef { id: 6, members: vec![0, 3, 1, 2], split: 1 },
    ]
    .into_iter()
    .filter(|c| c.check(tasks.len() as u32).is_ok()) // a writer refuses members beyond the tasks
    .collect();
    let meta = vec![("app".to_string(), "test".to_string())];
    let mut w = TraceWriter::create(path, tasks.len() as u32, meta, comms, zstd).expect("create");
    for (t, recs) in tasks.iter().enumerate() {
        w.begin_task(t as u32).unwrap();
        for r in recs {
            w.push(r).unwrap();
        }
        w.end_task().unwrap();
    }
    w.finish().expect("finish")
}

pub fn read_task(tr: &TraceReader, t: u32, window: usize) -> Vec<Record> {
    let mut cur = tr.task(t, window).expect("cursor");
    let mut rec = Record::default();
    let mut got = Vec::new();
    while cur.next(&mut rec).expect("decode") {
        got.push(rec.clone());
    }
    got
}
