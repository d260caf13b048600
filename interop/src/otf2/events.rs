//! One location's events, read through libotf2's event callbacks into a list (the callbacks
//! only collect; [`super::convert`] makes records of them).

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

/// Every event of `location` in the archive of `anchor`; on failure, libotf2's reason and
/// how many events were read before it.
pub fn read(anchor: &CString, location: u64, count_attr: Option<u32>) -> Result<Vec<Ev>, (String, usize)> {
    let mut sink = Sink { evs: Vec::new(), count_attr };
    super::quiet_errors();
    let fail = |what: &str, n: usize| (super::last_error(what), n);
    // SAFETY: the reader, its event reader and the callbacks are created, used and released
    // here; `evs` outlives the read that calls back into it.
    unsafe {
        let r = sys::OTF2_Reader_Open(anchor.as_ptr());
        if r.is_null() {
            return Err(fail("cannot open the archive", 0));
        }
        let result = (|| -> Result<(), (String, usize)> {
            let ok = |code: sys::ErrorCode, n: usize| {
                if code == sys::SUCCESS {
                    Ok(())
                } else {
                    Err((super::last_error(&sys::describe(code)), n))
                }
            };
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
            let cb = sys::OTF2_EvtReaderCallbacks_New();
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
            let reg = sys::OTF2_Reader_RegisterEvtCallbacks(r, e, cb, &mut sink as *mut Sink as *mut c_void);
            sys::OTF2_EvtReaderCallbacks_Delete(cb);
            ok(reg, 0)?;
            let mut n = 0u64;
            let read = sys::OTF2_Reader_ReadAllLocalEvents(r, e, &mut n);
            ok(read, sink.evs.len())?;
            sys::OTF2_Reader_CloseEvtReader(r, e);
            ok(sys::OTF2_Reader_CloseEvtFiles(r), sink.evs.len())
        })();
        sys::OTF2_Reader_Close(r);
        result?;
    }
    Ok(sink.evs)
}
