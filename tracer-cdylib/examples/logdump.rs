//! Prints a per-rank log as text: `cargo run -p psins-tracer --example logdump -- rank-000000.bin`.
use psins_formats::{LogReader, Record};
use std::path::Path;

fn main() {
    let mut status = 0;
    for arg in std::env::args().skip(1) {
        match LogReader::open(Path::new(&arg)) {
            Err(e) => {
                eprintln!("{e}");
                status = 1;
            }
            Ok(mut r) => {
                println!("# {arg}: {:?}", r.header);
                let mut rec = Record::default();
                loop {
                    match r.next(&mut rec) {
                        Ok(true) => println!("{:>8} {:>8} {:?} {:?}", rec.gap_ns, rec.dur_ns, rec.op, rec.list),
                        Ok(false) => break,
                        Err(e) => {
                            eprintln!("{e}");
                            status = 1;
                            break;
                        }
                    }
                }
                println!("# end: {:?}, {} records", r.end(), r.records());
            }
        }
    }
    std::process::exit(status);
}
