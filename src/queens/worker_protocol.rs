//! The Queens requests of the web app's CPU workers, as plain text (like the Sudoku protocol, testable natively).
//!
//! Request: `Q N ROW SHARD SHARDS`: count the nodes of the cut of an N-board at ROW whose index is SHARD modulo
//! SHARDS. Reply: `Q C2 C4 C8`, or `E message` for a malformed request.
//!
//! Request: `Q N`: count the N-board's solutions that a quarter and a half turn leave unchanged (what the GPU's
//! total needs to become classes). Reply: `S QUARTER HALF`.

use super::counter::Classes;
use super::{check_n, prefix, symmetric};

/// True when `request` is a Queens request (the worker's other requests are Sudoku).
pub fn is_queens(request: &str) -> bool {
    request.starts_with("Q ")
}

/// Builds a request.
pub fn request(n: u32, row: u32, shard: usize, shards: usize) -> String {
    format!("Q {n} {row} {shard} {shards}")
}

/// Builds a request for the symmetric counts.
pub fn symmetric_request(n: u32) -> String {
    format!("Q {n}")
}

/// Answers a request (the worker's side). Every word after `Q` must be a number: a request with any other word
/// is refused rather than read as the request its numbers alone would make (`Q 8 x 31` is not `Q 8 31`, and text
/// that is not a request at all is not a count of N = 31 that would take hours).
pub fn serve(request: &str) -> String {
    let mut words = request.split_whitespace();
    let fields: Option<Vec<i64>> = match words.next() {
        Some("Q") => words.map(|word| word.parse().ok()).collect(),
        _ => None,
    };
    let Some(fields) = fields else {
        return format!("E not a Queens request: {request:?}");
    };
    if let [n] = fields[..] {
        return match check_n(n) {
            Ok(n) => {
                let (quarter, half) = symmetric::fixed_counts(n);
                format!("S {quarter} {half}")
            }
            Err(e) => format!("E {e}"),
        };
    }
    let [n, row, shard, shards] = fields[..] else {
        return format!("E not a Queens request: {request:?}");
    };
    let n = match check_n(n) {
        Ok(n) => n,
        Err(e) => return format!("E {e}"),
    };
    if !(0..32).contains(&row) || shards < 1 || !(0..shards).contains(&shard) {
        return format!("E bad cut or shard in {request:?}");
    }
    let c = prefix::count_shard(n, row as u32, shard as usize, shards as usize);
    format!("Q {} {} {}", c.c2, c.c4, c.c8)
}

/// Reads a reply; `None` for an error reply or garbage.
pub fn read_reply(reply: &str) -> Option<Classes> {
    let mut fields = reply.strip_prefix("Q ")?.split_whitespace();
    let mut next = || fields.next()?.parse::<u64>().ok();
    Some(Classes {
        c2: next()?,
        c4: next()?,
        c8: next()?,
    })
}

/// Reads a reply to [`symmetric_request`]: (quarter, half); `None` for an error reply or garbage.
pub fn read_symmetric_reply(reply: &str) -> Option<(u64, u64)> {
    let mut fields = reply.strip_prefix("S ")?.split_whitespace();
    let mut next = || fields.next()?.parse::<u64>().ok();
    Some((next()?, next()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::count;

    #[test]
    fn shards_over_the_protocol_add_up() {
        let mut sum = Classes::default();
        for shard in 0..3 {
            let reply = serve(&request(10, 4, shard, 3));
            sum.add(&read_reply(&reply).unwrap());
        }
        assert_eq!(sum, count(10));
    }

    #[test]
    fn symmetric_counts_over_the_protocol() {
        assert_eq!(serve(&symmetric_request(8)), "S 0 4");
        assert_eq!(
            read_symmetric_reply(&serve(&symmetric_request(12))),
            Some((8, 80))
        );
        assert_eq!(read_symmetric_reply(&serve("Q 0")), None);
        assert_eq!(read_reply("S 0 4"), None);
    }

    #[test]
    fn bad_requests_get_error_replies() {
        assert!(is_queens("Q 8 3 0 1") && !is_queens("2\n3x3-..."));
        for bad in [
            "Q",
            "Q 8 3 0",
            "Q 40 3 0 1",
            "Q 8 3 5 2",
            "Q 8 3 0 0",
            "Q a b c d",
            // Words that are not numbers make no request of the numbers left (each of these would have been a
            // count of N = 31 or a shard of it, hours of work).
            "Q x 31",
            "Q 31 x",
            "Q 31 3 0 1 x",
            "hello 31",
            "Qx 31 3 0 1",
        ] {
            let reply = serve(bad);
            assert!(reply.starts_with("E "), "{bad:?} → {reply}");
            assert_eq!(read_reply(&reply), None);
        }
    }
}
