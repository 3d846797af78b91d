//! A small seeded generator (xorshift) for the examples that generate a club or play a
//! tournament: the same draws at every run.

pub struct Draw(pub u64);

impl Draw {
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
