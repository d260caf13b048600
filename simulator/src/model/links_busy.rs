//! The packet models' counter track for the timeline: `busy links (mean over 1 us)`, the
//! network's router-to-router links transmitting a packet, averaged over fixed windows of
//! 1 µs of router cycles (aligned to cycle 0); ejection is not a link.
//!
//! Why a mean over a window and not the count at each instant: a link turns busy and idle
//! with every packet hop, so the exact count changes up to twice per hop: hundreds of
//! events per message (a 64 KiB halo is 1,024 packets), a file too big to open for any run
//! worth looking at. One value per window is at most one event per µs while the network
//! is busy (an idle stretch is one event, however long), and 1 µs still resolves a halo
//! exchange or a collective's rounds: what an architect looks for is which phases load
//! the network and how close to its links' count they come. A mean keeps the area exact:
//! the counter's integral is the link-time the packets used (packet hops × a packet's link
//! cycles), and a phase that saturates its links shows as many as it holds.
//!
//! How, at no cost to the packets' path: the network already counts each output's busy
//! cycles for its statistics; at each window's end the network is simulated exactly up to
//! it and `Network::link_use` reads them (a scan of the outputs, made only with a
//! timeline). A window's value is known once the network has passed its end, so it is
//! handed on then, behind the replay's time: the timeline writes it in order all the same.

use crate::units::Ps;
use psins_network::{Deadlock, Fabric, Network, RouterConfig};

/// The track's name: keep the window's length in it.
pub const TRACK: &str = "busy links (mean over 1 us)";
/// The window, in picoseconds.
const WINDOW_PS: Ps = 1_000_000;

pub struct LinksBusy {
    /// Window length in router cycles (the changes' unit is 1/`window` of a link).
    pub window: u64,
    /// The window being measured: its first cycle, and the link-cycles busy before it.
    start: u64,
    before: u64,
    /// The link-cycles of the value last handed on.
    shown: u64,
    /// (time, change in link-cycles per window) not yet taken.
    pub changes: Vec<(Ps, i64)>,
}

impl LinksBusy {
    /// Starting at cycle 0, before anything was injected.
    pub fn new(cfg: &RouterConfig) -> LinksBusy {
        let window = cfg.ps_to_cycle(WINDOW_PS).max(1);
        LinksBusy { window, start: 0, before: 0, shown: 0, changes: Vec::new() }
    }

    /// `net.advance_to(cycle)`, stopping at each window's end on the way to close it.
    pub fn advance<F: Fabric>(
        &mut self,
        net: &mut Network<F>,
        cycle: u64,
        done: &mut Vec<(u64, u64)>,
    ) -> Result<(), Deadlock> {
        // Invariant: the window's end is at or after the network's next cycle to simulate,
        // so simulating up to the end's cycle puts the network exactly at the end.
        while self.start + self.window <= cycle + 1 {
            let end = self.start + self.window;
            net.advance_to(end - 1, done)?;
            let u = net.link_use();
            self.show(net.router_config(), self.start, u.busy_cycles - self.before);
            (self.start, self.before) = (end, u.busy_cycles);
            if u.busy_links == 0 {
                // No link busy at `end`, and none gets busy before the next event, nor
                // before this call's last cycle (a later message enters after it): the
                // windows up to there are idle, one event for them all.
                let quiet = net.next_activity().unwrap_or(u64::MAX).min(cycle + 1);
                let start = quiet / self.window * self.window;
                if start > self.start {
                    self.show(net.router_config(), self.start, 0);
                    self.start = start;
                }
            }
        }
        net.advance_to(cycle, done)
    }

    /// The replay is over, so no more traffic: the window being measured is closed with
    /// what its links carried, and the counter returns to 0 at its end.
    pub fn close<F: Fabric>(&mut self, net: &Network<F>) {
        let busy = net.link_use().busy_cycles;
        self.show(net.router_config(), self.start, busy - self.before);
        self.show(net.router_config(), self.start + self.window, 0);
        (self.start, self.before) = (self.start + self.window, busy);
    }

    /// The window from cycle `at` had `busy` link-cycles: a change if that is new.
    fn show(&mut self, cfg: &RouterConfig, at: u64, busy: u64) {
        if busy != self.shown {
            self.changes.push((cfg.cycles_to_ps(at), busy as i64 - self.shown as i64));
            self.shown = busy;
        }
    }
}
