//! The NBoard server fed any byte stream: it answers every line and never stops
//! early (only a failed write ends a session with an error; a buffer never fails).
#![no_main]

use flipzero_arena::AgentSpec;
use flipzero_arena::protocol::{Protocol, SpecSource, serve};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A hint searches for up to 30 seconds (the limit at a GUI's depth): one an input keeps
    // each input within the fuzzer's timeout.
    if data.windows(4).filter(|w| *w == b"hint").count() > 1 {
        return;
    }
    // The random agent: the protocol is under test, not the search.
    let source = SpecSource {
        spec: AgentSpec::Random,
        device: Default::default(),
    };
    let mut input = std::io::Cursor::new(data);
    let mut output = Vec::new();
    serve(
        Protocol::Nboard,
        "othello",
        8,
        &source,
        &mut input,
        &mut output,
    )
    .expect("writing to a buffer cannot fail");
});
