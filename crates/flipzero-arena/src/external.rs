//! External engines as agents: processes that speak GTP (Edax, `flipzero engine --protocol
//! gtp`) or the NBoard protocol (NBoard engines, `flipzero engine --protocol nboard`) on their
//! stdin and stdout. The GTP agent tells its engine the moves played since it last moved and
//! asks `genmove`; the NBoard agent sets the position as a GGF game and asks `go`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use flipzero_core::{Bitboard, Color, Decision, Game, Preset, Rules, variant::notation};

use crate::agent::Agent;

/// How long an engine may take to answer a command that is not a search.
const COMMAND_PATIENCE: Duration = Duration::from_secs(10);
/// How long it may take to choose a move without a clock. Under a clock it may take its time
/// left and `CLOCK_GRACE` more (never more than this): the match then records the loss on
/// time.
const MOVE_PATIENCE: Duration = Duration::from_secs(600);
const CLOCK_GRACE: Duration = Duration::from_secs(5);
/// The most positions the search for the moves to an opening visits (about 2 s): lines of
/// 20 plies on 8x8 take some 10,000, of 22 some 200,000; deeper ones may not be found.
const PATH_NODES: usize = 2_000_000;

/// How long to wait for a move when the engine has `time_left` for the rest of the game, at
/// most `without_clock`.
fn move_patience(time_left: Option<Duration>, without_clock: Duration) -> Duration {
    time_left.map_or(without_clock, |left| {
        (left + CLOCK_GRACE).min(without_clock)
    })
}

/// A running engine process: its input and its output lines, read by a thread of their own
/// so that a silent engine is noticed instead of waited on forever.
struct EngineProcess {
    child: Child,
    input: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
}

impl EngineProcess {
    /// Starts `command` (split at whitespace: program and arguments).
    fn start(command: &str) -> std::io::Result<Self> {
        let mut words = command.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| std::io::Error::other("an empty engine command"))?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let input = child.stdin.take().expect("a piped stdin");
        let output = BufReader::new(child.stdout.take().expect("a piped stdout"));
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in output.lines() {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Self {
            child,
            input,
            lines,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}")
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("the engine went away: {e}"))
    }

    /// The next line of output, without its line end; an error once the output is closed or
    /// when nothing comes within `patience`.
    fn line(&mut self, after: &str, patience: Duration) -> Result<String, String> {
        match self.lines.recv_timeout(patience) {
            Ok(Ok(line)) => Ok(line.trim_end().to_owned()),
            Ok(Err(error)) => Err(format!("reading the engine: {error}")),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no answer within {} s after `{after}`",
                patience.as_secs()
            )),
            Err(RecvTimeoutError::Disconnected) => {
                Err(format!("the engine closed its output after `{after}`"))
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        // An engine that ignores `quit` is stopped after a moment.
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The game's move in an engine's answer (`f5`, `F5`, `PA`, `pass`), as a legal decision.
fn decision_from_answer<W: Bitboard>(
    rules: &Rules,
    game: &Game<W>,
    answer: &str,
) -> Result<(Decision, Game<W>), String> {
    let text = answer.to_ascii_lowercase();
    let text = if text == "pa" { "pass" } else { text.as_str() };
    let played = notation::replay(rules, game, text)
        .map_err(|e| format!("the engine answered `{answer}`: {}", e.reason))?;
    let decision = game
        .legal_decisions(rules)
        .into_iter()
        .find(|&d| game.play_unchecked(rules, d).hash() == played.hash())
        .ok_or("no legal decision matches the engine's move")?;
    Ok((decision, played))
}

/// A GTP engine process playing one game.
pub struct GtpAgent<W: Bitboard> {
    rules: Rules,
    process: EngineProcess,
    /// The position the engine has been told about, once a game has begun.
    known: Option<Game<W>>,
    /// How the next game's opening was reached (`Agent::start_from`), sent at its start.
    opening_line: Option<(Game<W>, Vec<Decision>)>,
    /// The time for the next move, sent as `time_left`.
    move_time: Option<Duration>,
    /// How long a move may take without a clock (`MOVE_PATIENCE`).
    move_patience: Duration,
    /// Set once the engine refused `play <colour> pass`: it passes by itself when a side
    /// has no move (GRhino does), so passes are not sent to it.
    passes_by_itself: bool,
    /// How the engine is put on a position no line of moves reaches (asked once, from
    /// `list_commands`).
    board_setup: Option<BoardSetup>,
    /// Set once a game file was loaded: the engine's `clear_board` then goes back to the
    /// loaded board (Edax does), so each later game starts by loading the start instead.
    start_replaced: bool,
}

/// GRhino's board setup: `grhino-setup_board <squares> <b|w>`, the squares from a1 row by
/// row, `X` Black, `O` White, `.` empty.
const SETUP_BOARD: &str = "grhino-setup_board";

/// GTP's regression command that loads a game file: Edax reads it by the file's extension,
/// GGF among others, and plays on from its last position.
const LOAD_GAME: &str = "loadsgf";

/// How an engine is put on a position that no line of moves from the start reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoardSetup {
    /// GRhino's [`SETUP_BOARD`].
    SetupCommand,
    /// [`LOAD_GAME`] of a GGF file holding the position.
    LoadGameFile,
    /// No way: such a game is forfeited with the reason.
    Unavailable,
}

/// The `SETUP_BOARD` command that sets up `game`.
fn setup_board_command<W: Bitboard>(rules: &Rules, game: &Game<W>) -> String {
    let (black, white) = (game.discs(Color::Black), game.discs(Color::White));
    let squares: String = (0..rules.square_count())
        .map(|index| {
            if black.contains(index) {
                'X'
            } else if white.contains(index) {
                'O'
            } else {
                '.'
            }
        })
        .collect();
    let mover = GtpAgent::<W>::color_name(game.side_to_move());
    format!("{SETUP_BOARD} {squares} {mover}")
}

/// The decisions that lead from `from` to `to` under `rules`, if a line within `PATH_NODES`
/// positions does: a depth-first search that places discs only on the squares `to` has
/// filled, since a disc once placed stays (GTP engines play Othello's moves), visits each
/// position once, and tries first the decisions that leave the most squares of the target's
/// colours, so that deep openings and positions from files are found quickly.
fn path_between<W: Bitboard>(rules: &Rules, from: &Game<W>, to: &Game<W>) -> Option<Vec<Decision>> {
    fn search<W: Bitboard>(
        rules: &Rules,
        game: &Game<W>,
        to: &Game<W>,
        line: &mut Vec<Decision>,
        visited: &mut std::collections::HashSet<u64>,
    ) -> bool {
        // The same discs and mover: a position from a file counts no turns behind it.
        let arrived = game.side_to_move() == to.side_to_move()
            && game.discs(Color::Black) == to.discs(Color::Black)
            && game.discs(Color::White) == to.discs(Color::White);
        if arrived {
            return true;
        }
        // Fewer empty squares than the target: it lies behind.
        if visited.len() >= PATH_NODES
            || game.is_over()
            || game.empty().count() < to.empty().count()
            || !flips_can_follow(rules, game, to)
            || !visited.insert(game.hash())
        {
            return false;
        }
        let mut children: Vec<(u32, Decision, Game<W>)> = game
            .legal_decisions(rules)
            .into_iter()
            .filter(|&decision| match decision {
                Decision::Square { square, .. } => !to.empty().contains(square.index()),
                // Two passes in a row end the game: the target is not behind them.
                _ => !(decision == Decision::Pass && line.last() == Some(&Decision::Pass)),
            })
            .map(|decision| {
                let child = game.play_unchecked(rules, decision);
                (agreement(&child, to), decision, child)
            })
            .collect();
        children.sort_by_key(|&(agreeing, _, _)| std::cmp::Reverse(agreeing));
        for (_, decision, child) in children {
            line.push(decision);
            if search(rules, &child, to, line, visited) {
                return true;
            }
            line.pop();
        }
        false
    }
    /// Whether every disc of the wrong colour for the target shares a row, column or
    /// diagonal with a square still to be filled: only a disc placed on such a line can flip
    /// it.
    fn flips_can_follow<W: Bitboard>(rules: &Rules, game: &Game<W>, to: &Game<W>) -> bool {
        let cols = i64::from(rules.cols());
        let place = |index: u32| (i64::from(index) / cols, i64::from(index) % cols);
        let wrong = (game.discs(Color::Black) & to.discs(Color::White))
            | (game.discs(Color::White) & to.discs(Color::Black));
        let still_to_fill: Vec<(i64, i64)> =
            (game.empty() & !to.empty()).indices().map(place).collect();
        wrong.indices().map(place).all(|(row, col)| {
            still_to_fill
                .iter()
                .any(|&(r, c)| r == row || c == col || r - c == row - col || r + c == row + col)
        })
    }
    /// Squares with the target's colour.
    fn agreement<W: Bitboard>(game: &Game<W>, to: &Game<W>) -> u32 {
        let black = game.discs(Color::Black) & to.discs(Color::Black);
        let white = game.discs(Color::White) & to.discs(Color::White);
        black.count() + white.count()
    }
    let mut line = Vec::new();
    let mut visited = std::collections::HashSet::new();
    search(rules, from, to, &mut line, &mut visited).then_some(line)
}

impl<W: Bitboard> GtpAgent<W> {
    /// Starts `command` (split at whitespace: program and arguments).
    ///
    /// # Errors
    /// When the program cannot be started.
    pub fn start(rules: &Rules, command: &str) -> std::io::Result<Self> {
        Ok(Self {
            rules: rules.clone(),
            process: EngineProcess::start(command)?,
            known: None,
            opening_line: None,
            move_time: None,
            move_patience: MOVE_PATIENCE,
            passes_by_itself: false,
            board_setup: None,
            start_replaced: false,
        })
    }

    /// Starts the engine, checks that it answers GTP and can take this board size, and
    /// stops it.
    ///
    /// # Errors
    /// The reason it cannot serve.
    pub fn probe(rules: &Rules, command: &str) -> Result<(), String> {
        let mut agent = Self::start(rules, command).map_err(|e| e.to_string())?;
        agent.ask("protocol_version")?;
        agent.ask(&format!("boardsize {}", rules.rows()))?;
        Ok(())
    }

    /// Sends a command and returns the answer's text, or the engine's error.
    fn ask(&mut self, command: &str) -> Result<String, String> {
        self.ask_within(command, COMMAND_PATIENCE)
    }

    /// `ask`, waiting at most `patience` for each line of the answer.
    fn ask_within(&mut self, command: &str, patience: Duration) -> Result<String, String> {
        self.process.send(command)?;
        let mut answer = String::new();
        loop {
            let line = self.process.line(command, patience)?;
            if line.trim().is_empty() {
                if answer.is_empty() {
                    continue;
                }
                break;
            }
            answer.push_str(&line);
            answer.push('\n');
        }
        let answer = answer.trim();
        match answer.chars().next() {
            Some('=') => Ok(answer[1..].trim().to_owned()),
            _ => Err(format!("`{command}`: {answer}")),
        }
    }

    fn color_name(color: Color) -> &'static str {
        match color {
            Color::Black => "b",
            Color::White => "w",
        }
    }

    /// Tells the engine the moves from the position it knows to `game`: at a game's start,
    /// from its empty board through the opening's own decisions when they are known, then
    /// the moves played since it last moved (found by `path_between`, which for the
    /// opponent's one move is that move).
    fn synchronise(&mut self, game: &Game<W>) -> Result<(), String> {
        let mut position = match self.known.take() {
            Some(known) => known,
            None => {
                self.ask(&format!("boardsize {}", self.rules.rows()))?;
                let mut position = Game::<W>::start(&self.rules);
                if self.start_replaced {
                    self.load_game_file(&position)?;
                } else {
                    self.ask("clear_board")?;
                }
                if let Some((start, decisions)) = self.opening_line.take() {
                    // An opening drawn from another start (a position from a file) is
                    // reached by a searched line first.
                    position = self.tell_path(position, &start)?;
                    for decision in decisions {
                        position = self.tell(position, decision)?;
                    }
                }
                position
            }
        };
        position = self.tell_path(position, game)?;
        self.known = Some(position);
        Ok(())
    }

    /// Tells the engine a line of moves from `from` (which it knows) to `to`, or, where no
    /// line is found and the engine can set up a board, sets `to` up.
    fn tell_path(&mut self, from: Game<W>, to: &Game<W>) -> Result<Game<W>, String> {
        let Some(path) = path_between(&self.rules, &from, to) else {
            match self.board_setup()? {
                BoardSetup::SetupCommand => {
                    self.ask(&setup_board_command(&self.rules, to))?;
                }
                BoardSetup::LoadGameFile => self.load_game_file(to)?,
                BoardSetup::Unavailable => {
                    return Err(format!(
                        "no line of moves found from the engine's position to this one (GTP \
                         engines are told positions as moves unless they offer {SETUP_BOARD} \
                         or {LOAD_GAME}: give shorter openings, or use an NBoard engine)"
                    ));
                }
            }
            return Ok(to.clone());
        };
        let mut position = from;
        for decision in path {
            position = self.tell(position, decision)?;
        }
        Ok(position)
    }

    /// How the engine sets up a board, from its `list_commands` (asked once): GRhino's own
    /// command first, else a game file.
    fn board_setup(&mut self) -> Result<BoardSetup, String> {
        if let Some(known) = self.board_setup {
            return Ok(known);
        }
        let commands = self.ask("list_commands")?;
        let offers = |name: &str| commands.lines().any(|command| command.trim() == name);
        let setup = if offers(SETUP_BOARD) {
            BoardSetup::SetupCommand
        } else if offers(LOAD_GAME) {
            BoardSetup::LoadGameFile
        } else {
            BoardSetup::Unavailable
        };
        self.board_setup = Some(setup);
        Ok(setup)
    }

    /// Loads `game` into the engine as a GGF file of its position ([`LOAD_GAME`]).
    fn load_game_file(&mut self, game: &Game<W>) -> Result<(), String> {
        let mut file = tempfile::Builder::new()
            .prefix("flipzero-position-")
            .suffix(".ggf")
            .tempfile()
            .map_err(|e| format!("a game file for the engine: {e}"))?;
        std::io::Write::write_all(
            &mut file,
            crate::ggf::write_position(&self.rules, game).as_bytes(),
        )
        .map_err(|e| format!("a game file for the engine: {e}"))?;
        // Removed when `file` drops, after the engine has answered.
        self.ask(&format!("{LOAD_GAME} {}", file.path().display()))?;
        self.start_replaced = true;
        Ok(())
    }

    /// Tells the engine one move played in `position`, and returns the position after it.
    fn tell(&mut self, position: Game<W>, decision: Decision) -> Result<Game<W>, String> {
        let name = notation::decision_name(&self.rules, position.geometry(), decision);
        let after = position.play(&self.rules, decision).map_err(|error| {
            format!("the move {name} does not play from the engine's position: {error}")
        })?;
        let color = Self::color_name(position.side_to_move());
        if decision == Decision::Pass {
            // GTP's `play b pass` is refused by engines that pass for a side with no move
            // themselves (GRhino answers `? syntax error`): their position is already right.
            if !self.passes_by_itself && self.ask(&format!("play {color} pass")).is_err() {
                self.passes_by_itself = true;
            }
            return Ok(after);
        }
        self.ask(&format!("play {color} {name}"))?;
        Ok(after)
    }

    fn generate(&mut self, game: &Game<W>) -> Result<Decision, String> {
        self.synchronise(game)?;
        let color = Self::color_name(game.side_to_move());
        // The engine spreads its remaining time: give it one move's share times the moves.
        let moves_left = (game.empty().count() / 2).max(1);
        let time_left = self.move_time.map(|time| time * moves_left);
        if let Some(left) = time_left {
            self.ask(&format!("time_left {color} {:.0} 0", left.as_secs_f64()))?;
        }
        let patience = move_patience(time_left, self.move_patience);
        let answer = self.ask_within(&format!("genmove {color}"), patience)?;
        let (decision, played) = decision_from_answer(&self.rules, game, &answer)?;
        self.known = Some(played);
        Ok(decision)
    }
}

impl<W: Bitboard> Agent<W> for GtpAgent<W> {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        self.generate(game)
    }

    fn start_from(&mut self, start: &Game<W>, decisions: &[Decision]) {
        self.opening_line = Some((start.clone(), decisions.to_vec()));
        self.known = None;
    }

    fn set_move_time(&mut self, time: Duration) {
        self.move_time = Some(time);
    }
}

/// NBoard engines know standard Othello on a square board and nothing else (any start
/// position is fine: it is sent as the game's board).
fn plays_standard_othello(rules: &Rules) -> Result<(), String> {
    let othello = Preset::Othello
        .rules(Some(rules.rows()))
        .map_err(|e| e.to_string())?;
    let (spec, plain) = (rules.spec(), othello.spec());
    let standard = spec.board == plain.board
        && spec.protocol == plain.protocol
        && spec.supply == plain.supply
        && spec.sacrifice.is_none()
        && spec.neutral.is_none()
        && spec.orientation.is_none()
        && spec.pass == plain.pass
        && spec.objective == plain.objective
        && spec.komi == plain.komi;
    if standard {
        Ok(())
    } else {
        Err("NBoard engines play standard Othello on a square board; these rules differ".to_owned())
    }
}

/// An NBoard engine process playing one game.
pub struct NBoardAgent<W: Bitboard> {
    rules: Rules,
    process: EngineProcess,
    /// Numbers the `ping`s that mark where the engine's answers to a request end.
    pings: u64,
    /// The time for the next move, under a clock.
    move_time: Option<Duration>,
    /// How long a move may take without a clock (`MOVE_PATIENCE`).
    move_patience: Duration,
    _width: std::marker::PhantomData<W>,
}

impl<W: Bitboard> NBoardAgent<W> {
    /// Starts `command` and opens the protocol (`nboard 2`).
    ///
    /// # Errors
    /// When the program cannot be started or does not answer.
    pub fn start(rules: &Rules, command: &str) -> Result<Self, String> {
        let mut agent = Self {
            rules: rules.clone(),
            process: EngineProcess::start(command).map_err(|e| e.to_string())?,
            pings: 0,
            move_time: None,
            move_patience: MOVE_PATIENCE,
            _width: std::marker::PhantomData,
        };
        agent.process.send("nboard 2")?;
        agent.synchronise("nboard 2")?;
        Ok(agent)
    }

    /// Starts the engine, checks that it answers and takes these rules' start position as a
    /// GGF game, and stops it.
    ///
    /// # Errors
    /// The reason it cannot serve.
    pub fn probe(rules: &Rules, command: &str) -> Result<(), String> {
        plays_standard_othello(rules)?;
        let mut agent = Self::start(rules, command)?;
        agent.set_position(&Game::<W>::start(rules))
    }

    /// Sends `ping n` and reads up to `pong n`; a `status error` line on the way is the
    /// engine refusing the last request.
    fn synchronise(&mut self, request: &str) -> Result<(), String> {
        self.pings += 1;
        let pong = format!("pong {}", self.pings);
        self.process.send(&format!("ping {}", self.pings))?;
        let mut refused = None;
        loop {
            let line = self.process.line(request, COMMAND_PATIENCE)?;
            if line.trim() == pong {
                return refused.map_or(Ok(()), Err);
            }
            if let Some(reason) = line.trim().strip_prefix("status error") {
                refused = Some(format!(
                    "`{request}`: {}",
                    reason.trim_start_matches(':').trim()
                ));
            }
        }
    }

    fn set_position(&mut self, game: &Game<W>) -> Result<(), String> {
        let request = format!("set game {}", crate::ggf::write_position(&self.rules, game));
        self.process.send(&request)?;
        self.synchronise(&request)
    }

    fn generate(&mut self, game: &Game<W>) -> Result<Decision, String> {
        let legal = game.legal_decisions(&self.rules);
        if legal == [Decision::Pass] {
            // NBoard GUIs pass for the engine; nothing to ask.
            return Ok(Decision::Pass);
        }
        self.set_position(game)?;
        self.process.send("go")?;
        let moves_left = (game.empty().count() / 2).max(1);
        let patience = move_patience(
            self.move_time.map(|time| time * moves_left),
            self.move_patience,
        );
        loop {
            let line = self.process.line("go", patience)?;
            if let Some(answer) = line.trim().strip_prefix("===") {
                // `=== F5`, `=== F5/1.5/0.2` (move, evaluation, seconds).
                let name = answer.trim().split('/').next().unwrap_or_default();
                return decision_from_answer(&self.rules, game, name).map(|(d, _)| d);
            }
            if let Some(reason) = line.trim().strip_prefix("status error") {
                return Err(format!("`go`: {}", reason.trim_start_matches(':').trim()));
            }
        }
    }
}

impl<W: Bitboard> Agent<W> for NBoardAgent<W> {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        self.generate(game)
    }

    fn set_move_time(&mut self, time: Duration) {
        self.move_time = Some(time);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn an_engine_silent_on_a_move_without_a_clock_is_given_up_on_after_its_patience() {
        // Engines that answer everything but the move: GTP's `genmove`, NBoard's `go`.
        let folder = tempfile::tempdir().unwrap();
        let write = |name: &str, script: &str| {
            let path = folder.path().join(name);
            std::fs::write(&path, script).unwrap();
            format!("sh {}", path.display())
        };
        let gtp = write(
            "gtp.sh",
            "while read -r line; do\n  case \"$line\" in\n    genmove*) exec sleep 60 ;;\n    *) printf '=\\n\\n' ;;\n  esac\ndone\n",
        );
        let nboard = write(
            "nboard.sh",
            "while read -r word rest; do\n  case \"$word\" in\n    ping) echo \"pong $rest\" ;;\n    go) exec sleep 60 ;;\n  esac\ndone\n",
        );
        let rules = Preset::Othello.rules(Some(6)).unwrap();
        let start = Game::<u64>::start(&rules);
        let patience = Duration::from_secs(1);
        let mut gtp = GtpAgent::<u64>::start(&rules, &gtp).unwrap();
        assert_eq!(gtp.move_patience, MOVE_PATIENCE);
        gtp.move_patience = patience;
        let mut nboard = NBoardAgent::<u64>::start(&rules, &nboard).unwrap();
        assert_eq!(nboard.move_patience, MOVE_PATIENCE);
        nboard.move_patience = patience;
        let began = Instant::now();
        let error = gtp.choose(&start).unwrap_err();
        assert_eq!(error, "no answer within 1 s after `genmove b`");
        let error = nboard.choose(&start).unwrap_err();
        assert_eq!(error, "no answer within 1 s after `go`");
        // Each waited its patience, not the engine's minute.
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "{:?}",
            began.elapsed()
        );
        // Under a clock, the wait is the time left and the grace, within the same bound.
        assert_eq!(
            move_patience(Some(Duration::from_secs(7)), MOVE_PATIENCE),
            Duration::from_secs(12)
        );
        assert_eq!(
            move_patience(Some(Duration::from_secs(7200)), MOVE_PATIENCE),
            MOVE_PATIENCE
        );
    }

    #[test]
    fn an_opening_reaches_a_gtp_engine_as_its_own_moves_at_any_depth() {
        // An engine that answers every command with an empty success and logs what it hears.
        let folder = tempfile::tempdir().unwrap();
        let log = folder.path().join("heard.txt");
        let script = folder.path().join("engine.sh");
        std::fs::write(
            &script,
            format!(
                "while read -r line; do\n  echo \"$line\" >> {}\n  printf '=\\n\\n'\n  [ \"$line\" = quit ] && exit 0\ndone\n",
                log.display()
            ),
        )
        .unwrap();
        let rules = Preset::Othello.rules(Some(8)).unwrap();
        // 40 random plies: deeper than the search from the start is sure to find a line.
        let start = Game::<u64>::start(&rules);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let (mut opening, mut line) = (start.clone(), Vec::new());
        while line.len() < 40 {
            let legal = opening.legal_decisions(&rules);
            let decision = legal[rng.random_range(0..legal.len())];
            opening = opening.play(&rules, decision).unwrap();
            line.push(decision);
        }
        assert!(!opening.is_over());
        let mut agent =
            GtpAgent::<u64>::start(&rules, &format!("sh {}", script.display())).unwrap();
        agent.start_from(&start, &line);
        agent.synchronise(&opening).unwrap();
        let known = agent.known.as_ref().map(|game| game.to_text(&rules));
        assert_eq!(known, Some(opening.to_text(&rules)));
        drop(agent);
        let heard = std::fs::read_to_string(&log).unwrap();
        let plays: Vec<String> = heard
            .lines()
            .filter(|command| command.starts_with("play "))
            .map(|command| command.split_whitespace().nth(2).unwrap().to_owned())
            .collect();
        let mut position = start.clone();
        let names: Vec<String> = line
            .iter()
            .map(|&decision| {
                let name = notation::decision_name(&rules, position.geometry(), decision);
                position = position.play_unchecked(&rules, decision);
                name
            })
            .collect();
        assert_eq!(plays, names);
        assert!(heard.starts_with("boardsize 8\nclear_board\n"), "{heard}");
    }

    #[test]
    fn a_position_no_line_reaches_is_set_up_by_grhinos_command_or_a_loaded_game_file() {
        // Engines that log what they hear; one lists grhino-setup_board, one does not.
        let folder = tempfile::tempdir().unwrap();
        let engine = |name: &str, commands: &str| {
            let log = folder.path().join(format!("{name}.txt"));
            let script = folder.path().join(format!("{name}.sh"));
            std::fs::write(
                &script,
                format!(
                    "while read -r line; do\n  echo \"$line\" >> {log}\n  case \"$line\" in\n    \
                     list_commands) printf '= {commands}\\n\\n' ;;\n    \
                     loadsgf*) cat \"${{line#loadsgf }}\" >> {log}; echo >> {log}; \
                     printf '=\\n\\n' ;;\n    \
                     *) printf '=\\n\\n' ;;\n  esac\ndone\n",
                    log = log.display()
                ),
            )
            .unwrap();
            (format!("sh {}", script.display()), log)
        };
        let rules = Preset::Othello.rules(Some(8)).unwrap();
        let start = Game::<u64>::start(&rules);
        // The start and one more black disc, in a corner, White to move.
        let lonely = format!("X{}OX------XO{} O", "-".repeat(26), "-".repeat(27));
        let lonely = Game::<u64>::from_text(&rules, &lonely).unwrap();
        let (command, log) = engine("setup", "play\\ngrhino-setup_board");
        let mut agent = GtpAgent::<u64>::start(&rules, &command).unwrap();
        agent.start_from(&lonely, &[]);
        agent.synchronise(&lonely).unwrap();
        drop(agent);
        let heard = std::fs::read_to_string(&log).unwrap();
        let squares = format!("X{}OX......XO{}", ".".repeat(26), ".".repeat(27));
        assert_eq!(
            heard,
            format!(
                "boardsize 8\nclear_board\nlist_commands\ngrhino-setup_board {squares} w\nquit\n"
            )
        );
        // One that lists loadsgf (Edax) loads a GGF file of the position, and, since its
        // clear_board would then go back to that board, loads the start for the next game.
        let (command, log) = engine("load", "play\\nloadsgf");
        let mut agent = GtpAgent::<u64>::start(&rules, &command).unwrap();
        agent.start_from(&lonely, &[]);
        agent.synchronise(&lonely).unwrap();
        agent.start_from(&start, &[]);
        agent.synchronise(&start).unwrap();
        drop(agent);
        let heard: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(|line| {
                // The temporary file's name varies; its contents follow it in the log.
                match line.strip_prefix("loadsgf ") {
                    Some(path) if path.ends_with(".ggf") => "loadsgf FILE".to_owned(),
                    _ => line.to_owned(),
                }
            })
            .collect();
        assert_eq!(
            heard,
            [
                "boardsize 8",
                "clear_board",
                "list_commands",
                "loadsgf FILE",
                &crate::ggf::write_position(&rules, &lonely),
                "boardsize 8",
                "loadsgf FILE",
                &crate::ggf::write_position(&rules, &start),
                "quit",
            ]
        );
        let (command, _) = engine("plain", "play");
        let mut agent = GtpAgent::<u64>::start(&rules, &command).unwrap();
        agent.start_from(&lonely, &[]);
        let error = agent.synchronise(&lonely).unwrap_err();
        assert!(error.contains("no line of moves found"), "{error}");
        // The mover is the last word: Black at the start.
        assert_eq!(
            setup_board_command(&rules, &start).split(' ').nth(2),
            Some("b")
        );
    }

    #[test]
    fn deep_openings_are_reached_by_moves_from_the_start() {
        let rules = Preset::Othello.rules(Some(8)).unwrap();
        let start = Game::<u64>::start(&rules);
        for seed in 0..10 {
            // Random lines of 10 to 20 plies (the old breadth-first search gave up past 12;
            // this one visits some 200,000 positions for a line of 22 plies, and gives up
            // at PATH_NODES).
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut target = start.clone();
            let plies = rng.random_range(10..=20);
            for _ in 0..plies {
                let legal = target.legal_decisions(&rules);
                let next = target.play_unchecked(&rules, legal[rng.random_range(0..legal.len())]);
                if next.is_over() {
                    break;
                }
                target = next;
            }
            let line = path_between(&rules, &start, &target).unwrap_or_else(|| {
                panic!(
                    "seed {seed}: no line of {plies} plies to {}",
                    target.to_text(&rules)
                )
            });
            let mut replayed = start.clone();
            for decision in line {
                replayed = replayed.play(&rules, decision).unwrap();
            }
            assert_eq!(
                replayed.to_text(&rules),
                target.to_text(&rules),
                "seed {seed}"
            );
            // The same position read from a file, without the turns that led to it.
            let text = target.to_text(&rules);
            let board_and_mover = text
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            let from_file = Game::<u64>::from_text(&rules, &board_and_mover).unwrap();
            let line = path_between(&rules, &start, &from_file);
            assert!(line.is_some(), "seed {seed}: {board_and_mover}");
        }
        // A position no line reaches: the start and one more disc, in a corner.
        let lonely = format!("X{}OX------XO{} O", "-".repeat(26), "-".repeat(27));
        let lonely = Game::<u64>::from_text(&rules, &lonely).unwrap();
        assert_eq!(path_between(&rules, &start, &lonely), None);
    }
}
