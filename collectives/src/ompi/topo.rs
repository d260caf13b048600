//! The trees of Open MPI's `coll_base_topo.c`, built for one rank: its parent (`prev`) and
//! its children (`next`) in the order the algorithms walk them. Ranks are absolute
//! (communicator ranks), as the C functions return them.

/// Children a tree may have; Open MPI's `MAXTREEFANOUT` is 32, and a k-nomial tree of radix
/// 4 over 2^32 ranks has 3·16 children.
const MAX_CHILDREN: usize = 64;

#[derive(Clone, Copy)]
pub(crate) struct Tree {
    /// The parent; `None` at the root.
    pub prev: Option<u64>,
    next: [u32; MAX_CHILDREN],
    n: usize,
}

impl Tree {
    fn new() -> Tree {
        Tree { prev: None, next: [0; MAX_CHILDREN], n: 0 }
    }

    fn push(&mut self, child: u64) {
        self.next[self.n] = child as u32;
        self.n += 1;
    }

    pub fn next(&self) -> &[u32] {
        &self.next[..self.n]
    }
}

/// fanout^level.
fn pown(fanout: u64, level: u32) -> u64 {
    fanout.pow(level)
}

/// The level of shifted rank `rank` in a complete `fanout`-ary tree.
fn level_of(fanout: u64, rank: u64) -> u32 {
    let (mut level, mut num) = (0, 0u64);
    while num <= rank {
        num += pown(fanout, level);
        level += 1;
    }
    level - 1
}

/// `ompi_coll_base_topo_build_tree(fanout, comm, root)`: a complete `fanout`-ary tree over
/// ranks shifted so that `root` is 0, filled level by level.
pub(crate) fn kary(fanout: u64, size: u64, rank: u64, root: u64) -> Tree {
    let mut t = Tree::new();
    if size < 2 {
        return t;
    }
    let shifted = (rank + size - root) % size;
    let level = level_of(fanout, shifted);
    let delta = pown(fanout, level);
    for i in 0..fanout {
        let child = shifted + delta * (i + 1);
        if child >= size {
            break;
        }
        t.push((child + root) % size);
    }
    if shifted == 0 {
        return t;
    }
    let limit = (pown(fanout, level) - 1) / (fanout - 1);
    let mut parent = shifted;
    if parent < fanout {
        parent = 0;
    } else {
        while parent >= limit {
            parent -= delta / fanout;
        }
    }
    t.prev = Some((parent + root) % size);
    t
}

/// `ompi_coll_base_topo_build_in_order_bintree`: the binary tree rooted at `size - 1` whose
/// in-order walk is rank order (for non-commutative reductions).
pub(crate) fn in_order_bintree(size: u64, rank: u64) -> Tree {
    let mut t = Tree::new();
    let (mut size, mut me, mut parent, mut delta) = (size as i64, rank as i64, size as i64 - 1, 0i64);
    loop {
        let right = size >> 1;
        let (mut l, mut r) = (-1i64, -1i64);
        if size - 1 > 0 {
            l = parent - 1;
            if l > 0 {
                r = right - 1;
            }
        }
        if me == parent {
            if l >= 0 {
                t.push((l + delta) as u64);
            }
            if r >= 0 {
                t.push((r + delta) as u64);
            }
            break;
        }
        if me > r {
            if me == l {
                t.prev = Some((parent + delta) as u64);
            }
            size = size - right - 1;
            delta += right;
            me -= right;
            parent = size - 1;
        } else {
            if me == r {
                t.prev = Some((parent + delta) as u64);
            }
            size = right;
            parent = r;
        }
    }
    t
}

/// `ompi_coll_base_topo_build_bmtree`: the binomial tree over `index = rank - root`, children
/// `index ^ mask` for the masks from the next power of two above `index`, nearest first.
pub(crate) fn bmtree(size: u64, rank: u64, root: u64) -> Tree {
    let mut t = Tree::new();
    let index = (rank + size - root) % size;
    let mut mask = next_pow2(index);
    if index != 0 {
        t.prev = Some(((index ^ (mask >> 1)) + root) % size);
    }
    while mask < size {
        let remote = index ^ mask;
        if remote >= size {
            break;
        }
        t.push((remote + root) % size);
        mask <<= 1;
    }
    t
}

/// `ompi_coll_base_topo_build_in_order_bmtree`: the binomial tree whose parent of `v` is `v`
/// without its lowest set bit, children `v ^ mask` for the masks below that bit, nearest first.
pub(crate) fn in_order_bmtree(size: u64, rank: u64, root: u64) -> Tree {
    let mut t = Tree::new();
    let v = (rank + size - root) % size;
    let mut mask = 1;
    while mask < size {
        let remote = v ^ mask;
        if remote < v {
            t.prev = Some((remote + root) % size);
            break;
        } else if remote < size {
            t.push((remote + root) % size);
        }
        mask <<= 1;
    }
    t
}

/// `ompi_coll_base_topo_build_kmtree`: the k-nomial tree of `radix`, children farthest
/// subtree first.
pub(crate) fn kmtree(size: u64, rank: u64, root: u64, radix: u64) -> Tree {
    let mut t = Tree::new();
    let v = (rank + size - root) % size;
    let mut mask = 1;
    while mask < size {
        if !v.is_multiple_of(radix * mask) {
            t.prev = Some((v / (radix * mask) * (radix * mask) + root) % size);
            break;
        }
        mask *= radix;
    }
    mask /= radix;
    while mask > 0 {
        for r in 1..radix {
            let child = v + mask * r;
            if child < size {
                t.push((child + root) % size);
            }
        }
        mask /= radix;
    }
    t
}

/// `ompi_coll_base_topo_build_chain(1, comm, root)`, the only chain the fixed rules build (a
/// fan-out of 0 is raised to 1): ranks after the root, one after the other.
pub(crate) fn chain(size: u64, rank: u64, root: u64) -> Tree {
    let mut t = Tree::new();
    let s = (rank + size - root) % size;
    if s != 0 {
        t.prev = Some((s - 1 + root) % size);
    }
    if s + 1 < size {
        t.push((s + 1 + root) % size);
    }
    t
}

/// `opal_next_poweroftwo`: the smallest power of two strictly above `v` (1 for 0).
pub(crate) fn next_pow2(v: u64) -> u64 {
    if v == 0 {
        1
    } else {
        1 << (64 - v.leading_zeros())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tree spans the communicator: each non-root rank is the child of its parent.
    #[test]
    fn parents_and_children_agree() {
        for size in 1..70u64 {
            for root in [0, size / 2, size - 1] {
                let build: [&dyn Fn(u64) -> Tree; 6] = [
                    &|r| kary(2, size, r, root),
                    &|r| kary(4, size, r, root),
                    &|r| bmtree(size, r, root),
                    &|r| in_order_bmtree(size, r, root),
                    &|r| kmtree(size, r, root, 4),
                    &|r| chain(size, r, root),
                ];
                for (k, b) in build.iter().enumerate() {
                    let trees: Vec<Tree> = (0..size).map(b).collect();
                    for (r, t) in trees.iter().enumerate() {
                        assert_eq!(
                            t.prev.is_none(),
                            r as u64 == root || size == 1,
                            "tree {k} P {size} root {root} rank {r}"
                        );
                        if let Some(p) = t.prev {
                            assert!(trees[p as usize].next().contains(&(r as u32)), "tree {k} P {size} rank {r}");
                        }
                    }
                    let children: usize = trees.iter().map(|t| t.next().len()).sum();
                    assert_eq!(children as u64, size - 1, "tree {k} P {size} root {root}");
                }
            }
            let trees: Vec<Tree> = (0..size).map(|r| in_order_bintree(size, r)).collect();
            for (r, t) in trees.iter().enumerate() {
                assert_eq!(t.prev.is_none(), r as u64 == size - 1);
                if let Some(p) = t.prev {
                    assert!(trees[p as usize].next().contains(&(r as u32)));
                }
            }
        }
    }
}
