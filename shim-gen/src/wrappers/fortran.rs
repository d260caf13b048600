//! The wrappers of the Fortran bindings that bypass the C `MPI_*` functions: MPICH's mpi_f08,
//! and all of Open MPI's. Generated from the same table entries (`+f08`) as the C wrappers,
//! calling the same hooks, so a Fortran call records what the same C call records.

use super::{hook_calls, param_of, Func, Param};
use psins_vocab::how::{Hand, How};
use std::fmt::Write;

/// A Fortran binding ABI the generator wraps: whose symbols, and how what the hooks read
/// arrives. In both, every argument comes by reference, handles as Fortran integers, then
/// `ierror`, then gfortran's hidden `size_t` length of each character argument.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fortran {
    /// MPICH's mpi_f08 (`mpi_<name>_f08[ts]_`). Its `mpif.h`/`use mpi` bindings call the C
    /// `MPI_*` functions, which the C wrappers already see.
    MpichF08,
    /// Open MPI's `mpif.h`/`use mpi` (`mpi_<name>_`) and mpi_f08 (`mpi_<name>_f08_`) bindings,
    /// which call `PMPI_*`: the f08 ones forward their arguments unchanged to `ompi_<name>_f`
    /// (what `mpi_<name>_` aliases) or to `pmpi_<name>_`, so both have one ABI.
    OpenMpi,
}

pub(crate) const FORTRAN: [Fortran; 2] = [Fortran::MpichF08, Fortran::OpenMpi];

impl Fortran {
    /// What its MPI's mpi.h defines: the wrappers of the other MPI are not compiled.
    pub(crate) fn guard(self) -> &'static str {
        match self {
            Fortran::MpichF08 => "MPICH",
            Fortran::OpenMpi => "OPEN_MPI",
        }
    }

    pub(crate) fn banner(self) -> &'static str {
        match self {
            Fortran::MpichF08 => "mpi_f08 bindings (MPICH): they call PMPI_* directly, so wrap them too",
            Fortran::OpenMpi => {
                "Fortran bindings (Open MPI): mpif.h, use mpi and mpi_f08 call PMPI_*, so wrap them too"
            }
        }
    }

    /// The binding symbols of `f`, each wrapped on its own (with its own real symbol).
    fn symbols(self, f: &Func) -> Vec<String> {
        let lower = f.name.to_lowercase();
        match self {
            Fortran::MpichF08 => vec![f08_symbol(f)],
            Fortran::OpenMpi => vec![format!("{lower}_"), format!("{lower}_f08_")],
        }
    }

    /// The choice buffer argument `fa` as the C binding sees it.
    fn choice(self, fa: &str) -> String {
        match self {
            // a descriptor whose first field is the address
            Fortran::MpichF08 => {
                format!("({fa} && *(void **){fa} == (void *)&MPIR_F08_MPI_IN_PLACE) ? MPI_IN_PLACE : {fa}")
            }
            Fortran::OpenMpi => format!("psins_fo_buf({fa})"),
        }
    }

    /// The Fortran status type, its MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, and the
    /// conversion of one status to MPI_Status. Either status type has MPI_Status's layout, so
    /// an array of them is read in place.
    fn status(self) -> [&'static str; 4] {
        match self {
            Fortran::MpichF08 => {
                ["MPI_F08_status", "MPI_F08_STATUS_IGNORE", "MPI_F08_STATUSES_IGNORE", "PMPI_Status_f082c"]
            }
            Fortran::OpenMpi => {
                ["psins_fo_status", "PSINS_FO_STATUS_IGNORE", "PSINS_FO_STATUSES_IGNORE", "psins_fo_status_f2c"]
            }
        }
    }

    /// Whether the indices its Waitany/Testany/Waitsome/Testsome return are 1-based, as the
    /// standard says. MPICH 4.0.2's mpi_f08 returns the C (0-based) ones: an app's
    /// `MPI_Waitany` that completes the second request sets the index to 1 there, 2 with
    /// Open MPI. The tracer records which request really completed.
    fn one_based(self) -> bool {
        self == Fortran::OpenMpi
    }

    /// The C helpers its wrappers use, ahead of them.
    pub(crate) fn prelude(self) -> &'static str {
        match self {
            Fortran::MpichF08 => "",
            Fortran::OpenMpi => "#include \"fortran_ompi.h\"\n",
        }
    }
}

/// Appends `f`'s Fortran wrappers to the section of each binding ABI (one per `FORTRAN`).
pub(crate) fn add_fortran(sections: &mut [String], f: &Func) {
    for (abi, s) in FORTRAN.iter().zip(sections) {
        if f.how == How::HandWritten(Hand::Pcontrol) {
            s.push_str(&fortran_pcontrol(*abi, f));
        } else if f.how.is_hand_written() {
            s.push_str(&fortran_init(*abi, f));
        } else if f.f08 {
            for sym in abi.symbols(f) {
                s.push_str(&fortran_wrapper(*abi, f, &sym));
            }
        }
    }
}

/// A recorded function's Fortran binding, as far as built: its parameters, the conversions
/// to C before and after the call, and the arguments the hooks get.
#[derive(Default)]
struct FortranCall {
    params: Vec<String>,
    pre: String,
    post: String,
    cargs: Vec<String>,
}

/// The Fortran binding `sym` of `f`. Handles are converted with the f2c functions (identity
/// on MPICH); the hooks are the C wrapper's, so the record is the same.
fn fortran_wrapper(abi: Fortran, f: &Func, sym: &str) -> String {
    if matches!(f.how, How::Other | How::OtherReq | How::OtherComm) {
        return fortran_other_wrapper(f, sym);
    }
    if f.how == How::Count {
        return fortran_count_wrapper(f, sym);
    }
    let mut fargs: Vec<String> = f.params.iter().map(|p| format!("f_{}", p.name)).collect();
    fargs.push("ierror".into());
    let fa = fargs.join(", ");
    let untraced = format!("{{ psins_leave(); real({fa}); return; }}");
    let mut c = FortranCall::default();
    for p in &f.params {
        if let Err(NoConversion { ty }) = fortran_param(abi, f, p, &mut c, &untraced) {
            return format!("/* {}: no Fortran wrapper (parameter type `{ty}`) */\n", f.name);
        }
    }
    c.params.push("MPI_Fint *ierror".into());
    let (hpre, hpost) = hook_calls(f, &c.cargs);
    let mut s = String::new();
    fortran_head(&mut s, f, sym, &c.params.join(", "));
    let _ = writeln!(s, "    if (!psins_enter()) {{ real({fa}); return; }}");
    let _ = writeln!(s, "    psins_call T;");
    s.push_str(&c.pre);
    if let Some(h) = hpre {
        let _ = writeln!(s, "    {h};");
    }
    let _ = writeln!(s, "    psins_t0(&T);");
    let _ = writeln!(s, "    real({fa});");
    let _ = writeln!(s, "    psins_t1(&T);");
    let _ = writeln!(s, "    if (ierror && *ierror != MPI_SUCCESS && *ierror != MPI_ERR_IN_STATUS) {{ h_other(&T, {}); psins_leave(); return; }}", f.id);
    s.push_str(&c.post);
    let _ = writeln!(s, "    {hpost};");
    let _ = writeln!(s, "    psins_leave();");
    s.push_str("}\n\n");
    s
}

/// A parameter type (`const` dropped) with no Fortran conversion.
#[derive(Debug)]
struct NoConversion {
    ty: String,
}

/// Adds parameter `p` to `c`; Err(its type) if no Fortran conversion is known for it.
/// `untraced` leaves the call untraced (when a conversion finds no memory).
fn fortran_param(abi: Fortran, f: &Func, p: &Param, c: &mut FortranCall, untraced: &str) -> Result<(), NoConversion> {
    let n = &p.name;
    let fname = format!("f_{n}");
    let t = p.ty.replace("const ", "");
    match t.as_str() {
        "void*" => {
            c.params.push(format!("void *{fname}"));
            let _ = writeln!(c.pre, "    void *{n} = {};", abi.choice(&fname));
            c.cargs.push(n.clone());
        }
        "int" => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    int {n} = (int)*{fname}; (void){n};");
            c.cargs.push(n.clone());
        }
        "MPI_Count" | "MPI_Aint" => {
            c.params.push(format!("{t} *{fname}"));
            let _ = writeln!(c.pre, "    {t} {n} = *{fname}; (void){n};");
            c.cargs.push(n.clone());
        }
        "int*" => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    int {n}_v = 0;");
            if n == "indx" && abi.one_based() {
                let _ = writeln!(
                    c.post,
                    "    {n}_v = (*{fname} == MPI_UNDEFINED || *{fname} <= 0) ? MPI_UNDEFINED : (int)*{fname} - 1;"
                );
            } else {
                let _ = writeln!(c.post, "    {n}_v = (int)*{fname};");
            }
            c.cargs.push(format!("&{n}_v"));
        }
        "MPI_Comm" | "MPI_Datatype" | "MPI_Op" | "MPI_Group" | "MPI_Info" | "MPI_Win" | "MPI_Errhandler" => {
            let short = f2c_name(&t);
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    {t} {n} = MPI_{short}_f2c(*{fname}); (void){n};");
            c.cargs.push(n.clone());
        }
        "MPI_Comm*" | "MPI_Request*" | "MPI_Message*" | "MPI_Win*" => {
            let ct = t.trim_end_matches('*');
            let short = f2c_name(ct);
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    {ct} {n}_v = MPI_{short}_f2c(*{fname});");
            let _ = writeln!(c.post, "    {n}_v = MPI_{short}_f2c(*{fname});");
            c.cargs.push(format!("&{n}_v"));
        }
        "MPI_Status*" | "MPI_Status []" => fortran_status(abi, f, p, c),
        _ => return fortran_array(abi, f, p, c, untraced).ok_or_else(|| NoConversion { ty: t.clone() }),
    }
    Ok(())
}

/// A status or array of statuses: the hooks read the actual source, tag and size, so a local
/// one stands in for MPI_STATUS[ES]_IGNORE.
fn fortran_status(abi: Fortran, f: &Func, p: &Param, c: &mut FortranCall) {
    let n = &p.name;
    let fname = format!("f_{n}");
    let [fty, ignore, ignores, f2c] = abi.status();
    c.params.push(format!("{fty} *{fname}"));
    if p.ty == "MPI_Status*" {
        let _ = writeln!(c.pre, "    {fty} {n}_f; MPI_Status {n}_v;");
        let _ = writeln!(c.pre, "    if ({fname} == {ignore} || !{fname}) {fname} = &{n}_f;");
        let _ = writeln!(c.post, "    {f2c}({fname}, &{n}_v);");
        c.cargs.push(format!("&{n}_v"));
    } else {
        let _ = writeln!(
            c.pre,
            "    if ({fname} == {ignores} || !{fname}) {fname} = ({fty} *)psins_statuses({});",
            fortran_count(f)
        );
        c.cargs.push(format!("(MPI_Status *){fname}"));
    }
}

/// `*f_count` (or `*f_incount`): the length of the request and status arrays.
fn fortran_count(f: &Func) -> String {
    param_of(f, |p| p.name == "count" || p.name == "incount")
        .map(|p| format!("*f_{}", p.name))
        .unwrap_or_else(|| "0".into())
}

/// An array parameter; None if its type is not one.
fn fortran_array(abi: Fortran, f: &Func, p: &Param, c: &mut FortranCall, untraced: &str) -> Option<()> {
    let n = &p.name;
    let fname = format!("f_{n}");
    let t = p.ty.replace("const ", "");
    let ompi = abi == Fortran::OpenMpi;
    match t.as_str() {
        "int []" if n == "array_of_indices" && abi.one_based() => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    int *{n}_v = NULL;");
            let _ = writeln!(c.post, "    int {n}_n = outcount_v == MPI_UNDEFINED ? 0 : outcount_v;");
            let _ = writeln!(c.post, "    {n}_v = psins_ints((size_t)({n}_n > 0 ? {n}_n : 1), 0);");
            let _ = writeln!(c.post, "    if ({n}_v) for (int k = 0; k < {n}_n; k++) {n}_v[k] = (int){fname}[k] - 1;");
            c.cargs.push(format!("{n}_v"));
        }
        "int []" | "MPI_Count []" | "MPI_Aint []" => {
            let et = t.trim_end_matches(" []");
            let ft = if et == "int" { "MPI_Fint" } else { et };
            c.params.push(format!("{ft} *{fname}"));
            c.cargs.push(format!("({et} *){fname}"));
        }
        "MPI_Request []" if ompi => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    MPI_Request *{n}_v = psins_fo_requests({fname}, {});", fortran_count(f));
            let _ = writeln!(c.pre, "    if (!{n}_v) {untraced}");
            c.cargs.push(format!("{n}_v"));
        }
        "MPI_Datatype []" if ompi => {
            // read by the hook after the call; the send side means nothing in place
            let send = n.starts_with("send");
            let neighbor = f.name.to_lowercase().contains("neighbor") as u8; // MPI_Ineighbor_ too
            c.params.push(format!("MPI_Fint *{fname}"));
            let conv =
                format!("psins_fo_types({fname}, psins_fo_npeers(comm, {neighbor}, {}), {})", send as u8, send as u8);
            let inplace = if send && neighbor == 0 { "sendbuf == MPI_IN_PLACE ? NULL : " } else { "" };
            let _ = writeln!(c.pre, "    MPI_Datatype *{n}_v = NULL;");
            let _ = writeln!(c.post, "    {n}_v = {inplace}{conv};");
            c.cargs.push(format!("{n}_v"));
        }
        // MPICH handles are Fortran integers: same representation
        "MPI_Request []" | "MPI_Datatype []" => {
            let ct = t.trim_end_matches(" []");
            c.params.push(format!("MPI_Fint *{fname}"));
            c.cargs.push(format!("({ct} *){fname}"));
        }
        _ => return None,
    }
    Some(())
}

/// The start of every Fortran wrapper: what it wraps, and the real binding, looked up once
/// (`MPI_ERR_INTERN` when the MPI library has none).
fn fortran_head(s: &mut String, f: &Func, sym: &str, fp: &str) {
    let _ = writeln!(s, "/* {} ({}) as {sym} */", f.name, f.how);
    let _ = writeln!(s, "typedef void (*psins_f08_{sym}_t)({fp});");
    let _ = writeln!(s, "void {sym}({fp})\n{{");
    let _ = writeln!(s, "    static psins_f08_{sym}_t real;");
    let _ = writeln!(s, "    if (!real) real = (psins_f08_{sym}_t)dlsym(RTLD_NEXT, \"{sym}\");");
    let _ = writeln!(s, "    if (!real) {{ if (ierror) *ierror = MPI_ERR_INTERN; return; }}");
}

/// A local query: counted, no record (no conversion needed).
fn fortran_count_wrapper(f: &Func, sym: &str) -> String {
    let (fp, fa) = fortran_passthrough(f);
    let mut s = String::new();
    fortran_head(&mut s, f, sym, &fp);
    let _ = writeln!(s, "    psins_count({});", f.id);
    let _ = writeln!(s, "    real({fa});\n}}\n");
    s
}

/// `void *` parameters that are `type(c_ptr)` or `integer(MPI_ADDRESS_KIND)` in mpi_f08, not
/// choice buffers: they do not make the binding a `_f08ts_` one.
const F08_NOT_CHOICE: &[&str] = &["baseptr", "buffer_addr", "extra_state", "attribute_val"];

/// The MPICH mpi_f08 symbol of `f`: `mpi_<name>_f08_`, `_f08ts_` with a choice buffer,
/// `_large_` appended for the `_c` large-count variants.
fn f08_symbol(f: &Func) -> String {
    let base = f.name.strip_suffix("_c").unwrap_or(&f.name);
    let large = base.len() != f.name.len();
    let ts = f.params.iter().any(|p| p.ty.contains("void*") && !F08_NOT_CHOICE.contains(&p.name.as_str()));
    format!("{}_f08{}{}_", base.to_lowercase(), if ts { "ts" } else { "" }, if large { "_large" } else { "" })
}

/// The parameters and arguments of a Fortran binding passed through untouched: every
/// argument by reference (`void *`), `ierror`, then gfortran's hidden `size_t` length of each
/// character argument.
fn fortran_passthrough(f: &Func) -> (String, String) {
    let mut fparams: Vec<String> = f.params.iter().map(|p| format!("void *f_{}", p.name)).collect();
    let mut fargs: Vec<String> = f.params.iter().map(|p| format!("f_{}", p.name)).collect();
    fparams.push("MPI_Fint *ierror".into());
    fargs.push("ierror".into());
    for p in f.params.iter().filter(|p| p.ty.contains("char")) {
        fparams.push(format!("size_t f_{}_len", p.name));
        fargs.push(format!("f_{}_len", p.name));
    }
    (fparams.join(", "), fargs.join(", "))
}

/// The Fortran wrapper of an `other*` function: the record needs no argument, so every
/// argument is passed through untouched; only the request or communicator it returns is
/// converted, after the call, for `other_req` / `other_comm`.
fn fortran_other_wrapper(f: &Func, sym: &str) -> String {
    let (fp, fa) = fortran_passthrough(f);
    let pos = |pred: fn(&Param) -> bool| f.params.iter().rposition(pred);
    let out = match f.how {
        How::OtherReq => {
            pos(|p| p.ty == "MPI_Request*" || p.ty == "MPIO_Request*").map(|i| ("MPI_Request", "Request", i))
        }
        How::OtherComm => pos(|p| p.ty == "MPI_Comm*").map(|i| ("MPI_Comm", "Comm", i)),
        _ => None,
    };
    let mut s = String::new();
    fortran_head(&mut s, f, sym, &fp);
    let _ = writeln!(s, "    if (!psins_enter()) {{ real({fa}); return; }}");
    let _ = writeln!(s, "    psins_call T;");
    let _ = writeln!(s, "    psins_t0(&T);");
    let _ = writeln!(s, "    real({fa});");
    let _ = writeln!(s, "    psins_t1(&T);");
    let _ =
        writeln!(s, "    if (ierror && *ierror != MPI_SUCCESS) {{ h_other(&T, {}); psins_leave(); return; }}", f.id);
    // the hook reads only the returned handle: the other arguments are NULL
    let mut argv = vec!["NULL".to_string(); f.params.len()];
    if let Some((ct, short, i)) = out {
        let n = &f.params[i].name;
        let _ = writeln!(s, "    {ct} {n}_v = MPI_{short}_f2c(*(MPI_Fint *)f_{n});");
        argv[i] = format!("&{n}_v");
    }
    let (_, hpost) = hook_calls(f, &argv);
    let _ = writeln!(s, "    {hpost};");
    let _ = writeln!(s, "    psins_leave();");
    s.push_str("}\n\n");
    s
}

/// MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort in Fortran. Open MPI's bindings are
/// exactly the C call with `argc` = 0 and `argv` = NULL (`objdump -d` of `ompi_init_f` &
/// co.), so they call the C wrappers, which open, write and close the log. MPICH's mpi_f08
/// ones are hand-written in shim.c: its Fortran init does set-up of its own.
fn fortran_init(abi: Fortran, f: &Func) -> String {
    if abi == Fortran::MpichF08 {
        return String::new();
    }
    let syms = abi.symbols(f);
    let mut fparams = Vec::new();
    let mut cargs = Vec::new();
    for p in &f.params {
        let n = &p.name;
        match (p.ty.as_str(), n.as_str()) {
            (_, "argc" | "argv") => cargs.push(format!("&{n}")),
            ("int", _) => cargs.push(format!("(int)*f_{n}")),
            ("int*", _) => cargs.push(format!("(int *)f_{n}")),
            ("MPI_Comm", _) => cargs.push(format!("MPI_Comm_f2c(*f_{n})")),
            (t, _) => panic!("{}: no Fortran conversion for `{t}`", f.name),
        }
        if !matches!(n.as_str(), "argc" | "argv") {
            fparams.push(format!("MPI_Fint *f_{n}"));
        }
    }
    fparams.push("MPI_Fint *ierror".into());
    let fp = fparams.join(", ");
    let mut s = format!("/* {} ({}) as {} */\n", f.name, f.how, syms.join(", "));
    let _ = writeln!(s, "void {}({fp})\n{{", syms[0]);
    if f.params.iter().any(|p| p.name == "argc") {
        let _ = writeln!(s, "    int argc = 0; char **argv = NULL;");
    }
    let _ = writeln!(s, "    int rc = {}({});", f.name, cargs.join(", "));
    let _ = writeln!(s, "    if (ierror) *ierror = rc;\n}}");
    for alias in &syms[1..] {
        let _ = writeln!(s, "void {alias}({fp}) __attribute__((alias(\"{}\")));", syms[0]);
    }
    s.push('\n');
    s
}

/// MPI_Pcontrol's Fortran bindings that bypass the C function (MPICH's mpif.h / use mpi
/// binding calls it, and is traced there): they call the C wrapper, which records, pauses
/// and resumes (shim.c), as MPI's own bindings call `PMPI_Pcontrol`. The standard gives no
/// binding an `ierror`: MPICH's mpi_f08 takes an optional one (NULL when absent), Open MPI's
/// bindings none.
fn fortran_pcontrol(abi: Fortran, f: &Func) -> String {
    let syms = abi.symbols(f);
    let (params, body) = match abi {
        Fortran::MpichF08 => (
            "MPI_Fint *level, MPI_Fint *ierror",
            "    int rc = MPI_Pcontrol((int)*level);\n    if (ierror) *ierror = rc;\n",
        ),
        Fortran::OpenMpi => ("MPI_Fint *level", "    (void)MPI_Pcontrol((int)*level);\n"),
    };
    let mut s = format!("/* {} ({}) as {} */\n", f.name, f.how, syms.join(", "));
    let _ = writeln!(s, "void {}({params})\n{{\n{body}}}", syms[0]);
    for alias in &syms[1..] {
        let _ = writeln!(s, "void {alias}({params}) __attribute__((alias(\"{}\")));", syms[0]);
    }
    s.push('\n');
    s
}

/// `MPI_<x>_f2c` for a handle type.
fn f2c_name(t: &str) -> &'static str {
    match t {
        "MPI_Comm" => "Comm",
        "MPI_Datatype" => "Type",
        "MPI_Op" => "Op",
        "MPI_Group" => "Group",
        "MPI_Info" => "Info",
        "MPI_Win" => "Win",
        "MPI_Errhandler" => "Errhandler",
        "MPI_Request" => "Request",
        "MPI_Message" => "Message",
        _ => "Comm",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(line: &str) -> Func {
        psins_vocab::mpi_table::parse_table(line).unwrap().remove(0)
    }

    #[test]
    fn binding_symbols() {
        let send = func("5 send:std int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) +f08");
        assert_eq!(f08_symbol(&send), "mpi_send_f08ts_");
        let send_c = func("6 send:std int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) +f08");
        assert_eq!(f08_symbol(&send_c), "mpi_send_f08ts_large_");
        assert_eq!(f08_symbol(&func("43 coll:Barrier int MPI_Barrier(MPI_Comm comm) +f08")), "mpi_barrier_f08_");
        // baseptr is a type(c_ptr), not a choice buffer
        let alloc = func("9 win_allocate int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win) +f08");
        assert_eq!(f08_symbol(&alloc), "mpi_win_allocate_f08_");
        assert_eq!(Fortran::OpenMpi.symbols(&send), ["mpi_send_", "mpi_send_f08_"]);
    }

    #[test]
    fn only_f08_and_hand_written_functions_get_fortran_wrappers() {
        let mut sections = vec![String::new(); FORTRAN.len()];
        add_fortran(&mut sections, &func("8 other int MPI_Foo(int x)"));
        assert!(sections.iter().all(String::is_empty));
        add_fortran(&mut sections, &func("1 finalize int MPI_Finalize(void)"));
        assert!(sections[0].is_empty(), "MPICH's mpi_f08 init/finalize are hand-written in shim.c");
        assert!(sections[1].contains("void mpi_finalize_(MPI_Fint *ierror)\n{\n    int rc = MPI_Finalize();\n"));
    }

    /// Every Fortran binding of MPI_Pcontrol that does not call the C function gets a
    /// wrapper that does (with the ierror only MPICH's mpi_f08 has).
    #[test]
    fn pcontrol_bindings_call_the_c_wrapper() {
        let mut sections = vec![String::new(); FORTRAN.len()];
        add_fortran(&mut sections, &func("234 pcontrol int MPI_Pcontrol(const int level, ...)"));
        let mpich = "void mpi_pcontrol_f08_(MPI_Fint *level, MPI_Fint *ierror)\n{\n    \
                     int rc = MPI_Pcontrol((int)*level);\n    if (ierror) *ierror = rc;\n}\n";
        assert!(sections[0].contains(mpich), "{}", sections[0]);
        let ompi = "void mpi_pcontrol_(MPI_Fint *level)\n{\n    (void)MPI_Pcontrol((int)*level);\n}\n\
                    void mpi_pcontrol_f08_(MPI_Fint *level) __attribute__((alias(\"mpi_pcontrol_\")));\n";
        assert!(sections[1].contains(ompi), "{}", sections[1]);
    }

    /// A receive's Fortran wrapper converts what the hook reads (handles, the status) and
    /// records only after success, with the C wrapper's hook.
    #[test]
    fn a_receive_wrapper_converts_its_arguments() {
        let recv = func("301 recv int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) +f08");
        let w = fortran_wrapper(Fortran::MpichF08, &recv, "mpi_recv_f08ts_");
        for want in [
            "void mpi_recv_f08ts_(void *f_buf, MPI_Fint *f_count, MPI_Fint *f_datatype, MPI_Fint *f_source, \
             MPI_Fint *f_tag, MPI_Fint *f_comm, MPI_F08_status *f_status, MPI_Fint *ierror)\n{\n",
            "    MPI_Comm comm = MPI_Comm_f2c(*f_comm); (void)comm;\n",
            "    if (f_status == MPI_F08_STATUS_IGNORE || !f_status) f_status = &status_f;\n",
            "    if (ierror && *ierror != MPI_SUCCESS && *ierror != MPI_ERR_IN_STATUS) { h_other(&T, 301); psins_leave(); return; }\n",
            "    PMPI_Status_f082c(f_status, &status_v);\n",
            "    h_recv(&T, 301, buf, count, datatype, source, tag, comm, &status_v);\n",
        ] {
            assert!(w.contains(want), "missing {want:?} in\n{w}");
        }
        let w = fortran_wrapper(Fortran::OpenMpi, &recv, "mpi_recv_");
        assert!(w.contains("    void *buf = psins_fo_buf(f_buf);\n"), "{w}");
        assert!(w.contains("if (f_status == PSINS_FO_STATUS_IGNORE || !f_status)"), "{w}");
    }
}
