//! Names that impersonate: "`Ann\u202eevil.exe\u202c` shows as "Annexe.live", `A\u200bn\u200dn\ufeff`
//! as "Ann", pixel for pixel beside the real Ann". Format characters, separators and
//! unassigned code points are refused, names are kept in NFC, and two players of one name are
//! told apart by their display names.

use crate::common;

use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::json;

#[test]
fn names_with_invisible_or_reordering_characters_are_refused_and_nothing_is_created() {
    let app = TestApp::spawn();
    for bad in [
        "Ann\u{202e}evil.exe\u{202c}",
        "A\u{200b}n\u{200d}n\u{feff}",
        "Ann\u{2066}x\u{2069}",
        "Ann\u{2028}Bob",
        "Ann\u{2029}",
        "Ann\u{e0001}",
        "Ann\u{0378}",
        "Ann\u{1}",
    ] {
        let refused = app
            .post("/v1/players", None)
            .json(&json!({"name": bad}))
            .send()
            .unwrap();
        assert_eq!(
            problem(refused, StatusCode::BAD_REQUEST),
            "invalid_name",
            "{bad:?}"
        );
    }
}

#[test]
fn names_are_kept_in_nfc_and_namesakes_are_told_apart() {
    let app = TestApp::spawn();
    let decomposed = ok_json(
        app.post("/v1/players", None)
            .json(&json!({"name": "Re\u{301}my"}))
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(decomposed["player"]["name"], "R\u{e9}my");

    let first = app.create_player("Ann");
    let second = app.create_player("Ann");
    let me = |player| {
        ok_json(
            app.get("/v1/players/me", Some(player)).send(),
            StatusCode::OK,
        )
    };
    let (one, two) = (me(&first), me(&second));
    assert_eq!(one["name"], two["name"]);
    assert_ne!(one["display_name"], two["display_name"]);
    let shown = one["display_name"].as_str().unwrap();
    assert!(shown.starts_with("Ann #"), "{shown}");
    assert_eq!(&shown[5..], &first.id[2..6]);
}
