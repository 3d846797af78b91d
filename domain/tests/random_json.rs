//! `play_random_json` plays every game through the type-erased registry as the service does,
//! and what it records folds back into the same game.

use domain::testing::play_random_json;
use domain::{Registry, Seed};
use serde_json::json;

#[test]
fn a_random_json_game_of_every_kind_folds_back_to_the_same_game() {
    let registry = Registry::standard();
    for id in registry.ids() {
        let kind = registry.get(&id).expect("registered");
        let options = (id == "vamanos").then(|| json!({"target": 30}));
        let played = play_random_json(kind, options, 2, Seed([3; 32]), 1, 300)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(played.turns.len() > 2, "{id}: the joins and some moves");
        let payloads = played.payloads();
        let folded = kind.fold(&payloads).expect("folds");
        assert_eq!(folded.version(), payloads.len() as u64, "{id}");
        assert_eq!(folded.version(), played.game.version(), "{id}");
        assert_eq!(
            folded.view(domain::Viewer::Everyone),
            played.game.view(domain::Viewer::Everyone),
            "{id}"
        );
    }
}
