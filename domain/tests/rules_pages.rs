//! The rules inside the repository: each game's page in `docs/rules/` exists where `GET
//! /v1/kinds` says (`KindInfo::rules`), names the current revision of the game's rules with a
//! row for every revision, and every link and every test or function it names exists, so the
//! page cannot silently drift from the code.

use domain::Registry;
use std::fs;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Every Rust source of the domain crate, concatenated.
fn domain_sources() -> String {
    fn walk(dir: &Path, text: &mut String) {
        for entry in fs::read_dir(dir).expect("readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, text);
            } else if path.extension().is_some_and(|e| e == "rs") {
                text.push_str(&fs::read_to_string(&path).expect("readable"));
            }
        }
    }
    let mut text = String::new();
    let domain = repository().join("domain");
    walk(&domain.join("src"), &mut text);
    walk(&domain.join("tests"), &mut text);
    text
}

/// The targets of the relative links of a Markdown page: `[text](target)`.
fn links(page: &str) -> Vec<String> {
    page.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|target| !target.starts_with('#') && !target.starts_with("http"))
        .map(str::to_string)
        .collect()
}

/// The names in backticks that look like functions or tests: `snake_case_with_underscores`.
fn named_functions(page: &str) -> Vec<String> {
    page.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| {
            name.contains('_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn every_game_has_its_rules_page_with_every_revision() {
    let registry = Registry::standard();
    for kind in registry.kinds() {
        let info = kind.info();
        assert_eq!(info.rules, format!("docs/rules/{}.md", info.id));
        let page = fs::read_to_string(repository().join(&info.rules))
            .unwrap_or_else(|e| panic!("{}: {e}", info.rules));
        assert!(
            page.contains(&format!("Rules revision **{}**", info.revision)),
            "{} names revision {}",
            info.rules,
            info.revision
        );
        for revision in &info.revisions {
            assert!(
                page.contains(&format!("\n| {} | ", revision.revision)),
                "{} has a row for revision {}",
                info.rules,
                revision.revision
            );
        }
    }
}

#[test]
fn every_link_and_every_test_named_on_a_rules_page_exists() {
    let registry = Registry::standard();
    let sources = domain_sources();
    for kind in registry.kinds() {
        let info = kind.info();
        let path = repository().join(&info.rules);
        let page = fs::read_to_string(&path).expect("the page");
        let dir = path.parent().expect("docs/rules");
        for link in links(&page) {
            assert!(
                dir.join(&link).exists(),
                "{} links to {link}, which does not exist",
                info.rules
            );
        }
        for name in named_functions(&page) {
            assert!(
                sources.contains(&format!("fn {name}")) || sources.contains(&format!("\"{name}\"")),
                "{} names `{name}`, which is no function, test or code of the domain",
                info.rules
            );
        }
    }
}
