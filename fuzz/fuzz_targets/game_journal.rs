//! Arena game journals (the first byte picks the rules, the rest is the file): read or refuse
//! with a reason; a journal that reads opens again with the same games.
#![no_main]

use flipzero_arena::journal::Journal;
use flipzero_fuzz::{assert_explained, file_with, rules_for};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, contents)) = data.split_first() else {
        return;
    };
    let rules = rules_for(selector);
    let path = file_with("fuzz.journal", contents);
    match Journal::open(&path, &rules) {
        Ok(journal) => {
            let games = journal.resumed();
            drop(journal);
            let again = Journal::open(&path, &rules).expect("a journal that read reads again");
            assert_eq!(again.resumed(), games);
        }
        Err(error) => assert_explained(&error),
    }
});
