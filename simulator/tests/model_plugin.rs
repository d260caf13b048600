//! A model that answers later, through its own events — the way the packet-level torus
//! will — replays exactly like one that answers at once.

use crate::common;
use common::*;
use psins_sim::model::{CollCall, NetCtx, NetMsg, NetworkModel};
use psins_sim::source::compact::CompactTrace;
use psins_sim::source::synth::{write_trace, Workload};
use psins_sim::units::Ps;
use psins_sim::{Options, Sim};

/// Delivers every message L + S/B after it is ready, like `simple`, but only after hopping
/// through two of its own events (injection, then "last packet arrives").
struct Deferred {
    pending: Vec<(u32, Ps)>,
}

impl NetworkModel for Deferred {
    fn name(&self) -> &'static str {
        "deferred"
    }
    fn send(&mut self, msg: &NetMsg, ctx: &mut NetCtx) -> Option<Ps> {
        let at = msg.ready + US + msg.bytes * 1000; // 1us + 1 ns per byte
        self.pending.push((msg.id, at));
        ctx.schedule(msg.ready + 1, (self.pending.len() - 1) as u32);
        None
    }
    fn on_event(&mut self, token: u32, ctx: &mut NetCtx) {
        let (id, at) = self.pending[token as usize];
        if ctx.now < at {
            ctx.schedule(at, token);
        } else {
            ctx.deliver(id, at);
        }
    }
    fn collective(&mut self, c: &CollCall) -> Ps {
        psins_sim::model::analytic_collective(&machine(&[]), c)
    }
}

#[test]
fn deferred_delivery_matches_simple() {
    let tasks = vec![vec![send(10, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(0, 0, 1000), send(0, 0, 1000), fin()]];
    let path = write("pp.psins", &tasks, vec![]);
    let m = machine(&[]);
    let r = Sim::with_model(
        CompactTrace::open(&path).unwrap(),
        &m,
        Box::new(Deferred { pending: vec![] }),
        Options::default(),
    )
    .unwrap()
    .run()
    .unwrap();
    assert_eq!(r.predicted, 14 * US);

    let w = Workload::parse("gen:stencil2d:ranks=16,iters=4,bytes=100KiB").unwrap();
    let path = tmp("st.psins");
    write_trace(&w, &path, None, false).unwrap();
    for mode in ["analytic", "expanded"] {
        let m = machine(&["machine.nodes=16", &format!("mpi.collectives={mode}")]);
        let a = Sim::with_model(
            CompactTrace::open(&path).unwrap(),
            &m,
            Box::new(Deferred { pending: vec![] }),
            Options::default(),
        )
        .unwrap()
        .run()
        .unwrap();
        let b = psins_sim::simulate(CompactTrace::open(&path).unwrap(), &m, Options::default()).unwrap();
        assert_eq!(a.predicted, b.predicted, "{mode}");
        assert_eq!(
            a.tasks.iter().map(|t| t.end).collect::<Vec<_>>(),
            b.tasks.iter().map(|t| t.end).collect::<Vec<_>>()
        );
    }
}

/// A model that gives up (a packet-level watchdog) stops the replay with exit code 2.
struct Stuck;

impl NetworkModel for Stuck {
    fn name(&self) -> &'static str {
        "stuck"
    }
    fn send(&mut self, msg: &NetMsg, ctx: &mut NetCtx) -> Option<Ps> {
        ctx.schedule(msg.ready + 5, 0);
        None
    }
    fn on_event(&mut self, _token: u32, ctx: &mut NetCtx) {
        ctx.fail("no packet moved for 5 cycles; full buffers: router 0 east VC0");
    }
    fn collective(&mut self, _c: &CollCall) -> Ps {
        0
    }
}

#[test]
fn model_failure_is_a_deadlock_error() {
    let path = write("f.psins", &[vec![send(0, 1, 10), fin()], vec![recv(0, 0, 10), fin()]], vec![]);
    let m = machine(&[]);
    let err = Sim::with_model(CompactTrace::open(&path).unwrap(), &m, Box::new(Stuck), Options::default())
        .unwrap()
        .run()
        .unwrap_err();
    assert_eq!(err.exit_code(), psins_sim::error::Exit::Deadlock);
    assert!(err.to_string().contains("network model stuck: no packet moved"), "{err}");
}
