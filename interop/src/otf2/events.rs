//! One location's events, read through libotf2's event callbacks into a list (the callbacks
//! only collect; [`super::convert`] makes records of them).

use super::handle::{EvtCallbacks, Reader};
use super::sys::{self, AttributeList};
use std::ffi::{c_void, CString};

/// The events the importer reads (others are skipped by libotf2: no callback).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    Enter(u64, u32),
    Leave(u64, u32),
    /// time, peer, comm, tag, bytes
    Send(u64, u32, u32, u32, u64),
    Recv(u64, u32, u32, u32, u64),
    /// … and the request
    Isend(u64, u32, u32, u32, u64, u64),
    Irecv(u64, u32, u32, u32, u64, u64),
    IsendComplete(u64, u64),
    IrecvRequest(u64, u64),
    CollBegin(u64),
    /// time, operation, comm, root, sent, received, element count (psins's attribute)
    CollEnd(u64, u8, u32, u32, u64, u64, Option<u64>),
    /// The measurement system's own events (Score-P's): a buffer flush (start, stop) and
    /// measurement switched off or on (time, on).
    BufferFlush(u64, u64),
    MeasurementOnOff(u64, bool),
    /// A communicator made or freed (OTF2 3.0; Score-P 8 writes them inside the
    /// CREATE_HANDLE and DESTROY_HANDLE collective, whose communicator is then the parent).
    CommCreate(u64, u32),
    CommDestroy(u64, u32),
    /// One-sided communication (Score-P's MPI RMA): a window made or freed.
    WinCreate(u64, u32),
    WinDestroy(u64, u32),
    /// A collective on a window (a fence's, or its creation's): time, window.
    RmaColl(u64, u32),
    /// An epoch's group synchronisation: time, window, group, whether it synchronised (a
    /// test that found the epoch not over has sync level none).
    RmaGroupSync(u64, u32, u32, bool),
    /// A lock requested, acquired or tried: time, window, remote (undefined: all), exclusive.
    RmaLock(u64, u32, u32, bool),
    /// time, window, remote (undefined: all)
    RmaUnlock(u64, u32, u32),
    /// An operation: time, what, window, remote, bytes sent and received, matching id.
    RmaOp(u64, RmaEv, u32, u32, u64, u64, u64),
    /// An operation completed at the origin (blocking or not): time, window, matching id.
    RmaComplete(u64, u32, u64),
}

/// What an RMA operation event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmaEv {
    Put,
    Get,
    /// Accumulate, fetch-and-op, get-accumulate (their region says which).
    Atomic,
    CompareAndSwap,
}

/// What the callbacks fill: the events, and the attribute id of psins's element count.
struct Sink {
    evs: Vec<Ev>,
    count_attr: Option<u32>,
}

fn sink<'a>(user: *mut c_void) -> &'a mut Sink {
    // SAFETY: the user data registered in `read` is a `&mut Sink` alive for the read.
    unsafe { &mut *(user as *mut Sink) }
}

fn list<'a>(user: *mut c_void) -> &'a mut Vec<Ev> {
    &mut sink(user).evs
}

type A = *mut AttributeList;
const OK: sys::CallbackCode = sys::CALLBACK_SUCCESS;

extern "C" fn enter(_: u64, t: u64, _: u64, u: *mut c_void, _: A, r: u32) -> sys::CallbackCode {
    list(u).push(Ev::Enter(t, r));
    OK
}
extern "C" fn leave(_: u64, t: u64, _: u64, u: *mut c_void, _: A, r: u32) -> sys::CallbackCode {
    list(u).push(Ev::Leave(t, r));
    OK
}
extern "C" fn send(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    p: u32,
    c: u32,
    tag: u32,
    n: u64,
) -> sys::CallbackCode {
    list(u).push(Ev::Send(t, p, c, tag, n));
    OK
}
extern "C" fn recv(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    p: u32,
    c: u32,
    tag: u32,
    n: u64,
) -> sys::CallbackCode {
    list(u).push(Ev::Recv(t, p, c, tag, n));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn isend(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    p: u32,
    c: u32,
    tag: u32,
    n: u64,
    q: u64,
) -> sys::CallbackCode {
    list(u).push(Ev::Isend(t, p, c, tag, n, q));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn irecv(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    p: u32,
    c: u32,
    tag: u32,
    n: u64,
    q: u64,
) -> sys::CallbackCode {
    list(u).push(Ev::Irecv(t, p, c, tag, n, q));
    OK
}
extern "C" fn isend_complete(_: u64, t: u64, _: u64, u: *mut c_void, _: A, q: u64) -> sys::CallbackCode {
    list(u).push(Ev::IsendComplete(t, q));
    OK
}
extern "C" fn irecv_request(_: u64, t: u64, _: u64, u: *mut c_void, _: A, q: u64) -> sys::CallbackCode {
    list(u).push(Ev::IrecvRequest(t, q));
    OK
}
extern "C" fn coll_begin(_: u64, t: u64, _: u64, u: *mut c_void, _: A) -> sys::CallbackCode {
    list(u).push(Ev::CollBegin(t));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn coll_end(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    a: A,
    op: u8,
    c: u32,
    root: u32,
    s: u64,
    r: u64,
) -> sys::CallbackCode {
    let k = sink(u);
    let mut count = None;
    if let (Some(attr), false) = (k.count_attr, a.is_null()) {
        let mut v = 0u64;
        // SAFETY: libotf2's list for this event.
        if unsafe { sys::OTF2_AttributeList_GetUint64(a, attr, &mut v) } == sys::SUCCESS {
            count = Some(v);
        }
    }
    k.evs.push(Ev::CollEnd(t, op, c, root, s, r, count));
    OK
}

extern "C" fn buffer_flush(_: u64, t: u64, _: u64, u: *mut c_void, _: A, stop: u64) -> sys::CallbackCode {
    list(u).push(Ev::BufferFlush(t, stop));
    OK
}
extern "C" fn measurement(_: u64, t: u64, _: u64, u: *mut c_void, _: A, mode: u8) -> sys::CallbackCode {
    list(u).push(Ev::MeasurementOnOff(t, mode == sys::MEASUREMENT_ON));
    OK
}
extern "C" fn comm_create(_: u64, t: u64, _: u64, u: *mut c_void, _: A, c: u32) -> sys::CallbackCode {
    list(u).push(Ev::CommCreate(t, c));
    OK
}
extern "C" fn comm_destroy(_: u64, t: u64, _: u64, u: *mut c_void, _: A, c: u32) -> sys::CallbackCode {
    list(u).push(Ev::CommDestroy(t, c));
    OK
}

extern "C" fn win_create(_: u64, t: u64, _: u64, u: *mut c_void, _: A, w: u32) -> sys::CallbackCode {
    list(u).push(Ev::WinCreate(t, w));
    OK
}
extern "C" fn win_destroy(_: u64, t: u64, _: u64, u: *mut c_void, _: A, w: u32) -> sys::CallbackCode {
    list(u).push(Ev::WinDestroy(t, w));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn rma_coll(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    _op: u8,
    _level: u32,
    w: u32,
    _root: u32,
    _s: u64,
    _r: u64,
) -> sys::CallbackCode {
    list(u).push(Ev::RmaColl(t, w));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn rma_group_sync(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    level: u32,
    w: u32,
    g: u32,
) -> sys::CallbackCode {
    list(u).push(Ev::RmaGroupSync(t, w, g, level != 0));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn rma_lock(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    w: u32,
    p: u32,
    _: u64,
    ty: u8,
) -> sys::CallbackCode {
    list(u).push(Ev::RmaLock(t, w, p, ty == sys::LOCK_EXCLUSIVE));
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn rma_unlock(_: u64, t: u64, _: u64, u: *mut c_void, _: A, w: u32, p: u32, _: u64) -> sys::CallbackCode {
    list(u).push(Ev::RmaUnlock(t, w, p));
    OK
}
/// RmaPut (`GET` false: the bytes go to the target) and RmaGet (they come back).
#[allow(clippy::too_many_arguments)]
extern "C" fn rma_xfer<const GET: bool>(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    w: u32,
    p: u32,
    n: u64,
    m: u64,
) -> sys::CallbackCode {
    let ev = if GET { Ev::RmaOp(t, RmaEv::Get, w, p, 0, n, m) } else { Ev::RmaOp(t, RmaEv::Put, w, p, n, 0, m) };
    list(u).push(ev);
    OK
}
#[allow(clippy::too_many_arguments)]
extern "C" fn rma_atomic(
    _: u64,
    t: u64,
    _: u64,
    u: *mut c_void,
    _: A,
    w: u32,
    p: u32,
    ty: u8,
    s: u64,
    r: u64,
    m: u64,
) -> sys::CallbackCode {
    let what = if ty == sys::RMA_ATOMIC_TYPE_COMPARE_AND_SWAP { RmaEv::CompareAndSwap } else { RmaEv::Atomic };
    list(u).push(Ev::RmaOp(t, what, w, p, s, r, m));
    OK
}
extern "C" fn rma_complete(_: u64, t: u64, _: u64, u: *mut c_void, _: A, w: u32, m: u64) -> sys::CallbackCode {
    list(u).push(Ev::RmaComplete(t, w, m));
    OK
}

/// Every event of `location` in the archive of `anchor`; on failure, libotf2's reason and
/// how many events were read before it.
pub fn read(anchor: &CString, location: u64, count_attr: Option<u32>) -> Result<Vec<Ev>, (String, usize)> {
    let mut sink = Sink { evs: Vec::new(), count_attr };
    super::quiet_errors();
    let fail = |what: &str, n: usize| (super::last_error(what), n);
    let ok = |code: sys::ErrorCode, n: usize| super::defs::ok(code).map_err(|m| (m.to_string(), n));
    let reader = Reader::open(anchor).map_err(|m| (m.to_string(), 0))?;
    let r = reader.ptr();
    // SAFETY: `r` is open while `reader` lives (closing it closes any definition or event
    // reader an error left open); the callbacks' set is copied when registered; `sink`
    // outlives the read that calls back into it.
    unsafe {
        ok(sys::OTF2_Reader_SetSerialCollectiveCallbacks(r), 0)?;
        ok(sys::OTF2_Reader_SelectLocation(r, location), 0)?;
        // Local definitions hold the mappings of a location's ids to the global ones
        // (Score-P writes them); an archive without them is read without.
        if sys::OTF2_Reader_OpenDefFiles(r) == sys::SUCCESS {
            let d = sys::OTF2_Reader_GetDefReader(r, location);
            if !d.is_null() {
                let mut n = 0;
                sys::OTF2_Reader_ReadAllLocalDefinitions(r, d, &mut n);
                sys::OTF2_Reader_CloseDefReader(r, d);
            }
            sys::OTF2_Reader_CloseDefFiles(r);
        }
        ok(sys::OTF2_Reader_OpenEvtFiles(r), 0)?;
        let e = sys::OTF2_Reader_GetEvtReader(r, location);
        if e.is_null() {
            return Err(fail("no event reader for this location", 0));
        }
        let callbacks = EvtCallbacks::new();
        let cb = callbacks.ptr();
        sys::OTF2_EvtReaderCallbacks_SetEnterCallback(cb, enter);
        sys::OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, leave);
        sys::OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, send);
        sys::OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, recv);
        sys::OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, isend);
        sys::OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, irecv);
        sys::OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, isend_complete);
        sys::OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, irecv_request);
        sys::OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, coll_begin);
        sys::OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, coll_end);
        sys::OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, buffer_flush);
        sys::OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, measurement);
        sys::OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, comm_create);
        sys::OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, comm_destroy);
        sys::OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, win_create);
        sys::OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, win_destroy);
        sys::OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, rma_coll);
        sys::OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, rma_group_sync);
        sys::OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, rma_lock);
        sys::OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, rma_lock);
        sys::OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb, rma_lock);
        sys::OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, rma_unlock);
        sys::OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, rma_xfer::<false>);
        sys::OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, rma_xfer::<true>);
        sys::OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, rma_atomic);
        sys::OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, rma_complete);
        sys::OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, rma_complete);
        ok(sys::OTF2_Reader_RegisterEvtCallbacks(r, e, cb, &mut sink as *mut Sink as *mut c_void), 0)?;
        let mut n = 0u64;
        let read = sys::OTF2_Reader_ReadAllLocalEvents(r, e, &mut n);
        ok(read, sink.evs.len())?;
        sys::OTF2_Reader_CloseEvtReader(r, e);
        ok(sys::OTF2_Reader_CloseEvtFiles(r), sink.evs.len())?;
    }
    Ok(sink.evs)
}
