//! Max-min fair bandwidth sharing (progressive filling), the solver of SimGrid's CM02/LV08
//! family, as a layer of its own: given link capacities and each flow's links, every flow
//! gets the largest rate such that no link is over capacity and no flow could get more
//! without taking from one that has less. Repeatedly, the link with the least capacity
//! left per unfixed flow fixes its flows at that share.
//!
//! The flow model solves incrementally (`sharing.rs`, which orders links by this module's
//! `Share`); the from-scratch solve below is the reference its tests compare with.
//! Only the links the flows use are looked at, and the links wait in a heap by share, so a
//! solve costs O((links used + flows · path length) · log), whatever the size of the network.

use std::cmp::Ordering;
#[cfg(test)]
use std::cmp::Reverse;
#[cfg(test)]
use std::collections::{BinaryHeap, HashMap};

/// A share of a link, ordered totally (shares are finite and non-negative).
#[derive(Clone, Copy, PartialEq)]
pub(crate) struct Share(pub(crate) f64);

impl Eq for Share {}

impl PartialOrd for Share {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Share {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Rates (same unit as `capacity`) of `flows`, each a list of link ids indexing `capacity`.
/// A flow with no links gets `f64::INFINITY`. The from-scratch solve: the flow model uses
/// the incremental [`crate::sharing`], and its tests check it against this.
#[cfg(test)]
pub(crate) fn max_min<L: AsRef<[u32]>>(capacity: impl Fn(u32) -> f64, flows: &[L]) -> Vec<f64> {
    let mut slot: HashMap<u32, usize> = HashMap::new();
    let (mut left, mut unfixed, mut members): (Vec<f64>, Vec<usize>, Vec<Vec<usize>>) = Default::default();
    for (f, links) in flows.iter().enumerate() {
        for &l in links.as_ref() {
            let k = *slot.entry(l).or_insert_with(|| {
                left.push(capacity(l));
                unfixed.push(0);
                members.push(Vec::new());
                left.len() - 1
            });
            unfixed[k] += 1;
            members[k].push(f);
        }
    }
    let mut rate = vec![f64::INFINITY; flows.len()];
    let mut fixed = vec![false; flows.len()];
    // Links by share left per unfixed flow, least first; an entry is stale once its link's
    // share has changed (a later entry holds the new one).
    let share = |k: usize, left: &[f64], unfixed: &[usize]| (left[k] / unfixed[k] as f64).max(0.0);
    let mut heap: BinaryHeap<Reverse<(Share, usize)>> =
        (0..left.len()).map(|k| Reverse((Share(share(k, &left, &unfixed)), k))).collect();
    while let Some(Reverse((Share(s), k))) = heap.pop() {
        if unfixed[k] == 0 || s != share(k, &left, &unfixed) {
            continue;
        }
        for &f in &members[k] {
            if fixed[f] {
                continue;
            }
            fixed[f] = true;
            rate[f] = s;
            for &l in flows[f].as_ref() {
                let j = slot[&l];
                left[j] -= s;
                unfixed[j] -= 1;
                if unfixed[j] > 0 && j != k {
                    heap.push(Reverse((Share(share(j, &left, &unfixed)), j)));
                }
            }
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(cap: &[f64], flows: &[Vec<u32>]) -> Vec<f64> {
        max_min(|l| cap[l as usize], flows)
    }

    #[test]
    fn two_flows_on_a_link_share_it() {
        assert_eq!(rates(&[10.0], &[vec![0], vec![0]]), vec![5.0, 5.0]);
    }

    #[test]
    fn a_flow_crossing_two_bottlenecks_gets_the_tighter_share() {
        // Link 0 (capacity 10) carries flows A and B; link 1 (capacity 6) carries B and C
        // and D. Link 1 is the bottleneck: B, C, D get 2 each; A gets the 8 left on link 0.
        let r = rates(&[10.0, 6.0], &[vec![0], vec![0, 1], vec![1], vec![1]]);
        assert_eq!(r, vec![8.0, 2.0, 2.0, 2.0]);
    }

    #[test]
    fn arrivals_and_departures_change_the_rates() {
        // A alone on a chain of two links gets all of the smaller one; B arriving on the
        // larger link takes its half of it; A leaving gives B everything.
        let cap = [4.0, 10.0];
        assert_eq!(rates(&cap, &[vec![0, 1]]), vec![4.0]);
        assert_eq!(rates(&cap, &[vec![0, 1], vec![1]]), vec![4.0, 6.0]);
        let even = [10.0, 10.0];
        assert_eq!(rates(&even, &[vec![0, 1], vec![1]]), vec![5.0, 5.0]);
        assert_eq!(rates(&even, &[vec![1]]), vec![10.0]);
        assert_eq!(rates(&even, &[Vec::<u32>::new()]), vec![f64::INFINITY]);
    }
}
