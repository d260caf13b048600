//! A node's memory is shared by its intra-node copies (`[machine] memory_bandwidth`, or an
//! `[[intra.band]]`'s own, docs/models.md *A node's memory*): hand-computed exchanges between two ranks of one node.
//! The test machine's `[intra]` link is 0.5 µs and 2 GB/s; the node's memory 3 GB/s.

use crate::common;

use common::*;
use psins_formats::Record;

/// Both ranks post `k` receives and `k` sends of `bytes` to each other, then wait.
fn exchange(k: u32, bytes: u64) -> Vec<Vec<Record>> {
    (0..2)
        .map(|r| {
            let peer = 1 - r;
            let mut v: Vec<Record> = (0..k).map(|i| irecv(0, peer, bytes, i + 1)).collect();
            v.extend((0..k).map(|i| isend(0, peer, bytes, k + i + 1)));
            let done: Vec<(u32, i32, u64)> = (0..k)
                .map(|i| (i + 1, peer, bytes))
                .chain((0..k).map(|i| (k + i + 1, psins_formats::NO_RANK, bytes)))
                .collect();
            v.push(waitall(0, &done));
            v.push(fin());
            v
        })
        .collect()
}

const ONE_NODE: &str = "machine.cores_per_node=2";

#[test]
fn an_exchange_shares_the_nodes_memory() {
    // Unshared: each 60 kB copy at 2 GB/s, 30 µs, + 0.5 µs.
    assert_eq!(predicted(&run(&exchange(1, 60_000), &[ONE_NODE])), 30_500_000);
    // Shared: two copies on 3 GB/s move at 1.5 GB/s each, 40 µs, + 0.5 µs.
    let shared = [ONE_NODE, "machine.memory_bandwidth=3GB/s"];
    assert_eq!(predicted(&run(&exchange(1, 60_000), &shared)), 40_500_000);
    // A halo with both neighbours being the other rank: four copies at 0.75 GB/s, 80 µs.
    assert_eq!(predicted(&run(&exchange(2, 60_000), &shared)), 80_500_000);
}

/// A node bandwidth of the large messages' band only: the same exchanges of 60 kB, above the
/// band's 16 KiB, share 3 GB/s as above; copies of 16 KiB and below share nothing.
#[test]
fn a_bands_own_node_bandwidth_applies_to_its_sizes() {
    let text = BASE.replace(
        "bandwidth = \"2GB/s\"\n",
        "bandwidth = \"2GB/s\"\n[[intra.band]]\nupto = \"16KiB\"\n[[intra.band]]\nmemory_bandwidth = \"3GB/s\"\n",
    );
    let m = psins_sim::Machine::from_str(std::path::Path::new("m.toml"), &text, &[ONE_NODE.to_string()]).unwrap();
    let run = |tasks: &[Vec<Record>]| predicted(&replay(tasks, &m).unwrap());
    assert_eq!(run(&exchange(1, 60_000)), 40_500_000);
    assert_eq!(run(&exchange(2, 60_000)), 80_500_000);
    // 10 kB copies: 5 µs each at 2 GB/s, + 0.5 µs, however many cross.
    assert_eq!(run(&exchange(2, 10_000)), 5_500_000);
}

/// `serial_receive` on the large messages' band: each rank copies its two incoming 60 kB
/// messages one after the other, 30 µs each at 2 GB/s on a node that does not limit them: the
/// second is delivered at 60.5 µs. With the node's 3 GB/s as well, the two ranks' first copies
/// share it (1.5 GB/s each, 40 µs), then their second ones (40 µs more): 80.5 µs. One message
/// each way and copies of the small band (16 KiB and below) keep their time.
#[test]
fn a_receiver_that_copies_one_message_at_a_time() {
    let serial = |memory: &str| {
        let text = BASE.replace(
            "bandwidth = \"2GB/s\"\n",
            &format!("bandwidth = \"2GB/s\"\n[[intra.band]]\nupto = \"16KiB\"\n[[intra.band]]\nserial_receive = true\n{memory}"),
        );
        psins_sim::Machine::from_str(std::path::Path::new("m.toml"), &text, &[ONE_NODE.to_string()]).unwrap()
    };
    let run = |tasks: &[Vec<Record>], m: &psins_sim::Machine| predicted(&replay(tasks, m).unwrap());
    let alone = serial("");
    assert_eq!(run(&exchange(2, 60_000), &alone), 60_500_000);
    assert_eq!(run(&exchange(1, 60_000), &alone), 30_500_000);
    assert_eq!(run(&exchange(2, 10_000), &alone), 5_500_000);
    assert_eq!(run(&exchange(2, 60_000), &serial("memory_bandwidth = \"3GB/s\"\n")), 80_500_000);
}

#[test]
fn serial_receive_outside_intra_is_refused() {
    let text = format!("{BASE}[[network.band]]\nserial_receive = true\n");
    let err = psins_sim::Machine::from_str(std::path::Path::new("m.toml"), &text, &[]).unwrap_err().to_string();
    assert!(err.contains("serial_receive") && err.contains("[[intra.band]] only"), "{err}");
}

#[test]
fn a_lone_copy_and_other_nodes_are_unchanged() {
    // One message alone on its node takes its band's time, shared memory or not.
    let one_way = |sets: &[&str]| {
        let tasks = vec![vec![send(0, 1, 60_000), fin()], vec![recv(0, 0, 60_000), fin()]];
        predicted(&run(&tasks, sets))
    };
    assert_eq!(one_way(&[ONE_NODE, "machine.memory_bandwidth=3GB/s"]), one_way(&[ONE_NODE]));
    // A rank's message to itself is its sender's CPU time ([self]), not a shared copy.
    let to_itself = |sets: &[&str]| {
        let done = [(1, 0, 60_000), (2, psins_formats::NO_RANK, 60_000)];
        let tasks = vec![vec![irecv(0, 0, 60_000, 1), isend(0, 0, 60_000, 2), waitall(0, &done), fin()]];
        predicted(&run(&tasks, sets))
    };
    assert_eq!(to_itself(&["machine.memory_bandwidth=1GB/s"]), to_itself(&[]));
    // Ranks on two nodes go through the network: the memory setting changes nothing.
    assert_eq!(
        predicted(&run(&exchange(1, 60_000), &["machine.memory_bandwidth=3GB/s"])),
        predicted(&run(&exchange(1, 60_000), &[]))
    );
}

#[test]
fn a_memory_bandwidth_of_zero_is_refused() {
    let sets = vec!["machine.memory_bandwidth=0GB/s".to_string()];
    let e = psins_sim::Machine::from_str(std::path::Path::new("m.toml"), BASE, &sets).unwrap_err().to_string();
    assert!(e.contains("machine.memory_bandwidth=0GB/s") && e.contains("a bandwidth must be positive"), "{e}");
}
