//! The timeline answers why: one flow arrow per message, args on every call, waiting as its
//! own slice, the in-flight counter, and rank / window selection dropping what they should.

use crate::common;
use common::*;
use psins_formats::*;
use psins_sim::source::compact::CompactTrace;
use psins_sim::source::synth::{write_trace, Workload};
use psins_sim::timeline::Timeline;
use psins_sim::{simulate, Machine, Options};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn timeline(trace: &Path, ranks: Option<&str>, window: Option<&str>) -> Vec<Value> {
    let out = tmp("tl.json");
    let tl = Timeline::create(&out, ranks, window).unwrap();
    let opts = Options { timeline: Some(tl), ..Default::default() };
    let _ = simulate(CompactTrace::open(trace).unwrap(), &machine(&[]), opts);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).expect("the file parses");
    v["traceEvents"].as_array().unwrap().clone()
}

/// (sender, receiver) of each message sent in the trace, counted from its records.
fn sends_in(trace: &Path) -> BTreeMap<(u64, u64), usize> {
    let r = TraceReader::open(trace).unwrap();
    let mut n = BTreeMap::new();
    let mut rec = Record::default();
    for t in 0..r.tasks() {
        let mut c = r.task(t, 1 << 16).unwrap();
        while c.next(&mut rec).unwrap() {
            if let Op::Send { peer, .. } | Op::Isend { peer, .. } | Op::Sendrecv { peer, .. } = rec.op {
                *n.entry((t as u64, peer as u64)).or_default() += 1;
            }
        }
    }
    n
}

/// Flow ends by id: (ph, tid).
fn flows(ev: &[Value]) -> BTreeMap<u64, Vec<(String, u64)>> {
    let mut m: BTreeMap<u64, Vec<(String, u64)>> = BTreeMap::new();
    for e in ev.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
        m.entry(e["id"].as_u64().unwrap())
            .or_default()
            .push((e["ph"].as_str().unwrap().into(), e["tid"].as_u64().unwrap()));
        if e["ph"] == "f" {
            assert_eq!(e["bp"], "e", "a finish binds to its enclosing slice: {e}");
        }
    }
    m
}

/// A flow's time lies inside a slice of its rank (the call it binds to).
fn inside_a_call(ev: &[Value], f: &Value) -> bool {
    let (t, ts) = (&f["tid"], f["ts"].as_f64().unwrap());
    ev.iter().any(|e| {
        e["ph"] == "X" && e["cat"] == "mpi" && &e["tid"] == t && {
            let (s, d) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
            s <= ts && ts <= s + d
        }
    })
}

/// The 2-D stencil of 8 ranks (Isend/Irecv/Waitall halos, allreduces): as many arrows as the
/// trace has sends, each from its sender to its receiver, one start and one finish each,
/// each inside a call of its rank; every call slice has its args.
#[test]
fn one_flow_per_message_from_sender_to_receiver() {
    let trace = tmp("stencil.psins");
    write_trace(&Workload::parse("gen:stencil2d:ranks=8,iters=3").unwrap(), &trace, None, false).unwrap();
    let sends = sends_in(&trace);
    let total: usize = sends.values().sum();
    assert_eq!(total, 8 * 4 * 3, "4 neighbours (periodic) × 3 iterations per rank");
    let ev = timeline(&trace, None, None);
    let fl = flows(&ev);
    assert_eq!(fl.len(), total);
    let mut pairs: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    for ends in fl.values() {
        assert_eq!(ends.len(), 2, "{ends:?}");
        assert_eq!((ends[0].0.as_str(), ends[1].0.as_str()), ("s", "f"));
        *pairs.entry((ends[0].1, ends[1].1)).or_default() += 1;
    }
    assert_eq!(pairs, sends);
    for f in ev.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
        assert!(inside_a_call(&ev, f), "{f}");
    }
    for c in ev.iter().filter(|e| e["ph"] == "X" && e["cat"] == "mpi") {
        assert!(c["args"]["record"].is_u64() && c["args"]["wait_us"].is_f64(), "{c}");
        if c["name"] == "MPI_Isend" || c["name"] == "MPI_Irecv" {
            assert!(c["args"]["peer"].is_i64() && c["args"]["tag"].is_i64(), "{c}");
            assert_eq!(c["args"]["bytes"], 8192, "{c}");
            assert_eq!(c["args"]["comm"], 0, "{c}");
        }
    }
    // The counter ends with nothing in flight, and never goes below zero.
    let counter: Vec<_> = ev.iter().filter(|e| e["ph"] == "C").collect();
    assert_eq!(counter.len(), 2 * total, "one step up and one down per message");
    assert_eq!(counter.last().unwrap()["args"]["messages"], 0);
    assert_eq!(counter.last().unwrap()["args"]["bytes"], 0);
}

/// Ping-pong where r1 computes 5us first (test machine: 1000 B take 2us between nodes, no
/// overheads): r1's receive finds r0's message there (no wait); r0's receive, posted at 0,
/// waits 5us for r1 to send, then 2us for the transfer.
#[test]
fn waiting_is_a_nested_slice_of_the_call() {
    let tasks = vec![vec![send(0, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(5, 0, 1000), send(0, 0, 1000), fin()]];
    let trace = write("pp.psins", &tasks, vec![]);
    let ev = timeline(&trace, None, None);
    let x = |t: u64, n: &str| -> Vec<(f64, f64)> {
        ev.iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == t && e["name"] == n)
            .map(|e| (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap()))
            .collect()
    };
    // r0: Send at 0 (eager, 0 long); Recv from 0 until r1's message arrives: r1 receives at
    // 5us (the data arrived at 2us), sends at 5us, arrival 5 + 2 = 7us. r0 waited 5us for
    // r1 to post.
    assert_eq!(x(0, "MPI_Recv"), vec![(0.0, 7.0)]);
    assert_eq!(x(0, "wait"), vec![(0.0, 5.0)]);
    let recv0 = ev.iter().find(|e| e["name"] == "MPI_Recv" && e["tid"] == 0).unwrap();
    assert_eq!(recv0["args"]["wait_us"], 5.0);
    assert_eq!(recv0["args"]["peer"], 1);
    assert_eq!(recv0["args"]["bytes"], 1000);
    // r1's receive found its message already there: no wait slice.
    assert_eq!(x(1, "MPI_Recv"), vec![(5.0, 0.0)]);
    assert!(x(1, "wait").is_empty());
}

/// Rank selection keeps the selected tracks and only the arrows between them; the window
/// keeps the slices that overlap it (clipped) and the arrows whose two ends are inside.
#[test]
fn rank_and_window_selection_drop_what_they_should() {
    // r0 → r1 at 0, r1 → r2 at 10us, r2 → r0 at 20us (1000 B: 2us each).
    let tasks = vec![
        vec![send(0, 1, 1000), recv(0, 2, 1000), fin()],
        vec![recv(0, 0, 1000), send(10, 2, 1000), fin()],
        vec![recv(0, 1, 1000), send(10, 0, 1000), fin()],
    ];
    let trace = write("ring.psins", &tasks, vec![]);
    let all = timeline(&trace, None, None);
    assert_eq!(flows(&all).len(), 3);
    let sel = timeline(&trace, Some("1-2"), None);
    assert!(sel.iter().filter(|e| e["ph"] == "X" || e["name"] == "thread_name").all(|e| e["tid"] != 0));
    assert!(sel.iter().any(|e| e["ph"] == "X" && e["tid"] == 2));
    let fl = flows(&sel);
    assert_eq!(fl.len(), 1, "only r1 → r2: {fl:?}");
    assert_eq!(fl.values().next().unwrap(), &vec![("s".to_string(), 1), ("f".to_string(), 2)]);
    // Window [11us, 30us]: r1's send at 12us (after its receive ended at 2us and 10us of
    // computation) and everything after; the first message's calls are outside.
    let win = timeline(&trace, None, Some("11us..30us"));
    let fl = flows(&win);
    let ends: Vec<_> = fl.values().cloned().collect();
    assert_eq!(
        ends,
        vec![vec![("s".to_string(), 1), ("f".to_string(), 2)], vec![("s".to_string(), 2), ("f".to_string(), 0)]]
    );
    for e in win.iter().filter(|e| e["ph"] == "X") {
        let (s, d) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        assert!(s >= 11.0 && s + d <= 30.0, "clipped to the window: {e}");
    }
    for e in win.iter().filter(|e| e["ph"] == "C") {
        let ts = e["ts"].as_f64().unwrap();
        assert!((11.0..=30.0).contains(&ts), "{e}");
    }
}

/// A deadlock after one message: the file is still valid JSON, and the message that was
/// never received has no half arrow.
#[test]
fn a_deadlock_leaves_whole_arrows_only() {
    let tasks =
        vec![vec![send(0, 1, 8), send(0, 1, 8), recv(0, 1, 8), fin()], vec![recv(0, 0, 8), recv(0, 1, 8), fin()]];
    let trace = write("dl.psins", &tasks, vec![]);
    let ev = timeline(&trace, None, None);
    let fl = flows(&ev);
    assert_eq!(fl.len(), 1, "{fl:?}");
    assert!(fl.values().all(|e| e.len() == 2));
}

/// The bus model's counter track: busy buses. Two 1000-byte messages at t = 0 on disjoint
/// pairs (r0→r1, r2→r3). One bus: the first holds it [0, 1us), the second [1us, 2us) → 1 at
/// 0, still 1 at 1us (one ends as the other begins), 0 at 2us. Two buses: both [0, 1us) → 2
/// at 0, 0 at 1us. The simple model has no such track; the flow model has its busy links.
#[test]
fn the_bus_model_has_a_busy_buses_counter() {
    let tasks = vec![
        vec![send(0, 1, 1000), fin()],
        vec![recv(0, 0, 1000), fin()],
        vec![send(0, 3, 1000), fin()],
        vec![recv(0, 2, 1000), fin()],
    ];
    let trace = write("bus.psins", &tasks, vec![]);
    let busy = |track: &str, sets: &[&str]| -> Vec<(f64, u64)> {
        let out = tmp("bus-tl.json");
        let tl = Timeline::create(&out, None, None).unwrap();
        let opts = Options { timeline: Some(tl), ..Default::default() };
        simulate(CompactTrace::open(&trace).unwrap(), &machine(sets), opts).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).expect("the file parses");
        let ev = v["traceEvents"].as_array().unwrap().clone();
        ev.iter()
            .filter(|e| e["ph"] == "C" && e["name"] == track)
            .map(|e| (e["ts"].as_f64().unwrap(), e["args"]["busy"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(busy("busy buses", &["network.model=bus", "network.buses=1"]), [(0.0, 1), (1.0, 1), (2.0, 0)]);
    assert_eq!(busy("busy buses", &["network.model=bus", "network.buses=2"]), [(0.0, 2), (1.0, 0)]);
    assert!(busy("busy buses", &[]).is_empty());
    // The flow model over the flat cluster: each message a flow over its sender's outgoing
    // and its receiver's incoming link, both 1 GB/s: four links busy for the 1,000 bytes' 1 us.
    assert_eq!(busy("links carrying a flow", &["network.model=flow"]), [(0.0, 4), (1.0, 0)]);
}

/// The counter track `name`'s events as (ts in us, value): each must be a number.
fn counter(ev: &[Value], name: &str) -> Vec<(f64, f64)> {
    ev.iter()
        .filter(|e| e["ph"] == "C" && e["name"] == name)
        .map(|e| (e["ts"].as_f64().unwrap(), e["args"]["busy"].as_f64().expect("a number")))
        .collect()
}

/// The packet models' track, replaying `trace` on `m` with a timeline: its events and the
/// report, and the timeline file's bytes.
fn links_busy(trace: &Path, m: &Machine) -> (Vec<(f64, f64)>, psins_sim::Report, String) {
    let out = tmp("links-tl.json");
    let tl = Timeline::create(&out, None, None).unwrap();
    let opts = Options { timeline: Some(tl), ..Default::default() };
    let report = simulate(CompactTrace::open(trace).unwrap(), m, opts).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let v: Value = serde_json::from_str(&text).expect("the file parses");
    (counter(v["traceEvents"].as_array().unwrap(), "busy links (mean over 1 us)"), report, text)
}

/// The packet models' counter: busy links, a mean over windows of 1 us (1,000 cycles at
/// 1 GHz). On a ring of 8 torus routers (64-byte packets, 32-bit links: 16 cycles a packet;
/// router delay 1), rank 0 sends 8,000 bytes to rank 2 at t = 0: 125 packets over 2 hops.
/// Packet k holds link 0→1 over [1 + 16k, 17 + 16k) and link 1→2 over [3 + 16k, 19 + 16k)
/// (a cycle on the wire, a router delay), back to back: 0→1 busy over [1, 2001), 1→2 over
/// [3, 2003). Windows: [0, 1000) 999 + 997 = 1,996 link-cycles → 1.996 links; [1000, 2000)
/// both → 2; [2000, 3000) 1 + 3 → 0.004; then 0. The integral, 4,000 link-cycles, is
/// 125 packets × 2 hops × 16 cycles.
#[test]
fn the_packet_models_have_a_busy_links_counter() {
    let tasks = vec![vec![send(0, 2, 8000), fin()], vec![fin()], vec![recv(0, 0, 8000), fin()]];
    let trace = write("ring.psins", &tasks, vec![]);
    let ring = machine(&["network.model=torus", "network.torus.dims=[8]"]);
    let (busy, report, text) = links_busy(&trace, &ring);
    let ms = |c: f64| c / 1000.0;
    assert_eq!(busy, [(0.0, ms(1996.0)), (1.0, ms(2000.0)), (2.0, ms(4.0)), (3.0, 0.0)]);
    assert_eq!(report.network.iter().find(|(k, _)| k == "packet_hops").unwrap().1, 250);
    // Deterministic, and the prediction is the same without a timeline.
    assert_eq!(links_busy(&trace, &ring).2, text);
    let plain = simulate(CompactTrace::open(&trace).unwrap(), &ring, Options::default()).unwrap();
    assert_eq!((plain.predicted, &plain.network), (report.predicted, &report.network));
}

/// One adapter gives the three packet models their counter. On each repository machine,
/// rank 0 sends 6,400 bytes (100 full packets) to rank 5, computes 20 us, and sends them
/// again: the counter's integral is the report's packet hops × 16 link cycles (64-byte
/// packets, 32-bit links, 1 GHz: 1 us = 1,000 cycles), its events come in time order, one
/// per time, the idle stretch between the messages is a 0, and it ends at 0.
#[test]
fn every_packet_model_integrates_to_its_link_cycles() {
    let tasks = vec![
        vec![send(0, 5, 6400), send(20, 5, 6400), fin()],
        vec![fin()],
        vec![fin()],
        vec![fin()],
        vec![fin()],
        vec![recv(0, 0, 6400), recv(0, 0, 6400), fin()],
    ];
    let trace = write("two.psins", &tasks, vec![]);
    for config in ["torus-4x4.toml", "fattree-16.toml", "dragonfly-72.toml"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(config);
        let m = Machine::load(&path, &[]).unwrap();
        let (busy, report, _) = links_busy(&trace, &m);
        let hops = report.network.iter().find(|(k, _)| k == "packet_hops").unwrap().1.as_u64().unwrap();
        assert!(hops >= 2 * 100, "{config}: {hops} hops");
        let area: f64 = busy.windows(2).map(|w| w[0].1 * (w[1].0 - w[0].0)).sum();
        assert!((area * 1000.0 - (hops * 16) as f64).abs() < 1e-6, "{config}: {area} link-us, {hops} hops: {busy:?}");
        assert!(busy.windows(2).all(|w| w[0].0 < w[1].0), "{config}: time order, one event a time: {busy:?}");
        assert_eq!(busy.last().unwrap().1, 0.0, "{config}");
        let first_zero = busy.iter().position(|b| b.1 == 0.0).unwrap();
        assert!(first_zero < busy.len() - 1, "{config}: idle between the messages: {busy:?}");
        assert!(busy[first_zero + 1].0 - busy[first_zero].0 > 10.0, "{config}: one event for the idle stretch");
    }
}
