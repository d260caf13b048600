//! An OTF2 archive's global definitions as the importer needs them, read once through
//! libotf2's definition callbacks: the clock, the regions' names, which location is which MPI
//! rank, and the communicators with their members.

use super::handle::{GlobalDefCallbacks, LibError, Reader};
use super::sys;
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString};
use std::os::raw::c_char;

#[derive(Default)]
pub struct Defs {
    /// Ticks per second and the global offset.
    pub resolution: u64,
    pub offset: u64,
    strings: HashMap<u32, String>,
    region_names: HashMap<u32, u32>,
    region_paradigm: HashMap<u32, u8>,
    region_role: HashMap<u32, u8>,
    /// Locations in definition order, with their location group (process).
    pub locations: Vec<(u64, u32)>,
    /// Group → (type, paradigm, members).
    groups: HashMap<u32, (u8, u8, Vec<u64>)>,
    /// Communicator → (group, parent).
    comms: Vec<(u32, u32, u32)>,
    /// Intercommunicator (OTF2 3.0's InterComm) → (group A, group B, common communicator).
    inter_comms: Vec<(u32, u32, u32, u32)>,
    /// RMA window → the communicator it was created over.
    pub windows: HashMap<u32, u32>,
    attributes: HashMap<u32, u32>,
    /// The archive's creator (`OTF2_Reader_GetCreator`), e.g. "Score-P 8.4".
    pub creator: String,
}

/// A communicator of the trace: members as world ranks, its parent.
#[derive(Clone, Debug)]
pub struct CommInfo {
    pub members: Vec<u32>,
    pub parent: Option<u32>,
    /// MPI_COMM_SELF's group type (each rank alone).
    pub is_self: bool,
    /// An intercommunicator: how many of `members` (group A, then group B) are group A.
    pub inter: Option<u32>,
}

impl Defs {
    pub fn region(&self, r: u32) -> (&str, bool) {
        let name = self.region_names.get(&r).and_then(|s| self.strings.get(s)).map_or("", String::as_str);
        let mpi = self.region_paradigm.get(&r) == Some(&sys::PARADIGM_MPI) || name.starts_with("MPI_");
        (name, mpi)
    }

    /// What a region that is not MPI's is counted as when folded into computation: an
    /// artificial or measurement-system region (Score-P's `MEASUREMENT OFF`, `TRACE BUFFER
    /// FLUSH`) by its name, the others by their paradigm.
    pub fn fold_label(&self, r: u32) -> String {
        let paradigm = self.region_paradigm.get(&r).copied().unwrap_or(sys::PARADIGM_UNKNOWN);
        if self.region_role.get(&r) == Some(&sys::REGION_ROLE_ARTIFICIAL)
            || paradigm == sys::PARADIGM_MEASUREMENT_SYSTEM
        {
            return self.region(r).0.to_string();
        }
        // Score-P's POSIX and ISO C I/O wrappers (paradigm NONE), by their role.
        if matches!(self.region_role.get(&r), Some(&(sys::REGION_ROLE_FILE_IO | sys::REGION_ROLE_FILE_IO_METADATA))) {
            return "I/O regions".into();
        }
        match paradigm {
            sys::PARADIGM_USER => "user regions".into(),
            sys::PARADIGM_COMPILER => "compiler regions".into(),
            sys::PARADIGM_OPENMP => "OpenMP regions".into(),
            sys::PARADIGM_UNKNOWN => "regions of no paradigm".into(),
            p => match sys::PARADIGM_NAMES.get(p as usize) {
                Some(name) => format!("regions of paradigm {name}"),
                None => format!("regions of paradigm {p}"),
            },
        }
    }

    /// The locations besides `ranks` (other threads of a rank's process, or of none), each with
    /// the rank whose location group (process) it is in.
    pub fn others(&self, ranks: &[u64]) -> Vec<(Option<u32>, u64)> {
        let groups: HashMap<u64, u32> = self.locations.iter().copied().collect();
        let by_group: HashMap<u32, u32> =
            ranks.iter().enumerate().filter_map(|(r, l)| Some((*groups.get(l)?, r as u32))).collect();
        let ranks: std::collections::HashSet<u64> = ranks.iter().copied().collect();
        self.locations
            .iter()
            .filter(|(l, _)| !ranks.contains(l))
            .map(|&(l, g)| (by_group.get(&g).copied(), l))
            .collect()
    }

    /// The id of the attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<u32> {
        self.attributes.iter().find(|(_, s)| self.strings.get(s).is_some_and(|x| x == name)).map(|(a, _)| *a)
    }

    pub fn region_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.region_names.keys().copied()
    }

    /// The locations in MPI rank order: the `COMM_LOCATIONS` group of the MPI paradigm, else
    /// the first location of each location group (process: its master thread), in definition
    /// order.
    pub fn ranks(&self) -> Vec<u64> {
        let locations = |(t, p, _): &(u8, u8, Vec<u64>)| *t == sys::GROUP_TYPE_COMM_LOCATIONS && mpi(*p);
        let mut g: Vec<_> = self.groups.iter().filter(|(_, g)| locations(g)).collect();
        g.sort_by_key(|(id, _)| **id);
        match g.first() {
            Some((_, (_, _, m))) => m.clone(),
            None => {
                let mut seen = std::collections::HashSet::new();
                self.locations.iter().filter(|&&(_, g)| seen.insert(g)).map(|&(l, _)| l).collect()
            }
        }
    }

    /// The members (world ranks) of every MPI group of processes (a one-sided epoch's group).
    pub fn mpi_groups(&self) -> HashMap<u32, Vec<u32>> {
        self.groups
            .iter()
            .filter(|(_, (ty, p, _))| *ty == sys::GROUP_TYPE_COMM_GROUP && mpi(*p))
            .map(|(&g, (_, _, m))| (g, ranks_of(m)))
            .collect()
    }

    /// Every MPI communicator by its OTF2 id.
    pub fn comms(&self) -> HashMap<u32, CommInfo> {
        let mut out = HashMap::new();
        for &(id, group, parent) in &self.comms {
            let none = (sys::GROUP_TYPE_COMM_GROUP, sys::PARADIGM_MPI, Vec::new());
            let (ty, paradigm, members) = self.groups.get(&group).cloned().unwrap_or(none);
            // Another paradigm's (Score-P's OpenMP thread teams): its members are that
            // paradigm's locations, not MPI ranks.
            if !mpi(paradigm) {
                continue;
            }
            let members = ranks_of(&members);
            let parent = (parent != sys::UNDEFINED_U32).then_some(parent);
            out.insert(id, CommInfo { members, parent, is_self: ty == sys::GROUP_TYPE_COMM_SELF, inter: None });
        }
        // An intercommunicator's parent is the communicator it was made through (the peer
        // communicator of MPI_Intercomm_create, the intercommunicator a dup copied). A group
        // of OTF2's COMM_SELF type names no member: kept empty, refused where it is made.
        for &(id, a, b, common) in &self.inter_comms {
            let group = |g: u32| match self.groups.get(&g) {
                Some((ty, _, m)) if *ty != sys::GROUP_TYPE_COMM_SELF => ranks_of(m),
                _ => Vec::new(),
            };
            let (a, b): (Vec<u32>, Vec<u32>) = (group(a), group(b));
            let inter = Some(a.len() as u32);
            let members = a.into_iter().chain(b).collect();
            let parent = (common != sys::UNDEFINED_U32).then_some(common);
            out.insert(id, CommInfo { members, parent, is_self: false, inter });
        }
        out
    }
}

/// A group's members as ranks: one past u32 (a damaged group) stays out of range rather than
/// wrapping, for the importer's range checks to name.
fn ranks_of(members: &[u64]) -> Vec<u32> {
    members.iter().map(|&m| u32::try_from(m).unwrap_or(u32::MAX)).collect()
}

/// Whether a group of `paradigm` can be MPI's (MPI, or a writer that does not say).
fn mpi(paradigm: u8) -> bool {
    paradigm == sys::PARADIGM_MPI || paradigm == sys::PARADIGM_UNKNOWN
}

fn defs<'a>(user: *mut c_void) -> &'a mut Defs {
    // SAFETY: the user data registered below is a `&mut Defs` alive for the read.
    unsafe { &mut *(user as *mut Defs) }
}

extern "C" fn on_string(user: *mut c_void, id: u32, s: *const c_char) -> sys::CallbackCode {
    let text = if s.is_null() { String::new() } else { unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned() };
    defs(user).strings.insert(id, text);
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_location(user: *mut c_void, id: u64, _: u32, _: u8, _: u64, group: u32) -> sys::CallbackCode {
    defs(user).locations.push((id, group));
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_region(
    user: *mut c_void,
    id: u32,
    name: u32,
    _: u32,
    _: u32,
    role: u8,
    paradigm: u8,
    _: u32,
    _: u32,
    _: u32,
    _: u32,
) -> sys::CallbackCode {
    let d = defs(user);
    d.region_names.insert(id, name);
    d.region_paradigm.insert(id, paradigm);
    d.region_role.insert(id, role);
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_group(
    user: *mut c_void,
    id: u32,
    _: u32,
    ty: u8,
    paradigm: u8,
    _: u32,
    n: u32,
    members: *const u64,
) -> sys::CallbackCode {
    let m = if members.is_null() || n == 0 {
        Vec::new()
    } else {
        // SAFETY: libotf2 passes `n` members.
        unsafe { std::slice::from_raw_parts(members, n as usize) }.to_vec()
    };
    defs(user).groups.insert(id, (ty, paradigm, m));
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_comm(user: *mut c_void, id: u32, _: u32, group: u32, parent: u32, _: u32) -> sys::CallbackCode {
    defs(user).comms.push((id, group, parent));
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_inter_comm(
    user: *mut c_void,
    id: u32,
    _: u32,
    a: u32,
    b: u32,
    common: u32,
    _: u32,
) -> sys::CallbackCode {
    defs(user).inter_comms.push((id, a, b, common));
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_rma_win(user: *mut c_void, id: u32, _: u32, comm: u32, _: u32) -> sys::CallbackCode {
    defs(user).windows.insert(id, comm);
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_attribute(user: *mut c_void, id: u32, name: u32, _: u32, _: u8) -> sys::CallbackCode {
    defs(user).attributes.insert(id, name);
    sys::CALLBACK_SUCCESS
}

extern "C" fn on_clock(user: *mut c_void, resolution: u64, offset: u64, _: u64, _: u64) -> sys::CallbackCode {
    let d = defs(user);
    (d.resolution, d.offset) = (resolution, offset);
    sys::CALLBACK_SUCCESS
}

/// Why an archive's global definitions cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DefsError {
    #[error(transparent)]
    Library(#[from] LibError),
    #[error("the clock properties give 0 ticks per second")]
    ZeroResolution,
}

/// Reads the global definitions of the archive whose anchor file is `anchor`.
pub fn read(anchor: &CString) -> Result<Defs, DefsError> {
    let mut d = Defs { resolution: 1_000_000_000, ..Defs::default() };
    super::quiet_errors();
    let reader = Reader::open(anchor)?;
    let r = reader.ptr();
    // SAFETY: `r` is open while `reader` lives; the callbacks' set is copied when registered;
    // `d` outlives the read that calls back into it.
    unsafe {
        ok(sys::OTF2_Reader_SetSerialCollectiveCallbacks(r))?;
        let mut creator: *mut std::ffi::c_char = std::ptr::null_mut();
        if sys::OTF2_Reader_GetCreator(r, &mut creator) == sys::SUCCESS && !creator.is_null() {
            d.creator = CStr::from_ptr(creator).to_string_lossy().into_owned();
            sys::free(creator as *mut c_void);
        }
        let g = sys::OTF2_Reader_GetGlobalDefReader(r);
        if g.is_null() {
            return Err(LibError(super::last_error("no global definitions")).into());
        }
        let callbacks = GlobalDefCallbacks::new();
        let cb = callbacks.ptr();
        sys::OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
        sys::OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
        sys::OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
        sys::OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
        sys::OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
        sys::OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_inter_comm);
        sys::OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_rma_win);
        sys::OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
        sys::OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
        ok(sys::OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, &mut d as *mut Defs as *mut c_void))?;
        let mut n = 0u64;
        ok(sys::OTF2_Reader_ReadAllGlobalDefinitions(r, g, &mut n))?;
        ok(sys::OTF2_Reader_CloseGlobalDefReader(r, g))?;
    }
    if d.resolution == 0 {
        return Err(DefsError::ZeroResolution);
    }
    Ok(d)
}

/// libotf2's code as a result, its reason kept (the event reader's too).
pub(super) fn ok(code: sys::ErrorCode) -> Result<(), LibError> {
    if code == sys::SUCCESS {
        Ok(())
    } else {
        Err(LibError(super::last_error(&sys::describe(code))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Score-P's artificial regions by their names, the others by their paradigm.
    #[test]
    fn folded_regions_are_labelled_by_paradigm_or_artificial_name() {
        let mut d = Defs::default();
        let regions = [
            ("MEASUREMENT OFF", sys::REGION_ROLE_ARTIFICIAL, sys::PARADIGM_USER),
            ("TRACE BUFFER FLUSH", sys::REGION_ROLE_ARTIFICIAL, sys::PARADIGM_MEASUREMENT_SYSTEM),
            ("foo", sys::REGION_ROLE_FUNCTION, sys::PARADIGM_USER),
            ("main", sys::REGION_ROLE_FUNCTION, sys::PARADIGM_COMPILER),
            ("!$omp parallel", 5, sys::PARADIGM_OPENMP),
            ("x", sys::REGION_ROLE_FUNCTION, sys::PARADIGM_UNKNOWN),
            ("cudaMemcpy", sys::REGION_ROLE_FUNCTION, 5),
            ("write", sys::REGION_ROLE_FILE_IO, 22),
            ("open", sys::REGION_ROLE_FILE_IO_METADATA, 22),
            ("x", sys::REGION_ROLE_FUNCTION, 99),
        ];
        for (i, &(name, role, paradigm)) in regions.iter().enumerate() {
            let i = i as u32;
            d.strings.insert(i, name.into());
            d.region_names.insert(i, i);
            d.region_role.insert(i, role);
            d.region_paradigm.insert(i, paradigm);
        }
        let labels: Vec<String> = (0..regions.len() as u32).map(|r| d.fold_label(r)).collect();
        let want = [
            "MEASUREMENT OFF",
            "TRACE BUFFER FLUSH",
            "user regions",
            "compiler regions",
            "OpenMP regions",
            "regions of no paradigm",
            "regions of paradigm CUDA",
            "I/O regions",
            "I/O regions",
            "regions of paradigm 99",
        ];
        assert_eq!(labels, want);
    }

    /// Without an MPI COMM_LOCATIONS group: each process's first location is its rank; the
    /// others are its threads (or no rank's).
    #[test]
    fn ranks_without_the_mpi_locations_group_are_each_processs_first_location() {
        let t = 1u64 << 32;
        let d = Defs { locations: vec![(0, 0), (t, 0), (1, 1), (t | 1, 1), (9, 7)], ..Defs::default() };
        let ranks = d.ranks();
        assert_eq!(ranks, [0, 1, 9]);
        assert_eq!(d.others(&ranks), [(Some(0), t), (Some(1), t | 1)]);
        assert_eq!(d.others(&[0, 1]), [(Some(0), t), (Some(1), t | 1), (None, 9)]);
    }
}
