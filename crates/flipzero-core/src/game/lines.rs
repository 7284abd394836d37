//! Per-shape tables for the variant engine: flank lines on the plane (through the bitboard
//! kernels) and on the torus (by walking wrapped rays), neighbourhoods, and the line windows
//! of the line objective. Built once per (width, shape, topology, line length) and shared.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::bitboard::Bitboard;
use crate::geometry::{Geometry, Square};
use crate::movegen;

/// Every table built so far, by (bitboard bits, rows, columns, torus, line length).
type TablesCache = HashMap<(u32, u8, u8, bool, u8), &'static (dyn Any + Send + Sync)>;

/// The (row, column) step of the 8 directions, in the ray order of [`Geometry`]: ray `i`
/// lies on axis `i % 4`.
const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, -1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

/// Shape tables of the variant engine.
#[derive(Debug)]
pub(super) struct Tables<W: 'static> {
    pub(super) geometry: &'static Geometry<W>,
    /// On a torus, the squares of each wrapped ray from each square, nearest first.
    torus_rays: Option<Box<[[Vec<u8>; 8]]>>,
    /// The 8-neighbourhood of each square (wrapping on a torus).
    pub(super) neighbours: Box<[W]>,
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
        let neighbours = geometry
            .squares()
            .map(|square| {
                let (row, col) = geometry.coordinates(square);
                DIRECTIONS
                    .iter()
                    .filter_map(|(row_step, col_step)| {
                        wrap(i32::from(row) + row_step, i32::from(col) + col_step)
                    })
                    .filter(|&neighbour| neighbour != square)
                    .fold(W::EMPTY, |set, neighbour| {
                        set | W::square(neighbour.index())
                    })
            })
            .collect();
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
            torus_rays,
            neighbours,
            line_windows: line_windows.into_boxed_slice(),
        }
    }

    /// Empty squares from which a line of `through` discs runs to a pivot of its axis.
    pub(super) fn placements(&self, pivots: [W; 4], through: W, empty: W) -> W {
        match &self.torus_rays {
            None => movegen::legal_moves_by_axis(self.geometry, pivots, through, empty),
            Some(_) => empty
                .indices()
                .filter(|&index| !self.flips(pivots, through, index).is_empty())
                .fold(W::EMPTY, |set, index| set | W::square(index)),
        }
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

    /// The squares 8-adjacent to any square of `set`.
    pub(super) fn dilate(&self, set: W) -> W {
        set.indices().fold(W::EMPTY, |around, index| {
            around | self.neighbours[index as usize]
        })
    }

    /// Whether `discs` own a whole window of the line objective.
    pub(super) fn has_line(&self, discs: W) -> bool {
        self.line_windows
            .iter()
            .any(|&window| discs & window == window)
    }
}
