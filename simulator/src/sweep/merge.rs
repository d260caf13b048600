//! `psins-sim sweep merge DIR`: joins the shards' part files into `sweep.jsonl` (the rows in
//! point order, as the shards wrote them) and `sweep.csv`. Every row must belong to the
//! directory's sweep and every point be there once; otherwise nothing is written.

use super::{row, CSV_FILE, DEF_FILE, JSONL_FILE};
use crate::error::{Result, SimError};
use psins_formats::Output;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub struct Merged {
    pub def: Value,
    /// The rows in point order.
    pub rows: Vec<Value>,
    pub parts: usize,
}

pub fn merge(dir: &Path) -> Result<Merged> {
    let def_path = dir.join(DEF_FILE);
    let text = std::fs::read_to_string(&def_path).map_err(|e| {
        input(&def_path, format!("cannot read ({e}): not a sweep directory (`psins-sim sweep -o DIR` makes one)"))
    })?;
    let def: Value =
        serde_json::from_str(&text).map_err(|e| input(&def_path, format!("not a sweep definition: {e}")))?;
    let (id, points) = match (def["sweep"].as_str(), def["points"].as_u64()) {
        (Some(id), Some(n)) => (id.to_string(), n),
        _ => return Err(input(&def_path, "not a sweep definition (no `sweep` id or `points`)".into())),
    };
    let parts = part_files(dir)?;
    if parts.is_empty() {
        return Err(input(dir, "no part-I-of-N.jsonl files: no shard has run yet".into()));
    }
    // Point → (its row's text, the file it came from).
    let mut found: BTreeMap<u64, (String, &Path)> = BTreeMap::new();
    for part in &parts {
        let text = std::fs::read_to_string(part).map_err(|e| input(part, format!("cannot read: {e}")))?;
        // A last line without its newline is a row cut short: that point is not done.
        let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
        for (i, line) in complete.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
            let bad = |m: String| input(part, format!("line {}: {m}", i + 1));
            let row: Value = serde_json::from_str(line).map_err(|e| bad(format!("not a sweep row: {e}")))?;
            if row["sweep"] != id.as_str() {
                return Err(bad(format!(
                    "a row of another sweep ({}; {} is {id}): shards of different sweeps cannot be merged",
                    row["sweep"].as_str().unwrap_or("?"),
                    def_path.display()
                )));
            }
            let k = row["point"]
                .as_u64()
                .filter(|&k| k < points)
                .ok_or_else(|| bad(format!("no point {}", row["point"])))?;
            match found.get(&k) {
                Some((other, _)) if other == line => {}
                Some((_, file)) => {
                    return Err(bad(format!("point {k} differs from its row in {}", file.display())));
                }
                None => {
                    found.insert(k, (line.to_string(), part.as_path()));
                }
            }
        }
    }
    let missing: Vec<u64> = (0..points).filter(|k| !found.contains_key(k)).collect();
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().take(10).map(u64::to_string).collect();
        let more = if missing.len() > 10 { ", …" } else { "" };
        return Err(input(
            dir,
            format!(
                "{} of {points} points are missing (points {}{more}): a shard has not finished; rerun it (finished points are kept)",
                missing.len(),
                list.join(", ")
            ),
        ));
    }
    let rows: Vec<Value> = found.values().map(|(l, _)| serde_json::from_str(l).expect("parsed above")).collect();
    let jsonl: String = found.values().map(|(l, _)| format!("{l}\n")).collect();
    let keys: Vec<String> =
        def["vary"].as_array().into_iter().flatten().filter_map(|a| a["key"].as_str()).map(String::from).collect();
    let csv = row::csv(&rows, &keys);
    // Both files are complete in their temporary files before either is renamed into place.
    let outs = [(dir.join(JSONL_FILE), jsonl), (dir.join(CSV_FILE), csv)];
    let mut prepared = Vec::new();
    for (path, text) in &outs {
        let o = Output::prepare(path, &parts).map_err(SimError::OutputFile)?;
        std::fs::File::create(o.temp_path())
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.sync_all()))
            .map_err(|e| SimError::output(path, e))?;
        prepared.push(o);
    }
    for o in prepared {
        o.commit().map_err(SimError::OutputFile)?;
    }
    Ok(Merged { def, rows, parts: parts.len() })
}

fn input(p: &Path, m: String) -> SimError {
    SimError::Input(format!("{}: {m}", p.display()))
}

/// `DIR/part-I-of-N.jsonl`, by name.
fn part_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| SimError::Input(format!("{}: cannot list: {e}", dir.display())))?;
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            name.starts_with("part-") && name.ends_with(".jsonl") && name.contains("-of-")
        })
        .collect();
    v.sort();
    Ok(v)
}

/// The result table for people: one line per point.
pub fn table(m: &Merged) -> String {
    let keys: Vec<&str> = m.def["vary"].as_array().into_iter().flatten().filter_map(|a| a["key"].as_str()).collect();
    let several = m.def["machines"].as_array().is_some_and(|a| a.len() > 1);
    let mut head: Vec<String> = vec!["point".into()];
    if several {
        head.push("machine".into());
    }
    head.extend(keys.iter().map(|k| k.to_string()));
    head.extend(["predicted (s)".into(), "mean wait (s)".into()]);
    let mut lines = vec![head];
    for r in &m.rows {
        let mut l = vec![r["point"].to_string()];
        if several {
            l.push(r["machine"].as_str().unwrap_or("").to_string());
        }
        l.extend(keys.iter().map(|k| r["vary"][*k].as_str().unwrap_or("").to_string()));
        l.push(match r["predicted_s"].as_f64() {
            Some(s) => format!("{s:.9}"),
            None => r["status"].as_str().unwrap_or("").to_string(),
        });
        l.push(format!("{:.9}", r["wait_s"].as_f64().unwrap_or(0.0)));
        lines.push(l);
    }
    let widths: Vec<usize> = (0..lines[0].len()).map(|c| lines.iter().map(|l| l[c].len()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for l in &lines {
        let cells: Vec<String> = l.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
    }
    s
}
