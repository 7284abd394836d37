//! The web server's request bodies (a game, a new game, a save, a load; the first byte picks
//! which): a bad one is refused with a 4xx status and a reason, never a panic; a state's game
//! replays to the same state, and a saved game loads back to it.
#![no_main]

use flipzero_web::games::{self, ApiError, GameRequest, LoadRequest, SaveRequest, StartRequest};
use libfuzzer_sys::fuzz_target;

fn refused(error: &ApiError) {
    assert!(
        (400..500).contains(&error.status),
        "status {} for {}",
        error.status,
        error.message
    );
    assert!(
        !error.message.trim().is_empty(),
        "a refusal without a reason"
    );
}

fn replays(view: &games::StateView) {
    let again = games::state(&view.game).expect("a state's own game replays");
    assert_eq!(&again, view);
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, body)) = data.split_first() else {
        return;
    };
    match kind % 4 {
        0 => {
            if let Ok(request) = serde_json::from_slice::<GameRequest>(body) {
                match games::state(&request) {
                    Ok(view) => replays(&view),
                    Err(error) => refused(&error),
                }
            }
        }
        1 => {
            if let Ok(request) = serde_json::from_slice::<StartRequest>(body) {
                match games::start(&request) {
                    Ok(view) => replays(&view),
                    Err(error) => refused(&error),
                }
            }
        }
        2 => {
            if let Ok(request) = serde_json::from_slice::<SaveRequest>(body) {
                match games::save(&request) {
                    Ok(saved) => {
                        let line = serde_json::to_string(&saved).expect("a saved game writes");
                        let loaded =
                            games::load(&LoadRequest { line }).expect("a saved game loads");
                        let before = games::state(&request.game).expect("it was saved");
                        assert_eq!(loaded.state.position, before.position);
                    }
                    Err(error) => refused(&error),
                }
            }
        }
        _ => {
            if let Ok(request) = serde_json::from_slice::<LoadRequest>(body) {
                match games::load(&request) {
                    Ok(loaded) => replays(&loaded.state),
                    Err(error) => refused(&error),
                }
            }
        }
    }
});
