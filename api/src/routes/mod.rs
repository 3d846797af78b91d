//! One file per resource.

pub mod backup;
pub mod events;
pub mod forks;
pub mod games;
pub mod health;
pub mod imports;
pub mod kinds;
pub mod licence;
pub mod mail;
pub mod notices;
pub mod play;
pub mod players;
pub mod replay;
pub mod web;
pub mod webhooks;

/// The size of a page: `limit` (1 to `most`, a larger one is taken as `most`), or `default`.
/// `limit=0` asks for nothing and is refused with the schema's words.
pub(crate) fn page_size(
    limit: Option<usize>,
    default: usize,
    most: usize,
) -> Result<usize, crate::problem::ApiError> {
    match limit {
        Some(0) => Err(crate::problem::ApiError::new(
            crate::problem::ApiCode::BadQuery,
            format!("limit is 1 to {most} (a larger one gives {most})."),
        )),
        Some(limit) => Ok(limit.min(most)),
        None => Ok(default),
    }
}
