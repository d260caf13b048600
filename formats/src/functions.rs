//! The MPI functions by id, from `c-headers/mpi_functions.tbl` (written by `build.rs`): the
//! ids the tracer's wrappers record (`Op::Other::func`, the tracer's per-function counts) and
//! the names readers print them with. Ids are stable: the table never renumbers.

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// The name of function `id`, if the table has one.
pub fn name_of(id: u32) -> Option<&'static str> {
    NAMES.get(id as usize).copied().filter(|n| !n.is_empty())
}

/// The id of the function named `name`. A `const fn`, so that a name missing from the table
/// is a compile-time error where a constant is looked up.
pub const fn id_of(name: &str) -> Option<u32> {
    let mut i = 0;
    while i < FUNCTIONS.len() {
        if eq(FUNCTIONS[i].1.as_bytes(), name.as_bytes()) {
            return Some(FUNCTIONS[i].0);
        }
        i += 1;
    }
    None
}

/// [`id_of`] of a name that must be in the table (a compile-time error in a constant if not).
pub const fn id(name: &str) -> u32 {
    match id_of(name) {
        Some(id) => id,
        None => panic!("an MPI function name missing from c-headers/mpi_functions.tbl"),
    }
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_agree_with_the_table() {
        // hand-checked against c-headers/mpi_functions.tbl
        assert_eq!(id_of("MPI_Allreduce"), Some(35));
        assert_eq!(name_of(35), Some("MPI_Allreduce"));
        assert_eq!(name_of(341), Some("MPI_Wtime"));
        assert_eq!(id_of("MPI_Nonexistent"), None);
        assert_eq!(name_of(0), None);
        assert_eq!(name_of(N_FUNCS as u32), None);
        for &(id, name, _) in FUNCTIONS {
            assert_eq!((name_of(id), id_of(name)), (Some(name), Some(id)));
        }
        const SEND: u32 = id("MPI_Send");
        assert_eq!(name_of(SEND), Some("MPI_Send"));
    }
}
