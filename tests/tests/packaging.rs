//! Packaging: every tool writes its man pages and shell completions from
//! its own clap definition (psins-cli), so they name every flag its `--help` lists; and
//! `make install PREFIX=…` installs the tools, the tracer library, the calibration worker,
//! the bundled machines, the man pages and the completions, stripped of debug info.

use psins_e2e::{mpi, root, run_tool, scratch, tool};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Every tool `make install` installs.
const TOOLS: [&str; 5] = ["psins-sim", "psins-consolidate", "psins-dump", "psins-synth", "psins-calibrate"];

fn text(out: std::process::Output) -> String {
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The long flags of the options `--help` lists (the first `--name` of each option line).
fn flags(help: &str) -> Vec<String> {
    let mut v: Vec<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| l.split([' ', ',']).find(|w| w.starts_with("--")))
        .map(|w| w.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect())
        .collect();
    v.dedup();
    v
}

#[test]
fn every_tool_generates_man_pages_and_completions_naming_its_flags() {
    let dir = scratch("man");
    for t in TOOLS {
        let flags = flags(&text(run_tool(t, &[OsStr::new("--help")])));
        assert!(flags.len() >= 2 && flags.iter().any(|f| f == "--help"), "{t}: {flags:?}");
        for shell in ["bash", "zsh", "fish"] {
            let script = text(run_tool(t, &[OsStr::new("--generate-completions"), OsStr::new(shell)]));
            assert!(script.contains(t), "{t} {shell}: the script does not name the tool");
            for f in &flags {
                // fish names long options as `-l name`
                let want = if shell == "fish" { format!("-l {}", &f[2..]) } else { f.clone() };
                assert!(script.contains(&want), "{t} {shell}: no {want} in\n{script}");
            }
        }
        run_tool(t, &[OsStr::new("--generate-man"), dir.as_os_str()]);
        let page = std::fs::read_to_string(dir.join(format!("{t}.1"))).unwrap_or_else(|e| panic!("{t}.1: {e}"));
        assert!(page.contains(&format!(".TH {t} 1")), "{t}.1:\n{page}");
        for f in &flags {
            // roff writes each '-' of an option as "\-"
            assert!(page.contains(&f.replace('-', "\\-")), "{t}.1: no {f} in\n{page}");
        }
        // `-` writes the tool's page on stdout.
        assert_eq!(text(run_tool(t, &[OsStr::new("--generate-man"), OsStr::new("-")])), page, "{t}");
    }
    // psins-sim's subcommands get pages of their own.
    for sub in ["psins-sim-check.1", "psins-sim-synth.1"] {
        let page = std::fs::read_to_string(dir.join(sub)).unwrap_or_else(|e| panic!("{sub}: {e}"));
        assert!(page.contains("\\-\\-set"), "{sub}:\n{page}");
    }
    // An unknown shell is a usage error (exit 2) naming the value.
    let out = Command::new(tool("psins-dump")).args(["--generate-completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"tcsh\""));
}

/// Whether the ELF64 file has a `.debug_info` section (its section headers, not its bytes:
/// the standard library's backtrace code holds the name as a string).
fn has_debug_info(p: &Path) -> bool {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert!(b.starts_with(b"\x7fELF\x02"), "{}: not an ELF64 file", p.display());
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28), u16_at(0x3A), u16_at(0x3C), u16_at(0x3E));
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18);
    (0..shnum).any(|i| {
        let name = strtab + u32_at(header(i));
        b[name..].starts_with(b".debug_info\0")
    })
}

#[test]
fn make_install_puts_everything_under_prefix_stripped() {
    // The calibration worker is built with the MPI compiler wrapper.
    if mpi().is_none() || Command::new("make").arg("--version").output().is_err() {
        psins_e2e::skip("make install needs make and an MPI (apt-get install make mpich libmpich-dev)");
        return;
    }
    let prefix = scratch("prefix");
    // What these tests were built with, not a release build of its own.
    let out = Command::new("make")
        .arg("install")
        .arg(format!("PREFIX={}", prefix.display()))
        .arg(format!("PROFILE={}", psins_e2e::profile_name()))
        .arg(format!("RELEASE={}", psins_e2e::profile_dir().display()))
        .env("CARGO_TARGET_DIR", psins_e2e::profile_dir().parent().unwrap())
        // As psins_e2e's own build: a RUSTC_BOOTSTRAP of the test run would rebuild everything.
        .env_remove("RUSTC_BOOTSTRAP")
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "make install failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let share = prefix.join("share");
    for t in TOOLS {
        let bin = prefix.join("bin").join(t);
        assert!(bin.is_file() && !has_debug_info(&bin), "{}", bin.display());
        for f in [
            share.join("man/man1").join(format!("{t}.1")),
            share.join("bash-completion/completions").join(t),
            share.join("zsh/site-functions").join(format!("_{t}")),
            share.join("fish/vendor_completions.d").join(format!("{t}.fish")),
        ] {
            let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(len > 100, "{} missing or nearly empty", f.display());
        }
    }
    let so = prefix.join("lib/libpsinstrace.so");
    assert!(so.is_file() && !has_debug_info(&so), "{}", so.display());
    assert!(prefix.join("libexec/psins/psins-calib-worker").is_file());
    let configs = |d: &Path| {
        std::fs::read_dir(d)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension() == Some(OsStr::new("toml")))
            .count()
    };
    assert_eq!(configs(&share.join("psins/configs")), configs(&root().join("configs")));
    let _ = std::fs::remove_dir_all(&prefix);
}

/// The docs tell users to run `scripts/NAME.sh ARGS` (docs/interop-*.md, docs/extrapolate.md),
/// so every script that names its interpreter in a `#!` line is executable, as git checks it out.
#[test]
fn every_script_with_a_shebang_is_executable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = root().join("scripts");
    let mut not = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        let Ok(bytes) = std::fs::read(&p) else { continue };
        if bytes.starts_with(b"#!") && std::fs::metadata(&p).unwrap().permissions().mode() & 0o100 == 0 {
            not.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    not.sort();
    assert!(not.is_empty(), "scripts with a #! line but no execute bit (git update-index --chmod=+x): {not:?}");
}
