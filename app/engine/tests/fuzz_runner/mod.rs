//! The fuzz harnesses' runner, shared by the engine's and the server's test binaries (each
//! includes this file with `#[path]`): `SUNDIAL_FUZZ_CASES` inputs (default 256) per harness,
//! a failure shrunk and reported with its minimal input, the count printed when all passed.
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use std::sync::atomic::{AtomicU64, Ordering};

pub fn cases() -> u32 {
    std::env::var("SUNDIAL_FUZZ_CASES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(256)
}

/// Runs `body` on `cases()` inputs of `strategy`; a panic or a failed check is shrunk and
/// reported with the minimal input. Prints the count when all passed.
pub fn fuzz<S: Strategy>(name: &str, strategy: S, body: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let n = cases();
    let config = Config { failure_persistence: None, ..Config::with_cases(n) };
    let mut runner = TestRunner::new(config);
    let count = AtomicU64::new(0);
    let result = runner.run(&strategy, |v| {
        count.fetch_add(1, Ordering::Relaxed);
        body(v)
    });
    match result {
        Ok(()) => eprintln!("fuzz {name}: {} inputs, no panic", count.load(Ordering::Relaxed)),
        Err(TestError::Fail(why, input)) => panic!("fuzz {name}: {why}\nminimal input: {input:#?}"),
        Err(TestError::Abort(why)) => panic!("fuzz {name}: aborted: {why}"),
    }
}
