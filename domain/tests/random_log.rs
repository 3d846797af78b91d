//! `play_random_log` plays every game at the table as the service does, and the log it records
//! folds back into a game at the log's last version.

use domain::testing::play_random_log;
use domain::{Registry, Seed};
use serde_json::json;

#[test]
fn a_random_log_of_every_kind_folds_back_to_its_last_version() {
    let registry = Registry::standard();
    for id in registry.ids() {
        let kind = registry.get(&id).expect("registered");
        let options = (id == "vamanos").then(|| json!({"target": 30}));
        let log = play_random_log(kind, None, options, 2, Seed([3; 32]), 1, 300)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(log.commands.len() > 2, "{id}: the joins and some moves");
        let payloads = log.payloads();
        let versions: Vec<u64> = log.events.iter().map(|e| e.version).collect();
        assert_eq!(
            versions,
            (1..=payloads.len() as u64).collect::<Vec<_>>(),
            "{id}: gapless"
        );
        let folded = kind.fold(&payloads).expect("folds");
        assert_eq!(folded.version(), payloads.len() as u64, "{id}");
        assert_eq!(log.kind, id);
    }
}
