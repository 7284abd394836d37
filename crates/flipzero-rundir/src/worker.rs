//! Who wrote a shard: the names of self-play workers.

use std::fmt;

/// The name of a self-play worker in its shards' names: 1 to 64 letters, digits, `.`, `_`
/// or `-`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkerId(String);

impl WorkerId {
    /// A worker name.
    ///
    /// # Errors
    /// An empty or long name, or one with other characters.
    pub fn new(name: &str) -> Result<Self, String> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) {
            return Err(format!(
                "worker name `{name}`: use 1 to 64 letters, digits, `.`, `_` or `-`"
            ));
        }
        Ok(Self(name.to_owned()))
    }

    /// The identity Slurm gives a job: `<array job id>.<task id>` for a task of a job
    /// array, `<job id>` for a plain job; `None` outside Slurm.
    pub fn from_slurm() -> Option<Self> {
        Self::from_slurm_variables(|name| std::env::var(name).ok())
    }

    /// [`WorkerId::from_slurm`] with the variables read by `lookup`.
    fn from_slurm_variables(lookup: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let variable = |name: &str| lookup(name).filter(|v| !v.is_empty());
        let mut name = match (
            variable("SLURM_ARRAY_JOB_ID"),
            variable("SLURM_ARRAY_TASK_ID"),
        ) {
            (Some(job), Some(task)) => format!("{job}.{task}"),
            _ => variable("SLURM_JOB_ID")?,
        };
        // Several tasks of one job (`srun -n 4 ...`) need names of their own.
        let tasks: u32 = variable("SLURM_NTASKS")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        if tasks > 1 {
            name.push_str(&format!("-{}", variable("SLURM_PROCID")?));
        }
        Self::new(&name).ok()
    }

    /// The name as written in shard names.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for WorkerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_take_their_names_from_slurm_arrays() {
        fn name(pairs: &[(&str, &str)]) -> Option<WorkerId> {
            WorkerId::from_slurm_variables(|name| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| (*value).to_owned())
            })
        }
        let array = [
            ("SLURM_ARRAY_JOB_ID", "501"),
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_JOB_ID", "505"),
        ];
        assert_eq!(name(&array).unwrap().to_string(), "501.4");
        assert_eq!(name(&array[2..]).unwrap().to_string(), "505");
        assert_eq!(name(&[]), None);
        assert_eq!(name(&[("SLURM_JOB_ID", "")]), None);
        let steps = [
            ("SLURM_JOB_ID", "505"),
            ("SLURM_NTASKS", "4"),
            ("SLURM_PROCID", "2"),
        ];
        assert_eq!(name(&steps).unwrap().to_string(), "505-2");
    }
}
