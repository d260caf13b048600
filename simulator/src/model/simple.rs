//! `simple`: infinite resources, every message takes L + S/B (PSINS §3.1).

use super::{analytic_collective, CollCall, NetCtx, NetMsg, NetworkModel};
use crate::units::Ps;
use psins_machine::{Link, Machine};

pub struct Simple {
    link: Link,
    machine: Machine,
}

pub fn build(m: &Machine) -> Box<dyn NetworkModel> {
    Box::new(Simple { link: m.inter, machine: m.clone() })
}

impl NetworkModel for Simple {
    fn name(&self) -> &'static str {
        "simple"
    }

    #[inline]
    fn send(&mut self, msg: &NetMsg, _ctx: &mut NetCtx) -> Option<Ps> {
        Some(msg.ready + self.link.delay(msg.bytes))
    }

    fn collective(&mut self, c: &CollCall) -> Ps {
        analytic_collective(&self.machine, c)
    }
}
