//! Agents behind the text protocols that Othello GUIs speak to engines: GTP (as Edax speaks
//! it: `boardsize`, `clear_board`, `play b d3`, `genmove w`, `undo`, `showboard`, ...) and
//! the NBoard protocol (`nboard 2`, `set game <GGF>`, `move F5`, `go`, `hint n`, `ping n`).
//! A malformed or illegal command gets a protocol error (`? ...` in GTP, a `status` line in
//! NBoard) and the session goes on.

use std::io::{BufRead, Read, Write};
use std::time::{Duration, Instant};

use flipzero_core::{Bitboard, Color, Game, Outcome, Rules, variant::notation, with_width};
use flipzero_engine::{Engine, SearchConfig, WeightsFile};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::agent::{Agent, AgentFactory, AgentSpec};
use crate::ggf;

/// Which protocol a session speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The Go Text Protocol, with Othello moves.
    Gtp,
    /// The NBoard GUI's protocol.
    Nboard,
}

/// What serves the moves: an agent for each board size the GUI asks for.
pub trait AgentSource {
    /// An agent for `rules`, or the reason there is none (a network trained for another
    /// board size).
    ///
    /// # Errors
    /// When these rules cannot be served.
    fn agent_for(&self, rules: &Rules, depth: Option<u32>) -> Result<AgentFactory, String>;

    /// The longest a search at a depth the GUI set may take: a move (when the agent's spec
    /// sets no time) or a whole hint.
    fn depth_time_limit(&self) -> Duration;
}

/// The longest an engine searches a move at a depth the GUI set, when its spec sets no time
/// (the last iteration finished by then decides), unless the source sets another.
pub const GUI_DEPTH_TIME_LIMIT: Duration = Duration::from_secs(30);

/// Any agent spec: engines follow the GUI's depth; a checkpoint serves its own rules only.
pub struct SpecSource {
    /// The agent.
    pub spec: AgentSpec,
    /// The device a network runs on.
    pub device: burn::tensor::Device,
    /// The longest a search at the GUI's depth takes (`GUI_DEPTH_TIME_LIMIT` by default).
    pub depth_time_limit: Duration,
}

impl SpecSource {
    /// `spec` on `device`, searching a GUI's depth for at most `GUI_DEPTH_TIME_LIMIT`.
    #[must_use]
    pub fn new(spec: AgentSpec, device: burn::tensor::Device) -> Self {
        Self {
            spec,
            device,
            depth_time_limit: GUI_DEPTH_TIME_LIMIT,
        }
    }
}

impl AgentSource for SpecSource {
    fn depth_time_limit(&self) -> Duration {
        self.depth_time_limit
    }

    fn agent_for(&self, rules: &Rules, depth: Option<u32>) -> Result<AgentFactory, String> {
        let spec = match (&self.spec, depth) {
            (AgentSpec::Engine(config), Some(depth)) => AgentSpec::Engine(SearchConfig {
                depth: depth.clamp(1, 64),
                // A deep depth from the GUI (NBoard's levels reach 60) still answers in time.
                time: Some(config.time.unwrap_or(self.depth_time_limit)),
                ..config.clone()
            }),
            (spec, _) => spec.clone(),
        };
        AgentFactory::new(&spec, rules, &self.device).map_err(|e| e.to_string())
    }
}

/// The state a session keeps between commands.
struct Session<W: Bitboard> {
    /// The preset name or rules file the session serves, at any board side.
    variant: String,
    rules: Rules,
    game: Game<W>,
    history: Vec<Game<W>>,
    agent: Box<dyn Agent<W>>,
    /// Each colour's clock (GTP `time_left`), for the agent's time per move.
    clock: [Option<Duration>; 2],
    depth: Option<u32>,
}

/// What a command asks of the loop around the session.
enum Next {
    Continue,
    Quit,
    /// Start again on another board side (the bitboard width may change).
    Resize(u8, Option<String>),
}

fn slot(color: Color) -> usize {
    usize::from(color == Color::White)
}

fn parse_color(text: &str) -> Option<Color> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// Serves one protocol session from `input` to `output` until `quit` or the end of input,
/// starting with `variant` on a board of side `size`.
///
/// # Errors
/// When `variant` has no board of side `size` or `source` cannot serve it (an
/// `InvalidInput` error, before anything is written: a GUI expects no unprompted line), or
/// when the output cannot be written (the GUI went away).
pub fn serve(
    protocol: Protocol,
    variant: &str,
    mut size: u8,
    source: &dyn AgentSource,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> std::io::Result<()> {
    let mut pending_game: Option<String> = None;
    loop {
        // Only the first side can fail: a resize is answered only after the side was found
        // servable.
        let rules = Rules::load(variant, Some(size)).map_err(|error| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{variant} on a board of side {size}: {error}"),
            )
        })?;
        let next = with_width!(rules.square_count(), W => {
            serve_with::<W>(protocol, variant, &rules, source, pending_game.take(), input, output)?
        });
        match next {
            Next::Quit | Next::Continue => return Ok(()),
            Next::Resize(side, game) => {
                size = side;
                pending_game = game;
            }
        }
    }
}

fn serve_with<W: Bitboard>(
    protocol: Protocol,
    variant: &str,
    rules: &Rules,
    source: &dyn AgentSource,
    pending_game: Option<String>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> std::io::Result<Next> {
    let factory = source.agent_for(rules, None).map_err(|reason| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "the agent cannot play {variant} on {}x{}: {reason}",
                rules.rows(),
                rules.cols()
            ),
        )
    })?;
    let start = Game::<W>::start(rules);
    let mut session = Session {
        variant: variant.to_owned(),
        rules: rules.clone(),
        game: start,
        history: Vec::new(),
        agent: factory.build::<W>(0),
        clock: [None; 2],
        depth: None,
    };
    if let Some(ggf) = pending_game {
        let reply = session.set_game(&ggf, source);
        write_reply(output, reply)?;
    }
    let mut line = Vec::new();
    loop {
        let text = match read_line(input, &mut line)? {
            Line::End => return Ok(Next::Quit),
            Line::Text(text) => text,
            Line::Refused(reason) => {
                write_reply(output, vec![error_line(protocol, None, &reason)])?;
                continue;
            }
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let next = match protocol {
            Protocol::Gtp => session.gtp(text, source, output)?,
            Protocol::Nboard => session.nboard(text, source, output)?,
        };
        output.flush()?;
        match next {
            Next::Continue => {}
            other => return Ok(other),
        }
    }
}

/// The longest command line read; GUIs send lines of a few hundred bytes (a GGF game of
/// 60 moves is about 1,500).
const MAX_LINE_BYTES: usize = 64 * 1024;

/// The longest clock a GUI may set, in seconds (a year): beyond it a clock is unlimited in
/// all but name, and `Duration` overflows on the infinite.
const MAX_CLOCK_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// One line of input, as the session reads it.
enum Line<'a> {
    /// The input ended.
    End,
    /// A line of text (with its line end).
    Text(&'a str),
    /// A line that is no command, with the reason (it was consumed whole).
    Refused(String),
}

/// Reads one line into `buffer`, at most [`MAX_LINE_BYTES`] of it kept: a longer line is
/// consumed to its end and refused, as is one that is not UTF-8.
fn read_line<'a>(input: &mut dyn BufRead, buffer: &'a mut Vec<u8>) -> std::io::Result<Line<'a>> {
    buffer.clear();
    let read = (&mut *input)
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buffer)?;
    if read == 0 {
        return Ok(Line::End);
    }
    if buffer.len() > MAX_LINE_BYTES && buffer.last() != Some(&b'\n') {
        // Skip the rest of the line, a bounded piece at a time.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let read = (&mut *input)
                .take(MAX_LINE_BYTES as u64)
                .read_until(b'\n', &mut rest)?;
            if read == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Line::Refused(format!(
            "syntax error: the line is longer than {MAX_LINE_BYTES} bytes"
        )));
    }
    match std::str::from_utf8(buffer) {
        Ok(text) => Ok(Line::Text(text)),
        Err(_) => Ok(Line::Refused(
            "syntax error: the line is not UTF-8 text".to_owned(),
        )),
    }
}

/// A clock's seconds as GUIs send them (`time_settings`, `time_left`): negative reads as 0
/// (a flag that fell), and anything not finite is refused.
fn clock_seconds(text: &str, usage: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|_| format!("syntax error: {usage}"))?;
    if !seconds.is_finite() {
        return Err(format!(
            "syntax error: {usage}: {text} is not a number of seconds"
        ));
    }
    Ok(Duration::from_secs_f64(
        seconds.clamp(0.0, MAX_CLOCK_SECONDS),
    ))
}

fn error_line(protocol: Protocol, id: Option<&str>, reason: &str) -> String {
    match protocol {
        Protocol::Gtp => format!("?{} {reason}\n", id.unwrap_or("")),
        Protocol::Nboard => format!("status error: {reason}"),
    }
}

fn write_reply(output: &mut dyn Write, lines: Vec<String>) -> std::io::Result<()> {
    for line in lines {
        writeln!(output, "{line}")?;
    }
    output.flush()
}

impl<W: Bitboard> Session<W> {
    fn rebuild_agent(&mut self, source: &dyn AgentSource) -> Result<(), String> {
        self.agent = source.agent_for(&self.rules, self.depth)?.build::<W>(0);
        Ok(())
    }

    /// Whether the session's variant exists on a board of side `side` and the agent can play
    /// it there: asked before a resize, so that a refusal is the command's own answer.
    fn servable_side(&self, side: u8, source: &dyn AgentSource) -> Result<(), String> {
        let rules = Rules::load(&self.variant, Some(side)).map_err(|e| e.to_string())?;
        source.agent_for(&rules, self.depth).map(|_| ())
    }

    /// Plays a move written as text (`d3`, `D3`, `pass`, `PA`).
    fn play_text(&mut self, text: &str) -> Result<(), String> {
        let lower = text.to_ascii_lowercase();
        let written = if lower == "pa" {
            "pass"
        } else {
            lower.as_str()
        };
        let (decisions, next) =
            notation::replay_decisions(&self.rules, &self.game, written).map_err(|e| e.reason)?;
        if decisions
            .iter()
            .any(|decision| matches!(decision, flipzero_core::Decision::TieBreak { .. }))
        {
            return Err("the seats after equal bids are drawn by the engine, not played".into());
        }
        self.advance(next);
        Ok(())
    }

    /// Moves the game on to `next`, drawing a chance event that follows (nobody is asked
    /// for it); each step can be undone.
    fn advance(&mut self, next: Game<W>) {
        self.history.push(std::mem::replace(&mut self.game, next));
        self.draw_chance();
    }

    /// A chance event pending is drawn, seeded by the position: taking it back and playing
    /// the same again draws the same, so an undo cannot re-roll it.
    fn draw_chance(&mut self) {
        let mut chance = ChaCha8Rng::seed_from_u64(self.game.hash());
        if let Some(outcome) = self.game.draw_chance(&self.rules, &mut chance) {
            let next = self.game.play_unchecked(&self.rules, outcome);
            self.history.push(std::mem::replace(&mut self.game, next));
        }
    }

    fn move_name(&self, game: &Game<W>, decision: flipzero_core::Decision) -> String {
        notation::decision_name(&self.rules, game.geometry(), decision)
    }

    /// The agent's decision for the side to move, with the time it took, or why it has none
    /// (an external engine behind this one failed).
    fn think(&mut self) -> Result<(flipzero_core::Decision, f64), String> {
        let mover = self.game.side_to_move();
        if let Some(left) = self.clock[slot(mover)] {
            self.agent.set_time_left(left, &self.game);
        }
        let started = Instant::now();
        let decision = self.agent.choose(&self.game)?;
        Ok((decision, started.elapsed().as_secs_f64()))
    }

    // ----- GTP -----

    fn gtp(
        &mut self,
        text: &str,
        source: &dyn AgentSource,
        output: &mut dyn Write,
    ) -> std::io::Result<Next> {
        let mut words: Vec<&str> = text.split_whitespace().collect();
        let id = words
            .first()
            .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
            .map(|w| (*w).to_owned());
        if id.is_some() {
            words.remove(0);
        }
        let id_text = id.as_deref().unwrap_or("");
        let (command, args) = match words.split_first() {
            Some((command, args)) => (command.to_ascii_lowercase(), args),
            None => {
                write!(output, "?{id_text} syntax error\n\n")?;
                return Ok(Next::Continue);
            }
        };
        let (reply, next) = match self.gtp_command(&command, args, source) {
            Ok((reply, next)) => (format!("={id_text} {reply}"), next),
            Err(reason) => (format!("?{id_text} {reason}"), Next::Continue),
        };
        write!(output, "{}\n\n", reply.trim_end())?;
        Ok(next)
    }

    fn gtp_command(
        &mut self,
        command: &str,
        args: &[&str],
        source: &dyn AgentSource,
    ) -> Result<(String, Next), String> {
        const COMMANDS: [&str; 17] = [
            "protocol_version",
            "name",
            "version",
            "known_command",
            "list_commands",
            "quit",
            "boardsize",
            "clear_board",
            "komi",
            "play",
            "genmove",
            "reg_genmove",
            "undo",
            "showboard",
            "final_score",
            "time_settings",
            "time_left",
        ];
        let arguments = |count: usize| {
            if args.len() == count {
                Ok(())
            } else {
                Err(format!("syntax error: {command} takes {count} argument(s)"))
            }
        };
        let done = |reply: String| Ok((reply, Next::Continue));
        match command {
            "protocol_version" => done("2".into()),
            "name" => done("flipzero".into()),
            "version" => done(env!("CARGO_PKG_VERSION").into()),
            "known_command" => {
                arguments(1)?;
                done(COMMANDS.contains(&args[0]).to_string())
            }
            "list_commands" => done(COMMANDS.join("\n")),
            "quit" => Ok((String::new(), Next::Quit)),
            "boardsize" => {
                arguments(1)?;
                let side: u8 = args[0]
                    .parse()
                    .map_err(|_| "syntax error: boardsize N".to_owned())?;
                if !(4..=16).contains(&side) || side % 2 == 1 {
                    return Err("unacceptable size".into());
                }
                if side == self.rules.rows() {
                    self.clear();
                    return done(String::new());
                }
                self.servable_side(side, source)
                    .map_err(|reason| format!("unacceptable size: {reason}"))?;
                Ok((String::new(), Next::Resize(side, None)))
            }
            "clear_board" => {
                self.clear();
                self.rebuild_agent(source)?;
                done(String::new())
            }
            "komi" => {
                arguments(1)?;
                args[0]
                    .parse::<f64>()
                    .map_err(|_| "syntax error: komi X".to_owned())?;
                // The rules fix the komi; GUIs send one anyway.
                done(String::new())
            }
            "play" => {
                arguments(2)?;
                let color = parse_color(args[0]).ok_or("syntax error: play COLOR MOVE")?;
                self.pass_for_the_other_side(color)?;
                if self.game.side_to_move() != color {
                    return Err("illegal move: it is not that colour's turn".into());
                }
                self.play_text(args[1])
                    .map_err(|reason| format!("illegal move: {reason}"))?;
                done(String::new())
            }
            "genmove" | "reg_genmove" => {
                arguments(1)?;
                let color = parse_color(args[0]).ok_or("syntax error: genmove COLOR")?;
                if self.game.is_over() {
                    return done("pass".into());
                }
                self.pass_for_the_other_side(color)?;
                if self.game.side_to_move() != color {
                    return Err("it is not that colour's turn".into());
                }
                let (decision, _) = self.think()?;
                let name = self.move_name(&self.game, decision).to_ascii_uppercase();
                if command == "genmove" {
                    self.advance(self.game.play_unchecked(&self.rules, decision));
                }
                done(name)
            }
            "undo" => {
                let mut game = self.history.pop().ok_or("cannot undo")?;
                // A drawn chance event goes back with the decision that led to it.
                while game.awaits_chance() {
                    match self.history.pop() {
                        Some(previous) => game = previous,
                        None => break,
                    }
                }
                self.game = game;
                done(String::new())
            }
            "showboard" => done(format!("\n{}", self.game.to_diagram(&self.rules))),
            "final_score" => {
                let score = self.game.score(&self.rules);
                done(match self.game.outcome(&self.rules) {
                    Some(Outcome::Draw) => "0".into(),
                    Some(Outcome::Win(Color::Black)) => format!("B+{}", score.abs()),
                    Some(Outcome::Win(Color::White)) => format!("W+{}", score.abs()),
                    None => return Err("the game is not over".into()),
                })
            }
            "time_settings" => {
                arguments(3)?;
                let main = clock_seconds(args[0], "time_settings MAIN BYO STONES")?;
                self.clock = [Some(main); 2];
                done(String::new())
            }
            "time_left" => {
                arguments(3)?;
                let color = parse_color(args[0]).ok_or("syntax error: time_left COLOR T S")?;
                let left = clock_seconds(args[1], "time_left COLOR T S")?;
                self.clock[slot(color)] = Some(left);
                done(String::new())
            }
            _ => Err("unknown command".into()),
        }
    }

    /// GTP GUIs send `play b ...` after a white move when White's opponent must pass:
    /// play that forced pass first.
    fn pass_for_the_other_side(&mut self, color: Color) -> Result<(), String> {
        if self.game.side_to_move() != color && !self.game.is_over() {
            let legal = self.game.legal_decisions(&self.rules);
            if legal == [flipzero_core::Decision::Pass] {
                self.play_text("pass")?;
            }
        }
        Ok(())
    }

    fn clear(&mut self) {
        self.game = Game::<W>::start(&self.rules);
        self.history.clear();
    }

    // ----- NBoard -----

    fn nboard(
        &mut self,
        text: &str,
        source: &dyn AgentSource,
        output: &mut dyn Write,
    ) -> std::io::Result<Next> {
        let mut words = text.split_whitespace();
        let command = words.next().unwrap_or("");
        let rest: Vec<&str> = words.collect();
        let lines = match (command, rest.as_slice()) {
            ("nboard", _) => vec!["set myname flipzero".to_owned()],
            ("quit", _) => return Ok(Next::Quit),
            ("ping", [n]) => vec![format!("pong {n}")],
            ("set", ["depth", depth]) => match depth.parse::<u32>() {
                Ok(depth) if depth >= 1 => {
                    self.depth = Some(depth);
                    match self.rebuild_agent(source) {
                        Ok(()) => Vec::new(),
                        Err(reason) => vec![format!("status error: {reason}")],
                    }
                }
                _ => vec![format!("status error: set depth {depth}: not a depth")],
            },
            ("set", ["game", ..]) => {
                let ggf = text.split_once("game").map_or("", |(_, g)| g.trim());
                match ggf::board_side(ggf) {
                    Some(side) if side != self.rules.rows() => {
                        match self.servable_side(side, source) {
                            Ok(()) => return Ok(Next::Resize(side, Some(ggf.to_owned()))),
                            Err(reason) => {
                                vec![format!(
                                    "status error: set game: board side {side}: {reason}"
                                )]
                            }
                        }
                    }
                    _ => self.set_game(ggf, source),
                }
            }
            ("set", ["contempt", ..]) => Vec::new(),
            ("move", [mv]) => {
                let name = mv.split('/').next().unwrap_or("");
                match self.play_text(name) {
                    Ok(()) => Vec::new(),
                    Err(reason) => vec![format!("status error: move {mv}: {reason}")],
                }
            }
            ("go", []) => {
                if self.game.is_over() {
                    vec!["status error: the game is over".to_owned()]
                } else {
                    match self.think() {
                        Ok((decision, seconds)) => {
                            let name = self.move_name(&self.game, decision).to_ascii_uppercase();
                            let name = if name == "PASS" {
                                "PA".to_owned()
                            } else {
                                name
                            };
                            vec![format!("=== {name}//{seconds:.2}")]
                        }
                        Err(reason) => vec![format!("status error: {reason}")],
                    }
                }
            }
            ("hint", [n]) => match n.parse::<usize>() {
                Ok(n) if n >= 1 => self.hint(n, source.depth_time_limit()),
                _ => vec![format!("status error: hint {n}: not a count")],
            },
            ("learn", []) => vec!["learned".to_owned()],
            _ => vec![format!("status error: unknown command `{text}`")],
        };
        for line in lines {
            writeln!(output, "{line}")?;
        }
        Ok(Next::Continue)
    }

    /// The classical engine's values of the best `n` moves, as `search` lines.
    fn hint(&mut self, n: usize, time_limit: Duration) -> Vec<String> {
        if self.game.is_over() {
            return vec!["status error: the game is over".to_owned()];
        }
        let Ok(weights) = WeightsFile::embedded().weights_for(&self.rules, "embedded weights")
        else {
            return vec!["status error: no evaluation for these rules".to_owned()];
        };
        let depth = self.depth.unwrap_or(6).min(12);
        // Bounded like a move at a GUI's depth (depth 12 on an open 8x8 board takes long):
        // the analysis searches each decision in turn, each with its share of the time.
        let decisions = self.game.legal_decisions(&self.rules).len().max(1) as u32;
        let config = SearchConfig {
            time: Some(time_limit / decisions),
            ..SearchConfig::default()
        };
        let mut engine = Engine::<W>::new(&self.rules, weights, config);
        let mut lines = vec!["status thinking".to_owned()];
        for value in engine.analyze(&self.game, depth).into_iter().take(n) {
            let name = self
                .move_name(&self.game, value.decision)
                .to_ascii_uppercase();
            let name = if name == "PASS" {
                "PA".to_owned()
            } else {
                name
            };
            lines.push(format!(
                "search {name} {:.2} 0 {}",
                f64::from(value.value) / 100.0,
                if value.exact {
                    "100%".to_owned()
                } else {
                    value.depth.to_string()
                }
            ));
        }
        lines.push("status".to_owned());
        lines
    }

    /// `set game`: the position at the end of a GGF game.
    fn set_game(&mut self, ggf: &str, source: &dyn AgentSource) -> Vec<String> {
        match ggf::read_to_end::<W>(&self.rules, ggf) {
            Ok((game, history)) => {
                self.game = game;
                self.history = history;
                self.draw_chance();
                match self.rebuild_agent(source) {
                    Ok(()) => Vec::new(),
                    Err(reason) => vec![format!("status error: {reason}")],
                }
            }
            Err(reason) => vec![format!("status error: set game: {reason}")],
        }
    }
}
