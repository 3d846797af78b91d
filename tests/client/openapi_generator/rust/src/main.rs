//! Plays one game of Avalanche Chess and one of Avalanche (cards) to their end against a
//! running server, with the client openapi-generator's `rust` generator writes from
//! openapi/openapi.json. Nothing of the generated code is edited: every answer is read through
//! its models and every command posted through them, so a union the client cannot read or
//! write (a tag written twice, a tag it cannot find) fails here.
//!
//! Usage: play-rust BASE_URL

use avalanche_client::apis::configuration::Configuration;
use avalanche_client::apis::{games_api, play_api, players_api, replay_api, Error};
use avalanche_client::models;
use serde_json::{json, Value};
use std::time::Duration;

/// The table's commands, posted like the game's own: the game is played with the game's own.
const TABLE: [&str; 10] = [
    "join",
    "cancel",
    "resign",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "request_takeback",
    "accept_takeback",
    "decline_takeback",
    "claim_timeout",
];

type Failure = Box<dyn std::error::Error>;

fn configuration(base: &str, token: Option<String>) -> Configuration {
    Configuration {
        base_path: base.trim_end_matches('/').to_string(),
        bearer_access_token: token,
        ..Configuration::default()
    }
}

/// Sends a request again while the server answers 429 (its limits on each player's commands):
/// nothing was played. The generated errors keep the status but not the headers, so the wait
/// is the least `Retry-After` the server gives (1 s).
async fn politely<T, E, F, Fut>(mut call: F) -> Result<T, Error<E>>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Error<E>>>,
{
    let mut attempt = 0;
    loop {
        match call().await {
            Err(Error::ResponseError(answer)) if answer.status.as_u16() == 429 && attempt < 30 => {
                attempt += 1;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            other => return other,
        }
    }
}

/// The same field of whichever kind a game union holds.
macro_rules! of_kind {
    ($union:expr, $enum:ident, $game:ident => $read:expr) => {
        match $union {
            models::$enum::AvalancheChess($game) => $read,
            models::$enum::Avalanche($game) => $read,
            models::$enum::SkiRuns($game) => $read,
            models::$enum::Vamanos($game) => $read,
            models::$enum::Altitude($game) => $read,
        }
    };
}

fn check(condition: bool, what: &str) -> Result<(), Failure> {
    if condition {
        Ok(())
    } else {
        Err(format!("failed: {what}").into())
    }
}

async fn play_one(base: &str, kind: &str, seats: usize, seed: u64) -> Result<String, Failure> {
    let anonymous = configuration(base, None);
    let mut table = Vec::new();
    for n in 0..seats {
        let sign_up = models::SignUp::new(format!("{kind} rust {n}"));
        let created = politely(|| players_api::create_player(&anonymous, sign_up.clone())).await?;
        table.push(configuration(base, Some(created.token)));
    }
    let new_game: models::NewGame =
        serde_json::from_value(json!({"kind": kind, "seats": seats, "options": {}}))?;
    let game = politely(|| games_api::create_game(&table[0], new_game.clone())).await?;
    let id = of_kind!(&game, GameSummary, g => g.id.clone());
    check(
        serde_json::to_value(&game)?["kind"] == kind,
        "the game says its kind",
    )?;
    for seat in &table[1..] {
        let answer = politely(|| {
            games_api::join_game(seat, &id, None, None, Some(models::JoinRequest::new()))
        })
        .await?;
        check(!answer.events.is_empty(), "a join is recorded")?;
    }

    let mut state = seed;
    let mut below = |n: usize| {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        (state % n as u64) as usize
    };
    let mut commands = 0;
    loop {
        let now = politely(|| games_api::get_game(&anonymous, &id)).await?;
        let (status, to_act) = of_kind!(&now, GameSummary, g => (g.status, g.to_act.clone()));
        if status == models::Status::Finished {
            break;
        }
        check(!to_act.is_empty(), "someone is to act in a running game")?;
        let seat = to_act[below(to_act.len())] as usize;
        let legal = politely(|| play_api::list_legal_commands(&table[seat], &id, None)).await?;
        let version = of_kind!(&legal, LegalList, l => l.version);
        // Each legal command as its kind's model writes it, then read as the request's union.
        let wire = serde_json::to_value(&legal)?;
        let listed = wire["commands"].as_array().cloned().unwrap_or_default();
        let own: Vec<&Value> = listed
            .iter()
            .filter(|c| {
                let name = c["command"]["type"].as_str().unwrap_or_default();
                if commands >= 1500 {
                    name == "resign"
                } else {
                    !TABLE.contains(&name)
                }
            })
            .collect();
        check(
            !own.is_empty(),
            &format!("seat {seat} has a command: {wire}"),
        )?;
        let chosen = own[below(own.len())];
        let command: models::GameCommand = serde_json::from_value(chosen["command"].clone())?;
        let if_match = format!("\"{version}\"");
        let answer = politely(|| {
            play_api::play_command(&table[seat], &id, command.clone(), Some(&if_match), None)
        })
        .await
        .map_err(|e| format!("{}: {e:?}", chosen["notation"]))?;
        let after = of_kind!(&*answer.game, GameSummary, g => g.version);
        check(after > version, "the command moved the game on")?;
        commands += 1;
    }
    let audit = politely(|| replay_api::audit_game(&anonymous, &id)).await?;
    check(audit.valid, &format!("the game of {kind} audits valid"))?;
    let report = audit.report.flatten().ok_or("an audit's report")?;
    let audited = of_kind!(&*report, AuditReport, r => r.commands);
    check(audited > 0, "every command decided again")?;
    let finished = politely(|| games_api::get_game(&anonymous, &id)).await?;
    let (version, outcome) = of_kind!(&finished, GameSummary, g => (g.version, g.outcome.clone()));
    let log = politely(|| replay_api::get_game_log(&anonymous, &id)).await?;
    let logged = of_kind!(&log, GameLog, l => l.events.len());
    check(logged as i64 == version, "the log holds every event")?;
    let outcome = serde_json::to_string(&outcome)?;
    Ok(format!(
        "{kind}: {commands} commands, {version} events, {outcome}"
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Failure> {
    let base = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    for (i, (kind, seats)) in [("avalanche-chess", 2), ("avalanche", 3)]
        .iter()
        .enumerate()
    {
        println!("{}", play_one(&base, kind, *seats, 31 + i as u64).await?);
    }
    println!("rust (openapi-generator): a chess game and a card game played to their end");
    Ok(())
}
