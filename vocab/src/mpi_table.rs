//! `c-headers/mpi_functions.tbl`, the one table of MPI signatures: its parser.
//!
//! Each line is `<id> <how> <C prototype> [+f08]` (the file's header explains the columns).
//! The table is read at build time by two generators, both with this parser: the tracer's
//! (its build script writes the C wrappers from it through `psins-shim-gen`) and
//! psins-formats' (`formats/build.rs`, which writes `psins_formats::functions`, the id → name
//! table every reader prints `other` records and per-function statistics with).

pub use crate::how::How;
use crate::how::UnknownHow;
use std::collections::BTreeSet;
use std::fmt;

/// One parameter of a prototype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The declaration as written (`const int recvcounts[]`).
    pub decl: String,
    /// The type without the name (`const int []`): for classification.
    pub ty: String,
    pub name: String,
}

/// One line of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func {
    pub id: u32,
    /// How the tracer handles it (the `<how>` column).
    pub how: How,
    /// The C return type.
    pub ret: String,
    pub name: String,
    pub params: Vec<Param>,
    /// `+f08`: its Fortran bindings that bypass the C function are wrapped too.
    pub f08: bool,
    /// The line in the table (1-based), for messages.
    pub line: usize,
}

/// A line of the table refused: its number (1-based), its text and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    pub line: usize,
    pub text: String,
    pub fault: Fault,
}

/// Why a line of the table is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    BadId,
    NoOpenParen,
    NoCloseParen,
    NoReturnType,
    BadParameter(String),
    DuplicateId,
    DuplicateFunction,
    UnknownHow(UnknownHow),
    /// A variadic function the generator would have to wrap.
    Variadic,
    /// A function not returning an int whose kind reads output arguments.
    NotIntWithOutputs {
        name: String,
        ret: String,
        how: How,
    },
    /// A function not returning an int with `+f08`.
    NotIntWithF08 {
        name: String,
        ret: String,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Fault::BadId => write!(f, "bad id"),
            Fault::NoOpenParen => write!(f, "no '('"),
            Fault::NoCloseParen => write!(f, "no ')'"),
            Fault::NoReturnType => write!(f, "no return type"),
            Fault::BadParameter(p) => write!(f, "cannot parse parameter `{p}`"),
            Fault::DuplicateId => write!(f, "duplicate id"),
            Fault::DuplicateFunction => write!(f, "duplicate function"),
            Fault::UnknownHow(u) => write!(f, "{u}"),
            Fault::Variadic => write!(f, "variadic functions can only be `none` or hand-written"),
            Fault::NotIntWithOutputs { name, ret, how } => write!(
                f,
                "{name} returns `{ret}`, not an int error code: `{how}` reads output arguments, which \
                 only MPI_SUCCESS makes valid; only `none`, `count` or `other` can wrap it"
            ),
            Fault::NotIntWithF08 { name, ret } => write!(
                f,
                "{name} returns `{ret}`: `+f08` wrappers pass an `ierror` argument, which only \
                 functions returning an int error code have"
            ),
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.fault, self.text)
    }
}

impl std::error::Error for TableError {}

/// Parses the whole table; the first bad line is an error naming it.
pub fn parse_table(text: &str) -> Result<Vec<Func>, TableError> {
    let mut funcs = Vec::new();
    let mut ids = BTreeSet::new();
    let mut names = BTreeSet::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |fault: Fault| TableError { line: ln + 1, text: line.to_string(), fault };
        let mut rest = line;
        let id_s = next_word(&mut rest);
        let how_word = next_word(&mut rest);
        let id: u32 = id_s.parse().map_err(|_| err(Fault::BadId))?;
        let mut proto = rest.trim();
        let mut f08 = false;
        if let Some(p) = proto.strip_suffix("+f08") {
            f08 = true;
            proto = p.trim();
        }
        let open = proto.find('(').ok_or_else(|| err(Fault::NoOpenParen))?;
        let close = proto.rfind(')').ok_or_else(|| err(Fault::NoCloseParen))?;
        let head = proto[..open].trim();
        let (ret, name) = match head.rfind(|c: char| c.is_whitespace() || c == '*') {
            Some(p) => (head[..=p].trim().to_string(), head[p + 1..].to_string()),
            None => return Err(err(Fault::NoReturnType)),
        };
        let mut params = Vec::new();
        let inner = proto[open + 1..close].trim();
        if inner != "void" && !inner.is_empty() {
            for p in inner.split(',') {
                params.push(parse_param(p.trim()).ok_or_else(|| err(Fault::BadParameter(p.to_string())))?);
            }
        }
        if !ids.insert(id) {
            return Err(err(Fault::DuplicateId));
        }
        if !names.insert(name.clone()) {
            return Err(err(Fault::DuplicateFunction));
        }
        let how = How::parse(how_word).map_err(|u| err(Fault::UnknownHow(u)))?;
        if how != How::None && !how.is_hand_written() && params.iter().any(|p| p.ty == "...") {
            return Err(err(Fault::Variadic));
        }
        if ret != "int" && !how.reads_no_output() {
            return Err(err(Fault::NotIntWithOutputs { name, ret, how }));
        }
        if ret != "int" && f08 {
            return Err(err(Fault::NotIntWithF08 { name, ret }));
        }
        funcs.push(Func { id, how, ret, name, params, f08, line: ln + 1 });
    }
    Ok(funcs)
}

fn next_word<'a>(s: &mut &'a str) -> &'a str {
    let t = s.trim_start();
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    *s = &t[end..];
    &t[..end]
}

/// One parameter declaration: its name is the last identifier before an array suffix.
pub fn parse_param(p: &str) -> Option<Param> {
    if p == "..." {
        return Some(Param { decl: p.into(), ty: p.into(), name: String::new() });
    }
    // name = last identifier before an optional array suffix
    let (base, arr) = match p.find('[') {
        Some(i) => (&p[..i], &p[i..]),
        None => (p, ""),
    };
    let base = base.trim_end();
    let start = base.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))? + 1;
    let name = base[start..].to_string();
    if name.is_empty() {
        return None;
    }
    let ty = format!("{}{}", base[..start].trim(), if arr.is_empty() { String::new() } else { format!(" {arr}") });
    Some(Param { decl: p.to_string(), ty: norm(&ty), name })
}

/// A type with single spaces and `*` attached on both sides (`const int*`).
pub fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace(" *", "*").replace("* ", "*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_parsed_into_its_parts() {
        let t = "# comment\n\n7   send:sync   int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, \
                 int dest, int tag, MPI_Comm comm) +f08\n";
        let f = &parse_table(t).unwrap()[0];
        assert_eq!(
            (f.id, f.how.to_string().as_str(), f.ret.as_str(), f.name.as_str(), f.f08, f.line),
            (7, "send:sync", "int", "MPI_Ssend", true, 3)
        );
        let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["buf", "count", "datatype", "dest", "tag", "comm"]);
        assert_eq!(f.params[0].ty, "const void*");
    }

    #[test]
    fn parameters() {
        let p = parse_param("const int recvcounts[]").unwrap();
        assert_eq!((p.name.as_str(), p.ty.as_str()), ("recvcounts", "const int []"));
        let p = parse_param("MPI_Status array_of_statuses[]").unwrap();
        assert_eq!(p.ty, "MPI_Status []");
        let p = parse_param("char **argv").unwrap();
        assert_eq!((p.name.as_str(), p.ty.as_str()), ("argv", "char**"));
        assert_eq!(parse_param("...").unwrap().ty, "...");
        assert!(parse_param("int").is_none()); // a type without a name
        assert!(parse_param("*").is_none());
        let f = &parse_table("1 other int MPI_Foo(void)").unwrap()[0];
        assert!(f.params.is_empty());
    }

    /// The case the generator got wrong: it declared `int rc` for every wrapped function, so
    /// MPI_Wtime made `other` would have returned its time truncated to an int.
    #[test]
    fn a_function_not_returning_int_is_refused_where_its_outputs_are_read() {
        for how in ["none", "count", "other"] {
            let f = &parse_table(&format!("341 {how} double MPI_Wtime(void)")).unwrap()[0];
            assert_eq!(f.ret, "double");
        }
        let e = parse_table("# x\n341 recv double MPI_Wtime(void)").unwrap_err().to_string();
        assert!(e.starts_with("line 2: MPI_Wtime returns `double`"), "{e}");
        let e =
            parse_table("229 other MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) +f08").unwrap_err().to_string();
        assert!(e.starts_with("line 1: MPI_Aint_add returns `MPI_Aint`: `+f08`"), "{e}");
    }

    #[test]
    fn bad_lines_are_named() {
        let cases = [
            ("x other int MPI_A(void)", "line 1: bad id"),
            ("1 other int MPI_A void", "line 1: no '('"),
            ("1 other MPI_A(void)", "line 1: no return type"),
            ("1 other int MPI_A(void)\n1 other int MPI_B(void)", "line 2: duplicate id"),
            ("1 other int MPI_A(void)\n2 other int MPI_A(void)", "line 2: duplicate function"),
            ("1 frobnicate int MPI_A(void)", "line 1: unknown kind `frobnicate`"),
            ("1 send:fast int MPI_A(void)", "line 1: unknown kind `send:fast`"),
            ("1 coll: int MPI_A(void)", "line 1: unknown kind `coll:`"),
            ("1 other int MPI_A(int x, ...)", "line 1: variadic functions can only be `none` or hand-written"),
        ];
        for (text, want) in cases {
            let e = parse_table(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    /// The real table parses, ids are unique (checked by the parser) and every function is
    /// named `MPI_*` (what `psins_formats::functions` assumes).
    #[test]
    fn the_table_parses() {
        let t = include_str!("../../c-headers/mpi_functions.tbl");
        let funcs = parse_table(t).unwrap();
        assert!(funcs.len() > 600);
        assert!(funcs.iter().all(|f| f.name.starts_with("MPI_")));
        let ids: BTreeSet<u32> = funcs.iter().map(|f| f.id).collect();
        assert_eq!(ids.len(), funcs.len());
    }
}
