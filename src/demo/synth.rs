//! Deterministic synthetic catalogues for benchmarks and tests: the demo server's generator
//! (several URI schemes, deep paths, names, titles, descriptions, every kind of annotation),
//! fed into a [`Catalogue`] page by page as a server would.

use crate::catalog::Catalogue;

/// A catalogue of `count` resources on one server named `synthetic`.
pub fn catalogue(count: usize) -> Catalogue {
    let mut cat = Catalogue::new();
    let server = cat.server("synthetic");
    const PAGE: usize = 10_000;
    for offset in (0..count).step_by(PAGE) {
        let page = super::demo_page(count, offset, PAGE.min(count - offset));
        cat.append(server, &page);
    }
    cat
}
