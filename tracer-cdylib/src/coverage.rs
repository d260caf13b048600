//! `docs/coverage.md`: every MPI function of the table and how the tracer handles it,
//! generated from `c-headers/mpi_functions.tbl` (`PSINS_BLESS=1 cargo test -p psins-tracer
//! coverage` rewrites it; the test fails when it is stale).

use crate::functions::FUNCTIONS;
use psins_vocab::how::{Hand, How, Posting};
use psins_vocab::record::WinSyncFn;

/// What a `how` of the table means, for people (the table's entry: the word, and ` +f08`).
pub fn describe(entry: &str) -> String {
    let (word, f08) = match entry.strip_suffix(" +f08") {
        Some(w) => (w, true),
        None => (entry, false),
    };
    let Ok(how) = How::parse(word) else { return entry.to_string() };
    let k = how.kind();
    let d = match how {
        How::None => "not wrapped (no time, no interest)".to_string(),
        How::Count => "counted only (local query); total in counts-NNNNNN.txt".to_string(),
        How::Other => "`other` record with this id".to_string(),
        How::OtherReq => {
            "`other_req` record with the id of the request it returns (its completion shows in `wait`)".to_string()
        }
        How::OtherComm => {
            "`other` record; the communicator it returns is registered (`comm_create`, func Other)".to_string()
        }
        How::CommIdup => "`other_req` record with the id of the request it returns (its completion shows in `wait`), then the new communicator's `comm_create` record (idup; size, rank and members read from the parent)".to_string(),
        How::HandWritten(Hand::Init | Hand::InitThread) => "`init` record (hand-written wrapper; opens the log)".to_string(),
        How::HandWritten(Hand::Finalize) => "`finalize` record (hand-written wrapper; writes and closes the log)".to_string(),
        How::HandWritten(Hand::Abort) => "`abort` record, log written out before PMPI_Abort".to_string(),
        How::HandWritten(Hand::Pcontrol) => {
            "`pcontrol` record (hand-written wrapper, reached from every Fortran binding too): level 0 pauses recording, 1 and above resume".to_string()
        }
        How::Send(p, _) => {
            let a = how.argument().unwrap_or_default();
            match p {
                Posting::Blocking => format!("`send` record, mode {a}"),
                Posting::Nonblocking => format!("`isend` record, mode {a}, request id"),
                Posting::Persistent => format!("`send_init` record, mode {a}, persistent request id"),
            }
        }
        How::Recv(Posting::Blocking) => "`recv` record with the actual source, tag, bytes".to_string(),
        How::Mrecv { nonblocking: false } => "`recv` record (actual source/tag/bytes; comm from the matching mprobe)".to_string(),
        How::Recv(Posting::Nonblocking) => "`irecv` record as posted; actual source/tag/bytes in its `wait` completion".to_string(),
        How::Mrecv { nonblocking: true } => "`irecv` record (source/tag from the matching improbe)".to_string(),
        How::Recv(Posting::Persistent) => "`recv_init` record, persistent request id".to_string(),
        How::Sendrecv { nonblocking: false, replace: false } => "`sendrecv` record (receive side actual)".to_string(),
        How::Sendrecv { nonblocking: false, replace: true } => "`sendrecv` record, replace".to_string(),
        How::Sendrecv { nonblocking: true, .. } => "`isend` + `irecv` records sharing one request id".to_string(),
        How::Probe { .. } => format!("`probe` record ({k}; actual source/tag/bytes when found)"),
        How::Start => "`start` record".to_string(),
        How::Startall => "`startall` record (request ids in the list)".to_string(),
        How::RequestFree => "`request_free` record".to_string(),
        How::Cancel => "`cancel` record".to_string(),
        How::Wait(_) => format!("`wait` record ({k}): completed requests with actual source/tag/bytes"),
        How::Coll(_) => format!("`coll` record ({}) + expansion steps", how.argument().unwrap_or_default()),
        How::CommNew(_) => format!("`comm_create` record ({}) with world-rank members (of an intercommunicator: local group, then remote group)", how.argument().unwrap_or_default()),
        How::CommFree => "`comm_free` record".to_string(),
        How::Rma { request: false, .. } => format!("`rma` record ({k}): target, window, bytes out and back"),
        How::Rma { request: true, .. } => {
            format!("`rma` record ({}) with a request id (its completion shows in `wait`)", &k[1..])
        }
        How::WinSync(WinSyncFn::Post | WinSyncFn::Start) => {
            format!("`win_sync` record ({}) with the group's members as world ranks", &k[4..])
        }
        How::WinSync(WinSyncFn::Lock) => "`win_sync` record (lock): target, exclusive or shared".to_string(),
        How::WinSync(WinSyncFn::Test) => "`win_sync` record (test): whether the exposure epoch ended".to_string(),
        How::WinSync(WinSyncFn::Unlock | WinSyncFn::Flush | WinSyncFn::FlushLocal) => {
            format!("`win_sync` record ({}): target", &k[4..])
        }
        How::WinSync(_) => format!("`win_sync` record ({})", &k[4..]),
        How::WinFree => "`win_free` record".to_string(),
        How::WinCreate(_) => format!("`win_create` record ({}): the window's communicator", &k[4..]),
    };
    if f08 {
        format!("{d}; mpi_f08 binding wrapped too")
    } else {
        d
    }
}

/// Why MPICH 4.0.2 has no mpi_f08 symbol for `name`, if it is one of [`NO_F08`].
pub fn no_f08_reason(name: &str) -> Option<&'static str> {
    NO_F08.contains(&name).then(|| {
        if name.ends_with("_c") {
            "no mpi_f08 binding in MPICH 4.0.2 (no `_large` variant): not wrapped in mpi_f08"
        } else {
            "removed in MPI-3, no mpi_f08 binding: not wrapped in mpi_f08"
        }
    })
}

/// The recorded functions without an mpi_f08 symbol in MPICH 4.0.2 (`nm -D libmpichfort.so`):
/// the MPI-1 functions removed in MPI-3 and the `_c` large-count variants MPICH binds in C only.
pub const NO_F08: &[&str] = &[
    "MPI_Type_hindexed",
    "MPI_Type_hvector",
    "MPI_Type_struct",
    "MPI_Errhandler_create",
    "MPI_Errhandler_get",
    "MPI_Errhandler_set",
    "MPI_Type_create_resized_c",
    "MPI_Op_create_c",
    "MPI_File_read_c",
    "MPI_File_read_all_c",
    "MPI_File_read_all_begin_c",
    "MPI_File_read_at_c",
    "MPI_File_read_at_all_c",
    "MPI_File_read_at_all_begin_c",
    "MPI_File_read_ordered_c",
    "MPI_File_read_ordered_begin_c",
    "MPI_File_read_shared_c",
    "MPI_File_write_c",
    "MPI_File_write_all_c",
    "MPI_File_write_all_begin_c",
    "MPI_File_write_at_c",
    "MPI_File_write_at_all_c",
    "MPI_File_write_at_all_begin_c",
    "MPI_File_write_ordered_c",
    "MPI_File_write_ordered_begin_c",
    "MPI_File_write_shared_c",
    "MPI_File_iread_c",
    "MPI_File_iread_all_c",
    "MPI_File_iread_at_c",
    "MPI_File_iread_at_all_c",
    "MPI_File_iread_shared_c",
    "MPI_File_iwrite_c",
    "MPI_File_iwrite_all_c",
    "MPI_File_iwrite_at_c",
    "MPI_File_iwrite_at_all_c",
    "MPI_File_iwrite_shared_c",
    "MPI_Register_datarep_c",
];

pub fn coverage_markdown() -> String {
    let mut s = String::from(
        "# MPI coverage of the psins tracer\n\n\
         Generated from `c-headers/mpi_functions.tbl` (the one table of MPI signatures) by\n\
         `PSINS_BLESS=1 cargo test -p psins-tracer coverage`; do not edit by hand.\n\
         Every function of MPICH 4.0.2's `mpi.h` (`mpi_proto.h` + `mpio.h`) is listed with its\n\
         stable id (the `func` of `other` records) and how the tracer handles it. `_c` are the\n\
         MPI-4 large-count variants. Calls of `count` and `other` functions are totalled per\n\
         rank in `counts-NNNNNN.txt` next to the logs. `+f08` marks every recorded function\n\
         except the ones MPICH's `mpi_f08` does not have. With MPICH, Fortran `mpif.h`/`use mpi`\n\
         calls reach the C wrappers and `+f08` functions are also wrapped under their `mpi_f08`\n\
         symbols. With Open MPI, whose Fortran bindings call `PMPI_*`, the `+f08` functions its\n\
         `mpi.h` declares are wrapped under both their `mpif.h`/`use mpi` symbol\n\
         (`mpi_<name>_`) and their `mpi_f08` one (`mpi_<name>_f08_`), and so are `MPI_Init`,\n\
         `MPI_Init_thread`, `MPI_Finalize`, `MPI_Abort` and `MPI_Pcontrol` (which MPICH's\n\
         `mpi_f08` binding has wrapped too).\n\n",
    );
    let mut by: std::collections::BTreeMap<String, usize> = Default::default();
    for &(_, _, how) in FUNCTIONS {
        *by.entry(how.trim_end_matches(" +f08").split(':').next().unwrap().to_string()).or_default() += 1;
    }
    s.push_str("| handling | functions |\n|---|---|\n");
    for (k, n) in &by {
        s.push_str(&format!("| {k} | {n} |\n"));
    }
    s.push_str(&format!("| **total** | **{}** |\n\n", FUNCTIONS.len()));
    s.push_str("| id | function | table entry | traced as |\n|---:|---|---|---|\n");
    for &(id, name, how) in FUNCTIONS {
        let mut d = describe(how);
        if let Some(why) = no_f08_reason(name) {
            d = format!("{d}; {why}");
        }
        s.push_str(&format!("| {id} | `{name}` | `{how}` | {d} |\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
    }

    #[test]
    fn coverage_doc_is_current() {
        let p = root().join("docs/coverage.md");
        let want = coverage_markdown();
        if std::env::var("PSINS_BLESS").is_ok() {
            std::fs::write(&p, &want).unwrap();
        }
        let have = std::fs::read_to_string(&p).unwrap_or_default();
        assert!(have == want, "docs/coverage.md is stale: run PSINS_BLESS=1 cargo test -p psins-tracer coverage");
    }

    /// Every MPI_* function declared by the installed MPICH headers is in the table.
    #[test]
    fn table_lists_every_function_of_mpi_h() {
        let mut names = BTreeSet::new();
        let mut seen_header = false;
        for dir in std::env::split_paths(crate::MPI_INCLUDE) {
            for f in ["mpi_proto.h", "mpio.h"] {
                let Ok(text) = std::fs::read_to_string(dir.join(f)) else { continue };
                seen_header = true;
                for line in text.lines() {
                    let l = line.trim_start();
                    // "int MPI_Send(" / "double MPI_Wtime(" / "MPI_Aint MPI_Aint_add(" at line start
                    let Some(p) = l.find(" MPI_") else { continue };
                    let head = &l[..p];
                    if head.contains(['(', ')', ';', '#']) || head.starts_with("typedef") {
                        continue;
                    }
                    if !matches!(
                        head.trim_start_matches("extern ").trim(),
                        "int" | "double" | "MPI_Aint" | "MPI_Count" | "MPI_Fint"
                    ) {
                        continue;
                    }
                    let rest = &l[p + 1..];
                    if let Some(q) = rest.find('(') {
                        names.insert(rest[..q].trim_start_matches('*').to_string());
                    }
                }
            }
        }
        if !seen_header {
            eprintln!("SKIP: no mpi_proto.h (not MPICH) in {}", crate::MPI_INCLUDE);
            return;
        }
        let table: BTreeSet<String> = FUNCTIONS.iter().map(|f| f.1.to_string()).collect();
        let missing: Vec<_> = names.difference(&table).collect();
        assert!(missing.is_empty(), "functions of mpi.h missing from c-headers/mpi_functions.tbl: {missing:?}");
        assert!(names.len() > 500, "parsed only {} names", names.len());
    }

    /// Every recorded function is wrapped in mpi_f08 too, but for the listed exceptions.
    #[test]
    fn recorded_functions_have_f08_wrappers() {
        let recorded = |entry: &str| {
            let how = How::parse(entry.trim_end_matches(" +f08")).unwrap();
            !matches!(how, How::None | How::Count | How::HandWritten(_))
        };
        let missing: BTreeSet<&str> =
            FUNCTIONS.iter().filter(|f| recorded(f.2) && !f.2.ends_with("+f08")).map(|f| f.1).collect();
        let want: BTreeSet<&str> = NO_F08.iter().copied().collect();
        assert_eq!(missing, want, "recorded functions without +f08 in c-headers/mpi_functions.tbl");
    }

    #[test]
    fn ids_are_unique_and_stable_names_resolve() {
        let ids: BTreeSet<u32> = FUNCTIONS.iter().map(|f| f.0).collect();
        assert_eq!(ids.len(), FUNCTIONS.len());
        assert_eq!(crate::functions::name_of(crate::functions::id_of("MPI_Send").unwrap()), Some("MPI_Send"));
    }
}
