//! Owning wrappers over the libotf2 handles the importer and exporter create: each releases
//! its handle once, in `Drop`, on every path out (an early `?` included), so no code pairs an
//! open with its close by hand. Handles that libotf2 owns itself (a reader's definition and
//! event readers, an archive's writers) stay raw pointers, valid while their owner lives.

use super::sys;
use std::ffi::CStr;
use std::ptr::NonNull;

/// A libotf2 call failed: the library's reason, as [`super::last_error`] words it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LibError(pub String);

/// An archive opened for reading (`OTF2_Reader_Open`), closed on drop.
pub struct Reader(NonNull<sys::Reader>);

impl Reader {
    /// Opens the archive whose anchor file is `anchor`; libotf2's reason when it cannot.
    pub fn open(anchor: &CStr) -> Result<Reader, LibError> {
        // SAFETY: a valid C string; the handle is owned by the value returned.
        let r = unsafe { sys::OTF2_Reader_Open(anchor.as_ptr()) };
        NonNull::new(r).map(Reader).ok_or_else(|| LibError(super::last_error("cannot open the archive")))
    }

    pub fn ptr(&self) -> *mut sys::Reader {
        self.0.as_ptr()
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // SAFETY: opened by `open`, closed once here.
        unsafe { sys::OTF2_Reader_Close(self.0.as_ptr()) };
    }
}

/// A set of global definition callbacks, deleted on drop (libotf2 copies it when registered).
pub struct GlobalDefCallbacks(NonNull<sys::GlobalDefReaderCallbacks>);

impl GlobalDefCallbacks {
    pub fn new() -> GlobalDefCallbacks {
        // SAFETY: a fresh set, owned by the value returned.
        let cb = unsafe { sys::OTF2_GlobalDefReaderCallbacks_New() };
        GlobalDefCallbacks(NonNull::new(cb).expect("libotf2 allocates a callback set"))
    }

    pub fn ptr(&self) -> *mut sys::GlobalDefReaderCallbacks {
        self.0.as_ptr()
    }
}

impl Drop for GlobalDefCallbacks {
    fn drop(&mut self) {
        // SAFETY: made by `new`, deleted once here.
        unsafe { sys::OTF2_GlobalDefReaderCallbacks_Delete(self.0.as_ptr()) };
    }
}

/// A set of event callbacks, deleted on drop (libotf2 copies it when registered).
pub struct EvtCallbacks(NonNull<sys::EvtReaderCallbacks>);

impl EvtCallbacks {
    pub fn new() -> EvtCallbacks {
        // SAFETY: a fresh set, owned by the value returned.
        let cb = unsafe { sys::OTF2_EvtReaderCallbacks_New() };
        EvtCallbacks(NonNull::new(cb).expect("libotf2 allocates a callback set"))
    }

    pub fn ptr(&self) -> *mut sys::EvtReaderCallbacks {
        self.0.as_ptr()
    }
}

impl Drop for EvtCallbacks {
    fn drop(&mut self) {
        // SAFETY: made by `new`, deleted once here.
        unsafe { sys::OTF2_EvtReaderCallbacks_Delete(self.0.as_ptr()) };
    }
}

/// An attribute list (`OTF2_AttributeList_New`), deleted on drop.
pub struct AttributeList(NonNull<sys::AttributeList>);

impl AttributeList {
    pub fn new() -> AttributeList {
        // SAFETY: a fresh list, owned by the value returned.
        let a = unsafe { sys::OTF2_AttributeList_New() };
        AttributeList(NonNull::new(a).expect("libotf2 allocates an attribute list"))
    }

    pub fn ptr(&self) -> *mut sys::AttributeList {
        self.0.as_ptr()
    }
}

impl Drop for AttributeList {
    fn drop(&mut self) {
        // SAFETY: made by `new`, deleted once here.
        unsafe { sys::OTF2_AttributeList_Delete(self.0.as_ptr()) };
    }
}

/// An archive opened for writing (`OTF2_Archive_Open`). [`Archive::close`] closes it and gives
/// libotf2's code (a full disk shows there); dropped unclosed (an error path), it is closed
/// and the code ignored: the caller is already failing.
pub struct Archive(Option<NonNull<sys::Archive>>);

impl Archive {
    /// Wraps what `OTF2_Archive_Open` returned; None for its null.
    pub fn new(a: *mut sys::Archive) -> Option<Archive> {
        NonNull::new(a).map(|a| Archive(Some(a)))
    }

    pub fn ptr(&self) -> *mut sys::Archive {
        self.0.expect("open until closed").as_ptr()
    }

    pub fn close(mut self) -> sys::ErrorCode {
        let a = self.0.take().expect("closed once");
        // SAFETY: open until now, closed once.
        unsafe { sys::OTF2_Archive_Close(a.as_ptr()) }
    }
}

impl Drop for Archive {
    fn drop(&mut self) {
        if let Some(a) = self.0.take() {
            // SAFETY: still open (not closed by `close`).
            unsafe { sys::OTF2_Archive_Close(a.as_ptr()) };
        }
    }
}
