//! The agents the page plays against and the analysis it draws: the arena's agents, within
//! limits that keep one request from holding the machine (and never an external engine,
//! which would run a command line from a request).

use std::time::{Duration, Instant};

use burn::tensor::Device;
use flipzero_arena::{AgentFactory, AgentSpec};
use flipzero_core::{AnyGame, Rules};
use flipzero_engine::{AnyEngine, SearchConfig, WeightsFile};
use flipzero_mcts::evaluate_game;
use flipzero_nn::NetEvaluator;
use serde::{Deserialize, Serialize};

use crate::games::{ApiError, GameRequest, StateView, preset_rules, replayed};
use crate::models::Models;

/// The longest time a request may ask an agent to think: every engine search runs under it.
const MOST_SECONDS: f64 = 30.0;
/// The deepest analysis a request may ask for.
const MOST_DEPTH: u32 = 16;
/// The most empties the engine and MCTS leaves may be asked to solve exactly (the solver
/// does not watch the clock; 20 empties take about a second on 8x8).
const MOST_SOLVE_EMPTIES: u32 = 20;
/// The most empties `perfect` plays from (24 empties: seconds on 6x6 and 8x8).
const MOST_PERFECT_EMPTIES: u32 = 24;
/// The most MCTS simulations a decision.
const MOST_SIMULATIONS: u32 = 20_000;
/// The engine's largest transposition table (2^bits entries).
const MOST_TABLE_BITS: u32 = 24;

/// An agent's move asked for.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentRequest {
    /// The game, not over.
    pub game: GameRequest,
    /// The agent, as the arena names it (`engine:depth=4`, `random`, `perfect`,
    /// `mcts:checkpoint=NAME,simulations=200` with NAME inside the models directory).
    pub agent: String,
    /// Seed of the agent's random choices.
    #[serde(default)]
    pub seed: u64,
}

/// The agent's decision and the game after it.
#[derive(Clone, Debug, Serialize)]
pub struct AgentMove {
    /// The decision, in move-list notation.
    pub decision: String,
    /// How long the agent took.
    pub seconds: f64,
    /// The game after it.
    pub state: StateView,
}

fn too_much(what: &str) -> ApiError {
    ApiError::bad(format!("the server does not {what}"))
}

/// The agent of `text`, prepared for `rules`, with its checkpoint from `models`.
fn agent_factory(
    text: &str,
    rules: &Rules,
    models: &Models,
    device: &Device,
) -> Result<AgentFactory, ApiError> {
    let spec: AgentSpec = text
        .parse()
        .map_err(|error: flipzero_arena::agent::AgentSpecError| ApiError::bad(error.to_string()))?;
    match &spec {
        AgentSpec::Gtp(_) | AgentSpec::NBoard(_) => {
            return Err(too_much(
                "start external engines (`gtp:` and `nboard:` agents run a command line)",
            ));
        }
        AgentSpec::Engine(config) => {
            check_search(config)?;
            // Every engine search runs under the server's clock.
            let limit = Duration::from_secs_f64(MOST_SECONDS);
            let bounded = SearchConfig {
                time: Some(config.time.map_or(limit, |time| time.min(limit))),
                ..config.clone()
            };
            return AgentFactory::new(&AgentSpec::Engine(bounded), rules, device)
                .map_err(|error| ApiError::bad(error.to_string()));
        }
        AgentSpec::Mcts(mcts) => {
            if mcts.play.simulations > MOST_SIMULATIONS {
                return Err(too_much(&format!(
                    "search over {MOST_SIMULATIONS} simulations"
                )));
            }
            if mcts.play.solve_empties > MOST_SOLVE_EMPTIES {
                return Err(too_much(&format!(
                    "solve leaves with more than {MOST_SOLVE_EMPTIES} empty squares"
                )));
            }
            check_time(mcts.time)?;
            if let Some(name) = &mcts.checkpoint {
                let name = name.to_string_lossy();
                let net = models.network(&name, rules, device)?;
                let weights = WeightsFile::embedded()
                    .weights_for(rules, "embedded weights")
                    .map_err(|error| ApiError::bad(error.to_string()))?;
                return Ok(AgentFactory::with_network(
                    &spec,
                    rules,
                    weights,
                    Some((net, device.clone())),
                ));
            }
        }
        AgentSpec::Random | AgentSpec::Greedy | AgentSpec::Perfect => {}
    }
    AgentFactory::new(&spec, rules, device).map_err(|error| ApiError::bad(error.to_string()))
}

fn check_time(time: Option<Duration>) -> Result<(), ApiError> {
    if time.is_some_and(|time| time.as_secs_f64() > MOST_SECONDS) {
        return Err(too_much(&format!(
            "think over {MOST_SECONDS} seconds a decision"
        )));
    }
    Ok(())
}

fn check_search(config: &SearchConfig) -> Result<(), ApiError> {
    check_time(config.time)?;
    if config.solve_empties > MOST_SOLVE_EMPTIES || config.end_search_empties > MOST_SOLVE_EMPTIES {
        return Err(too_much(&format!(
            "solve positions with more than {MOST_SOLVE_EMPTIES} empty squares"
        )));
    }
    if config.table_bits > MOST_TABLE_BITS {
        return Err(too_much(&format!(
            "allocate tables over 2^{MOST_TABLE_BITS} entries"
        )));
    }
    Ok(())
}

/// The agent's next decision in the game of `request`.
///
/// # Errors
/// A bad game or agent, a game that is over, `perfect` too far from the end, an agent that
/// fails.
pub fn agent_move(
    request: &AgentRequest,
    models: &Models,
    device: &Device,
) -> Result<AgentMove, ApiError> {
    let rules = preset_rules(&request.game.variant, request.game.size)?;
    let factory = agent_factory(&request.agent, &rules, models, device)?;
    let (game, mut canonical) = replayed(&rules, &request.game)?;
    if game.is_over() {
        return Err(ApiError::illegal("the game is over: no decision to choose"));
    }
    if matches!(factory.spec(), AgentSpec::Perfect) && game.empty_count() > MOST_PERFECT_EMPTIES {
        return Err(too_much(&format!(
            "play `perfect` with more than {MOST_PERFECT_EMPTIES} empty squares (it would take too long): choose another agent for the opening"
        )));
    }
    let started = Instant::now();
    let failed = |reason: String| ApiError {
        status: 500,
        message: format!("agent `{}`: {reason}", request.agent),
    };
    let decision = factory.choose_once(request.seed, &game).map_err(failed)?;
    let seconds = started.elapsed().as_secs_f64();
    let name = game.decision_name(&rules, decision);
    canonical.decisions.push(name.clone());
    Ok(AgentMove {
        decision: name,
        seconds,
        state: crate::games::state(&canonical)?,
    })
}

/// The analysis asked for.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// The game, not over.
    pub game: GameRequest,
    /// The engine's search depth for each decision (0: no engine values).
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// A checkpoint inside the models directory whose policy and value to show.
    #[serde(default)]
    pub network: Option<String>,
}

fn default_depth() -> u32 {
    4
}

/// One decision's values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionAnalysis {
    /// The decision, in move-list notation.
    pub name: String,
    /// The engine's value for the side to move in discs (final margin, komi counted).
    pub value: Option<f64>,
    /// Whether that value is exact.
    pub exact: bool,
    /// The network's prior probability.
    pub prior: Option<f32>,
}

/// The values of every legal decision, and the network's view of the position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    /// Every legal decision.
    pub decisions: Vec<DecisionAnalysis>,
    /// The network's expected result for the side to move, in [-1, 1].
    pub network_value: Option<f32>,
    /// The network's expected final margin for the side to move, in discs, positive when
    /// good for it under the objective (under fewest-discs rules, its lead in discs fewer),
    /// komi left out.
    pub network_margin: Option<f32>,
    /// How long the analysis took.
    pub seconds: f64,
}

/// The engine's and the network's values of every legal decision of the game.
///
/// # Errors
/// A bad game, a game that is over, a depth over the limit, a checkpoint that cannot be
/// used.
pub fn analyze(
    request: &AnalyzeRequest,
    models: &Models,
    device: &Device,
) -> Result<Analysis, ApiError> {
    if request.depth > MOST_DEPTH {
        return Err(too_much(&format!("analyze deeper than {MOST_DEPTH}")));
    }
    let rules = preset_rules(&request.game.variant, request.game.size)?;
    let net = match &request.network {
        Some(name) => Some(models.network(name, &rules, device)?),
        None => None,
    };
    let (game, _) = replayed(&rules, &request.game)?;
    if game.is_over() {
        return Err(ApiError::illegal(
            "the game is over: there is nothing to analyze",
        ));
    }
    let started = Instant::now();
    let legal = game.legal_decisions(&rules);
    let mut decisions: Vec<DecisionAnalysis> = legal
        .iter()
        .map(|&decision| DecisionAnalysis {
            name: game.decision_name(&rules, decision),
            value: None,
            exact: false,
            prior: None,
        })
        .collect();
    let mut network_value = None;
    let mut network_margin = None;
    if request.depth > 0 {
        engine_values(&rules, &game, request.depth, &mut decisions)?;
    }
    if let Some(net) = &net {
        let mut evaluator = NetEvaluator::new(&rules, net, device);
        let evaluation = evaluate_game(&mut evaluator, &rules, &game)
            .ok_or_else(|| ApiError::bad("the network gave no evaluation"))?;
        for (entry, prior) in decisions.iter_mut().zip(evaluation.priors) {
            entry.prior = Some(prior);
        }
        network_value = Some(evaluation.value);
        network_margin = Some(evaluation.score * rules.square_count() as f32);
    }
    Ok(Analysis {
        decisions,
        network_value,
        network_margin,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn engine_values(
    rules: &Rules,
    game: &AnyGame,
    depth: u32,
    decisions: &mut [DecisionAnalysis],
) -> Result<(), ApiError> {
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded weights")
        .map_err(|error| ApiError::bad(error.to_string()))?;
    // The engine's clock runs per decision: the server's limit is shared among them.
    let decisions_to_value = decisions.len().max(1) as f64;
    let config = SearchConfig {
        depth,
        solve_empties: 14,
        end_search_empties: 4,
        time: Some(Duration::from_secs_f64(
            (MOST_SECONDS / decisions_to_value).max(0.05),
        )),
        ..SearchConfig::default()
    };
    let mut engine = AnyEngine::new(rules, weights, config);
    for value in engine.analyze(game, depth) {
        let name = game.decision_name(rules, value.decision);
        if let Some(entry) = decisions.iter_mut().find(|entry| entry.name == name) {
            entry.value = Some(f64::from(value.value) / 100.0);
            entry.exact = value.exact;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{StartRequest, start};

    fn start_6x6() -> GameRequest {
        start(&StartRequest {
            variant: "othello".into(),
            size: Some(6),
            seed: 0,
        })
        .unwrap()
        .game
    }

    fn ask(agent: &str) -> Result<AgentMove, ApiError> {
        agent_move(
            &AgentRequest {
                game: start_6x6(),
                agent: agent.into(),
                seed: 0,
            },
            &Models::new(None).unwrap(),
            &Device::default(),
        )
    }

    #[test]
    fn an_engine_answers_with_a_legal_decision() {
        let played = ask("engine:depth=2").unwrap();
        assert_eq!(played.state.game.decisions, vec![played.decision.clone()]);
        assert_eq!(played.state.side_to_move, "white");
    }

    #[test]
    fn external_engines_and_unbounded_searches_are_refused() {
        for agent in [
            "gtp:/bin/sh -c 'touch /tmp/owned'",
            "nboard:edax",
            "engine:solve=40",
            "engine:time=1000",
            "mcts:simulations=1000000",
            "mcts:solve=24",
            "mcts:checkpoint=run.ckpt",
            "nonsense",
        ] {
            let error = ask(agent).unwrap_err();
            assert_eq!(error.status, 400, "{agent}: {}", error.message);
        }
        // Perfect play from the 6x6 start (32 empties) would take a minute.
        assert!(
            ask("perfect")
                .unwrap_err()
                .message
                .contains("empty squares")
        );
    }

    #[test]
    fn the_engine_scores_every_legal_decision() {
        let analysis = analyze(
            &AnalyzeRequest {
                game: start_6x6(),
                depth: 3,
                network: None,
            },
            &Models::new(None).unwrap(),
            &Device::default(),
        )
        .unwrap();
        assert_eq!(analysis.decisions.len(), 4);
        assert!(analysis.decisions.iter().all(|entry| entry.value.is_some()));
        assert!(analysis.network_value.is_none());
    }
}
