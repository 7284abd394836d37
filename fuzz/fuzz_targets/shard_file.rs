//! Shard files (mutated from real ones, as they are and with their checksum made anew): read
//! or refuse with a reason; a read shard writes back to a file that reads the same.
#![no_main]

use flipzero_data::{read_shard, write_shard};
use flipzero_fuzz::{as_is_and_resealed, assert_explained, file_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for contents in as_is_and_resealed(data) {
        let path = file_with("fuzz.shard", &contents);
        match read_shard(&path) {
            Ok((header, samples)) => {
                let again = path.with_extension("again");
                write_shard(&again, &header, &samples).expect("a shard writes");
                let (header_again, samples_again) = read_shard(&again).expect("a written shard");
                assert_eq!(header_again, header);
                assert_eq!(samples_again, samples);
            }
            Err(error) => assert_explained(&error),
        }
    }
});
