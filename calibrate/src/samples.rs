//! The worker's output, parsed: one line per measurement (`kind key=value ...`, see
//! worker/psins_calib_worker.c), grouped into repeated trials so figures and spreads can be
//! taken. Unknown lines are errors: a worker from another version must not be half-read.

use crate::error::Error;
use std::collections::BTreeMap;

/// Why one line of the worker's output does not read.
#[derive(Debug, thiserror::Error)]
enum LineError {
    #[error("expected library=")]
    NoLibrary,
    #[error("`{0}` is not key=value")]
    NotKeyValue(String),
    #[error("no `{0}`")]
    Missing(&'static str),
    #[error("`{0}` is not an integer")]
    NotInteger(&'static str),
    #[error("`{0}` is not a count")]
    NotCount(&'static str),
    #[error("`{0}` is not a number")]
    NotNumber(&'static str),
    #[error("`{key}` = {value} is not a time")]
    NotTime { key: &'static str, value: f64 },
    #[error("a trial's `{0}` mark out of order")]
    MarkOutOfOrder(String),
    #[error("unknown measurement `{0}`")]
    Unknown(String),
}

/// Where one rank ran.
#[derive(Clone, Debug, PartialEq)]
pub struct RankInfo {
    pub rank: u32,
    pub host: String,
    pub cpu: i64,
    pub cpus_allowed: i64,
    pub cpus_online: i64,
}

/// Trials of one figure, in seconds.
pub type Trials = Vec<f64>;

#[derive(Clone, Debug, Default)]
pub struct Samples {
    pub ranks: Vec<RankInfo>,
    pub mpi_library: String,
    /// Seconds one clock read costs (MPI_Wtime).
    pub timer_overhead: f64,
    /// Per trial: seconds to memcpy `memcpy_bytes`.
    pub memcpy: Trials,
    pub memcpy_bytes: u64,
    /// (buffers, bytes) → half round trips.
    pub pingpong: BTreeMap<(String, u64), Trials>,
    /// (buffers, bytes) → the warm empty half round trip just before each of them (the
    /// host's speed state at that figure; empty from a worker that does not mark figures).
    pub pingpong_marks: BTreeMap<(String, u64), Trials>,
    pub send_overhead: BTreeMap<(String, u64), Trials>,
    pub recv_overhead: BTreeMap<(String, u64), Trials>,
    /// Per trial: seconds inside an `MPI_Irecv` posted before its message (empty from a
    /// worker that does not measure it).
    pub irecv_overhead: Trials,
    /// (buffers, bytes) → seconds per exchange (both ranks send to each other at once).
    pub exchange: BTreeMap<(String, u64), Trials>,
    /// (buffers, bytes) → seconds per exchange of two messages each way at once.
    pub exchange2: BTreeMap<(String, u64), Trials>,
    /// (buffers, bytes) → seconds of a rank's message to itself (Irecv, Isend, Waitall).
    pub self_path: BTreeMap<(String, u64), Trials>,
    /// (bytes, the send blocked until the receive was posted).
    pub eager: Vec<(u64, bool)>,
    /// (collective, ranks, bytes) → seconds per call.
    pub collectives: BTreeMap<(String, u32, u64), Trials>,
    /// Per trial, in order (launch after launch): the warm empty half round trip at its
    /// beginning and at its end, the host's speed state then (states.rs).
    pub states: Vec<[f64; 2]>,
    /// A trial's beginning mark whose end has not been read yet.
    begun: Option<f64>,
    pub done: bool,
}

impl Samples {
    /// The whole output of a worker, up to its `done` line.
    pub fn parse(text: &str) -> Result<Samples, Error> {
        let s = Samples::parse_so_far(text)?;
        if !s.done {
            return Err(Error::Worker("the output ends before its `done` line: the worker did not finish".into()));
        }
        if s.begun.is_some() {
            return Err(Error::Worker("a trial's `begin` mark has no `end`".into()));
        }
        Ok(s)
    }

    /// What a worker has printed so far (each line checked, nothing required).
    pub fn parse_so_far(text: &str) -> Result<Samples, Error> {
        let mut s = Samples::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            s.line(line).map_err(|why| Error::Worker(format!("line {}: {why}: `{line}`", i + 1)))?;
        }
        Ok(s)
    }

    fn line(&mut self, line: &str) -> Result<(), LineError> {
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        if kind == "mpi" {
            let v = rest.strip_prefix("library=").ok_or(LineError::NoLibrary)?;
            self.mpi_library = v.trim_matches('"').replace('\t', " ");
            return Ok(());
        }
        let f = Fields::new(rest)?;
        match kind {
            "rank" => self.ranks.push(RankInfo {
                rank: f.num("r")? as u32,
                host: f.text("host")?.to_string(),
                cpu: f.int("cpu")?,
                cpus_allowed: f.int("cpus_allowed")?,
                cpus_online: f.int("cpus_online")?,
            }),
            "timer" => self.timer_overhead = f.secs("overhead_ns")? * 1e-9,
            "memcpy" => {
                self.memcpy_bytes = f.num("bytes")?;
                self.memcpy.push(f.secs("seconds")?);
            }
            "pingpong" => {
                let key = (f.text("buffers")?.to_string(), f.num("bytes")?);
                if f.text("mark").is_ok() {
                    push(&mut self.pingpong_marks, key.clone(), f.secs("mark")?);
                }
                push(&mut self.pingpong, key, f.secs("half_rtt")?)
            }
            "send_overhead" => {
                push(&mut self.send_overhead, (f.text("buffers")?.into(), f.num("bytes")?), f.secs("seconds")?)
            }
            "recv_overhead" => {
                push(&mut self.recv_overhead, (f.text("buffers")?.into(), f.num("bytes")?), f.secs("seconds")?)
            }
            "irecv_overhead" => self.irecv_overhead.push(f.secs("seconds")?),
            "exchange" => push(&mut self.exchange, (f.text("buffers")?.into(), f.num("bytes")?), f.secs("seconds")?),
            "exchange2" => push(&mut self.exchange2, (f.text("buffers")?.into(), f.num("bytes")?), f.secs("seconds")?),
            "self" => push(&mut self.self_path, (f.text("buffers")?.into(), f.num("bytes")?), f.secs("seconds")?),
            "eager" => self.eager.push((f.num("bytes")?, f.num("blocked")? != 0)),
            "state" => {
                let half = f.secs("half_rtt")?;
                match (f.text("at")?, self.begun.take()) {
                    ("begin", None) => self.begun = Some(half),
                    ("end", Some(begin)) => self.states.push([begin, half]),
                    (at, _) => return Err(LineError::MarkOutOfOrder(at.to_string())),
                }
            }
            "collective" => {
                let key = (f.text("name")?.to_string(), f.num("ranks")? as u32, f.num("bytes")?);
                push(&mut self.collectives, key, f.secs("seconds")?)
            }
            "done" => self.done = true,
            _ => return Err(LineError::Unknown(kind.to_string())),
        }
        Ok(())
    }
}

impl Samples {
    /// Adds another launch's measurements: its trials join this one's, figure by figure.
    /// Where the host is, which MPI, the clock's cost and the eager probe stay the first
    /// launch's: they describe the host, not a trial (an eager probe of each launch could
    /// disagree at the threshold's edge and would read as a noisy host).
    pub fn absorb(&mut self, other: Samples) {
        if !self.done {
            *self = other;
            return;
        }
        self.memcpy.extend(other.memcpy);
        self.irecv_overhead.extend(other.irecv_overhead);
        for (mine, theirs) in [
            (&mut self.pingpong, other.pingpong),
            (&mut self.pingpong_marks, other.pingpong_marks),
            (&mut self.send_overhead, other.send_overhead),
            (&mut self.recv_overhead, other.recv_overhead),
            (&mut self.exchange, other.exchange),
            (&mut self.exchange2, other.exchange2),
            (&mut self.self_path, other.self_path),
        ] {
            for (k, v) in theirs {
                mine.entry(k).or_default().extend(v);
            }
        }
        for (k, v) in other.collectives {
            self.collectives.entry(k).or_default().extend(v);
        }
        self.states.extend(other.states);
    }
}

fn push<K: Ord>(m: &mut BTreeMap<K, Trials>, k: K, v: f64) {
    m.entry(k).or_default().push(v);
}

/// `key=value` fields of one line.
struct Fields<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Fields<'a> {
    fn new(rest: &'a str) -> Result<Self, LineError> {
        let mut v = Vec::new();
        for w in rest.split_whitespace() {
            v.push(w.split_once('=').ok_or_else(|| LineError::NotKeyValue(w.to_string()))?);
        }
        Ok(Fields(v))
    }
    fn text(&self, k: &'static str) -> Result<&'a str, LineError> {
        self.0.iter().find(|(key, _)| *key == k).map(|&(_, v)| v).ok_or(LineError::Missing(k))
    }
    fn int(&self, k: &'static str) -> Result<i64, LineError> {
        self.text(k)?.parse().map_err(|_| LineError::NotInteger(k))
    }
    fn num(&self, k: &'static str) -> Result<u64, LineError> {
        self.text(k)?.parse().map_err(|_| LineError::NotCount(k))
    }
    fn secs(&self, k: &'static str) -> Result<f64, LineError> {
        let v: f64 = self.text(k)?.parse().map_err(|_| LineError::NotNumber(k))?;
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(LineError::NotTime { key: k, value: v })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_kind_and_groups_trials() {
        let text = "rank r=0 host=a cpu=0 cpus_allowed=2 cpus_online=2\n\
                    mpi library=\"MPICH Version:\t4.0.2\"\n\
                    timer overhead_ns=20\n\
                    memcpy trial=0 bytes=1024 seconds=1e-6\n\
                    pingpong buffers=cold bytes=8 trial=0 half_rtt=2e-7\n\
                    pingpong buffers=cold bytes=8 trial=1 half_rtt=3e-7 mark=6e-6\n\
                    send_overhead buffers=cold bytes=8 trial=0 seconds=1e-7\n\
                    recv_overhead buffers=cold bytes=8 trial=0 seconds=1e-7\n\
                    exchange buffers=cold bytes=8 trial=0 seconds=4e-7\n\
                    irecv_overhead trial=0 seconds=9e-8\n\
                    self buffers=cold bytes=8 trial=0 seconds=3e-7\n\
                    eager bytes=256 blocked=0\n\
                    collective name=barrier ranks=2 bytes=0 trial=0 seconds=1e-6\n\
                    state trial=0 at=begin half_rtt=2e-7\n\
                    state trial=0 at=end half_rtt=2.5e-7\n\
                    done\n";
        let s = Samples::parse(text).unwrap();
        assert_eq!(s.ranks[0].host, "a");
        assert_eq!(s.mpi_library, "MPICH Version: 4.0.2");
        assert_eq!(s.pingpong[&("cold".into(), 8)], vec![2e-7, 3e-7]);
        // A worker that marks its figures: the mark is kept beside the figure's value.
        assert_eq!(s.pingpong_marks[&("cold".into(), 8)], vec![6e-6]);
        assert_eq!(s.eager, vec![(256, false)]);
        assert_eq!(s.exchange[&("cold".into(), 8)], vec![4e-7]);
        assert_eq!(s.self_path[&("cold".into(), 8)], vec![3e-7]);
        assert_eq!(s.irecv_overhead, vec![9e-8]);
        assert_eq!(s.states, vec![[2e-7, 2.5e-7]]);
    }

    #[test]
    fn launches_pool_their_trials_and_keep_the_first_hosts_facts() {
        let one = |host: &str, t: &str, blocked: u8| {
            Samples::parse(&format!(
                "rank r=0 host={host} cpu=0 cpus_allowed=2 cpus_online=2\n\
                 timer overhead_ns=20\n\
                 pingpong buffers=warm bytes=8 trial=0 half_rtt={t}\n\
                 collective name=barrier ranks=2 bytes=0 trial=0 seconds={t}\n\
                 eager bytes=256 blocked={blocked}\n\
                 done\n"
            ))
            .unwrap()
        };
        let mut s = Samples::default();
        s.absorb(one("a", "2e-7", 0));
        s.absorb(one("b", "3e-7", 1));
        assert_eq!(s.pingpong[&("warm".into(), 8)], vec![2e-7, 3e-7]);
        assert_eq!(s.collectives[&("barrier".into(), 2, 0)], vec![2e-7, 3e-7]);
        assert_eq!((s.ranks.len(), s.ranks[0].host.as_str()), (1, "a"));
        assert_eq!(s.eager, vec![(256, false)]);
    }

    #[test]
    fn bad_output_names_the_line() {
        let e = Samples::parse("done\npingpong bytes=x\n").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = Samples::parse("rank r=0 host=a cpu=0 cpus_allowed=1 cpus_online=1\n").unwrap_err().to_string();
        assert!(e.contains("did not finish"), "{e}");
        let e = Samples::parse("memcpy trial=0 bytes=1 seconds=-1\ndone\n").unwrap_err().to_string();
        assert!(e.contains("not a time"), "{e}");
        let e = Samples::parse("state trial=0 at=end half_rtt=1e-7\ndone\n").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("`end` mark out of order"), "{e}");
        let e = Samples::parse("state trial=0 at=begin half_rtt=1e-7\ndone\n").unwrap_err().to_string();
        assert!(e.contains("has no `end`"), "{e}");
    }
}
