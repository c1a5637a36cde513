//! Which resources a channel carries: whole ones, in order, under its limit in its own
//! measure. Pure: the caller renders and measures, so the rules can be tested on their own
//! (`tests/pack_props.rs`).

/// No resource block is smaller than this in any measure: once the text is this close to the
/// limit, nothing more can fit.
pub const LEAST_BLOCK: usize = 64;

/// What [`pack`] decides about `count` resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed<T> {
    /// Positions carried, in order.
    pub kept: Vec<usize>,
    /// Positions left out, in order: every position not in `kept`.
    pub left_out: Vec<usize>,
    /// What `render` made of `kept`.
    pub rendered: T,
}

/// Fits whole resources, in order, under `limit` (`None`: no limit).
///
/// `render(kept)` makes the text of the positions kept and returns it with its size in the
/// channel's measure; the size is of the whole text, so the parts that depend on what is
/// kept (counts, a "not delivered" note) are counted. `least(n)` is at most what taking
/// position `n` adds to that size: one that cannot fit is skipped without a render, so a big
/// set costs a render per resource that might fit, not per resource. If everything fits it
/// all goes; else each resource that still fits whole goes in and one that does not is left
/// out while the next ones are still tried, so one big resource costs only itself.
pub fn pack<T>(
    count: usize,
    limit: Option<usize>,
    least: impl Fn(usize) -> usize,
    mut render: impl FnMut(&[usize]) -> (T, usize),
) -> Packed<T> {
    let fits = |size: usize| limit.is_none_or(|limit| size <= limit);
    let all: Vec<usize> = (0..count).collect();
    let (mut rendered, mut size) = render(&all);
    let mut kept = all;
    if !fits(size) {
        kept = Vec::new();
        (rendered, size) = render(&kept);
        for n in 0..count {
            if limit.is_some_and(|limit| size + LEAST_BLOCK > limit) {
                break;
            }
            if limit.is_some_and(|limit| size + least(n) > limit) {
                continue;
            }
            kept.push(n);
            let (next, next_size) = render(&kept);
            if fits(next_size) {
                (rendered, size) = (next, next_size);
            } else {
                kept.pop();
            }
        }
    }
    let mut taken = vec![false; count];
    for &n in &kept {
        taken[n] = true;
    }
    let left_out = (0..count).filter(|&n| !taken[n]).collect();
    Packed {
        kept,
        left_out,
        rendered,
    }
}
