//! Open MPI 4.1's nonblocking collectives: the schedules of coll/libnbc
//! (`ompi/mca/coll/libnbc/nbc_i*.c`), which serves every `MPI_I*` collective of a one-node run
//! (tuned has none; docs/collectives.md, *Open MPI*), with its default algorithm choices (no
//! `coll_libnbc_*_algorithm` forced).
//!
//! A libnbc schedule is a list of sends, receives and local operations cut into rounds by
//! barriers (`NBC_Sched_barrier`, or an operation's own `barrier` argument): a round's sends
//! and receives are posted together in schedule order and the next round starts when all are
//! complete. A round is a batch of `ISend`/`IRecv` steps closed by a `WaitAll`; rounds
//! holding only local operations (reductions, copies) send nothing and leave no step.
//! `collectives/oracle-ompi/run-nbc.sh` compares these schedules with those libnbc's own
//! code builds.

use crate::{validate, CollArgs, ExpandError, Step, NOOP};
use psins_formats::Coll;

/// Clears `out`, pushes this rank's libnbc schedule for the nonblocking twin of `args.coll`
/// and returns its name (`"ompi_i<coll>_<algorithm>"`), or [`NOOP`] where Open MPI sends
/// nothing.
pub fn expand_nonblocking(args: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    out.clear();
    validate(args)?;
    let a = args;
    // A reduction's vector must be `count` whole elements, as for the blocking algorithms.
    let elem = match a.coll {
        Coll::Reduce | Coll::Allreduce | Coll::Scan | Coll::Exscan => crate::reduce::element_bytes(a)?,
        _ => 0,
    };
    if a.size == 1 || sends_nothing(a) {
        return Ok(NOOP);
    }
    let mut s = Sched { out, open: false };
    let name = match a.coll {
        Coll::Barrier => barrier(a, &mut s),
        Coll::Bcast => bcast(a, &mut s),
        Coll::Allreduce => allreduce(a, elem, &mut s),
        Coll::Reduce => reduce(a, elem, &mut s),
        Coll::Gather => gather(a, &mut s, |_| a.recv_bytes, "ompi_igather_linear"),
        Coll::Gatherv => gather(a, &mut s, |i| a.counts[i as usize], "ompi_igatherv_linear"),
        Coll::Scatter => scatter(a, &mut s, |_| a.send_bytes, "ompi_iscatter_linear"),
        Coll::Scatterv => scatter(a, &mut s, |i| a.counts[i as usize], "ompi_iscatterv_linear"),
        Coll::Allgather => allgather(a, &mut s),
        Coll::Allgatherv => allgatherv(a, &mut s),
        Coll::Alltoall => alltoall(a, &mut s),
        Coll::Alltoallv | Coll::Alltoallw => alltoallv(a, &mut s),
        Coll::ReduceScatter => {
            reduce_scatter(a, &mut s, |i| a.counts[i as usize], "ompi_ireduce_scatter_binomial_linear")
        }
        Coll::ReduceScatterBlock => {
            reduce_scatter(a, &mut s, |_| a.recv_bytes, "ompi_ireduce_scatter_block_binomial_linear")
        }
        Coll::Scan => scan(a, &mut s),
        Coll::Exscan => exscan(a, &mut s),
        Coll::NeighborAllgather
        | Coll::NeighborAllgatherv
        | Coll::NeighborAlltoall
        | Coll::NeighborAlltoallv
        | Coll::NeighborAlltoallw => return Err(ExpandError::Unsupported { coll: a.coll }),
    };
    s.barrier();
    Ok(name)
}

/// Where Open MPI's MPI layer returns before libnbc (a zero count of ibcast, iallreduce and
/// ireduce, all-zero blocks of ireduce_scatter(_block)) or libnbc before any message (a zero
/// count of iscan, an in-place ialltoallv/w whose blocks are all empty).
fn sends_nothing(a: &CollArgs) -> bool {
    let p = a.size as usize;
    match a.coll {
        Coll::Bcast | Coll::Allreduce | Coll::Reduce | Coll::Scan => a.send_bytes == 0,
        Coll::ReduceScatter => a.counts.iter().all(|&c| c == 0),
        Coll::ReduceScatterBlock => a.recv_bytes == 0,
        Coll::Alltoallv | Coll::Alltoallw => a.in_place && a.counts[p..].iter().all(|&c| c == 0),
        _ => false,
    }
}

/// A schedule being written: operations posted together until a barrier.
struct Sched<'a> {
    out: &'a mut Vec<Step>,
    /// Whether the current round has posted anything.
    open: bool,
}

impl Sched<'_> {
    fn send(&mut self, peer: u32, bytes: u64) {
        self.out.push(Step::ISend { peer, bytes });
        self.open = true;
    }

    fn recv(&mut self, peer: u32, bytes: u64) {
        self.out.push(Step::IRecv { peer, bytes });
        self.open = true;
    }

    /// The end of a round: an explicit barrier, or an operation scheduled with `barrier`
    /// set (a local reduction or copy among them, whose round then posts nothing more).
    fn barrier(&mut self) {
        if self.open {
            self.out.push(Step::WaitAll);
            self.open = false;
        }
    }
}

/// ⌈log2 p⌉ (libnbc's `ceil_of_log2`).
fn ceil_log2(p: u32) -> u32 {
    p.next_power_of_two().trailing_zeros()
}

/// The largest power of two ≤ p.
fn pof2(p: u32) -> u32 {
    1 << (31 - p.leading_zeros())
}

/// libnbc's tree numbering: the root and rank 0 swap places (`RANK2VRANK`, `VRANK2RANK`,
/// one mapping and its own inverse).
fn swap(r: u32, root: u32) -> u32 {
    if r == 0 {
        root
    } else if r == root {
        0
    } else {
        r
    }
}

/// Dissemination: in round r, send to rank + 2^r and receive from rank − 2^r.
fn barrier(a: &CollArgs, s: &mut Sched) -> &'static str {
    let (p, rank) = (a.size, a.rank);
    for round in 0..ceil_log2(p) {
        s.send((rank + (1 << round)) % p, 0);
        s.recv((rank + p - (1 << round)) % p, 0);
        s.barrier();
    }
    "ompi_ibarrier_dissemination"
}

/// Up to 4 ranks the root sends to each; beyond, a binomial tree (libnbc's default, which
/// skips the size-based choice).
fn bcast(a: &CollArgs, s: &mut Sched) -> &'static str {
    let (p, rank, root, n) = (a.size, a.rank, a.root, a.send_bytes);
    if p <= 4 {
        if rank == root {
            for peer in (0..p).filter(|&q| q != root) {
                s.send(peer, n);
            }
        } else {
            s.recv(root, n);
        }
        return "ompi_ibcast_linear";
    }
    binomial_bcast(p, rank, root, n, s);
    "ompi_ibcast_binomial"
}

/// The binomial broadcast of `nbc_ibcast.c` (also the second half of iallreduce's binomial
/// algorithm): a receive from the parent, a barrier, then the sends to the children.
fn binomial_bcast(p: u32, rank: u32, root: u32, n: u64, s: &mut Sched) {
    let maxr = ceil_log2(p);
    let vrank = swap(rank, root);
    if vrank != 0 {
        for r in 0..maxr {
            if vrank >= 1 << r && vrank < 1 << (r + 1) {
                s.recv(swap(vrank - (1 << r), root), n);
            }
        }
        s.barrier();
    }
    for r in 0..maxr {
        if (vrank + (1 << r) < p && vrank < 1 << r) || vrank == 0 {
            s.send(swap(vrank + (1 << r), root), n);
        }
    }
}

/// The binomial reduction to `vroot` of `nbc_ireduce.c` and `nbc_iallreduce.c`: a receive
/// from each child, one round each, then the send to the parent, left open (the caller's
/// next operation joins its round).
fn binomial_reduce(p: u32, rank: u32, vroot: u32, n: u64, s: &mut Sched) {
    let vrank = swap(rank, vroot);
    for r in 1..=ceil_log2(p) {
        if vrank.is_multiple_of(1 << r) {
            let peer = swap(vrank + (1 << (r - 1)), vroot);
            if peer < p {
                s.recv(peer, n);
                s.barrier();
            }
        } else {
            s.send(swap(vrank - (1 << (r - 1)), vroot), n);
            break;
        }
    }
}

fn allreduce(a: &CollArgs, elem: u64, s: &mut Sched) -> &'static str {
    let (p, rank, n, count) = (a.size, a.rank, a.send_bytes, a.count);
    if p < 4 || n < 65536 || !a.op_commutative || a.in_place {
        // A binomial reduce to rank 0, then its binomial bcast.
        binomial_reduce(p, rank, 0, n, s);
        binomial_bcast(p, rank, 0, n, s);
        return "ompi_iallreduce_binomial";
    }
    if count >= pof2(p) as u64 {
        redscat_allgather(p, rank, count, elem, s);
        return "ompi_iallreduce_redscat_allgather";
    }
    ring(p, rank, count, elem, s);
    "ompi_iallreduce_ring"
}

/// The ring: p − 1 rounds of reduce-scatter, then p − 1 of allgather, on p segments of
/// ⌊count / p⌋ elements, the first `count mod p` one larger.
fn ring(p: u32, rank: u32, count: u64, elem: u64, s: &mut Sched) {
    let seg = |i: u32| (count / p as u64 + u64::from((i as u64) < count % p as u64)) * elem;
    let (speer, rpeer) = ((rank + 1) % p, (rank + p - 1) % p);
    let element = |back: u32| (rank + 2 * p - back) % p;
    for round in 0..2 * p - 2 {
        s.send(speer, seg((rank + 1 + 2 * p - round) % p));
        s.recv(rpeer, seg(element(round)));
        s.barrier();
    }
}

/// Recursive halving then doubling (Rabenseifner), ranks beyond the largest power of two
/// folded in first, as `allred_sched_redscat_allgather`.
fn redscat_allgather(p: u32, rank: u32, count: u64, elem: u64, s: &mut Sched) {
    let (pof2, rem) = (pof2(p), p - pof2(p));
    let vrank = fold_in(rank, rem, count, elem, s);
    if let Some(v) = vrank {
        let steps = halving(rank, v, pof2, rem, count, elem, s);
        for &(dest, kept, given) in steps.iter().rev() {
            s.send(dest, kept);
            s.recv(dest, given);
            s.barrier();
        }
    }
    if rank < 2 * rem {
        if !rank.is_multiple_of(2) {
            s.recv(rank - 1, count * elem);
        } else {
            s.send(rank + 1, count * elem);
        }
    }
}

/// The first `2·rem` ranks pair up: each odd rank gives its pair half the vector's
/// reduction and the rest back, and drops out (None); the even one goes on as rank / 2.
fn fold_in(rank: u32, rem: u32, count: u64, elem: u64, s: &mut Sched) -> Option<u32> {
    if rank >= 2 * rem {
        return Some(rank - rem);
    }
    let (lhalf, rhalf) = (count / 2, count - count / 2);
    if !rank.is_multiple_of(2) {
        s.send(rank - 1, lhalf * elem);
        s.recv(rank - 1, rhalf * elem);
        s.barrier();
        s.send(rank - 1, rhalf * elem);
        s.barrier();
        None
    } else {
        s.send(rank + 1, rhalf * elem);
        s.recv(rank + 1, lhalf * elem);
        s.barrier();
        s.recv(rank + 1, rhalf * elem);
        s.barrier();
        Some(rank / 2)
    }
}

/// Recursive halving among the power-of-two group: one round per step, sending the half
/// given away and receiving the half kept. Returns each step's (peer, bytes kept, bytes
/// given), which the gathering phase sends back in reverse.
fn halving(rank: u32, vrank: u32, pof2: u32, rem: u32, count: u64, elem: u64, s: &mut Sched) -> Vec<(u32, u64, u64)> {
    let mut steps = Vec::new();
    let mut wsize = count;
    let mut mask = 1;
    while mask < pof2 {
        let vdest = vrank ^ mask;
        let dest = if vdest < rem { vdest * 2 } else { vdest + rem };
        let (rcount, scount) =
            if rank < dest { (wsize / 2, wsize - wsize / 2) } else { (wsize - wsize / 2, wsize / 2) };
        s.send(dest, scount * elem);
        s.recv(dest, rcount * elem);
        s.barrier();
        steps.push((dest, rcount * elem, scount * elem));
        wsize = rcount;
        mask <<= 1;
    }
    steps
}

fn reduce(a: &CollArgs, elem: u64, s: &mut Sched) -> &'static str {
    let (p, rank, root, n, count) = (a.size, a.rank, a.root, a.send_bytes, a.count);
    if a.op_commutative && p > 2 && count >= pof2(p) as u64 {
        redscat_gather(p, rank, root, count, elem, s);
        return "ompi_ireduce_redscat_gather";
    }
    if p > 4 || n < 65536 || !a.op_commutative {
        // A non-commutative op reduces in rank order to rank 0, which sends to the root.
        let vroot = if a.op_commutative { root } else { 0 };
        binomial_reduce(p, rank, vroot, n, s);
        // No barrier before it: at the root, the receive joins the round of its own send up
        // the tree.
        if vroot != root && rank == 0 {
            s.send(root, n);
        } else if vroot != root && rank == root {
            s.recv(vroot, n);
        }
        return "ompi_ireduce_binomial";
    }
    chain(p, rank, root, count, elem, s);
    "ompi_ireduce_chain"
}

/// The chain to the root in fragments of 8 KiB: each rank receives a fragment from the next
/// in the chain, reduces it, and passes it on, one round each.
fn chain(p: u32, rank: u32, root: u32, count: u64, elem: u64, s: &mut Sched) {
    const FRAG: u64 = 8192;
    let vrank = swap(rank, root);
    let size = count * elem;
    let numfrag = size.div_ceil(FRAG);
    let fragcount = count / numfrag;
    let (rpeer, speer) = (swap(vrank + 1, root), swap(vrank.wrapping_sub(1), root));
    for f in 0..numfrag {
        let this = if f == numfrag - 1 { count - fragcount * f } else { fragcount } * elem;
        if vrank != p - 1 {
            s.recv(rpeer, this);
            s.barrier();
        }
        if vrank != 0 {
            s.send(speer, this);
            s.barrier();
        }
    }
}

/// Recursive halving, then a binomial gather of the halves to the root
/// (`red_sched_redscat_gather`).
fn redscat_gather(p: u32, rank: u32, root: u32, count: u64, elem: u64, s: &mut Sched) {
    let (pof2, rem) = (pof2(p), p - pof2(p));
    let nsteps = pof2.trailing_zeros() as usize;
    let mut vrank = fold_in(rank, rem, count, elem, s);
    let mut steps = match vrank {
        Some(v) => halving(rank, v, pof2, rem, count, elem, s),
        None => Vec::new(),
    };
    let (odd_root, vroot) = super::reduce::virtual_root(root.into(), rem.into());
    let vroot = vroot as u32; // below the root
    if odd_root {
        // The root dropped out in the fold: vrank 0 hands it its block, which it takes as
        // its own from then on.
        let last = {
            let mut w = count;
            for _ in 0..nsteps - 1 {
                w /= 2;
            }
            w / 2
        };
        if rank == root {
            s.recv(0, last * elem);
            s.barrier();
            vrank = Some(0);
            let mut w = count;
            steps = (0..nsteps)
                .map(|_| {
                    let r = w / 2;
                    let sc = w - r;
                    w /= 2;
                    (0, r * elem, sc * elem)
                })
                .collect();
        } else if vrank == Some(0) {
            s.send(root, steps[nsteps - 1].1);
            s.barrier();
            vrank = None;
        }
    }
    let Some(v) = vrank else { return };
    let mut step = nsteps;
    let mut mask = pof2 >> 1;
    while mask > 0 {
        step -= 1;
        let vdest = v ^ mask;
        let mut dest = if vdest < rem { vdest * 2 } else { vdest + rem };
        if vdest == 0 && odd_root {
            dest = root;
        }
        let tree = |x: u32| (x >> step) << step;
        let (_, kept, given) = steps[step];
        if tree(vdest) == tree(vroot) {
            s.send(dest, kept);
            break;
        }
        s.recv(dest, given);
        s.barrier();
        mask >>= 1;
    }
}

/// The root receives every block (gather, gatherv) in one round.
fn gather(a: &CollArgs, s: &mut Sched, from: impl Fn(u32) -> u64, name: &'static str) -> &'static str {
    if a.rank != a.root {
        s.send(a.root, a.send_bytes);
    } else {
        for i in (0..a.size).filter(|&i| i != a.root) {
            s.recv(i, from(i));
        }
    }
    name
}

/// The root sends every block (scatter, scatterv) in one round.
fn scatter(a: &CollArgs, s: &mut Sched, to: impl Fn(u32) -> u64, name: &'static str) -> &'static str {
    if a.rank != a.root {
        s.recv(a.root, a.recv_bytes);
    } else {
        for i in (0..a.size).filter(|&i| i != a.root) {
            s.send(i, to(i));
        }
    }
    name
}

/// One round: a receive from and a send to every other rank, in rank order (libnbc's default;
/// its recursive doubling is only forced).
fn allgather(a: &CollArgs, s: &mut Sched) -> &'static str {
    for q in (0..a.size).filter(|&q| q != a.rank) {
        s.recv(q, a.recv_bytes);
        s.send(q, a.recv_bytes);
    }
    "ompi_iallgather_linear"
}

/// One round: from rank − r and to rank + r for r = 1 … p − 1.
fn allgatherv(a: &CollArgs, s: &mut Sched) -> &'static str {
    let (p, rank) = (a.size, a.rank);
    for r in 1..p {
        let (speer, rpeer) = ((rank + r) % p, (rank + p - r) % p);
        s.recv(rpeer, a.counts[rpeer as usize]);
        s.send(speer, a.counts[rank as usize]);
    }
    "ompi_iallgatherv_linear"
}

/// One round of a receive and a send with every other rank; in place, pairs of rounds
/// exchanging with rank ± i through a temporary buffer.
fn alltoall(a: &CollArgs, s: &mut Sched) -> &'static str {
    if a.in_place {
        in_place_pairs(a.size, a.rank, |_| a.recv_bytes, Empty::Kept, s);
        return "ompi_ialltoall_inplace";
    }
    for q in (0..a.size).filter(|&q| q != a.rank) {
        s.recv(q, a.recv_bytes);
        s.send(q, a.send_bytes);
    }
    "ompi_ialltoall_linear"
}

/// alltoallv and alltoallw: one round of a send and a receive with every other rank, empty
/// blocks left out; in place, the pairs of rounds of [`in_place_pairs`] on the receive
/// blocks.
fn alltoallv(a: &CollArgs, s: &mut Sched) -> &'static str {
    let p = a.size as usize;
    let (sends, recvs) = a.counts.split_at(p);
    let v = a.coll == Coll::Alltoallv;
    if a.in_place {
        let empty = if v { Empty::Skipped } else { Empty::SkippedButLast };
        in_place_pairs(a.size, a.rank, |q| recvs[q as usize], empty, s);
        return if v { "ompi_ialltoallv_inplace" } else { "ompi_ialltoallw_inplace" };
    }
    for q in (0..a.size).filter(|&q| q != a.rank) {
        if sends[q as usize] != 0 {
            s.send(q, sends[q as usize]);
        }
        if recvs[q as usize] != 0 {
            s.recv(q, recvs[q as usize]);
        }
    }
    if v {
        "ompi_ialltoallv_linear"
    } else {
        "ompi_ialltoallw_linear"
    }
}

/// Which empty blocks an in-place schedule leaves out.
#[derive(Clone, Copy, PartialEq)]
enum Empty {
    /// alltoall: none (its blocks are all one size).
    Kept,
    /// alltoallv: every empty block.
    Skipped,
    /// alltoallw: those of the pairs' rounds, not the last exchange's (p even).
    SkippedButLast,
}

/// The in-place exchanges (`a2a_sched_inplace` and its v/w twins): for i = 1 … ⌈p/2⌉ − 1,
/// send to rank + i and receive from rank − i, then send rank − i its block from a
/// temporary copy and receive rank + i's; with p even, last the exchange with rank + p/2.
/// Each copy to the temporary buffer and each receive ends a round.
fn in_place_pairs(p: u32, rank: u32, block: impl Fn(u32) -> u64, empty: Empty, s: &mut Sched) {
    let keep = |q: u32, last: bool| match empty {
        Empty::Kept => true,
        Empty::Skipped => block(q) != 0,
        Empty::SkippedButLast => last || block(q) != 0,
    };
    for i in 1..p.div_ceil(2) {
        let (speer, rpeer) = ((rank + i) % p, (rank + p - i) % p);
        if keep(rpeer, false) {
            s.barrier(); // the copy of rank − i's block
        }
        if keep(speer, false) {
            s.send(speer, block(speer));
        }
        if keep(rpeer, false) {
            s.recv(rpeer, block(rpeer));
            s.barrier();
            s.send(rpeer, block(rpeer));
        }
        if keep(speer, false) {
            s.recv(speer, block(speer));
            s.barrier();
        }
    }
    if p.is_multiple_of(2) {
        let peer = (rank + p / 2) % p;
        s.barrier(); // the copy of the partner's block
        if keep(peer, true) {
            s.send(peer, block(peer));
            s.recv(peer, block(peer));
            s.barrier();
        }
    }
}

/// A binomial reduction of the whole vector to rank 0, a barrier, then rank 0 sends each
/// rank its block.
fn reduce_scatter(a: &CollArgs, s: &mut Sched, block: impl Fn(u32) -> u64, name: &'static str) -> &'static str {
    let (p, rank) = (a.size, a.rank);
    let total: u64 = (0..p).map(&block).sum();
    binomial_reduce(p, rank, 0, total, s);
    s.barrier();
    if rank == 0 {
        for r in 1..p {
            s.send(r, block(r));
        }
    } else {
        s.recv(0, block(rank));
    }
    name
}

/// Linear inclusive scan: receive the prefix from rank − 1, add, pass it to rank + 1.
fn scan(a: &CollArgs, s: &mut Sched) -> &'static str {
    let (p, rank, n) = (a.size, a.rank, a.send_bytes);
    if rank > 0 {
        s.recv(rank - 1, n);
        s.barrier();
    }
    if rank != p - 1 {
        s.send(rank + 1, n);
    }
    "ompi_iscan_linear"
}

/// Linear exclusive scan: rank 0 sends its vector to rank 1; every other rank receives the
/// prefix from rank − 1 and, but the last, passes the next prefix on after a barrier.
fn exscan(a: &CollArgs, s: &mut Sched) -> &'static str {
    let (p, rank, n) = (a.size, a.rank, a.send_bytes);
    if rank > 0 {
        s.recv(rank - 1, n);
        if rank < p - 1 {
            s.barrier();
            s.send(rank + 1, n);
        }
    } else {
        s.send(1, n);
    }
    "ompi_iexscan_linear"
}
