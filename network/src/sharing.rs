//! Max-min fair sharing kept up to date incrementally, as SimGrid's lmm does it: the flows
//! and links form a bipartite graph, and a flow's arrival or departure can change the rates
//! of its connected component only (max-min fairness of one component does not read
//! another's links), so only that component is re-solved, by the progressive filling of
//! [`crate::maxmin`]: repeatedly, the link with the least capacity left per unfixed flow fixes
//! its flows at that share. A solve costs O((links + flows · path length) · log) of the
//! component, whatever the size of the network and the number of flows elsewhere.
//!
//! Flows may carry weights (SimGrid's lmm penalties, inverted): on a link that fixes them,
//! each gets its weight times the link's share per unit of weight. All weights 1 is plain
//! max-min.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A link's heap key: its share's bits above its id. Shares are finite or infinite, never
/// negative or NaN, and the bits of such floats order as the floats do, so keys order as
/// (share, link) did with `maxmin::Share`, for one integer compare instead of a float's
/// total order and a tuple's.
#[inline]
fn key(share: f64, link: usize) -> u128 {
    // -0.0 (never made, but its bits would sort last) is 0.
    let bits = if share == 0.0 { 0 } else { share.to_bits() };
    u128::from(bits) << 64 | link as u128
}

#[inline]
fn unkey(key: u128) -> (f64, usize) {
    (f64::from_bits((key >> 64) as u64), key as u64 as usize)
}

/// A link outside the component being solved.
const NONE: u32 = u32::MAX;

/// Flows a link holds in its own record; more go to a list of their own.
const INLINE: usize = 5;

/// A link's live flows and its place in the solve, in one 32-byte record: adding, removing
/// and solving each read a link's flows and place together, and a large network's links are
/// far out of cache, so one line read instead of three (the capacity, a list header and the
/// list). The flows are in the order a `Vec` with `push` and `swap_remove` would keep them
/// (the first [`INLINE`] here, the rest in `Sharing::spill`): the solve fixes a link's flows
/// in that order, and the rounding of the capacity left follows it.
#[derive(Clone, Copy)]
#[repr(align(32))]
struct Link {
    len: u32,
    /// The link's place in the component being solved (`NONE` outside one, between solves
    /// always).
    slot: u32,
    /// Its list in `Sharing::spill`, or `NONE` before it first held more than [`INLINE`].
    spill: u32,
    inline: [u32; INLINE],
}

impl Default for Link {
    fn default() -> Self {
        Link { len: 0, slot: NONE, spill: NONE, inline: [0; INLINE] }
    }
}

/// The `i`-th flow on link `l`.
#[inline]
fn flow_at(link: &[Link], spill: &[Vec<u32>], l: usize, i: usize) -> u32 {
    let k = &link[l];
    if i < INLINE {
        k.inline[i]
    } else {
        spill[k.spill as usize][i - INLINE]
    }
}

/// The flows on link `l`, in order.
#[inline]
fn flows_on<'a>(link: &'a [Link], spill: &'a [Vec<u32>], l: usize) -> impl Iterator<Item = u32> + 'a {
    let k = &link[l];
    let len = k.len as usize;
    let more: &[u32] = if len > INLINE { &spill[k.spill as usize] } else { &[] };
    k.inline[..len.min(INLINE)].iter().chain(more).copied()
}

/// Links a flow holds in its own record; a longer route goes to `Sharing::long`. A fat-tree
/// route is at most 2 + 2·(levels) links, a dragonfly's minimal one 5.
const ROUTE_INLINE: usize = 10;

/// A flow slot's rate, weight, solve marks and links, in one 64-byte record: a solve reaches
/// flows through the links they share, at random, and reads all of these for each (one line
/// instead of the five or six of an array per field; docs/performance.md, *Findings behind
/// the code*).
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct FlowRec {
    rate: f64,
    weight: f64,
    /// The stamp of the last solve that reached it.
    seen: u32,
    /// Its links (0 once freed): in `inline` up to [`ROUTE_INLINE`], else in `Sharing::long`.
    len: u16,
    /// Fixed by the filling under way.
    fixed: bool,
    inline: [u32; ROUTE_INLINE],
}

const _: () = assert!(size_of::<FlowRec>() == 64);

/// The links of flow `f`.
#[inline]
fn route<'a>(flow: &'a [FlowRec], long: &'a [Vec<u32>], f: u32) -> &'a [u32] {
    let r = &flow[f as usize];
    let n = r.len as usize;
    if n <= ROUTE_INLINE {
        &r.inline[..n]
    } else {
        &long[f as usize]
    }
}

/// Link capacities: one figure when every link has it (a fabric's links), else one per link.
enum Capacity {
    Uniform(f64),
    PerLink(Vec<f64>),
}

impl Capacity {
    #[inline]
    fn of(&self, l: usize) -> f64 {
        match self {
            Capacity::Uniform(c) => *c,
            Capacity::PerLink(c) => c[l],
        }
    }
}

pub struct Sharing {
    cap: Capacity,
    /// Per link: its live flows and its place in a solve.
    link: Vec<Link>,
    /// The flows of each link beyond its first [`INLINE`] (`Link::spill`).
    spill: Vec<Vec<u32>>,
    /// Links with at least one live flow (the timeline's utilisation track).
    busy: usize,
    /// Per flow slot: its rate, weight, links and marks, in one cache line.
    flow: Vec<FlowRec>,
    /// The links of a flow slot whose route is longer than [`ROUTE_INLINE`] (else empty).
    long: Vec<Vec<u32>>,
    /// Live flows whose weight is not 1: while there are none, a link's summed weight is its
    /// flow count (a sum of ones is exact), not read flow by flow.
    weighted: usize,
    free: Vec<u32>,
    /// Links of flows added or removed since the last solve: where the components to re-solve are.
    seeds: Vec<u32>,
    // Scratch of a solve. Per flow: `FlowRec::seen` holds the solve's stamp. Per link only
    // its place in the component (`Link::slot`): the figures of a solve are kept per place, so
    // a network of millions of links costs nothing more per link here (a million-rank
    // fat-tree has 7.3 M links).
    stamp: u32,
    /// Per place in the component: capacity left, unfixed flows, their summed weight.
    left: Vec<f64>,
    unfixed: Vec<u32>,
    unfixed_weight: Vec<f64>,
    comp_links: Vec<u32>,
    comp_flows: Vec<u32>,
    /// The solve's links by share, kept for its memory.
    heap: BinaryHeap<Reverse<u128>>,
}

impl Sharing {
    /// Links `0..capacity.len()` with these capacities.
    pub fn new(capacity: Vec<f64>) -> Sharing {
        let n = capacity.len();
        let cap = match capacity.first() {
            Some(&c) if capacity.iter().all(|&x| x.to_bits() == c.to_bits()) => Capacity::Uniform(c),
            _ => Capacity::PerLink(capacity),
        };
        Sharing {
            cap,
            link: vec![Link::default(); n],
            spill: Vec::new(),
            busy: 0,
            flow: Vec::new(),
            long: Vec::new(),
            weighted: 0,
            free: Vec::new(),
            seeds: Vec::new(),
            stamp: 0,
            left: Vec::new(),
            unfixed: Vec::new(),
            unfixed_weight: Vec::new(),
            comp_links: Vec::new(),
            comp_flows: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// A new flow over `links`; its slot. Its rate is 0 until the next [`Sharing::solve`].
    #[cfg(test)]
    pub fn add(&mut self, links: Vec<u32>) -> u32 {
        self.add_weighted(&links, 1.0)
    }

    /// A new flow over `links` with `weight` (> 0). A reused slot keeps its list's memory:
    /// no allocation per flow once the slots are warm.
    pub fn add_weighted(&mut self, links: &[u32], weight: f64) -> u32 {
        let f = match self.free.pop() {
            Some(f) => f,
            None => {
                self.flow.push(FlowRec::default());
                self.long.push(Vec::new());
                self.flow.len() as u32 - 1
            }
        };
        for &l in links {
            let k = &mut self.link[l as usize];
            let at = k.len as usize;
            if at < INLINE {
                k.inline[at] = f;
            } else {
                if k.spill == NONE {
                    k.spill = self.spill.len() as u32;
                    self.spill.push(Vec::new());
                }
                self.spill[k.spill as usize].push(f);
            }
            self.busy += (at == 0) as usize;
            k.len += 1;
        }
        self.seeds.extend_from_slice(links);
        let i = f as usize;
        let r = &mut self.flow[i];
        // A longer route's length is `long`'s: `len` only has to exceed ROUTE_INLINE.
        (r.rate, r.weight, r.len) = (0.0, weight, links.len().min(u16::MAX as usize) as u16);
        if links.len() <= ROUTE_INLINE {
            r.inline[..links.len()].copy_from_slice(links);
        } else {
            self.long[i].extend_from_slice(links);
        }
        self.weighted += (weight != 1.0) as usize;
        f
    }

    /// Flow `f` leaves; its slot may be reused.
    pub fn remove(&mut self, f: u32) {
        let links = route(&self.flow, &self.long, f);
        for &l in links {
            // As `Vec::swap_remove`: the last flow takes the leaving one's place.
            let k = &mut self.link[l as usize];
            let len = k.len as usize;
            let last = if len > INLINE {
                self.spill[k.spill as usize].pop().expect("a link's flows beyond the inline ones")
            } else {
                k.inline[len - 1]
            };
            if last != f {
                match k.inline[..len.min(INLINE)].iter().position(|&g| g == f) {
                    Some(at) => k.inline[at] = last,
                    None => {
                        let more = &mut self.spill[k.spill as usize];
                        let at = more.iter().position(|&g| g == f).expect("a flow is on each of its links");
                        more[at] = last;
                    }
                }
            }
            k.len -= 1;
            self.busy -= (k.len == 0) as usize;
        }
        self.seeds.extend_from_slice(links);
        let r = &mut self.flow[f as usize];
        if usize::from(r.len) > ROUTE_INLINE {
            self.long[f as usize].clear();
        }
        self.weighted -= (r.weight != 1.0) as usize;
        r.len = 0;
        self.free.push(f);
    }

    /// Flows were added or removed since the last [`Sharing::solve`].
    pub fn unsolved(&self) -> bool {
        !self.seeds.is_empty()
    }

    /// Links carrying at least one live flow.
    pub fn busy_links(&self) -> usize {
        self.busy
    }

    pub fn rate(&self, f: u32) -> f64 {
        self.flow[f as usize].rate
    }

    /// The links of flow `f` (none once it left).
    pub fn route(&self, f: u32) -> &[u32] {
        route(&self.flow, &self.long, f)
    }

    /// Re-solves the components touched since the last solve; appends (flow, old rate) for
    /// every flow whose rate changed. A flow with no finite link gets `f64::INFINITY`.
    pub fn solve(&mut self, changed: &mut Vec<(u32, f64)>) {
        self.collect_component();
        match self.comp_flows[..] {
            [] => self.clear_places(),
            [f] if self.route(f).iter().all(|&l| self.link[l as usize].len == 1) => self.solve_alone(f, changed),
            _ => self.fill(changed),
        }
    }

    /// Every link of the component back outside one.
    fn clear_places(&mut self) {
        for &l in &self.comp_links {
            self.link[l as usize].slot = NONE;
        }
    }

    /// A component of one flow over distinct links (each carrying it alone): progressive
    /// filling fixes it at its least share, the capacity over its weight, times its weight;
    /// the same figure without the heap and per-place tables. Flows mostly start and end at
    /// instants of their own: a stencil extrapolated to 4,096 ranks on fattree-64k-flow solves
    /// 1.35 times per flow, 0.75 flows per component, so most solves are of a flow alone or
    /// of none.
    fn solve_alone(&mut self, f: u32, changed: &mut Vec<(u32, f64)>) {
        self.clear_places();
        let (r, old) = (self.alone(f), self.flow[f as usize].rate);
        if old != r {
            changed.push((f, old));
            self.flow[f as usize].rate = r;
        }
    }

    /// Flow `f`'s rate on links it has to itself: its least share (the capacity over its
    /// weight; never NaN, so min by value is the least (share, link)'s share) times its
    /// weight; infinite on no links.
    fn alone(&self, f: u32) -> f64 {
        let w = self.flow[f as usize].weight;
        let s = self.route(f).iter().fold(f64::INFINITY, |s, &l| s.min((self.cap.of(l as usize) / w).max(0.0)));
        s * w
    }

    /// Solves the component collected, whatever its shape.
    fn fill(&mut self, changed: &mut Vec<(u32, f64)>) {
        // Progressive filling over the component; links wait in a heap by share left per
        // unfixed flow, least first. Fixing flows at the least share s only raises the share
        // of their other links (each loses s·w of its capacity and w of its weight, and s is
        // at most its share), so a link's entry is allowed to lag below its share: popped
        // stale, it goes back with its share. An entry per change would cost a push per
        // flow and link. Rounding can lower a share by an ulp; then the link is pushed at
        // once, so that every link always has an entry at or below its share and links are
        // fixed in exactly the order of an entry per change: least (share, link) first.
        let share = |p: usize, left: &[f64], unfixed: &[f64]| (left[p] / unfixed[p]).max(0.0);
        let mut heap = std::mem::take(&mut self.heap).into_vec();
        heap.clear();
        self.left.clear();
        self.unfixed.clear();
        self.unfixed_weight.clear();
        // With one capacity for every link, a link carrying one flow never fixes it before
        // the flow's other links would: its share, the capacity over the flow's weight, is
        // the most any link of the flow can offer. Such a link takes no part in the filling
        // (no unfixed flows, no heap entry); a flow on such links only is fixed at the end
        // as [`Sharing::solve_alone`] fixes it. A fat-tree's routes are up to ten links, most
        // of them carrying their flow alone.
        let uniform = matches!(self.cap, Capacity::Uniform(_));
        for &l in &self.comp_links {
            let l = l as usize;
            let n = self.link[l].len;
            self.left.push(self.cap.of(l));
            self.unfixed.push(if uniform && n == 1 { 0 } else { n });
            self.unfixed_weight.push(if self.weighted == 0 {
                n as f64
            } else {
                flows_on(&self.link, &self.spill, l).map(|f| self.flow[f as usize].weight).sum()
            });
        }
        for (p, &l) in self.comp_links.iter().enumerate() {
            if self.unfixed[p] > 0 {
                heap.push(Reverse(key(share(p, &self.left, &self.unfixed_weight), l as usize)));
            }
        }
        // Built at once (linear); keys are distinct, so the pops come in the same order
        // whatever the heap's layout.
        let mut heap = BinaryHeap::from(heap);
        let mut new_rate = |f: u32, r: f64, rec: &mut FlowRec| {
            if rec.rate != r {
                changed.push((f, rec.rate));
                rec.rate = r;
            }
        };
        while let Some(Reverse(top)) = heap.pop() {
            let (s, k) = unkey(top);
            let pk = self.link[k].slot as usize;
            if self.unfixed[pk] == 0 {
                continue;
            }
            let now = share(pk, &self.left, &self.unfixed_weight);
            if s != now {
                heap.push(Reverse(key(now, k)));
                continue;
            }
            for f in flows_on(&self.link, &self.spill, k) {
                let rec = &mut self.flow[f as usize];
                if rec.fixed {
                    continue;
                }
                rec.fixed = true;
                let w = rec.weight;
                new_rate(f, s * w, rec);
                for &l in route(&self.flow, &self.long, f) {
                    let j = self.link[l as usize].slot as usize;
                    // f is unfixed until now, so a link of it with no unfixed flow is one
                    // left out of the filling (above).
                    if self.unfixed[j] == 0 {
                        continue;
                    }
                    let before = share(j, &self.left, &self.unfixed_weight);
                    self.left[j] -= s * w;
                    self.unfixed[j] -= 1;
                    self.unfixed_weight[j] -= w;
                    if self.unfixed[j] > 0 && j != pk {
                        let after = share(j, &self.left, &self.unfixed_weight);
                        if after < before {
                            heap.push(Reverse(key(after, l as usize)));
                        }
                    }
                }
            }
        }
        self.heap = heap;
        self.clear_places();
        for &f in &self.comp_flows {
            if !std::mem::replace(&mut self.flow[f as usize].fixed, false) {
                // On links of its own only (or none: infinitely fast).
                let r = self.alone(f);
                new_rate(f, r, &mut self.flow[f as usize]);
            }
        }
    }

    /// The links and live flows reachable from the seeds, into `comp_links` and `comp_flows`.
    fn collect_component(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Wrapped: old marks could pass for new ones.
            self.flow.iter_mut().for_each(|r| r.seen = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        self.comp_links.clear();
        self.comp_flows.clear();
        for &l in &self.seeds {
            let k = &mut self.link[l as usize];
            if k.slot == NONE {
                k.slot = self.comp_links.len() as u32;
                self.comp_links.push(l);
            }
        }
        self.seeds.clear();
        let mut i = 0;
        while i < self.comp_links.len() {
            let l = self.comp_links[i] as usize;
            i += 1;
            for at in 0..self.link[l].len as usize {
                let f = flow_at(&self.link, &self.spill, l, at);
                let rec = &mut self.flow[f as usize];
                if rec.seen == stamp {
                    continue;
                }
                rec.seen = stamp;
                self.comp_flows.push(f);
                for &m in route(&self.flow, &self.long, f) {
                    let k = &mut self.link[m as usize];
                    if k.slot == NONE {
                        k.slot = self.comp_links.len() as u32;
                        self.comp_links.push(m);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maxmin::max_min;

    fn solve(s: &mut Sharing) -> Vec<(u32, f64)> {
        let mut changed = Vec::new();
        s.solve(&mut changed);
        changed.sort_by_key(|c| c.0);
        changed
    }

    #[test]
    fn an_arrival_on_one_component_leaves_the_other_untouched() {
        // Links 0, 1 (capacity 10) carry A and B; link 2 (capacity 6) carries C alone.
        let mut s = Sharing::new(vec![10.0, 10.0, 6.0]);
        let (a, b, c) = (s.add(vec![0]), s.add(vec![0, 1]), s.add(vec![2]));
        assert_eq!(solve(&mut s), vec![(a, 0.0), (b, 0.0), (c, 0.0)]);
        assert_eq!([s.rate(a), s.rate(b), s.rate(c)], [5.0, 5.0, 6.0]);
        // D joins B on link 1: B is held to 5 by link 0 already, so D gets the 5 left on
        // link 1 and neither A nor B changes; C's component is not even looked at.
        let d = s.add(vec![1]);
        assert_eq!(solve(&mut s), vec![(d, 0.0)]);
        assert_eq!(s.rate(d), 5.0);
        assert_eq!(s.comp_flows.len(), 3, "only A, B, D were re-solved");
        // E joins C: the first component is not re-solved, C halves.
        let e = s.add(vec![2]);
        assert_eq!(solve(&mut s), vec![(c, 6.0), (e, 0.0)]);
        assert_eq!(s.comp_flows, vec![c, e]);
        assert_eq!([s.rate(a), s.rate(b), s.rate(d), s.rate(c), s.rate(e)], [5.0, 5.0, 5.0, 3.0, 3.0]);
        // A leaves: link 0 holds B alone, but link 1 still gives B and D 5 each: no change.
        s.remove(a);
        assert_eq!(solve(&mut s), vec![]);
        // D leaves: B alone gets all of both links.
        s.remove(d);
        assert_eq!(solve(&mut s), vec![(b, 5.0)]);
        assert_eq!(s.rate(b), 10.0);
        // A new flow reuses the last freed slot.
        assert_eq!(s.add(vec![0]), d);
    }

    #[test]
    fn incremental_rates_equal_a_solve_from_scratch() {
        // Mixed capacities, and one for every link.
        incremental_against_scratch((0..12).map(|l| [4.0, 10.0, 6.0][l % 3]).collect());
        incremental_against_scratch(vec![3.0; 12]);
    }

    #[test]
    fn a_links_flows_keep_the_order_of_a_vec() {
        // Random arrivals and departures, some links holding dozens of flows: each link's
        // flows are those a Vec with push and swap_remove holds, in its order.
        let mut s = Sharing::new(vec![1.0; 6]);
        let mut want: Vec<Vec<u32>> = vec![Vec::new(); 6];
        let mut x = 777u64;
        let mut rnd = |n: u64| psins_formats::splitmix::next(&mut x) % n;
        let mut live: Vec<u32> = Vec::new();
        for step in 0..3000 {
            // Mostly arrivals at first, then mostly departures: lists grow past the inline
            // ones and shrink back.
            let leave = if step < 1500 { rnd(3) == 0 } else { rnd(3) != 0 };
            if leave && !live.is_empty() {
                let f = live.swap_remove(rnd(live.len() as u64) as usize);
                for &l in s.route(f) {
                    let v = &mut want[l as usize];
                    let at = v.iter().position(|&g| g == f).unwrap();
                    v.swap_remove(at);
                }
                s.remove(f);
            } else {
                let mut links: Vec<u32> = (0..1 + rnd(4)).map(|_| rnd(6) as u32).collect();
                links.sort();
                links.dedup();
                let f = s.add(links.clone());
                for &l in &links {
                    want[l as usize].push(f);
                }
                live.push(f);
            }
            for (l, w) in want.iter().enumerate() {
                assert_eq!(flows_on(&s.link, &s.spill, l).collect::<Vec<_>>(), *w, "step {step} link {l}");
            }
            assert_eq!(s.busy_links(), want.iter().filter(|w| !w.is_empty()).count());
        }
    }

    #[test]
    fn a_flow_alone_gets_the_rate_the_filling_gives_it() {
        // Random flows, weights and capacities on 40 links, most flows alone in their
        // component: every rate, bit for bit, is the one progressive filling gives.
        let mut x = 4242u64;
        let mut rnd = |n: u64| psins_formats::splitmix::next(&mut x) % n;
        let cap: Vec<f64> = (0..40).map(|_| 0.1 + rnd(1000) as f64 / 7.0).collect();
        for weighted in [false, true] {
            let (mut quick, mut filled) = (Sharing::new(cap.clone()), Sharing::new(cap.clone()));
            let mut live: Vec<u32> = Vec::new();
            for _ in 0..2000 {
                if live.len() > 6 || (!live.is_empty() && rnd(2) == 0) {
                    let f = live.swap_remove(rnd(live.len() as u64) as usize);
                    quick.remove(f);
                    filled.remove(f);
                } else {
                    let mut links: Vec<u32> = (0..1 + rnd(5)).map(|_| rnd(40) as u32).collect();
                    links.sort();
                    links.dedup();
                    let w = if weighted { 1.0 / (1.0 + rnd(9) as f64 / 3.0) } else { 1.0 };
                    let f = quick.add_weighted(&links, w);
                    assert_eq!(filled.add_weighted(&links, w), f);
                    live.push(f);
                }
                let (mut a, mut b) = (Vec::new(), Vec::new());
                quick.solve(&mut a);
                filled.collect_component();
                filled.fill(&mut b);
                assert_eq!(a, b);
                for &f in &live {
                    assert_eq!(quick.rate(f).to_bits(), filled.rate(f).to_bits(), "flow {f}");
                }
            }
        }
    }

    #[test]
    fn links_carrying_one_flow_change_no_rate() {
        // One capacity for every link: the filling leaves out the links carrying one flow.
        // Against the same network with that capacity given per link (every link filled):
        // random long routes over many links, so that most links carry one flow, weighted
        // and not, every rate the same to the bit after every arrival and departure.
        let n = 400;
        let mut x = 99u64;
        let mut rnd = |k: u64| psins_formats::splitmix::next(&mut x) % k;
        for weighted in [false, true] {
            let mut lean = Sharing::new(vec![7.5; n]);
            assert!(matches!(lean.cap, Capacity::Uniform(_)));
            let mut full = Sharing::new(vec![7.5; n]);
            full.cap = Capacity::PerLink(vec![7.5; n]);
            let mut live: Vec<u32> = Vec::new();
            let mut filled = 0;
            for _ in 0..3000 {
                // Several arrivals and departures at one instant, one solve: its component
                // may fall apart into pieces, some of a flow on links of its own.
                for _ in 0..1 + rnd(4) {
                    if live.len() > 60 || (!live.is_empty() && rnd(3) == 0) {
                        let f = live.swap_remove(rnd(live.len() as u64) as usize);
                        lean.remove(f);
                        full.remove(f);
                    } else {
                        // A node's two ports (40 nodes), then a few links of the 320 above,
                        // sometimes more than a flow's record holds.
                        let (a, b) = (rnd(40) as u32, rnd(40) as u32);
                        let mut links: Vec<u32> = vec![2 * a, 2 * b + 1];
                        links.extend((0..rnd(14)).map(|_| 80 + rnd(n as u64 - 80) as u32));
                        links.sort();
                        links.dedup();
                        let w = if weighted { 1.0 / (1.0 + rnd(9) as f64 / 3.0) } else { 1.0 };
                        let f = lean.add_weighted(&links, w);
                        assert_eq!(full.add_weighted(&links, w), f);
                        live.push(f);
                    }
                }
                let (mut a, mut b) = (Vec::new(), Vec::new());
                lean.solve(&mut a);
                full.solve(&mut b);
                filled += (lean.comp_flows.len() > 1) as u32;
                for &f in &live {
                    assert_eq!(lean.rate(f).to_bits(), full.rate(f).to_bits(), "flow {f}");
                }
            }
            assert!(filled > 1000, "{filled} fills");
        }
    }

    fn incremental_against_scratch(cap: Vec<f64>) {
        // Random arrivals and departures on 12 links: after each, every live flow's rate
        // equals what max_min gives for the whole set.
        let mut s = Sharing::new(cap.clone());
        let mut x = 12345u64;
        let mut rnd = |n: u64| psins_formats::splitmix::next(&mut x) % n;
        let mut live: Vec<u32> = Vec::new();
        for _ in 0..400 {
            if live.len() > 3 && rnd(3) == 0 {
                let f = live.swap_remove(rnd(live.len() as u64) as usize);
                s.remove(f);
            } else {
                let mut links: Vec<u32> = (0..1 + rnd(3)).map(|_| rnd(12) as u32).collect();
                links.sort();
                links.dedup();
                live.push(s.add(links));
            }
            solve(&mut s);
            let sets: Vec<Vec<u32>> = live.iter().map(|&f| s.route(f).to_vec()).collect();
            let want = max_min(|l| cap[l as usize], &sets);
            for (&f, w) in live.iter().zip(want) {
                assert!((s.rate(f) - w).abs() <= 1e-12 * w, "flow {f}: {} vs {w}", s.rate(f));
            }
        }
    }

    #[test]
    fn weights_split_a_link_in_proportion() {
        // Link 0 (capacity 9) carries A (weight 2) and B (weight 1): 6 and 3. Link 1
        // (capacity 2) holds C alone and also B: B's weight-1 share there is 1, so B gets
        // 1 and A the 8 left on link 0 (bounded by nothing else); C gets 1.
        let mut s = Sharing::new(vec![9.0, 2.0]);
        let (a, b) = (s.add_weighted(&[0], 2.0), s.add_weighted(&[0], 1.0));
        solve(&mut s);
        assert_eq!([s.rate(a), s.rate(b)], [6.0, 3.0]);
        s.remove(b);
        let (b, c) = (s.add_weighted(&[0, 1], 1.0), s.add_weighted(&[1], 1.0));
        solve(&mut s);
        assert_eq!([s.rate(a), s.rate(b), s.rate(c)], [8.0, 1.0, 1.0]);
    }
}
