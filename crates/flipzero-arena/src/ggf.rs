//! GGF, the game format of NBoard and the GGS server: reading a game (its start position and
//! moves) and writing a position as a game without moves. Only what NBoard's `set game`
//! carries is read: `BO[size squares mover]` and the `B[..]`/`W[..]` moves; other
//! properties are skipped.

use flipzero_core::{Bitboard, Color, Game, Rules, variant::notation};

/// The board side of a GGF game's `BO[` property.
pub fn board_side(ggf: &str) -> Option<u8> {
    let board = ggf.split_once("BO[")?.1;
    board.split_whitespace().next()?.parse().ok()
}

/// The start position (from `BO[size board side]`) and the moves (`B[f5]`, `W[pa//1.2]`) of
/// a GGF game.
///
/// # Errors
/// A game that is not written `(; ... ;)`, a missing or malformed board, a board of
/// another size than the rules'.
pub fn read<W: Bitboard>(rules: &Rules, ggf: &str) -> Result<(Game<W>, Vec<String>), String> {
    let properties = properties(ggf)?;
    let board = properties
        .iter()
        .find(|(key, _)| key == "BO")
        .map(|(_, value)| value.clone())
        .ok_or("no BO[...] board")?;
    let mut parts = board.split_whitespace();
    let side: usize = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("BO: no board size")?;
    let squares: String = parts.next().ok_or("BO: no squares")?.to_owned();
    let mover = parts.next().ok_or("BO: no side to move")?;
    // The side is compared with the rules' first: a huge one must not be squared.
    if side != usize::from(rules.rows()) || side != usize::from(rules.cols()) {
        return Err(format!(
            "BO: a board of side {side}; these rules play on {}x{}",
            rules.rows(),
            rules.cols()
        ));
    }
    if squares.len() != side * side {
        return Err(format!(
            "BO: {} squares for a {side}x{side} board",
            squares.len()
        ));
    }
    let text_squares: String = squares
        .chars()
        .map(|c| match c {
            '*' | 'X' | 'x' | 'B' | 'b' => Ok('X'),
            'O' | 'o' | 'W' | 'w' => Ok('O'),
            '-' | '.' => Ok('-'),
            other => Err(format!("BO: square `{other}`")),
        })
        .collect::<Result<_, _>>()?;
    let side_to_move = match mover {
        "*" | "B" | "b" | "X" => 'X',
        "O" | "W" | "w" | "o" => 'O',
        other => return Err(format!("BO: side to move `{other}`")),
    };
    let start = Game::<W>::from_text(rules, &format!("{text_squares} {side_to_move}"))
        .map_err(|e| format!("BO: {e}"))?;
    let moves = properties
        .into_iter()
        .filter(|(key, _)| key == "B" || key == "W")
        .map(|(_, value)| {
            let name = value.split('/').next().unwrap_or("").to_ascii_lowercase();
            if name == "pa" {
                "pass".to_owned()
            } else {
                name
            }
        })
        .collect();
    Ok((start, moves))
}

/// The `KEY[value]` properties of a GGF game, in order.
fn properties(ggf: &str) -> Result<Vec<(String, String)>, String> {
    let body = ggf
        .trim()
        .strip_prefix("(;")
        .and_then(|rest| rest.strip_suffix(";)"))
        .ok_or("a GGF game is written (; ... ;)")?;
    let mut properties = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('[') {
        let key = rest[..open].trim().to_owned();
        let close = rest[open..].find(']').ok_or("a [ without its ]")? + open;
        properties.push((key, rest[open + 1..close].to_owned()));
        rest = &rest[close + 1..];
    }
    if !rest.trim().is_empty() {
        return Err(format!("unexpected `{}`", rest.trim()));
    }
    Ok(properties)
}

/// The position at the end of a GGF game and the positions before each of its moves,
/// oldest first: [`read`], then each move replayed.
///
/// # Errors
/// What [`read`] refuses, and a move that is not legal where it is played, named.
pub fn read_to_end<W: Bitboard>(
    rules: &Rules,
    ggf: &str,
) -> Result<(Game<W>, Vec<Game<W>>), String> {
    let (mut game, moves) = read::<W>(rules, ggf)?;
    let mut history = Vec::with_capacity(moves.len());
    for mv in moves {
        let next = notation::replay(rules, &game, &mv)
            .map_err(|error| format!("move {mv}: {}", error.reason))?;
        history.push(std::mem::replace(&mut game, next));
    }
    Ok((game, history))
}

/// `game` as a GGF game without moves: `BO[` size, squares (`*` black, `O` white, `-`
/// empty), side to move.
pub fn write_position<W: Bitboard>(rules: &Rules, game: &Game<W>) -> String {
    let text = game.to_text(rules);
    let squares: String = text
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .chars()
        .map(|c| if c == 'X' { '*' } else { c })
        .collect();
    let mover = match game.side_to_move() {
        Color::Black => '*',
        Color::White => 'O',
    };
    format!(
        "(;GM[Othello]PC[flipzero]TY[{side}]BO[{side} {squares} {mover}];)",
        side = rules.rows()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipzero_core::Preset;

    #[test]
    fn a_game_reads_to_its_end_and_a_position_writes_back_to_itself() {
        let rules = Preset::Othello.rules(None).unwrap();
        let start = "(;GM[Othello]PC[NBoard]TY[8r]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[C3//1.5];)";
        let (end, history) = read_to_end::<u64>(&rules, start).unwrap();
        assert_eq!(history.len(), 3);
        let expected = notation::replay(&rules, &Game::<u64>::start(&rules), "f5 d6 c3").unwrap();
        assert_eq!(end.to_text(&rules), expected.to_text(&rules));
        let written = write_position(&rules, &end);
        assert!(written.ends_with(" O];)"), "{written}");
        let (again, moves) = read::<u64>(&rules, &written).unwrap();
        assert!(moves.is_empty());
        // GGF carries the board and the side to move, not the turn count.
        let board_and_mover = |game: &Game<u64>| game.to_text(&rules)[..66].to_owned();
        assert_eq!(board_and_mover(&again), board_and_mover(&end));
        assert_eq!(board_side(&written), Some(8));
    }

    #[test]
    fn a_damaged_game_is_refused_with_what_is_wrong() {
        let rules = Preset::Othello.rules(Some(6)).unwrap();
        let board = "BO[6 --------------O*----*O-------------- *]";
        for (text, reason) in [
            ("GM[Othello]", "(; ... ;)"),
            ("(;GM[Othello;)", "without its ]"),
            ("(;GM[Othello];)", "no BO"),
            (
                "(;BO[8 -- *];)",
                "a board of side 8; these rules play on 6x6",
            ),
            ("(;BO[6 -- *];)", "2 squares for a 6x6 board"),
            (
                "(;BO[6 --------------O*----*O--------------];)",
                "no side to move",
            ),
            (
                "(;BO[6 --------------O*----*O-------------? *];)",
                "square `?`",
            ),
            (&format!("(;{board}B[a1];)"), "move a1"),
            (&format!("(;{board} trailing;)"), "unexpected `trailing`"),
        ] {
            let error = read_to_end::<u64>(&rules, text).unwrap_err();
            assert!(error.contains(reason), "{text}: {error}");
        }
    }

    /// Fuzz crash `crash-e96c4939...` (ggf_game, 2026-12-02): a board side of 19 digits was
    /// squared before it was compared with the rules' side, and the multiplication overflowed
    /// (a panic in the NBoard server's `set game`, found by the fuzz target's first minute).
    #[test]
    fn fuzz_crash_a_board_side_too_large_to_square_is_refused() {
        let rules = Preset::Othello.rules(Some(6)).unwrap();
        let text = "(;GM[Othe  -        llo]BO[6666666669155797906 77O*O*O*O*O*O *];)";
        let error = read_to_end::<u64>(&rules, text).unwrap_err();
        assert!(
            error.contains("a board of side 6666666669155797906"),
            "{error}"
        );
    }
}
