//! "A token thief keeps the account: whoever calls revoke-all first wins; the owner cannot
//! recover." The thief, holding Ann's key, revokes every other token; Ann, with no token
//! left, asks for her account back, reads the mail the real SMTP server received at her
//! confirmed address, follows its link as a browser does, and gets a new key while every
//! token the thief holds stops working. The link works once, and its secret is nowhere in
//! the server's data.

use crate::common;
use crate::mail::{player_with_mail, server};
use common::mailbox::Sink;
use common::{ok_json, Player};
use reqwest::StatusCode;
use serde_json::json;

#[test]
fn an_owner_takes_the_account_back_by_the_mailed_link_and_the_thief_is_out() {
    let mut sink = Sink::start();
    let data = tempfile::tempdir().unwrap();
    let (server, _) = server(&sink, data.path(), &[]);
    let app = &server.app;
    let ann = player_with_mail(&server, &mut sink, "Ann", "ann@players.test");
    let acts = |player: &Player| {
        app.get("/v1/players/me", Some(player))
            .send()
            .unwrap()
            .status()
    };

    // The thief, with Ann's stolen key, gives itself a token and revokes every other one.
    let issued = ok_json(
        app.post("/v1/players/me/tokens", Some(&ann)).send(),
        StatusCode::CREATED,
    );
    let thief = Player {
        id: ann.id.clone(),
        token: issued["token"].as_str().unwrap().to_string(),
    };
    let revoked = ok_json(
        app.client
            .delete(app.url("/v1/players/me/tokens?keep=current"))
            .bearer_auth(&thief.token)
            .send(),
        StatusCode::OK,
    );
    assert_eq!(revoked["revoked"], 1);
    assert_eq!(acts(&ann), StatusCode::UNAUTHORIZED, "Ann is locked out");

    // Ann asks, with no token; so does anyone for a player without an address: the same
    // answer, and no mail for that one.
    let nobody = app.create_player("Nobody");
    for id in [&nobody.id, &ann.id] {
        let asked = ok_json(
            app.post("/v1/players/recovery", None)
                .json(&json!({"player_id": id}))
                .send(),
            StatusCode::ACCEPTED,
        );
        assert_eq!(asked["player_id"], id.as_str());
    }
    let mail = sink.next("the recovery link", |m| {
        m.subject == "Take your Avalanche account back"
    });
    assert_eq!(
        mail.rcpt_to, "ann@players.test",
        "only to the confirmed address"
    );
    let link = mail
        .text
        .split_whitespace()
        .find(|word| word.starts_with("https://play.avalanche.test/v1/recovery/"))
        .unwrap_or_else(|| panic!("a link in the mail: {}", mail.text))
        .to_string();
    let secret = link.rsplit('/').next().unwrap().to_string();
    let path = link.replace("https://play.avalanche.test", "");

    // A mail scanner's GET changes nothing; the page's button does it.
    let page = app.get(&path, None).send().unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().unwrap();
    assert!(page.contains("<form method=\"post\""), "{page}");
    assert_eq!(acts(&thief), StatusCode::OK);
    let done = app
        .client
        .post(app.url(&path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("")
        .send()
        .unwrap();
    assert_eq!(done.status(), StatusCode::OK);
    let done = done.text().unwrap();
    let key = done
        .split(['<', '>'])
        .find(|part| part.starts_with("av_"))
        .unwrap_or_else(|| panic!("the new key on the page: {done}"))
        .to_string();
    let ann_again = Player {
        id: ann.id.clone(),
        token: key,
    };

    assert_eq!(acts(&thief), StatusCode::UNAUTHORIZED, "the thief is out");
    let me = ok_json(
        app.get("/v1/players/me", Some(&ann_again)).send(),
        StatusCode::OK,
    );
    assert_eq!(me["id"], ann.id.as_str());
    let tokens = ok_json(
        app.get("/v1/players/me/tokens", Some(&ann_again)).send(),
        StatusCode::OK,
    );
    let items = tokens["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{tokens}");
    assert_eq!(items[0]["scopes"], json!(["read", "play", "account"]));

    // Once only.
    let again = app.client.post(app.url(&path)).send().unwrap();
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    let again: serde_json::Value = again.json().unwrap();
    assert_eq!(again["code"], "invalid_recovery_link");
    assert_eq!(acts(&ann_again), StatusCode::OK);
    // Only its hash is kept: the secret is in no file of the server's data.
    for entry in walk(data.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !bytes
                .windows(secret.len())
                .any(|window| window == secret.as_bytes()),
            "{} holds the link's secret",
            entry.display()
        );
    }
}

fn walk(folder: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
