//! Moving a granted packet: off its input (a VC head or a new packet cut from the source
//! queue), onto the output link, into the downstream VC (or out of the ejection port),
//! and scheduling what its move makes possible.

use crate::network::{Hop, Torus, EV_DELIVER, EV_HEAD, EV_WAKE, VC_BITS, VC_STRIDE};
use crate::slab::Packet;

impl Torus {
    /// Moves the head of `input` out through output o into downstream VC v.
    pub(crate) fn grant(&mut self, r: u32, input: usize, o: usize, v: usize, c: u64) {
        let node = &mut self.node[r as usize];
        // An input both eligible and parked (a message queued in front of a refused one)
        // leaves both states once it has moved.
        node.eligible &= !(1 << input);
        node.parked &= !(1 << input);
        let (p, len) = if input == self.inj_input() { self.cut_packet(r, c) } else { self.pop_head(r, input, c) };
        let out = &mut self.out[r as usize * (self.ports + 1) + o];
        out.busy_until = c + len;
        out.used += len;
        self.last_move = c;
        if let Some(trace) = &mut self.trace {
            let pk = &self.pk[p];
            let msg = self.ms[pk.msg].user;
            let packet = self.trace_serial.get(p as usize).copied().unwrap_or(u64::MAX);
            trace.push(Hop { packet, msg, router: r, port: o as u8, vc: v as u8, cycle: c });
        }
        if o == self.ports {
            self.cal.push(self.now, c + len, EV_DELIVER | p as u64);
        } else {
            self.forward(r, o, v, p, c);
        }
    }

    /// The packet starts down the link: it takes a slot downstream now (cut-through
    /// reserves a whole packet) and its head can leave there after the link and router
    /// delays.
    fn forward(&mut self, r: u32, o: usize, v: usize, p: u32, c: u64) {
        let n = self.topo.neighbour(r, o);
        let vc = self.vc_id(n, o, v);
        let cap = self.cap as usize;
        let state = &mut self.vc[vc];
        let queued = state.len;
        self.fifo[vc * cap + wrap(state.head as usize + queued as usize, cap)] = p;
        state.len += 1;
        let free_at = state.free_at;
        let ready = c + 1 + self.cfg.router_delay_cycles as u64;
        let pk = &mut self.pk[p];
        pk.ready = ready;
        pk.hops += 1;
        pk.route.step(o);
        self.counters.packet_hops += 1;
        // Behind other packets it is looked at when the one ahead leaves (`pop_head`).
        if queued == 0 {
            self.cal.push(self.now, ready.max(free_at), EV_HEAD | self.input_id(n, o * VC_STRIDE + v));
        }
    }

    /// Takes the head packet off input VC `input` of r. Its slot stays taken until the tail
    /// has left; then the VC's next packet may go, and an upstream router waiting for room
    /// here is woken.
    fn pop_head(&mut self, r: u32, input: usize, c: u64) -> (u32, u64) {
        let vc = self.input_vc(r, input);
        let cap = self.cap as usize;
        let state = &mut self.vc[vc];
        let p = self.fifo[vc * cap + state.head as usize];
        state.head = wrap(state.head as usize + 1, cap) as u8;
        state.len -= 1;
        let pk = &mut self.pk[p];
        let len = pk.phits as u64;
        let done = c + len;
        pk.blocked += c - pk.ready;
        state.free_at = done;
        if state.len > 0 {
            let next = self.pk[self.fifo[vc * cap + state.head as usize]].ready;
            self.cal.push(self.now, next.max(done), EV_HEAD | self.input_id(r, input));
        }
        if self.credit_waiters > 0 {
            let port = input >> VC_BITS;
            let up = self.topo.upstream(r, port);
            let credit = &mut self.node[up as usize].credit_wait;
            if *credit & 1 << port != 0 {
                *credit &= !(1 << port);
                self.credit_waiters -= 1;
                self.cal.push(self.now, done, EV_WAKE | up as u64);
            }
        }
        (p, len)
    }

    /// Cuts the next packet of the message at the head of r's source queue.
    fn cut_packet(&mut self, r: u32, c: u64) -> (u32, u64) {
        let queue = &mut self.inj_queue[r as usize];
        let m = *queue.front().expect("granted an empty source queue");
        let msg = &mut self.ms[m];
        let (bytes, last) = msg.cut(self.cfg.packet_bytes as u64);
        if last {
            queue.pop_front();
        }
        let phits = if bytes == self.cfg.packet_bytes as u64 { self.full_phits } else { self.cfg.phits(bytes) };
        let packet = Packet {
            msg: m,
            dst: msg.dst,
            phits: phits as u32,
            born: msg.born,
            source_wait: c - msg.ready,
            route: msg.route,
            ..Packet::default()
        };
        // The message's next packet queues behind this one: that wait is not blocking.
        let done = c + phits;
        msg.ready = done;
        self.serial += 1;
        self.node[r as usize].inj_free_at = done;
        if let Some(&next) = self.inj_queue[r as usize].front() {
            let at = self.ms[next].ready.max(done);
            self.cal.push(self.now, at, EV_HEAD | self.input_id(r, self.inj_input()));
        }
        self.in_network += 1;
        self.counters.packets_injected += 1;
        let p = self.pk.alloc(packet);
        if self.trace.is_some() {
            if self.trace_serial.len() <= p as usize {
                self.trace_serial.resize(p as usize + 1, 0);
            }
            self.trace_serial[p as usize] = self.serial - 1;
        }
        (p, phits)
    }
}

/// `i mod cap` for i < 2·cap, without a division (this is on every packet-hop).
#[inline]
fn wrap(i: usize, cap: usize) -> usize {
    if i >= cap {
        i - cap
    } else {
        i
    }
}
