//! The revisions of the rules of Avalanche Chess (see [`crate::revision`]). Its rules have not
//! been revised: every game is played under revision 1, which `created` does not write. A
//! correction would add its revision here, as the other games do.

/// The revision new games are played under.
pub const CURRENT: u32 = crate::revision::FIRST;
