//! Bytes per record for the typical cases; the numbers are written in docs/format.md.
use psins_formats::*;

fn encoded_len(recs: &[Record]) -> Vec<usize> {
    let mut ctx = codec::Ctx::default();
    recs.iter()
        .map(|r| {
            let mut out = Vec::new();
            codec::encode(&mut out, &mut ctx, r);
            out.len()
        })
        .collect()
}

/// Repeated peer, tag and size; gap and duration below 16 µs (two varint bytes each).
#[test]
fn typical_point_to_point_costs_at_most_5_bytes() {
    let send = Op::Send { mode: SendMode::Standard, peer: 3, tag: 9, bytes: 4096, comm: 0 };
    let recv = Op::Recv { peer: 3, tag: 9, bytes: 4096, comm: 0 };
    let recs: Vec<Record> =
        (0..10).map(|i| Record::new(1500 + i, 9000, if i % 2 == 0 { send } else { recv })).collect();
    let lens = encoded_len(&recs);
    assert_eq!(lens[0], 10, "first record carries peer, comm, tag, bytes");
    assert!(lens[1..].iter().all(|&n| n == 5), "{lens:?}");
}

#[test]
fn typical_nonblocking_costs_at_most_6_bytes() {
    let recs: Vec<Record> = (0..10u32)
        .map(|i| {
            Record::new(
                300,
                700,
                Op::Isend { mode: SendMode::Standard, peer: 1, tag: 0, bytes: 8, comm: 0, req: 1 + i % 2 },
            )
        })
        .collect();
    let lens = encoded_len(&recs);
    assert!(lens[1..].iter().all(|&n| n <= 6), "{lens:?}");
}

#[test]
fn expansion_steps_are_small() {
    let recs: Vec<Record> = (0..6)
        .map(|i| {
            Record::new(
                0,
                0,
                Op::Step { instance: 4, op: StepOp::Send, peer: 1 << i, bytes: 8, peer2: NO_RANK, bytes2: 0 },
            )
        })
        .collect();
    let lens = encoded_len(&recs);
    assert!(lens.iter().all(|&n| n <= 5), "{lens:?}");
}

#[test]
fn waitall_of_a_send_and_a_receive() {
    let rec = Record::new(100, 2000, Op::Wait { func: WaitFn::Waitall, count: 2 }).with_list(vec![
        1,
        NO_RANK as i64,
        0,
        0,
        2,
        3,
        9,
        4096,
    ]);
    let lens = encoded_len(&[rec]);
    assert!(lens[0] <= 14, "{lens:?}");
}

/// In a compact trace, a record equal to a recent one but for its times costs its head byte
/// and its times.
#[test]
fn repeated_iteration_costs_head_and_times() {
    let iter = [
        Op::Irecv { peer: 1, tag: 0, bytes: 8192, comm: 0, req: 1 },
        Op::Irecv { peer: 3, tag: 0, bytes: 8192, comm: 0, req: 2 },
        Op::Isend { mode: SendMode::Standard, peer: 1, tag: 0, bytes: 8192, comm: 0, req: 3 },
        Op::Isend { mode: SendMode::Standard, peer: 3, tag: 0, bytes: 8192, comm: 0, req: 4 },
    ];
    let mut s = codec::Stream::with_repeats();
    let mut lens = Vec::new();
    for _ in 0..3 {
        for op in iter {
            let mut out = Vec::new();
            s.encode(&mut out, &Record::new(900, 3000, op));
            lens.push(out.len());
        }
    }
    // From the second iteration on (the first record of it still sees a new context).
    assert!(lens[5..].iter().all(|&n| n == 5), "1 head + 2 gap + 2 dur: {lens:?}");
}

/// A run of 20,000 unsuccessful MPI_Test calls (3 ms inside, 2 ms between them) is one record
/// of at most 17 bytes, where the unfolded records take at least 5 bytes each.
#[test]
fn a_run_of_polls_is_one_small_record() {
    let poll = Op::Poll {
        func: PollFn::Test,
        calls: 20_000,
        between_ns: 2_000_000,
        min_gap_ns: 60,
        count: 1,
        peer: NO_RANK,
        tag: 0,
        comm: 0,
    };
    let lens = encoded_len(&[Record::new(1500, 3_000_000, poll)]);
    assert!(lens[0] <= 17, "{lens:?}");
    let probe = Op::Poll {
        func: PollFn::Iprobe,
        calls: 20_000,
        between_ns: 2_000_000,
        min_gap_ns: 60,
        count: 0,
        peer: -1,
        tag: 7,
        comm: 0,
    };
    let lens = encoded_len(&[Record::new(1500, 3_000_000, probe)]);
    assert!(lens[0] <= 19, "{lens:?}");
}
