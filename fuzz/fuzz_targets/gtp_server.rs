//! The GTP server fed any byte stream: it answers every line and never stops early.
#![no_main]

use flipzero_arena::protocol::Protocol;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| flipzero_fuzz::serve_bytes(Protocol::Gtp, data));
