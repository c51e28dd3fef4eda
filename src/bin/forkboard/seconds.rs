//! Seconds written for people and scripts alike.

/// `seconds` as a plain number with at least three decimals and at least three significant digits (at most nine
/// decimals): `12.345`, `0.832`, `0.00412`, `0.0000381`. A lone puzzle takes tens of microseconds, which three
/// decimals would show as `0.000`.
pub fn seconds_text(seconds: f64) -> String {
    let decimals = if seconds > 0.0 && seconds.is_finite() {
        (2 - seconds.log10().floor() as i32).clamp(3, 9) as usize
    } else {
        3
    };
    format!("{seconds:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::seconds_text;

    #[test]
    fn small_times_keep_three_significant_digits() {
        assert_eq!(seconds_text(12.3456), "12.346");
        assert_eq!(seconds_text(0.8321), "0.832");
        assert_eq!(seconds_text(0.0083), "0.00830");
        assert_eq!(seconds_text(0.000_038_14), "0.0000381");
        assert_eq!(seconds_text(2e-12), "0.000000000");
        assert_eq!(seconds_text(0.0), "0.000");
    }
}
