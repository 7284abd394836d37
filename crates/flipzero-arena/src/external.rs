//! An external engine as an agent: a process that speaks GTP on its stdin and stdout
//! (Edax, or `flipzero engine --protocol gtp`). The agent tells it the moves played since
//! it last moved and asks `genmove`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use flipzero_core::{Bitboard, Color, Decision, Game, Rules, notation};

use crate::agent::Agent;

/// A GTP engine process playing one game.
pub struct GtpAgent<W: Bitboard> {
    rules: Rules,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    /// The position the engine has been told about, once a game has begun.
    known: Option<Game<W>>,
    /// The time for the next move, sent as `time_left`.
    move_time: Option<Duration>,
}

impl<W: Bitboard> GtpAgent<W> {
    /// Starts `command` (split at whitespace: program and arguments).
    ///
    /// # Errors
    /// When the program cannot be started.
    pub fn start(rules: &Rules, command: &str) -> std::io::Result<Self> {
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
        Ok(Self {
            rules: rules.clone(),
            child,
            input,
            output,
            known: None,
            move_time: None,
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
        writeln!(self.input, "{command}")
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("the engine went away: {e}"))?;
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            let read = self
                .output
                .read_line(&mut line)
                .map_err(|e| format!("reading the engine: {e}"))?;
            if read == 0 {
                return Err(format!("the engine closed its output after `{command}`"));
            }
            if line.trim().is_empty() {
                if answer.is_empty() {
                    continue;
                }
                break;
            }
            answer.push_str(&line);
        }
        let answer = answer.trim();
        match answer.chars().next() {
            Some('=') => Ok(answer[1..].trim().to_owned()),
            _ => Err(format!("`{command}`: {answer}")),
        }
    }

    /// The decisions that lead from `from` to `to`, found by a breadth-first search over
    /// legal decisions (the opponent's moves and passes since our last move, or the plies
    /// of an opening).
    fn path(&self, from: &Game<W>, to: &Game<W>) -> Option<Vec<Decision>> {
        let target = to.hash();
        let mut frontier = vec![(from.clone(), Vec::new())];
        for _ in 0..=12 {
            let mut next = Vec::new();
            for (game, path) in frontier {
                if game.hash() == target {
                    return Some(path);
                }
                if game.is_over() {
                    continue;
                }
                for decision in game.legal_decisions(&self.rules) {
                    let mut longer = path.clone();
                    longer.push(decision);
                    next.push((game.play_unchecked(&self.rules, decision), longer));
                }
            }
            if next.len() > 200_000 {
                return None;
            }
            frontier = next;
        }
        None
    }

    fn color_name(color: Color) -> &'static str {
        match color {
            Color::Black => "b",
            Color::White => "w",
        }
    }

    fn synchronise(&mut self, game: &Game<W>) -> Result<(), String> {
        let known = match self.known.take() {
            Some(known) => known,
            None => {
                self.ask(&format!("boardsize {}", self.rules.rows()))?;
                self.ask("clear_board")?;
                Game::<W>::start(&self.rules)
            }
        };
        let path = self
            .path(&known, game)
            .ok_or("the position is not reachable from the engine's")?;
        let mut position = known;
        for decision in path {
            let name = notation::decision_name(&self.rules, position.geometry(), decision);
            let color = Self::color_name(position.side_to_move());
            self.ask(&format!("play {color} {name}"))?;
            position = position.play_unchecked(&self.rules, decision);
        }
        self.known = Some(position);
        Ok(())
    }

    fn generate(&mut self, game: &Game<W>) -> Result<Decision, String> {
        self.synchronise(game)?;
        let color = Self::color_name(game.side_to_move());
        if let Some(time) = self.move_time {
            // The engine spreads its remaining time: give it one move's share times the moves.
            let moves_left = (game.empty().count() / 2).max(1);
            let seconds = (time * moves_left).as_secs_f64();
            self.ask(&format!("time_left {color} {seconds:.0} 0"))?;
        }
        let answer = self.ask(&format!("genmove {color}"))?;
        let played = notation::replay(&self.rules, game, &answer.to_ascii_lowercase())
            .map_err(|e| format!("genmove answered `{answer}`: {}", e.reason))?;
        let decision = game
            .legal_decisions(&self.rules)
            .into_iter()
            .find(|&d| game.play_unchecked(&self.rules, d).hash() == played.hash())
            .ok_or("no legal decision matches the engine's move")?;
        self.known = Some(played);
        Ok(decision)
    }
}

impl<W: Bitboard> Agent<W> for GtpAgent<W> {
    /// # Panics
    /// When the engine fails (a broken process is a defect of the match set-up, reported
    /// with the engine's own words).
    fn choose(&mut self, game: &Game<W>) -> Decision {
        self.generate(game)
            .unwrap_or_else(|reason| panic!("external engine: {reason}"))
    }

    fn set_move_time(&mut self, time: Duration) {
        self.move_time = Some(time);
    }
}

impl<W: Bitboard> Drop for GtpAgent<W> {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let _ = self.child.wait();
    }
}
