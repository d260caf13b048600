//! A compact trace's measured run as an OTF2 archive, written through libotf2: per rank a
//! location (a process with one thread) whose events are the computation and the MPI calls as
//! regions (Enter/Leave), with the MPI events inside them: MpiSend/MpiRecv, MpiIsend and its
//! MpiIsendComplete, MpiIrecvRequest and its MpiIrecv, MpiCollectiveBegin/End, and the
//! communicators in the definitions. Times are each rank's clock (ns since its MPI_Init
//! returned), the clock psins-sim's "measured" uses. docs/interop-otf2.md.

use super::handle::{self, Archive};
use super::sys::{self, AttributeList, EvtWriter, GlobalDefWriter};
use super::Otf2Summary;
use crate::ExportError;
use psins_formats::{functions, Coll, CollFlags, Error, Op, Record, TraceReader, COMM_NULL, NO_RANK, PROC_NULL};
use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::path::Path;
use std::ptr::null_mut;

/// The archive's name: DIR/traces.otf2 (the anchor file), DIR/traces.def, DIR/traces/.
pub const ARCHIVE: &str = "traces";

/// The attribute that keeps a collective's element count (OTF2 has only its bytes; MPICH's
/// algorithm choice, which psins-sim follows, depends on the count). Attribute id 0.
pub const COUNT_ATTRIBUTE: &str = "psins::count";

/// Region of the computation between MPI calls (the first region; MPI calls follow).
const COMPUTATION: &str = "computation";

extern "C" fn pre_flush(_: *mut std::ffi::c_void, _: u8, _: u64, _: *mut std::ffi::c_void, _: bool) -> u8 {
    sys::FLUSH
}

/// OTF2's collective operation of a blocking psins collective; None for those OTF2 3.0 has
/// no operation for (neighbourhood collectives).
fn coll_op(c: Coll) -> Option<u8> {
    Some(match c {
        Coll::Barrier => 0,
        Coll::Bcast => 1,
        Coll::Gather => 2,
        Coll::Gatherv => 3,
        Coll::Scatter => 4,
        Coll::Scatterv => 5,
        Coll::Allgather => 6,
        Coll::Allgatherv => 7,
        Coll::Alltoall => 8,
        Coll::Alltoallv => 9,
        Coll::Alltoallw => 10,
        Coll::Allreduce => 11,
        Coll::Reduce => 12,
        Coll::ReduceScatter => 13,
        Coll::Scan => 14,
        Coll::Exscan => 15,
        Coll::ReduceScatterBlock => 16,
        _ => return None,
    })
}

/// The psins collective of an OTF2 collective operation (the inverse of [`coll_op`]).
pub fn coll_of(op: u8) -> Option<Coll> {
    [
        Coll::Barrier,
        Coll::Bcast,
        Coll::Gather,
        Coll::Gatherv,
        Coll::Scatter,
        Coll::Scatterv,
        Coll::Allgather,
        Coll::Allgatherv,
        Coll::Alltoall,
        Coll::Alltoallv,
        Coll::Alltoallw,
        Coll::Allreduce,
        Coll::Reduce,
        Coll::ReduceScatter,
        Coll::Scan,
        Coll::Exscan,
        Coll::ReduceScatterBlock,
    ]
    .get(op as usize)
    .copied()
}

/// An OTF2 call that failed, for the message.
struct Failed(String);

/// A failed call's message carries libotf2's first error since the last failure: the root
/// cause (a full disk, a file that cannot be opened, with its path), where the failing call's
/// own code often names only a consequence ("the structural integrity is not given").
fn check(what: &str, code: sys::ErrorCode) -> Result<(), Failed> {
    if code == sys::SUCCESS {
        Ok(())
    } else {
        Err(Failed(super::last_error(&format!("{what}: {}", sys::describe(code)))))
    }
}

/// The regions met so far: names in id order (id 0 is the computation).
struct Regions {
    names: Vec<String>,
    by_func: HashMap<u32, u32>,
}

impl Regions {
    fn of(&mut self, func: Option<u32>) -> u32 {
        let func = func.unwrap_or(u32::MAX);
        if let Some(&r) = self.by_func.get(&func) {
            return r;
        }
        let name = functions::name_of(func).map_or_else(|| "MPI_(unknown)".to_string(), str::to_string);
        let r = self.names.len() as u32;
        self.names.push(name);
        self.by_func.insert(func, r);
        r
    }
}

/// Writes `trace` as the OTF2 archive `ARCHIVE` in `dir` (created if missing). The archive is
/// written in a temporary directory beside and moved in when complete.
pub fn export(trace: &Path, dir: &Path) -> Result<Otf2Summary, ExportError> {
    let reader = TraceReader::open(trace).map_err(ExportError::Input)?;
    // libotf2 prints every error of a failure's chain on stderr (a dozen lines for a full
    // disk); kept instead for the one message (docs/exit-codes.md), any earlier one dropped.
    super::quiet_errors();
    let _ = super::last_error("");
    let out_err = |m: String| ExportError::Output(Error::new(dir, m));
    std::fs::create_dir_all(dir).map_err(|e| ExportError::Output(Error::io(dir, "cannot create", e)))?;
    let tmp = dir.join(format!(".psins-otf2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    // Made here rather than by libotf2 (which writes into an existing directory): a DIR that
    // cannot be written is one error naming it before any work.
    std::fs::create_dir(&tmp).map_err(|e| ExportError::Output(Error::io(&tmp, "cannot create", e)))?;
    let c = |s: &str| CString::new(s).expect("no NUL in paths we make");
    let tmp_c = CString::new(tmp.as_os_str().as_encoded_bytes()).map_err(|_| out_err("path holds a NUL".into()))?;
    // SAFETY: valid C strings; the handle is owned by `Archive` below.
    let archive = unsafe {
        sys::OTF2_Archive_Open(
            tmp_c.as_ptr(),
            c(ARCHIVE).as_ptr(),
            sys::FILEMODE_WRITE,
            1 << 20,
            4 << 20,
            sys::SUBSTRATE_POSIX,
            sys::COMPRESSION_NONE,
        )
    };
    let Some(archive) = Archive::new(archive) else {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(out_err(super::last_error(&format!("cannot create an archive in {}", tmp.display()))));
    };
    let result = write_archive(archive.ptr(), &reader, trace);
    let closed = archive.close();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(match e {
                Err2::Input(e) => ExportError::Input(e),
                Err2::Lib(Failed(m)) => out_err(m),
            });
        }
    };
    if let Err(Failed(m)) = check("closing the archive", closed) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(out_err(m));
    }
    match put_in_place(dir, &tmp) {
        Ok(()) => {
            // The new archive is in place; `tmp` holds the old one.
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(summary)
        }
        Err((e, restored)) => {
            if restored {
                let _ = std::fs::remove_dir_all(&tmp);
            }
            Err(ExportError::Output(e))
        }
    }
}

/// Moves the new archive's three parts from `tmp` into `dir`. An old archive's parts are moved
/// aside into `tmp/old` first and put back if a move fails: `dir` then holds the old archive
/// whole, not its anchor and definitions replaced and its events not. On failure, whether
/// everything was put back (if not, the message says where the old parts are).
fn put_in_place(dir: &Path, tmp: &Path) -> Result<(), (Error, bool)> {
    let names = [format!("{ARCHIVE}.otf2"), format!("{ARCHIVE}.def"), ARCHIVE.to_string()];
    let old = tmp.join("old");
    std::fs::create_dir(&old).map_err(|e| (Error::io(&old, "cannot create", e), true))?;
    let (mut aside, mut placed) = (Vec::new(), Vec::new());
    let mut failed = None;
    for name in &names {
        let at = dir.join(name);
        if at.symlink_metadata().is_ok() {
            if let Err(e) = std::fs::rename(&at, old.join(name)) {
                failed = Some(Error::io(&at, "cannot replace the archive there (moving it aside)", e));
                break;
            }
            aside.push(name);
        }
    }
    if failed.is_none() {
        for name in &names {
            let to = dir.join(name);
            if let Err(e) = std::fs::rename(tmp.join(name), &to) {
                failed = Some(Error::io(&to, "cannot move into place", e));
                break;
            }
            placed.push(name);
        }
    }
    let Some(e) = failed else { return Ok(()) };
    let mut restored = true;
    for name in placed {
        restored &= std::fs::rename(dir.join(name), tmp.join(name)).is_ok();
    }
    for name in aside {
        restored &= std::fs::rename(old.join(name), dir.join(name)).is_ok();
    }
    if !restored {
        let msg = format!("{e}; the old archive's parts not put back are in {}", old.display());
        return Err((Error::new(dir, msg), false));
    }
    Err((e, true))
}

enum Err2 {
    Input(Error),
    Lib(Failed),
}

impl From<Failed> for Err2 {
    fn from(f: Failed) -> Err2 {
        Err2::Lib(f)
    }
}

fn write_archive(archive: *mut sys::Archive, reader: &TraceReader, trace: &Path) -> Result<Otf2Summary, Err2> {
    // libotf2 keeps the pointer, not a copy: the callbacks must outlive the archive.
    static FLUSH: sys::FlushCallbacks = sys::FlushCallbacks { pre_flush, post_flush: None };
    // SAFETY: the archive is open.
    unsafe {
        check("flush callbacks", sys::OTF2_Archive_SetFlushCallbacks(archive, &FLUSH, null_mut()))?;
        check("collective callbacks", sys::OTF2_Archive_SetSerialCollectiveCallbacks(archive))?;
        check("opening the event files", sys::OTF2_Archive_OpenEvtFiles(archive))?;
    }
    let tasks = reader.tasks();
    let mut regions = Regions { names: vec![COMPUTATION.into()], by_func: HashMap::new() };
    let mut summary = Otf2Summary { tasks, ..Otf2Summary::default() };
    let mut events = Vec::with_capacity(tasks as usize);
    let mut end = 0u64;
    let mut rec = Record::default();
    for r in 0..tasks {
        let mut cursor = reader.task(r, 0).map_err(Err2::Input)?;
        // SAFETY: event files are open; the writer is closed below.
        let w = unsafe { sys::OTF2_Archive_GetEvtWriter(archive, r as u64) };
        if w.is_null() {
            return Err(Failed(format!("libotf2 gives no event writer for rank {r}")).into());
        }
        let attrs = handle::AttributeList::new();
        let mut rank = RankWriter { w, attrs, now: 0, events: 0, irecvs: HashMap::new(), isends: HashSet::new() };
        while cursor.next(&mut rec).map_err(Err2::Input)? {
            let index = cursor.index() - 1;
            rank.record(&rec, &mut regions).map_err(|e| match e {
                Bad::Refused(m) => Err2::Input(Error::new(trace, m).task(r).record(index)),
                Bad::Lib(f) => Err2::Lib(f),
            })?;
        }
        summary.records += cursor.records();
        summary.events += rank.events;
        events.push(rank.events);
        end = end.max(rank.now);
        // SAFETY: obtained above from this archive.
        check("closing an event writer", unsafe { sys::OTF2_Archive_CloseEvtWriter(archive, w) })?;
    }
    // SAFETY: the archive is open; every local definition writer is closed right away (the
    // trace has no local definitions, but each location needs its file).
    unsafe {
        check("closing the event files", sys::OTF2_Archive_CloseEvtFiles(archive))?;
        check("opening the definition files", sys::OTF2_Archive_OpenDefFiles(archive))?;
        for r in 0..tasks {
            let d = sys::OTF2_Archive_GetDefWriter(archive, r as u64);
            if d.is_null() {
                return Err(Failed(format!("libotf2 gives no definition writer for rank {r}")).into());
            }
            check("closing a definition writer", sys::OTF2_Archive_CloseDefWriter(archive, d))?;
        }
        check("closing the definition files", sys::OTF2_Archive_CloseDefFiles(archive))?;
    }
    // SAFETY: the archive is open.
    let g = unsafe { sys::OTF2_Archive_GetGlobalDefWriter(archive) };
    if g.is_null() {
        return Err(Failed("libotf2 gives no global definition writer".into()).into());
    }
    summary.regions = regions.names.len() as u32;
    summary.comms = definitions(g, reader, &regions.names, &events, end).map_err(|e| match e {
        Bad::Refused(m) => Err2::Input(Error::new(trace, m)),
        Bad::Lib(f) => Err2::Lib(f),
    })?;
    Ok(summary)
}

/// Why a record (or a definition) was not written.
enum Bad {
    Refused(String),
    Lib(Failed),
}

impl From<Failed> for Bad {
    fn from(f: Failed) -> Bad {
        Bad::Lib(f)
    }
}

struct RankWriter {
    w: *mut EvtWriter,
    /// The list an event's attributes go in (the writer empties it with the event).
    attrs: handle::AttributeList,
    now: u64,
    events: u64,
    /// Posted receives by request: their communicator (MpiIrecv needs it at completion).
    irecvs: HashMap<u32, u32>,
    /// Isends by request, to complete.
    isends: HashSet<u32>,
}

const NA: *mut AttributeList = null_mut();

impl RankWriter {
    fn ok(&mut self, what: &str, code: sys::ErrorCode) -> Result<(), Failed> {
        self.events += 1;
        check(what, code)
    }

    fn record(&mut self, rec: &Record, regions: &mut Regions) -> Result<(), Bad> {
        if !rec.op.is_call() {
            // MPICH's messages inside a collective (the collective's region shows them), or
            // an MPI_Comm_idup's comm_create (its region is the other_req record's; the
            // communicator is in the definitions).
            return Ok(());
        }
        // The measured run's one layout (docs/format.md): a poll record's region spans its
        // run, first call's entry to last call's exit, the computation between its calls inside.
        let (begin, end) = rec.place(self.now).call;
        let w = self.w;
        // SAFETY (every call below): `w` is an open event writer of this archive.
        if begin > self.now {
            self.ok("Enter", unsafe { sys::OTF2_EvtWriter_Enter(w, NA, self.now, 0) })?;
            self.ok("Leave", unsafe { sys::OTF2_EvtWriter_Leave(w, NA, begin, 0) })?;
        }
        self.now = end;
        let region = regions.of(functions::of_op(&rec.op));
        self.ok("Enter", unsafe { sys::OTF2_EvtWriter_Enter(w, NA, begin, region) })?;
        match rec.op {
            Op::Send { peer, tag, bytes, comm, .. } if peer != PROC_NULL => {
                self.ok("MpiSend", unsafe {
                    sys::OTF2_EvtWriter_MpiSend(w, NA, begin, peer as u32, comm, tag as u32, bytes)
                })?;
            }
            Op::Isend { peer, tag, bytes, comm, req, .. } if peer != PROC_NULL => {
                self.isends.insert(req);
                let r = req as u64;
                self.ok("MpiIsend", unsafe {
                    sys::OTF2_EvtWriter_MpiIsend(w, NA, begin, peer as u32, comm, tag as u32, bytes, r)
                })?;
            }
            Op::Recv { peer, tag, bytes, comm } if peer != PROC_NULL => {
                self.ok("MpiRecv", unsafe {
                    sys::OTF2_EvtWriter_MpiRecv(w, NA, end, peer as u32, comm, tag as u32, bytes)
                })?;
            }
            Op::Irecv { comm, req, .. } => {
                self.irecvs.insert(req, comm);
                self.ok("MpiIrecvRequest", unsafe { sys::OTF2_EvtWriter_MpiIrecvRequest(w, NA, begin, req as u64) })?;
            }
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, .. } => {
                if peer != PROC_NULL {
                    let code =
                        unsafe { sys::OTF2_EvtWriter_MpiSend(w, NA, begin, peer as u32, comm, tag as u32, bytes) };
                    self.ok("MpiSend", code)?;
                }
                if src != PROC_NULL {
                    let code =
                        unsafe { sys::OTF2_EvtWriter_MpiRecv(w, NA, end, src as u32, comm, rtag as u32, rbytes) };
                    self.ok("MpiRecv", code)?;
                }
            }
            Op::Wait { .. } => {
                for q in rec.list.chunks_exact(4) {
                    let (req, source, tag, bytes) = (q[0] as u32, q[1], q[2], q[3]);
                    if source == NO_RANK as i64 {
                        if self.isends.remove(&req) {
                            let code = unsafe { sys::OTF2_EvtWriter_MpiIsendComplete(w, NA, end, req as u64) };
                            self.ok("MpiIsendComplete", code)?;
                        }
                    } else if let Some(comm) = self.irecvs.remove(&req) {
                        if source != PROC_NULL as i64 {
                            let (s, t, b) = (source as u32, tag as u32, bytes.max(0) as u64);
                            let code = unsafe { sys::OTF2_EvtWriter_MpiIrecv(w, NA, end, s, comm, t, b, req as u64) };
                            self.ok("MpiIrecv", code)?;
                        }
                    }
                }
            }
            Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags, .. } => {
                if flags & CollFlags::NONBLOCKING != 0 {
                    return Err(Bad::Refused(format!(
                        "nonblocking collective {coll:?} cannot be exported (OTF2's MPI events have no request for a collective)"
                    )));
                }
                let op = coll_op(coll)
                    .ok_or_else(|| Bad::Refused(format!("collective {coll:?} has no OTF2 collective operation")))?;
                let root = if root < 0 { sys::UNDEFINED_U32 } else { root as u32 };
                self.ok("MpiCollectiveBegin", unsafe { sys::OTF2_EvtWriter_MpiCollectiveBegin(w, NA, begin) })?;
                check("attribute", unsafe { sys::OTF2_AttributeList_AddUint64(self.attrs.ptr(), 0, count) })?;
                let (a, n) = (self.attrs.ptr(), send_bytes);
                let code = unsafe { sys::OTF2_EvtWriter_MpiCollectiveEnd(w, a, end, op, comm, root, n, recv_bytes) };
                self.ok("MpiCollectiveEnd", code)?;
            }
            // A communicator made: the create-handle collective on the new communicator
            // (none for a rank that got MPI_COMM_NULL).
            Op::CommCreate { comm, .. } | Op::CommFree { comm } if comm != COMM_NULL => {
                let op =
                    if let Op::CommFree { .. } = rec.op { sys::COLL_DESTROY_HANDLE } else { sys::COLL_CREATE_HANDLE };
                self.ok("MpiCollectiveBegin", unsafe { sys::OTF2_EvtWriter_MpiCollectiveBegin(w, NA, begin) })?;
                let code =
                    unsafe { sys::OTF2_EvtWriter_MpiCollectiveEnd(w, NA, end, op, comm, sys::UNDEFINED_U32, 0, 0) };
                self.ok("MpiCollectiveEnd", code)?;
            }
            _ => {}
        }
        self.ok("Leave", unsafe { sys::OTF2_EvtWriter_Leave(w, NA, end, region) })?;
        Ok(())
    }
}

/// The global definitions: clock (ns), strings, regions, one process per rank with one
/// thread, and the communicators with their groups. Returns the number of communicators.
fn definitions(
    g: *mut GlobalDefWriter,
    reader: &TraceReader,
    regions: &[String],
    events: &[u64],
    end: u64,
) -> Result<u32, Bad> {
    let tasks = reader.tasks();
    let mut strings: Vec<CString> = Vec::new();
    let mut string = |s: &str| -> u32 {
        strings.push(CString::new(s.replace('\0', "")).expect("NULs removed"));
        (strings.len() - 1) as u32
    };
    let machine = string(reader.header.meta("host").unwrap_or("machine"));
    let node_class = string("node");
    let region_names: Vec<u32> = regions.iter().map(|n| string(n)).collect();
    let rank_names: Vec<u32> = (0..tasks).map(|r| string(&format!("MPI Rank {r}"))).collect();
    let thread = string("Master thread");
    let comm_names: Vec<(u32, u32)> = std::iter::once((psins_formats::COMM_WORLD, string("MPI_COMM_WORLD")))
        .chain(std::iter::once((psins_formats::COMM_SELF, string("MPI_COMM_SELF"))))
        .chain(reader.header.comms.iter().map(|c| (c.id, string(&format!("communicator {}", c.id)))))
        .collect();
    let empty = string("");
    let count_name = string(COUNT_ATTRIBUTE);
    let count_text = string("element count of the collective (psins; OTF2 keeps only its bytes)");
    // SAFETY (every call below): `g` is the archive's open global definition writer; the
    // strings outlive the calls.
    unsafe {
        check(
            "ClockProperties",
            sys::OTF2_GlobalDefWriter_WriteClockProperties(g, 1_000_000_000, 0, end + 1, sys::UNDEFINED_U64),
        )?;
        for (i, s) in strings.iter().enumerate() {
            check("String", sys::OTF2_GlobalDefWriter_WriteString(g, i as u32, s.as_ptr()))?;
        }
        check("Attribute", sys::OTF2_GlobalDefWriter_WriteAttribute(g, 0, count_name, count_text, sys::TYPE_UINT64))?;
        for (i, &name) in region_names.iter().enumerate() {
            let (role, paradigm) = if i == 0 {
                (sys::REGION_ROLE_FUNCTION, sys::PARADIGM_USER)
            } else {
                (sys::REGION_ROLE_FUNCTION, sys::PARADIGM_MPI)
            };
            let code = sys::OTF2_GlobalDefWriter_WriteRegion(
                g,
                i as u32,
                name,
                name,
                empty,
                role,
                paradigm,
                0,
                sys::UNDEFINED_U32,
                0,
                0,
            );
            check("Region", code)?;
        }
        check(
            "SystemTreeNode",
            sys::OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, node_class, sys::UNDEFINED_U32),
        )?;
        for r in 0..tasks {
            let code = sys::OTF2_GlobalDefWriter_WriteLocationGroup(
                g,
                r,
                rank_names[r as usize],
                sys::LOCATION_GROUP_TYPE_PROCESS,
                0,
                sys::UNDEFINED_U32,
            );
            check("LocationGroup", code)?;
        }
        for r in 0..tasks {
            let code = sys::OTF2_GlobalDefWriter_WriteLocation(
                g,
                r as u64,
                thread,
                sys::LOCATION_TYPE_CPU_THREAD,
                events[r as usize],
                r,
            );
            check("Location", code)?;
        }
        // Group 0: the locations in MPI rank order; group 1: MPI_COMM_WORLD's ranks; group 2:
        // MPI_COMM_SELF; then one group per communicator of the trace (members as world ranks).
        let world: Vec<u64> = (0..tasks as u64).collect();
        let write_group = |id: u32, ty: u8, members: &[u64]| {
            let code = sys::OTF2_GlobalDefWriter_WriteGroup(
                g,
                id,
                empty,
                ty,
                sys::PARADIGM_MPI,
                0,
                members.len() as u32,
                members.as_ptr(),
            );
            check("Group", code)
        };
        write_group(0, sys::GROUP_TYPE_COMM_LOCATIONS, &world)?;
        write_group(1, sys::GROUP_TYPE_COMM_GROUP, &world)?;
        write_group(2, sys::GROUP_TYPE_COMM_SELF, &[])?;
        check(
            "Comm",
            sys::OTF2_GlobalDefWriter_WriteComm(g, comm_names[0].0, comm_names[0].1, 1, sys::UNDEFINED_U32, 0),
        )?;
        check(
            "Comm",
            sys::OTF2_GlobalDefWriter_WriteComm(g, comm_names[1].0, comm_names[1].1, 2, sys::UNDEFINED_U32, 0),
        )?;
        for (i, def) in reader.header.comms.iter().enumerate() {
            if def.is_inter() {
                return Err(Bad::Refused(format!(
                    "communicator {} is an intercommunicator, which this exporter does not write",
                    def.id
                )));
            }
            let members: Vec<u64> = def.members.iter().map(|&m| m as u64).collect();
            let group = 3 + i as u32;
            write_group(group, sys::GROUP_TYPE_COMM_GROUP, &members)?;
            let code = sys::OTF2_GlobalDefWriter_WriteComm(
                g,
                def.id,
                comm_names[2 + i].1,
                group,
                psins_formats::COMM_WORLD,
                0,
            );
            check("Comm", code)?;
        }
    }
    Ok(2 + reader.header.comms.len() as u32)
}
