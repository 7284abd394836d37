//! `flipzero engine` as a GTP or NBoard engine, driven by transcripts.

mod common;

use common::{assert_success, failing_output, flipzero};

/// Runs `flipzero engine` on a transcript and returns what it answered.
fn engine_session(args: &[&str], transcript: &str) -> String {
    let output = flipzero()
        .arg("engine")
        .args(args)
        .write_stdin(transcript)
        .output()
        .unwrap();
    assert_success(&output);
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn gtp_sessions_play_undo_and_refuse_bad_commands_without_stopping() {
    let transcript = "protocol_version\n7 name\nboardsize 8\nclear_board\nkomi 0\n\
                      play b d3\ngenmove w\nplay b z9\nplay w d3\nfrobnicate\nundo\nundo\n\
                      showboard\nboardsize 7\nknown_command genmove\nquit\n";
    let answer = engine_session(
        &["--protocol", "gtp", "--agent", "engine:depth=2"],
        transcript,
    );
    let replies: Vec<&str> = answer.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies[0], "= 2");
    assert_eq!(replies[1], "=7 flipzero");
    assert_eq!(&replies[2..5], ["=", "=", "="]);
    assert_eq!(replies[5], "=", "d3 is legal for Black");
    // White's reply to d3 is one of c3, c5, e3.
    let genmove = replies[6].strip_prefix("= ").unwrap();
    assert!(["C3", "C5", "E3"].contains(&genmove), "{genmove}");
    assert!(replies[7].starts_with("? illegal move"), "{}", replies[7]);
    assert!(
        replies[8].starts_with("? illegal move"),
        "White has just played"
    );
    assert_eq!(replies[9], "? unknown command");
    assert_eq!(&replies[10..12], ["=", "="], "two undos: the start again");
    assert!(replies[12].contains("X to move"), "{}", replies[12]);
    assert_eq!(replies[13], "? unacceptable size");
    assert_eq!(replies[14], "= true");
    assert_eq!(replies[15], "=");
}

#[test]
fn gtp_on_a_small_board_plays_a_whole_game_against_itself() {
    let mut transcript = String::from("boardsize 6\n");
    for _ in 0..20 {
        transcript.push_str("genmove b\ngenmove w\n");
    }
    transcript.push_str("final_score\n");
    let answer = engine_session(
        &["--protocol", "gtp", "--agent", "engine:depth=1"],
        &transcript,
    );
    let replies: Vec<&str> = answer.split("\n\n").filter(|r| !r.is_empty()).collect();
    let score = replies.last().unwrap();
    assert!(
        score.starts_with("= B+") || score.starts_with("= W+") || *score == "= 0",
        "{score}"
    );
}

#[test]
fn perfect_play_on_a_board_past_the_solvers_reach_answers_an_error_and_keeps_serving() {
    let answer = engine_session(
        &["--protocol", "gtp", "--agent", "perfect"],
        "genmove b\nplay b d3\ngenmove w\nquit\n",
    );
    let replies: Vec<&str> = answer.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies.len(), 4, "{answer}");
    for (reply, empties) in [(replies[0], 60), (replies[2], 59)] {
        assert!(
            reply.starts_with(&format!(
                "? a position with {empties} empty squares is past"
            )),
            "{reply}"
        );
    }
    assert_eq!([replies[1], replies[3]], ["=", "="]);
}

#[test]
fn nboard_sessions_follow_the_gui_and_report_errors_as_status_lines() {
    let transcript = "nboard 2\nset depth 4\n\
        set game (;GM[Othello]PC[NBoard]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5];)\n\
        ping 1\ngo\nhint 2\nmove E6/0.5/1.0\nmove Z9\nbogus words\nset game (;GM[Othello]BO[8 nonsense *];)\nping 2\nquit\n";
    let answer = engine_session(&["--protocol", "nboard"], transcript);
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines[0], "set myname flipzero");
    assert_eq!(lines[1], "pong 1");
    // After f5 f6 d3 c5 Black moves: the answer is a legal move in GUI notation.
    let chosen = lines[2]
        .strip_prefix("=== ")
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    assert!(
        ["B4", "C4", "C6", "D6", "E6", "F4", "G6", "E7"].contains(&chosen),
        "{chosen}"
    );
    assert_eq!(lines[3], "status thinking");
    assert!(lines[4].starts_with("search ") && lines[5].starts_with("search "));
    assert_eq!(lines[6], "status");
    assert!(
        lines[7].starts_with("status error: move Z9"),
        "{}",
        lines[7]
    );
    assert!(
        lines[8].starts_with("status error: unknown command"),
        "{}",
        lines[8]
    );
    assert!(
        lines[9].starts_with("status error: set game"),
        "{}",
        lines[9]
    );
    assert_eq!(lines[10], "pong 2", "still running");
}

#[test]
fn an_agent_that_cannot_serve_the_starting_board_is_refused_before_the_protocol_starts() {
    // The fuzzing seed checkpoint: a 6x6 network.
    let checkpoint = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/seeds/checkpoint_file/tiny.ckpt"
    );
    let output = failing_output(&["engine", "--protocol", "gtp", "--agent", checkpoint]);
    assert!(output.stdout.is_empty(), "the GUI reads nothing unprompted");
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains("the agent cannot play othello on 8x8")
            && error.contains("trained on 6x6, asked for 8x8"),
        "{error}"
    );
}
