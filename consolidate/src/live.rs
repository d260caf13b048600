//! The set of live requests of one rank, keyed by tracer request id.
//!
//! The tracer numbers requests from one counter, so the live ones are nearly always a short
//! run of recent ids: they sit in a window indexed by `id - base`, found without hashing. A
//! request that stays live while [`WINDOW`] newer ones are created (a persistent request, an
//! isend never completed) moves out of the window into a map, so the window stays short.

use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

const WINDOW: usize = 1024;

pub struct LiveSet<T> {
    base: u32,
    window: VecDeque<Option<T>>,
    old: HashMap<u32, T>,
}

impl<T> Default for LiveSet<T> {
    fn default() -> Self {
        LiveSet { base: 0, window: VecDeque::new(), old: HashMap::default() }
    }
}

impl<T> LiveSet<T> {
    /// The window slot of `id`, if the window covers it.
    fn slot(&self, id: u32) -> Option<usize> {
        let i = id.checked_sub(self.base)? as usize;
        (i < self.window.len()).then_some(i)
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut T> {
        match self.slot(id) {
            Some(i) if self.window[i].is_some() => self.window[i].as_mut(),
            _ => self.old.get_mut(&id),
        }
    }

    /// Adds `id`; gives `v` back if `id` is already live.
    pub fn insert(&mut self, id: u32, v: T) -> Result<(), T> {
        if self.get_mut(id).is_some() {
            return Err(v);
        }
        if self.window.is_empty() {
            self.base = id;
        }
        if id < self.base {
            self.old.insert(id, v);
            return Ok(());
        }
        self.make_room(id);
        let i = (id - self.base) as usize;
        if i >= self.window.len() {
            self.window.resize_with(i + 1, || None);
        }
        self.window[i] = Some(v);
        Ok(())
    }

    /// Moves the oldest entries to the map until `id` falls inside the window.
    fn make_room(&mut self, id: u32) {
        while !self.window.is_empty() && (id - self.base) as usize >= WINDOW {
            if let Some(v) = self.window.pop_front().flatten() {
                self.old.insert(self.base, v);
            }
            self.base += 1;
            self.trim();
        }
        if self.window.is_empty() {
            self.base = id;
        }
    }

    pub fn remove(&mut self, id: u32) -> Option<T> {
        match self.slot(id) {
            Some(i) if self.window[i].is_some() => {
                let v = self.window[i].take();
                self.trim();
                v
            }
            _ => self.old.remove(&id),
        }
    }

    /// Drops dead slots from the front, so the window starts at the oldest live id.
    fn trim(&mut self) {
        while let Some(None) = self.window.front() {
            self.window.pop_front();
            self.base = self.base.wrapping_add(1);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        let window = self.window.iter().enumerate().filter_map(|(i, v)| Some((self.base + i as u32, v.as_ref()?)));
        window.chain(self.old.iter().map(|(&id, v)| (id, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap as Model;

    #[derive(Debug, Clone)]
    enum Step {
        Insert(u32),
        Remove(u32),
        Touch(u32),
    }

    /// Ids near a rising counter (as the tracer makes them), with occasional far jumps.
    fn steps() -> impl Strategy<Value = Vec<Step>> {
        let step = (0..3u8, 0..40u32, any::<bool>(), any::<u32>());
        proptest::collection::vec(step, 0..400).prop_map(|v| {
            let mut next = 0u32;
            v.into_iter()
                .map(|(k, back, far, wild)| {
                    next += 1;
                    let id = if far && back < 2 { wild } else { next.saturating_sub(back) };
                    match k {
                        0 => Step::Insert(id),
                        1 => Step::Remove(id),
                        _ => Step::Touch(id),
                    }
                })
                .collect()
        })
    }

    proptest! {
        /// The window and its overflow map together behave exactly like one map.
        #[test]
        fn behaves_like_a_map(steps in steps()) {
            let (mut set, mut model) = (LiveSet::default(), Model::new());
            for s in steps {
                match s {
                    Step::Insert(id) => {
                        let fresh = !model.contains_key(&id);
                        prop_assert_eq!(set.insert(id, id as u64).is_ok(), fresh);
                        model.entry(id).or_insert(id as u64);
                    }
                    Step::Remove(id) => prop_assert_eq!(set.remove(id), model.remove(&id)),
                    Step::Touch(id) => prop_assert_eq!(set.get_mut(id).copied(), model.get(&id).copied()),
                }
                prop_assert!(set.window.len() <= WINDOW);
            }
            let mut got: Vec<_> = set.iter().map(|(id, &v)| (id, v)).collect();
            let mut want: Vec<_> = model.into_iter().collect();
            got.sort_unstable();
            want.sort_unstable();
            prop_assert_eq!(got, want);
        }
    }
}
