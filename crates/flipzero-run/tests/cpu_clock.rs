//! The CPU clock of `[loop] cpu_clock_cores`. Alone in its test binary: the clock counts
//! the whole process, so tests running beside it in other threads would move it.

use burn::tensor::Device;
use flipzero_run::{Run, RunConfig, RunDir};

const TINY: &str = include_str!("tiny.toml");

/// This thread's CPU time in seconds.
fn thread_cpu_seconds() -> f64 {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// Keeps this thread busy until it has spent `seconds` of CPU time (counted in CPU time, not
/// wall time, so that a loaded machine, which gives the thread less of each second, does
/// not change what the run's clock must show).
fn spin(seconds: f64) {
    let started = thread_cpu_seconds();
    let mut x = 0u64;
    while thread_cpu_seconds() - started < seconds {
        for _ in 0..10_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
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
    // A second of one busy core is half a second on a clock of two cores (a little more
    // for what the process's other threads did meanwhile).
    spin(1.0);
    let worked = run.elapsed_seconds() - before - slept;
    assert!((0.5..=0.7).contains(&worked), "{worked}");

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
