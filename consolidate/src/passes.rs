//! Reading a rank's log: a scan (pass 1, only for truncated runs) and the write pass.

use crate::comms::Comms;
use crate::inputs::Input;
use crate::normalise::RankState;
use psins_formats::{Error, LogEnd, LogReader, Record, TraceWriter};

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
pub fn read_rank(
    input: &Input,
    keep: u64,
    comms: &mut Comms,
    mut out: Option<&mut TraceWriter>,
) -> Result<RankResult, Error> {
    let rank = input.header.rank;
    let mut rd = LogReader::open(&input.path)?;
    let mut rec = Record::default();
    let mut st = RankState::new(rank, input.header.world_size);
    if let Some(w) = out.as_deref_mut() {
        w.begin_task(rank)?;
    }
    while rd.records() < keep && rd.next(&mut rec)? {
        let idx = rd.records() - 1;
        st.apply(comms, &mut rec, idx).map_err(|m| Error::new(&input.path, m).task(rank).record(idx))?;
        if let Some(w) = out.as_deref_mut() {
            w.push(&rec)?;
        }
    }
    if let Some(w) = out {
        w.end_task()?;
    }
    st.end(rd.records());
    Ok(RankResult {
        records: rd.records(),
        end: rd.end().clone(),
        sync_points: st.sync_points,
        pending: st.reqs.pending(),
    })
}

/// Per rank, how many records to keep: everything up to the last world collective that all
/// ranks reached (0 when there is none).
pub fn cut_points(scans: &[RankResult]) -> Vec<u64> {
    let k = scans.iter().map(|s| s.sync_points.len()).min().unwrap_or(0);
    scans.iter().map(|s| if k == 0 { 0 } else { s.sync_points[k - 1] }).collect()
}
