//! `flipzero tune`: fits the evaluation of one preset and board size and writes it into a
//! weights file: the linear weights (`--model linear`), or a pattern model beside the file
//! that adds to them (`--model patterns`), or the Multi-ProbCut lines of the search over
//! the profile's evaluation (`--model probcut`).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use flipzero_core::Rules;
use flipzero_engine::PatternModel;
use flipzero_engine::eval::{WeightsFile, identify_preset, profile_keys};
use flipzero_engine::fit_patterns::{PatternTuneConfig, PatternTuneReport, tune_patterns};
use flipzero_engine::probcut::{ProbCutTuneConfig, tune_probcut};
use flipzero_engine::tune::{TuneConfig, tune};

use super::engine_setup::weights_file;

/// Writes a weights file to `out` with every pattern model its profiles name beside it
/// (models read from elsewhere, or embedded, are copied), so that the file loads on its own.
fn write_weights(file: &WeightsFile, out: &Path) -> anyhow::Result<()> {
    let folder = output_folder(out);
    let named: BTreeSet<&String> = file
        .profiles
        .values()
        .filter_map(|profile| profile.patterns.as_ref())
        .collect();
    for name in named {
        let model = file
            .models
            .get(name)
            .with_context(|| format!("pattern model {name} was not read with the weights"))?;
        let path = folder.join(name);
        // A file that already holds the model (the usual case) is left as it is.
        if PatternModel::load(&path).is_ok_and(|existing| existing == **model) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        model
            .save(&path)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    flipzero_data::files::write_atomically(out, file.to_toml().as_bytes())
        .with_context(|| format!("writing {}", out.display()))
}

/// The folder of the weights file `out`, where its pattern models go.
fn output_folder(out: &Path) -> &Path {
    out.parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Arguments of `flipzero tune`.
#[derive(Debug, Args)]
pub(crate) struct TuneArgs {
    /// A variant preset name or a rules TOML file.
    #[arg(long, default_value = "othello")]
    variant: String,
    /// Board side, where the preset allows another.
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
    /// Positions to collect and label.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(50..=10_000_000))]
    positions: u64,
    /// Search depth of the labels above the solve threshold; with `--model probcut`, the
    /// deepest search whose lines are fitted (from 3).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Label exactly at this many empties or fewer.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(0..=24))]
    solve: u32,
    /// Ridge penalty, above 0: per sample for the linear weights (default 0.001), in
    /// positions for a pattern model's entries (default 5).
    #[arg(long, value_parser = positive_number)]
    ridge: Option<f64>,
    /// Seed of the games the positions come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What to fit: the linear weights, or a pattern model over them.
    #[arg(long, value_enum, default_value_t = Model::Linear)]
    model: Model,
    /// Stages of a pattern model (by discs on the board), or of the ProbCut lines.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=64))]
    stages: u32,
    /// Rounds of labelling and fitting a pattern model (later rounds label with the model).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    rounds: u32,
    /// Conjugate-gradient iterations per stage and round of a pattern fit.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    iterations: u32,
    /// Weights to start from (and to label with); else the `--out` file when it exists,
    /// else the embedded weights. The other profiles of this file are kept in the output.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Where to write the weights file with the fitted profile added (written to a
    /// temporary name, then renamed into place).
    #[arg(long, default_value = "configs/eval/weights.toml")]
    out: PathBuf,
}

/// What `flipzero tune` fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Model {
    /// The linear weights of the profile (its pattern model, fitted over the old ones, is
    /// dropped).
    Linear,
    /// A pattern model over the profile's linear weights, written beside the weights file.
    Patterns,
    /// Multi-ProbCut lines over the profile's whole evaluation (patterns included): how
    /// well a shallow search predicts a deep one, per depth and stage.
    Probcut,
}

pub(crate) fn run(args: &TuneArgs) -> anyhow::Result<()> {
    let rules = Rules::load(&args.variant, args.size)
        .with_context(|| format!("--variant {}", args.variant))?;
    let base = args
        .weights
        .as_deref()
        .or_else(|| args.out.exists().then_some(args.out.as_path()));
    let (file, name) = weights_file(base)?;
    let key = profile_keys(&rules).remove(0);
    if identify_preset(&rules).is_none() {
        eprintln!("note: these rules are no preset; the profile is stored as `{key}`");
    }
    match args.model {
        Model::Linear => fit_linear(args, &rules, file, &name, &key),
        Model::Patterns => fit_patterns(args, &rules, file, &name, &key),
        Model::Probcut => fit_probcut(args, &rules, file, &name, &key),
    }
}

/// The command line that reproduces a fit, for the notes.
fn command_line(args: &TuneArgs, rules: &Rules) -> String {
    let mut line = format!(
        "flipzero tune --variant {} --size {} --positions {} --depth {} --solve {} --seed {}",
        args.variant,
        rules.rows(),
        args.positions,
        args.depth,
        args.solve,
        args.seed
    );
    match args.model {
        Model::Linear => {}
        Model::Patterns => {
            line += &format!(
                " --model patterns --stages {} --rounds {} --iterations {}",
                args.stages, args.rounds, args.iterations
            );
        }
        Model::Probcut => line += &format!(" --model probcut --stages {}", args.stages),
    }
    if let Some(ridge) = args.ridge {
        line += &format!(" --ridge {ridge}");
    }
    line
}

fn fit_linear(
    args: &TuneArgs,
    rules: &Rules,
    mut file: WeightsFile,
    name: &str,
    key: &str,
) -> anyhow::Result<()> {
    let start = file.weights_for(rules, name)?;
    if start.patterns.is_some() {
        eprintln!(
            "note: the pattern model of `{key}` was fitted over the old linear weights and is \
             dropped; fit it again with --model patterns"
        );
    }
    let config = TuneConfig {
        positions: args.positions as usize,
        label_depth: args.depth,
        solve_empties: args.solve,
        ridge: args.ridge.unwrap_or(1e-3),
        seed: args.seed,
    };
    let started = Instant::now();
    let report = tune(rules, &start, &config)?;
    let seconds = started.elapsed().as_secs_f64();
    let note = format!(
        "{}: held-out error {:.2} -> {:.2} discs over {} samples ({} exact)",
        command_line(args, rules),
        report.held_out_error_before,
        report.held_out_error_after,
        report.training + report.held_out,
        report.exact_labels,
    );
    file.profiles
        .insert(key.to_owned(), report.weights.to_spec(note.clone()));
    let all_finite = report
        .weights
        .opening
        .iter()
        .chain(&report.weights.endgame)
        .all(|weight| weight.is_finite());
    anyhow::ensure!(
        all_finite,
        "the fit gave weights that are not finite; nothing was written"
    );
    write_weights(&file, &args.out)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{note}")?;
    writeln!(
        out,
        "profile `{key}` written to {} in {seconds:.1} s",
        args.out.display()
    )?;
    Ok(())
}

fn fit_patterns(
    args: &TuneArgs,
    rules: &Rules,
    mut file: WeightsFile,
    name: &str,
    key: &str,
) -> anyhow::Result<()> {
    let start = file.weights_for(rules, name)?;
    let config = PatternTuneConfig {
        positions: args.positions as usize,
        label_depth: args.depth,
        solve_empties: args.solve,
        stages: args.stages,
        ridge: args.ridge.unwrap_or(5.0),
        iterations: args.iterations,
        rounds: args.rounds,
        seed: args.seed,
    };
    let started = Instant::now();
    let report: PatternTuneReport = tune_patterns(rules, &start, &config)?;
    let seconds = started.elapsed().as_secs_f64();
    let errors: Vec<String> = report
        .error_by_round
        .iter()
        .map(|error| format!("{error:.2}"))
        .collect();
    let note = format!(
        "{}: held-out error {} discs (start, then each round) over {} positions of other games; \
         {} training positions from {} games in all, {} exact labels; {seconds:.0} s",
        command_line(args, rules),
        errors.join(" -> "),
        report.held_out,
        report.training,
        report.games,
        report.exact_labels,
    );
    let model_name = format!("patterns/{}.fzp", key.replace('/', "-"));
    file.models.insert(
        model_name.clone(),
        Arc::new(report.model.with_note(note.clone())),
    );
    // The linear weights stay as they are (the tables were fitted over them).
    let mut profile = file
        .profiles
        .get(key)
        .cloned()
        .unwrap_or_else(|| start.to_spec("linear weights of the fallback profile".to_owned()));
    let linear_note = profile
        .note
        .split(" | patterns: ")
        .next()
        .unwrap_or("")
        .to_owned();
    profile.note = format!("{linear_note} | patterns: {note}");
    profile.patterns = Some(model_name.clone());
    // Multi-ProbCut lines predict one evaluation's deep values from its shallow ones.
    if profile.probcut.take().is_some() {
        eprintln!(
            "note: the profile's Multi-ProbCut lines were fitted over the old tables and are \
             dropped; refit them with --model probcut"
        );
    }
    file.profiles.insert(key.to_owned(), profile);
    write_weights(&file, &args.out)?;
    let model_path = output_folder(&args.out).join(&model_name);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{note}")?;
    writeln!(out, "held-out error by stage (discs, root mean square):")?;
    writeln!(out, "stage  empties  positions  before  after")?;
    for stage in &report.by_stage {
        writeln!(
            out,
            "{:>5}  {:>3}-{:<3}  {:>9}  {:>6.2}  {:>5.2}",
            stage.stage,
            stage.empties.0,
            stage.empties.1,
            stage.positions,
            stage.before,
            stage.after
        )?;
    }
    writeln!(
        out,
        "profile `{key}` written to {} and its model to {} ({} bytes)",
        args.out.display(),
        model_path.display(),
        std::fs::metadata(&model_path).map_or(0, |metadata| metadata.len())
    )?;
    Ok(())
}

fn fit_probcut(
    args: &TuneArgs,
    rules: &Rules,
    mut file: WeightsFile,
    name: &str,
    key: &str,
) -> anyhow::Result<()> {
    let start = file.weights_for(rules, name)?;
    anyhow::ensure!(
        args.depth >= flipzero_engine::probcut::MIN_DEPTH,
        "--depth {}: ProbCut lines need a deepest depth of at least {}",
        args.depth,
        flipzero_engine::probcut::MIN_DEPTH
    );
    let config = ProbCutTuneConfig {
        positions: args.positions as usize,
        deepest: args.depth,
        stages: args.stages,
        solve_empties: args.solve,
        seed: args.seed,
    };
    let started = Instant::now();
    let report = tune_probcut(rules, &start, &config)?;
    let seconds = started.elapsed().as_secs_f64();
    let note = format!(
        "{}: {} positions searched to depths 1-{}; {seconds:.0} s",
        command_line(args, rules),
        report.positions,
        args.depth
    );
    // The evaluation stays as it is (the lines were fitted over it): the profile that
    // served, copied under this key when it was a fallback.
    let mut profile = profile_keys(rules)
        .iter()
        .find_map(|k| file.profiles.get(k))
        .cloned()
        .context("the weights have no profile for these rules")?;
    profile.probcut = Some(flipzero_engine::probcut::ProbCutSpec {
        note: note.clone(),
        ..report.spec
    });
    file.profiles.insert(key.to_owned(), profile);
    write_weights(&file, &args.out)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{note}")?;
    writeln!(
        out,
        "deep = slope x shallow + intercept (centi-discs), by depth and stage:"
    )?;
    writeln!(
        out,
        "depth  shallow  stage  empties  positions   slope  intercept   sigma  |deep-shallow|"
    )?;
    for fit in &report.fits {
        writeln!(
            out,
            "{:>5}  {:>7}  {:>5}  {:>3}-{:<3}  {:>9}  {:>6.3}  {:>9.1}  {:>6.1}  {:>14.1}",
            fit.depth,
            fit.line.shallow,
            fit.stage,
            fit.empties.0,
            fit.empties.1,
            fit.positions,
            fit.line.slope,
            fit.line.intercept,
            fit.line.sigma,
            fit.raw_error
        )?;
    }
    writeln!(
        out,
        "profile `{key}` written to {} in {seconds:.1} s; the engine cuts with `probcut=SIGMAS`",
        args.out.display()
    )?;
    Ok(())
}

fn positive_number(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("`{text}` is not a number above 0")),
    }
}
