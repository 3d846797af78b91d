//! A command sent again with its Idempotency-Key to another server of one PostgreSQL database
//! (as nginx does when the first server dies under it, or a client whose answer was cut): the
//! second server, whose fold of the game is behind, answers with the first time's events and
//! the game as it stands after them, never with an answer that leaves them out.

use crate::cluster;
use crate::common::{self, ok_json};
use crate::postgres_tokens::node;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;

fn versions(answer: &Value) -> Vec<u64> {
    answer["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["version"].as_u64().expect("a version"))
        .collect()
}

#[test]
fn a_command_retried_on_a_server_that_has_not_seen_it_yet_is_answered_with_its_events() {
    let url = cluster::Cluster::shared().new_database();
    let key = Arc::new(app::sealing::SecretsKey::generate().expect("a key"));
    let one = node(&url, key.clone());
    let two = node(&url, key);
    let (id, players) = one.full_game("avalanche-chess", 2, json!({}));

    for step in 0..6 {
        // Server two folds the game as it is now, and so is behind once server one plays.
        let seen = two.game(Some(&players[0]), &id);
        let seat = seen["to_act"][0].as_u64().expect("a seat to act") as usize;
        let player = &players[seat];
        let command = one.legal(player, &id)["commands"]
            .as_array()
            .expect("legal list")
            .iter()
            .map(|l| l["command"].clone())
            .find(|c| !common::play::is_table_command(c))
            .expect("a move");
        let key = format!("retry-{step}");
        let send = |app: &common::TestApp| {
            ok_json(
                app.post(&format!("/v1/games/{id}/commands"), Some(player))
                    .header("Idempotency-Key", &key)
                    .json(&command)
                    .send(),
                StatusCode::OK,
            )
        };
        let first = send(&one);
        let again = send(&two);
        assert_eq!(first["replayed"], false);
        assert_eq!(again["replayed"], true, "{again}");
        assert!(!versions(&first).is_empty(), "{first}");
        assert_eq!(versions(&again), versions(&first), "{again}");
        assert_eq!(again["version"], first["version"]);
        assert_eq!(
            again["game"]["version"], first["game"]["version"],
            "{again}"
        );
        // Nothing was recorded twice.
        let stored = one.game(Some(player), &id);
        assert_eq!(stored["version"], first["version"]);
    }
}
