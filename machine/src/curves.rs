//! pmac's collective curves file (`[network] calibration`): the time of one collective call
//! against its per-rank size, at a rank count, as psins-calibrate writes it.

use crate::coll_key;
use psins_formats::Coll;
use serde::{Deserialize, Serialize};

/// A curves file that does not read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum CurvesError {
    #[error("{name}: {source}")]
    Toml { name: String, source: toml::de::Error },
    #[error(
        "{name}: curve {curve} ({collective}): bytes must be increasing, as many as seconds (non-negative), ranks ≥ 1"
    )]
    Points { name: String, curve: usize, collective: String },
    #[error("{name}: curve {curve}: unknown collective `{collective}`")]
    UnknownCollective { name: String, curve: usize, collective: String },
}

/// One measured curve: `seconds[i]` for a collective of `bytes[i]` per rank over `ranks` ranks.
#[derive(Debug, Serialize, Deserialize, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Curve {
    pub collective: String,
    pub ranks: u32,
    pub bytes: Vec<u64>,
    pub seconds: Vec<f64>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Curves {
    #[serde(default)]
    pub curve: Vec<Curve>,
}

impl Curves {
    /// Reads a curves file; `name` (its path) starts every error.
    pub fn parse(name: &str, text: &str) -> Result<Curves, CurvesError> {
        let c: Curves = toml::from_str(text).map_err(|source| CurvesError::Toml { name: name.into(), source })?;
        for (i, k) in c.curve.iter().enumerate() {
            let ok = !k.bytes.is_empty()
                && k.bytes.len() == k.seconds.len()
                && k.bytes.windows(2).all(|w| w[0] < w[1])
                && k.seconds.iter().all(|s| s.is_finite() && *s >= 0.0)
                && k.ranks > 0;
            if !ok {
                return Err(CurvesError::Points { name: name.into(), curve: i + 1, collective: k.collective.clone() });
            }
            if !Coll::ALL.iter().any(|c| coll_key(*c) == k.collective) {
                return Err(CurvesError::UnknownCollective {
                    name: name.into(),
                    curve: i + 1,
                    collective: k.collective.clone(),
                });
            }
        }
        Ok(c)
    }
}

impl Curves {
    /// The file as TOML, through serde, below the comment `head`.
    pub fn to_toml(&self, head: &[String]) -> String {
        let head: String = head.iter().map(|l| format!("# {l}\n")).collect();
        format!("{head}\n{}", toml::to_string(self).expect("curves serialise"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_curves() {
        let bad = "[[curve]]\ncollective = \"allreduce\"\nranks = 4\nbytes = [8, 4]\nseconds = [1e-6, 2e-6]\n";
        assert!(Curves::parse("x", bad)
            .unwrap_err()
            .to_string()
            .contains("curve 1 (allreduce): bytes must be increasing"));
        let typo = "[[curve]]\ncollective = \"allreduce\"\nrank = 4\nbytes = [8]\nseconds = [1e-6]\n";
        assert!(Curves::parse("x", typo).unwrap_err().to_string().contains("line"));
    }

    #[test]
    fn written_curves_read_back() {
        let c = Curves {
            curve: vec![
                Curve {
                    collective: "allreduce".into(),
                    ranks: 2,
                    bytes: vec![8, 1024],
                    seconds: vec![1.25e-6, 3.5e-6],
                },
                Curve { collective: "barrier".into(), ranks: 2, bytes: vec![0], seconds: vec![9.75e-7] },
            ],
        };
        let text = c.to_toml(&["measured".into()]);
        assert!(text.starts_with("# measured\n\n[[curve]]\n"), "{text}");
        assert_eq!(Curves::parse("x", &text).unwrap(), c);
    }
}
