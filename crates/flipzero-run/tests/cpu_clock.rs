//! The CPU clock of `[loop] cpu_clock_cores`. Alone in its test binary: the clock counts
//! the whole process, so tests running beside it in other threads would move it.

use burn::tensor::Device;
use flipzero_run::{Run, RunConfig, RunDir};

const TINY: &str = include_str!("tiny.toml");

/// Keeps this thread busy for `seconds` of wall time.
fn spin(seconds: f64) {
    let started = std::time::Instant::now();
    let mut x = 0u64;
    while started.elapsed().as_secs_f64() < seconds {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
}

#[test]
fn a_cpu_clock_counts_work_not_waiting() {
    let folder = tempfile::tempdir().unwrap();
    let text = TINY.replace("[loop]\n", "[loop]\ncpu_clock_cores = 2\n");
    let config = folder.path().join("cpu.toml");
    std::fs::write(&config, text).unwrap();
    let run = Run::start(
        RunDir::new(folder.path().join("run")),
        &config,
        Device::flex(),
    )
    .unwrap();
    let before = run.elapsed_seconds();
    // Sleeping spends no CPU time: the run's clock stands (nearly) still.
    std::thread::sleep(std::time::Duration::from_millis(400));
    let slept = run.elapsed_seconds() - before;
    assert!(slept < 0.1, "{slept}");
    // A second of one busy core is half a second on a clock of two cores.
    spin(1.0);
    let worked = run.elapsed_seconds() - before - slept;
    assert!((0.3..=0.7).contains(&worked), "{worked}");

    // The wall clock counts the sleep.
    let wall_config = folder.path().join("wall.toml");
    std::fs::write(&wall_config, TINY).unwrap();
    let wall = Run::start(
        RunDir::new(folder.path().join("wall")),
        &wall_config,
        Device::flex(),
    )
    .unwrap();
    let before = wall.elapsed_seconds();
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert!(wall.elapsed_seconds() - before >= 0.4);
    // A bad core count is named.
    let zero = folder.path().join("zero.toml");
    std::fs::write(
        &zero,
        TINY.replace("[loop]\n", "[loop]\ncpu_clock_cores = 0\n"),
    )
    .unwrap();
    let error = RunConfig::load(&zero).unwrap_err().to_string();
    assert!(error.contains("loop.cpu_clock_cores"), "{error}");
}
