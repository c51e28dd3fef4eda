//! Shards: part K of M of a piece of work, for running it on several machines and adding up the results
//! (`forkboard queens N --shard K/M`, `forkboard solve FILE --shard K/M`, the Ray driver in `cluster/`).

/// Part `index` of `of` (1 ≤ index ≤ of).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1..=of.
    pub index: u32,
    /// How many shards the work is cut into.
    pub of: u32,
}

impl Shard {
    /// The whole work.
    pub const WHOLE: Shard = Shard { index: 1, of: 1 };

    /// Reads `K/M` (1 ≤ K ≤ M).
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("a shard is K/M with 1 ≤ K ≤ M (e.g. 3/8), not {text:?}");
        let (k, m) = text.trim().split_once('/').ok_or_else(bad)?;
        let (index, of) = (
            k.trim().parse::<u32>().map_err(|_| bad())?,
            m.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || index > of {
            return Err(bad());
        }
        Ok(Self { index, of })
    }

    /// True when item `i` of a list dealt out in turn (0 to shard 1, 1 to shard 2, …) belongs to this shard.
    pub fn holds(&self, i: usize) -> bool {
        i % self.of as usize == (self.index - 1) as usize
    }

    /// This shard's bytes of an input of `size` bytes, `start..end`, before they are moved to record
    /// boundaries: the shards' ranges tile the input.
    pub fn byte_range(&self, size: u64) -> (u64, u64) {
        let at = |k: u32| (u128::from(size) * u128::from(k) / u128::from(self.of)) as u64;
        (at(self.index - 1), at(self.index))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_read() {
        assert_eq!(Shard::parse("3/8"), Ok(Shard { index: 3, of: 8 }));
        assert_eq!(Shard::parse(" 1 / 1 "), Ok(Shard::WHOLE));
        assert!(Shard::parse("0/8").is_err());
        assert!(Shard::parse("9/8").is_err());
        assert!(Shard::parse("3").unwrap_err().contains("K/M"));
        assert!(Shard::parse("a/b").unwrap_err().contains("K/M"));
        assert_eq!(Shard { index: 2, of: 5 }.to_string(), "2/5");
    }

    #[test]
    fn items_and_bytes_are_dealt_out_exactly() {
        let of = 7;
        for i in 0..50 {
            let owners = (1..=of)
                .filter(|&index| Shard { index, of }.holds(i))
                .count();
            assert_eq!(owners, 1);
        }
        let size = 1_000_003;
        let mut next = 0;
        for index in 1..=of {
            let (start, end) = Shard { index, of }.byte_range(size);
            assert_eq!(start, next);
            assert!(end >= start);
            next = end;
        }
        assert_eq!(next, size);
    }
}
