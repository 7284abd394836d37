//! The NBoard server fed any byte stream: it answers every line and never stops early.
#![no_main]

use flipzero_arena::protocol::Protocol;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Each hint searches for the source's limit at a GUI's depth: one hint per input keeps
    // the fuzzer's executions quick.
    if data.windows(4).filter(|w| *w == b"hint").count() <= 1 {
        flipzero_fuzz::serve_bytes(Protocol::Nboard, data);
    }
});
