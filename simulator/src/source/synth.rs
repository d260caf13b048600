//! Synthetic skeleton workloads (stencil halo exchange with allreduce, ping-pong pairs,
//! all-to-all) generated record by record: the same generator feeds the simulator directly
//! (a [`TraceSource`] with a few bytes of state per task, for million-rank runs) and
//! `psins-synth`, which writes it to a compact trace.
//!
//! A workload is named by a spec: `gen:stencil2d:ranks=1024,iters=100,bytes=8KiB,compute=50us`.

use super::{RecordStream, TraceSource};
use crate::error::{Result, SimError};
use crate::units::{parse_bytes, parse_time, PS_PER_NS};
use psins_formats::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    Stencil2d,
    Stencil3d,
    PingPong,
    Alltoall,
}

/// A parameterised workload.
#[derive(Clone, Debug)]
pub struct Workload {
    pub pattern: Pattern,
    pub ranks: u32,
    pub iters: u32,
    /// Bytes per halo face / per ping-pong message / per all-to-all peer.
    pub bytes: u64,
    /// CPU burst before each iteration, in ns.
    pub compute_ns: u64,
    /// Allreduce of 8 bytes every this many iterations (stencils; 0 = never).
    pub allreduce_every: u32,
    /// Grid extents for the stencils (product = ranks).
    pub dims: [u32; 3],
}

/// Largest synthetic workload (its generator state must fit in memory).
const MAX_RANKS: u32 = 1 << 27;

pub const SPEC_HELP: &str = "gen:PATTERN[:key=value,...] with PATTERN one of stencil2d, stencil3d, pingpong, alltoall and keys ranks (default 16), iters (10), bytes (8KiB), compute (10us), allreduce_every (1), dims (e.g. 32x32)";

impl Workload {
    /// Parses `gen:stencil2d:ranks=1024,iters=10`.
    pub fn parse(spec: &str) -> Result<Workload> {
        let bad = |m: String| SimError::Usage(format!("workload `{spec}`: {m}\n  expected {SPEC_HELP}"));
        let rest = spec.strip_prefix("gen:").ok_or_else(|| bad("must start with gen:".into()))?;
        let (name, params) = rest.split_once(':').unwrap_or((rest, ""));
        let pattern = match name {
            "stencil2d" => Pattern::Stencil2d,
            "stencil3d" => Pattern::Stencil3d,
            "pingpong" => Pattern::PingPong,
            "alltoall" => Pattern::Alltoall,
            _ => return Err(bad(format!("unknown pattern `{name}`"))),
        };
        let mut w = Workload {
            pattern,
            ranks: 16,
            iters: 10,
            bytes: 8192,
            compute_ns: 10_000,
            allreduce_every: 1,
            dims: [0; 3],
        };
        let mut dims = None;
        for kv in params.split(',').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| bad(format!("`{kv}` is not key=value")))?;
            let num = |v: &str| v.parse::<u32>().map_err(|_| bad(format!("`{k}`: `{v}` is not a number")));
            match k {
                "ranks" => w.ranks = num(v)?,
                "iters" => w.iters = num(v)?,
                "bytes" => w.bytes = parse_bytes(v).map_err(|e| bad(e.to_string()))?,
                "compute" => w.compute_ns = parse_time(v).map_err(|e| bad(e.to_string()))? / PS_PER_NS,
                "allreduce_every" => w.allreduce_every = num(v)?,
                "dims" => dims = Some(v.split('x').map(num).collect::<Result<Vec<u32>>>()?),
                _ => return Err(bad(format!("unknown key `{k}`"))),
            }
        }
        if w.ranks == 0 || w.ranks > MAX_RANKS {
            return Err(bad(format!("ranks must be between 1 and {MAX_RANKS}")));
        }
        let want = match pattern {
            Pattern::Stencil2d => 2,
            Pattern::Stencil3d => 3,
            _ => 0,
        };
        w.dims = match dims {
            Some(d) if d.len() == want && d.iter().map(|&x| x as u64).product::<u64>() == w.ranks as u64 => {
                let mut a = [1; 3];
                a[..want].copy_from_slice(&d);
                a
            }
            Some(_) => return Err(bad(format!("dims must be {want} numbers whose product is ranks"))),
            None => factor(w.ranks, want),
        };
        if pattern == Pattern::PingPong && !w.ranks.is_multiple_of(2) {
            return Err(bad("pingpong needs an even number of ranks".into()));
        }
        Ok(w)
    }

    /// Neighbour count of a stencil rank (dimensions of extent 1 have none; periodic otherwise).
    fn faces(&self) -> u32 {
        let n = match self.pattern {
            Pattern::Stencil2d => 2,
            Pattern::Stencil3d => 3,
            _ => 0,
        };
        self.dims[..n].iter().filter(|&&d| d > 1).count() as u32 * 2
    }

    /// Records one iteration of task `t` produces.
    fn phases(&self, iter: u32) -> u32 {
        match self.pattern {
            Pattern::Stencil2d | Pattern::Stencil3d => {
                let ar = self.allreduce_every > 0 && (iter + 1).is_multiple_of(self.allreduce_every);
                2 * self.faces() + 1 + ar as u32
            }
            Pattern::PingPong => 2,
            Pattern::Alltoall => 1,
        }
    }

    /// Total records of one task (Init, the iterations, Finalize).
    pub fn records_per_task(&self) -> u64 {
        2 + (0..self.iters).map(|i| self.phases(i) as u64).sum::<u64>()
    }

    /// The live dimensions (extent > 1) as (axis, stride, extent).
    fn axes(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut stride = 1;
        self.dims.iter().filter_map(move |&d| {
            let s = stride;
            stride *= d;
            (d > 1).then_some((s, d))
        })
    }

    /// Neighbour of `t` across face `f` (2 faces per live axis: even = minus, odd = plus), periodic.
    fn neighbour(&self, t: u32, f: u32) -> u32 {
        let (stride, extent) = self.axes().nth((f / 2) as usize).expect("face index below faces()");
        let coord = (t / stride) % extent;
        let to = if f.is_multiple_of(2) { (coord + extent - 1) % extent } else { (coord + 1) % extent };
        t - coord * stride + to * stride
    }

    /// Writes record `phase` of iteration `iter` of task `t` into `rec`.
    fn fill(&self, t: u32, iter: u32, phase: u32, rec: &mut Record) {
        rec.list.clear();
        rec.gap_ns = if phase == 0 { self.compute_ns } else { 0 };
        rec.dur_ns = 0;
        rec.op = match self.pattern {
            Pattern::Stencil2d | Pattern::Stencil3d => self.stencil_op(t, iter, phase, &mut rec.list),
            Pattern::PingPong => self.pingpong_op(t, phase),
            Pattern::Alltoall => coll_op(Coll::Alltoall, self.bytes, self.bytes, iter + 1),
        };
    }

    fn stencil_op(&self, t: u32, iter: u32, phase: u32, list: &mut Vec<i64>) -> Op {
        let k = self.faces();
        let comm = COMM_WORLD;
        if phase < k {
            // Receive across face `phase` the message the neighbour sent across the opposite face.
            let from = self.neighbour(t, phase);
            Op::Irecv { peer: from as i32, tag: (phase ^ 1) as i32, bytes: self.bytes, comm, req: phase + 1 }
        } else if phase < 2 * k {
            let f = phase - k;
            Op::Isend {
                mode: SendMode::Standard,
                peer: self.neighbour(t, f) as i32,
                tag: f as i32,
                bytes: self.bytes,
                comm,
                req: phase + 1,
            }
        } else if phase == 2 * k {
            for f in 0..k {
                list.extend_from_slice(&[f as i64 + 1, self.neighbour(t, f) as i64, (f ^ 1) as i64, self.bytes as i64]);
            }
            for f in 0..k {
                list.extend_from_slice(&[(k + f) as i64 + 1, NO_RANK as i64, f as i64, self.bytes as i64]);
            }
            Op::Wait { func: WaitFn::Waitall, count: 2 * k }
        } else {
            coll_op(Coll::Allreduce, 8, 8, (iter + 1) / self.allreduce_every.max(1))
        }
    }

    fn pingpong_op(&self, t: u32, phase: u32) -> Op {
        let peer = (t ^ 1) as i32;
        let (tag, bytes, comm) = (1, self.bytes, COMM_WORLD);
        if t.is_multiple_of(2) == (phase == 0) {
            Op::Send { mode: SendMode::Standard, peer, tag, bytes, comm }
        } else {
            Op::Recv { peer, tag, bytes, comm }
        }
    }

    /// Record `index` of task `t` (0 = Init, last = Finalize), advancing a compact cursor state.
    fn record_at(&self, t: u32, st: &mut GenState, rec: &mut Record) -> bool {
        if st.done {
            return false;
        }
        rec.list.clear();
        if !st.started {
            st.started = true;
            *rec =
                Record { gap_ns: 0, dur_ns: 0, op: Op::Init { thread_level: 0 }, list: std::mem::take(&mut rec.list) };
            return true;
        }
        if st.iter >= self.iters {
            st.done = true;
            rec.gap_ns = 0;
            rec.dur_ns = 0;
            rec.op = Op::Finalize;
            return true;
        }
        self.fill(t, st.iter, st.phase, rec);
        st.phase += 1;
        if st.phase == self.phases(st.iter) {
            st.phase = 0;
            st.iter += 1;
        }
        true
    }
}

fn coll_op(coll: Coll, send_bytes: u64, recv_bytes: u64, instance: u32) -> Op {
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    Op::Coll {
        coll,
        comm: COMM_WORLD,
        root: NO_RANK,
        send_bytes,
        recv_bytes,
        count: send_bytes / 8,
        flags,
        req: 0,
        instance,
    }
}

/// Splits `n` into `k` factors as equal as possible, largest first.
fn factor(n: u32, k: usize) -> [u32; 3] {
    let mut dims = [1u32; 3];
    if k == 0 {
        return dims;
    }
    let mut rest = n;
    for (i, dim) in dims.iter_mut().enumerate().take(k) {
        let left = (k - i) as f64;
        let target = (rest as f64).powf(1.0 / left).round() as u32;
        // The largest divisor of `rest` not above the target (at least 1).
        let d = (1..=target.max(1)).rev().find(|d| rest.is_multiple_of(*d)).unwrap_or(1);
        *dim = d;
        rest /= d;
    }
    dims[k - 1] *= rest;
    dims[..k].sort_unstable_by(|a, b| b.cmp(a));
    dims
}

/// Per-task generator position: 12 bytes, so a million tasks cost 12 MB.
#[derive(Clone, Copy, Default)]
struct GenState {
    iter: u32,
    phase: u32,
    started: bool,
    done: bool,
}

/// A [`Workload`] as a trace source.
pub struct SynthSource {
    w: Workload,
    states: Vec<GenState>,
}

impl SynthSource {
    pub fn new(w: Workload) -> SynthSource {
        let n = w.ranks as usize;
        SynthSource { w, states: vec![GenState::default(); n] }
    }

    pub fn workload(&self) -> &Workload {
        &self.w
    }
}

impl TraceSource for SynthSource {
    fn tasks(&self) -> u32 {
        self.w.ranks
    }

    fn total_records(&self) -> u64 {
        self.w.records_per_task() * self.w.ranks as u64
    }

    fn comms(&self) -> Vec<CommDef> {
        Vec::new()
    }

    #[inline]
    fn next(&mut self, t: u32, rec: &mut Record) -> Result<bool> {
        Ok(self.w.record_at(t, &mut self.states[t as usize], rec))
    }

    fn is_consumed(&self, t: u32) -> bool {
        self.states[t as usize].done
    }

    fn lookahead(&self, t: u32) -> Result<Box<dyn RecordStream>> {
        Ok(Box::new(SynthStream { w: self.w.clone(), t, st: GenState::default() }))
    }

    fn describe(&self) -> String {
        let w = &self.w;
        format!(
            "synthetic {:?} ({} tasks, {} iterations, {} records)",
            w.pattern,
            w.ranks,
            w.iters,
            self.total_records()
        )
    }
}

/// One task's records from a workload (also what `psins-synth` writes).
pub struct SynthStream {
    w: Workload,
    t: u32,
    st: GenState,
}

impl SynthStream {
    pub fn new(w: Workload, t: u32) -> SynthStream {
        SynthStream { w, t, st: GenState::default() }
    }
}

impl RecordStream for SynthStream {
    fn next(&mut self, rec: &mut Record) -> Result<bool> {
        Ok(self.w.record_at(self.t, &mut self.st, rec))
    }
}

/// Traces of at least this many ranks are written without repeat records.
pub const LEAN_TRACE_RANKS: u32 = 1 << 17;

/// Writes workload `w` to `path` as a compact trace; with `expand`, each collective is
/// followed by its MPICH expansion as Step records. Returns the number of records written.
pub fn write_trace(w: &Workload, path: &std::path::Path, zstd: Option<i32>, expand: bool) -> Result<u64> {
    let meta = vec![("generator".to_string(), "psins-synth".to_string()), ("workload".to_string(), format!("{w:?}"))];
    let mut out = TraceWriter::create(path, w.ranks, meta, Vec::new(), zstd)?;
    // Repeat records shrink a trace but cost each replaying cursor ~800 bytes of history:
    // past this many ranks, memory per rank matters more than bytes per record.
    out.set_repeats(w.ranks < LEAN_TRACE_RANKS);
    let th = psins_collectives::Thresholds::default();
    let (mut rec, mut steps, mut written) = (Record::default(), Vec::new(), 0u64);
    for t in 0..w.ranks {
        out.begin_task(t)?;
        let mut s = SynthStream::new(w.clone(), t);
        while s.next(&mut rec)? {
            out.push(&rec)?;
            written += 1;
            if let (true, Op::Coll { coll, send_bytes, recv_bytes, count, instance, .. }) = (expand, rec.op) {
                let mut args = psins_collectives::CollArgs::new(coll, w.ranks, t);
                args.send_bytes = send_bytes;
                args.recv_bytes = recv_bytes;
                args.count = count;
                psins_collectives::expand(&args, &th, &mut steps)
                    .map_err(|e| SimError::Usage(format!("cannot expand {}: {e}", coll.name())))?;
                for st in &steps {
                    out.push(&Record::new(0, 0, st.to_op(instance)))?;
                    written += 1;
                }
            }
        }
        out.end_task()?;
    }
    out.finish()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_are_balanced() {
        assert_eq!(factor(1024, 2), [32, 32, 1]);
        assert_eq!(factor(12, 2), [4, 3, 1]);
        assert_eq!(factor(64, 3), [4, 4, 4]);
        assert_eq!(factor(1048576, 2), [1024, 1024, 1]);
        assert_eq!(factor(7, 2), [7, 1, 1]);
    }

    #[test]
    fn stencil_neighbours_are_symmetric() {
        let w = Workload::parse("gen:stencil2d:ranks=12").unwrap();
        for t in 0..12 {
            for f in 0..w.faces() {
                assert_eq!(w.neighbour(w.neighbour(t, f), f ^ 1), t);
            }
        }
    }

    #[test]
    fn record_count_matches() {
        let w = Workload::parse("gen:stencil3d:ranks=8,iters=3,allreduce_every=2").unwrap();
        let mut s = SynthStream::new(w.clone(), 5);
        let mut rec = Record::default();
        let mut n = 0;
        while s.next(&mut rec).unwrap() {
            n += 1;
        }
        assert_eq!(n, w.records_per_task());
    }
}
