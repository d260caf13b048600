//! Any sequence of records survives both formats unchanged.
use crate::common;
use common::*;
use proptest::prelude::*;
use psins_formats::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn codec_round_trips(recs in records(40)) {
        let mut out = Vec::new();
        let mut ctx = codec::Ctx::default();
        for r in &recs { codec::encode(&mut out, &mut ctx, r); }
        let mut ctx = codec::Ctx::default();
        let (mut pos, mut rec) = (0, Record::default());
        for r in &recs {
            pos += codec::decode(&out[pos..], &mut ctx, &mut rec).unwrap();
            prop_assert_eq!(&rec, r);
        }
        prop_assert_eq!(pos, out.len());
    }

    /// Periodic streams (an iteration's calls repeated with new timings) exercise repeats.
    #[test]
    fn repeats_round_trip(pattern in records(12), iters in 1usize..6, times in prop::collection::vec((0..5000u64, 0..5000u64), 80)) {
        let mut recs = Vec::new();
        for i in 0..iters {
            for (j, r) in pattern.iter().enumerate() {
                let mut r = r.clone();
                if i > 0 && !(matches!(r.op, Op::Step { .. }) && r.gap_ns == 0 && r.dur_ns == 0) {
                    (r.gap_ns, r.dur_ns) = times[(i * 12 + j) % times.len()];
                }
                recs.push(r);
            }
        }
        let mut enc = codec::Stream::with_repeats();
        let mut out = Vec::new();
        for r in &recs { enc.encode(&mut out, r); }
        let mut dec = codec::Stream::with_repeats();
        let (mut pos, mut rec) = (0, Record::default());
        for r in &recs {
            pos += dec.decode(&out[pos..], &mut rec).unwrap();
            prop_assert_eq!(&rec, r);
        }
        prop_assert_eq!(pos, out.len());
    }

    #[test]
    fn log_round_trips(recs in records(60), per_block in 1usize..20) {
        let dir = tempdir();
        let path = dir.join("rank-000000.bin");
        std::fs::write(&path, log_image(&recs, per_block, true)).unwrap();
        let (got, end) = read_log(&path);
        prop_assert_eq!(end, LogEnd::Complete);
        prop_assert_eq!(got, recs);
    }

    #[test]
    fn trace_round_trips(tasks in prop::collection::vec(records(30), 1..5), zstd in any::<bool>(), window in 16usize..300) {
        let dir = tempdir();
        let path = dir.join("t.psins");
        let written = write_trace(&path, &tasks, zstd.then_some(3));
        let tr = TraceReader::open(&path).unwrap();
        prop_assert_eq!(tr.tasks() as usize, tasks.len());
        prop_assert_eq!(tr.header.compressed(), zstd);
        prop_assert_eq!(tr.header.meta("app"), Some("test"));
        // world, and from 4 tasks on a communicator and an intercommunicator
        prop_assert_eq!(written.comms.len(), if tasks.len() >= 4 { 3 } else { 1 });
        prop_assert_eq!(&tr.header.comms, &written.comms);
        // Tasks in reverse order: the index gives random access.
        for t in (0..tasks.len()).rev() {
            prop_assert_eq!(tr.header.tasks[t].records as usize, tasks[t].len());
            prop_assert_eq!(&read_task(&tr, t as u32, window), &tasks[t]);
        }
    }
}

pub fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d =
        std::env::temp_dir().join(format!("psins-fmt-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn truncated_log_keeps_whole_blocks() {
    let recs: Vec<Record> = (0..100).map(|i| Record::new(i, 2 * i, Op::Other { func: i as u32 })).collect();
    let img = log_image(&recs, 10, true);
    let dir = tempdir();
    let path = dir.join("cut.bin");
    // Cut inside the 8th block: 7 whole blocks survive.
    let full = dir.join("full.bin");
    std::fs::write(&full, &img).unwrap();
    let seven_blocks = log_image(&recs[..70], 10, false).len();
    let cut = seven_blocks + 20;
    std::fs::write(&path, &img[..cut]).unwrap();
    let (got, end) = read_log(&path);
    assert_eq!(got, recs[..70]);
    match end {
        LogEnd::Truncated { offset, unusable_bytes, .. } => {
            assert_eq!(offset as usize, seven_blocks);
            assert_eq!(unusable_bytes as usize, cut - offset as usize);
        }
        other => panic!("expected truncation, got {other:?}"),
    }
}

#[test]
fn wrong_kind_and_version_are_named() {
    let dir = tempdir();
    let log = dir.join("rank-000000.bin");
    std::fs::write(&log, log_image(&[], 1, true)).unwrap();
    let e = TraceReader::open(&log).err().expect("a log is not a trace").to_string();
    assert!(e.contains("per-rank log") && e.contains("expected a psins compact trace"), "{e}");

    let trace = dir.join("t.psins");
    write_trace(&trace, &[vec![]], None);
    let e = LogReader::open(&trace).err().expect("a trace is not a log").to_string();
    assert!(e.contains("compact trace") && e.contains("expected a psins per-rank log"), "{e}");

    let mut img = std::fs::read(&trace).unwrap();
    img[8] = 9;
    std::fs::write(&trace, &img).unwrap();
    let e = TraceReader::open(&trace).err().unwrap().to_string();
    assert!(e.contains("format version 9") && e.contains("reads versions 1 to 5"), "{e}");

    std::fs::write(&trace, b"hello world, not psins").unwrap();
    let e = TraceReader::open(&trace).err().unwrap().to_string();
    assert!(e.contains("not a psins file"), "{e}");
}

/// Version 1 files (before intercommunicators), version 2 files (before batch steps) and
/// version 3 files (before poll and pcontrol records) are still read.
#[test]
fn older_version_files_are_still_read() {
    let recs: Vec<Record> = (0..30).map(|i| Record::new(i, 2 * i, Op::Other { func: i as u32 })).collect();
    let dir = tempdir();
    for v in [1u16, 2, 3] {
        let mut img = log_image(&recs, 10, true);
        img[8..10].copy_from_slice(&v.to_le_bytes()); // outside the header's checksum
        let log = dir.join(format!("v{v}.bin"));
        std::fs::write(&log, &img).unwrap();
        assert_eq!(read_log(&log), (recs.clone(), LogEnd::Complete));

        let trace = dir.join(format!("v{v}.psins"));
        write_trace(&trace, &[recs.clone(), vec![]], None);
        let mut img = std::fs::read(&trace).unwrap();
        img[8..10].copy_from_slice(&v.to_le_bytes());
        // the preamble, metadata and index are under one checksum (docs/format.md §2)
        let u32_at = |i: usize| u32::from_le_bytes(img[i..i + 4].try_into().unwrap()) as usize;
        let body = 32 + u32_at(16) + 40 * u32_at(12);
        let crc = crc32fast::hash(&img[..body]);
        img[body..body + 4].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&trace, &img).unwrap();
        let tr = TraceReader::open(&trace).unwrap();
        assert_eq!(read_task(&tr, 0, 64), recs);
    }
}

#[test]
fn tasks_say_whether_they_use_repeats() {
    let dir = tempdir();
    let path = dir.join("r.psins");
    let rec = Record::new(5, 7, Op::Other { func: 3 });
    let mut w = TraceWriter::create(&path, 3, vec![], vec![], None).unwrap();
    for (t, (n, repeats)) in [(1, true), (4, true), (4, false)].into_iter().enumerate() {
        w.set_repeats(repeats);
        w.begin_task(t as u32).unwrap();
        for _ in 0..n {
            w.push(&rec).unwrap();
        }
        w.end_task().unwrap();
    }
    let h = w.finish().unwrap();
    let flags: Vec<u32> = h.tasks.iter().map(|t| t.flags).collect();
    // One record cannot repeat anything; the lean task never repeats.
    assert_eq!(flags, vec![0, trace::TASK_REPEATS, 0]);
    assert!(h.tasks[1].raw_len < h.tasks[2].raw_len);
    let tr = TraceReader::open(&path).unwrap();
    for t in 0..3 {
        assert!(read_task(&tr, t, 64).iter().all(|r| *r == rec));
    }
}
