//! The account page's keys in a real browser: a player with three keys (two made over HTTP)
//! sees each with its label and last use and never a secret, revokes one (it stops acting over
//! HTTP at once) and signs out everywhere else, after which the page still works. Driven by
//! `tests/browser/account.mjs` (see `browser_harness`), in the light and the dark scheme.

use crate::browser_harness;
use crate::common;

use common::TestApp;

#[test]
fn a_player_sees_their_keys_revokes_one_and_signs_out_everywhere_else() {
    let app = TestApp::spawn();
    let result = browser_harness::run("account.mjs", &app.base);
    for scheme in ["light", "dark"] {
        assert_eq!(
            result[format!("left-{scheme}")],
            1,
            "{scheme}: one key left"
        );
    }
    browser_harness::no_overflow_nor_unnamed(&result);
    let shots = result["screenshots"].as_array().expect("screenshots");
    assert_eq!(shots.len(), 6, "{shots:?}");
}
