//! SplitMix64: a tiny, well-mixed PRNG, so generation and the solver's randomized restarts need no dependency
//! and a seed always gives the same sequence.

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo's bias is far below anything a generator or a tie-break notices).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// One of the set bits of `mask` (non-zero), each as likely.
    pub fn bit_of(&mut self, mask: u32) -> u32 {
        let mut m = mask;
        for _ in 0..self.below(mask.count_ones() as usize) {
            m &= m - 1;
        }
        m & m.wrapping_neg()
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix;

    #[test]
    fn bits_are_drawn_from_the_mask_and_all_come_up() {
        let mut rng = SplitMix(3);
        let mut seen = 0;
        for _ in 0..200 {
            let bit = rng.bit_of(0b1011_0100);
            assert_eq!(bit.count_ones(), 1);
            assert_ne!(bit & 0b1011_0100, 0);
            seen |= bit;
        }
        assert_eq!(seen, 0b1011_0100);
    }
}
