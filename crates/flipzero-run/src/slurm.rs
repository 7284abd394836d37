//! Slurm job scripts for a run: a job array of self-play workers, a trainer that asks for a
//! GPU, and an evaluator that starts with the trainer. They are plain files in
//! `<run>/slurm/`, written to be read, edited and submitted by hand (`submit.sh`).

use std::path::{Path, PathBuf};

use flipzero_data::files::{FileError, write_atomically};
use flipzero_rundir::RunDir;

/// What to ask Slurm for.
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmPlan {
    /// The `flipzero` program the jobs run (a path every node can reach).
    pub program: PathBuf,
    /// The run directory (on a filesystem every node shares).
    pub run_dir: PathBuf,
    /// Self-play array tasks.
    pub workers: u32,
    /// At most this many array tasks at once (`%N`); all when `None`.
    pub throttle: Option<u32>,
    /// CPUs per self-play task.
    pub cpus_per_worker: u32,
    /// The trainer's generic resource request.
    pub trainer_gres: String,
    /// Partition, when the site wants one.
    pub partition: Option<String>,
    /// Time limit of every job (`HH:MM:SS` or Slurm's other forms).
    pub time_limit: String,
}

/// The scripts of a plan: (file name, contents), `submit.sh` last.
pub fn render(plan: &SlurmPlan) -> Vec<(&'static str, String)> {
    let program = shell_quote(&plan.program.display().to_string());
    let run = shell_quote(&plan.run_dir.display().to_string());
    let logs = RunDir::new(&plan.run_dir).job_logs();
    let common = |name: &str, log: &str| {
        let mut lines = vec![
            "#!/bin/bash".to_owned(),
            format!("#SBATCH --job-name=flipzero-{name}"),
            format!("#SBATCH --output={}", logs.join(log).display()),
            format!("#SBATCH --time={}", plan.time_limit),
        ];
        if let Some(partition) = &plan.partition {
            lines.push(format!("#SBATCH --partition={partition}"));
        }
        lines
    };
    let throttle = plan
        .throttle
        .map_or(String::new(), |most| format!("%{most}"));
    let mut selfplay = common("selfplay", "selfplay-%A_%a.log");
    selfplay.extend([
        format!("#SBATCH --array=0-{}{throttle}", plan.workers.max(1) - 1),
        format!("#SBATCH --cpus-per-task={}", plan.cpus_per_worker),
        String::new(),
        "# One self-play worker per array task. Its name in the shards is".to_owned(),
        "# <SLURM_ARRAY_JOB_ID>.<SLURM_ARRAY_TASK_ID>; it plays the newest checkpoint's games"
            .to_owned(),
        "# until the trainer marks the run finished. A requeued or restarted task goes on."
            .to_owned(),
        format!("exec {program} selfplay --run-dir {run} --follow"),
    ]);
    let mut train = common("train", "train-%j.log");
    train.extend([
        format!("#SBATCH --gres={}", plan.trainer_gres),
        "#SBATCH --cpus-per-task=2".to_owned(),
        String::new(),
        "# The trainer: trains an iteration each time an iteration's games have arrived,"
            .to_owned(),
        "# publishes checkpoints, and writes <run>/finished when the budget is spent.".to_owned(),
        format!("exec {program} train --run-dir {run} --follow"),
    ]);
    let mut evaluate = common("evaluate", "evaluate-%j.log");
    evaluate.extend([
        "#SBATCH --cpus-per-task=2".to_owned(),
        String::new(),
        "# The evaluator: plays each due checkpoint's evaluation match (submit.sh starts it"
            .to_owned(),
        "# after the trainer has started).".to_owned(),
        format!("exec {program} evaluate --run-dir {run} --follow"),
    ]);
    let submit = [
        "#!/bin/bash",
        "# Submits the run's jobs; edit the .sbatch files beside this one first if the site",
        "# needs other resources. Prints the job ids.",
        "set -euo pipefail",
        "cd \"$(dirname \"$0\")\"",
        "mkdir -p logs",
        "train=$(sbatch --parsable train.sbatch)",
        "selfplay=$(sbatch --parsable selfplay.sbatch)",
        "evaluate=$(sbatch --parsable --dependency=after:\"${train%%;*}\" --kill-on-invalid-dep=yes evaluate.sbatch)",
        "echo \"train ${train%%;*}\"",
        "echo \"selfplay ${selfplay%%;*}\"",
        "echo \"evaluate ${evaluate%%;*}\"",
    ];
    let join = |lines: Vec<String>| lines.join("\n") + "\n";
    vec![
        ("selfplay.sbatch", join(selfplay)),
        ("train.sbatch", join(train)),
        ("evaluate.sbatch", join(evaluate)),
        ("submit.sh", submit.join("\n") + "\n"),
    ]
}

/// Writes the scripts into `<run>/slurm/` (and its `logs/` folder); returns the folder.
///
/// # Errors
/// When a file cannot be written.
pub fn write_scripts(plan: &SlurmPlan) -> Result<PathBuf, FileError> {
    let run = RunDir::new(&plan.run_dir);
    let folder = run.slurm();
    // `#SBATCH` lines take no quoting, and `%` starts a file-name pattern there.
    let run_dir = plan.run_dir.display().to_string();
    if run_dir.contains(|c: char| c.is_whitespace() || c == '%') {
        return Err(FileError::invalid(
            &plan.run_dir,
            "Slurm job scripts need a run directory path without spaces or `%`",
        ));
    }
    for (what, value) in [
        ("--partition", plan.partition.as_deref().unwrap_or("")),
        ("--time", plan.time_limit.as_str()),
        ("--gres", plan.trainer_gres.as_str()),
    ] {
        if value.contains(char::is_whitespace) {
            return Err(FileError::invalid(
                &plan.run_dir,
                format!("{what} `{value}`: no spaces or line breaks"),
            ));
        }
    }
    let logs = run.job_logs();
    std::fs::create_dir_all(&logs).map_err(|e| FileError::io(&logs, e))?;
    for (name, text) in render(plan) {
        let path = folder.join(name);
        write_atomically(&path, text.as_bytes()).map_err(|e| FileError::io(&path, e))?;
        make_executable(&path)?;
    }
    Ok(folder)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), FileError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| FileError::io(path, e))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), FileError> {
    Ok(())
}

/// A word for a shell command line: as it is when safe, else in single quotes.
fn shell_quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+=:@%,".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> SlurmPlan {
        SlurmPlan {
            program: PathBuf::from("/opt/flipzero/bin/flipzero"),
            run_dir: PathBuf::from("/shared/runs/my run"),
            workers: 8,
            throttle: Some(4),
            cpus_per_worker: 2,
            trainer_gres: "gpu:1".to_owned(),
            partition: Some("cpu".to_owned()),
            time_limit: "02:00:00".to_owned(),
        }
    }

    #[test]
    fn scripts_ask_for_an_array_a_gpu_and_a_dependency() {
        let scripts = render(&plan());
        let text = |name: &str| {
            scripts
                .iter()
                .find(|(file, _)| *file == name)
                .map(|(_, text)| text.clone())
                .unwrap()
        };
        let selfplay = text("selfplay.sbatch");
        assert!(selfplay.contains("#SBATCH --array=0-7%4\n"), "{selfplay}");
        assert!(selfplay.contains("#SBATCH --cpus-per-task=2\n"));
        assert!(selfplay.contains("#SBATCH --partition=cpu\n"));
        assert!(selfplay.contains(
            "exec /opt/flipzero/bin/flipzero selfplay --run-dir '/shared/runs/my run' --follow"
        ));
        let train = text("train.sbatch");
        assert!(train.contains("#SBATCH --gres=gpu:1\n"), "{train}");
        assert!(train.contains("train --run-dir '/shared/runs/my run' --follow"));
        let submit = text("submit.sh");
        assert!(submit.contains("--dependency=after:"), "{submit}");
        assert!(submit.contains("--kill-on-invalid-dep=yes"));
        assert_eq!(scripts.last().unwrap().0, "submit.sh");
        let unthrottled = render(&SlurmPlan {
            throttle: None,
            ..plan()
        });
        assert!(unthrottled[0].1.contains("#SBATCH --array=0-7\n"));
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("/a/b-c_1.2"), "/a/b-c_1.2");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
