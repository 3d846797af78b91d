//! The api crate's integration tests. Each file is a
//! module of this one binary, so the dependency graph is linked once.

mod backup;
mod legacy_secrets;
mod openapi_current;
mod openapi_limits;
mod reindex;
mod stored_streams;
