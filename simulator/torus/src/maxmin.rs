//! Max-min fair bandwidth sharing (progressive filling), the solver of SimGrid's CM02/LV08
//! family, as a layer of its own: given link capacities and each flow's links, every flow
//! gets the largest rate such that no link is over capacity and no flow could get more
//! without taking from one that has less. Repeatedly, the link with the least capacity
//! left per unfixed flow fixes its flows at that share.
//!
//! Only the links the flows use are looked at, so a solve costs O(rounds · links used),
//! whatever the size of the network.

use std::collections::HashMap;

/// Rates (same unit as `capacity`) of `flows`, each a list of link ids indexing `capacity`.
/// A flow with no links gets `f64::INFINITY`.
pub fn max_min<L: AsRef<[u32]>>(capacity: impl Fn(u32) -> f64, flows: &[L]) -> Vec<f64> {
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
    loop {
        let bottleneck = (0..left.len())
            .filter(|&k| unfixed[k] > 0)
            .map(|k| (k, (left[k] / unfixed[k] as f64).max(0.0)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((k, share)) = bottleneck else { break };
        for &f in &members[k] {
            if fixed[f] {
                continue;
            }
            fixed[f] = true;
            rate[f] = share;
            for &l in flows[f].as_ref() {
                let j = slot[&l];
                left[j] -= share;
                unfixed[j] -= 1;
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
