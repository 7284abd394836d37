//! What the fuzz targets share: choosing rules from an input's first byte, and files for the
//! loaders that read paths.

use flipzero_arena::AgentSpec;
use flipzero_arena::protocol::{Protocol, SpecSource, serve};
use flipzero_core::{Preset, Rules};
use std::path::PathBuf;

/// The rules named by `selector`: one of the presets, at its default size or, where the
/// preset allows it, on 6x6 (the high bit).
pub fn rules_for(selector: u8) -> Rules {
    let preset = Preset::ALL[usize::from(selector & 0x7f) % Preset::ALL.len()];
    let small = selector & 0x80 != 0;
    small
        .then(|| preset.rules(Some(6)).ok())
        .flatten()
        .unwrap_or_else(|| preset.rules(None).expect("every preset has a default size"))
}

/// The input's first byte as a rules selector and the rest as text, when it is UTF-8.
pub fn rules_and_text(data: &[u8]) -> Option<(Rules, &str)> {
    let (&selector, rest) = data.split_first()?;
    Some((rules_for(selector), std::str::from_utf8(rest).ok()?))
}

/// `data` written to a file of this process (one per name), for loaders that read paths: in
/// memory (`/dev/shm`) where there is one, so that the fuzzer does not wait on a disk.
pub fn file_with(name: &str, data: &[u8]) -> PathBuf {
    let shared_memory = PathBuf::from("/dev/shm");
    let root = if shared_memory.is_dir() {
        shared_memory
    } else {
        std::env::temp_dir()
    };
    let directory = root.join(format!("flipzero-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    let path = directory.join(name);
    std::fs::write(&path, data).expect("a temporary file");
    path
}

/// `data` as it is and, where it is long enough to end with a checksum, with that checksum
/// made anew (`flipzero_data::files::seal`): a mutated file is almost always refused by its
/// checksum alone, and the loader beneath it should meet mutations too.
pub fn as_is_and_resealed(data: &[u8]) -> Vec<Vec<u8>> {
    let mut versions = vec![data.to_vec()];
    if let Some(split) = data.len().checked_sub(flipzero_data::files::CHECKSUM_BYTES) {
        let mut resealed = data[..split].to_vec();
        flipzero_data::files::seal(&mut resealed);
        versions.push(resealed);
    }
    versions
}

/// A config that checked, written back as TOML (`value` serialised) and read again by
/// `read_back`, must check and be the same config.
pub fn assert_toml_round_trip<T, E>(value: &T, read_back: impl FnOnce(&str) -> Result<T, E>)
where
    T: serde::Serialize + PartialEq + std::fmt::Debug,
    E: std::fmt::Display,
{
    let text = toml::to_string(value).expect("a checked config writes as TOML");
    match read_back(&text) {
        Ok(again) => assert_eq!(&again, value, "read back from:\n{text}"),
        Err(error) => panic!("a checked config, written as\n{text}\ndoes not read back: {error}"),
    }
}

/// An error must say what is wrong.
pub fn assert_explained(error: &impl std::fmt::Display) {
    assert!(
        !error.to_string().trim().is_empty(),
        "an error without a message"
    );
}

/// One engine session of `protocol` fed `data`, the random agent behind it (the protocol is
/// under test, not the search): it must end without a panic, only a failed write may end
/// it with an error (a buffer never fails), and what it writes keeps the protocol's framing
/// ([`assert_framed`]).
pub fn serve_bytes(protocol: Protocol, data: &[u8]) {
    // Searches at a GUI's depth (a hint) are cut short: the fuzzer looks for panics and
    // hangs, and a unit over 10 s counts as one.
    let source = SpecSource {
        depth_time_limit: std::time::Duration::from_millis(200),
        ..SpecSource::new(AgentSpec::Random, Default::default())
    };
    let mut input = std::io::Cursor::new(data);
    let mut output = Vec::new();
    serve(protocol, "othello", 8, &source, &mut input, &mut output)
        .expect("writing to a buffer cannot fail");
    assert_framed(protocol, &output);
}

/// What a server wrote is framed as its protocol says, whatever it was sent: UTF-8; in GTP,
/// responses that each begin with `=` or `?` and end with an empty line (a GUI that reads
/// one response per command stays in step); in NBoard, lines that each begin with one of the
/// protocol's reply words.
pub fn assert_framed(protocol: Protocol, output: &[u8]) {
    let text = std::str::from_utf8(output).expect("a server writes UTF-8");
    match protocol {
        Protocol::Gtp => {
            assert!(
                text.is_empty() || text.ends_with("\n\n"),
                "a GTP response not ended by an empty line: {text:?}"
            );
            for response in text.split_terminator("\n\n") {
                // A stray empty line would leave a piece that starts with a line end.
                assert!(
                    response.starts_with('=') || response.starts_with('?'),
                    "a GTP response that is neither `=` nor `?`: {response:?}"
                );
            }
        }
        Protocol::Nboard => {
            const REPLIES: [&str; 7] = [
                "set myname ",
                "pong ",
                "status",
                "=== ",
                "search ",
                "nodestats ",
                "learned",
            ];
            for line in text.lines() {
                assert!(
                    REPLIES.iter().any(|reply| line.starts_with(reply)),
                    "an NBoard line that is no reply: {line:?}"
                );
            }
        }
    }
}
