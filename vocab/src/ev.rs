//! `psins_ev`, the one struct that crosses from the C shim to the Rust core, defined once.
//!
//! The tracer's build script writes the C declaration from [`EV_FIELDS`] into
//! `OUT_DIR/psins_ev.h` (through `psins-shim-gen`), with a `_Static_assert` on its size and on
//! every field's offset; the tracer's `ffi.rs` asserts the same layout on the Rust side
//! (`OUT_DIR/ev_layout.rs`). A field added, removed, retyped or moved here changes both
//! sides at once; a hand edit of either side fails the build.

/// Declares the `#[repr(C)]` struct and [`EV_FIELDS`], its fields as the build script
/// needs them to write the C declaration.
macro_rules! c_struct {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident { $( $(#[doc = $doc:literal])* pub $field:ident : $rty:ty, )* }
    ) => {
        $(#[doc = $sdoc])*
        #[repr(C)]
        #[derive(Debug)]
        pub struct $name { $( $(#[doc = $doc])* pub $field: $rty, )* }

        /// Every field of [`Ev`] as (name, Rust type, doc lines), in declaration order.
        pub const EV_FIELDS: &[(&str, &str, &[&str])] = &[$((stringify!($field), stringify!($rty), &[$($doc),*])),*];
    };
}

c_struct! {
    /// One traced call, filled by the shim (C: `psins_ev`) and turned into a
    /// `psins_formats::Record` by the core. `kind` is a `psins_formats::Kind` code (C: `K_*`);
    /// the meaning of `sub` depends on it: SendMode (send kinds), WaitFn (wait), Coll (coll),
    /// CommFn (comm_create), function id (other), ProbeFlags (probe), thread level (init),
    /// RmaFn (rma), WinSyncFn (win_sync), WinFn (win_create), function id (other_req, whose
    /// `req` is the request it returned and `code` 1 if persistent). One-sided kinds: `comm` is the
    /// window id (0xFFFFFFFF: unknown); rma: `peer` the target, `bytes`/`bytes2` origin ->
    /// target / back, `req`; win_sync: `peer` the target or -3, `flags` WinFlags, the list the
    /// post/start group; win_create: `parent` its comm.
    pub struct Ev {
        /// clock ticks at entry
        pub t0: u64,
        /// clock ticks at exit
        pub t1: u64,
        /// psins_formats::Kind code
        pub kind: u32,
        /// depends on kind (see above)
        pub sub: u32,
        /// comm-local rank (psins sentinels)
        pub peer: i32,
        /// tag (psins sentinels)
        pub tag: i32,
        pub bytes: u64,
        /// receive side of sendrecv
        pub peer2: i32,
        pub tag2: i32,
        pub bytes2: u64,
        /// psins communicator id
        pub comm: u32,
        /// psins request id
        pub req: u32,
        /// parent comm (comm_create)
        pub parent: u32,
        /// CollFlags / PSINS_EV_*
        pub flags: u32,
        /// collective root
        pub root: i32,
        /// size of comm (-1: intercomm, no expansion)
        pub comm_size: i32,
        /// my rank in comm
        pub comm_rank: i32,
        /// abort code
        pub code: i32,
        /// reduction element count / number of requests / remote group size (comm_create of
        /// an intercommunicator)
        pub count: u64,
        /// record list (see psins_formats::record)
        pub list: *const i64,
        pub list_len: u64,
    }
}

/// `flags` bit beyond the CollFlags byte: a chained sub-record, gap = dur = 0.
pub const EV_NO_TIME: u32 = 0x100;
/// `flags` bit beyond the CollFlags byte: sendrecv_replace.
pub const EV_REPLACE: u32 = 0x200;

/// The `flags` bits above, as the C side names them (`PSINS_EV_<name>`).
pub const EV_FLAGS: &[(&str, u32, &str)] =
    &[("NO_TIME", EV_NO_TIME, "chained sub-record: gap = dur = 0"), ("REPLACE", EV_REPLACE, "sendrecv_replace")];

impl Ev {
    /// An event with no peers, communicator or list: the Init, Finalize and Abort records the
    /// tracer's Rust side writes itself.
    pub fn bare(t0: u64, t1: u64, kind: crate::record::Kind, sub: u32) -> Ev {
        Ev {
            t0,
            t1,
            kind: kind as u32,
            sub,
            peer: 0,
            tag: 0,
            bytes: 0,
            peer2: 0,
            tag2: 0,
            bytes2: 0,
            comm: 0,
            req: 0,
            parent: 0,
            flags: 0,
            root: crate::record::NO_RANK,
            comm_size: 0,
            comm_rank: 0,
            code: 0,
            count: 0,
            list: std::ptr::null(),
            list_len: 0,
        }
    }
}
