//! Pass 2: stream each rank's log again, normalise its records into the trace's canonical
//! form, and append them as that task's stream.

use crate::comms::Comms;
use crate::inputs::Input;
use crate::requests::Requests;
use psins_formats::{Error, LogReader, Op, Record, TraceWriter};

/// What was written for one rank.
pub struct Written {
    pub records: u64,
    /// Requests still pending at the cut (tracer ids), reported with `--allow-partial`.
    pub pending: Vec<u32>,
}

pub fn write_rank(
    input: &Input,
    keep: u64,
    comms: &mut Comms,
    w: &mut TraceWriter,
) -> Result<Written, Error> {
    let rank = input.header.rank;
    let mut rd = LogReader::open(&input.path)?;
    let mut rec = Record::default();
    let mut reqs = Requests::default();
    w.begin_task(rank)?;
    while rd.records() < keep && rd.next(&mut rec)? {
        let idx = rd.records() - 1;
        let err = |m: String| Error::new(&input.path, m).task(rank).record(idx);
        normalise_comms(rank, &mut rec, comms).map_err(err)?;
        reqs.apply(&mut rec.op, &mut rec.list)
            .map_err(|m| err(m.to_string()))?;
        w.push(&rec)?;
    }
    w.end_task()?;
    Ok(Written {
        records: rd.records().min(keep),
        pending: reqs.pending(),
    })
}

/// Rewrites every communicator id in `rec` from the rank's local numbering to the global one.
fn normalise_comms(rank: u32, rec: &mut Record, comms: &mut Comms) -> Result<(), String> {
    let unknown = |c: u32| format!("uses communicator {c}, which this rank never created");
    match &mut rec.op {
        Op::CommCreate { parent, comm, .. } => {
            let members: Vec<u32> = rec.list.iter().map(|&m| m as u32).collect();
            *parent = comms
                .to_global(rank, *parent)
                .ok_or_else(|| unknown(*parent))?;
            *comm = comms
                .recreate(rank, *comm, &members)
                .ok_or_else(|| unknown(*comm))?;
        }
        Op::CommFree { comm } => {
            let local = *comm;
            *comm = comms.to_global(rank, local).ok_or_else(|| unknown(local))?;
            comms.freed(rank, local);
        }
        Op::Send { comm, .. }
        | Op::Isend { comm, .. }
        | Op::SendInit { comm, .. }
        | Op::Recv { comm, .. }
        | Op::Irecv { comm, .. }
        | Op::RecvInit { comm, .. }
        | Op::Sendrecv { comm, .. }
        | Op::Probe { comm, .. }
        | Op::Coll { comm, .. } => {
            *comm = comms.to_global(rank, *comm).ok_or_else(|| unknown(*comm))?
        }
        _ => {}
    }
    Ok(())
}
