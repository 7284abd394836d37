//! The page's games, without HTTP. A game is its preset, board size, opening position and
//! decisions, sent whole with every request: the server keeps nothing per game, so any number
//! of tabs can play at once and undo is the page dropping decisions.

use flipzero_core::{AnyGame, Color, Decision, Outcome, Phase, Preset, Rules, Square};
use flipzero_data::saved_game::SavedGame;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A request the server does not serve: the HTTP status to answer and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// 400 for a malformed request, 403 for a path outside the served directories, 404 for
    /// a missing checkpoint, 422 for a decision the rules refuse, 500 for a failed search.
    pub status: u16,
    /// The reason, shown on the page.
    pub message: String,
}

impl ApiError {
    /// A request that does not make sense (400).
    pub fn bad(message: impl Into<String>) -> Self {
        Self {
            status: 400,
            message: message.into(),
        }
    }

    /// A well-formed request the rules refuse: an illegal decision (422).
    pub fn illegal(message: impl Into<String>) -> Self {
        Self {
            status: 422,
            message: message.into(),
        }
    }
}

/// A game as the page holds it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// A preset name (`flipzero variants`); rules files are not served.
    pub variant: String,
    /// The board side, where the preset allows another.
    #[serde(default)]
    pub size: Option<u8>,
    /// The opening position (`Game::to_text`).
    pub opening: String,
    /// The decisions played from it, in move-list notation, one each.
    #[serde(default)]
    pub decisions: Vec<String>,
}

/// The rules of a preset at a board size.
///
/// # Errors
/// A name that is not a preset, or a size the preset does not allow.
pub fn preset_rules(variant: &str, size: Option<u8>) -> Result<Rules, ApiError> {
    let preset: Preset = variant.parse().map_err(|_| {
        let names: Vec<&str> = Preset::ALL.iter().map(|preset| preset.name()).collect();
        ApiError::bad(format!(
            "variant `{variant}`: not a preset; the server plays {}",
            names.join(", ")
        ))
    })?;
    preset
        .rules(size)
        .map_err(|error| ApiError::bad(format!("variant `{variant}`: {error}")))
}

/// A preset as the page's menu shows it.
#[derive(Clone, Debug, Serialize)]
pub struct VariantView {
    /// The preset's name.
    pub name: &'static str,
    /// One line on its rules.
    pub description: &'static str,
    /// Its board side when none is asked for.
    pub default_size: u8,
    /// Every side it allows.
    pub sizes: Vec<u8>,
}

/// Every preset with the board sizes it allows.
pub fn variants() -> Vec<VariantView> {
    Preset::ALL
        .into_iter()
        .filter_map(|preset| {
            let rules = preset.rules(None).ok()?;
            let sizes = (flipzero_core::MIN_SIDE..=flipzero_core::MAX_SIDE)
                .filter(|&side| preset.rules(Some(side)).is_ok())
                .collect();
            Some(VariantView {
                name: preset.name(),
                description: preset.description(),
                default_size: rules.rows(),
                sizes,
            })
        })
        .collect()
}

/// One legal decision as the page offers it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionView {
    /// Its move-list name (`f5`, `c6x`, `pass`, `bid+2`): what the page sends back.
    pub name: String,
    /// Its square (row-major, `a1` = 0), for decisions made on a square.
    pub square: Option<u32>,
}

/// Where a game stands, for drawing the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateView {
    /// The game as the page should hold it from now on (the decisions as the rules name them).
    pub game: GameRequest,
    /// Board rows and columns.
    pub rows: u8,
    /// Board columns.
    pub cols: u8,
    /// Whether the board wraps around (biversi's torus).
    pub torus: bool,
    /// Whether discs carry an orientation (rotation: upper-case `+`, lower-case `x`).
    pub oriented: bool,
    /// The position's one-line text.
    pub position: String,
    /// One symbol per square, row-major: `X` black, `O` white, `#` neutral, `-` empty; under
    /// rotation rules lower-case `x` and `o` are discs oriented `x`.
    pub squares: String,
    /// The squares' names, row-major.
    pub square_names: Vec<String>,
    /// `black` or `white`: the colour to decide.
    pub side_to_move: &'static str,
    /// `black` or `white`: the seat to decide, which is the player who started as that
    /// colour (komi bidding may swap colours).
    pub seat: &'static str,
    /// What the next decision means, in words.
    pub prompt: String,
    /// The legal decisions.
    pub legal: Vec<DecisionView>,
    /// Whether the game is over.
    pub over: bool,
    /// At the end: `black`, `white` or `draw`, by seat.
    pub winner: Option<&'static str>,
    /// Black minus White, as the rules count it at the end (winner takes the empties or
    /// not), the plain disc difference before; the komi is not included (see `komi`).
    pub score: i32,
    /// Black's and White's discs on the board.
    pub discs: [u32; 2],
    /// The komi in White's favour.
    pub komi: f64,
}

fn colour_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The seat that started as the colour `color` has now.
fn seat_of(game: &AnyGame, color: Color) -> Color {
    if game.seats_swapped() {
        color.opponent()
    } else {
        color
    }
}

fn name_of(rules: &Rules, game: &AnyGame, decision: Decision) -> String {
    game.decision_name(rules, decision)
}

/// The legal decision of `game` called `name`, or why there is none.
fn find_decision(rules: &Rules, game: &AnyGame, name: &str) -> Result<Decision, String> {
    let name = name.trim();
    if game.is_over() {
        return Err("the game is over".to_owned());
    }
    let legal = game.legal_decisions(rules);
    if let Some(&decision) = legal
        .iter()
        .find(|&&decision| name_of(rules, game, decision).eq_ignore_ascii_case(name))
    {
        return Ok(decision);
    }
    // Other spellings the notation reads (`PA`, a Reversi II disc without its colour); it
    // also says what is wrong with a name, or that it holds several decisions.
    match game.replay_decisions(rules, name) {
        Ok((decisions, _)) if decisions.len() == 1 => Ok(decisions[0]),
        Ok((decisions, _)) if decisions.is_empty() => Err("an empty decision".to_owned()),
        Ok(_) => Err("one decision at a time, please".to_owned()),
        Err(error) => Err(error.reason),
    }
}

/// The most decisions a game may hold: far above any game's length (a sacrifice game ends by
/// repetition first), low enough that replaying it stays quick.
pub const MOST_DECISIONS: usize = 10_000;

/// The game of `request` under `rules`, replayed decision by decision, and the request as
/// the rules write it (`F5` becomes `f5`), so that what the page shows and saves is canonical.
pub(crate) fn replayed(
    rules: &Rules,
    request: &GameRequest,
) -> Result<(AnyGame, GameRequest), ApiError> {
    if request.decisions.len() > MOST_DECISIONS {
        return Err(ApiError::bad(format!(
            "{} decisions: a game holds at most {MOST_DECISIONS}",
            request.decisions.len()
        )));
    }
    let mut game = AnyGame::from_text(rules, &request.opening)
        .map_err(|error| ApiError::bad(format!("opening: {error}")))?;
    let opening = game.to_text(rules);
    let mut decisions = Vec::with_capacity(request.decisions.len());
    for (index, name) in request.decisions.iter().enumerate() {
        let decision = find_decision(rules, &game, name).map_err(|reason| {
            let shown: String = name.chars().take(16).collect();
            ApiError::illegal(format!("decision {} `{shown}`: {reason}", index + 1))
        })?;
        decisions.push(name_of(rules, &game, decision));
        game = game.play_unchecked(rules, decision);
    }
    // Nobody decides a chance event (the seats after equal bids): the server draws it, from
    // a seed of the position, so that replaying the request draws it alike.
    let mut chance = ChaCha8Rng::seed_from_u64(game.hash());
    if let Some(outcome) = game.draw_chance(rules, &mut chance) {
        decisions.push(name_of(rules, &game, outcome));
        game = game.play_unchecked(rules, outcome);
    }
    let canonical = GameRequest {
        variant: request.variant.clone(),
        size: request.size,
        opening,
        decisions,
    };
    Ok((game, canonical))
}

fn prompt(rules: &Rules, game: &AnyGame) -> String {
    let side = match game.side_to_move() {
        Color::Black => "Black",
        Color::White => "White",
    };
    if game.is_over() {
        return "the game is over".to_owned();
    }
    let legal = game.legal_decisions(rules);
    if legal == [Decision::Pass] {
        return format!("{side} has no move and must pass");
    }
    match game.phase() {
        Phase::Bid => {
            format!("{side} bids the komi: the disc difference expected in White's favour")
        }
        Phase::TieBreak => "equal bids: the seats are drawn".to_owned(),
        Phase::TurnStart => format!("{side} to move"),
        Phase::NeutralDrop => format!("{side} drops the neutral disc"),
        Phase::SwapSecond { .. } => format!("{side} picks the second neutral disc to swap"),
        Phase::SwapNeutralise { .. } => format!("{side} picks the disc that turns neutral"),
        Phase::Orient { pending } => {
            let square = game.square_name(pending.first().copied().unwrap_or(Square(0)));
            format!("{side} orients the flipped disc on {square}: + or x")
        }
        Phase::SecondPlacement { .. } => format!("{side} places the turn's second disc"),
    }
}

fn state_of(rules: &Rules, request: &GameRequest, game: &AnyGame) -> StateView {
    let text = game.to_text(rules);
    // The board is the text's first field, after the shape where the board is not square.
    let board = text
        .split(' ')
        .find(|field| field.len() == rules.square_count() as usize)
        .unwrap_or_default()
        .to_owned();
    let legal = game
        .legal_decisions(rules)
        .into_iter()
        .map(|decision| DecisionView {
            name: name_of(rules, game, decision),
            square: match decision {
                Decision::Square { square, .. } => Some(square.index()),
                _ => None,
            },
        })
        .collect();
    let winner = game.outcome(rules).map(|outcome| match outcome {
        Outcome::Win(color) => colour_name(seat_of(game, color)),
        Outcome::Draw => "draw",
    });
    StateView {
        game: request.clone(),
        rows: rules.rows(),
        cols: rules.cols(),
        torus: rules.is_torus(),
        oriented: rules.spec().orientation.is_some(),
        position: text,
        squares: board,
        square_names: (0..rules.square_count())
            .map(|index| game.square_name(Square(index as u8)))
            .collect(),
        side_to_move: colour_name(game.side_to_move()),
        seat: colour_name(seat_of(game, game.side_to_move())),
        prompt: prompt(rules, game),
        legal,
        over: game.is_over(),
        winner,
        score: game.score(rules),
        discs: [game.disc_count(Color::Black), game.disc_count(Color::White)],
        komi: game.komi(),
    }
}

/// Where the game of `request` stands.
///
/// # Errors
/// An unknown preset or size, an opening that does not parse, a decision the rules refuse.
pub fn state(request: &GameRequest) -> Result<StateView, ApiError> {
    let rules = preset_rules(&request.variant, request.size)?;
    let (game, request) = replayed(&rules, request)?;
    Ok(state_of(&rules, &request, &game))
}

/// A new game of a preset: its start, which for some presets depends on `seed` (random
/// openings).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartRequest {
    /// A preset name.
    pub variant: String,
    /// The board side, where the preset allows another.
    #[serde(default)]
    pub size: Option<u8>,
    /// The seed of what the start leaves to chance.
    #[serde(default)]
    pub seed: u64,
}

/// The start of a new game.
///
/// # Errors
/// An unknown preset or size.
pub fn start(request: &StartRequest) -> Result<StateView, ApiError> {
    let rules = preset_rules(&request.variant, request.size)?;
    let game = AnyGame::try_start(&rules, request.seed)
        .map_err(|error| ApiError::bad(format!("the start: {error}")))?;
    let request = GameRequest {
        variant: request.variant.clone(),
        size: request.size,
        opening: game.to_text(&rules),
        decisions: Vec::new(),
    };
    Ok(state_of(&rules, &request, &game))
}

/// A game to save, with who played it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    /// The game.
    pub game: GameRequest,
    /// The player in the seat that starts as Black (`human`, or an agent name).
    pub black: String,
    /// The player in the seat that starts as White.
    pub white: String,
}

/// The game as one line of the arena's games file (`flipzero replay --games`); an unfinished
/// game has the result `*` and the ending `unfinished`.
///
/// # Errors
/// As for [`state`].
pub fn save(request: &SaveRequest) -> Result<SavedGame, ApiError> {
    let view = state(&request.game)?;
    let result = match view.winner {
        Some("black") => "1-0",
        Some("white") => "0-1",
        Some(_) => "1/2-1/2",
        None => "*",
    };
    Ok(SavedGame {
        variant: view.game.variant.clone(),
        size: view.game.size,
        black: request.black.clone(),
        white: request.white.clone(),
        opening: view.game.opening.clone(),
        decisions: view.game.decisions.join(" "),
        result: result.to_owned(),
        score: view.score,
        ending: if view.over { "finished" } else { "unfinished" }.to_owned(),
        seconds: None,
    })
}

/// A line of a games file to load.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRequest {
    /// One line of a games file (JSON).
    pub line: String,
}

/// A loaded game: where it ends, and who played it.
#[derive(Clone, Debug, Serialize)]
pub struct LoadedGame {
    /// The game at its end.
    pub state: StateView,
    /// The saved player of the seat that starts as Black.
    pub black: String,
    /// The saved player of the seat that starts as White.
    pub white: String,
}

/// A game from a line of a games file.
///
/// # Errors
/// A line that is not a saved game, a variant that is not a preset, an opening or move list
/// that does not replay.
pub fn load(request: &LoadRequest) -> Result<LoadedGame, ApiError> {
    let saved: SavedGame = serde_json::from_str(request.line.trim())
        .map_err(|error| ApiError::bad(format!("not a line of a games file: {error}")))?;
    let rules = preset_rules(&saved.variant, saved.size)?;
    let opening = AnyGame::from_text(&rules, &saved.opening)
        .map_err(|error| ApiError::bad(format!("opening: {error}")))?;
    let (played, _) = opening
        .replay_decisions(&rules, &saved.decisions)
        .map_err(|error| ApiError::illegal(format!("decisions: {error}")))?;
    let mut game = opening;
    let mut decisions = Vec::with_capacity(played.len());
    for decision in played {
        decisions.push(name_of(&rules, &game, decision));
        game = game.play_unchecked(&rules, decision);
    }
    let state = state(&GameRequest {
        variant: saved.variant,
        size: saved.size,
        opening: saved.opening,
        decisions,
    })?;
    Ok(LoadedGame {
        state,
        black: saved.black,
        white: saved.white,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn othello6(decisions: &[&str]) -> GameRequest {
        let opening = start(&StartRequest {
            variant: "othello".into(),
            size: Some(6),
            seed: 0,
        })
        .unwrap()
        .game
        .opening;
        GameRequest {
            variant: "othello".into(),
            size: Some(6),
            opening,
            decisions: decisions.iter().map(|&d| d.to_owned()).collect(),
        }
    }

    #[test]
    fn the_start_of_6x6_othello_has_four_discs_and_four_moves() {
        let view = state(&othello6(&[])).unwrap();
        assert_eq!((view.rows, view.cols), (6, 6));
        assert_eq!(view.squares.len(), 36);
        assert_eq!(view.discs, [2, 2]);
        let names: Vec<&str> = view.legal.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names.len(), 4);
        // Every legal move is on an empty square, and the square's name is its name.
        for decision in &view.legal {
            let square = decision.square.unwrap() as usize;
            assert_eq!(view.squares.as_bytes()[square], b'-');
            assert_eq!(view.square_names[square], decision.name);
        }
        assert_eq!((view.side_to_move, view.seat), ("black", "black"));
    }

    #[test]
    fn a_decision_is_played_and_renamed_as_the_rules_write_it() {
        let first = state(&othello6(&[])).unwrap().legal[0].name.to_uppercase();
        let view = state(&othello6(&[&first])).unwrap();
        assert_eq!(view.game.decisions, vec![first.to_lowercase()]);
        assert_eq!(view.discs, [4, 1]);
        assert_eq!(view.side_to_move, "white");
    }

    #[test]
    fn an_illegal_decision_is_refused_with_its_index_and_reason() {
        let error = state(&othello6(&["a1"])).unwrap_err();
        assert_eq!(error.status, 422);
        assert!(
            error.message.starts_with("decision 1 `a1`:"),
            "{}",
            error.message
        );
        let error = state(&othello6(&["z9"])).unwrap_err();
        assert!(error.message.contains("not a square"), "{}", error.message);
        let first = state(&othello6(&[])).unwrap().legal[0].name.clone();
        let second = state(&othello6(&[&first])).unwrap().legal[0].name.clone();
        let error = state(&othello6(&[&format!("{first} {second}")])).unwrap_err();
        assert!(
            error.message.contains("one decision at a time"),
            "{}",
            error.message
        );
    }

    #[test]
    fn the_server_draws_the_seats_after_equal_bids_alike_each_time() {
        let request = |decisions: &[&str]| GameRequest {
            variant: "komi".into(),
            size: Some(6),
            opening: start(&StartRequest {
                variant: "komi".into(),
                size: Some(6),
                seed: 0,
            })
            .unwrap()
            .game
            .opening,
            decisions: decisions.iter().map(|&name| name.to_owned()).collect(),
        };
        let view = state(&request(&["bid+1", "bid+1"])).unwrap();
        let drawn = &view.game.decisions;
        assert_eq!(drawn.len(), 3, "{drawn:?}");
        assert!(
            drawn[2] == "tie-kept" || drawn[2] == "tie-swapped",
            "{drawn:?}"
        );
        assert!(
            !view
                .legal
                .iter()
                .any(|decision| decision.name.starts_with("tie-"))
        );
        assert_eq!(
            state(&request(&["bid+1", "bid+1"])).unwrap().game,
            view.game
        );
        // Replaying the drawn game changes nothing; unequal bids draw nothing.
        let replayed: Vec<&str> = drawn.iter().map(String::as_str).collect();
        assert_eq!(state(&request(&replayed)).unwrap().game, view.game);
        assert_eq!(
            state(&request(&["bid+1", "bid+2"]))
                .unwrap()
                .game
                .decisions
                .len(),
            2
        );
    }

    #[test]
    fn rules_files_and_unknown_presets_are_refused() {
        let mut request = othello6(&[]);
        request.variant = "/etc/passwd".into();
        let error = state(&request).unwrap_err();
        assert_eq!(error.status, 400);
        assert!(error.message.contains("not a preset"), "{}", error.message);
        request.variant = "othello".into();
        request.size = Some(7);
        assert_eq!(state(&request).unwrap_err().status, 400);
    }

    #[test]
    fn every_preset_starts_and_lists_its_sizes() {
        let variants = variants();
        assert_eq!(variants.len(), Preset::ALL.len());
        for variant in &variants {
            assert!(
                variant.sizes.contains(&variant.default_size),
                "{}",
                variant.name
            );
            let view = start(&StartRequest {
                variant: variant.name.into(),
                size: None,
                seed: 3,
            })
            .unwrap();
            assert!(!view.over, "{}", variant.name);
            assert!(!view.legal.is_empty(), "{}", variant.name);
            assert_eq!(
                view.squares.len(),
                view.square_names.len(),
                "{}",
                variant.name
            );
        }
    }

    #[test]
    fn a_saved_game_loads_back_to_the_same_position() {
        let first = state(&othello6(&[])).unwrap().legal[0].name.clone();
        let second = state(&othello6(&[&first])).unwrap().legal[0].name.clone();
        let request = othello6(&[&first, &second]);
        let before = state(&request).unwrap();
        let saved = save(&SaveRequest {
            game: request,
            black: "human".into(),
            white: "engine:depth=1".into(),
        })
        .unwrap();
        assert_eq!(
            (saved.result.as_str(), saved.ending.as_str()),
            ("*", "unfinished")
        );
        let line = serde_json::to_string(&saved).unwrap();
        let loaded = load(&LoadRequest { line }).unwrap();
        assert_eq!(loaded.state.position, before.position);
        assert_eq!(loaded.state.game.decisions, vec![first, second]);
        assert_eq!(loaded.white, "engine:depth=1");
        let error = load(&LoadRequest {
            line: "{\"variant\": 3}".into(),
        })
        .unwrap_err();
        assert_eq!(error.status, 400);
    }
}
