//! An empty rank (no MPI call: [`super::convert::records`]) that other ranks need: a member
//! of a communicator they use, or the peer of their message. MPI makes every member of a
//! communicator take part in its creation and its collectives, and a message needs its
//! receiver, so such an archive lacks the empty rank's events (a location lost or never
//! written): incomplete. Imported, it would fail consolidation's check that every member
//! created the communicator (naming records the importer made up), or replay silently wrong
//! (an eager send to no one) or deadlock. Checked only when a rank was found empty, by
//! reading the other ranks' events again, so a complete archive costs nothing.

use super::convert::{kind, Model, UNDEFINED};
use super::events::{self, Ev};
use super::import::Otf2Rank;
use psins_consolidate::RankInput;
use psins_formats::Error;
use std::collections::HashMap;

/// The first use, in rank order then event order, of a rank in `empty` by another rank's
/// events, as one error naming the archive, both ranks, the communicator and the event.
/// `empty` and `calls` (the ranks read and found holding calls) are in rank order.
pub fn check(ranks: &[Otf2Rank], empty: &[u32], calls: &[u32]) -> Result<(), Error> {
    let Some(first) = ranks.first().filter(|_| !empty.is_empty()) else { return Ok(()) };
    let in_comm = first_empty_members(first.model(), empty);
    // Ranks consolidation did not read (it stopped before them) are read too: an event
    // needing the empty rank makes its rank one with calls.
    for r in ranks.iter().filter(|r| empty.binary_search(&r.rank()).is_err()) {
        let model = r.model();
        // An unreadable location is consolidation's error to give, not this check's.
        let Ok(evs) = events::read(r.anchor_c(), r.location(), model.count_attr) else { continue };
        if let Some((e, c, i, call, what)) = first_use(model, &evs, empty, &in_comm) {
            let file = ranks[e as usize].path().display();
            let comm =
                if c == UNDEFINED { "MPI_COMM_WORLD (none given)".to_string() } else { format!("communicator {c}") };
            let msg = format!(
                "rank {e} holds no MPI call ({file}) but is a member of {comm}, which rank {} uses in {call} at event \
                 {i} of {} ({what}): the archive is incomplete",
                r.rank(),
                r.path().display()
            );
            return Err(Error::new(r.anchor(), msg));
        }
    }
    // A communicator no event uses still had all its members create it: one with an empty
    // member and a member holding calls (given a made-up creation) is as incomplete.
    let m = first.model();
    let mut ids: Vec<u32> =
        m.comms.keys().copied().filter(|&c| Some(c) != m.world_comm && Some(c) != m.self_comm).collect();
    ids.sort_unstable();
    for c in ids {
        let members = &m.comms[&c].0;
        let (Some(&e), Some(&r)) = (
            members.iter().find(|x| empty.binary_search(x).is_ok()),
            members.iter().find(|x| calls.binary_search(x).is_ok()),
        ) else {
            continue;
        };
        let file = ranks[e as usize].path().display();
        let msg = format!(
            "rank {e} holds no MPI call ({file}) but is a member of communicator {c} with rank {r}, which holds calls \
             (a communicator's members create it together): the archive is incomplete"
        );
        return Err(Error::new(first.anchor(), msg));
    }
    Ok(())
}

/// (empty rank, communicator, event index, MPI call, the event) of the first event in `evs`
/// that needs a rank of `empty`.
/// `in_comm`: [`first_empty_members`].
fn first_use(
    m: &Model,
    evs: &[Ev],
    empty: &[u32],
    in_comm: &HashMap<u32, Option<u32>>,
) -> Option<(u32, u32, usize, String, String)> {
    let is_empty = |r: u32| empty.binary_search(&r).is_ok();
    let win_comm = |w: u32| m.windows.get(&w).copied().unwrap_or(UNDEFINED);
    let mut call = None;
    let mut depth = 0u32;
    for (i, ev) in evs.iter().enumerate() {
        let mpi = |r: &u32| m.regions.get(r).is_some_and(|x| x.1);
        let (c, peer, what) = match *ev {
            Ev::Enter(_, r) if mpi(&r) => {
                if depth == 0 {
                    call = Some(r);
                }
                depth += 1;
                continue;
            }
            Ev::Leave(_, r) if mpi(&r) => {
                depth = depth.saturating_sub(1);
                continue;
            }
            Ev::Send(t, p, c, ..) | Ev::Isend(t, p, c, ..) => {
                (c, Some(p), format!("{} at tick {t}, receiver {p}", kind(ev)))
            }
            Ev::Recv(t, p, c, ..) | Ev::Irecv(t, p, c, ..) => {
                (c, Some(p), format!("{} at tick {t}, sender {p}", kind(ev)))
            }
            Ev::CollEnd(t, _, c, ..) if c != UNDEFINED => (c, None, format!("MpiCollectiveEnd at tick {t}")),
            // One-sided: a window is its communicator's (made by all its members, an
            // operation's target one of them).
            Ev::RmaOp(t, _, w, p, ..) => (win_comm(w), Some(p), format!("{} at tick {t}, target {p}", kind(ev))),
            Ev::WinCreate(t, w) | Ev::RmaColl(t, w) => (win_comm(w), None, format!("{} at tick {t}", kind(ev))),
            _ => continue,
        };
        let needed = if c == UNDEFINED || Some(c) == m.world_comm {
            // On the world a message needs its peer, a collective every rank.
            match peer {
                Some(p) => Some(p).filter(|&p| is_empty(p)),
                None => empty.first().copied(),
            }
        } else {
            // Any other communicator needs every member, which created it together (self
            // has none but the rank itself).
            in_comm.get(&c).copied().flatten()
        };
        if let Some(e) = needed {
            let name = call.and_then(|r| m.regions.get(&r)).map_or("an MPI call".to_string(), |x| x.0.clone());
            return Some((e, c, i, name, what));
        }
    }
    None
}

/// Per communicator other than the world and self: its first member in `empty` (sorted), if
/// any.
fn first_empty_members(m: &Model, empty: &[u32]) -> HashMap<u32, Option<u32>> {
    m.comms
        .iter()
        .filter(|(&c, _)| Some(c) != m.world_comm && Some(c) != m.self_comm)
        .map(|(&c, x)| (c, x.0.iter().copied().find(|r| empty.binary_search(r).is_ok())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otf2::events::RmaEv;

    /// A window over the world (window 5 over communicator 1) made on rank 0 while rank 2 is
    /// empty: the archive lacks rank 2's share of the creation; a put to rank 2 lacks its
    /// target; a put to rank 1 needs no empty rank.
    #[test]
    fn one_sided_calls_need_their_windows_members() {
        let mut m = crate::otf2::convert::tests::model(vec![2, 1]);
        m.windows.insert(5, 1);
        let empty = [2];
        let in_comm = first_empty_members(&m, &empty);
        let made = first_use(&m, &[Ev::WinCreate(7, 5)], &empty, &in_comm).unwrap();
        assert_eq!((made.0, made.1, made.2), (2, 1, 0));
        assert_eq!(made.4, "RmaWinCreate at tick 7");
        let put = |p| Ev::RmaOp(9, RmaEv::Put, 5, p, 8, 0, 1);
        let to2 = first_use(&m, &[put(2)], &empty, &in_comm).unwrap();
        assert_eq!((to2.0, to2.4.as_str()), (2, "RmaPut at tick 9, target 2"));
        assert!(first_use(&m, &[put(1)], &empty, &in_comm).is_none());
    }
}
