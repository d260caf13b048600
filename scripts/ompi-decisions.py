#!/usr/bin/env python3
"""Writes collectives/src/ompi/decision.rs: Open MPI's coll/tuned fixed decision rules, read
from an Open MPI source tree.

    scripts/ompi-decisions.py OMPI_SRC [--commit ID] [-o OUT]
    scripts/ompi-decisions.py OMPI_SRC --c-names OUT     (the oracle's names.h instead)

Source read: ompi/mca/coll/tuned/coll_tuned_decision_fixed.c. For each
ompi_coll_tuned_<coll>_intra_dec_fixed function it takes the algorithm list of its
"Algorithms:" comment (number and name) and the if/else tree that sets `alg`, whose
conditions compare only the communicator size, the byte sizes the function computed before
the tree and the op's commutativity. The tree is written as a Rust function of those values
with the same comparisons in the same order; the byte sizes themselves are computed by
collectives/src/ompi/mod.rs, as each C function computes them (docs/collectives.md).
Any statement or condition the script does not know stops it with the function and line:
the rules are never written from a guess. The output goes through rustfmt when it is on
PATH, so a regeneration is byte-identical to the committed file.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

FILE = "ompi/mca/coll/tuned/coll_tuned_decision_fixed.c"

# C operand -> (Rust parameter, type); the parameters a rule function takes, in this order.
OPERANDS = {
    "communicator_size": ("p", "u64"),
    "total_dsize": ("total", "u64"),
    "per_rank_dsize": ("per_rank", "u64"),
    "!ompi_op_is_commute(op)": ("commutative", "bool"),
}


def die(msg):
    sys.exit(f"ompi-decisions.py: {msg}")


def version(src):
    text = open(os.path.join(src, "VERSION")).read()
    parts = [re.search(rf"^{k}=(\S*)", text, re.M) for k in ("major", "minor", "release")]
    if not all(parts):
        die("VERSION: no major/minor/release")
    return ".".join(m.group(1) for m in parts)


def commit_of(src, given):
    if given:
        return given
    try:
        return subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        die("OMPI_SRC is not a git checkout: give --commit")


class Tokens:
    def __init__(self, text, fn, line0):
        self.toks = []
        line = line0
        for m in re.finditer(r"\n|\s+|[A-Za-z_]\w*|\d+|==|!=|<=|>=|\|\||&&|.", text):
            t = m.group(0)
            if t == "\n":
                line += 1
            elif not t.isspace():
                self.toks.append((t, line))
        self.i, self.fn = 0, fn

    def peek(self):
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def take(self, want=None):
        if self.i >= len(self.toks):
            die(f"{self.fn}: unexpected end of the rule")
        t, line = self.toks[self.i]
        if want is not None and t != want:
            die(f"{self.fn}, line {line}: expected '{want}', found '{t}'")
        self.i += 1
        return t

    def line(self):
        return self.toks[min(self.i, len(self.toks) - 1)][1]


def condition(tk, used):
    """`( operand < N )`, `( operand == N )` or `( !ompi_op_is_commute(op) )` as Rust."""
    tk.take("(")
    words = []
    depth = 0
    while depth > 0 or tk.peek() != ")":
        t = tk.take()
        depth += {"(": 1, ")": -1}.get(t, 0)
        words.append(t)
    tk.take(")")
    text = "".join(words)
    if text == "!ompi_op_is_commute(op)":
        used.add("!ompi_op_is_commute(op)")
        return "!commutative"
    m = re.fullmatch(r"([a-z_]+)(<|==)(\d+)", text)
    if not m or m.group(1) not in OPERANDS:
        die(f"{tk.fn}, line {tk.line()}: a condition this script does not know: {text}")
    used.add(m.group(1))
    return f"{OPERANDS[m.group(1)][0]} {m.group(2)} {m.group(3)}"


def block(tk, used, depth):
    """`{ statements }` as Rust lines."""
    tk.take("{")
    out = []
    while tk.peek() != "}":
        out += statement(tk, used, depth)
    tk.take("}")
    return out


def statement(tk, used, depth):
    pad = "    " * depth
    if tk.peek() == "OPAL_OUTPUT":  # debug output, compiled out of release builds
        tk.take()
        depth_parens = 0
        while True:
            t = tk.take()
            depth_parens += {"(": 1, ")": -1}.get(t, 0)
            if depth_parens == 0 and t == ")":
                break
        tk.take(";")
        return []
    if tk.peek() == "alg":
        tk.take("alg")
        tk.take("=")
        n = tk.take()
        tk.take(";")
        if not n.isdigit():
            die(f"{tk.fn}, line {tk.line()}: alg set to {n}")
        return [f"{pad}alg = {n};"]
    if tk.peek() != "if":
        die(f"{tk.fn}, line {tk.line()}: a statement this script does not know: {tk.peek()}")
    out = []
    word = "if"
    while True:
        tk.take("if")
        out.append(f"{pad}{word} {condition(tk, used)} {{")
        out += block(tk, used, depth + 1)
        if tk.peek() != "else":
            out.append(f"{pad}}}")
            return out
        tk.take("else")
        if tk.peek() == "if":
            word = "} else if"
            continue
        out.append(f"{pad}}} else {{")
        out += block(tk, used, depth + 1)
        out.append(f"{pad}}}")
        return out


def functions(text):
    for m in re.finditer(r"ompi_coll_tuned_(\w+?)_intra_dec_fixed\s*\(", text):
        coll = m.group(1)
        body_start = text.index("{", m.end())
        end = text.index("\n}\n", body_start)
        yield coll, m.start(), text[body_start:end]


def rule(coll, body, line0):
    fn = f"ompi_coll_tuned_{coll}_intra_dec_fixed"
    comment = re.search(r"/\*\*\s*Algorithms:(.*?)\*/", body, re.S)
    if not comment:
        die(f"{fn}: no 'Algorithms:' comment")
    names = re.findall(r"\{\s*(\d+)\s*,\s*\"([^\"]+)\"", comment.group(1))
    if [int(n) for n, _ in names] != list(range(1, len(names) + 1)):
        die(f"{fn}: algorithm numbers are not 1..n: {names}")
    after = body[comment.end():]
    tree_end = after.index("return")
    tree = re.sub(r"/\*.*?\*/", " ", after[:tree_end], flags=re.S)
    line = line0 + body[:comment.end()].count("\n")
    tk = Tokens(tree, fn, line)
    used, lines = set(), []
    while tk.peek() is not None:
        lines += statement(tk, used, 1)
    call = re.match(r"return\s+ompi_coll_tuned_(\w+)_intra_do_this\s*\(", after[tree_end:])
    if not call or call.group(1) != coll:
        die(f"{fn}: the rule does not end by calling {coll}'s do_this")
    extra = after[tree_end:].split("alg", 1)[1].split(")", 1)[0]
    if re.sub(r"\s", "", extra) not in (",0,0", ",0,0,0", ",0,0,ompi_coll_tuned_alltoall_max_requests", ""):
        die(f"{fn}: do_this is called with arguments this script does not know: alg{extra}")
    return names, used, lines


def snake(name):
    """An algorithm's name as psins spells it: lower case, other characters as `_`."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower())


def write_c_names(text, path):
    """The names by collective and number, for the oracle's driver (the same names as the
    generated Rust lists, without the `ompi_<coll>_` prefix)."""
    rows = []
    for coll, start, body in functions(text):
        names, _, _ = rule(coll, body, text[:start].count("\n") + 1)
        rows += [(coll, int(n), snake(name)) for n, name in names]
    out = ["/* generated by scripts/ompi-decisions.py --c-names from coll_tuned_decision_fixed.c */",
           "static const struct { const char *coll; int alg; const char *name; } psins_alg_names[] = {"]
    out += [f'    {{ "{c}", {n}, "{name}" }},' for c, n, name in rows]
    out += ["};", "static const char *psins_alg_name(const char *coll, int alg)", "{",
            "    for (size_t i = 0; i < sizeof psins_alg_names / sizeof *psins_alg_names; i++)",
            "        if (!strcmp(psins_alg_names[i].coll, coll) && psins_alg_names[i].alg == alg) return psins_alg_names[i].name;",
            "    return NULL;", "}"]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("--commit")
    ap.add_argument("--c-names", metavar="OUT",
                    help="write the algorithm names as a C header for collectives/oracle-ompi/ instead")
    ap.add_argument("-o", "--out", default=os.path.join(os.path.dirname(__file__), "..", "collectives", "src",
                                                        "ompi", "decision.rs"))
    a = ap.parse_args()
    text = open(os.path.join(a.src, FILE)).read()
    if a.c_names:
        write_c_names(text, a.c_names)
        return
    ver, commit = version(a.src), commit_of(a.src, a.commit)
    out = [
        f"//! Generated by scripts/ompi-decisions.py from Open MPI {ver} (commit {commit}),",
        f"//! {FILE}: do not edit. Each function is one `ompi_coll_tuned_<coll>_intra_dec_fixed`'s",
        "//! choice: the algorithm's number in that function's list (`NAMES`, 1-based), from the",
        "//! communicator size `p` and the byte sizes the C function computes (ompi/mod.rs).",
        "",
        f'/// The Open MPI release the rules were read from.\npub const OMPI_VERSION: &str = "{ver}";',
    ]
    seen = []
    for coll, start, body in functions(text):
        names, used, lines = rule(coll, body, text[:start].count("\n") + 1)
        seen.append(coll)
        params = [f"{OPERANDS[k][0]}: {OPERANDS[k][1]}" for k in OPERANDS if k in used]
        listed = ", ".join(f'"ompi_{coll}_{snake(n)}"' for _, n in names)
        out += [
            "",
            f"/// `{coll}`'s algorithms, numbered from 1 as in the C function's list.",
            f"pub const {coll.upper()}_NAMES: &[&str] = &[{listed}];",
            "",
            f"/// `ompi_coll_tuned_{coll}_intra_dec_fixed`'s choice.",
            "#[allow(unused_assignments, clippy::needless_late_init, clippy::collapsible_else_if)]",
            f"pub fn {coll}({', '.join(params)}) -> u8 {{",
            "    let mut alg = 0;",
            *lines,
            "    alg",
            "}",
        ]
    if len(seen) < 12:
        die(f"only {len(seen)} decision functions found: {seen}")
    path = os.path.abspath(a.out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    if shutil.which("rustfmt"):
        repo_config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rustfmt.toml")
        subprocess.run(["rustfmt", "--edition", "2021", "--config-path", repo_config, path], check=True)
    print(f"wrote {path}: {len(seen)} rules ({', '.join(seen)}) from Open MPI {ver}")


if __name__ == "__main__":
    main()
