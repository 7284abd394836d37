//! Shards round-trip and damaged ones are refused with the reason.

use flipzero_core::Preset;
use flipzero_data::{Sample, ShardHeader, read_shard, write_shard};

#[test]
fn shards_round_trip_and_damage_is_named() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let header = ShardHeader {
        rules: rules.spec().clone(),
        encoder_version: flipzero_data::ENCODER_VERSION,
        games: 2,
        writer: "worker-0 job-7".to_owned(),
    };
    let samples: Vec<Sample> = (0..50)
        .map(|i| Sample {
            position: format!(
                "--------------OX----XO-------------- {}",
                if i % 2 == 0 { 'X' } else { 'O' }
            ),
            policy: vec![(8, 0.25), (13, 0.75)],
            outcome: (i % 3) as i8 - 1,
            score: i as f32 - 20.0,
            solved: i % 5 == 0,
        })
        .collect();
    let directory = std::env::temp_dir().join(format!("flipzero-shard-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("shard-000.bin");
    write_shard(&path, &header, &samples).unwrap();
    assert_eq!(
        read_shard(&path).unwrap(),
        (header.clone(), samples.clone())
    );
    assert_eq!(
        std::fs::read_dir(&directory).unwrap().count(),
        1,
        "no temporary left"
    );
    assert_eq!(
        flipzero_core::Rules::try_from(header.rules.clone()).unwrap(),
        rules
    );

    let bytes = std::fs::read(&path).unwrap();
    // The typed header keeps the rules on disk as their TOML text, as shards always have.
    let toml = rules.to_toml();
    assert!(
        bytes
            .windows(toml.len())
            .any(|window| window == toml.as_bytes()),
        "the shard holds the rules' TOML text"
    );
    let refused = |contents: &[u8]| {
        let damaged = directory.join("damaged.bin");
        std::fs::write(&damaged, contents).unwrap();
        read_shard(&damaged).unwrap_err().to_string()
    };
    // What lies under the checksum: damage written with a fresh checksum (as a writer with
    // a bug would) still meets the body's own checks.
    let unsealed = &bytes[..bytes.len() - flipzero_data::files::CHECKSUM_BYTES];
    let resealed = |contents: &[u8]| {
        let mut contents = contents.to_vec();
        flipzero_data::files::seal(&mut contents);
        contents
    };
    assert_eq!(resealed(unsealed), bytes);
    assert!(refused(&bytes[..bytes.len() - 7]).contains("damaged: its CRC-32"));
    assert!(refused(&resealed(&unsealed[..unsealed.len() - 7])).contains("damaged body"));
    assert!(refused(&bytes[..6]).contains("truncated before the header"));
    assert!(refused(b"FLIPZCKP\x02\x00\x00\x00rest").contains("wrong magic number"));
    let mut newer = bytes.clone();
    newer[8] = 3;
    assert!(refused(&newer).contains("format version 3"));
    let mut longer = unsealed.to_vec();
    longer.push(0);
    assert!(refused(&resealed(&longer)).contains("1 unexpected bytes"));
    // A shard of version 1 (no checksum) still reads.
    let mut version_1 = unsealed.to_vec();
    version_1[8] = 1;
    let old = directory.join("version-1.bin");
    std::fs::write(&old, &version_1).unwrap();
    assert_eq!(read_shard(&old).unwrap(), (header.clone(), samples.clone()));
    // A rules text that claims a gigabyte (bincode's varint: 0xfc, then 4 bytes) is refused
    // by the decoder's limit, chosen from the file's size, before anything is allocated.
    let mut claims_a_gigabyte = bytes[..12].to_vec();
    claims_a_gigabyte.push(0xfc);
    claims_a_gigabyte.extend_from_slice(&(1u32 << 30).to_le_bytes());
    claims_a_gigabyte.extend_from_slice(b"short");
    let error = refused(&resealed(&claims_a_gigabyte));
    assert!(
        error.contains("damaged body") && error.to_lowercase().contains("limit"),
        "{error}"
    );
    // Every byte flipped, one at a time: refused with the file's name (by the checksum, or
    // before it by the magic number or the version), never read as other samples.
    for at in 0..bytes.len() {
        let mut corrupt = bytes.clone();
        corrupt[at] ^= 0xFF;
        let error = refused(&corrupt);
        assert!(error.contains("damaged.bin"), "byte {at}: {error}");
        let expected = match at {
            0..8 => "wrong magic number",
            8..12 => "format version",
            _ => "damaged: its CRC-32",
        };
        assert!(error.contains(expected), "byte {at}: {error}");
    }
    // Cut at every length short of the whole: always refused.
    for length in 0..bytes.len() {
        let error = refused(&bytes[..length]);
        assert!(error.contains("damaged.bin"), "length {length}: {error}");
    }
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn the_replay_window_takes_the_newest_shards_and_passes_over_unfinished_and_damaged_ones() {
    use flipzero_data::replay_window;
    let directory = std::env::temp_dir().join(format!("flipzero-window-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let header = ShardHeader {
        rules: flipzero_core::RulesSpec::default(),
        encoder_version: 1,
        games: 1,
        writer: "test".to_owned(),
    };
    let sample = |score: f32| Sample {
        position: String::new(),
        policy: Vec::new(),
        outcome: 0,
        score,
        solved: false,
    };
    for shard in 0..3 {
        let samples: Vec<Sample> = (0..10).map(|i| sample((shard * 100 + i) as f32)).collect();
        let path = directory.join(format!("shard-{shard:06}.shard"));
        write_shard(&path, &header, &samples).unwrap();
    }
    std::fs::write(directory.join("shard-000003.shard.tmp.77"), b"half a shard").unwrap();
    let window = replay_window(&directory, 25, &header).unwrap();
    assert_eq!(window.samples.len(), 25);
    assert_eq!(window.used.len(), 3);
    assert!(window.unreadable.is_empty());
    assert_eq!(window.samples[0].score, 200.0, "newest first");
    assert_eq!(window.samples[24].score, 4.0);
    let other = ShardHeader {
        encoder_version: 9,
        ..header.clone()
    };
    let error = replay_window(&directory, 25, &other)
        .unwrap_err()
        .to_string();
    assert!(error.contains("encoder version 1, not 9"), "{error}");
    std::fs::write(
        directory.join("shard-000004.shard"),
        b"FLIPZSHD\x01\x00\x00\x00junk",
    )
    .unwrap();
    // The damaged newest shard is passed over, named with its reason; the window is the
    // same as before.
    let window = replay_window(&directory, 25, &header).unwrap();
    assert_eq!(window.samples.len(), 25);
    assert_eq!(window.samples[0].score, 200.0);
    assert_eq!(window.unreadable.len(), 1);
    let (path, reason) = &window.unreadable[0];
    assert!(path.ends_with("shard-000004.shard"), "{path:?}");
    assert!(reason.contains("damaged body"), "{reason}");
    let mut bad = sample(1.0);
    bad.score = f32::NAN;
    write_shard(&directory.join("nan.bin"), &header, &[bad]).unwrap();
    let error = read_shard(&directory.join("nan.bin"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("not finite"), "{error}");
    std::fs::remove_dir_all(&directory).unwrap();
}
