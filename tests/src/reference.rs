//! A slow, obviously correct Othello move generator on a grid of cells.
//!
//! It shares nothing with the bitboard engine but the position it starts from: it walks the
//! eight directions square by square with row and column coordinates, the way the rules are
//! written, so a bug in the shifts, masks or rays of the fast path cannot hide in both.

use flipzero_core::{Bitboard, Color, Position, Square};

/// A board as a grid of cells, row by row from the top-left corner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceBoard {
    rows: usize,
    cols: usize,
    cells: Vec<Option<Color>>,
    side_to_move: Color,
}

/// The eight directions, as (row step, column step).
pub(crate) const DIRECTIONS: [(isize, isize); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

impl ReferenceBoard {
    /// The grid form of a position.
    pub fn from_position<W: Bitboard>(position: &Position<W>) -> Self {
        let geometry = position.geometry();
        let cells = geometry
            .squares()
            .map(|square| {
                if position.black().contains(square.index()) {
                    Some(Color::Black)
                } else if position.white().contains(square.index()) {
                    Some(Color::White)
                } else {
                    None
                }
            })
            .collect();
        Self {
            rows: usize::from(geometry.rows()),
            cols: usize::from(geometry.cols()),
            cells,
            side_to_move: position.side_to_move(),
        }
    }

    /// The cell at a square index.
    pub fn cell(&self, index: usize) -> Option<Color> {
        self.cells[index]
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// The squares that a move on `index` flips, walking each direction until a disc of the
    /// mover's colour closes the line.
    pub fn flips(&self, index: usize) -> Vec<usize> {
        if self.cells[index].is_some() {
            return Vec::new();
        }
        let me = self.side_to_move;
        let (row, col) = ((index / self.cols) as isize, (index % self.cols) as isize);
        let mut flipped = Vec::new();
        for (row_step, col_step) in DIRECTIONS {
            let mut line = Vec::new();
            let (mut r, mut c) = (row + row_step, col + col_step);
            while r >= 0 && c >= 0 && (r as usize) < self.rows && (c as usize) < self.cols {
                let here = r as usize * self.cols + c as usize;
                match self.cells[here] {
                    Some(color) if color == me => {
                        flipped.extend(&line);
                        break;
                    }
                    Some(_) => line.push(here),
                    None => break,
                }
                r += row_step;
                c += col_step;
            }
        }
        flipped.sort_unstable();
        flipped
    }

    /// The legal moves, in index order.
    pub fn legal_moves(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&index| !self.flips(index).is_empty())
            .collect()
    }

    /// The board after a move on `index` (assumed legal).
    pub fn play(&self, index: usize) -> Self {
        let mut next = self.clone();
        for flipped in self.flips(index) {
            next.cells[flipped] = Some(self.side_to_move);
        }
        next.cells[index] = Some(self.side_to_move);
        next.side_to_move = self.side_to_move.opponent();
        next
    }

    /// The board with the other side to move.
    pub fn pass(&self) -> Self {
        Self {
            side_to_move: self.side_to_move.opponent(),
            ..self.clone()
        }
    }

    /// Whether neither side has a move.
    pub fn is_game_over(&self) -> bool {
        self.legal_moves().is_empty() && self.pass().legal_moves().is_empty()
    }

    /// Perft by playing every move, with the pass convention of docs/RULES.md section 6.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if moves.is_empty() {
            if self.is_game_over() {
                return 1;
            }
            return self.pass().perft(depth - 1);
        }
        moves
            .iter()
            .map(|&index| self.play(index).perft(depth - 1))
            .sum()
    }
}

/// The squares of a bitboard as indices, for comparing with the reference.
pub fn indices<W: Bitboard>(set: W) -> Vec<usize> {
    set.indices().map(|index| index as usize).collect()
}

/// The squares of a position's legal moves as indices.
pub fn legal_indices<W: Bitboard>(position: &Position<W>) -> Vec<usize> {
    position
        .legal_squares()
        .map(|Square(index)| usize::from(index))
        .collect()
}
