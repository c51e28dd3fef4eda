//! One solution to draw: the first one in row order when a short search finds it, else a known construction.

/// The column of each row's queen in one solution of an `n`-board, or `None` for N = 2 and 3 (none exists).
pub fn solution(n: u32) -> Option<Vec<u32>> {
    if n == 2 || n == 3 {
        return None;
    }
    first_found(n, 200_000).or_else(|| Some(constructed(n)))
}

/// The first solution in row order, by a search of at most `budget` placements.
fn first_found(n: u32, budget: u32) -> Option<Vec<u32>> {
    fn search(
        n: u32,
        row: u32,
        cols: &mut Vec<u32>,
        masks: (u32, u32, u32),
        budget: &mut u32,
    ) -> bool {
        if row == n {
            return true;
        }
        let (left, down, right) = masks;
        let mut free = super::full_mask(n) & !(left | down | right);
        while free != 0 {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let bit = free & free.wrapping_neg();
            free ^= bit;
            cols.push(bit.trailing_zeros());
            let next = ((left | bit) << 1, down | bit, (right | bit) >> 1);
            if search(n, row + 1, cols, next, budget) {
                return true;
            }
            cols.pop();
        }
        false
    }
    let mut cols = Vec::with_capacity(n as usize);
    let mut budget = budget;
    search(n, 0, &mut cols, (0, 0, 0), &mut budget).then_some(cols)
}

/// The classic explicit solution for N ≥ 4: even columns then odd ones (1-based), with two repairs for N ≡ 2
/// and N ≡ 3 (mod 6).
fn constructed(n: u32) -> Vec<u32> {
    let mut evens: Vec<u32> = (2..=n).step_by(2).collect();
    let mut odds: Vec<u32> = (1..=n).step_by(2).collect();
    match n % 6 {
        2 => {
            // 1 and 3 swap; 5 goes last.
            odds.swap(0, 1);
            if let Some(at) = odds.iter().position(|&c| c == 5) {
                let five = odds.remove(at);
                odds.push(five);
            }
        }
        3 => {
            // 2 goes to the end of the evens; 1 and 3 to the end of the odds.
            evens.remove(0);
            evens.push(2);
            odds.retain(|&c| c != 1 && c != 3);
            odds.extend([1, 3]);
        }
        _ => {}
    }
    evens.into_iter().chain(odds).map(|c| c - 1).collect()
}

/// True when `cols` places `cols.len()` queens, one per row and column, none on a shared diagonal.
pub fn is_solution(cols: &[u32]) -> bool {
    let n = cols.len();
    (0..n).all(|r| {
        (cols[r] as usize) < n
            && (0..r).all(|q| {
                let (a, b) = (cols[r] as i64, cols[q] as i64);
                a != b && (a - b).abs() != (r - q) as i64
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_gets_a_valid_solution() {
        assert_eq!(solution(1), Some(vec![0]));
        assert_eq!(solution(2), None);
        assert_eq!(solution(3), None);
        assert_eq!(solution(8), Some(vec![0, 4, 7, 5, 2, 6, 1, 3]));
        for n in 4..=32 {
            let cols = solution(n).unwrap();
            assert_eq!(cols.len(), n as usize);
            assert!(is_solution(&cols), "N={n}: {cols:?}");
        }
    }

    #[test]
    fn the_construction_holds_for_every_size() {
        for n in 4..=32 {
            assert!(is_solution(&constructed(n)), "N={n}");
        }
    }
}
