//! `--shard I/N`: which points of a sweep this process runs (point k belongs to shard
//! k mod N, so each shard gets cheap and dear points alike). Without the option the shard
//! comes from a Slurm job array (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`, `_MIN`,
//! `_STEP`), else from the rank variables of an mpirun launch (Open MPI's
//! `OMPI_COMM_WORLD_RANK`/`_SIZE`, MPICH's `PMI_RANK`/`PMI_SIZE`), else it is 0/1.

/// Why a shard (`--shard I/N` or the environment's) is not one.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("--shard `{arg}`: expected I/N, e.g. 0/8")]
    Format { arg: String },
    #[error("--shard `{arg}`: I is not a whole number")]
    Index { arg: String },
    #[error("--shard `{arg}`: N is not a whole number")]
    Count { arg: String },
    #[error("--shard `{arg}`: N must be at least 1")]
    NoShards { arg: String },
    #[error("--shard `{arg}`: the index {index} is out of range: shards are numbered 0 to {}", .count - 1)]
    OutOfRange { arg: String, index: u64, count: u64 },
    #[error("{name}=`{value}` is not a whole number")]
    NotANumber { name: String, value: String },
    #[error(
        "SLURM_ARRAY_TASK_ID={id} is not one of the {count} tasks of the array (from {min} by {step}); give --shard I/N"
    )]
    NotATask { id: u64, count: u64, min: u64, step: u64 },
    #[error("{rank}={index} is out of range for {size}={count}")]
    Rank { rank: &'static str, index: u64, size: &'static str, count: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (0 ≤ I < N).
    pub fn parse(s: &str) -> Result<Shard, ShardError> {
        let arg = || s.to_string();
        let (i, n) = s.split_once('/').ok_or_else(|| ShardError::Format { arg: arg() })?;
        let index: u64 = i.trim().parse().map_err(|_| ShardError::Index { arg: arg() })?;
        let count: u64 = n.trim().parse().map_err(|_| ShardError::Count { arg: arg() })?;
        if count == 0 {
            return Err(ShardError::NoShards { arg: arg() });
        }
        if index >= count {
            return Err(ShardError::OutOfRange { arg: arg(), index, count });
        }
        Ok(Shard { index, count })
    }

    /// The shard from the environment (`get` reads a variable) and where it came from.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<(Shard, &'static str)>, ShardError> {
        let num = |name: &str| -> Result<Option<u64>, ShardError> {
            match get(name) {
                None => Ok(None),
                Some(v) => {
                    v.trim().parse().map(Some).map_err(|_| ShardError::NotANumber { name: name.to_string(), value: v })
                }
            }
        };
        if let (Some(id), Some(count)) = (num("SLURM_ARRAY_TASK_ID")?, num("SLURM_ARRAY_TASK_COUNT")?) {
            let (min, step) =
                (num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0), num("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1));
            let pos = id.checked_sub(min).filter(|d| d % step == 0).map(|d| d / step);
            return match pos {
                Some(index) if index < count => Ok(Some((Shard { index, count }, "the Slurm job array"))),
                _ => Err(ShardError::NotATask { id, count, min, step }),
            };
        }
        for (rank, size, what) in [
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun"),
            ("PMI_RANK", "PMI_SIZE", "mpirun (PMI)"),
        ] {
            if let (Some(index), Some(count)) = (num(rank)?, num(size)?) {
                if index >= count || count == 0 {
                    return Err(ShardError::Rank { rank, index, size, count });
                }
                return Ok(Some((Shard { index, count }, what)));
            }
        }
        Ok(None)
    }

    pub fn owns(&self, point: u64) -> bool {
        point % self.count == self.index
    }

    /// This shard's part file name.
    pub fn part_name(&self) -> String {
        format!("part-{}-of-{}.jsonl", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> Result<Option<(Shard, &'static str)>, ShardError> {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Shard::from_env(|k| m.get(k).cloned())
    }

    #[test]
    fn parse_and_range() {
        assert_eq!(Shard::parse("2/8"), Ok(Shard { index: 2, count: 8 }));
        for (bad, why) in [("8/8", "out of range"), ("1/0", "at least 1"), ("x/2", "I is not"), ("3", "expected I/N")] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--shard `{bad}`")) && e.contains(why), "{e}");
        }
    }

    #[test]
    fn from_slurm_arrays_and_mpirun() {
        assert_eq!(env(&[]), Ok(None));
        let s = env(&[("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_COUNT", "4")]).unwrap().unwrap();
        assert_eq!(s.0, Shard { index: 3, count: 4 });
        // --array=1-4 and --array=0-6:2 number their tasks from MIN by STEP.
        let s = env(&[("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "1")]);
        assert_eq!(s.unwrap().unwrap().0, Shard { index: 0, count: 4 });
        let s = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]);
        assert_eq!(s.unwrap().unwrap().0, Shard { index: 2, count: 4 });
        assert!(env(&[("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_COUNT", "4")])
            .unwrap_err()
            .to_string()
            .contains("SLURM_ARRAY_TASK_ID=5"));
        let s = env(&[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2")]).unwrap().unwrap();
        assert_eq!(s.0, Shard { index: 1, count: 2 });
        let s = env(&[("PMI_RANK", "0"), ("PMI_SIZE", "3")]).unwrap().unwrap();
        assert_eq!(s.0, Shard { index: 0, count: 3 });
    }
}
