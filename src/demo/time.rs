//! RFC 3339 timestamps without a date crate.
//!
//! The catalogue needs deterministic `lastModified` values and the clock resource needs
//! "now"; both are a few lines of civil-calendar arithmetic, so no dependency is pulled in.

use std::time::{SystemTime, UNIX_EPOCH};

/// 2025-01-01T00:00:00Z, the start of the span the catalogue's timestamps fall in.
pub(crate) const SPAN_START: i64 = 1_735_689_600;
/// Two years (2025 and 2026) in seconds.
pub(crate) const SPAN_SECONDS: u64 = 730 * 86_400;

/// How a timestamp is spelled; servers in the wild use all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// `2025-03-04T05:06:07Z`
    Utc,
    /// `2025-03-04T05:06:07.123Z`
    UtcMillis(u32),
    /// `2025-03-04T07:06:07+02:00`: the same instant written with a local offset.
    Offset(i32),
}

/// Formats `unix_seconds` as an RFC 3339 timestamp in the given style.
pub(crate) fn rfc3339(unix_seconds: i64, style: Style) -> String {
    let offset_seconds = match style {
        Style::Offset(minutes) => i64::from(minutes) * 60,
        _ => 0,
    };
    let local = unix_seconds + offset_seconds;
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    let base = format!("{year:04}-{month:02}-{day:02}T{hh:02}:{mm:02}:{ss:02}");
    match style {
        Style::Utc => format!("{base}Z"),
        Style::UtcMillis(ms) => format!("{base}.{:03}Z", ms % 1000),
        Style::Offset(minutes) => {
            let sign = if minutes < 0 { '-' } else { '+' };
            let m = minutes.unsigned_abs();
            format!("{base}{sign}{:02}:{:02}", m / 60, m % 60)
        }
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn now_rfc3339() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    rfc3339(secs, Style::UtcMillis(now.subsec_millis()))
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0, Style::Utc), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(SPAN_START, Style::Utc), "2025-01-01T00:00:00Z");
        // 2024 is a leap year: Feb 29 exists.
        assert_eq!(rfc3339(1_709_164_800, Style::Utc), "2024-02-29T00:00:00Z");
        assert_eq!(
            rfc3339(1_767_225_599, Style::UtcMillis(7)),
            "2025-12-31T23:59:59.007Z"
        );
        assert_eq!(
            rfc3339(SPAN_START, Style::Offset(120)),
            "2025-01-01T02:00:00+02:00"
        );
        assert_eq!(
            rfc3339(SPAN_START, Style::Offset(-330)),
            "2024-12-31T18:30:00-05:30"
        );
        let end = SPAN_START + SPAN_SECONDS as i64 - 1;
        assert_eq!(rfc3339(end, Style::Utc), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn now_looks_like_rfc3339() {
        let now = now_rfc3339();
        assert_eq!(now.len(), "2026-01-01T00:00:00.000Z".len(), "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
    }
}
