//! Processing one cycle's events: heads becoming free to leave, routers waking up,
//! packets finishing their ejection.

use crate::network::{Node, Torus, EV_HEAD, EV_ID, EV_WAKE, INPUT_BITS};

impl Torus {
    /// Runs cycle c: its events first, then every router they woke.
    pub(crate) fn process_cycle(&mut self, c: u64, delivered: &mut Vec<(u64, u64)>) {
        let mut events = std::mem::take(&mut self.events);
        let mut wakes = std::mem::take(&mut self.wakes);
        self.cal.take(c, &mut events);
        wakes.clear();
        // Routers only read their own inputs and the occupancy of the VCs they alone
        // feed, which a downstream router's decision this cycle does not change (a packet
        // leaving still holds its slot until its tail is out), and every move lands a
        // cycle ahead or more. So the order in which routers decide hardly matters: only
        // when a refused router looks again can depend on it (the credit wake-ups of
        // `pop_head`, with packets of unequal length). It is the events' order, so runs
        // repeat exactly.
        for &ev in &events {
            let id = ev & EV_ID;
            match ev & !EV_ID {
                EV_HEAD => self.head_may_go(id, c, &mut wakes),
                EV_WAKE => self.wake(id as u32, c, &mut wakes),
                _ => self.deliver(id as u32, c, delivered),
            }
        }
        match self.vcs {
            1 => self.eval_routers::<1>(&wakes, c),
            2 => self.eval_routers::<2>(&wakes, c),
            3 => self.eval_routers::<3>(&wakes, c),
            _ => self.eval_routers::<4>(&wakes, c),
        }
        self.events = events;
        self.wakes = wakes;
    }

    /// Router r's blocked packets may be able to go: they ask again.
    fn wake(&mut self, r: u32, c: u64, wakes: &mut Vec<u32>) {
        let node = &mut self.node[r as usize];
        node.eligible |= node.parked;
        node.parked = 0;
        to_evaluate(node, r, c, wakes);
    }

    /// The head of an input may be free to leave. A VC's head event is exact (scheduled
    /// for the cycle its head becomes free); a source queue's can be stale (a message
    /// queued in front of another), so that one is checked.
    fn head_may_go(&mut self, id: u64, c: u64, wakes: &mut Vec<u32>) {
        let (r, input) = split_input_id(id);
        debug_assert!(input == self.inj_input() || self.head_eligible(r, input, c));
        if input != self.inj_input() || self.head_eligible(r, input, c) {
            let node = &mut self.node[r as usize];
            node.eligible |= 1 << input;
            to_evaluate(node, r, c, wakes);
        }
    }

    /// Whether input `input` of r has a packet at its head free to leave at cycle c.
    pub(crate) fn head_eligible(&self, r: u32, input: usize, c: u64) -> bool {
        if input == self.inj_input() {
            let node = &self.node[r as usize];
            return node.inj_ready <= c && node.inj_free_at <= c;
        }
        let vc = self.input_vc(r, input);
        let state = self.vc[vc];
        state.len > 0 && state.free_at <= c && self.pk[state.head].ready <= c
    }

    /// Packet p's tail has left the ejection port; if it was its message's last, the
    /// message is delivered.
    fn deliver(&mut self, p: u32, c: u64, delivered: &mut Vec<(u64, u64)>) {
        let pk = self.pk[p];
        let counters = &mut self.counters;
        counters.packets_delivered += 1;
        counters.latency.record(c - pk.born);
        counters.blocked_cycles += pk.blocked;
        counters.source_queue_cycles += pk.source_wait;
        counters.delivered_hops += pk.hops as u64;
        self.pk.free(p);
        self.in_network -= 1;
        let msg = &mut self.ms[pk.msg];
        msg.undelivered -= 1;
        if msg.undelivered == 0 {
            delivered.push((msg.user, c));
            self.ms.free(pk.msg);
            self.counters.messages_delivered += 1;
        }
    }
}

/// Lists router r for evaluation at cycle c, once however many events it had.
#[inline]
fn to_evaluate(node: &mut Node, r: u32, c: u64, wakes: &mut Vec<u32>) {
    if node.last_eval != c {
        node.last_eval = c;
        wakes.push(r);
    }
}

#[inline]
fn split_input_id(id: u64) -> (u32, usize) {
    ((id >> INPUT_BITS) as u32, (id & ((1 << INPUT_BITS) - 1)) as usize)
}
