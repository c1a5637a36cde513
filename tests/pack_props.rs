//! Property tests of the session-start packer: on random sizes and limits, what it carries is
//! never over the limit, holds only whole resources in their order, and what it leaves out
//! is reported.

use mcpick::handoff::channel::pack::pack;
use proptest::prelude::*;

/// A rendering as `deliver`'s: a head, each kept resource's block whole, and a note when some
/// are cut. The text is the kept positions themselves, so a cut inside would show.
fn render(sizes: &[usize], head: usize, note: usize) -> impl Fn(&[usize]) -> (Vec<usize>, usize) {
    move |kept| {
        let cut = if kept.len() < sizes.len() { note } else { 0 };
        let size = head + cut + kept.iter().map(|&n| sizes[n]).sum::<usize>();
        (kept.to_vec(), size)
    }
}

proptest! {
    #[test]
    fn packing_keeps_whole_resources_in_order_under_the_limit(
        sizes in prop::collection::vec(0usize..5_000, 0..40),
        head in 0usize..500,
        note in 0usize..400,
        limit in prop::option::of(0usize..20_000),
        slack in 0usize..400,
    ) {
        let render = render(&sizes, head, note);
        // `least` may underestimate what a resource adds, never overestimate it.
        let least = |n: usize| sizes[n].saturating_sub(slack);
        let packed = pack(sizes.len(), limit, least, &render);

        // Order kept, and every position is either kept or reported left out, once.
        prop_assert!(packed.kept.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(packed.left_out.windows(2).all(|w| w[0] < w[1]));
        let mut all: Vec<usize> = packed.kept.iter().chain(&packed.left_out).copied().collect();
        all.sort_unstable();
        prop_assert_eq!(all, (0..sizes.len()).collect::<Vec<_>>());

        // What is rendered is exactly what is kept: whole resources only.
        let (text, size) = render(&packed.kept);
        prop_assert_eq!(&packed.rendered, &text);

        // Never over the limit, unless even the empty text is (then nothing is carried).
        if let Some(limit) = limit {
            let (_, empty) = render(&[]);
            if empty <= limit {
                prop_assert!(size <= limit, "{} over {}", size, limit);
            } else {
                prop_assert!(packed.kept.is_empty());
            }
        }

        // Everything that fits goes: no limit, or all of it under the limit.
        let (_, whole) = render(&(0..sizes.len()).collect::<Vec<_>>());
        if limit.is_none_or(|limit| whole <= limit) {
            prop_assert!(packed.left_out.is_empty());
        }
    }

    /// A resource too big for the channel costs only itself: the ones after it that fit alone
    /// are still carried.
    #[test]
    fn one_big_resource_costs_only_itself(
        small in prop::collection::vec(64usize..200, 1..10),
        at in 0usize..10,
    ) {
        let at = at.min(small.len());
        let mut sizes = small.clone();
        sizes.insert(at, 1_000_000);
        let limit = 100 + 200 + small.iter().sum::<usize>();
        let render = render(&sizes, 100, 200);
        let packed = pack(sizes.len(), Some(limit), |n| sizes[n], &render);
        prop_assert_eq!(packed.left_out, vec![at]);
    }
}
