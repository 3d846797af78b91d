//! A tournament by mail, with real mail: a Swiss of five chess players over three rounds,
//! played over HTTP while a real SMTP server takes what the server sends. Each round's pairing
//! is mailed once to each player in it who takes mail (their table, colour, opponent and the
//! game's link, or their bye), not to a player who turned the start of games off nor to one
//! without an address; every mail of a tournament's game names the tournament, round and
//! table; the end is mailed with each player's rank, as the tournament's standings say.

use crate::common;
use crate::mail::{player_with_mail, server, your_move};
use crate::tournaments::{end_chess, entered, tournament};
use common::mailbox::{Received, Sink};
use common::{ok_json, Chooser, Player};
use reqwest::StatusCode;
use serde_json::json;
use std::collections::HashMap;

const TOURNAMENT_LINK: &str = "https://play.avalanche.test/#/tournament/";

/// Points as a person writes them: 1, ½, 2½.
fn points_words(points: f64) -> String {
    let halves = (points * 2.0).round() as i64;
    match (halves / 2, halves % 2) {
        (0, 1) => "½".to_string(),
        (whole, 1) => format!("{whole}½"),
        (whole, _) => whole.to_string(),
    }
}

/// 1st, 2nd, 3rd, 4th, 5th.
fn place(rank: u64) -> String {
    let suffix = match rank {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{rank}{suffix}")
}

/// Asserts that `mail`'s text holds `words`.
fn says(mail: &Received, words: &str) {
    assert!(
        mail.text.contains(words),
        "{words:?} not in:\n{}",
        mail.text
    );
}

/// Whether `mail` is a tournament's pairing or bye mail.
fn pairing(mail: &Received) -> bool {
    mail.subject.starts_with("Paired: ") || mail.subject.starts_with("A bye for you: ")
}

#[test]
fn a_swiss_is_mailed_round_by_round_and_its_end_with_each_players_rank() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let mut people: Vec<(Player, &str, Option<&str>)> = Vec::new();
    for (name, address) in [
        ("Ann", "ann@players.test"),
        ("Bob", "bob@players.test"),
        ("Cid", "cid@players.test"),
        ("Dan", "dan@players.test"),
    ] {
        let player = player_with_mail(&server, &mut sink, name, address);
        people.push((player, name, Some(address)));
    }
    people.push((app.create_player("Eve"), "Eve", None));
    // Dan is not told when his games start: no pairing mail for him.
    let set = ok_json(
        app.client
            .put(app.url("/v1/players/me/notifications"))
            .bearer_auth(&people[3].0.token)
            .json(&json!({"game_started": false}))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(set["notifications"]["game_started"], false, "{set}");
    let players: Vec<Player> = people.iter().map(|(p, _, _)| p.clone()).collect();
    let name_of: HashMap<String, &str> =
        people.iter().map(|(p, n, _)| (p.id.clone(), *n)).collect();
    let by_id: HashMap<&str, &Player> = players.iter().map(|p| (p.id.as_str(), p)).collect();
    let id = entered(
        app,
        &players,
        json!({"name": "Spring Swiss", "kind": "avalanche-chess", "format": "swiss",
            "seats": 2, "rounds": 3, "time_control": {"type": "days_per_move", "days": 3}}),
    );
    let mut chooser = Chooser::new(61);
    let mut quoted: Vec<String> = Vec::new();

    for round in 1..=3u64 {
        let t = tournament(app, &id);
        let paired = &t["rounds_played"][round as usize - 1];
        assert_eq!(paired["round"], round, "{t}");
        let tables = paired["tables"].as_array().expect("tables");
        // Each player who takes the start of their games by mail: their table or their bye.
        for (player, name, address) in &people[..3] {
            let address = address.expect("an address");
            let mail = sink.next(&format!("round {round}'s pairing to {name}"), |m| {
                m.rcpt_to == address && pairing(m) && m.subject.contains(&format!("round {round}"))
            });
            says(&mail, &format!("Hello {name},"));
            says(&mail, &format!("Round {round} of Spring Swiss is paired: a Swiss of Avalanche Chess over 3 rounds, unrated, 5 players."));
            says(&mail, &format!("{TOURNAMENT_LINK}{id}"));
            assert!(mail.header("List-Unsubscribe").is_some(), "{}", mail.raw);
            let table = tables.iter().find(|table| {
                table["players"]
                    .as_array()
                    .is_some_and(|ps| ps.iter().any(|p| p == player.id.as_str()))
            });
            match table {
                Some(table) => {
                    let game = table["game"].as_str().expect("game");
                    let seats: Vec<&str> = table["players"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| name_of[p.as_str().unwrap()])
                        .collect();
                    let other = seats.iter().find(|n| *n != name).expect("an opponent");
                    assert_eq!(
                        mail.subject,
                        format!(
                            "Paired: Avalanche Chess with {other} (Spring Swiss, round {round}, table {}) [{game}]",
                            table["table"]
                        )
                    );
                    let you = |n: &str| if n == *name { " (you)" } else { "" };
                    says(
                        &mail,
                        &format!(
                            "  White: {}{}\n  Black: {}{}\n",
                            seats[0],
                            you(seats[0]),
                            seats[1],
                            you(seats[1])
                        ),
                    );
                    says(&mail, "Each move must be made within 72 hours.");
                    says(&mail, &format!("https://play.avalanche.test/#/game/{game}"));
                }
                None => {
                    assert!(
                        paired["byes"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|p| p == player.id.as_str()),
                        "{name} is neither at a table nor given a bye: {paired}"
                    );
                    assert_eq!(
                        mail.subject,
                        format!("A bye for you: Spring Swiss, round {round}")
                    );
                    says(
                        &mail,
                        "You have a bye: no game for you this round. A Swiss bye scores 1 point.",
                    );
                }
            }
            if round > 1 {
                // The standings as the round before left them, as the tournament shows them.
                let row = t["standings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["player"] == player.id.as_str())
                    .expect("a standings row");
                let points = points_words(row["points"].as_f64().unwrap());
                assert!(
                    mail.text.contains(&format!(
                        "After round {}: {}",
                        round - 1,
                        place(row["rank"].as_u64().unwrap())
                    )) && mail.text.contains(&format!(" of 5 with {points} point")),
                    "{}\n{t}",
                    mail.text
                );
            }
            if round == 2 {
                quoted.push(format!(
                    "To {address}\nSubject: {}\n\n{}",
                    mail.subject, mail.text
                ));
            }
        }

        // Every game of the round played out; a game's mails name the tournament.
        for table in tables {
            let game = table["game"].as_str().expect("game");
            let seats: Vec<&Player> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| by_id[p.as_str().unwrap()])
                .collect();
            let white = people.iter().find(|(p, _, _)| p.id == seats[0].id).unwrap();
            let label = format!("(Spring Swiss, round {round}, table {})", table["table"]);
            if let Some(address) = white.2 {
                let turn = your_move(&mut sink, address, game);
                assert_eq!(
                    turn.subject,
                    format!(
                        "Your move in Avalanche Chess with {} {label} [{game}]",
                        name_of[&seats[1].id]
                    )
                );
                assert!(
                    turn.text.starts_with(&format!(
                        "Spring Swiss, round {round}, table {} ({TOURNAMENT_LINK}{id}).\n",
                        table["table"]
                    )),
                    "{}",
                    turn.text
                );
                if white.1 != "Dan" {
                    // It answers the pairing mail: one conversation for the game.
                    assert!(
                        turn.header("In-Reply-To").is_some_and(|r| r.contains(&id)),
                        "{}",
                        turn.raw
                    );
                }
                if round == 1 && quoted.is_empty() {
                    quoted.push(format!(
                        "To {address}\nSubject: {}\n\n{}",
                        turn.subject, turn.text
                    ));
                }
            }
            end_chess(app, game, &seats, &mut chooser);
            for seat in &seats {
                let Some(address) = people.iter().find(|(p, _, _)| p.id == seat.id).unwrap().2
                else {
                    continue;
                };
                let over = sink.next(&format!("the end of {game} to {address}"), |m| {
                    m.rcpt_to == address
                        && m.subject.starts_with("Game over")
                        && m.subject.contains(game)
                });
                assert!(over.subject.contains(&label), "{}", over.subject);
            }
        }
    }

    // The end, to each player who takes the end of games by mail (Dan too), with their rank.
    let t = tournament(app, &id);
    assert_eq!(t["status"], "finished", "{t}");
    let standings = t["standings"].as_array().unwrap();
    for (player, name, address) in &people[..4] {
        let address = address.expect("an address");
        let row = standings
            .iter()
            .find(|r| r["player"] == player.id.as_str())
            .expect("a row");
        let mail = sink.next(&format!("the end to {name}"), |m| {
            m.rcpt_to == address && m.subject.starts_with("Spring Swiss is over")
        });
        let rank = place(row["rank"].as_u64().unwrap());
        assert_eq!(
            mail.subject,
            format!("Spring Swiss is over: you finished {rank}")
        );
        let points = points_words(row["points"].as_f64().unwrap());
        assert!(
            mail.text.contains(&format!("You finished {rank}"))
                && mail.text.contains(&format!(" of 5 with {points} point")),
            "{}\n{t}",
            mail.text
        );
        says(&mail, "The standings:\n");
        for (_, other, _) in &people {
            assert!(
                mail.text.contains(other),
                "{other} in the standings: {}",
                mail.text
            );
        }
        says(&mail, &format!("{name} (you)"));
        says(&mail, "Buchholz");
        if *name == "Ann" {
            quoted.push(format!(
                "To {address}\nSubject: {}\n\n{}",
                mail.subject, mail.text
            ));
        }
    }

    // One pairing mail a round to each player who takes them, none to Dan; no game of the
    // tournament told its start on its own (the pairing told it).
    let all = sink.all();
    for (_, name, address) in &people[..4] {
        let address = address.unwrap();
        let pairings = all
            .iter()
            .filter(|m| m.rcpt_to == address && pairing(m))
            .count();
        let expected = if *name == "Dan" { 0 } else { 3 };
        assert_eq!(pairings, expected, "{name}'s pairing mails");
        let ends = all
            .iter()
            .filter(|m| m.rcpt_to == address && m.subject.starts_with("Spring Swiss is over"))
            .count();
        assert_eq!(ends, 1, "{name}'s end mails");
    }
    assert!(
        !all.iter().any(|m| m.subject.starts_with("Game started")),
        "{:#?}",
        all.iter()
            .map(|m| (&m.rcpt_to, &m.subject))
            .collect::<Vec<_>>()
    );
    // The mails as a player reads them (shown with --nocapture).
    println!("{}", quoted.join("\n------\n"));
}

#[test]
fn a_knock_out_mails_the_bye_and_when_each_player_went_out() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let people = [
        ("Ann", "ann@players.test"),
        ("Bob", "bob@players.test"),
        ("Cid", "cid@players.test"),
    ];
    let players: Vec<Player> = people
        .iter()
        .map(|(name, address)| player_with_mail(&server, &mut sink, name, address))
        .collect();
    let address_of: HashMap<&str, &str> = players
        .iter()
        .zip(&people)
        .map(|(p, (_, address))| (p.id.as_str(), *address))
        .collect();
    let id = entered(
        app,
        &players,
        json!({"name": "Winter cup", "kind": "avalanche-chess", "format": "knock_out",
            "seats": 2}),
    );
    let mut chooser = Chooser::new(7);
    let mut byes = 0;
    let mut quoted: Vec<String> = Vec::new();
    for round in 1..=5u64 {
        let t = tournament(app, &id);
        if t["status"] == "finished" {
            break;
        }
        let paired = &t["rounds_played"][round as usize - 1];
        for bye in paired["byes"].as_array().unwrap() {
            let address = address_of[bye.as_str().unwrap()];
            let mail = sink.next(&format!("round {round}'s bye to {address}"), |m| {
                m.rcpt_to == address
                    && m.subject == format!("A bye for you: Winter cup, round {round}")
            });
            says(
                &mail,
                "You have a bye: no game for you this round. You go on to the next round.",
            );
            quoted.push(format!(
                "To {address}\nSubject: {}\n\n{}",
                mail.subject, mail.text
            ));
            byes += 1;
        }
        for table in paired["tables"].as_array().unwrap() {
            let game = table["game"].as_str().unwrap();
            let seats: Vec<&Player> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    players
                        .iter()
                        .find(|x| x.id == p.as_str().unwrap())
                        .unwrap()
                })
                .collect();
            for seat in &seats {
                let address = address_of[seat.id.as_str()];
                let mail = sink.next(&format!("the pairing of {game} to {address}"), |m| {
                    m.rcpt_to == address
                        && m.subject.starts_with("Paired: ")
                        && m.subject.contains(game)
                });
                assert!(
                    mail.subject
                        .contains(&format!("(Winter cup, round {round}, table 1)")),
                    "{}",
                    mail.subject
                );
            }
            end_chess(app, game, &seats, &mut chooser);
        }
    }
    assert!(byes > 0, "three players: a bye in the first round");
    let t = tournament(app, &id);
    assert_eq!(t["status"], "finished", "{t}");
    for row in t["standings"].as_array().unwrap() {
        let address = address_of[row["player"].as_str().unwrap()];
        let rank = place(row["rank"].as_u64().unwrap());
        let mail = sink.next(&format!("the end to {address}"), |m| {
            m.rcpt_to == address && m.subject.starts_with("Winter cup is over")
        });
        assert_eq!(
            mail.subject,
            format!("Winter cup is over: you finished {rank}")
        );
        let said = match row["out_in_round"].as_u64() {
            Some(round) => format!("You went out in round {round}.\n"),
            None => "You won it.\n".to_string(),
        };
        assert!(mail.text.contains(&said), "{said}: {}", mail.text);
        quoted.push(format!(
            "To {address}\nSubject: {}\n\n{}",
            mail.subject, mail.text
        ));
    }
    println!("{}", quoted.join("\n------\n"));
}
