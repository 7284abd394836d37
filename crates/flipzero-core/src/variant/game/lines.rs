//! Per-shape tables for the variant engine: flank lines on the plane (through the bitboard
//! kernels) and on the torus (by walking wrapped rays), neighbourhoods, and the line windows
//! of the line objective. Built once per (width, shape, topology, line length) and shared.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::bitboard::Bitboard;
use crate::geometry::{DIRECTIONS, Geometry, Square};
use crate::movegen;

/// Every table built so far, by (bitboard bits, rows, columns, torus, line length).
type TablesCache = HashMap<(u32, u8, u8, bool, u8), &'static (dyn Any + Send + Sync)>;

/// One-square moves of whole sets in the 8 directions, wrapping on a torus.
#[derive(Debug)]
struct Shifts<W> {
    torus: bool,
    cols: u32,
    squares: u32,
    board: W,
    first_col: W,
    last_col: W,
    /// Per axis, the longest run of discs a flank line can hold.
    longest_run: [u32; 4],
}

impl<W: Bitboard> Shifts<W> {
    fn new(geometry: &Geometry<W>, torus: bool) -> Self {
        let (rows, cols) = (u32::from(geometry.rows()), u32::from(geometry.cols()));
        let column =
            |col: u32| (0..rows).fold(W::EMPTY, |set, row| set | W::square(row * cols + col));
        let lcm = rows * cols / gcd(rows, cols);
        // A line holds the square moved on, the run and the pivot: on a torus it may use the
        // whole cycle of its direction, on the plane the longest row, column or diagonal.
        let longest_run = if torus {
            [cols - 2, lcm - 2, rows - 2, lcm - 2]
        } else {
            let diagonal = rows.min(cols) - 2;
            [cols - 2, diagonal, rows - 2, diagonal]
        };
        Self {
            torus,
            cols,
            squares: rows * cols,
            board: geometry.board(),
            first_col: column(0),
            last_col: column(cols - 1),
            longest_run,
        }
    }

    fn east(&self, set: W) -> W {
        // The last square of the board moves off it; `& board` drops it before a wrap can
        // bring it back.
        let moved = (set << 1) & !self.first_col & self.board;
        if self.torus {
            moved | ((set & self.last_col) >> (self.cols - 1))
        } else {
            moved
        }
    }

    fn west(&self, set: W) -> W {
        let moved = (set >> 1) & !self.last_col;
        if self.torus {
            moved | ((set & self.first_col) << (self.cols - 1))
        } else {
            moved
        }
    }

    fn south(&self, set: W) -> W {
        let moved = (set << self.cols) & self.board;
        if self.torus {
            moved | (set >> (self.squares - self.cols))
        } else {
            moved
        }
    }

    fn north(&self, set: W) -> W {
        let moved = set >> self.cols;
        if self.torus {
            moved | ((set << (self.squares - self.cols)) & self.board)
        } else {
            moved
        }
    }

    /// The set moved one square in direction `direction` (the order of [`DIRECTIONS`]).
    fn step(&self, set: W, direction: usize) -> W {
        let (row_step, col_step) = DIRECTIONS[direction];
        let set = match col_step {
            1 => self.east(set),
            -1 => self.west(set),
            _ => set,
        };
        match row_step {
            1 => self.south(set),
            -1 => self.north(set),
            _ => set,
        }
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Shape tables of the variant engine.
#[derive(Debug)]
pub(super) struct Tables<W: 'static> {
    pub(super) geometry: &'static Geometry<W>,
    shifts: Shifts<W>,
    /// On a torus, the squares of each wrapped ray from each square, nearest first.
    torus_rays: Option<Box<[[Vec<u8>; 8]]>>,
    /// Every window of the line objective's length along rows, columns and diagonals.
    pub(super) line_windows: Box<[W]>,
}

impl<W: Bitboard> Tables<W> {
    pub(super) fn get(
        geometry: &'static Geometry<W>,
        torus: bool,
        line_length: u8,
    ) -> &'static Self {
        static CACHE: OnceLock<Mutex<TablesCache>> = OnceLock::new();
        let mut cache = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let key = (
            W::BITS,
            geometry.rows(),
            geometry.cols(),
            torus,
            line_length,
        );
        if let Some(existing) = cache.get(&key) {
            return existing
                .downcast_ref::<Self>()
                .expect("tables cache is keyed by bitboard width");
        }
        // Tables are few (one per shape) and live for the whole program.
        let tables: &'static Self = Box::leak(Box::new(Self::build(geometry, torus, line_length)));
        cache.insert(key, tables);
        tables
    }

    fn build(geometry: &'static Geometry<W>, torus: bool, line_length: u8) -> Self {
        let (rows, cols) = (i32::from(geometry.rows()), i32::from(geometry.cols()));
        let wrap = |row: i32, col: i32| -> Option<Square> {
            if torus {
                geometry.square_at(row.rem_euclid(rows), col.rem_euclid(cols))
            } else {
                geometry.square_at(row, col)
            }
        };
        let torus_rays = torus.then(|| {
            geometry
                .squares()
                .map(|square| {
                    let (row, col) = geometry.coordinates(square);
                    DIRECTIONS.map(|(row_step, col_step)| {
                        let mut ray = Vec::new();
                        for distance in 1.. {
                            let next = wrap(
                                i32::from(row) + row_step * distance,
                                i32::from(col) + col_step * distance,
                            )
                            .expect("a torus wraps every coordinate");
                            if next == square {
                                break;
                            }
                            ray.push(next.0);
                        }
                        ray
                    })
                })
                .collect()
        });
        let mut line_windows = Vec::new();
        if line_length > 0 {
            for square in geometry.squares() {
                let (row, col) = geometry.coordinates(square);
                // Four directions cover every line once: east, south-west, south, south-east.
                for &(row_step, col_step) in &DIRECTIONS[..4] {
                    let window: Option<Vec<Square>> = (0..i32::from(line_length))
                        .map(|k| wrap(i32::from(row) + row_step * k, i32::from(col) + col_step * k))
                        .collect();
                    if let Some(window) = window {
                        let set = window
                            .iter()
                            .fold(W::EMPTY, |set, square| set | W::square(square.index()));
                        if set.count() == u32::from(line_length) && !line_windows.contains(&set) {
                            line_windows.push(set);
                        }
                    }
                }
            }
        }
        Self {
            geometry,
            shifts: Shifts::new(geometry, torus),
            torus_rays,
            line_windows: line_windows.into_boxed_slice(),
        }
    }

    /// Empty squares from which a line of `through` discs runs to a pivot of its axis.
    pub(super) fn placements(&self, pivots: [W; 4], through: W, empty: W) -> W {
        if self.torus_rays.is_none() {
            return movegen::legal_moves_by_axis(self.geometry, pivots, through, empty);
        }
        // On the torus the bitboard shifts wrap, so the fill runs direction by direction.
        let mut moves = W::EMPTY;
        for direction in 0..8 {
            let axis = direction % 4;
            if pivots[axis].is_empty() {
                continue;
            }
            let mut run = through & self.shifts.step(pivots[axis], direction);
            for _ in 1..self.shifts.longest_run[axis] {
                run |= through & self.shifts.step(run, direction);
            }
            moves |= self.shifts.step(run, direction);
        }
        moves & empty
    }

    /// The `through` discs a disc on `index` flanks against the pivots of each axis.
    pub(super) fn flips(&self, pivots: [W; 4], through: W, index: u32) -> W {
        let Some(torus_rays) = &self.torus_rays else {
            return movegen::flips_by_axis(self.geometry, pivots, through, index);
        };
        let mut flipped = W::EMPTY;
        for (direction, ray) in torus_rays[index as usize].iter().enumerate() {
            let pivots = pivots[direction % 4];
            let mut run = W::EMPTY;
            for &square in ray {
                let bit = W::square(u32::from(square));
                if (through & bit).is_empty() {
                    if !(pivots & bit).is_empty() {
                        flipped |= run;
                    }
                    break;
                }
                run |= bit;
            }
        }
        flipped
    }

    /// The squares 8-adjacent to any square of `set` (across the wrap on a torus).
    pub(super) fn dilate(&self, set: W) -> W {
        (0..8).fold(W::EMPTY, |around, direction| {
            around | self.shifts.step(set, direction)
        })
    }

    /// Whether `discs` own a whole window of the line objective.
    pub(super) fn has_line(&self, discs: W) -> bool {
        self.line_windows
            .iter()
            .any(|&window| discs & window == window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The wrapped fill against walking each empty square's rays, and the shifted dilation
    /// against the neighbours found by coordinates, on random boards of several shapes.
    #[test]
    fn shifted_fill_and_dilation_agree_with_walking() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (rows, cols) in [(6, 6), (10, 10), (6, 10), (4, 7)] {
            for torus in [true, false] {
                let geometry = Geometry::<u128>::get(rows, cols).unwrap();
                let tables = Tables::build(geometry, torus, 0);
                let neighbours = |index: u32| {
                    let (row, col) = geometry.coordinates(Square(index as u8));
                    let (rows, cols) = (i32::from(rows), i32::from(cols));
                    DIRECTIONS.iter().fold(0u128, |set, (dr, dc)| {
                        let (r, c) = (i32::from(row) + dr, i32::from(col) + dc);
                        let (r, c) = if torus {
                            (r.rem_euclid(rows), c.rem_euclid(cols))
                        } else {
                            (r, c)
                        };
                        match geometry.square_at(r, c) {
                            Some(square) => set | 1 << square.0,
                            None => set,
                        }
                    })
                };
                for _ in 0..300 {
                    let (mut pivots, mut through) = (0u128, 0u128);
                    for square in geometry.squares() {
                        match rng.random_range(0..3) {
                            0 => pivots |= 1 << square.0,
                            1 => through |= 1 << square.0,
                            _ => {}
                        }
                    }
                    let empty = geometry.board() & !(pivots | through);
                    // Some axes without pivots, as rotation discs have.
                    let axes = [
                        pivots,
                        pivots & 0x5555_5555_5555_5555_5555_5555_5555_5555,
                        0,
                        pivots,
                    ];
                    if torus {
                        // On the torus `flips` walks the wrapped rays square by square.
                        let walked = empty
                            .indices()
                            .filter(|&i| tables.flips(axes, through, i) != 0)
                            .fold(0u128, |set, i| set | 1 << i);
                        assert_eq!(
                            tables.placements(axes, through, empty),
                            walked,
                            "{rows}x{cols}"
                        );
                    }
                    let expected = pivots.indices().fold(0u128, |set, i| set | neighbours(i));
                    assert_eq!(
                        tables.dilate(pivots),
                        expected,
                        "{rows}x{cols} torus {torus}"
                    );
                }
            }
        }
    }
}
