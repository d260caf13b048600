//! Sub-communicators said relative to the process topology: a communicator whose members are
//! the ranks sharing the caller's coordinates in some dimensions of the grid (a row, a column,
//! a plane: what `MPI_Comm_split` by a coordinate or `MPI_Cart_sub` makes), in ascending world
//! rank, is a *class*, the mask of the dimensions its members span.
//!
//! A traced program is read *normalised* on a candidate grid: every communicator id is its
//! class's code ([`code`]), the same on every rank and at every rank count, and a
//! point-to-point peer on a sub-communicator is the world rank it names, so that the
//! template's forms (a step in the grid) say it. A wait's completion sources and a
//! collective's root stay ranks of their communicator. Generated programs are normalised the
//! same way; [`denormalise`] makes a record of the target's again.
//!
//! Normalising also puts the completions of a run of `MPI_Waitany` or `MPI_Waitsome` calls in
//! request order: which request each call completes is the run's timing, not the program.

use crate::template::Mismatch;
use crate::topo::Grid;
use crate::Trace;
use psins_formats::{CommDef, Op, Record, WaitFn, ANY_SOURCE, COMM_SELF, COMM_WORLD};
use std::borrow::Cow;
use std::collections::HashMap;

/// The first class code: codes are `BASE | mask`, above any communicator id of a trace.
const BASE: u32 = 0x7000_0000;

/// The code of the class spanning the dimensions in `mask`.
pub fn code(mask: u32) -> u32 {
    BASE | mask
}

/// The class of a communicator code, if it is one.
pub fn class(comm: u32) -> Option<u32> {
    (comm & !0xff == BASE).then_some(comm & 0xff)
}

/// The dimensions of `mask`, the one of largest stride first: the order of the members'
/// ascending world ranks. No allocation: a streamed replay asks it for every record on a
/// sub-communicator.
fn spanned(g: &Grid, mask: u32) -> impl DoubleEndedIterator<Item = usize> {
    let mut d = [usize::MAX; 3];
    let mut n = 0;
    for x in (0..g.dims.len()).filter(|&x| mask >> x & 1 == 1) {
        d[n] = x;
        n += 1;
    }
    d[..n].sort_unstable_by_key(|&x| std::cmp::Reverse(g.stride_of(x)));
    d.into_iter().take(n)
}

/// The members' count of class `mask`.
pub fn size(g: &Grid, mask: u32) -> u32 {
    spanned(g, mask).map(|d| g.dims[d]).product()
}

/// World rank `q`'s rank in its communicator of class `mask`.
pub fn rank_in(g: &Grid, mask: u32, q: u32) -> u32 {
    let c = g.coords(q);
    spanned(g, mask).fold(0, |acc, d| acc * g.dims[d] + c[d])
}

/// The world rank of member `i` of rank `me`'s communicator of class `mask`.
pub fn member(g: &Grid, mask: u32, me: u32, mut i: u32) -> u32 {
    let mut c = g.coords(me);
    for d in spanned(g, mask).rev() {
        c[d] = i % g.dims[d];
        i /= g.dims[d];
    }
    g.rank_at(&c)
}

/// The members of rank `me`'s communicator of class `mask`, in communicator rank order.
pub fn members(g: &Grid, mask: u32, me: u32) -> Vec<u32> {
    (0..size(g, mask)).map(|i| member(g, mask, me, i)).collect()
}

/// The id of rank `me`'s communicator of class `mask` at the target: one id per communicator,
/// the same on each of its members (the class and its first member).
pub fn global_id(g: &Grid, mask: u32, me: u32) -> u32 {
    COMM_SELF + 1 + mask * g.ranks() + member(g, mask, me, 0)
}

/// The communicators of the classes in `masks` on `g`, as a trace's table lists them.
pub fn table(g: &Grid, masks: &[u32]) -> Vec<CommDef> {
    let mut v = Vec::new();
    for &mask in masks {
        for me in 0..g.ranks() {
            if member(g, mask, me, 0) == me {
                v.push(CommDef { id: global_id(g, mask, me), members: members(g, mask, me), split: 0 });
            }
        }
    }
    v
}

/// The class of a communicator with `members` (world ranks, in communicator rank order) as
/// rank `me` of `g` sees it, if its members are a row, column or plane through `me`.
fn class_of(members: &[u32], me: u32, g: &Grid) -> Option<u32> {
    let n = g.dims.len() as u32;
    let all = (1u32 << n) - 1;
    // The whole world in order (a dup of MPI_COMM_WORLD) is every dimension, also where some
    // are one rank wide: at a larger count they are not. Else the fewest dimensions: a
    // communicator of the caller alone spans none (the unused dimension of a layout, as NPB
    // FT's 1-D one splits off) and stays one rank at any count.
    if members.len() as u32 == g.ranks() && members.iter().enumerate().all(|(i, &m)| m == i as u32) {
        return Some(all);
    }
    let mut masks: Vec<u32> = (0..all).collect();
    masks.sort_by_key(|m| m.count_ones());
    masks.into_iter().find(|&mask| size(g, mask) as usize == members.len() && self::members(g, mask, me) == members)
}

/// Rank `r`'s records of `trace`, normalised on `g` (borrowed when the trace has only the world
/// and self); a communicator that is no class is the mismatch.
pub fn normalised<'a>(trace: &'a Trace, r: u32, g: &Grid) -> Result<Cow<'a, [Record]>, Mismatch> {
    let recs = &trace.tasks[r as usize];
    let any = |r: &Record| matches!(r.op, Op::Wait { func: WaitFn::Waitany | WaitFn::Waitsome, .. });
    let wildcard = |r: &Record| matches!(r.op, Op::Irecv { peer: ANY_SOURCE, .. });
    if trace.comms.is_empty() && !recs.iter().any(|r| any(r) || wildcard(r)) {
        return Ok(Cow::Borrowed(recs));
    }
    let mut classes: HashMap<u32, u32> = HashMap::new();
    // A sub-communicator's members, by its id in the trace.
    let by_id: HashMap<u32, &[u32]> = trace.comms.iter().map(|c| (c.id, &c.members[..])).collect();
    let mut out = Vec::with_capacity(recs.len());
    for (i, rec) in recs.iter().enumerate() {
        let mut rec = rec.clone();
        let mismatch = |what: String| Mismatch { trace: 0, rank: r, record: i as u64, what, progress: 0 };
        let mut class_for = |comm: u32| -> Result<u32, Mismatch> {
            if comm <= COMM_SELF {
                return Ok(comm);
            }
            if let Some(&c) = classes.get(&comm) {
                return Ok(c);
            }
            let Some(m) = by_id.get(&comm) else {
                return Err(mismatch(format!("communicator {comm} is not in the trace's table")));
            };
            let c = class_of(m, r, g).map(code).ok_or_else(|| {
                let shown: Vec<String> = m.iter().take(8).map(|x| x.to_string()).collect();
                mismatch(format!(
                    "communicator {comm} (members {}{}) is not a row, column or plane of the {} through this rank",
                    shown.join(", "),
                    if m.len() > 8 { ", …" } else { "" },
                    g
                ))
            })?;
            classes.insert(comm, c);
            Ok(c)
        };
        match &mut rec.op {
            Op::CommCreate { comm, parent, split, func } => {
                if *split != 0 || *comm == u32::MAX {
                    return Err(mismatch(format!(
                        "{}: {}",
                        func.name(),
                        if *split != 0 {
                            "intercommunicators are not extrapolated"
                        } else {
                            "a rank left out of the new communicator (MPI_COMM_NULL) is not extrapolated"
                        }
                    )));
                }
                *parent = class_for(*parent)?;
                *comm = class_for(*comm)?;
                rec.list.clear();
            }
            Op::CommFree { comm } => *comm = class_for(*comm)?,
            op => {
                if let Some(c) = op.comm() {
                    let norm = class_for(c)?;
                    if norm != c {
                        let members = by_id[&c];
                        // Point-to-point peers as the world ranks they name.
                        if !matches!(op, Op::Coll { .. }) {
                            let (mut p, n) = crate::shape::peers(op);
                            for x in p.iter_mut().take(n) {
                                if *x >= 0 {
                                    *x = *members.get(*x as usize).ok_or_else(|| {
                                        mismatch(format!(
                                            "peer {x} is outside communicator {c} ({} members)",
                                            members.len()
                                        ))
                                    })? as i32;
                                }
                            }
                            crate::shape::set_peers(op, p);
                        }
                        *op.comm_mut().unwrap() = norm;
                    }
                }
            }
        }
        out.push(rec);
    }
    // Runs of waitany/waitsome: their completions in request order, each call keeping how
    // many it completed.
    let mut i = 0;
    while i < out.len() {
        if !any(&out[i]) {
            i += 1;
            continue;
        }
        let end = (i..out.len()).find(|&j| !any(&out[j])).unwrap_or(out.len());
        let mut done: Vec<[i64; 4]> =
            out[i..end].iter().flat_map(|r| r.list.chunks_exact(4).map(|q| [q[0], q[1], q[2], q[3]])).collect();
        done.sort_by_key(|q| q[0]);
        let mut it = done.into_iter();
        for rec in &mut out[i..end] {
            let n = rec.list.len() / 4;
            rec.list = it.by_ref().take(n).flatten().collect();
        }
        i = end;
    }
    in_rank_order(&mut out);
    Ok(Cow::Owned(out))
}

/// Receives from MPI_ANY_SOURCE completed by a run of waits: which sender's message each one
/// got is the run's timing, so the run's senders (with their tags and sizes) are given to the
/// receives in ascending rank, the first posted the lowest (as crate::generate makes them).
fn in_rank_order(out: &mut [Record]) {
    let mut wild: Vec<u32> = Vec::new(); // the requests of wildcard receives in flight
    let mut i = 0;
    while i < out.len() {
        if let Op::Irecv { peer: ANY_SOURCE, req, .. } = out[i].op {
            wild.push(req);
        }
        if !matches!(out[i].op, Op::Wait { .. }) {
            i += 1;
            continue;
        }
        let end = (i..out.len()).find(|&j| !matches!(out[j].op, Op::Wait { .. })).unwrap_or(out.len());
        // (record, entry) of each wildcard completion of the run, and what completed it.
        let mut at: Vec<(usize, usize, i64)> = Vec::new();
        let mut got: Vec<[i64; 3]> = Vec::new();
        for (j, rec) in out.iter().enumerate().take(end).skip(i) {
            for (e, q) in rec.list.chunks_exact(4).enumerate() {
                if let Some(w) = wild.iter().position(|&r| r as i64 == q[0]) {
                    wild.swap_remove(w);
                    at.push((j, e, q[0]));
                    got.push([q[1], q[2], q[3]]);
                }
            }
        }
        if at.len() > 1 {
            got.sort_unstable();
            let mut by_request: Vec<usize> = (0..at.len()).collect();
            by_request.sort_by_key(|&x| at[x].2);
            for (x, g) in by_request.into_iter().zip(got) {
                let (j, e, _) = at[x];
                out[j].list[4 * e + 1..4 * e + 4].copy_from_slice(&g);
            }
        }
        i = end;
    }
}

/// A normalised record of rank `me` made a record of the target `g`: class codes become the
/// communicators' ids ([`global_id`]), a point-to-point peer on one its rank there, a
/// constructor lists its members.
pub fn denormalise(g: &Grid, me: u32, rec: &mut Record) {
    let to_id = |comm: u32| match class(comm) {
        Some(mask) => global_id(g, mask, me),
        None => comm,
    };
    match &mut rec.op {
        Op::CommCreate { comm, parent, .. } => {
            if let Some(mask) = class(*comm) {
                rec.list = members(g, mask, me).into_iter().map(|m| m as i64).collect();
            }
            *comm = to_id(*comm);
            *parent = to_id(*parent);
        }
        Op::CommFree { comm } => *comm = to_id(*comm),
        op => {
            let Some(c) = op.comm() else { return };
            let Some(mask) = class(c) else { return };
            if !matches!(op, Op::Coll { .. }) {
                let (mut p, n) = crate::shape::peers(op);
                for x in p.iter_mut().take(n) {
                    if *x >= 0 {
                        *x = rank_in(g, mask, *x as u32) as i32;
                    }
                }
                crate::shape::set_peers(op, p);
            }
            *op.comm_mut().unwrap() = global_id(g, mask, me);
        }
    }
}

/// Whether rank `me` is the root of a (normalised) record's rooted collective.
pub fn is_root(g: &Grid, me: u32, op: &Op) -> bool {
    match *op {
        Op::Coll { root, comm, .. } if root >= 0 => size_and_rank(g, me, comm).1 == root as u32,
        _ => false,
    }
}

/// Rank `me`'s size and rank in the communicator of a (normalised) record's collective.
pub fn size_and_rank(g: &Grid, me: u32, comm: u32) -> (u32, u32) {
    match class(comm) {
        Some(mask) => (size(g, mask), rank_in(g, mask, me)),
        None if comm == COMM_WORLD => (g.ranks(), me),
        None => (1, 0),
    }
}
