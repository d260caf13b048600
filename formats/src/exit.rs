//! What a tool's exit status says: one scheme for every psins tool (docs/exit-codes.md).

/// A psins tool's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok,
    /// An input cannot be read, is not valid, or holds nothing to work on.
    BadInput,
    /// The command line is wrong.
    Usage,
    /// An output cannot be written.
    Output,
    /// The replay cannot go on: every rank that is left waits (psins-sim).
    Deadlock,
    /// Stopped by SIGINT (Ctrl-C): 128 + 2, as a shell reports it.
    Interrupted,
}

impl Exit {
    pub const fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::BadInput => 1,
            Exit::Usage => 2,
            Exit::Output => 3,
            Exit::Deadlock => 4,
            Exit::Interrupted => 130,
        }
    }

    /// Ends the process with this status.
    pub fn exit(self) -> ! {
        std::process::exit(self.code() as i32)
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}
