//! Which clock a trace's CPU bursts (every record's `gap`) were timed with.
//!
//! The tracer times each call (`dur`) with the wall clock, and by default each burst between
//! two calls too. With `PSINS_CLOCK=cpu` a burst is the calling thread's CPU time instead, so
//! a rank that waited for a CPU (more ranks than cores) or slept between its calls records the
//! computation it did, not the time that passed (docs/tracer.md, "Timing"). The setting is in
//! the effective settings of the log header (`settings`) and of the compact trace (metadata
//! `tracer_settings`), `PSINS_CLOCK=<value>`; a trace written before the setting existed has
//! none and was timed with the wall clock.

use std::fmt;

/// The name of the tracer setting.
pub const SETTING: &str = "PSINS_CLOCK";

/// How a trace's bursts were timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BurstClock {
    /// Wall-clock time from one call's exit to the next call's entry (the default).
    #[default]
    Wall,
    /// The calling thread's CPU time over that span.
    Cpu,
}

impl BurstClock {
    /// The clock a value of `PSINS_CLOCK` names: `wall`, or `cpu` (and `cpu-syscall`, which
    /// reads the same clock another way), in any case. `None` for anything else.
    pub fn of_setting(value: &str) -> Option<BurstClock> {
        match value.trim().to_ascii_lowercase().as_str() {
            "wall" => Some(BurstClock::Wall),
            "cpu" | "cpu-syscall" => Some(BurstClock::Cpu),
            _ => None,
        }
    }

    /// The clock the effective settings (`key=value` separated by spaces, as in the log
    /// header) name: `Wall` when they have no `PSINS_CLOCK` (older tracers), `None` when its
    /// value is none of the known ones.
    pub fn of_settings(settings: &str) -> Option<BurstClock> {
        let prefix = "PSINS_CLOCK=";
        match settings.split_whitespace().find_map(|kv| kv.strip_prefix(prefix)) {
            None => Some(BurstClock::Wall),
            Some(v) => BurstClock::of_setting(v),
        }
    }

    /// `wall` or `cpu`: the JSON value and the word in tables.
    pub fn name(self) -> &'static str {
        match self {
            BurstClock::Wall => "wall",
            BurstClock::Cpu => "cpu",
        }
    }

    /// What the bursts are, in a few words for reports.
    pub fn describe(self) -> &'static str {
        match self {
            BurstClock::Wall => "wall-clock time between calls",
            BurstClock::Cpu => "the calling thread's CPU time between calls (PSINS_CLOCK=cpu)",
        }
    }
}

impl fmt::Display for BurstClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl crate::LogHeader {
    /// The clock this log's bursts were timed with (see [`BurstClock::of_settings`]).
    pub fn burst_clock(&self) -> Option<BurstClock> {
        BurstClock::of_settings(&self.settings)
    }
}

impl crate::TraceHeader {
    /// The clock this trace's bursts were timed with: from `tracer_settings`, `Wall` when the
    /// trace has none (older tracers, importers), `None` for an unknown value.
    pub fn burst_clock(&self) -> Option<BurstClock> {
        BurstClock::of_settings(self.meta("tracer_settings").unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_clock() {
        assert_eq!(BurstClock::of_settings(""), Some(BurstClock::Wall));
        assert_eq!(BurstClock::of_settings("PSINS_TRACE=1 PSINS_DIR=psins-trace"), Some(BurstClock::Wall));
        assert_eq!(BurstClock::of_settings("PSINS_TRACE=1 PSINS_CLOCK=cpu PSINS_QUIET=0"), Some(BurstClock::Cpu));
        assert_eq!(BurstClock::of_settings("PSINS_CLOCK=cpu-syscall"), Some(BurstClock::Cpu));
        assert_eq!(BurstClock::of_settings("PSINS_CLOCK=wall"), Some(BurstClock::Wall));
        assert_eq!(BurstClock::of_settings("PSINS_CLOCK=CPU"), Some(BurstClock::Cpu));
        assert_eq!(BurstClock::of_settings("PSINS_CLOCK=sundial"), None);
        // a key that only ends like it is not it
        assert_eq!(BurstClock::of_settings("XPSINS_CLOCK=cpu"), Some(BurstClock::Wall));
        assert_eq!(BurstClock::Cpu.to_string(), "cpu");
    }

    #[test]
    fn headers_carry_it() {
        let h = crate::LogHeader { settings: "PSINS_CLOCK=cpu".into(), ..Default::default() };
        assert_eq!(h.burst_clock(), Some(BurstClock::Cpu));
        assert_eq!(crate::LogHeader::default().burst_clock(), Some(BurstClock::Wall));
        let t = |meta: &[(&str, &str)]| crate::TraceHeader {
            flags: 0,
            meta: meta.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            comms: Vec::new(),
            tasks: Vec::new(),
        };
        let cpu = t(&[("tracer_version", "psins-tracer 0.1.0"), ("tracer_settings", "PSINS_TRACE=1 PSINS_CLOCK=cpu")]);
        assert_eq!(cpu.burst_clock(), Some(BurstClock::Cpu));
        assert_eq!(t(&[("tracer_settings", "PSINS_TRACE=1")]).burst_clock(), Some(BurstClock::Wall));
        assert_eq!(t(&[]).burst_clock(), Some(BurstClock::Wall));
    }
}
