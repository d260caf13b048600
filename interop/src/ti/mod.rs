//! SimGrid time-independent (TI) traces, as SimGrid 3.32's `smpirun -replay` reads them: one
//! action file per rank (`rank-N.ti`, lines `<rank> <action> <args>`) and a list file
//! (`replay.txt`, one action file per line, rank order) to give `-replay`. [`read`] reads them
//! back (`psins-import`), through consolidation's checks.

pub mod read;
mod tags;
mod task;

pub use task::{Action, Approximations};

use crate::ExportError;
use psins_formats::{Error, Output, Record, TraceReader};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use task::TaskExport;

/// The list file's name in the output directory.
pub const LIST_FILE: &str = "replay.txt";

/// The action file of `rank` in the output directory.
pub fn action_file(rank: u32) -> String {
    format!("rank-{rank}.ti")
}

pub struct TiOptions {
    /// Speed of the platform's hosts in flop/s: a CPU burst of t ns is `compute t*speed/1e9`.
    pub host_speed: f64,
}

impl Default for TiOptions {
    fn default() -> Self {
        TiOptions { host_speed: 1e9 }
    }
}

#[derive(Debug)]
pub struct TiSummary {
    pub tasks: u32,
    pub records: u64,
    pub actions: u64,
    pub approx: Approximations,
    /// Collectives without expansion steps in the trace, expanded here.
    pub expanded: u64,
    /// Whose algorithms expanded them (the trace's MPI library, MPICH's when it names none).
    pub library: psins_collectives::Choice,
}

/// Exports the compact trace `trace` into directory `dir` (created if missing). Every file is
/// written by the shared output rule (temporary file, renamed when the export is complete).
pub fn export(trace: &Path, dir: &Path, opts: &TiOptions) -> Result<TiSummary, ExportError> {
    let reader = TraceReader::open(trace).map_err(ExportError::Input)?;
    let out_err = |p: &Path, what: &str, e| ExportError::Output(Error::io(p, what, e));
    if dir.as_os_str() == "-" {
        return Err(ExportError::Output(Error::new(dir, "a TI export is a directory of files; name a directory")));
    }
    std::fs::create_dir_all(dir).map_err(|e| out_err(dir, "cannot create the output directory", e))?;
    let abs = dir.canonicalize().map_err(|e| out_err(dir, "cannot resolve the output directory", e))?;
    let inputs = [trace.to_path_buf()];
    let tasks = reader.tasks();
    // Every output is checked (and its temporary file made) before the work.
    let mut outs = Vec::with_capacity(tasks as usize + 1);
    for r in 0..tasks {
        outs.push(Output::prepare(&dir.join(action_file(r)), &inputs).map_err(ExportError::Output)?);
    }
    let list = Output::prepare(&dir.join(LIST_FILE), &inputs).map_err(ExportError::Output)?;
    let comms = task::Comms::of(&reader);
    let thresholds = psins_collectives::Thresholds::default();
    // Collectives traced without their steps are expanded as psins-sim would replay them:
    // with the algorithms of the library the trace ran under.
    let library = psins_collectives::Library::choose(None, reader.header.meta("mpi_version"));
    let mut tags = tags::Tags::default();
    let mut summary = TiSummary {
        tasks,
        records: 0,
        actions: 0,
        approx: Approximations::default(),
        expanded: 0,
        library: library.clone(),
    };
    let mut rec = Record::default();
    for (r, out) in outs.iter().enumerate() {
        let r = r as u32;
        let mut cursor = reader.task(r, 0).map_err(ExportError::Input)?;
        let mut t = TaskExport::new(r, &comms, &mut tags, &thresholds, library.library);
        let bad = |(i, m): (u64, String)| ExportError::record(trace, r, i, m);
        while cursor.next(&mut rec).map_err(ExportError::Input)? {
            t.record(&rec, cursor.index() - 1).map_err(bad)?;
        }
        t.finish().map_err(bad)?;
        summary.records += cursor.records();
        summary.actions += t.actions.len() as u64;
        let a = &t.approx;
        summary.approx.synchronous += a.synchronous;
        summary.approx.buffered += a.buffered;
        summary.approx.probes += a.probes;
        summary.expanded += t.expanded;
        write_actions(out.temp_path(), r, &t.actions, opts).map_err(|e| out_err(out.path(), "cannot write", e))?;
    }
    let mut names = String::new();
    for r in 0..tasks {
        names.push_str(&format!("{}\n", abs.join(action_file(r)).display()));
    }
    std::fs::write(list.temp_path(), names).map_err(|e| out_err(list.path(), "cannot write", e))?;
    for o in outs {
        o.commit().map_err(ExportError::Output)?;
    }
    list.commit().map_err(ExportError::Output)?;
    Ok(summary)
}

/// The action file of one rank. Each line ends with a newline: SimGrid's reader drops a last
/// line without one.
fn write_actions(path: &Path, rank: u32, actions: &[Action], opts: &TiOptions) -> std::io::Result<()> {
    let mut w = BufWriter::new(File::create(path)?);
    for a in actions {
        match *a {
            Action::Init => writeln!(w, "{rank} init")?,
            Action::Finalize => writeln!(w, "{rank} finalize")?,
            Action::Compute(ns) => writeln!(w, "{rank} compute {}", ns as f64 * opts.host_speed / 1e9)?,
            Action::Send { peer, tag, bytes, nonblocking } => {
                writeln!(w, "{rank} {} {peer} {tag} {bytes}", if nonblocking { "isend" } else { "send" })?
            }
            Action::Recv { peer, tag, bytes, nonblocking, .. } => {
                let (peer, tag) = (peer.expect("resolved by finish"), tag.expect("resolved by finish"));
                writeln!(w, "{rank} {} {peer} {tag} {bytes}", if nonblocking { "irecv" } else { "recv" })?
            }
            Action::Wait(i) => match actions[i] {
                Action::Send { peer, tag, .. } => writeln!(w, "{rank} wait {rank} {peer} {tag}")?,
                Action::Recv { peer, tag, .. } => {
                    writeln!(w, "{rank} wait {} {rank} {}", peer.expect("resolved"), tag.expect("resolved"))?
                }
                _ => unreachable!("a wait names an isend or irecv"),
            },
        }
    }
    w.flush()
}

/// The action files of a directory written by [`export`], as its list file names them.
pub fn listed_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(dir.join(LIST_FILE))?;
    Ok(text.lines().filter(|l| !l.is_empty()).map(PathBuf::from).collect())
}
