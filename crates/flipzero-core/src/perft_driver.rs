//! Perft: the number of decision sequences of a given length, the standard check of a move
//! generator and its standard speed test. Each wing counts on one thread its own way (the
//! Othello fast path with bulk-counting kernels, the variant engine turn by turn); this module
//! is the parallel driver both share.

use rayon::prelude::*;

/// A tree perft can count: one node's children, and the count below a node on one thread.
pub(crate) trait PerftTree: Sized + Send + Sync {
    /// The children of a node with `depth` plies to go, each with the plies to go below it
    /// (a wing may keep the depth, as the variant engine does within a turn); `None` for a
    /// finished game, one leaf at every depth.
    fn children(&self, depth: u32) -> Option<Vec<(Self, u32)>>;

    /// The leaves `depth` plies below this node.
    fn count(&self, depth: u32) -> u64;
}

/// Counts on every thread of the current rayon pool: the tree is expanded breadth-first until
/// it offers enough subtrees to keep every thread busy (or only shallow ones are left, which
/// the single-thread count finishes in bulk), then the subtrees are counted in parallel.
pub(crate) fn count_in_parallel<T: PerftTree>(root: T, depth: u32) -> u64 {
    let wanted = 64 * rayon::current_num_threads();
    let mut frontier = vec![(root, depth)];
    let mut finished_leaves = 0;
    while frontier.len() < wanted && frontier.iter().any(|&(_, depth)| depth > 2) {
        let mut next = Vec::with_capacity(frontier.len() * 8);
        for (node, depth) in frontier {
            if depth <= 2 {
                next.push((node, depth));
                continue;
            }
            match node.children(depth) {
                Some(children) => next.extend(children),
                None => finished_leaves += 1,
            }
        }
        frontier = next;
    }
    finished_leaves
        + frontier
            .par_iter()
            .map(|(node, depth)| node.count(*depth))
            .sum::<u64>()
}
