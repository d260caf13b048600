//! The network's state and the public co-simulation API.
//!
//! State lives in flat vectors indexed by small integers: per input VC a FIFO of packet
//! ids and a little bookkeeping, per output port a busy-until cycle, per router a mask of
//! inputs whose packet may leave, per packet and per message a slot in a slab. Nothing is
//! allocated per packet-hop. Time advances by events on a timing wheel, so an idle router
//! or an idle stretch of cycles costs nothing.
//!
//! A packet moving freely costs one event per hop (its head becoming eligible at the next
//! router). Nothing is scheduled for the moment its tail leaves a buffer: a VC's occupancy
//! is computed when asked (queued packets, plus one while the last one is still streaming
//! out), and a router blocked on a busy output or a full buffer schedules its own wake-up
//! for when that changes.

use std::collections::VecDeque;

use crate::calendar::Calendar;
use crate::deadlock::Deadlock;
use crate::error::MessageError;
use crate::fabric::{Fabric, NO_LINK};
use crate::params::RouterConfig;
use crate::slab::{Message, Packet, Slab};
use crate::stats::Counters;

/// Event kinds, in the top two bits of a calendar entry; the rest is an id.
/// HEAD (`router << INPUT_BITS | input`): the input's head packet may be able to leave.
pub(crate) const EV_HEAD: u64 = 0;
/// WAKE (router): something a blocked packet there waits for may have changed: every
/// parked input asks again.
pub(crate) const EV_WAKE: u64 = 1 << 62;
/// DELIVER (packet id): a packet's tail has left the ejection port.
pub(crate) const EV_DELIVER: u64 = 2 << 62;
pub(crate) const EV_ID: u64 = (1 << 62) - 1;

/// Inputs of a router are numbered `port·stride + vc` (injection: `ports·stride`), the
/// stride 2^[`Fabric::VC_BITS`] whatever V is, so port and VC come out of an input number
/// by shifts, not divisions; every input has a bit in a 64-bit mask.
pub(crate) const MAX_INPUTS: usize = 64;
/// Head events carry `router << INPUT_BITS | input`.
pub(crate) const INPUT_BITS: u32 = 6;

/// One link traversal or ejection, recorded when path tracing is on (tests, debugging).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Serial number of the packet, unique over the run (u64::MAX: cut before tracing).
    pub packet: u64,
    /// The caller's message id.
    pub msg: u64,
    /// Router the packet leaves.
    pub router: u32,
    /// Output port (torus: `2·d` (+), `2·d+1` (−), or `2n` for ejection; the fabric's
    /// `ports()` is ejection).
    pub port: u8,
    /// VC entered downstream (0 for ejection).
    pub vc: u8,
    pub cycle: u64,
}

/// An input VC's bookkeeping. Its packets form a list through `Packet::next`, so finding
/// the head packet is one load, not two, and buffer memory does not grow with B.
#[derive(Clone, Copy, Default)]
pub(crate) struct Vc<H> {
    /// The cycle its previous packet finishes leaving; the next one waits for it.
    pub free_at: u64,
    /// First and last packet queued (meaningless while `len` is 0).
    pub head: u32,
    pub tail: u32,
    /// Packets queued (the one streaming out is no longer counted here).
    pub len: u8,
    /// The head packet's routing choices: routing looks at the VC, not the packet.
    pub head_ports: H,
}

impl<H> Vc<H> {
    /// Slots taken at cycle c: queued packets, plus the last one to leave until its tail
    /// is out (credits return the cycle the tail leaves).
    #[inline]
    pub fn occupancy(&self, c: u64) -> u8 {
        self.len + u8::from(self.free_at > c)
    }
}

#[derive(Clone, Copy, Default)]
pub(crate) struct Output {
    pub busy_until: u64,
    /// Link cycles used in the statistics window.
    pub used: u64,
    /// The router the link leads to and the id of the first input VC it feeds there
    /// (unused for ejection and missing mesh links): kept here, next to what routing
    /// reads first, rather than recomputed from the topology on every hop.
    pub to: u32,
    pub first_vc: u32,
}

#[derive(Clone, Copy)]
pub(crate) struct Node<H> {
    /// Bit per input (see [`MAX_INPUTS`]) whose head packet is free to leave: arrived,
    /// past the router delay, and not behind a packet still streaming out. Routers only
    /// look at these, so a packet still on its way costs no work.
    pub eligible: u64,
    /// Inputs whose head asked and was refused: they wait for this router's next wake-up
    /// (scheduled for when what blocks them changes) before asking again.
    pub parked: u64,
    /// Last cycle the router was listed for evaluation: several events in one cycle need
    /// one look.
    pub last_eval: u64,
    /// When the packet streaming out of the source queue has left.
    pub inj_free_at: u64,
    /// The message at the head of the source queue: when its next packet may leave
    /// (u64::MAX: queue empty) and its routing choices. Kept here so that deciding about
    /// the source queue touches the node only.
    pub inj_ready: u64,
    pub inj_ports: H,
    /// Bit per output whose downstream VCs had no room for a parked input: until this
    /// router wakes, every packet leaving those VCs wakes it when its tail is out.
    pub credit_wait: u16,
    /// The earliest wake-up pending for this router, if later than the current cycle (it
    /// may have others pending after it): a blocked packet needing a wake-up at or after
    /// it schedules none of its own.
    pub wake_at: u64,
}

/// A network of routers simulated packet by packet, on the topology and routing of
/// fabric `F` (the torus: [`crate::Torus`]).
pub struct Network<F: Fabric> {
    pub(crate) fabric: F,
    pub(crate) cfg: RouterConfig,
    /// Network ports per router (torus: 2n); output `ports` is ejection.
    pub(crate) ports: usize,
    pub(crate) vcs: usize,
    pub(crate) cap: u8,
    /// Link cycles of a full-size packet (most packets: saves a division per packet).
    pub(crate) full_phits: u64,
    /// Input VC id = (router·ports + port)·V + vc.
    pub(crate) vc: Vec<Vc<F::Hint>>,
    pub(crate) node: Vec<Node<F::Hint>>,
    pub(crate) inj_queue: Vec<VecDeque<u32>>,
    /// Output id = router·(ports+1) + port.
    pub(crate) out: Vec<Output>,
    /// Per output, its round-robin pointer: the input that gets priority next (apart
    /// from `out` so an output takes 16 bytes).
    pub(crate) out_rr: Vec<u8>,
    pub(crate) pk: Slab<Packet<F::Route>>,
    pub(crate) ms: Slab<Message<F::Route>>,
    pub(crate) cal: Calendar,
    /// Earliest cycle not yet simulated.
    pub(crate) now: u64,
    pub(crate) last_move: u64,
    pub(crate) in_network: u64,
    /// Packets cut so far; with path tracing on, `trace_serial[p]` is packet p's number
    /// (kept out of `Packet` so a packet fits a cache line).
    pub(crate) serial: u64,
    pub(crate) trace_serial: Vec<u64>,
    /// Link traversals before the last statistics reset (for the lifetime count).
    pub(crate) hops_before_reset: u64,
    /// Routers with a credit-wait bit set: while 0, a departing packet need not look for
    /// an upstream router waiting for its slot.
    pub(crate) credit_waiters: u64,
    pub(crate) counters: Counters,
    pub(crate) trace: Option<Vec<Hop>>,
    /// Scratch for one cycle's events and the routers they wake (kept for their capacity).
    pub(crate) events: Vec<u64>,
    pub(crate) wakes: Vec<u32>,
    dead: Option<Deadlock>,
}

impl<F: Fabric> Network<F> {
    /// Input numbers per port (see [`MAX_INPUTS`]).
    pub(crate) const VC_STRIDE: usize = 1 << F::VC_BITS;

    /// The engine on `fabric` with routers `cfg`; both already validated (each topology's
    /// constructor does that, e.g. `Torus::new`).
    pub fn from_fabric(fabric: F, cfg: RouterConfig) -> Network<F> {
        let routers = fabric.routers();
        let ports = fabric.ports();
        // Each fabric's validation keeps within these; a failure here is a bug.
        assert!(ports < crate::router::MAX_OUTPUTS, "{ports} ports: more than the engine's masks hold");
        assert!(ports * Self::VC_STRIDE < MAX_INPUTS && cfg.vcs as usize <= Self::VC_STRIDE, "inputs exceed a mask");
        let vcs = cfg.vcs as usize;
        let cap = cfg.buffer_packets as u8;
        let nvc = routers * ports * vcs;
        let cfg_phits = cfg.phits(cfg.packet_bytes as u64);
        let horizon = cfg_phits + cfg.router_delay_cycles as u64 + 2;
        let idle = Node {
            eligible: 0,
            parked: 0,
            last_eval: u64::MAX,
            inj_free_at: 0,
            inj_ready: u64::MAX,
            inj_ports: F::Hint::default(),
            credit_wait: 0,
            wake_at: 0,
        };
        Network {
            vc: vec![Vc::default(); nvc],
            node: vec![idle; routers],
            inj_queue: (0..routers).map(|_| VecDeque::new()).collect(),
            out: Self::outputs(&fabric, vcs),
            out_rr: vec![0; routers * (ports + 1)],
            pk: Slab::default(),
            ms: Slab::default(),
            cal: Calendar::new(horizon),
            now: 0,
            last_move: 0,
            in_network: 0,
            serial: 0,
            trace_serial: Vec::new(),
            hops_before_reset: 0,
            credit_waiters: 0,
            counters: Counters::default(),
            trace: None,
            events: Vec::new(),
            wakes: Vec::new(),
            dead: None,
            fabric,
            cfg,
            ports,
            vcs,
            cap,
            full_phits: cfg_phits,
        }
    }

    /// Every router's outputs, ejection last, each knowing where its link leads.
    fn outputs(fabric: &F, vcs: usize) -> Vec<Output> {
        let ports = fabric.ports();
        let mut out = vec![Output::default(); fabric.routers() * (ports + 1)];
        for (id, o) in out.iter_mut().enumerate() {
            let (r, port) = ((id / (ports + 1)) as u32, id % (ports + 1));
            let to = if port < ports { fabric.neighbour(r, port) } else { NO_LINK };
            if to != NO_LINK {
                o.to = to;
                o.first_vc = ((to as usize * ports + fabric.entry_port(r, port)) * vcs) as u32;
            }
        }
        out
    }

    /// The topology and routing.
    pub fn fabric(&self) -> &F {
        &self.fabric
    }

    /// The router and link parameters.
    pub fn router_config(&self) -> &RouterConfig {
        &self.cfg
    }

    /// The earliest cycle not yet simulated.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// A message from node src to node dst, ready at `cycle`; cut into packets; delivered
    /// when its last packet is ejected. A `cycle` already simulated counts as the earliest
    /// cycle still to simulate (time never runs backwards). `msg` is opaque and echoed back.
    ///
    /// # Panics
    /// If src or dst is not below `nodes()`, or the message is over `max_message_packets`
    /// — a caller bug; [`Network::try_inject`] checks.
    pub fn inject(&mut self, msg: u64, src: u32, dst: u32, bytes: u64, cycle: u64) {
        if let Err(e) = self.try_inject(msg, src, dst, bytes, cycle) {
            panic!("{e}");
        }
    }

    /// [`Network::inject`] that refuses out-of-range nodes, and a message of more than
    /// `max_message_packets` packets, instead of panicking.
    pub fn try_inject(&mut self, msg: u64, src: u32, dst: u32, bytes: u64, cycle: u64) -> Result<(), MessageError> {
        let nodes = self.fabric.nodes() as u32;
        if src >= nodes || dst >= nodes {
            return Err(MessageError::Node { msg, src, dst, nodes });
        }
        self.cfg.check_message(bytes).map_err(|e| e.of(msg))?;
        let born = cycle.max(self.now);
        let ready = born.saturating_add(self.cfg.router_delay_cycles as u64);
        let packets = self.cfg.packets(bytes);
        let route = self.fabric.route(src, dst);
        let m = self.ms.alloc(Message {
            user: msg,
            born,
            ready,
            bytes_left: bytes,
            unsent: packets,
            undelivered: packets,
            total: packets,
            dst,
            route,
        });
        if self.enqueue_message(src, m) {
            self.note_source_head(src);
            let at = ready.max(self.node[src as usize].inj_free_at);
            self.cal.push(self.now, at, EV_HEAD | self.input_id(src, self.inj_input()));
        }
        self.counters.messages_injected += 1;
        Ok(())
    }

    /// Keeps each source queue in ready order, so an early-announced message never holds
    /// back one that is ready sooner; a message already streaming out keeps its place.
    /// Returns whether m went to the head of the queue.
    fn enqueue_message(&mut self, src: u32, m: u32) -> bool {
        let q = &mut self.inj_queue[src as usize];
        let ready = self.ms[m].ready;
        if q.back().is_none_or(|&b| self.ms[b].ready <= ready) {
            q.push_back(m);
            return q.len() == 1;
        }
        let mut at = q.len();
        while at > 0 && self.ms[q[at - 1]].ready > ready && !(at == 1 && self.ms[q[0]].started()) {
            at -= 1;
        }
        q.insert(at, m);
        at == 0
    }

    /// Copies what deciding about r's source queue needs from the message at its head.
    #[inline]
    pub(crate) fn note_source_head(&mut self, r: u32) {
        let head = self.inj_queue[r as usize].front().map(|&m| &self.ms[m]);
        let node = &mut self.node[r as usize];
        node.inj_ready = head.map_or(u64::MAX, |msg| msg.ready);
        node.inj_ports = head.map_or(F::Hint::default(), |msg| F::hint(&msg.route));
    }

    /// Simulates up to and including `cycle`, appending (msg, delivery cycle) for messages
    /// completed, in delivery order.
    pub fn advance_to(&mut self, cycle: u64, delivered: &mut Vec<(u64, u64)>) -> Result<(), Deadlock> {
        if let Some(d) = &self.dead {
            return Err(d.clone());
        }
        if cycle < self.now {
            return Ok(());
        }
        loop {
            let next = self.cal.next_time(self.now).filter(|&t| t <= cycle);
            if self.in_network > 0 {
                let deadline = self.last_move.saturating_add(self.cfg.watchdog_cycles);
                if deadline <= cycle && next.is_none_or(|t| deadline < t) {
                    let d = self.deadlock_report(deadline);
                    self.dead = Some(d.clone());
                    return Err(d);
                }
            }
            let Some(t) = next else { break };
            self.process_cycle(t, delivered);
            self.now = t + 1;
        }
        self.now = cycle.saturating_add(1);
        Ok(())
    }

    /// The next cycle at which anything can happen (None when the network is empty); with
    /// packets stuck and nothing scheduled, the cycle the watchdog will fire.
    pub fn next_activity(&self) -> Option<u64> {
        if self.dead.is_some() {
            return Some(self.now);
        }
        let event = self.cal.next_time(self.now);
        let watchdog = (self.in_network > 0).then(|| self.last_move.saturating_add(self.cfg.watchdog_cycles));
        match (event, watchdog) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Link traversals since the network was created (statistics resets do not clear it).
    pub fn lifetime_packet_hops(&self) -> u64 {
        self.hops_before_reset + self.counters.packet_hops
    }

    /// Messages injected and not yet delivered.
    pub fn messages_in_flight(&self) -> u64 {
        self.ms.live()
    }

    /// Records every hop from now on (see [`Network::take_trace`]); packets already in the
    /// network show `u64::MAX` as their number.
    pub fn enable_path_trace(&mut self) {
        if self.trace.is_none() {
            self.trace_serial = vec![u64::MAX; self.pk.items.len()];
            self.trace = Some(Vec::new());
        }
    }

    pub fn take_trace(&mut self) -> Vec<Hop> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Global id of input VC (`port`, `vc`) of router r.
    #[inline]
    pub(crate) fn vc_id(&self, r: u32, port: usize, vc: usize) -> usize {
        (r as usize * self.ports + port) * self.vcs + vc
    }

    /// Global id of the VC behind input number `input` of r.
    #[inline]
    pub(crate) fn input_vc(&self, r: u32, input: usize) -> usize {
        self.vc_id(r, input >> F::VC_BITS, input & (Self::VC_STRIDE - 1))
    }

    /// Input number of the injection queue.
    #[inline]
    pub(crate) fn inj_input(&self) -> usize {
        self.ports * Self::VC_STRIDE
    }

    /// Event id of input `input` of r.
    #[inline]
    pub(crate) fn input_id(&self, r: u32, input: usize) -> u64 {
        (r as u64) << INPUT_BITS | input as u64
    }
}
