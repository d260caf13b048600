#!/usr/bin/env python3
"""Writes interop/src/dumpi/table.rs: every DUMPI function label with its MPI name and the
layout of its record's fields, read from an sst-dumpi source tree.

    scripts/dumpi-table.py SST_DUMPI_SRC [--commit ID] [-o OUT]

Sources read (nothing of them is copied: the table is data derived from them):
  - configure.ac: the dumpi version;
  - dumpi/common/funclabels.h: the label enum (its order gives each label's number);
  - dumpi/common/iodefs.h: the GET_* macros, for each value's byte width and how arrays are
    stored (a 32-bit count before the elements, nested for the two-level ones);
  - dumpi/common/dumpiio.c: each dumpi_read_<name> / dumpio_read_<name> function, the order of
    its fields, the conditions some are read under and which earlier field gives an array's
    length.
The commit is `git rev-parse HEAD` of SST_DUMPI_SRC when it is a git checkout, else --commit.
Any construct the script does not know stops it with the function and line: the table is
never written from a guess. The output goes through rustfmt when it is on PATH, so a
regeneration is byte-identical to the committed file.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

# Only dumpi 0.7 and later traces are read (interop/src/dumpi/file.rs): branches the readers
# take for older writers are dropped, after checking they are about versions before this.
OLDEST_READ = (0, 7, 0)


def die(msg):
    sys.exit(f"dumpi-table.py: {msg}")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def camel(name):
    return "".join(p[:1].upper() + p[1:].lower() for p in name.split("_") if p)


# ---------------------------------------------------------------- version


def version(src):
    text = open(os.path.join(src, "configure.ac")).read()
    parts = []
    for tag in ("DUMPI_VERSION_TAG", "DUMPI_SUBVERSION_TAG", "DUMPI_SUBSUBVERSION_TAG"):
        m = re.search(r"m4_define\(\[" + tag + r"\],\s*(\d+)\)", text)
        if not m:
            die(f"configure.ac: no {tag}")
        parts.append(m.group(1))
    return ".".join(parts)


def commit(src, given):
    if given:
        return given
    try:
        out = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        die(f"{src} is not a git checkout: name its commit with --commit")


# ---------------------------------------------------------------- labels


def labels(src):
    text = strip_comments(open(os.path.join(src, "dumpi/common/funclabels.h")).read())
    m = re.search(r"typedef\s+enum\s+dumpi_function\s*\{(.*?)\}\s*dumpi_function\s*;", text, re.S)
    if not m:
        die("funclabels.h: no dumpi_function enum")
    out, n = [], 0
    for item in m.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            item, v = (s.strip() for s in item.split("="))
            n = int(v, 0)
        if not re.fullmatch(r"DUMPIO?_\w+", item):
            die(f"funclabels.h: unexpected enumerator {item!r}")
        out.append((n, item))
        n += 1
    return out


# ---------------------------------------------------------------- GET_* macros


def macros(src):
    """Every #define of iodefs.h: name -> (parameters, body); and its static functions."""
    text = open(os.path.join(src, "dumpi/common/iodefs.h")).read().replace("\\\n", " ")
    text = strip_comments(text)
    defs = {}
    for m in re.finditer(r"#define\s+(\w+)(\(([^)]*)\))?([^\n]*)", text):
        params = [p.strip() for p in m.group(3).split(",")] if m.group(2) else []
        defs[m.group(1)] = (params, m.group(4).strip())
    funcs = {}
    for m in re.finditer(r"(?:static\s+)?inline\s+[\w\s\*]+?\b(\w+)\s*\(([^)]*)\)\s*\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        funcs[m.group(1)] = text[m.end() : i - 1]
    return defs, funcs


PRIMITIVE = {"get8": 1, "get16": 2, "get32": 4, "get64": 8}


class Getters:
    """What each GET_* macro reads, from its definition."""

    def __init__(self, defs, funcs):
        self.defs, self.funcs = defs, funcs
        self.widths = {}  # scalar kind name -> bytes

    def body(self, name):
        if name not in self.defs:
            die(f"iodefs.h: no definition of {name}")
        return self.defs[name][1]

    def scalar(self, macro):
        """A one-value macro: (kind name, bytes), or ('Statuses', None)."""
        body = self.body(macro)
        if re.search(r"\bget_statuses\s*\(", body):
            return ("Statuses", None)
        inner = re.findall(r"\b(GET_\w+)\s*\(", body)
        prims = re.findall(r"\b(get8|get16|get32|get64)\s*\(", body)
        if len(inner) == 1 and not prims:
            _, width = self.scalar(inner[0])
        elif len(prims) == 1 and not inner:
            width = PRIMITIVE[prims[0]]
        else:
            die(f"iodefs.h: {macro} is not one value: {body}")
        kind = macro[len("GET_") :]
        kind = re.sub(r"^DUMPIO_", "Io_", kind)
        kind = re.sub(r"^DUMPI_", "", kind)
        kind = {"INT": "Int", "INT16": "Int16", "INT8": "Int8", "INT64_T": "Int64"}.get(kind, camel(kind))
        self.widths[kind] = width
        return (kind, width)

    def array(self, macro):
        """An array macro: ('Array', element kind) | ('Chars',) | ('Strings',) |
        ('Strings2',) | ('IntArrays',) | ('Statuses',)."""
        body = self.body(macro)
        alias = re.fullmatch(r"(GET_\w+_ARRAY_\d)\s*\(.*\)", body)
        if alias:
            return self.array(alias.group(1))
        m = re.fullmatch(r"(\w+)\s*\(.*\)", body)
        if m and m.group(1) in self.funcs:  # a helper function (the two-level strings)
            body = self.funcs[m.group(1)]
        if re.search(r"\bget_statuses\s*\(", body):
            return ("Statuses",)
        loops = len(re.findall(r"\bfor\s*\(", body))
        counts = len(re.findall(r"=\s*get32\s*\(", body))
        if "get32arr" in body:
            if loops == 0 and counts == 0:
                return ("Array", self.scalar("GET_INT")[0])
            if loops == 1 and counts == 1:
                return ("IntArrays",)
        if "getchararr" in body:
            if loops == 0 and counts == 0:
                return ("Chars",)
            if loops == 1 and counts == 1:
                return ("Strings",)
            if loops == 2 and counts == 2:
                return ("Strings2",)
        each = re.findall(r"\b(GET_\w+)\s*\(\s*PROFILE\s*\)", body)
        if loops == 1 and counts == 1 and len(each) == 1:
            return ("Array", self.scalar(each[0])[0])
        die(f"iodefs.h: cannot tell how {macro} is stored: {body}")


# ---------------------------------------------------------------- read functions


def statements(text):
    """Splits C statements: ('simple', text) | ('if', cond, [then], [else])."""
    out, i, n = [], 0, len(text)

    def skip_ws(i):
        while i < n and text[i].isspace():
            i += 1
        return i

    def paren(i):  # text[i] == '(' -> index after the matching ')'
        depth = 0
        while True:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                return i

    def block(i):  # text[i] == '{' -> (inner, index after '}')
        depth, start = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                return text[start + 1 : i - 1], i

    def one(i):  # one statement from i -> (statement list, next index)
        i = skip_ws(i)
        if text.startswith("if", i) and re.match(r"if\s*\(", text[i:]):
            j = text.index("(", i)
            k = paren(j)
            cond = text[j + 1 : k - 1].strip()
            then, k = one(k)
            k2 = skip_ws(k)
            other = []
            if re.match(r"else\b", text[k2:]):
                other, k = one(k2 + 4)
            return [("if", cond, then, other)], k
        if text.startswith("for", i) and re.match(r"for\s*\(", text[i:]):
            j = text.index("(", i)
            k = paren(j)
            header = text[j + 1 : k - 1].strip()
            body, k = one(k)
            return [("for", header, body)], k
        if text[i] == "{":
            inner, k = block(i)
            return statements(inner), k
        j = text.index(";", i)
        return [("simple", " ".join(text[i:j].split()))], j + 1

    while True:
        i = skip_ws(i)
        if i >= n:
            return out
        s, i = one(i)
        out.extend(s)


def version_at_most_oldest(cond):
    m = re.fullmatch(r"(!\s*)?dumpi_have_version\s*\(\s*profile->version\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", cond)
    if not m:
        return None
    v = tuple(int(x) for x in m.group(2, 3, 4))
    if v > OLDEST_READ:
        die(f"a reader depends on dumpi {v}, newer than the oldest version read {OLDEST_READ}")
    return not m.group(1)  # True: the branch taken by every version read


class Reader:
    def __init__(self, getters, fname):
        self.g, self.fname = getters, fname
        self.fields = []  # (name, kind tuple, when)

    def index(self, name):
        for i, f in enumerate(self.fields):
            if f[0] == name:
                return i
        return None

    def fail(self, what):
        die(f"dumpiio.c: {self.fname}: {what}")

    def length(self, arg):
        """An array's LEN argument: an earlier field's index, or None (its own count)."""
        m = re.fullmatch(r"val->([\w.]+)", arg.strip())
        if m:
            return self.index(m.group(1))
        if re.fullmatch(r"ignore_bounds_\d", arg.strip()):
            return None
        self.fail(f"array length {arg!r}")

    def add(self, name, kind, when):
        if self.index(name) is not None:
            self.fail(f"field {name} read twice")
        self.fields.append((name, kind, when))

    def run(self, stmts, when=None):
        for s in stmts:
            self.stmt(s, when)

    def stmt(self, s, when):
        if s[0] == "if":
            _, cond, then, other = s
            taken = version_at_most_oldest(cond)
            if taken is not None:
                self.run(then if taken else other, when)
                return
            m = re.fullmatch(r"val->(\w+)\s*==\s*val->(\w+)", cond)
            if m and not other:
                a, b = self.index(m.group(1)), self.index(m.group(2))
                if a is None or b is None or when:
                    self.fail(f"condition {cond!r}")
                self.run(then, ("Equal", a, b))
                return
            m = re.fullmatch(r"val->(\w+)\s*>\s*0", cond)
            if m:  # argc > 0: that many strings, each with its own count, none before them
                n = self.index(m.group(1))
                loops = [x for x in then if x[0] == "for"]
                if n is None or len(loops) != 1 or "getchararr" not in str(loops[0]) or when:
                    self.fail(f"block under {cond!r}")
                field = re.search(r"val->(\w+)\s*\+\s*i", str(loops[0]))
                self.add(field.group(1), ("Argv", n), when)
                return
            self.fail(f"condition {cond!r}")
        if s[0] == "for":
            self.fail(f"loop {s[1]!r}")
        text = s[1]
        if re.match(r"(STARTREAD|ENDREAD)\s*\(", text) or re.fullmatch(r"return\s+1", text):
            return
        m = re.fullmatch(r"val->([\w.]+)\s*=\s*(?:\(\w+\)\s*)?(GET_\w+)\s*\(\s*profile\s*\)", text)
        if m:
            kind, _ = self.g.scalar(m.group(2))
            if kind == "Statuses":
                self.add(m.group(1), ("Statuses", None), when)
            else:
                self.add(m.group(1), ("Scalar", kind), when)
            return
        m = re.fullmatch(r"val->([\w.]+)\s*=\s*get32\s*\(\s*profile\s*\)", text)
        if m:
            self.add(m.group(1), ("Scalar", self.g.scalar("GET_INT")[0]), when)
            return
        m = re.fullmatch(r"val->([\w.]+)\s*=\s*(GET_\w+_ARRAY_\d)\s*\(\s*profile\s*,\s*([^,]+),\s*val->([\w.]+)\s*\)", text)
        if m:  # the statuses array form assigns
            got = self.g.array(m.group(2))
            self.add(m.group(4), (got[0], self.length(m.group(3))), when)
            return
        m = re.fullmatch(r"(GET_\w+_ARRAY_\d)\s*\(\s*profile\s*,(.*),\s*val->([\w.]+)\s*\)", text)
        if m:
            got = self.g.array(m.group(1))
            lens = [a.strip() for a in m.group(2).split(",")]
            n = self.length(lens[0])
            if got[0] == "Array":
                self.add(m.group(3), ("Array", got[1], n), when)
            else:
                self.add(m.group(3), (got[0], n), when)
            return
        self.fail(f"statement {text!r}")


def readers(src, getters):
    text = strip_comments(open(os.path.join(src, "dumpi/common/dumpiio.c")).read())
    out = {}
    for m in re.finditer(r"\bint\s+(dumpio?_read_\w+)\s*\(\s*\w+\s*\*\s*val\s*,\s*DUMPI_READARGS\s*\)\s*\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        r = Reader(getters, m.group(1))
        r.run(statements(text[m.end() : i - 1]))
        out[m.group(1)] = r.fields
    return out


# ---------------------------------------------------------------- output


def reader_name(label):
    if label.startswith("DUMPIO_"):
        return "dumpio_read_" + label[len("DUMPIO_") :].lower()
    special = {"DUMPI_Function_enter": "dumpi_read_func_enter", "DUMPI_Function_exit": "dumpi_read_func_exit"}
    return special.get(label, "dumpi_read_" + label[len("DUMPI_") :].lower())


def mpi_name(label):
    if label.startswith("DUMPIO_"):
        return "MPIO_" + label[len("DUMPIO_") :]
    return {"DUMPI_Function_enter": "function entry", "DUMPI_Function_exit": "function exit"}.get(
        label, "MPI_" + label[len("DUMPI_") :]
    )


def rust_len(n):
    return "Len::Own" if n is None else f"Len::Field({n})"


def rust_kind(k):
    if k[0] == "Scalar":
        return f"Kind::Scalar(Scalar::{k[1]})"
    if k[0] == "Array":
        return f"Kind::Array(Scalar::{k[1]}, {rust_len(k[2])})"
    if k[0] == "Argv":
        return f"Kind::Argv({k[1]})"
    return f"Kind::{k[0]}({rust_len(k[1])})"


def rust_when(w):
    return "When::Always" if w is None else f"When::Equal({w[1]}, {w[2]})"


def render(ver, com, labs, reads, widths):
    by_name = dict((name, n) for n, name in labs)
    for need in ("DUMPI_ALL_FUNCTIONS", "DUMPI_Function_enter", "DUMPI_Function_exit", "DUMPI_END_OF_STREAM"):
        if need not in by_name:
            die(f"funclabels.h: no {need}")
    all_functions = by_name["DUMPI_ALL_FUNCTIONS"]
    if [n for n, _ in labs] != list(range(len(labs))):
        die("funclabels.h: labels are not 0..N in order")
    o = []
    w = o.append
    w(f"//! Generated by scripts/dumpi-table.py from sst-dumpi {ver} (commit {com}): do not edit.")
    w("//! Every function label of that dumpi with its MPI name and its record's fields, in the")
    w("//! order the file holds them (after the label, the mask and the times). Data only: what the")
    w("//! importer does with each function is calls.rs's.")
    w("")
    w(f'/// The sst-dumpi release this table was read from.\npub const DUMPI_VERSION: &str = "{ver}";')
    w(f"/// Labels 0..ALL_FUNCTIONS are MPI functions (the footer counts each).\npub const ALL_FUNCTIONS: u16 = {all_functions};")
    w(f"/// A function-entry record (`-finstrument-functions`).\npub const FUNCTION_ENTER: u16 = {by_name['DUMPI_Function_enter']};")
    w(f"/// A function-exit record (`-finstrument-functions`).\npub const FUNCTION_EXIT: u16 = {by_name['DUMPI_Function_exit']};")
    w(f"/// The label that ends the call records.\npub const END_OF_STREAM: u16 = {by_name['DUMPI_END_OF_STREAM']};")
    w("")
    w("/// One value, big-endian, of the width its kind has.")
    w("#[derive(Clone, Copy, PartialEq, Eq, Debug)]")
    w("pub enum Scalar {")
    # The kinds the fields use (the macros' chains also pass through plain widths).
    used = {k[1] for fs in reads.values() for _, k, _ in fs if k[0] in ("Scalar", "Array")}
    kinds = sorted(used)
    for k in kinds:
        w(f"    {k},")
    w("}")
    w("")
    w("impl Scalar {")
    w("    /// Bytes in the file.")
    w("    pub const fn bytes(self) -> usize {")
    w("        match self {")
    for k in kinds:
        w(f"            Scalar::{k} => {widths[k]},")
    w("        }")
    w("    }")
    w("}")
    w("")
    w("/// How many elements an array has. The file gives every array's count before it (except")
    w("/// [`Kind::Argv`]'s); this says what the count should be.")
    w("#[derive(Clone, Copy, PartialEq, Eq, Debug)]")
    w("pub enum Len {")
    w("    /// The value of this record's earlier field (its index).")
    w("    Field(u8),")
    w("    /// Its own count only: a string, a list the writer ended at a terminator, or one whose")
    w("    /// length is a field read after it.")
    w("    Own,")
    w("}")
    w("")
    w("/// How one field is stored.")
    w("#[derive(Clone, Copy, PartialEq, Eq, Debug)]")
    w("pub enum Kind {")
    w("    Scalar(Scalar),")
    w("    /// A 32-bit count, then that many values.")
    w("    Array(Scalar, Len),")
    w("    /// A 32-bit count, then that many bytes.")
    w("    Chars(Len),")
    w("    /// A 32-bit count, then that many [`Kind::Chars`].")
    w("    Strings(Len),")
    w("    /// A 32-bit count, then that many [`Kind::Strings`].")
    w("    Strings2(Len),")
    w("    /// A 32-bit count, then that many arrays of 32-bit integers (each its count, then its values).")
    w("    IntArrays(Len),")
    w("    /// As many [`Kind::Chars`] as the earlier field (its index) says, with no count of their own.")
    w("    Argv(u8),")
    w("    /// Only when the record's mask has statuses: a 32-bit count, then per status its bytes")
    w("    /// (32 bits), source (32), cancelled (8), error (8) and tag (32).")
    w("    Statuses(Len),")
    w("}")
    w("")
    w("/// When a field is in the record.")
    w("#[derive(Clone, Copy, PartialEq, Eq, Debug)]")
    w("pub enum When {")
    w("    Always,")
    w("    /// Only when these two earlier fields (their indices) are equal.")
    w("    Equal(u8, u8),")
    w("}")
    w("")
    w("#[derive(Clone, Copy, PartialEq, Eq, Debug)]")
    w("pub struct Field {")
    w("    pub name: &'static str,")
    w("    pub kind: Kind,")
    w("    pub when: When,")
    w("}")
    w("")
    w("/// One function label.")
    w("#[derive(Clone, Copy, PartialEq, Eq, Debug)]")
    w("pub struct Function {")
    w("    pub label: u16,")
    w("    pub name: &'static str,")
    w("    /// None: sst-dumpi has no reader for it (its records' layout is not known).")
    w("    pub fields: Option<&'static [Field]>,")
    w("}")
    w("")
    entries = [(n, name) for n, name in labs if name not in ("DUMPI_ALL_FUNCTIONS", "DUMPI_END_OF_STREAM")]
    w(f"/// Labels 0..ALL_FUNCTIONS, then FUNCTION_ENTER and FUNCTION_EXIT.")
    w(f"pub static FUNCTIONS: [Function; {len(entries)}] = [")
    for n, name in entries:
        fields = reads.get(reader_name(name))
        if fields is None:
            w(f'    Function {{ label: {n}, name: "{mpi_name(name)}", fields: None }},')
            continue
        w(f'    Function {{ label: {n}, name: "{mpi_name(name)}", fields: Some(&[')
        for fname, kind, when in fields:
            w(f'        Field {{ name: "{fname}", kind: {rust_kind(kind)}, when: {rust_when(when)} }},')
        w("    ]) },")
    w("];")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="an sst-dumpi source tree")
    ap.add_argument("--commit", help="the commit SRC is (when it is not a git checkout)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("-o", "--output", default=os.path.join(root, "interop/src/dumpi/table.rs"))
    a = ap.parse_args()
    ver, com = version(a.src), commit(a.src, a.commit)
    labs = labels(a.src)
    defs, funcs = macros(a.src)
    g = Getters(defs, funcs)
    reads = readers(a.src, g)
    known = {reader_name(name) for _, name in labs}
    unused = sorted(set(reads) - known)
    if unused:
        die(f"dumpiio.c: readers without a label: {', '.join(unused)}")
    text = render(ver, com, labs, reads, g.widths)
    rustfmt = shutil.which("rustfmt")
    if rustfmt:
        cfg = os.path.join(root, "rustfmt.toml")
        text = subprocess.run(
            [rustfmt, "--edition", "2021", "--emit", "stdout", "--config-path", cfg],
            input=text, capture_output=True, text=True, check=True,
        ).stdout
    with open(a.output, "w") as f:
        f.write(text)
    missing = [mpi_name(n) for _, n in labs if reader_name(n) not in reads and not n.endswith(("ALL_FUNCTIONS", "END_OF_STREAM"))]
    print(f"{a.output}: {len(labs) - 2} labels, {len(reads)} readers; without a reader: {', '.join(missing) or 'none'}")


if __name__ == "__main__":
    main()
