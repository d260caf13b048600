//! What crosses the C ⇄ Rust boundary, written for C from its one Rust definition:
//! `psins_ev.h` (the record codes of `vocab/src/record.rs`, the `psins_ev` struct of
//! `vocab/src/ev.rs` with `_Static_assert`s on its layout) and `ev_layout.rs` (the same layout
//! asserted on the Rust side, included by the tracer's `src/ffi.rs`). The tracer's Rust core
//! needs no copy of the codes: it matches `Ev.kind` as a `Kind` (`tracer-cdylib/src/core.rs`).
//!
//! The expected layout is computed here by the C rules (each field aligned to its size, the
//! struct to its largest field) and then asserted by *both* compilers: neither side's layout
//! is trusted to be the other's.

use psins_vocab::ev::{EV_FIELDS, EV_FLAGS};
use psins_vocab::record::{
    Coll, CollFlags, CommFn, Kind, ProbeFlags, RmaFn, SendMode, WaitFn, WinFlags, WinFn, WinSyncFn, ANY_SOURCE,
    ANY_TAG, COMM_NULL, NO_RANK, NO_REQUEST, PROC_NULL,
};
use std::fmt::{self, Write as _};

/// One C `enum` of named codes, from one Rust enum or set of constants.
pub struct CEnum {
    /// Where the codes come from, for the comment.
    pub from: &'static str,
    pub members: Vec<(String, i64)>,
}

/// `ReduceScatterBlock` → `REDUCE_SCATTER_BLOCK`.
pub fn upper_snake(camel: &str) -> String {
    let mut s = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(c.to_ascii_uppercase());
    }
    s
}

/// The record codes the shim uses, under the names it has always used: `K_<kind>`,
/// `PSINS_MODE_<mode>`, `W_<fn>`, `C_<coll>`, `PSINS_COMMFN_<CommFn>` (CamelCase: the table's
/// `comm_new:FN` names the variant), `RMA_`, `WS_`, `WF_`, and the flag bits. A new variant
/// of one of these enums appears in C by itself; a new enum or flag set is added here.
pub fn code_enums() -> Vec<CEnum> {
    fn e<T: Copy>(from: &'static str, all: &[T], name: impl Fn(T) -> String, code: impl Fn(T) -> u8) -> CEnum {
        CEnum { from, members: all.iter().map(|&v| (name(v), code(v) as i64)).collect() }
    }
    vec![
        e("psins_formats::Kind", &Kind::ALL, |k| format!("K_{}", k.name().to_uppercase()), |k| k as u8),
        e(
            "psins_formats::SendMode",
            SendMode::ALL,
            |m| format!("PSINS_MODE_{}", upper_snake(m.name())),
            SendMode::code,
        ),
        e("psins_formats::WaitFn", WaitFn::ALL, |f| format!("W_{}", upper_snake(f.name())), WaitFn::code),
        e("psins_formats::Coll", Coll::ALL, |c| format!("C_{}", upper_snake(c.name())), Coll::code),
        e("psins_formats::CommFn", CommFn::ALL, |f| format!("PSINS_COMMFN_{}", f.name()), CommFn::code),
        e("psins_formats::RmaFn", RmaFn::ALL, |f| format!("RMA_{}", upper_snake(f.name())), RmaFn::code),
        e("psins_formats::WinSyncFn", WinSyncFn::ALL, |f| format!("WS_{}", upper_snake(f.name())), WinSyncFn::code),
        e("psins_formats::WinFn", WinFn::ALL, |f| format!("WF_{}", upper_snake(f.name())), WinFn::code),
        CEnum {
            from: "psins_formats::CollFlags",
            members: vec![
                ("CF_NONBLOCKING".into(), CollFlags::NONBLOCKING as i64),
                ("CF_IN_PLACE".into(), CollFlags::IN_PLACE as i64),
                ("CF_OP_BUILTIN".into(), CollFlags::OP_BUILTIN as i64),
                ("CF_OP_COMMUTATIVE".into(), CollFlags::OP_COMMUTATIVE as i64),
            ],
        },
        CEnum {
            from: "psins_formats::ProbeFlags",
            members: vec![
                ("PF_BLOCKING".into(), ProbeFlags::BLOCKING as i64),
                ("PF_FOUND".into(), ProbeFlags::FOUND as i64),
                ("PF_MATCHED".into(), ProbeFlags::MATCHED as i64),
            ],
        },
        CEnum {
            from: "psins_formats::WinFlags",
            members: vec![
                ("WIN_EXCLUSIVE".into(), WinFlags::EXCLUSIVE as i64),
                ("WIN_DONE".into(), WinFlags::DONE as i64),
            ],
        },
        CEnum {
            from: "psins_formats rank and tag sentinels, NO_REQUEST",
            members: vec![
                ("PSINS_ANY_SOURCE".into(), ANY_SOURCE as i64),
                ("PSINS_PROC_NULL".into(), PROC_NULL as i64),
                ("PSINS_NO_RANK".into(), NO_RANK as i64),
                ("PSINS_ANY_TAG".into(), ANY_TAG as i64),
                ("PSINS_NO_REQUEST".into(), NO_REQUEST as i64),
            ],
        },
    ]
}

/// A Rust type that cannot cross to C.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeError {
    /// `*` followed by neither `const` nor `mut`.
    Pointer(String),
    /// A pointer to something other than a fixed-size integer.
    PointerTarget(String),
    /// Neither a fixed-size integer nor a pointer.
    NoCType(String),
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TypeError::Pointer(t) => write!(f, "cannot read the pointer type `{t}`"),
            TypeError::PointerTarget(t) => write!(f, "no C type for `{t}` (pointers to fixed-size integers only)"),
            TypeError::NoCType(t) => write!(f, "no C type for `{t}` (fixed-size integers and pointers only)"),
        }
    }
}

impl std::error::Error for TypeError {}

/// A field of `Ev` whose type cannot cross to C.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    pub error: TypeError,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Ev.{}: {}", self.field, self.error)
    }
}

impl std::error::Error for FieldError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The C type of a field's Rust type and its size (= its alignment, for these types), for a
/// target with `ptr_bytes`-byte pointers. Only fixed-size integers and raw pointers to them
/// may cross: anything else is refused rather than guessed.
pub fn c_type(rust: &str, ptr_bytes: usize) -> Result<(String, usize), TypeError> {
    let rust = rust.trim();
    let int = |t: &str| -> Option<(&'static str, usize)> {
        Some(match t {
            "u64" => ("uint64_t", 8),
            "i64" => ("int64_t", 8),
            "u32" => ("uint32_t", 4),
            "i32" => ("int32_t", 4),
            "u16" => ("uint16_t", 2),
            "i16" => ("int16_t", 2),
            "u8" => ("uint8_t", 1),
            "i8" => ("int8_t", 1),
            _ => return None,
        })
    };
    if let Some(p) = rust.strip_prefix('*') {
        let p = p.trim_start();
        let (konst, inner) = match (p.strip_prefix("const "), p.strip_prefix("mut ")) {
            (Some(i), _) => ("const ", i.trim()),
            (_, Some(i)) => ("", i.trim()),
            _ => return Err(TypeError::Pointer(rust.to_string())),
        };
        let (c, _) = int(inner).ok_or_else(|| TypeError::PointerTarget(rust.to_string()))?;
        return Ok((format!("{konst}{c} *"), ptr_bytes));
    }
    let (c, n) = int(rust).ok_or_else(|| TypeError::NoCType(rust.to_string()))?;
    Ok((c.to_string(), n))
}

/// A field of the C struct as laid out by the C rules.
pub struct CField {
    pub name: &'static str,
    pub c_type: String,
    pub offset: usize,
    pub doc: String,
}

/// The C struct's fields and its size, for `ptr_bytes`-byte pointers.
pub fn ev_layout(ptr_bytes: usize) -> Result<(Vec<CField>, usize), FieldError> {
    let mut fields = Vec::new();
    let (mut end, mut align) = (0usize, 1usize);
    for &(name, rust, doc) in EV_FIELDS {
        let (c_type, size) = c_type(rust, ptr_bytes).map_err(|error| FieldError { field: name, error })?;
        let offset = end.next_multiple_of(size);
        end = offset + size;
        align = align.max(size);
        let doc = doc.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        fields.push(CField { name, c_type, offset, doc });
    }
    Ok((fields, end.next_multiple_of(align)))
}

/// The generated files: the C header and the Rust layout assertions.
pub struct Boundary {
    pub header: String,
    pub rust: String,
}

/// Writes `psins_ev.h` and `ev_layout.rs` for a target with `ptr_bytes`-byte pointers.
pub fn generate(ptr_bytes: usize) -> Result<Boundary, FieldError> {
    let (fields, size) = ev_layout(ptr_bytes)?;
    let mut h = String::from(
        "/* generated by tracer-cdylib/build.rs (shim-gen/src/boundary.rs) from vocab/src/record.rs and\n \
         * vocab/src/ev.rs: do not edit. The record codes and psins_ev, the struct the\n \
         * shim hands to the Rust core; the _Static_asserts check that the C compiler lays it\n \
         * out as the Rust one does (ffi.rs asserts the same numbers on the Rust side). */\n\
         #ifndef PSINS_EV_H\n#define PSINS_EV_H\n#include <stddef.h>\n#include <stdint.h>\n\n",
    );
    for e in code_enums() {
        let _ = writeln!(h, "/* {} */\nenum {{", e.from);
        for (name, v) in &e.members {
            let _ = writeln!(h, "    {name} = {v},");
        }
        h.push_str("};\n");
    }
    // COMM_NULL is u32::MAX: beyond an int enum
    let _ = writeln!(h, "/* psins_formats::COMM_NULL: a constructor that returned MPI_COMM_NULL on this rank */");
    let _ = writeln!(h, "#define PSINS_NO_COMM {COMM_NULL:#X}u\n");
    for &(name, v, doc) in EV_FLAGS {
        let _ = writeln!(h, "#define PSINS_EV_{name} {v:#x}u /* psins_ev.flags: {doc} */");
    }
    h.push_str("\n/* vocab/src/ev.rs: Ev */\ntypedef struct psins_ev {\n");
    for f in &fields {
        let sep = if f.c_type.ends_with('*') { "" } else { " " };
        let doc = if f.doc.is_empty() { String::new() } else { format!(" /* {} */", f.doc) };
        let _ = writeln!(h, "    {}{sep}{};{doc}", f.c_type, f.name);
    }
    h.push_str("} psins_ev;\n\n");
    let _ = writeln!(
        h,
        "_Static_assert(sizeof(psins_ev) == {size}, \"psins_ev: not the size of the Rust Ev (vocab/src/ev.rs)\");"
    );
    for f in &fields {
        let _ = writeln!(
            h,
            "_Static_assert(offsetof(psins_ev, {0}) == {1}, \"psins_ev.{0}: not at the offset of the Rust Ev.{0}\");",
            f.name, f.offset
        );
    }
    h.push_str("\n#endif\n");

    let mut r = String::from(
        "// generated by tracer-cdylib/build.rs (shim-gen/src/boundary.rs): the layout psins_ev.h asserts in C\n",
    );
    let _ = writeln!(
        r,
        "const _: () = assert!(::core::mem::size_of::<Ev>() == {size}, \"Ev: not the size of psins_ev in C\");"
    );
    for f in &fields {
        let _ = writeln!(
            r,
            "const _: () = assert!(::core::mem::offset_of!(Ev, {0}) == {1}, \"Ev.{0}: not at the offset of psins_ev.{0} in C\");",
            f.name, f.offset
        );
    }
    Ok(Boundary { header: h, rust: r })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Compiles `src` as C (syntax and static assertions only); the compiler's stderr on failure.
    fn compile(src: &str) -> Result<(), String> {
        let dir = std::env::temp_dir().join(format!("psins-boundary-{}-{:p}", std::process::id(), src));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("t.c");
        std::fs::write(&file, src).unwrap();
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(&cc).args(["-std=c11", "-fsyntax-only"]).arg(&file).output();
        let _ = std::fs::remove_dir_all(&dir);
        let out = out.unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    #[test]
    fn every_code_is_its_rust_value() {
        let h = generate(8).unwrap().header;
        for k in Kind::ALL {
            assert!(h.contains(&format!("    K_{} = {},\n", k.name().to_uppercase(), k as u8)), "{k:?}");
        }
        assert!(h.contains("    C_REDUCE_SCATTER_BLOCK = 14,\n"));
        assert!(h.contains("    PSINS_MODE_SYNCHRONOUS = 1,\n"));
        assert!(h.contains("    PSINS_COMMFN_SplitType = 2,\n"));
        assert!(h.contains("    RMA_COMPARE_AND_SWAP = 5,\n"));
        assert!(h.contains("    WS_FLUSH_LOCAL_ALL = 13,\n"));
        assert!(h.contains("    PSINS_NO_RANK = -3,\n"));
        assert!(h.contains("#define PSINS_NO_COMM 0xFFFFFFFFu\n"));
        assert!(h.contains("#define PSINS_EV_REPLACE 0x200u"));
        assert!(h.contains("    K_WAIT = 15,\n"));
    }

    /// Hand-computed: t0 t1 (16) kind sub peer tag (32) bytes (40) peer2 tag2 (48) bytes2
    /// (56) comm req parent flags (72) root comm_size comm_rank code (88) count (96) list
    /// (104) list_len (112).
    #[test]
    fn the_layout_is_the_hand_computed_one() {
        let (fields, size) = ev_layout(8).unwrap();
        assert_eq!(size, 112);
        let at = |n: &str| fields.iter().find(|f| f.name == n).unwrap().offset;
        assert_eq!((at("t0"), at("kind"), at("bytes"), at("bytes2"), at("root")), (0, 16, 32, 48, 72));
        assert_eq!((at("count"), at("list"), at("list_len")), (88, 96, 104));
        assert_eq!(size_of::<psins_vocab::ev::Ev>(), size);
    }

    #[test]
    fn c_types() {
        assert_eq!(c_type("*const i64", 8).unwrap(), ("const int64_t *".to_string(), 8));
        assert_eq!(c_type("*mut u32", 4).unwrap(), ("uint32_t *".to_string(), 4));
        assert_eq!(c_type("i32", 8).unwrap(), ("int32_t".to_string(), 4));
        assert!(c_type("usize", 8).unwrap_err().to_string().contains("usize"));
        assert!(c_type("*const Foo", 8).is_err());
        assert!(c_type("bool", 8).is_err());
    }

    #[test]
    fn the_header_compiles_and_its_assertions_catch_a_hand_edit() {
        let h = generate(8).unwrap().header;
        compile(&h).expect("the generated psins_ev.h does not compile");
        // one side edited by hand: a field widened, two fields swapped
        let widened = h.replace("    uint32_t kind;", "    uint64_t kind;");
        assert_ne!(widened, h);
        let e = compile(&widened).expect_err("a widened field passed the static assertions");
        assert!(e.contains("psins_ev.peer: not at the offset"), "{e}");
        let swapped = h.replace("    int32_t peer;", "    int32_t @;").replace("    int32_t tag;", "    int32_t peer;");
        let swapped = swapped.replace("    int32_t @;", "    int32_t tag;");
        let e = compile(&swapped).expect_err("swapped fields passed the static assertions");
        assert!(e.contains("psins_ev.tag: not at the offset"), "{e}");
    }
}
