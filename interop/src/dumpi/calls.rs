//! What the importer does with each dumpi function: the one place that says it. Every label of
//! the generated table ([`super::table`], read from sst-dumpi's sources) has its record's
//! layout, so any call can be read past; the lists here are the overrides over that table:
//! the functions made psins records, those refused (with why), and those whose folding loses
//! something psins would replay. Every other function is a call without communication, folded
//! into the computation around it.

use super::table::{self, Function, ALL_FUNCTIONS, FUNCTION_ENTER, FUNCTION_EXIT};
use std::sync::OnceLock;

/// What the importer does with a function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Take {
    /// Becomes a psins record (or, for a rank given MPI_COMM_NULL, time only).
    Record,
    /// A call without communication: read and dropped, its time counts as computation
    /// (docs/interop-dumpi.md). The group calls are followed (their members make the
    /// communicators MPI_Comm_create builds) and folded.
    Fold,
    /// Communication or I/O psins does not replay from a DUMPI trace (what it is): folded like
    /// [`Take::Fold`], said apart in the summary, refused by `psins-import --strict`.
    Unmodelled(&'static str),
    /// Refused, with why.
    Refuse(&'static str),
}

/// Made psins records by the decoder (stream.rs has a case for each).
const RECORD: &[&str] = &[
    "MPI_Send",
    "MPI_Recv",
    "MPI_Bsend",
    "MPI_Ssend",
    "MPI_Rsend",
    "MPI_Isend",
    "MPI_Ibsend",
    "MPI_Issend",
    "MPI_Irsend",
    "MPI_Irecv",
    "MPI_Wait",
    "MPI_Test",
    "MPI_Request_free",
    "MPI_Waitany",
    "MPI_Testany",
    "MPI_Waitall",
    "MPI_Testall",
    "MPI_Waitsome",
    "MPI_Testsome",
    "MPI_Iprobe",
    "MPI_Probe",
    "MPI_Send_init",
    "MPI_Bsend_init",
    "MPI_Ssend_init",
    "MPI_Rsend_init",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Cancel",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Alltoallw",
    "MPI_Reduce",
    "MPI_Reduce_scatter",
    "MPI_Allreduce",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_Comm_split",
    "MPI_Comm_free",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Finalize",
    "MPI_Abort",
];

const ONE_SIDED: &str = "one-sided communication";
const IO: &str = "MPI-IO";
const PROCESSES: &str = "a communicator the importer does not follow";

/// Folded with a warning; `--strict` refuses them.
const UNMODELLED: &[(&str, &str)] = &[
    ("MPI_Put", ONE_SIDED),
    ("MPI_Get", ONE_SIDED),
    ("MPI_Accumulate", ONE_SIDED),
    ("MPI_Win_create", ONE_SIDED),
    ("MPI_Win_free", ONE_SIDED),
    ("MPI_Win_fence", ONE_SIDED),
    ("MPI_Win_post", ONE_SIDED),
    ("MPI_Win_start", ONE_SIDED),
    ("MPI_Win_complete", ONE_SIDED),
    ("MPI_Win_wait", ONE_SIDED),
    ("MPI_Win_test", ONE_SIDED),
    ("MPI_Win_lock", ONE_SIDED),
    ("MPI_Win_unlock", ONE_SIDED),
    ("MPI_File_open", IO),
    ("MPI_File_close", IO),
    ("MPI_File_delete", IO),
    ("MPI_File_set_size", IO),
    ("MPI_File_preallocate", IO),
    ("MPI_File_set_view", IO),
    ("MPI_File_sync", IO),
    ("MPI_File_seek_shared", IO),
    ("MPI_Comm_spawn", PROCESSES),
    ("MPI_Comm_spawn_multiple", PROCESSES),
    ("MPI_Comm_accept", PROCESSES),
    ("MPI_Comm_connect", PROCESSES),
    ("MPI_Comm_join", PROCESSES),
    ("MPI_Comm_disconnect", PROCESSES),
];

/// MPI-IO data calls by name: every read and write (blocking, nonblocking, split, shared,
/// ordered) and MPIO_Test/Wait/... on their requests.
fn io(name: &str) -> bool {
    name.starts_with("MPIO_")
        || ["MPI_File_read", "MPI_File_write", "MPI_File_iread", "MPI_File_iwrite"].iter().any(|p| name.starts_with(p))
}

fn decide(f: &Function) -> Take {
    if f.fields.is_none() {
        return Take::Refuse("sst-dumpi has no reader for its records: their layout is not known");
    }
    if RECORD.contains(&f.name) {
        return Take::Record;
    }
    if let Some(&(_, what)) = UNMODELLED.iter().find(|r| r.0 == f.name) {
        return Take::Unmodelled(what);
    }
    if io(f.name) {
        return Take::Unmodelled(IO);
    }
    Take::Fold
}

/// Labels 0..=FUNCTION_EXIT: the function and what is done with it (None: not in the table).
fn by_label() -> &'static [Option<(&'static Function, Take)>] {
    static T: OnceLock<Vec<Option<(&'static Function, Take)>>> = OnceLock::new();
    T.get_or_init(|| {
        let mut v = vec![None; FUNCTION_EXIT as usize + 1];
        for f in &table::FUNCTIONS {
            v[f.label as usize] = Some((f, decide(f)));
        }
        v
    })
}

/// The table's function of `label` and how it is taken; None for a label outside the table.
pub fn take(label: u16) -> Option<(&'static Function, Take)> {
    by_label().get(label as usize).copied().flatten()
}

/// The function's name for messages.
pub fn name(label: u16) -> String {
    match take(label) {
        Some((f, _)) => f.name.to_string(),
        None => format!("dumpi function label {label}"),
    }
}

/// A label outside the table, for its message.
pub fn outside(label: u16) -> String {
    format!(
        "function label {label} is not in sst-dumpi {}'s table (labels 0..{ALL_FUNCTIONS}, {FUNCTION_ENTER} and \
         {FUNCTION_EXIT}): a damaged file, or one written by a dumpi whose labels differ",
        table::DUMPI_VERSION
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_listed_is_a_function_of_the_table() {
        let names: Vec<&str> = table::FUNCTIONS.iter().map(|f| f.name).collect();
        for n in RECORD.iter().chain(UNMODELLED.iter().map(|r| &r.0)) {
            assert!(names.contains(n), "{n} is not in the table");
        }
    }

    #[test]
    fn the_table_has_every_label_with_its_name() {
        for l in 0..ALL_FUNCTIONS {
            let (f, _) = take(l).unwrap_or_else(|| panic!("label {l}"));
            assert_eq!(f.label, l);
            assert!(f.name.starts_with("MPI_") || f.name.starts_with("MPIO_"), "{l}: {}", f.name);
        }
        // Labels as funclabels.h numbers them (the Blue Gene/P trace: 72, then 76, 85).
        let known = [
            (0, "MPI_Send"),
            (33, "MPI_Sendrecv"),
            (72, "MPI_Comm_group"),
            (76, "MPI_Group_incl"),
            (85, "MPI_Comm_create"),
            (86, "MPI_Comm_split"),
            (99, "MPI_Cart_create"),
            (111, "MPI_Cart_sub"),
            (124, "MPI_Init"),
            (171, "MPI_Init_thread"),
            (202, "MPI_Finalized"),
            (289, "MPIO_Testsome"),
        ];
        for (l, n) in known {
            assert_eq!(name(l), n, "label {l}");
        }
        assert_eq!((ALL_FUNCTIONS, FUNCTION_ENTER, FUNCTION_EXIT, table::END_OF_STREAM), (290, 291, 292, 293));
        assert!(take(ALL_FUNCTIONS).is_none() && take(table::END_OF_STREAM).is_none() && take(300).is_none());
        assert_eq!(name(FUNCTION_ENTER), "function entry");
    }

    #[test]
    fn layouts_read_from_the_sources() {
        use table::{Field, Kind, Len, Scalar, When};
        let fields = |l: u16| take(l).unwrap().0.fields.unwrap();
        let f = |name, kind, when| Field { name, kind, when };
        // MPI_Group_incl: group, count, ranks (count of them), newgroup.
        assert_eq!(
            fields(76),
            [
                f("group", Kind::Scalar(Scalar::Group), When::Always),
                f("count", Kind::Scalar(Scalar::Int), When::Always),
                f("ranks", Kind::Array(Scalar::Int, Len::Field(1)), When::Always),
                f("newgroup", Kind::Scalar(Scalar::Group), When::Always),
            ]
        );
        // MPI_Gather: the receive count and type only at the root.
        assert_eq!(fields(54)[5], f("recvcount", Kind::Scalar(Scalar::Int), When::Equal(0, 3)));
        // MPI_Init: argc, then that many strings without a count of their own.
        assert_eq!(fields(124)[1], f("argv", Kind::Argv(0), When::Always));
        // MPI_Group_range_incl: count triplets.
        assert_eq!(fields(78)[2], f("ranges", Kind::IntArrays(Len::Field(1)), When::Always));
        assert_eq!((Scalar::Comm.bytes(), Scalar::Op.bytes(), Scalar::Int64.bytes()), (2, 1, 8));
        assert_eq!(take(128).unwrap().0.fields, None, "MPI_Pcontrol: no reader in sst-dumpi");
    }

    #[test]
    fn what_is_done_with_some() {
        let t = |l: u16| take(l).unwrap().1;
        assert_eq!(t(85), Take::Record);
        assert_eq!(t(72), Take::Fold);
        assert_eq!(t(82), Take::Fold);
        assert_eq!(t(143), Take::Unmodelled(ONE_SIDED));
        assert_eq!(t(250), Take::Unmodelled(IO));
        assert_eq!(t(285), Take::Unmodelled(IO));
        assert_eq!(t(24), Take::Record);
        assert!(matches!(t(128), Take::Refuse(_)));
        assert_eq!(t(FUNCTION_ENTER), Take::Fold);
    }
}
