//! Rule revisions: a game is decided, folded and audited by the revision of its rules recorded
//! when it was created, so correcting a rule never makes a stored game invalid.
//!
//! Revision 1 is the rules every game was first served with. A correction makes a new revision
//! of one game's rules; its engine keeps the older behaviour for games created under an older
//! revision, and [`crate::KindInfo::revisions`] says what changed.

use serde::Serialize;
use utoipa::ToSchema;

/// The revision of the first rules of every game, and of every game stored before revisions
/// were recorded.
pub const FIRST: u32 = 1;

/// One revision of a game's rules and what it changed from the one before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct RuleRevision {
    /// 1, 2, ...
    pub revision: u32,
    /// What changed, one corrected rule a line; for revision 1, what it is.
    pub changes: Vec<String>,
}

impl RuleRevision {
    pub fn first() -> RuleRevision {
        RuleRevision {
            revision: FIRST,
            changes: vec!["The rules as first served.".into()],
        }
    }
}

/// Where a game's rules, as implemented, are written in the repository.
pub fn rules_page(id: &str) -> String {
    format!("docs/rules/{id}.md")
}

/// The revision of a `created` event that names none (serde's default).
pub fn first() -> u32 {
    FIRST
}

/// Whether the revision is the first, which a `created` event does not write.
pub fn is_first(revision: &u32) -> bool {
    *revision == FIRST
}
