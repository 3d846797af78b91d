//! What one event of a tournament's stream tells a player in it, derived from the event and the
//! tournament folded up to the event before it: a round paired (their table, seat and game, or
//! a bye), a round they played in closed, the end with their rank and points, and a league's
//! next edition they are entered in. Only what the tournament's public page shows.

use super::notification::{Notification, NotificationType, TournamentNotice};
use chrono::{DateTime, Utc};
use domain::tournament::{Settings, Tournament, TournamentEvent};
use domain::Seat;

/// One event of a tournament's stream, as a notice needs it.
pub struct TournamentEventAt<'a> {
    /// The tournament's id (its stream).
    pub stream: &'a str,
    pub version: u64,
    pub recorded_at: DateTime<Utc>,
    pub event: &'a TournamentEvent,
}

/// The notices for `player` of `at`, which follows `before` (the fold of the events before it).
/// A player who withdrew after the start is told no more pairings or closed rounds; the end is
/// told to every player of the standings.
pub fn tournament_notifications(
    before: &Tournament,
    at: &TournamentEventAt<'_>,
    player: &str,
) -> Vec<Notification> {
    let settings = match at.event {
        TournamentEvent::TournamentCreated(settings) => settings.as_ref(),
        _ => match &before.settings {
            Some(settings) => settings,
            None => return Vec::new(),
        },
    };
    let notice = |kind: NotificationType, seat: Seat, told: TournamentNotice| Notification {
        tournament: Some(told),
        ..Notification::new(
            kind,
            (at.stream, &settings.kind),
            at.version,
            (player, seat),
            at.recorded_at,
        )
    };
    let told = TournamentNotice {
        id: at.stream.to_string(),
        name: settings.name.clone(),
        round: None,
        table: None,
        game: None,
        players: Vec::new(),
        bye: false,
        rank: None,
        points: None,
        division: None,
        edition: None,
        previous: None,
    };
    let withdrawn = before.withdrawn(player);
    let found = match at.event {
        TournamentEvent::RoundPaired {
            round,
            tables,
            byes,
        } if !withdrawn => {
            let seated = tables.iter().find_map(|table| {
                let seat = table.players.iter().position(|p| p == player)?;
                Some((table, seat))
            });
            match seated {
                Some((table, seat)) => {
                    // A table with a player who withdrew is forfeited at once: no game.
                    let forfeited = table.players.iter().any(|p| before.withdrawn(p));
                    let told = TournamentNotice {
                        round: Some(*round),
                        table: Some(table.table),
                        game: (!forfeited).then(|| table.game.clone()),
                        players: table.players.clone(),
                        ..told
                    };
                    Some(notice(NotificationType::RoundPaired, seat, told))
                }
                None if byes.iter().any(|p| p == player) => {
                    let told = TournamentNotice {
                        round: Some(*round),
                        bye: true,
                        ..told
                    };
                    Some(notice(NotificationType::RoundPaired, 0, told))
                }
                None => None,
            }
        }
        TournamentEvent::RoundClosed { round } if !withdrawn => {
            let played = before.rounds.iter().any(|r| {
                r.number == *round
                    && (r.byes.iter().any(|p| p == player)
                        || r.tables
                            .iter()
                            .any(|t| t.players.iter().any(|p| p == player)))
            });
            played.then(|| {
                let told = TournamentNotice {
                    round: Some(*round),
                    ..told
                };
                notice(NotificationType::RoundClosed, 0, told)
            })
        }
        TournamentEvent::TournamentFinished { standings, .. } => standings
            .iter()
            .find(|row| row.player == player)
            .map(|row| {
                let told = TournamentNotice {
                    rank: Some(row.rank),
                    points: Some(row.points),
                    division: row.division,
                    ..told
                };
                notice(NotificationType::TournamentFinished, 0, told)
            }),
        TournamentEvent::TournamentCreated(settings) if carried(settings, player) => {
            let league = settings.league.as_ref();
            let told = TournamentNotice {
                edition: league.map(|l| l.edition),
                previous: league.and_then(|l| l.previous.clone()),
                ..told
            };
            Some(notice(NotificationType::NextEdition, 0, told))
        }
        _ => None,
    };
    found.into_iter().collect()
}

/// Whether a league's edition created with `settings` carries `player` over from the edition
/// before.
fn carried(settings: &Settings, player: &str) -> bool {
    settings.league.as_ref().is_some_and(|league| {
        league.previous.is_some() && league.carried.iter().flatten().any(|p| p == player)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::table::TimeControl;
    use domain::tournament::{Format, League, PairedTable, StandingRow};

    fn settings(league: Option<League>) -> Settings {
        Settings {
            name: "Autumn cup".into(),
            creator: "ann".into(),
            kind: "avalanche-chess".into(),
            variant: None,
            options: None,
            format: if league.is_some() {
                Format::League
            } else {
                Format::Swiss
            },
            seats: 2,
            rounds: Some(3),
            time_control: TimeControl::default(),
            rated: false,
            entry_until: DateTime::UNIX_EPOCH,
            min_players: 2,
            max_players: 8,
            seed_commitment: "00".into(),
            starts_at: None,
            league,
        }
    }

    /// The fold of `events` and what the next event, `then`, tells each of `players`.
    fn told(
        events: &[TournamentEvent],
        then: TournamentEvent,
        players: &[&str],
    ) -> Vec<Vec<Notification>> {
        let before = Tournament::fold(events);
        let at = TournamentEventAt {
            stream: "t-00",
            version: before.version + 1,
            recorded_at: DateTime::UNIX_EPOCH,
            event: &then,
        };
        players
            .iter()
            .map(|p| tournament_notifications(&before, &at, p))
            .collect()
    }

    fn started(players: &[&str]) -> Vec<TournamentEvent> {
        let mut events = vec![TournamentEvent::TournamentCreated(Box::new(settings(None)))];
        for p in players {
            events.push(TournamentEvent::PlayerJoined {
                player: p.to_string(),
            });
        }
        events.push(TournamentEvent::TournamentStarted {
            order: players.iter().map(|p| p.to_string()).collect(),
            divisions: Vec::new(),
            moves: Vec::new(),
        });
        events
    }

    fn paired(round: u32, tables: &[&[&str]], byes: &[&str]) -> TournamentEvent {
        TournamentEvent::RoundPaired {
            round,
            tables: tables
                .iter()
                .enumerate()
                .map(|(i, players)| PairedTable {
                    table: i + 1,
                    game: format!("g-{round}{}", i + 1),
                    players: players.iter().map(|p| p.to_string()).collect(),
                })
                .collect(),
            byes: byes.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn a_pairing_tells_each_player_their_table_seat_and_game_and_the_bye_its_bye() {
        let events = started(&["ann", "bo", "cy"]);
        let told = told(
            &events,
            paired(1, &[&["bo", "ann"]], &["cy"]),
            &["ann", "bo", "cy", "dee"],
        );
        let ann = &told[0][0];
        assert_eq!(ann.kind_of_notification, NotificationType::RoundPaired);
        assert_eq!(
            (ann.game_id.as_str(), ann.version, ann.seat),
            ("t-00", 6, 1)
        );
        assert_eq!(ann.id, "t-00:6:ann:round_paired");
        let table = ann.tournament.as_ref().unwrap();
        assert_eq!(
            (table.round, table.table, table.game.as_deref()),
            (Some(1), Some(1), Some("g-11"))
        );
        assert_eq!(table.players, ["bo", "ann"]);
        assert_eq!(told[1][0].seat, 0, "Bo is White");
        let bye = told[2][0].tournament.as_ref().unwrap();
        assert!(
            bye.bye && bye.table.is_none() && bye.game.is_none(),
            "{bye:?}"
        );
        assert!(told[3].is_empty(), "a player not in it is told nothing");
    }

    #[test]
    fn a_table_with_a_player_who_withdrew_has_no_game_and_the_withdrawn_player_is_not_told() {
        let mut events = started(&["ann", "bo"]);
        events.push(TournamentEvent::PlayerWithdrew {
            player: "bo".into(),
        });
        let told = told(&events, paired(2, &[&["ann", "bo"]], &[]), &["ann", "bo"]);
        let table = told[0][0].tournament.as_ref().unwrap();
        assert_eq!((table.table, table.game.as_deref()), (Some(1), None));
        assert!(told[1].is_empty());
    }

    #[test]
    fn a_round_closed_is_told_to_those_who_played_in_it_and_the_end_gives_rank_and_points() {
        let mut events = started(&["ann", "bo", "cy"]);
        events.push(paired(1, &[&["bo", "ann"]], &["cy"]));
        let closed = told(
            &events,
            TournamentEvent::RoundClosed { round: 1 },
            &["ann", "cy", "dee"],
        );
        assert_eq!(
            closed[0][0].kind_of_notification,
            NotificationType::RoundClosed
        );
        assert_eq!(closed[0][0].tournament.as_ref().unwrap().round, Some(1));
        assert_eq!(closed[1].len(), 1, "a bye played in the round");
        assert!(closed[2].is_empty());
        let row = |rank, player: &str, points| StandingRow {
            rank,
            player: player.into(),
            points,
            tie_breaks: Vec::new(),
            games: 1,
            out_in_round: None,
            division: None,
        };
        let finished = TournamentEvent::TournamentFinished {
            standings: vec![row(1, "ann", 1.0), row(2, "cy", 1.0), row(3, "bo", 0.0)],
            seed: "00".into(),
        };
        let told = told(&events, finished, &["bo", "dee"]);
        let end = told[0][0].tournament.as_ref().unwrap();
        assert_eq!(
            told[0][0].kind_of_notification,
            NotificationType::TournamentFinished
        );
        assert_eq!((end.rank, end.points), (Some(3), Some(0.0)));
        assert!(told[1].is_empty());
    }

    #[test]
    fn a_leagues_next_edition_is_told_to_the_players_it_carries_over() {
        let league = League {
            division_size: 4,
            promoted: 1,
            relegated: 1,
            edition: 2,
            previous: Some("t-01".into()),
            carried: vec![vec!["ann".into(), "bo".into()], vec!["cy".into()]],
        };
        let created = TournamentEvent::TournamentCreated(Box::new(settings(Some(league))));
        let told = told(&[], created, &["cy", "dee"]);
        let next = &told[0][0];
        assert_eq!(next.kind_of_notification, NotificationType::NextEdition);
        assert_eq!(next.game_id, "t-00");
        let edition = next.tournament.as_ref().unwrap();
        assert_eq!(
            (edition.edition, edition.previous.as_deref()),
            (Some(2), Some("t-01"))
        );
        assert!(told[1].is_empty());
    }
}
