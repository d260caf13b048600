//! Pass 1: read every block of every log once, checking what can only be checked by reading
//! the records, and noting where a consistent cut could go.

use crate::comms::Comms;
use crate::inputs::{ranges, Input};
use crate::requests::Requests;
use psins_formats::{CollFlags, Error, LogEnd, LogReader, Op, Record, COMM_WORLD};

/// What pass 1 learnt about one rank.
pub struct Scan {
    pub records: u64,
    pub end: LogEnd,
    /// Record index just after each blocking collective on the world communicator (and its
    /// expansion steps): the places where every rank can be cut consistently.
    pub sync_points: Vec<u64>,
    /// Tracer request ids started and not completed by the end of the log.
    pub pending: Vec<u32>,
}

pub fn scan(
    input: &Input,
    comms: &mut Comms,
    on_bytes: &mut dyn FnMut(u64),
) -> Result<Scan, Error> {
    let rank = input.header.rank;
    let mut rd = LogReader::open(&input.path)?;
    let mut rec = Record::default();
    let mut reqs = Requests::default();
    let mut sync_points = Vec::new();
    let mut after_world_coll = false;
    let err = |rd: &LogReader, msg: String| {
        Error::new(&input.path, msg)
            .task(rank)
            .record(rd.records() - 1)
    };
    while rd.next(&mut rec)? {
        let idx = rd.records() - 1;
        if after_world_coll && !matches!(rec.op, Op::Step { .. }) {
            sync_points.push(idx);
            after_world_coll = false;
        }
        match rec.op {
            Op::CommCreate { comm, .. } => {
                let members: Vec<u32> = rec.list.iter().map(|&m| m as u32).collect();
                if members.iter().any(|&m| m >= input.header.world_size) {
                    return Err(err(
                        &rd,
                        format!(
                            "communicator {comm} lists a member outside the world: {members:?}"
                        ),
                    ));
                }
                comms
                    .created(rank, comm, &members)
                    .map_err(|m| err(&rd, m))?;
            }
            Op::CommFree { comm } => comms.freed(rank, comm),
            Op::Coll {
                comm: COMM_WORLD,
                flags,
                ..
            } if flags & CollFlags::NONBLOCKING == 0 => after_world_coll = true,
            _ => {}
        }
        if let Some(c) = rec.op.comm() {
            if comms.to_global(rank, c).is_none() {
                return Err(err(
                    &rd,
                    format!("uses communicator {c}, which this rank never created"),
                ));
            }
        }
        reqs.apply(&mut rec.op, &mut rec.list)
            .map_err(|m| err(&rd, m.to_string()))?;
    }
    on_bytes(input.bytes);
    if after_world_coll {
        sync_points.push(rd.records());
    }
    Ok(Scan {
        records: rd.records(),
        end: rd.end().clone(),
        sync_points,
        pending: reqs.pending(),
    })
}

/// Per rank, how many records to keep: all of them when every log is whole, else everything
/// up to the last world collective all ranks reached.
pub fn cut_points(scans: &[Scan]) -> Vec<u64> {
    if scans.iter().all(|s| s.end == LogEnd::Complete) {
        return scans.iter().map(|s| s.records).collect();
    }
    let k = scans.iter().map(|s| s.sync_points.len()).min().unwrap_or(0);
    scans
        .iter()
        .map(|s| if k == 0 { 0 } else { s.sync_points[k - 1] })
        .collect()
}

/// The error for pending requests without `--allow-partial`, listing every rank.
pub fn pending_error(inputs: &[Input], scans: &[Scan]) -> Option<Error> {
    let bad: Vec<String> = inputs
        .iter()
        .zip(scans)
        .filter(|(_, s)| !s.pending.is_empty())
        .map(|(i, s)| {
            format!(
                "rank {} ({}): requests {} started and never completed",
                i.header.rank,
                i.path.display(),
                ranges(&s.pending)
            )
        })
        .collect();
    (!bad.is_empty()).then(|| {
        Error::new(
            &inputs[0].path,
            format!("unfinished requests:\n  {}", bad.join("\n  ")),
        )
    })
}
