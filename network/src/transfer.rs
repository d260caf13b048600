//! Moving a granted packet: off its input (a VC head or a new packet cut from the source
//! queue), onto the output link, into the downstream VC (or out of the ejection port),
//! and scheduling what its move makes possible.
//!
//! This runs once per hop, so it is inlined into the router loop; cutting a packet from
//! the source queue happens once per packet and stays out of line.

use crate::fabric::Fabric;
use crate::network::{Hop, Network, EV_DELIVER, EV_HEAD};
use crate::router::At;
use crate::slab::Packet;

impl<F: Fabric> Network<F> {
    /// Moves the head of `input` out through output o into downstream VC v.
    #[inline(always)]
    pub(crate) fn grant<const V: usize>(&mut self, at: At, input: usize, o: usize, v: usize) {
        let (r, c) = (at.r, at.c);
        let node = &mut self.node[r as usize];
        // An input both eligible and parked (a message queued in front of a refused one)
        // leaves both states once it has moved.
        node.eligible &= !(1 << input);
        node.parked &= !(1 << input);
        let (p, len) = if input == self.inj_input() { self.cut_packet(r, c) } else { self.pop_head::<V>(at, input) };
        let out = &mut self.out[at.outs + o];
        out.busy_until = c + len;
        out.used += len;
        let (to, first_vc) = (out.to, out.first_vc as usize);
        self.last_move = c;
        if self.trace.is_some() {
            self.trace_hop(p, r, o, v, c);
        }
        if o == self.ports {
            self.cal.push(self.now, c + len, EV_DELIVER | p as u64);
        } else {
            self.forward(r, to, o, first_vc + v, v, p, c);
        }
    }

    /// Records a hop for path tracing (tests, debugging).
    #[cold]
    fn trace_hop(&mut self, p: u32, r: u32, o: usize, v: usize, c: u64) {
        let pk = &self.pk[p];
        let msg = self.ms[pk.msg].user;
        let packet = self.trace_serial.get(p as usize).copied().unwrap_or(u64::MAX);
        let hop = Hop { packet, msg, router: r, port: o as u8, vc: v as u8, cycle: c };
        self.trace.as_mut().expect("tracing").push(hop);
    }

    /// The packet starts down output o of r into VC `vc` (lane v of the input port o feeds)
    /// of router n: it takes a slot there now (cut-through reserves a whole packet) and its
    /// head can leave n after the link and router delays.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn forward(&mut self, r: u32, n: u32, o: usize, vc: usize, v: usize, p: u32, c: u64) {
        let ready = c + 1 + self.cfg.router_delay_cycles as u64;
        let pk = &mut self.pk[p];
        pk.ready = ready;
        pk.hops += 1;
        self.fabric.step(&mut pk.route, r, o);
        let ports = F::hint(&pk.route);
        self.counters.packet_hops += 1;
        let state = &mut self.vc[vc];
        let (queued, behind, free_at) = (state.len, state.tail, state.free_at);
        state.tail = p;
        state.len += 1;
        if queued > 0 {
            // Looked at when the packet ahead leaves (`pop_head`).
            self.pk[behind].next = p;
        } else {
            state.head = p;
            state.head_ports = ports;
            let port = self.fabric.entry_port(r, o);
            self.cal.push(self.now, ready.max(free_at), EV_HEAD | self.input_id(n, port * Self::VC_STRIDE + v));
        }
    }

    /// Takes the head packet off input VC `input` of r. Its slot stays taken until the tail
    /// has left; then the VC's next packet may go, and an upstream router waiting for room
    /// behind this port is woken (unless it already wakes up earlier).
    #[inline(always)]
    fn pop_head<const V: usize>(&mut self, at: At, input: usize) -> (u32, u64) {
        let (r, c) = (at.r, at.c);
        let vc = at.input_vc::<V>(input, F::VC_BITS);
        let state = &mut self.vc[vc];
        let p = state.head;
        state.len -= 1;
        let pk = &mut self.pk[p];
        let len = pk.phits as u64;
        let done = c + len;
        pk.blocked += c - pk.ready;
        let next = pk.next;
        state.free_at = done;
        state.head = next;
        if state.len > 0 {
            let behind = &self.pk[next];
            let ready = behind.ready;
            state.head_ports = F::hint(&behind.route);
            self.cal.push(self.now, ready.max(done), EV_HEAD | self.input_id(r, input));
        }
        if self.credit_waiters > 0 {
            // Every departure counts until the upstream router wakes, not just the first:
            // a shorter packet leaving another lane later can free its slot sooner.
            let (up, up_port) = self.fabric.upstream(r, input >> F::VC_BITS);
            if self.node[up as usize].credit_wait & 1 << up_port != 0 {
                self.wake_at(up, c, done);
            }
        }
        (p, len)
    }

    /// Cuts the next packet of the message at the head of r's source queue.
    #[inline(never)]
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
        self.note_source_head(r);
        if !self.inj_queue[r as usize].is_empty() {
            let at = self.node[r as usize].inj_ready.max(done);
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
