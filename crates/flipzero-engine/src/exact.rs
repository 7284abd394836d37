//! Exact values of whole games: the bitboard solver applied to a [`Game`] of any rules it
//! covers (Othello's moves on a plane board with a disc-count objective, whatever the size,
//! start, komi or per-player supply), with the result told in the game's own terms: final margins by colour,
//! outcomes with the komi counted, decisions rather than squares.
//!
//! Perfect play as a yardstick (the `perfect` agent, exact opening values, the policy
//! accuracy of a network) and exact training targets are all built on this.

use flipzero_core::variant::game::{Phase, UNLIMITED};
use flipzero_core::variant::rules::{
    Objective, PassRule, Protocol, StartSpec, SupplySpec, Topology,
};
use flipzero_core::{Bitboard, Color, Decision, Game, GameView, Position, Rules};

use crate::solver::{Goal, Solution, Supplies, solve_for, solve_one_best};

/// The solver's goal when `rules` are Othello's move rules with a disc-count objective,
/// whatever the start, komi or board size; `None` for rules it cannot play.
pub fn solver_goal(rules: &Rules) -> Option<Goal> {
    let spec = rules.spec();
    let othello_moves = spec.board.topology == Topology::Plane
        && spec.protocol == Protocol::Single
        && spec.sacrifice.is_none()
        && spec.neutral.is_none()
        && spec.orientation.is_none()
        && spec.pass == PassRule::ForcedOnly
        && !matches!(spec.supply, SupplySpec::ColourDiscs { .. });
    let fewest_discs = match spec.objective {
        Objective::MostDiscs => false,
        Objective::FewestDiscs => true,
        Objective::Line { .. } => return None,
    };
    othello_moves.then_some(Goal {
        fewest_discs,
        scoring: rules.scoring(),
        supplies: None,
    })
}

/// How many best decisions a solve proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// One best decision (the first found): faster.
    OneBest,
    /// Every best decision.
    EveryBest,
}

/// The exact value of a position under perfect play by both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactValue {
    /// Black minus White at the end, as the rules count it (komi not subtracted).
    pub black_margin: i32,
    /// The decisions that reach it, in board order: every one or one, as the proof asked;
    /// `[Pass]` when the side to move must pass.
    pub best: Vec<Decision>,
    /// Positions the solver visited.
    pub nodes: u64,
    komi_halves: i32,
    fewest_discs: bool,
}

impl ExactValue {
    /// The value of `game` once its final Black margin under perfect play is known (from a
    /// cache, say), without its best decisions.
    pub fn of_margin(rules: &Rules, game: &impl GameView, black_margin: i32) -> Self {
        Self {
            black_margin,
            best: Vec::new(),
            nodes: 0,
            komi_halves: (game.komi() * 2.0).round() as i32,
            fewest_discs: rules.spec().objective == Objective::FewestDiscs,
        }
    }

    /// The final margin for `color`, signed by the objective (higher is better for it).
    pub fn margin_for(&self, color: Color) -> i32 {
        let own = match color {
            Color::Black => self.black_margin,
            Color::White => -self.black_margin,
        };
        if self.fewest_discs { -own } else { own }
    }

    /// The outcome for `color` with the komi counted: 1 win, 0 draw, -1 loss.
    pub fn outcome_for(&self, color: Color) -> i8 {
        let black_ahead = 2 * self.black_margin - self.komi_halves;
        let black = if self.fewest_discs {
            -black_ahead
        } else {
            black_ahead
        };
        let own = match color {
            Color::Black => black,
            Color::White => -black,
        };
        own.signum() as i8
    }
}

/// The bitboard solver for the games of one set of rules.
#[derive(Clone, Debug)]
pub struct ExactSolver {
    goal: Goal,
    placement_start: bool,
}

impl ExactSolver {
    /// The solver for `rules`, or `None` when it cannot play them (see [`solver_goal`]).
    pub fn new(rules: &Rules) -> Option<Self> {
        Some(Self {
            goal: solver_goal(rules)?,
            placement_start: matches!(rules.spec().start, StartSpec::Placement { .. }),
        })
    }

    /// The goal it solves `game` for: the objective, and the sides' supplies where the
    /// rules limit them.
    pub fn goal_for<W: Bitboard>(&self, game: &Game<W>) -> Goal {
        let supply = |color: Color| game.supply(color)[0];
        let mover = game.side_to_move();
        let supplies = (supply(mover) != UNLIMITED).then(|| Supplies {
            mover: u32::from(supply(mover)),
            other: u32::from(supply(mover.opponent())),
        });
        Goal {
            supplies,
            ..self.goal
        }
    }

    /// The game as a bitboard position when the solver can finish it exactly from here: not
    /// over, at the start of a turn and past a placement opening. It is to be solved for
    /// [`Self::goal_for`] the game.
    pub fn position<W: Bitboard>(&self, game: &Game<W>) -> Option<Position<W>> {
        let opening_done = !self.placement_start || game.turns() >= 4;
        if game.is_over() || game.phase() != Phase::TurnStart || !opening_done {
            return None;
        }
        Position::new(
            game.geometry(),
            game.discs(Color::Black),
            game.discs(Color::White),
            game.side_to_move(),
        )
        .ok()
    }

    /// The solver's raw solution of `game`, where it applies.
    pub fn solution<W: Bitboard>(&self, game: &Game<W>, proof: Proof) -> Option<Solution> {
        let position = self.position(game)?;
        let goal = self.goal_for(game);
        Some(match proof {
            Proof::OneBest => solve_one_best(&position, goal),
            Proof::EveryBest => solve_for(&position, goal),
        })
    }

    /// The exact value of `game` and its best decisions, where the solver applies.
    ///
    /// ```
    /// use flipzero_core::{Color, Game, Preset};
    /// use flipzero_engine::{ExactSolver, Proof};
    ///
    /// // 4x4 Othello from the start: White wins by 10 discs (the empties go to the winner).
    /// let rules = Preset::Othello.rules(Some(4))?;
    /// let solver = ExactSolver::new(&rules).expect("the solver plays Othello");
    /// let start = Game::<u64>::start(&rules);
    /// let value = solver.solve(&start, Proof::EveryBest).expect("solvable from the start");
    /// assert_eq!(value.black_margin, -10);
    /// assert_eq!((value.outcome_for(Color::White), value.margin_for(Color::White)), (1, 10));
    /// // Every best first move is legal; a game the solver cannot take gives `None`.
    /// assert!(value.best.iter().all(|d| start.legal_decisions(&rules).contains(d)));
    /// let gomullo = Preset::Gomullo.rules(Some(6))?;
    /// assert!(ExactSolver::new(&gomullo).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn solve<W: Bitboard>(&self, game: &Game<W>, proof: Proof) -> Option<ExactValue> {
        let solution = self.solution(game, proof)?;
        let side_margin = if self.goal.fewest_discs {
            -solution.score
        } else {
            solution.score
        };
        let black_margin = match game.side_to_move() {
            Color::Black => side_margin,
            Color::White => -side_margin,
        };
        let best = if solution.best_moves.is_empty() {
            vec![Decision::Pass]
        } else {
            solution
                .best_moves
                .iter()
                .map(|&square| Decision::square(square))
                .collect()
        };
        Some(ExactValue {
            black_margin,
            best,
            nodes: solution.nodes,
            komi_halves: (game.komi() * 2.0).round() as i32,
            fewest_discs: self.goal.fewest_discs,
        })
    }

    /// Every legal decision of `game` with the exact value of the game after it, in the
    /// order of `Game::legal_decisions`; `None` where the solver does not apply to the
    /// position or to one of its children. A finished child is scored as it ended.
    pub fn decision_values<W: Bitboard>(
        &self,
        rules: &Rules,
        game: &Game<W>,
    ) -> Option<Vec<(Decision, ExactValue)>> {
        self.position(game)?;
        game.legal_decisions(rules)
            .into_iter()
            .map(|decision| {
                let child = game.play_unchecked(rules, decision);
                let value = if child.is_over() {
                    ExactValue::of_margin(rules, &child, child.score(rules))
                } else {
                    self.solve(&child, Proof::OneBest)?
                };
                Some((decision, value))
            })
            .collect()
    }
}
