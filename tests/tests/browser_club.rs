//! The club in a real browser: a player found by name and challenged from the lobby's waiting
//! room, the challenge accepted by the other player (the game starts), a resignation, the
//! rematch offered at the end, both players' pages with their ratings moved and charted, and a
//! player invited by name from an open game's page (mailed its link). axe on the lobby, the
//! game page and a player's page. Driven by `tests/browser/club.mjs` (see `browser_harness`).

use crate::browser_harness;
use crate::common;

use common::mailbox::Received;
use common::TestApp;

#[test]
fn a_player_found_by_name_is_challenged_accepts_plays_and_both_ratings_move() {
    let mail = tempfile::tempdir().unwrap();
    let app = TestApp::spawn_with_mail_folder(mail.path());
    let folder = mail.path().to_string_lossy().to_string();
    let result = browser_harness::run_with("club.mjs", &app.base, &[("MAIL_DIR", &folder)]);
    assert!(
        result["ratings"]["ann"]
            .as_str()
            .is_some_and(|r| r.starts_with("1662")),
        "{result}"
    );
    assert!(
        result["ratings"]["bo"]
            .as_str()
            .is_some_and(|r| r.starts_with("1338")),
        "{result}"
    );
    for page in ["lobby", "game", "player"] {
        assert_eq!(
            result["axe"][page],
            serde_json::json!([]),
            "axe on the {page}: {result}"
        );
    }
    browser_harness::no_overflow_nor_unnamed(&result);
    let shots = result["screenshots"].as_array().expect("screenshots");
    assert_eq!(shots.len(), 8, "{shots:?}");

    // Bo reads the invitation Ann sent from the game's page.
    let game = result["invited"].as_str().expect("the open game");
    let invitation = (0..100)
        .find_map(|_| {
            let found = std::fs::read_dir(mail.path())
                .unwrap()
                .filter_map(|f| Received::parse(f.ok()?.path()))
                .find(|m| m.to == "bo@players.test" && m.subject.contains("invites you"));
            if found.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            found
        })
        .expect("the invitation mailed to Bo");
    eprintln!("INVITATION\n{}\n{}", invitation.subject, invitation.text);
    assert_eq!(
        invitation.subject,
        format!("Ann invites you to Avalanche Chess [{game}]")
    );
    assert!(
        invitation.text.contains(&format!("/#/game/{game}")),
        "{}",
        invitation.text
    );
}
