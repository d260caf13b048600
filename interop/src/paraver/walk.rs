//! One rank's measured run as Paraver sees it: each record placed on the rank's clock by
//! [`Record::place`] (ns since its MPI_Init returned, the layout every view of a measured run
//! uses), as a state interval and an MPI event pair, and the message ends it posts or
//! completes ([`Ends`]). Both passes of the export walk the records with this.

use super::states::{self, State};
use psins_formats::comms::{Bad, Comms};
use psins_formats::messages::{End, Ends, Side};
use psins_formats::{functions, Op, Record};

/// What one record shows: the computation before it, then the call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// The burst before the call: [running.0, running.1).
    pub running: (u64, u64),
    /// The call: [begin, end), its state and its event (type, value); none for a record
    /// that is no call (an expansion step) or outside the span (MPI_Init, MPI_Finalize).
    pub call: Option<(u64, u64, State, u32, u32)>,
}

pub struct Walk<'a> {
    pub rank: u32,
    ends: Ends<'a>,
    /// The rank's clock: where the next record's burst begins.
    pub now: u64,
}

impl<'a> Walk<'a> {
    pub fn new(rank: u32, comms: &'a Comms) -> Walk<'a> {
        Walk { rank, ends: Ends::new(rank, comms), now: 0 }
    }

    /// Places `rec` on the clock and hands the message ends it makes to `ends` (sends, and
    /// receives whose data arrived in this call).
    pub fn record(&mut self, rec: &Record, ends: &mut impl FnMut(Side, End)) -> Result<Placed, Bad> {
        let p = rec.place(self.now);
        let (begin, end) = p.call;
        let mut placed = Placed { running: p.burst, call: None };
        self.now = end;
        // MPI_Init's return is time 0; MPI_Finalize's entry ends the span.
        // An expansion step is MPICH's own message inside its collective, which the
        // collective's interval shows: not an application message.
        // An MPI_Comm_idup's comm_create is no call either: its call is the record before.
        if matches!(rec.op, Op::Init { .. } | Op::Finalize) || !rec.op.is_call() {
            return Ok(placed);
        }
        let (ty, value) = states::event(&rec.op, functions::of_op(&rec.op));
        placed.call = Some((begin, end, states::of(&rec.op), ty, value));
        self.ends.record(rec, begin, end, ends)?;
        Ok(placed)
    }
}
