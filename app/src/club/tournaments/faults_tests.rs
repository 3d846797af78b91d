//! The driver after a crash cut a round's pairing short: a table whose game seated only some
//! of its players, then forfeited by a withdrawal, must not leave that game waiting for a seat.

use super::*;
use crate::sealing::SecretsKey;
use domain::table::Status;
use std::sync::Arc;

fn club_and_games() -> (Club, Games) {
    let store: Arc<dyn storage::Storage> = Arc::new(storage::MemoryStore::new());
    let registry = Arc::new(domain::Registry::standard());
    let key = Arc::new(SecretsKey::generate().expect("a key"));
    let games = Games::new(store.clone(), registry.clone(), key, 64);
    (Club::new(store, registry), games)
}

/// A round robin of `players` at tables of `seats` of `kind`, started and paired by its
/// creator (the first player) with none of its games made: the driver has not run, as when
/// the node crashed right after the pairing.
async fn paired(club: &Club, games: &Games, kind: &str, seats: usize, players: &[&str]) -> String {
    let created = club
        .create_tournament(
            games,
            players[0],
            NewTournament {
                name: "Faults cup".into(),
                kind: kind.into(),
                variant: None,
                options: None,
                format: Format::RoundRobin,
                seats,
                rounds: (seats > 2).then_some(1),
                time_control: None,
                rated: false,
                entry_until: Utc::now() + chrono::Duration::days(1),
                min_players: seats,
                max_players: 16,
                starts_at: None,
                league: None,
            },
        )
        .await
        .expect("created");
    for player in players {
        club.tournament_command(
            games,
            &created.id,
            &format!("player:{player}"),
            Command::Join {
                player: player.to_string(),
            },
        )
        .await
        .expect("joined");
    }
    club.tournament_command(
        games,
        &created.id,
        "player:ana",
        Command::Start {
            by: players[0].to_string(),
        },
    )
    .await
    .expect("started");
    created.id
}

/// Game `game`'s status as its rules hold it.
async fn status(games: &Games, game: &str) -> Status {
    games
        .slot(game)
        .expect("the game")
        .lock()
        .await
        .game
        .facts()
        .status
}

#[tokio::test]
async fn a_table_forfeited_when_only_its_first_player_sat_cancels_its_game() {
    let (club, games) = club_and_games();
    let id = paired(
        &club,
        &games,
        "avalanche-chess",
        2,
        &["ana", "ben", "cai", "dan"],
    )
    .await;
    let round = club.tournament(&id).await.expect("read").rounds_played[0].clone();
    let table = &round.tables[0];
    // The driver made the first table's game and seated its first player, then stopped.
    club.start_table(&games, &id, &table.game, &table.players[..1], &[])
        .await
        .expect("the game made");
    club.catch_up().await.expect("folded");
    assert_eq!(status(&games, &table.game).await, Status::Open);

    let quitter = table.players[1].clone();
    let after = club
        .tournament_act(&games, &id, &quitter, TournamentAct::Withdraw)
        .await
        .expect("withdrew");
    let result = after.rounds_played[0].tables[0]
        .result
        .clone()
        .expect("the table forfeited");
    assert_eq!(result.reason, "withdrawal");
    assert_eq!(result.places, vec![1, 2]);
    // The game no longer waits for the seat of the player who left: it ended, counting for
    // nobody (it never began), and it is in nobody's open games.
    assert_eq!(status(&games, &table.game).await, Status::Finished);
    let book = club.read();
    let game = &book.games[&table.game];
    assert!(!game.started && game.outcome.is_some(), "cancelled");
    // The other table of the round was made and seated in full.
    let other = &after.rounds_played[0].tables[1];
    assert!(book.games[&other.game].started);
}

#[tokio::test]
async fn a_table_of_three_forfeited_when_two_sat_is_seated_and_resigned_for_the_one_who_left() {
    let (club, games) = club_and_games();
    let id = paired(&club, &games, "avalanche", 3, &["ana", "ben", "cai"]).await;
    let round = club.tournament(&id).await.expect("read").rounds_played[0].clone();
    let table = &round.tables[0];
    club.start_table(&games, &id, &table.game, &table.players[..2], &[])
        .await
        .expect("the game made, two seated");
    club.catch_up().await.expect("folded");
    assert_eq!(status(&games, &table.game).await, Status::Open);

    let quitter = table.players[2].clone();
    let after = club
        .tournament_act(&games, &id, &quitter, TournamentAct::Withdraw)
        .await
        .expect("withdrew");
    assert_eq!(
        after.status,
        Phase::Finished,
        "its only table was forfeited"
    );
    // Nobody can take the seat any more: the game began with its three players and the one
    // who withdrew resigned it, as from a game that had begun before the withdrawal.
    assert_ne!(status(&games, &table.game).await, Status::Open);
    let book = club.read();
    let game = &book.games[&table.game];
    assert!(game.started);
    assert_eq!(game.players[2].as_deref(), Some(quitter.as_str()));
    assert!(game.left[2], "the player who withdrew resigned");
}
