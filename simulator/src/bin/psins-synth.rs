//! `psins-synth`: writes a synthetic skeleton workload as a compact trace, through the same
//! writer the consolidator uses.

use clap::Parser;
use psins_cli::chain;
use psins_formats::{note, Output};
use psins_sim::error::{parse_args, Exit, SimError};
use psins_sim::source::synth::{write_trace, Workload, SPEC_HELP};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "psins-synth",
    version,
    about = "Write a synthetic MPI workload (stencil halo + allreduce, ping-pong, all-to-all) as a .psins trace",
    after_help = "Exit codes (docs/exit-codes.md): 0 success, 2 bad arguments or workload spec, 3 the output cannot be written.\nOutput: `-` is standard output; a symlink's target is written, a device written through, a file replaced only when complete.\n\nExample:\n  psins-synth gen:stencil2d:ranks=1024,iters=1000,bytes=8KiB,compute=50us -o stencil.psins"
)]
struct Cli {
    #[arg(help = SPEC_HELP)]
    spec: String,
    /// Output file (`-`: stdout).
    #[arg(short, long)]
    output: PathBuf,
    /// Compress each task stream with zstd at this level.
    #[arg(long)]
    zstd: Option<i32>,
    /// Add each collective's expansion (MPICH's algorithm) as Step records.
    #[arg(long)]
    expand: bool,
}

fn main() {
    psins_cli::generate_if_asked::<Cli>();
    let cli: Cli = parse_args();
    let start = std::time::Instant::now();
    let r = Workload::parse(&cli.spec).and_then(|w| {
        let out = Output::prepare(&cli.output, &[]).map_err(SimError::OutputFile)?;
        let records = write_trace(&w, out.temp_path(), cli.zstd, cli.expand)?;
        out.commit().map_err(SimError::OutputFile)?;
        Ok(records)
    });
    match r {
        Ok(records) => note!(
            "psins-synth: wrote {} records to {} in {:.2} s",
            records,
            cli.output.display(),
            start.elapsed().as_secs_f64()
        ),
        Err(e) => {
            note!("psins-synth: {}", chain(&e));
            let code = if matches!(e, SimError::Trace(_)) { Exit::Output } else { e.exit_code() };
            code.exit();
        }
    }
}
