//! A record as a flat list of named fields: the one description both the text and the JSON
//! output print, so the two can never disagree.

use psins_formats::*;

pub enum Val {
    Int(i64),
    Str(&'static str),
    List(Vec<i64>),
}

/// Translates a comm-local peer of task `task` to a world rank where the communicator is
/// known (on an intercommunicator a peer is a rank of the other group).
pub trait Comms {
    fn world(&self, comm: u32, task: u32, peer: i32) -> Option<i64>;
}

pub fn fields(rec: &Record, task: u32, comms: &dyn Comms, step_comm: u32) -> Vec<(&'static str, Val)> {
    use Val::*;
    let mut f =
        vec![("kind", Str(rec.kind().name())), ("gap_ns", Int(rec.gap_ns as i64)), ("dur_ns", Int(rec.dur_ns as i64))];
    let peer = |f: &mut Vec<_>, key: &'static str, comm: u32, p: i32| {
        let w = if p >= 0 { comms.world(comm, task, p) } else { None };
        f.push((key, Int(w.unwrap_or(p as i64))));
    };
    match rec.op {
        Op::Init { thread_level } => f.push(("thread_level", Int(thread_level as i64))),
        Op::Finalize => {}
        Op::Abort { code } => f.push(("code", Int(code as i64))),
        Op::Send { mode, peer: p, tag, bytes, comm } => {
            f.push(("mode", Str(mode.name())));
            p2p(&mut f, &peer, p, tag, bytes, comm);
        }
        Op::Isend { mode, peer: p, tag, bytes, comm, req } | Op::SendInit { mode, peer: p, tag, bytes, comm, req } => {
            f.push(("mode", Str(mode.name())));
            p2p(&mut f, &peer, p, tag, bytes, comm);
            f.push(("request", Int(req as i64)));
        }
        Op::Recv { peer: p, tag, bytes, comm } => p2p(&mut f, &peer, p, tag, bytes, comm),
        Op::Irecv { peer: p, tag, bytes, comm, req } | Op::RecvInit { peer: p, tag, bytes, comm, req } => {
            p2p(&mut f, &peer, p, tag, bytes, comm);
            f.push(("request", Int(req as i64)));
        }
        Op::Sendrecv { peer: p, tag, bytes, src, rtag, rbytes, comm, replace } => {
            p2p(&mut f, &peer, p, tag, bytes, comm);
            peer(&mut f, "src", comm, src);
            f.push(("rtag", Int(rtag as i64)));
            f.push(("rbytes", Int(rbytes as i64)));
            f.push(("replace", Int(replace as i64)));
        }
        Op::Probe { peer: p, tag, bytes, comm, flags } => {
            p2p(&mut f, &peer, p, tag, bytes, comm);
            f.push(("probe_flags", Int(flags as i64)));
        }
        Op::Start { req } | Op::RequestFree { req } | Op::Cancel { req } => f.push(("request", Int(req as i64))),
        Op::Startall => f.push(("requests", List(rec.list.clone()))),
        Op::Wait { func, count } => {
            f.push(("func", Str(func.name())));
            f.push(("count", Int(count as i64)));
            f.push(("completed", List(rec.list.clone())));
        }
        Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags, req, instance } => {
            f.push(("coll", Str(coll.name())));
            f.push(("comm", Int(comm as i64)));
            peer(&mut f, "root", comm, root);
            f.push(("bytes", Int(send_bytes as i64)));
            f.push(("recv_bytes", Int(recv_bytes as i64)));
            f.push(("count", Int(count as i64)));
            f.push(("flags", Int(flags as i64)));
            f.push(("request", Int(req as i64)));
            f.push(("instance", Int(instance as i64)));
            if !rec.list.is_empty() {
                f.push(("counts", List(rec.list.clone())));
            }
        }
        Op::Step { instance, op, peer: p, bytes, peer2, bytes2 } => {
            f.push(("step", Str(op.name())));
            f.push(("instance", Int(instance as i64)));
            f.push(("comm", Int(step_comm as i64)));
            if op != StepOp::WaitAll {
                peer(&mut f, "peer", step_comm, p);
                f.push(("bytes", Int(bytes as i64)));
            }
            if op == StepOp::SendRecv {
                peer(&mut f, "peer2", step_comm, peer2);
                f.push(("bytes2", Int(bytes2 as i64)));
            }
        }
        Op::CommCreate { func, parent, comm, split } => {
            f.push(("func", Str(func.name())));
            f.push(("parent", Int(parent as i64)));
            f.push(("comm", Int(comm as i64)));
            if split == 0 {
                f.push(("members", List(rec.list.clone())));
            } else {
                let (local, remote) = rec.list.split_at((split as usize).min(rec.list.len()));
                f.push(("local_group", List(local.to_vec())));
                f.push(("remote_group", List(remote.to_vec())));
            }
        }
        Op::CommFree { comm } => f.push(("comm", Int(comm as i64))),
        Op::Other { func } => {
            // named by c-headers/mpi_functions.tbl, the table the tracer's wrappers come from
            f.push(("func", Str(functions::name_of(func).unwrap_or("unknown"))));
            f.push(("func_id", Int(func as i64)));
        }
        // targets are ranks of the window's communicator, printed as traced
        Op::Rma { func, target, win, bytes, rbytes, req } => {
            f.push(("op", Str(func.name())));
            f.push(("win", Int(win as i64)));
            f.push(("target", Int(target as i64)));
            f.push(("bytes", Int(bytes as i64)));
            f.push(("rbytes", Int(rbytes as i64)));
            f.push(("request", Int(req as i64)));
        }
        Op::WinSync { func, win, rank, flags } => {
            f.push(("func", Str(func.name())));
            f.push(("win", Int(win as i64)));
            if rank != NO_RANK {
                f.push(("target", Int(rank as i64)));
            }
            if flags != 0 {
                f.push(("flags", Int(flags as i64)));
            }
            if matches!(func, WinSyncFn::Post | WinSyncFn::Start) {
                f.push(("group", List(rec.list.clone())));
            }
        }
        Op::WinCreate { func, comm, win } => {
            f.push(("func", Str(func.name())));
            f.push(("comm", Int(comm as i64)));
            f.push(("win", Int(win as i64)));
        }
        Op::WinFree { win } => f.push(("win", Int(win as i64))),
        // dur_ns is the time inside all the calls; between_ns the computation between them
        Op::Poll { func, calls, between_ns, min_gap_ns, count, peer: p, tag, comm } => {
            f.push(("func", Str(func.name())));
            f.push(("calls", Int(calls as i64)));
            f.push(("between_ns", Int(between_ns as i64)));
            f.push(("min_gap_ns", Int(min_gap_ns as i64)));
            if func.is_probe() {
                peer(&mut f, "peer", comm, p);
                f.push(("comm", Int(comm as i64)));
                f.push(("tag", Int(tag as i64)));
            } else {
                f.push(("count", Int(count as i64)));
            }
        }
        Op::Pcontrol { level } => f.push(("level", Int(level as i64))),
        Op::OtherReq { func, req, persistent } => {
            f.push(("func", Str(functions::name_of(func).unwrap_or("unknown"))));
            f.push(("func_id", Int(func as i64)));
            f.push(("request", Int(req as i64)));
            if persistent {
                f.push(("persistent", Int(1)));
            }
        }
    }
    f
}

/// Adds a peer field, translated to a world rank where the communicator is known.
type PeerFn<'a> = &'a dyn Fn(&mut Vec<(&'static str, Val)>, &'static str, u32, i32);

fn p2p(f: &mut Vec<(&'static str, Val)>, peer: PeerFn, p: i32, tag: i32, bytes: u64, comm: u32) {
    peer(f, "peer", comm, p);
    f.push(("comm", Val::Int(comm as i64)));
    f.push(("tag", Val::Int(tag as i64)));
    f.push(("bytes", Val::Int(bytes as i64)));
}

pub fn text_line(task: u32, f: &[(&'static str, Val)], out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "task={task}");
    for (k, v) in f {
        match v {
            Val::Str(s) if *k == "kind" => {
                let _ = write!(out, " {s}");
            }
            Val::Int(i) => {
                let _ = write!(out, " {k}={i}");
            }
            Val::Str(s) => {
                let _ = write!(out, " {k}={s}");
            }
            Val::List(l) => {
                let _ = write!(out, " {k}={l:?}");
            }
        }
    }
}

pub fn json_line(task: u32, f: &[(&'static str, Val)], out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "{{\"task\":{task}");
    for (k, v) in f {
        let _ = match v {
            Val::Int(i) => write!(out, ",\"{k}\":{i}"),
            Val::Str(s) => write!(out, ",\"{k}\":\"{s}\""),
            Val::List(l) => write!(out, ",\"{k}\":{l:?}"),
        };
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoComms;
    impl Comms for NoComms {
        fn world(&self, _: u32, _: u32, _: i32) -> Option<i64> {
            None
        }
    }

    /// psins-dump printed only `func_id=<n>`; the name is the table's.
    #[test]
    fn other_records_name_their_function() {
        let id = functions::id_of("MPI_File_write_all").unwrap();
        let rec = Record::new(1, 2, Op::Other { func: id });
        let mut line = String::new();
        text_line(3, &fields(&rec, 3, &NoComms, 0), &mut line);
        assert_eq!(line, format!("task=3 other gap_ns=1 dur_ns=2 func=MPI_File_write_all func_id={id}"));
        let rec = Record::new(0, 0, Op::Other { func: 99_999 });
        let mut line = String::new();
        json_line(0, &fields(&rec, 0, &NoComms, 0), &mut line);
        assert_eq!(line, r#"{"task":0,"kind":"other","gap_ns":0,"dur_ns":0,"func":"unknown","func_id":99999}"#);
    }
}
