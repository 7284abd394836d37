//! Slow, obviously correct references of preset rules, written from docs/RULES.md (sections
//! 2, 4.2 and 4.8 to 4.12), not from `Game`: a grid of cells walked square by square, decisions as
//! move-list names. The tests play random games in both and compare every legal decision set,
//! every board, and each game's result and score.

use std::collections::HashMap;

/// A cell of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// No disc.
    Empty,
    /// Black's disc.
    Black,
    /// White's disc.
    White,
    /// A neutral disc (neuversi): lines run through it, it never closes one.
    Neutral,
}

impl Cell {
    fn other(self) -> Cell {
        match self {
            Cell::Black => Cell::White,
            Cell::White => Cell::Black,
            other => other,
        }
    }

    fn symbol(self) -> char {
        match self {
            Cell::Black => 'X',
            Cell::White => 'O',
            Cell::Empty => '-',
            Cell::Neutral => '#',
        }
    }
}

/// Which rules the reference plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferenceRules {
    /// Classic reversi (section 4.2): an empty board, the first turns on the centre squares,
    /// then Othello moves with half the squares' discs each; `ply4` is `centre`, `may` or
    /// `must`.
    ClassicReversi {
        /// The reading of White's second turn.
        ply4: Ply4,
    },
    /// Sacrifice (section 4.8): Othello, plus turning one of one's own discs over; a ko, a
    /// pass only without a regular move, a draw at the fourth occurrence of a turn start.
    Sacrifice,
    /// Reversi II (section 4.9): each player places discs of both colours from two supplies,
    /// alternately (own colour first) or, with `free`, either colour at will.
    ReversiII {
        /// Whether the mover picks the colour of each disc.
        free: bool,
    },
    /// Rotation (section 4.10): `+` discs flank along rows and columns, `x` discs along
    /// diagonals; the mover orients each flipped disc, lowest square first.
    Rotation,
    /// Neuversi (section 4.12): a move then a neutral dropped (`adjacent`: next to a disc),
    /// or a swap of two neutrals into the mover's colour and one of the mover's discs into a
    /// neutral.
    Neuversi {
        /// Whether the neutral must go next to a black or white disc (adneuversi).
        adjacent: bool,
    },
    /// Biversi (section 4.11): a torus, White first, two start patterns whose discs form
    /// groups A and B, two placements a turn after the first, the second bound to the other
    /// group while the groups do not touch.
    Biversi,
}

/// Where a neuversi turn stands after its first decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NeutralStage {
    /// The disc is placed; the neutral comes next.
    Drop,
    /// One neutral swapped; the second comes next.
    SwapSecond,
    /// Both swapped (these squares); one of the mover's other discs turns neutral next.
    SwapNeutralise(usize, usize),
}

/// The readings of classic reversi's fourth turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ply4 {
    /// The last centre square.
    Centre,
    /// The last centre square or any flanking move.
    May,
    /// A flanking move when one exists, else the last centre square.
    Must,
}

use crate::reference::DIRECTIONS;

/// The occurrence of a turn start that ends a sacrifice game as a draw.
const REPETITION_DRAW: u32 = 4;

/// A game under the reference's rules.
#[derive(Clone, Debug)]
pub struct ReferenceGame {
    rules: ReferenceRules,
    side: usize,
    cells: Vec<Cell>,
    mover: Cell,
    turns: u32,
    /// Discs each player may still place (classic reversi), Black first.
    supply: [u32; 2],
    /// Reversi II: each player's discs left of their own colour and of the other one.
    colour_supply: [[u32; 2]; 2],
    /// Reversi II alternating: the colour each player places next.
    next_colour: [Cell; 2],
    /// Rotation: which discs are oriented `x`.
    cross: Vec<bool>,
    /// Rotation: the flipped discs still to orient, lowest square first.
    to_orient: Vec<usize>,
    /// Neuversi: the stage of the turn under way.
    stage: Option<NeutralStage>,
    /// Neuversi: the first neutral swapped this turn.
    first_swapped: Option<usize>,
    /// Biversi: the board wraps around.
    torus: bool,
    /// Biversi: which discs belong to group A.
    group_a: Vec<bool>,
    /// Biversi: inside a turn, whether its first placement joined group A.
    first_in_a: Option<bool>,
    /// The square the mover may not sacrifice (sacrifice).
    ko: Option<usize>,
    passes: u32,
    /// Turn starts since the last placement, with their occurrences (sacrifice).
    seen: HashMap<(Vec<Cell>, Cell, Option<usize>), u32>,
    repetition_draw: bool,
    over: bool,
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReferenceResult {
    /// 1 Black won, -1 White won, 0 a draw.
    pub winner: i32,
    /// Black minus White as the rules score it.
    pub score: i32,
}

impl ReferenceGame {
    /// The start of the rules on a `side` x `side` board (even).
    pub fn start(rules: ReferenceRules, side: usize) -> Self {
        let mut cells = vec![Cell::Empty; side * side];
        let mut group_a = vec![false; side * side];
        if rules == ReferenceRules::Biversi {
            // Crossed on the 1-based rows and columns N/2-1 and N/2 (d4-e5 on 10x10, d4 and e5
            // white), parallel N/2 further on (i9, i10 black; j9, j10 white).
            let (low, high) = (side / 2 - 2, side / 2 - 1);
            for (row, col, cell) in [
                (low, low, Cell::White),
                (high, high, Cell::White),
                (low, high, Cell::Black),
                (high, low, Cell::Black),
            ] {
                cells[row * side + col] = cell;
                group_a[row * side + col] = true;
            }
            let (low, high) = (low + side / 2, high + side / 2);
            for (row, col, cell) in [
                (low, low, Cell::Black),
                (high, low, Cell::Black),
                (low, high, Cell::White),
                (high, high, Cell::White),
            ] {
                cells[row * side + col] = cell;
            }
        } else if !matches!(rules, ReferenceRules::ClassicReversi { .. }) {
            let (low, high) = (side / 2 - 1, side / 2);
            cells[low * side + low] = Cell::White;
            cells[high * side + high] = Cell::White;
            cells[low * side + high] = Cell::Black;
            cells[high * side + low] = Cell::Black;
        }
        let discs = (side * side / 2) as u32;
        let each_colour = ((side * side - 4) / 4) as u32;
        let mut game = Self {
            rules,
            side,
            cells,
            mover: if rules == ReferenceRules::Biversi {
                Cell::White
            } else {
                Cell::Black
            },
            turns: 0,
            supply: [discs, discs],
            colour_supply: [[each_colour; 2]; 2],
            next_colour: [Cell::Black, Cell::White],
            cross: vec![false; side * side],
            to_orient: Vec::new(),
            stage: None,
            first_swapped: None,
            torus: rules == ReferenceRules::Biversi,
            group_a,
            first_in_a: None,
            ko: None,
            passes: 0,
            seen: HashMap::new(),
            repetition_draw: false,
            over: false,
        };
        game.start_turn();
        game
    }

    /// The board as one symbol per square, row by row from a1.
    pub fn board(&self) -> String {
        self.cells
            .iter()
            .zip(&self.cross)
            .map(|(cell, &cross)| {
                if cross {
                    cell.symbol().to_ascii_lowercase()
                } else {
                    cell.symbol()
                }
            })
            .collect()
    }

    /// Whether the mover is inside a turn of several decisions (orienting flipped discs).
    pub fn is_mid_turn(&self) -> bool {
        !self.to_orient.is_empty() || self.stage.is_some() || self.first_in_a.is_some()
    }

    /// Biversi: whether a disc of group A is next to one of group B.
    fn groups_touch(&self) -> bool {
        (0..self.cells.len())
            .filter(|&s| self.cells[s] != Cell::Empty && self.group_a[s])
            .any(|s| {
                self.neighbours(s)
                    .any(|n| self.cells[n] != Cell::Empty && !self.group_a[n])
            })
    }

    /// Biversi: the placements open now (the second of a turn must flip a disc of the group
    /// the first did not join, while the groups do not touch).
    fn biversi_moves(&self) -> Vec<usize> {
        let moves = self.flanking_moves(self.mover);
        match self.first_in_a {
            Some(first_in_a) if !self.groups_touch() => moves
                .into_iter()
                .filter(|&square| {
                    self.flanked(square, self.mover)
                        .iter()
                        .any(|&disc| self.group_a[disc] != first_in_a)
                })
                .collect(),
            _ => moves,
        }
    }

    /// The 8 neighbours of a square on the board (across the wrap on a torus).
    fn neighbours(&self, square: usize) -> impl Iterator<Item = usize> + '_ {
        DIRECTIONS
            .into_iter()
            .filter_map(move |direction| self.ray(square, direction).first().copied())
    }

    /// Neuversi: the squares a neutral may be dropped on now.
    fn neutral_drops(&self) -> Vec<usize> {
        let ReferenceRules::Neuversi { adjacent } = self.rules else {
            return Vec::new();
        };
        (0..self.cells.len())
            .filter(|&square| self.cells[square] == Cell::Empty)
            .filter(|&square| {
                !adjacent
                    || self
                        .neighbours(square)
                        .any(|n| matches!(self.cells[n], Cell::Black | Cell::White))
            })
            .collect()
    }

    /// The game after `player` turns the disc or neutral on `square` to its colour and
    /// flips what that flanks.
    fn after_placing(&self, square: usize, player: Cell) -> Self {
        let mut next = self.clone();
        for disc in self.flanked(square, player) {
            next.cells[disc] = player;
        }
        next.cells[square] = player;
        next
    }

    /// Neuversi: the neutrals `player` may swap (it must flip something), leaving out `but`.
    fn swappable(&self, player: Cell, but: Option<usize>) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&square| self.cells[square] == Cell::Neutral && Some(square) != but)
            .filter(|&square| !self.flanked(square, player).is_empty())
            .collect()
    }

    /// Neuversi: every first decision of `player`'s turn (moves, then swaps' first steps).
    fn neuversi_starts(&self, player: Cell) -> Vec<usize> {
        let moves = (0..self.cells.len()).filter(|&square| {
            self.cells[square] == Cell::Empty
                && !self.flanked(square, player).is_empty()
                && !self
                    .after_placing(square, player)
                    .neutral_drops()
                    .is_empty()
        });
        let swaps = self.swappable(player, None).into_iter().filter(|&square| {
            !self
                .after_placing(square, player)
                .swappable(player, Some(square))
                .is_empty()
        });
        moves.chain(swaps).collect()
    }

    /// `X` or `O`: who decides.
    pub fn mover(&self) -> char {
        self.mover.symbol()
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.over
    }

    fn name(&self, square: usize) -> String {
        let column = (b'a' + (square % self.side) as u8) as char;
        format!("{column}{}", square / self.side + 1)
    }

    fn supply_left(&self, colour: Cell) -> bool {
        match self.rules {
            ReferenceRules::ClassicReversi { .. } => {
                self.supply[usize::from(colour == Cell::White)] > 0
            }
            _ => true,
        }
    }

    fn player_index(player: Cell) -> usize {
        usize::from(player == Cell::White)
    }

    /// Reversi II: the colours `player` may place now (alternating: the due one, or the other
    /// when the due one has run out).
    fn colours_for(&self, player: Cell) -> Vec<Cell> {
        let ReferenceRules::ReversiII { free } = self.rules else {
            return vec![player];
        };
        let left = |colour: Cell| {
            let slot = usize::from(colour != player);
            self.colour_supply[Self::player_index(player)][slot] > 0
        };
        if free {
            [Cell::Black, Cell::White]
                .into_iter()
                .filter(|&c| left(c))
                .collect()
        } else {
            let due = self.next_colour[Self::player_index(player)];
            [due, due.other()]
                .into_iter()
                .filter(|&c| left(c))
                .take(1)
                .collect()
        }
    }

    /// Rotation: the discs a disc of `colour` oriented `cross` on `square` would turn: only
    /// along its orientation's directions, up to a pivot of the same orientation.
    fn rotation_flanked(&self, square: usize, colour: Cell, cross: bool) -> Vec<usize> {
        let directions = DIRECTIONS
            .into_iter()
            .filter(|&(dr, dc)| (dr != 0 && dc != 0) == cross);
        self.flanked_with(square, colour, directions, |pivot| {
            self.cross[pivot] == cross
        })
    }

    /// Every placement of `player` as (square, option, colour placed, discs turned).
    fn placements(&self, player: Cell) -> Vec<(usize, u8, Cell, Vec<usize>)> {
        let mut found = Vec::new();
        for square in (0..self.cells.len()).filter(|&s| self.cells[s] == Cell::Empty) {
            match self.rules {
                ReferenceRules::Rotation => {
                    for (option, cross) in [(0, false), (1, true)] {
                        let turned = self.rotation_flanked(square, player, cross);
                        if !turned.is_empty() {
                            found.push((square, option, player, turned));
                        }
                    }
                }
                ReferenceRules::ReversiII { free } => {
                    for colour in self.colours_for(player) {
                        let turned = self.flanked(square, colour);
                        if !turned.is_empty() {
                            let option = if free {
                                u8::from(colour == Cell::White)
                            } else {
                                0
                            };
                            found.push((square, option, colour, turned));
                        }
                    }
                }
                _ => {
                    let turned = self.flanked(square, player);
                    if !turned.is_empty() && self.supply_left(player) {
                        found.push((square, 0, player, turned));
                    }
                }
            }
        }
        found
    }

    fn placement_name(&self, square: usize, option: u8) -> String {
        let suffix = match self.rules {
            ReferenceRules::Rotation => ["+", "x"][usize::from(option)],
            ReferenceRules::ReversiII { free: true } => ["X", "O"][usize::from(option)],
            _ => "",
        };
        format!("{}{suffix}", self.name(square))
    }

    /// The squares from `square` along a direction, nearest first: to the edge, or on a torus
    /// round the board until just before the line would come back to `square`.
    fn ray(&self, square: usize, (dr, dc): (isize, isize)) -> Vec<usize> {
        let side = self.side as isize;
        let (row, col) = ((square / self.side) as isize, (square % self.side) as isize);
        let mut squares = Vec::new();
        for step in 1..side {
            let (mut r, mut c) = (row + dr * step, col + dc * step);
            if self.torus {
                r = r.rem_euclid(side);
                c = c.rem_euclid(side);
            } else if !((0..side).contains(&r) && (0..side).contains(&c)) {
                break;
            }
            squares.push((r * side + c) as usize);
        }
        squares
    }

    /// The discs a disc of `colour` on `square` would turn along the directions `pivot`
    /// allows: lines of the other colour (or neutral discs) closed by a disc of `colour` that
    /// `pivot` accepts.
    fn flanked_with(
        &self,
        square: usize,
        colour: Cell,
        directions: impl Iterator<Item = (isize, isize)>,
        pivot: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let mut turned = Vec::new();
        for direction in directions {
            let mut line = Vec::new();
            for here in self.ray(square, direction) {
                let cell = self.cells[here];
                if cell == colour.other() || cell == Cell::Neutral {
                    line.push(here);
                    continue;
                }
                if cell == colour && pivot(here) {
                    turned.append(&mut line);
                }
                break;
            }
        }
        turned
    }

    /// The discs a disc of `colour` on `square` would turn, along every direction.
    fn flanked(&self, square: usize, colour: Cell) -> Vec<usize> {
        self.flanked_with(square, colour, DIRECTIONS.into_iter(), |_| true)
    }

    fn flanking_moves(&self, colour: Cell) -> Vec<usize> {
        if !self.supply_left(colour) {
            return Vec::new();
        }
        (0..self.cells.len())
            .filter(|&square| {
                self.cells[square] == Cell::Empty && !self.flanked(square, colour).is_empty()
            })
            .collect()
    }

    fn centre(&self) -> Vec<usize> {
        let (low, high) = (self.side / 2 - 1, self.side / 2);
        vec![
            low * self.side + low,
            low * self.side + high,
            high * self.side + low,
            high * self.side + high,
        ]
    }

    /// The mover's legal decisions by name, sorted.
    pub fn legal(&self) -> Vec<String> {
        if self.over {
            return Vec::new();
        }
        let mut names: Vec<String> = match self.rules {
            ReferenceRules::ClassicReversi { ply4 } => {
                let empty_centre: Vec<usize> = self
                    .centre()
                    .into_iter()
                    .filter(|&s| self.cells[s] == Cell::Empty)
                    .collect();
                let squares = match self.turns {
                    0..=2 => empty_centre,
                    3 => {
                        let flanking: Vec<usize> = self
                            .flanking_moves(self.mover)
                            .into_iter()
                            .filter(|square| !empty_centre.contains(square))
                            .collect();
                        match ply4 {
                            Ply4::Centre => empty_centre,
                            Ply4::May => [empty_centre, flanking].concat(),
                            Ply4::Must if flanking.is_empty() => empty_centre,
                            Ply4::Must => flanking,
                        }
                    }
                    _ => self.flanking_moves(self.mover),
                };
                let mut names: Vec<String> = squares.iter().map(|&s| self.name(s)).collect();
                if names.is_empty() {
                    names.push("pass".to_owned());
                }
                names
            }
            ReferenceRules::Rotation | ReferenceRules::ReversiII { .. } => {
                if self.is_mid_turn() {
                    vec!["+".to_owned(), "x".to_owned()]
                } else {
                    let mut names: Vec<String> = self
                        .placements(self.mover)
                        .iter()
                        .map(|(square, option, _, _)| self.placement_name(*square, *option))
                        .collect();
                    if names.is_empty() {
                        names.push("pass".to_owned());
                    }
                    names
                }
            }
            ReferenceRules::Biversi => {
                let mut names: Vec<String> =
                    self.biversi_moves().iter().map(|&s| self.name(s)).collect();
                if names.is_empty() {
                    names.push("pass".to_owned());
                }
                names
            }
            ReferenceRules::Neuversi { .. } => {
                let squares = match self.stage {
                    None => self.neuversi_starts(self.mover),
                    Some(NeutralStage::Drop) => self.neutral_drops(),
                    Some(NeutralStage::SwapSecond) => {
                        self.swappable(self.mover, self.first_swapped)
                    }
                    Some(NeutralStage::SwapNeutralise(first, second)) => (0..self.cells.len())
                        .filter(|&s| self.cells[s] == self.mover && s != first && s != second)
                        .collect(),
                };
                let mut names: Vec<String> = squares.iter().map(|&s| self.name(s)).collect();
                if names.is_empty() && self.stage.is_none() {
                    names.push("pass".to_owned());
                }
                names
            }
            ReferenceRules::Sacrifice => {
                let regular = self.flanking_moves(self.mover);
                let sacrifices = (0..self.cells.len())
                    .filter(|&s| self.cells[s] == self.mover && Some(s) != self.ko);
                let mut names: Vec<String> = regular
                    .iter()
                    .copied()
                    .chain(sacrifices)
                    .map(|s| self.name(s))
                    .collect();
                if regular.is_empty() {
                    names.push("pass".to_owned());
                }
                names
            }
        };
        names.sort();
        names
    }

    /// Plays the decision called `name` (one of [`Self::legal`]).
    ///
    /// # Panics
    /// On a decision that is not legal: the caller compares legal sets first.
    pub fn play(&mut self, name: &str) {
        assert!(
            self.legal().iter().any(|legal| legal == name),
            "{name} is not legal"
        );
        let mover = self.mover;
        let index = usize::from(mover == Cell::White);
        if !self.to_orient.is_empty() {
            // Rotation: the next flipped disc takes the orientation named.
            let square = self.to_orient.remove(0);
            self.cross[square] = name == "x";
            if self.to_orient.is_empty() {
                self.end_turn();
            }
            return;
        }
        // A pass is a turn of its own under every rule; it clears the ko.
        if name == "pass" {
            self.passes += 1;
            self.ko = None;
            self.end_turn();
            return;
        }
        self.passes = 0;
        if let ReferenceRules::Neuversi { .. } = self.rules {
            self.play_neuversi(name);
            return;
        }
        if self.rules == ReferenceRules::Biversi {
            self.play_biversi(name);
            return;
        }
        if matches!(
            self.rules,
            ReferenceRules::Rotation | ReferenceRules::ReversiII { .. }
        ) {
            let (square, option, colour, mut turned) = self
                .placements(mover)
                .into_iter()
                .find(|(square, option, _, _)| self.placement_name(*square, *option) == name)
                .expect("a legal name is a placement");
            for &disc in &turned {
                self.cells[disc] = colour;
            }
            self.cells[square] = colour;
            if let ReferenceRules::ReversiII { free } = self.rules {
                let slot = usize::from(colour != mover);
                self.colour_supply[index][slot] -= 1;
                if !free {
                    // The next disc is of the other colour than this one.
                    self.next_colour[index] = colour.other();
                }
            } else {
                self.cross[square] = option == 1;
                turned.sort_unstable();
                self.to_orient = turned;
            }
            if !self.is_mid_turn() {
                self.end_turn();
            }
            return;
        }
        let square = self.square_named(name);
        if self.cells[square] == mover {
            // A sacrifice: the disc turns; the opponent may not turn it straight back.
            self.cells[square] = mover.other();
            self.ko = Some(square);
        } else {
            // Classic reversi's opening discs on the centre squares flip nothing.
            let opening_centre = matches!(self.rules, ReferenceRules::ClassicReversi { .. })
                && self.turns <= 3
                && self.centre().contains(&square);
            if !opening_centre {
                for turned in self.flanked(square, mover) {
                    self.cells[turned] = mover;
                }
            }
            self.cells[square] = mover;
            self.supply[index] = self.supply[index].saturating_sub(1);
            self.ko = None;
            // No earlier position can come back after a placement.
            self.seen.clear();
        }
        self.end_turn();
    }

    /// The square called `name`.
    fn square_named(&self, name: &str) -> usize {
        (0..self.cells.len())
            .find(|&s| self.name(s) == name)
            .expect("a legal name is a square")
    }

    fn play_neuversi(&mut self, name: &str) {
        let mover = self.mover;
        let square = self.square_named(name);
        match self.stage {
            None => {
                let swap = self.cells[square] == Cell::Neutral;
                *self = self.after_placing(square, mover);
                if swap {
                    self.first_swapped = Some(square);
                    self.stage = Some(NeutralStage::SwapSecond);
                } else {
                    self.stage = Some(NeutralStage::Drop);
                }
            }
            Some(NeutralStage::Drop) | Some(NeutralStage::SwapNeutralise(..)) => {
                self.cells[square] = Cell::Neutral;
                self.stage = None;
                self.first_swapped = None;
                self.end_turn();
            }
            Some(NeutralStage::SwapSecond) => {
                let first = self.first_swapped.expect("a swap under way");
                *self = self.after_placing(square, mover);
                let others = (0..self.cells.len())
                    .any(|s| self.cells[s] == mover && s != first && s != square);
                if others {
                    self.stage = Some(NeutralStage::SwapNeutralise(first, square));
                } else {
                    // No other disc of the mover's to turn neutral: the turn just ends.
                    self.stage = None;
                    self.first_swapped = None;
                    self.end_turn();
                }
            }
        }
    }

    fn play_biversi(&mut self, name: &str) {
        let square = self.square_named(name);
        let flipped = self.flanked(square, self.mover);
        // The placed disc joins group A when it flips a disc of A; flipped discs keep theirs.
        let joins_a = flipped.iter().any(|&disc| self.group_a[disc]);
        for &disc in &flipped {
            self.cells[disc] = self.mover;
        }
        self.cells[square] = self.mover;
        self.group_a[square] = joins_a;
        if self.first_in_a.is_none() && self.turns > 0 {
            self.first_in_a = Some(joins_a);
            // No legal second placement: the turn just ends.
            if !self.biversi_moves().is_empty() {
                return;
            }
        }
        self.first_in_a = None;
        self.end_turn();
    }

    fn end_turn(&mut self) {
        self.turns += 1;
        self.mover = self.mover.other();
        self.start_turn();
    }

    /// What a turn start decides: the end of the game, and the repetition record.
    fn start_turn(&mut self) {
        let full = self.cells.iter().all(|&cell| cell != Cell::Empty);
        match self.rules {
            ReferenceRules::ClassicReversi { .. } => {
                // Nobody can act: neither has a placement (the opening turns always have one).
                let can_act = |colour| self.turns < 4 || !self.flanking_moves(colour).is_empty();
                if full || (!can_act(self.mover) && !can_act(self.mover.other())) {
                    self.over = true;
                }
            }
            ReferenceRules::Neuversi { .. } => {
                // No full-board rule: swaps need no empty square. Neither able to act ends it.
                if self.passes >= 2
                    || (self.neuversi_starts(self.mover).is_empty()
                        && self.neuversi_starts(self.mover.other()).is_empty())
                {
                    self.over = true;
                }
            }
            ReferenceRules::Biversi => {
                if self.flanking_moves(self.mover).is_empty()
                    && self.flanking_moves(self.mover.other()).is_empty()
                {
                    self.over = true;
                }
            }
            ReferenceRules::Rotation | ReferenceRules::ReversiII { .. } => {
                if full
                    || (self.placements(self.mover).is_empty()
                        && self.placements(self.mover.other()).is_empty())
                {
                    self.over = true;
                }
            }
            ReferenceRules::Sacrifice => {
                if full || self.passes >= 2 {
                    self.over = true;
                    return;
                }
                let key = (self.cells.clone(), self.mover, self.ko);
                let count = self.seen.entry(key).or_insert(0);
                *count += 1;
                if *count >= REPETITION_DRAW {
                    self.over = true;
                    self.repetition_draw = true;
                }
            }
        }
    }

    /// The result of a finished game.
    pub fn result(&self) -> ReferenceResult {
        let count = |colour| self.cells.iter().filter(|&&cell| cell == colour).count() as i32;
        let margin = count(Cell::Black) - count(Cell::White);
        let empties = count(Cell::Empty);
        if self.repetition_draw {
            return ReferenceResult {
                winner: 0,
                score: margin,
            };
        }
        let winner = margin.signum();
        let score = match self.rules {
            // Raw discs.
            ReferenceRules::ClassicReversi { .. } => margin,
            // Winner takes the empties; equal counts share them.
            _ => margin + winner * empties,
        };
        ReferenceResult { winner, score }
    }
}
