//! Paraver traces (BSC's `.prv` with its `.pcf` and `.row`) of a compact trace's measured run:
//! per rank a thread whose states are the computation and the MPI calls, an MPI event on
//! entering and leaving each call, and a communication record per application message,
//! send to receive. docs/interop-paraver.md says what is kept and what is approximated.
//!
//! Two passes over the trace: the first pairs every send with its receive (both ends'
//! times are needed in one record), the second writes the records of all ranks merged in
//! time order, as Paraver requires, from one cursor per rank.

mod pcf;
mod states;
mod walk;

use crate::ExportError;
use psins_formats::comms::Comms;
use psins_formats::messages::Side;
use psins_formats::messages::{self, Matcher, Message};
use psins_formats::{Error, Output, Record, TaskCursor, TraceReader};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use walk::{Placed, Walk};

#[derive(Debug, Default)]
pub struct PrvSummary {
    pub tasks: u32,
    pub records: u64,
    pub states: u64,
    pub events: u64,
    pub messages: u64,
    /// Sends and receives without a partner in the trace (a run cut short, a cancelled
    /// request): not drawn.
    pub lone_sends: u64,
    pub lone_recvs: u64,
    /// The largest shift of a rank's clock that [`messages::align`] made, ns.
    pub max_shift: u64,
    /// Messages still received before they were sent after the shifts (clocks that drift).
    pub disordered: u64,
    /// The three files written.
    pub files: [PathBuf; 3],
}

/// The .prv, .pcf and .row paths of output `out` (`x.prv` or `x`: `x.prv`, `x.pcf`, `x.row`).
pub fn paths(out: &Path) -> [PathBuf; 3] {
    let base = if out.extension().is_some_and(|e| e == "prv") { out.with_extension("") } else { out.to_path_buf() };
    let with = |ext: &str| {
        let mut s = base.clone().into_os_string();
        s.push(ext);
        PathBuf::from(s)
    };
    [with(".prv"), with(".pcf"), with(".row")]
}

/// Exports the measured run of `trace` as the Paraver files of `out` (see [`paths`]); every
/// file through the shared output rule (a temporary file renamed when all are complete).
pub fn export(trace: &Path, out: &Path) -> Result<PrvSummary, ExportError> {
    let reader = TraceReader::open(trace).map_err(ExportError::Input)?;
    if out.as_os_str() == "-" {
        let msg = "a Paraver export is three files (.prv, .pcf, .row); name them with -o NAME.prv";
        return Err(ExportError::Output(Error::new(out, msg)));
    }
    let files = paths(out);
    let inputs = [trace.to_path_buf()];
    let outs = files.clone().map(|f| Output::prepare(&f, &inputs));
    let [prv, pcf, row] = outs;
    let (prv, pcf, row) =
        (prv.map_err(ExportError::Output)?, pcf.map_err(ExportError::Output)?, row.map_err(ExportError::Output)?);
    let comms = Comms::of(&reader);
    let tasks = reader.tasks();

    // Pass 1: the messages, the event values used, each rank's end.
    let mut matcher = Matcher::default();
    let mut values: [BTreeSet<u32>; 4] = Default::default();
    let mut ends = Vec::with_capacity(tasks as usize);
    let mut summary = PrvSummary { tasks, ..PrvSummary::default() };
    let mut rec = Record::default();
    for r in 0..tasks {
        let mut cursor = reader.task(r, 0).map_err(ExportError::Input)?;
        let mut walk = Walk::new(r, &comms);
        while cursor.next(&mut rec).map_err(ExportError::Input)? {
            let placed = walk
                .record(&rec, &mut |side, e| match side {
                    Side::Sent => matcher.send(e),
                    Side::Received => matcher.recv(e),
                })
                .map_err(|m| ExportError::record(trace, r, cursor.index() - 1, m))?;
            if let Some((_, _, _, ty, v)) = placed.call {
                values[type_index(ty)].insert(v);
            }
        }
        summary.records += cursor.records();
        ends.push(walk.now);
    }
    let (mut messages, lone_sends, lone_recvs) = matcher.matched(tasks);
    (summary.lone_sends, summary.lone_recvs) = (lone_sends, lone_recvs);
    let (shift, disordered) = messages::align(&messages, tasks);
    for m in messages.iter_mut().flatten() {
        (m.lsend, m.psend) = (m.lsend + shift[m.src as usize], m.psend + shift[m.src as usize]);
        (m.lrecv, m.precv) = (m.lrecv + shift[m.dst as usize], m.precv + shift[m.dst as usize]);
    }
    summary.max_shift = shift.iter().copied().max().unwrap_or(0);
    summary.disordered = disordered;
    let end = ends.iter().zip(&shift).map(|(e, s)| e + s).max().unwrap_or(0);

    // Pass 2: every rank's lines, merged by time.
    let write_err = |p: &Path, e| ExportError::Output(Error::io(p, "cannot write", e));
    let mut w = BufWriter::new(File::create(prv.temp_path()).map_err(|e| write_err(prv.path(), e))?);
    header(&mut w, trace, end, tasks).map_err(|e| write_err(prv.path(), e))?;
    let mut lines: Vec<RankLines> = Vec::with_capacity(tasks as usize);
    for (r, msgs) in messages.into_iter().enumerate() {
        let cursor = reader.task(r as u32, 0).map_err(ExportError::Input)?;
        let mut walk = Walk::new(r as u32, &comms);
        walk.now = shift[r];
        // A shifted rank is idle until its clock starts.
        let queue =
            if shift[r] > 0 { VecDeque::from([Line::State(0, shift[r], states::IDLE)]) } else { VecDeque::new() };
        lines.push(RankLines { walk, cursor, queue, msgs: msgs.into() });
    }
    let mut heap = BinaryHeap::new();
    for (r, l) in lines.iter_mut().enumerate() {
        if let Some(t) = l.peek(trace, &mut rec)? {
            heap.push(Reverse((t, r)));
        }
    }
    while let Some(Reverse((_, r))) = heap.pop() {
        let l = &mut lines[r];
        let line = l.queue.pop_front().expect("peeked");
        match line {
            Line::State(..) => summary.states += 1,
            Line::Event(..) => summary.events += 1,
            Line::Comm(_) => summary.messages += 1,
        }
        line.write(&mut w, r as u32).map_err(|e| write_err(prv.path(), e))?;
        if let Some(t) = l.peek(trace, &mut rec)? {
            heap.push(Reverse((t, r)));
        }
    }
    w.flush().map_err(|e| write_err(prv.path(), e))?;
    drop(w);

    let host = reader.header.meta("host").filter(|h| !h.is_empty() && !h.contains(char::is_whitespace));
    let side = |o: &Output, f: &dyn Fn(&mut BufWriter<File>) -> std::io::Result<()>| -> Result<(), ExportError> {
        let mut w = BufWriter::new(File::create(o.temp_path()).map_err(|e| write_err(o.path(), e))?);
        f(&mut w).and_then(|_| w.flush()).map_err(|e| write_err(o.path(), e))
    };
    side(&pcf, &|w| pcf::write_pcf(w, &values))?;
    side(&row, &|w| pcf::write_row(w, tasks, host.unwrap_or("node")))?;
    for o in [prv, pcf, row] {
        o.commit().map_err(ExportError::Output)?;
    }
    summary.files = files;
    Ok(summary)
}

fn type_index(ty: u32) -> usize {
    states::TYPES.iter().position(|&(t, _)| t == ty).expect("a type of TYPES")
}

/// `#Paraver (date):duration_ns:nodes(cpus):applications:tasks(threads:node, …)`, dated
/// with the trace file's modification time (the same trace gives the same file).
fn header(w: &mut impl Write, trace: &Path, end: u64, tasks: u32) -> std::io::Result<()> {
    let mtime = std::fs::metadata(trace).and_then(|m| m.modified()).ok();
    let secs = mtime.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_secs());
    let (y, mo, d, h, mi, _) = psins_cli::utc(secs);
    let threads = vec!["1:1"; tasks as usize].join(",");
    writeln!(w, "#Paraver ({d:02}/{mo:02}/{y:04} at {h:02}:{mi:02}):{end}_ns:1({tasks}):1:{tasks}({threads})")
}

/// One line of the .prv, for the rank whose generator made it.
enum Line {
    /// [begin, end) in a state.
    State(u64, u64, u32),
    /// At a time, an event type and value.
    Event(u64, u32, u32),
    /// A message this rank sent.
    Comm(Message),
}

impl Line {
    fn time(&self) -> u64 {
        match *self {
            Line::State(t, ..) | Line::Event(t, ..) => t,
            Line::Comm(m) => m.lsend,
        }
    }

    /// CPU, application, task and thread: rank r is task r + 1 on CPU r + 1, one thread.
    fn write(&self, w: &mut impl Write, r: u32) -> std::io::Result<()> {
        let id = r + 1;
        match *self {
            Line::State(b, e, s) => writeln!(w, "1:{id}:1:{id}:1:{b}:{e}:{s}"),
            Line::Event(t, ty, v) => writeln!(w, "2:{id}:1:{id}:1:{t}:{ty}:{v}"),
            Line::Comm(m) => {
                let d = m.dst + 1;
                let (ls, ps, lr, pr) = (m.lsend, m.psend, m.lrecv, m.precv);
                writeln!(w, "3:{id}:1:{id}:1:{ls}:{ps}:{d}:1:{d}:1:{lr}:{pr}:{}:{}", m.bytes, m.tag)
            }
        }
    }
}

/// One rank's lines in time order: its records placed by a [`Walk`], and the messages it
/// sent, each where its send began.
struct RankLines<'a> {
    walk: Walk<'a>,
    cursor: TaskCursor,
    queue: VecDeque<Line>,
    msgs: VecDeque<Message>,
}

impl RankLines<'_> {
    /// The time of the next line, reading records until one gives a line; None at the end.
    fn peek(&mut self, trace: &Path, rec: &mut Record) -> Result<Option<u64>, ExportError> {
        while self.queue.is_empty() {
            if !self.cursor.next(rec).map_err(ExportError::Input)? {
                // Messages left (none if the walks agree) go last.
                self.queue.extend(self.msgs.drain(..).map(Line::Comm));
                break;
            }
            let r = self.walk.rank;
            let index = self.cursor.index() - 1;
            let placed = self.walk.record(rec, &mut |_, _| {}).map_err(|m| ExportError::record(trace, r, index, m))?;
            self.place(placed);
        }
        Ok(self.queue.front().map(Line::time))
    }

    fn place(&mut self, p: Placed) {
        let push = |q: &mut VecDeque<Line>, msgs: &mut VecDeque<Message>, line: Line| {
            while msgs.front().is_some_and(|m| m.lsend <= line.time()) {
                q.push_back(Line::Comm(msgs.pop_front().expect("front")));
            }
            q.push_back(line);
        };
        let (q, m) = (&mut self.queue, &mut self.msgs);
        if p.running.1 > p.running.0 {
            push(q, m, Line::State(p.running.0, p.running.1, states::RUNNING));
        }
        if let Some((b, e, s, ty, v)) = p.call {
            push(q, m, Line::Event(b, ty, v));
            if e > b {
                push(q, m, Line::State(b, e, s));
            }
            push(q, m, Line::Event(e, ty, 0));
        }
    }
}
