//! `--set key=value`: edits the parsed document before it is checked, so an override goes
//! through exactly the same validation as the file itself, and lines of untouched keys keep
//! their numbers in error messages.

use toml_edit::{DocumentMut, Item, Table, Value};

/// A `--set` that cannot be applied.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    #[error("--set `{0}`: expected key=value")]
    NoValue(String),
    #[error("--set `{0}`: empty key segment")]
    EmptySegment(String),
    #[error("--set `{key}`: `{segment}` is not a table")]
    NotATable { key: String, segment: String },
    #[error("--set `{0}`: is a table, not a value")]
    IsATable(String),
}

/// Applies `a.b.c=value` to `doc`. The value is read as TOML (`8`, `true`, `"x"`, `[1, 2]`);
/// anything that does not parse as TOML is taken as a string, so `--set network.latency=2us`
/// works without shell-quoting the quotes.
pub fn apply(doc: &mut DocumentMut, assignment: &str) -> Result<(), OverrideError> {
    let (key, raw) = assignment.split_once('=').ok_or_else(|| OverrideError::NoValue(assignment.into()))?;
    let path: Vec<&str> = key.trim().split('.').map(str::trim).collect();
    if path.iter().any(|p| p.is_empty()) {
        return Err(OverrideError::EmptySegment(assignment.into()));
    }
    let value = parse_value(raw.trim());
    let (last, parents) = path.split_last().expect("split yields at least one segment");
    let mut table: &mut Table = doc.as_table_mut();
    for seg in parents {
        let item = table.entry(seg).or_insert_with(|| Item::Table(Table::new()));
        table = match item {
            Item::Table(t) => t,
            _ => return Err(OverrideError::NotATable { key: key.into(), segment: seg.to_string() }),
        };
    }
    match table.get_mut(last) {
        Some(Item::Value(v)) => {
            // Keep the surrounding whitespace and comment so the line stays where it was.
            let decor = v.decor().clone();
            *v = value;
            *v.decor_mut() = decor;
        }
        Some(_) => return Err(OverrideError::IsATable(key.into())),
        None => {
            table.insert(last, Item::Value(value));
        }
    }
    Ok(())
}

fn parse_value(raw: &str) -> Value {
    raw.parse::<Value>().unwrap_or_else(|_| Value::from(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_inserts() {
        let mut doc: DocumentMut = "[network]\nmodel = \"simple\" # c\n".parse().unwrap();
        apply(&mut doc, "network.model=bus").unwrap();
        apply(&mut doc, "network.buses=4").unwrap();
        apply(&mut doc, "mpi.eager_threshold=\"1KiB\"").unwrap();
        let s = doc.to_string();
        assert!(s.contains("model = \"bus\" # c"), "{s}");
        assert!(s.contains("buses = 4"));
        assert!(s.contains("eager_threshold = \"1KiB\""));
        assert!(apply(&mut doc, "network.model.x=1").is_err());
        assert!(apply(&mut doc, "novalue").is_err());
    }
}
