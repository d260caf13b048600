//! Packets and messages as small integer ids into flat vectors with free lists: buffers
//! hold 4-byte ids, and a finished packet's slot is reused without allocating. A packet's
//! fields sit together (one bounds check and one cache line per packet touched) rather
//! than in parallel vectors; the per-hop code reads most of them at once.

/// Packets between leaving the source queue and ejection: exactly one cache line each.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
pub struct Packet<R> {
    /// Cycle the head may leave its current router (arrival + router delay).
    pub ready: u64,
    /// Injection cycle of the packet's message: latency is measured from it.
    pub born: u64,
    /// Cycles waited in routers beyond the router delay.
    pub blocked: u64,
    /// Cycles waited in the source queue beyond the router delay.
    pub source_wait: u64,
    pub msg: u32,
    /// The packet queued behind this one in its VC.
    pub next: u32,
    /// Link cycles the packet occupies a link (its length in phits).
    pub phits: u32,
    pub hops: u32,
    /// The fabric's routing record (a few bytes: the packet stays one cache line).
    pub route: R,
}

/// Messages from injection until their last packet is ejected.
#[derive(Clone, Copy, Default)]
pub struct Message<R> {
    pub user: u64,
    /// Injection cycle.
    pub born: u64,
    /// Cycle the next packet may leave the source router.
    pub ready: u64,
    /// Payload bytes not yet cut into packets.
    pub bytes_left: u64,
    /// Packets not yet cut / not yet delivered / in all.
    pub unsent: u64,
    pub undelivered: u64,
    pub total: u64,
    pub dst: u32,
    pub route: R,
}

impl<R> Message<R> {
    /// Whether some of its packets have left the source.
    pub fn started(&self) -> bool {
        self.unsent < self.total
    }

    /// Cuts the next packet: returns its payload bytes and whether it was the last.
    #[inline]
    pub fn cut(&mut self, packet_bytes: u64) -> (u64, bool) {
        self.unsent -= 1;
        let last = self.unsent == 0;
        let bytes = if last { self.bytes_left } else { packet_bytes };
        self.bytes_left -= bytes;
        (bytes, last)
    }
}

/// A vector of `T` with a free list.
pub struct Slab<T> {
    pub items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    #[inline]
    pub fn alloc(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = item;
                id
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    #[inline]
    pub fn free(&mut self, id: u32) {
        self.free.push(id);
    }

    pub fn live(&self) -> u64 {
        (self.items.len() - self.free.len()) as u64
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
}
