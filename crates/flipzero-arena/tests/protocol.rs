//! The GTP and NBoard sessions against hostile input: every bad line gets a protocol error
//! in the protocol's own framing, and the session answers the next command.

use std::io::Cursor;
use std::time::Duration;

use flipzero_arena::AgentSpec;
use flipzero_arena::protocol::{AgentSource, GUI_DEPTH_TIME_LIMIT, Protocol, SpecSource, serve};
use flipzero_core::Preset;
use flipzero_engine::SearchConfig;

fn engine_source(depth: u32) -> SpecSource {
    SpecSource::new(
        AgentSpec::Engine(SearchConfig {
            depth,
            ..SearchConfig::default()
        }),
        burn::tensor::Device::flex(),
    )
}

/// The session's whole output for `input` on `variant`'s 8x8 board.
fn session(protocol: Protocol, variant: &str, input: &[u8]) -> String {
    let mut output = Vec::new();
    serve(
        protocol,
        variant,
        8,
        &engine_source(1),
        &mut Cursor::new(input.to_vec()),
        &mut output,
    )
    .unwrap();
    String::from_utf8(output).unwrap()
}

fn gtp_replies(variant: &str, input: &[u8]) -> Vec<String> {
    session(Protocol::Gtp, variant, input)
        .split("\n\n")
        .filter(|reply| !reply.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn gtp_draws_the_seats_after_equal_bids_and_undo_takes_them_back_with_the_bid() {
    let replies = gtp_replies(
        "komi",
        b"boardsize 6\nplay b bid+1\nplay w bid+1tie-swapped\nplay w bid+1\ngenmove b\nundo\nundo\ngenmove w\n",
    );
    // The GUI may not pick the draw.
    assert!(replies[2].starts_with("? "), "{}", replies[2]);
    assert!(replies[2].contains("drawn"), "{}", replies[2]);
    let replies: Vec<String> = [&replies[..2], &replies[3..]].concat();
    assert_eq!(replies[..3], ["=", "=", "="]);
    // After the draw Black moves on the board, not a chance outcome.
    let square = replies[3].trim_start_matches("= ");
    assert!(
        square.len() == 2 && square.as_bytes()[0].is_ascii_alphabetic(),
        "{}",
        replies[3]
    );
    assert_eq!(replies[4..6], ["=", "="]);
    // Two undos: the move, then the draw with the second bid: the second bidder bids again.
    assert!(replies[6].starts_with("= BID"), "{}", replies[6]);
}

#[test]
fn gtp_refuses_clocks_that_are_not_numbers_of_seconds() {
    let replies = gtp_replies(
        "othello",
        b"time_settings inf 0 0\ntime_left b 1e30 0\ntime_left w NaN 0\n\
          time_left b -5 0\ntime_settings 300 0 0\nname\n",
    );
    assert!(
        replies[0].starts_with("? syntax error: time_settings"),
        "{}",
        replies[0]
    );
    assert_eq!(replies[1], "=", "a huge clock is a long one");
    assert!(
        replies[2].contains("NaN is not a number of seconds"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3], "=", "a fallen flag reads as no time left");
    assert_eq!(replies[4], "=");
    assert_eq!(replies[5], "= flipzero");
}

#[test]
fn gtp_refuses_lines_that_are_not_text_or_too_long_and_goes_on() {
    let mut input = b"name\n\xff\xfe play b d3\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', 200_000));
    input.extend(b"\nplay b d3\nname\n");
    let replies = gtp_replies("othello", &input);
    assert_eq!(replies[0], "= flipzero");
    assert_eq!(replies[1], "? syntax error: the line is not UTF-8 text");
    assert_eq!(
        replies[2],
        "? syntax error: the line is longer than 65536 bytes"
    );
    assert_eq!(replies[3], "=", "the line after the long one is read whole");
    assert_eq!(replies[4], "= flipzero");
    assert_eq!(replies.len(), 5);
}

#[test]
fn gtp_boardsize_refuses_a_side_the_variant_cannot_have_in_its_own_answer() {
    // Biversi's two start patterns need a side of 6 or more.
    let replies = gtp_replies("biversi", b"boardsize 4\nname\nboardsize 8\nname\n");
    assert!(
        replies[0].starts_with("? unacceptable size: "),
        "{}",
        replies[0]
    );
    assert_eq!(replies[1], "= flipzero", "no unsolicited line in between");
    assert_eq!(replies[2], "=");
    assert_eq!(replies[3], "= flipzero");
    assert_eq!(replies.len(), 4);
}

#[test]
fn a_side_the_agent_cannot_serve_is_refused_at_the_start_and_by_boardsize_which_keeps_its_game() {
    // A network trained for 6x6: the variant has 8x8 boards, the agent does not.
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let net = flipzero_nn::NetConfig {
        input_planes: flipzero_data::encoder::PLANES.len(),
        rows: 6,
        cols: 6,
        decisions: rules.decision_count(),
        tower: flipzero_nn::Tower::new(1, 8, 16),
        torus: false,
    };
    let meta = flipzero_nn::CheckpointMeta {
        rules: rules.spec().clone(),
        encoder_version: flipzero_data::ENCODER_VERSION,
        net: net.clone(),
        step: 0,
    };
    let device = burn::tensor::Device::flex();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("six.ckpt");
    flipzero_nn::checkpoint::save(&path, &meta, &net.init(&device), None).unwrap();
    let spec: AgentSpec = format!("mcts:checkpoint={},simulations=4", path.display())
        .parse()
        .unwrap();
    let source = SpecSource::new(spec, device);
    // Started on a side it cannot serve, the session is refused before a line is written
    // (a GTP controller would read an unprompted line as the answer to its first command).
    let mut output = Vec::new();
    let error = serve(
        Protocol::Gtp,
        "othello",
        8,
        &source,
        &mut Cursor::new(b"genmove b\n".to_vec()),
        &mut output,
    )
    .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(
        error.to_string().contains("cannot play othello on 8x8")
            && error.to_string().contains("trained on 6x6"),
        "{error}"
    );
    assert!(output.is_empty(), "{:?}", String::from_utf8_lossy(&output));
    let error = serve(
        Protocol::Nboard,
        "othello",
        7,
        &source,
        &mut Cursor::new(Vec::new()),
        &mut output,
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("othello on a board of side 7: "),
        "{error}"
    );
    let mut output = Vec::new();
    serve(
        Protocol::Gtp,
        "othello",
        6,
        &source,
        &mut Cursor::new(b"play b b3\nboardsize 8\ngenmove w\nshowboard\n".to_vec()),
        &mut output,
    )
    .unwrap();
    let output = String::from_utf8(output).unwrap();
    let replies: Vec<&str> = output.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies[0], "=");
    assert!(
        replies[1].starts_with("? unacceptable size: ")
            && replies[1].contains("trained on 6x6, asked for 8x8"),
        "{}",
        replies[1]
    );
    // The game on 6x6, with Black's move, is still the session's: White moves on it.
    let white = replies[2].strip_prefix("= ").unwrap_or_default();
    let after_b3 = flipzero_core::variant::notation::replay(
        &rules,
        &flipzero_core::Game::<u64>::start(&rules),
        &format!("b3 {}", white.to_ascii_lowercase()),
    );
    assert!(after_b3.is_ok(), "{}", replies[2]);
    assert!(
        replies[3].starts_with("= ") && replies[3].lines().count() > 6,
        "{}",
        replies[3]
    );
    assert_eq!(replies.len(), 4, "{output}");
}

#[test]
fn nboard_refuses_bad_lines_as_status_errors_and_bounds_the_guis_depth() {
    let output = session(
        Protocol::Nboard,
        "othello",
        b"nboard 2\n\xc3\x28\nping 1\nset depth 60\nping 2\n",
    );
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(
        lines,
        [
            "set myname flipzero",
            "status error: syntax error: the line is not UTF-8 text",
            "pong 1",
            "pong 2"
        ]
    );
    // A depth from the GUI is searched under a time limit.
    let rules = Preset::Othello.rules(None).unwrap();
    let factory = engine_source(1).agent_for(&rules, Some(60)).unwrap();
    match factory.spec() {
        AgentSpec::Engine(config) => {
            assert_eq!(
                (config.depth, config.time),
                (60, Some(GUI_DEPTH_TIME_LIMIT))
            );
        }
        other => panic!("{other:?}"),
    }
    // The source's own limit replaces the default (`flipzero engine --depth-seconds`).
    let source = SpecSource {
        depth_time_limit: Duration::from_secs(5),
        ..engine_source(1)
    };
    match source.agent_for(&rules, Some(60)).unwrap().spec() {
        AgentSpec::Engine(config) => assert_eq!(config.time, Some(Duration::from_secs(5))),
        other => panic!("{other:?}"),
    }
}
