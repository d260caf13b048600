//! `--timeline FILE`: Chrome trace-event JSON (Perfetto and chrome://tracing open it), one
//! track per rank, computation and each MPI call as complete ("X") slices. Written as the
//! replay goes, so memory does not grow with the run; rank and time-window filters keep
//! files of big runs small.

use crate::error::{Result, SimError};
use crate::source::synth::parse_rank_list;
use crate::stats::{fn_names, OTHER_FN};
use crate::units::{parse_time, Ps};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct Timeline {
    path: PathBuf,
    out: BufWriter<File>,
    /// Sorted ranks to show (empty: all).
    ranks: Vec<u32>,
    window: (Ps, Ps),
    names: Vec<String>,
    named: Vec<bool>,
    first: bool,
    error: Option<std::io::Error>,
}

impl Timeline {
    /// `ranks`: e.g. "0-15,64"; `window`: "START:END" with units, either side may be empty.
    pub fn create(path: &Path, ranks: Option<&str>, window: Option<&str>) -> Result<Timeline> {
        let ranks = match ranks {
            Some(r) => parse_rank_list(r).map_err(|m| SimError::Usage(format!("--timeline-ranks: {m}")))?,
            None => Vec::new(),
        };
        let window = match window {
            Some(w) => parse_window(w).map_err(|m| SimError::Usage(format!("--timeline-window: {m}")))?,
            None => (0, Ps::MAX),
        };
        let file = File::create(path).map_err(|e| SimError::output(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[").map_err(|e| SimError::output(path, e))?;
        Ok(Timeline {
            path: path.to_path_buf(),
            out,
            ranks,
            window,
            names: fn_names(),
            named: Vec::new(),
            first: true,
            error: None,
        })
    }

    /// The name to give the output in messages (the path the user named, when `path` is a
    /// temporary file).
    pub fn named(mut self, name: &Path) -> Timeline {
        self.path = name.to_path_buf();
        self
    }

    fn wanted(&self, rank: u32, start: Ps, end: Ps) -> bool {
        end >= self.window.0
            && start <= self.window.1
            && (self.ranks.is_empty() || self.ranks.binary_search(&rank).is_ok())
    }

    /// A computation slice.
    pub fn slice(&mut self, rank: u32, name: &str, start: Ps, end: Ps) {
        if self.wanted(rank, start, end) {
            self.emit(rank, name, start, end);
        }
    }

    /// An MPI call slice.
    pub fn call(&mut self, rank: u32, fn_id: u16, start: Ps, end: Ps) {
        if fn_id != OTHER_FN && self.wanted(rank, start, end) {
            let name = std::mem::take(&mut self.names[fn_id as usize]);
            self.emit(rank, &name, start, end);
            self.names[fn_id as usize] = name;
        }
    }

    fn emit(&mut self, rank: u32, name: &str, start: Ps, end: Ps) {
        let (s, e) = (start.max(self.window.0), end.min(self.window.1));
        let r = (|| -> std::io::Result<()> {
            if self.named.len() <= rank as usize {
                self.named.resize(rank as usize + 1, false);
            }
            if !self.named[rank as usize] {
                self.named[rank as usize] = true;
                self.sep()?;
                write!(self.out, "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":{rank},\"args\":{{\"name\":\"rank {rank}\"}}}}")?;
            }
            self.sep()?;
            let cat = if name == "compute" { "cpu" } else { "mpi" };
            write!(
                self.out,
                "{{\"name\":\"{name}\",\"cat\":\"{cat}\",\"ph\":\"X\",\"pid\":0,\"tid\":{rank},\"ts\":{},\"dur\":{}}}",
                us(s),
                us(e - s)
            )
        })();
        if let (Err(err), None) = (r, &self.error) {
            self.error = Some(err);
        }
    }

    fn sep(&mut self) -> std::io::Result<()> {
        if self.first {
            self.first = false;
            self.out.write_all(b"\n")
        } else {
            self.out.write_all(b",\n")
        }
    }

    pub fn finish(mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(SimError::output(&self.path, e));
        }
        self.out.write_all(b"\n]}\n").and_then(|_| self.out.flush()).map_err(|e| SimError::output(&self.path, e))
    }
}

/// Picoseconds as microseconds with exact decimals (trace-event times are in µs).
fn us(ps: Ps) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

fn parse_window(w: &str) -> Result<(Ps, Ps), String> {
    let (a, b) = w.split_once(':').ok_or_else(|| format!("`{w}`: expected START:END, e.g. 1ms:2ms"))?;
    let a = if a.trim().is_empty() { 0 } else { parse_time(a)? };
    let b = if b.trim().is_empty() { Ps::MAX } else { parse_time(b)? };
    if a > b {
        return Err(format!("`{w}`: start after end"));
    }
    Ok((a, b))
}
