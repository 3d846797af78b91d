//! The layering docs/architecture.md states, kept by the build: the application layer uses no
//! HTTP server, and no more than three files of a crate reach each other in a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

#[test]
fn the_application_layer_depends_on_no_http_server() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["tree", "-p", "app", "-e", "normal,build"])
        .args(["--prefix", "none", "--locked", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).expect("UTF-8");
    let crates: BTreeSet<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(
        crates.contains("domain") && crates.contains("storage"),
        "{tree}"
    );
    let http: Vec<_> = crates.iter().filter(|c| c.starts_with("actix")).collect();
    assert!(http.is_empty(), "app depends on {http:?}");
}

/// A crate's files by their module path (`mail::outbound::worker`), under `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut found = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let relative = path.strip_prefix(src).expect("under src");
            let name = relative.to_string_lossy().replace('\\', "/");
            let Some(stem) = name.strip_suffix(".rs") else {
                continue;
            };
            let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
            if parts == ["main"] {
                continue; // a crate of its own beside the library
            }
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            found.insert(parts, name);
        }
    }
    found
}

/// The paths a file names from its crate's root: `use crate::a::{b, c::D}` and `crate::a::b`
/// in its code (comments left out), and the same through `super::`.
fn named_paths(text: &str, parent: &[String]) -> Vec<Vec<String>> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut paths = Vec::new();
    for (start, base) in [("crate::", Vec::new()), ("super::", parent.to_vec())] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            paths.extend(expand(&base, path_text(&code[at + start.len()..])));
        }
    }
    paths
}

/// The text of the path at the start of `rest`: words, `::` and one `{...}` group.
fn path_text(rest: &str) -> &str {
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return &rest[..=i],
            '}' => depth -= 1,
            _ if depth > 0 || c.is_alphanumeric() || c == '_' || c == ':' => {}
            _ => return &rest[..i],
        }
    }
    rest
}

/// The paths of a use tree (`a::{b, c::{d, e as f}}`) below `prefix`.
fn expand(prefix: &[String], tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let (head, group) = match tree.find('{') {
        Some(open) => (
            &tree[..open],
            Some(&tree[open + 1..tree.rfind('}').unwrap_or(tree.len())]),
        ),
        None => (tree.split(" as ").next().unwrap_or(tree), None),
    };
    let mut path = prefix.to_vec();
    for word in head.split("::").map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "self" => {}
            "super" => {
                path.pop();
            }
            _ => path.push(word.to_string()),
        }
    }
    let Some(group) = group else {
        return vec![path];
    };
    let (mut items, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[from..]);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(|item| expand(&path, item))
        .collect()
}

/// The largest set of files of `src` that each reach all the others (Tarjan's strongly
/// connected components over the files the paths name).
fn largest_circle(src: &Path) -> Vec<String> {
    let modules = modules(src);
    let files: Vec<&String> = modules.values().collect();
    let index_of: BTreeMap<&String, usize> =
        files.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    let mut edges = vec![BTreeSet::new(); files.len()];
    for (module, file) in &modules {
        let text = std::fs::read_to_string(src.join(file)).expect("a source file");
        let parent = &module[..module.len().saturating_sub(1)];
        for path in named_paths(&text, parent) {
            let target = (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]));
            if let Some(target) = target.filter(|t| *t != file) {
                edges[index_of[file]].insert(index_of[target]);
            }
        }
    }
    // Tarjan, iterative over (node, its next edge).
    let n = files.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut largest) = (Vec::new(), 0, Vec::new());
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = edges[v].iter().nth(*edge) {
                *edge += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    component.push(files[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > largest.len() {
                    largest = component;
                }
            }
        }
    }
    largest.sort();
    largest
}

#[test]
fn no_more_than_three_files_of_app_or_api_reach_each_other_in_a_circle() {
    for krate in ["app/src", "api/src"] {
        let circle = largest_circle(&root().join(krate));
        assert!(
            circle.len() <= 3,
            "{krate}: {} files in a circle: {circle:?}",
            circle.len()
        );
    }
}

#[test]
fn a_circle_of_files_is_found() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::b::B;\n"),
        (
            "b.rs",
            "use crate::{\n    c::{self, C},\n    a as first,\n};\npub struct B;\n",
        ),
        ("c.rs", "// use crate::a;\npub struct C(crate::a::A);\n"),
    ];
    for (name, text) in files {
        std::fs::write(folder.path().join(name), text).expect("written");
    }
    assert_eq!(largest_circle(folder.path()), ["a.rs", "b.rs", "c.rs"]);
    std::fs::write(folder.path().join("c.rs"), "// crate::a::A\n").expect("written");
    assert_eq!(largest_circle(folder.path()), ["a.rs", "b.rs"]);
}
