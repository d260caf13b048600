//! The part of libotf2's C API (OTF2 3.x, `<otf2/otf2.h>`) the exporter and importer use,
//! declared by hand from the headers: handles are opaque, enums are the headers' integer
//! typedefs (`OTF2_Paradigm` etc. are `uint8_t`; error and callback codes are C enums).
//! Linked by build.rs's probe (`cfg(has_otf2)`).

#![allow(non_camel_case_types, dead_code)]

use std::os::raw::{c_char, c_int, c_void};

pub type ErrorCode = c_int;
pub type CallbackCode = c_int;
pub type TimeStamp = u64;
pub const SUCCESS: ErrorCode = 0;
pub const CALLBACK_SUCCESS: CallbackCode = 0;
pub const CALLBACK_INTERRUPT: CallbackCode = 1;

pub const FILEMODE_WRITE: u8 = 0;
pub const SUBSTRATE_POSIX: u8 = 1;
pub const COMPRESSION_NONE: u8 = 1;
pub const FLUSH: u8 = 1;

pub const UNDEFINED_U32: u32 = u32::MAX;
pub const UNDEFINED_U64: u64 = u64::MAX;

pub const REGION_ROLE_FUNCTION: u8 = 1;
pub const REGION_ROLE_POINT2POINT: u8 = 28;
pub const REGION_ROLE_COLL_ONE2ALL: u8 = 23;
pub const PARADIGM_UNKNOWN: u8 = 0;
pub const PARADIGM_USER: u8 = 1;
pub const PARADIGM_MPI: u8 = 4;
pub const PARADIGM_COMPILER: u8 = 2;
pub const PARADIGM_OPENMP: u8 = 3;
pub const PARADIGM_MEASUREMENT_SYSTEM: u8 = 6;
pub const REGION_ROLE_ARTIFICIAL: u8 = 31;
pub const REGION_ROLE_FILE_IO: u8 = 27;
pub const REGION_ROLE_FILE_IO_METADATA: u8 = 38;
/// OTF2 3.0's paradigms by number (`OTF2_Paradigm`), from 0.
pub const PARADIGM_NAMES: [&str; 25] = [
    "UNKNOWN",
    "USER",
    "COMPILER",
    "OPENMP",
    "MPI",
    "CUDA",
    "MEASUREMENT_SYSTEM",
    "PTHREAD",
    "HMPP",
    "OMPSS",
    "HARDWARE",
    "GASPI",
    "UPC",
    "SHMEM",
    "WINTHREAD",
    "QTTHREAD",
    "ACETHREAD",
    "TBBTHREAD",
    "OPENACC",
    "OPENCL",
    "MTAPI",
    "SAMPLING",
    "NONE",
    "HIP",
    "KOKKOS",
];
pub const MEASUREMENT_ON: u8 = 1;
pub const LOCATION_TYPE_CPU_THREAD: u8 = 1;
pub const LOCATION_GROUP_TYPE_PROCESS: u8 = 1;
pub const GROUP_TYPE_COMM_LOCATIONS: u8 = 4;
pub const GROUP_TYPE_COMM_GROUP: u8 = 5;
pub const GROUP_TYPE_COMM_SELF: u8 = 6;
pub const TYPE_UINT64: u8 = 4;

/// `OTF2_COLLECTIVE_OP_*`: barrier 0 … reduce_scatter_block 16, create/destroy handle 17/18.
pub const COLL_CREATE_HANDLE: u8 = 17;
pub const COLL_DESTROY_HANDLE: u8 = 18;

#[repr(C)]
pub struct Opaque {
    _p: [u8; 0],
}
pub type Archive = Opaque;
pub type EvtWriter = Opaque;
pub type DefWriter = Opaque;
pub type GlobalDefWriter = Opaque;
pub type Reader = Opaque;
pub type GlobalDefReader = Opaque;
pub type DefReader = Opaque;
pub type EvtReader = Opaque;
pub type GlobalDefReaderCallbacks = Opaque;
pub type DefReaderCallbacks = Opaque;
pub type EvtReaderCallbacks = Opaque;
pub type AttributeList = Opaque;

#[repr(C)]
pub struct FlushCallbacks {
    pub pre_flush: extern "C" fn(*mut c_void, u8, u64, *mut c_void, bool) -> u8,
    pub post_flush: Option<extern "C" fn(*mut c_void, u8, u64) -> TimeStamp>,
}

pub type ErrorCallback =
    extern "C" fn(*mut c_void, *const c_char, u64, *const c_char, ErrorCode, *const c_char, *mut c_void) -> ErrorCode;

// Event callbacks: (location, time, user data, attributes, event fields…).
pub type EnterCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32) -> CallbackCode;
pub type P2pCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u32, u64) -> CallbackCode;
pub type IsendCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u32, u64, u64) -> CallbackCode;
pub type RequestCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u64) -> CallbackCode;
pub type CollBeginCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList) -> CallbackCode;
/// BufferFlush: … stop time; MeasurementOnOff: … mode.
pub type FlushCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, TimeStamp) -> CallbackCode;
pub type OnOffCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u8) -> CallbackCode;
/// CommCreate and CommDestroy (OTF2 3.0): the communicator.
pub type CommEvCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32) -> CallbackCode;
// One-sided (RMA) events: the window first.
/// RmaCollectiveEnd: operation, sync level, window, root, sent, received.
pub type RmaCollEndCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u8, u32, u32, u32, u64, u64) -> CallbackCode;
/// RmaGroupSync: sync level, window, group.
pub type RmaGroupSyncCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u32) -> CallbackCode;
/// RmaRequestLock, RmaAcquireLock, RmaTryLock: window, remote, lock id, lock type.
pub type RmaLockCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u64, u8) -> CallbackCode;
/// RmaReleaseLock: window, remote, lock id.
pub type RmaReleaseCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u64) -> CallbackCode;
/// RmaPut, RmaGet: window, remote, bytes, matching id.
pub type RmaXferCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u64, u64) -> CallbackCode;
/// RmaAtomic: window, remote, type, sent, received, matching id.
pub type RmaAtomicCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u32, u8, u64, u64, u64) -> CallbackCode;
/// RmaOpCompleteBlocking, -NonBlocking: window, matching id.
pub type RmaCompleteCb = extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u32, u64) -> CallbackCode;
pub const LOCK_EXCLUSIVE: u8 = 0;
pub const RMA_ATOMIC_TYPE_COMPARE_AND_SWAP: u8 = 3;
/// RmaWin definition: self, name, communicator, flags.
pub type RmaWinCb = extern "C" fn(*mut c_void, u32, u32, u32, u32) -> CallbackCode;
pub type CollEndCb =
    extern "C" fn(u64, TimeStamp, u64, *mut c_void, *mut AttributeList, u8, u32, u32, u64, u64) -> CallbackCode;

// Global definition callbacks: (user data, self, fields…).
pub type StringCb = extern "C" fn(*mut c_void, u32, *const c_char) -> CallbackCode;
pub type LocationCb = extern "C" fn(*mut c_void, u64, u32, u8, u64, u32) -> CallbackCode;
pub type RegionCb = extern "C" fn(*mut c_void, u32, u32, u32, u32, u8, u8, u32, u32, u32, u32) -> CallbackCode;
pub type GroupCb = extern "C" fn(*mut c_void, u32, u32, u8, u8, u32, u32, *const u64) -> CallbackCode;
pub type CommCb = extern "C" fn(*mut c_void, u32, u32, u32, u32, u32) -> CallbackCode;
/// InterComm (OTF2 3.0): self, name, group A, group B, common communicator, flags.
pub type InterCommCb = extern "C" fn(*mut c_void, u32, u32, u32, u32, u32, u32) -> CallbackCode;
pub type AttributeCb = extern "C" fn(*mut c_void, u32, u32, u32, u8) -> CallbackCode;
pub type ClockCb = extern "C" fn(*mut c_void, u64, u64, u64, u64) -> CallbackCode;

#[link(name = "otf2")]
extern "C" {
    pub fn OTF2_Error_RegisterCallback(cb: ErrorCallback, user: *mut c_void) -> ErrorCallback;
    pub fn OTF2_Error_GetDescription(code: ErrorCode) -> *const c_char;

    pub fn OTF2_Archive_Open(
        path: *const c_char,
        name: *const c_char,
        mode: u8,
        chunk_events: u64,
        chunk_defs: u64,
        substrate: u8,
        compression: u8,
    ) -> *mut Archive;
    pub fn OTF2_Archive_Close(a: *mut Archive) -> ErrorCode;
    pub fn OTF2_Archive_SetFlushCallbacks(a: *mut Archive, cb: *const FlushCallbacks, data: *mut c_void) -> ErrorCode;
    pub fn OTF2_Archive_SetSerialCollectiveCallbacks(a: *mut Archive) -> ErrorCode;
    pub fn OTF2_Archive_OpenEvtFiles(a: *mut Archive) -> ErrorCode;
    pub fn OTF2_Archive_CloseEvtFiles(a: *mut Archive) -> ErrorCode;
    pub fn OTF2_Archive_OpenDefFiles(a: *mut Archive) -> ErrorCode;
    pub fn OTF2_Archive_CloseDefFiles(a: *mut Archive) -> ErrorCode;
    pub fn OTF2_Archive_GetEvtWriter(a: *mut Archive, loc: u64) -> *mut EvtWriter;
    pub fn OTF2_Archive_CloseEvtWriter(a: *mut Archive, w: *mut EvtWriter) -> ErrorCode;
    pub fn OTF2_Archive_GetDefWriter(a: *mut Archive, loc: u64) -> *mut DefWriter;
    pub fn OTF2_Archive_CloseDefWriter(a: *mut Archive, w: *mut DefWriter) -> ErrorCode;
    pub fn OTF2_Archive_GetGlobalDefWriter(a: *mut Archive) -> *mut GlobalDefWriter;

    pub fn OTF2_EvtWriter_Enter(w: *mut EvtWriter, at: *mut AttributeList, t: TimeStamp, region: u32) -> ErrorCode;
    pub fn OTF2_EvtWriter_Leave(w: *mut EvtWriter, at: *mut AttributeList, t: TimeStamp, region: u32) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiSend(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        receiver: u32,
        comm: u32,
        tag: u32,
        len: u64,
    ) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiIsend(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        receiver: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    ) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiIsendComplete(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        req: u64,
    ) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiIrecvRequest(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        req: u64,
    ) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiRecv(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        sender: u32,
        comm: u32,
        tag: u32,
        len: u64,
    ) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiIrecv(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        sender: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    ) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiCollectiveBegin(w: *mut EvtWriter, at: *mut AttributeList, t: TimeStamp) -> ErrorCode;
    pub fn OTF2_EvtWriter_MpiCollectiveEnd(
        w: *mut EvtWriter,
        at: *mut AttributeList,
        t: TimeStamp,
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        received: u64,
    ) -> ErrorCode;

    pub fn OTF2_GlobalDefWriter_WriteClockProperties(
        w: *mut GlobalDefWriter,
        resolution: u64,
        offset: u64,
        length: u64,
        realtime: u64,
    ) -> ErrorCode;
    pub fn OTF2_AttributeList_New() -> *mut AttributeList;
    pub fn OTF2_AttributeList_Delete(l: *mut AttributeList) -> ErrorCode;
    pub fn OTF2_AttributeList_AddUint64(l: *mut AttributeList, attr: u32, v: u64) -> ErrorCode;
    pub fn OTF2_AttributeList_GetUint64(l: *const AttributeList, attr: u32, v: *mut u64) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteAttribute(
        w: *mut GlobalDefWriter,
        id: u32,
        name: u32,
        description: u32,
        ty: u8,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteString(w: *mut GlobalDefWriter, id: u32, s: *const c_char) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteSystemTreeNode(
        w: *mut GlobalDefWriter,
        id: u32,
        name: u32,
        class: u32,
        parent: u32,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteLocationGroup(
        w: *mut GlobalDefWriter,
        id: u32,
        name: u32,
        ty: u8,
        parent: u32,
        creating: u32,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteLocation(
        w: *mut GlobalDefWriter,
        id: u64,
        name: u32,
        ty: u8,
        events: u64,
        group: u32,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteRegion(
        w: *mut GlobalDefWriter,
        id: u32,
        name: u32,
        canonical: u32,
        description: u32,
        role: u8,
        paradigm: u8,
        flags: u32,
        file: u32,
        begin: u32,
        end: u32,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteGroup(
        w: *mut GlobalDefWriter,
        id: u32,
        name: u32,
        ty: u8,
        paradigm: u8,
        flags: u32,
        n: u32,
        members: *const u64,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefWriter_WriteComm(
        w: *mut GlobalDefWriter,
        id: u32,
        name: u32,
        group: u32,
        parent: u32,
        flags: u32,
    ) -> ErrorCode;

    pub fn OTF2_Reader_Open(anchor: *const c_char) -> *mut Reader;
    pub fn OTF2_Reader_Close(r: *mut Reader) -> ErrorCode;
    pub fn OTF2_Reader_SetSerialCollectiveCallbacks(r: *mut Reader) -> ErrorCode;
    pub fn OTF2_Reader_GetGlobalDefReader(r: *mut Reader) -> *mut GlobalDefReader;
    pub fn OTF2_Reader_RegisterGlobalDefCallbacks(
        r: *mut Reader,
        d: *mut GlobalDefReader,
        cb: *const GlobalDefReaderCallbacks,
        user: *mut c_void,
    ) -> ErrorCode;
    pub fn OTF2_Reader_ReadAllGlobalDefinitions(r: *mut Reader, d: *mut GlobalDefReader, n: *mut u64) -> ErrorCode;
    pub fn OTF2_Reader_CloseGlobalDefReader(r: *mut Reader, d: *mut GlobalDefReader) -> ErrorCode;
    pub fn OTF2_Reader_SelectLocation(r: *mut Reader, loc: u64) -> ErrorCode;
    pub fn OTF2_Reader_OpenDefFiles(r: *mut Reader) -> ErrorCode;
    pub fn OTF2_Reader_CloseDefFiles(r: *mut Reader) -> ErrorCode;
    pub fn OTF2_Reader_OpenEvtFiles(r: *mut Reader) -> ErrorCode;
    pub fn OTF2_Reader_CloseEvtFiles(r: *mut Reader) -> ErrorCode;
    pub fn OTF2_Reader_GetDefReader(r: *mut Reader, loc: u64) -> *mut DefReader;
    pub fn OTF2_Reader_ReadAllLocalDefinitions(r: *mut Reader, d: *mut DefReader, n: *mut u64) -> ErrorCode;
    pub fn OTF2_Reader_CloseDefReader(r: *mut Reader, d: *mut DefReader) -> ErrorCode;
    pub fn OTF2_Reader_GetEvtReader(r: *mut Reader, loc: u64) -> *mut EvtReader;
    pub fn OTF2_Reader_RegisterEvtCallbacks(
        r: *mut Reader,
        e: *mut EvtReader,
        cb: *const EvtReaderCallbacks,
        user: *mut c_void,
    ) -> ErrorCode;
    pub fn OTF2_Reader_ReadAllLocalEvents(r: *mut Reader, e: *mut EvtReader, n: *mut u64) -> ErrorCode;
    pub fn OTF2_Reader_CloseEvtReader(r: *mut Reader, e: *mut EvtReader) -> ErrorCode;

    pub fn OTF2_GlobalDefReaderCallbacks_New() -> *mut GlobalDefReaderCallbacks;
    pub fn OTF2_GlobalDefReaderCallbacks_Delete(cb: *mut GlobalDefReaderCallbacks);
    pub fn OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb: *mut GlobalDefReaderCallbacks, f: StringCb)
        -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetLocationCallback(
        cb: *mut GlobalDefReaderCallbacks,
        f: LocationCb,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb: *mut GlobalDefReaderCallbacks, f: RegionCb)
        -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb: *mut GlobalDefReaderCallbacks, f: GroupCb) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb: *mut GlobalDefReaderCallbacks, f: CommCb) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(
        cb: *mut GlobalDefReaderCallbacks,
        f: InterCommCb,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(
        cb: *mut GlobalDefReaderCallbacks,
        f: AttributeCb,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(
        cb: *mut GlobalDefReaderCallbacks,
        f: ClockCb,
    ) -> ErrorCode;

    pub fn OTF2_Reader_GetCreator(r: *mut Reader, creator: *mut *mut std::ffi::c_char) -> ErrorCode;
    /// The C library's, for what libotf2 hands over allocated with malloc.
    pub fn free(p: *mut c_void);
    pub fn OTF2_EvtReaderCallbacks_New() -> *mut EvtReaderCallbacks;
    pub fn OTF2_EvtReaderCallbacks_Delete(cb: *mut EvtReaderCallbacks);
    pub fn OTF2_EvtReaderCallbacks_SetEnterCallback(cb: *mut EvtReaderCallbacks, f: EnterCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetLeaveCallback(cb: *mut EvtReaderCallbacks, f: EnterCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb: *mut EvtReaderCallbacks, f: P2pCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb: *mut EvtReaderCallbacks, f: P2pCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb: *mut EvtReaderCallbacks, f: IsendCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb: *mut EvtReaderCallbacks, f: IsendCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb: *mut EvtReaderCallbacks, f: RequestCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb: *mut EvtReaderCallbacks, f: RequestCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(
        cb: *mut EvtReaderCallbacks,
        f: CollBeginCb,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb: *mut EvtReaderCallbacks, f: CollEndCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb: *mut EvtReaderCallbacks, f: FlushCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb: *mut EvtReaderCallbacks, f: OnOffCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb: *mut EvtReaderCallbacks, f: CommEvCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb: *mut EvtReaderCallbacks, f: CommEvCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb: *mut EvtReaderCallbacks, f: CommEvCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb: *mut EvtReaderCallbacks, f: CommEvCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(
        cb: *mut EvtReaderCallbacks,
        f: RmaCollEndCb,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb: *mut EvtReaderCallbacks, f: RmaGroupSyncCb)
        -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb: *mut EvtReaderCallbacks, f: RmaLockCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb: *mut EvtReaderCallbacks, f: RmaLockCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb: *mut EvtReaderCallbacks, f: RmaLockCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb: *mut EvtReaderCallbacks, f: RmaReleaseCb)
        -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb: *mut EvtReaderCallbacks, f: RmaXferCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb: *mut EvtReaderCallbacks, f: RmaXferCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb: *mut EvtReaderCallbacks, f: RmaAtomicCb) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(
        cb: *mut EvtReaderCallbacks,
        f: RmaCompleteCb,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(
        cb: *mut EvtReaderCallbacks,
        f: RmaCompleteCb,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb: *mut GlobalDefReaderCallbacks, f: RmaWinCb)
        -> ErrorCode;
}

/// libotf2's text for an error code.
pub fn describe(code: ErrorCode) -> String {
    // SAFETY: libotf2 returns a static NUL-terminated string for every code.
    let p = unsafe { OTF2_Error_GetDescription(code) };
    if p.is_null() {
        return format!("OTF2 error {code}");
    }
    unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
}
