//! The worked examples of the source documents (`../shared/seeds/`), and rules checked
//! against the independent Othello engine where a variant reuses its moves.

use flipzero_core::{Color, Decision, Game, Orientation, Outcome, Position, Preset, Rules, replay};

fn rules(preset: Preset) -> Rules {
    preset.rules(None).unwrap()
}

fn play(rules: &Rules, moves: &str) -> Game<u64> {
    replay(rules, &Game::start(rules), moves).unwrap_or_else(|e| panic!("{moves}: {e}"))
}

fn at(game: &Game<u64>, name: &str) -> char {
    let square = game.geometry().parse_square(name).unwrap();
    let bit = 1u64 << square.0;
    if game.discs(Color::Black) & bit != 0 {
        if game.cross_discs() & bit != 0 {
            'x'
        } else {
            'X'
        }
    } else if game.discs(Color::White) & bit != 0 {
        if game.cross_discs() & bit != 0 {
            'o'
        } else {
            'O'
        }
    } else if game.neutral() & bit != 0 {
        '#'
    } else {
        '-'
    }
}

/// A full board with `black` black discs, the rest white, Black to move.
fn full_board(black: usize, extra: &str) -> String {
    format!("{}{} X{extra}", "X".repeat(black), "O".repeat(64 - black))
}

#[test]
fn equal_bids_are_settled_by_a_chance_event_after_them() {
    let komi = rules(Preset::Komi);
    // Nothing is drawn at the start: every seed starts the same game.
    let starts: Vec<u64> = (0..8)
        .map(|seed| Game::<u64>::try_start(&komi, seed).unwrap().hash())
        .collect();
    assert!(starts.iter().all(|&hash| hash == starts[0]));
    // Equal bids: the komi is settled, the seats are not, and only the two outcomes of the
    // chance event are legal; each seats the bidders one way.
    let tie = play(&komi, "bid+1 bid+1");
    assert!(tie.awaits_chance() && tie.is_mid_turn() && !tie.is_over());
    assert_eq!(tie.komi(), -1.0);
    let outcomes = tie.legal_decisions(&komi);
    assert_eq!(
        outcomes,
        [
            Decision::TieBreak { swapped: false },
            Decision::TieBreak { swapped: true }
        ]
    );
    let kept = play(&komi, "bid+1 bid+1 tie-kept");
    let swapped = play(&komi, "bid+1 bid+1 tie-swapped");
    assert!(!kept.seats_swapped() && swapped.seats_swapped());
    assert_eq!(
        (kept.side_to_move(), swapped.side_to_move()),
        (Color::Black, Color::Black)
    );
    assert_ne!(kept.hash(), swapped.hash());
    assert_ne!(tie.hash(), kept.hash());
    // The text keeps the pending event and reads back.
    let text = tie.to_text(&komi);
    assert!(text.contains("phase=tie"), "{text}");
    assert_eq!(
        Game::<u64>::from_text(&komi, &text).unwrap().hash(),
        tie.hash()
    );
    // A chance event is no player's: drawn uniformly, each outcome about half the time.
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
    let swaps = (0..1000)
        .filter(|_| tie.draw_chance(&komi, &mut rng) == Some(Decision::TieBreak { swapped: true }))
        .count();
    assert!((440..=560).contains(&swaps), "{swaps} swaps of 1000");
    assert_eq!(kept.draw_chance(&komi, &mut rng), None);
    // Unequal bids seat the bidders at once.
    assert!(!play(&komi, "bid+1 bid+2").awaits_chance());
}

#[test]
fn komi_bids_from_the_seed() {
    // Bids +3 and +2: komi = -(3 + 2) / 2 = -2.5, and the higher bid plays White.
    let komi = rules(Preset::Komi);
    let game = play(&komi, "bid+3 bid+2");
    assert_eq!(game.komi(), -2.5);
    assert!(
        game.seats_swapped(),
        "Black's seat bid higher, so it plays White"
    );
    assert_eq!(game.side_to_move(), Color::Black);
    let lower_first = play(&komi, "bid+2 bid+3");
    assert!(!lower_first.seats_swapped());
    // 31 - 33 = -2 > -2.5: Black wins.
    let end = Game::<u64>::from_text(&komi, &full_board(31, " phase=turn komi=-2.5")).unwrap();
    assert!(end.is_over());
    assert_eq!(end.outcome(&komi), Some(Outcome::Win(Color::Black)));
    let end = Game::<u64>::from_text(&komi, &full_board(30, " phase=turn komi=-2.5")).unwrap();
    assert_eq!(end.outcome(&komi), Some(Outcome::Win(Color::White)));
    let end = Game::<u64>::from_text(&komi, &full_board(31, " phase=turn komi=-2")).unwrap();
    assert_eq!(end.outcome(&komi), Some(Outcome::Draw));
}

#[test]
fn fixed_komi_shifts_the_result() {
    let fixed = rules(Preset::KomiFixed);
    let end = Game::<u64>::from_text(&fixed, &full_board(31, "")).unwrap();
    assert_eq!(end.komi(), -2.5);
    assert_eq!(end.outcome(&fixed), Some(Outcome::Win(Color::Black)));
    let othello = rules(Preset::Othello);
    let plain = Game::<u64>::from_text(&othello, &full_board(31, "")).unwrap();
    assert_eq!(plain.outcome(&othello), Some(Outcome::Win(Color::White)));
}

#[test]
fn rotation_example_from_the_seed() {
    // a4 black `+`, e4 black `x`, b5 and d5 white. Black places c6 as `x`: b5 does not flip
    // (its pivot a4 is `+`), d5 must (diagonal, pivot e4 is `x`); Black turns d5 to `x`.
    let rotation = rules(Preset::Rotation);
    let mut board = vec!['-'; 64];
    for (name, disc) in [("a4", 'X'), ("e4", 'x'), ("b5", 'O'), ("d5", 'O')] {
        let square = rotation_geometry().parse_square(name).unwrap();
        board[usize::from(square.0)] = disc;
    }
    let text: String = board.into_iter().collect::<String>() + " X";
    let start = Game::<u64>::from_text(&rotation, &text).unwrap();
    let names: Vec<String> = start
        .legal_decisions(&rotation)
        .iter()
        .map(|&d| flipzero_core::decision_name(&rotation, start.geometry(), d))
        .collect();
    assert!(names.contains(&"c6x".to_owned()), "{names:?}");
    assert!(!names.contains(&"c6+".to_owned()), "{names:?}");
    let after = replay(&rotation, &start, "c6x").unwrap();
    assert_eq!(
        after.legal_decisions(&rotation),
        Orientation::ALL.map(Decision::Orient)
    );
    let end = replay(&rotation, &after, "x").unwrap();
    assert_eq!(at(&end, "c6"), 'x');
    assert_eq!(at(&end, "d5"), 'x', "d5 flipped and turned to x");
    assert_eq!(at(&end, "b5"), 'O', "b5 stays white: its pivot a4 is +");
    assert_eq!(end.side_to_move(), Color::White);
}

fn rotation_geometry() -> &'static flipzero_core::Geometry<u64> {
    flipzero_core::Geometry::get(8, 8).unwrap()
}

#[test]
fn classic_reversi_fills_the_centre_in_any_order() {
    let classic = rules(Preset::ClassicReversi);
    let start = Game::<u64>::start(&classic);
    assert_eq!(start.discs(Color::Black) | start.discs(Color::White), 0);
    // Parallel and diagonal centres both arise; nothing flips in plies 1-4.
    let parallel = play(&classic, "d4 e4 d5 e5");
    assert_eq!([at(&parallel, "d4"), at(&parallel, "d5")], ['X', 'X']);
    assert_eq!([at(&parallel, "e4"), at(&parallel, "e5")], ['O', 'O']);
    let diagonal = play(&classic, "d4 e4 e5 d5");
    assert_eq!([at(&diagonal, "d4"), at(&diagonal, "e5")], ['X', 'X']);
    assert_eq!([at(&diagonal, "e4"), at(&diagonal, "d5")], ['O', 'O']);
    assert_eq!(diagonal.supply(Color::Black), [30, 0]);
    let error = replay(&classic, &start, "d4 a1").unwrap_err();
    assert_eq!(error.index, 2);
    // The four centre squares in every order: 4, 4 x 3, 4 x 3 x 2, 4! sequences.
    let counts: Vec<u64> = (1..=4)
        .map(|depth| flipzero_core::variant::perft::perft(&classic, &start, depth))
        .collect();
    assert_eq!(counts, [4, 12, 24, 24]);
    // Ply 4 (the sources' rule): White's only disc goes on the last centre square, e5,
    // though c4 would flank d4 against e4.
    let square = |name: &str| Decision::square(rotation_geometry().parse_square(name).unwrap());
    let legal = play(&classic, "d4 e4 d5").legal_decisions(&classic);
    assert_eq!(legal, [square("e5")]);
    // Under `may`, White may fill e5 or flank outside the centre.
    let may = rules(Preset::ClassicReversiMay);
    let before_ply4 = play(&may, "d4 e4 d5");
    let legal = before_ply4.legal_decisions(&may);
    assert!(legal.contains(&square("e5")) && legal.contains(&square("c4")));
    let flanked = replay(&may, &before_ply4, "c4").unwrap();
    assert_eq!(at(&flanked, "d4"), 'O', "an ordinary move at ply 4 flips");
    assert_eq!(
        at(&flanked, "e5"),
        '-',
        "the unfilled centre square stays empty"
    );
    // Under `must`, the flanking moves are the only choice.
    let must = rules(Preset::ClassicReversiMust);
    let legal = play(&must, "d4 e4 d5").legal_decisions(&must);
    assert!(!legal.contains(&square("e5")) && legal.contains(&square("c4")));
}

#[test]
fn gomullo_wins_at_once_on_a_full_line() {
    let gomullo = rules(Preset::Gomullo);
    // Row 1 is black but h1; h1 flanks h2 against h3. White has far more discs.
    let text = format!("XXXXXXX-{}{}{} X", "OOOOOOOO", "OOOOOOOX", "O".repeat(40));
    let game = Game::<u64>::from_text(&gomullo, &text).unwrap();
    let end = replay(&gomullo, &game, "h1").unwrap();
    assert!(end.is_over());
    assert_eq!(end.outcome(&gomullo), Some(Outcome::Win(Color::Black)));
    // The same move under Othello rules fills the board, and White, far ahead, wins.
    let othello = rules(Preset::Othello);
    let plain = replay(
        &othello,
        &Game::<u64>::from_text(&othello, &text).unwrap(),
        "h1",
    )
    .unwrap();
    assert!(plain.is_over());
    assert_eq!(plain.outcome(&othello), Some(Outcome::Win(Color::White)));
}

#[test]
fn neuversi_drop_and_swap() {
    let neuversi = rules(Preset::Neuversi);
    // A drop: a move, then a neutral anywhere.
    let dropped = play(&neuversi, "f5 a1");
    assert_eq!(at(&dropped, "f5"), 'X');
    assert_eq!(at(&dropped, "a1"), '#');
    assert_eq!(dropped.side_to_move(), Color::White);
    // A swap: a1 flips b1 against c1, a2 flips b2 against c2, then c1 turns neutral.
    let text = format!("#OX-----#OX-----{} X", "-".repeat(48));
    let game = Game::<u64>::from_text(&neuversi, &text).unwrap();
    let end = replay(&neuversi, &game, "a1 a2 c1").unwrap();
    let row = |r: &str| ["a", "b", "c"].map(|c| at(&end, &format!("{c}{r}")));
    assert_eq!(row("1"), ['X', 'X', '#']);
    assert_eq!(row("2"), ['X', 'X', 'X']);
    assert_eq!(end.side_to_move(), Color::White);
    // A neutral inside a line flips to the mover's colour; it never closes a line.
    let through = Game::<u64>::from_text(&neuversi, &format!("X#O-{} X", "-".repeat(60))).unwrap();
    let after = replay(&neuversi, &through, "d1 h8").unwrap();
    assert_eq!(
        ["a1", "b1", "c1", "d1"].map(|n| at(&after, n)),
        ['X', 'X', 'X', 'X']
    );
    let no_pivot = Game::<u64>::from_text(&neuversi, &format!("-O#{} X", "-".repeat(61))).unwrap();
    assert!(
        no_pivot
            .legal_decisions(&neuversi)
            .iter()
            .all(|d| *d == Decision::Pass
                || matches!(d, Decision::Square { square, .. } if square.0 != 0))
    );
}

#[test]
fn anti_othello_gives_the_win_to_the_wiped_out_player() {
    let anti = rules(Preset::Anti);
    let end = play(&anti, "d3 c3 b3 d2 e1 d6 d7 e3 f4");
    assert!(end.is_over());
    assert_eq!(end.discs(Color::White), 0);
    assert_eq!(end.outcome(&anti), Some(Outcome::Win(Color::White)));
}

#[test]
fn sacrifice_ko_and_repetition_draw() {
    let sacrifice = rules(Preset::Sacrifice);
    let game = play(&sacrifice, "e4");
    let e4 = rotation_geometry().parse_square("e4").unwrap();
    assert_eq!(at(&game, "e4"), 'O');
    assert_eq!(game.ko(), Some(e4));
    assert!(
        !game
            .legal_decisions(&sacrifice)
            .contains(&Decision::square(e4)),
        "ko"
    );
    // e4 d4 d5 e4 d4 d5 brings back the start board; from then on every position of the
    // cycle recurs every 6 plies. The position after the first e4 (White to move, ko e4)
    // occurs at plies 1, 7, 13 and 19: the fourth occurrence (more than 3) is a draw.
    let cycle = "e4 d4 d5 e4 d4 d5 ";
    let almost = play(&sacrifice, &cycle.repeat(3));
    assert!(!almost.is_over());
    let drawn = replay(&sacrifice, &almost, "e4").unwrap();
    assert!(drawn.is_over());
    assert_eq!(drawn.outcome(&sacrifice), Some(Outcome::Draw));
}

#[test]
fn a_sacrifice_position_read_from_text_is_its_first_occurrence() {
    // The text carries no history: the position read counts once, as a game's start does,
    // so the same cycle draws at the same point from the game and from its text.
    let sacrifice = rules(Preset::Sacrifice);
    let after_e4 = play(&sacrifice, "e4");
    let read = Game::<u64>::from_text(&sacrifice, &after_e4.to_text(&sacrifice)).unwrap();
    let cycle = "d4 d5 e4 d4 d5 e4";
    for game in [after_e4, read] {
        let almost = replay(&sacrifice, &game, &format!("{cycle} {cycle}")).unwrap();
        assert!(!almost.is_over());
        let drawn = replay(&sacrifice, &almost, cycle).unwrap();
        assert_eq!(drawn.outcome(&sacrifice), Some(Outcome::Draw));
    }
}

#[test]
fn reversi_ii_places_the_opponents_colour_every_other_move() {
    let reversi_ii = rules(Preset::ReversiII);
    let game = play(&reversi_ii, "f5 d6");
    // Black's second disc is white: its moves are White's Othello moves on this board.
    let othello_view = Position::new(
        game.geometry(),
        game.discs(Color::Black),
        game.discs(Color::White),
        Color::White,
    )
    .unwrap();
    let squares: Vec<Decision> = othello_view.legal_squares().map(Decision::square).collect();
    assert_eq!(game.legal_decisions(&reversi_ii), squares);
    let square = othello_view.legal_squares().next().unwrap();
    let after = game.play(&reversi_ii, Decision::square(square)).unwrap();
    let othello_after = othello_view.play(square).unwrap();
    assert_eq!(after.discs(Color::White), othello_after.opponent());
    assert_eq!(after.discs(Color::Black), othello_after.player());
    assert_eq!(after.supply(Color::Black), [14, 14]);
}

/// The slow reference board at a preset's start (Black to move, Othello moves).
fn reference_start(preset: Preset) -> flipzero_tests::reference::ReferenceBoard {
    let game = Game::<u64>::start(&rules(preset));
    let position = Position::new(
        game.geometry(),
        game.discs(Color::Black),
        game.discs(Color::White),
        Color::Black,
    )
    .unwrap();
    flipzero_tests::reference::ReferenceBoard::from_position(&position)
}

#[test]
fn classic_reversi_after_the_centre_moves_like_the_reference() {
    // Of the 24 centre orders, 8 leave Black's discs on a diagonal (a cross start, or its
    // mirror image) and 16 side by side (a parallel start, turned). The 32-disc supplies
    // cannot run out within 4 more turns, so perft(4 + k) = 8 cross(k) + 16 parallel(k),
    // counted by the slow reference from the Othello and parallel starts.
    let classic = rules(Preset::ClassicReversi);
    let start = Game::<u64>::start(&classic);
    let (cross, parallel) = (
        reference_start(Preset::Othello),
        reference_start(Preset::Parallel),
    );
    for extra in 1..=4 {
        assert_eq!(
            flipzero_core::variant::perft::perft(&classic, &start, 4 + extra),
            8 * cross.perft(extra) + 16 * parallel.perft(extra),
            "depth {}",
            4 + extra
        );
    }
}

#[test]
fn the_othello_presets_move_like_the_reference() {
    // Parallel start: four first moves, and perft against the slow reference.
    for preset in [
        Preset::Parallel,
        Preset::Anti,
        Preset::KomiFixed,
        Preset::Gomullo,
    ] {
        let rules = rules(preset);
        let start = Game::<u64>::start(&rules);
        let reference = reference_start(preset);
        for depth in 1..=4 {
            assert_eq!(
                flipzero_core::variant::perft::perft(&rules, &start, depth),
                reference.perft(depth),
                "{preset} depth {depth}"
            );
        }
    }
}

#[test]
fn biversi_turns_and_groups() {
    let biversi = rules(Preset::Biversi);
    let start = Game::<u128>::start(&biversi);
    assert_eq!(start.side_to_move(), Color::White);
    assert_eq!(start.group_a().count_ones(), 4);
    // The first turn has one placement; every later turn two.
    let first = start.legal_decisions(&biversi)[0];
    let after_first = start.play(&biversi, first).unwrap();
    assert_eq!(after_first.side_to_move(), Color::Black);
    let second_turn = after_first
        .play(&biversi, after_first.legal_decisions(&biversi)[0])
        .unwrap();
    assert!(second_turn.is_mid_turn());
    assert_eq!(second_turn.side_to_move(), Color::Black);
    // While the groups are apart, the second placement flips a disc of the other group.
    let group_b = !second_turn.group_a()
        & (second_turn.discs(Color::Black) | second_turn.discs(Color::White));
    let group_a = second_turn.group_a();
    let first_in_a = matches!(
        second_turn.phase(),
        flipzero_core::Phase::SecondPlacement {
            first_in_group_a: true
        }
    );
    let other = if first_in_a { group_b } else { group_a };
    for decision in second_turn.legal_decisions(&biversi) {
        let after = second_turn.play(&biversi, decision).unwrap();
        let flipped = (after.discs(Color::Black) & !second_turn.discs(Color::Black)) & other;
        assert!(
            flipped != 0,
            "{decision:?} flips no disc of the other group"
        );
        assert_eq!(after.side_to_move(), Color::White);
    }
}

#[test]
fn komi_bids_are_two_turns_in_front_of_othello() {
    // 17 bids each, then the Othello tree; the 17 equal pairs end in the chance event, whose
    // two outcomes are leaves of the second bid's turn: perft(d) = (17 * 17 + 17) * othello
    // perft(d - 2).
    let komi = rules(Preset::Komi);
    let start = Game::<u64>::start(&komi);
    let othello = Position::start(start.geometry());
    for depth in 2..=6 {
        assert_eq!(
            flipzero_core::variant::perft::perft(&komi, &start, depth),
            306 * flipzero_core::perft(&othello, depth - 2),
            "depth {depth}"
        );
    }
}

#[test]
fn adneuversi_counts_the_neutrals_a_move_flips_as_discs() {
    // a1 flips the neutrals b1, c1 and d1 against e1; afterwards c2 (beside c1) takes the
    // neutral, though before the move no empty square touches a black or white disc.
    let rules = rules(Preset::Adneuversi);
    let mut board = vec!['#'; 64];
    for (name, disc) in [("a1", '-'), ("c2", '-'), ("e1", 'X')] {
        board[usize::from(rotation_geometry().parse_square(name).unwrap().0)] = disc;
    }
    let text: String = board.into_iter().collect::<String>() + " X";
    let game = Game::<u64>::from_text(&rules, &text).unwrap();
    let a1 = Decision::square(rotation_geometry().parse_square("a1").unwrap());
    assert!(game.legal_decisions(&rules).contains(&a1));
    let end = replay(&rules, &game, "a1 c2").unwrap();
    assert_eq!(
        ["a1", "b1", "c1", "d1", "c2"].map(|n| at(&end, n)),
        ['X', 'X', 'X', 'X', '#']
    );
}

#[test]
fn a_result_decided_by_a_rule_gives_the_empties_to_its_winner() {
    let gomullo = rules(Preset::Gomullo);
    let text = format!("XXXXXXX-{}{}{} X", "OOOOOOOO", "OOOOOOOX", "O".repeat(40));
    let game = Game::<u64>::from_text(&gomullo, &text).unwrap();
    let end = replay(&gomullo, &game, "h1").unwrap();
    assert_eq!(end.outcome(&gomullo), Some(Outcome::Win(Color::Black)));
    // 9 black, 47 white, 8 empties: Black won, so the empties are Black's (wof).
    let black = end.discs(Color::Black).count_ones() as i32;
    let white = end.discs(Color::White).count_ones() as i32;
    let empties = end.empty().count_ones() as i32;
    assert_eq!(end.score(&gomullo), black - white + empties);
}

#[test]
fn a_sacrifice_that_completes_the_opponents_line_loses() {
    let mut spec = Preset::Gomullo.spec(None);
    spec.sacrifice = Some(flipzero_core::variant::rules::SacrificeSpec::default());
    let rules = Rules::try_from(spec).unwrap();
    let text = format!("OOOOOOOX{}--OX{} X", "-".repeat(27), "-".repeat(25));
    let game = Game::<u64>::from_text(&rules, &text).unwrap();
    let end = replay(&rules, &game, "h1").unwrap();
    assert!(end.is_over());
    assert_eq!(end.outcome(&rules), Some(Outcome::Win(Color::White)));
}

#[test]
fn bids_come_before_the_turns_of_the_game() {
    // Classic reversi with a bid phase still has its four centre plies after the bids.
    let mut spec = Preset::ClassicReversi.spec(None);
    spec.komi = flipzero_core::variant::rules::KomiSpec::Bid { min: -2, max: 2 };
    let rules = Rules::try_from(spec).unwrap();
    let game = play(&rules, "bid0 bid+1 d4 e4 d5");
    let e5 = Decision::square(rotation_geometry().parse_square("e5").unwrap());
    assert!(game.legal_decisions(&rules).contains(&e5));
    assert_eq!(game.komi(), -0.5);
}

#[test]
fn random_openings_end_on_a_turn_boundary() {
    let mut spec = Preset::Rotation.spec(None);
    spec.start = flipzero_core::variant::rules::StartSpec::RandomPlies(5);
    let rules = Rules::try_from(spec).unwrap();
    for seed in 0..20 {
        let game = Game::<u64>::try_start(&rules, seed).unwrap();
        assert!(!game.is_mid_turn(), "seed {seed}: {}", game.to_text(&rules));
    }
}

#[test]
fn state_text_that_no_game_reaches_is_refused() {
    let empty = "-".repeat(64);
    let cases = [
        (
            Preset::Rotation,
            format!("{empty} X phase=orient"),
            "pending=",
        ),
        (
            Preset::Othello,
            format!("{empty} X phase=drop"),
            "no such phase",
        ),
        (
            Preset::Neuversi,
            format!("{empty} X phase=swap pending=a1"),
            "pending=",
        ),
        (
            Preset::Othello,
            format!("{empty} X bid=3"),
            "not a bid of these rules",
        ),
        (
            Preset::Othello,
            format!("{empty} X colour=red"),
            "unknown field",
        ),
        (
            Preset::Othello,
            format!("{empty} X komi=0.3"),
            "multiple of 0.5",
        ),
        // A neutral to drop and no empty square left for it.
        (
            Preset::Neuversi,
            format!("{} X phase=drop", "XO".repeat(32)),
            "no decision is legal",
        ),
    ];
    for (preset, text, expected) in cases {
        let rules = rules(preset);
        let error = Game::<u64>::from_text(&rules, &text)
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{text}: {error}");
    }
}
