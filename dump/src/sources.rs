//! Walks either kind of file and hands each record to the chosen printer.

use crate::fields::{fields, json_line, text_line, Comms};
use psins_formats::{
    codec, sniff, CommDef, Error, FileKind, Kind, LogEnd, LogReader, Op, Record, TraceReader, OUTSIDE_JOB,
};
use std::collections::HashMap;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Text,
    Json,
    Stats,
}

/// Communicator members, from the trace's table or from a log's own CommCreate records.
#[derive(Default)]
struct CommMap(HashMap<u32, CommDef>);

impl CommMap {
    fn add(&mut self, c: CommDef) {
        self.0.insert(c.id, c);
    }
}

impl Comms for CommMap {
    fn world(&self, comm: u32, task: u32, peer: i32) -> Option<i64> {
        let w = *self.0.get(&comm)?.peer_group(task)?.get(peer as usize)?;
        (w != OUTSIDE_JOB).then_some(w as i64)
    }
}

struct Printer {
    mode: Mode,
    out: BufWriter<std::io::Stdout>,
    line: String,
    /// The last collective's (instance, communicator): its expansion steps follow it, and
    /// name their peers in its communicator.
    last_coll: (u32, u32),
    counts: [u64; Kind::COUNT],
    bytes: [u64; Kind::COUNT],
    /// Re-encodes records to attribute bytes to kinds (repeats on for traces, as written).
    stream: codec::Stream,
    scratch: Vec<u8>,
}

impl Printer {
    fn record(&mut self, task: u32, rec: &Record, comms: &CommMap) -> std::io::Result<()> {
        if let Op::Coll { comm, instance, .. } = rec.op {
            self.last_coll = (instance, comm);
        }
        if self.mode == Mode::Stats {
            self.scratch.clear();
            self.stream.encode(&mut self.scratch, rec);
            self.counts[rec.kind() as usize] += 1;
            self.bytes[rec.kind() as usize] += self.scratch.len() as u64;
            return Ok(());
        }
        let step_comm = match rec.op {
            Op::Step { instance, .. } if instance == self.last_coll.0 => self.last_coll.1,
            _ => 0,
        };
        let f = fields(rec, task, comms, step_comm);
        self.line.clear();
        if self.mode == Mode::Json {
            json_line(task, &f, &mut self.line);
        } else {
            text_line(task, &f, &mut self.line);
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }

    fn new_task(&mut self, repeats: bool) {
        self.last_coll = (0, 0);
        self.stream = if repeats { codec::Stream::with_repeats() } else { codec::Stream::without_repeats() };
    }

    fn stats(&mut self, file_bytes: u64) -> std::io::Result<()> {
        let total: u64 = self.counts.iter().sum();
        writeln!(self.out, "{:<14} {:>12} {:>14}", "kind", "records", "bytes/record")?;
        for k in Kind::ALL {
            let n = self.counts[k as usize];
            if n > 0 {
                writeln!(self.out, "{:<14} {:>12} {:>14.2}", k.name(), n, self.bytes[k as usize] as f64 / n as f64)?;
            }
        }
        let per = if total > 0 { file_bytes as f64 / total as f64 } else { 0.0 };
        writeln!(
            self.out,
            "{:<14} {:>12} {:>14.2}",
            "total",
            total,
            self.bytes.iter().sum::<u64>() as f64 / total.max(1) as f64
        )?;
        writeln!(self.out, "file: {file_bytes} bytes, {per:.2} bytes per record including headers and index")
    }
}

pub fn run(path: &Path, task: Option<u32>, mode: Mode) -> Result<(), Box<dyn std::error::Error>> {
    let mut head = [0u8; 8];
    let n =
        std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).map_err(|e| Error::io(path, "cannot read", e))?;
    let file_bytes = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read", e))?.len();
    let mut p = Printer {
        mode,
        out: BufWriter::new(std::io::stdout()),
        line: String::new(),
        last_coll: (0, 0),
        counts: [0; Kind::COUNT],
        bytes: [0; Kind::COUNT],
        stream: codec::Stream::without_repeats(),
        scratch: Vec::new(),
    };
    let r = match sniff(&head[..n]) {
        Some(FileKind::Log) => dump_log(path, task, &mut p),
        // Unknown files go to the trace reader, whose error says what the file is not.
        _ => dump_trace(path, task, &mut p),
    };
    let r = r.and_then(|()| if mode == Mode::Stats { p.stats(file_bytes).map_err(Into::into) } else { Ok(()) });
    match r.and_then(|()| p.out.flush().map_err(Into::into)) {
        Err(e) if is_broken_pipe(e.as_ref()) => Ok(()),
        other => other,
    }
}

fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

fn dump_log(path: &Path, task: Option<u32>, p: &mut Printer) -> Result<(), Box<dyn std::error::Error>> {
    let mut rd = LogReader::open(path)?;
    let (rank, size) = (rd.header.rank, rd.header.world_size);
    if task.is_some_and(|t| t != rank) {
        return Err(Error::new(path, format!("this log holds rank {rank} only")).into());
    }
    let mut comms = CommMap::default();
    comms.add(CommDef::intra(psins_formats::COMM_WORLD, (0..size).collect()));
    comms.add(CommDef::intra(psins_formats::COMM_SELF, vec![rank]));
    let mut rec = Record::default();
    while rd.next(&mut rec)? {
        if let Op::CommCreate { comm, split, .. } = rec.op {
            comms.add(CommDef { id: comm, members: CommDef::members_from_list(&rec.list), split });
        }
        p.record(rank, &rec, &comms)?;
    }
    if let LogEnd::Truncated { offset, unusable_bytes, reason } = rd.end().clone() {
        p.out.flush()?;
        return Err(Error::new(
            path,
            format!("{reason}; {} records read, {unusable_bytes} bytes unusable", rd.records()),
        )
        .task(rank)
        .at(offset)
        .into());
    }
    Ok(())
}

fn dump_trace(path: &Path, task: Option<u32>, p: &mut Printer) -> Result<(), Box<dyn std::error::Error>> {
    let tr = TraceReader::open(path)?;
    let comms = CommMap(tr.header.comms.iter().map(|c| (c.id, c.clone())).collect());
    let tasks: Vec<u32> = match task {
        Some(t) if t >= tr.tasks() => {
            return Err(Error::new(path, format!("no task {t}: the trace has {} tasks", tr.tasks())).into())
        }
        Some(t) => vec![t],
        None => (0..tr.tasks()).collect(),
    };
    let mut rec = Record::default();
    for t in tasks {
        p.new_task(tr.header.tasks[t as usize].flags & psins_formats::trace::TASK_REPEATS != 0);
        let mut cur = tr.task(t, 1 << 16)?;
        while cur.next(&mut rec)? {
            p.record(t, &rec, &comms)?;
        }
    }
    Ok(())
}
