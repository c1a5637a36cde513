//! Numbers for people, one way everywhere: `ls`, `read` and the browser print sizes alike.

/// Sizes for people, in binary units as `ls -h` counts them: 512 B, 1.5 KiB, 3.2 MiB.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A span for people, rounded down to its largest unit: 45 s, 59 min, 3 h, 2 days.
pub fn duration_words(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86_400 => format!("{} h", secs / 3600),
        _ => format!("{} days", secs / 86_400),
    }
}

/// A figure for people, its thousands separated: `175,933`. Every count, token figure and
/// byte count the command line prints goes through it (JSON keeps plain numbers).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count with its noun in the right number: `1 resource`, `0 resources`, `7 resources`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::{count, duration_words, human_size, thousands};

    #[test]
    fn figures_have_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(175_933), "175,933");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(count(12_000, "token", "tokens"), "12,000 tokens");
    }

    #[test]
    fn counts_take_the_number_of_their_noun() {
        assert_eq!(count(1, "resource", "resources"), "1 resource");
        assert_eq!(count(0, "resource", "resources"), "0 resources");
        assert_eq!(count(7, "server", "servers"), "7 servers");
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration_words(45), "45 s");
        assert_eq!(duration_words(3599), "59 min");
        assert_eq!(duration_words(7200), "2 h");
        assert_eq!(duration_words(3 * 86_400), "3 days");
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(5 * 1024 * 1024), "5.0 MiB");
        assert_eq!(human_size(3 << 40), "3.0 TiB");
        assert_eq!(human_size(u64::MAX), "16777216.0 TiB");
    }
}
