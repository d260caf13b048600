//! The two side files Paraver opens with a .prv: the .pcf (what states and event values mean,
//! their colours, the time unit) and the .row (the names of the CPUs, nodes and threads).

use super::states::{self, STATES, TYPES};
use std::collections::BTreeSet;
use std::io::{self, Write};

/// The .pcf: nanosecond units, the states, and per event type the values the trace uses.
pub fn write_pcf(w: &mut impl Write, values: &[BTreeSet<u32>; 4]) -> io::Result<()> {
    writeln!(w, "DEFAULT_OPTIONS\n")?;
    writeln!(w, "LEVEL               THREAD")?;
    writeln!(w, "UNITS               NANOSEC")?;
    writeln!(w, "LOOK_BACK           100")?;
    writeln!(w, "SPEED               1")?;
    writeln!(w, "FLAG_ICONS          ENABLED")?;
    writeln!(w, "NUM_OF_STATE_COLORS {}", STATES.len())?;
    writeln!(w, "YMAX_SCALE          37\n\n")?;
    writeln!(w, "DEFAULT_SEMANTIC\n")?;
    writeln!(w, "THREAD_FUNC          State As Is\n\n")?;
    writeln!(w, "STATES")?;
    for (n, name, _) in STATES {
        writeln!(w, "{n:<4} {name}")?;
    }
    writeln!(w, "\n\nSTATES_COLOR")?;
    for (n, _, (r, g, b)) in STATES {
        writeln!(w, "{n:<4} {{{r},{g},{b}}}")?;
    }
    for ((ty, name), used) in TYPES.iter().zip(values) {
        writeln!(w, "\n\nEVENT_TYPE")?;
        writeln!(w, "0    {ty}    {name}")?;
        writeln!(w, "VALUES")?;
        writeln!(w, "0   End")?;
        for &v in used {
            writeln!(w, "{v}   {}", states::value_name(v))?;
        }
    }
    writeln!(w)
}

/// The .row: one node (`host`, the traced host where the trace names it), a CPU and a
/// thread per rank.
pub fn write_row(w: &mut impl Write, ranks: u32, host: &str) -> io::Result<()> {
    writeln!(w, "LEVEL CPU SIZE {ranks}")?;
    for r in 0..ranks {
        writeln!(w, "{}.{host}", r + 1)?;
    }
    writeln!(w, "\nLEVEL NODE SIZE 1\n{host}\n")?;
    writeln!(w, "LEVEL THREAD SIZE {ranks}")?;
    for r in 0..ranks {
        writeln!(w, "THREAD 1.{}.1 (rank {r})", r + 1)?;
    }
    Ok(())
}
