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

/// "Invisible fillers and look-alike letters still pass": `Ann` with a Hangul filler after it,
/// and `Аnn` with a Cyrillic А, beside the real Ann. Invisible characters are refused; a name
/// that looks like another player's (their Unicode TR39 skeletons agree) but is not it is
/// refused as taken, and nothing is created. The very same name is a namesake, as before.
#[test]
fn invisible_fillers_and_look_alike_names_are_refused() {
    let app = TestApp::spawn();
    app.create_player("Ann");
    let create = |name: &str| {
        app.post("/v1/players", None)
            .json(&json!({"name": name}))
            .send()
            .unwrap()
    };
    for filler in ["Ann\u{3164}", "A\u{115f}nn", "Ann\u{ffa0}", "Ann\u{2800}"] {
        assert_eq!(
            problem(create(filler), StatusCode::BAD_REQUEST),
            "invalid_name",
            "{filler:?}"
        );
    }
    for look_alike in ["\u{410}nn", "\u{391}nn", "Ann "] {
        let answer = create(look_alike);
        if look_alike.trim() == "Ann" {
            ok_json(Ok(answer), StatusCode::CREATED);
        } else {
            assert_eq!(
                problem(answer, StatusCode::CONFLICT),
                "name_taken",
                "{look_alike:?}"
            );
        }
    }
    // The first of a look holds it: a look-alike's own look-alike is refused too.
    app.create_player("Bob");
    assert_eq!(
        problem(create("B\u{43e}b"), StatusCode::CONFLICT),
        "name_taken"
    );
}
