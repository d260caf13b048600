//! What every psins tool's command line shares: shell completions and man pages generated
//! from the tool's own clap definition, so they never disagree with its `--help`. Each tool
//! calls [`generate_if_asked`] first thing in `main`:
//!
//! ```text
//! TOOL --generate-completions SHELL   bash, zsh, fish, elvish or powershell, on stdout
//! TOOL --generate-man DIR             DIR/TOOL.1, and DIR/TOOL-SUB.1 per subcommand (`-`: TOOL.1 on stdout)
//! ```
//!
//! Both are for packaging (`make install` runs them into share/), so they are not in
//! `--help`, and they must come first on the command line: they are read before the tool
//! parses its arguments, which may require others (a trace, `-o`).
//!
//! Exit codes follow docs/exit-codes.md: 0 written, 2 an unknown shell or a missing value,
//! 3 the output cannot be written.

use clap::CommandFactory;
use clap_complete::Shell;
use psins_formats::exit::Exit;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// The flag that prints a completion script.
pub const COMPLETIONS: &str = "--generate-completions";
/// The flag that writes the man pages.
pub const MAN: &str = "--generate-man";

/// If the command line asks for completions or man pages of `C`, writes them and exits;
/// otherwise returns at once and the tool goes on.
pub fn generate_if_asked<C: CommandFactory>() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let (flag, value) = match (args.first().and_then(|a| a.to_str()), args.get(1)) {
        (Some(f @ (COMPLETIONS | MAN)), v) => (f, v),
        _ => return,
    };
    // Named as invoked: a binary of a package with several (psins-export in psins-interop)
    // would otherwise take the package's name.
    let mut cmd = C::command();
    let invoked = std::env::args_os().next().map(std::path::PathBuf::from);
    if let Some(name) = invoked.as_deref().and_then(Path::file_name).and_then(|n| n.to_str()) {
        // clap keeps names as &'static str (without its "string" feature); once per process.
        let name: &'static str = name.to_string().leak();
        cmd = cmd.name(name).bin_name(name);
    }
    let code = match generate(&mut cmd, flag, value.map(|v| v.as_os_str()), args.len()) {
        Ok(()) => Exit::Ok,
        Err((code, msg)) => {
            let _ = writeln!(std::io::stderr(), "{msg}");
            code
        }
    };
    code.exit();
}

/// Writes what `flag` asks for; `Err((exit code, message))`.
fn generate(
    cmd: &mut clap::Command,
    flag: &str,
    value: Option<&std::ffi::OsStr>,
    argc: usize,
) -> Result<(), (Exit, String)> {
    let name = cmd.get_name().to_string();
    let usage = |what: &str| (Exit::Usage, format!("{name}: {flag} {what}"));
    let Some(value) = value else { return Err(usage("needs a value")) };
    if argc > 2 {
        return Err(usage("takes one value and no other argument"));
    }
    if flag == COMPLETIONS {
        let text = value.to_str().unwrap_or_default();
        let shell: Shell =
            text.parse().map_err(|_| usage(&format!("{text:?}: expected bash, zsh, fish, elvish or powershell")))?;
        let mut script = Vec::new();
        clap_complete::generate(shell, cmd, name.clone(), &mut script);
        return write_stdout(&script).map_err(|e| (Exit::Output, format!("{name}: cannot write the completions: {e}")));
    }
    let dir = Path::new(value);
    if dir == Path::new("-") {
        // As generate_to prepares it, so that both give the same page.
        let mut top = cmd.clone().disable_help_subcommand(true);
        top.build();
        let mut page = Vec::new();
        clap_mangen::Man::new(top).render(&mut page).expect("rendering into memory");
        return write_stdout(&page).map_err(|e| (Exit::Output, format!("{name}: cannot write the man page: {e}")));
    }
    std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(cmd.clone(), dir))
        .map_err(|e| (Exit::Output, format!("{name}: cannot write the man pages into {}: {e}", dir.display())))
}

fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool with a subcommand and a required argument, like psins-sim.
    fn tool() -> clap::Command {
        clap::Command::new("psins-demo")
            .about("A demo tool")
            .arg(clap::Arg::new("trace").required(true))
            .arg(clap::Arg::new("machine").long("machine").short('m'))
            .subcommand(clap::Command::new("check").arg(clap::Arg::new("strict").long("strict").num_args(0)))
    }

    fn run(flag: &str, value: Option<&str>, argc: usize) -> Result<(), (Exit, String)> {
        generate(&mut tool(), flag, value.map(std::ffi::OsStr::new), argc)
    }

    #[test]
    fn man_pages_for_the_tool_and_each_subcommand() {
        let dir = std::env::temp_dir().join(format!("psins-cli-man-{}", std::process::id()));
        run(MAN, Some(dir.to_str().unwrap()), 2).unwrap();
        let page = std::fs::read_to_string(dir.join("psins-demo.1")).unwrap();
        assert!(page.contains(".TH psins-demo 1"), "{page}");
        assert!(page.contains("\\-\\-machine") && page.contains("A demo tool"), "{page}");
        let sub = std::fs::read_to_string(dir.join("psins-demo-check.1")).unwrap();
        assert!(sub.contains("\\-\\-strict"), "{sub}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_requests_are_usage_errors() {
        assert_eq!(run(COMPLETIONS, Some("tcsh"), 2).unwrap_err().0, Exit::Usage);
        assert_eq!(run(COMPLETIONS, None, 1).unwrap_err().0, Exit::Usage);
        assert_eq!(run(MAN, Some("x"), 3).unwrap_err().0, Exit::Usage);
        assert_eq!(run(MAN, Some("/proc/psins-no-such-dir"), 2).unwrap_err().0, Exit::Output);
    }
}

/// UTC civil time of `secs` since 1970-01-01 (Howard Hinnant's days-to-civil algorithm; no
/// time-zone database needed): (year, month, day, hour, minute, second). Tools that stamp a
/// file with a date share it.
pub fn utc(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, (rem / 3600) as u32, (rem % 3600 / 60) as u32, (rem % 60) as u32)
}

#[cfg(test)]
mod civil {
    #[test]
    fn civil_dates() {
        assert_eq!(super::utc(0), (1970, 1, 1, 0, 0, 0));
        // 2000-02-29 12:34:56 (a leap day of a century leap year)
        assert_eq!(super::utc(951_827_696), (2000, 2, 29, 12, 34, 56));
        // 2026-11-27 01:13:14
        assert_eq!(super::utc(1_795_742_000 - 1_795_742_000 % 86_400 + 4394), (2026, 11, 27, 1, 13, 14));
    }
}

/// Formats an error with its whole cause chain, one "caused by" per line.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        // Some errors already print their cause in their own message: say it once.
        let text = c.to_string();
        if !s.contains(&text) {
            s.push_str(&format!("\n  caused by: {text}"));
        }
        cur = c.source();
    }
    s
}
