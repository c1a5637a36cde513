//! Median and worst of timed samples, printed the same way by every bench that times a step
//! (`#[path = "common/stats.rs"] mod stats;`).

use std::time::Duration;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Prints the median and worst; returns the median.
pub fn stats(label: &str, samples: &mut [Duration]) -> Duration {
    samples.sort();
    let median = samples[samples.len() / 2];
    println!(
        "{label:<52} {:>5} samples  median {:>10.3} ms  worst {:>10.3} ms",
        samples.len(),
        ms(median),
        ms(samples[samples.len() - 1]),
    );
    median
}
