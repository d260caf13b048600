//! One router's decision at one cycle: which waiting packets leave through which output.
//!
//! Each eligible input (a VC head, or the head of the source queue) asks for one output
//! and downstream VC (routing + flow control); each free output grants one asker in
//! round-robin order. Losers ask again among the outputs still free, so an adaptive packet
//! beaten to one port can take another in the same cycle. A granted packet occupies the
//! output for its length in link cycles; its head reaches the next router one cycle
//! after it starts and may leave that router `router_delay` cycles later (cut-through: the
//! tail need not have arrived, since the next link runs at the same rate).
//!
//! A packet that cannot go says when to look again: when its busy output frees, when a
//! packet streaming out of a full downstream VC is gone, or — if the downstream VCs are
//! full of packets that have not started to leave — when one of those has left: each
//! departure from those VCs until the router wakes schedules a wake-up for when its tail
//! is out (with packets of unequal lengths the first to start is not always the first
//! out). So a blocked packet asks again at the first cycle it could move.

use std::ops::Range;

use crate::fabric::Fabric;
use crate::flow::pick_lane;
use crate::network::{Network, Vc, EV_WAKE};

/// Input port number routing sees for injected packets: matches no output.
pub const FROM_SOURCE: usize = usize::MAX;
/// Outputs per router at most: 16 network ports (a credit-wait mask is 16 bits) + ejection.
pub(crate) const MAX_OUTPUTS: usize = 17;

/// An input's request: output port and downstream VC.
pub type Request = (usize, usize);

/// Why an input cannot go now, and when to look again.
#[derive(Clone, Copy)]
pub struct Refusal {
    /// The earliest cycle something it waits for may change (u64::MAX: none known).
    wake: u64,
    /// Outputs whose downstream VCs are full with nothing streaming out.
    credit: u32,
}

impl Refusal {
    pub(crate) const NONE: Refusal = Refusal { wake: u64::MAX, credit: 0 };

    pub(crate) fn wait_until(t: u64) -> Refusal {
        Refusal { wake: t, credit: 0 }
    }

    pub(crate) fn and(self, other: Refusal) -> Refusal {
        Refusal { wake: self.wake.min(other.wake), credit: self.credit | other.credit }
    }
}

/// The router and cycle being evaluated, and the outputs already granted in it.
#[derive(Clone, Copy)]
pub struct At {
    pub r: u32,
    pub c: u64,
    taken: u32,
    /// Index of r's first output in `out` and `out_rr`, and of its first input VC in `vc`.
    pub outs: usize,
    pub vcs: usize,
}

impl At {
    /// Index in `vc` of r's input `input` (not the source queue) when routers have V VCs
    /// and inputs are numbered with a stride of 2^`bits`.
    #[inline]
    pub fn input_vc<const V: usize>(&self, input: usize, bits: u32) -> usize {
        self.vcs + (input >> bits) * V + (input & ((1 << bits) - 1))
    }
}

// The hot path is generic over the VC count V so that lane scans are unrolled and index
// arithmetic folds to shifts and adds; `Network::vcs` picks the instance once per cycle.
// What runs on every hop (`request`, the fabric's routing, `grant`) is inlined into it.
impl<F: Fabric> Network<F> {
    /// Evaluates routers `routers` at cycle c.
    pub(crate) fn eval_routers<const V: usize>(&mut self, routers: &[u32], c: u64) {
        for &r in routers {
            self.eval_router::<V>(r, c);
        }
    }

    fn eval_router<const V: usize>(&mut self, r: u32, c: u64) {
        let waiting = self.node[r as usize].eligible;
        if waiting == 0 {
            return;
        }
        let at = At { r, c, taken: 0, outs: r as usize * (self.ports + 1), vcs: r as usize * self.ports * V };
        if waiting & (waiting - 1) == 0 {
            // One waiting input (the common case below saturation): nothing to arbitrate.
            let input = waiting.trailing_zeros() as usize;
            match self.request::<V>(at, input) {
                Ok((o, v)) => {
                    self.arbitrate(at, o, 1 << input);
                    self.grant::<V>(at, input, o, v);
                }
                Err(refusal) => self.wait(r, c, 1 << input, refusal),
            }
            return;
        }
        self.allocate::<V>(at, waiting);
    }

    /// Separable allocation among several waiting inputs, repeated while grants happen.
    fn allocate<const V: usize>(&mut self, mut at: At, mut waiting: u64) {
        let mut wanted_vc = [0u8; 64];
        let mut asks = [0u64; MAX_OUTPUTS];
        let mut refused = Refusal::NONE;
        let mut refused_inputs = 0;
        while waiting != 0 {
            let mut asked = 0u32;
            let mut bits = waiting;
            while bits != 0 {
                let input = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                match self.request::<V>(at, input) {
                    Ok((o, v)) => {
                        asks[o] = if asked & 1 << o == 0 { 0 } else { asks[o] } | 1 << input;
                        asked |= 1 << o;
                        wanted_vc[input] = v as u8;
                    }
                    // Choices only shrink within a cycle: drop it for the rest of this one.
                    Err(refusal) => {
                        waiting &= !(1 << input);
                        refused_inputs |= 1 << input;
                        refused = refused.and(refusal);
                    }
                }
            }
            if asked == 0 {
                break;
            }
            while asked != 0 {
                let o = asked.trailing_zeros() as usize;
                asked &= asked - 1;
                let winner = self.arbitrate(at, o, asks[o]);
                self.grant::<V>(at, winner, o, wanted_vc[winner] as usize);
                at.taken |= 1 << o;
                waiting &= !(1 << winner);
            }
        }
        if refused_inputs != 0 {
            self.wait(at.r, at.c, refused_inputs, refused);
        }
    }

    /// Parks the refused `inputs` until r wakes up, and arranges for that to happen when
    /// what they wait for changes: until then, other packets arriving at r do not make
    /// them ask again in vain.
    fn wait(&mut self, r: u32, c: u64, inputs: u64, refusal: Refusal) {
        let node = &mut self.node[r as usize];
        node.eligible &= !inputs;
        node.parked |= inputs;
        self.credit_waiters += u64::from(node.credit_wait == 0 && refusal.credit != 0);
        node.credit_wait |= refusal.credit as u16;
        if refusal.wake != u64::MAX {
            self.wake_at(r, c, refusal.wake);
        }
    }

    /// Wakes r up at cycle t (after c), unless it already wakes up at t or earlier: every
    /// parked input asks again then, and those still refused say anew what they wait for.
    #[inline]
    pub(crate) fn wake_at(&mut self, r: u32, c: u64, t: u64) {
        debug_assert!(t > c);
        let node = &mut self.node[r as usize];
        if node.wake_at <= c || t < node.wake_at {
            node.wake_at = t;
            self.cal.push(self.now, t, EV_WAKE | r as u64);
        }
    }

    /// Whether output o is free for a new packet; if not, when it will be.
    #[inline]
    pub(crate) fn out_free(&self, at: At, o: usize) -> Result<(), Refusal> {
        let busy_until = self.out[at.outs + o].busy_until;
        if at.taken & 1 << o == 0 && busy_until <= at.c {
            Ok(())
        } else {
            Err(Refusal::wait_until(busy_until))
        }
    }

    /// Round robin per output: the first asker at or after the output's pointer.
    #[inline]
    fn arbitrate(&mut self, at: At, o: usize, ask: u64) -> usize {
        let rr = &mut self.out_rr[at.outs + o];
        let later = ask & (u64::MAX << (*rr as u32 % 64));
        let winner = if later != 0 { later.trailing_zeros() } else { ask.trailing_zeros() } as usize;
        *rr = (winner + 1) as u8;
        winner
    }

    /// What eligible input `input` of r would do now, if anything.
    #[inline(always)]
    fn request<const V: usize>(&self, at: At, input: usize) -> Result<Request, Refusal> {
        let (route, in_port, in_vc): (F::Hint, usize, usize) = if input == self.inj_input() {
            // Checked, not assumed: source-queue events can be stale (see `head_may_go`).
            // (An empty queue cannot be eligible; if it were, it stays parked until a new
            // message's head event.)
            let node = &self.node[at.r as usize];
            let ready = node.inj_ready.max(node.inj_free_at);
            if ready > at.c {
                return Err(Refusal::wait_until(ready));
            }
            (node.inj_ports, FROM_SOURCE, 0)
        } else {
            debug_assert!(self.head_eligible(at.r, input, at.c));
            let vc = at.input_vc::<V>(input, F::VC_BITS);
            (self.vc[vc].head_ports, input >> F::VC_BITS, input & (Self::VC_STRIDE - 1))
        };
        F::request::<V>(self, at, route, in_port, in_vc)
    }

    /// The roomiest of `lanes` behind output o with `need` free slots.
    #[inline]
    pub(crate) fn lane<const V: usize>(
        &self,
        at: At,
        o: usize,
        lanes: Range<usize>,
        need: u8,
    ) -> Result<usize, Refusal> {
        let group = &self.lanes::<V>(at, o)[lanes.clone()];
        let picked = if let [only] = group {
            // One lane (1 VC, or the escape VC): no choice to make.
            (self.cap - only.occupancy(at.c) >= need).then_some((lanes.start, 0))
        } else {
            pick_lane(group.iter().map(|vc| vc.occupancy(at.c)), lanes.start, self.cap, need)
        };
        picked.map(|(v, _)| v).ok_or_else(|| self.room_refusal::<V>(at, o, lanes))
    }

    /// The VCs (all lanes) that output o of r feeds.
    #[inline]
    pub(crate) fn lanes<const V: usize>(&self, at: At, o: usize) -> &[Vc<F::Hint>; V] {
        let first = self.out[at.outs + o].first_vc as usize;
        self.vc[first..first + V].try_into().expect("V lanes")
    }

    /// When room may appear behind output o: the first tail to finish streaming out of
    /// those lanes, and in any case whenever a queued packet starts to leave (credit).
    pub(crate) fn room_refusal<const V: usize>(&self, at: At, o: usize, lanes: Range<usize>) -> Refusal {
        let wake = self.lanes::<V>(at, o)[lanes].iter().map(|vc| vc.free_at).filter(|&t| t > at.c).min();
        Refusal { wake: wake.unwrap_or(u64::MAX), credit: 1 << o }
    }
}
