//! Reading a rank's log: a scan (pass 1, only for truncated runs) and the write pass.

use crate::comms::Comms;
use crate::normalise::RankState;
use crate::source::{RankInput, RecordStream};
use psins_formats::{Error, LogEnd, Record, TraceWriter};

/// What reading one rank gave.
pub struct RankResult {
    /// Records read (scan) or written (write).
    pub records: u64,
    pub end: LogEnd,
    pub sync_points: Vec<u64>,
    /// Tracer ids of requests started and never completed (at the end or at the cut).
    pub pending: Vec<u32>,
}

/// Reads up to `keep` records of `input`, normalising each; `out` receives them when given.
pub fn read_rank<I: RankInput>(
    input: &I,
    world_size: u32,
    keep: u64,
    comms: &mut Comms,
    mut out: Option<&mut TraceWriter>,
) -> Result<RankResult, Error> {
    let rank = input.rank();
    let mut rd = input.open()?;
    let mut rec = Record::default();
    // Only the scan (no output) looks for the cut.
    let mut st = RankState::new(rank, world_size, out.is_none());
    if let Some(w) = out.as_deref_mut() {
        w.begin_task(rank)?;
    }
    while rd.records() < keep && rd.next(&mut rec)? {
        let idx = rd.records() - 1;
        st.apply(comms, &mut rec, idx).map_err(|m| Error::new(input.path(), m.to_string()).task(rank).record(idx))?;
        if let Some(w) = out.as_deref_mut() {
            w.push(&rec)?;
        }
    }
    if let Some(w) = out {
        w.end_task()?;
    }
    st.end(rd.records());
    Ok(RankResult { records: rd.records(), end: rd.end(), sync_points: st.sync_points, pending: st.reqs.pending() })
}

/// Per rank, how many records to keep: everything up to the last world collective that all
/// ranks reached (0 when there is none).
pub fn cut_points(scans: &[RankResult]) -> Vec<u64> {
    let k = scans.iter().map(|s| s.sync_points.len()).min().unwrap_or(0);
    scans.iter().map(|s| if k == 0 { 0 } else { s.sync_points[k - 1] }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use psins_formats::*;

    /// A log of `n` allreduces on world.
    fn log(n: u32) -> std::path::PathBuf {
        let h = LogHeader { rank: 0, world_size: 1, job_id: 5, clock: "test".into(), ..Default::default() };
        let mut out = Vec::new();
        h.write(&mut out);
        let mut enc = LogEncoder::new();
        enc.push(&mut out, &Record::new(0, 1, Op::Init { thread_level: 0 }));
        for i in 1..=n {
            let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
            let op = Op::Coll {
                coll: Coll::Allreduce,
                comm: COMM_WORLD,
                root: NO_RANK,
                send_bytes: 8,
                recv_bytes: 8,
                count: 1,
                flags,
                req: 0,
                instance: i,
            };
            enc.push(&mut out, &Record::new(1, 1, op));
        }
        enc.push(&mut out, &Record::new(0, 1, Op::Finalize));
        enc.finish(&mut out);
        let p = std::env::temp_dir().join(format!("psins-passes-{}-{n}.bin", std::process::id()));
        std::fs::write(&p, out).unwrap();
        p
    }

    /// The write pass keeps no sync point: consolidation memory does not grow with the number
    /// of world collectives; the scan of a truncated run keeps one each.
    #[test]
    fn only_the_scan_keeps_sync_points() {
        let n = 100_000;
        let p = log(n);
        let input = crate::source::LogInput(crate::inputs::open_all(std::slice::from_ref(&p)).unwrap().remove(0));
        let input = &input;
        let scan = read_rank(input, 1, u64::MAX, &mut Comms::new(1), None).unwrap();
        assert_eq!(scan.sync_points.len(), n as usize);
        let tmp = p.with_extension("psins");
        let mut w = TraceWriter::create(&tmp, 1, Vec::new(), Vec::new(), None).unwrap();
        let written = read_rank(input, 1, u64::MAX, &mut Comms::new(1), Some(&mut w)).unwrap();
        assert_eq!(written.records, n as u64 + 2);
        assert!(written.sync_points.is_empty() && written.sync_points.capacity() == 0);
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_file(&tmp);
    }
}
