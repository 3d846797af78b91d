//! The HTTP server of the Avalanche games: thin handlers over `domain` and `storage`.

pub mod archive;
pub mod auth;
pub mod clock;
pub mod configuration;
pub mod games;
pub mod offline;
pub mod openapi;
pub mod players;
pub mod problem;
pub mod routes;
pub mod startup;
pub mod state;
pub mod summary;
pub mod telemetry;
pub mod vacation;
pub mod webhooks;
