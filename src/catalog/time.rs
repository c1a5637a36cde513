//! `lastModified` timestamps (ISO 8601 / RFC 3339) to milliseconds since the epoch, so the
//! catalogue can sort by recency. Servers write them in several spellings (`Z`, fractions,
//! offsets, date only); anything unparsable sorts as "no date".

/// Parses `YYYY-MM-DD[(T| )HH:MM[:SS[.fff…]]][Z|±HH[:]MM]`. A missing offset means UTC.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    let year = num(0..4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = num(5..7)?;
    let day = num(8..10)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut ms = days_from_civil(year, month, day) * 86_400_000;
    let mut i = 10;
    if i == b.len() {
        return Some(ms);
    }
    if !matches!(b[i], b'T' | b't' | b' ') {
        return None;
    }
    let hour = num(i + 1..i + 3)?;
    if b.get(i + 3) != Some(&b':') {
        return None;
    }
    let minute = num(i + 4..i + 6)?;
    i += 6;
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        second = num(i + 1..i + 3)?;
        i += 3;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    ms += (hour * 3600 + minute * 60 + second) * 1000;
    if matches!(b.get(i), Some(b'.' | b',')) {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let frac = &b[start..i];
        if frac.is_empty() {
            return None;
        }
        let mut millis = 0;
        for (k, d) in frac.iter().take(3).enumerate() {
            millis += i64::from(d - b'0') * [100, 10, 1][k];
        }
        ms += millis;
    }
    match b.get(i) {
        None => Some(ms),
        Some(b'Z' | b'z') if i + 1 == b.len() => Some(ms),
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1..i + 3)?;
            let om = match b.get(i + 3) {
                Some(b':') => num(i + 4..i + 6)?,
                Some(_) => num(i + 3..i + 5)?,
                None => 0,
            };
            let offset = (oh * 60 + om) * 60_000;
            Some(if sign == b'+' {
                ms - offset
            } else {
                ms + offset
            })
        }
        _ => None,
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse_timestamp as p;

    #[test]
    fn spellings() {
        assert_eq!(p("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(p("1970-01-02"), Some(86_400_000));
        assert_eq!(p("2026-02-14T09:30:00Z"), Some(1_771_061_400_000));
        assert_eq!(p("2026-02-14T09:30:00.250Z"), Some(1_771_061_400_250));
        assert_eq!(p("2026-02-14T11:30:00+02:00"), p("2026-02-14T09:30:00Z"));
        assert_eq!(p("2026-02-14T04:30:00-0500"), p("2026-02-14T09:30:00Z"));
        assert_eq!(p("2026-02-14 09:30"), p("2026-02-14T09:30:00Z"));
    }

    #[test]
    fn garbage_is_none() {
        for s in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-14T25:00",
            "2026-02-14Tx",
            "2026-02-14T09:30Zjunk",
        ] {
            assert_eq!(p(s), None, "{s}");
        }
    }
}
