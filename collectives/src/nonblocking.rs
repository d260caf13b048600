//! MPICH 4.0.2's nonblocking collectives (`MPI_I*`): the schedules of its default `*_sched_*`
//! algorithms (`src/mpi/coll/i<coll>/`), as batches of steps.
//!
//! A schedule is a list of sends and receives cut into phases by `MPIR_SCHED_BARRIER`: a
//! phase's operations run concurrently and the next phase starts when all are done. That is
//! exactly a batch of `ISend`/`IRecv` closed by a `WaitAll`. The default sched algorithms are
//! the blocking ones rewritten with one phase per `MPIC_Send`/`MPIC_Recv`/`MPIC_Sendrecv`
//! (same peers, sizes and order), so the schedule here is the blocking expansion with each
//! blocking step turned into a phase of its own, with two exceptions read from the sources:
//! binomial ibcast posts the sends to all its children in one phase, the in-place ialltoall
//! (v/w) schedules leave out the exchange with the calling rank itself, and the selection
//! table of the nonblocking collectives differs in three places (see [`expand_nonblocking`]).

use crate::{expand, CollArgs, ExpandError, Step, Thresholds};

/// Clears `out`, pushes this rank's schedule of the nonblocking twin of `args.coll` (phases
/// of `ISend`/`IRecv` steps, each closed by a `WaitAll`) and returns the algorithm's name
/// (the blocking algorithm's name: the sched variant has the same messages).
///
/// Selection (`maint/tuning/coll/mpir/generic.json`, `collective=i*`): as the blocking
/// table but for iallreduce (recursive doubling up to `iallreduce_short_msg_size` = 2048
/// bytes), ialltoall (Bruck up to `ialltoall_short_msg_size` = 2048 bytes) and ibcast
/// (strict `<` against both bcast sizes).
pub fn expand_nonblocking(args: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let mut nb = th.clone();
    nb.allreduce_short_msg_size = th.iallreduce_short_msg_size;
    nb.alltoall_short_msg_size = th.ialltoall_short_msg_size;
    nb.bcast_short_msg_size = th.bcast_short_msg_size.saturating_sub(1);
    nb.bcast_long_msg_size = th.bcast_long_msg_size.saturating_sub(1);
    let name = expand(args, &nb, out)?;
    if name.ends_with("_pairwise_sendrecv_replace") {
        // The in-place schedules skip the pair (r, r) ("no need to sendrecv_replace for
        // ourselves"), where the blocking loop exchanges with itself through the device.
        let me = args.rank;
        out.retain(|s| s.send().is_none_or(|(to, _)| to != me));
    }
    to_phases(out, name == "bcast_binomial");
    Ok(name)
}

/// Rewrites blocking steps in place as phases: `Send` → `ISend, WaitAll`, `Recv` →
/// `IRecv, WaitAll`, `SendRecv` → `ISend, IRecv, WaitAll`; batches stay as they are.
/// `merge_sends`: consecutive `Send`s share one phase (binomial ibcast).
fn to_phases(steps: &mut Vec<Step>, merge_sends: bool) {
    // Steps only grow, so fill from the back: no second vector.
    let n = steps.len();
    let is_send = |s: &Step| matches!(s, Step::Send { .. });
    let grown: usize = (0..n)
        .map(|i| match steps[i] {
            Step::Send { .. } if merge_sends && steps.get(i + 1).is_some_and(is_send) => 0,
            Step::Send { .. } | Step::Recv { .. } => 1,
            Step::SendRecv { .. } => 2,
            _ => 0,
        })
        .sum();
    steps.resize(n + grown, Step::WaitAll);
    let mut w = n + grown;
    // Whether the original step after the current one is a Send (read before overwritten).
    let mut next_is_send = false;
    for i in (0..n).rev() {
        let st = steps[i];
        let mut put = |s: Step| {
            w -= 1;
            steps[w] = s;
        };
        match st {
            Step::Send { peer, bytes } => {
                if !(merge_sends && next_is_send) {
                    put(Step::WaitAll);
                }
                put(Step::ISend { peer, bytes });
            }
            Step::Recv { peer, bytes } => {
                put(Step::WaitAll);
                put(Step::IRecv { peer, bytes });
            }
            Step::SendRecv { send_peer, send_bytes, recv_peer, recv_bytes } => {
                put(Step::WaitAll);
                put(Step::IRecv { peer: recv_peer, bytes: recv_bytes });
                put(Step::ISend { peer: send_peer, bytes: send_bytes });
            }
            other => put(other),
        }
        next_is_send = is_send(&st);
    }
    debug_assert_eq!(w, 0);
}
