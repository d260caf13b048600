//! The time of one point-to-point message of a collective's expansion on a contention-free
//! path, under the engine's protocols (engine/p2p.rs, docs/models.md "Protocols"). The
//! algorithm cost is built only from this, so a change of the per-message costs (overheads,
//! size bands) is made here once, and the property test (tests/analytic_algorithms.rs) checks
//! it against the engine itself.

use crate::units::Ps;
use psins_machine::{Link, Machine, Route};

/// One kind of path (to itself, intra- or inter-node) with the protocol settings.
#[derive(Clone, Copy, Debug)]
pub struct PathCost {
    pub link: Link,
    pub eager_threshold: u64,
    pub handshake: bool,
}

impl PathCost {
    /// The path every message of a collective takes: the intra-node link when all members
    /// share one node, else the inter-node link (a collective across nodes is timed as if
    /// every message crossed the network; docs/models.md).
    pub fn new(m: &Machine, single_node: bool) -> PathCost {
        PathCost::of(m, if single_node { Route::Intra } else { Route::Inter })
    }

    /// The path of `route` ([`Route::of`], the engine's choice).
    pub fn of(m: &Machine, route: Route) -> PathCost {
        PathCost { link: *m.link(route), eager_threshold: m.eager_threshold, handshake: m.rendezvous_handshake }
    }

    /// Expansion steps are standard sends: eager up to the threshold, else rendezvous.
    #[inline]
    pub(super) fn eager(&self, bytes: u64) -> bool {
        bytes <= self.eager_threshold
    }

    /// When a send of `bytes` posted at `ts` completes; `tr` is when the matching receive
    /// was posted, if known yet. `None`: it depends on `tr` (rendezvous) and `tr` is unknown.
    /// An eager send completes when its data leaves, after the sender's overhead o_s.
    #[inline]
    pub fn send_done(&self, bytes: u64, ts: Ps, tr: Option<Ps>) -> Option<Ps> {
        if self.eager(bytes) {
            Some(ts + self.link.send_overhead(bytes))
        } else {
            tr.map(|tr| self.delivery(bytes, ts, tr))
        }
    }

    /// When the receive (posted at `tr`) of a message of `bytes` sent at `ts` completes: the
    /// receiver's overhead o_r after the data is there and the receive posted.
    #[inline]
    pub fn recv_done(&self, bytes: u64, ts: Ps, tr: Ps) -> Ps {
        self.delivery(bytes, ts, tr).max(tr) + self.link.recv_overhead(bytes)
    }

    /// When the last byte arrives. The data (eager) or the request-to-send (rendezvous)
    /// leaves o_s after the send is posted.
    #[inline]
    fn delivery(&self, bytes: u64, ts: Ps, tr: Ps) -> Ps {
        let ready = ts + self.link.send_overhead(bytes);
        let leaves = if self.eager(bytes) {
            ready
        } else if self.handshake {
            // request-to-send, then clear-to-send once the receive is posted
            (ready + self.link.latency).max(tr) + self.link.latency
        } else {
            ready.max(tr)
        };
        leaves + self.link.delay(bytes)
    }

    /// One half of a round that every rank starts at the same instant (a round of a
    /// symmetric algorithm): how long from the start until the send (`send`) or the receive
    /// of `bytes` completes, its send posted at `ts` and its receive at `tr` from the start.
    /// `crossed`: the message crosses the reverse one (docs/models.md "Crossing messages"),
    /// its sender busy x(S) longer, so it leaves, arrives and completes x(S) later.
    #[inline]
    pub fn half(&self, send: bool, bytes: u64, crossed: bool, ts: Ps, tr: Ps) -> Ps {
        let x = if crossed { self.link.cross_overhead(bytes) } else { 0 };
        x + if send {
            self.send_done(bytes, ts, Some(tr)).expect("receive time given")
        } else {
            self.recv_done(bytes, ts, tr)
        }
    }
}
