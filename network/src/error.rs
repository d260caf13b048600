//! What the networks refuse: a configuration (`validate`, and so every network's `new`), and
//! a message (`Network::try_inject`, `FluidNetwork::inject`). The watchdog's deadlock is
//! [`crate::Deadlock`]; a synthetic run's errors are [`crate::synth::SynthError`].

/// Why a network's configuration is refused. Each names the key and what would fit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// One key's value is outside what the model works with.
    #[error("{key} must be {want}, got {got}")]
    Range { key: &'static str, want: String, got: String },
    /// No routing of that name on this topology.
    #[error("unknown {topology}routing {name:?}: expected {expected}")]
    UnknownRouting { topology: &'static str, name: String, expected: &'static str },
    /// The topology's keys do not fit together (the message says how they could).
    #[error("{0}")]
    Shape(String),
    /// The routers' state would take more memory than a simulation may.
    #[error("the network state would take {mib} MiB, more than the {limit_mib} MiB allowed")]
    State { mib: u64, limit_mib: u64 },
}

impl ConfigError {
    pub(crate) fn range(key: &'static str, want: impl Into<String>, got: impl ToString) -> ConfigError {
        ConfigError::Range { key, want: want.into(), got: got.to_string() }
    }
}

/// Why a network refuses a message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MessageError {
    /// A source or destination the network does not have.
    #[error("message {msg}: node {src}→{dst} out of range (the network has {nodes} nodes)")]
    Node { msg: u64, src: u32, dst: u32, nodes: u32 },
    /// More packets than `max_message_packets` (`msg`: the message, once known).
    #[error(
        "{}a message of {bytes} bytes is {packets} packets of {packet_bytes} bytes, more than max_message_packets = {max}: simulating it packet by packet would take too long (raise max_message_packets to try anyway)",
        msg.map(|m| format!("message {m}: ")).unwrap_or_default()
    )]
    TooLarge { msg: Option<u64>, bytes: u64, packets: u64, packet_bytes: u32, max: u64 },
}

impl MessageError {
    /// The same refusal, naming message `m`.
    pub(crate) fn of(self, m: u64) -> MessageError {
        match self {
            MessageError::TooLarge { bytes, packets, packet_bytes, max, .. } => {
                MessageError::TooLarge { msg: Some(m), bytes, packets, packet_bytes, max }
            }
            e => e,
        }
    }
}
