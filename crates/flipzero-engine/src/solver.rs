//! Exact endgame solver for Othello-move games on any board: the final disc margin under
//! perfect play, by default counted with empty squares going to the winner (the FFO
//! convention); a [`Goal`] selects raw counting, the fewest-discs objective (anti-Othello)
//! and limited supplies of discs (classic reversi: a side with none left passes).
//!
//! Negamax alpha-beta with a principal-variation (null-window) search; a transposition table,
//! and a small one for the positions near the end; a stability cut-off; moves ordered by the
//! table's move, then fewest opponent replies, corner stability and the opponent's potential
//! mobility (plus a short search far from the end), by quadrant parity near the end; the last
//! four empties in a function of their own, the last square scored without playing it.

use flipzero_core::color::winner_takes_empties;
use flipzero_core::movegen::{Layout, flips, legal_moves};
use std::time::Instant;

use flipzero_core::{Bitboard, Geometry, Kernel, Position, Scoring, Square, Symmetry};

/// At this many empties or fewer, moves are ordered by quadrant parity instead of mobility:
/// the mobility count costs more than it saves so close to the end.
const FASTEST_FIRST_EMPTIES: u32 = 5;
/// At this many empties or more, moves are ordered by a short search.
const SHALLOW_ORDER_EMPTIES: u32 = 14;
/// Depth of that search: deeper where the subtree to order is larger.
fn shallow_order_depth(empties: u32) -> u32 {
    match empties {
        0..18 => 2,
        18..22 => 3,
        _ => 4,
    }
}
/// At this many empties or fewer, moves are found by trying each empty square.
const SMALL_EMPTIES: u32 = 4;
/// At this many empties or more, a node first checks whether the opponent's stable discs
/// already keep the score at or below alpha.
const STABILITY_EMPTIES: u32 = 8;
/// At this many empties or more, the children are looked up in the table before any is
/// searched (enhanced transposition cut-off).
const ETC_EMPTIES: u32 = 12;
// Enhanced transposition cut-offs look for the children in the main table only.
const _: () = assert!(ETC_EMPTIES > LOCAL_TABLE_EMPTIES);
/// A solve with a deadline looks at the clock only at nodes with this many empties or more
/// (their subtrees are small next to a clock's resolution)...
const DEADLINE_EMPTIES: u32 = 10;
/// ...and only once every this many nodes.
const DEADLINE_CHECK_NODES: u64 = 4096;
/// The transposition table holds at most 2^TABLE_BITS entries (16 bytes each).
const TABLE_BITS: u32 = 22;
/// Below this many empties the positions go to a small table of their own, 2^LOCAL_TABLE_BITS
/// entries.
const LOCAL_TABLE_EMPTIES: u32 = 9;
const LOCAL_TABLE_BITS: u32 = 16;
/// Below this many empties the transposition table is not consulted.
const TABLE_EMPTIES: u32 = 7;

/// What the solver maximises for the side to move, and the one rule beyond Othello's moves
/// that it can play by: a limited supply of discs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// Fewer discs win (anti-Othello): the solver maximises the negated margin.
    pub fewest_discs: bool,
    /// How the final margin is counted.
    pub scoring: Scoring,
    /// Discs left to each side where the rules limit them (classic reversi); `None`: no limit.
    pub supplies: Option<Supplies>,
}

/// Discs left to the two sides of a position. A side with none left passes while the other
/// plays on; the game ends when neither can move. A move spends one of the mover's discs, so
/// the two supplies less the empty squares stay the same all game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Supplies {
    /// The side to move's discs.
    pub mover: u32,
    /// The other side's discs.
    pub other: u32,
}

impl Default for Goal {
    /// Most discs, empty squares to the winner: the FFO convention.
    fn default() -> Self {
        Self {
            fewest_discs: false,
            scoring: Scoring::WinnerTakesEmpties,
            supplies: None,
        }
    }
}

/// What a solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The final margin for the side to move under perfect play, counted as the [`Goal`]
    /// says (negated for the fewest-discs objective, so that higher is always better); from
    /// [`solve_outcome`], only its sign: 1 (win), 0 (draw) or -1 (loss).
    pub score: i32,
    /// The moves that reach that score: every one from [`solve`] and [`solve_for`], one from
    /// [`solve_one_best`] and [`solve_outcome`]; empty when the side to move must pass or the
    /// game is over.
    pub best_moves: Vec<Square>,
    /// Positions visited.
    pub nodes: u64,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    lower: i16,
    upper: i16,
    best: u8,
    /// Empty squares of the position: deeper entries are worth more.
    empties: u8,
}

/// A transposition table of bounds in buckets of two: a new entry replaces the same position,
/// else the bucket's shallower entry, so that the costly results near the root survive.
struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    fn new(bits: u32) -> Self {
        Self {
            entries: vec![Entry::default(); 1 << bits],
            mask: (1 << bits) - 1,
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & self.mask
    }

    fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.slot(key);
        [slot, slot ^ 1]
            .into_iter()
            .map(|slot| self.entries[slot])
            .find(|entry| entry.key == key)
    }

    fn store(&mut self, entry: Entry) {
        let slot = self.slot(entry.key);
        let (first, second) = (self.entries[slot], self.entries[slot ^ 1]);
        let target = if first.key == entry.key
            || second.key != entry.key && first.empties <= second.empties
        {
            slot
        } else {
            slot ^ 1
        };
        self.entries[target] = entry;
    }
}

/// The table's key of a position, with the mover's supply where supplies are limited.
#[inline(always)]
fn table_key<W: Bitboard>(player: W, opponent: W, supply: Option<u32>) -> u64 {
    let mut key = 0x9e37_79b9_7f4a_7c15u64;
    for word in player
        .words()
        .chain(opponent.words())
        .chain(supply.map(u64::from))
    {
        key = (key ^ word).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        key ^= key >> 29;
    }
    key | 1
}

/// One axis of the board for the stability test, as whole-board masks.
#[derive(Clone, Debug)]
struct StabilityAxis<W> {
    /// Index step from a square to its neighbour in the axis's forward direction (rows are
    /// stored one after another, so the step is the same for every square).
    step: u32,
    /// Squares that have a neighbour in the forward direction.
    has_forward: W,
    /// Squares that have a neighbour in the backward direction.
    has_backward: W,
    /// Squares with a neighbour off the board along the axis: nothing can flank them on it.
    edge: W,
    /// Every line of the board along the axis.
    lines: Vec<W>,
}

/// The four axes of a board for the stability test.
fn stability_axes<W: Bitboard>(geometry: &Geometry<W>) -> [StabilityAxis<W>; 4] {
    use flipzero_core::geometry::DIRECTIONS;
    let cols = i32::from(geometry.cols());
    std::array::from_fn(|axis| {
        let (forward, backward) = (DIRECTIONS[axis], DIRECTIONS[axis + 4]);
        let step = forward.0 * cols + forward.1;
        let neighbour = |square: Square, (row_step, col_step): (i32, i32)| {
            let (row, col) = geometry.coordinates(square);
            geometry.square_at(i32::from(row) + row_step, i32::from(col) + col_step)
        };
        let step = u32::try_from(step).expect("the forward directions step to higher indices");
        let mut masks = StabilityAxis {
            step,
            has_forward: W::EMPTY,
            has_backward: W::EMPTY,
            edge: W::EMPTY,
            lines: Vec::new(),
        };
        for square in geometry.squares() {
            let bit = W::square(square.index());
            match neighbour(square, forward) {
                Some(next) => {
                    debug_assert_eq!(next.index(), square.index() + step);
                    masks.has_forward |= bit;
                }
                None => masks.edge |= bit,
            }
            match neighbour(square, backward) {
                Some(_) => masks.has_backward |= bit,
                None => {
                    masks.edge |= bit;
                    // A line starts at each square without a backward neighbour.
                    let mut line = bit;
                    let mut at = square;
                    while let Some(next) = neighbour(at, forward) {
                        line |= W::square(next.index());
                        at = next;
                    }
                    masks.lines.push(line);
                }
            }
        }
        masks
    })
}

/// A legal move with its flipped discs and its place in the search order (lowest first).
#[derive(Clone, Copy)]
struct Candidate<W> {
    rank: i32,
    index: u32,
    flipped: W,
}

/// The solver's state for one board shape.
struct Search<W: Bitboard, L: Layout<W>> {
    kernel: Kernel,
    layout: L,
    quadrants: [W; 4],
    squares: u32,
    /// 1, or -1 under the fewest-discs objective.
    sign: i32,
    /// Whether the empties go to the side ahead at the end.
    winner_takes_empties: bool,
    stability: [StabilityAxis<W>; 4],
    corners: W,
    table: Table,
    /// The table of the positions with fewer than [`LOCAL_TABLE_EMPTIES`] empties: small
    /// enough to stay in the cache, where most table lookups happen.
    local_table: Table,
    /// One list of ordered moves per number of empties, reused by every node of that depth.
    move_lists: Vec<Vec<Candidate<W>>>,
    nodes: u64,
    /// When to give up, for a solve with a deadline; checked at the nodes with at least
    /// [`DEADLINE_EMPTIES`] empties once [`Self::next_check`] nodes are reached.
    deadline: Option<Instant>,
    next_check: u64,
    /// Set once the deadline passed: every search returns at once, and the solve has no result.
    stopped: bool,
    /// Both supplies less the empty squares, where supplies are limited: the same all game.
    supply_offset: i32,
}

impl<W: Bitboard, L: Layout<W>> Search<W, L> {
    /// A search of `layout`'s board (`geometry`) for `goal`, with tables sized for positions
    /// of up to `empties` empty squares, running the portable kernel.
    fn new(geometry: &Geometry<W>, layout: L, goal: Goal, empties: u32) -> Self {
        Self {
            kernel: Kernel::Portable,
            layout,
            quadrants: quadrants(geometry),
            squares: geometry.square_count(),
            sign: if goal.fewest_discs { -1 } else { 1 },
            winner_takes_empties: goal.scoring == Scoring::WinnerTakesEmpties,
            stability: stability_axes(geometry),
            corners: [(0, 0), (0, 1), (1, 0), (1, 1)]
                .into_iter()
                .filter_map(|(bottom, right)| {
                    geometry.square_at(
                        bottom * (i32::from(geometry.rows()) - 1),
                        right * (i32::from(geometry.cols()) - 1),
                    )
                })
                .fold(W::EMPTY, |set, square| set | W::square(square.index())),
            // Small solves (the player's, many a game) need no large table to clear.
            table: Table::new(TABLE_BITS.min(empties + 4).max(10)),
            local_table: Table::new(LOCAL_TABLE_BITS.min(empties + 4).max(10)),
            move_lists: (0..=geometry.square_count())
                .map(|_| Vec::with_capacity(32))
                .collect(),
            nodes: 0,
            deadline: None,
            next_check: u64::MAX,
            stopped: false,
            supply_offset: 0,
        }
    }

    /// The other side's discs when the mover has `supply` of them and `empties` squares are
    /// empty (limited supplies only).
    #[inline(always)]
    fn other_supply(&self, empties: u32, supply: u32) -> u32 {
        (empties as i32 + self.supply_offset - supply as i32) as u32
    }

    /// Whether the deadline passed; looks at the clock once every [`DEADLINE_CHECK_NODES`].
    fn out_of_time(&mut self) -> bool {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + DEADLINE_CHECK_NODES;
            self.stopped = self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
        }
        self.stopped
    }

    #[inline(always)]
    fn final_score(&self, player: W, opponent: W) -> i32 {
        let difference = player.count() as i32 - opponent.count() as i32;
        let empties = (self.squares - (player | opponent).count()) as i32;
        self.sign
            * if self.winner_takes_empties {
                winner_takes_empties(difference, empties)
            } else {
                difference
            }
    }

    /// The score with one empty square left, without building the children; `supply` is the
    /// mover's, read only under `LIMITED` supplies.
    #[inline(always)]
    fn last_square<const LIMITED: bool>(
        &mut self,
        player: W,
        opponent: W,
        index: u32,
        supply: u32,
    ) -> i32 {
        self.nodes += 1;
        let difference = player.count() as i32 - opponent.count() as i32;
        if !LIMITED || supply > 0 {
            let mine = flips(self.layout, player, opponent, index).count() as i32;
            if mine > 0 {
                return self.sign * (difference + 2 * mine + 1);
            }
        }
        if !LIMITED || self.other_supply(1, supply) > 0 {
            let theirs = flips(self.layout, opponent, player, index).count() as i32;
            if theirs > 0 {
                return self.sign * (difference - 2 * theirs - 1);
            }
        }
        self.final_score(player, opponent)
    }

    /// Discs of `discs` that can never be flipped: along every axis the line is full, or a
    /// neighbour is off the board or itself such a disc (grown from the edges until nothing
    /// changes). A lower bound on the truly stable discs.
    #[inline(always)]
    fn stable_discs(&self, discs: W, empty: W) -> W {
        let safe_along_axis: [W; 4] = std::array::from_fn(|axis| {
            let axis = &self.stability[axis];
            let full = axis
                .lines
                .iter()
                .filter(|&&line| (line & empty).is_empty())
                .fold(W::EMPTY, |full, &line| full | line);
            axis.edge | full
        });
        let mut stable = W::EMPTY;
        loop {
            let mut grown = discs;
            for (axis, &safe) in self.stability.iter().zip(&safe_along_axis) {
                let next_to_stable = ((stable >> axis.step) & axis.has_forward)
                    | ((stable << axis.step) & axis.has_backward);
                grown &= safe | next_to_stable;
            }
            if grown == stable {
                return stable;
            }
            stable = grown;
        }
    }

    /// An upper bound on the score when the opponent's stable discs are counted, or `None`
    /// when it could not be below `alpha` (then the stable discs are not worth finding).
    #[inline(always)]
    fn stability_bound(&self, player: W, opponent: W, alpha: i32) -> Option<i32> {
        // Most discs only: with fewest discs, stable discs of the opponent are no limit.
        if self.sign < 0 || alpha < self.squares as i32 - 2 * opponent.count() as i32 {
            return None;
        }
        let empty = self.layout.board() & !(player | opponent);
        let bound = self.squares as i32 - 2 * self.stable_discs(opponent, empty).count() as i32;
        (bound <= alpha).then_some(bound)
    }

    /// The squares of the quadrants that hold an odd number of empty squares.
    #[inline(always)]
    fn odd_quadrants(&self, empty: W) -> W {
        self.quadrants
            .iter()
            .filter(|&&quadrant| (empty & quadrant).count() % 2 == 1)
            .fold(W::EMPTY, |odd, &quadrant| odd | quadrant)
    }

    /// Squares next to a disc of `discs`, in any direction.
    #[inline(always)]
    fn next_to(&self, discs: W) -> W {
        self.stability.iter().fold(W::EMPTY, |near, axis| {
            near | ((discs >> axis.step) & axis.has_forward)
                | ((discs << axis.step) & axis.has_backward)
        })
    }

    /// Discs of `discs` on a corner, or on an edge next to a corner disc of `discs`.
    #[inline(always)]
    fn corner_stable(&self, discs: W) -> W {
        let corners = discs & self.corners;
        let mut stable = corners;
        for axis in [&self.stability[0], &self.stability[2]] {
            stable |= ((corners >> axis.step) & axis.has_forward)
                | ((corners << axis.step) & axis.has_backward);
        }
        stable & discs
    }

    /// A rough value for move ordering: corner discs and mobility (a corner reply counted
    /// twice) of both sides. Corners are bad under the fewest-discs goal: their discs stay.
    #[inline(always)]
    fn ordering_eval(&self, player: W, opponent: W, player_moves: W) -> i32 {
        let opponent_moves = legal_moves(self.layout, opponent, player);
        let mobility = |moves: W| (moves.count() + (moves & self.corners).count()) as i32;
        let corners =
            (player & self.corners).count() as i32 - (opponent & self.corners).count() as i32;
        8 * self.sign * corners + mobility(player_moves) - mobility(opponent_moves)
    }

    /// The moves in search order, written into `ordered`: the table's move first, then
    /// fewest opponent replies far from the end, or moves in odd quadrants first near it.
    #[inline(always)]
    fn order(
        &self,
        player: W,
        opponent: W,
        moves: W,
        empties: u32,
        hinted: Option<u32>,
        ordered: &mut Vec<Candidate<W>>,
    ) {
        let empty = self.layout.board() & !(player | opponent);
        ordered.clear();
        for index in moves.indices() {
            let flipped = flips(self.layout, player, opponent, index);
            let rank = if Some(index) == hinted {
                i32::MIN
            } else if empties > FASTEST_FIRST_EMPTIES {
                let (next_player, next_opponent) =
                    (opponent ^ flipped, player | flipped | W::square(index));
                let replies = legal_moves(self.layout, next_player, next_opponent);
                let weighted =
                    |squares: W| (squares.count() + (squares & self.corners).count()) as i32;
                // Fewest replies first (a reply on a corner counting double), then most discs
                // made safe at the corners, then fewest squares the opponent might reach later
                // (empty squares next to our discs): weights rather than strict tie-breaks, as
                // the last term can outgrow a step of the second on large boards. Under the
                // fewest-discs goal discs made safe count against the move (they stay ours):
                // ordered the other way, 6x6 anti-Othello searched 20-120 times more nodes.
                let next_empty = empty & !W::square(index);
                let potential = self.next_to(next_opponent) & next_empty;
                let mut primary = weighted(replies);
                if empties >= SHALLOW_ORDER_EMPTIES {
                    // Far from the end a short search adds what the reply count misses.
                    let depth = shallow_order_depth(empties);
                    primary += self.shallow(next_player, next_opponent, depth);
                }
                (primary << 15)
                    - ((self.sign * self.corner_stable(next_opponent).count() as i32) << 11)
                    + (weighted(potential) << 5)
            } else {
                let quadrant = self
                    .quadrants
                    .iter()
                    .find(|quadrant| quadrant.contains(index))
                    .copied()
                    .unwrap_or(W::EMPTY);
                // Odd quadrants first.
                1 - ((empty & quadrant).count() % 2) as i32
            };
            ordered.push(Candidate {
                rank,
                index,
                flipped,
            });
        }
        // Few moves: an insertion sort beats the general one.
        for next in 1..ordered.len() {
            let mut at = next;
            while at > 0 && ordered[at - 1].rank > ordered[at].rank {
                ordered.swap(at - 1, at);
                at -= 1;
            }
        }
    }
}

/// Defines one copy of the ordering search: a depth-limited alpha-beta search with
/// [`Search::ordering_eval`] at the leaves, compiled like `search_kernel!` below.
macro_rules! shallow_kernel {
    ($(#[$attribute:meta])* $name:ident) => {
        $(#[$attribute])*
        fn $name<W: Bitboard, L: Layout<W>>(
            this: &Search<W, L>,
            player: W,
            opponent: W,
            depth: u32,
            mut alpha: i32,
            beta: i32,
        ) -> i32 {
            let moves = legal_moves(this.layout, player, opponent);
            if depth == 0 {
                return this.ordering_eval(player, opponent, moves);
            }
            if moves.is_empty() {
                if legal_moves(this.layout, opponent, player).is_empty() {
                    return 1000 * this.final_score(player, opponent).signum();
                }
                return -$name(this, opponent, player, depth - 1, -beta, -alpha);
            }
            let mut best = -i32::MAX;
            for index in moves.indices() {
                let flipped = flips(this.layout, player, opponent, index);
                let value = -$name(
                    this,
                    opponent ^ flipped,
                    player | flipped | W::square(index),
                    depth - 1,
                    -beta,
                    -alpha,
                );
                if value > best {
                    best = value;
                    if value > alpha {
                        alpha = value;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            best
        }
    };
}

shallow_kernel!(shallow_portable);
shallow_kernel!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    shallow_x86_64_v3
);

/// Defines one copy of the recursive search; the copies differ only in the CPU features they
/// are compiled for (see `flipzero_core::othello::perft` for the same pattern), so that the feature
/// check happens once per solve rather than once per node. Each is generic over `LIMITED`:
/// whether the sides' supplies of discs can run out, in which case `supply` is the mover's
/// (else it is never read, and Othello's search pays nothing for it).
macro_rules! search_kernel {
    ($(#[$attribute:meta])* $name:ident, $small:ident) => {
        /// The last few empties, in a function of its own: these nodes are most of the tree
        /// and need none of the general search's state (a speed gain from the split was not
        /// measurable above this machine's noise).
        $(#[$attribute])*
        fn $small<W: Bitboard, L: Layout<W>, const LIMITED: bool>(
            this: &mut Search<W, L>,
            player: W,
            opponent: W,
            mut alpha: i32,
            beta: i32,
            empties: u32,
            supply: u32,
        ) -> i32 {
            if empties == 1 {
                let index = (this.layout.board() & !(player | opponent)).lowest_index();
                return this.last_square::<LIMITED>(player, opponent, index, supply);
            }
            // So close to the end, trying each empty square is cheaper than generating moves
            // in bulk; odd quadrants first.
            this.nodes += 1;
            let empty = this.layout.board() & !(player | opponent);
            let next_supply = if LIMITED { this.other_supply(empties, supply) } else { 0 };
            let mut best = -i32::MAX;
            if !LIMITED || supply > 0 {
                let odd = this.odd_quadrants(empty);
                for index in (empty & odd).indices().chain((empty & !odd).indices()) {
                    let flipped = flips(this.layout, player, opponent, index);
                    if flipped.is_empty() {
                        continue;
                    }
                    let (next_player, next_opponent) =
                        (opponent ^ flipped, player | flipped | W::square(index));
                    let score = -$small::<W, L, LIMITED>(
                        this,
                        next_player,
                        next_opponent,
                        -beta,
                        -alpha,
                        empties - 1,
                        next_supply,
                    );
                    if score > best {
                        best = score;
                        if score > alpha {
                            alpha = score;
                            if alpha >= beta {
                                return best;
                            }
                        }
                    }
                }
            }
            if best != -i32::MAX {
                return best;
            }
            let opponent_can_move = (!LIMITED || next_supply > 0)
                && empty
                    .indices()
                    .any(|index| !flips(this.layout, opponent, player, index).is_empty());
            if !opponent_can_move {
                return this.final_score(player, opponent);
            }
            -$small::<W, L, LIMITED>(this, opponent, player, -beta, -alpha, empties, next_supply)
        }

        $(#[$attribute])*
        fn $name<W: Bitboard, L: Layout<W>, const LIMITED: bool>(
            this: &mut Search<W, L>,
            player: W,
            opponent: W,
            mut alpha: i32,
            beta: i32,
            empties: u32,
            supply: u32,
        ) -> i32 {
            if empties <= SMALL_EMPTIES {
                return $small::<W, L, LIMITED>(this, player, opponent, alpha, beta, empties, supply);
            }
            this.nodes += 1;
            if empties >= DEADLINE_EMPTIES && this.out_of_time() {
                return 0;
            }
            let next_supply = if LIMITED { this.other_supply(empties, supply) } else { 0 };
            let moves = if LIMITED && supply == 0 {
                W::EMPTY
            } else {
                legal_moves(this.layout, player, opponent)
            };
            if moves.is_empty() {
                if (LIMITED && next_supply == 0) || legal_moves(this.layout, opponent, player).is_empty() {
                    return this.final_score(player, opponent);
                }
                return -$name::<W, L, LIMITED>(this, opponent, player, -beta, -alpha, empties, next_supply);
            }
            if empties >= STABILITY_EMPTIES
                && let Some(bound) = this.stability_bound(player, opponent, alpha)
            {
                return bound;
            }
            let use_table = empties >= TABLE_EMPTIES;
            let (key, mut hinted) = (table_key(player, opponent, LIMITED.then_some(supply)), None);
            if use_table {
                let table = if empties < LOCAL_TABLE_EMPTIES {
                    &this.local_table
                } else {
                    &this.table
                };
                if let Some(entry) = table.probe(key) {
                    let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
                    if lower >= beta || lower == upper {
                        return lower;
                    }
                    if upper <= alpha {
                        return upper;
                    }
                    hinted = Some(u32::from(entry.best));
                }
            }
            // This depth's list, put back before returning (a list left out only costs an
            // allocation the next time).
            let mut ordered = std::mem::take(&mut this.move_lists[empties as usize]);
            this.order(player, opponent, moves, empties, hinted, &mut ordered);
            if empties >= ETC_EMPTIES {
                // Enhanced transposition cut-off: a child the table already bounds high enough
                // for a cut-off needs no search.
                for &Candidate { index, flipped, .. } in ordered.iter() {
                    let child = table_key(
                        opponent ^ flipped,
                        player | flipped | W::square(index),
                        LIMITED.then_some(next_supply),
                    );
                    if let Some(entry) = this.table.probe(child) {
                        let value = -i32::from(entry.upper);
                        if value >= beta {
                            this.move_lists[empties as usize] = ordered;
                            return value;
                        }
                    }
                }
            }
            let original_alpha = alpha;
            let mut best = -i32::MAX;
            let mut best_move = 0;
            for (rank, &Candidate { index, flipped, .. }) in ordered.iter().enumerate() {
                let (next_player, next_opponent) =
                    (opponent ^ flipped, player | flipped | W::square(index));
                let mut child = |alpha: i32, beta: i32| {
                    if empties - 1 <= SMALL_EMPTIES {
                        -$small::<W, L, LIMITED>(
                            this, next_player, next_opponent, -beta, -alpha, empties - 1, next_supply,
                        )
                    } else {
                        -$name::<W, L, LIMITED>(
                            this, next_player, next_opponent, -beta, -alpha, empties - 1, next_supply,
                        )
                    }
                };
                let score = if rank == 0 {
                    child(alpha, beta)
                } else {
                    // Null window first: most moves only need to be shown no better.
                    let probe = child(alpha, alpha + 1);
                    if probe > alpha && probe < beta {
                        child(probe, beta)
                    } else {
                        probe
                    }
                };
                if score > best {
                    best = score;
                    best_move = index;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            this.move_lists[empties as usize] = ordered;
            if use_table && !this.stopped {
                let bound = this.squares as i32;
                let (lower, upper) = if best >= beta {
                    (best, bound)
                } else if best > original_alpha {
                    (best, best)
                } else {
                    (-bound, best)
                };
                let table = if empties < LOCAL_TABLE_EMPTIES {
                    &mut this.local_table
                } else {
                    &mut this.table
                };
                table.store(Entry {
                    key,
                    lower: lower as i16,
                    upper: upper as i16,
                    best: best_move as u8,
                    empties: empties as u8,
                });
            }
            best
        }
    };
}

search_kernel!(search_portable, small_portable);
search_kernel!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    search_x86_64_v3,
    small_x86_64_v3
);

impl<W: Bitboard, L: Layout<W>> Search<W, L> {
    /// The ordering search of [`shallow_kernel!`] with the fastest kernel of this CPU.
    fn shallow(&self, player: W, opponent: W, depth: u32) -> i32 {
        let (alpha, beta) = (-i32::MAX, i32::MAX);
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::X86_64V3 => {
                // SAFETY: as in `search`.
                unsafe { shallow_x86_64_v3(self, player, opponent, depth, alpha, beta) }
            }
            _ => shallow_portable(self, player, opponent, depth, alpha, beta),
        }
    }

    /// The search with the fastest kernel of this CPU; `supply` is the mover's discs where
    /// supplies are limited.
    fn search(
        &mut self,
        player: W,
        opponent: W,
        (alpha, beta): (i32, i32),
        empties: u32,
        supply: Option<u32>,
    ) -> i32 {
        match (self.kernel, supply) {
            #[cfg(target_arch = "x86_64")]
            (Kernel::X86_64V3, None) => {
                // SAFETY: `kernel` comes from `Kernel::detect`, which checked every feature
                // the kernel was compiled for.
                unsafe {
                    search_x86_64_v3::<W, L, false>(self, player, opponent, alpha, beta, empties, 0)
                }
            }
            #[cfg(target_arch = "x86_64")]
            (Kernel::X86_64V3, Some(supply)) => {
                // SAFETY: as above.
                unsafe {
                    search_x86_64_v3::<W, L, true>(
                        self, player, opponent, alpha, beta, empties, supply,
                    )
                }
            }
            (_, None) => {
                search_portable::<W, L, false>(self, player, opponent, alpha, beta, empties, 0)
            }
            (_, Some(supply)) => {
                search_portable::<W, L, true>(self, player, opponent, alpha, beta, empties, supply)
            }
        }
    }
}

fn quadrants<W: Bitboard>(geometry: &Geometry<W>) -> [W; 4] {
    let (half_rows, half_cols) = (geometry.rows().div_ceil(2), geometry.cols().div_ceil(2));
    let mut quadrants = [W::EMPTY; 4];
    for square in geometry.squares() {
        let (row, col) = geometry.coordinates(square);
        let quadrant = usize::from(row >= half_rows) * 2 + usize::from(col >= half_cols);
        quadrants[quadrant] |= W::square(square.index());
    }
    quadrants
}

/// What a solve proves at the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Proof {
    /// The exact score and every move that reaches it.
    EveryBestMove,
    /// The exact score and one move that reaches it.
    OneBestMove,
    /// The score inside the window (`low`, `high`), or that window's edge when the score is
    /// at or beyond it (a bound: at most `low`, at least `high`), with one move that reaches
    /// it; win, draw or loss is the window (-1, 1).
    Window { low: i32, high: i32 },
}

/// The solve; `None` when `deadline` passed before it finished.
fn solve_with<W: Bitboard, L: Layout<W>>(
    position: &Position<W>,
    goal: Goal,
    proof: Proof,
    deadline: Option<Instant>,
    layout: L,
) -> Option<Solution> {
    let geometry = position.geometry();
    let mut search = Search::new(geometry, layout, goal, position.empty().count());
    search.kernel = Kernel::detect();
    if deadline.is_some() {
        search.deadline = deadline;
        search.next_check = 0;
    }
    let (player, opponent) = (position.player(), position.opponent());
    let empties = position.empty().count();
    // Supplies that cover every empty square cannot run out: Othello's faster search.
    let supplies = goal
        .supplies
        .filter(|supplies| supplies.mover.min(supplies.other) < empties);
    if let Some(supplies) = supplies {
        search.supply_offset = (supplies.mover + supplies.other) as i32 - empties as i32;
    }
    let supply = supplies.map(|supplies| supplies.mover);
    let next_supply = supplies.map(|supplies| supplies.other);
    let root_moves = if supply == Some(0) {
        W::EMPTY
    } else {
        position.legal_moves()
    };
    let limit = geometry.square_count() as i32;
    // Scores outside the window are bounds; an outcome only needs their sign.
    let (low, high) = match proof {
        Proof::Window { low, high } => (low, high),
        Proof::EveryBestMove | Proof::OneBestMove => (-limit, limit),
    };
    let reported = |score: i32| score.clamp(low, high);
    if empties == 0 || root_moves.is_empty() {
        let score = if empties == 0 {
            search.final_score(player, opponent)
        } else {
            search.search(player, opponent, (low, high), empties, supply)
        };
        return (!search.stopped).then(|| Solution {
            score: reported(score),
            best_moves: Vec::new(),
            nodes: search.nodes.max(1),
        });
    }
    let every_best_move = proof == Proof::EveryBestMove;
    let mut best = low - 1;
    let mut best_moves = Vec::new();
    let mut ordered = Vec::new();
    search.order(player, opponent, root_moves, empties, None, &mut ordered);
    let root_moves: Vec<u32> = ordered.iter().map(|candidate| candidate.index).collect();
    // A move whose result is a symmetric image of an earlier move's scores the same (at the
    // start of a game every first move is such an image).
    let symmetries: Vec<Symmetry> = Symmetry::of_board(geometry).collect();
    let mut searched: Vec<(Position<W>, i32)> = Vec::new();
    for index in root_moves {
        if best >= high && !every_best_move {
            // Nothing can beat a win (or the largest margin).
            break;
        }
        let child = position.play_unchecked(Square(index as u8));
        let twin = searched.iter().find(|(earlier, _)| {
            symmetries
                .iter()
                .any(|&symmetry| earlier.transformed(symmetry) == child)
        });
        let score = match twin {
            // The twin's score is exact, or a bound no better than the best at the time, which
            // keeps both out (ties are only recorded with exact scores).
            Some(&(_, score)) => score,
            None => {
                let flipped = flips(layout, player, opponent, index);
                let (next_player, next_opponent) =
                    (opponent ^ flipped, player | flipped | W::square(index));
                let mut value = |alpha: i32, beta: i32| {
                    -search.search(
                        next_player,
                        next_opponent,
                        (-beta, -alpha),
                        empties - 1,
                        next_supply,
                    )
                };
                if best < low {
                    value(low, high)
                } else {
                    // Every best move needs a window that a tie passes; one best move only
                    // needs each later move shown no better. A null window shows that, and only
                    // a move that passes it is searched again for its exact score.
                    let alpha = if every_best_move { best - 1 } else { best }.max(low);
                    let bound = value(alpha, alpha + 1);
                    if bound > alpha && bound < high {
                        value(bound - 1, high)
                    } else {
                        bound
                    }
                }
            }
        };
        if search.stopped {
            return None;
        }
        // A bound outside a window counts as the window's edge.
        let score = score.clamp(low, high);
        searched.push((child, score));
        if score > best {
            best = score;
            best_moves.clear();
            best_moves.push(Square(index as u8));
        } else if score == best && every_best_move {
            best_moves.push(Square(index as u8));
        }
    }
    best_moves.sort();
    Some(Solution {
        score: reported(best),
        best_moves,
        nodes: search.nodes,
    })
}

/// [`solve_with`] to its end.
fn solve_fully<W: Bitboard>(position: &Position<W>, goal: Goal, proof: Proof) -> Solution {
    flipzero_core::with_layout!(position.geometry(), W, |layout| solve_with(
        position, goal, proof, None, layout
    ))
    .expect("a solve without a deadline finishes")
}

/// Solves a position exactly under the FFO convention: its score and every best move.
pub fn solve<W: Bitboard>(position: &Position<W>) -> Solution {
    solve_for(position, Goal::default())
}

/// Solves a position exactly for a goal: its score and every best move.
pub fn solve_for<W: Bitboard>(position: &Position<W>, goal: Goal) -> Solution {
    solve_fully(position, goal, Proof::EveryBestMove)
}

/// Solves a position exactly for a goal: its score and one best move (the first found), which
/// is faster than proving every best move.
pub fn solve_one_best<W: Bitboard>(position: &Position<W>, goal: Goal) -> Solution {
    solve_fully(position, goal, Proof::OneBestMove)
}

/// [`solve_one_best`], given up when `deadline` passes first (`None`): how a player with a
/// clock tries to solve further from the end than it can be sure of finishing.
pub fn solve_one_best_by<W: Bitboard>(
    position: &Position<W>,
    goal: Goal,
    deadline: Instant,
) -> Option<Solution> {
    flipzero_core::with_layout!(position.geometry(), W, |layout| solve_with(
        position,
        goal,
        Proof::OneBestMove,
        Some(deadline),
        layout
    ))
}

/// Solves whether the side to move wins, draws or loses for a goal (a search in the window
/// (-1, 1), much cheaper than the exact score): the solution's score is 1, 0 or -1, with one
/// move that reaches that outcome.
pub fn solve_outcome<W: Bitboard>(position: &Position<W>, goal: Goal) -> Solution {
    solve_fully(position, goal, Proof::Window { low: -1, high: 1 })
}

/// Solves a position within the window (`low`, `high`), `low < high`, given up when
/// `deadline` passes first: the score when it lies strictly inside, else the window's edge
/// as a bound (`low`: the score is at most `low`; `high`: at least `high`). A narrow window
/// is much cheaper than the exact score, which is all a search that only needs to know
/// whether a position beats its bounds asks for.
pub fn solve_in_window_by<W: Bitboard>(
    position: &Position<W>,
    goal: Goal,
    low: i32,
    high: i32,
    deadline: Option<Instant>,
) -> Option<Solution> {
    assert!(low < high, "an empty window ({low}, {high})");
    flipzero_core::with_layout!(position.geometry(), W, |layout| solve_with(
        position,
        goal,
        Proof::Window { low, high },
        deadline,
        layout
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipzero_core::movegen::SquareBoard;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The stability rule disc by disc, axis by axis, walking the board: along every axis the
    /// line is full, or a neighbour is off the board or a stable disc of the same set.
    fn stable_by_walking<W: Bitboard>(geometry: &Geometry<W>, discs: W, empty: W) -> W {
        use flipzero_core::geometry::DIRECTIONS;
        let line_and_neighbours = |square: Square, axis: usize| {
            let (row, col) = geometry.coordinates(square);
            let (mut line, mut neighbours, mut at_edge) = (W::EMPTY, Vec::new(), false);
            for (row_step, col_step) in [DIRECTIONS[axis], DIRECTIONS[axis + 4]] {
                let (mut r, mut c, mut first) = (i32::from(row), i32::from(col), true);
                loop {
                    r += row_step;
                    c += col_step;
                    let Some(next) = geometry.square_at(r, c) else {
                        at_edge |= first;
                        break;
                    };
                    line |= W::square(next.index());
                    if first {
                        neighbours.push(next.index());
                    }
                    first = false;
                }
            }
            (line, neighbours, at_edge)
        };
        let mut stable = W::EMPTY;
        loop {
            let mut grown = stable;
            for index in discs.indices() {
                let safe = (0..4).all(|axis| {
                    let (line, neighbours, at_edge) =
                        line_and_neighbours(Square(index as u8), axis);
                    at_edge
                        || (line & empty).is_empty()
                        || neighbours.iter().any(|&next| stable.contains(next))
                });
                if safe {
                    grown |= W::square(index);
                }
            }
            if grown == stable {
                return stable;
            }
            stable = grown;
        }
    }

    /// Positions along random games, with both sides' discs checked at every ply.
    fn check_stability<W: Bitboard>(rows: u8, cols: u8, games: usize) {
        let geometry = Geometry::<W>::get(rows, cols).unwrap();
        let search = Search::new(geometry, geometry, Goal::default(), 0);
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(rows) * 100 + u64::from(cols));
        let mut checked = 0;
        for _ in 0..games {
            let mut position = Position::start(geometry);
            while !position.is_game_over() {
                let empty = position.empty();
                for discs in [position.player(), position.opponent()] {
                    let expected = stable_by_walking(geometry, discs, empty);
                    assert_eq!(search.stable_discs(discs, empty), expected, "{position}");
                    checked += usize::from(!expected.is_empty());
                }
                let moves: Vec<Square> = position.legal_squares().collect();
                position = if moves.is_empty() {
                    position.pass_unchecked()
                } else {
                    position.play_unchecked(moves[rng.random_range(0..moves.len())])
                };
            }
        }
        // The games reach positions with stable discs, so the comparison is not all empty.
        assert!(checked > games, "{checked} positions with stable discs");
    }

    #[test]
    fn stable_discs_by_masks_equal_the_disc_by_disc_rule() {
        check_stability::<u64>(8, 8, 40);
        check_stability::<u64>(6, 6, 40);
        check_stability::<u64>(4, 6, 40);
        check_stability::<u64>(6, 4, 40);
        check_stability::<u64>(8, 6, 20);
        check_stability::<u128>(10, 10, 10);
        check_stability::<flipzero_core::U256>(12, 14, 3);
    }

    #[test]
    fn corner_stable_discs_are_corners_and_their_edge_neighbours() {
        let geometry = Geometry::<u64>::get(8, 8).unwrap();
        let layout = SquareBoard::<u64, 8>::new(geometry).unwrap();
        let search = Search::new(geometry, layout, Goal::default(), 0);
        assert_eq!(search.corners, (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63));
        // a1 with b1 and a2, h1 without its neighbours, g8 without h8, d4 in the middle.
        let discs: u64 = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 7) | (1 << 62) | (1 << 27);
        assert_eq!(
            search.corner_stable(discs),
            (1 << 0) | (1 << 1) | (1 << 8) | (1 << 7)
        );
        // Next to a1 (b1, a2, b2) and to h1 (g1, g2, h2): nothing wraps to the other edge.
        let near = search.next_to((1 << 0) | (1 << 7));
        assert_eq!(
            near,
            (1 << 1) | (1 << 8) | (1 << 9) | (1 << 6) | (1 << 14) | (1 << 15)
        );
    }
}
